"""A retraction answers for the slot it closes, though it shares no word with the question.

On the hash embedder a question that shares no word with any statement finds them all by
chance: "The discount code isn't working" may come first. A speaker's retraction and the
statement it took back were both found for the question, so the slot they fill was found
twice, and the retraction ranks first (issue 13, class 1). So do the topics a summary's
"about:" line lists for a booking that was taken back: they are stale, not current (class 2).
"""

from __future__ import annotations

import pytest

import memlane
from tests.conftest import FakeClock
from tests.support.conversations import asked_after, current_texts, told_a_month_apart

FOUND_BY_CHANCE = [
    pytest.param(
        "Text me only, I never pick up calls",
        "Change of plan: ring me rather than text, my phone blocks SMS",
        "Is there a discount for teachers?",
        "How does the customer want to be contacted?",
        "rather than text", id="en-contact",
    ),
    pytest.param(
        "I always order the oat flat white",
        "Stop ordering the oat flat white for me, it's a cortado these days",
        "The discount code from last week isn't working",
        "What's the usual coffee order?",
        "cortado", id="en-coffee",
    ),
    pytest.param(
        "联系我的话发短信，谢谢",
        "现在可以接电话了，以后直接打电话给我，别发短信",
        "上次那个优惠券怎么用不了",
        "师傅上门前怎么通知我？",
        "打电话", id="zh-contact",
    ),
    pytest.param(
        "我每天早上都是一杯燕麦拿铁",
        "别给我点燕麦拿铁了，最近换成澳白",
        "帮我看看有没有满减活动",
        "帮我下单老样子的咖啡，是哪款？",
        "澳白", id="zh-coffee",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("old", "retraction", "filler", "question", "now"), FOUND_BY_CHANCE)
def test_a_retraction_sharing_no_word_with_the_question_outranks_a_filler(
    clock: FakeClock, old: str, retraction: str, filler: str, question: str, now: str
) -> None:
    """Fails on main: the filler, found once by chance, comes first."""
    r = asked_after(clock, question, old, retraction, filler)
    assert now in r.items[0].text


def test_what_only_takes_back_ranks_after_what_gives_the_new_time(clock: FakeClock) -> None:
    """ "Monday is out, sorry." gives no time: the sentence beside it does."""
    with memlane.Memory(":memory:", clock=clock, embedder="hash") as mem:
        told_a_month_apart(
            mem,
            clock,
            "Monday at 5:30pm works for the haircut",
            "Monday is out, sorry. Sunday at 4pm for the haircut?",
        )
        assert mem.index.wait(timeout=30)
        r = mem.recall("U-1", "When is my haircut?")
        assert "4pm" in r.items[0].text


@pytest.mark.parametrize(
    ("booked", "moved", "question", "old"),
    [
        (
            "洗牙约在周四晚上七点吧",
            "洗牙取消周四那个，重新约周日下午两点",
            "洗牙改到哪天了？",
            "晚上七点",
        ),
        (
            "理发约在周五上午九点半吧",
            "理发取消周五那个，重新约周六下午三点",
            "理发改到哪天了？",
            "九点半",
        ),
    ],
)
def test_the_topics_of_a_booking_taken_back_are_not_current(
    clock: FakeClock, booked: str, moved: str, question: str, old: str
) -> None:
    """A storyline's "about:" line lists both sessions' topics: the old booking's are stale.

    Fails on main: "storyline …: about: 洗牙取消周四, 洗牙约, 周四晚上七点" is judged as one
    line, as recent as the retraction, and stays current.
    """
    r = asked_after(clock, question, booked, moved, k=10)
    assert not any(old in text for text in current_texts(r))


def test_a_question_asking_which_day_is_answered_by_the_note_that_tells_one(
    clock: FakeClock,
) -> None:
    """哪天 asks for a time: the note telling a date outranks one that tells none."""
    r = asked_after(clock, "我看牙约的哪天？", "下次有活动记得叫我", "2月1号上午口腔医院复诊")
    assert "2月1号" in r.items[0].text


def test_a_chinese_retraction_is_read_as_said_whatever_the_subjects_name(
    clock: FakeClock,
) -> None:
    """Notes write the subject's name for 我: "加湿器那单帮user-8412d4取消吧" still takes back.

    Fails on main: with a name of eleven characters inside it, the clause before 取消 is
    too long to be read as the value taken back, so the order's confirmation stays current.
    """
    with memlane.Memory(":memory:", clock=clock, embedder="hash") as mem:
        for number, (user, reply) in enumerate(
            (
                ("确认购买加湿器", "已为您下单加湿器，订单号ORD-2025-33308，预计9月25日送达。"),
                ("加湿器那单帮我取消吧，不要了", "已为您取消订单ORD-2025-33308，款项原路退回。"),
            ),
            start=1,
        ):
            clock.advance(days=2)
            session = mem.session("user-8412d4", session_id=f"s-{number}")
            session.add("user", user)
            clock.advance(minutes=2)
            session.add("assistant", reply)
            session.close()
        assert mem.index.wait(timeout=30)
        r = mem.recall("user-8412d4", "订单ORD-2025-33308还会发货吗？", k=10)
        assert not any("9月25日送达" in text for text in current_texts(r))
