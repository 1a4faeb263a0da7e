"""Slots: a later statement that repeats an earlier one but for its value supersedes it."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

import memlane
from memlane.lang import zh
from memlane.lang.grammar import JOINERS
from memlane.lang.script import UNSPACED_RANGES, fold
from memlane.lang.sentences import NUMBERING
from memlane.router.slots import _EDGE_PUNCT, SPEAKER_LABEL, _pieces, clauses, restates


def _one(text: str, speaker: str = "") -> str:
    (clause,) = clauses(text, speaker)
    return clause


@pytest.mark.parametrize(
    ("old", "new", "values"),
    [
        ("The mayor of Tovgate is Grace Bhatt.", "The mayor of Tovgate is Omar Reyes.",
         ("grace bhatt", "omar reyes")),
        ("22、沛启物流的总部设在沅川市。", "第35条：沛启物流的总部设在霁源市。", ("沅川", "霁源")),
        ("The first ferry to Eldden Island leaves at 6:20.",
         "Fact 9: The first ferry to Eldden Island leaves at 7:05.", ("6:20", "7:05")),
        ("星钧医药共有4560名员工。", "星钧医药共有5000名员工。", ("4560", "5000")),
    ],
)  # fmt: skip
def test_a_statement_repeated_with_another_value_restates_its_slot(
    old: str, new: str, values: tuple[str, str]
) -> None:
    found = restates(_one(old), _one(new))
    assert found is not None
    assert found.values == values


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # different holders, same value: two slots
        ("Ada Moss chairs the Tidewater Club.", "Ben Ode chairs the Tidewater Club."),
        ("岑湾学院的校训是行稳致远。", "璟湾学院的校训是行稳致远。"),
        # the same value again, with a filler word
        ("The mayor of Tovgate is Grace Bhatt.", "The mayor of Tovgate is now Grace Bhatt."),
        # too little shared: not one slot
        ("I like tea.", "I sold my car to a colleague from the office last week."),
        ("That's great!", "That's awesome!"),
        # episodes (a past tense, no present): a later one adds to the earlier, both hold
        ("Mel said: [shared an image: a photo of a painting of a sunset over a lake]",
         "Mel said: [shared an image: a photo of a sunset over a body of water]"),
        ("Yesterday we painted a red barn.", "Yesterday we painted a lighthouse."),
    ],
)  # fmt: skip
def test_statements_of_different_slots_do_not_restate(old: str, new: str) -> None:
    assert restates(_one(old), _one(new)) is None


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Mel said: Bob's favourite team is Arsenal.",
         "Mel said: Bob's favourite team is Chelsea."),
        ("Preferred name: Robert Lane", "Preferred name: Bobby Lane"),
        ("The keeper said the lighthouse is open till 9:30.",
         "The keeper said the lighthouse is open till 10:15."),
        # a change told in the past says how things are now
        ("I switched to the night shift at the depot.",
         "I switched to the day shift at the depot."),
    ],
)  # fmt: skip
def test_a_frame_that_says_how_things_are_holds_a_slot(old: str, new: str) -> None:
    assert restates(_one(old), _one(new)) is not None


def test_a_span_the_question_names_is_the_topic_not_a_value() -> None:
    old = _one("The head office of Brightwell Foods is in Lyon.")
    new = _one("The head office of Brightwell Farms is in Lyon.")
    assert restates(old, new, asked="where is the head office of brightwell foods?") is None


def test_the_speaker_label_and_numbering_are_not_part_of_the_frame() -> None:
    assert clauses("U-7 said: [26] The owner of the Inn is Kit.", "U-7") == (
        "the owner of the inn is kit",
    )
    assert clauses("U-7说：（3）汐矶养蜂协会的会长是宋嘉树。", "U-7") == (
        "汐矶养蜂协会的会长是宋嘉树",
    )


def test_recall_marks_an_unseen_relation_stale_when_a_later_statement_refills_it() -> None:
    start = datetime(2026, 1, 1, tzinfo=UTC)
    with memlane.Memory(
        ":memory:", embedder="hash", clock=lambda: start + timedelta(days=9)
    ) as mem:
        mem.remember("kb", "The lighthouse keeper of Skarn Point is Ivo Lund.", at=start)
        mem.remember("kb", "The bakery on Elm Road opens at 8:30.", at=start + timedelta(days=1))
        mem.remember("kb", "The lighthouse keeper of Skarn Point is Mira Holt.",
                     at=start + timedelta(days=2))  # fmt: skip
        recall = mem.recall("kb", "Who keeps the lighthouse at Skarn Point?")
    top = recall.items[0]
    assert "Mira Holt" in top.text and top.status == "current"
    old = next(item for item in recall.items if "Ivo Lund" in item.text)
    assert old.status == "stale"
    assert all(item.status == "current" for item in recall.items if "bakery" in item.text)


def test_later_episodes_of_one_shape_leave_the_earlier_ones_current() -> None:
    start = datetime(2026, 1, 1, tzinfo=UTC)
    with memlane.Memory(
        ":memory:", embedder="hash", clock=lambda: start + timedelta(days=9)
    ) as mem:
        for day, caption in enumerate(
            ("a painting of a sunset over a lake", "a bride holding a bouquet", "a black dog")
        ):
            mem.remember("kb", f"Mel said: [shared an image: a photo of {caption}]",
                         at=start + timedelta(days=day))  # fmt: skip
        assert mem.index.wait(timeout=30)
        recall = mem.recall("kb", "When did Mel paint a sunset?")
    sunset = next(item for item in recall.items if "sunset" in item.text)
    assert sunset.status == "current" and sunset.superseded_by is None
    assert all(item.status == "current" for item in recall.items)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ('the motto of brannock academy is "truth before comfort',
         'the motto of brannock academy is "comfort in truth'),
        ("the slogan of the wexley fair is “bread and roses”",
         "the slogan of the wexley fair is “roses for all”"),
    ],
)  # fmt: skip
def test_a_quoted_value_is_one_value_whatever_words_two_share(old, new):
    """Two mottos sharing "truth" differ in one place: the quotation the frame holds."""
    found = restates(old, new)
    assert found is not None and found.values[1].startswith(("comfort", "roses")), found


_OLD_PIECES = re.compile(
    rf"(?P<unspaced>[{UNSPACED_RANGES}]+)|\d[\d,.:]*\d|\d|[^\W\d_{UNSPACED_RANGES}]{{2,}}"
)


def _pieces_as_before(span: str) -> set[str]:
    """The pieces as e2164a8 found them: every piece filtered for grammar characters."""
    found: set[str] = set()
    for match in _OLD_PIECES.finditer(span):
        piece = match[0]
        if match["unspaced"]:
            found.update(piece[i : i + 2] for i in range(len(piece) - 1))
        elif piece not in JOINERS:
            found.add(piece)
    return {piece for piece in found if not set(piece) & zh.FUNCTION_CHARACTERS}


def test_grammar_characters_are_all_of_unspaced_scripts() -> None:
    # _pieces filters only the pairs of unspaced text for them: a word of another script
    # (letters outside UNSPACED_RANGES) can hold none
    unspaced = re.compile(f"[{UNSPACED_RANGES}]")
    assert all(unspaced.fullmatch(char) for char in zh.FUNCTION_CHARACTERS)


@given(
    st.lists(
        st.sampled_from(
            ["the", "of", "lessons", "in", "3.85", "7", "9:30", "的", "是", "蘅塘", "岛",
             "渡轮", "ふね", "é", "ab", " ", ",", "-"]
        )
        | st.text(max_size=4),
        max_size=12,
    ).map("".join)
)  # fmt: skip
def test_pieces_are_those_found_before(span: str) -> None:
    assert _pieces(span) == _pieces_as_before(span)


def _clauses_as_before(text: str, speaker: str = "") -> tuple[str, ...]:
    """The clauses as e2164a8 found them: every text split and its numbering tried."""
    folded, label = fold(text), fold(speaker)
    found = []
    for piece in re.split(r"[。；;！!？?\n]+|[.](?=\s|$)", folded):
        clause = piece.lstrip()
        if label and clause.startswith(label):
            clause = SPEAKER_LABEL.sub("", clause[len(label) :])
        clause = NUMBERING.sub("", clause)
        clause = " ".join(clause.split()).strip(_EDGE_PUNCT)
        if clause:
            found.append(clause)
    return tuple(found)


@given(
    st.lists(
        st.sampled_from(
            ["U-1 said: ", "U-1说：", "Fact 12: ", "(3) ", "22、", "第33条：", "#4 ",
             "#", "No", "the", "team", "is", "3.85", "7", " ", ".", ". ", "!", "？", "。",
             "；", "\n", ",", "住在", "上海", "ａ", "Ｆａｃｔ"]
        )
        | st.text(max_size=3),
        max_size=14,
    ).map("".join)
)  # fmt: skip
def test_clauses_are_those_found_before(text: str) -> None:
    assert clauses.__wrapped__(text, "U-1") == _clauses_as_before(text, "U-1")
    assert clauses.__wrapped__(text) == _clauses_as_before(text)


@given(st.text(alphabet="ab Z9 ,.-'é²Ⅻ中文٣", max_size=24))
def test_word_cuts_are_where_no_ascii_letter_or_digit_is_on_both_sides(clause: str) -> None:
    """The cuts tested with a set of characters, as they were with ``str`` methods."""
    from memlane.router.slots import _joins, word_cuts

    def joins(cut: int) -> bool:
        pair = clause[cut - 1 : cut + 1]
        return 0 < cut < len(clause) and all(ch.isascii() and ch.isalnum() for ch in pair)

    assert word_cuts(clause) == tuple(cut for cut in range(1, len(clause)) if not joins(cut))
    assert [_joins(clause, cut) for cut in range(-1, len(clause) + 2)] == [
        joins(cut) for cut in range(-1, len(clause) + 2)
    ]


def _alike_from_start(first: str, second: str) -> int:
    """The characters two texts open with alike, counted one by one (as e2164a8 did)."""
    size = 0
    for a, b in zip(first, second, strict=False):
        if a != b:
            break
        size += 1
    return size


@given(
    st.text(alphabet="ab 中", max_size=12),
    st.text(alphabet="ab 中", max_size=12),
    st.text(alphabet="ab 中", max_size=12),
    st.integers(min_value=0, max_value=12),
)
def test_frames_shared_are_measured_as_one_character_at_a_time(
    head: str, first: str, second: str, start: int
) -> None:
    """The halving prefix and suffix give what comparing character by character gave."""
    from memlane.router.slots import _common_prefix, _common_suffix

    old, new = head + first, head + second
    assert _common_prefix(old, new) == _alike_from_start(old, new)
    start = min(start, len(old), len(new))
    assert _common_suffix(old, new, start) == _alike_from_start(
        old[start:][::-1], new[start:][::-1]
    )
