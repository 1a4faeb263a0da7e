"""Settings of the rule-based extractor: which patterns name order and user ids."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from memlane.errors import InvalidInput
from memlane.lang.codes import ORDER_PATTERNS as DEFAULT_ORDER_PATTERNS
from memlane.lang.codes import USER_ID_PATTERNS as DEFAULT_USER_ID_PATTERNS


@dataclass(frozen=True, slots=True)
class ExtractConfig:
    """What the rule-based extractor looks for beyond its built-in rules.

    Attributes:
        order_patterns: regular expressions for order ids. If a pattern has a group, group 1
            is the id, else the whole match. They run on the text exactly as given (not
            width-folded), so write ``[:：]`` where either colon may appear.
        user_id_patterns: the same, for user ids.
        identifier_confidence: the confidence of an ``add`` op for an identifier found with
            no statement around it (a statement such as "我的手机号是…" gives 1.0).
    """

    order_patterns: tuple[str, ...] = DEFAULT_ORDER_PATTERNS
    user_id_patterns: tuple[str, ...] = DEFAULT_USER_ID_PATTERNS
    identifier_confidence: float = 0.8

    def compile(self) -> CompiledConfig:
        """Validate the settings and compile the patterns.

        Each set of patterns is compiled once for the process, not on every call (a bulk
        import pushes them out of re's own cache, which every pattern built per call shares).

        Raises:
            InvalidInput: a pattern is not a valid regular expression, or the confidence is
                outside [0, 1].
        """
        if not 0.0 <= self.identifier_confidence <= 1.0:
            raise InvalidInput("identifier_confidence", "must be between 0 and 1")
        return CompiledConfig(
            order_patterns=_compile_all("order_patterns", self.order_patterns),
            user_id_patterns=_compile_all("user_id_patterns", self.user_id_patterns),
            identifier_confidence=self.identifier_confidence,
        )


@dataclass(frozen=True, slots=True)
class CompiledConfig:
    """An :class:`ExtractConfig` with its patterns compiled, built by ``ExtractConfig.compile``."""

    order_patterns: tuple[re.Pattern[str], ...]
    user_id_patterns: tuple[re.Pattern[str], ...]
    identifier_confidence: float


_KEPT_PATTERN_SETS = 32
"""Sets of patterns compiled and kept for the process (a config holds two)."""


def _compile_all(field: str, patterns: Iterable[str]) -> tuple[re.Pattern[str], ...]:
    if isinstance(patterns, str):
        raise InvalidInput(field, "must be a sequence of patterns, not one string")
    listed = tuple(patterns)  # a list is taken as a tuple is, and kept as one
    try:
        hash(listed)
    except TypeError:  # an item that is no pattern: _compile_each says which
        return _compile_each(field, listed)
    return _compile_kept(field, listed)


@lru_cache(maxsize=_KEPT_PATTERN_SETS)
def _compile_kept(field: str, patterns: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    """:func:`_compile_each`, kept: an exception is never kept, so a bad set raises each time."""
    return _compile_each(field, patterns)


def _compile_each(field: str, patterns: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    compiled: list[re.Pattern[str]] = []
    for pattern in patterns:
        try:
            compiled.append(re.compile(pattern))
        except (re.error, TypeError) as error:
            raise InvalidInput(field, f"bad pattern {pattern!r}: {error}") from error
    return tuple(compiled)
