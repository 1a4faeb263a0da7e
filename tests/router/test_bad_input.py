"""Bad queries and arguments get a clear InvalidInput; odd text never crashes recall."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import memlane
from memlane.errors import InvalidInput


@pytest.fixture
def stocked(mem):
    mem.facts.set("U-1", "location", "上海")
    mem.remember("U-1", "I like green tea and long walks")
    return mem


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("", "must not be empty"),
        ("   \n\t ", "must not be empty"),
        ("x" * 2_001, "longer than 2000"),
        ("用户\x00\x01\x02住在哪里", "control characters"),
        (b"\x89PNG\r\n\x1a\n\x00\x00".decode("latin-1"), "control characters"),
        ("where\ud800 do I live", "not valid Unicode"),
        ("?!。，…", "no letters or digits"),
        ("where does the user live", None),  # a normal query, for contrast
    ],
)
def test_bad_queries_are_refused_clearly(stocked, query, message):
    if message is None:
        assert stocked.recall("U-1", query).plan
        return
    with pytest.raises(InvalidInput, match=message) as caught:
        stocked.recall("U-1", query)
    assert caught.value.field == "query"


@pytest.mark.parametrize("query", [None, b"where do I live", 42, ["where"]])
def test_a_query_that_is_not_text_is_refused(stocked, query):
    with pytest.raises(InvalidInput, match="must be a string"):
        stocked.recall("U-1", query)


def test_a_query_of_exactly_the_limit_is_accepted(stocked):
    assert stocked.recall("U-1", "茶" * 2_000).plan


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({"k": 0}, "k"),
        ({"k": 101}, "k"),
        ({"k": True}, "k"),
        ({"k": 2.5}, "k"),
        ({"budget_tokens": 0}, "budget_tokens"),
        ({"budget_tokens": 10**9}, "budget_tokens"),
        ({"valid_at": "not a time"}, "valid_at"),
        ({"known_at": "2026-13-45"}, "known_at"),
        ({"session_id": ""}, "session_id"),
        ({"session_id": " s-1"}, "session_id"),
    ],
)
def test_bad_arguments_are_refused(stocked, arguments, field):
    with pytest.raises(InvalidInput) as caught:
        stocked.recall("U-1", "where does the user live", **arguments)
    assert caught.value.field == field


@pytest.mark.parametrize("subject", ["", "  U-1", "U\x00", 7])
def test_a_bad_subject_is_refused(stocked, subject):
    with pytest.raises(InvalidInput) as caught:
        stocked.recall(subject, "where does the user live")
    assert caught.value.field == "subject"


def test_k_bounds_are_inclusive(stocked):
    assert len(stocked.recall("U-1", "tea", k=1).items) <= 1
    assert stocked.recall("U-1", "tea", k=100).plan


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(query=st.text(min_size=1, max_size=200))
def test_any_text_gives_a_recall_or_a_clear_error(stocked: memlane.Memory, query: str):
    try:
        result = stocked.recall("U-1", query)
    except InvalidInput as error:
        assert error.field == "query"
    else:
        assert len(result.items) <= 8 and len(result.plan) == 4
        assert all(item.subject in (None, "U-1") for item in result.items)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    query=st.text(
        alphabet=st.sampled_from("0123456789-+@.()# 用户订单号手机邮箱ORDUorder上周lastMay"),
        min_size=1,
        max_size=60,
    )
)
def test_identifier_and_date_shaped_junk_never_crashes(stocked: memlane.Memory, query: str):
    try:
        stocked.recall(None, query)
    except InvalidInput as error:
        assert error.field == "query"
