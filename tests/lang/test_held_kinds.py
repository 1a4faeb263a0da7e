"""The kinds of value a statement holds: its values read once, the question compared after.

:func:`memlane.lang.kinds.held_kinds` is asked of every recalled line at every recall (the
router's fit); the values a line holds depend on its text alone and are kept for the process
(:func:`memlane.lang.kinds.held_values`). Checked here against the reading that took the
question in from the start.
"""

from __future__ import annotations

import random
import unicodedata

from memlane.lang import kinds
from memlane.lang.kinds import NUMBER, PLACE, THING, TIME, held_kinds, held_values
from memlane.lang.script import fold


def _reference(statement: str, question: str = "") -> frozenset[str]:
    """held_kinds as written before the values were kept: the question read throughout."""
    folded, asked = fold(statement), fold(question)
    found: set[str] = set()
    rest = folded
    for match in kinds._CLOCK.finditer(folded):
        if match[0] not in asked:
            found.add(TIME)
        rest = rest.replace(match[0], " ")
    if any(number not in asked for number in kinds._NUMBER.findall(rest)):
        found.add(NUMBER)
    for match in kinds._PLACE.finditer(unicodedata.normalize("NFKC", statement)):
        name = fold(match["en"] or match["zh"] or "")
        if name and name not in asked:
            found.add(PLACE)
    if kinds._THING.search(folded):
        found.add(THING)
    return frozenset(found)


PIECES = [
    "The museum opens at 9:30",
    "in Lyon",
    "has 40 rooms",
    "is the Heron e-bike.",
    "总部设在霁洲市",
    "下午3点半开会",
    "from last week",
    "near Oslo",
    "price 1,200.50",
    "主打产品是“青鸾”平板",
    "at 7pm",
]
QUESTIONS = ["", "where is it?", "Is it the one with 40 rooms?", "is it in lyon at 9:30?", "3点半?"]


def test_held_kinds_is_the_reading_that_took_the_question_in_throughout():
    rng = random.Random(7)
    for _ in range(400):
        statement = " ".join(rng.sample(PIECES, rng.randint(1, 4)))
        for question in QUESTIONS:
            assert held_kinds(statement, question) == _reference(statement, question)


def test_a_statements_values_are_read_once_whatever_the_question():
    held_values.cache_clear()
    for question in QUESTIONS:
        held_kinds("The museum opens at 9:30 in Lyon.", question)
    assert held_values.cache_info().misses == 1
