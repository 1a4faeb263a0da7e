"""The attribute registry: which words of a query ask for which exact-lane attribute.

Phrases are matched case-insensitively after Unicode NFKC folding. Latin phrases match
whole words (a final plural ``s``/``es`` is allowed); Chinese phrases match anywhere. A
``*`` stands for up to 40 characters ("where does * live"). When phrases overlap, the
longest wins ("order number" → ``order``, not ``phone`` for "number"); one phrase may be
registered under several attributes ("在哪里工作" → ``employer`` and ``work_location``).

Each :class:`~memlane.Memory` has its own registry, ``mem.router.synonyms``:

>>> registry = SynonymRegistry()
>>> registry.add("tier", "会员等级", "membership level")
>>> [intent.attribute for intent in registry.match("用户的会员等级和手机号")]
['tier', 'phone']
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping

from memlane.errors import InvalidInput
from memlane.lang.phrases import ASKED_BY
from memlane.router.model import AttributeIntent

MAX_PHRASE_CHARS = 100
_WILDCARD = r".{0,40}?"
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_LATIN_EDGE = re.compile(r"[a-z0-9]")

DEFAULT_SYNONYMS: dict[str, tuple[str, ...]] = {
    "location": (
        "住在哪里", "住在哪儿", "住在哪", "住哪里", "住哪儿", "住哪", "居住地", "居住在",
        "住址", "地址", "家在哪", "哪个城市", "什么城市", "所在城市", "城市", "搬到哪",
        "where does * live", "where do * live", "where did * live", "where * lives",
        "where * living", "lives in", "live in", "living in", "moved to", "which city",
        "what city", "city", "cities", "address", "location", "reside", "resides",
    ),
    "work_location": (
        "在哪里工作", "在哪工作", "在哪儿工作", "在哪上班", "在哪里上班", "工作地点",
        "where does * work", "where do * work", "work location",
    ),
    "employer": (
        "在哪里工作", "在哪工作", "在哪儿工作", "在哪上班", "在哪里上班", "哪家公司",
        "什么公司", "公司", "雇主", "工作单位", "工作", "employer", "company", "works for",
        "work for", "works at", "work at", "where does * work", "where do * work",
        "who does * work for",
    ),
    "occupation": (
        "职业", "做什么工作", "什么工作", "干什么的", "做什么的", "occupation", "job",
        "profession", "what does * do for a living",
    ),
    "phone": (
        "手机号码", "手机号", "手机", "电话号码", "电话", "联系方式", "号码", "phone number",
        "phone", "mobile", "cell phone", "telephone", "number", "contact number",
    ),
    "email": (
        "邮箱地址", "邮箱", "电子邮件", "邮件地址", "email", "e-mail", "email address",
        "mail address",
    ),
    "order": ("订单号", "订单", "单号", "order number", "order id", "order"),
    "user_id": ("用户id", "用户编号", "账号", "user id", "account id", "account number"),
    "name": ("名字", "姓名", "叫什么", "称呼", "name"),
    "preferred_name": ("怎么称呼", "称呼", "昵称", "nickname", "preferred name"),
    "hometown": ("老家", "家乡", "哪里人", "哪儿人", "籍贯", "hometown", "where * from"),
    "birthday": ("生日", "出生", "birthday", "born", "date of birth"),
}  # fmt: skip
"""The phrases every new registry starts with, by attribute."""


class SynonymRegistry:
    """Phrases that ask for attributes; extend it with :meth:`add`.

    Args:
        synonyms: the starting phrases by attribute; ``None`` starts from
            :data:`DEFAULT_SYNONYMS`, ``{}`` from nothing.
    """

    def __init__(self, synonyms: Mapping[str, Iterable[str]] | None = None) -> None:
        self._phrases: dict[str, list[str]] = {}
        self._compiled: list[tuple[str, str, re.Pattern[str]]] | None = None
        for attribute, phrases in (DEFAULT_SYNONYMS if synonyms is None else synonyms).items():
            self.add(attribute, *phrases)
        for attribute, phrases in (ASKED_BY if synonyms is None else {}).items():
            self.add(attribute, *phrases)

    def add(self, attribute: str, *phrases: str) -> None:
        """Register phrases that ask for ``attribute``; repeats are ignored.

        >>> mem.router.synonyms.add("location", "住在哪里", "where does * live")  # doctest: +SKIP

        Raises:
            InvalidInput: an empty attribute, or a phrase that is empty, only ``*``, longer
                than 100 characters or holds control characters.
        """
        attribute = _attribute(attribute)
        known = self._phrases.setdefault(attribute, [])
        for phrase in phrases:
            cleaned = _phrase(phrase)
            if cleaned not in known:
                known.append(cleaned)
        self._compiled = None

    def remove(self, attribute: str, *phrases: str) -> int:
        """Forget phrases of ``attribute`` (all of them if none is given); returns how many."""
        attribute = _attribute(attribute)
        known = self._phrases.get(attribute, [])
        drop = set(known) if not phrases else {_fold(p).strip() for p in phrases}
        kept = [phrase for phrase in known if phrase not in drop]
        removed = len(known) - len(kept)
        if kept:
            self._phrases[attribute] = kept
        else:
            self._phrases.pop(attribute, None)
        self._compiled = None
        return removed

    def phrases(self, attribute: str) -> tuple[str, ...]:
        """The phrases registered for ``attribute`` (folded), in the order added."""
        return tuple(self._phrases.get(attribute, ()))

    def attributes(self) -> list[str]:
        """Every attribute with at least one phrase, sorted."""
        return sorted(self._phrases)

    def match(self, text: str) -> list[AttributeIntent]:
        """The attribute phrases in ``text``, in order; overlaps go to the longest phrase.

        Spans index the NFKC-folded text.
        """
        folded = _fold(text)
        found = [
            AttributeIntent(attribute, phrase, match.span())
            for attribute, phrase, pattern in self._patterns()
            for match in pattern.finditer(folded)
            if match.end() > match.start()
        ]
        found.sort(key=lambda intent: (intent.span[0] - intent.span[1], intent.span[0]))
        chosen: list[AttributeIntent] = []
        for intent in found:
            clash = any(
                _overlap(intent.span, kept.span)
                and (intent.span != kept.span or intent.attribute == kept.attribute)
                for kept in chosen
            )
            if not clash:
                chosen.append(intent)
        chosen.sort(key=lambda intent: intent.span)
        return chosen

    def _patterns(self) -> list[tuple[str, str, re.Pattern[str]]]:
        if self._compiled is None:
            self._compiled = [
                (attribute, phrase, compile_phrase(phrase))
                for attribute, phrases in self._phrases.items()
                for phrase in phrases
            ]
        return self._compiled

    def __repr__(self) -> str:
        count = sum(len(p) for p in self._phrases.values())
        return f"SynonymRegistry({len(self._phrases)} attributes, {count} phrases)"


def compile_phrase(phrase: str) -> re.Pattern[str]:
    """The pattern of one phrase, over NFKC-folded text (see the module docstring).

    >>> bool(compile_phrase("where does * live").search("where does the user live?"))
    True
    >>> bool(compile_phrase("order").search("reorder"))
    False
    """
    pieces = [piece for piece in re.split(r"\s*\*\s*", _fold(phrase).strip()) if piece]
    parts: list[str] = []
    for piece in pieces:
        body = r"\s+".join(re.escape(word) for word in piece.split())
        if _LATIN_EDGE.match(piece[0]):
            body = r"(?<![a-z0-9])" + body
        if _LATIN_EDGE.match(piece[-1]):
            body += r"(?:s|es)?(?![a-z0-9])"
        parts.append(body)
    return re.compile(_WILDCARD.join(parts))


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def _overlap(first: tuple[int, int], second: tuple[int, int]) -> bool:
    return first[0] < second[1] and second[0] < first[1]


def _attribute(attribute: object) -> str:
    if not isinstance(attribute, str) or not attribute.strip() or attribute != attribute.strip():
        raise InvalidInput("attribute", f"must be a non-empty name, got {attribute!r}")
    return attribute


def _phrase(phrase: object) -> str:
    if not isinstance(phrase, str):
        raise InvalidInput("phrase", f"must be a string, got {type(phrase).__name__}")
    folded = _fold(phrase).strip()
    if not folded.replace("*", "").strip():
        raise InvalidInput("phrase", f"must hold words, got {phrase!r}")
    if len(folded) > MAX_PHRASE_CHARS:
        raise InvalidInput("phrase", f"longer than {MAX_PHRASE_CHARS} characters")
    if _CONTROL.search(folded):
        raise InvalidInput("phrase", "must not contain control characters")
    return folded
