"""What recall needs of each note, stored with it: kept, queried by key, backfilled, forgotten.

Every test runs on SQLite and PostgreSQL: the one SQL store reads keys the same way on both.
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import memlane
from memlane.router.evidence import CLAIM, NOTE, SLOT, WORD, clause_digest, note_keys
from memlane.router.slots import clauses, slot_keys, slot_probes
from memlane.storage.sql import schema
from memlane.storage.sqlite import schema as sqlite_schema
from memlane.summaries import indexer as indexer_module
from memlane.summaries import linedata
from memlane.summaries.model import Note
from memlane.timeutil import to_micros
from tests.conftest import FakeClock
from tests.support import note_keys as keyed
from tests.support.note_keys import key_rows, pending, rekeyed, store_of
from tests.support.schema_files import rewind, version_before

backend = keyed.backend  # both databases, for this module only
memory = keyed.memory


def test_a_note_is_stored_with_its_keys_and_found_by_them(memory: memlane.Memory) -> None:
    note = memory.remember("U-1", "My favourite team is Arsenal")
    memory.remember("U-2", "My favourite team is Chelsea")
    store = store_of(memory)
    expected = note_keys("U-1", note.text, note.provenance)
    assert key_rows(memory, "U-1") == len(dict.fromkeys(expected))
    claim = next(key for kind, key in expected if kind == CLAIM)
    found = store.keyed_notes(memory.tenant, "U-1", CLAIM, [claim])
    assert [n.id for n in found] == [note.id]  # not U-2's note on the same relation
    assert store.key_counts(memory.tenant, "U-1", WORD, ["arsenal", "chelsea"]) == {
        "arsenal": 1,
        "chelsea": 0,
    }
    assert store.count_keyed(memory.tenant, "U-1", NOTE, [""]) == 1
    assert pending(memory) == 0


def test_keys_of_answers_a_tenants_own_notes_only(memory: memlane.Memory) -> None:
    """The words of the notes asked for, each once, and none of another tenant's notes."""
    mine = memory.remember("U-1", "My favourite team is Arsenal")
    theirs = memory.for_tenant("other").remember("U-1", "My favourite team is Chelsea")
    store = store_of(memory)
    expected = sorted(
        key for kind, key in note_keys("U-1", mine.text, mine.provenance) if kind == WORD
    )
    found = store.keys_of(memory.tenant, [mine.id, theirs.id], WORD)
    assert list(found) == [mine.id] and sorted(found[mine.id]) == expected
    assert store.keys_of("other", [mine.id, theirs.id], WORD).keys() == {theirs.id}
    assert store.keys_of(memory.tenant, [], WORD) == {}


def test_keys_of_among_reads_only_the_keys_asked(memory: memlane.Memory) -> None:
    """``among``: only the pairs asked for (a note holding none is left out), tenant's own."""
    team = memory.remember("U-1", "My favourite team is Arsenal")
    food = memory.remember("U-1", "My favourite food is ramen")
    theirs = memory.for_tenant("other").remember("U-1", "My favourite team is Chelsea")
    store = store_of(memory)
    ids = [team.id, food.id, theirs.id]
    found = store.keys_of(memory.tenant, ids, WORD, ["arsenal", "ramen", "team", "nowhere"])
    assert {i: sorted(keys) for i, keys in found.items()} == {
        team.id: ["arsenal", "team"],
        food.id: ["ramen"],
    }
    assert store.keys_of("other", ids, WORD, ["team", "arsenal"]) == {theirs.id: ["team"]}
    assert store.keys_of(memory.tenant, ids, WORD, []) == {}


def test_notes_said_gives_what_notes_by_id_gives_of_when_and_whence(
    memory: memlane.Memory,
) -> None:
    """The two columns recall weighs summary lines by, read without the notes themselves."""
    mine = memory.summaries.add_note(
        "U-1", "I moved to Lisbon", at=memory.clock(), provenance=["U-1-S1#2", "x"]
    )
    theirs = memory.for_tenant("other").remember("U-1", "My favourite team is Chelsea")
    store = store_of(memory)
    whole = store.notes_by_id(memory.tenant, [mine.id, theirs.id])
    assert store.notes_said(memory.tenant, [mine.id, theirs.id]) == {
        note_id: (to_micros(note.at), note.provenance) for note_id, note in whole.items()
    }
    assert list(whole) == [mine.id]
    data = linedata.LineData(store, memory.tenant, "U-1")
    assert data.said([mine.id]) == store.notes_said(memory.tenant, [mine.id])
    data.by_id([mine.id])  # read whole: answered from it, the same
    assert data.said([mine.id]) == store.notes_said(memory.tenant, [mine.id])


def test_latest_first_pages_follow_when_said_then_stored(
    memory: memlane.Memory, clock: FakeClock
) -> None:
    said = [
        memory.remember("U-1", f"My favourite team is Team{day}", at=f"2026-01-{day:02d}")
        for day in (20, 5)
    ]
    said += [memory.remember("U-1", f"My favourite team is Club{i}") for i in range(3)]
    store = store_of(memory)
    claim = next(k for kind, k in note_keys("U-1", said[0].text, ()) if kind == CLAIM)
    pages = [store.latest_keyed(memory.tenant, "U-1", CLAIM, claim, (i, 2)) for i in (0, 2, 4)]
    newest_first = sorted(said, key=lambda n: (n.at, n.tx_from), reverse=True)
    assert [n.id for page in pages for n in page] == [n.id for n in newest_first]


def test_forgetting_removes_the_keys_and_recall_no_longer_reads_them(
    memory: memlane.Memory,
) -> None:
    memory.remember("U-1", "I moved to Lyon")
    memory.remember("U-1", "My favourite band is Kalotor")
    assert key_rows(memory, "U-1") > 0
    memory.forget("U-1", reason="erasure")
    assert key_rows(memory, "U-1") == 0
    assert store_of(memory).count_keyed(memory.tenant, "U-1", NOTE, [""]) == 0


def test_notes_stored_without_keys_are_keyed_by_the_first_recall(
    clock: FakeClock, scratch_url: str
) -> None:
    # Inline: no worker thread that would key the notes before the recall does.
    with memlane.Memory(scratch_url, clock=clock, embedder="hash", indexing="inline") as mem:
        mem.summaries._keyer = None  # as a writer from before note keys existed
        mem.remember("U-1", "My favourite team is Arsenal")
        clock.advance(days=1)
        mem.remember("U-1", "My favourite team is now Chelsea")
        assert key_rows(mem, "U-1") == 0 and pending(mem) == 2
        items = mem.recall("U-1", "favourite team").items
        assert pending(mem) == 0 and key_rows(mem, "U-1") > 0
        stale = [item.text for item in items if item.status == "stale"]
        assert stale == ["My favourite team is Arsenal"]


@pytest.mark.parametrize("batch", [1, 500])
def test_the_backlog_is_keyed_in_batches_and_asked_for_once_when_one_held_it(
    clock: FakeClock, scratch_url: str, monkeypatch: pytest.MonkeyPatch, batch: int
) -> None:
    monkeypatch.setattr(linedata, "BACKFILL_BATCH", batch)
    # Inline: no worker thread that would key the notes before the recall does.
    with memlane.Memory(scratch_url, clock=clock, embedder="hash", indexing="inline") as mem:
        mem.summaries._keyer = None  # as a writer from before note keys existed
        mem.remember("U-1", "My favourite team is Arsenal")
        mem.remember("U-1", "I moved to Lisbon in May")
        store, asked = store_of(mem), []
        unkeyed = store.unkeyed_notes

        def counted(tenant: str, subject: str, limit: int) -> list[Note]:
            asked.append(limit)
            return unkeyed(tenant, subject, limit)

        monkeypatch.setattr(store, "unkeyed_notes", counted)
        mem.summaries.line_data("U-1", note_keys)
        assert pending(mem) == 0 and key_rows(mem, "U-1") > 0
        # Two notes: in batches of one, a third call finds none; in one batch, one call.
        assert len(asked) == (3 if batch == 1 else 1)


def said_twice(path: Path, clock: FakeClock, first: str, then: str) -> None:
    """A memory file where U-1 said ``first``, then a day later ``then``."""
    with memlane.Memory(path, clock=clock, embedder="hash") as mem:
        mem.remember("U-1", first)
        clock.advance(days=1)
        mem.remember("U-1", then)


def test_a_file_from_before_note_keys_is_migrated_and_backfilled(
    tmp_path: Path, clock: FakeClock
) -> None:
    path = tmp_path / "old.db"
    said_twice(path, clock, "My favourite team is Arsenal", "My favourite team is now Chelsea")
    rewind(
        path,
        version_before("CREATE TABLE note_keys"),
        "DROP TABLE note_keys",
        "DROP TABLE note_keys_pending",
        # ... and what later migrations added (7: the indexer's claims).
        "DROP INDEX search_docs_unembedded",
        "ALTER TABLE search_docs DROP COLUMN claimed_until",
        "ALTER TABLE summaries DROP COLUMN line_facts",  # (14: summary lines)
    )
    with memlane.Memory(path, clock=clock, embedder="hash") as mem:
        assert pending(mem) == 2
        items = mem.recall("U-1", "favourite team").items
        assert [i.text for i in items if i.status == "stale"] == ["My favourite team is Arsenal"]
        assert pending(mem) == 0


def test_an_import_keys_its_notes_before_the_first_recall(
    clock: FakeClock, new_scratch_url: Callable[[], str]
) -> None:
    stream = io.StringIO()
    with memlane.Memory(new_scratch_url(), clock=clock, embedder="hash") as mem:
        mem.remember("U-1", "The chair of the Tidewater Club is Ada Moss")
        clock.advance(days=1)
        mem.remember("U-1", "The chair of the Tidewater Club is Ben Ode")
        mem.export(stream)
    with memlane.Memory(new_scratch_url(), clock=clock, embedder="hash") as mem:
        mem.import_export(lambda: iter(stream.getvalue().splitlines()))
        assert pending(mem) == 0  # keyed by the import, not left to the first recall
        items = mem.recall("U-1", "who chairs the Tidewater Club?").items
        stale = [i.text for i in items if i.status == "stale"]
        assert stale == ["The chair of the Tidewater Club is Ada Moss"]


def test_slot_keys_are_stored_per_clause(memory: memlane.Memory) -> None:
    note = memory.remember("U-1", "The chair of the Tidewater Club is Ada Moss")
    rows = store_of(memory).db.fetchall(
        "SELECT kind, key FROM note_keys WHERE note_id = %s AND kind LIKE 's%%'", (note.id,)
    )
    clause = "the chair of the tidewater club is ada moss"
    assert sorted(kind for kind, _ in rows) == sorted(SLOT + key for key in slot_keys(clause))
    assert {key for _, key in rows} == {clause_digest(clause)}


def test_recent_keyed_reads_the_latest_live_visible_rows_of_a_kind_up_to_a_limit(
    memory: memlane.Memory, clock: FakeClock
) -> None:
    texts = ["The chair of the club is Ada", "The chair of the club is Ben"]
    said = []
    for day in range(1, 7):
        said.append(memory.remember("U-1", texts[day % 2], at=f"2026-01-{day:02d}"))
        clock.advance(minutes=1)
    memory.remember("U-2", texts[0], at="2026-01-09")  # another subject's
    store = store_of(memory)
    kind = SLOT + slot_probes("the chair of the club is ada")[0]

    def recent(limit: int, visible: tuple[int | None, int | None] = (None, None)) -> list[int]:
        found = store.recent_keyed(memory.tenant, "U-1", [kind], visible, limit)[kind]
        return [note_id for _, note_id, _, _ in found]

    ids = [note.id for note in said]
    assert recent(3) == ids[5:2:-1]  # latest first, no further than the limit
    assert recent(10) == ids[::-1]
    ada, ben = (clause_digest(clauses(text)[0]) for text in texts)
    rows = store.recent_keyed(memory.tenant, "U-1", [kind], (None, None), 2)[kind]
    assert rows == [
        (ada, ids[5], to_micros(said[5].at), to_micros(said[5].tx_from)),
        (ben, ids[4], to_micros(said[4].at), to_micros(said[4].tx_from)),
    ]
    assert recent(2, (to_micros(said[3].at), None)) == [ids[3], ids[2]]
    assert recent(10, (None, to_micros(said[1].tx_from))) == [ids[1], ids[0]]
    memory.forget("U-1", reason="erasure")
    assert recent(10) == []


def test_recent_keyed_answers_every_kind_asked_in_few_reads(
    memory: memlane.Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory.remember("U-1", "The chair of the club is Ada")
    memory.remember("U-1", "My favourite colour is teal")
    memory.remember("U-1", "The chair of the club is Ben")
    store = store_of(memory)
    kinds = [
        SLOT + slot_probes("the chair of the club is ada")[0],
        SLOT + slot_probes("my favourite colour is teal")[0],
        SLOT + "a probe nobody filed",
    ]
    reads = []
    fetchall = store.db.fetchall

    def spy(sql: str, *rest: object) -> object:
        if sql.startswith("SELECT r.kind"):  # not the background indexer's reads
            reads.append(sql)
        return fetchall(sql, *rest)

    monkeypatch.setattr(store.db, "fetchall", spy)
    together = store.recent_keyed(memory.tenant, "U-1", kinds, (None, None), 5)
    assert list(together) == kinds and len(reads) == 1
    monkeypatch.setattr(store.dialect, "kinds_per_read", 2)
    assert store.recent_keyed(memory.tenant, "U-1", kinds, (None, None), 5) == together
    assert len(reads) == 3  # three kinds, two a read
    for kind in kinds:
        alone = store.recent_keyed(memory.tenant, "U-1", [kind], (None, None), 5)
        assert together[kind] == alone[kind]
    assert len(together[kinds[0]]) == 2 and len(together[kinds[1]]) == 1
    assert together[kinds[2]] == []
    assert store.recent_keyed(memory.tenant, "U-1", [], (None, None), 5) == {}
    with pytest.raises(ValueError, match="indexed by time"):
        store.recent_keyed(memory.tenant, "U-1", [WORD], (None, None), 5)


def test_recent_keyed_sends_a_few_statement_texts_whatever_the_number_of_kinds(
    memory: memlane.Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each text is compiled once per connection: not one per count of kinds read."""
    note = memory.remember("U-1", "The chair of the club is Ada")
    store = store_of(memory)
    filed = SLOT + slot_probes("the chair of the club is ada")[0]
    texts: set[str] = set()
    fetchall = store.db.fetchall

    def spy(sql: str, *rest: object) -> object:
        if sql.startswith("SELECT r.kind"):
            texts.add(sql)
        return fetchall(sql, *rest)

    monkeypatch.setattr(store.db, "fetchall", spy)
    most = store.dialect.kinds_per_read
    for count in range(1, 2 * most + 2):
        kinds = [filed, *(f"{SLOT}unfiled-{index}" for index in range(count - 1))]
        found = store.recent_keyed(memory.tenant, "U-1", kinds, (None, None), 5)
        assert list(found) == kinds and [row[1] for row in found[filed]] == [note.id]
        assert all(found[kind] == [] for kind in kinds[1:])
    assert len(texts) == most.bit_length()  # 1, 2, 4, ... kinds_per_read parts


def test_recent_keyed_reads_a_kinds_latest_rows_from_its_time_index(tmp_path: Path) -> None:
    """The limit bounds what is read only if the rows come in time order from an index."""
    with memlane.Memory(tmp_path / "plan.db", embedder="hash") as mem:
        mem.remember("U-1", "The chair of the club is Ada")
        store = store_of(mem)
        kind = SLOT + slot_probes("the chair of the club is ada")[0]
        asked = []
        fetchall = store.db.fetchall
        monkeypatch = pytest.MonkeyPatch()
        with monkeypatch.context() as patch:
            patch.setattr(store.db, "fetchall", lambda *a: asked.append(a) or fetchall(*a))
            store.recent_keyed(mem.tenant, "U-1", [kind], (None, 10**18), 4)
        sql, parameters = asked[0]
        plan = store.db.fetchall(f"EXPLAIN QUERY PLAN {sql}", parameters)
        steps = " | ".join(str(row[-1]) for row in plan)
        assert "note_keys_recent" in steps, steps
        assert "TEMP B-TREE" not in steps, steps  # no sort: the rows come in index order


def _rekeyings() -> list[int]:
    """The SQLite schema versions whose next migration re-keys every note, oldest first."""
    return [
        number
        for number, statements in enumerate(sqlite_schema.MIGRATIONS)
        if statements == schema.REKEY_NOTES
    ]


def _as_keyed_before(path: Path, version: int, old_slot_key: str) -> None:
    """The file at ``path`` as a memlane at schema ``version`` left it: one slot row per note,
    its kind and key the SQL literals ``old_slot_key``, waiting for the next re-keying."""
    rewind(
        path,
        version,
        "DELETE FROM note_keys WHERE kind LIKE 's%'",
        f"INSERT INTO note_keys SELECT tenant, subject, {old_slot_key}, "
        "note_id, said_at, tx_from FROM note_keys WHERE kind = 'n'",
        "ALTER TABLE summaries DROP COLUMN line_facts",  # a later migration's
    )


def test_a_file_keyed_before_slot_rows_named_their_clause_is_keyed_again(
    tmp_path: Path, clock: FakeClock
) -> None:
    path = tmp_path / "old.db"
    club = "The chair of the Tidewater Club is"
    said_twice(path, clock, f"{club} Ada Moss", f"{club} Ben Ode")
    _as_keyed_before(path, _rekeyings()[0], "'s', 'h8:the chai'")
    with memlane.Memory(path, clock=clock, embedder="hash") as mem:
        assert pending(mem) == 2 and key_rows(mem, "U-1") == 0
        items = mem.recall("U-1", "who chairs the Tidewater Club?").items
        stale = [i.text for i in items if i.status == "stale"]
        assert stale == ["The chair of the Tidewater Club is Ada Moss"]
        assert pending(mem) == 0
        old = store_of(mem).db.fetchone("SELECT count(*) FROM note_keys WHERE kind = 's'")
        assert old[0] == 0


def test_a_file_keyed_under_power_of_two_heads_is_keyed_again_under_masked_value_keys(
    tmp_path: Path, clock: FakeClock
) -> None:
    path = tmp_path / "old.db"
    said_twice(
        path,
        clock,
        "The chair of the Kalo Club is Ada Moss",
        "The chair of the Kalo Club is Ben Ode",
    )
    _as_keyed_before(path, _rekeyings()[-1], "'sh16:the chair of the', '0123456789abcdef'")
    with memlane.Memory(path, clock=clock, embedder="hash") as mem:
        assert pending(mem) == 2 and key_rows(mem, "U-1") == 0
        items = mem.recall("U-1", "who chairs the Kalo Club?").items
        stale = [i.text for i in items if i.status == "stale"]
        assert stale == ["The chair of the Kalo Club is Ada Moss"]
        assert pending(mem) == 0
        slot_rows = store_of(mem).db.fetchall(
            "SELECT DISTINCT kind FROM note_keys WHERE kind LIKE 's%'", ()
        )
        expected = {SLOT + key for key in slot_keys("the chair of the kalo club is ada moss")}
        expected |= {SLOT + key for key in slot_keys("the chair of the kalo club is ben ode")}
        assert {kind for (kind,) in slot_rows} == expected


@pytest.mark.parametrize("indexing", ["background", "process"])
def test_the_indexer_keys_the_notes_an_upgrade_left_waiting_so_no_recall_has_to(
    clock: FakeClock, memory_url: str, monkeypatch: pytest.MonkeyPatch, indexing: str
) -> None:
    monkeypatch.setattr(indexer_module, "KEY_BATCH", 2)  # several batches
    with memlane.Memory(memory_url, clock=clock, embedder="hash", indexing="inline") as mem:
        for club, chair in [("Kalo", "Ada Moss"), ("Kalo", "Ben Ode"), ("Tide", "Cy Lee")]:
            mem.remember("U-1", f"The chair of the {club} Club is {chair}")
            clock.advance(days=1)
        mem.remember("U-2", "The user plays the cello")
        mem.for_tenant("acme").remember("U-1", "The user likes green tea")
        rekeyed(mem)
    with memlane.Memory(memory_url, clock=clock, embedder="hash", indexing=indexing) as mem:
        store = store_of(mem)
        assert pending(mem) == 5 and store.unkeyed_count(None) == 5
        assert mem.index.pending() == 4  # counted with the items to embed (none here)
        assert mem.for_tenant("acme").index.pending() == 1
        assert mem.index.wait(timeout=60)
        assert store.unkeyed_count(mem.tenant) == 0 and mem.index.pending() == 0
        assert mem.for_tenant("acme").index.wait(timeout=60)
        assert pending(mem) == 0 and mem.index.pending_everywhere() == 0
        stored = []
        monkeypatch.setattr(store, "put_note_keys", lambda *args: stored.append(args))
        items = mem.recall("U-1", "who chairs the Kalo Club?").items
        assert stored == []  # the first recall keyed nothing
        stale = [i.text for i in items if i.status == "stale"]
        assert stale == ["The chair of the Kalo Club is Ada Moss"]


def test_a_server_starts_keying_what_waits_and_counts_it_as_pending(
    clock: FakeClock, memory_url: str
) -> None:
    from memlane.server.state import ServerState

    with memlane.Memory(memory_url, clock=clock, embedder="hash", indexing="inline") as mem:
        mem.remember("U-1", "The chair of the Kalo Club is Ada Moss")
        rekeyed(mem)
    state = ServerState(memory=memlane.Memory(memory_url, clock=clock, embedder="hash"))
    try:
        for _ in range(600):  # no write, no wait: the worker was started with the server
            if state.pending() == 0:
                break
            time.sleep(0.1)
        assert state.pending() == 0 and pending(state.root) == 0
    finally:
        state.close()


@pytest.fixture
def unattended(clock: FakeClock, scratch_url: str) -> Iterator[memlane.Memory]:
    """A memory with no background worker: nothing but the test keys what waits."""
    with memlane.Memory(scratch_url, clock=clock, embedder="hash", indexing="inline") as mem:
        yield mem


def test_a_note_forgotten_while_its_keys_were_made_gets_none(unattended: memlane.Memory) -> None:
    memory = unattended  # a background worker could key the notes before the test reads them
    gone = memory.remember("U-1", "The chair of the Kalo Club is Ada Moss")
    kept = memory.remember("U-2", "The user plays the cello")
    rekeyed(memory)
    store = store_of(memory)
    waiting = store.waiting_notes(memory.tenant, None, 10)
    assert [(about, note.id) for _, about, note in waiting] == [("U-1", gone.id), ("U-2", kept.id)]
    memory.forget("U-1")  # after the indexer read the note, before it stored its keys
    for _, about, note in waiting:
        store.put_note_keys(memory.tenant, about, [(note, note_keys(about, note.text, ()))])
    rows = store.db.fetchall("SELECT DISTINCT note_id FROM note_keys", ())
    assert [row[0] for row in rows] == [kept.id] and pending(memory) == 0


def test_keying_stops_between_notes_for_a_request_and_goes_on_after_it(
    clock: FakeClock, memory_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with memlane.Memory(memory_url, clock=clock, embedder="hash", indexing="inline") as mem:
        for number in range(6):
            mem.remember("U-1", f"The user read book number {number}")
        rekeyed(mem)
    with memlane.Memory(memory_url, clock=clock, embedder="hash") as mem:
        indexer = mem.index.indexer
        keyer, seen = indexer._keyer, []
        assert keyer is not None

        def slow(subject: str, text: str, provenance: object) -> list[tuple[str, str]]:
            seen.append(text)
            return keyer(subject, text, provenance)

        monkeypatch.setattr(indexer, "_keyer", slow)
        monkeypatch.setattr(indexer, "_wait_for_quiet", lambda: None)
        with indexer.request():  # a request in progress: one note, then it yields
            assert indexer._key_some(None, None, worker=True) == 6
        assert len(seen) == 1 and pending(mem) == 5
        assert indexer._key_some(None, None, worker=True) == 5
        assert len(seen) == 6 and pending(mem) == 0


def test_note_texts_gives_what_notes_by_id_gives_of_subject_and_text(
    memory: memlane.Memory,
) -> None:
    """What the refilling walk reads of the notes it examines, without the notes themselves."""
    mine = memory.remember("U-1", "My favourite team is Arsenal")
    gone = memory.remember("U-1", "My favourite food is ramen")
    theirs = memory.for_tenant("other").remember("U-1", "My favourite team is Chelsea")
    memory.forget("U-1")
    store = store_of(memory)
    ids = [mine.id, gone.id, theirs.id]
    whole = store.notes_by_id(memory.tenant, ids)
    assert store.note_texts(memory.tenant, ids) == {
        note_id: (note.subject, note.text) for note_id, note in whole.items()
    }
    assert sorted(whole) == sorted([mine.id, gone.id])
    data = linedata.LineData(store, memory.tenant, "U-1")
    assert data.texts([theirs.id, gone.id]) == {gone.id: ("U-1", gone.text)}
    data.by_id([mine.id])  # read whole: answered from it, the same
    assert data.texts([mine.id, gone.id]) == {
        mine.id: ("U-1", mine.text),
        gone.id: ("U-1", gone.text),
    }
