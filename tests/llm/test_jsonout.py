from __future__ import annotations

import pytest

from memlane.llm import NoJSONFound, extract_json


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1}', {"a": 1}),
        ('  \n{"a": [1, 2]}\n', {"a": [1, 2]}),
        ('```json\n{"a": 1}\n```', {"a": 1}),
        ('```\n{"a": 1}\n```', {"a": 1}),
        ('Here you go:\n```JSON\n{"a": "x"}\n```\nAnything else?', {"a": "x"}),
        ('The answer is {"a": {"b": "}"}} as requested.', {"a": {"b": "}"}}),
        ('Use {braces} wisely: {"a": 2}', {"a": 2}),
        ('<think>draft {"a": 0}</think>{"a": 3}', {"a": 3}),
        ('{"a": [1, 2,], "b": 3,}', {"a": [1, 2], "b": 3}),
        ('{"用户": "北京"}', {"用户": "北京"}),
        ('{"a": 1} and then {"a": 2}', {"a": 1}),
    ],
)
def test_finds_the_answer(text: str, expected: object) -> None:
    assert extract_json(text) == expected


def test_a_whole_reply_that_is_json_but_not_an_object_is_returned() -> None:
    # Validation, not decoding, decides that a list is the wrong shape.
    assert extract_json("[1, 2]") == [1, 2]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "empty"),
        ("   <think>hmm</think>  ", "empty"),
        ("I don't know.", "no JSON object"),
        ('{"a": 1', "does not parse"),
        ("{'a': 1}", "does not parse"),
    ],
)
def test_reports_why_nothing_was_found(text: str, reason: str) -> None:
    with pytest.raises(NoJSONFound, match=reason):
        extract_json(text)


def test_unterminated_thinking_hides_everything() -> None:
    with pytest.raises(NoJSONFound):
        extract_json('<think>{"a": 1} and I keep thinking')


def test_no_json_found_is_a_value_error() -> None:
    assert issubclass(NoJSONFound, ValueError)
