"""Identifiers and amounts: the words around them, zh and en.

Cue words that name the kind of a code ("订单号", "tracking"), words that are no letters of an
id ("order no 123"), units and carriers beside digits, currencies and their multipliers, and
the words that tell whose an identifier is and whether it is still in use.
"""

from __future__ import annotations

import re
from typing import Literal

from memlane.lang import en, zh
from memlane.lang.script import gate, word_set

CodeKind = Literal["tracking", "order_id", "account", "reference"]
"""The kinds of code a cue word names."""
_I = re.IGNORECASE

NOT_PREFIX = word_set(
    "a i is at in on to of my no or an as by be we us me do so up if it id hi ok am pm vs go "
    "he oh nr num ref tel ph fax mob qq and the for was are not but has had his her its our you "
    "she him one two all any can did get got new old now own see via per from with call text "
    "ring dial this that then than into onto also just only over have were will your they them "
    "when what who why how here room unit flat apt box shows show user does sms cell "
    # carriers, written before the number they carry ("USPS 9400 …", "DHL 1234 …")
    "ups usps dhl fedex tnt dpd gls ems"
)
"""Short words that are not the letters of an id ("order no 123", "is 123", "Tel.123")."""

NOT_SUFFIX = word_set("AM PM OK RMB USD CNY EUR GBP HKD JPY KG KM CM MM ML MG")
"""Units and currencies that are no letters of an id after its digits (AM, RMB, KG…)."""

UNIT = re.compile(
    r"\d+(?:st|nd|rd|th|am|pm|[kmgsxhdwyp]|gb|mb|kb|tb|ml|mg|kg|km|cm|mm|hz|mah|px|fps|mph|kph"
    r"|mins?|hrs?|yrs?|secs?|lbs?|oz|ft|sq)",
    re.IGNORECASE,
)
"""Digits with a unit, an ordinal or a clock suffix (3rd, 5kg, 10am): a measure, not an id."""

TRACKING_SHAPE = re.compile(
    r"(?:SF|YT|JT|JD[A-Z]?|ZTO|STO|YD|EMS)\d{10,}|1Z[0-9A-Z]{16}|[A-Z]{2}\d{9}[A-Z]{2}"
    r"|9[1-5]\d{18,24}",
    re.IGNORECASE,
)
"""The shapes of carriers' tracking numbers (SF…, JD…, 1Z…, UPU S10)."""

POSTAL_COUNTRY = re.compile(r"(?<=^[a-z]{2}\d{9})[a-z]{2}$")
"""The country that ends a UPU S10 tracking number ("RK819227791*GB*", on folded keys): often
left out when the number is read out or typed, and naming the same parcel without it."""

MONEY_AFTER = re.compile(r"\s?(?:元|块|万|亿|千|美元|(?:dollars?|yuan|usd|rmb|cny|eur)\b)", re.I)
"""Words after digits that make them money (元, 块, 万, dollars, usd…)."""

CUES: dict[CodeKind, re.Pattern[str]] = {
    "tracking": re.compile(
        r"快递单号|运单号|物流单号|快递|运单|物流|包裹|邮包|\b(?:tracking|shipment|parcel|package|waybill|consignment"
        r"|courier)\b"
    ),
    "order_id": re.compile(r"订单|单号|\b(?:order|po|purchase)\b"),
    "account": re.compile(
        r"会员|卡号|账号|帐号|账户|帐户|用户名|登录名|\b(?:account|acct|member|membership|login"
        r"|username|card)\b"
    ),
    "reference": re.compile(
        r"工单|预订|预约号|确认码|编号|票号|凭证|\b(?:booking|confirmation|reservation|ticket"
        r"|reference|ref|code|case|claim|invoice|serial)\b"
    ),
}
"""Cue words (matched on lower-cased text) that name the kind of the code after them."""

IDENTIFIER_CUES: dict[str, re.Pattern[str]] = {
    **{str(kind): cue for kind, cue in CUES.items()},
    "phone": re.compile(
        r"手机|电话|号码|联系方式|致电|打给我|打我|微信"
        r"|\b(?:phone|number|mobile|cell|tel|call|reach|text|whatsapp)\b",
        _I,
    ),
    "email": re.compile(r"邮箱|邮件|电邮|e-?mail|\bmail\b", _I),
    "order_id": re.compile(r"订单|单号|\border\b", _I),
    "user_id": re.compile(r"用户|账号|账户|\b(?:user|account|id|uid)\b", _I),
}
"""Cue words that name the kind of identifier near them, by kind (phone, email, order, user
id, and the code kinds of :data:`CUES`)."""

IDENTIFIER_SIGNALS = re.compile(
    rf"(?P<fresh>{zh.NEW_MARKERS}|{en.NEW_MARKERS})"
    rf"|(?P<retired>{zh.OLD_MARKERS}|{en.OLD_MARKERS})"
    r"|(?P<negated>不是|并非|不属于|\b(?:not|never)\b|n't\b)"
    r"|(?P<other>[他她]|朋友|同事|老板|妈|爸|父亲|母亲|哥|姐|弟|妹|老婆|老公|妻子|丈夫|儿子|女儿|孩子"
    r"|客户|室友|\b(?:his|her|their|friend|wife|husband|mom|mother|dad|father|brother|sister"
    r"|boss|colleague|son|daughter)(?:'s)?\b)",
    _I,
)
"""One pass over the words around an identifier tells whose it is and whether it is current."""

DISOWNED = re.compile(
    r"\W{0,3}(?:不是|并非|不属于|(?:is|was)\s*(?:not|n't)|isn't|wasn't|not)\s*(?:我|mine|my|ours|our)",
    _I,
)
"""After an identifier, a negation denies it only when it is about whose it is."""

SINCE = re.compile(r"从|起|以来|开始|自|\b(?:since|from)\b", _I)
"""Words that make a past period the start of what holds now (从, 以来, since, from)."""

NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
"""A number written with digits, thousands separators and decimals."""

AMOUNT_PREFIX = re.compile(
    r"(?=[uh$¥€£cregj])(?P<sym>us\$|hk\$|\$|¥|€|£|(?<![a-z])(?:usd|cny|rmb|eur|gbp|hkd|jpy)(?![a-z]))\s?"
    rf"(?P<num>{NUMBER})(?P<mult>万|千|亿|[kK](?![A-Za-z])|\s?(?:thousand|million|billion)\b)?"
)
"""An amount with its currency before the digits ($5k, ¥300, USD 20)."""

AMOUNT_SUFFIX = re.compile(
    rf"(?=[\d零〇一二两三四五六七八九十百千万亿])(?<![\d.,a-z])(?:(?P<num>{NUMBER})|(?P<cn>[零〇一二两三四五六七八九十百千万亿]+))"
    r"\s?(?P<mult>万|千|百|亿|k(?![a-z]))?\s?"
    r"(?P<unit>块钱|块|元|圆|美元|美金|欧元|英镑|日元|港币|港元|人民币"
    r"|(?:usd|cny|rmb|eur|gbp|hkd|jpy)(?![a-z])|(?:dollars?|bucks|euros?|yuan|yen)\b)"
)
"""An amount with its currency after the digits or Chinese numerals (300块, 两千元, 20 dollars)."""

AMOUNT_GATE = gate(
    "$", "¥", "€", "£", "usd", "cny", "rmb", "eur", "gbp", "hkd", "jpy", "块", "元", "圆", "美",
    "欧", "英镑", "日元", "港", "人民币", "dollar", "buck", "yuan", "yen",
)  # fmt: skip
"""A gate for the currency signs and words."""

CURRENCIES = {
    "$": "USD", "us$": "USD", "hk$": "HKD", "¥": "CNY", "€": "EUR", "£": "GBP",
    "块钱": "CNY", "块": "CNY", "元": "CNY", "圆": "CNY", "人民币": "CNY", "rmb": "CNY",
    "yuan": "CNY", "美元": "USD", "美金": "USD", "dollar": "USD", "dollars": "USD",
    "bucks": "USD", "欧元": "EUR", "euro": "EUR", "euros": "EUR", "英镑": "GBP", "日元": "JPY",
    "yen": "JPY", "港币": "HKD", "港元": "HKD",
}  # fmt: skip
"""Currency words and signs and the ISO code each names."""

MULTIPLIERS = {
    "万": 10_000, "千": 1_000, "百": 100, "亿": 100_000_000, "k": 1_000, "thousand": 1_000,
    "million": 1_000_000, "billion": 1_000_000_000,
}  # fmt: skip
"""Multipliers of an amount (万, 千, k, thousand, million…) and their values."""

AFTER_KUAI = frozenset("了的左右多吧啊呢嘛钱")
"""After 块 (also "piece"), these keep the money reading: 300块的, 300块左右, 两块钱."""

KUAI = "块"
"""块: money ("300块") or a measure word ("三块蛋糕"): :data:`AFTER_KUAI` tells."""

YUAN = ("元", "圆")
"""元 and 圆, the yuan: after a Chinese numeral, money unless :data:`NOT_AFTER_YUAN` follows."""
NOT_AFTER_YUAN = "一二三四五六七八九十次旦宵素件"
"""元 after a Chinese numeral is no money when these follow ("一元二次方程", "元旦")."""

ORDER_PATTERNS: tuple[str, ...] = (
    r"(?=O)(?<![A-Za-z0-9_])ORD-\d+(?![A-Za-z0-9_])",
    r"订单(?:号|编号)?\s*(?:是|为|:|：)?\s*((?=[A-Za-z-]*\d)[A-Za-z0-9][A-Za-z0-9-]{5,})",
    r"(?i)(?=[oO])\border\s*(?:number|no\.?|id|#)\s*(?:is\s*)?[:#：]?\s*"
    r"((?=[A-Za-z-]*\d)[A-Za-z0-9][A-Za-z0-9-]{5,})",
)
"""``ORD-123``; ``订单号：A123456``; ``order number 12345678`` (the id must contain a digit)."""

USER_ID_PATTERNS: tuple[str, ...] = (
    r"(?=U)(?<![A-Za-z0-9_])U-\d+(?![A-Za-z0-9_])",
    r"用户\s*(?:ID|id|Id|编号|号)\s*(?:是|为|:|：)?\s*([A-Za-z0-9][A-Za-z0-9_-]*)",
    r"(?i)(?=[uU])\buser\s*(?:id|#)\s*(?:is\s*)?[:#：]?\s*((?=[A-Za-z_-]*\d)[A-Za-z0-9][A-Za-z0-9_-]*)",
)
"""``U-001``; ``用户ID 12345``; ``user id: abc123``."""

PHONE_WORDS = ("phone", "mobile", "tel")
"""Words inside an attribute's name that make it a phone number ("work_mobile")."""

EMAIL_WORDS = ("mail",)
"""Words inside an attribute's name that make it an e-mail address ("email", "work_mail")."""
