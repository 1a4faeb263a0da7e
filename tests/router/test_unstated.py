"""A relation stated for other holders but never for the one asked about: nothing is known.

Only in a stream shaped as a knowledge base (whole statements filling "the R of X is V" /
"X的R是V"); chat turns are answered as before (LoCoMo returned nothing for 8.9% of its
questions when the rule read any "… of …" in a conversation).
"""

from __future__ import annotations

import pytest

import memlane
from memlane.lang.frames import relation_frame

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
        ("Which product is Braeholt Province best known for exporting?", "walnut oil"),
        ("谁是澜峪飞马队的队长？", "沈星野"),
        ("棠矶金狮队的主教练是谁？", "顾嘉树"),
    ],
)
def test_a_relation_stated_for_the_one_asked_answers(told, question, answer):
    assert answer in told.recall("kb-1", question).items[0].text


@pytest.mark.parametrize(
    "question",
    [
        # asked in words no statement uses: the relation they mean (memlane.lang.meanings)
        "Who trains the Yelford Comets squad?",  # a coach, stated only for the Falcons
        "Who wears the armband for the Wendridge Falcons?",  # a captain, only for the Comets
        "谁在带澜峪飞马队训练？",  # 主教练, stated only for 棠矶金狮队
    ],
)
def test_a_relation_asked_in_other_words_never_stated_for_the_one_asked_returns_nothing(
    told, question
):
    assert told.recall("kb-1", question).items == []


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Who leads the Yelford Comets on the field?", "Lena Nettle"),
        ("谁在场上带领澜峪飞马队？", "沈星野"),
    ],
)
def test_a_relation_asked_in_other_words_stated_for_the_one_asked_answers(told, question, answer):
    assert answer in told.recall("kb-1", question).items[0].text


def test_a_relation_asked_in_words_said_nowhere_is_still_answered(told):
    # "mentors" and "squad" mean no relation memlane knows: perhaps the captain is meant
    assert told.recall("kb-1", "Who mentors the Yelford Comets squad?").items


def test_a_holder_with_a_relation_of_unknown_meaning_is_not_judged_by_meaning(told):
    # "backs" means a sponsor, stated for the Falcons only; but the Comets' "benefactor"
    # means nothing memlane knows, and may be what is asked
    told.remember("kb-1", "40. The main sponsor of the Wendridge Falcons is Kettle & Co.")
    told.remember("kb-1", "41. The benefactor of the Yelford Comets is Ida Crane.")
    assert told.recall("kb-1", "Which company backs the Yelford Comets?").items


def test_a_relation_stated_in_other_words_answers(told):
    told.remember("kb-1", "36. Yelford Comets fans adore their coach, Odile Quint.")
    assert told.index.wait(timeout=60)  # ranked with its embedding, as every other note
    assert "Odile Quint" in told.recall("kb-1", "Who coaches the Yelford Comets?").items[0].text


def test_a_holder_named_in_no_frame_is_not_judged(mem):
    # the Comets are named, but never in the frame: not a knowledge base's holder
    for text in [
        "26. The head coach of the Wendridge Falcons is Yusra Sallow.",
        "27. I watched the Yelford Comets lose again on Sunday.",
    ]:
        mem.remember("kb-1", text)
    assert mem.recall("kb-1", "Who coaches the Yelford Comets?").items


def test_a_conversation_is_answered_as_before(mem):
    # chat turns hold "the X of Y" and relations of others, but fill no frame
    for text in [
        "Caroline said: I went to the support group of my town yesterday, it was so powerful.",
        "Melanie said: The coach of my son's team taught them to swim in the lake last summer.",
        "Caroline said: Researching adoption agencies has been the focus of my week.",
        "Melanie said: The best part of the camping trip was the meteor shower with the kids.",
    ]:
        mem.remember("conv-1", text)
    for question in [
        "What did Caroline research?",
        "Who coaches Caroline at the support group?",
        "What was the best part of Melanie's camping trip?",
    ]:
        assert mem.recall("conv-1", question).items, question


@pytest.mark.parametrize(
    "clause",
    [
        "i went to the support group of my town yesterday, it was so powerful",
        "luxlith biotech has its headquarters in yelridge",
        "researching adoption agencies has been the focus of my week",
    ],
)
def test_what_fills_no_frame(clause):
    assert relation_frame(clause) is None
