"""How a speaker's statements are phrased: the words notes are written from.

Notes (:mod:`memlane.summaries.notes`) turn a user's sentence into a statement about them:
they drop an opening interjection, replace "I"/"我" by the speaker's name, tell requests,
plans, complaints and moods apart, and name the relations a first-person statement asserts.
The words for all of that live here, as data; the note extractor only combines them.
Patterns are regex sources, matched case-insensitively unless said otherwise.
"""

from __future__ import annotations

from memlane.lang import zh

DISCOURSE_EN = (
    r"oh|ooh|well|so|anyway|anyways|also|and|but|btw|by the way|plus|yeah|yes|haha|lol"
    r"|actually|honestly|um|uh|wow|hey|hi|hello|ah"
)
"""English interjections that open a sentence and carry nothing ("Oh, ", "So ")."""

DISCOURSE_ZH = r"嗯|哦|噢|喔|啊|对了|话说|其实|那个|哈哈|好吧|另外"
"""Chinese interjections that open a sentence and carry nothing ("嗯，", "对了")."""

DISCOURSE_ZH_PUNCT = "，,、！!"
"""Punctuation that may follow a Chinese interjection."""

VOCATIVE = (
    r",\s*[A-Z][a-z]+[!.?]*$|^(?i:hey|hi|hello|thanks|thank you|congrats|wow)[,!]?\s+[A-Z][a-z]+"
)
"""A name the speaker addresses ("..., Jon!", "Thanks Gina"): it says nothing about the world."""

_ZH_MINE = r"(?:我[^，。！？\s的]{0,4}的|我的?|(?<!的))"
"""Before a Chinese phone or e-mail word: the speaker's own after 我 ("我的", "我公司的"), not
after another's 的 ("牙科诊所的电话" is the clinic's)."""

RELATIONS = (
    (
        "location",
        r"\b(?:I|we)(?:'ve| have)?\s+(?:\w+\s+)?(?:live|living|reside|moved|relocated)\s+"
        r"(?:in|to)\b|\bI'?m (?:now )?(?:living|based) in\b|\bmy (?:home|address) is\b"
        r"|我(?:们)?[^，。！？,.!?\s]{0,4}?(?:住在|居住在|搬到|搬去|搬家到|定居在|家在)",
    ),
    ("name", r"\bmy name is\b|\bcall me\b|我叫|我的名字(?:是|叫)|我名字叫"),
    (
        "phone",
        r"\bmy (?:new )?(?:phone|mobile|cell)(?: number)?(?: is|'s)\b"
        rf"|{_ZH_MINE}新?(?:手机号码?|电话号码?|手机|电话)(?:是|换成|改成|改为)?",
    ),
    (
        "email",
        r"\bmy (?:new )?e-?mail(?: address)?(?: is|'s)\b"
        rf"|{_ZH_MINE}新?(?:邮箱|电子邮件)",
    ),
    (
        "employer",
        r"\bI (?:now |currently )?work (?:at|for)\b|\bI'?m (?:now )?working (?:at|for)\b"
        rf"|我(?:{zh.NOW}|{zh.ASPECT}|也|还)*(?:在[^，。！？\s]{{1,12}}(?:工作(?!日)|上班)|就职于)",
    ),
    ("age", r"\bI'?m \d+ years old\b|我今年\d+岁|我\d+岁"),
    ("birthday", r"\bmy birthday is\b|我的?生日(?:是|在)"),
    (
        "generic",
        r"\bmy (?P<mine>(?:favou?rite )?[a-z]+(?: [a-z]+)?) (?:is|are)\b"
        r"|我的(?P<wode>[^\s，。！？的是]{1,6})是"
        # "我最喜欢的球队(现在)是…": the Chinese "my favourite X is (now) …"
        r"|我最?喜欢的(?P<xihuan>[^\s，。！？的是现目如]{1,6})(?:现在|目前|如今)?是",
    ),
)
"""What a first-person statement asserts about its speaker, by relation name. ``generic``
("my X is …", "我的X是…") names its relation in the groups ``mine``, ``wode`` or ``xihuan``."""

FAVOURITE_ZH = "最喜欢的"
"""How a relation read by the ``xihuan`` group of :data:`RELATIONS` is named ("最喜欢的球队")."""

SAID_ZH, SAID_EN = "{speaker}说：{text}", "{speaker} said: {text}"
"""How a note relays a statement that does not name its speaker."""

ASKED_ZH, ASKED_EN = "{speaker}问：{text}", "{speaker} asked: {text}"
"""How a note relays a question worth remembering."""

CLAUSE_END = r"[，。；！？、,;!?\n]|\.(?=\s|$)"
"""Where a clause ends: a resolved date is written after a Chinese time mention's clause."""

MONTH_NAMES = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip
"""English month names, as a month is written out in a note."""

WEEK_ZH, WEEKEND_ZH, RANGE_ZH = "{start} 那周", "{start} 那个周末", "{start} 至 {last}"
YEAR_MONTH_ZH, YEAR_ZH = "{year}年{month}月", "{year}年"
"""How a resolved period is written in a Chinese note."""

WEEK_EN, WEEKEND_EN = "{lead}the week of {start}", "{lead}the weekend of {start}"
YEAR_MONTH_EN, YEAR_EN = "{lead}{month} {year}", "{lead}{year}"
RANGE_EN = "between {start} and {last}"
"""How a resolved period is written in an English note (``{lead}``: :data:`IN_PERIOD` or
nothing after a preposition)."""

IN_PERIOD, ON_DAY, AT_CLOCK = "in ", "on ", " at {clock}"
"""The prepositions before a resolved period, day and clock time in an English note."""

DATES_ZH, DATES_EN = "（{dates}）", " ({dates})"
"""How the dates a relative time resolves to are written after it (see ``annotate_times``)."""

TIME_PREPOSITIONS = "on since until till by from before after of at in during for to through around"
"""Words before a time that make "on" superfluous ("since 2026-07-03", not "since on …")."""

REQUEST = (
    r"^(?:please|can you|could you|would you|will you|help me|let me know|make sure)\b"
    r"|\b(?:remind me|don't forget|do not forget|remember to|I need to|I have to|I've got to"
    r"|I gotta|I must|I should|I still need|I still have to|haven't \w+ yet|not yet|still "
    r"haven't|I'm planning to|I plan to|I'm going to|I'll|I will|TODO|to-do)\b"
    r"|^(?:请|麻烦|帮我|帮忙)|提醒我|记得|别忘了|不要忘了|还没|还要|我需要|我得|我要|我打算|我计划"
    r"|我准备|待办"
)
"""A request, reminder or to-do: "please…", "remind me…", "I need to…", "提醒我…", "还没…"."""

EVASIVE = (
    r"\b(?:I don't know|I do not know|not sure|no idea|let me check|I'll check|I will check"
    r"|I'll get back|get back to you|can't say|cannot say)\b"
    r"|不知道|不清楚|不确定|我查一下|稍等|再看看"
)
"""A reply that does not answer: "I don't know", "let me check", "不清楚", "稍等"."""

DONE = (
    r"\b(?:done|finished|completed|complete|already|took care|sorted|fixed|resolved|booked"
    r"|sent|paid|shipped|delivered|refunded)\b"
    r"|已经|完成|搞定|办好|处理好|弄好|好了|解决|已发|已付|已退"
)
"""A statement that something is done: "already paid", "已经处理好了"."""

COMPLAINT = (
    r"\b(?:complain\w*|refund|broken|doesn't work|does not work|still not|never arrived"
    r"|worst|terrible)\b|投诉|退款|坏了|不能用|还没到|太慢|太差"
)
"""A complaint: "it's broken", "还没到"."""

PLAN = (
    r"\b(?:plan|plans|planning|going to|gonna|I'll|I will|next (?:week|month|year)|tomorrow)\b"
    r"|打算|计划|准备|下周|明天要|下个月"
)
"""A plan: "I'm going to…", "打算…"."""

MOOD_WORDS: dict[str, str] = {
    "frustrated": r"frustrat\w*|annoy\w*|angry|pissed|upset|ridiculous|fed up|sick of"
    r"|unacceptable|烦死|好烦|很烦|生气|气死|无语|受不了|郁闷|恼火|不爽|太差|失望",
    "sad": r"sad|depressed|lonely|heartbroken|miserable|devastated|grieving"
    r"|难过|伤心|孤独|不开心|难受|想哭",
    "worried": r"worried|worry|anxious|nervous|scared|afraid|stressed|overwhelmed|swamped"
    r"|担心|焦虑|紧张|害怕|压力",
    "confused": r"confused|confusing|don't understand|do not understand|unclear|puzzled"
    r"|不明白|不懂|搞不清|困惑|糊涂|看不懂|怎么回事",
    "urgent": r"urgent|asap|immediately|right away|hurry|emergency|as soon as possible"
    r"|着急|急需|紧急|马上|尽快|赶紧|立刻",
    "happy": r"happy|glad|delighted|thrilled|joy|joyful|proud|love it|blessed"
    r"|开心|高兴|太好了|快乐|满意|幸福|棒",
    "excited": r"excited|exciting|can't wait|pumped|stoked|兴奋|激动|期待|迫不及待",
    "grateful": r"thank|thanks|grateful|appreciate|thankful|谢谢|感谢|多谢",
}
"""Moods, each with the words (both languages) that express it."""

ADVERBS = (
    r"(?:really|also|just|still|always|usually|often|never|sometimes|actually|definitely"
    r"|totally|truly|absolutely|kinda|now|currently|even|only|mostly)"
)
"""Adverbs that may stand between "I" and its verb ("I really love")."""

I_CONTRACTIONS = (
    r"\bI['’]m\b|\bI['’]ve\b|\bI['’]ll\b|\bI['’]d\b|\bI\s+don['’]t\b|\bI\s+haven['’]t\b"
)
"""Contractions of "I" with a verb (matched as written)."""

I_VERB = r"\bI(?P<gap>(?:\s+{adverbs})?\s+)(?P<verb>[a-z]+)\b"
""""I", maybe an adverb, and the verb after them (``{adverbs}``: :data:`ADVERBS`)."""

FIRST_PERSON_WORDS = r"\bI\b|\b[Mm]y\b|\b[Mm]ine\b|\b[Mm]yself\b|\b[Mm]e\b"
"""English first-person pronouns, as written."""

CONTRACTIONS = {"i'm": "is", "i've": "has", "i'll": "will"}
"""What a contraction of "I" becomes after the speaker's name ("I don't" keeps its verb)."""

AM, AM_THIRD = "am", "is"
"""The first-person copula and its third-person form."""

I_WOULD, I_HAD, WOULD, HAD = "i'd", "had", "would", "had"
""""I'd" reads "had" before :data:`HAD_WORDS`, else "would"."""

HAD_WORDS = "been had gone done seen already never just"
"""Words after "I'd" that make it "I had"."""

POSSESSIVE_PRONOUNS = ("my", "mine")
"""First-person possessives: they become the speaker's name with "'s"."""

REFLEXIVE, REFLEXIVE_THIRD = "myself", "themself"
"""The first-person reflexive and what it becomes."""

I_ZH = r"我(?![们國国])(?P<next>[A-Za-z0-9]?)"
"""The Chinese "I" (not 我们, 我国), and a Latin character glued after it."""
