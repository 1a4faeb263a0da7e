"""Changes and retractions in any phrasing: the old value stops being current (issue 13)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

import memlane
from memlane.lang import is_negated, names_other_person, retractions, roles_of_subject
from memlane.lang.changes import only_retracts

START = datetime(2026, 3, 1, tzinfo=UTC)


@pytest.fixture
def mem() -> Iterator[memlane.Memory]:
    with memlane.Memory(":memory:", embedder="hash", clock=lambda: START + timedelta(days=90)) as m:
        yield m


def _say(mem: memlane.Memory, *texts: str) -> None:
    for day, text in enumerate(texts):
        mem.remember("U-1", text, at=START + timedelta(days=10 * day))
    assert mem.index.wait(timeout=30)  # recall below finds statements by meaning too


def _current(mem: memlane.Memory, attribute: str) -> list[object]:
    return [fact.value for fact in mem.facts.get_all("U-1", attribute)]


@pytest.mark.parametrize(
    ("before", "change", "attribute", "old"),
    [
        ("I live in Shanghai", "I moved from Shanghai to Beijing last month", "location",
         "Shanghai"),
        ("我住在上海", "我上个月从上海搬到北京了", "location", "上海"),
        ("我住在上海", "我已经从上海搬去武汉了", "location", "上海"),
        ("I live in Xiamen", "Moved out of Xiamen, the new place is in Hangzhou", "location",
         "Xiamen"),
        ("I work at Acme", "I left Acme and joined Globex", "employer", "Acme"),
        ("我在格力上班", "我跳槽到宁德时代了，格力待够了", "employer", "格力"),
    ],
)  # fmt: skip
def test_a_change_closes_the_old_value_in_the_exact_lane(
    mem: memlane.Memory, before: str, change: str, attribute: str, old: str
) -> None:
    _say(mem, before)
    assert _current(mem, attribute) == [old]
    _say(mem, before, change)
    assert old not in _current(mem, attribute)
    closed = [f for f in mem.facts.audit("U-1", attribute) if f.value == old and f.valid_to]
    assert closed, "the old version is kept, with valid_to set"


@pytest.mark.parametrize(
    ("first", "second", "attribute", "old", "new"),
    [
        ("my number is 138-0000-1111",
         "my new number is 139-2222-3333, the old one is no longer in use",
         "phone", "13800001111", "13922223333"),
        ("我的邮箱是 old@example.com", "旧邮箱不用了，以后发 new@example.com",
         "email", "old@example.com", "new@example.com"),
        ("Email for receipts: a.b@corp.example.org",
         "New email: ab@home.example.net — the old one is closed",
         "email", "a.b@corp.example.org", "ab@home.example.net"),
        ("write to me at k.ode@post.example.org",
         "pls stop using k.ode@post.example.org, write to kode@inbox.example.net",
         "email", "k.ode@post.example.org", "kode@inbox.example.net"),
    ],
)  # fmt: skip
def test_a_new_identifier_that_replaces_the_old_one_retracts_it(
    mem: memlane.Memory, first: str, second: str, attribute: str, old: str, new: str
) -> None:
    mem.facts.define(attribute, cardinality="many", identifier=True)
    _say(mem, first, second)
    held = [str(value).casefold() for value in _current(mem, attribute)]
    assert old.casefold() not in held
    assert any(new.casefold().replace("-", "") in value.replace("-", "") for value in held)


def test_a_retracted_statement_is_stale_and_the_new_one_on_top(mem: memlane.Memory) -> None:
    _say(mem, "I love milk", "The parcel can go to the concierge", "I've switched from milk to tea")
    recall = mem.recall("U-1", "what does the user drink?")
    milk = [item for item in recall.items if "milk" in item.text and "tea" not in item.text]
    assert milk and all(item.status == "stale" for item in milk)
    assert all(item.status == "current" for item in recall.items if "concierge" in item.text)


def test_not_anymore_retracts_the_value_it_names(mem: memlane.Memory) -> None:
    _say(mem, "Heads up, I'm vegan — please flag any dairy", "not vegan anymore — I eat fish now")
    recall = mem.recall("U-1", "anything about the user's diet?")
    vegan = [i for i in recall.items if "vegan" in i.text and "anymore" not in i.text]
    assert vegan and all(item.status == "stale" for item in vegan)


def test_instead_of_is_not_a_name(mem: memlane.Memory) -> None:
    _say(mem, "Please call me instead of texting")
    assert _current(mem, "preferred_name") == []


def test_a_negator_inside_a_word_is_not_a_negation(mem: memlane.Memory) -> None:
    assert not is_negated("我1990年5月3日出生于无锡")
    _say(mem, "我1990年5月3日出生于无锡")
    assert _current(mem, "birthday") == ["1990-05-03"]


@pytest.mark.parametrize(
    ("text", "old"),
    [
        ("i quit Novartis lol, im at Deloitte now", "novartis"),
        ("Employment updated: formerly Airbnb, now with KPMG.", "airbnb"),
        ("我离开华为加入了中国移动", "华为"),
        ("我已经般到烟台了哈，之前一直在太原", "太原"),
        ("付款卡换一下，用交行尾号3012，建行的别扣了", "建行"),
        ("Monday is out, sorry. Sunday at 4pm works", "monday"),
        ("Could you update my name to Rebecca? Not Bex anymore", "bex"),
        ("No scooter anymore, I cycle to the office", "scooter"),
        ("Tea bags are fine now, no need for the kettle anymore", "kettle"),
    ],
)
def test_retractions_read_the_old_value_of_any_relation(text: str, old: str) -> None:
    assert any(old in found.terms for found in retractions(text))


@pytest.mark.parametrize(
    ("text", "old"),
    [
        ("I've gone off oat milk, soy from now on", "oat milk"),
        ("the landline at the shop is disconnected", "the landline at the shop"),
        ("please stop using j.ray@old.example.org", "j.ray@old.example.org"),
    ],
)
def test_a_retracted_value_is_read_whole(text: str, old: str) -> None:
    """A dotted address is one value; "gone off", "disconnected" retract like "quit"."""
    assert old in [found.old for found in retractions(text)]


def test_a_sentence_with_no_change_retracts_nothing() -> None:
    assert retractions("I moved to Beijing last week") == ()
    assert retractions("我住在上海，在阿里巴巴工作") == ()


def test_other_people_are_named_by_their_role_not_by_a_list_of_attributes() -> None:
    assert names_other_person("What's the name of the user's dog?")
    assert names_other_person("用户的姐姐住在哪里？")
    assert not names_other_person("Where does the user live now?")


@pytest.mark.parametrize(
    ("question", "said", "about_them"),
    [
        ("我哥的手机号是多少？", "我的电话：138-0000-1234", "我哥的手机号是139-0000-5678"),
        ("Where does my wife work?", "I work at Atlassian", "My wife works at Canva"),
        ("name of the user's dog?", "Our cat is called Biscuit", "Our dog is called Rex"),
    ],
)
def test_a_question_about_someones_role_is_answered_only_by_what_names_it(
    mem: memlane.Memory, question: str, said: str, about_them: str
) -> None:
    _say(mem, said)
    recall = mem.recall("U-1", question)
    assert recall.items == [], "nothing about them is known: nothing is recalled"
    _say(mem, said, about_them)
    recall = mem.recall("U-1", question)
    assert recall.items and recall.items[0].text.endswith(about_them.split()[-1])


def test_a_role_word_that_is_not_the_subjects_does_not_filter(mem: memlane.Memory) -> None:
    _say(mem, "The chief executive of Varndle Software is Anouk Dragan.")
    recall = mem.recall("U-1", "Who is the boss at Varndle Software?")
    assert recall.analysis.roles == ()
    assert recall.items and "Anouk Dragan" in recall.items[0].text


@pytest.mark.parametrize(
    ("question", "together", "answer"),
    [
        ("What kind of pots did Mel and her kids make?", "We made clay pots with bird handles",
         "clay pots"),
        ("What does the user do with her family on hikes?",
         "On hikes we roast marshmallows and tell stories", "marshmallows"),
        ("我和我妈上周去哪了？", "上周我们去了杭州的西湖", "西湖"),
        ("Where was Ada and her husband's first dance?", "Our first dance was in a candlelit barn",
         "barn"),
    ],
)  # fmt: skip
def test_a_role_named_as_the_subjects_company_does_not_filter(
    mem: memlane.Memory, question: str, together: str, answer: str
) -> None:
    _say(mem, "I love long walks", together)
    recall = mem.recall("U-1", question)
    assert recall.analysis.roles == ()
    assert recall.items and answer in recall.items[0].text


def test_a_role_joined_to_another_role_still_filters() -> None:
    assert roles_of_subject("What are my wife and my son's emails?") == {"spouse", "child"}
    assert roles_of_subject("我妈和我哥的电话是多少？") == {"mother", "sibling"}


@pytest.mark.parametrize(
    "text",
    [
        "Gonna check out career options, which is pretty exciting!",
        "We played games and just hung out together.",
        "Your future fam will get a kick out of having you.",
        "Thanks! I won't quit on my dreams.",
        # only possible: a modal before the cue
        "You should get to the point where anyone else would quit and keep going.",
        "I might quit Acme one day.",
        "我可能会离开华为",
        # a range or a trip: no verb of change governs "from … to …"
        "We do all kinds of dances, from contemporary to hip-hop.",
        "Our menu has it all: from pasta to pizza",
        "Everything from the food to the history and architecture was amazing.",
        "Check out this pic from one of my trips to New York City!",
    ],
)
def test_particles_negated_or_possible_cues_and_ranges_retract_nothing(text: str) -> None:
    assert retractions(text) == ()


def test_a_range_leaves_what_it_spans_current(mem: memlane.Memory) -> None:
    _say(mem, "Contemporary dance really speaks to me",
         "We do all kinds of dances, from contemporary to hip-hop.")  # fmt: skip
    recall = mem.recall("U-1", "What style of dance speaks to me?")
    said = next(item for item in recall.items if "speaks" in item.text)
    assert said.status == "current"


def test_a_word_said_everywhere_is_not_a_retracted_value(mem: memlane.Memory) -> None:
    places = ["park", "lake", "gym", "mall", "zoo", "pier"]
    texts = [f"Friend{n} and I spent time at the {places[n % 6]}" for n in range(40)]
    _say(mem, *texts, "I used to waste time, now I read")
    recall = mem.recall("U-1", "what did I do at the park?")
    assert recall.items and all(item.status == "current" for item in recall.items)


@pytest.mark.parametrize(
    ("before", "unrelated", "switch", "old_word", "new_word"),
    [
        ("Please seat me on the ground floor of the restaurant, my knee hurts",
         "My dog is called Pip",
         "Book me upstairs from now on, the ground floor is too loud", "ground floor", "upstairs"),
        ("Leave deliveries with the neighbour at number 9", "I like jazz on Fridays",
         "Change of plans: deliveries go to the garden shed, not the neighbour", "neighbour",
         "shed"),
        ("Leave parcels with the porter at the front", "I like jazz on Fridays",
         "From now on please use the side gate, the porter has retired", "porter", "side gate"),
        ("快递一般寄申通就好", "我家猫叫团子", "快递换成极兔吧，申通太慢", "申通", "极兔"),
        ("会员卡绑定建行卡", "我喜欢喝乌龙茶", "绑定的卡改一下，用招行卡", "绑定", "招行"),
    ],
)  # fmt: skip
def test_a_switch_makes_what_it_replaced_stale_without_naming_it_as_old(
    mem: memlane.Memory, before: str, unrelated: str, switch: str, old_word: str, new_word: str
) -> None:
    """No "no longer X": a switch cue and a shared, specific word tie the old to the new."""
    _say(mem, before, unrelated, switch)
    recall = mem.recall("U-1", before)
    old = [i for i in recall.items if old_word in i.text and new_word not in i.text]
    assert old and all(item.status == "stale" for item in old)
    new = [i for i in recall.items if new_word in i.text]
    assert new and all(item.status == "current" for item in new)
    kept = [i for i in mem.recall("U-1", unrelated).items if i.text.endswith(unrelated[-2:])]
    assert kept and all(item.status == "current" for item in kept)


@pytest.mark.parametrize(
    ("before", "later", "word"),
    [
        # advice to the listener: their arrangement, not the speaker's
        ("I bake bread with rye flour every weekend",
         "You could try spelt flour instead, it tastes lovely", "rye"),
        # a particle verb: "switch off" is to rest, not to switch something
        ("Painting watercolours calms me down",
         "Honestly painting watercolours is how I switch off after work", "watercolours"),
        # an episode told in the past: what happened once, no arrangement from then on
        ("I play chess at the library on Tuesdays",
         "Last spring I lost a chess final, but instead of quitting I studied harder", "chess"),
        # about no one: a remark on how things go
        ("I walk along the canal before breakfast",
         "Walking by the canal is a lovely way to switch things around", "canal"),
        # someone else's way of doing things, not the speaker's
        ("I swim at the lake on Sundays",
         "Instead of giving up, Sam keeps training at the lake", "lake"),
    ],
)  # fmt: skip
def test_a_switch_cue_that_is_no_arrangement_of_the_speaker_stales_nothing(
    mem: memlane.Memory, before: str, later: str, word: str
) -> None:
    """Only the speaker's own switch of an arrangement supersedes what it shares a word with."""
    _say(mem, before, "My dog is called Pip", later)
    recall = mem.recall("U-1", before)
    earlier = [i for i in recall.items if i.text.endswith(before[-8:])]
    assert earlier and all(item.status == "current" for item in earlier), recall.items


@pytest.mark.parametrize(
    ("before", "change", "question", "old", "new"),
    [
        ("The veg box comes weekly", "Switched to fortnightly, it suits us better",
         "weekly or fortnightly for the veg box?", "weekly", "fortnightly"),
        ("家里订的牛奶是全脂的", "以后都用脱脂，医生说的", "牛奶要全脂还是脱脂？", "全脂", "脱脂"),
    ],
)  # fmt: skip
def test_an_either_or_question_ties_a_change_to_the_value_it_replaced(
    mem: memlane.Memory, before: str, change: str, question: str, old: str, new: str
) -> None:
    """The change shares no word with the old value; the question names both."""
    _say(mem, before, "My dog is called Pip", change)
    recall = mem.recall("U-1", question)
    earlier = [i for i in recall.items if old in i.text and new not in i.text]
    assert earlier and all(item.status == "stale" for item in earlier), recall.items
    later = [i for i in recall.items if new in i.text]
    assert later and all(item.status == "current" for item in later)


def test_a_date_a_note_wrote_after_a_relative_day_does_not_hide_the_cue() -> None:
    assert [r.old for r in retractions("U-1 said: Friday (2026-03-06) is out, sorry.")] == [
        "friday"
    ]


def test_only_retracts_tells_a_withdrawal_from_a_replacement() -> None:
    from memlane.lang.changes import only_retracts

    assert only_retracts("not Sam anymore") and only_retracts("招行那张卡不用了")
    assert not only_retracts("I left Initech and joined Hooli")
    assert not only_retracts("I like Sam")  # nothing taken back


def test_gai_before_a_time_moves_an_event_and_nothing_else() -> None:
    from memlane.lang.changes import switched_parts

    assert switched_parts("瑜伽课改周五晚上七点行吗")
    assert switched_parts("会议改到下周二")
    assert not switched_parts("我想改善一下睡眠") and not switched_parts("他改变了主意")


def test_street_addresses_are_found_by_shape() -> None:
    from memlane.lang.changes import street_addresses

    assert street_addresses("send to 7 Vine Row from now on") == {"7 vine row"}
    assert street_addresses("寄到杭州西湖区文三路88号") == {"文三路88号"}
    assert not street_addresses("I walked 3 miles down the road")


@pytest.mark.parametrize(
    "said",
    ["Saturday doesn't work anymore", "saturday (2025-07-12) doesn't work anymore",
     "Tomorrow at 4pm won't work"],
)  # fmt: skip
def test_a_time_that_no_longer_works_is_only_taken_back(said):
    """As "Saturday at 4pm works for the grooming" gives a time, "Saturday doesn't work
    anymore" takes it back and gives none (it was read as retracting "work")."""
    assert only_retracts(said)
    assert retractions(said)[0].old.split()[0] in ("saturday", "tomorrow")
