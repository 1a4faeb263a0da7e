"""``memlane bench summaries`` on a tiny LoCoMo-format file written here (never the real data)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from click.testing import CliRunner

import memlane
from memlane.bench.report import Results
from memlane.bench.summaries import (
    Dialogue,
    DialogueSession,
    Tally,
    measure,
    run,
    synthetic_dialogue,
)
from memlane.cli import cli
from memlane.extract import find_identifiers

PHONE = "415-555-0134"
EMAIL = "jordan.reyes@example.com"

SESSION_1 = [
    ("Jordan", "Hey Sam! It has been a while, how are you doing these days?"),
    (
        "Sam",
        "Hi Jordan! I'm doing well, thanks. Work has been hectic but I finally finished "
        "the big garden project in the backyard, the tomatoes look amazing this year.",
    ),
    (
        "Jordan",
        "That's wonderful, I love that. By the way my new phone number is "
        f"{PHONE}, so text me there from now on.",
    ),
    (
        "Sam",
        "Got it, I'll save it. Oh and I'm flying to Lisbon on July 8, 2023 for my "
        "cousin's wedding, I'm so excited and a little nervous about the speech.",
    ),
]
SESSION_2 = [
    ("Sam", "Jordan! Lisbon was incredible, the wedding was beautiful and the food was great."),
    (
        "Jordan",
        "I'm so happy to hear that. Send the photos to my email "
        f"{EMAIL} when you get a chance, I'd love to see them.",
    ),
    (
        "Sam",
        "Will do. I also started a pottery class last week, it is harder than it looks "
        "but really relaxing after a long day at the office.",
    ),
    ("Jordan", "Pottery sounds like a lot of fun, you should show me your first bowl soon!"),
]


def _turns(session: int, turns: list[tuple[str, str]]) -> list[dict[str, str]]:
    return [
        {"speaker": speaker, "dia_id": f"D{session}:{i}", "text": text}
        for i, (speaker, text) in enumerate(turns, start=1)
    ]


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    sample = {
        "sample_id": "tiny-1",
        "conversation": {
            "speaker_a": "Jordan",
            "speaker_b": "Sam",
            "session_1_date_time": "4:15 pm on 20 June, 2023",
            "session_1": _turns(1, SESSION_1),
            "session_2_date_time": "11:02 am on 15 July, 2023",
            "session_2": _turns(2, SESSION_2),
        },
        "qa": [
            {"question": "When is Sam flying to Lisbon?", "answer": "8 July 2023",
             "evidence": ["D1:4"], "category": 2},
            {"question": "What is Jordan's new phone number?", "answer": PHONE,
             "evidence": ["D1:3"], "category": 1},
            {"question": "What class did Sam start?", "answer": "pottery",
             "evidence": ["D2:3"], "category": 1},
        ],
    }  # fmt: skip
    path = tmp_path_factory.mktemp("locomo") / "tiny_locomo.json"
    path.write_text(json.dumps([sample]), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def planted():
    texts = [text for _, text in SESSION_1 + SESSION_2]
    return [m for text in texts for m in find_identifiers(text)]


@pytest.fixture(scope="module")
def report(data):
    """One run of the suite, shared by the tests that read its numbers."""
    lines: list[str] = []
    results = run(data, search_scale=200, samples=20, embedder_spec="hash", progress=lines.append)
    return results, lines


def test_run_reports_every_metric_in_the_standard_shape(report, planted):
    results, _ = report
    doc = results.to_json()
    assert doc["suite"] == "summaries"
    assert doc["params"]["search_scale"] == 200 and doc["params"]["search_embedder"] == "hash"
    assert set(doc["systems"]) == {"memlane", "raw-turns"}
    ours, raw = doc["systems"]["memlane"], doc["systems"]["raw-turns"]
    for group in ("tiny-1", "all"):
        assert ours["compression"][group] > 1
        assert raw["tokens"][group] > ours["tokens"][group] > 0
        assert ours["compression"][group] == pytest.approx(
            raw["tokens"][group] / ours["tokens"][group], rel=0.01
        )
    # The phone and the e-mail planted above are found, and every one survives.
    assert {m.text for m in planted} == {PHONE, EMAIL}
    assert ours["id_mentions"]["tiny-1"] == len(planted)
    assert ours["id_survival"]["tiny-1"] == 1.0
    assert ours["date_mentions"]["tiny-1"] >= 2  # "July 8, 2023" and "last week"
    assert 0 < ours["survival"]["all"] <= 1
    synthetic = ours["id_mentions"]["synthetic"]
    assert synthetic >= 150 and 0 < ours["id_survival"]["synthetic"] <= 1
    assert ours["ingest_turns_per_s"]["tiny-1"] > 0
    for group in ("1 subject", "10 subjects"):
        assert 0 < ours["search_p50_ms"][group] <= ours["search_p99_ms"][group]
    (embedder,) = ours["embed_passages_per_s"]
    assert embedder.startswith("hash") and ours["embed_query_p50_ms"][embedder] > 0
    for by_group in ours.values():
        assert by_group and all(isinstance(v, float | int) for v in by_group.values())


def test_measure_counts_a_mention_lost_when_nothing_kept_it(tmp_path):
    at = datetime(2026, 7, 4, 10, tzinfo=UTC)
    dialogue = Dialogue(
        "U-1", (DialogueSession(1, at, (("Ana", f"call me at {PHONE} on July 8, 2026"),)),)
    )
    tally = Tally()
    with memlane.Memory(tmp_path / "m.db", clock=lambda: at, embedder="hash") as mem:
        measure(mem, dialogue, [""], tally)  # nothing was ingested: no summary, notes, facts
    assert tally.found == {"identifier": 1, "date": 1}
    assert tally.kept == {"identifier": 0, "date": 0}
    assert len(tally.misses) == 2


def test_measure_credits_the_exact_lane_and_resolved_dates_in_notes(tmp_path):
    at = datetime(2026, 7, 4, 10, tzinfo=UTC)
    said = ("Ana", "new number +1 (415) 555-0134, moved yesterday")
    dialogue = Dialogue("U-1", (DialogueSession(1, at, (said,)),))
    tally = Tally()
    with memlane.Memory(tmp_path / "m.db", clock=lambda: at, embedder="hash") as mem:
        mem.facts.define("phone", cardinality="many", identifier=True)
        mem.facts.add("U-1", "phone", "14155550134")  # same number, other spelling
        mem.summaries.add_note("U-1", "Ana moved on 2026-07-03.", at=at)
        measure(mem, dialogue, ["Ana moved."], tally)
    assert tally.found == {"identifier": 1, "date": 1}
    assert tally.kept == {"identifier": 1, "date": 1}
    assert tally.in_summary == {"identifier": 0, "date": 0}


def test_synthetic_dialogue_is_seeded_and_dense_in_identifiers():
    first, again = synthetic_dialogue(400), synthetic_dialogue(400)
    assert first == again and synthetic_dialogue(400, seed=8) != first
    turns = [text for session in first.sessions for _, text in session.turns]
    assert len(turns) == 400
    chinese = [text for text in turns if any("\u4e00" <= ch <= "\u9fff" for ch in text)]
    assert 100 < len(chinese) < 300
    with_ids = sum(bool(find_identifiers(text)) for text in turns[::2])
    assert with_ids >= 150


def test_render_is_a_table_of_every_group(report):
    results, lines = report
    header = results.render().splitlines()[0].split()
    assert header[:2] == ["system", "metric"] and "tiny-1" in header and "synthetic" in header
    assert any(line.startswith("tiny-1:") for line in lines)


def test_cli_writes_the_json(data, tmp_path, monkeypatch):
    seen = {}

    def fake_run(path, **options):
        seen.update(options, path=path)
        results = Results("summaries", {"samples": options["samples"]})
        results.put("memlane", "compression", "all", 4.2)
        return results

    monkeypatch.setattr("memlane.bench.summaries.run", fake_run)
    out = tmp_path / "summaries.json"
    result = CliRunner().invoke(
        cli,
        ["bench", "summaries", "--data", str(data), "--search-scale", "200", "--samples", "20",
         "--embedder", "hash", "--out", str(out)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert seen["path"] == data and seen["search_scale"] == 200 and seen["embedder_spec"] == "hash"
    assert "compression" in result.output and f"wrote {out}" in result.output
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc["suite"] == "summaries" and doc["systems"]["memlane"]["compression"]["all"] == 4.2


@pytest.mark.parametrize("args", [["--data", "no/such/file.json"], []])
def test_cli_bad_or_missing_data_is_a_one_line_error(tmp_path, args):
    result = CliRunner().invoke(cli, ["bench", "summaries", *args])
    assert result.exit_code == 1
    assert result.output.startswith("Error:") and result.output.count("\n") == 1
