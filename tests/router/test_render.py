"""The rendered block: sections in order, stale flagged, always within the token budget."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from memlane.facts.model import Fact
from memlane.router.model import RecallItem
from memlane.router.render import render
from memlane.summaries.text import estimate_tokens

AT = datetime(2026, 7, 4, 2, tzinfo=UTC)


def fact_item(attribute: str, value: str, status: str = "current") -> RecallItem:
    fact = Fact(1, "U-1", attribute, value, AT, None, AT, None)
    text = f"{attribute}: {value} (since 2026-07-04)"
    return RecallItem("exact", text, 1.0, status, fact, kind="fact", ref=f"fact:{attribute}")


def note_item(text: str, index: int, status: str = "current") -> RecallItem:
    return RecallItem(
        "summary",
        text,
        0.5,
        status,
        kind="note",
        ref=f"note:{index}",
        at=AT - timedelta(days=index),
        superseded_by="location is now 北京 (since 2026-06-22)" if status == "stale" else None,
    )


def test_sections_come_in_a_fixed_order_with_stale_items_flagged():
    items = [
        fact_item("location", "北京"),
        RecallItem("window", "user: 我搬家了", 0.9, kind="turn", ref="s#1", at=AT),
        note_item("U-1 likes tea", 1),
        fact_item("location", "上海", "historical"),
        note_item("U-1住在上海", 2, "stale"),
    ]
    rendered = render(items, budget_tokens=500, subjects=["U-1"], zone=UTC)
    assert rendered.text.splitlines() == [
        "Memory of U-1:",
        "Facts (current):",
        "- location: 北京 (since 2026-07-04)",
        "This conversation (latest turns):",
        "- [2026-07-04 02:00] user: 我搬家了",
        "From memory (summaries and notes):",
        "- [2026-07-03] U-1 likes tea",
        "History (no longer valid):",
        "- location: 上海 (since 2026-07-04)",
        "Outdated (superseded, do not rely on):",
        "- (outdated) [2026-07-02] U-1住在上海 — location is now 北京 (since 2026-06-22)",
    ]
    assert all(item.rendered for item in rendered.items)
    assert rendered.tokens == estimate_tokens(rendered.text)


@pytest.mark.parametrize(
    "sentence",
    [
        "用户在二零二六年的夏天从上海搬到了北京，并且开始在一家新的科技公司上班。",
        "The user moved from Shanghai to Beijing in the summer and started a new job there.",
    ],
    ids=["cjk", "latin"],
)
@pytest.mark.parametrize("budget", [30, 60, 120, 400])
def test_the_block_never_exceeds_the_budget(sentence, budget):
    items = [fact_item("location", "北京")] + [note_item(sentence, i) for i in range(1, 30)]
    rendered = render(items, budget_tokens=budget, subjects=["U-1"], zone=UTC)
    assert 0 < estimate_tokens(rendered.text) <= budget
    shown = [item for item in rendered.items if item.rendered]
    assert shown[0].kind == "fact"  # best first: the fact is never the one left out
    assert len(shown) < len(items)
    assert rendered.text.count("\n- ") == len(shown)


def test_cjk_costs_more_than_latin_so_fewer_chinese_lines_fit():
    chinese = [note_item("用户从上海搬到了北京，开始在一家新的科技公司上班", i) for i in range(40)]
    english = [note_item("The user moved from Shanghai to Beijing for work", i) for i in range(40)]
    zh = render(chinese, budget_tokens=200, subjects=[], zone=UTC)
    en = render(english, budget_tokens=200, subjects=[], zone=UTC)
    zh_lines = sum(item.rendered for item in zh.items)
    en_lines = sum(item.rendered for item in en.items)
    assert 0 < zh_lines < en_lines
    assert estimate_tokens(zh.text) <= 200 and estimate_tokens(en.text) <= 200


def test_a_long_item_is_clipped_to_fit_rather_than_dropped():
    long = "Order ORD-1234 shipped on 2026-07-01, " + ", ".join(
        f"and then detail number {i} about the parcel" for i in range(60)
    )
    rendered = render([note_item(long, 1)], budget_tokens=40, subjects=[], zone=UTC)
    assert rendered.items[0].rendered and estimate_tokens(rendered.text) <= 40
    assert "ORD-1234" in rendered.text and "2026-07-01" in rendered.text


def test_a_budget_too_small_for_anything_gives_an_empty_block():
    rendered = render([fact_item("location", "北京")], budget_tokens=3, subjects=["U-1"], zone=UTC)
    assert rendered.text == "" and rendered.tokens == 0
    assert not rendered.items[0].rendered


def test_recall_respects_the_budget_end_to_end(mem):
    for i in range(30):
        mem.remember("U-1", f"我在第{i}次旅行中去了云南的大理和丽江，拍了很多照片")
    r = mem.recall("U-1", "用户上次旅行去了哪里", k=30, budget_tokens=120)
    assert estimate_tokens(r.text) <= 120 and r.tokens <= 120
    assert 0 < sum(item.rendered for item in r.items) < len(r.items)
    big = mem.recall("U-1", "用户上次旅行去了哪里", k=30, budget_tokens=5000)
    assert all(item.rendered for item in big.items)
