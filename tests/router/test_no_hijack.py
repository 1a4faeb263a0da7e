"""Generic words do not hijack a question: the exact lane answers only the subject's own value."""

from __future__ import annotations

import pytest

import memlane
from tests.support.conversations import told


def _answered_first(
    said: tuple[str, ...], subject: str, question: str, answer: str
) -> memlane.Recall:
    """What ``subject``, having said ``said``, is asked: its first item holds ``answer``."""
    with told(*said, subject=subject, wait=True) as mem:
        r = mem.recall(subject, question)
    assert r.items and answer in r.items[0].text, [item.text for item in r.items]
    return r


@pytest.fixture
def mem():
    with memlane.Memory(":memory:", embedder="hash") as m:
        m.facts.define("phone", cardinality="many", identifier=True)
        m.facts.define("email", cardinality="many", identifier=True)
        m.facts.set("U-1", "location", "Lyon", valid_from="2026-01-01")
        m.facts.set("U-1", "name", "Ada Moss", valid_from="2026-01-01")
        m.facts.set("U-1", "employer", "Acme", valid_from="2026-01-01")
        m.facts.add("U-1", "phone", "555-0101", valid_from="2026-01-01")
        m.facts.add("U-1", "email", "ada@example.com", valid_from="2026-01-01")
        yield m


@pytest.mark.parametrize(
    "question",
    [
        "What number of kids does the user have?",
        "What's the name of the user's dog?",
        "用户的姐姐住在哪里？",
        "我老公的邮箱是哪个？",
        "我哥的手机号是多少？",
        "What's my sister's email address?",
        "用户下周出差去哪个城市？",
        "Which city am I considering moving to?",
        "Which company did she mention for the trip?",
        # a generic noun the question does not tie to the subject
        "Which company catered the wedding?",
        "Which city is the festival held in?",
        "what number was the locker at the gym?",
        "承办那场婚礼的是哪家公司？",
        "展会在哪个城市举行？",
        "客户的出生地是哪个城市？",
        "What city is the user's office in?",
        "Which city was the customer born in?",
        "what city do I need a flight to for the summit?",
        # the generic noun is the object of another verb than its attribute's
        "Which city did I tour in the spring?",
        "which number do I dial for the vet?",
        "What company did the user recommend to her friend?",
    ],
)
def test_questions_about_someone_or_something_else_get_no_exact_answer(mem, question):
    recall = mem.recall("U-1", question)
    assert recall.analysis.attributes == ()
    assert all(item.lane != "exact" or item.status != "current" or item.score < 1.0
               for item in recall.items[:1])  # fmt: skip
    assert recall.step("summary").asked


@pytest.mark.parametrize(
    ("question", "attribute"),
    [
        ("Where does the user live now?", "location"),
        ("用户现在住在哪个城市？", "location"),
        ("What is the user's phone number?", "phone"),
        ("What's the name of the user?", "name"),
        ("用户在哪家公司上班？", "employer"),
        # a generic noun tied to the subject
        ("Which city is the customer based in?", "location"),
        ("What company am I at right now?", "employer"),
        ("What's the user's current city?", "location"),
        ("客户目前人在哪个城市？", "location"),
        ("现在住哪个城市？", "location"),
        ("他现在是哪个公司的？", "employer"),
        # the generic noun is the object of its attribute's own verb, or of one of holding
        ("which city do I live in these days?", "location"),
        ("Which city did the user move to?", "location"),
        ("which number did the user have back then?", "phone"),
    ],
)
def test_the_subjects_own_value_is_still_answered_exactly(mem, question, attribute):
    recall = mem.recall("U-1", question)
    assert attribute in recall.analysis.attributes
    assert recall.items[0].lane == "exact" and recall.items[0].fact.attribute == attribute


def test_a_code_named_by_its_attribute_with_a_qualifier_is_not_answered_by_its_plain_value():
    with memlane.Memory(":memory:", embedder="hash") as m:
        m.facts.define("tracking", cardinality="many", identifier=True)
        m.facts.add("U-1", "tracking", "1ZQ4W8E0912345678", valid_from="2026-01-01")
        narrowed = m.recall("U-1", "tracking no. for the standing lamp?")
        assert all(item.lane != "exact" or item.score < 1.0 for item in narrowed.items[:1])
        plain = m.recall("U-1", "what is my tracking number?")
        assert plain.items[0].fact is not None
        assert plain.items[0].fact.value == "1ZQ4W8E0912345678"


def test_the_number_of_kids_is_not_answered_by_the_phone_number():
    mem = told("My cell is +1 512 555 0157", "We have two kids, 4 and 7", subject="U-2")
    with mem:
        r = mem.recall("U-2", "What number of kids does the customer have?")
        assert "two kids" in r.items[0].text, [item.text for item in r.items]


DENTIST = {  # what the user says, the dentist's number
    "told first": (("帮我记一下牙科诊所的电话：025 8301 1736，下周复诊", "联系电话 189 0093 0860"),
                   "025 8301 1736"),
    "told after": (("联系电话+86 189 0093 0860", "牙医那边座机是029-5969 9864，提醒我周五打过去"),
                   "029-5969 9864"),
    "en": (("My cell is 07700 900300", "Dentist's number is 020 7946 0667, need to rebook"),
           "020 7946 0667"),
    "en told after": (("My number is 2135550145",
                       "Save my dentist's number for me: (617) 555-0191"), "(617) 555-0191"),
}  # fmt: skip


@pytest.mark.parametrize(
    ("told_as", "question"),
    [
        ("told first", "帮我找下牙科诊所电话"),
        ("told after", "帮我找下牙科诊所电话"),
        ("told after", "我那个牙科的号码是？"),
        ("en", "dentist phone number?"),
        ("en", "which number do I ring for the dental clinic?"),  # the holder after: for …
        ("en told after", "which number do I ring for the dental clinic?"),
    ],
)
def test_the_dentists_number_is_not_the_users_own(told_as, question):
    said, dentists = DENTIST[told_as]
    r = _answered_first(said, "U-3", question, dentists)
    assert r.items[0].lane != "exact"


@pytest.mark.parametrize(
    ("said", "own"),
    [
        (("cell: 415-555-0181", "Save my dentist's number for me: +1-212-555-0159"),
         "415-555-0181"),
        (("我的手机号是13912345678", "帮我记一下我妈的电话：13800001234"), "13912345678"),
    ],
)  # fmt: skip
def test_someone_elses_number_is_never_served_as_the_users_own(said, own):
    """Asked for their own number, the user gets theirs only; the other is found by itself."""
    other = said[1].rsplit("：" if "：" in said[1] else ": ", 1)[1]
    with told(*said, subject="U-4", wait=True) as mem:
        served = mem.recall("U-4", "What's my own phone number?").items
        assert [item.fact.value for item in served if item.fact] == [own]
        assert mem.facts.lookup("phone", other) == []
        found = mem.recall("U-4", other).items
    assert found and other in found[0].text


@pytest.mark.parametrize(
    "question",
    ["birthplace of this customer?", "Where was the user born?", "where did she grow up?"],
)
def test_where_someone_was_born_is_their_hometown_not_where_they_live(mem, question):
    """Asked for a birthplace, the exact lane answers the hometown, not the current city."""
    mem.facts.set("U-1", "hometown", "Qingdao", valid_from="2026-01-01")
    recall = mem.recall("U-1", question)
    assert recall.analysis.attributes == ("hometown",)
    assert recall.items[0].lane == "exact" and recall.items[0].fact.attribute == "hometown"


@pytest.mark.parametrize(
    ("said", "question", "answer"),
    [
        (("I'm a FedEx driver myself", "the rug came with UPS, one corner torn"),
         "Which driver delivered it?", "UPS"),
        (("I'm in Denver", "our team offsite is in Austin in May"),
         "where's the gathering this year?", "Austin"),
        (("我在顺丰做快递员", "箱子这次是中通运来的，角压坏了"), "那件是哪家快递运的？", "中通"),
        (("我手机号13912345678", "如家1206房，枕头下落了个耳机"), "那间是几号？", "1206"),
    ],
)  # fmt: skip
def test_a_question_about_a_thing_is_not_answered_by_what_the_subject_told_of_themself(
    said, question, answer
):
    """Naming neither the subject nor anyone, it asks about a thing: the note that opens with
    the subject (their employer, city or phone) ranks after the notes about other things."""
    _answered_first(said, "U-4", question, answer)


@pytest.mark.parametrize(
    ("said", "question", "answer"),
    [
        (("my cell is +1 415 555 0199", "we keep three dogs at home"),
         "how many pets does the user have?", "three dogs"),
        (("我手机号13800001234", "家里养了两只猫"), "客户家里养了几只宠物？", "两只猫"),
    ],
)  # fmt: skip
def test_a_count_is_not_answered_by_a_note_whose_digits_are_all_a_code(said, question, answer):
    """ "How many…?" names no code: a phone number holds digits, but it counts nothing."""
    r = _answered_first(said, "U-5", question, answer)
    assert all("555" not in item.text for item in r.items if item.kind == "note")


def test_calling_the_subject_is_no_qualifier_of_the_number_asked():
    """ "给她打电话该打哪个号" asks for her number: "给她打" is a clause, not a kind of phone."""
    said = ("电话留189-9062-4057就行", "189那个号不用了，换成193 7695 8221了")
    with told(*said, subject="U-6") as mem:
        r = mem.recall("U-6", "给她打电话该打哪个号？")
        assert r.analysis.qualified == ()
        assert r.items and "193 7695 8221" in r.items[0].text, [item.text for item in r.items]


@pytest.mark.parametrize(
    ("said", "question", "answer"),
    [
        (("我在成都住了五年了", "上次那个优惠券怎么用不了", "一直想搬去大理，不过还没定"),
         "我打算以后去哪个城市定居？", "大理"),
        (("我在成都住了五年了", "上次那个红包怎么领不了", "我打算明年搬去大理"),
         "客户计划以后住哪里？", "大理"),
        (("I live in Leeds", "why is my refund so slow", "we're thinking of moving to Lisbon"),
         "where is she considering relocating?", "Lisbon"),
    ],
)  # fmt: skip
def test_a_question_about_a_plan_is_answered_by_the_note_that_tells_one(said, question, answer):
    """A present state ("住了五年了") or a complaint tells no plan; "一直想搬去大理" does."""
    _answered_first(said, "U-7", question, answer)


@pytest.mark.parametrize(
    ("said", "question", "answer"),
    [
        (("I ordered a desk lamp and a Bose speaker",
          "Tracking for the desk lamp is 784512690345, the Bose speaker is 784512690391"),
         "and the Bose speaker?", "784512690391"),
        (("I bought a Dyson fan and a Nespresso machine", "the coupon code isn't working",
          "Tracking for the fan is 612093847561, the Nespresso machine is 612093847598"),
         "and the Nespresso machine?", "612093847598"),
    ],
)  # fmt: skip
def test_a_follow_up_naming_a_thing_is_not_answered_by_what_the_subject_did(said, question, answer):
    """ "and the Bose speaker?" names a thing (capitalized, but no person): "I ordered a … and
    a Bose speaker" tells of the subject, the tracking numbers of the speaker."""
    _answered_first(said, "U-8", question, answer)


@pytest.mark.parametrize(
    ("said", "question", "answer"),
    [
        (("Born and raised in Denver, never went back", "these days I'm based in Leeds"),
         "Where is she from originally?", "Denver"),
        (("I live in Perth", "someday I'd love to move to Kyoto"),
         "Where would the user like to live one day?", "Kyoto"),
        (("I live in Oslo", "went to Lisbon on holiday, loved it"),
         "Where did the user go on holiday?", "Lisbon"),
        (("我住在兰州，有活动叫我", "去年去成都旅游住的酒店不错"), "我现在住在哪个城市？", "兰州"),
        (("我是海尔的，最近老加班", "去三亚那趟是环球旅行社组织的，挺满意"),
         "用户在哪家公司工作？", "海尔"),
    ],
)  # fmt: skip
def test_a_where_question_is_answered_by_a_note_of_its_kind(said, question, answer):
    """Where one comes from, lives, went or would go are four questions: "based in Leeds"
    does not tell where she is from, nor a trip where one lives or works."""
    for order in (said, said[::-1]):
        _answered_first(order, "U-9", question, answer)


@pytest.mark.parametrize(
    ("said", "question", "answer"),
    [
        (("一直想搬去呼和浩特，不过还没定", "我住桂林"), "我打算以后去哪个城市定居？", "呼和浩特"),
        (("我在苏州住了十年了", "帮我看看有没有满减活动", "一直想搬去太原，不过还没定"),
         "我打算以后去哪个城市定居？", "太原"),
    ],
)  # fmt: skip
def test_a_plan_said_before_the_present_city_still_answers_a_question_about_plans(
    said, question, answer
):
    """A plan asserts no present value: "我住桂林" said later does not make "一直想搬去呼和浩特"
    stale; and a plan naming a city written with function characters (太原) is a note."""
    r = _answered_first(said, "U-7", question, answer)
    assert r.items[0].status == "current"


@pytest.mark.parametrize(
    ("said", "question", "answer"),
    [
        (("I'm Pablo Lopez", "why is shipping so slow this week",
          "Juniper (my cat) is due for her vaccines"), "What's the customer's name?",
         "Pablo Lopez"),
        (("我是钟海燕", "煤球（我家猫）最近掉毛厉害，有推荐的猫粮吗", "上次那个优惠券怎么用不了"),
         "客户叫什么名字？", "钟海燕"),
        (("我比较喜欢晚上收到通知", "我是美团的"), "我现在在哪上班？", "美团"),
        (("上次那个优惠券怎么用不了", "我是滴滴的，平时加班多"), "用户在哪家公司上班？", "滴滴"),
    ],
)  # fmt: skip
def test_who_the_subject_is_is_told_by_what_they_said_of_themself(said, question, answer):
    """ "The customer", "客户" are the subject: "I'm Pablo Lopez" answers, not a complaint or
    the cat's note; "我是美团的" tells whose the speaker is: their employer."""
    for order in (said, said[::-1]):
        _answered_first(order, "U-10", question, answer)


@pytest.mark.parametrize(
    ("said", "question", "answer"),
    [
        (("I live in Warsaw", "our sales kickoff is in Copenhagen in March"),
         "what city do I need a hotel in for the work event?", "Copenhagen"),
        (("home's Shenzhen", "The discount code from last week isn't working",
          "Went to Stockholm last summer, the food was unreal"), "Which city do I live in?",
         "Shenzhen"),
        (("我妈一个人住在深圳，想给她寄点东西", "我在青岛上班，也住这边"), "我自己住哪个城市？",
         "青岛"),
    ],
)  # fmt: skip
def test_a_city_is_answered_by_whose_it_is(said, question, answer):
    """The city of a work event is not where one lives; where one lives is not told by a trip
    or a complaint, nor by where one's mother lives ("Cust-7妈一个人住在深圳" as a note)."""
    for order in (said, said[::-1]):
        _answered_first(order, "U-11", question, answer)


@pytest.mark.parametrize(
    ("said", "question", "answer"),
    [
        (("phone: (213) 555-0159", "why is shipping so slow this week",
          "I was in room 1914 at the Ibis Styles and forgot my jacket"),
         "what number was the hotel room?", "1914"),
        (("number's 503.555.0118", "The discount code from last week isn't working",
          "I've got 3 kids under ten, so evenings are chaos"),
         "number of kids in the household?", "3 kids"),
        (("我电话+86-15873677359", "家里三个娃，周末根本出不了门"), "客户家孩子的数量是多少？",
         "三个娃"),
    ],
)  # fmt: skip
def test_a_note_of_the_subject_naming_the_thing_asked_answers(said, question, answer):
    """Asked about a thing, the subject's own note that names it ("room", "kids", a counted
    娃) answers when no other note names it."""
    _answered_first(said, "U-12", question, answer)
