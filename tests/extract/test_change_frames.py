"""A change told in two parts: a leaving clause and an arriving one, or a pointing word.

"我已经不在X干了，去了Y" names the new employer only with a verb of arriving (去, 进, 加入)
that alone would be a trip; "Y poached me" names it as the one who acts on the speaker;
"transferred to our Y office, so I'm living there now" names the new city by pointing back;
"派到Y常驻" names it by a transfer. The old value is retracted ("last day at X", "X let me go").
"""

from __future__ import annotations

import pytest

from memlane.lang import retractions
from tests.support.stated import stated


@pytest.mark.parametrize(
    ("text", "attribute", "value"),
    [
        ("我现在已经不在青木集团上班了，进了蓝帆科技", "employer", "蓝帆科技"),
        ("我不在蓝帆科技干了，上个月去了青木集团", "employer", "青木集团"),
        ("去年从青木集团离职，去了蓝帆科技", "employer", "蓝帆科技"),
        ("我离开青木集团加入了蓝帆科技", "employer", "蓝帆科技"),
        ("Not with Bluefin any more, Northwind poached me in March", "employer", "Northwind"),
        ("Kestrel Health hired me last week!", "employer", "Kestrel Health"),
        ("I got moved to our Tromso branch, so we're based there now", "location", "Tromso"),
        ("Company sent me to the Leeds site, living there these days", "location", "Leeds"),
        ("今年我被外派到芜湖了", "location", "芜湖"),
        ("我被调到镇江了，下个月开始", "location", "镇江"),
        ("又搬家了🥲 这次从芜湖搬到了镇江", "location", "镇江"),
        ("Hi, it's Noor. I'm with Northwind", "employer", "Northwind"),
        ("We're with Bluefin, in the audit team", "employer", "Bluefin"),
        ("I was born in Osaka, grew up there too", "hometown", "Osaka"),
        ("我在芜湖住了好些年了", "location", "芜湖"),
    ],
)
def test_a_change_told_in_two_parts_is_read(text: str, attribute: str, value: str) -> None:
    assert (attribute, value) in stated(text)


@pytest.mark.parametrize(
    "text",
    [
        "我离开了芜湖，去镇江了",  # a place after the arriving verb: no employer
        "他已经不在蓝帆科技干了，去了青木集团",  # someone else's job
        "我去了青木集团开会",  # an arriving verb with no leaving clause: a visit
        "I was in Tromso last year and loved it there",  # no verb of living before "there"
        "They hired me",  # a pronoun is no employer
        "我被调到市场部了",  # a transfer to no known place
        "I'm with Sam at the cinema",  # company: more is said after the name
        "My brother was born in Osaka, grew up there",  # his, not the speaker's
        "我在酒店住了一晚",  # a hotel is no place one lives
    ],
)
def test_half_a_change_is_no_new_value(text: str) -> None:
    assert not [fact for fact in stated(text) if fact[0] in ("employer", "location")]


@pytest.mark.parametrize(
    ("text", "old"),
    [
        ("我已经不在青木集团做事了", "青木集团"),
        ("Final day at Bluefin was yesterday", "bluefin"),
        ("Northwind let me go in March", "northwind"),
    ],
)
def test_a_job_left_is_retracted(text: str, old: str) -> None:
    assert [r.old for r in retractions(text)] == [old]
