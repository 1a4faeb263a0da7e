"""RuleExtractor: statements become fact ops; identifiers are never lost; no false facts."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from memlane.errors import InvalidInput
from memlane.extract import (
    AttributeSpec,
    ExtractConfig,
    Extraction,
    Extractor,
    FactOp,
    RuleExtractor,
)

SHANGHAI = ZoneInfo("Asia/Shanghai")
AT = datetime(2026, 7, 4, 10, 0, tzinfo=SHANGHAI)  # a Saturday
EXTRACTOR: Extractor = RuleExtractor()


def extract(text: str, extractor: Extractor = EXTRACTOR) -> Extraction:
    result = extractor.extract(text, at=AT, timezone=SHANGHAI)
    for op in result.ops:
        assert op.evidence == text[op.span[0] : op.span[1]]
    return result


def facts(text: str) -> list[tuple[str, str, object]]:
    return [(op.kind, op.attribute, op.value) for op in extract(text).ops]


@pytest.mark.parametrize(
    ("text", "attribute", "value"),
    [
        ("我搬到北京了", "location", "北京"),
        ("我住在上海", "location", "上海"),
        ("我现在住北京", "location", "北京"),
        ("我们搬到 New York 了", "location", "New York"),
        ("我住在上海浦东新区", "location", "上海浦东新区"),
        ("我住在多伦多", "location", "多伦多"),
        ("我搬到成都两年了", "location", "成都"),
        ("其实我已经搬回广州了", "location", "广州"),
        ("I moved to Berlin.", "location", "Berlin"),
        ("I live in Paris", "location", "Paris"),
        ("I'm based in London", "location", "London"),
        ("We relocated to the Netherlands", "location", "Netherlands"),
        ("i live in new york now", "location", "new york"),
        ("My wife and I moved to San Francisco", "location", "San Francisco"),
        ("I quit my job and moved to Lisbon", "location", "Lisbon"),
        ("我现在在杭州工作", "work_location", "杭州"),
        ("I work in Berlin", "work_location", "Berlin"),
        ("我在阿里巴巴工作", "employer", "阿里巴巴"),
        ("我在Google上班", "employer", "Google"),
        ("I work at Google", "employer", "Google"),
        ("I'm working for Acme Corp as a tester", "employer", "Acme Corp"),
        ("我老家是湖南的", "hometown", "湖南"),
        ("我是北京人", "hometown", "北京"),
        ("I'm from Canada", "hometown", "Canada"),
        ("I grew up in Springfield", "hometown", "Springfield"),
        ("我是一名老师", "occupation", "老师"),
        ("I work as a nurse", "occupation", "nurse"),
        ("我叫李雷", "name", "李雷"),
        ("我的名字是韩梅梅。", "name", "韩梅梅"),
        ("my name is Sam Lee", "name", "Sam Lee"),
        ("叫我小王", "preferred_name", "小王"),
        ("你可以叫我小李就行", "preferred_name", "小李"),
        ("call me Sam", "preferred_name", "Sam"),
        ("Can you call me Sam?", "preferred_name", "Sam"),
        ("I go by Alex", "preferred_name", "Alex"),
        ("我的生日是7月1日", "birthday", "--07-01"),
        ("我是1990年5月3日出生的", "birthday", "1990-05-03"),
        ("I was born on 8 May, 1990", "birthday", "1990-05-08"),
        ("今天是我生日", "birthday", "--07-04"),
    ],
)
def test_statements_about_the_speaker(text, attribute, value):
    assert facts(text) == [("set", attribute, value)]
    (op,) = extract(text).ops
    assert op.confidence == 1.0


@pytest.mark.parametrize(
    "text",
    [
        # negations
        "我没有搬到北京",
        "我不住在上海了",
        "I don't live in Paris",
        "I never moved to Berlin",
        "别叫我小王",
        "don't call me Sam",
        # questions
        "did you move to Berlin?",
        "where do I live?",
        "我住在哪?",
        "你搬到北京了吗",
        "我叫什么名字？",
        # hypotheticals, wishes, plans, the past
        "如果我搬到北京",
        "要是我住在上海就好了",
        "if I move to Berlin",
        "我想搬到北京",
        "我打算下个月搬到北京",
        "I'd love to live in Paris",
        "I'll move to Berlin",
        "I used to live in Paris",
        "I hope to move and live in Paris",
        "I used to work there and live in Rome",
        "我以前住在上海",
        "我去年住在上海",
        # other people
        "我妈妈住在上海",
        "他搬到北京了",
        "我朋友说我住在上海",
        "my brother lives in Paris",
        "我妈的生日是5月1日",
        # not facts at all
        "我叫了外卖",
        "叫我去吃饭",
        "call me back",
        "I live in a small town",
        "I work in marketing",
        "I'm from Google",
        "我住院了",
        "我记住了",
        "我在家工作",
        "我是好人",
        "",
        "。。。",
    ],
)
def test_no_fact_from_negations_questions_hypotheticals_or_others(text):
    assert extract(text).ops == ()


@pytest.mark.parametrize(
    ("text", "valid_from"),
    [
        ("我上周搬到北京了", datetime(2026, 6, 21, 16, tzinfo=UTC)),
        ("上周，我搬到北京了", datetime(2026, 6, 21, 16, tzinfo=UTC)),
        ("我以前住在上海，上周搬到北京了", datetime(2026, 6, 21, 16, tzinfo=UTC)),
        ("我3天前搬到北京了", datetime(2026, 6, 30, 16, tzinfo=UTC)),
        ("I moved to Berlin last week.", datetime(2026, 6, 21, 16, tzinfo=UTC)),
        ("I moved to Berlin on July 1", datetime(2026, 6, 30, 16, tzinfo=UTC)),
        ("我从去年开始住在上海", datetime(2024, 12, 31, 16, tzinfo=UTC)),
        ("I've been living in Paris since 2020", datetime(2019, 12, 31, 16, tzinfo=UTC)),
        ("我昨天下午3点搬到北京的", datetime(2026, 7, 3, 7, tzinfo=UTC)),
        ("我搬到北京了", None),
    ],
)
def test_a_time_in_the_statement_sets_valid_from_as_aware_utc(text, valid_from):
    (op,) = extract(text).ops
    assert op.valid_from == valid_from
    if valid_from is not None:
        assert op.valid_from.utcoffset().total_seconds() == 0
    assert op.confidence == 1.0


def test_two_statements_sharing_one_subject():
    assert facts("I work at Google and live in Zurich") == [
        ("set", "employer", "Google"),
        ("set", "location", "Zurich"),
    ]
    assert facts("我叫李雷，今年25岁，住在上海") == [
        ("set", "name", "李雷"),
        ("set", "location", "上海"),
    ]


def test_a_start_in_the_future_is_kept_with_lower_confidence():
    (op,) = extract("我下个月搬到北京").ops
    assert (op.attribute, op.value) == ("location", "北京")
    assert op.valid_from == datetime(2026, 7, 31, 16, tzinfo=UTC)
    assert op.confidence < 1.0


def test_valid_from_is_resolved_in_the_given_time_zone():
    new_york = ZoneInfo("America/New_York")
    at = datetime(2026, 7, 4, 10, tzinfo=new_york)
    (op,) = RuleExtractor().extract("I moved to Boston yesterday", at=at, timezone=new_york).ops
    assert op.valid_from == datetime(2026, 7, 3, 4, tzinfo=UTC)


def test_statements_and_identifiers_of_one_turn():
    text = "我上周搬到北京了，新手机号 139-1111-2222"
    result = extract(text)
    assert [(op.kind, op.attribute, op.value, op.confidence) for op in result.ops] == [
        ("set", "location", "北京", 1.0),
        ("add", "phone", "139-1111-2222", 1.0),
    ]
    assert [(mention.kind, mention.text) for mention in result.mentions] == [
        ("time", "上周"),
        ("phone", "139-1111-2222"),
    ]
    assert result.notes == ()


@pytest.mark.parametrize(
    ("text", "kind", "attribute", "value", "confidence"),
    [
        ("我的手机号是138-0000-1234", "add", "phone", "138-0000-1234", 1.0),
        ("my number is +1 (415) 555-0100", "add", "phone", "+1 (415) 555-0100", 1.0),
        ("13800001234是我的电话", "add", "phone", "13800001234", 1.0),
        ("我的邮箱是Alice@Example.com", "add", "email", "Alice@Example.com", 1.0),
        ("my email is bob@x.io", "add", "email", "bob@x.io", 1.0),
        ("订单号 ORD-123", "add", "order", "ORD-123", 1.0),
        ("我的用户ID是U-001", "add", "user_id", "U-001", 1.0),
        ("我的手机号是１３８００００１２３４", "add", "phone", "１３８００００１２３４", 1.0),
        # found with no statement: kept, with less confidence
        ("13800001234", "add", "phone", "13800001234", 0.8),
        ("ok bob@x.io", "add", "email", "bob@x.io", 0.8),
        ("我的订单ORD-1234到哪了？", "add", "order", "ORD-1234", 0.8),
        ("did you get my email bob@x.io?", "add", "email", "bob@x.io", 0.8),
        ("如果打不通就打13800001234", "add", "phone", "13800001234", 0.8),
        # out of use
        ("我的旧号码13800001234已经停用了", "retract", "phone", "13800001234", 0.9),
        ("I no longer use old@x.io", "retract", "email", "old@x.io", 0.9),
    ],
)
def test_every_identifier_becomes_an_op(text, kind, attribute, value, confidence):
    (op,) = extract(text).ops
    assert (op.kind, op.attribute, op.value, op.confidence) == (kind, attribute, value, confidence)
    assert op.span == (text.index(value), text.index(value) + len(value))


@pytest.mark.parametrize(
    "text", ["这不是我的号码 13800001234", "13800001234 is not my number", "2026-07-01 15:30"]
)
def test_denied_identifiers_and_dates_give_no_op(text):
    assert extract(text).ops == ()


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("我妈的电话是13800001234", "13800001234"),
        ("her email is amy@x.io", "amy@x.io"),
        ("Save my dentist's number for me: +1-212-555-0159", "+1-212-555-0159"),
        ("帮我记一下牙科诊所的电话：025 8301 1736", "025 8301 1736"),
    ],
)
def test_someone_elses_identifier_is_a_mention_not_the_subjects_fact(text, value):
    extraction = extract(text)
    assert extraction.ops == ()
    assert [mention.text for mention in extraction.mentions if mention.kind != "time"] == [value]


def test_old_and_new_numbers_in_one_sentence():
    ops = extract("我的旧号码是13800001234，新号码是13911112222").ops
    assert [(op.kind, op.value) for op in ops] == [
        ("retract", "13800001234"),
        ("add", "13911112222"),
    ]


def test_a_repeated_identifier_gives_one_op():
    ops = extract("电话 138-0000-1234，再说一遍：13800001234").ops
    assert len(ops) == 1
    assert ops[0].confidence == 1.0


def test_the_confidence_of_a_bare_identifier_is_configurable():
    extractor = RuleExtractor(ExtractConfig(identifier_confidence=0.6))
    (op,) = extractor.extract("13800001234", at=AT, timezone=SHANGHAI).ops
    assert op.confidence == 0.6


def test_configured_order_patterns_feed_order_ops():
    extractor = RuleExtractor(ExtractConfig(order_patterns=(r"SO\d{8}",)))
    ops = extractor.extract("我的订单 SO12345678 和 ORD-1", at=AT, timezone=SHANGHAI).ops
    assert [(op.attribute, op.value) for op in ops] == [("order", "SO12345678")]


def test_mentions_list_times_and_identifiers_in_order_without_overlap():
    text = "订单 ORD-20260701 于2026-07-01下单，付了¥12.5，详见 https://x.io/o/1"
    result = extract(text)
    assert [(mention.kind, mention.text) for mention in result.mentions] == [
        ("order_id", "ORD-20260701"),
        ("time", "2026-07-01"),
        ("amount", "¥12.5"),
        ("url", "https://x.io/o/1"),
    ]


def test_attributes_describe_every_attribute_emitted():
    specs = {spec.name: spec for spec in RuleExtractor().attributes()}
    assert all(isinstance(spec, AttributeSpec) for spec in specs.values())
    for name in ("phone", "email", "order", "user_id"):
        assert (specs[name].cardinality, specs[name].identifier) == ("many", True)
    for name in ("location", "work_location", "employer", "name", "preferred_name", "birthday"):
        assert (specs[name].cardinality, specs[name].identifier) == ("one", False)


def test_ops_only_use_declared_attributes_and_matching_kinds():
    specs = {spec.name: spec for spec in RuleExtractor().attributes()}
    text = "我叫李雷，住在上海，在腾讯上班，电话 13800001234，邮箱 l@x.cn，订单号 ORD-7，用户ID 42"
    ops = extract(text).ops
    assert {op.attribute for op in ops} == {
        "name",
        "location",
        "employer",
        "phone",
        "email",
        "order",
        "user_id",
    }
    for op in ops:
        assert isinstance(op, FactOp)
        assert op.kind == ("add" if specs[op.attribute].cardinality == "many" else "set")


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({"text": "hi", "at": datetime(2026, 7, 4), "timezone": SHANGHAI}, "at"),
        ({"text": "hi", "at": AT, "timezone": "Asia/Shanghai"}, "timezone"),
        ({"text": b"hi", "at": AT, "timezone": SHANGHAI}, "text"),
    ],
)
def test_bad_arguments_are_refused(arguments, field):
    text = arguments.pop("text")
    with pytest.raises(InvalidInput, match=field):
        RuleExtractor().extract(text, **arguments)


def test_a_bad_configuration_is_refused_at_construction():
    with pytest.raises(InvalidInput, match="order_patterns"):
        RuleExtractor(ExtractConfig(order_patterns=("(",)))
