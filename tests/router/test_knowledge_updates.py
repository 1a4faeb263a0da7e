"""Knowledge updates: the later statement on a slot wins, and only on that slot."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

import memlane
from memlane.lang.kinds import asked_kind, held_kinds
from memlane.router.candidates import TIER_NOTE, Candidate
from memlane.router.claims import claims, named
from memlane.router.fit import fitted, misspells
from memlane.router.model import RecallItem
from memlane.router.slots import clauses, restates

START = datetime(2026, 3, 1, tzinfo=UTC)


def test_a_speaker_telling_of_something_else_is_not_its_holder() -> None:
    said = claims("U-7说：（5）松林茶馆的店长是方小禾。", "U-7")
    assert [(c.holder, c.relation) for c in said] == [("松林茶馆", "my:店长")]
    assert [c.holder for c in claims("U-7的名字是方小禾", "U-7")] == [""]


def _told(sessions: list[list[tuple[str, int]]], question: str) -> memlane.Recall:
    """Replay sessions of user turns (text, hours after START), then ask ``question``."""
    with memlane.Memory(
        ":memory:", embedder="hash", clock=lambda: START + timedelta(days=90)
    ) as mem:
        for number, turns in enumerate(sessions):
            session = mem.session("u-7", f"s-{number}")
            for text, hours in turns:
                session.add("user", text, at=START + timedelta(hours=hours))
            session.close()
        assert mem.index.wait(timeout=30)
        return mem.recall("u-7", question)


def test_a_relayed_fact_about_one_place_leaves_another_places_fact_current() -> None:
    recall = _told(
        [[("松林茶馆的店长是方小禾。", 0), ("石桥书店的店长是邓一鸣。", 1)]], "松林茶馆的店长是谁？"
    )
    tea = next(item for item in recall.items if item.kind == "note" and "方小禾" in item.text)
    assert tea.status == "current", tea.superseded_by


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (
            "The fare on the Kelby Tram is 2.40 pounds.",
            "The fare on the Mossdale Tram is 3.40 pounds.",
        ),
        (
            "The patron of the Glass Gazette is Ida Crane.",
            "The patron of the Glass Herald is Tom Pike.",
        ),
        ("去梅石村的头班公交早上6点出发。", "去竹溪村的头班公交早上7点出发。"),
    ],
)
def test_statements_differing_in_two_places_are_not_one_slot(old: str, new: str) -> None:
    (first,), (second,) = clauses(old), clauses(new)
    assert restates(first, second) is None


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Kelby Mills employs 3,000 people.", "Kelby Mills employs 4,000 people."),
        ('The motto of Pell Hall is "Slow and steady".', 'The motto of Pell Hall is "Up and on".'),
    ],
)
def test_values_sharing_only_a_digit_run_or_an_article_still_restate(old: str, new: str) -> None:
    (first,), (second,) = clauses(old), clauses(new)
    assert restates(first, second) is not None


def _top(statements: list[str], question: str) -> str:
    with memlane.Memory(
        ":memory:", embedder="hash", clock=lambda: START + timedelta(days=30)
    ) as mem:
        for day, text in enumerate(statements):
            mem.remember("kb", text, at=START + timedelta(days=day))
        assert mem.index.wait(timeout=30)
        return mem.recall("kb", question).items[0].text


FILLER = [
    "The ferry to Olm Island leaves at 7:40.",
    "The orchard on Hill Lane sells 40 kinds of apple.",
    "Ruth Vane rides to work on a red bicycle.",
]


@pytest.mark.parametrize(
    ("statements", "question", "answer"),
    [
        # a question word asks for a kind of value: "how many" a number, "who" a person
        (["The mayor of Marlow is Jo Penn.", "The population of Marlow is 12,400."],
         "How many people live in Marlow?", "12,400"),
        (["The managing director of Bellweather Mills is Ruth Vane.",
          "Bellweather Mills has its head office in Dunmore."],
         "Who runs Bellweather Mills?", "Ruth Vane"),
        (["The first tram from Kelby Square leaves at 5:50.",
          "The tram depot of Kelby Square is Rook Yard."],
         "When does the earliest Kelby Square tram go?", "5:50"),
        (["梅石茶厂的厂长是韩知夏。", "梅石茶厂共有860名工人。"], "梅石茶厂有多少工人？", "860"),
        (["梅石茶厂共有860名工人。", "梅石茶厂的厂长是韩知夏。"], "谁管着梅石茶厂？", "韩知夏"),
        # the entity the question writes out outranks one spelt nearly the same
        (["The motto of Ashgrove School is Rise early.",
          "The motto of Ashfield School is Aim true."],
         "What motto does Ashfield School have?", "Aim true"),
        (["青柳书院的院训是“守正”。", "青桐书院的院训是“笃行”。"],
         "青柳书院把什么当院训？", "守正"),
    ],
)  # fmt: skip
def test_the_statement_that_fits_the_question_answers_it(
    statements: list[str], question: str, answer: str
) -> None:
    assert answer in _top(FILLER + statements, question)
    assert answer in _top(FILLER + statements[::-1], question)


@pytest.mark.parametrize(
    ("statements", "question", "answer"),
    [
        (["1. The managing director of Corwen Tools is Ada Penn.",
          "2. The flagship product of Corwen Tools is the Lark drill.",
          "3. The flagship product of Corwen Tools is the Wren saw."],
         "Who runs Corwen Tools?", "Ada Penn"),
        (["1、朗澜机器人的首席执行官是陆念初。", "2、朗澜机器人的主打产品是“游隼”扫描仪。",
          "3、漪陂镇的镇长是裴云舒。", "4、朗澜机器人的主打产品是“青鸾”平板。",
          "5、朗澜机器人共有452名员工。"],
         "朗澜机器人现在由谁掌舵？", "陆念初"),
    ],
)  # fmt: skip
def test_who_is_not_answered_by_a_thing_that_replaced_another(
    statements: list[str], question: str, answer: str
) -> None:
    # The product, restated, ranks where its first statement ranked (a replacement ranks
    # where what it replaced ranked); "who" asks for a person, and a value written with an
    # article or in quotes is a thing, so the product falls behind the person.
    assert answer in _top(statements, question)


KNOWLEDGE_BASE = [
    "1. The captain of the Harbury Hawks is Ada Moss.",
    "2. The head coach of the Harbury Hawks is Tom Pike.",
    "3. The main sponsor of the Harbury Hawks is Kettle & Co.",
    "4. The home ground of the Harbury Hawks is Lowfield Park.",
    "5. The head coach of the Harbury Hawks is Ida Crane.",
    "6. The main sponsor of the Harbury Hawks is Fernhill Brewing.",
]
KNOWLEDGE_BASE_ZH = [
    "1、去梅石村的头班公交早上6点出发。",
    "2、《松风月刊》的主编是韩知夏。",
    "3、《松风月刊》的创始人是邓一鸣。",
    "4、《松风月刊》的主编是方小禾。",
    "5、青柳体育会的会长是陆念初。",
    "6、青柳体育会的年费是300元。",
    "7、青柳体育会的会长是裴云舒。",
]


@pytest.mark.parametrize(
    ("statements", "question", "answer"),
    [
        # the relation is asked in words no statement uses; the latest value of the slot
        # it means answers, not another relation of the same holder
        (KNOWLEDGE_BASE, "Who trains the Harbury Hawks squad?", "Ida Crane"),
        (KNOWLEDGE_BASE, "Who leads the Harbury Hawks on the field?", "Ada Moss"),
        (KNOWLEDGE_BASE, "Which company backs the Harbury Hawks?", "Fernhill Brewing"),
        (KNOWLEDGE_BASE, "Which stadium hosts the home matches of the Harbury Hawks?",
         "Lowfield Park"),
        (KNOWLEDGE_BASE_ZH, "谁负责编《松风月刊》？", "方小禾"),
        (KNOWLEDGE_BASE_ZH, "谁在主持青柳体育会的工作？", "裴云舒"),
        (KNOWLEDGE_BASE_ZH, "加入青柳体育会一年要交多少钱？", "300元"),
    ],
)  # fmt: skip
def test_a_relation_asked_in_other_words_is_answered_by_its_latest_value(
    statements: list[str], question: str, answer: str
) -> None:
    assert answer in _top(FILLER + statements, question)
    assert answer in _top(statements + FILLER, question)


def test_the_kinds_of_value_asked_and_held() -> None:
    assert asked_kind("Who looks after the lighthouse?") == "person"
    assert asked_kind("灯塔几点亮？") == "time"
    assert asked_kind("博物馆在哪里？") == "place"
    assert asked_kind("What colour is the door?") is None
    assert held_kinds("The museum opens at 9:30.") == {"time"}
    assert held_kinds("博物馆位于滨江路。") == {"place"}
    assert held_kinds("The museum has 40 rooms.") == {"number"}
    assert held_kinds("The museum has 40 rooms.", "Is it the one with 40 rooms?") == set()
    assert held_kinds("We met from last week on.") == set()  # no name after "from"
    assert held_kinds("The flagship product of Corwen Tools is the Lark drill.") == {"thing"}
    assert held_kinds('The motto of Ashgrove School is "Rise early".') == {"thing"}
    assert held_kinds("梅石茶厂的主打产品是“云雾”绿茶。") == {"thing"}
    assert held_kinds("The managing director of Corwen Tools is Ada Penn.") == set()
    assert held_kinds("I think the best one is the red one, honestly") == set()


def test_a_chinese_holder_is_named_by_most_of_it() -> None:
    # "澄江市最长的桥是…" is held by "澄江市最长": the question names it in another order
    assert named("澄江市最长", "澄江市哪座桥最长？")
    assert not named("澄江市最长", "澄海市哪座桥最长？")
    assert not named("alice", "where does bob live?")


def _note(text: str, score: float) -> Candidate:
    item = RecallItem(lane="summary", text=text, score=score, subject="kb", kind="note")
    return Candidate(item, TIER_NOTE)


def test_fitting_keeps_scores_in_range_and_leaves_questions_naming_nothing_alone() -> None:
    mayor = _note("The mayor of Marlow is Jo Penn.", 0.75)
    people = _note("The population of Marlow is 12,400.", 0.7)
    scored = fitted([mayor, people], "How many people live in Marlow?")
    assert scored[1].item.score > scored[0].item.score
    assert all(0 <= c.item.score <= 1 for c in scored)
    # no name written out: the words are retrieval's to weigh
    plain = fitted([mayor, people], "how many people live there?")
    assert [c.item.score for c in plain] == [0.75, 0.7]


def test_a_question_about_before_is_not_answered_by_the_present_profile() -> None:
    recall = _told(
        [[("我在美团上班", 0)], [("我跳槽到小米了，美团待够了", 1440)]], "他跳槽前在哪干？"
    )
    assert recall.items and "美团" in recall.items[0].text
    present = [i for i in recall.items if i.fact is not None and i.status == "current"]
    assert present == []


@pytest.mark.parametrize(
    "question",
    ["Where did the user work before the job change?", "Who did he work for before the switch?"],
)
def test_an_event_dating_the_question_is_not_what_it_asks(question: str) -> None:
    recall = _told(
        [[("I'm a designer at Netflix", 0)], [("Got hired by Zendesk!", 1440)]], question
    )
    assert recall.items and "Netflix" in recall.items[0].text
    assert not any("Zendesk" in i.text and i.status == "current" for i in recall.items[:1])


def test_a_name_spelt_one_character_off_is_another_thing() -> None:
    statements = ["白岭镇的常住人口是8200人。", "青岭镇的镇长是邹明远。"]
    for order in (statements, statements[::-1]):
        top = _top(FILLER + order, "青岭镇一共住着多少人？")
        assert "白岭镇" not in top
    assert misspells("青岭镇", "白岭镇的常住人口是8200人")
    assert not misspells("青岭镇", "青岭镇的镇长是邹明远")


def test_the_kind_asked_fits_only_statements_about_the_thing_named() -> None:
    # nothing is known of Kelby Mills' staff: another firm's headcount is not the answer
    statements = [
        "Ashdown Mills employs 900 people.",
        "Kelby Mills has its head office in Dunmore.",
    ]
    for order in (statements, statements[::-1]):
        assert "Ashdown" not in _top(FILLER + order, "How many staff work at Kelby Mills?")


def test_two_relations_of_one_chinese_holder_are_two_slots() -> None:
    # the holder comes first, so the two differ only in "年费是1246元" / "会长是柳清和"
    fee, chair = (
        clauses("（3）苇洲骑行俱乐部的年费是1246元。")[0],
        clauses("苇洲骑行俱乐部的会长是柳清和。")[0],
    )
    assert restates(fee, chair) is None
    assert restates(fee, clauses("苇洲骑行俱乐部的年费是1386元。")[0]) is not None


def test_a_month_inside_a_name_is_part_of_its_holder() -> None:
    said = claims("（9）《晚潮月刊》的主编是卫闻笛。", "kb")
    assert [c.holder for c in said] == ["《晚潮月刊》"]
    assert named("《晚潮月刊》", "谁负责编《晚潮月刊》？")


@pytest.mark.parametrize(
    ("text", "holder"),
    [
        ("李四正在腾讯上班", "李四"),  # 正在: progressive and preposition at once
        ("李四目前正在阿里工作", "李四"),
        ("张三仍住在上海", "张三"),
        ("周正的手机号是13800001111", "周正"),  # before 的 a 正 ends a name
    ],
)
def test_an_aspect_adverb_ends_a_chinese_holder(text: str, holder: str) -> None:
    assert [c.holder for c in claims(text, "kb")] == [holder]


@pytest.mark.parametrize(
    "text", ["我正在腾讯上班", "我目前在字节工作", "我已经在华为工作三年了", "我也在腾讯上班"]
)
def test_the_speakers_employer_said_in_the_present_is_claimed(text: str) -> None:
    assert [(c.holder, c.relation) for c in claims(text, "U-1")] == [("", "employer")]


@pytest.mark.parametrize("text", ["我以前在腾讯上班", "我在家工作日比较忙"])
def test_a_past_or_a_workday_claims_no_employer(text: str) -> None:
    assert claims(text, "U-1") == ()
