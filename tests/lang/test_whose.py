"""Whose value a Chinese or English phrase names: the speaker's, a role's, or a thing's."""

from __future__ import annotations

import pytest

from memlane.lang.qualifiers import qualifiers
from memlane.lang.roles import role_before
from memlane.lang.script import fold
from memlane.summaries.notes import relations


@pytest.mark.parametrize(
    ("statement", "found"),
    [
        ("帮我记一下牙科诊所的电话：025 8301 1736，下周要复诊", []),
        ("物业的邮箱是wy@example.com", []),
        ("联系电话+86 189 0093 0860", ["phone"]),
        ("我的电话是139 1111 2222", ["phone"]),
        ("我公司的邮箱是a@example.com", ["email"]),
    ],
)
def test_a_phone_or_email_after_anothers_de_is_not_the_speakers(statement, found):
    assert relations(statement) == found


@pytest.mark.parametrize(
    ("question", "word", "found"),
    [
        ("我那个牙科的号码是？", "号码", (("牙科",),)),
        ("我公司的邮箱是哪个？", "邮箱", (("公司",),)),
        ("我新买的手机号是多少？", "手机号", ()),
        ("我刚换的号码是多少？", "号码", ()),
        ("那时候客户留的邮箱是哪个？", "邮箱", ()),
        ("我之前用的邮箱是哪个？", "邮箱", ()),
        ("我那个空气炸锅的订单现在什么情况？", "订单", ()),  # the order, not which number
        ("加湿器的单号多少？", "单号", (("加湿", "湿器", "器"),)),
    ],
)
def test_a_thing_before_de_narrows_the_attribute_a_clause_does_not(question, word, found):
    start = question.index(word)
    assert qualifiers(fold(question), (start, start + len(word))) == found


@pytest.mark.parametrize(
    ("question", "word", "role"),
    [
        ("帮我找下牙科诊所电话", "电话", "doctor"),
        ("dentist phone number?", "phone", "doctor"),
        ("我的电话", "电话", None),
        ("my cell phone", "phone", None),
    ],
)
def test_a_role_written_against_an_attribute_word_owns_it(question, word, role):
    folded = fold(question)
    assert role_before(folded, folded.index(word)) == role


def test_a_named_model_leaves_the_kind_of_code_nothing_to_narrow():
    question = "帮我查iPhone 15的物流单号"  # said as "iPhone 15的快递单号是…"
    start = question.index("单号")
    assert qualifiers(fold(question), (start, start + 2)) == (("15",),)
