"""States said without the usual verbs: "I'm in X", subject-less chat, "joined X", addresses."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memlane.extract import RuleExtractor

AT = datetime(2026, 5, 20, 9, 0, tzinfo=UTC)


def facts(text: str) -> list[tuple[str, object]]:
    ops = RuleExtractor().extract(text, at=AT, timezone=UTC).ops
    return [(op.attribute, op.value) for op in ops if op.kind == "set"]


@pytest.mark.parametrize(
    ("text", "attribute", "value"),
    [
        ("I'm in Bergen, in case that helps the courier", "location", "Bergen"),
        ("Settled in Tromso now, been here a month", "location", "Tromso"),
        ("Update: we're in Leeds now", "location", "Leeds"),
        ("Relocated over from Bergen to Tromso in March", "location", "Tromso"),
        ("My address is 4 Mill Lane, Harrogate", "location", "Harrogate"),
        ("Home is Tromso for us", "location", "Tromso"),
        ("I'm a pharmacist at Kestrel Health", "employer", "Kestrel Health"),
        ("New job — I'm at Northwind now", "employer", "Northwind"),
        ("Got hired by Northwind! Starting Monday", "employer", "Northwind"),
        ("I quit my old job and joined Bluefin last spring", "employer", "Bluefin"),
        ("Records say: employer Bluefin.", "employer", "Bluefin"),
        ("Moved on: formerly Acme, now with Bluefin.", "employer", "Bluefin"),
    ],
)
def test_a_state_said_in_chat_is_read(text: str, attribute: str, value: str) -> None:
    assert (attribute, value) in facts(text)


@pytest.mark.parametrize(
    "text",
    [
        "I moved out of Bergen",  # the place left, not where one lives
        "I'm with Sam at the cinema",  # company, not an employer
        "If I'm in Bergen next week, I'll call",  # a supposition
        "My sister got hired by Northwind? No way",  # a question
    ],
)
def test_what_is_not_a_state_of_the_speaker_is_not_read(text: str) -> None:
    assert not [found for found in facts(text) if found[0] in ("location", "employer")]
