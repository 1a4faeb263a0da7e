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
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from memlane.summaries.model import Note, Summary
from memlane.summaries.offline import split_label
from memlane.summaries.text import keywords

_TURN_ID = re.compile(r"#\d+$")
_PIECES = "; "  # "earlier: a; b; c" lines fold snippets of several turns
_NOT_SPEAKERS = frozenset({"assistant", "tool", "earlier"})


def line_words(text: str) -> frozenset[str]:
    """The comparison keywords of a line or query, lower-cased."""
    return frozenset(word.casefold() for word in keywords(text))


def seen_key(line: str) -> str:
    """A line as compared with lines already shown (case and width folded)."""
    return unicodedata.normalize("NFKC", line).casefold().strip()


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

    Lines of the subject itself, the assistant and tools carry no such label.
    """
    if summary is None:
        return frozenset()
    found: set[str] = set()
    for line in (*summary.facts, *summary.open_items):
        label = split_label(line)[0]
        if label and label not in _NOT_SPEAKERS:
            found.update(line_words(label))
    return frozenset(found)


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


class NoteIndex:
    """The notes of one subject, indexed by keyword, to attribute and weigh summary lines.

    Args:
        notes: the subject's notes (any order); only those citing a turn are attributed to.
    """

    def __init__(self, notes: Iterable[Note]) -> None:
        self._postings: dict[str, list[int]] = {}
        self._turns: list[tuple[str, ...]] = []
        self._count = 0
        for note in notes:
            self._count += 1
            turns = tuple(ref for ref in note.provenance if _TURN_ID.search(ref))
            index = len(self._turns)
            self._turns.append(turns)
            for word in line_words(note.text):
                self._postings.setdefault(word, []).append(index)

    def idf(self, word: str) -> float:
        """Robertson–Spärck Jones weight, floored at 0: a word in half the notes weighs 0."""
        held = len(self._postings.get(word, ()))
        return max(0.0, math.log((self._count - held + 0.5) / (held + 0.5)))

    def rarity(self, word: str) -> float:
        """A weight that is always positive (the BM25 ``log(1 + …)`` form), for attribution."""
        held = len(self._postings.get(word, ()))
        return math.log(1 + (self._count - held + 0.5) / (held + 0.5))

    def sources(self, line: str, within: frozenset[str] | None = None) -> tuple[str, ...]:
        """The turns a line restates (``within`` the summary's turns), or ``()`` if unknown.

        Each piece of the line (an "earlier:" line holds several) goes to the notes sharing
        the most weight of its words, provided they share at least half of it.
        """
        found: list[str] = []
        for piece in split_label(line)[1].split(_PIECES):
            found.extend(self._piece_sources(piece, within))
        return tuple(dict.fromkeys(found))

    def _piece_sources(self, piece: str, within: frozenset[str] | None) -> list[str]:
        wanted = line_words(piece)
        total = sum(self.rarity(word) for word in wanted)
        if not total:
            return []
        shared: dict[int, float] = {}
        for word in wanted:
            weight = self.rarity(word)
            for index in self._postings.get(word, ()):
                turns = self._turns[index]
                if turns and (within is None or any(turn in within for turn in turns)):
                    shared[index] = shared.get(index, 0.0) + weight
        if not shared:
            return []
        best = max(shared.values())
        if best < total / 2:
            return []
        return [
            turn
            for index, weight in shared.items()
            if weight == best
            for turn in self._turns[index]
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
        asked = {word: self.idf(word) for word in line_words(query)}
        scored = []
        for position, line in enumerate(lines):
            said = line_words(line)
            score = sum(weight for word, weight in asked.items() if word in said)
            if score > 0:
                scored.append((-score, position, line))
        chosen = [line for *_, line in sorted(scored)] if scored else list(lines)
        sources = tuple(self.sources(line, within) for line in chosen)
        return LineChoice(tuple(chosen), sources, bool(scored))
