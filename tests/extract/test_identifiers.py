"""Phones, e-mails, order and user ids, URLs and amounts — and what must not be taken for them."""

from __future__ import annotations

import pytest

from memlane.errors import InvalidInput
from memlane.extract import ExtractConfig, find_identifiers


def of_kind(text: str, kind: str, config: ExtractConfig | None = None):
    found = find_identifiers(text, config)
    for mention in found:
        assert text[mention.span[0] : mention.span[1]] == mention.text
    return [(mention.text, mention.value) for mention in found if mention.kind == kind]


@pytest.mark.parametrize(
    ("text", "written", "digits"),
    [
        ("13800001234", "13800001234", "13800001234"),
        ("138-0000-1234", "138-0000-1234", "13800001234"),
        ("138 0000 1234", "138 0000 1234", "13800001234"),
        ("电话13800001234谢谢", "13800001234", "13800001234"),
        ("+86 138 0000 1234", "+86 138 0000 1234", "8613800001234"),
        ("+86-138-0000-1234", "+86-138-0000-1234", "8613800001234"),
        ("0086 138 0000 1234", "0086 138 0000 1234", "008613800001234"),
        ("+1 (415) 555-0100", "+1 (415) 555-0100", "14155550100"),
        ("call (415) 555-0100 now", "(415) 555-0100", "4155550100"),
        ("415-555-0100", "415-555-0100", "4155550100"),
        ("1-415-555-0100", "1-415-555-0100", "14155550100"),
        ("+44 20 7946 0958", "+44 20 7946 0958", "442079460958"),
        ("座机 010-62345678", "010-62345678", "01062345678"),
        ("(0571) 8888 8888", "(0571) 8888 8888", "057188888888"),
        ("+86 10 6234 5678", "+86 10 6234 5678", "861062345678"),
        ("新号１３９１１１１２２２２。", "１３９１１１１２２２２", "13911112222"),
        ("138 0000 1234 2026年", "138 0000 1234", "13800001234"),
        ("第 3 138 0000 1234", "138 0000 1234", "13800001234"),
    ],
)
def test_phone_numbers_with_any_separators(text, written, digits):
    assert of_kind(text, "phone") == [(written, digits)]


@pytest.mark.parametrize(
    "text",
    [
        "2026-07-01",
        "2026-07-01 15:30",
        "2026/07/01 10:00",
        "15:30-16:45",
        "ORD-13800001234",
        "用户ID 13800001234",
        "13800001234@qq.com",
        "https://example.com/u/13800001234",
        "12345",
        "3.14159265358",
        "1700000000000",
        "6222 0200 1234 5678",
        "100 200 300",
        "version 2.10.13800001234",
        "12800001234",
    ],
)
def test_no_phone_where_there_is_none(text):
    assert of_kind(text, "phone") == []


def test_digits_of_an_order_id_are_not_a_phone():
    found = find_identifiers("订单号 ORD-13912345678，电话 13800001234")
    assert [(mention.kind, mention.text) for mention in found] == [
        ("order_id", "ORD-13912345678"),
        ("phone", "13800001234"),
    ]


@pytest.mark.parametrize(
    "text",
    [
        "pls update my contact nmbr to 3035550170",
        "my numbr is 3035550170 now",
        "contact no. 3035550170",
        "ph # 3035550170",
        "new mobile: 3035550170",
        "call me at 3035550170 after 5",
        "电话 3035550170",
    ],
)
def test_a_phone_label_before_a_bare_valid_number_makes_it_a_phone(text):
    # the label may be cut or misspelt ("nmbr", "numbr", "no.", "#"); the run is bare
    assert [(m.kind, m.value) for m in find_identifiers(text)] == [("phone", "3035550170")]


@pytest.mark.parametrize(
    "text",
    [
        "3035550170",  # no label: a bare run stays what it was
        "my id is 3035550170",
        "ticket no. 3035550170",  # the cue names another kind
        "order number 3035550170",
        "my number is 1111111111",  # a label, but no valid number
        "me to 3035550170",  # short words are no label
    ],
)
def test_a_bare_run_without_a_phone_label_or_not_valid_is_no_phone(text):
    assert of_kind(text, "phone") == []


@pytest.mark.parametrize(
    ("text", "whole"),
    [
        ("查下4770 5201 1811 9010 464的退款理由", "4770 5201 1811 9010 464"),
        ("order 4446 7200 1470 5447 393 refund", "4446 7200 1470 5447 393"),
    ],
)
def test_a_mobile_at_the_end_of_a_grouped_id_is_part_of_the_id(text, whole):
    assert [(m.kind, m.text) for m in find_identifiers(text)] in (
        [("reference", whole)],
        [("order_id", whole)],
    )


@pytest.mark.parametrize(
    ("text", "written", "value"),
    [
        ("我的邮箱是Alice@Example.COM。", "Alice@Example.COM", "alice@example.com"),
        ("mail bob.smith+tag@mail.co.uk, thanks", "bob.smith+tag@mail.co.uk", None),
        ("13800001234@qq.com", "13800001234@qq.com", "13800001234@qq.com"),
    ],
)
def test_emails_are_lower_cased(text, written, value):
    assert of_kind(text, "email") == [(written, value or written.lower())]


@pytest.mark.parametrize("text", ["a@b", "@example.com", "user@localhost", "me at example dot com"])
def test_no_email_where_there_is_none(text):
    assert of_kind(text, "email") == []


@pytest.mark.parametrize(
    ("text", "kind", "written"),
    [
        ("ORD-123", "order_id", "ORD-123"),
        ("订单号：A1234567", "order_id", "A1234567"),
        ("订单号 ORD-123 还没到", "order_id", "ORD-123"),
        ("my order number is 98765432", "order_id", "98765432"),
        ("Order #AB-123456", "order_id", "AB-123456"),
        ("U-001", "user_id", "U-001"),
        ("用户ID 12345", "user_id", "12345"),
        ("用户编号：77881", "user_id", "77881"),
        ("user id: abc123", "user_id", "abc123"),
    ],
)
def test_default_order_and_user_ids(text, kind, written):
    assert of_kind(text, kind) == [(written, written)]


@pytest.mark.parametrize(
    "text", ["我的订单号是多少", "my order id please", "ORD-", "order number", "UU-12", "用户说"]
)
def test_no_order_or_user_id_where_there_is_none(text):
    found = find_identifiers(text)
    assert [mention for mention in found if mention.kind in ("order_id", "user_id")] == []


def test_configured_patterns_replace_the_defaults():
    config = ExtractConfig(
        order_patterns=(r"SO\d{8}", r"单号[:：](\w+)"), user_id_patterns=(r"cust-\d+",)
    )
    text = "SO12345678 和 ORD-123，单号：X99，cust-42"
    assert of_kind(text, "order_id", config) == [("SO12345678", "SO12345678"), ("X99", "X99")]
    assert of_kind(text, "user_id", config) == [("cust-42", "cust-42")]


@pytest.mark.parametrize(
    ("config", "field"),
    [
        (ExtractConfig(order_patterns=("(",)), "order_patterns"),
        (ExtractConfig(user_id_patterns=("[a-",)), "user_id_patterns"),
        (ExtractConfig(order_patterns="ORD-\\d+"), "order_patterns"),  # type: ignore[arg-type]
        (ExtractConfig(identifier_confidence=1.5), "identifier_confidence"),
    ],
)
def test_bad_configuration_is_refused(config, field):
    with pytest.raises(InvalidInput, match=field):
        find_identifiers("ORD-1", config)


def test_a_configuration_is_compiled_once_for_the_process():
    first, again = ExtractConfig().compile(), ExtractConfig().compile()
    assert first.order_patterns is again.order_patterns
    assert first.user_id_patterns is again.user_id_patterns
    listed = ExtractConfig(order_patterns=[r"SO\d{8}"])  # type: ignore[arg-type]
    as_tuple = ExtractConfig(order_patterns=(r"SO\d{8}",))
    assert listed.compile().order_patterns is as_tuple.compile().order_patterns


@pytest.mark.parametrize("patterns", [("(",), ["("], [["("]]])
def test_a_bad_pattern_is_refused_every_time(patterns):
    config = ExtractConfig(order_patterns=patterns)
    for _ in range(2):
        with pytest.raises(InvalidInput, match="order_patterns"):
            config.compile()


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("see https://example.com/a?b=1.", "https://example.com/a?b=1"),
        ("打开www.example.com，请看", "www.example.com"),
        ("(http://x.io/path)", "http://x.io/path"),
    ],
)
def test_urls_lose_trailing_punctuation(text, written):
    assert of_kind(text, "url") == [(written, written)]


@pytest.mark.parametrize(
    ("text", "written", "amount", "currency"),
    [
        ("¥12.5", "¥12.5", "12.50", "CNY"),
        ("￥12.5", "￥12.5", "12.50", "CNY"),
        ("12.5元", "12.5元", "12.50", "CNY"),
        ("花了300块", "300块", "300.00", "CNY"),
        ("两块钱", "两块钱", "2.00", "CNY"),
        ("三百块的手机", "三百块", "300.00", "CNY"),
        ("1.2万元", "1.2万元", "12000.00", "CNY"),
        ("$1,200.00", "$1,200.00", "1200.00", "USD"),
        ("USD 30", "USD 30", "30.00", "USD"),
        ("30 dollars", "30 dollars", "30.00", "USD"),
        ("5k USD", "5k USD", "5000.00", "USD"),
        ("€20", "€20", "20.00", "EUR"),
        ("100 RMB", "100 RMB", "100.00", "CNY"),
        ("500日元", "500日元", "500.00", "JPY"),
        ("0.005 dollars", "0.005 dollars", "0.005", "USD"),
    ],
)
def test_amounts_with_currency(text, written, amount, currency):
    assert of_kind(text, "amount") == [(written, {"amount": amount, "currency": currency})]


@pytest.mark.parametrize("text", ["三块蛋糕", "我们一块去", "一元二次方程", "3单元", "30 apples"])
def test_no_amount_where_there_is_none(text):
    assert of_kind(text, "amount") == []


def test_mentions_come_in_text_order():
    text = "U-7 的邮箱 a@b.co，电话 13800001234，订单 ORD-9，付了 ¥5，见 https://x.io"
    kinds = [mention.kind for mention in find_identifiers(text)]
    assert kinds == ["user_id", "email", "phone", "order_id", "amount", "url"]
