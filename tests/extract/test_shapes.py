"""Identifiers recognized by their shape, whole and as written (issue 13, item 1)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memlane.extract import RuleExtractor, find_identifiers

SHANGHAI = timezone(timedelta(hours=8))
AT = datetime(2026, 10, 20, 10, tzinfo=SHANGHAI)


def ids(text: str) -> list[tuple[str, str]]:
    found = find_identifiers(text)
    for mention in found:
        assert text[mention.span[0] : mention.span[1]] == mention.text
    return [(mention.kind, mention.text) for mention in found if mention.kind != "amount"]


@pytest.mark.parametrize(
    ("text", "kind", "written"),
    [
        ("my order ORD-20261015-88 hasn't arrived", "order_id", "ORD-20261015-88"),
        ("订单号 ORD-2026-10003 还没到", "order_id", "ORD-2026-10003"),
        ("K31-560-X-B，冰箱不制冷", "reference", "K31-560-X-B"),
        ("工单A12-889-X修好了吗", "reference", "A12-889-X"),
        ("订单4901324785738428262申请退款", "order_id", "4901324785738428262"),
        ("退款！4125249166938793890，买重复了", "reference", "4125249166938793890"),
        ("瑜伽垫发货了，单号SF4731398014799", "tracking", "SF4731398014799"),
        ("帮我查个快递YT5469626332735", "tracking", "YT5469626332735"),
        ("京东快递JDVD48544985068，改成周六", "tracking", "JDVD48544985068"),
        ("Tracking 1ZMN27S41824478472 — my Fitbit", "tracking", "1ZMN27S41824478472"),
        ("Royal Mail tracking RK819227791GB, Monday", "tracking", "RK819227791GB"),
        ("tracking 9400 3845 8536 8870 7624 85", "tracking", "9400 3845 8536 8870 7624 85"),
        ("USPS 9400 7888 6531 3330 1717 38, a gift", "tracking", "9400 7888 6531 3330 1717 38"),
        ("会员号8563 8227 8115，黄金会员", "account", "8563 8227 8115"),
        ("我的会员卡号是M-604940", "account", "M-604940"),
        ("账号zhangting_1954登录不上", "account", "zhangting_1954"),
        ("Meter issue on account AC-8141-2256-01", "account", "AC-8141-2256-01"),
        ("order 498-4032720-2399690: refund pls", "order_id", "498-4032720-2399690"),
        ("Confirmation code UPDQQ8: Xiamen", "reference", "UPDQQ8"),
        ("查ＤＤ ２０２５ ５０２３ １９６５", "reference", "ＤＤ ２０２５ ５０２３ １９６５"),
        ("快递 sf 8664 6655 7054 5 是谁收？", "tracking", "sf 8664 6655 7054 5"),
        ("RK 8192 2779 3 GB arriving when?", "tracking", "RK 8192 2779 3 GB"),
        ("工单 K85 982 R 修的是什么？", "reference", "K85 982 R"),
        ("M31 772 A 这个工单报修的是啥", "reference", "M31 772 A"),
        ("M 604940是几级会员", "reference", "M 604940"),
        ("订单号qk 31907 d的发货城市", "order_id", "qk 31907 d"),
        ("What's the balance on lyl 581107?", "reference", "lyl 581107"),
        ("zd3eq7 — which hotel city?", "reference", "zd3eq7"),
    ],
)
def test_ids_are_found_whole_and_as_written(text, kind, written):
    assert ids(text) == [(kind, written)]


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("Mobile is +44 7700 900515", "+44 7700 900515"),
        ("call 07700900815 when you're on your way", "07700900815"),
        ("What slot did 07700 900 515 book?", "07700 900 515"),
        ("please ring 020 7946 0632 before delivering", "020 7946 0632"),
        ("座机059243953550，白天都有人", "059243953550"),
        ("来电025 4374 2323，是哪个店", "025 4374 2323"),
        ("电话(+86) 133-3631-3608，售后", "(+86) 133-3631-3608"),
        ("+44 (0)7700 900 724 when you're on your way", "+44 (0)7700 900 724"),
    ],
)
def test_phones_dialled_with_a_trunk_zero_or_a_bracketed_country(text, written):
    assert ids(text) == [("phone", written)]


def test_a_cue_makes_a_phone_shaped_number_an_id():
    assert ids("会员号 13800001234") == [("account", "13800001234")]
    assert ids("手机 13800001234") == [("phone", "13800001234")]


@pytest.mark.parametrize(
    "text",
    [
        "COVID-19 and iPhone15",
        "1080p at 60fps",
        "3.14159265358",
        "2026-07-01 and 10/15/2026",
        "year 2025 and May 2025",
        "scores 90 85 77 92 88 today",
        "I paid $1234567890",
        "100 RMB",
        "Win10 on x86",
        "order 12 is late",
        "130 Station Rd",
        "花园路69号D座11楼",
    ],
)
def test_no_id_where_there_is_none(text):
    assert ids(text) == []


def test_ids_are_stored_as_written_never_lower_cased_or_cut():
    ops = (
        RuleExtractor()
        .extract(
            "my order ORD-20261015-88 hasn't arrived, tracking 1ZMN27S41824478472",
            at=AT,
            timezone=SHANGHAI,
        )
        .ops
    )
    assert [(op.attribute, op.value) for op in ops] == [
        ("order", "ORD-20261015-88"),
        ("tracking", "1ZMN27S41824478472"),
    ]
