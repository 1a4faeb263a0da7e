"""The refilling walk: the latest stored clause that re-fills a slot of a clause, read by key.

Each clause of a note is filed, when the note is written, under the slot keys of
:func:`memlane.router.slots.slot_keys` (a ``SLOT`` kind naming the key, a digest of the clause
as the key: :func:`clause_digest`). Judging whether a later statement re-fills a slot of a
clause reads, under the keys the clause probes (:func:`memlane.router.slots.probe_chains`: its
heads and its tails, shortest first), only the :data:`RECENT_FILINGS` latest clauses filed
there, in time order from an index: the cost of a judgement stays bounded however much the
subject has said in that shape. Along a chain, a key whose latest filings are all its
filings ends the reading: every re-fill filed under a longer key of the chain is among them.
And a chain's reading starts at its longest key whose latest filings are as many other
clauses, all said after the judged statement (:meth:`RefillWalk.probed`): when that many
statements said since share more of the clause on that side, a re-fill sharing less of it
there is looked for on its other side only (see docs/recall.md).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from heapq import merge

from memlane.memo import per_process
from memlane.router.slots import clauses, probe_chains
from memlane.router.statements import Refills, Since, Statement, first_later
from memlane.summaries.key_kinds import SLOT
from memlane.summaries.linedata import Head, LineData
from memlane.summaries.model import Note
from memlane.summaries.sources_kept import LineReads
from memlane.timeutil import to_micros

RECENT_FILINGS = 16
"""How many of the latest clauses filed under each probe of a clause are read to judge it
against later statements (:meth:`RefillWalk.refilling`): a slot re-filled more often than
this after a statement of the same shape is already superseded by the nearer re-fills, and
the cost of judging a clause stays bounded however much the subject has said in that shape
(see docs/recall.md)."""

Latest = Callable[[str, Sequence[str]], Iterator[Statement]]
"""``latest(kind, keys)``: the visible statements holding one of ``keys``, latest first."""


def clause_digest(clause: str) -> str:
    """What a slot row stores of the clause it files: equal clauses, equal digests.

    >>> clause_digest("my team is arsenal") == clause_digest("my team is arsenal")
    True
    """
    return hashlib.blake2b(clause.encode(), digest_size=8).hexdigest()


@per_process
def kind_chains(clause: str) -> tuple[tuple[str, ...], ...]:
    """The ``SLOT`` kinds of the keys ``clause`` probes, one chain per side, shortest first.

    Kept for the process (a function of the clause alone): every recall judges ~100
    clauses, mostly those of the same recalled lines as the recall before.
    """
    return tuple(tuple(SLOT + probe for probe in chain) for chain in probe_chains(clause) if chain)


@dataclass
class RefillWalk:
    """The refilling walk over one subject's stored notes, for one recall.

    Args:
        data: the subject's stored note keys.
        visible: ``(said until, known at)`` in microseconds.
        latest: the visible statements holding a key, latest first (read once per recall).
    """

    data: LineData
    visible: tuple[int | None, int | None]
    latest: Latest
    _prepared: set[str] = field(init=False, default_factory=set)

    def prepare(self, judged: Iterable[str]) -> None:
        """Read the latest filings of the keys these clauses probe, a few store calls in all.

        Every chain's shortest key first, all clauses at once; then, of the chains whose
        keys read so far were all filled (:meth:`LineData.filled`), the next keys, twice as
        many each round. A chain stops at its first key that was not filled. A clause
        prepared before is not walked again: what its chains read is kept by the line data
        for the recall, so the walk would read nothing new.
        """
        fresh = [clause for clause in dict.fromkeys(judged) if clause not in self._prepared]
        self._prepared.update(fresh)
        chains = [chain for clause in fresh for chain in kind_chains(clause)]
        step = 1
        while chains:
            self.data.read_recent(
                (kind for chain in chains for kind in chain[:step]), self.visible, RECENT_FILINGS
            )
            chains = [
                chain[step:]
                for chain in chains
                if len(chain) > step and all(self._filled(kind) for kind in chain[:step])
            ]
            step *= 2

    def probed(self, clause: str, limit: tuple[int, int] | None = None) -> list[str]:
        """The kinds whose latest filings judge ``clause``: each chain to its first not filled.

        With ``limit`` (a :class:`Head`'s ``(before, stored_before)`` of the judged statement),
        a chain starts at its longest such key whose latest filings are :data:`RECENT_FILINGS`
        clauses other than ``clause``, all said after it (:meth:`_moved_on`); the shorter keys
        of the chain are not read. What they would add is a clause sharing less of ``clause``
        on that side than all of those do: a re-fill of that kind is found by the other side
        (a re-fill shares a head and a tail making half of it) when that side reads it. Filings
        of ``clause`` itself never count: said again and again, the old value fills the
        keys reaching into it, and its update shares only the shorter one of its slot.
        """
        self.prepare([clause])  # a replacement judged after the others: its keys in rounds
        own = clause_digest(clause)
        kinds: list[str] = []
        for chain in kind_chains(clause):
            probed: list[str] = []
            for kind in chain:
                probed.append(kind)
                if not self._filled(kind):
                    break
            if limit is not None:
                deepest = next(
                    (
                        i
                        for i in range(len(probed) - 1, 0, -1)
                        if self._moved_on(probed[i], own, limit)
                    ),
                    0,
                )
                probed = probed[deepest:]
            kinds += probed
        return kinds

    def _moved_on(self, kind: str, own: str, limit: tuple[int, int]) -> bool:
        """Whether ``kind``'s latest filings are other clauses than ``own``, said after ``limit``.

        Each of them filed once (``own`` is a digest), as many as are read.
        """
        heads = self.data.recent(kind, self.visible, RECENT_FILINGS)
        return (
            len(heads) >= RECENT_FILINGS
            and (heads[-1].before, heads[-1].stored_before) < limit
            and all(head.key != own for head in heads)
        )

    def _filled(self, kind: str) -> bool:
        return self.data.filled(kind, self.visible, RECENT_FILINGS)

    def refilling(self, clause: str, since: Since, refills: Refills) -> Statement | None:
        """The latest stored statement ``since`` with a clause that ``refills`` ``clause``.

        The :data:`RECENT_FILINGS` latest clauses filed under each key :meth:`probed` gives
        are read (:meth:`LineData.recent`), each once, with its latest holder, latest first;
        only a clause that re-fills the slot has its holders read further, when its latest
        comes from ``turns``. A re-fill older than the latest filings of every key it shares
        with ``clause`` is not looked for.

        A walk that met no clause restating ``clause`` at all (``refills`` gave ``None`` for
        every one) finds nothing whatever the question, the turns or the recall: that is
        kept with the subject's reads (:meth:`LineData.kept_reads`, per stamp: a note
        written, forgotten or keyed begins them anew), and the next recall judging the
        clause said at that moment reads nothing.
        """
        after = since[0]
        limit = (-to_micros(after[0]), -to_micros(after[1]))
        reads = self.data.kept_reads()
        walked = (clause, limit, self.visible)
        if walked in reads.unfilled:
            return None
        lists = {
            kind: self.data.recent(kind, self.visible, RECENT_FILINGS)
            for kind in self.probed(clause, limit)
        }
        unread = [  # the heads the walk may meet: those said after ``after``
            head
            for heads in lists.values()
            for head in heads
            if (head.before, head.stored_before) < limit
        ]
        heads = merge(*(_indexed(heads, kind) for kind, heads in lists.items()))
        best: tuple[tuple[int, int, int], Statement] | None = None
        seen: set[str] = set()
        restating = False
        for head, kind in heads:
            if (head.before, head.stored_before) >= limit:
                break  # the other clauses were last said before ``after``
            if best is not None and head[:3] >= best[0]:
                break  # their holders all come after the best found
            if head.key in seen:
                continue  # filed under both slot keys
            seen.add(head.key)
            filed = self._filed(head, unread, reads)
            verdict = None if filed is None else refills(filed)
            restating = restating or verdict is not None
            if not verdict:
                continue
            found = first_later(self.latest(kind, [head.key]), *since)
            if found is not None and found.note is not None:
                order = _order(found.note)
                best = (order, found) if best is None or order < best[0] else best
        if not restating:  # so nothing was found, as ``None`` is no re-fill for any question
            reads.unfilled[walked] = True
            reads.weight += 1
        return None if best is None else best[1]

    def _filed(self, head: Head, unread: list[Head], reads: LineReads) -> str | None:
        """The clause ``head`` files under its slot key (so it opens as the probe).

        Split out of its note's text once per subject stamp: kept with the subject's reads
        (``reads``, the walk's :meth:`LineData.kept_reads`), as a digest names one clause
        whatever the recall. The first a walk splits comes with the texts of the filings it
        may meet (``unread``: the latest of every key it probes said since the judged
        statement; emptied once read) whose clauses are not kept yet, one statement, not one
        per key; only the heads it meets have their clauses split out.
        """
        known = reads.clauses
        clause: str | None = known.get(head.key)
        if clause is not None:
            return clause
        if unread:
            self.data.texts([other.note_id for other in unread if other.key not in known])
            unread.clear()
        said = self.data.texts([head.note_id]).get(head.note_id)
        if said is None:
            return None
        clause = next(
            (text for text in clauses(said[1], said[0]) if clause_digest(text) == head.key), None
        )
        if clause is not None:
            known[head.key] = clause
            reads.weight += 1
        return clause


def _indexed(heads: Sequence[Head], kind: str) -> Iterator[tuple[Head, str]]:
    """The heads of a slot key with the key they come from, for :func:`heapq.merge`."""
    for head in heads:
        yield head, kind


def _order(note: Note) -> tuple[int, int, int]:
    """Where a note comes in the latest-first order of :meth:`LineData.latest`."""
    return -to_micros(note.at), -to_micros(note.tx_from), note.id
