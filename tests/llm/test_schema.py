from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

import pytest

from memlane.llm import Length, Pattern, SchemaViolation, validate

SNAKE = Pattern(r"[a-z_]+", "snake_case")


@dataclass(frozen=True)
class Item:
    kind: Literal["a", "b"]
    name: Annotated[str, SNAKE]
    weight: float = 1.0
    tags: tuple[Annotated[str, Length(1, 5)], ...] = ()


@dataclass(frozen=True)
class Order:
    items: Annotated[list[Item], Length(1, 3)]
    note: str | None = None
    extra: dict[str, int] = field(default_factory=dict)
    payload: Any = None


@dataclass(frozen=True)
class Positive:
    n: int

    def __post_init__(self) -> None:
        if self.n <= 0:
            raise ValueError("n must be positive")


def test_builds_nested_instances_and_ignores_unknown_keys() -> None:
    data = {
        "items": [{"kind": "a", "name": "x_y", "weight": 2, "tags": ["t"], "colour": "red"}],
        "extra": {"k": 1},
        "payload": {"anything": [1, None]},
        "unknown": True,
    }
    order = validate(data, Order)
    assert order == Order(
        items=[Item("a", "x_y", 2.0, ("t",))],
        extra={"k": 1},
        payload={"anything": [1, None]},
    )
    assert isinstance(order.items[0].weight, float)
    assert isinstance(order.items[0].tags, tuple)


@pytest.mark.parametrize(
    ("data", "path", "fragment"),
    [
        ([], "", "expected an object, got an array"),
        ({}, "", 'missing required key "items"'),
        ({"items": []}, "items", "must not be empty"),
        ({"items": [{"kind": "a", "name": "x"}] * 4}, "items", "at most 3 items"),
        ({"items": [{"kind": "c", "name": "x"}]}, "items[0].kind", 'one of "a", "b"'),
        ({"items": [{"kind": "a", "name": "Bad Name"}]}, "items[0].name", "must be snake_case"),
        ({"items": [{"kind": "a", "name": "x", "weight": "2"}]}, "items[0].weight", "a number"),
        ({"items": [{"kind": "a", "name": "x", "weight": True}]}, "items[0].weight", "a number"),
        ({"items": [{"kind": "a", "name": "x", "tags": [""]}]}, "items[0].tags[0]", "not be empty"),
        (
            {"items": [{"kind": "a", "name": "x", "tags": ["toolong"]}]},
            "items[0].tags[0]",
            "at most 5 characters",
        ),
        ({"items": [{"kind": "a", "name": "x"}], "note": 5}, "note", "a string or null"),
        ({"items": [{"kind": "a", "name": "x"}], "extra": {"k": 1.5}}, "extra.k", "an integer"),
    ],
)
def test_violations_name_the_path(data: Any, path: str, fragment: str) -> None:
    with pytest.raises(SchemaViolation) as caught:
        validate(data, Order)
    assert caught.value.path == path
    assert fragment in caught.value.message
    assert isinstance(caught.value, ValueError)


def test_post_init_checks_become_violations() -> None:
    assert validate({"n": 2}, Positive) == Positive(2)
    with pytest.raises(SchemaViolation, match="n must be positive"):
        validate({"n": 0}, Positive)


def test_booleans_are_not_integers() -> None:
    with pytest.raises(SchemaViolation, match="an integer, got a boolean"):
        validate({"n": True}, Positive)


def test_unsupported_annotations_are_a_programming_error() -> None:
    @dataclass
    class Pair:
        both: tuple[int, str]

    with pytest.raises(TypeError, match="variadic"):
        validate({"both": [1, "a"]}, Pair)


def test_union_reports_the_inner_problem_of_the_matching_shape() -> None:
    @dataclass
    class Holder:
        item: Item | None = None

    assert validate({"item": None}, Holder) == Holder()
    with pytest.raises(SchemaViolation) as caught:
        validate({"item": {"kind": "z", "name": "x"}}, Holder)
    assert caught.value.path == "item.kind"
    with pytest.raises(SchemaViolation, match="expected an object or null, got a string"):
        validate({"item": "x"}, Holder)


def test_union_tries_every_option_before_failing() -> None:
    @dataclass
    class Loose:
        item: Item | dict[str, Any]

    assert validate({"item": {"kind": "z"}}, Loose) == Loose({"kind": "z"})


def test_reply_statements_need_words() -> None:
    from memlane.llm.replies import WorkflowDescriptionReply

    assert validate({"description": "退款流程。"}, WorkflowDescriptionReply).description
    with pytest.raises(SchemaViolation, match="placeholder"):
        validate({"description": "..."}, WorkflowDescriptionReply)
