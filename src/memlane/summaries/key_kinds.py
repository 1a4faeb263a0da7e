"""The kinds of the ``(kind, key)`` pairs stored with each note for recall (``note_keys``).

Derived from a note when it is written (:func:`memlane.router.evidence.note_keys`), read back
by :class:`memlane.summaries.linedata.LineData`, and told by a write's
:class:`~memlane.storage.base.KeysMoved` to what recalls keep
(:mod:`memlane.summaries.sources_kept`).
"""

from __future__ import annotations

from memlane.storage.base import TIMED_KINDS

NOTE = "n"
"""Key kinds of :func:`memlane.router.evidence.note_keys`: every note holds ``(NOTE, "")``;"""
WORD = "w"
"""its comparison keywords (:func:`memlane.summaries.sources.line_words`);"""
CLAIM = "c"
"""the ``holder|relation`` of each of its claims;"""
SLOT = TIMED_KINDS
"""``SLOT`` and a slot key of a clause (:func:`memlane.router.slots.slot_keys`) as the kind, a
digest of the clause as the key (so that a clause said by many notes is read once:
:meth:`memlane.summaries.linedata.LineData.recent`); slot kinds are indexed by time
(:data:`TIMED_KINDS`);"""
RETRACTS = "r"
"""``""`` when it retracts a value;"""
OWN = "o"
"""``""`` when it tells how things stand for the speaker
(:func:`memlane.lang.changes.speaks_for_self`);"""
CITES = "p"
"""the turns and notes it came from (:func:`memlane.router.evidence.origins`);"""
TERM = "e"
"""and what :func:`memlane.lang.words.shares_term` reads: words,"""
DIGITS = "d"
"""digits,"""
PAIRS = "b"
"""and CJK pairs."""
