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
from dataclasses import replace
from datetime import datetime, tzinfo

from memlane.lang.changes import Offer, offered, takes_back
from memlane.router.candidates import (
    TIER_CONTEXT,
    TIER_OTHERS,
    Candidate,
    SubjectFacts,
    note_candidate,
)
from memlane.router.claims import SELF, Claim, claims, named
from memlane.router.evidence import Evidence, Statement, first_later, turns_of
from memlane.router.in_place import boost, in_place
from memlane.router.line_facts import LineFacts, said_keys, statement_key
from memlane.router.slots import clauses, names_value, restates
from memlane.router.summary_lane import ABOUT, TOPICS, topics
from memlane.router.takeback import Retracting, chosen_over, only_takes_back
from memlane.router.verdicts import (
    Verdict,
    against_ended,
    against_facts,
    against_superseded,
    always,
    historical,
    latest_verdict,
    since_key,
    stale,
)
from memlane.summaries.sources import line_words
from memlane.summaries.text import is_question, normalize_for_dedupe


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
        self._retractions: dict[tuple[str, str], Retracting] = {}

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
        return in_place(judged, self._query, found_twice)

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
                return stale(candidate, verdict)
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
        candidate = boost(candidate, found, wanted)
        if found and all(c.holder != SELF and not named(c.holder, self._query) for c in found):
            candidate = replace(candidate, tier=max(candidate.tier, TIER_OTHERS))
        verdict = self._verdict(candidate, found, candidate.statement)
        if verdict is None and only_takes_back(candidate.statement, subject, self._query):
            candidate = historical(candidate)
        out = [candidate if verdict is None else stale(candidate, verdict)]
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
        return [added if again is None else stale(added, again)]

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
            facts = candidate.facts.get(line)  # stored with the summary, when it was written
            judged = self._line(candidate, index, facts)
            verdict = self._verdict(judged, found, line, facts)
            if verdict is not None:
                self._note_reply(candidate, index, verdict)
            verdict = verdict or self._answer_verdict(candidate, index)
            if verdict is None and not self._only_takes_back(line, candidate.item.subject, facts):
                kept.append(index)
                on_topic.extend(found)
                continue
            alone = _line_alone(candidate, index)
            if verdict is None:  # "about: 别写钟霞" names the value that held before
                out.append(historical(alone))
                continue
            out.append(stale(alone, verdict))
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
            out.insert(0, boost(whole, on_topic, wanted))
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

    def _only_takes_back(self, line: str, subject: str, facts: LineFacts | None) -> bool:
        """:func:`only_takes_back` of a summary's line, from its stored facts if it has them."""
        if facts is None:
            return only_takes_back(line, subject, self._query)
        return facts.only_takes_back(self._query)

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
            facts = candidate.facts.get(asked)
            return self._verdict(self._line(user, 0, facts), claims(asked, subject), asked, facts)
        said = [found for found in self._evidence(subject).citing(frozenset(sources))]
        verdicts = [self._said_verdict(found, candidate) for found in said]
        if not said or None in verdicts:
            return None  # something the user said there still holds: so may the reply
        return max(verdicts, key=since_key)

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

    def _line(self, candidate: Candidate, index: int, facts: LineFacts | None = None) -> Candidate:
        """A summary's line as said when the statements it cites were said, where known.

        A storyline spans months; judged as a whole, none of its lines is older than a
        retraction inside that span. Judged by its own statements, each line is. A line
        that repeats one of them word for word ("Email for receipts: h@example.com"; "叫我小韩
        就行" for the note "叫U-1小韩就行", which writes "I" as the subject) is dated by that one
        alone, not by a later one that also names its value ("please stop using
        h@example.com", "别叫小韩了"): that one takes it back. ``facts``: the line's, as
        stored with the summary (its dedupe keys), if they were.
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
        said = facts.said if facts is not None else said_keys(line, subject)
        verbatim = [
            found for found in sources if any(words in statement_key(found.text) for words in said)
        ]
        if verbatim:  # the statement the line repeats dates it, not one naming its value
            sources = verbatim
            cited = frozenset().union(*(turns_of(found.turns) for found in verbatim))
        latest = max(sources, key=lambda found: (found.said, found.learned))
        turns = frozenset(cited).union(*(found.turns for found in sources))
        return replace(
            candidate, said=latest.said, learned=latest.learned, said_late=None, turns=turns
        )

    def _verdict(
        self,
        candidate: Candidate,
        found: Sequence[Claim],
        text: str,
        facts: LineFacts | None = None,
    ) -> Verdict | None:
        subject = candidate.item.subject
        if subject is None or candidate.said is None or candidate.learned is None:
            return None
        for claim in found:
            if claim.holder == SELF and claim.attribute is not None:
                verdict = against_facts(self._facts(subject), claim, candidate, self._zone)
                if verdict is not None:
                    return verdict
            verdict = self._against_statements(claim, candidate, subject)
            if verdict is not None:
                return verdict
        return (
            against_superseded(self._facts(subject), text, candidate, self._zone)
            or against_ended(self._facts(subject), text, candidate, subject, self._zone)
            or self._against_slots(text, candidate, subject)
            or self._against_retractions(text, candidate, subject, facts)
        )

    def _against_statements(
        self, claim: Claim, candidate: Candidate, subject: str
    ) -> Verdict | None:
        assert candidate.said and candidate.learned
        after = (candidate.said_late or candidate.said, candidate.learned)
        latest = first_later(
            self._evidence(subject).claiming(claim.key), after, candidate.turns, always
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

            def refills(new: str, old: str = old) -> bool | None:
                found = restates(old, new)  # the question's part after (see Refills)
                return None if found is None else not names_value(self._query, found)

            found = evidence.refilling(old, (after, candidate.turns), refills)
            if found is not None:
                later.append(found)
        return latest_verdict(later)

    def _against_retractions(
        self, text: str, candidate: Candidate, subject: str, facts: LineFacts | None = None
    ) -> Verdict | None:
        """A later statement that takes back what ``text`` says.

        It says a value ``text`` names no longer holds ("我离开华为了"), or switches what
        ``text`` arranged ("a window seat from now on"), or picks the other of two values
        an either-or question offers, or gives another street address in place of the one
        ``text`` gives, or is nearest in meaning to what ``text`` said ("No car anymore — I
        take the train" after "I drive to work"), or, when the embedder cannot tell
        meaning, follows what the speaker last said of themself. ``facts``: ``text``'s, as
        stored with its summary (the values it gives by kind), if they were.
        """
        assert candidate.said and candidate.learned
        after = (candidate.said_late or candidate.said, candidate.learned)
        evidence = self._evidence(subject)
        givers: dict[str, Statement] = {}
        kinds = None if facts is None else facts.kinds

        def ties(found: Statement) -> bool:
            later = self._retracting(subject, found)
            if later.names(text) or chosen_over(found.text, text, subject, self._offers):
                return True
            giver = later.giver(text, kinds)
            if giver is not None:  # what answers in place of ``text``: it gives the new value
                givers[found.ref] = giver
                return True
            return later.replaces(candidate.turns)

        latest = first_later(evidence.retracting(), after, candidate.turns, ties)
        if latest is not None:
            latest = givers.get(latest.ref, latest)
        return latest_verdict([latest] if latest is not None else [])

    def _retracting(self, subject: str, found: Statement) -> Retracting:
        """A later retraction of ``subject``'s, as every text is held against it this recall.

        What it takes back is read once, when the first text is held against it: ~80 texts
        are judged per recall, most against the same few retractions said after them.
        """
        key = (subject, found.ref)
        later = self._retractions.get(key)
        if later is None:
            later = self._retractions[key] = Retracting(self._evidence(subject), found, subject)
        return later

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


def _cited(candidate: Candidate) -> list[str]:
    """The turns judging ``candidate`` reads the statements of (a fact's, its lines')."""
    fact = candidate.item.fact
    turns = list(fact.provenance) if fact is not None else []
    return turns + [turn for line in candidate.line_sources for turn in line]


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
