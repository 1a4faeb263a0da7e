"""Typed spans and claims take time linear in the text: a long run is tried once, not per position.

A regular expression runs holding the GIL, so a quadratic one stalls every request of a
server while one long note is read (a note of 20,000 digits took 142 s; 10,000 "1." 30 s).
"""

from __future__ import annotations

import time

import pytest

from memlane.router.claims import claims
from memlane.summaries.text import find_spans

LONG = 20_000
SECONDS = 3.0
"""Generous for linear work (about 0.1 s here); the quadratic versions took 30 s and more."""


@pytest.mark.parametrize(
    "text",
    ["0" * LONG, "1." * (LONG // 2), "1 " * (LONG // 2), "x@" * (LONG // 2), "a1" * (LONG // 2)],
    ids=["digits", "decimals", "numbers", "at-signs", "alphanumeric"],
)
def test_find_spans_reads_long_runs_in_linear_time(text: str) -> None:
    started = time.perf_counter()
    find_spans(text)
    assert time.perf_counter() - started < SECONDS


def test_claims_read_a_long_word_in_linear_time() -> None:
    started = time.perf_counter()
    claims("a" * LONG, "U-1")
    assert time.perf_counter() - started < SECONDS


def test_spans_inside_runs_are_still_found_from_their_start() -> None:
    found = [(s.kind, s.text) for s in find_spans("paid 1,234.5元 for 2.5kg, mail a.b@c.org")]
    assert found == [("amount", "1,234.5元"), ("quantity", "2.5kg"), ("identifier", "a.b@c.org")]


@pytest.mark.parametrize(
    ("text", "identifier"),
    [
        ("已为您下单洗地机，订单号DD202577724821，预计4月11日送达。", "DD202577724821"),
        ("寄到中通ZT7788123456", "ZT7788123456"),
        ("用户U-001住在上海", "U-001"),
    ],
    ids=["order", "tracking", "subject"],
)
def test_an_identifier_right_after_chinese_characters_is_found_whole(text, identifier) -> None:
    """A Chinese character is no part of an identifier: "号DD2025…" is not one long word."""
    assert ("identifier", identifier) in [(s.kind, s.text) for s in find_spans(text)]
