"""A relation stated for other holders but never for the one asked about: nothing is known."""

from __future__ import annotations

import pytest

import memlane

STREAM_EN = [
    "11. The captain of the Yelford Comets is Lena Nettle.",
    "17. The home ground of the Yelford Comets is Velgate Arena.",
    "26. The head coach of the Wendridge Falcons is Yusra Sallow.",
    "32. The population of Pellford is 31,412.",
    "33. The principal of Orrby Primary School is Harriet Ibarra.",
    "34. The main export of Braeholt Province is walnut oil.",
    "35. The flagship product of Kaldane Analytics is the Cask smart kettle.",
]
STREAM_ZH = [
    "（18）棠矶金狮队的主教练是顾嘉树。",
    "（20）澜峪飞马队的队长是沈星野。",
    "（21）岑源镇的常住人口是50812人。",
    "（22）棠矶金狮队的主场是汐川球场。",
]


@pytest.fixture
def told(mem: memlane.Memory) -> memlane.Memory:
    for text in [*STREAM_EN, *STREAM_ZH]:
        mem.remember("kb-1", text)
    return mem


@pytest.mark.parametrize(
    "question",
    ["Who coaches the Yelford Comets?", "谁戴着棠矶金狮队的队长袖标？"],
)
def test_a_relation_never_stated_for_the_one_asked_returns_nothing(told, question):
    r = told.recall("kb-1", question)
    assert r.items == []


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Who coaches the Wendridge Falcons?", "Yusra Sallow"),
        ("Who captains the Yelford Comets?", "Lena Nettle"),
        ("Where do the Yelford Comets play home games?", "Velgate Arena"),
        # "heads" is no relation's head ("head coach" is a coach): asked in other words
        ("Who heads Orrby Primary School?", "Harriet Ibarra"),
        # "exporting" is the relation the statement names, not whom it is about
        ("Which product is Braeholt Province best known for exporting?", "walnut oil"),
        ("谁是澜峪飞马队的队长？", "沈星野"),
        ("棠矶金狮队的主教练是谁？", "顾嘉树"),
    ],
)
def test_a_relation_stated_for_the_one_asked_answers(told, question, answer):
    assert answer in told.recall("kb-1", question).items[0].text


def test_a_relation_asked_in_words_said_nowhere_is_still_answered(told):
    # "trains" and "squad" are said of no one: perhaps the captain is meant; not judged
    assert told.recall("kb-1", "Who trains the Yelford Comets squad?").items
