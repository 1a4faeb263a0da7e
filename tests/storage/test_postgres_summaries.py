"""The summary lane's store on PostgreSQL: search inside the database, filtered before ranking.

Nearest neighbours come from pgvector (an HNSW index per width), lexical matches from a
tsvector of the shared CJK-aware tokens; both must keep to the scope (tenant, subject, kind,
not deleted) and agree with the SQLite store where the semantics are exact.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from memlane.errors import InvalidInput
from memlane.storage import lexical
from memlane.storage.base import SummaryStore, VectorClaim
from memlane.storage.postgres import PostgresDatabase, dialect, schema, search
from memlane.storage.postgres.search import index_tokens, tsquery, vector_literal
from memlane.storage.sql import SQLSummaryStore
from memlane.storage.sql.dialect import DocScope
from memlane.storage.sqlite.database import SQLiteDatabase
from memlane.summaries.model import SummaryContent
from memlane.window.model import Turn

MODEL = "test-model"
T0 = datetime(2026, 3, 2, tzinfo=UTC)


@pytest.fixture
def pg(postgres_url: str) -> Iterator[SQLSummaryStore]:
    database = PostgresDatabase(postgres_url)
    yield SQLSummaryStore(database)
    database.close()


@pytest.fixture
def both(tmp_path, postgres_url: str) -> Iterator[dict[str, SummaryStore]]:
    """The summary store of an empty database on each backend."""
    sqlite, postgres = SQLiteDatabase(tmp_path / "memlane.db"), PostgresDatabase(postgres_url)
    yield {"sqlite": SQLSummaryStore(sqlite), "postgresql": SQLSummaryStore(postgres)}
    sqlite.close()
    postgres.close()


def add_notes(
    store: SummaryStore, tenant: str, subject: str, texts: list[str], start: int = 0
) -> list[int]:
    """Store notes in one transaction; their ids, in order."""
    ids = []
    with store.transaction() as writer:
        tx = writer.next_tx(1)
        for offset, text in enumerate(texts):
            note = writer.put_note(
                tenant,
                subject,
                text,
                said_at=start + offset,
                session_id=None,
                source=None,
                provenance=(),
                tx=tx,
            )
            ids.append(note.id)
    return ids


def doc_ids(store: SQLSummaryStore, owners: list[int]) -> list[int]:
    rows = store.db.fetchall(
        "SELECT owner_id, id FROM search_docs WHERE kind = 'note' AND owner_id = ANY(%s)",
        (owners,),
    )
    by_owner = dict(rows)
    return [by_owner[owner] for owner in owners]


def embed(store: SummaryStore, doc_vectors: list[tuple[int, np.ndarray]]) -> None:
    store.put_vectors(
        MODEL, [(doc, np.asarray(v, dtype=np.float32).tobytes()) for doc, v in doc_vectors]
    )


def forget_note(store: SQLSummaryStore, note_id: int) -> None:
    with store.db.write():
        store.db.wrote()
        store.db.execute("UPDATE notes SET deleted_at = 1 WHERE id = %s", (note_id,))
        store.db.execute(
            "UPDATE search_docs SET deleted_at = 1 WHERE kind = 'note' AND owner_id = %s",
            (note_id,),
        )


def hnsw_definitions(store: SQLSummaryStore) -> dict[str, str]:
    """The HNSW indexes of ``search_docs``: name -> definition."""
    rows = store.db.fetchall(
        "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'search_docs' "
        "AND indexdef LIKE '%%USING hnsw%%'"
    )
    return dict(rows)


def hnsw_indexes(store: SQLSummaryStore) -> list[str]:
    return sorted(hnsw_definitions(store))


def spread(rng: np.random.Generator, count: int, dims: int, axis_weight: float) -> np.ndarray:
    """Random vectors whose first coordinate (the query's axis) is ``axis_weight``."""
    vectors = rng.uniform(-0.05, 0.05, size=(count, dims)).astype(np.float32)
    vectors[:, 0] = axis_weight
    return vectors


def crowded_scope(pg: SQLSummaryStore, rng: np.random.Generator) -> dict[str, list[int]]:
    """Thirty notes of acme/U-1 among 3000 others, every one of them closer to the query."""
    dims = 16
    mine = add_notes(pg, "acme", "U-1", [f"mine {i}" for i in range(30)])
    other_subject = add_notes(pg, "acme", "U-2", [f"theirs {i}" for i in range(1500)])
    other_tenant = add_notes(pg, "globex", "U-1", [f"same subject {i}" for i in range(1500)])
    deleted = add_notes(pg, "acme", "U-1", ["deleted"])
    mine_vectors = spread(rng, len(mine), dims, 0.1)
    mine_vectors[:, 0] = np.linspace(0.5, 0.01, len(mine))  # a known order
    embed(pg, list(zip(doc_ids(pg, mine), mine_vectors, strict=True)))
    for owners in (other_subject, other_tenant, deleted):
        embed(pg, list(zip(doc_ids(pg, owners), spread(rng, len(owners), dims, 5.0), strict=True)))
    forget_note(pg, deleted[0])
    pg.db.execute("ANALYZE search_docs")
    return {"mine": mine, "deleted": deleted}


# -- nearest neighbours ---------------------------------------------------------------------


@pytest.mark.parametrize("plan", ["planner's choice", "index forced"])
def test_filtered_nearest_never_leaves_the_scope_even_when_others_are_closer(
    postgres_url: str, plan: str
) -> None:
    if plan == "index forced":
        admin = PostgresDatabase(postgres_url)
        name = admin.fetchone("SELECT current_database()")[0]
        admin.execute(f"ALTER DATABASE {name} SET enable_seqscan = off")
        admin.close()
    database = PostgresDatabase(postgres_url)
    pg = SQLSummaryStore(database)
    try:
        made = crowded_scope(pg, np.random.default_rng(7))
        query = np.zeros(16, dtype=np.float32)
        query[0] = 1.0
        found = pg.nearest("acme", "U-1", "note", MODEL, query, 20)
        # Iterative scans keep going past the closer strangers, so the scope still fills k.
        assert found == made["mine"][:20]
        everything = pg.nearest("acme", "U-1", "note", MODEL, query, 100)
        assert everything == made["mine"]
        assert pg.nearest("acme", "U-1", "summary", MODEL, query, 20) == []
        assert pg.nearest("acme", "U-1", "note", "another-model", query, 20) == []
        assert pg.nearest("initech", None, "note", MODEL, query, 20) == []
        tenant_wide = pg.nearest("acme", None, "note", MODEL, query, 40)
        assert made["deleted"][0] not in tenant_wide and not set(made["mine"]) & set(tenant_wide)
    finally:
        database.close()


def test_an_hnsw_index_per_width_appears_with_the_first_vectors_and_serves_the_query(
    pg: SQLSummaryStore,
) -> None:
    rng = np.random.default_rng(3)
    owners = add_notes(pg, "acme", "U-1", [f"note {i}" for i in range(3000)])
    docs = doc_ids(pg, owners)
    assert hnsw_indexes(pg) == []
    embed(pg, list(zip(docs[:10], rng.standard_normal((10, 24)), strict=True)))
    assert hnsw_indexes(pg) == ["search_docs_hnsw_24"]
    embed(pg, list(zip(docs[10:], rng.standard_normal((len(docs) - 10, 24)), strict=True)))
    other = doc_ids(pg, add_notes(pg, "acme", "U-9", ["another model's width, say"]))
    embed(pg, [(other[0], rng.standard_normal(8))])
    assert hnsw_indexes(pg) == ["search_docs_hnsw_24", "search_docs_hnsw_8"]
    pg.db.execute("ANALYZE search_docs")

    query = rng.standard_normal(24).astype(np.float32)
    sql, parameters = pg.dialect.nearest_query(DocScope("acme", "U-1", "note"), MODEL, query, 20)
    with pg.db.pool.connection() as connection, connection.transaction():
        connection.execute("SET LOCAL enable_seqscan = off")
        plan = "\n".join(
            row[0] for row in connection.execute("EXPLAIN " + sql, parameters).fetchall()
        )
    assert "search_docs_hnsw_24" in plan, plan

    found = pg.nearest("acme", "U-1", "note", MODEL, query, 20)
    stored = np.asarray(
        [
            np.asarray(row[0], dtype=np.float32)
            for row in pg.db.fetchall(
                "SELECT vector::real[] FROM search_docs WHERE id = ANY(%s) ORDER BY id",
                (docs,),
            )
        ]
    )
    exact = [owners[i] for i in np.argsort(-(stored @ query), kind="stable")[:20]]
    assert len(found) == 20 and len(set(found) & set(exact)) >= 18  # HNSW is approximate
    scores = {owner: float(stored[owners.index(owner)] @ query) for owner in found}
    assert [scores[o] for o in found] == sorted(scores.values(), reverse=True)


def _plan(pg: SQLSummaryStore, query: np.ndarray, limit: int) -> str:
    """The plan of a subject's nearest-neighbour query where the scope's rows are not sorted.

    (Rows read in any other order would be sorted: on a few rows, what the planner prefers.)
    """
    sql, parameters = pg.dialect.nearest_query(DocScope("acme", "U-1", "note"), MODEL, query, limit)
    with pg.db.pool.connection() as connection, connection.transaction():
        connection.execute("SET LOCAL enable_seqscan = off")
        connection.execute("SET LOCAL enable_sort = off")
        rows = connection.execute("EXPLAIN " + sql, parameters).fetchall()
    return "\n".join(row[0] for row in rows)


def test_the_half_float_index_proposes_and_the_float32_vectors_rank(pg: SQLSummaryStore) -> None:
    # 1.0 and 1.0002 are one half float: as the index holds them the two notes tie (and the
    # earlier would come first); as stored, the later one is nearer.
    rng = np.random.default_rng(5)
    owners = add_notes(pg, "acme", "U-1", ["near", "nearer"] + [f"far {i}" for i in range(2000)])
    near, nearer = np.zeros(24), np.zeros(24)
    near[0], nearer[0] = 1.0, 1.0002
    far = rng.standard_normal((2000, 24)) * 0.1
    embed(pg, list(zip(doc_ids(pg, owners), [near, nearer, *far], strict=True)))
    pg.db.execute("ANALYZE search_docs")
    assert "halfvec_ip_ops" in hnsw_definitions(pg)["search_docs_hnsw_24"]
    query = np.zeros(24, dtype=np.float32)
    query[0] = 1.0
    assert "search_docs_hnsw_24" in _plan(pg, query, 1)
    assert pg.nearest("acme", "U-1", "note", MODEL, query, 1) == [owners[1]]
    assert pg.nearest("acme", "U-1", "note", MODEL, query, 2) == owners[:2][::-1]


def test_widths_past_2000_get_an_index_up_to_4000_and_wider_ones_are_ranked_exactly(
    pg: SQLSummaryStore,
) -> None:
    rng = np.random.default_rng(8)
    for dims in (3072, 4001):
        owners = add_notes(pg, "acme", "U-1", [f"{dims} wide {i}" for i in range(40)])
        vectors = rng.standard_normal((40, dims)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        embed(pg, list(zip(doc_ids(pg, owners), vectors, strict=True)))
        query = vectors[7] + 0.1 * vectors[3]
        exact = [owners[i] for i in np.argsort(-(vectors @ query), kind="stable")[:5]]
        assert pg.nearest("acme", "U-1", "note", MODEL, query, 5) == exact
        assert ("search_docs_hnsw_" + str(dims) in _plan(pg, query, 5)) == (dims == 3072)
    assert hnsw_indexes(pg) == ["search_docs_hnsw_3072"]


@pytest.mark.parametrize("value", [1e5, float("nan")])
def test_a_vector_no_index_keeps_is_refused_and_its_batch_not_stored(
    both: dict[str, SQLSummaryStore], value: float
) -> None:
    for store in both.values():
        add_notes(store, "acme", "U-1", ["kept", "refused"])
        docs = [doc for doc, _ in claim(store, MODEL, 10)]
        with pytest.raises(InvalidInput, match=f"the vector of search item {docs[1]}: it holds"):
            embed(store, [(docs[0], [0.6, 0.8]), (docs[1], [value, 0.0])])
        assert store.pending_count("acme", None, MODEL) == 2
        with pytest.raises(InvalidInput, match="query vector: it holds"):
            store.nearest("acme", "U-1", "note", MODEL, np.array([value, 0.0]), 5)


def test_a_transaction_adding_many_docs_has_their_statistics_gathered_after_it_commits(
    pg: SQLSummaryStore,
) -> None:
    """Right after an import the planner believed ``search_docs`` empty.

    A subject's vector search then read every doc of the tenant instead of the HNSW index,
    and its lexical search took 15 ms instead of 4 (10^4 notes, docs/benchmarks.md).
    """
    pg.db.execute("ALTER TABLE search_docs SET (autovacuum_enabled = false)")

    def believed() -> float:
        return float(
            pg.db.fetchone("SELECT reltuples FROM pg_class WHERE relname = 'search_docs'")[0]
        )

    add_notes(pg, "acme", "U-1", [f"a few {i}" for i in range(dialect.ANALYZE_AFTER - 1)])
    assert believed() < 0  # never analyzed
    add_notes(pg, "acme", "U-2", [f"an import {i}" for i in range(dialect.ANALYZE_AFTER)])
    assert believed() == 2 * dialect.ANALYZE_AFTER - 1


def test_a_words_index_scan_reads_no_pending_list_after_an_import(pg: SQLSummaryStore) -> None:
    """New entries of a GIN index with ``fastupdate`` wait in a list every scan reads whole.

    After an import of 10^4 notes a term's scan took 3.0 ms instead of 0.02 (migration 25).
    """
    pg.db.execute("ALTER TABLE search_docs SET (autovacuum_enabled = false)")  # no merging
    add_notes(
        pg, "acme", "U-1", [f"note {i} about the garden and its {i % 7} sheds" for i in range(3000)]
    )
    add_notes(pg, "acme", "U-1", ["a rare zebra"])
    with pg.db.pool.connection() as connection, connection.transaction():
        connection.execute("SET LOCAL enable_seqscan = off")
        connection.execute("SET LOCAL enable_indexscan = off")
        plan = connection.execute(
            "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT id FROM search_docs "
            "WHERE tokens @@ to_tsquery('simple', 'zebra')"
        ).fetchall()
    scan = [row[0] for row in plan]
    at = next(i for i, line in enumerate(scan) if "Bitmap Index Scan on search_docs_tokens" in line)
    buffers = next(line for line in scan[at:] if "Buffers:" in line)
    assert int(buffers.split("hit=")[1].split()[0]) < 10, scan  # a few pages of the tree


def test_vectors_round_trip_exactly() -> None:
    vector = np.asarray([0.1, -1e-7, 3.4028235e38, 1 / 3, 0.0], dtype=np.float32)
    text = vector_literal(vector)
    parsed = np.asarray([float(part) for part in text.strip("[]").split(",")], dtype=np.float32)
    assert parsed.tobytes() == vector.tobytes()


def test_stored_vectors_read_back_bit_for_bit(pg: SQLSummaryStore) -> None:
    vectors = np.random.default_rng(1).standard_normal((5, 12)).astype(np.float32)
    docs = doc_ids(pg, add_notes(pg, "acme", "U-1", [f"n{i}" for i in range(5)]))
    embed(pg, list(zip(docs, vectors, strict=True)))
    rows = pg.db.fetchall(
        "SELECT vector::real[], dims, model FROM search_docs WHERE id = ANY(%s) ORDER BY id",
        (docs,),
    )
    assert np.asarray([row[0] for row in rows], dtype=np.float32).tobytes() == vectors.tobytes()
    assert {(row[1], row[2]) for row in rows} == {(12, MODEL)}
    assert pg.vector_state("acme", "U-1", "note", MODEL) == (5, 5, max(docs))
    assert pg.pending_count("acme", None, MODEL) == 0 and claim(pg, MODEL, 10) == []
    assert pg.pending_count("acme", None, "other") == 5
    assert [doc for doc, _ in claim(pg, "other", 3)] == docs[:3]


def claim(store: SummaryStore, model: str, limit: int) -> list[tuple[int, str]]:
    """What an indexer would embed next: up to ``limit`` pending docs, claimed for a minute."""
    now = int(time.time() * 1e6)
    return store.claim_vectors("acme", VectorClaim(model, limit, 10**9, now, now + 60_000_000))


@pytest.mark.parametrize("subject", ["U-1", None])
def test_sqlite_and_postgresql_rank_the_same_vectors_alike(
    both: dict[str, SummaryStore], subject: str | None
) -> None:
    rng = np.random.default_rng(11)
    vectors = rng.standard_normal((240, 32)).astype(np.float32)
    queries = rng.standard_normal((6, 32)).astype(np.float32)
    rankings = {}
    for name, store in both.items():
        owners = add_notes(store, "acme", "U-1", [f"one {i}" for i in range(160)])
        owners += add_notes(store, "acme", "U-2", [f"two {i}" for i in range(80)], start=500)
        pending = claim(store, MODEL, 1000)
        assert len(pending) == len(owners)
        embed(store, list(zip([doc for doc, _ in pending], vectors, strict=True)))
        rankings[name] = [
            store.nearest("acme", subject, "note", MODEL, query, limit)
            for query in queries
            for limit in (1, 10, 50, 400)
        ]
    assert rankings["sqlite"] == rankings["postgresql"]
    expected_size = 160 if subject else 240
    assert max(len(ranking) for ranking in rankings["postgresql"]) == expected_size


# -- lexical search -------------------------------------------------------------------------


def test_lexical_search_ranks_and_scopes_chinese_and_english(pg: SQLSummaryStore) -> None:
    mine = add_notes(
        pg,
        "acme",
        "U-1",
        [
            "我住在北京，每天坐地铁上班",
            "北京的冬天很冷",
            "I love hiking in the mountains on weekends",
            "上海是我的老家",
            "Hiking boots are on sale",
        ],
    )
    other_subject = add_notes(pg, "acme", "U-2", ["北京 地铁 北京 地铁", "hiking mountains"])
    other_tenant = add_notes(pg, "globex", "U-1", ["北京地铁", "hiking in the mountains"])
    deleted = add_notes(pg, "acme", "U-1", ["北京地铁 hiking mountains weekends"])
    forget_note(pg, deleted[0])

    chinese = pg.lexical("acme", "U-1", "note", "北京 地铁", 10)
    assert chinese == [mine[0], mine[1]]
    english = pg.lexical("acme", "U-1", "note", "hiking in the mountains", 10)
    assert english == [mine[2], mine[4]]
    assert pg.lexical("acme", "U-1", "note", "the", 10) == []  # stop words only
    assert pg.lexical("acme", "U-1", "note", "Shanghai", 10) == []
    assert pg.lexical("acme", "U-1", "summary", "北京", 10) == []
    assert pg.lexical("acme", "U-1", "note", "北京", 1) == [mine[1]]  # the shorter note
    # A query PostgreSQL's parser keeps nothing of finds nothing (and does not fail).
    assert pg.lexical("acme", "U-1", "note", "½", 10) == []

    tenant_wide = pg.lexical("acme", None, "note", "北京 地铁", 10)
    assert set(tenant_wide) == {mine[0], mine[1], other_subject[0]}
    assert tenant_wide[0] == other_subject[0]  # both words, twice each
    assert not set(tenant_wide) & {*other_tenant, *deleted}
    assert pg.lexical("globex", "U-1", "note", "mountains", 10) == [other_tenant[1]]


@pytest.mark.parametrize("name", ["sqlite", "postgresql"])
def test_a_rare_word_outranks_a_common_one_as_bm25_has_it(
    both: dict[str, SummaryStore], name: str
) -> None:
    store = both[name]
    common = add_notes(
        store, "acme", "U-1", [f"we talked about coffee, day {i}" for i in range(12)]
    )
    rare = add_notes(store, "acme", "U-1", ["the plumber fixed the sink"])
    short = add_notes(store, "acme", "U-1", ["coffee coffee"])
    ranked = store.lexical("acme", "U-1", "note", "coffee with the plumber", 20)
    # Every doc matches; the one word only one note has decides the top, as IDF weighs it.
    assert ranked[0] == rare[0]
    assert set(ranked) == {*common, *rare, *short}
    # Among equals in IDF, more occurrences in a shorter doc rank first; then doc id.
    assert ranked[1] == short[0] and ranked[2:] == common


def test_query_tokens_reach_postgresql_as_the_index_has_them(pg: SQLSummaryStore) -> None:
    text = "Call +86 138-0013-8000 from 北京西站 O'Brien's café ½"
    row = pg.db.fetchone(
        "SELECT to_tsvector('simple', %s) @@ to_tsquery('simple', %s)",
        (index_tokens(text), tsquery(lexical.terms("o'brien 13800138000 西站 CAFÉ"))),
    )
    assert row[0] is True
    assert tsquery([]) is None
    assert tsquery(["北京", "it's"]) == "'北京' | 'it''s'"


# -- the rest of the store, side by side with SQLite ----------------------------------------


def content(text: str) -> SummaryContent:
    return SummaryContent(facts=(text,))


def test_summaries_notes_and_turns_behave_as_on_sqlite(both: dict[str, SummaryStore]) -> None:
    seen = {}
    for name, store in both.items():
        with store.transaction() as writer:
            tx = writer.next_tx(10)
            first = writer.put_summary("acme", "U-1", "s-1", content("北京"), (1, 2), ["s-1#0"], tx)
            story = writer.put_summary("acme", "U-1", None, content("story"), (1, 2), [], tx)
        with store.transaction() as writer:
            second = writer.put_summary(
                "acme", "U-1", "s-1", content("上海"), (1, 3), [], writer.next_tx(10)
            )
        assert (first.version, second.version, story.session_id) == (1, 2, None)
        current = store.current_summary("acme", "s-1", None)
        assert current is not None and current.id == second.id
        assert store.current_summary("globex", "s-1", None) is None
        storyline = store.current_summary("acme", None, "U-1")
        assert storyline is not None and storyline.id == story.id
        # Only the current version is searchable.
        assert store.lexical("acme", "U-1", "summary", "北京 上海", 10) == [second.id]
        for turn_id, minutes in (("t-1", 1), ("t-2", 0), ("t-3", 1)):
            store.put_turn("acme", Turn(turn_id, "s-1", "U-1", "user", turn_id, at(minutes)))
        store.put_turn("acme", Turn("t-1", "s-1", "U-1", "user", "again", at(1)))
        seen[name] = (
            [
                (s.version, s.content, s.provenance)
                for s in store.summary_versions("acme", "U-1", "s-1")
            ],
            [(t.id, t.content, t.at) for t in store.turns("acme", "s-1")],
            [(s.session_id, s.version) for s in store.audit("acme", "U-1")[0]],
            sorted(store.summaries("acme", [first.id, second.id, 999]).keys())
            == sorted([first.id, second.id]),
            store.summaries("globex", [first.id]),
            store.notes_by_id("acme", []),
        )
    assert seen["sqlite"] == seen["postgresql"]
    assert [turn[0] for turn in seen["postgresql"][1]] == ["t-2", "t-3", "t-1"]


def at(minutes: int) -> datetime:
    return T0 + timedelta(minutes=minutes)


def test_coverage_says_whether_a_scope_is_partly_embedded(both: dict[str, SummaryStore]) -> None:
    """Embedded by this model, by another, not at all, deleted: the same answers on both."""
    from memlane.storage.base import Coverage

    for store in both.values():
        assert isinstance(store, SQLSummaryStore)

        def doc(owner: int, store: SQLSummaryStore = store) -> int:
            sql = "SELECT id FROM search_docs WHERE kind = 'note' AND owner_id = %s"
            return int(store.db.fetchall(sql, (owner,))[0][0])

        def seen(subject: str | None, store: SQLSummaryStore = store) -> Coverage:
            return store.coverage("acme", subject, "note", MODEL)

        assert seen("U-1") == (False, False)
        notes = add_notes(store, "acme", "U-1", ["a", "b", "c"])
        add_notes(store, "acme", "U-2", ["elsewhere"])
        assert seen("U-1") == (False, True)
        embed(store, [(doc(notes[0]), np.ones(4)), (doc(notes[1]), np.ones(4))])
        assert seen("U-1") == (True, True)
        store.put_vectors("other", [(doc(notes[2]), np.ones(4, np.float32).tobytes())])
        assert seen("U-1") == (True, True)  # another model's vector is none of this one's
        embed(store, [(doc(notes[2]), np.ones(4))])
        assert seen("U-1") == (True, False)
        assert seen(None) == (True, True)  # U-2's note waits
        [late] = add_notes(store, "acme", "U-1", ["forgotten"], start=9)
        store.db.execute("UPDATE search_docs SET deleted_at = 1 WHERE id = %s", (doc(late),))
        assert seen("U-1") == (True, False)  # a deleted doc is in no scope


# -- migration 24 -------------------------------------------------------------------------

_FLOAT32_INDEX = (
    "CREATE INDEX IF NOT EXISTS search_docs_hnsw_{dims} ON search_docs USING hnsw "
    "((vector::vector({dims})) vector_ip_ops) WHERE dims = {dims}"
)
"""The index of one width as versions 1-23 made it (float32, widths up to 2,000)."""


def test_a_database_of_version_23_gets_half_float_indexes_and_keeps_its_vectors(
    empty_postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = np.random.default_rng(4)
    stored = {dims: rng.standard_normal((30, dims)).astype(np.float32) for dims in (24, 3000)}
    with monkeypatch.context() as patch:
        patch.setattr(schema, "LATEST_VERSION", 23)
        patch.setattr(search, "VECTOR_INDEX", _FLOAT32_INDEX)
        patch.setattr(search, "HNSW_MAX_DIMS", 2000)
        database = PostgresDatabase(empty_postgres_url)
        old = SQLSummaryStore(database)
        owners = {
            dims: add_notes(old, "acme", "U-1", [f"{dims} {i}" for i in range(30)])
            for dims in stored
        }
        for dims, vectors in stored.items():
            embed(old, list(zip(doc_ids(old, owners[dims]), vectors, strict=True)))
        assert hnsw_indexes(old) == ["search_docs_hnsw_24"]
        database.close()

    database = PostgresDatabase(empty_postgres_url)
    try:
        pg = SQLSummaryStore(database)
        definitions = hnsw_definitions(pg)
        assert sorted(definitions) == ["search_docs_hnsw_24", "search_docs_hnsw_3000"]
        assert all("halfvec_ip_ops" in definition for definition in definitions.values())
        for dims, vectors in stored.items():
            rows = pg.db.fetchall(
                "SELECT vector::real[] FROM search_docs WHERE id = ANY(%s) ORDER BY id",
                (doc_ids(pg, owners[dims]),),
            )
            assert np.asarray([row[0] for row in rows], dtype=np.float32).tobytes() == (
                vectors.tobytes()
            )
            exact = [owners[dims][i] for i in np.argsort(-(vectors @ vectors[2]), kind="stable")]
            assert pg.nearest("acme", "U-1", "note", MODEL, vectors[2], 30) == exact
            assert f"search_docs_hnsw_{dims}" in _plan(pg, vectors[2], 30)
    finally:
        database.close()
