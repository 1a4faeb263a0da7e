"""SQLite's full-text index (FTS5): what it holds of each search doc, its lexical search and counts.

``search_fts`` holds each doc's tokens and its two scope tokens (:func:`fts_tokens`);
:class:`FullTextIndex` writes those rows, ranks a scope's matches by BM25 (leaving out the
terms most of a large scope holds, and a large scope's own token from a narrow match), and
keeps the vocabulary counts those choices read until the index may have changed. The
dialect (:class:`.dialect.SQLiteDialect`) holds one and hands it its full-text calls.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, cast

from memlane.errors import StorageError
from memlane.storage import lexical
from memlane.storage.archiving import ArchiveRow
from memlane.storage.base import DocKind
from memlane.storage.sql.dialect import DocScope
from memlane.storage.sql.summaries import search_scope

if TYPE_CHECKING:
    from memlane.storage.sqlite.database import SQLiteDatabase

COMMON_DOCS = lexical.COMMON_DOCS
"""A query term held by more documents of the scope is left out (:meth:`FullTextIndex.search`)."""
LARGE_SCOPE = 2_000
"""A scope whose token more documents hold than this, and at least half of the index, is not
ANDed into a lexical match whose terms few documents hold (at most :data:`FEW_MATCHES` in
every scope together): the matches are filtered by scope through ``search_docs`` instead.
FTS5 reads a token's whole doclist for the AND, 8-15 ms at 10^5 documents against under 1 ms
for the match alone. A token held by half the index or more has FTS5's floor of an IDF
(1e-6), so its term adds nothing to BM25 and leaving it out ranks as before."""
VOCABULARY_ENTRIES = 10_000
"""Vocabulary counts kept (:meth:`FullTextIndex._held`) before the memory is cleared."""
VOCABULARY_LOOKUPS = 200
"""Vocabulary counts read per statement (SQLite joins at most 500 selects in one)."""
FEW_MATCHES = 5_000
"""Most documents (in every scope) a lexical match may hold to be filtered by scope."""
OVERFETCH = 2
"""Best matches of every scope read per match wanted, when the scope holds most of the index."""
_Counted = str | tuple[str, str] | tuple[str, int] | None
"""What a count is kept of: a term's documents (``None``: the index's), a term's in a scope
(``(term, scope token)``), or a term's in every scope up to a bound (``(term, bound)``)."""
_BOUNDED_COUNT = (
    "SELECT %s, (SELECT count(*) FROM (SELECT 1 FROM search_fts WHERE search_fts MATCH %s "
    "LIMIT %s))"
)
"""A term and how many documents match it, up to a bound: one part of a UNION ALL."""
_FTS_SCOPE = ("tenant", "subject", "kind", "text")


class FullTextIndex:
    """The FTS5 table ``search_fts`` of one SQLite database, and the counts its searches read."""

    def __init__(self, database: SQLiteDatabase) -> None:
        self.db = database
        self._lock = threading.Lock()
        # The full-text stamp (:meth:`_text_stamp`) the counts of terms were read at, and the
        # counts (:meth:`_held`, :meth:`_in_scope`); the full-text writes this connection
        # made (each moves the stamp).
        self._vocabulary: tuple[tuple[bytes, int] | None, dict[_Counted, int]] = (None, {})
        self._text_writes = 0

    def add(self, doc_id: int, tenant: str, subject: str, kind: DocKind, text: str) -> None:
        """Index the doc in FTS5, with its scope tokens."""
        self._text_written()
        self.db.execute(
            "INSERT INTO search_fts (rowid, tokens) VALUES (%s, %s)",
            (doc_id, fts_tokens(tenant, subject, kind, text)),
        )

    def drop(self, doc_ids: Sequence[int]) -> None:
        """Remove the docs from FTS5."""
        # One rowid at a time: FTS5 seeks an equality, but scans for a list.
        self._text_written()
        self.db.executemany("DELETE FROM search_fts WHERE rowid = %s", [(i,) for i in doc_ids])

    def add_rows(self, rows: Sequence[ArchiveRow]) -> None:
        """Index archived ``search_docs`` rows as they are loaded back."""
        self._text_written()
        self.db.executemany(
            "INSERT INTO search_fts (rowid, tokens) VALUES (%s, %s)",
            [(row["id"], fts_tokens(*(str(row[n]) for n in _FTS_SCOPE))) for row in rows],
        )

    def merge(self) -> None:
        """Merge FTS5's segments into one (``optimize``)."""
        self._text_written()
        self.db.execute("INSERT INTO search_fts (search_fts) VALUES ('optimize')")

    def search(self, scope: DocScope, terms: Sequence[str], limit: int) -> list[int]:
        """FTS5's BM25, the scope token ANDed into the match so FTS5 itself narrows it.

        Only the terms that name few documents of the scope are matched, when the query has
        some (:meth:`_telling`): BM25 scores every document the match holds, so a word most of
        a large scope says would cost a score per document, for a weight near nothing.
        """
        tenant, subject, kind = scope
        token = lexical.scope_token(tenant, kind, *(() if subject is None else (subject,)))
        telling = self._telling(terms, token)
        words = " OR ".join(_phrase(term) for term in telling)
        match = f'({words}) AND "{token}"'
        if self._few_in_large(telling, scope, token):
            match = f"({words})"  # the scope is filtered by search_docs
            found = self._best_in_scope(scope, match, limit)
            if found is not None:
                return found
        where, parameters = search_scope(tenant, subject, kind, alias="d.")
        rows = self.db.fetchall(
            "SELECT d.owner_id FROM search_fts JOIN search_docs AS d ON d.id = search_fts.rowid "
            f"WHERE search_fts MATCH %(match)s AND {where} "
            "ORDER BY bm25(search_fts), d.id LIMIT %(limit)s",
            {**parameters, "match": match, "limit": limit},
        )
        return [row[0] for row in rows]

    def _best_in_scope(self, scope: DocScope, match: str, limit: int) -> list[int] | None:
        """The ``limit`` best matches in scope, from the best of every scope; ``None``: too few.

        The scope holds most of the index (:meth:`_few_in_large`), so the best
        :data:`OVERFETCH` times ``limit`` matches of every scope are read in BM25's order
        (ties by id, as the joined query orders them) and only they are looked up in
        ``search_docs``: a few rows instead of every match's (each row of ``search_docs``
        holds a vector: one page read each in a large file). If fewer than ``limit`` of them
        are in scope while more matches exist, the caller asks the joined query.
        """
        wanted = OVERFETCH * limit
        best = [
            row[0]
            for row in self.db.fetchall(
                "SELECT rowid FROM search_fts WHERE search_fts MATCH %s "
                "ORDER BY bm25(search_fts), rowid LIMIT %s",
                (match, wanted),
            )
        ]
        where, parameters = search_scope(*scope, alias="+")
        owners = dict(
            self.db.fetchall(
                "SELECT id, owner_id FROM search_docs WHERE id IN "
                f"(SELECT value FROM json_each(%(ids)s)) AND {where}",
                {**parameters, "ids": json.dumps(best)},
            )
        )
        kept = [owners[doc] for doc in best if doc in owners]
        if len(kept) < limit and len(best) == wanted:
            return None
        return kept[:limit]

    def _held(self, terms: Sequence[str | None]) -> dict[str | None, int]:
        """How many documents of every scope hold each term (FTS5's vocabulary: an upper bound).

        ``None``: how many documents the index holds. Read for the total
        (:meth:`_few_in_large`), and to pick the rarest of a query's terms when every one is
        common in the scope (:meth:`_telling`). The terms not kept are read in one
        statement; kept until the full-text index may have changed (:meth:`_kept`): a
        lookup costs about 0.4 ms in a large index (it walks the term's postings), and a
        recall asks for the same terms in several searches, while vectors stored meanwhile
        change none of them.
        """

        def read(missing: Sequence[_Counted]) -> dict[_Counted, int]:
            counted = _in_statements(
                missing, lambda part: self._vocabulary_counts(cast(list[str | None], part))
            )
            return dict.fromkeys(missing, 0) | counted

        kept = self._kept(terms, read)
        return {term: kept[term] for term in terms}

    def _matching(self, terms: Sequence[str]) -> dict[str, int]:
        """How many documents of every scope each term matches, counted no further than needed.

        Each count is only compared with :data:`COMMON_DOCS` or :data:`FEW_MATCHES`, so it
        stops one past the larger: the vocabulary walks all of a term's postings to count
        them (2 ms for a word of every note at 10^5 documents, ten times that at 10^6, and
        again after every write), a match counted up to a bound reads that many. Counted by
        the phrase the search itself matches, in one statement; kept as :meth:`_held`'s are.
        """
        bound = max(COMMON_DOCS, FEW_MATCHES) + 1

        def read(missing: Sequence[_Counted]) -> dict[_Counted, int]:
            return _in_statements(missing, lambda part: self._bounded_counts(part, bound))

        kept = self._kept([(term, bound) for term in terms], read)
        return {term: kept[(term, bound)] for term in terms}

    def _bounded_counts(self, keys: Sequence[_Counted], bound: int) -> list[tuple[_Counted, int]]:
        """Each ``(term, bound)`` key's matches counted up to ``bound``, in one statement."""
        terms = [cast(tuple[str, int], key)[0] for key in keys]
        rows = self.db.fetchall(
            " UNION ALL ".join([_BOUNDED_COUNT] * len(terms)),
            [value for term in terms for value in (term, _phrase(term), bound)],
        )
        return [((term, bound), int(count)) for term, count in rows]

    def _in_scope(self, terms: Sequence[str], token: str) -> dict[str, int]:
        """How many documents of the scope (``token``) hold each term, up to COMMON_DOCS + 1.

        Kept as :meth:`_held`'s counts are: a question's common word ("about", in a sixth of
        a 10^5-note subject) was counted in its scope by every search asking it (0.4 ms
        each), and the count changes only with the full-text index.
        """

        def read(missing: Sequence[_Counted]) -> dict[_Counted, int]:
            return {
                pair: self.db.fetchone(
                    "SELECT count(*) FROM (SELECT 1 FROM search_fts WHERE search_fts MATCH %s "
                    "LIMIT %s)",
                    (f"{_phrase(pair[0])} AND {_phrase(pair[1])}", COMMON_DOCS + 1),
                )[0]
                for pair in cast(list[tuple[str, str]], missing)
            }

        kept = self._kept([(term, token) for term in terms], read)
        return {term: kept[(term, token)] for term in terms}

    def _kept(
        self,
        keys: Sequence[_Counted],
        read: Callable[[Sequence[_Counted]], dict[_Counted, int]],
    ) -> dict[_Counted, int]:
        """Counts of ``keys``: those not kept are ``read`` (at once), then kept.

        Until the full-text index may have changed (:meth:`_text_stamp`); nothing read inside
        a write transaction is kept (it may yet be rolled back).
        """
        stamp = self._text_stamp()
        with self._lock:
            if self._vocabulary[0] != stamp or len(self._vocabulary[1]) >= VOCABULARY_ENTRIES:
                self._vocabulary = (stamp, {})
            known = {key: self._vocabulary[1].get(key) for key in keys}
        missing = [key for key, count in known.items() if count is None]
        found: dict[_Counted, int] = {}
        if missing:
            found = read(missing)
            if not self.db.in_transaction:
                with self._lock:
                    if self._vocabulary[0] == stamp:
                        self._vocabulary[1].update(found)
        return {key: found[key] if count is None else count for key, count in known.items()}

    def _text_written(self) -> None:
        """Count a write to the full-text index (before it is made)."""
        with self._lock:
            self._text_writes += 1

    def _text_stamp(self) -> tuple[bytes, int]:
        """Moves whenever the full-text index may have changed.

        That is: a commit changed it (FTS5's structure record, ``search_fts_data`` id 10,
        which each commit that writes to the index rewrites with its write counter moved),
        or this connection wrote to it (every write here counts, rolled back or not). A vector
        stored, a claim taken or a fact written, here or in another process, does not move
        it. (``PRAGMA data_version`` cannot tell this connection's commits from another's on
        the read connections that a recall's reads run on.)
        """
        row = self.db.stamp_row("SELECT block FROM search_fts_data WHERE id = 10")
        return (b"" if row is None else bytes(row[0])), self._text_writes

    def _vocabulary_counts(self, terms: Sequence[str | None]) -> list[tuple[str | None, int]]:
        """The vocabulary's count of each term, in one statement.

        ``None``: the index's documents (:meth:`_documents_sql`).
        """
        parts: list[str] = []  # one equality lookup per term: fts5vocab indexes no IN
        parameters: list[str | None] = []
        for term in terms:
            if term is None:
                parts.append(f"SELECT %s, ({self._documents_sql()})")
                parameters.append(None)
            else:
                parts.append("SELECT %s, doc FROM search_vocab WHERE term = %s")
                parameters += [term, term]
        rows = self.db.fetchall(" UNION ALL ".join(parts), parameters)
        return [(term, _documents(count) if term is None else int(count)) for term, count in rows]

    def _documents_sql(self) -> str:
        """A query of how many documents the index holds, as :func:`_documents` reads it.

        FTS5's own total (:func:`fts5_rows`), not counted: a count walked every document (23
        ms at 10^5 cold, ten times that at 10^6). FTS5 writes its total at the commit, so
        inside a write transaction they are counted.
        """
        if self.db.in_transaction:
            return "SELECT count(*) FROM search_fts_docsize"
        return "SELECT block FROM search_fts_data WHERE id = 1"

    def _few_in_large(self, terms: Sequence[str], scope: DocScope, token: str) -> bool:
        """Whether ``terms`` match few documents and the scope (``token``) holds many.

        Then the match leaves the scope's token out (:data:`LARGE_SCOPE`).
        """
        if sum(self._matching(terms).values()) > FEW_MATCHES:
            return False
        held = self._scope_held(scope, token)
        return held[token] > LARGE_SCOPE and 2 * held[token] >= held[None]

    def _scope_held(self, scope: DocScope, token: str) -> dict[str | None, int]:
        """How many documents hold the scope's ``token``, and (``None``) the whole index.

        The scope's are the count the triggers of ``search_docs`` keep
        (:data:`memlane.storage.sqlite.schema.SCOPE_DOCS`): one row, where FTS5's vocabulary
        walked every posting of the token. Kept as :meth:`_held`'s counts are (a recall
        searches a scope several times), in one statement with the index's total.
        """
        tenant, subject, kind = scope

        def read(missing: Sequence[_Counted]) -> dict[_Counted, int]:
            docs, documents = self.db.fetchone(
                "SELECT (SELECT docs FROM search_scope_docs WHERE tenant = %s AND kind = %s "
                f"AND subject = %s), ({self._documents_sql()})",
                (tenant, kind, "" if subject is None else subject),
            )
            return {token: int(docs or 0), None: 0 if documents is None else _documents(documents)}

        kept = self._kept([token, None], read)
        return {token: kept[token], None: kept[None]}

    def _telling(self, terms: Sequence[str], token: str) -> Sequence[str]:
        """The terms held by at most :data:`COMMON_DOCS` documents of the scope (``token``).

        All of them when none is held by more; the rarest one alone when every one is (by the
        vocabulary's counts, read for that case only). A term's documents in every scope,
        counted up to a bound (:meth:`_matching`), are an upper bound of its count in the
        scope: only a term above :data:`COMMON_DOCS` there is counted in the scope, and only
        up to it.
        """
        if len(terms) < 2:
            return terms
        held = self._matching(terms)
        scoped = self._in_scope([term for term in terms if held[term] > COMMON_DOCS], token)
        common = {term for term, count in scoped.items() if count > COMMON_DOCS}
        if not common:
            return terms
        rarer = [term for term in terms if term not in common]
        return rarer or [min(terms, key=self._held(terms).__getitem__)]


def _in_statements(
    missing: Sequence[_Counted],
    counted: Callable[[Sequence[_Counted]], Sequence[tuple[_Counted, int]]],
) -> dict[_Counted, int]:
    """What ``counted`` reads of ``missing``, :data:`VOCABULARY_LOOKUPS` keys a statement."""
    found: dict[_Counted, int] = {}
    for start in range(0, len(missing), VOCABULARY_LOOKUPS):
        found.update(counted(missing[start : start + VOCABULARY_LOOKUPS]))
    return found


def _phrase(term: str) -> str:
    """A term as an FTS5 string (a phrase of one token)."""
    return '"' + term.replace('"', '""') + '"'


def fts_tokens(tenant: str, subject: str, kind: str, text: str) -> str:
    """What FTS5 indexes for a search item: the text's tokens and its two scope tokens."""
    scopes = lexical.scope_token(tenant, kind), lexical.scope_token(tenant, kind, subject)
    return " ".join((lexical.document(text), *scopes))


def _documents(read: int | bytes) -> int:
    """The document count read: counted, or FTS5's averages record."""
    return fts5_rows(read) if isinstance(read, bytes) else int(read)


def fts5_rows(averages: bytes) -> int:
    """The rows an FTS5 table holds, from its ``_data`` record 1 (the "averages" record).

    FTS5 writes that record at every commit that inserted or deleted rows (not before): its
    first field is the total row count, an SQLite varint (big-endian, 7 bits a byte while
    the top bit is set; a ninth byte gives 8), followed by each column's token total. Empty
    until the first commit that inserted rows: no rows.
    """
    if not averages:
        return 0
    value = 0
    for position, byte in enumerate(averages[:9]):
        if position == 8:
            return (value << 8) | byte
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value
    raise StorageError("the full-text index's averages record is truncated")
