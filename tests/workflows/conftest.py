"""Hand-written trajectories in the formats the workflow lane reads."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.conftest import FakeClock

import memlane

# Four runs on an airline site, written for these tests in the Mind2Web action-line format.
# The first two search flights (origin, destination and date differ); the others do not.
FLIGHTS_BOS_ORD = """
[link]  From Departure Airport or City Your Origin -> CLICK
[textbox]  Origin City or Airport -> TYPE: Boston
[link]  BOS Boston, MA -> CLICK
[link]  To Destination Airport or City Your Destination -> CLICK
[textbox]  Destination City or Airport -> TYPE: Chicago
[link]  ORD Chicago O'Hare, IL -> CLICK
[button]   Depart and Return Calendar Use enter to open -> CLICK
[link]  14 July 2023, Friday -> CLICK
[button]  done -> CLICK
[label]  Refundable Fares -> CLICK
[button]   SUBMIT -> CLICK
"""
FLIGHTS_DEN_MIA = """
[link]  From Departure Airport or City Your Origin -> CLICK
[textbox]  Origin City or Airport -> TYPE: Denver
[link]  DEN Denver, CO -> CLICK
[link]  To Destination Airport or City Your Destination -> CLICK
[textbox]  Destination City or Airport -> TYPE: Miami
[link]  MIA Miami, FL -> CLICK
[button]   Depart and Return Calendar Use enter to open -> CLICK
[link]  Next -> CLICK
[link]  2 August 2023, Wednesday -> CLICK
[button]  done -> CLICK
[button]   SUBMIT -> CLICK
"""
TRIP_LOOKUP = """
[tab]  MY TRIPS -> CLICK
[combobox]  Find Your Trip By -> CLICK
[option]  Confirmation Number -> CLICK
[input]   -> TYPE: QWERTY
[input]   -> TYPE: Ada
[input]   -> TYPE: Lovelace
[button]   SUBMIT -> CLICK
"""
FLIGHT_STATUS = """
[tab]  FLIGHT STATUS -> CLICK
[link]  11 May 2023, Thursday -> CLICK
[button]  done -> CLICK
[textbox]  Flight Number -> TYPE: 1234
[button]   SUBMIT -> CLICK
"""
DELTA_RUNS = [
    ("Find flights from Boston to Chicago on July 14th with refundable fares", FLIGHTS_BOS_ORD),
    ("Find flights from Denver to Miami on August 2nd", FLIGHTS_DEN_MIA),
    ("Find my trip with confirmation number QWERTY for Ada Lovelace", TRIP_LOOKUP),
    ("Check the status of flight 1234 on May 11", FLIGHT_STATUS),
]

WEBARENA_RUN = """
<think>
The order history is under My Account, so I open it first.
</think>
<action>
click('101')
</action>

<think>
Orders are listed newest first; the answer is in the Date column.
</think>
<action>
send_msg_to_user('The first purchase was on 3/2/22.')
</action>
"""


def refund(order: str, user: str, *, extra: bool = True) -> list[dict[str, object]]:
    """A plain-dict refund run; ``extra=False`` skips the manual review step."""
    steps: list[dict[str, object]] = [
        {"action": "lookup_user", "args": {"user": user}},
        {"action": "validate_order", "args": {"order": order}},
    ]
    if extra:
        steps.append({"action": "manual_review", "args": {"queue": "refunds"}})
    steps += [
        {"action": "issue_refund", "args": {"order": order, "method": "card"}},
        {"action": "notify", "args": {"channel": "email"}},
    ]
    return steps


@pytest.fixture
def wmem(clock: FakeClock, scratch_url: str) -> Iterator[memlane.Memory]:
    with memlane.Memory(scratch_url, clock=clock, embedder="hash") as memory:
        yield memory


@pytest.fixture
def backend(every_backend: str) -> str:
    """This suite is part of the contract: it runs on every backend."""
    return every_backend
