"""Find identifiers in text: phones, e-mails, order ids, tracking numbers, accounts, URLs.

Each is returned as a :class:`~memlane.extract.model.Mention` whose ``text`` is the span as
written and whose ``value`` is normalized: phones to their digits (country code kept only if
written), e-mails to lower case, amounts to ``{"amount": "12.50", "currency": "CNY"}``; ids
(``order_id``, ``tracking``, ``account``, ``reference``, ``user_id``) and URLs as written. The
exact lane keeps what was written and matches by a key (see :mod:`memlane.facts.normalize`).

Phone numbers are recognized, whatever the separators (space, ``-``, ``.``, brackets), as:

- Chinese mobiles, 11 digits ``1[3-9]…``, optionally after ``86``/``0086``/``+86``/``(+86)``;
- Chinese landlines with a separated area code, ``010-12345678``, ``(0571) 8888 8888``;
- numbers dialled with a trunk ``0`` (China, the UK), 10 to 12 digits, bare or grouped:
  ``059243953550``, ``020 7946 0632``, ``07700 900 515``;
- North American numbers written grouped, ``(415) 555-0100``, ``415-555-0100``;
- any number written with a leading ``+`` and 8 to 15 digits;
- a bare run of digits that a phone label stands right before ("contact nmbr to 3035550170",
  :mod:`memlane.lang.phonelabels`) and that ``phonenumbers`` finds a valid number in one of
  :data:`~memlane.facts.phones.GUESS_REGIONS`; without a label such a run stays a code.

Other ids are recognized by their shape (:mod:`memlane.extract._codes`) and never cut short.
A code a cue word names ("订单号 13800001234", "tracking …") is not a phone; any other code
yields to a phone. Dates, times and amounts are neither, and digits that belong to an
e-mail or URL never count as one.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from itertools import pairwise

import phonenumbers

from memlane.extract._codes import Code, find_codes
from memlane.extract._text import fold, is_cjk, lower_ascii, parse_number
from memlane.extract.config import CompiledConfig, ExtractConfig
from memlane.extract.model import Mention, MentionKind
from memlane.facts.phones import GUESS_REGIONS
from memlane.lang.codes import AFTER_KUAI as _AFTER_KUAI
from memlane.lang.codes import AMOUNT_GATE as _AMOUNT_GATE
from memlane.lang.codes import AMOUNT_PREFIX as _AMOUNT_PREFIX
from memlane.lang.codes import AMOUNT_SUFFIX as _AMOUNT_SUFFIX
from memlane.lang.codes import CURRENCIES as _CURRENCIES
from memlane.lang.codes import KUAI, NOT_AFTER_YUAN, YUAN
from memlane.lang.codes import MULTIPLIERS as _MULTIPLIERS
from memlane.lang.phonelabels import ends_with_phone_label
from memlane.lang.script import CJK_RANGES, NOT_AFTER_LATIN
from memlane.memo import per_process
from memlane.pacing import pause

__all__ = ["find_identifiers", "scan_identifiers"]

_EMAIL = re.compile(
    r"(?=[A-Za-z0-9._%+-])(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,24}"
    r"(?![A-Za-z0-9-])"
)
_URL = re.compile(
    rf"(?=[hw]){NOT_AFTER_LATIN}(?:https?://|www\.)[^\s<>\"'\u3000-\u303f{CJK_RANGES}]+"
)
_URL_TRAILING = ".,;:!?)]}'\""
_PHONE_CANDIDATE = re.compile(
    r"(?=[+(\d])(?<![A-Za-z0-9_+\-./@#])(?:\+\s?)?(?:\(\d{1,4}\)\s?)?\d{1,15}"
    r"(?:[ \-.]\d{1,15}|\s?\(\d{1,4}\)\s?\d{1,15})*(?![0-9A-Za-z_])"
)
_COUNTRY_BEFORE = re.compile(r"\(\+\d{1,3}\)\s?$")  # "(+86) 133-…"
_PHONE_GROUP = re.compile(r"\(\d{1,4}\)|\d+")
_CN_MOBILE = re.compile(r"1[3-9]\d{9}")
_MAX_PHONE_GROUPS = 6
_MAX_LEADING_DIGITS = 4
"""Digits a run may hold before a phone number in it (a number, a country code): more are
one id with it."""
_DIGIT_RUN = re.compile(r"\d{3}")
_MIN_LABELLED_DIGITS, _MAX_LABELLED_DIGITS = 7, 12
_LABEL_REACH = 60
"""Characters before a bare run searched for its phone label (a clause's last few words)."""
_CENT = Decimal("0.01")

Span = tuple[int, int]


def find_identifiers(text: str, config: ExtractConfig | None = None) -> list[Mention]:
    """Return the identifiers and amounts in ``text``, ordered by position.

    >>> [(m.kind, m.value) for m in find_identifiers("新手机号 +86 139-1111-2222")]
    [('phone', '8613911112222')]

    Raises:
        InvalidInput: ``config`` holds a bad pattern.
    """
    compiled = (config or ExtractConfig()).compile()
    return scan_identifiers(text, fold(text), compiled)


def scan_identifiers(
    text: str, folded: str, config: CompiledConfig, lowered: str | None = None
) -> list[Mention]:
    """:func:`find_identifiers` for a text already folded (and maybe lowered) by ``_text``."""
    lowered = lower_ascii(folded) if lowered is None else lowered
    found: list[Mention] = []
    if "@" in folded:
        found += _emails(text, folded)
    if "http" in lowered or "www." in lowered:
        found += [url for url in _urls(text, lowered) if not _overlaps(url.span, found)]
    codes = find_codes(folded, lowered, [mention.span for mention in found])
    pause()  # each step over a long text: a write lets requests go first (memlane.pacing)
    strong = [mention for mention in found if mention.kind == "email"]
    configured: tuple[tuple[MentionKind, tuple[re.Pattern[str], ...]], ...] = (
        ("order_id", config.order_patterns),
        ("user_id", config.user_id_patterns),
    )
    for kind, patterns in configured:
        for mention in _configured(text, kind, patterns):
            mention = _whole(text, mention, codes)
            if not _overlaps(mention.span, strong):
                strong.append(mention)
                found.append(mention)
    # A code a cue word names ("订单号 13800001234") is not a phone, nor is one that holds a
    # phone's digits after letters ("jdvc 1691 8924 684"); other codes yield to a phone.
    found += [_code(text, code) for code in codes if code.cued and not _overlaps(code.span, found)]
    pause()
    phones = [p for p in _phones(text, folded) if not _overlaps(p.span, found)]
    pause()
    lettered = [_code(text, code) for code in codes if _holds_phone(folded, code, phones)]
    found += [phone for phone in phones if not _overlaps(phone.span, lettered)]
    found += [_code(text, code) for code in codes if not _overlaps(code.span, found)]
    found += [money for money in _amounts(text, lowered) if not _overlaps(money.span, found)]
    found.sort(key=lambda mention: mention.span)
    return found


def _whole(text: str, mention: Mention, codes: list[Code]) -> Mention:
    """A configured match that is part of a longer code grows to it: ids are never cut."""
    start, end = mention.span
    for code in codes:
        if code.span[0] <= start and end <= code.span[1] and code.span != (start, end):
            value = text[code.span[0] : code.span[1]]
            return _mention(mention.kind, text, *code.span, value)
    return mention


def _holds_phone(folded: str, code: Code, phones: list[Mention]) -> bool:
    start, end = code.span
    letters = [char for char in folded[start:end] if char.isalpha()]
    inside = [p for p in phones if start <= p.span[0] and p.span[1] <= end and p.span != code.span]
    return len(letters) >= 2 and "".join(letters).isupper() and bool(inside)


def _code(text: str, code: Code) -> Mention:
    start, end = code.span
    return _mention(code.kind, text, start, end, text[start:end])


def _overlaps(span: Span, mentions: list[Mention]) -> bool:
    return any(span[0] < other.span[1] and other.span[0] < span[1] for other in mentions)


def _mention(kind: MentionKind, text: str, start: int, end: int, value: object) -> Mention:
    return Mention(kind, text[start:end], value, (start, end))


def _emails(text: str, folded: str) -> list[Mention]:
    return [
        _mention("email", text, match.start(), match.end(), match[0].lower())
        for match in _EMAIL.finditer(folded)
    ]


def _urls(text: str, lowered: str) -> list[Mention]:
    found: list[Mention] = []
    for match in _URL.finditer(lowered):
        url = match[0].rstrip(_URL_TRAILING)
        if url.lower() not in ("http://", "https://", "www."):
            end = match.start() + len(url)
            found.append(_mention("url", text, match.start(), end, text[match.start() : end]))
    return found


def _configured(
    text: str, kind: MentionKind, patterns: tuple[re.Pattern[str], ...]
) -> list[Mention]:
    found: list[Mention] = []
    for pattern in patterns:
        for match in pattern.finditer(text):
            group = 1 if pattern.groups else 0
            start, end = match.span(group)
            if start < 0 or start == end:
                continue
            mention = _mention(kind, text, start, end, text[start:end].strip())
            if not _overlaps(mention.span, found):
                found.append(mention)
    return found


# -- phones ---------------------------------------------------------------------------------


def _phones(text: str, folded: str) -> list[Mention]:
    found: list[Mention] = []
    if not _DIGIT_RUN.search(folded):
        return found
    for candidate in _PHONE_CANDIDATE.finditer(folded):
        plus = candidate[0].startswith("+")
        groups = [
            (group.start() + candidate.start(), group.end() + candidate.start(), group[0])
            for group in _PHONE_GROUP.finditer(candidate[0])
        ]
        windows = _phone_windows(folded, groups, plus, candidate.start())
        if not windows and _labelled_phone(folded, groups, candidate.start()):
            windows = [(groups[0][0], groups[-1][1])]
        for start, end in windows:
            country = None if plus else _COUNTRY_BEFORE.search(folded, 0, start)
            start = start if country is None else country.start()
            digits = "".join(ch for ch in folded[start:end] if ch.isdigit())
            found.append(_mention("phone", text, start, end, digits))
    return found


def _phone_windows(
    folded: str, groups: list[tuple[int, int, str]], plus: bool, candidate_start: int
) -> list[Span]:
    """The phone numbers inside one run of digit groups: earliest first, longest first.

    A number inside the run must be set off by white space from the groups around it, so
    the digits after a decimal point or inside a version string never count. Before it, the
    run holds another number or a few digits at most ("第 3 138 0000 1234"): longer groups
    make the run one long id ("4770 5201 1811 9010 464" is an order number, not a mobile
    after two groups).
    """
    spans: list[Span] = []
    index = free = 0
    while index < len(groups):
        before = sum(len(group.strip("()")) for _, _, group in groups[free:index])
        if before <= _MAX_LEADING_DIGITS and (
            index == 0 or folded[groups[index - 1][1] : groups[index][0]].isspace()
        ):
            for stop in range(min(len(groups), index + _MAX_PHONE_GROUPS), index, -1):
                window = groups[index:stop]
                with_plus = plus and index == 0
                spaced = (
                    stop == len(groups) or folded[groups[stop - 1][1] : groups[stop][0]].isspace()
                )
                whole = index == 0 and stop == len(groups)
                if spaced and _is_phone(folded, window, with_plus, whole):
                    spans.append((candidate_start if with_plus else window[0][0], window[-1][1]))
                    index, free = stop - 1, stop
                    break
        index += 1
    return spans


def _is_phone(
    folded: str, window: list[tuple[int, int, str]], plus: bool, whole: bool = True
) -> bool:
    """Whether the digit groups of ``window`` are a phone number (``whole``: the entire run)."""
    parts = [group.strip("()") for _, _, group in window]
    digits = "".join(parts)
    if plus:
        return _is_international(digits)
    if _CN_MOBILE.fullmatch(digits) and len(parts[0]) >= 3:
        return True
    if len(digits) in (13, 15) and _CN_MOBILE.fullmatch(digits[-11:]):
        return digits[:-11] in ("86", "0086") and (len(parts) == 1 or parts[0] in ("86", "0086"))
    separators = {folded[left[1] : right[0]] for left, right in pairwise(window)}
    parenthesized = window[0][2].startswith("(") or (
        len(window) > 1 and window[1][2].startswith("(")
    )
    return (
        _is_north_american(parts, separators, parenthesized)
        or _is_cn_landline(parts, separators, parenthesized)
        or (whole and _is_trunk_national(parts))
    )


def _labelled_phone(folded: str, groups: list[tuple[int, int, str]], start: int) -> bool:
    """A bare run ("contact nmbr to 3035550170") is a phone after a label, if it is a valid one.

    Validity is asked of ``phonenumbers`` in each region a national number is read in, so a
    label before a count, a year or an order-sized run does not make it a phone.
    """
    digits = "".join(group.strip("()") for _, _, group in groups)
    return (
        _MIN_LABELLED_DIGITS <= len(digits) <= _MAX_LABELLED_DIGITS
        and ends_with_phone_label(folded[max(0, start - _LABEL_REACH) : start])
        and _valid_national(digits)
    )


@per_process(most=1024)
def _valid_national(digits: str) -> bool:
    for region in GUESS_REGIONS:
        try:
            number = phonenumbers.parse(digits, region)
        except phonenumbers.NumberParseException:
            continue
        if phonenumbers.is_valid_number(number):
            return True
    return False


def _is_international(digits: str) -> bool:
    if digits.startswith("86"):
        national = digits[2:]
        landline = 9 <= len(national) <= 11 and national[0] != "0"
        return bool(_CN_MOBILE.fullmatch(national)) or landline
    if digits.startswith("1"):
        return len(digits) == 11 and digits[1] in "23456789"
    return 8 <= len(digits) <= 15


def _is_north_american(parts: list[str], separators: set[str], parenthesized: bool) -> bool:
    if [len(part) for part in parts[-3:]] != [3, 3, 4] or len(parts) not in (3, 4):
        return False
    if len(parts) == 4 and parts[0] != "1":
        return False
    area, exchange = parts[-3], parts[-2]
    grouped = parenthesized or separators in ({"-"}, {"."})
    return grouped and area[0] in "23456789" and exchange[0] in "23456789"


def _is_trunk_national(parts: list[str]) -> bool:
    """A number dialled with a trunk ``0`` (China, the UK), bare or grouped.

    ``020 7946 0632``, ``07700900815``, ``059243953550``: grouped, every group after the area
    code has three digits or more.
    """
    digits = "".join(parts)
    if not (10 <= len(digits) <= 12 and digits[0] == "0" and digits[1] != "0"):
        return False
    return len(parts) == 1 or (
        2 <= len(parts[0]) <= 5 and all(len(part) >= 3 for part in parts[1:])
    )


def _is_cn_landline(parts: list[str], separators: set[str], parenthesized: bool) -> bool:
    if len(parts) not in (2, 3) or not parts[0].startswith("0") or len(parts[0]) not in (3, 4):
        return False
    number = "".join(parts[1:])
    return len(number) in (7, 8) and number[0] not in "01" and (parenthesized or "-" in separators)


# -- amounts --------------------------------------------------------------------------------


def _amounts(text: str, lowered: str) -> list[Mention]:
    found: list[Mention] = []
    if not _AMOUNT_GATE.search(lowered):
        return found
    for match in _AMOUNT_PREFIX.finditer(lowered):
        value = _amount_value(match["num"], None, match["mult"], match["sym"])
        if value is not None:
            found.append(_mention("amount", text, match.start(), match.end(), value))
    for match in _AMOUNT_SUFFIX.finditer(lowered):
        if _overlaps(match.span(), found) or not _money_reading(match):
            continue
        value = _amount_value(match["num"], match["cn"], match["mult"], match["unit"])
        if value is not None:
            found.append(_mention("amount", text, match.start(), match.end(), value))
    return found


def _money_reading(match: re.Match[str]) -> bool:
    """Reject 块 as a measure word (三块蛋糕) and 元 in words (一元二次方程)."""
    following = match.string[match.end() : match.end() + 1]
    unit = match["unit"]
    if unit == KUAI:
        return not (following and is_cjk(following) and following not in _AFTER_KUAI)
    if match["cn"] and unit in YUAN:
        return not following or following not in NOT_AFTER_YUAN
    return True


def _amount_value(
    number: str | None, chinese: str | None, multiplier: str | None, unit: str
) -> dict[str, str] | None:
    try:
        if number is not None:
            amount = Decimal(number.replace(",", ""))
        else:
            parsed = parse_number(chinese or "")
            if parsed is None:
                return None
            amount = Decimal(parsed)
        if multiplier:
            amount *= _MULTIPLIERS[multiplier.strip().lower()]
        currency = _CURRENCIES.get(unit.lower(), unit.upper())
        exponent = amount.as_tuple().exponent
        precise = isinstance(exponent, int) and exponent < -2
        return {
            "amount": f"{amount:f}" if precise else f"{amount.quantize(_CENT):f}",
            "currency": currency,
        }
    except (InvalidOperation, ValueError):
        return None
