"""A Chinese change verb typed with a homophone is read as the verb, where its frame holds."""

from __future__ import annotations

import pytest

from memlane.extract.gazetteer import longest_zh_place_prefix
from memlane.lang.typos import repaired
from tests.support.stated import stated


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("上个月跳曹到蓝帆科技了", ("employer", "蓝帆科技")),  # 曹 cáo for 槽
        ("我前阵子班到芜湖了", ("location", "芜湖")),  # 班 bān for 搬
        ("我已经搬道镇江了", ("location", "镇江")),  # 道 dào for 到
    ],
)
def test_a_change_verb_typed_with_a_homophone_is_read(text: str, fact: tuple[str, str]) -> None:
    assert fact in stated(text)


@pytest.mark.parametrize(
    "text",
    [
        "我一般到芜湖出差",  # 一般 is a word; the speaker does not move
        "我搬倒了柜子",  # no known place after it
        "孩子们跳草绳玩",  # no verb of arriving after it
        "加班到很晚",  # no known place after it
    ],
)
def test_a_homophone_outside_the_frame_is_left_alone(text: str) -> None:
    assert not [f for f in stated(text) if f[0] in ("employer", "location")]


def test_the_repair_keeps_every_offset() -> None:
    text = "跳巢去青木集团了哈哈"
    fixed = repaired(text, longest_zh_place_prefix)
    assert fixed == "跳槽去青木集团了哈哈" and len(fixed) == len(text)
