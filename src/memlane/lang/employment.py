"""How the two languages tell that someone started or stopped working somewhere, or moved.

A change of job is told in two parts, in either order: a *leaving* clause ("我已经不在腾讯干了",
"离开腾讯", "last day at Philips was Friday", "Acme let me go") and an *arriving* one
("去了比亚迪", "加入了百度", "Globex poached me"). The leaving clause names the old value; an
arriving verb after it names the new one, even a verb that alone names no employer (去, 到,
进: "去了比亚迪" after a leaving clause is a new job, on its own a trip). An employer named as
the one who acts on the speaker ("Globex *hired me*", "Acme *let me go*") is read before the
verb. A transfer (调到, 派到) names a new city when it names a known place.
"""

from __future__ import annotations

_ZH_VALUE = r"[^，。；！？,.;!?\s]{1,12}?"

ZH_NOT_AT_JOB = rf"不在(?P<old>{_ZH_VALUE})(?:干|工作|上班|做事|任职|打工)了"
"""A job left, the old employer inside the frame: "我已经不在<old>干了"."""

ZH_LEFT_JOB = (
    rf"{ZH_NOT_AT_JOB}"
    rf"|(?:离开|辞去|辞掉|告别)了?(?P<left>{_ZH_VALUE})(?=[，,、]|了|加入|去|到|进|$)"
    r"|离职|辞职|跳槽"
)
ZH_LEFT_JOB_GATE = ("不在", "离开", "辞去", "辞掉", "告别", "离职", "辞职", "跳槽")
"""A leaving clause: "不在<old>干了", "离开<old>", "离职". ``old``/``left``: the old employer."""

ZH_ARRIVES = r"(?:加入了?|去了|到了|进了|去|到|进)"
"""Verbs of arriving: after a leaving clause, the value after them is the new employer."""

ZH_TRANSFERRED = r"被?(?:调回到?|调到|调往|调去|派到|派往|派驻到?|外派到?)了?\s*"
ZH_TRANSFERRED_GATE = ("调", "派")
"""A transfer ("我被派到苏州常驻了", "又调回杭州了"): the known place it names is where one lives
(the speaker may be its object: 被)."""

EN_TAKEN_ON = r"\s+(?:just\s+|finally\s+)?(?:hired|poached|recruited|headhunted)\s+me\b"
EN_TAKEN_ON_GATE = ("hired me", "poached me", "recruited me", "headhunted me")
"""After an organisation that now employs the speaker: "Globex *poached me* in May"."""

EN_LET_GO = r"\s+(?:let\s+me\s+go|laid\s+me\s+off|fired\s+me|sacked\s+me)\b"
"""After an organisation the speaker no longer works for: "Acme *let me go*"."""

EN_LAST_DAY = r"\b(?:last\s+day|final\s+day|last\s+shift)\s+(?:at|with)"
"""Before an organisation the speaker no longer works for: "*last day at* Philips was Friday"."""

EN_LAST_DAY_END = r"\s+(?:was|is|were|will|ends|ended)\b"
"""Where the organisation after :data:`EN_LAST_DAY` ends: the verb that tells the day."""

EN_ORGANISATION = r"(?:[A-Z][\w&'.-]*)(?:\s+[A-Z][\w&'.-]*){0,3}"
"""A proper name as written: one to four capitalized words ("Globex", "Kestrel Health"); a
lower-case word inside one ("Bank of China") ends it."""

EN_THERE = "there"
"""A place named again by pointing back: "transferred to our Paris office, so I'm living
*there* now" lives in Paris."""

EN_PLACE_LEAD = r"\b(?:to|in|at|into|near)\s+(?:(?:our|the|my|their|his|her|a|an)\s+)?$"
"""What stands before a name that "there" may point back to when it is no known place ("to
our Perth office", "to the Leeds site")."""

EN_LIVES_THERE = (
    r"(?=[lbsr])\b(?:lives?|living|based|settled|staying|reside|residing)\s+(?=there\b)"
)
EN_LIVES_THERE_GATE = ("there",)
"""A verb of living before "there" (:data:`EN_THERE`), which names no place of its own."""

EN_WITH_ALONE = (
    r"\b(?:i['’]?m|i\s+am|we['’]?re|we\s+are)\s+(?:now\s+|currently\s+|still\s+)?with\s+"
    r"(?=(?:(?!(?:at|in|on|to|for|from|and|by|with|the|my|our|his|her)\b)[a-z][\w&'.-]*\s*){1,3}"
    r"[.!]?$)"
)
EN_WITH_ALONE_GATE = ("with",)
""""I'm with Zendesk" ending its clause: an employer. With more said after the name ("I'm
with Sam at the cinema") it is company."""

EN_BORN_IN = (
    r"(?=[biwg])\b(?:(?:i\s+was|we\s+were)\s+born|(?:i|we)?\s*grew\s+up)"
    r"\s+(?:in\s+(?:the\s+)?|(?=there\b))"
)
EN_BORN_IN_GATE = ("born", "grew")
"""Where the speaker comes from: "I was born in Brisbane", "grew up there"."""
