"""Which turns a summary line restates, and which lines of a summary a query is about.

A stored summary cites every turn of its session (a storyline: of every session), but one
of its lines restates one or two turns. Notes are atomic statements that each cite their
turn, so a line's turns are read back from the subject's notes: the turns of the notes that
share most of the line's words. Words are weighted by how rare they are among the notes, so
a speaker's name, said in half the notes, neither ties a line to a turn nor makes a line
relevant to a question naming that speaker.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from memlane.lang.script import fold
from memlane.memo import per_process
from memlane.summaries.key_kinds import CITES, NOTE, WORD
from memlane.summaries.linedata import LineData
from memlane.summaries.lines import split_label
from memlane.summaries.model import Note, Summary
from memlane.summaries.sources_kept import Said, sized
from memlane.summaries.text import keywords, mask_spans

_TURN_ID = re.compile(r"#\d+$")
_PIECES = "; "  # "earlier: a; b; c" lines fold snippets of several turns
_NOT_SPEAKERS = frozenset({"assistant", "tool", "earlier"})
_NAME_WORDS = 3
_FIRST_SAID_WORDS = 4
"""How many of a reply's rarest words :meth:`WeightedLines.first_said` looks for."""
_NOTES = ("notes",)
"""The tally of how many notes hold keys, among the kept reads' tallies."""
_NOT_ASKED: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())
"""What is kept of a note asked nothing yet: no word asked, none held."""
Shown = tuple[Sequence[str], frozenset[str]]
"""A summary's lines and the turns it cites, as :meth:`WeightedLines.choose` takes them."""
FEW_TURNS = 64
"""A summary citing at most this many turns has its lines tied to the notes citing them."""


@per_process
def line_words(text: str) -> frozenset[str]:
    """The comparison keywords of a line or query, lower-cased."""
    return frozenset(ordered_words(text))


@per_process
def ordered_words(text: str) -> tuple[str, ...]:
    """:func:`line_words` in the order :func:`keywords` finds them, each once.

    Where words tie, the first found wins: never the order of a set, which changes with
    the process's string hashing (``PYTHONHASHSEED``), so that one memory answers one
    question the same way in every process.
    """
    return tuple(dict.fromkeys(word.casefold() for word in keywords(text)))


def seen_key(line: str) -> str:
    """A line as compared with lines already shown (case and width folded)."""
    return fold(line).strip()


@dataclass(frozen=True, slots=True)
class LineChoice:
    """The lines of a summary shown for a query, best first, each with the turns it cites.

    ``matched`` is false when no line is about the query (all are shown, in order).
    """

    lines: tuple[str, ...]
    sources: tuple[tuple[str, ...], ...]
    matched: bool

    def without(self, seen: set[str]) -> LineChoice:
        """The choice less the lines whose :func:`seen_key` is in ``seen``."""
        kept = [i for i, line in enumerate(self.lines) if seen_key(line) not in seen]
        lines = tuple(self.lines[i] for i in kept)
        return LineChoice(lines, tuple(self.sources[i] for i in kept), self.matched)

    @property
    def provenance(self) -> tuple[str, ...]:
        """The cited turns, line by line, without repeats."""
        return tuple(dict.fromkeys(turn for turns in self.sources for turn in turns))


def speakers(summary: Summary | None) -> frozenset[str]:
    """The people a summary quotes: the labels of its lines ("Caroline: I moved" → caroline).

    Lines of the subject itself, the assistant and tools carry no such label. A user's own
    line may still look labelled ("cell: 415-555-0181", "Save my dentist's number for me:
    +1-212…"): a label is taken for a speaker only when it is shaped like a name and what
    follows it says something besides a value (:func:`_quotes_someone`).
    """
    if summary is None:
        return frozenset()
    found: set[str] = set()
    for line in (*summary.facts, *summary.open_items):
        label, body = split_label(line)
        if label and label not in _NOT_SPEAKERS and _quotes_someone(label, body):
            found.update(line_words(label))
    return frozenset(found)


@per_process  # a storyline's lines, asked at every recall of its subject
def _quotes_someone(label: str, body: str) -> bool:
    """Whether ``label: body`` quotes a person, not a field name before its value.

    A person: a name (at most three words, each Latin one capitalized) before words of
    their own, identifiers and dates aside.

    >>> _quotes_someone("Caroline", "I moved"), _quotes_someone("小王", "我搬家了")
    (True, True)
    >>> _quotes_someone("cell", "415-555-0181"), _quotes_someone("Email", "ann@example.com")
    (False, False)
    >>> _quotes_someone("Save my dentist's number for me", "call them at 9")
    False
    """
    words = label.split()
    if len(words) > _NAME_WORDS or any(w[0].isascii() and not w[0].isupper() for w in words):
        return False
    return bool(keywords(mask_spans(body)))


def without_speakers(query: str, names: frozenset[str]) -> str:
    """``query`` without the speakers' names, when it asks about something else too.

    In a conversation between people, every statement names its speaker, so a name finds
    everything its speaker said and ranks nothing; whose statement answers is judged after
    the search (see :mod:`memlane.router.adjudicate`), on the whole query.
    """
    asked = line_words(query)
    if not asked & names or not asked - names:
        return query
    kept = [word for word in query.split() if not line_words(word) or not line_words(word) <= names]
    return " ".join(kept)


class WeightedLines:
    """Weighs words by how rare they are among a subject's notes, to choose and cite lines.

    Subclasses say how many notes there are (:meth:`_size`), how many hold a word
    (:meth:`_held`), and which notes citing turns share the words of a line (:meth:`_shared`).
    """

    def _size(self) -> int:
        raise NotImplementedError

    def _held(self, word: str) -> int:
        raise NotImplementedError

    def _prefetch(self, words: Iterable[str]) -> None:
        """Read ahead what :meth:`_held` will be asked (nothing to do for notes in memory)."""

    def prepare(self, query: str, summaries: Sequence[Shown]) -> None:
        """Read ahead what :meth:`choose` will ask for these summaries (nothing here)."""

    def _shared(
        self,
        weights: dict[str, float],
        within: frozenset[str] | None,
        *,
        earliest_first: bool = False,
    ) -> list[tuple[tuple[str, ...], float]]:
        """Per note citing turns (``within``), its turns and the weight of ``weights`` it holds.

        Notes sharing no word are left out; the others come in the order of the first word of
        ``weights`` they hold, then as said (``earliest_first``: as said alone).
        """
        raise NotImplementedError

    def idf(self, word: str) -> float:
        """Robertson–Spärck Jones weight, floored at 0: a word in half the notes weighs 0."""
        held, count = self._held(word), self._size()
        return max(0.0, math.log((count - held + 0.5) / (held + 0.5)))

    def rarity(self, word: str) -> float:
        """A weight that is always positive (the BM25 ``log(1 + …)`` form), for attribution."""
        held, count = self._held(word), self._size()
        return math.log(1 + (count - held + 0.5) / (held + 0.5))

    def sources(self, line: str, within: frozenset[str] | None = None) -> tuple[str, ...]:
        """The turns a line restates (``within`` the summary's turns), or ``()`` if unknown.

        Each piece of the line (an "earlier:" line holds several) goes to the notes sharing
        the most weight of its words, provided they share at least half of it.
        """
        found: list[str] = []
        for piece in split_label(line)[1].split(_PIECES):
            found.extend(self._piece_sources(piece, within))
        return tuple(dict.fromkeys(found))

    def first_said(self, text: str, within: frozenset[str] | None = None) -> tuple[str, ...]:
        """The turns of the earliest note (citing turns ``within``) that shares a word of ``text``.

        The word is the rarest of ``text`` that any such note holds: an assistant's reply
        ("已为您下单加湿器…") restates what the user first said of it ("确认购买加湿器"). Words
        of equal rarity are one choice, the earliest note holding any of them: "已为您下单罗技
        鼠标，订单号ORD-…" restates "确认购买罗技鼠标", not the later "订单ORD-…取消！".
        """
        weights = {word: weight for word, weight in self._weights(text).items() if self._held(word)}
        rarest = sorted(weights, key=lambda word: -weights[word])[:_FIRST_SAID_WORDS]
        for weight in sorted({weights[word] for word in rarest}, reverse=True):
            tied = {word: weight for word in rarest if weights[word] == weight}
            shared = self._shared(tied, within, earliest_first=True)
            if shared:
                return shared[0][0]
        return ()

    def _weights(self, piece: str) -> dict[str, float]:
        return {word: self.rarity(word) for word in ordered_words(piece)}

    def _piece_sources(self, piece: str, within: frozenset[str] | None) -> list[str]:
        weights = self._weights(piece)
        total = sum(weights.values())
        if not total:
            return []
        shared = self._shared(weights, within)
        if not shared:
            return []
        best = max(weight for _, weight in shared)
        if best < total / 2:
            return []
        return [
            turn
            for turns, weight in shared
            if weight == best
            for turn in turns
            if within is None or turn in within
        ]

    def choose(
        self, lines: Sequence[str], query: str, within: frozenset[str] | None = None
    ) -> LineChoice:
        """The lines the query is about, most relevant first, with the turns each cites.

        A line is about the query when it shares a word the notes do not say everywhere
        (positive :meth:`idf`); when none is, every line is shown, in order: the summary was
        found for its topic as a whole.
        """
        self._prefetch([*line_words(query), *(w for line in lines for w in line_words(line))])
        chosen, matched = self._chosen(lines, query)
        sources = tuple(self.sources(line, within) for line in chosen)
        return LineChoice(tuple(chosen), sources, matched)

    def _chosen(self, lines: Sequence[str], query: str) -> tuple[list[str], bool]:
        """The lines :meth:`choose` shows, and whether any is about the query."""
        asked = {word: self.idf(word) for word in ordered_words(query)}
        scored = []
        for position, line in enumerate(lines):
            said = line_words(line)
            score = sum(weight for word, weight in asked.items() if word in said)
            if score > 0:
                scored.append((-score, position, line))
        return ([line for *_, line in sorted(scored)] if scored else list(lines)), bool(scored)


def cites_within(turns: tuple[str, ...], within: frozenset[str] | None) -> bool:
    """Whether a note citing ``turns`` may be a source of a line ``within`` these turns."""
    return bool(turns) and (within is None or any(turn in within for turn in turns))


def cited_turns(note: Note) -> tuple[str, ...]:
    """The turns a note cites (not the calls or notes it came from)."""
    return _turns_in(note.provenance)


def _turns_in(provenance: Sequence[str]) -> tuple[str, ...]:
    return tuple(ref for ref in provenance if _TURN_ID.search(ref))


class NoteIndex(WeightedLines):
    """The notes of one subject, indexed by keyword, to attribute and weigh summary lines.

    Args:
        notes: the subject's notes (in the order said); only those citing a turn are
            attributed to.
    """

    def __init__(self, notes: Iterable[Note]) -> None:
        self._postings: dict[str, list[int]] = {}
        self._turns: list[tuple[str, ...]] = []
        self._count = 0
        for note in notes:
            self._count += 1
            index = len(self._turns)
            self._turns.append(cited_turns(note))
            for word in line_words(note.text):
                self._postings.setdefault(word, []).append(index)

    def _size(self) -> int:
        return self._count

    def _held(self, word: str) -> int:
        return len(self._postings.get(word, ()))

    def _shared(
        self,
        weights: dict[str, float],
        within: frozenset[str] | None,
        *,
        earliest_first: bool = False,
    ) -> list[tuple[tuple[str, ...], float]]:
        shared: dict[int, float] = {}
        for word, weight in weights.items():
            for index in self._postings.get(word, ()):
                if cites_within(self._turns[index], within):
                    shared[index] = shared.get(index, 0.0) + weight
        indexes = sorted(shared) if earliest_first else list(shared)  # notes come as said
        return [(self._turns[index], shared[index]) for index in indexes]


class StoredNoteIndex(WeightedLines):
    """:class:`NoteIndex` over the words stored with each note: reads only what a line needs.

    A note shares at least half of a line's weight only if it holds one of the line's
    rarest words (those outweighing the rest), so only the holders of those are read; for a
    session's summary, only the notes citing its turns. Of those notes only the words the
    lines say are read (never all of a note's words), and when and whence only of the notes
    holding one of the rarest. What is read is kept for the recall, and, where the line data
    keeps reads across recalls (:meth:`LineData.kept_reads`), for the next recalls while the
    subject's keys stay as they were (:mod:`memlane.summaries.sources_kept`).

    Args:
        data: the subject's stored line data.
    """

    def __init__(self, data: LineData) -> None:
        self._data = data
        self._reads = data.kept_reads()
        self._notes: int | None = None
        """How many notes hold keys (:meth:`_size`, asked of every word weighed)."""
        self._shown: dict[tuple[str, tuple[str, ...]], tuple[list[str], bool]] = {}
        """:meth:`_chosen` of this recall's query, asked by :meth:`prepare` and :meth:`choose`."""

    def _chosen(self, lines: Sequence[str], query: str) -> tuple[list[str], bool]:
        key = (query, tuple(lines))
        found = self._shown.get(key)
        if found is None:
            found = self._shown[key] = super()._chosen(lines, query)
        return list(found[0]), found[1]

    def _size(self) -> int:
        if self._notes is None:
            reads = self._reads
            found = reads.read_through(
                reads.tallies, [_NOTES], lambda _: {_NOTES: self._data.counts(NOTE, [""])[""]}
            )
            self._notes = found[_NOTES]
        return self._notes

    def _held(self, word: str) -> int:
        found: int | None = self._reads.counts.get(word)
        if found is None:
            self._prefetch([word])
            found = self._reads.counts[word]
        return found

    def _prefetch(self, words: Iterable[str]) -> None:
        reads = self._reads
        reads.read_through(reads.counts, sorted(set(words)), lambda w: self._data.counts(WORD, w))

    def _holds(self, note_id: int) -> frozenset[str]:
        """The words asked of the note that it holds (none asked: none)."""
        asked: tuple[frozenset[str], frozenset[str]] = self._reads.asked.get(note_id, _NOT_ASKED)
        return asked[1]

    def prepare(self, query: str, summaries: Sequence[Shown]) -> None:
        """Read what :meth:`choose` will ask for these summaries.

        The word counts of the query and every line (and the number of notes), the holders
        of the words each chosen line needs and of each session's turns, which of the lines'
        words those notes hold (the holders of the words held by few notes, in one call; the
        other words note by note), then when and whence of the notes holding a needed word.
        What was read is then offered to the subject's next recalls.
        """
        said = (word for lines, _ in summaries for line in lines for word in line_words(line))
        self._prefetch([*line_words(query), *said])
        sourced = self._reads.sourced
        shown = [(self._chosen(lines, query)[0], within) for lines, within in summaries]
        chosen = [  # a summary whose shown lines were all cited before needs nothing more
            (lines, within)
            for lines, within in shown
            if any((line, within) not in sourced for line in lines)
        ]
        pieces = [(self._pieces(lines), within) for lines, within in chosen]
        needed = {word for weighed, _ in pieces for weights in weighed for word in _needed(weights)}
        long = {
            word
            for weighed, within in pieces
            if len(within) > FEW_TURNS
            for weights in weighed
            for word in _needed(weights)
        }
        held = self._data.holders(WORD, sorted(long))
        sessions = [within for _, within in summaries if len(within) <= FEW_TURNS]
        self._data.holders(CITES, sorted(set().union(*sessions)))
        asks: list[tuple[list[int], set[str]]] = []
        for weighed, within in pieces:  # each summary's notes, asked the words of its lines
            if len(within) <= FEW_TURNS:
                compared = self._cite(within)
            else:
                compared = sorted(
                    {i for ws in weighed for w in _needed(ws) for i in held.get(w, ())}
                )
            asks.append((compared, {word for weights in weighed for word in weights}))
        self._holder_sets(
            sorted({w for ids, words in asks for w in words if self._held(w) <= len(ids)})
        )
        self._ask(*asks)
        ids = {i for compared, _ in asks for i in compared}
        self._time([note_id for note_id in sorted(ids) if self._holds(note_id) & needed])
        for lines, within in chosen:  # what choose will ask, cited now, so that it is kept
            for line in lines:
                self.sources(line, within)
        self._reads = self._data.offer(self._reads)

    def sources(self, line: str, within: frozenset[str] | None = None) -> tuple[str, ...]:
        """:meth:`WeightedLines.sources`, each line once per ``within`` while the keys stay."""
        reads, cited = self._reads, (line, within)

        def read(_: object) -> dict[tuple[str, frozenset[str] | None], tuple[str, ...]]:
            return {cited: WeightedLines.sources(self, line, within)}

        return reads.read_through(reads.sourced, [cited], read, sized)[cited]

    def _pieces(self, lines: Sequence[str]) -> list[dict[str, float]]:
        """The weighed words of each piece of these lines that weighs anything."""
        return [
            weights
            for line in lines
            for piece in split_label(line)[1].split(_PIECES)
            if sum((weights := self._weights(piece)).values())
        ]

    def _shared(
        self,
        weights: dict[str, float],
        within: frozenset[str] | None,
        *,
        earliest_first: bool = False,
    ) -> list[tuple[tuple[str, ...], float]]:
        needed = _needed(weights)
        if within is not None and len(within) <= FEW_TURNS:
            ids = self._cite(within)
        else:
            ids = sorted({i for word in needed for i in self._hold(word)})
        self._ask((ids, weights))
        wanted = frozenset(needed)
        reads = self._reads
        holding = [i for i in ids if self._holds(i) & wanted]
        self._time(holding)
        order = list(weights)
        shared = []
        for note_id in holding:
            found = reads.said[note_id]
            if found is None:
                continue
            when, turns = found
            held = reads.asked[note_id][1]
            if cites_within(turns, within):
                weight = sum(weights[word] for word in order if word in held)
                first = 0 if earliest_first else min(order.index(w) for w in held if w in weights)
                shared.append((first, when, turns, weight))
        return [(turns, weight) for *_, turns, weight in sorted(shared)]

    def _hold(self, word: str) -> list[int]:
        return self._data.holders(WORD, [word]).get(word, [])

    def _cite(self, within: frozenset[str]) -> list[int]:
        reads = self._reads

        def read(_: object) -> dict[frozenset[str], list[int]]:
            held = self._data.holders(CITES, sorted(within)).values()
            return {within: sorted({i for ids in held for i in ids})}

        return reads.read_through(reads.cited, [within], read, sized)[within]

    def _ask(self, *asks: tuple[Sequence[int], Iterable[str]]) -> None:
        """Read which of its ``words`` each note of each ask holds, of notes not asked them yet.

        A word held by fewer notes than its ask's are read by its holders (one index range,
        kept for the recall: every summary asking it shares them); the others note by note,
        for every ask in one call (a note's keys are one index range, whichever of them are
        asked). Both read the same stored keys, so either answers the same.
        """
        reads = self._reads
        pending: list[tuple[list[int], frozenset[str], list[str]]] = []
        for ids, words in asks:
            asked = frozenset(words)
            missing = [
                i for i in dict.fromkeys(ids) if not asked <= reads.asked.get(i, _NOT_ASKED)[0]
            ]
            if asked and missing:
                self._prefetch(asked)
                pending.append(
                    (missing, asked, [w for w in asked if reads.counts[w] <= len(missing)])
                )
        by_note = {i for missing, asked, rare in pending if len(rare) < len(asked) for i in missing}
        by_word = frozenset(w for missing, asked, rare in pending for w in asked.difference(rare))
        found = self._data.keys_among(sorted(by_note), WORD, sorted(by_word)) if by_note else {}
        for missing, asked, rare in pending:
            compared, holds, widened = frozenset(missing), dict[int, list[str]](), asked | by_word
            for word, holders in self._holder_sets(sorted(rare)).items():
                for note_id in holders & compared:
                    holds.setdefault(note_id, []).append(word)
            for note_id in missing:
                read = widened if note_id in by_note else asked
                before = reads.asked.get(note_id)  # most notes are asked once: share ``read``
                if note_id not in reads.asked.own:  # an entry of its own (an upper bound)
                    reads.weight += 1
                held = frozenset().union(holds.get(note_id, ()), found.get(note_id, ()))
                reads.asked[note_id] = (
                    (read, held) if before is None else (before[0] | read, before[1] | held)
                )

    def _holder_sets(self, words: Sequence[str]) -> dict[str, frozenset[int]]:
        """The notes holding each of ``words``, as sets (read in one store call, kept)."""
        reads = self._reads

        def read(missing: list[str]) -> dict[str, frozenset[int]]:
            held = self._data.holders(WORD, missing)
            return {word: frozenset(held.get(word, ())) for word in missing}

        return reads.read_through(reads.holder_sets, words, read, sized)

    def _time(self, ids: Sequence[int]) -> None:
        """Read when the notes not read yet were said, and the turns they cite."""
        reads = self._reads

        def read(missing: list[int]) -> dict[int, Said]:
            said = self._data.said(missing)
            return {
                i: None if (found := said.get(i)) is None else ((found[0], i), _turns_in(found[1]))
                for i in missing
            }

        reads.read_through(reads.said, dict.fromkeys(ids), read)


def _needed(weights: dict[str, float]) -> list[str]:
    """The heaviest words of a piece a note must hold one of to share half its weight."""
    total, rest, needed = sum(weights.values()), sum(weights.values()), []
    for word in sorted(weights, key=lambda word: -weights[word]):
        if rest < total / 2:
            break  # a note holding none of the words needed so far cannot reach half
        needed.append(word)
        rest -= weights[word]
    return needed
