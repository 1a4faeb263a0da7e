"""Adjudication, separate from retrieval: which recalled statements still hold, and the ranking.

Exact facts carry their status from the read (``current`` or ``historical``). Turns, notes
and summary lines are judged here, claim by claim (see :mod:`memlane.router.claims`):

1. **Against the exact lane** (claims about the subject on an attribute it holds): a
   statement that names a value the exact lane has since superseded, and not the current
   one, is stale ("U-001住在上海" while ``location`` is now 北京). A statement naming no known
   value is stale when the current one-valued fact is newer than it (its valid time began
   after the statement was made, or it was learned later) and did not come from it.
2. **Against later statements** (knowledge updates, no LLM): of the statements with the same
   holder and relation, the latest (by when said, then when stored) is current; earlier
   ones saying something else are stale ("favourite team is Arsenal" then "... is now
   Chelsea"). Summary lines are only superseded by statements made after the summary's
   whole period; they supersede nothing, since they restate the same turns as notes.

Ranking: every non-stale item before any stale one; then lane priority (exact answers,
window, workflows, notes, summaries, exact profile supplement); then status (current
before historical); then score; then recency. Notes come before summaries because a note
is one statement with its one turn of provenance, while a summary restates a whole
session: when both match, the precise one answers and the summary adds context.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, tzinfo

from memlane.extract import find_identifiers
from memlane.extract.rules import IDENTIFIER_ATTRIBUTES
from memlane.facts.model import Fact
from memlane.lang.changes import (
    Offer,
    offered,
    only_retracts,
    retractions,
    takes_back,
)
from memlane.lang.speaker import SPEAKER_PREFIX as _SPEAKER
from memlane.lang.words import shares_term
from memlane.router.candidates import (
    ON_TOPIC_BONUS,
    TIER_CONTEXT,
    TIER_OTHERS,
    Candidate,
    SubjectFacts,
    note_candidate,
)
from memlane.router.claims import SELF, Claim, claims, mentions, named
from memlane.router.evidence import Evidence, Statement, first_later, origins, turns_of
from memlane.router.slots import clauses, restates
from memlane.router.summary_lane import ABOUT, TOPICS, topics
from memlane.router.takeback import (
    chosen_over,
    only_takes_back,
    readdressed_by,
    replaced_in_frame,
    replaced_in_meaning,
    retracted_in,
    switched_from,
)
from memlane.summaries.notes import resolve_first_person
from memlane.summaries.sources import line_words
from memlane.summaries.text import is_question, normalize_for_dedupe

# "在上海工作" reads as an employer claim but usually names a work place: no timing rule.
_NO_TIMING_RULE = frozenset({"employer"})


@dataclass(frozen=True, slots=True)
class Verdict:
    """Why a statement is stale, since when, and the statement that replaced it (if any)."""

    reason: str
    since: datetime | None
    replacement: Statement | None = None


class Adjudicator:
    """Judges candidates of several subjects against facts and statements.

    Args:
        facts: the exact lane's view of a subject (see :class:`SubjectFacts`).
        evidence: a subject's notes and user turns, as evidence.
        timezone: how dates in reasons are written.
    """

    def __init__(
        self,
        facts: Callable[[str], SubjectFacts],
        evidence: Callable[[str], Evidence],
        timezone: tzinfo,
    ) -> None:
        self._facts = facts
        self._read_evidence = evidence
        self._zone = timezone
        self._by_subject: dict[str, Evidence] = {}
        self._query = ""
        self._offers: tuple[Offer, ...] = ()
        self._said_by: datetime | None = None
        self._fallen: list[tuple[frozenset[str], Verdict]] = []

    def judge(
        self,
        candidates: Sequence[Candidate],
        asked: Sequence[str] = (),
        query: str = "",
        said_by: datetime | None = None,
    ) -> list[Candidate]:
        """Mark stale candidates; split stale lines out of summaries; add replacements.

        A note that supersedes a recalled one is added (as a summary-lane item) when it was
        not recalled itself, so the agent sees the new value next to the old. Summary-lane
        statements that claim an ``asked`` attribute score higher: they are on topic. A
        statement whose every claim is about someone else ("my brother's favourite team is
        …") ranks after the subject's own, unless the ``query`` names that someone. Read as
        of an explicit moment ``said_by``, a summary's lines said after it are left out,
        as the statements said after it are.
        """
        wanted = frozenset(asked)
        self._said_by = said_by
        self._query = query.casefold()
        self._offers = offered(query)
        self._prepare(candidates)
        judged: list[Candidate] = []
        refs = {c.item.ref for c in candidates}
        self._fallen = []
        for candidate in candidates:
            if not candidate.judge or candidate.item.subject is None:
                judged.append(candidate)
            elif candidate.lines:
                judged.extend(self._judge_summary(candidate, wanted, refs))
            else:
                judged.extend(self._judge_one(candidate, wanted, refs))
        found_twice = not any(self._evidence(subject).tells_meaning for subject in self._by_subject)
        judged = [self._with_reply(candidate) for candidate in judged]
        return _in_place(judged, self._query, found_twice)

    def _with_reply(self, candidate: Candidate) -> Candidate:
        """A current statement whose assistant's reply was taken back falls with it.

        "Please order the iPad Air" got "Done — order ORD-1 is placed"; "cancel ORD-1" names
        only the order, and takes back the request with its confirmation.
        """
        if candidate.item.status != "current" or not candidate.judge or not self._fallen:
            return candidate
        turns = candidate.said_in()
        for asked, verdict in self._fallen:
            if turns and turns <= asked:
                return _stale(candidate, verdict)
        return candidate

    def _prepare(self, candidates: Sequence[Candidate]) -> None:
        """Let each subject's evidence read ahead what judging these candidates asks of it."""
        by_subject: dict[str, tuple[list[str], list[str]]] = {}
        for candidate in candidates:
            subject = candidate.item.subject
            if candidate.judge and subject is not None:
                texts = candidate.lines or [candidate.statement]
                found, turns = by_subject.setdefault(subject, ([], []))
                found.extend(
                    clause
                    for text in texts
                    if not is_question(text)
                    for clause in clauses(text, subject)
                )
                turns.extend(_cited(candidate))
        for subject, (found, turns) in by_subject.items():
            self._evidence(subject).prepare(found, turns)

    def said(self, candidate: Candidate) -> str:
        """What was said that ``candidate`` stands for: a fact's cited statements, else itself."""
        fact, subject = candidate.item.fact, candidate.item.subject
        if fact is None or subject is None:
            return candidate.statement
        cited = self._evidence(subject).citing(frozenset(fact.provenance))
        return "\n".join(found.text for found in cited)

    def _judge_one(
        self, candidate: Candidate, wanted: frozenset[str], refs: set[str]
    ) -> list[Candidate]:
        subject = candidate.item.subject
        assert subject is not None
        found = claims(candidate.statement, subject)
        candidate = _boost(candidate, found, wanted)
        if found and all(c.holder != SELF and not named(c.holder, self._query) for c in found):
            candidate = replace(candidate, tier=max(candidate.tier, TIER_OTHERS))
        verdict = self._verdict(candidate, found, candidate.statement)
        if verdict is None and only_takes_back(candidate.statement, subject, self._query):
            candidate = _historical(candidate)
        out = [candidate if verdict is None else _stale(candidate, verdict)]
        return out + self._replacing(candidate, verdict, refs)

    def _replacing(
        self, candidate: Candidate, verdict: Verdict | None, refs: set[str]
    ) -> list[Candidate]:
        """The note that made ``candidate`` stale, judged, when it was not recalled itself."""
        added = self._replacement(candidate, verdict, refs)
        if added is None or added.item.subject is None:
            return []
        refs.add(added.item.ref)
        again = self._verdict(added, claims(added.statement, added.item.subject), added.statement)
        return [added if again is None else _stale(added, again)]

    def _judge_summary(
        self, candidate: Candidate, wanted: frozenset[str], refs: set[str]
    ) -> list[Candidate]:
        candidate = self._by_topic(candidate)
        assert candidate.item.subject is not None
        kept: list[int] = []
        out: list[Candidate] = []
        on_topic: list[Claim] = []
        for index, line in enumerate(candidate.lines):
            found = claims(line, candidate.item.subject)
            if self._said_later(candidate, index):
                continue
            judged = self._line(candidate, index)
            verdict = self._verdict(judged, found, line)
            if verdict is not None:
                self._note_reply(candidate, index, verdict)
            verdict = verdict or self._answer_verdict(candidate, index)
            if verdict is None and not only_takes_back(line, candidate.item.subject, self._query):
                kept.append(index)
                on_topic.extend(found)
                continue
            alone = _line_alone(candidate, index)
            if verdict is None:  # "about: 别写钟霞" names the value that held before
                out.append(_historical(alone))
                continue
            out.append(_stale(alone, verdict))
            replacement = verdict.replacement
            if replacement is not None and takes_back(replacement.text, (replacement.subject,)):
                # what took it back, after what was found for the question itself
                added = self._replacing(candidate, verdict, refs)
                out.extend(
                    replace(c, tier=TIER_CONTEXT, item=replace(c.item, score=0.0)) for c in added
                )
        if kept:
            candidate, kept = _one_about(candidate, kept)
            lines = tuple(candidate.lines[i] for i in kept)
            text = f"{candidate.label}: " + "; ".join([*lines, *candidate.extras])
            item = replace(candidate.item, text=text, provenance=candidate.cited(kept))
            sources = tuple(
                candidate.line_sources[i] for i in kept if i < len(candidate.line_sources)
            )
            answered = tuple(candidate.answered[i] for i in kept if i < len(candidate.answered))
            whole = replace(
                candidate, item=item, lines=lines, line_sources=sources, answered=answered
            )
            out.insert(0, _boost(whole, on_topic, wanted))
        return out

    def _by_topic(self, candidate: Candidate) -> Candidate:
        """A summary whose "about:" line lists several topics, with one line per topic.

        A storyline's topics come from several sessions: "about: 洗牙取消周四, 洗牙约,
        周四晚上七点" restates the booking and what took it back. Judged as one line, it is
        as recent as the retraction and nothing later takes it back; judged topic by topic,
        each cites the turns whose statements share its words, and the old booking's
        topics fall. The topics still current are shown again as one line
        (:func:`_one_about`).
        """
        subject = candidate.item.subject
        if subject is None or not any(len(topics(line)) > 1 for line in candidate.lines):
            return candidate
        lines: list[str] = []
        sources: list[tuple[str, ...]] = []
        answered: list[tuple[str, tuple[str, ...]]] = []
        for index, line in enumerate(candidate.lines):
            cited = candidate.line_sources[index] if index < len(candidate.line_sources) else ()
            listed = topics(line)
            if len(listed) < 2:
                lines.append(line)
                sources.append(cited)
                answered.append(
                    candidate.answered[index] if index < len(candidate.answered) else ("", ())
                )
                continue
            said = self._evidence(subject).citing(frozenset(candidate.whole or cited))
            for topic in listed:
                lines.append(f"{ABOUT}: {topic}")
                sources.append(_topic_sources(topic, said) or cited)
                answered.append(("", ()))
        return replace(
            candidate, lines=tuple(lines), line_sources=tuple(sources), answered=tuple(answered)
        )

    def _note_reply(self, candidate: Candidate, index: int, verdict: Verdict) -> None:
        """Keep the turns an assistant's line that is taken back answers (:meth:`_with_reply`)."""
        if index < len(candidate.answered) and candidate.answered[index][1]:
            self._fallen.append((frozenset(candidate.answered[index][1]), verdict))

    def _said_later(self, candidate: Candidate, index: int) -> bool:
        """Whether a summary's line, dated by the turns it cites, was said after ``said_by``.

        The statements said after the moment read are not evidence at all: a line citing
        turns none of the statements visible then comes from was said later too.
        """
        sources = candidate.line_sources
        subject = candidate.item.subject
        if self._said_by is None or subject is None or index >= len(sources):
            return False
        if not sources[index]:
            return False  # not tied to its turns: the summary's period dates it
        said = self._evidence(subject).citing(frozenset(sources[index]))
        return not said or max(found.said for found in said) > self._said_by

    def _answer_verdict(self, candidate: Candidate, index: int) -> Verdict | None:
        """The verdict on the user's line an assistant's line answers, if it has one.

        "Booked: dentist, 11 March at 2:45" confirms "Book the dentist for 11 March at
        2:45"; once that is taken back ("cancel my dentist appointment"), so is the
        confirmation, though it names no note of its own to be judged by.
        """
        subject = candidate.item.subject
        if index >= len(candidate.answered) or subject is None:
            return None
        asked, sources = candidate.answered[index]
        if asked:
            user = replace(candidate, lines=(asked,), line_sources=(sources,))
            return self._verdict(self._line(user, 0), claims(asked, subject), asked)
        said = [found for found in self._evidence(subject).citing(frozenset(sources))]
        verdicts = [self._said_verdict(found, candidate) for found in said]
        if not said or None in verdicts:
            return None  # something the user said there still holds: so may the reply
        return max(verdicts, key=_since)

    def _said_verdict(self, found: Statement, candidate: Candidate) -> Verdict | None:
        """The verdict on one of a subject's statements, judged as a note of ``candidate``'s."""
        assert candidate.item.subject is not None
        judged = replace(
            candidate,
            said=found.said,
            learned=found.learned,
            said_late=None,
            turns=found.turns,
            lines=(),
        )
        return self._verdict(judged, found.claims, found.text)

    def _line(self, candidate: Candidate, index: int) -> Candidate:
        """A summary's line as said when the statements it cites were said, where known.

        A storyline spans months; judged as a whole, none of its lines is older than a
        retraction inside that span. Judged by its own statements, each line is. A line
        that repeats one of them word for word ("Email for receipts: h@example.com"; "叫我小韩
        就行" for the note "叫U-1小韩就行", which writes "I" as the subject) is dated by that one
        alone, not by a later one that also names its value ("please stop using
        h@example.com", "别叫小韩了"): that one takes it back.
        """
        cited = (
            frozenset(candidate.line_sources[index]) if index < len(candidate.line_sources) else ()
        )
        if not cited and index < len(candidate.answered):
            cited = frozenset(candidate.answered[index][1])  # a reply: said with what it answers
        subject = candidate.item.subject
        if not cited or subject is None:
            return candidate
        sources = self._evidence(subject).citing(frozenset(cited))
        if not sources:
            return candidate
        line = candidate.lines[index]
        said = {
            normalize_for_dedupe(line),
            normalize_for_dedupe(resolve_first_person(line, subject)),
        }
        verbatim = [
            found
            for found in sources
            if any(words in normalize_for_dedupe(found.text) for words in said)
        ]
        if verbatim:  # the statement the line repeats dates it, not one naming its value
            sources = verbatim
            cited = frozenset().union(*(turns_of(found.turns) for found in verbatim))
        latest = max(sources, key=lambda found: (found.said, found.learned))
        turns = frozenset(cited).union(*(found.turns for found in sources))
        return replace(
            candidate, said=latest.said, learned=latest.learned, said_late=None, turns=turns
        )

    def _verdict(self, candidate: Candidate, found: Sequence[Claim], text: str) -> Verdict | None:
        subject = candidate.item.subject
        if subject is None or candidate.said is None or candidate.learned is None:
            return None
        for claim in found:
            if claim.holder == SELF and claim.attribute is not None:
                verdict = self._against_facts(claim, candidate, subject)
                if verdict is not None:
                    return verdict
            verdict = self._against_statements(claim, candidate, subject)
            if verdict is not None:
                return verdict
        return (
            self._against_superseded(text, candidate, subject)
            or self._against_ended(text, candidate, subject)
            or self._against_slots(text, candidate, subject)
            or self._against_retractions(text, candidate, subject)
        )

    def _against_superseded(self, text: str, candidate: Candidate, subject: str) -> Verdict | None:
        """A statement naming a value the exact lane has since replaced, whatever its wording.

        "I'm in Seoul, if that matters" claims no relation memlane reads, but it names Seoul,
        an earlier ``location`` whose successor began (or was learned) after it was said.
        """
        assert candidate.said and candidate.learned
        held = self._facts(subject)
        for attribute, current in held.current.items():
            if attribute in held.many or not current:
                continue
            fact = current[0]
            if fact.valid_from <= candidate.said and fact.tx_from <= candidate.learned:
                continue  # the statement is newer than the current value
            if origins(fact.provenance) & candidate.turns or mentions(text, fact.value):
                continue
            old = [
                found
                for found in held.history(attribute)
                if _value_key(found.value) != _value_key(fact.value) and mentions(text, found.value)
            ]
            if old:
                reason = self._now(attribute, current, old[-1])
                return Verdict(reason, fact.valid_from)
        return None

    def _against_ended(self, text: str, candidate: Candidate, subject: str) -> Verdict | None:
        """A statement naming an identifier whose exact-lane value ended after it was said.

        Of a many-valued attribute (phones, e-mails, orders), where another value does not
        end the old one by itself: "You can reach me at a@x.com" after "New email: b@y.org
        — the old one is closed" retired a@x.com, though no word of the two is shared. Not a
        statement that takes a value back itself: "cancel ORD-1" is what ended ORD-1.
        """
        assert candidate.said
        if not _may_name_identifier(text) or takes_back(text, (subject,)):
            return None
        held = self._facts(subject)
        for mention in find_identifiers(text):
            attribute = IDENTIFIER_ATTRIBUTES.get(mention.kind)
            if attribute is None or attribute not in held.many:
                continue
            if any(mentions(mention.text, fact.value) for fact in held.current.get(attribute, [])):
                continue
            ended = [
                fact
                for fact in held.history(attribute)
                if fact.valid_to is not None
                and candidate.said < fact.valid_to
                and mentions(mention.text, fact.value)
            ]
            if ended:
                return Verdict(self._now(attribute, [], ended[-1]), ended[-1].valid_to)
        return None

    def _against_facts(self, claim: Claim, candidate: Candidate, subject: str) -> Verdict | None:
        assert claim.attribute is not None and candidate.said and candidate.learned
        held = self._facts(subject)
        current = held.current.get(claim.attribute, [])
        if any(mentions(claim.clause, fact.value) for fact in current):
            return None
        values = {_value_key(fact.value) for fact in current}
        superseded = [
            fact
            for fact in held.history(claim.attribute)
            if _value_key(fact.value) not in values and mentions(claim.clause, fact.value)
        ]
        if superseded:
            old = superseded[-1]
            since = current[0].valid_from if current else old.valid_to
            reason = self._now(claim.attribute, current, old)
            return Verdict(reason, since)
        if not current or claim.attribute in held.many or claim.attribute in _NO_TIMING_RULE:
            return None
        fact = current[0]
        if origins(fact.provenance) & candidate.turns:
            return None  # the fact was read from this very statement
        if fact.valid_from > candidate.said or fact.tx_from > candidate.learned:
            reason = self._now(claim.attribute, current, None)
            return Verdict(reason, fact.valid_from)
        return None

    def _against_statements(
        self, claim: Claim, candidate: Candidate, subject: str
    ) -> Verdict | None:
        assert candidate.said and candidate.learned
        after = (candidate.said_late or candidate.said, candidate.learned)
        latest = first_later(
            self._evidence(subject).claiming(claim.key), after, candidate.turns, _always
        )
        if latest is None:
            return None
        if any(found.value == claim.value for found in latest.claims if found.key == claim.key):
            return None
        return Verdict(f"later: {latest.text}", latest.said, latest)

    def _against_slots(self, text: str, candidate: Candidate, subject: str) -> Verdict | None:
        """A later statement that re-fills one of ``text``'s slots with another value."""
        assert candidate.said and candidate.learned
        if is_question(text):
            return None
        after = (candidate.said_late or candidate.said, candidate.learned)
        evidence = self._evidence(subject)
        later = []
        for old in clauses(text, subject):

            def refills(new: str, old: str = old) -> bool:
                return restates(old, new, asked=self._query) is not None

            found = evidence.refilling(old, (after, candidate.turns), refills)
            if found is not None:
                later.append(found)
        return _latest(later)

    def _against_retractions(self, text: str, candidate: Candidate, subject: str) -> Verdict | None:
        """A later statement that takes back what ``text`` says.

        It says a value ``text`` names no longer holds ("我离开华为了"), or switches what
        ``text`` arranged ("a window seat from now on"), or picks the other of two values
        an either-or question offers, or gives another street address in place of the one
        ``text`` gives, or is nearest in meaning to what ``text`` said ("No car anymore — I
        take the train" after "I drive to work"), or, when the embedder cannot tell
        meaning, follows what the speaker last said of themself.
        """
        assert candidate.said and candidate.learned
        after = (candidate.said_late or candidate.said, candidate.learned)
        evidence = self._evidence(subject)
        givers: dict[str, Statement] = {}

        def ties(found: Statement) -> bool:
            if (
                retracted_in(evidence, found.text, text, subject)
                or switched_from(evidence, found.text, text, subject)
                or chosen_over(found.text, text, subject, self._offers)
            ):
                return True
            giver = readdressed_by(evidence, found, text)
            if giver is not None:  # what answers in place of ``text``: it gives the new value
                givers[found.ref] = giver
                return True
            return replaced_in_meaning(evidence, found, candidate.turns) or replaced_in_frame(
                evidence, found, candidate.turns
            )

        latest = first_later(evidence.retracting(), after, candidate.turns, ties)
        if latest is not None:
            latest = givers.get(latest.ref, latest)
        return _latest([latest] if latest is not None else [])

    def _evidence(self, subject: str) -> Evidence:
        """The subject's statements, as judgements ask for them, read once per recall."""
        found = self._by_subject.get(subject)
        if found is None:
            found = self._by_subject[subject] = self._read_evidence(subject)
        return found

    def _replacement(
        self, candidate: Candidate, verdict: Verdict | None, refs: set[str]
    ) -> Candidate | None:
        if verdict is None or verdict.replacement is None or verdict.replacement.note is None:
            return None
        found = verdict.replacement
        if found.ref in refs:
            return None
        return note_candidate(found.note, found.subject, candidate.item.score, self._zone)

    def _now(self, attribute: str, current: list[Fact], old: Fact | None) -> str:
        if not current:
            assert old is not None
            ended = "" if old.valid_to is None else f" (ended {_day(old.valid_to, self._zone)})"
            return f"{attribute} {_show(old.value)} no longer holds{ended}"
        values = ", ".join(_show(fact.value) for fact in current)
        return f"{attribute} is now {values} (since {_day(current[0].valid_from, self._zone)})"


def _may_name_identifier(text: str) -> bool:
    """Whether ``text`` may hold a phone, an e-mail or an id: a digit or an ``@``."""
    return "@" in text or any(char.isdigit() for char in text)


def _cited(candidate: Candidate) -> list[str]:
    """The turns judging ``candidate`` reads the statements of (a fact's, its lines')."""
    fact = candidate.item.fact
    turns = list(fact.provenance) if fact is not None else []
    return turns + [turn for line in candidate.line_sources for turn in line]


def _since(verdict: Verdict | None) -> float:
    return 0.0 if verdict is None or verdict.since is None else verdict.since.timestamp()


def _always(_: object) -> bool:
    return True


def _latest(later: Sequence[Statement]) -> Verdict | None:
    """The verdict naming the latest of the statements that supersede a candidate, if any."""
    if not later:
        return None
    latest = max(later, key=lambda found: (found.said, found.learned))
    return Verdict(f"later: {latest.text}", latest.said, latest)


def _boost(candidate: Candidate, found: Sequence[Claim], wanted: frozenset[str]) -> Candidate:
    """Raise a summary-lane statement that claims an asked attribute ("住在…" for location).

    Only claims about the subject itself count: "my brother's favourite team is …" claims
    the asked relation, but of someone else, so it is not an answer about the subject.
    """
    if candidate.item.lane != "summary" or not wanted:
        return candidate
    if not any(
        claim.holder == SELF and (claim.attribute in wanted or claim.relation in wanted)
        for claim in found
    ):
        return candidate
    score = min(1.0, candidate.item.score + ON_TOPIC_BONUS)
    return replace(candidate, item=replace(candidate.item, score=score))


def _topic_sources(topic: str, said: Sequence[Statement]) -> tuple[str, ...]:
    """The turns of the statements a topic comes from, ``()`` when none shares a word of it.

    Those that hold it word for word, else those sharing the most of its words.
    """
    words = line_words(topic)
    verbatim = normalize_for_dedupe(topic)
    found = [s for s in said if verbatim and verbatim in normalize_for_dedupe(s.text)]
    if not found:
        shares = {id(s): len(words & line_words(s.text)) for s in said}
        most = max(shares.values(), default=0)
        found = [s for s in said if most and shares[id(s)] == most]
    return tuple(dict.fromkeys(turn for s in found for turn in sorted(turns_of(s.turns))))


def _one_about(candidate: Candidate, kept: list[int]) -> tuple[Candidate, list[int]]:
    """The topics :meth:`Adjudicator._by_topic` split, and that are ``kept``, joined again.

    The first kept topic's line becomes "about: a, b" citing the turns of every kept topic;
    the other topics' lines are left out of ``kept``.
    """
    about = [i for i in kept if topics(candidate.lines[i])]
    if len(about) < 2:
        return candidate, kept
    first = about[0]
    lines = list(candidate.lines)
    sources = list(candidate.line_sources)
    lines[first] = f"{ABOUT}: " + TOPICS.join(t for i in about for t in topics(lines[i]))
    if first < len(sources):
        sources[first] = tuple(
            dict.fromkeys(turn for i in about if i < len(sources) for turn in sources[i])
        )
    joined = replace(candidate, lines=tuple(lines), line_sources=tuple(sources))
    return joined, [i for i in kept if i == first or i not in about]


def _line_alone(candidate: Candidate, index: int) -> Candidate:
    """A summary's line as an item of its own, to be judged apart from the other lines."""
    item = replace(
        candidate.item,
        text=f"{candidate.label}: {candidate.lines[index]}",
        ref=f"{candidate.item.ref}#{index}",
        provenance=candidate.cited([index]),
    )
    return replace(candidate, item=item, lines=())


def _historical(candidate: Candidate) -> Candidate:
    """A statement that only takes a value back: ``historical``, after what holds now.

    "Not Bex anymore" is true, but what it names is the value that held before; the
    statement that gives the new one ("could you update my name to Rebecca?") answers.
    """
    item = replace(candidate.item, status="historical")
    return replace(candidate, item=item, tier=max(candidate.tier, TIER_OTHERS))


def _in_place(judged: list[Candidate], query: str, found_twice: bool) -> list[Candidate]:
    """A recalled note that made another stale scores at least as the one it replaced.

    Asked "how does the user get to work?", "I drive to work most days" is found first by
    its words and "I used to drive but now I take the train" after a complaint that shares
    none; once the first is stale, what replaced it is the answer in its place.

    With ``found_twice`` (an embedder that cannot tell meaning: the search ranks what shares
    no word with the query by chance), a speaker's retraction and what it took back were
    found once each for the same slot, and the retraction scores as the two together, as a
    fusion of rankings counts an item found by two: "SMS only please" and "Change of plan:
    please call me rather than text" are both recalled for "How does the customer want to
    be contacted?", and outrank "The discount code isn't working", found once and by
    chance. Only a retraction that gives what holds now (:func:`~memlane.lang.changes.takes_back`,
    not :func:`_only_back`): a statement restated for a slot many times ("The mayor of X
    is …" × 3) is not found more for it, and "Monday is out, sorry" tells no new time.
    """
    replaced = [c for c in judged if c.item.status == "stale" and c.replaced_by]
    withdrawn = [c for c in judged if c.note is not None and c.item.status == "historical"]
    if not replaced and not withdrawn:
        return judged
    only_back = {c.note.id for c in judged if c.note is not None and _only_back(c, query)}
    out = []
    for candidate in judged:
        if candidate.note is not None and candidate.item.status != "stale":
            olds = [old.item.score for old in replaced if _replaced(old, candidate)]
            olds += [back.item.score for back in withdrawn if _beside(back, candidate)]
            retracts = candidate.note.id not in only_back and takes_back(
                candidate.statement, (candidate.item.subject or "",)
            )
            score = candidate.item.score
            if olds and found_twice and retracts:
                score = min(1.0, score + max(olds))
            elif olds:
                score = max(score, *olds)
            if score > candidate.item.score:
                candidate = replace(candidate, item=replace(candidate.item, score=score))
        out.append(candidate)
    return out


def _beside(withdrawal: Candidate, note: Candidate) -> bool:
    """Whether ``note`` was said in the turn of a ``withdrawal`` that only takes a value back.

    "Please stop using a@x.com" is found for "where do I send the receipt?" by the old
    address; the sentence after it in the same turn ("Use b@y.org") says what holds now and
    answers in its place.
    """
    assert withdrawal.note is not None and note.note is not None
    return note.note.id != withdrawal.note.id and bool(
        turns_of(withdrawal.turns) & turns_of(note.turns)
    )


def _only_back(candidate: Candidate, query: str) -> bool:
    """Whether a note only takes back a value the query does not name ("Monday is out").

    Asked about the value itself ("what happened with the office chair?"), "Can you cancel
    the office chair?" is the answer, not the sentence beside it ("Changed my mind").
    """
    said = _SPEAKER.sub("", candidate.statement).strip()
    if not only_retracts(said, (candidate.item.subject or "",)):
        return False
    return not any(shares_term(found.terms, query) for found in retractions(said))


def _replaced(old: Candidate, note: Candidate) -> bool:
    """Whether the recalled ``note`` is the statement that made ``old`` stale.

    That note itself when the replacement is a stored note: a turn of several sentences
    is noted sentence by sentence, and the other notes of the replacing turn ("Gina does
    remember those dance classes!" beside "Gina used to love the studio") replaced
    nothing. Any note of its turns when the replacement is a window turn, which is no note.
    """
    assert note.note is not None
    if old.replaced_by_note is not None:
        return note.note.id == old.replaced_by_note
    return bool(old.replaced_by & note.turns)


def _stale(candidate: Candidate, verdict: Verdict) -> Candidate:
    item = replace(
        candidate.item,
        status="stale",
        superseded_by=verdict.reason,
        valid_to=verdict.since,
    )
    replacement = verdict.replacement
    replaced_by = replacement.turns if replacement else frozenset()
    note = replacement.note.id if replacement and replacement.note else None
    return replace(candidate, item=item, replaced_by=replaced_by, replaced_by_note=note)


def _value_key(value: object) -> str:
    return str(value).casefold()


def _show(value: object) -> str:
    return value if isinstance(value, str) else str(value)


def _day(instant: datetime, zone: tzinfo) -> str:
    return instant.astimezone(zone).date().isoformat()
