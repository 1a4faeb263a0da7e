"""States said without the usual verbs: "I'm in X", subject-less chat, "joined X", addresses."""

from __future__ import annotations

import pytest

from tests.support.stated import stated


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
        ("finally got the keys to our new flat in Harrogate", "location", "Harrogate"),
        ("eventualy moved to Tromso, loving it", "location", "Tromso"),
        ("我人在镇江，一般都在这", "location", "镇江"),
        ("我在芜湖生活十来年了", "location", "芜湖"),
        ("上周刚在镇江落户", "location", "镇江"),
        ("我前段时间从芜湖搬去镇江了", "location", "镇江"),
        ("档案备注：常住城市芜湖。", "location", "芜湖"),
        ("档案备注：已由芜湖迁居镇江。", "location", "镇江"),
        ("我是小周，寄件地址是芜湖中山路8号", "location", "芜湖"),  # a known place opens it
        ("我在蓝帆科技做会计", "employer", "蓝帆科技"),
        ("我在中国联通做客服", "employer", "中国联通"),
        ("我跳槽到蓝帆科技了", "employer", "蓝帆科技"),
        ("跳槽去蔚来了，美团太卷了", "employer", "蔚来"),  # 来 ends a one-character name
        ("上个月搬到西安来了", "location", "西安"),  # a directional 来 ends none
        ("资料：工作单位蓝帆科技。", "employer", "蓝帆科技"),
        ("更新：原蓝帆科技，现就职于青木集团。", "employer", "青木集团"),
        ("我是青木集团的员工", "employer", "青木集团"),
    ],
)
def test_a_state_said_in_chat_is_read(text: str, attribute: str, value: str) -> None:
    assert (attribute, value) in stated(text)


@pytest.mark.parametrize(
    "text",
    [
        "I moved out of Bergen",  # the place left, not where one lives
        "I'm with Sam at the cinema",  # company, not an employer
        "If I'm in Bergen next week, I'll call",  # a supposition
        "My sister got hired by Northwind? No way",  # a question
        "Emily moved to Bergen",  # a name ending in -ly is no adverb
        "我在家做饭",  # cooking at home
    ],
)
def test_what_is_not_a_state_of_the_speaker_is_not_read(text: str) -> None:
    assert not [found for found in stated(text) if found[0] in ("location", "employer")]
