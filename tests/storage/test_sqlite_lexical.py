"""A lexical search on SQLite leaves out of its match the words most of a large scope holds.

FTS5's BM25 scores every document the match holds: a question word that a subject's notes
nearly all say made a search of a 10^5-note subject score all of them (docs/benchmarks.md).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

import memlane
from memlane.storage import lexical
from memlane.storage.sql import SQLSummaryStore
from memlane.storage.sqlite import full_text as full_text_module
from memlane.storage.sqlite.dialect import SQLiteDialect
from memlane.storage.sqlite.full_text import COMMON_DOCS, FullTextIndex
from tests.conftest import FakeClock

RARE = 5
AT = datetime(2026, 3, 2, tzinfo=UTC)


@pytest.fixture(scope="module")
def mem() -> Iterator[memlane.Memory]:
    """U-1 said "lessons" in more notes than COMMON_DOCS, "kazudi" in a few; U-2 once each."""
    clock = FakeClock(datetime(2026, 3, 2, tzinfo=UTC))
    with memlane.Memory(":memory:", clock=clock, embedder="hash") as memory:
        said = [f"took lessons in town {n} with friend {n}" for n in range(COMMON_DOCS + 10)]
        said[:RARE] = [f"took kazudi lessons in port {n}" for n in range(RARE)]
        memory.summaries.add_notes(
            [
                {"subject": "U-1", "text": text, "at": clock.now + timedelta(seconds=n)}
                for n, text in enumerate(said)
            ]
        )
        memory.summaries.add_notes(
            [{"subject": "U-2", "text": "took kazudi lessons in the port", "at": clock.now}]
        )
        yield memory


def dialect(mem: memlane.Memory) -> SQLiteDialect:
    store = mem.summaries._store
    assert isinstance(store, SQLSummaryStore) and isinstance(store.dialect, SQLiteDialect)
    return store.dialect


def full_text(mem: memlane.Memory) -> FullTextIndex:
    return dialect(mem).full_text


def telling(mem: memlane.Memory, subject: str, terms: list[str]) -> list[str]:
    token = lexical.scope_token(mem.tenant, "note", subject)
    return list(full_text(mem)._telling(terms, token))


def test_a_word_more_than_common_docs_notes_of_the_scope_hold_is_left_out(
    mem: memlane.Memory,
) -> None:
    assert telling(mem, "U-1", ["lessons", "kazudi"]) == ["kazudi"]


def test_in_a_scope_where_it_is_rare_the_same_word_stays(mem: memlane.Memory) -> None:
    assert telling(mem, "U-2", ["lessons", "kazudi"]) == ["lessons", "kazudi"]


def test_a_query_of_common_words_only_keeps_the_rarest(mem: memlane.Memory) -> None:
    assert telling(mem, "U-1", ["lessons", "took"]) in (["lessons"], ["took"])
    assert telling(mem, "U-1", ["lessons"]) == ["lessons"]


def test_the_notes_holding_the_rarer_words_are_still_found_first(mem: memlane.Memory) -> None:
    store = mem.summaries._store
    found = store.lexical(mem.tenant, "U-1", "note", "kazudi lessons in port 3", RARE)
    texts = [note.text for note in store.notes_by_id(mem.tenant, found).values()]
    assert "took kazudi lessons in port 3" in texts
    assert all("kazudi" in text or "port" in text for text in texts)


@pytest.mark.parametrize(
    "query", ["kazudi lessons in port 3", "kazudi port", "town 17 friend 17", "port 2"]
)
def test_a_large_scope_s_token_is_left_out_of_a_narrow_match_and_the_ranking_stays(
    mem: memlane.Memory, monkeypatch: pytest.MonkeyPatch, query: str
) -> None:
    """U-1 holds most of the index: its token's IDF is FTS5's floor, so BM25 ranks the same."""
    store = mem.summaries._store
    matches: list[str] = []
    fetchall = store.db.fetchall

    def spy(sql: str, parameters: object = ()) -> list[object]:
        if isinstance(parameters, dict) and "match" in parameters:
            matches.append(str(parameters["match"]))
        elif "ORDER BY bm25" in sql and isinstance(parameters, tuple):
            matches.append(str(parameters[0]))  # the best matches of every scope
        return fetchall(sql, parameters)

    monkeypatch.setattr(store.db, "fetchall", spy)
    monkeypatch.setattr(full_text_module, "FEW_MATCHES", -1)  # as before: the token ANDed
    before = store.lexical(mem.tenant, "U-1", "note", query, 20)
    token = lexical.scope_token(mem.tenant, "note", "U-1")
    assert token in matches[-1]
    monkeypatch.setattr(full_text_module, "FEW_MATCHES", 5_000)
    monkeypatch.setattr(full_text_module, "LARGE_SCOPE", 100)
    assert store.lexical(mem.tenant, "U-1", "note", query, 20) == before
    assert token not in matches[-1]  # filtered by scope in search_docs instead
    # U-2's scope is small: its token stays, and only its note is found.
    found = store.lexical(mem.tenant, "U-2", "note", query, 20)
    assert lexical.scope_token(mem.tenant, "note", "U-2") in matches[-1]
    assert {note.subject for note in store.notes_by_id(mem.tenant, found).values()} <= {"U-2"}


@pytest.mark.parametrize("limit", [1, 2, 3, 6])
def test_the_best_matches_of_every_scope_filtered_to_the_scope_rank_as_the_join_does(
    mem: memlane.Memory, monkeypatch: pytest.MonkeyPatch, limit: int
) -> None:
    """Read one best match per match wanted: U-2's note, the best, pushes U-1's out of it."""
    store = mem.summaries._store
    query = "took kazudi lessons in the port"
    monkeypatch.setattr(full_text_module, "FEW_MATCHES", -1)
    before = store.lexical(mem.tenant, "U-1", "note", query, limit)
    monkeypatch.setattr(full_text_module, "FEW_MATCHES", 5_000)
    monkeypatch.setattr(full_text_module, "LARGE_SCOPE", 100)
    monkeypatch.setattr(full_text_module, "OVERFETCH", 1)
    assert store.lexical(mem.tenant, "U-1", "note", query, limit) == before
    assert len(before) == min(limit, RARE)


def test_vocabulary_counts_read_together_match_one_by_one(mem: memlane.Memory) -> None:
    """More terms than SQLite joins in one statement, unknown ones, the document count."""
    found = full_text(mem)
    words = ["lessons", "kazudi", "town", "nowhereword"]
    words += [f"filler{n}" for n in range(3 * full_text_module.VOCABULARY_LOOKUPS)]  # > 500
    one_by_one = {
        word: found.db.fetchone("SELECT doc FROM search_vocab WHERE term = %s", (word,))
        for word in words
    }
    documents = found.db.fetchone("SELECT count(*) FROM search_fts_docsize")[0]
    held = found._held([*words, None])
    assert held == {
        **{word: row[0] if row else 0 for word, row in one_by_one.items()},
        None: documents,
    }
    assert held["lessons"] > COMMON_DOCS and held["kazudi"] == RARE + 1
    assert held["nowhereword"] == 0 and documents == COMMON_DOCS + 11


def test_a_word_s_matches_are_counted_up_to_the_largest_bound_a_choice_compares_them_with(
    mem: memlane.Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Exact below the bound, and one past it above: FTS5 reads no more of the word's postings."""
    found = full_text(mem)
    words = ["lessons", "kazudi", "nowhereword", 'a"quote']
    assert found._matching(words) == {
        "lessons": COMMON_DOCS + 11,
        "kazudi": RARE + 1,
        "nowhereword": 0,
        'a"quote': 0,
    }
    monkeypatch.setattr(full_text_module, "FEW_MATCHES", 100)
    assert found._matching(["lessons"]) == {"lessons": COMMON_DOCS + 1}
    monkeypatch.setattr(full_text_module, "COMMON_DOCS", 10)
    assert found._matching(["lessons", "kazudi"]) == {"lessons": 101, "kazudi": RARE + 1}


def test_choosing_the_telling_words_reads_no_vocabulary_count_unless_every_word_is_common(
    mem: memlane.Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The vocabulary walks all of a word's postings: read only to pick the rarest common one."""
    found = full_text(mem)
    reads: list[object] = []
    counts = found._vocabulary_counts
    monkeypatch.setattr(found, "_vocabulary_counts", lambda t: reads.append(t) or counts(t))
    found._vocabulary = (None, {})  # nothing kept from the other tests
    assert telling(mem, "U-1", ["lessons", "kazudi"]) == ["kazudi"]
    assert telling(mem, "U-2", ["lessons", "kazudi"]) == ["lessons", "kazudi"]
    assert reads == []
    assert telling(mem, "U-1", ["lessons", "took"]) in (["lessons"], ["took"])
    assert reads == [["lessons", "took"]]


def test_the_document_count_is_fts5_s_own_total_through_inserts_and_deletes() -> None:
    """Varints of one to three bytes (127, 128, 16,384 rows), and rows deleted again."""
    connection = sqlite3.connect(":memory:", isolation_level=None)  # each statement commits
    connection.execute("CREATE VIRTUAL TABLE t USING fts5(body)")

    def total() -> int:
        (block,) = connection.execute("SELECT block FROM t_data WHERE id = 1").fetchone()
        return full_text_module.fts5_rows(block)

    assert total() == 0  # the record is empty until rows were inserted
    held = 0
    for wanted in (1, 127, 128, 300, 16_383, 16_384, 20_000):
        connection.executemany(
            "INSERT INTO t (body) VALUES (?)", [(f"word{n}",) for n in range(wanted - held)]
        )
        held = wanted
        assert total() == connection.execute("SELECT count(*) FROM t_docsize").fetchone()[0]
    connection.execute("DELETE FROM t WHERE rowid % 3 = 0")
    assert total() == connection.execute("SELECT count(*) FROM t_docsize").fetchone()[0]
    assert total() == 20_000 - 20_000 // 3
    with pytest.raises(memlane.StorageError):
        full_text_module.fts5_rows(bytes([0x81, 0x80]))


def test_inside_a_write_the_document_count_holds_the_rows_it_wrote(mem: memlane.Memory) -> None:
    """FTS5 writes its total at the commit: a count inside the write sees the new notes."""
    found = full_text(mem)
    before = found._vocabulary_counts([None])
    with found.db.write():
        mem.summaries.add_note("U-9", "a note inside the write", at=AT)
        assert found._vocabulary_counts([None]) == [(None, before[0][1] + 1)]
    assert found._vocabulary_counts([None]) == [(None, before[0][1] + 1)]


def test_vocabulary_counts_are_read_again_only_when_the_full_text_may_have_changed(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Vectors stored between two searches change no count; a note, here or elsewhere, does."""
    path = tmp_path / "m.db"
    with (
        memlane.Memory(path, embedder="hash", indexing="inline") as mem,
        memlane.Memory(path, embedder="hash", indexing="inline") as other,
    ):
        mem.summaries.add_note("U-1", "took kazudi lessons", at=AT)
        found = full_text(mem)
        reads: list[object] = []
        counts = found._vocabulary_counts
        monkeypatch.setattr(found, "_vocabulary_counts", lambda t: reads.append(t) or counts(t))
        assert found._held(["kazudi", None]) == {"kazudi": 1, None: 1}
        doc = found.db.fetchone("SELECT id FROM search_docs")[0]
        dialect(mem).put_vectors("another-model", [(doc, b"\0" * 16)])  # a vector stored: no text
        assert found._held(["kazudi", None]) == {"kazudi": 1, None: 1} and len(reads) == 1
        mem.summaries.add_note("U-2", "kazudi again", at=AT)
        assert found._held(["kazudi", None]) == {"kazudi": 2, None: 2} and len(reads) == 2
        other.summaries.add_note("U-3", "kazudi from elsewhere", at=AT)
        assert found._held(["kazudi", None]) == {"kazudi": 3, None: 3} and len(reads) == 3


def test_a_common_word_is_counted_in_its_scope_again_only_when_the_full_text_changed(
    mem: memlane.Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A word past COMMON_DOCS in U-1 is counted in each scope once, not per search."""
    found = full_text(mem)
    counts: list[object] = []
    fetchone = found.db.fetchone

    def spy(sql: str, parameters: object = ()) -> object:
        if "LIMIT" in sql and "MATCH" in sql:
            counts.append(parameters)
        return fetchone(sql, parameters)

    monkeypatch.setattr(found.db, "fetchone", spy)
    for _ in range(3):
        assert telling(mem, "U-1", ["lessons", "kazudi"]) == ["kazudi"]
        assert telling(mem, "U-2", ["lessons", "kazudi"]) == ["lessons", "kazudi"]
    assert len(counts) <= 2  # at most once per scope (earlier tests may have counted)
    counts.clear()
    mem.summaries.add_note("U-2", "more kazudi lessons", at=AT)
    for _ in range(3):
        assert telling(mem, "U-1", ["lessons", "kazudi"]) == ["kazudi"]
    assert len(counts) == 1
