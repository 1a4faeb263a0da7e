"""One set of input rules for every entry point: whatever can be written can be forgotten.

The entry-point tests run on every backend (PostgreSQL refuses NUL in text, SQLite and
psycopg refuse lone surrogates: both must meet ``InvalidInput`` before any driver does).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import memlane
from memlane import validation
from memlane.timeutil import INSTANT_PATTERN
from memlane.validation import MAX_NAME_CHARS, MAX_NOTE_CHARS, MAX_TURN_CHARS
from tests.conftest import FakeClock


@pytest.fixture
def backend(every_backend: str) -> str:
    return every_backend


@pytest.fixture
def memory(clock: FakeClock, scratch_url: str) -> Iterator[memlane.Memory]:
    with memlane.Memory(scratch_url, clock=clock, embedder="hash") as handle:
        yield handle


BAD_NAMES = [
    ("U-TRAIL ", "white space"),
    (" U-LEAD", "white space"),
    ("U\x00NUL", "control characters"),
    ("U\x1bESC", "control characters"),
    ("U" * (MAX_NAME_CHARS + 1), f"longer than {MAX_NAME_CHARS}"),
    ("U\ud800", "not valid Unicode"),
    ("", "empty"),
]

Call = Callable[[memlane.Memory, str], Any]
SUBJECT_CALLS: list[tuple[str, Call]] = [
    ("remember", lambda m, s: m.remember(s, "I moved to Berlin")),
    ("session", lambda m, s: m.session(s, "s-1")),
    ("add_turn", lambda m, s: m.add_turn(s, "s-1", "user", "I moved to Berlin")),
    ("facts.set", lambda m, s: m.facts.set(s, "location", "Berlin")),
    ("facts.get", lambda m, s: m.facts.get(s, "location")),
    ("facts.history", lambda m, s: m.facts.history(s, "location")),
    ("facts.audit", lambda m, s: m.facts.audit(s)),
    ("facts.profile", lambda m, s: m.facts.profile(s)),
    ("recall", lambda m, s: m.recall(s, "where does the user live?")),
    ("forget", lambda m, s: m.forget(s)),
    ("purge", lambda m, s: m.purge(subject=s)),
    ("views.audit", lambda m, s: m.views.audit(s)),
    ("views.active", lambda m, s: m.views.active(s)),
    # The router and the summary lane apply the same rule as the facade, not a looser one.
    ("router.recall", lambda m, s: m.router.recall(s, "where does the user live?")),
    ("summaries.storyline", lambda m, s: m.summaries.storyline(s)),
    ("summaries.notes", lambda m, s: m.summaries.notes(s)),
    ("summaries.search", lambda m, s: m.summaries.search(s, "Berlin")),
    ("summaries.search_notes", lambda m, s: m.summaries.search_notes(s, "Berlin")),
    ("index.pending", lambda m, s: m.index.pending(s)),
    ("index.run", lambda m, s: m.index.run(s)),
]


@pytest.mark.parametrize(("bad", "says"), BAD_NAMES, ids=[b[1] for b in BAD_NAMES])
@pytest.mark.parametrize(("entry", "call"), SUBJECT_CALLS, ids=[c[0] for c in SUBJECT_CALLS])
def test_every_entry_point_refuses_the_same_subjects(memory, entry, call, bad, says):
    with pytest.raises(memlane.InvalidInput, match=says) as raised:
        call(memory, bad)
    assert raised.value.field == "subject"
    assert memory.views.compliance() == []
    assert memory.running_session(None, "s-1") is None


def test_a_subject_of_the_longest_length_is_written_and_forgotten(memory):
    longest = "U" * MAX_NAME_CHARS
    memory.remember(longest, "my e-mail is kim@example.org")
    memory.forget(longest)
    assert memory.views.audit(longest).notes[0].deleted_at is not None


@pytest.mark.parametrize(
    ("field", "write"),
    [
        ("session_id", lambda m: m.session("U-1", "s-1 ")),
        ("attribute", lambda m: m.facts.set("U-1", "loc\ud800", "x")),
        ("attribute", lambda m: m.forget("U-1", attribute="email\x00")),
        ("value", lambda m: m.facts.set("U-1", "location", "Berlin\ud800")),
        ("value", lambda m: m.facts.set("U-1", "location", {"city\udc00": "Berlin"})),
        ("value", lambda m: m.facts.set("U-1", "location", ["Berlin", ["\ud83d"]])),
        ("value", lambda m: m.facts.lookup("location", "Berlin\ud800")),
        ("text", lambda m: m.remember("U-1", "I moved to Berlin \ud800")),
        ("text", lambda m: m.remember("U-1", "I moved to Berlin\x00")),
        ("text", lambda m: m.remember("U-1", "x" * (MAX_NOTE_CHARS + 1))),
        ("text", lambda m: m.remember("U-1", " \n\t ")),
        ("source", lambda m: m.remember("U-1", "I moved to Berlin", source="\ud800")),
        ("source", lambda m: m.facts.set("U-1", "location", "Berlin", source="a\x00b")),
        ("reason", lambda m: m.forget("U-1", reason="GDPR \udfff")),
        ("content", lambda m: m.add_turn("U-1", "s-1", "user", "I moved to Berlin \ud800")),
        ("content", lambda m: m.add_turn("U-1", "s-1", "user", "Berlin\x00")),
        ("content", lambda m: m.add_turn("U-1", "s-1", "user", "x" * (MAX_TURN_CHARS + 1))),
        ("speaker", lambda m: m.add_turn("U-1", "s-1", "user", "hello", speaker="Kim ")),
        ("task", lambda m: m.workflows.record("Refund \ud800", [{"action": "refund"}])),
        (
            "steps",
            lambda m: m.workflows.record("Refund", [{"action": "r", "args": {"a": "\ud800"}}]),
        ),
    ],
)
def test_bad_text_and_values_are_refused_naming_the_field(memory, field, write):
    with pytest.raises(memlane.InvalidInput) as raised:
        write(memory)
    assert raised.value.field == field
    assert memory.facts.audit("U-1") == []
    assert memory.summaries.notes("U-1") == []
    assert memory.running_session("U-1", "s-1") is None


EDGES = [
    ("0001-01-01T00:00:00+14:00", "UTC"),
    ("9999-12-31T23:59:59-12:00", "UTC"),
    ("0001-01-01", "Asia/Shanghai"),
    ("0001-01-01", "UTC"),
    ("9999-12-31", "America/New_York"),
    ("9999-12-31T23:59:59.999999+00:00", "Asia/Shanghai"),
]
TIMED: list[tuple[str, Callable[[memlane.Memory, str], Any]]] = [
    ("valid_from", lambda m, t: m.facts.set("U-1", "location", "Berlin", valid_from=t)),
    ("valid_to", lambda m, t: m.facts.set("U-1", "location", "Berlin", valid_to=t)),
    ("valid_at", lambda m, t: m.facts.get("U-1", "location", valid_at=t)),
    ("known_at", lambda m, t: m.facts.history("U-1", "location", known_at=t)),
    ("at", lambda m, t: m.remember("U-1", "I moved to Berlin last week", at=t)),
    ("at", lambda m, t: m.add_turn("U-1", "s-1", "user", "I moved to Berlin last week", at=t)),
    ("valid_at", lambda m, t: m.recall("U-1", "where does the user live?", valid_at=t)),
]


@pytest.mark.parametrize(("instant", "zone"), EDGES)
@pytest.mark.parametrize(
    ("field", "call"), TIMED, ids=[f"{f}-{i}" for i, (f, _) in enumerate(TIMED)]
)
def test_times_at_the_edges_of_the_calendar_are_refused(clock, instant, zone, field, call):
    with memlane.Memory(":memory:", clock=clock, timezone=zone, embedder="hash") as memory:
        with pytest.raises(memlane.InvalidInput, match="out of range") as raised:
            call(memory, instant)
        assert raised.value.field == field
        assert memory.running_session("U-1", "s-1") is None


@pytest.mark.parametrize(
    ("instant", "zone"),
    [("0002-01-02", "Pacific/Kiritimati"), ("9998-12-30", "Etc/GMT+12"), ("0002-01-01", "UTC")],
)
def test_the_first_and_last_accepted_days_work_in_any_zone(clock, instant, zone):
    with memlane.Memory(":memory:", clock=clock, timezone=zone, embedder="hash") as memory:
        memory.remember("U-1", "I moved to Berlin last week, call me next Monday", at=instant)
        turn = memory.add_turn("U-1", "s-1", "user", "我上周搬到北京了，下周一见", at=instant)
        assert turn.at.tzinfo is not None
        memory.facts.set("U-1", "city", "Berlin", valid_from=instant)
        assert memory.facts.get("U-1", "city", valid_at=instant).value == "Berlin"
        assert memory.recall("U-1", "where does the user live?", valid_at=instant).items
        memory.session("U-1", "s-1").close()


def test_a_turn_that_fails_leaves_no_empty_session(memory):
    with pytest.raises(memlane.InvalidInput):
        memory.add_turn("U-1", "s-1", "user", "hello", at="0001-01-01T00:00:00+14:00")
    assert memory.running_session("U-1", "s-1") is None
    memory.add_turn("U-1", "s-1", "user", "hello")
    with pytest.raises(memlane.InvalidInput):  # a running session stays running
        memory.add_turn("U-1", "s-1", "user", "\x00")
    assert memory.running_session("U-1", "s-1") is not None


class _BrokenExtractor:
    """An extractor that crashes (not a MemlaneError): the turn fails after the session opened."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def attributes(self) -> Any:
        return self._inner.attributes()

    def extract(self, *_: object, **__: object) -> Any:
        raise RuntimeError("extractor crashed")


def test_a_turn_that_crashes_leaves_no_empty_session(clock):
    with memlane.Memory(":memory:", clock=clock, embedder="hash") as probe:
        extractor = _BrokenExtractor(probe.extractor)
    with memlane.Memory(":memory:", clock=clock, embedder="hash", extractor=extractor) as memory:
        with pytest.raises(RuntimeError):
            memory.add_turn("U-1", "s-1", "user", "I moved to Berlin")
        assert memory.running_session("U-1", "s-1") is None


def test_the_ingest_log_never_names_the_subject(caplog):
    clock = FakeClock(datetime(2026, 3, 2, tzinfo=UTC))
    with memlane.Memory(":memory:", clock=clock, embedder="hash") as memory:
        # An identifier definition the extracted city cannot meet: the write is refused.
        memory.facts.define("location", identifier=True, normalizer="email")
        with caplog.at_level(logging.DEBUG, logger="memlane"):
            memory.remember("U-SECRET-42", "I moved to Berlin last week")
    refused = [r for r in caplog.records if r.name == "memlane.ingest"]
    assert refused, "the refused write was not logged"
    assert not any("U-SECRET-42" in r.getMessage() for r in caplog.records)


# -- the rules themselves ----------------------------------------------------------------

NASTY = st.text(
    alphabet=st.one_of(
        st.sampled_from(" \t\n\r\x00\x01\x0b\x0c\x1f\x7f\x85\xa0\u2028\u3000\ufeffaZ9-_中"),
        st.characters(codec=None),
    ),
    max_size=12,
)
FAST = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))


def _accepts(rule: Callable[[], object]) -> bool:
    try:
        rule()
    except memlane.InvalidInput:
        return False
    return True


@FAST
@given(NASTY)
def test_the_published_name_pattern_is_the_rule(candidate):
    published = re.fullmatch(validation.NAME_PATTERN, candidate) is not None
    unicode = not re.search("[\ud800-\udfff]", candidate)
    assert _accepts(lambda: validation.name("subject", candidate)) == (published and unicode)


@FAST
@given(NASTY)
def test_the_published_text_pattern_is_the_rule(candidate):
    published = re.fullmatch(validation.TEXT_PATTERN, candidate) is not None
    unicode = not re.search("[\ud800-\udfff]", candidate)
    accepted = _accepts(lambda: validation.text("text", candidate, MAX_NOTE_CHARS))
    assert accepted == (published and unicode)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(NASTY)
def test_whatever_can_be_written_can_be_forgotten(candidate):
    clock = FakeClock(datetime(2026, 3, 2, tzinfo=UTC))
    with memlane.Memory(":memory:", clock=clock, embedder="hash") as memory:
        written = _accepts(lambda: memory.remember(candidate, "my e-mail is kim@example.org"))
        forgotten = _accepts(lambda: memory.forget(candidate))
        assert written == forgotten
        if written:
            assert memory.summaries.notes(candidate) == []
            assert memory.views.audit(candidate).notes[0].deleted_at is not None


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    st.from_regex(INSTANT_PATTERN, fullmatch=True),
    st.sampled_from(["UTC", "Asia/Shanghai", "Pacific/Kiritimati", "Etc/GMT+12"]),
)
def test_every_time_the_openapi_pattern_allows_parses(written, zone):
    from memlane.timeutil import EARLIEST, LATEST, parse_instant, resolve_timezone

    assert EARLIEST <= parse_instant(written, resolve_timezone(zone), "at") <= LATEST


def test_a_lookup_refuses_a_bad_time_even_of_an_unknown_attribute(memory):
    with pytest.raises(memlane.InvalidInput) as raised:
        memory.facts.lookup("never-defined", "x", valid_at="#M3t(")
    assert raised.value.field == "valid_at"


QUERY_CALLS: list[tuple[str, Call]] = [
    ("recall", lambda m, q: m.recall("U-1", q)),
    ("summaries.search", lambda m, q: m.summaries.search("U-1", q)),
    ("summaries.search_notes", lambda m, q: m.summaries.search_notes("U-1", q)),
]


@pytest.mark.parametrize(("entry", "call"), QUERY_CALLS, ids=[c[0] for c in QUERY_CALLS])
def test_every_search_takes_queries_up_to_the_same_length(memory, entry, call):
    call(memory, "x" * validation.MAX_QUERY_CHARS)
    with pytest.raises(memlane.InvalidInput, match=f"longer than {validation.MAX_QUERY_CHARS}"):
        call(memory, "x" * (validation.MAX_QUERY_CHARS + 1))


def test_a_query_needs_a_letter_or_digit_of_any_script():
    assert validation.query("query", "几点？") == "几点？"
    assert validation.query("query", "٣") == "٣"
    with pytest.raises(memlane.InvalidInput, match="query: has no letters or digits"):
        validation.query("query", "?! …")


NOT_FLAGS = ["no", "False", 0, 1, None]
"""What Python reads as true or false, and no flag is: ``"no"`` is true."""
FLAG_CALLS: list[tuple[str, Callable[[memlane.Memory, Any], Any]]] = [
    ("purge(immediately)", lambda m, v: m.purge(immediately=v)),
    ("recall(include_stale)", lambda m, v: m.recall("U-1", "where?", include_stale=v)),
    ("sweep(every_tenant)", lambda m, v: m.sweep(every_tenant=v)),
    ("facts.define(identifier)", lambda m, v: m.facts.define("badge", identifier=v)),
    (
        "facts.set_many(returning)",
        lambda m, v: m.facts.set_many(
            [{"subject": "U-1", "attribute": "a", "value": 1}], returning=v
        ),
    ),
    ("workflows.record(success)", lambda m, v: m.workflows.record("Refund ORD-1", [], success=v)),
    ("index.run(every_tenant)", lambda m, v: m.index.run(every_tenant=v)),
]


@pytest.mark.parametrize("bad", NOT_FLAGS, ids=repr)
@pytest.mark.parametrize(("entry", "call"), FLAG_CALLS, ids=[c[0] for c in FLAG_CALLS])
def test_every_flag_takes_true_or_false_only(memory, entry, call, bad):
    with pytest.raises(memlane.InvalidInput, match="must be True or False"):
        call(memory, bad)


def test_a_purge_told_no_in_words_purges_nothing(memory):
    memory.remember("U-1", "My passport number is X1234567")
    memory.forget("U-1", reason="erasure request")
    with pytest.raises(memlane.InvalidInput, match="immediately: must be True or False"):
        memory.purge("U-1", immediately="no")
    (deletion,) = memory.views.compliance()
    assert deletion.purged_at is None
    assert memory.purge("U-1", immediately=True).deletions == (deletion.id,)  # what "no" did


def test_a_memory_keeps_transcripts_only_when_told_true(scratch_url):
    with pytest.raises(memlane.InvalidInput, match="retain_transcripts: must be True or False"):
        memlane.Memory(scratch_url, embedder="hash", retain_transcripts="no")


@pytest.mark.parametrize("bad", [-1, -0.001, float("nan"), True, "10", 10.0**300], ids=repr)
def test_a_wait_takes_none_or_seconds(memory, bad):
    with pytest.raises(memlane.InvalidInput, match="timeout: must be None or seconds from 0"):
        memory.index.wait(timeout=bad)


@pytest.mark.parametrize("timeout", [None, 0, 2, 0.5])
def test_a_wait_with_nothing_pending_returns_at_once(memory, timeout):
    assert memory.index.wait(timeout=timeout) is True


def test_a_run_reports_progress_to_a_callable_only(memory):
    with pytest.raises(memlane.InvalidInput, match="progress: must be None or a callable"):
        memory.index.run(progress=5)
