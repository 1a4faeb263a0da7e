"""The forget rule: which texts mention a forgotten value.

One rule for every place a forget reaches: storage applies it to the rows of each table (inside
the forget's transaction), the facade to open windows and workflow parameters. Storage receives
it as a :class:`~memlane.storage.base.MentionRule` and knows nothing of how it decides.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from memlane.errors import InvalidInput
from memlane.facts.normalize import canonical_json
from memlane.facts.phones import phone_keys

_ID_SEPARATORS = re.compile(r"[\s\-./()]+")
_NUMBER = re.compile(r"\+?\d{6,}")
_NOT_DIGITS = re.compile(r"\D+")
_MIN_COMPACT = 6


def needles(values: Iterable[object]) -> list[str]:
    """The texts by which forgotten values may appear in free text, sorted.

    A string counts as written, any other value as its JSON; identifiers also without their
    separators ("138-0000-1234" as "13800001234", since an agent may pass them on that way),
    and phone numbers in each form they may be stored under. One-character texts are dropped,
    since they would match almost anything.

    >>> needles(["138-0000-1234", 7, {"a": 1}])
    ['138-0000-1234', '13800001234', '8613800001234', '{"a":1}']
    """
    found: set[str] = set()
    for value in values:
        text = (value if isinstance(value, str) else canonical_json(value)).strip()
        found.add(text)
        compact = _ID_SEPARATORS.sub("", text)
        if compact != text and len(compact) >= _MIN_COMPACT:
            found.add(compact)
        if _NUMBER.fullmatch(compact):  # a phone: "+86 138…" also as "13800001234"
            found.update(key.lstrip("+") for key in _phone_keys(text))
    return sorted(text for text in found if len(text) >= 2)


def mentions(text: str, needles: Sequence[str]) -> bool:
    """True if ``text`` contains a needle, ignoring case, or its digits (for phone numbers).

    >>> mentions("call me on 138 0000 1234", ["13800001234"])
    True
    """
    folded = text.casefold()
    digits = _NOT_DIGITS.sub("", text)
    for needle in needles:
        if needle.casefold() in folded:
            return True
        needle_digits = _NOT_DIGITS.sub("", needle)
        if (
            len(needle_digits) >= _MIN_COMPACT
            and needle_digits == needle
            and needle_digits in digits
        ):
            return True
    return False


class ValueMentions:
    """The rule as an object, as :meth:`~memlane.storage.base.PrivacyStore.forget` takes it."""

    def needles(self, values: Iterable[object]) -> list[str]:
        """See :func:`needles`."""
        return needles(values)

    def mentions(self, text: str, needles: Sequence[str]) -> bool:
        """See :func:`mentions`."""
        return mentions(text, needles)


FORGET_RULE = ValueMentions()
"""The rule every forget uses."""


def _phone_keys(text: str) -> tuple[str, ...]:
    try:
        return phone_keys(text)
    except InvalidInput:
        return ()
