"""Claims of a clause that repeats one relation cost work linear in its length.

"Bob lives in " said 1,500 times in one 20,000-character note claimed the same
``(holder, relation)`` at every match, and each claim normalized the whole clause for its
value, only for all but the first to be dropped: 15 s of a request's thread. Counted here as
work (values normalized), not time.
"""

from __future__ import annotations

import pytest

from memlane.router import claims as claims_module

LONG = 20_000
SHAPES = {
    "third-person": "Bob lives in ",
    "possessive": "Bob's team is Acme ",
    "subject-cjk": "U-1住在上海",
    "kin-cjk": "我朋友住在上海",
}


def _normalized(monkeypatch: pytest.MonkeyPatch, text: str) -> tuple[int, list[object]]:
    """How many values claims() normalized for ``text``, and the claims (no cache)."""
    calls = []
    real = claims_module.normalize_for_dedupe

    def counting(value: str) -> str:
        calls.append(value)
        return real(value)

    monkeypatch.setattr(claims_module, "normalize_for_dedupe", counting)
    found = claims_module.claims.__wrapped__(text, "U-1")
    return len(calls), [(c.holder, c.relation) for c in found]


@pytest.mark.parametrize("shape", SHAPES.values(), ids=SHAPES.keys())
def test_a_repeated_relation_is_normalized_once_however_often_it_repeats(
    monkeypatch: pytest.MonkeyPatch, shape: str
) -> None:
    few, few_claims = _normalized(monkeypatch, shape * 3)
    many, many_claims = _normalized(monkeypatch, (shape * LONG)[:LONG])
    assert many == few == 1
    assert many_claims == few_claims and len(many_claims) == 1


def test_the_first_complete_claim_of_a_key_is_kept() -> None:
    found = claims_module.claims.__wrapped__(
        "Bob's phone is unknown, Bob's phone is 13800001234 and Bob's phone is 13900001234", "U-1"
    )
    assert [(c.holder, c.relation) for c in found] == [("bob", "phone")]
    assert "13800001234" in found[0].clause


def test_a_repeated_chinese_holder_costs_work_linear_in_its_length(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """ "他的名字是李" 3,000 times: each holder was all the text before its 名字, a new claim."""
    shape = "他的名字是李"
    few, few_claims = _normalized(monkeypatch, shape * 30)
    many, many_claims = _normalized(monkeypatch, (shape * LONG)[:LONG])
    assert many == few and many < 30
    assert many_claims == few_claims


def test_a_holder_and_a_speakers_label_are_read_as_before() -> None:
    keys = [
        [(c.holder, c.relation) for c in claims_module.claims.__wrapped__(text, "U-1")]
        for text in (
            "U-1说：青禾酒家的主厨是王五",
            "上周珂洲市的市长是张三",
            "U-1住在上海在阿里巴巴工作",
        )
    ]
    assert keys == [
        [("青禾酒家", "my:主厨")],
        [("珂洲市", "my:市长")],
        [("", "location"), ("", "employer")],
    ]
