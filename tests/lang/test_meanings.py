"""What a relation means whatever words ask for it, and which *where* a text speaks of."""

from __future__ import annotations

import pytest

from memlane.lang.meanings import closeness, senses, shares_sense
from memlane.lang.whereabouts import asks_where, whereabouts


@pytest.mark.parametrize(
    ("question", "relation"),
    [
        ("Who trains the Harbury Hawks squad?", "head coach"),
        ("Which company backs the marathon?", "main sponsor"),
        ("Who pays for the festival?", "main sponsor"),
        ("What is Corwen Tools best known for making?", "flagship product"),
        ("In which town is the head office of Corwen Tools?", "headquarters"),
        ("Which stadium hosts the home matches of the Hawks?", "home ground"),
        ("Who is in charge at Orrby Primary School?", "principal"),
        ("谁在带澜峪飞马队训练？", "主教练"),
        ("谁负责编《松风月刊》？", "主编"),
        ("加入青柳体育会一年要交多少钱？", "年费"),
        ("谁在主持芷岭镇的政务？", "镇长"),
        # words written on a crest are a motto (the crest itself an emblem)
        ("What is written on the crest of Briskden College?", "motto"),
    ],
)
def test_a_relation_asked_in_other_words_shares_its_sense(question, relation):
    assert shares_sense(question, relation)


@pytest.mark.parametrize(
    ("question", "relation"),
    [
        ("Who trains the Harbury Hawks squad?", "captain"),
        ("Who wears the armband for the Hawks?", "head coach"),
        ("How much money does the Arts Fund have to work with per year?", "annual fee"),
        ("Who is in charge of the Briskwold Cycling Club?", "annual membership fee"),
    ],
)
def test_another_relation_shares_none(question, relation):
    assert not shares_sense(question, relation)


def test_a_name_gives_no_sense():
    # "Fund" is part of a name: the Arts Fund is no sponsor for it
    assert "sponsor" not in senses("What is the budget of the Cairnbrook Arts Fund?")


def test_the_closest_relation_shares_most():
    asked = "Who leads the Hawks on the field?"
    assert closeness(asked, "captain") > closeness(asked, "chairperson") > 0
    assert closeness(asked, "head coach") == 0


@pytest.mark.parametrize(
    ("text", "kinds"),
    [
        ("where am I originally from?", {"origin"}),
        ("Where is she from?", {"origin"}),
        ("Chicago born and raised, moved away for uni", {"origin"}),
        ("based in Manchester", {"residence"}),
        ("I moved from Shanghai to Beijing last month", {"residence"}),
        ("Where did the user go last summer?", {"travel"}),
        ("上次去悉尼旅游住的民宿挺好的", {"travel"}),
        ("去厦门那趟是途远旅行社带的团", {"travel"}),
        ("我现在住哪个城市？", {"residence"}),
        ("老家是无锡的", {"origin"}),
        ("What's my frequent flyer number?", set()),
    ],
)
def test_the_kind_of_where_a_text_speaks_of(text, kinds):
    assert whereabouts(text) == kinds


def test_a_place_is_asked_by_where_or_by_its_kind():
    assert asks_where("我现在住哪个城市？") and asks_where("Which city does she live in?")
    assert asks_where("where is she from?") and not asks_where("When did she move?")


def test_senses_compares_a_text_with_the_phrases_it_holds_the_first_word_of():
    """Read by the phrases' first stems: the senses of every sense's phrases, as read by all."""
    import random

    from memlane.lang.meanings import (
        _EN_STEMS,
        EN_SENSES,
        ZH_SENSES,
        _content_stems,
        _holds_run,
        senses,
    )
    from memlane.lang.script import fold

    def every_phrase(text: str) -> frozenset[str]:
        words, folded = _content_stems(text), fold(text)
        return frozenset(
            [s for s, phrases in _EN_STEMS.items() if any(_holds_run(words, p) for p in phrases)]
            + [s for s, phrases in ZH_SENSES.items() if any(p in folded for p in phrases)]
        )

    phrases = [phrase for listed in EN_SENSES.values() for phrase in listed]
    rng = random.Random(5)
    for _ in range(300):
        said = " and ".join(rng.sample(phrases, rng.randint(1, 3)))
        for text in (said, f"Who is the {said} of the Otters?", f"The {said} is Ada Moss."):
            assert senses(text) == every_phrase(text)
