"""A lexical search on PostgreSQL leaves out of its match the words most of a large scope holds.

As on SQLite (tests/storage/test_sqlite_lexical.py): BM25 scores every doc the match holds, so
a question's common word ("about") made a tenant-wide search of 10^5 notes score 17,000 of
them (docs/benchmarks.md, pgcov15). A term held by more than ``COMMON_DOCS`` docs of the scope
is left out while a rarer term of the query stays; the rarest alone when every one is common.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from memlane.storage.lexical import COMMON_DOCS, document
from memlane.storage.postgres import PostgresDatabase
from memlane.storage.postgres.dialect import PostgresDialect
from memlane.storage.sql import SQLSummaryStore
from memlane.storage.sql.summaries import search_scope
from tests.support.services import PostgresServer

RARE = 5


@pytest.fixture(scope="module")
def store(postgres_server: PostgresServer) -> Iterator[SQLSummaryStore]:
    """U-1 said "lessons" in more docs than COMMON_DOCS, "kazudi" in a few; U-2 once each."""
    url = postgres_server.new_database()
    database = PostgresDatabase(url)
    said = [f"took lessons in town {n} with friend {n}" for n in range(COMMON_DOCS + 10)]
    said[:RARE] = [f"took kazudi lessons in port {n}" for n in range(RARE)]
    rows = [("U-1", n, text) for n, text in enumerate(said)]
    rows.append(("U-2", len(said), "took kazudi lessons in the port"))
    for subject, owner, text in rows:
        database.execute(
            "INSERT INTO search_docs (tenant, subject, kind, owner_id, text, tokens) "
            "VALUES ('acme', %s, 'note', %s, %s, to_tsvector('simple', %s))",
            (subject, owner, text, document(text)),
        )
    database.execute("VACUUM ANALYZE search_docs")
    yield SQLSummaryStore(database)
    database.close()


def telling(store: SQLSummaryStore, subject: str | None, terms: list[str]) -> list[str]:
    assert isinstance(store.dialect, PostgresDialect)
    where, parameters = search_scope("acme", subject, "note")
    return list(store.dialect._telling(terms, where, parameters))


def test_a_word_more_than_common_docs_of_the_scope_hold_is_left_out(
    store: SQLSummaryStore,
) -> None:
    assert telling(store, "U-1", ["lessons", "kazudi"]) == ["kazudi"]
    assert telling(store, None, ["lessons", "kazudi"]) == ["kazudi"]  # tenant-wide


def test_in_a_scope_where_it_is_rare_the_same_word_stays(store: SQLSummaryStore) -> None:
    assert telling(store, "U-2", ["lessons", "kazudi"]) == ["lessons", "kazudi"]


def test_a_query_of_common_words_only_keeps_the_rarest(store: SQLSummaryStore) -> None:
    # "took" is in every doc of U-1, "lessons" too: a tie, the first of the query stays.
    assert telling(store, "U-1", ["lessons", "took"]) == ["lessons"]
    assert telling(store, "U-1", ["lessons"]) == ["lessons"]
    assert telling(store, "U-1", ["took", "town", "lessons"]) == ["town"]  # 5 fewer


def test_the_docs_holding_the_rarer_words_are_still_found_first(store: SQLSummaryStore) -> None:
    found = store.lexical("acme", "U-1", "note", "kazudi lessons in port 3", RARE)
    texts = {
        row[0]
        for row in store.db.fetchall(
            "SELECT text FROM search_docs WHERE kind = 'note' AND owner_id = ANY(%s)", (found,)
        )
    }
    assert "took kazudi lessons in port 3" in texts
    assert all("kazudi" in text or "port" in text for text in texts)
    assert store.lexical("acme", None, "note", "kazudi lessons", 10) == [*range(RARE), 1_010]
