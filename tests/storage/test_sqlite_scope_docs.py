"""On SQLite each scope's docs are counted by triggers, as FTS5 counts the scope's token.

A lexical search asks whether its scope holds most of the index (``FullTextIndex
._few_in_large``). FTS5's vocabulary answered by walking every posting of the scope's token
(2 ms at 10^5 docs, 0.1-0.3 s at 10^6), at the first search and after every write; the
counts ``search_scope_docs`` keeps are read instead, and must be the vocabulary's.
"""

from __future__ import annotations

import io
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import memlane
from memlane.storage import lexical
from memlane.storage.sql import SQLSummaryStore
from memlane.storage.sql.dialect import DocScope
from memlane.storage.sqlite import full_text as full_text_module
from memlane.storage.sqlite.dialect import SQLiteDialect
from memlane.storage.sqlite.schema import LATEST_VERSION, migrate
from tests.conftest import FakeClock


def open_memory(path: Path, clock: FakeClock, tenant: str = "default") -> memlane.Memory:
    return memlane.Memory(
        str(path), tenant=tenant, clock=clock, embedder="hash", retention=timedelta(days=1)
    )


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(datetime(2026, 3, 2, tzinfo=UTC))


@pytest.fixture
def path(tmp_path: Path, clock: FakeClock) -> Iterator[Path]:
    """Two tenants; subjects with notes and a session summary; one subject forgotten."""
    file = tmp_path / "memory.db"
    for tenant in ("acme", "globex"):
        with open_memory(file, clock, tenant) as mem:
            for subject, count in (("U-1", 7), ("U-2", 3), ("U-3", 2)):
                mem.summaries.add_notes(
                    [
                        {"subject": subject, "text": f"took lessons in town {n}", "at": clock.now}
                        for n in range(count)
                    ]
                )
            session = mem.session("U-1", session_id="s-1", window=1)
            session.add("user", "I moved to Lisbon last spring")
            session.add("assistant", "Noted.")
            mem.summaries.index()
            mem.forget("U-3", reason="asked")
    with open_memory(file, clock, "acme") as mem:
        clock.advance(days=2)
        mem.purge()
    yield file


def counts(path: Path) -> dict[tuple[str, str, str], int]:
    with sqlite3.connect(path) as connection:
        rows = connection.execute("SELECT tenant, kind, subject, docs FROM search_scope_docs")
        return {(tenant, kind, subject): docs for tenant, kind, subject, docs in rows}


def vocabulary_counts(path: Path) -> dict[tuple[str, str, str], int]:
    """What FTS5's vocabulary counts of every scope token a stored doc has."""
    with sqlite3.connect(path) as connection:
        connection.execute(
            "CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, search_fts, 'row')"
        )
        scopes = connection.execute(
            "SELECT DISTINCT tenant, kind, subject FROM search_docs "
            "UNION SELECT DISTINCT tenant, kind, '' FROM search_docs"
        ).fetchall()
        found = {}
        for tenant, kind, subject in scopes:
            token = lexical.scope_token(tenant, kind, *([subject] if subject else []))
            row = connection.execute("SELECT doc FROM vocab WHERE term = ?", (token,)).fetchone()
            found[tenant, kind, subject] = 0 if row is None else row[0]
        return found


def test_each_scope_s_count_is_what_fts5_counts_of_its_token(path: Path) -> None:
    found = counts(path)
    assert found == vocabulary_counts(path)
    # Forgotten but not purged (globex): still in FTS5, still counted. Purged: gone, name too.
    assert found[("globex", "note", "U-3")] == 2
    assert ("acme", "note", "U-3") not in found
    for tenant in ("acme", "globex"):
        assert found[(tenant, "note", "U-1")] >= 7 and found[(tenant, "summary", "U-1")] >= 1
        of_subjects = [
            docs for (t, kind, s), docs in found.items() if (t, kind) == (tenant, "note")
        ]
        assert found[(tenant, "note", "")] * 2 == sum(of_subjects)


def test_the_migration_counts_the_docs_already_stored(path: Path, clock: FakeClock) -> None:
    before = counts(path)
    with sqlite3.connect(path) as connection:  # as a file of the version before was
        for trigger in ("added", "removed", "moved"):
            connection.execute(f"DROP TRIGGER search_docs_scope_{trigger}")
        connection.execute("DROP TABLE search_scope_docs")
        connection.execute(f"PRAGMA user_version = {LATEST_VERSION - 1}")
    with open_memory(path, clock, "acme") as mem:
        mem.remember("U-9", "I work at Initech")
    assert counts(path) == vocabulary_counts(path)
    assert counts(path)[("acme", "note", "")] == before[("acme", "note", "")] + 1


def test_a_memory_imported_from_an_export_counts_its_scopes(
    path: Path, tmp_path: Path, clock: FakeClock
) -> None:
    stream = io.StringIO()
    with open_memory(path, clock, "acme") as mem:
        mem.export(stream)
    copy = tmp_path / "copy.db"
    with open_memory(copy, clock, "acme") as mem:
        mem.import_export(lambda: iter(stream.getvalue().splitlines()))
    assert counts(copy) == counts(path) == vocabulary_counts(copy)


def test_a_large_scope_is_judged_without_walking_its_token_s_postings(
    tmp_path: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    with open_memory(tmp_path / "memory.db", clock) as mem:
        for subject, count in (("U-1", 7), ("U-2", 3)):
            mem.summaries.add_notes(
                [
                    {"subject": subject, "text": f"took lessons in town {n}", "at": clock.now}
                    for n in range(count)
                ]
            )
        store = mem.summaries._store
        assert isinstance(store, SQLSummaryStore) and isinstance(store.dialect, SQLiteDialect)
        statements: list[str] = []
        fetchall = store.db.fetchall

        def spy(sql: str, parameters: object = ()) -> list[object]:
            statements.append(sql)
            return fetchall(sql, parameters)

        monkeypatch.setattr(store.db, "fetchall", spy)
        monkeypatch.setattr(full_text_module, "LARGE_SCOPE", 5)
        full_text = store.dialect.full_text

        def few_in_large(subject: str | None) -> bool:
            token = lexical.scope_token(mem.tenant, "note", *([subject] if subject else []))
            return full_text._few_in_large(["town"], DocScope(mem.tenant, subject, "note"), token)

        assert few_in_large("U-1")  # 7 of 10 docs
        assert not few_in_large("U-2")  # 3
        assert few_in_large(None)  # the tenant's 10
        assert statements and not any("search_vocab" in sql for sql in statements)


def test_the_triggers_follow_a_doc_moved_to_another_scope_and_drop_an_emptied_one() -> None:
    """No write path moves a doc today; the counts must still hold if one does."""
    connection = sqlite3.connect(":memory:", isolation_level=None)
    migrate(connection)
    for owner, subject in enumerate(["A", "A", "B"]):
        connection.execute(
            "INSERT INTO search_docs (tenant, subject, kind, owner_id, text) "
            "VALUES ('t', ?, 'note', ?, 'x')",
            (subject, owner),
        )
    connection.execute("UPDATE search_docs SET subject = 'B' WHERE owner_id = 0")
    connection.execute("UPDATE search_docs SET kind = 'summary' WHERE owner_id = 1")
    connection.execute("UPDATE search_docs SET deleted_at = 5 WHERE owner_id = 2")  # stays in FTS5
    rows = connection.execute("SELECT tenant, kind, subject, docs FROM search_scope_docs")
    assert {(kind, subject): docs for _, kind, subject, docs in rows} == {
        ("note", ""): 2,
        ("note", "B"): 2,
        ("summary", ""): 1,
        ("summary", "A"): 1,
    }
