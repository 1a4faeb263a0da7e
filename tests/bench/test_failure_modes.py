"""``memlane bench failure-modes`` at a small scale with the hash embedder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from memlane.bench.baselines import BM25Index, FlatVectorIndex
from memlane.bench.failure_modes import (
    METRICS,
    MODES,
    Case,
    generate,
    judge,
    one_digit_neighbours,
    order,
    phone,
    run,
)
from memlane.cli import cli
from memlane.embed import make_embedder
from memlane.errors import InvalidInput


@pytest.fixture(scope="module")
def document(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    out = tmp_path_factory.mktemp("failure-modes") / "out.json"
    result = CliRunner().invoke(
        cli,
        ["bench", "failure-modes", "--scale", "60", "--embedder", "hash", "--out", str(out)],
    )
    assert result.exit_code == 0, result.output
    assert "accuracy_at_1" in result.output
    loaded: dict[str, object] = json.loads(out.read_text(encoding="utf-8"))
    return loaded


def test_json_shape(document: dict[str, object]) -> None:
    assert document["suite"] == "failure-modes"
    params = document["params"]
    assert isinstance(params, dict)
    assert params["scale"] == 60 and params["questions"] == 60 * 5 and params["k"] == 5
    systems = document["systems"]
    assert isinstance(systems, dict)
    assert set(systems) == {"memlane", "flat-vector", "bm25"}
    for metrics in systems.values():
        assert set(metrics) <= {*METRICS, "ingest_per_s"}
        for metric in ("accuracy_at_1", "stale_rate", "conflict_rate", "recall_p50_ms"):
            assert set(metrics[metric]) == set(MODES)
            assert all(value >= 0 for value in metrics[metric].values())
        assert metrics["questions"] == {"identifiers": 60, "moves": 120, "preferences": 120}


def test_memlane_answers_identifiers_and_moves_exactly(document: dict[str, object]) -> None:
    memlane = document["systems"]["memlane"]  # type: ignore[index]
    assert memlane["accuracy_at_1"]["identifiers"] == 1.0
    assert memlane["accuracy_at_1"]["moves"] == 1.0
    for mode in ("identifiers", "moves"):
        assert memlane["stale_rate"][mode] == 0.0
        assert memlane["conflict_rate"][mode] == 0.0


def test_baselines_show_the_failures(document: dict[str, object]) -> None:
    systems = document["systems"]
    flat = systems["flat-vector"]  # type: ignore[index]
    # One-digit neighbours land in the same top k; the old address competes with the new one.
    assert flat["conflict_rate"]["identifiers"] > 0.3
    # Without time, the rich old address answers "where now?" as well as "where before?".
    assert flat["accuracy_now"]["moves"] < 0.5 and flat["stale_rate"]["moves"] > 0.3
    assert flat["accuracy_past"]["moves"] + flat["accuracy_now"]["moves"] <= 1.0 + 1e-9
    assert systems["bm25"]["conflict_rate"]["identifiers"] > 0.3  # type: ignore[index]


def test_generator_is_seeded_and_bilingual() -> None:
    first, again = generate(30, seed=3), generate(30, seed=3)
    assert first == again
    assert first != generate(30, seed=4)
    assert [s.at for s in first.statements] == sorted(s.at for s in first.statements)
    assert {case.lang for case in first.cases} == {"zh", "en"}
    fewer = generate(30, seed=3, questions=7)
    assert len(fewer.cases) == 7 * 5 and fewer.statements == first.statements
    identifier = next(c for c in first.cases if c.mode == "identifiers" and c.lang == "zh")
    assert identifier.query.startswith("用户 138-0000-") and identifier.subject is None


def test_one_digit_neighbours() -> None:
    assert sorted(one_digit_neighbours(12, 40)) == [2, 10, 11, 13, 14, 15, 16, 17, 18, 19, 22, 32]
    for j in one_digit_neighbours(1234, 20_000):
        differing = sum(a != b for a, b in zip(phone(1234), phone(j), strict=True))
        assert differing == 1
    assert order(5) == "ORD-7000005"


def test_judge() -> None:
    case = Case("moves", "en", "U-1", "where?", "Denver", ("Boston",))
    assert judge(case, [("Denver", True), ("Boston", False)]).correct
    assert not judge(case, [("Denver", True), ("Boston", False)]).conflict
    verdict = judge(case, [("I live in Boston", True), ("moved to Denver", True)])
    assert (verdict.correct, verdict.stale, verdict.conflict, verdict.inversion) == (
        False,
        True,
        True,
        True,
    )
    flagged = judge(case, [("Boston", False), ("Denver", True)])
    assert not flagged.correct and not flagged.stale
    assert judge(case, []) == judge(case, [("I work in Austin", True)])


def test_bm25_and_flat_vector_indexes() -> None:
    texts = {
        "a": "我住在上海，离公司很近",
        "b": "I moved to Denver last week",
        "c": "My phone number is 138-0000-1234",
        "d": "My phone number is 138-0000-1235",
    }
    bm25, flat = BM25Index(), FlatVectorIndex(make_embedder("hash:256", cache_entries=0), 2)
    for doc, text in texts.items():
        bm25.add(doc, text)
        flat.add(doc, text)
    assert len(bm25) == len(flat) == 4
    assert bm25.search("13800001235", 1) == [
        ("d", pytest.approx(bm25.search("13800001235", 1)[0][1]))
    ]
    assert bm25.search("住在哪里", 2)[0][0] == "a"
    assert [doc for doc, _ in bm25.search("phone number", 5, among=["c"])] == ["c"]
    assert flat.search("moved to Denver", 1)[0][0] == "b"
    hits = flat.search("phone number 138-0000-1234", 4)
    assert [doc for doc, _ in hits][:2] in (["c", "d"], ["d", "c"])
    assert [score for _, score in hits] == sorted((score for _, score in hits), reverse=True)
    assert flat.search("anything", 3, among=[]) == []
    with pytest.raises(InvalidInput):
        flat.add("a", "again")
    with pytest.raises(InvalidInput):
        bm25.search("x", 0)


def test_bad_scale_is_refused() -> None:
    with pytest.raises(InvalidInput):
        run(scale=1)
    with pytest.raises(InvalidInput):
        run(scale=10, k=0)
    with pytest.raises(InvalidInput):
        generate(10, questions=0)


def test_plot_is_skipped_or_written(tmp_path: Path) -> None:
    from memlane.bench.failure_modes import plot

    results = run(scale=10, embedder_spec="hash", progress=lambda _: None)
    target = tmp_path / "plot.png"
    drawn = plot(results, target)
    assert drawn == target.exists()
