"""Odd text never raises, and every span points into the text it came from."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import memlane.extract
from memlane.extract import RuleExtractor, find_identifiers, resolve_times

ZONES = [ZoneInfo(name) for name in ("Asia/Shanghai", "America/New_York", "UTC", "Pacific/Apia")]
EXTRACTOR = RuleExtractor()

# Pieces the rules look for, so that generated text reaches deep into them.
PIECES = [
    *"我搬到北京了住在上周一二三四五六七八九十两年月日号点半下午天前后昨今明个周末叫邮箱手机号订单",
    *"ORD-U0123456789 ,.，。！？?:：@+()$¥元块万kK/０１２",
    "July ", "May ", "last ", "next ", "Monday", "ago", " days", "I ", "moved to ", "call me ",
    "Berlin", "my name is ", "in ", "2026", "-07-01", "1st", "T", "15:30", "3pm", "138", "0000",
    "1234", "@x.com", "http://a.b/", "不", "吗", "如果", "生日", "出生", "老家", "工作", "在", "İ",
]  # fmt: skip
TEXTS = st.one_of(
    st.text(max_size=200), st.lists(st.sampled_from(PIECES), max_size=40).map("".join)
)
INSTANTS = st.builds(
    lambda moment, zone: moment.replace(tzinfo=zone),
    st.datetimes(min_value=datetime(1, 1, 3), max_value=datetime(9999, 12, 29)),
    st.sampled_from(ZONES),
)
FAST = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(TEXTS, INSTANTS, st.sampled_from(ZONES))
def test_extract_never_raises_and_spans_point_into_the_text(text, at, zone):
    result = EXTRACTOR.extract(text, at=at, timezone=zone)
    for mention in result.mentions:
        start, end = mention.span
        assert 0 <= start < end <= len(text)
        assert text[start:end] == mention.text
    for op in result.ops:
        start, end = op.span
        assert 0 <= start < end <= len(text)
        assert op.evidence == text[start:end]
        assert op.value not in ("", None)
        assert op.valid_from is None or op.valid_from.utcoffset() is not None
    assert [mention.span for mention in result.mentions] == sorted(
        mention.span for mention in result.mentions
    )


@FAST
@given(TEXTS, INSTANTS)
def test_building_blocks_never_raise(text, at):
    for mention in resolve_times(text, at, at.tzinfo) + find_identifiers(text):
        assert text[mention.span[0] : mention.span[1]] == mention.text


def test_public_names_are_sorted_and_importable():
    assert memlane.extract.__all__ == sorted(memlane.extract.__all__)
    for name in memlane.extract.__all__:
        assert getattr(memlane.extract, name) is not None
    expected = {
        "AttributeSpec", "ExtractConfig", "Extraction", "Extractor", "FactOp", "Mention",
        "RuleExtractor", "find_identifiers", "resolve_times",
    }  # fmt: skip
    assert expected <= set(memlane.extract.__all__)
