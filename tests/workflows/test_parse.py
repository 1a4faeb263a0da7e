"""Reading trajectories in both AWM formats and as plain dicts."""

from __future__ import annotations

import pytest
from tests.workflows.conftest import FLIGHTS_BOS_ORD, TRIP_LOOKUP, WEBARENA_RUN

from memlane.errors import InvalidInput
from memlane.workflows.model import Action
from memlane.workflows.parse import (
    parse_mind2web,
    parse_mind2web_line,
    parse_steps,
    parse_webarena,
    split_tasks,
)


def test_mind2web_lines_keep_role_label_verb_and_value() -> None:
    actions = parse_mind2web(FLIGHTS_BOS_ORD)
    assert len(actions) == 11
    assert actions[1] == Action(
        "type", {"element": "[textbox] Origin City or Airport", "value": "Boston"}
    )
    assert actions[0].action == "click" and "value" not in actions[0].args
    assert parse_mind2web_line("just prose, no arrow") is None


def test_mind2web_empty_label_and_select() -> None:
    actions = parse_mind2web(TRIP_LOOKUP)
    assert actions[3].args == {"element": "[input]", "value": "QWERTY"}
    select = parse_mind2web_line("[combobox]  Guests -> SELECT: 2 adults")
    assert select == Action("select", {"element": "[combobox] Guests", "value": "2 adults"})


def test_webarena_blocks_become_calls_with_their_reasoning() -> None:
    actions = parse_webarena(WEBARENA_RUN)
    assert [a.action for a in actions] == ["click", "send_msg_to_user"]
    assert actions[0].args == {"arg0": "101"}
    assert actions[0].note.startswith("The order history is under My Account")
    assert actions[1].args["arg0"] == "The first purchase was on 3/2/22."


def test_parse_steps_accepts_text_dicts_and_lines() -> None:
    assert [a.action for a in parse_steps(WEBARENA_RUN)] == ["click", "send_msg_to_user"]
    mixed = parse_steps(
        [{"action": "validate_order", "args": {"order": "ORD-1", "n": 2}}, "[button] Go -> CLICK"]
    )
    assert mixed[0].args == {"order": "ORD-1", "n": "2"}
    assert mixed[1] == Action("click", {"element": "[button] Go"})


@pytest.mark.parametrize(
    "bad",
    ["", [], [{"args": {}}], [42], [{"action": "x", "args": 3}], None, 7, {"action": "click"}],
)
def test_parse_steps_rejects_what_is_not_an_action(bad: object) -> None:
    with pytest.raises(InvalidInput):
        parse_steps(bad)  # type: ignore[arg-type]


def test_split_tasks_reads_query_headers() -> None:
    text = (
        "## Query 1: Find a flight\nActions:\n[button] Go -> CLICK\n"
        "Query: Second\n<action>\nnoop()\n</action>"
    )
    tasks = split_tasks(text)
    assert [t for t, _ in tasks] == ["Find a flight", "Second"]
    assert len(parse_mind2web(tasks[0][1])) == 1
    assert parse_webarena(tasks[1][1])[0].action == "noop"
