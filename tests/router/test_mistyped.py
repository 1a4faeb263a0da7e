"""A code asked with a character or two changed is another code: nothing recalled answers it."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

import memlane
from memlane.router.mistyped import mistyped_codes

NOW = datetime(2025, 4, 1, tzinfo=UTC)
NOTES = (
    ("cust-1", "Confirmation code HJVYQX: Calgary, arriving late on 20 March"),
    ("u-2", "Booking ref HJVYNX - the hotel in Portland, 3 nights from 30 April"),
    ("u-3", "My parcel's tracking number is YT7788123456 and it goes to Leeds"),
)


@pytest.fixture(scope="module")
def memory() -> Iterator[memlane.Memory]:
    with memlane.Memory(":memory:", embedder="hash", clock=lambda: NOW) as mem:
        for subject, text in NOTES:
            mem.remember(subject, text)
        assert mem.index.wait(timeout=30)
        yield mem


@pytest.mark.parametrize(
    ("question", "city"),
    [
        ("booking hjvyqx, what city?", "Calgary"),  # HJVYNX differs in one letter: not it
        ("hjvynx - which hotel city?", "Portland"),
        ("where does YT7788123456 go?", "Leeds"),
    ],
)
def test_a_code_asked_as_written_is_answered(
    memory: memlane.Memory, question: str, city: str
) -> None:
    texts = [item.text for item in memory.recall(None, question).items]
    assert texts and city in texts[0]
    assert not any(other in text for text in texts for other in {"Calgary", "Portland"} - {city})


@pytest.mark.parametrize(
    "question",
    [
        "where is reservation hjvyqt?",  # one letter off HJVYQX, two off HJVYNX
        "qjvyqx - which hotel city?",
        "where does YT7788123465 go?",  # two digits swapped
    ],
)
def test_a_code_asked_with_characters_changed_recalls_nothing(
    memory: memlane.Memory, question: str
) -> None:
    items = memory.recall(None, question).items
    assert not any(city in item.text for item in items for city in ("Calgary", "Portland", "Leeds"))


def test_only_codes_and_capitals_after_a_code_word_count() -> None:
    assert mistyped_codes("where is reservation hjvyqt?", "Confirmation code HJVYQX") == {"hjvyqt"}
    assert mistyped_codes("ynr9kn, which city?", "Booking ref YNR9LN, Oslo") == {"ynr9kn"}
    # capitals that follow no code word are words ("SORRY"), however near "worry" is
    assert mistyped_codes("don't worry about it", "SORRY I forgot the form") == frozenset()
    # a word the statement holds as written is not mistyped; short words never are
    assert mistyped_codes("code HJVYQX", "code HJVYQX, code HJVYQT") == frozenset()
    assert mistyped_codes("ref abcd", "ref ABCE") == frozenset()
    # three characters changed: a code of its own, not a mistyped one
    assert mistyped_codes("booking hjvabc", "booking HJVYQX") == frozenset()
