"""Chinese retractions read by the structure of the question (issue 13).

A question that says what a value is for ("发票要发到哪个邮箱？") asks for the value, not for
one called by that purpose; a question about a thing's state ("小米14的订单现在什么情况？") is
answered by the statement that took it back; asked for an earlier code ("之前…尾号多少？"), the
statement that named the old thing by another feature only is the present, not the answer.
"""

from __future__ import annotations

from functools import partial

import pytest

from tests.conftest import FakeClock
from tests.support.conversations import current_texts, said_in_session

_chat = partial(said_in_session, reply="好的。")
"""The user says something in a new session a day later; the assistant answers 好的。"""


@pytest.mark.parametrize(
    "question",
    [
        "发票要发到哪个邮箱？",
        "合同应该发到哪个邮箱？",
        "报告该发给哪个邮箱？",
        "合同需要发到的邮箱是哪个？",
    ],
)
def test_what_a_value_is_for_does_not_narrow_it(mem, clock: FakeClock, question):
    _chat(mem, clock, "s-1", "有文件发我邮箱wen.li@mail.example.com")
    _chat(mem, clock, "s-2", "邮箱换了：liwen_77@example.net，老的那个登不上去了", days=30)
    r = mem.recall("U-1", question)
    assert r.items and "liwen_77@example.net" in r.items[0].text
    assert not any("wen.li@" in text for text in current_texts(r))


def test_a_things_state_is_told_by_what_took_it_back(mem, clock: FakeClock):
    clock.advance(days=1)
    s = mem.session("U-1", session_id="s-1")
    s.add("user", "华为Mate60就要这个了，下单吧")
    s.add("assistant", "已为您下单华为Mate60，订单号ORD-2025-31877，预计10月9日送达。")
    s.close()
    clock.advance(days=1)
    s = mem.session("U-1", session_id="s-2")
    s.add("user", "华为Mate60那单帮我取消吧，不要了")
    s.add("assistant", "已为您取消订单ORD-2025-31877，款项原路退回。")
    s.close()
    assert mem.index.wait(timeout=30)
    r = mem.recall("U-1", "我那个华为Mate60的订单现在什么情况？")
    assert r.items and "取消" in r.items[0].text
    assert r.items[0].status == "current"


def test_asked_for_an_earlier_code_the_replacement_naming_only_the_thing_is_left_out(
    mem, clock: FakeClock
):
    _chat(mem, clock, "s-1", "自动续费绑工行尾号3817那张")
    _chat(mem, clock, "s-2", "工行那张卡注销了，换成尾号5520的中信卡", days=60)
    now = mem.recall("U-1", "扣款用哪张卡？")
    assert "5520" in now.items[0].text
    before = mem.recall("U-1", "以前扣款那张卡尾号多少？")
    assert before.items and "3817" in before.items[0].text
    assert not any("5520" in text for text in current_texts(before))


def test_a_replacement_naming_only_what_the_question_names_is_left_out(mem, clock):
    _chat(mem, clock, "s-1", "收货地址写公司的：南京鼓楼区中山路88号，前台代收")
    _chat(
        mem,
        clock,
        "s-2",
        "公司地址别用了，我已经离职了，以后寄到家里：南京玄武区北京东路12号",
        days=40,
    )
    before = mem.recall("U-1", "之前公司那个地址是什么？")
    assert before.items and "中山路88号" in before.items[0].text
    assert not any("北京东路12号" in text for text in current_texts(before))


@pytest.mark.parametrize("name", ["郑雨桐", "欧阳娜", "梁伟"])
def test_a_question_opening_with_a_name_asks_about_its_subject(mem, clock, name):
    _chat(mem, clock, "s-1", f"我是{name}，单位是顺丰，平时比较忙")
    _chat(mem, clock, "s-2", "现在在京东做运营，3月换的工作", days=90)
    r = mem.recall("U-1", f"{name}以前在哪家公司？")
    assert r.items and "顺丰" in r.items[0].text
    assert not any("京东" in t and "顺丰" not in t for t in current_texts(r))


def test_where_someone_lives_asked_as_where_they_live_their_life(mem, clock: FakeClock):
    _chat(mem, clock, "s-1", "我住在泉州")
    _chat(mem, clock, "s-2", "帮我看看有没有满减活动", days=20)
    _chat(mem, clock, "s-3", "我已经搬到温州了，之前一直在泉州", days=60)
    r = mem.recall("U-1", "他现在在哪里生活？")
    assert r.items and "温州" in r.items[0].text


def test_two_nouns_sharing_their_last_character_are_not_one_code(mem, clock: FakeClock):
    _chat(mem, clock, "s-1", "我手机+86 186 2211 0934")
    _chat(mem, clock, "s-2", "积分可以抵现吗？", days=5)
    r = mem.recall("U-1", "我们单位座机号是多少？")
    assert not any("2211 0934" in item.text for item in r.items[:1])


def test_a_number_with_the_measure_of_what_it_counts_answers_for_that_thing(mem, clock):
    _chat(mem, clock, "s-1", "我手机号(+86) 137-2290-1185")
    _chat(mem, clock, "s-2", "上次那个优惠券怎么用不了", days=5)
    _chat(mem, clock, "s-3", "全季1207房，退房时忘拿充电器了", days=5)
    r = mem.recall("U-1", "我上次住的酒店房间号是多少？")
    assert r.items and "1207" in r.items[0].text


def test_a_workday_said_after_now_is_no_employer():
    from memlane.router.claims import claims

    said = "U-1说：以前都是周末收货，现在改成工作日送到公司吧，周末不在家"
    assert claims(said, "U-1") == ()
    found = claims("张三现在在腾讯上班", "U-1")
    assert [(c.holder, c.relation) for c in found] == [("张三", "employer")]


def test_a_switched_delivery_time_answers_when_to_deliver(mem, clock: FakeClock):
    _chat(mem, clock, "s-1", "周末送货就行，平时家里没人")
    _chat(mem, clock, "s-2", "上次那个优惠券怎么用不了", days=10)
    _chat(mem, clock, "s-3", "以前都是周末收货，现在改成工作日送到公司吧，周末不在家", days=60)
    r = mem.recall("U-1", "我一般什么时候方便收货？")
    assert r.items and "工作日" in r.items[0].text
