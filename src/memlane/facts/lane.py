"""The exact lane (``mem.facts``): bi-temporal facts with exact, indexed lookups.

Validation and normalization happen here; the write rules live in
:mod:`memlane.facts.temporal`; storage executes their plans.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime, tzinfo
from typing import Any, Literal, overload

from memlane import collector
from memlane.errors import InvalidInput
from memlane.facts.bulk import (
    Assertion,
    CallShape,
    Checked,
    Groups,
    interval,
    payload_meta,
    plan_batch,
)
from memlane.facts.identifiers import IdentifierKeys
from memlane.facts.model import AttributeDef, Cardinality, Fact
from memlane.facts.normalize import PHONE_NORMALIZER, canonical_json
from memlane.facts.phones import check_region
from memlane.facts.temporal import Span, WritePlan, plan_assert, plan_retract
from memlane.storage.base import scope_key
from memlane.storage.fact_stores import FactStore, FactWriter, KeyWrite, Scope
from memlane.timeutil import (
    Clock,
    TimeInput,
    checked_now,
    from_micros,
    parse_instant,
    to_micros,
)
from memlane.validation import MAX_NAME_CHARS, fact_value, flag
from memlane.validation import name as _name

MAX_NAME_LENGTH = MAX_NAME_CHARS
"""Kept for importers; the rule lives in :mod:`memlane.validation`."""


class FactsLane:
    """Bi-temporal facts of one tenant. Reached as ``Memory.facts``; see BITEMPORAL.md.

    Example:
        >>> import memlane
        >>> with memlane.Memory(":memory:") as mem:
        ...     _ = mem.facts.set("U-001", "location", "Shanghai", valid_from="2026-03-01")
        ...     mem.facts.get("U-001", "location").value
        'Shanghai'
    """

    def __init__(
        self,
        store: FactStore,
        *,
        tenant: str,
        timezone: tzinfo,
        clock: Clock,
        region: str | None = None,
    ) -> None:
        self._store = store
        self._tenant = tenant
        # The country a phone number written the national way belongs to (None: unknown).
        self._identifiers = IdentifierKeys(check_region(region))
        self._zone = timezone
        self._clock = clock
        # Definitions cannot change once data exists, so a positive cache is safe for reads;
        # writes always read the stored definition inside their transaction.
        self._definitions: dict[str, AttributeDef] = {}
        self._undeclared: set[str] = set()
        # The latest transaction time this handle issued. "Now" never falls behind it, so a
        # write whose transaction time was bumped past a slow or frozen clock is still valid
        # "now" for the next read: a writer always reads its own writes.
        self._high_water: datetime | None = None

    @property
    def region(self) -> str | None:
        """The country a phone number written the national way belongs to (None: unknown)."""
        return self._identifiers.region

    @region.setter
    def region(self, region: str | None) -> None:
        self._identifiers.region = check_region(region)

    # -- definitions --------------------------------------------------------------------

    def define(
        self,
        attribute: str,
        *,
        cardinality: Cardinality = "one",
        identifier: bool = False,
        normalizer: str | Callable[[Any], str] | None = None,
    ) -> AttributeDef:
        """Declare an attribute's cardinality and whether it is an identifier.

        Repeating a definition is a no-op. Changing one is allowed only while the attribute
        holds no data.

        >>> mem.facts.define("phone", cardinality="many", identifier=True)  # doctest: +SKIP

        Raises:
            InvalidInput: a bad option, or a change to an attribute that holds data.
        """
        attribute = _name("attribute", attribute)
        if cardinality not in ("one", "many"):
            raise InvalidInput("cardinality", f"must be 'one' or 'many', got {cardinality!r}")
        definition = AttributeDef(
            name=attribute,
            cardinality=cardinality,
            identifier=flag("identifier", identifier),
            normalizer=self._identifiers.normalizer_name(attribute, identifier, normalizer),
        )
        with self._store.transaction() as writer:
            stored = writer.attribute(self._tenant, attribute)
            # Data written before a definition behaved as undeclared: defining it so is no change.
            held = stored or AttributeDef(name=attribute)
            if stored != definition:
                if held != definition and writer.attribute_in_use(self._tenant, attribute):
                    raise InvalidInput(
                        "attribute",
                        f"{attribute!r} already holds data as {_describe(held)}; "
                        f"it cannot become {_describe(definition)}",
                    )
                writer.put_attribute(self._tenant, definition, to_micros(self._now()))
        self._remember(attribute, definition)
        return definition

    def definition(self, attribute: str, *, fresh: bool = False) -> AttributeDef:
        """The attribute's definition (undeclared attributes are one-valued, not identifiers).

        Declared definitions never change once data exists, so they are cached for good.
        "Undeclared" is cached too, for the hot ``get`` path; ``fresh=True`` re-reads it, as
        ``lookup`` does, so an attribute another process just defined is found.
        """
        attribute = _name("attribute", attribute)
        declared = self._definitions.get(attribute)
        if declared is not None:
            return declared
        if attribute in self._undeclared and not fresh:
            return AttributeDef(name=attribute)
        return self._remember(attribute, self._store.attribute(self._tenant, attribute))

    def _remember(self, attribute: str, stored: AttributeDef | None) -> AttributeDef:
        if stored is None:
            self._undeclared.add(attribute)
            return AttributeDef(name=attribute)
        self._undeclared.discard(attribute)
        self._definitions[attribute] = stored
        return stored

    # -- writes -------------------------------------------------------------------------

    def set(
        self,
        subject: str,
        attribute: str,
        value: Any,
        valid_from: TimeInput | None = None,
        valid_to: TimeInput | None = None,
        *,
        source: str | None = None,
        reason: str | None = None,
        confidence: float = 1.0,
        provenance: Sequence[str] = (),
    ) -> Fact:
        """Assert that a one-valued attribute is ``value`` on ``[valid_from, valid_to)``.

        Overlapped versions are superseded (never overwritten) and their parts outside the
        interval kept; repeating a write that already holds is a no-op returning the
        existing version. ``valid_from`` defaults to the write's transaction time.

        Raises:
            InvalidInput: bad subject, attribute, value, times, or a many-valued attribute.
        """
        call = self._assertion(
            None, subject, attribute, value, valid_from, valid_to,
            source=source, reason=reason, confidence=confidence, provenance=provenance,
        )  # fmt: skip
        return self._assert("set", call)

    def add(
        self,
        subject: str,
        attribute: str,
        value: Any,
        valid_from: TimeInput | None = None,
        valid_to: TimeInput | None = None,
        *,
        source: str | None = None,
        reason: str | None = None,
        confidence: float = 1.0,
        provenance: Sequence[str] = (),
    ) -> Fact:
        """Assert one more value of a many-valued attribute (e.g. another phone number).

        Raises:
            InvalidInput: bad input, or a one-valued attribute (use :meth:`set`).
        """
        call = self._assertion(
            None, subject, attribute, value, valid_from, valid_to,
            source=source, reason=reason, confidence=confidence, provenance=provenance,
        )  # fmt: skip
        return self._assert("add", call)

    def retract(
        self,
        subject: str,
        attribute: str,
        valid_from: TimeInput | None = None,
        valid_to: TimeInput | None = None,
        *,
        value: Any = None,
    ) -> list[Fact]:
        """End what holds on ``[valid_from, valid_to)``: one value if ``value`` is given, else all.

        Returns the versions that were superseded (empty if nothing held).

        Raises:
            InvalidInput: bad subject, attribute, value or times.
        """
        subject, attribute = _name("subject", subject), _name("attribute", attribute)
        start_at, end_at = self._interval_inputs(valid_from, valid_to)
        with self._write_key(subject, attribute, start_at, end_at) as opened:
            tx, held = opened.tx, opened.believed
            definition = self._remember(attribute, opened.definition)
            keys = (None,) if value is None else self._identifiers.of(definition, value)
            start, end = interval(start_at, end_at, tx)
            for key in keys:  # the first reading of the value that is held
                believed = held if key is None else [span for span in held if span.key == key]
                if believed:
                    break
            plan = plan_retract(believed, start, end)
            if plan.is_noop:
                return []
            applied = opened.writer.apply(
                self._tenant, subject, attribute, plan.supersede, plan.insert, tx, last=True
            )
            return applied.superseded

    @overload
    def set_many(
        self, writes: Iterable[Mapping[str, Any]], *, returning: Literal[True] = True
    ) -> list[Fact]: ...

    @overload
    def set_many(
        self, writes: Iterable[Mapping[str, Any]], *, returning: Literal[False]
    ) -> int: ...

    def set_many(
        self, writes: Iterable[Mapping[str, Any]], *, returning: bool = True
    ) -> list[Fact] | int:
        """Apply many :meth:`set` calls (given as keyword mappings) in one transaction.

        The same outcome as calling :meth:`set` for each inside :meth:`batch`, computed in
        bulk: one read of every key's believed versions, one statement to close the
        superseded ones and one to insert the new ones. On PostgreSQL only the written keys
        are locked, so batches of other subjects run at the same time.

        Returns the version each call holds, as :meth:`set` does. With ``returning=False``,
        only how many calls hold a version this batch wrote (the others found theirs held
        already): no facts are built, none is read back, and on PostgreSQL no ids are
        reserved first (for a bulk load that needs no ids).

        >>> mem.facts.set_many([{"subject": "U-1", "attribute": "tier", "value": "gold"}])
        ... # doctest: +SKIP
        >>> mem.facts.set_many(writes, returning=False)  # doctest: +SKIP
        5000
        """
        flag("returning", returning)
        with collector.paused():  # its objects per version all live until it returns
            return self._set_many(writes, returning)

    def _set_many(self, writes: Iterable[Mapping[str, Any]], returning: bool) -> list[Fact] | int:
        checked = Checked()  # names and times repeat across a batch: checked once each
        try:
            calls = list(writes)
        except TypeError as error:
            raise InvalidInput("writes", f"expected an iterable of calls: {SET_CALLS}") from error
        try:
            assertions = [self._assertion(checked, **write) for write in calls]
        except TypeError as error:  # a call that is no mapping of set()'s arguments
            raise SET_CALLS.unfit("writes", calls, error) from error
        if not assertions:
            return [] if returning else 0
        groups = Groups.of(assertions)
        with self._store.transaction(groups.write_keys(self._tenant)) as writer:
            self._key_batch(writer, assertions, checked)
            first = writer.next_txs(to_micros(self._now()), len(assertions))
            self._high_water = from_micros(first + len(assertions) - 1)
            believed = writer.believed_of(self._tenant, groups.ranges(first))
            plan = plan_batch(assertions, believed, first, groups)
            if not returning:
                writer.write_versions(self._tenant, plan.closes, plan.versions, returning=False)
                return sum(isinstance(outcome, int) for outcome in plan.outcomes)
            # A no-op returns the version as it was then, before the batch closes it, if it does.
            held = {o.id: self._stored(o.id) for o in plan.outcomes if not isinstance(o, int)}
            inserted = writer.write_versions(self._tenant, plan.closes, plan.versions)
            return [
                inserted[outcome] if isinstance(outcome, int) else held[outcome.id]
                for outcome in plan.outcomes
            ]

    @contextmanager
    def batch(self, subject: str | None = None) -> Iterator[FactsLane]:
        """Group writes into one transaction: all commit together, or none does.

        Each write still gets its own, strictly increasing transaction time. With a
        ``subject``, batches of that subject take turns while every other write goes on (on
        PostgreSQL; each write in the batch locks its own key as it comes); without one, the
        batch locks every other write out for its whole length.

        >>> with mem.facts.batch():  # doctest: +SKIP
        ...     mem.facts.set("U-1", "tier", "gold")
        ...     mem.facts.add("U-1", "phone", "138-0000-1234")
        """
        keys = None if subject is None else [scope_key(self._tenant, subject, "facts")]
        with self._store.transaction(keys):
            yield self

    # -- reads --------------------------------------------------------------------------

    def get(
        self,
        subject: str,
        attribute: str,
        valid_at: TimeInput | None = None,
        known_at: TimeInput | None = None,
    ) -> Fact | None:
        """The version valid at ``valid_at`` (default now) as believed at ``known_at``.

        ``known_at=None`` reads the current belief, so a writer always sees its own writes.

        Raises:
            InvalidInput: bad arguments, or a many-valued attribute (use :meth:`get_all`).
        """
        subject = _name("subject", subject)
        definition = self.definition(attribute)
        if definition.cardinality == "many":
            raise InvalidInput("attribute", f"{attribute!r} is many-valued; use get_all()")
        scope = self._scope(valid_at, known_at)
        found = self._store.valid_at(self._tenant, subject, definition.name, scope, limit=1)
        return found[0] if found else None

    def get_all(
        self,
        subject: str,
        attribute: str,
        valid_at: TimeInput | None = None,
        known_at: TimeInput | None = None,
    ) -> list[Fact]:
        """Every version valid at ``valid_at`` as believed at ``known_at``, ordered by value."""
        subject = _name("subject", subject)
        attribute = _name("attribute", attribute)
        scope = self._scope(valid_at, known_at)
        found = self._store.valid_at(self._tenant, subject, attribute, scope, limit=None)
        return sorted(found, key=lambda fact: (canonical_json(fact.value), fact.valid_from))

    def history(
        self, subject: str, attribute: str, known_at: TimeInput | None = None
    ) -> list[Fact]:
        """The valid-time timeline believed at ``known_at`` (default: now), by ``valid_from``."""
        subject = _name("subject", subject)
        attribute = _name("attribute", attribute)
        known = None if known_at is None else to_micros(self._instant(known_at, "known_at"))
        return self._store.timeline(self._tenant, subject, attribute, known)

    def audit(self, subject: str, attribute: str | None = None) -> list[Fact]:
        """Every version ever stored, superseded and deleted ones included, by ``tx_from``."""
        subject = _name("subject", subject)
        attribute = None if attribute is None else _name("attribute", attribute)
        return self._store.versions(self._tenant, subject, attribute)

    def lookup(
        self,
        attribute: str,
        value: Any,
        valid_at: TimeInput | None = None,
        known_at: TimeInput | None = None,
    ) -> list[str]:
        """Subjects whose attribute held this value, however it is written; never approximate.

        Identifiers match by their key: ``"ord 2026 10003"`` finds ``"ORD-2026-10003"``, and a
        phone number finds every way of writing it (``"13700003333"`` finds
        ``"+86 137 0000 3333"``; see :mod:`memlane.facts.phones`).

        >>> mem.facts.lookup("phone", "138 0000 1234")  # doctest: +SKIP
        ['U-001']
        """
        fact_value("value", value)
        scope = self._scope(valid_at, known_at)  # bad times are refused even when nothing is held
        definition = self.definition(attribute, fresh=True)
        if definition.normalizer == "json" and attribute in self._undeclared:
            return []
        keys = self._identifiers.of(definition, value)
        return self._store.subjects_with(self._tenant, definition.name, keys, scope)

    def profile(
        self, subject: str, valid_at: TimeInput | None = None, known_at: TimeInput | None = None
    ) -> dict[str, Fact | list[Fact]]:
        """Every attribute of a subject at that point: a ``Fact``, or a list if many-valued."""
        subject = _name("subject", subject)
        scope = self._scope(valid_at, known_at)
        profile: dict[str, Fact | list[Fact]] = {}
        for fact in self._store.profile(self._tenant, subject, scope):
            if self.definition(fact.attribute).cardinality == "many":
                values = profile.setdefault(fact.attribute, [])
                assert isinstance(values, list)
                values.append(fact)
            else:
                profile[fact.attribute] = fact
        return profile

    def defined(self) -> list[AttributeDef]:
        """Every attribute defined in the tenant, by name."""
        return self._store.attributes(self._tenant)

    def in_use(self, attribute: str) -> bool:
        """True if any version of ``attribute`` was ever stored in the tenant (deleted too)."""
        attribute = _name("attribute", attribute)
        with self._store.transaction() as writer:
            return writer.attribute_in_use(self._tenant, attribute)

    # -- internals ----------------------------------------------------------------------

    def _assert(self, operation: str, call: Assertion) -> Fact:
        """Write one validated ``set`` or ``add`` (``operation``) in its own transaction."""
        subject, attribute, value = call.subject, call.attribute, call.value
        with self._write_key(subject, attribute, call.start, call.end) as opened:
            writer, tx, held = opened.writer, opened.tx, opened.believed
            definition = self._remember(attribute, opened.definition)
            many = self._check_operation(definition, operation)
            key = call.key
            if definition.identifier:
                key = self._identifiers.stored(definition, value)
            start, end = interval(call.start, call.end, tx)
            believed = [span for span in held if span.key == key] if many else held
            if many and not believed and definition.normalizer == PHONE_NORMALIZER:
                key, believed = self._held_otherwise(call, definition, key, held)
            plan = plan_assert(believed, key, start, end, call.payload(tx))
            return self._execute(writer, subject, attribute, plan, tx)

    @contextmanager
    def _write_key(
        self, subject: str, attribute: str, start: int | None, end: int | None
    ) -> Iterator[KeyWrite]:
        """A single write's transaction: its time, the stored definition, what it touches.

        The believed versions are those of every value touching ``[start, end]`` (``start``
        defaulting to the transaction time); the interval itself is checked afterwards.
        """
        now = to_micros(self._now())
        with self._store.write_key(
            self._tenant, subject, attribute, now=now, start=start, end=end
        ) as opened:
            self._high_water = from_micros(opened.tx)
            yield opened

    def _held_otherwise(
        self, call: Assertion, definition: AttributeDef, key: str, held: list[Span]
    ) -> tuple[str, list[Span]]:
        """The subject's believed versions of this phone number written another way, if any.

        ``held`` are its believed versions of every number on the interval; the number's
        other readings (:func:`~memlane.facts.phones.phone_keys`: up to three national
        parses) are computed only when it holds some.
        """
        for other in self._identifiers.of(definition, call.value)[1:] if held else ():
            found = [version for version in held if version.key == other]
            if found:
                return other, found  # the same value: the subject already holds it
        return key, []

    def _assertion(
        self,
        checked: Checked | None,
        /,
        subject: str,
        attribute: str,
        value: Any,
        valid_from: TimeInput | None = None,
        valid_to: TimeInput | None = None,
        *,
        source: str | None = None,
        reason: str | None = None,
        confidence: float = 1.0,
        provenance: Sequence[str] = (),
    ) -> Assertion:
        """The arguments of one ``set`` or ``add``, validated (the key: the value's JSON).

        ``checked`` (a batch's) keeps names, times and texts already checked, so each is checked
        once.
        """
        if checked is None:
            subject, attribute = _name("subject", subject), _name("attribute", attribute)
            start, end = self._interval_inputs(valid_from, valid_to)
        else:
            subject = checked.name("subject", subject)
            attribute = checked.name("attribute", attribute)
            start, end = checked.times_of(self._interval_inputs, valid_from, valid_to)
        if value is None:
            raise InvalidInput("value", "must not be None; use retract() to end a value")
        if checked is None:
            text = canonical_json(fact_value("value", value))
        else:
            text = checked.text(value)
        meta = payload_meta(source, reason, confidence, provenance)
        return Assertion(subject, attribute, text, start, end, value, *meta, text)

    def _key_batch(
        self, writer: FactWriter, assertions: Sequence[Assertion], checked: Checked
    ) -> None:
        """Check a batch's ``set`` calls against their stored definitions; key identifiers."""
        definitions = checked.definitions
        for attribute in dict.fromkeys(assertion.attribute for assertion in assertions):
            definition = self._definition_for_write(writer, attribute)
            self._check_operation(definition, "set")
            if definition.identifier:
                definitions[attribute] = definition
        for assertion in assertions if definitions else ():
            identifier = definitions.get(assertion.attribute)
            if identifier is not None:
                assertion.key = self._identifiers.stored(identifier, assertion.value)

    def _check_operation(self, definition: AttributeDef, operation: str) -> bool:
        """Whether the attribute is many-valued; refuses ``set`` on it and ``add`` otherwise."""
        many = definition.cardinality == "many"
        if many != (operation == "add"):
            other = "add" if many else "set"
            raise InvalidInput(
                "attribute",
                f"{definition.name!r} is {definition.cardinality}-valued; use {other}() "
                f"instead of {operation}()",
            )
        return many

    def _execute(
        self, writer: FactWriter, subject: str, attribute: str, plan: WritePlan, tx: int
    ) -> Fact:
        if plan.unchanged is not None:
            return self._stored(plan.unchanged.id)
        applied = writer.apply(
            self._tenant, subject, attribute, plan.supersede, plan.insert, tx, last=True
        )
        assert plan.asserted is not None
        return applied.inserted[plan.asserted]

    def _stored(self, fact_id: int) -> Fact:
        """A believed version read inside the transaction that found it."""
        existing = self._store.fact(self._tenant, fact_id)
        assert existing is not None, "a believed version vanished inside its transaction"
        return existing

    def _definition_for_write(self, writer: FactWriter, attribute: str) -> AttributeDef:
        return self._remember(attribute, writer.attribute(self._tenant, attribute))

    def _now(self) -> datetime:
        now = checked_now(self._clock)
        high_water = self._high_water
        return now if high_water is None or now >= high_water else high_water

    def _instant(self, value: TimeInput, field: str) -> datetime:
        return parse_instant(value, self._zone, field)

    def _interval_inputs(
        self, valid_from: TimeInput | None, valid_to: TimeInput | None
    ) -> tuple[int | None, int | None]:
        start = None if valid_from is None else to_micros(self._instant(valid_from, "valid_from"))
        end = None if valid_to is None else to_micros(self._instant(valid_to, "valid_to"))
        if start is not None and end is not None and end <= start:
            raise InvalidInput("valid_to", "must be later than valid_from")
        return start, end

    def _scope(self, valid_at: TimeInput | None, known_at: TimeInput | None) -> Scope:
        valid = self._now() if valid_at is None else self._instant(valid_at, "valid_at")
        known = None if known_at is None else to_micros(self._instant(known_at, "known_at"))
        return Scope(to_micros(valid), known)


SET_CALLS = CallShape.of(FactsLane._assertion, skip=2, name="set()")
"""What a call of ``set_many`` may hold: :meth:`FactsLane.set`'s arguments."""


def _describe(definition: AttributeDef) -> str:
    kind = "an identifier" if definition.identifier else "a plain attribute"
    return f"{definition.cardinality}-valued {kind} (normalizer {definition.normalizer})"
