"""Query analysis, Chinese and English, and the attribute registry users extend."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from memlane.errors import InvalidInput
from memlane.router import SynonymRegistry, analyze
from memlane.router.synonyms import DEFAULT_SYNONYMS, compile_phrase

CST = timezone(timedelta(hours=8))
AT = datetime(2026, 7, 4, 10, tzinfo=CST)  # a Saturday


def read(query: str, registry: SynonymRegistry | None = None):
    return analyze(query, synonyms=registry or SynonymRegistry(), at=AT, timezone=CST)


@pytest.mark.parametrize(
    ("query", "attributes"),
    [
        ("用户住在哪里", ("location",)),
        ("她的居住地是哪个城市", ("location",)),
        ("他现在住哪", ("location",)),
        ("Where does the user live?", ("location",)),
        ("which city is she in", ("location",)),
        ("手机号是多少", ("phone",)),
        ("what's his phone number", ("phone",)),
        ("邮箱和电话", ("email", "phone")),
        ("what is the order number", ("order",)),
        ("用户的名字", ("name",)),
        ("who is her employer", ("employer",)),
        ("她在哪里工作", ("work_location", "employer")),
        ("做什么工作的", ("occupation",)),
        ("when is her birthday", ("birthday",)),
        ("Where did the user work?", ("work_location", "employer")),
        ("Where did the user work before the job change?", ("work_location", "employer")),
        ("Where did I live before the job change?", ("location",)),
        ("What was my job before the move?", ("occupation",)),
        ("customer's city of residence?", ("location",)),
        ("how was the weather", ()),
    ],
)
def test_attribute_intents_in_both_languages(query, attributes):
    assert read(query).attributes == attributes


def test_longest_phrase_wins_and_plurals_match():
    intents = read("list the order numbers and phones").intents
    assert [(i.attribute, i.phrase) for i in intents] == [
        ("order", "order number"),
        ("phone", "phone"),
    ]
    assert read("the reorder button").attributes == ()  # whole words only


def test_users_extend_and_shrink_the_registry():
    registry = SynonymRegistry()
    registry.add("tier", "会员等级", "membership level", "what level is *")
    registry.add("location", "常驻", "where is * based")
    assert read("用户的会员等级", registry).attributes == ("tier",)
    assert read("What level is this customer on?", registry).attributes == ("tier",)
    assert read("where is the team based", registry).attributes == ("location",)
    assert read("他常驻哪里", registry).attributes == ("location",)
    assert registry.remove("tier", "会员等级") == 1
    assert read("用户的会员等级", registry).attributes == ()
    assert registry.remove("tier") == 2 and "tier" not in registry.attributes()
    registry.add("location", "常驻")  # a repeat is ignored
    assert registry.phrases("location").count("常驻") == 1


def test_registries_are_per_memory(mem, clock):
    mem.router.synonyms.add("tier", "会员等级")
    mem.facts.set("U-1", "tier", "gold")
    assert mem.recall("U-1", "用户的会员等级").items[0].fact.value == "gold"
    assert "会员等级" not in DEFAULT_SYNONYMS.get("tier", ())
    assert SynonymRegistry().phrases("tier") == ()


def test_a_new_registry_does_not_build_the_default_patterns_again():
    SynonymRegistry().match("what is the user's phone number?")
    built = compile_phrase.cache_info().misses
    fresh = SynonymRegistry()  # as each new memory's first recall has it
    assert [i.attribute for i in fresh.match("what is the user's phone number?")] == ["phone"]
    assert compile_phrase.cache_info().misses == built


def test_an_attribute_named_in_the_query_is_asked_even_unregistered(mem):
    mem.facts.set("U-1", "favourite_team", "Chelsea")
    r = mem.recall("U-1", "what is the favourite team")
    assert r.items[0].fact.value == "Chelsea" and not r.step("summary").asked


@pytest.mark.parametrize("phrase", ["", "   ", "*", " * ", "x" * 101, "bad\x00phrase", 3])
def test_bad_phrases_are_refused(phrase):
    with pytest.raises(InvalidInput):
        SynonymRegistry({}).add("location", phrase)


def test_bad_attribute_names_are_refused():
    with pytest.raises(InvalidInput):
        SynonymRegistry({}).add(" location", "住哪")


def test_identifiers_are_found_and_label_intents_are_not_questions():
    analysis = read("手机号 +86 138-0000-1234 的邮箱是什么")
    assert [(ref.attribute, ref.values) for ref in analysis.identifiers] == [
        ("phone", ("+86 138-0000-1234",))  # as written: the exact lane matches it by key
    ]
    assert analysis.attributes == ("email",)
    orders = read("订单 ORD-12345 的收货地址")
    assert [ref.attribute for ref in orders.identifiers] == ["order"]
    assert orders.attributes == ("location",)  # "ORD-" is not read as the word "order"


def test_times_in_the_query_resolve_against_the_read_instant():
    (week,) = read("用户上周住在哪里").times
    assert week.text == "上周"
    assert (week.start, week.end) == (
        datetime(2026, 6, 22, tzinfo=CST).astimezone(UTC),
        datetime(2026, 6, 29, tzinfo=CST).astimezone(UTC),
    )
    (may,) = read("where did she live last May").times
    assert may.start == datetime(2026, 5, 1, tzinfo=CST).astimezone(UTC)  # the latest May
    assert read("用户 138-0000-1234 的订单").times == ()  # digits of an identifier


@pytest.mark.parametrize(
    ("query", "workflow", "context", "history"),
    [
        ("退款一般怎么做", True, True, False),
        ("how do I reset a password", True, False, False),
        ("steps to cancel an order", True, False, False),
        ("what does the user like", False, True, False),
        ("上次聊了什么", False, True, False),
        ("用户以前住在哪里", False, False, True),
        ("where did she live before", False, False, True),
        ("which firm did he quit?", False, False, True),
        ("what employer did the user leave", False, False, True),
        ("客户是从哪座城市搬走的", False, False, True),
        ("他从哪家公司离职的", False, False, True),
        ("where did she use to work?", False, False, True),
        ("which town did they move away from", False, False, True),
        ("他换工作前在哪上班", False, False, True),
        ("用户住在哪里", False, False, False),
        ("这是怎么回事", False, False, False),
    ],
)
def test_kinds_of_question(query, workflow, context, history):
    analysis = read(query)
    assert (analysis.workflow, analysis.context, analysis.history) == (workflow, context, history)


@pytest.mark.parametrize(
    ("query", "own"),
    [
        ("Which city is the festival in?", False),
        ("what company ran the workshop?", False),
        ("Which city is the customer in?", True),
        ("where did I live before the move?", True),
        ("the user's city?", True),
        ("city?", False),  # names no one: the summary lane answers (memlane.lang.holders)
        ("Which email should the invoice go to?", True),  # a code: qualifiers decide
    ],
)
def test_an_attribute_word_about_another_thing_is_not_the_subjects_value(query, own):
    """ "Which city is *the festival* in?" names a thing and no one of the subject."""
    assert read(query).own_value is own


@pytest.mark.parametrize(
    ("query", "own"),
    [
        ("我去年夏天去的是哪个城市？", False),  # a trip's city, not where one lives
        ("我去过哪个城市？", False),
        ("我最喜欢的是哪个城市？", False),
        ("我上个月面试的是哪家公司？", False),  # an interview is no employer
        ("我住的是哪个城市？", True),  # 住 is the attribute's own verb (住在哪)
        ("我搬去的是哪个城市？", True),  # so is 搬 (搬到哪)
        ("我工作的是哪家公司？", True),
        ("我现在在哪个城市？", True),
    ],
)
def test_a_chinese_generic_noun_done_to_by_another_verb_is_not_the_subjects_value(query, own):
    """ "我去年夏天*去*的是哪个城市？" asks of a trip: the location fact is no answer to it."""
    assert read(query).own_value is own


@pytest.mark.parametrize(
    ("question", "attributes"),
    [
        ("Which company made the phone I just bought?", ()),
        ("What city hosted the final?", ()),
        ("Which company hired me?", ("employer",)),
        ("Which company employs her?", ("employer",)),
        ("Which company do I work for?", ("employer",)),
        ("What number should I call?", ("phone",)),
    ],
)
def test_a_generic_noun_that_does_something_else_is_no_attribute(question, attributes):
    analysis = analyze(question, synonyms=SynonymRegistry(), at=AT, timezone=UTC)
    assert analysis.attributes == attributes
