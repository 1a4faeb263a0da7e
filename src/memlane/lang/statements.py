"""Cues of the statements a speaker makes about themselves (read by :mod:`memlane.extract`).

Each cue is a pattern that stands before a value ("搬到", "住在", "I moved to", "call me"),
with its *gate*: a few words one of which any text holding the cue holds, a cheap test
before the costly pattern. The extractor reads the value after the cue and names the
attribute; what is here is only how the two languages say it.
"""

from __future__ import annotations

from memlane.lang.script import word_set

# -- where a value or its speaker starts -----------------------------------------------------

ZH_LABEL = r"[:：]"
"""A label's colon ("客户资料：常住城市…"): what stands before it is no speaker."""

ZH_FROM = r"(?:从|由)"
"""Where one came from, right before the verb ("我上个月*从*兰州搬去…", "已*由*惠州迁居…")."""

LEFT_PLACE = r"\bout\s+of\s+(?:the\s+)?$"
"""A cue that names the place left ("moved *out of* Xiamen"), not where one lives."""

# -- values that are not what a cue asks for -------------------------------------------------

ZH_NOT_PLACES = word_set(
    "这里 那里 这儿 那儿 这边 那边 哪 哪里 哪儿 家 家里 附近 隔壁 一起 外面 里面 楼上 楼下 对面 "
    "酒店 宾馆 旅馆 民宿 医院 宿舍 公司 单位 学校 别处 外地 老家 新家 新房 那个 这个"
)
"""Words read where a place is expected that name none ("住在这里", "住酒店")."""

NOT_EMPLOYERS = ZH_NOT_PLACES | {"home", "here", "there", "night", "weekends"}
"""Words read where an employer is expected that name none ("work at home", "在家上班")."""

ZH_VAGUE_START = ("一", "这", "那", "哪", "某", "个", "他", "她", "你", "我")
"""Characters that open a vague or pointing phrase ("一家公司", "那边"), not a name."""

NAME_BLOCKLIST = word_set(
    "外卖 快递 车 出租车 滴滴 救护车 醒 back later tomorrow at when if maybe anytime now soon on "
    "please again asap sometime tonight today any whenever whatever crazy anything once after "
    "before in so by that this him her them you it me a an the not"
)
"""Words after "call me"/"叫我" that are no name ("call me back", "叫我外卖")."""

ZH_NAME_BAD_START = frozenset(
    "了过着你他她它们车外快醒救去来做帮别不给把吃回等起看买写带拿出到走在跟和一加"
)
"""Characters that cannot open a Chinese name read after 叫."""

# -- the cues, each with its gate -----------------------------------------------------------

ZH_MOVE = r"[搬迁移定]"
"""Characters of a move: a cue holding one tells a change."""

EN_MOVE = r"mov(?:ed|ing)|relocat|settled"
"""Words of a move: a cue holding one tells a change."""

ZH_LIVES = (
    r"(?=[搬迁移定居住家现常人])(?:搬家到|搬家去|搬到|搬去|搬来|搬回到?|迁居到?|迁到|移居到?|定居在|定居于|定居到?|居住在"
    r"|住在|住到|家住在?|家在|现居住?在?|常住(?:城市|地)?(?:是|为|在)?|(?<![个别夫家])人在"
    r"|(?<![记忍抓挡保守站稳顶停拦困禁止居])住(?![院了过着得宿址处房所下手口嘴]))了?\s*"
)
ZH_LIVES_GATE = ("搬", "迁", "移居", "定居", "住", "家", "人在")
"""Where the speaker lives or moved to ("我搬到北京了", "我住在上海")."""

ZH_EMPLOYED = (
    r"(?:就职于|任职于|供职于|受雇于|入职(?:了|到)?|跳槽(?:到|去|进)了?|(?:工作)?单位(?:是|为)?)\s*"
)
ZH_EMPLOYED_GATE = ("就职", "任职", "供职", "受雇", "入职", "跳槽", "单位")
ZH_EMPLOYED_CHANGE = r"入职|跳槽"
"""Whom the speaker works for ("就职于华为", "跳槽到字节"); 入职, 跳槽 tell a change."""

ZH_HOMETOWN = r"(?:老家(?:是|在)|祖籍(?:是|在)?|来自于?)\s*"
ZH_HOMETOWN_GATE = ("老家", "祖籍", "来自")
ZH_FROM_CUE = "来自"
"""Where the speaker comes from ("老家是湖南的"); after 来自 only a known place is one."""

ZH_NAME = r"(?:我|本人)的?(?:名字|姓名)(?:是|叫)\s*|(?:我|本人)名?叫(?:做)?\s*"
ZH_NAME_GATE = ("叫", "名字", "姓名")
"""The speaker's name ("我叫李雷")."""

ZH_OCCUPATION = r"(?:我|本人)的?职业是\s*|(?:我|本人)是一名\s*|(?:我|本人)的工作是\s*"
ZH_OCCUPATION_GATE = ("职业", "一名", "工作是")
"""The speaker's occupation ("我是一名老师")."""

EN_LIVES = (
    r"(?=[mrslb])\b(?:moved|relocated|settled(?:\s+down)?|lives?|living|reside|residing"
    r"|based)(?:\s+(?:back|over|away|out|here))?\s+(?:to|in|into|at|out\s+of)\s+(?:the\s+)?"
)
EN_LIVES_GATE = ("moved", "relocated", "settled", "live", "living", "reside", "based")
"""Where the speaker lives or moved to ("I moved to Paris", "living in Lyon")."""

EN_WORKS_AT = r"(?=[we])\b(?:work(?:ing)?\s+(?:at|for)|employed\s+(?:at|by))\s+"
EN_WORKS_AT_GATE = ("work", "employed")
"""Whom the speaker works for ("I work at Google")."""

EN_STATE_GATE = ("in", "at", "with")
"""The gate of :data:`memlane.lang.en.STATE_CUE`."""

EN_STATE_WITH = "with"
EN_STATE_IN = "in"
EN_STATE_NOW = "now"
"""The prepositions of :data:`memlane.lang.en.STATE_CUE`: "in" a place, "with" a company
(an employer only after "now": "I'm with Sam" is company)."""

EN_JOINED_GATE = ("join", "hired", "employer", "role", "job", "position")
"""The gate of :data:`memlane.lang.en.JOINED_CUE`."""

EN_MOVED_FROM_GATE = ("from",)
EN_HOME_GATE = ("home",)
EN_DWELLING_GATE = ("new",)
EN_DWELLING_CHANGE = "new"
"""The gates of :data:`memlane.lang.en.MOVED_FROM`, ``HOME_CUE`` and ``DWELLING_CUE``."""

EN_WORKS_IN = r"(?=w)\bwork(?:ing)?\s+in\s+(?:the\s+)?"
EN_WORKS_IN_GATE = ("work",)
"""Where the speaker works ("I work in Berlin"): a known place only."""

EN_FROM = r"(?=f)\bfrom\s+(?:the\s+)?"
EN_FROM_GATE = ("from",)
EN_GREW_UP = r"(?=g)\bgrew\s+up\s+in\s+(?:the\s+)?"
EN_GREW_UP_GATE = ("grew",)
"""Where the speaker comes from ("I'm from Canada", "grew up in Leeds")."""

EN_NAME = (
    r"(?=[mi])\bmy\s+(?:full\s+|real\s+)?name\s+is\s+|\bmy\s+name's\s+|\bi\s+am\s+called\s+"
    r"|\bi'm\s+called\s+"
)
EN_NAME_GATE = ("name", "called")
"""The speaker's name ("my name is Sam Lee")."""

EN_PREFERRED = r"(?=[ci])\bcall\s+me\s+|\bi\s+go\s+by\s+|\bi\s+prefer\s+to\s+be\s+called\s+"
EN_PREFERRED_GATE = ("call me", "go by", "be called")
"""The name the speaker wants to be called ("call me Sam")."""

EN_OCCUPATION = (
    r"(?=[im])\bi\s+work\s+as\s+(?:an?\s+)?|\bmy\s+(?:occupation|profession|job\s+title)\s+is\s+"
    r"(?:an?\s+)?"
)
EN_OCCUPATION_GATE = ("work as", "occupation", "profession", "job title")
"""The speaker's occupation ("I work as a nurse")."""

# -- statements read by more than a cue ------------------------------------------------------

ZH_WORK = r"(?=在)(?<![现正存实所好自])在\s*"
ZH_WORK_TAIL = (
    r"(?P<of>的[^\s,.!?;:。]{0,10}?)?(?:(?P<live>生活|居住|定居|常住|落户|住(?=了|过|着))|工作|上班|实习|任职|打工"
    r"|就职|做(?![饭菜梦]))"
)
ZH_WORK_GATE = (
    "工作", "上班", "实习", "任职", "打工", "就职", "做", "生活", "居住", "定居", "常住", "落户",
    "住",
)  # fmt: skip
ZH_SETTLES = frozenset(("定居", "落户"))
""""我在X上班/工作/生活/住了…": an employer, a work place or where one lives; 定居, 落户 tell
when it began."""

ZH_NATIVE = r"(?:我|本人)是(?P<value>[{cjk}]{{2,6}}?)人(?![员士物家们类生性])"
ZH_NATIVE_GATE = ("人",)
""""我是北京人": a hometown (``{cjk}``: the CJK ranges)."""

ZH_PREFERRED = (
    r"(?:叫我|称呼我|喊我|称我)(?:为|做)?\s*(?P<value>[^\s,.!?;:。、]{1,12}?)\s*"
    r"(?:就行了?|就好了?|就可以了?|即可|吧|好了|好吗|可以吗|行吗|吗|呀|啊|哦|呢|啦|就是了)?$"
)
ZH_PREFERRED_GATE = ("叫我", "称呼我", "喊我", "称我")
""""叫我小王就行": the name the speaker wants to be called, at the clause's end."""

ZH_BIRTHDAY = r"(?:我|本人)的?(?:生日|出生日期)|(?:我|本人)[^,.!?;。]{0,16}?出生"
EN_BIRTHDAY = r"(?=[mi])\bmy\s+(?:birthday|date\s+of\s+birth|birth\s*date|dob)\b|\bi\s+was\s+born\b"
BIRTHDAY_GATE = ("生日", "出生", "birth", "born", "dob")
"""The speaker's birthday ("我的生日是7月1日", "I was born on …")."""

ZH_ADDRESS = r"(?:收货|收件|寄件|快递|家庭|家|住|寄送|邮寄)?地址(?:是|为|改为|改成|换成)?[:：]?\s*"
ZH_ADDRESS_GATE = ("地址",)
EN_ADDRESS_GATE = ("address",)
"""The speaker's address, whose known place is where they live."""

ZH_STAFF = r"(?:我|本人)是(?P<value>[{cjk}A-Za-z]{{2,12}}?)的(?:员工|职员|雇员|一员)"
ZH_STAFF_GATE = ("员工", "职员", "雇员", "一员")
""""我是华为的员工": an employer (``{cjk}``: the CJK ranges)."""
