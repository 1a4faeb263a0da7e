"""Codes asked for by a code noun ("签证号", "library card no.", "the landline at home"), and
booked events ("physio appointment", "牙科预约"), are answered only by what was said carrying
what narrows them; the rest is a near miss."""

from __future__ import annotations

import pytest

import memlane
from tests.support.conversations import told


def _told(*texts: str) -> memlane.Memory:
    return told(*texts, subject="U-7", wait=True)  # near misses are found by meaning, too


@pytest.mark.parametrize(
    ("said", "question", "near_miss"),
    [
        ("我的东航会员号是MU20481133", "我的签证号是多少？", "MU20481133"),
        ("工资卡尾号7731，别弄错", "客户驾驶证尾号是？", "7731"),
        ("gym membership is GX44019823", "library card no. for this reader?", "GX44019823"),
        ("my cell is +1 312 555 0147", "What's the landline at my flat?", "555 0147"),
        ("tracking for the desk lamp is 1ZX4R7710392650118",
         "tracking no. for the standing fan?", "1ZX4R7710392650118"),
        # a booked event is narrowed like a code: another event's time is a near miss
        ("haircut on 14 May at 10am", "When is my physio appointment?", "14 May"),
        ("I've got the vet 2 August, evening", "when's the user's dentist booking?", "2 August"),
        ("3月9号下午去体检中心", "用户的牙科预约是哪天？", "3月9号"),
        ("下周二上午去骨科复诊", "我眼科复查约的什么时候？", "下周二"),
        # "后四位" asks for a code's last digits, as 尾号 does: the bank card's are not the ID's
        ("扣款用尾号3355的银行卡", "我身份证后四位是多少？", "3355"),
        # the head of "扫地机器人" is its last 人, not the 人 that starts "人体工学椅"
        ("人体工学椅的快递单号是JT1316569946746", "我那个扫地机器人的快递单号是多少？",
         "JT1316569946746"),
    ],
)  # fmt: skip
def test_a_code_of_another_purpose_does_not_answer_a_code_noun(said, question, near_miss):
    with _told(said) as mem:
        recall = mem.recall("U-7", question)
        assert all(near_miss not in item.text for item in recall.items), recall.text


@pytest.mark.parametrize(
    ("said", "question", "answer"),
    [
        ("新的工资卡尾号是5520", "客户现在的工资卡尾号是多少？", "5520"),
        ("换成尾号3318的农行卡了", "我绑的银行卡尾号是多少？", "3318"),
        ("the tracking for the standing fan is 1ZX4R7710392650228",
         "tracking no. for the standing fan?", "1ZX4R7710392650228"),
        ("physio on 14 May at 10am", "When is my physio appointment?", "14 May"),
        ("3月9号下午去牙科复诊", "用户的牙科预约是哪天？", "3月9号"),
        ("扣款用尾号3355的银行卡", "我银行卡后四位是多少？", "3355"),
        # "个人" and "私人" say the same of an e-mail: the one not used for work
        ("私人邮箱leihu83@example.net", "我个人邮箱是哪个？", "leihu83@example.net"),
        ("my private email is kit.h@example.net", "What's my personal email?", "kit.h@example.net"),
    ],
)  # fmt: skip
def test_the_code_asked_for_still_answers(said, question, answer):
    with _told("周末客服上班吗？", said) as mem:
        items = mem.recall("U-7", question).items
        assert items and answer in items[0].text


def test_a_statement_giving_the_code_outranks_one_that_only_names_its_thing():
    with _told(
        "I bought a standing fan and a desk lamp.",
        "Tracking for the standing fan is 9311240781, the desk lamp is 9311240788",
    ) as mem:
        items = mem.recall("U-7", "What's the tracking number for my standing fan?").items
        assert items and "9311240781" in items[0].text


def test_the_subjects_own_id_in_a_note_is_not_a_code_it_gives():
    with _told("Stayed at the Grand Plaza, room 812, left my scarf", "phone: 415-555-0162") as mem:
        items = mem.recall("U-7", "What was my room number at the hotel?").items
        assert items and "812" in items[0].text


def test_the_thing_a_long_run_before_de_ends_with_narrows_the_code():
    with _told(
        "电动牙刷发货了，单号YT7781204456120", "空气炸锅也发了，单号是YT7781204456129"
    ) as mem:
        items = mem.recall("U-7", "麻烦帮我查电动牙刷的物流单号").items
        assert items and "YT7781204456120" in items[0].text


def test_the_kind_of_code_does_not_carry_a_question_about_another_thing():
    with _told("电饭煲的快递单号是JT5530917726418") as mem:
        recall = mem.recall("U-7", "我那个降噪耳机的快递单号是多少？")
        assert all("JT5530917726418" not in item.text for item in recall.items), recall.text


def test_a_code_noun_in_a_question_about_an_episode_is_narrowed_too():
    with _told("我手机号139 2233 4455", "全季酒店806房，退房时把充电器落下了") as mem:
        recall = mem.recall("U-7", "我上次住的酒店房间号是多少？")
        assert all("139 2233 4455" not in item.text for item in recall.items), recall.text


@pytest.mark.parametrize(
    ("said", "question"),
    [
        ("my loyalty number for the airline is LH29824204", "What's my frequent flyer number?"),
        ("my frequent flyer number is LH29824204", "what's my airline loyalty number?"),
        ("我的航空里程卡号是LH29824204", "我的常旅客卡号是多少？"),
    ],
)
def test_code_nouns_naming_one_kind_of_account_carry_each_other(said, question):
    """ "frequent flyer" and "loyalty" name one kind of account; a passport is another."""
    with told(said, "the discount code isn't working", subject="U-3", wait=True) as mem:
        r = mem.recall("U-3", question)
        assert r.items and "LH29824204" in r.items[0].text, [item.text for item in r.items]
        other = mem.recall("U-3", "passport no. for this traveller?")
        assert not other.items or "LH29824204" not in other.items[0].text
