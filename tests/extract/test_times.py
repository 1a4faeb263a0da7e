"""Time expressions, pinned to Saturday 2026-07-04 10:00 in Shanghai."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from memlane.errors import InvalidInput
from memlane.extract import resolve_times, time_interval

SHANGHAI = ZoneInfo("Asia/Shanghai")
AT = datetime(2026, 7, 4, 10, 0, tzinfo=SHANGHAI)  # a Saturday


def week(start: str, stop: str) -> dict[str, str]:
    return {"from": start, "to": stop}


def only(text: str, at: datetime = AT, zone=SHANGHAI):
    mentions = resolve_times(text, at, zone)
    assert len(mentions) == 1, mentions
    mention = mentions[0]
    assert mention.kind == "time"
    assert text[mention.span[0] : mention.span[1]] == mention.text
    return mention


@pytest.mark.parametrize(
    ("text", "written", "value"),
    [
        ("2026-07-01", "2026-07-01", "2026-07-01"),
        ("2026/7/1", "2026/7/1", "2026-07-01"),
        ("日期是2026.7.1吗", "2026.7.1", "2026-07-01"),
        ("7月1日", "7月1日", "2026-07-01"),
        ("他7月5号来过", "7月5号", "2025-07-05"),
        ("2026年7月1日", "2026年7月1日", "2026-07-01"),
        ("十二月三十一日", "十二月三十一日", "2025-12-31"),
        ("2026年7月", "2026年7月", week("2026-07-01", "2026-08-01")),
        ("去年7月", "去年7月", week("2025-07-01", "2025-08-01")),
        ("昨天", "昨天", "2026-07-03"),
        ("前天", "前天", "2026-07-02"),
        ("大前天", "大前天", "2026-07-01"),
        ("今天", "今天", "2026-07-04"),
        ("明天", "明天", "2026-07-05"),
        ("后天", "后天", "2026-07-06"),
        ("上周一", "上周一", "2026-06-22"),
        ("上周", "上周", week("2026-06-22", "2026-06-29")),
        ("上上周", "上上周", week("2026-06-15", "2026-06-22")),
        ("本周", "本周", week("2026-06-29", "2026-07-06")),
        ("下周三", "下周三", "2026-07-08"),
        ("下个星期天", "下个星期天", "2026-07-12"),
        ("这周五", "这周五", "2026-07-03"),
        ("上周末", "上周末", week("2026-06-27", "2026-06-29")),
        ("上个月", "上个月", week("2026-06-01", "2026-07-01")),
        ("下个月", "下个月", week("2026-08-01", "2026-09-01")),
        ("上个月5号", "上个月5号", "2026-06-05"),
        ("去年", "去年", week("2025-01-01", "2026-01-01")),
        ("明年", "明年", week("2027-01-01", "2028-01-01")),
        ("2025年", "2025年", week("2025-01-01", "2026-01-01")),
        ("3天前", "3天前", "2026-07-01"),
        ("两周前", "两周前", "2026-06-20"),
        ("二十天前", "二十天前", "2026-06-14"),
        ("三个月前", "三个月前", "2026-04-04"),
        ("半年前", "半年前", "2026-01-04"),
        ("十天后", "十天后", "2026-07-14"),
        ("三个小时前", "三个小时前", "2026-07-04T07:00+08:00"),
        ("周五", "周五", "2026-07-03"),
        ("星期天", "星期天", "2026-06-28"),
        ("我5号搬的家", "5号", "2026-06-05"),
        ("下午3点", "下午3点", "2026-07-04T15:00+08:00"),
        ("晚上8点半", "晚上8点半", "2026-07-04T20:30+08:00"),
        ("上午十点一刻", "上午十点一刻", "2026-07-04T10:15+08:00"),
        ("中午12点", "中午12点", "2026-07-04T12:00+08:00"),
        ("凌晨2点", "凌晨2点", "2026-07-04T02:00+08:00"),
        ("十点半", "十点半", "2026-07-04T10:30+08:00"),
        ("昨天下午3点半", "昨天下午3点半", "2026-07-03T15:30+08:00"),
        ("昨晚8点", "昨晚8点", "2026-07-03T20:00+08:00"),
        ("上周三下午3点", "上周三下午3点", "2026-06-24T15:00+08:00"),
        ("２０２６－０７－０１", "２０２６－０７－０１", "2026-07-01"),
    ],
)
def test_chinese_expressions(text, written, value):
    mention = only(text)
    assert (mention.text, mention.value) == (written, value)


@pytest.mark.parametrize(
    ("text", "written", "value"),
    [
        ("yesterday", "yesterday", "2026-07-03"),
        ("Today", "Today", "2026-07-04"),
        ("tomorrow", "tomorrow", "2026-07-05"),
        ("the day before yesterday", "the day before yesterday", "2026-07-02"),
        ("the day after tomorrow", "the day after tomorrow", "2026-07-06"),
        ("last night", "last night", "2026-07-03"),
        ("last May", "last May", week("2026-05-01", "2026-06-01")),
        ("last September", "last September", week("2025-09-01", "2025-10-01")),
        ("this September", "this September", week("2026-09-01", "2026-10-01")),
        ("next September", "next September", week("2026-09-01", "2026-10-01")),
        ("next May", "next May", week("2027-05-01", "2027-06-01")),
        ("last Monday", "last Monday", "2026-06-22"),
        ("next Friday", "next Friday", "2026-07-10"),
        ("this Friday", "this Friday", "2026-07-03"),
        ("this coming Monday", "coming Monday", "2026-07-06"),
        ("last week", "last week", week("2026-06-22", "2026-06-29")),
        ("next week", "next week", week("2026-07-06", "2026-07-13")),
        ("last weekend", "last weekend", week("2026-06-27", "2026-06-29")),
        ("last month", "last month", week("2026-06-01", "2026-07-01")),
        ("last year", "last year", week("2025-01-01", "2026-01-01")),
        ("3 days ago", "3 days ago", "2026-07-01"),
        ("two weeks ago", "two weeks ago", "2026-06-20"),
        ("a month ago", "a month ago", "2026-06-04"),
        ("a couple of weeks ago", "a couple of weeks ago", "2026-06-20"),
        ("in 3 days", "in 3 days", "2026-07-07"),
        ("2 hours ago", "2 hours ago", "2026-07-04T08:00+08:00"),
        ("on July 1", "July 1", "2026-07-01"),
        ("1 July 2026", "1 July 2026", "2026-07-01"),
        ("July 1st, 2026", "July 1st, 2026", "2026-07-01"),
        ("8 May, 2023", "8 May, 2023", "2023-05-08"),
        ("the 3rd of March", "3rd of March", "2026-03-03"),
        ("Sept 9", "Sept 9", "2025-09-09"),
        ("May 2023", "May 2023", week("2023-05-01", "2023-06-01")),
        ("in March", "March", week("2026-03-01", "2026-04-01")),
        ("since December", "December", week("2025-12-01", "2026-01-01")),
        ("since 2020", "2020", week("2020-01-01", "2021-01-01")),
        ("on Friday", "Friday", "2026-07-03"),
        ("3pm", "3pm", "2026-07-04T15:00+08:00"),
        ("at 3:30 p.m.", "3:30 p.m.", "2026-07-04T15:30+08:00"),
        ("12am", "12am", "2026-07-04T00:00+08:00"),
        ("15:30", "15:30", "2026-07-04T15:30+08:00"),
        ("yesterday at 3pm", "yesterday at 3pm", "2026-07-03T15:00+08:00"),
        ("3pm yesterday", "3pm yesterday", "2026-07-03T15:00+08:00"),
        ("2026-07-01T15:30", "2026-07-01T15:30", "2026-07-01T15:30+08:00"),
        ("2026-07-01 09:05", "2026-07-01 09:05", "2026-07-01T09:05+08:00"),
    ],
)
def test_english_expressions(text, written, value):
    mention = only(text)
    assert (mention.text, mention.value) == (written, value)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # Without a future cue, a date without a year is the most recent one...
        ("It happened on July 10", "2025-07-10"),
        ("我们7月10日见过", "2025-07-10"),
        ("I saw him on Friday", "2026-07-03"),
        # ... with one, the next one (today included).
        ("The meeting will be on July 10", "2026-07-10"),
        ("我们打算7月10日见面", "2026-07-10"),
        ("I'll see you on Friday", "2026-07-10"),
        ("I will call you Saturday", "2026-07-04"),
        ("下次7月1日见", "2027-07-01"),
        ("我们周五要开会", "2026-07-10"),
    ],
)
def test_year_less_dates_take_the_nearest_in_the_sentences_direction(text, value):
    assert only(text).value == value


def test_spans_point_at_each_expression_in_a_sentence():
    text = "我上周一去了上海，3天前回来，下午3点到家。"
    mentions = resolve_times(text, AT, SHANGHAI)
    assert [mention.text for mention in mentions] == ["上周一", "3天前", "下午3点"]
    assert [text[start:end] for start, end in (m.span for m in mentions)] == [
        "上周一",
        "3天前",
        "下午3点",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "三点建议",
        "我有一点累",
        "坐3号线",
        "看一下周报",
        "一周一次",
        "每周一开会",
        "马上就到",
        "晚上好",
        "I have 3 apples",
        "version 1.2.3",
        "Mondays are hard",
        "every Monday",
        "the score was 25:61",
        "2月30日",
        "13月",
        "I may 2 go",
        "",
        "   ",
    ],
)
def test_no_false_times(text):
    assert resolve_times(text, AT, SHANGHAI) == []


def test_today_is_the_local_date_of_at_in_the_given_zone():
    at = datetime(2026, 7, 3, 20, 0, tzinfo=UTC)  # already 4 July in Shanghai
    assert only("today", at, SHANGHAI).value == "2026-07-04"
    assert only("today", at, UTC).value == "2026-07-03"
    assert only("today", at, timezone(timedelta(hours=-5))).value == "2026-07-03"


def test_a_leap_day_without_a_year_goes_back_to_the_last_leap_year():
    assert only("2月29日").value == "2024-02-29"


def test_time_interval_turns_values_into_utc_instants_across_a_dst_change():
    new_york = ZoneInfo("America/New_York")
    at = datetime(2026, 3, 10, 12, tzinfo=new_york)  # a Tuesday, two days after DST began
    mention = only("last week", at, new_york)
    assert mention.value == week("2026-03-02", "2026-03-09")
    start, stop = time_interval(mention.value, new_york)
    assert start == datetime(2026, 3, 2, 5, tzinfo=UTC)  # EST, UTC-5
    assert stop == datetime(2026, 3, 9, 4, tzinfo=UTC)  # EDT, UTC-4
    day = time_interval("2026-07-04", SHANGHAI)
    assert day == (datetime(2026, 7, 3, 16, tzinfo=UTC), datetime(2026, 7, 4, 16, tzinfo=UTC))
    moment = time_interval("2026-07-04T15:00+08:00", SHANGHAI)
    assert moment == (datetime(2026, 7, 4, 7, tzinfo=UTC), datetime(2026, 7, 4, 7, 1, tzinfo=UTC))


@pytest.mark.parametrize("value", ["yesterday", {"from": "2026-01-01"}, 7, None])
def test_time_interval_refuses_what_resolve_times_never_returns(value):
    with pytest.raises(InvalidInput):
        time_interval(value, SHANGHAI)


def test_a_naive_reference_time_is_refused():
    with pytest.raises(InvalidInput, match="at"):
        resolve_times("昨天", datetime(2026, 7, 4, 10), SHANGHAI)
    with pytest.raises(InvalidInput, match="timezone"):
        resolve_times("昨天", AT, "Asia/Shanghai")  # type: ignore[arg-type]
