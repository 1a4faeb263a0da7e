"""Identifiers are stored as written and matched by a canonical key (issue 13, item 1)."""

from __future__ import annotations

import string
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

import memlane
from memlane.facts.normalize import code_key
from memlane.facts.phones import phone_key, phone_keys


@pytest.fixture
def ids(mem: memlane.Memory) -> memlane.Memory:
    for attribute in ("phone", "email", "order"):
        mem.facts.define(attribute, cardinality="many", identifier=True)
    return mem


@pytest.fixture
def in_region(clock, scratch_url) -> Iterator[object]:
    opened: list[memlane.Memory] = []

    def open_in(region: str) -> memlane.Memory:
        memory = memlane.Memory(scratch_url, clock=clock, region=region)
        opened.append(memory)
        memory.facts.define("phone", cardinality="many", identifier=True)
        return memory

    yield open_in
    for memory in opened:
        memory.close()


def test_order_ids_are_never_cut_short_and_differ_by_their_last_segment(ids):
    ids.facts.add("C-88", "order", "ORD-20261015-88")
    ids.facts.add("C-89", "order", "ORD-20261015-89")
    assert ids.facts.get_all("C-88", "order")[0].value == "ORD-20261015-88"
    assert ids.facts.lookup("order", "ORD-20261015-89") == ["C-89"]
    assert ids.facts.lookup("order", "ord 20261015 88") == ["C-88"]
    assert ids.facts.lookup("order", "ORD-20261015") == []


def test_order_ids_of_one_year_do_not_collide(ids):
    ids.facts.add("C-1", "order", "ORD-2026-10003")
    ids.facts.add("C-2", "order", "ORD-2026-10004")
    assert ids.facts.lookup("order", "ORD-2026") == []
    assert ids.facts.lookup("order", "ord2026 10003") == ["C-1"]


def test_any_written_form_of_an_id_finds_it_and_a_near_miss_does_not(ids):
    ids.facts.add("C-1", "order", "K31-560-X-B")
    ids.facts.add("C-2", "order", "K31-560-X-C")
    for asked in ("K31560XB", "k31 560 x b", "Ｋ３１－５６０－Ｘ－Ｂ", "K31/560/X/B"):
        assert ids.facts.lookup("order", asked) == ["C-1"], asked
    assert ids.facts.lookup("order", "K31-560-X") == []
    assert ids.facts.lookup("order", "K31-560-X-B-2") == []


def test_values_keep_their_case_and_separators(ids):
    ids.facts.add("C-1", "email", "Garcia.Imogen+Subs@Corp.example.org")
    ids.facts.add("C-2", "email", "garcia.imogen+subi@corp.example.org")
    assert ids.facts.get_all("C-1", "email")[0].value == "Garcia.Imogen+Subs@Corp.example.org"
    assert ids.facts.lookup("email", "garcia.imogen+subs@CORP.example.org") == ["C-1"]
    assert ids.facts.lookup("email", "Garcia.Imogen+Subi@Corp.example.org") == ["C-2"]
    assert ids.facts.lookup("email", "garcia.imogen@corp.example.org") == []


def test_a_chinese_mobile_is_found_with_or_without_its_country_code(ids):
    ids.facts.add("C-1", "phone", "+86 137 0000 3333")
    ids.facts.add("C-2", "phone", "137-0000-4444")
    assert ids.facts.get_all("C-1", "phone")[0].value == "+86 137 0000 3333"
    assert ids.facts.lookup("phone", "13700003333") == ["C-1"]
    assert ids.facts.lookup("phone", "137-0000-3333") == ["C-1"]
    assert ids.facts.lookup("phone", "+8613700004444") == ["C-2"]
    assert ids.facts.lookup("phone", "13700003334") == []


def test_a_default_region_makes_national_numbers_e164(in_region):
    mem = in_region("CN")
    mem.facts.add("C-1", "phone", "+86 137 0000 3333")
    mem.facts.add("C-2", "phone", "(021) 6234-5678")
    for written in ("+86 137 0000 3333", "137-0000-3333", "13700003333"):
        assert mem.facts.lookup("phone", written) == ["C-1"], written
    assert mem.facts.lookup("phone", "+86 21 6234 5678") == ["C-2"]
    assert mem.facts.lookup("phone", "021-62345678") == ["C-2"]
    mem.facts.add("C-1", "phone", "13700003333")  # the same number: nothing new
    assert len(mem.facts.get_all("C-1", "phone")) == 1


def test_a_us_number_is_found_with_and_without_plus_one_in_region_us(in_region):
    mem = in_region("US")
    mem.facts.add("C-1", "phone", "+1 206 555 0183")
    mem.facts.add("C-2", "phone", "(206) 555-0983")
    assert mem.facts.lookup("phone", "206-555-0183") == ["C-1"]
    assert mem.facts.lookup("phone", "+1 206 555 0983") == ["C-2"]
    assert mem.facts.lookup("phone", "206-555-0184") == []


def test_a_number_is_retracted_however_it_is_written(ids, clock):
    ids.facts.add("C-1", "phone", "+86 137 0000 3333", valid_from="2026-01-01")
    clock.advance(days=1)
    ended = ids.facts.retract("C-1", "phone", value="137 0000 3333")
    assert [f.value for f in ended] == ["+86 137 0000 3333"]
    assert ids.facts.lookup("phone", "13700003333") == []


def test_a_bad_region_is_refused():
    with pytest.raises(memlane.InvalidInput, match="region"):
        memlane.Memory(":memory:", region="Mars")


def test_the_region_may_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("MEMLANE_REGION", "us")
    with memlane.Memory(":memory:") as mem:
        assert mem.region == "US" == mem.facts.region
    with memlane.Memory(":memory:", region="CN") as mem:
        assert mem.region == "CN"


# -- the keys themselves --------------------------------------------------------------------

_ALNUM = string.ascii_uppercase + string.digits
ids_text = st.text(alphabet=_ALNUM, min_size=3, max_size=16)


@st.composite
def one_character_apart(draw: st.DrawFn) -> tuple[str, str]:
    text = draw(ids_text)
    at = draw(st.integers(0, len(text) - 1))
    other = draw(st.sampled_from(_ALNUM).filter(lambda char: char != text[at]))
    return text, text[:at] + other + text[at + 1 :]


@st.composite
def reformatted(draw: st.DrawFn, text: str) -> str:
    """``text`` in another case, with separators between its characters, maybe full width."""
    pieces = []
    for char in text:
        char = char.lower() if draw(st.booleans()) else char
        if draw(st.booleans()):
            char = chr(ord(char) + 0xFEE0)  # the full-width form
        pieces.append(char + draw(st.sampled_from(["", "", "-", " ", "/", ".", " - ", "－"])))
    return "".join(pieces)


@given(one_character_apart())
def test_ids_one_character_apart_never_share_a_key(pair):
    first, second = pair
    assert code_key(first) != code_key(second)


@given(st.data(), ids_text)
def test_any_reformatting_of_an_id_shares_its_key(data, text):
    assert code_key(data.draw(reformatted(text))) == code_key(text)


@given(ids_text, ids_text)
def test_a_trailing_segment_makes_another_id(head, tail):
    assert code_key(f"{head}-{tail}") != code_key(head)


mobiles = st.from_regex(r"1[3-9][0-9]{9}", fullmatch=True)


@given(mobiles, st.integers(0, 10), st.integers(1, 9))
def test_mobiles_one_digit_apart_never_share_a_key(number, at, step):
    changed = number[:at] + str((int(number[at]) + step) % 10) + number[at + 1 :]
    for region in (None, "CN"):
        assert not set(phone_keys(number, region)) & set(phone_keys(changed, region))


@given(mobiles, st.sampled_from(["{}", "+86 {}", "0086{}", "(+86) {}", "+86-{}"]))
def test_a_mobile_written_any_way_is_found(number, layout):
    grouped = f"{number[:3]} {number[3:7]} {number[7:]}"
    for region in (None, "CN"):
        stored = phone_key(layout.format(grouped), region)
        assert stored in phone_keys(number, region)
        assert phone_key(number, region) in phone_keys(layout.format(number), region)
