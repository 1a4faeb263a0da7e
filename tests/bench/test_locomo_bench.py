"""``memlane bench locomo`` on a tiny LoCoMo-format file written here (never the real data)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from memlane.bench.locomo import (
    BASELINES,
    SYSTEM,
    asked_questions,
    rrf,
    run,
    transcript,
    turn_rankers,
)
from memlane.bench.locomo_data import load_conversations, normalize_evidence
from memlane.bench.locomo_metrics import (
    answer_forms,
    answer_token_recall,
    contains_answer,
    expand_turns,
    fill_budget,
    normalize_answer,
    session_of,
    session_recall,
    turn_hit,
    turn_recall,
)
from memlane.cli import cli
from memlane.embed import make_embedder
from memlane.errors import InvalidInput
from memlane.summaries.text import estimate_tokens

SESSION_1 = [
    ("Jordan", "Hey Sam! It has been a while, how are you doing these days?"),
    ("Sam", "Hi Jordan! I adopted a puppy last week, his name is Biscuit and he loves the park."),
    ("Jordan", "That's wonderful. I started learning the cello at a music school downtown."),
    ("Sam", ""),  # an empty turn: never said, so it takes no memlane number
    ("Sam", "Cello sounds lovely! I am flying to Lisbon next month for my cousin's wedding."),
]
SESSION_2 = [
    ("Sam", "Jordan! Lisbon was incredible, the wedding was beautiful."),
    ("Jordan", "So happy for you. Look at my first ceramic bowl!"),
    ("Sam", "It is gorgeous. Biscuit chewed my running shoes yesterday, what a rascal."),
]
CAPTION = "a photo of a blue ceramic bowl on a table"


def _turns(session: int, turns: list[tuple[str, str]]) -> list[dict[str, str]]:
    said = []
    for i, (speaker, text) in enumerate(turns, start=1):
        turn = {"speaker": speaker, "dia_id": f"D{session}:{i}", "text": text}
        if "ceramic bowl" in text:
            turn["blip_caption"] = CAPTION
        said.append(turn)
    return said


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    sample = {
        "sample_id": "tiny-1",
        "conversation": {
            "speaker_a": "Jordan",
            "speaker_b": "Sam",
            # listed out of order on purpose: sessions are replayed by date
            "session_2_date_time": "11:02 am on 15 July, 2023",
            "session_2": _turns(2, SESSION_2),
            "session_1_date_time": "4:15 pm on 20 June, 2023",
            "session_1": _turns(1, SESSION_1),
        },
        "qa": [
            {
                "question": "What is the name of Sam's puppy?",
                "answer": "Biscuit",
                "evidence": ["D1:2"],
                "category": 4,
            },
            {
                "question": "Where did Sam fly for the wedding?",
                "answer": "Lisbon",
                "evidence": ["D1:5; D2:01"],
                "category": 1,
            },
            {
                "question": "What instrument does Jordan learn?",
                "answer": "cello",
                "evidence": ["D9:9"],  # names no turn: the question is not scored
                "category": 4,
            },
            {
                "question": "What did Jordan's puppy chew?",
                "adversarial_answer": "running shoes",
                "evidence": ["D2:3"],
                "category": 5,
            },
        ],
    }
    path = tmp_path_factory.mktemp("locomo") / "tiny.json"
    path.write_text(json.dumps([sample]), encoding="utf-8")
    return path


# -- metrics on known cases ----------------------------------------------------------------


def test_expand_turns_spends_k_per_turn_in_rank_order():
    known = {f"c-S1#{n}": f"D1:{n}" for n in range(1, 6)} | {"c-S2#1": "D2:1"}
    storyline = ["c-S1#1", "c-S1#2", "c-S1#3", "c-S1#4"]
    ranked = expand_turns([["c-S2#1"], ["chat:import"], storyline, ["c-S1#5"]], known, 3)
    assert ranked == ["D2:1", "D1:1", "D1:2"]  # the storyline spent the rest of the k
    assert expand_turns([["c-S1#2"], ["c-S1#2", "c-S1#3"]], known, 10) == ["D1:2", "D1:3"]
    assert expand_turns([], known, 5) == []


def test_turn_and_session_recall_at_k():
    ranked = ["D1:1", "D2:4", "D3:1", "D1:7"]
    gold = ["D2:4", "D1:7", "D5:1"]
    assert turn_recall(ranked, gold, 1) == 0.0
    assert turn_recall(ranked, gold, 2) == pytest.approx(1 / 3)
    assert turn_recall(ranked, gold, 10) == pytest.approx(2 / 3)
    assert turn_hit(ranked, gold, 1) == 0.0 and turn_hit(ranked, gold, 2) == 1.0
    assert session_recall(ranked, gold, 1) == pytest.approx(1 / 3)  # D1 of {D1, D2, D5}
    assert session_recall(ranked, gold, 4) == pytest.approx(2 / 3)
    assert session_of("D12:3") == 12
    with pytest.raises(InvalidInput):
        session_of("D12-3")


def test_answer_normalization_and_containment():
    assert normalize_answer("The Sun, rises!") == "sun rises"
    assert answer_forms("7 May 2023") == {"7 may 2023", "2023 05 07"}
    assert answer_forms("May 7, 2023") == {"may 7 2023", "2023 05 07"}
    assert answer_forms("7 Sept 2023") == {"7 sept 2023", "2023 09 07"}  # abbreviations too
    assert contains_answer("- [2023-05-07] Caroline went to a support group", "7 May 2023")
    assert contains_answer("she paints SUNRISES. And art", "art")
    assert not contains_answer("we had a party", "art")  # whole words only
    assert not contains_answer("anything", "")
    assert answer_token_recall("a cello and a violin", "the cello, piano") == 0.5


def test_fill_budget_stays_within_tokens():
    lines = [f"line {n}: " + "word " * 30 for n in range(20)]
    for budget in (20, 100, 333):
        text = fill_budget(lines, budget)
        assert 0 < estimate_tokens(text) <= budget
    assert fill_budget(lines, 5) == ""
    assert fill_budget(["short one", "short two"], 100) == "short one\nshort two"


def test_baselines_rank_the_matching_turn_first():
    turns = ["I love my puppy Biscuit", "The cello is hard", "Puppies chew shoes"]
    turns.append(turns[1])
    by_vector, by_bm25 = turn_rankers(turns, make_embedder("hash:256", cache_entries=0))
    assert by_bm25("puppy Biscuit")[0] == 0
    assert by_bm25("shoe") == [2]  # a plural and its singular are one BM25 term
    assert by_bm25("cello") == [1, 3]  # a tie goes to the earlier turn
    assert by_bm25("zebra") == []
    assert sorted(by_vector("zebra")) == [0, 1, 2, 3]
    assert by_vector("the cello is hard")[:2] == [1, 3]
    assert turn_rankers([], make_embedder("hash:256"))[0]("cello") == []
    assert rrf([[0, 1], [1, 0]]) == [0, 1]  # a tie goes to the earlier index
    assert rrf([[2, 0], [2, 1]])[0] == 2


# -- evidence ids and the replay map --------------------------------------------------------


def test_evidence_ids_are_normalized_and_unknown_ones_dropped(data):
    assert normalize_evidence(["D1:5; D2:01", "d3 : 04"]) == ("D1:5", "D2:1", "D3:4")
    conversation = load_conversations(data)[0]
    script = transcript(conversation)
    asked = asked_questions(conversation, set(script.dia_ids))
    assert [(a.gold, a.groups) for a in asked] == [
        (("D1:2",), ("single-hop", "all")),
        (("D1:5", "D2:1"), ("multi-hop", "all")),
        (("D2:3",), ("adversarial",)),
    ]


def test_transcript_maps_memlane_turns_to_dia_ids(data):
    script = transcript(load_conversations(data)[0])
    assert [s.number for s in script.dialogue.sessions] == [1, 2]
    assert script.to_dia["tiny-1-S1#2"] == "D1:2"
    assert script.to_dia["tiny-1-S1#4"] == "D1:5"  # the empty D1:4 was not said
    assert script.to_dia["tiny-1-S2#3"] == "D2:3"
    assert len(script.to_dia) == len(script.dia_ids) == 7
    bowl = script.dia_ids.index("D2:2")
    assert script.documents[bowl].endswith(f"[shared an image: {CAPTION}]")
    assert script.lines[0].startswith("[2023-06-20 16:15] Jordan: Hey Sam")


# -- the suite end to end -------------------------------------------------------------------


def test_run_scores_memlane_and_the_baselines(data):
    lines: list[str] = []
    results = run(data, embedder_spec="hash", progress=lines.append)
    assert set(results.systems) == {SYSTEM, *BASELINES}
    assert results.systems[SYSTEM]["questions"] == {
        "all": 2,
        "multi-hop": 1,
        "single-hop": 1,
        "adversarial": 1,
    }
    for system in (SYSTEM, *BASELINES):
        metrics = results.systems[system]
        for name in ("turn_recall@10", "session_recall@5", "answer@500"):
            assert 0.0 <= metrics[name]["all"] <= 1.0
        assert metrics["answer@1000"]["adversarial"] in (0.0, 1.0)
    assert results.systems["bm25"]["turn_recall@10"]["single-hop"] == 1.0
    assert results.systems["bm25"]["turn_hit@1"]["single-hop"] == 1.0
    assert results.systems[SYSTEM]["turn_hit@1"]["single-hop"] == 1.0  # the puppy's note
    assert results.systems[SYSTEM]["turn_recall@10"]["multi-hop"] == 1.0
    assert results.systems[SYSTEM]["top_is_note"]["all"] == 1.0
    assert results.systems[SYSTEM]["answer@1000"]["single-hop"] == 1.0
    assert any("replayed 7 turns" in line for line in lines)


def test_run_rejects_a_bad_limit(data):
    with pytest.raises(InvalidInput):
        run(data, embedder_spec="hash", limit_conversations=0)


def test_cli_writes_json(data, tmp_path):
    out = tmp_path / "locomo.json"
    args = ["bench", "locomo", "--data", str(data), "--embedder", "hash", "--out", str(out)]
    result = CliRunner().invoke(cli, [*args, "--limit-conversations", "1"])
    assert result.exit_code == 0, result.output
    document = json.loads(out.read_text(encoding="utf-8"))
    assert document["suite"] == "locomo" and document["params"]["conversations"] == 1
    assert "turn_hit@10" in document["systems"]["bm25+vector-rrf"]
    assert "bm25+vector-rrf" in result.output


def test_cli_writes_one_line_per_question(data, tmp_path):
    target = tmp_path / "questions.jsonl"
    args = ["bench", "locomo", "--data", str(data), "--embedder", "hash"]
    result = CliRunner().invoke(cli, [*args, "--questions", str(target)])
    assert result.exit_code == 0, result.output
    assert f"wrote 3 questions to {target}" in result.output
    rows = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]
    assert [(r["conversation"], r["index"], r["category"]) for r in rows] == [
        ("tiny-1", 0, 4),
        ("tiny-1", 1, 1),
        ("tiny-1", 3, 5),
    ]
    puppy, wedding, adversarial = rows
    assert puppy["question"] == "What is the name of Sam's puppy?"
    assert puppy["answer"] == "Biscuit" and puppy["gold"] == ["D1:2"]
    assert puppy["ranked"][0] == "D1:2"  # the puppy's note, as the aggregate test says
    assert puppy["hit"] == {"@1": 1.0, "@5": 1.0, "@10": 1.0}
    assert puppy["answered"]["1000"] is True and puppy["items"] >= 1
    assert all(turn.startswith("D") for turn in wedding["ranked"])
    assert len(wedding["ranked"]) <= 10
    assert adversarial["gold"] == ["D2:3"] and set(adversarial["hit"]) == {"@1", "@5", "@10"}


def test_question_records_agree_with_the_aggregate(data):
    records: list = []
    results = run(data, embedder_spec="hash", progress=lambda _: None, questions=records)
    scored = [r for r in records if r.category != 5]
    for k in (1, 5, 10):
        mean = sum(r.hit[f"@{k}"] for r in scored) / len(scored)
        assert results.systems[SYSTEM][f"turn_hit@{k}"]["all"] == pytest.approx(mean)


def test_the_plot_shows_every_category_of_every_system(tmp_path) -> None:
    pytest.importorskip("matplotlib")
    from memlane.bench.locomo import CATEGORIES, plot
    from memlane.bench.report import Results

    results = Results("locomo", {"embedder": "hash"})
    for system in ("memlane", "bm25"):
        for group in ("all", *CATEGORIES.values()):
            for metric in ("turn_hit@10", "turn_recall@10", "answer@500"):
                results.put(system, metric, group, 0.5)
    target = tmp_path / "locomo.png"
    assert plot(results, target)
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
