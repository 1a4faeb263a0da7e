"""Question forms read by structure: 吧 closes a request, 哪天 asks a time (issue 13)."""

from __future__ import annotations

import pytest

from memlane.lang.kinds import TIME, asked_kind
from memlane.summaries.notes import note_text
from memlane.summaries.text import is_question


@pytest.mark.parametrize(
    "said", ["洗牙约在周四晚上七点吧", "电动牙刷就要这个了，下单吧", "别叫小孟了，叫我孟老师吧"]
)
def test_a_sentence_closed_by_ba_without_a_question_mark_states_what_is_wanted(said: str) -> None:
    """Fails on main: 吧 made it a question, so the booking was never noted."""
    assert not is_question(said)
    assert note_text(said, "U-1") is not None


@pytest.mark.parametrize("asked", ["你是学生吧？", "在上海吗", "你住哪里呢"])
def test_questions_stay_questions(asked: str) -> None:
    assert is_question(asked)


@pytest.mark.parametrize(
    "question",
    ["洗牙改到哪天了？", "你哪一年毕业的？", "哪个月去的？", "快递啥时候到？", "会议是星期几？",
     "什么时间方便？", "What day is the haircut?", "Which date did we pick?"],
)  # fmt: skip
def test_which_day_asks_for_a_time(question: str) -> None:
    """Fails on main for 哪天, 哪一年, 哪个月, 啥时候, 星期几, 什么时间, what day, which date."""
    assert asked_kind(question) == TIME


@pytest.mark.parametrize("question", ["明天什么天气？", "他什么年纪？", "你几岁？", "在哪个城市？"])
def test_words_of_time_after_other_question_words_ask_no_time(question: str) -> None:
    assert asked_kind(question) != TIME
