"""memlane export / import: a memory moves between backends without loss, and resumably."""

from __future__ import annotations

import base64
import io
import itertools
import json
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

import memlane
from memlane.cli import cli
from memlane.errors import InvalidInput
from memlane.router.evidence import note_keys
from memlane.server.keys import KeyRing
from memlane.storage import archive, open_backend
from memlane.storage.archive import ImportReport, export_memory, import_memory
from memlane.summaries.linedata import key_waiting
from tests.conftest import FakeClock

TENANTS = ("default", "Zeta", "émile")
SUBJECTS = ("U-001", "U-002", "U-003", "Zoë", "张三")
KNOWN_AT = ("2026-03-02T00:00:00+00:00", "2026-03-04T12:00:00+00:00", "2026-03-20T00:00:00+00:00")
QUERIES = ("Lisbon", "football team", "北京 咖啡", "order refund")


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def build(url: str, clock: FakeClock) -> None:
    """A memory with every kind of row: versions on both time axes, deletions, keys, runs."""
    clock.set("2026-03-02T09:00:00")
    for n, tenant in enumerate(TENANTS):
        with memlane.Memory(
            url, tenant=tenant, clock=clock, embedder="hash", retain_transcripts=True
        ) as mem:
            facts = mem.facts
            facts.define("nickname", cardinality="many")
            facts.define("phone", identifier=True, normalizer="phone")
            facts.set("U-001", "city", "Lisbon", valid_from="2025-01-01", reason="moved")
            clock.advance(hours=7)
            facts.set("U-001", "city", "Porto", valid_from="2025-06-01", valid_to="2025-09-01")
            facts.add("U-001", "nickname", "Al", valid_from="2024-01-01", confidence=0.7)
            facts.add("U-001", "nickname", "Ally", valid_from="2024-05-01")
            clock.advance(days=1, microseconds=3)
            facts.retract("U-001", "nickname", valid_from="2025-02-01", value="Al")
            facts.set("U-001", "phone", f"+351 912 345 67{n}", source="crm")
            facts.set("Zoë", "city", "Zürich", valid_from="2020-02-29")
            facts.set("张三", "city", "北京", valid_from="2023-07-01")
            facts.set("U-003", "city", "Oslo")
            clock.advance(hours=1)
            session = mem.session("U-002", session_id=f"s-{n}", window=1)
            session.add("user", "I love football, my team is Benfica", at=clock.now)
            session.add("assistant", "Noted, Benfica it is.", at=clock.now)
            session.add("user", "I moved to Lisbon last month", at=clock.now)
            session.add("user", "我喜欢北京的咖啡", at=clock.now)
            for turn in range(8):  # turn ids s-n#10.. sort before s-n#2: order is kept
                session.add("assistant", f"Anything else? ({turn})", at=clock.now)
            session.close()
            mem.remember("U-001", "Alice asked for an order refund, order ORD-77", source="crm")
            mem.remember("张三", "张三 每天早上在北京喝咖啡")
            for task in ("Refund order ORD-1", "Refund order ORD-2", "Refund order ORD-3"):
                clock.advance(minutes=5)
                mem.workflows.record(
                    task,
                    [{"action": "open_order"}, {"action": "refund", "args": {"order": task[-5:]}}],
                    task_type="refund",
                )
            mem.summaries.index()
            clock.advance(days=2)
            mem.forget("U-001", "phone", reason="asked to")
            mem.forget("U-003", requested_by="dpo")
            clock.advance(days=10)
    backend = open_backend(url)
    try:
        ring = KeyRing(backend.keys, clock)
        ring.create("default", "agent", "bot")
        stale, _ = ring.create("Zeta", "auditor")
        ring.revoke(stale.id)
    finally:
        backend.close()


def state(url: str, clock: FakeClock) -> dict[str, Any]:
    """Everything the public API shows of a memory, for comparing two of them."""
    seen: dict[str, Any] = {}
    for tenant in TENANTS:
        with memlane.Memory(url, tenant=tenant, clock=clock, embedder="hash") as mem:
            seen[tenant] = {
                "audit": {s: mem.views.audit(s) for s in SUBJECTS},
                "compliance": mem.views.compliance(),
                "history": {
                    (s, attribute, known): mem.facts.history(s, attribute, known_at=known)
                    for s in SUBJECTS
                    for attribute in ("city", "nickname")
                    for known in KNOWN_AT
                },
                "storyline": mem.summaries.storyline("U-002"),
                "transcript": [mem.summaries.transcript(f"s-{n}") for n in range(len(TENANTS))],
                "workflows": mem.workflows.versions("refund"),
                "runs": mem.workflows.trajectories(),
                "definitions": [mem.facts.definition(a) for a in ("city", "nickname", "phone")],
            }
    backend = open_backend(url)
    try:
        seen["keys"] = backend.keys.keys(None)
    finally:
        backend.close()
    return seen


def searches(url: str, clock: FakeClock) -> list[list[Any]]:
    with memlane.Memory(url, clock=clock, embedder="hash") as mem:
        return [
            [
                *mem.summaries.search(subject, query, k=5),
                *mem.summaries.search_notes(subject, query),
            ]
            for subject in (None, "U-002", "张三")
            for query in QUERIES
        ]


def lexical(url: str) -> list[list[int]]:
    """What the lexical index alone finds (owner ids, best first) for each tenant and kind."""
    backend = open_backend(url)
    try:
        return [
            backend.summaries.lexical(tenant, None, kind, query, 10)
            for tenant in TENANTS
            for kind in ("summary", "note")
            for query in QUERIES
        ]
    finally:
        backend.close()


def found(results: list[list[Any]]) -> list[list[str]]:
    """What each search found (summaries and notes by id), in no particular order."""
    return [
        sorted(
            f"summary {hit.summary.id}" if hasattr(hit, "summary") else f"note {hit.note.id}"
            for hit in hits
        )
        for hits in results
    ]


def export_text(url: str) -> str:
    backend = open_backend(url)
    try:
        stream = io.StringIO()
        export_memory(backend, stream, clock=lambda: datetime(2026, 4, 1, tzinfo=UTC))
        return stream.getvalue()
    finally:
        backend.close()


def load(url: str, lines: Iterable[str] | Callable[[], Iterable[str]]) -> ImportReport:
    opener = lines if callable(lines) else (lambda: lines)
    backend = open_backend(url)
    try:
        return import_memory(backend, opener)
    finally:
        backend.close()


def body(text: str) -> list[str]:
    """The lines of an export without its header's timestamp."""
    first, *rest = text.splitlines()
    header = json.loads(first)
    del header["exported_at"]
    return [json.dumps(header), *rest]


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest) -> str:
    """The backend of the memories imported into (``new_memory_url``)."""
    return str(request.param)


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """One rich SQLite memory (built once) and its export."""
    url = str(tmp_path_factory.mktemp("source") / "source.db")
    build(url, FakeClock(datetime(2026, 3, 2, tzinfo=UTC)))
    return url, export_text(url)


def test_sqlite_to_postgres_to_sqlite_loses_nothing(source, postgres_url, tmp_path, clock):
    url, exported = source
    lines = exported.splitlines(keepends=True)
    header = json.loads(lines[0])
    assert header["format"] == "memlane-export" and header["version"] == 1
    assert all(header["rows"][t] > 0 for t in header["rows"]), header["rows"]

    report = load(postgres_url, lines)
    assert report.inserted == header["rows"] | {"tx_clock": 1}
    again = export_text(postgres_url)
    copy = str(tmp_path / "copy.db")
    load(copy, again.splitlines(keepends=True))
    assert body(again) == body(exported)
    assert body(export_text(copy)) == body(exported)

    original = state(url, clock)
    assert state(postgres_url, clock) == original
    assert state(copy, clock) == original
    assert searches(copy, clock) == searches(url, clock)
    # Lexical ranking differs between the backends (BM25, ts_rank_cd): compare what is found.
    assert found(searches(postgres_url, clock)) == found(searches(url, clock))
    import psycopg  # only where PostgreSQL runs: the SQLite tests need no driver

    with psycopg.connect(postgres_url) as connection:
        indexes = connection.execute(
            "SELECT indexname FROM pg_indexes WHERE indexname LIKE 'search_docs_hnsw_%'"
        ).fetchall()
    assert indexes  # the vector width of the imported vectors is indexed
    matches = lexical(url)
    assert sum(map(len, matches)) > 20
    assert lexical(copy) == matches
    assert [sorted(ids) for ids in lexical(postgres_url)] == [sorted(ids) for ids in matches]

    # New writes come after the imported ones: later transaction time, a fresh id.
    last = max(f.tx_from for f in original["default"]["audit"]["U-001"].facts)
    top = max(f.id for t in TENANTS for a in original[t]["audit"].values() for f in a.facts)
    clock.set("2020-01-01")  # even with a clock behind the imported data
    with memlane.Memory(postgres_url, clock=clock) as mem:
        written = mem.facts.set("U-009", "city", "Faro")
        note = mem.summaries.add_note("U-009", "likes the sea", at=clock.now)
    assert written.tx_from > last and written.id > top
    assert note.id > max(n.id for a in original["default"]["audit"].values() for n in a.notes)


def test_an_interrupted_import_resumes_without_duplicates(source, new_memory_url):
    _, exported = source
    lines = exported.splitlines(keepends=True)
    url = new_memory_url()
    half = len(lines) // 2
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(archive, "CHUNK", 7)
        with pytest.raises(InvalidInput, match=rf"line {half}: the export ends early"):
            load(url, itertools.islice(lines, half))
        # Every row read before the end stays (then the clock, not loaded yet).
        partial = body(export_text(url))
        assert partial[1:-1] == body(exported)[1:half]
        assert json.loads(partial[-1])["row"]["last_tx"] == 0

        broken = [*lines[:half], '{"table": "facts", "row": \n', *lines[half + 1 :]]
        with pytest.raises(InvalidInput, match=rf"line {half + 1}: not valid JSON"):
            load(url, broken)

        report = load(url, lines)
    assert sum(report.skipped.values()) == half - 1
    assert sum(report.inserted.values()) + sum(report.skipped.values()) == len(lines) - 1
    assert body(export_text(url)) == body(exported)
    # Once complete, importing again changes nothing.
    report = load(url, lines)
    assert sum(report.inserted.values()) == 0
    assert body(export_text(url)) == body(exported)


def test_a_memory_holding_other_data_is_refused(source, new_memory_url, clock):
    _, exported = source
    lines = exported.splitlines(keepends=True)

    other = new_memory_url()
    with memlane.Memory(other, clock=clock) as mem:
        mem.facts.set("U-001", "city", "Berlin")
    before = export_text(other)
    with pytest.raises(InvalidInput, match=r"line \d+: .* different facts data with id 1;"):
        load(other, lines)
    assert export_text(other) == before

    grown = new_memory_url()
    load(grown, lines)
    with memlane.Memory(grown, clock=clock) as mem:
        mem.facts.set("U-100", "city", "Rome")
    before = export_text(grown)
    with pytest.raises(InvalidInput, match=r"target: .*holds rows this export does not \(1 facts"):
        load(grown, lines)
    assert export_text(grown) == before


def _row_line(table: str, **row: Any) -> str:
    return json.dumps({"table": table, "row": row})


def without(row: dict[str, Any], column: str) -> dict[str, Any]:
    return {name: value for name, value in row.items() if name != column}


BAD_LINES = [
    ("version", 1, "newer than this memlane reads"),
    ("json", 3, "not valid JSON"),
    ("shape", 3, "expected"),
    ("table", 3, "unknown table 'fax'"),
    ("column", 3, "unknown column facts.colour"),
    ("missing", 3, "missing column facts.value"),
    ("type", 3, "facts.valid_from must be a 64-bit integer"),
    ("bool", 3, "attributes.identifier must be a 64-bit integer"),
    ("null", 3, "facts.tenant may not be null"),
    ("choice", 2, "attributes.cardinality must be one of one, many"),
    ("vector", 3, "search_docs.vector is not base64"),
    ("huge vector", 3, r"search_docs.vector holds a value past ±65504"),
    ("nan vector", 3, "search_docs.vector holds a value that is not finite"),
    ("order", 3, "attributes rows after facts rows"),
]


@pytest.mark.parametrize(("case", "line", "message"), BAD_LINES, ids=[c[0] for c in BAD_LINES])
def test_bad_files_name_the_line(source, case, line, message):
    _, exported = source
    lines = exported.splitlines(keepends=True)
    header = json.loads(lines[0])
    attribute = json.loads(lines[1])["row"]
    fact = json.loads(next(x for x in lines if '"table":"facts"' in x))["row"]
    doc = json.loads(next(x for x in lines if '"table":"search_docs"' in x))["row"]
    big, nan = (_vector_text([0.5, value]) for value in (1e5, float("nan")))
    mutated = {
        "version": [json.dumps({**header, "version": 2})],
        "json": [lines[0], lines[1], "{nope"],
        "shape": [lines[0], lines[1], json.dumps(["facts", fact])],
        "table": [lines[0], lines[1], _row_line("fax", **fact)],
        "column": [lines[0], lines[1], _row_line("facts", **fact, colour="red")],
        "missing": [lines[0], lines[1], _row_line("facts", **without(fact, "value"))],
        "type": [lines[0], lines[1], _row_line("facts", **{**fact, "valid_from": "2025"})],
        "bool": [lines[0], lines[1], _row_line("attributes", **{**attribute, "identifier": True})],
        "null": [lines[0], lines[1], _row_line("facts", **{**fact, "tenant": None})],
        "choice": [lines[0], _row_line("attributes", **{**attribute, "cardinality": "few"})],
        "vector": [lines[0], lines[1], _row_line("search_docs", **{**doc, "vector": "*"})],
        "huge vector": [lines[0], lines[1], _row_line("search_docs", **{**doc, "vector": big})],
        "nan vector": [lines[0], lines[1], _row_line("search_docs", **{**doc, "vector": nan})],
        "order": [lines[0], _row_line("facts", **fact), lines[1]],
    }[case]
    with pytest.raises(InvalidInput, match=rf"^line {line}: .*{message}"):
        load(":memory:", mutated)


def _vector_text(values: list[float]) -> str:
    """A vector as an export writes it: base64 of its float32 bytes."""
    return base64.b64encode(np.asarray(values, dtype=np.float32).tobytes()).decode()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "line 1: not a memlane export"),
        ("hello\n", "line 1: not a memlane export"),
        ('{"format": "other"}\n', "line 1: not a memlane export"),
    ],
)
def test_what_is_not_an_export_is_refused(text, message):
    with pytest.raises(InvalidInput, match=message):
        load(":memory:", text.splitlines(keepends=True))


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ("memory.jsonl", "lines: must open the export when called"),
        (lambda: 5, "lines: must return the export's lines"),
        (lambda: [1], "line 1: must be text"),
    ],
    ids=["a path", "no lines", "not text"],
)
def test_an_import_that_is_given_no_lines_says_so(lines, message):
    with (
        memlane.Memory(":memory:", embedder="hash") as mem,
        pytest.raises(InvalidInput, match=message),
    ):
        mem.import_export(lines)


@pytest.mark.parametrize("call", ["export", "import_export", "key_notes"])
def test_a_progress_that_cannot_be_called_is_refused_before_the_work(call):
    arguments = {"export": (io.StringIO(),), "import_export": (lambda: [],), "key_notes": ()}[call]
    with (
        memlane.Memory(":memory:", embedder="hash") as mem,
        pytest.raises(InvalidInput, match="progress"),
    ):
        getattr(mem, call)(*arguments, progress="every 10")


def test_an_export_needs_somewhere_to_write():
    with (
        memlane.Memory(":memory:", embedder="hash") as mem,
        pytest.raises(InvalidInput, match="stream"),
    ):
        mem.export("memory.jsonl")  # a path, not a stream


def test_cli_round_trip(source, tmp_path):
    url, exported = source
    runner = CliRunner()
    out = tmp_path / "memory.jsonl"
    result = runner.invoke(cli, ["export", "--url", url, "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["rows"] == json.loads(exported.splitlines()[0])["rows"]
    assert body(out.read_text(encoding="utf-8")) == body(exported)

    target = str(tmp_path / "target.db")
    result = runner.invoke(cli, ["import", str(out), "--url", target, "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["inserted"]["facts"] == summary["rows"]["facts"]
    result = runner.invoke(cli, ["import", str(out), "--url", target, "--progress"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"imported {summary['total']} rows (attributes ")
    assert "already there, skipped" in result.stdout
    assert "importing: " in result.stderr

    # To stdout: the export itself, with the summary on stderr.
    result = runner.invoke(cli, ["--url", target, "export"])
    assert result.exit_code == 0, result.stderr
    assert body(result.stdout) == body(exported)
    assert result.stderr.startswith("exported ")

    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n", encoding="utf-8")
    result = runner.invoke(cli, ["import", str(bad), "--url", str(tmp_path / "x.db")])
    assert result.exit_code == 1
    assert "line 1: not a memlane export" in result.stderr
    assert "Traceback" not in result.output
    bad.write_bytes(out.read_bytes()[:3000] + b"\xff\xfe\n")
    result = runner.invoke(cli, ["import", str(bad), "--url", str(tmp_path / "x.db")])
    assert result.exit_code == 1
    assert "not UTF-8 text" in result.stderr
    result = runner.invoke(cli, ["export", "--url", target, "--out", str(tmp_path / "no/such")])
    assert result.exit_code == 1
    assert "cannot write the export" in result.stderr


def test_cli_import_from_stdin(source, tmp_path):
    _, exported = source
    target = str(tmp_path / "piped.db")
    runner = CliRunner()
    result = runner.invoke(cli, ["import", "-", "--url", target], input=exported)
    assert result.exit_code == 0, result.output
    result = runner.invoke(cli, ["import", "-", "--url", target], input=exported)
    assert result.exit_code == 1
    assert "give it as a file, not -" in result.stderr
    assert body(export_text(target)) == body(exported)


def test_an_import_keys_its_notes_so_that_no_first_recall_has_to(source, new_memory_url, clock):
    url, exported = source
    target = new_memory_url()
    reported: list[tuple[str, int, int]] = []
    with memlane.Memory(target, clock=clock, embedder="hash") as mem:
        mem.import_export(
            lambda: exported.splitlines(keepends=True),
            lambda table, done, total: reported.append((table, done, total)),
        )
    table, done, total = reported[-1]
    assert (table, done) == (archive.KEYING, total) and total >= 3  # subjects with notes
    backend = open_backend(target)
    try:
        assert backend.summaries.unkeyed_subjects() == []
    finally:
        backend.close()

    def answers(where: str) -> list[list[tuple[str, str]]]:
        with memlane.Memory(where, clock=clock, embedder="hash") as memory:
            return [
                [(item.text, item.status) for item in memory.recall(subject, query).items]
                for subject in ("U-001", "U-002", "张三")
                for query in QUERIES
            ]

    assert answers(target) == answers(url)


def test_notes_loaded_without_their_keys_wait_for_them(source, new_memory_url):
    _, exported = source
    target = new_memory_url()
    load(target, exported.splitlines(keepends=True))  # the storage's import alone
    backend = open_backend(target)
    try:
        waiting = backend.summaries.unkeyed_subjects()
        assert ("default", "U-002") in waiting and ("default", "U-003") not in waiting  # forgotten
        assert key_waiting(backend.summaries, note_keys) > 0
        assert backend.summaries.unkeyed_subjects() == []
        assert key_waiting(backend.summaries, note_keys) == 0
    finally:
        backend.close()
