"""The input rules every entry point shares, defined once.

Names (a subject, an attribute, a session id, a tenant), texts (a note, a turn, a label)
and the values of facts are checked here, and only here: ``Memory``, the lanes, sessions
and views call these functions; HTTP publishes the same limits in its OpenAPI document
(:func:`name_schema`, :func:`text_schema`); MCP and the CLI call the library. So whatever
one entry point accepts every other accepts, and whatever can be written can be read and
forgotten.

The rules:

* a **name** is a string of 1 to :data:`MAX_NAME_CHARS` characters, without white space at
  either end, without control characters (``U+0000``-``U+001F``, ``U+007F``) and without
  lone surrogates (text that is not Unicode);
* a **text** holds at least one character that is not white space, at most its field's
  limit (:data:`MAX_NOTE_CHARS`, :data:`MAX_TURN_CHARS`, :data:`MAX_LABEL_CHARS`), no
  control characters other than tab, line feed and carriage return, no lone surrogates;
* a **query** (of a recall or a search) is a text of at most :data:`MAX_QUERY_CHARS`
  characters holding at least one letter or digit of any script;
* a **token** (a workflow's task type) is 1 to :data:`MAX_TOKEN_CHARS` letters, digits and
  ``_ . : -``;
* a **value** (of a fact) may be any JSON, but none of its strings may hold a lone
  surrogate;
* a **flag** (``immediately``, ``include_stale``, ...) is ``True`` or ``False``: ``"no"`` or
  ``0`` are refused, not read as truth values (``purge(immediately="no")`` would purge);
* a **wait** (a timeout) is ``None`` (no limit) or a number of seconds from 0 to
  :data:`threading.TIMEOUT_MAX`;
* a **callback** (``progress``) is ``None`` or callable, checked before the work it follows.

Example:
    >>> name("subject", "U-001")
    'U-001'
    >>> name("subject", "U-001 ")
    Traceback (most recent call last):
    ...
    memlane.errors.InvalidInput: subject: must not start or end with white space: 'U-001 '
"""

from __future__ import annotations

import math
import re
import threading
import unicodedata
from collections.abc import Mapping
from typing import Any

from memlane.errors import InvalidInput

MAX_NAME_CHARS = 512
"""Longest subject, attribute, session id, tenant or speaker name."""

MAX_NOTE_CHARS = 20_000
"""Longest ``remember`` text (a statement; split longer documents)."""

MAX_TURN_CHARS = 100_000
"""Longest turn of a session."""

MAX_LABEL_CHARS = 2_000
"""Longest ``source`` or ``reason`` of a write or a deletion."""

MAX_QUERY_CHARS = 2_000
"""Longest query of a ``recall`` or a search."""

MAX_TOKEN_CHARS = 100
"""Longest token (a workflow's task type)."""

MAX_RECALL_ITEMS = 100
"""Most items one ``recall`` returns (its ``k``)."""

MAX_BUDGET_TOKENS = 200_000
"""Largest token budget of a ``recall``'s text block."""

MAX_PAGE = 1_000
"""Most items one page of a list read returns."""

MAX_OFFSET = 2**63 - 1
"""Largest offset into a list (what a 64-bit SQL integer holds)."""

_NAME_CONTROL = "\\x00-\\x1f\\x7f"
_TEXT_CONTROL = "\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f-\\x9f"
# White space as ``str.strip`` sees it, spelled out: ``\\s`` differs between Python and the
# ECMA regular expressions of JSON Schema (U+0085, U+FEFF).
_SPACE = "".join(f"\\u{code:04x}" for code in range(0x3001) if chr(code).isspace())

NAME_PATTERN = f"^[^{_SPACE}{_NAME_CONTROL}](?:[^{_NAME_CONTROL}]*[^{_SPACE}{_NAME_CONTROL}])?$"
"""A name as a regular expression (also published in the OpenAPI document)."""

TEXT_PATTERN = f"^[^{_TEXT_CONTROL}]*[^{_SPACE}{_TEXT_CONTROL}][^{_TEXT_CONTROL}]*$"
"""A text as a regular expression (also published in the OpenAPI document)."""

TOKEN_PATTERN = r"^[\w.:-]+$"
"""A token as a regular expression (``\\w``: a letter or digit of any script, or ``_``)."""

_TOKEN = re.compile(TOKEN_PATTERN)
_NAME_FORBIDDEN = re.compile(f"[{_NAME_CONTROL}]")
_TEXT_FORBIDDEN = re.compile(f"[{_TEXT_CONTROL}]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def name(field: str, value: object) -> str:
    """Return ``value`` if it is a valid name, else raise :class:`InvalidInput` naming ``field``.

    Raises:
        InvalidInput: not a string, empty, too long, with control characters, lone
            surrogates or white space at either end.
    """
    checked = _string(field, value, MAX_NAME_CHARS, _NAME_FORBIDDEN)
    if checked != checked.strip():
        raise InvalidInput(field, f"must not start or end with white space: {checked!r}")
    return checked


def optional_name(field: str, value: object) -> str | None:
    """Like :func:`name`, but ``None`` stays ``None``."""
    return None if value is None else name(field, value)


def text(field: str, value: object, limit: int) -> str:
    """Return ``value`` if it is a valid text of at most ``limit`` characters.

    Raises:
        InvalidInput: not a string, blank, too long, with control characters (other than
            tab and line breaks) or lone surrogates.
    """
    return _string(field, value, limit, _TEXT_FORBIDDEN)


def optional_text(field: str, value: object, limit: int = MAX_LABEL_CHARS) -> str | None:
    """Like :func:`text`, but ``None`` stays ``None`` (a ``source`` or a ``reason``)."""
    return None if value is None else text(field, value, limit)


def query(field: str, value: object) -> str:
    """Return ``value`` if it is a valid query: a text with a letter or digit to search for.

    >>> query("query", "?!")
    Traceback (most recent call last):
    ...
    memlane.errors.InvalidInput: query: has no letters or digits to search for

    Raises:
        InvalidInput: not a valid text of at most :data:`MAX_QUERY_CHARS` characters (see
            :func:`text`), or without any letter or digit.
    """
    checked = text(field, value, MAX_QUERY_CHARS)
    if not any(unicodedata.category(char)[0] in "LN" for char in checked):
        raise InvalidInput(field, "has no letters or digits to search for")
    return checked


def token(field: str, value: object) -> str:
    """Return ``value`` if it is a valid token (see :data:`TOKEN_PATTERN`).

    Raises:
        InvalidInput: not a string, empty, too long, or with other characters.
    """
    if not isinstance(value, str) or not _TOKEN.fullmatch(value) or len(value) > MAX_TOKEN_CHARS:
        raise InvalidInput(
            field, f"must be 1 to {MAX_TOKEN_CHARS} letters, digits, _ . : - (a short name)"
        )
    return value


def fact_value(field: str, item: Any) -> Any:
    """Return a fact's value if none of its strings (keys included) holds a lone surrogate.

    Raises:
        InvalidInput: a string inside the value is not Unicode text.
    """
    if isinstance(item, str):
        _unicode(field, item)
    elif isinstance(item, Mapping):
        for key, inner in item.items():
            fact_value(field, key)
            fact_value(field, inner)
    elif isinstance(item, list | tuple):
        for inner in item:
            fact_value(field, inner)
    return item


def flag(field: str, value: object) -> bool:
    """Return ``value`` if it is ``True`` or ``False``.

    Raises:
        InvalidInput: anything else, even a value Python would read as true or false.
    """
    if not isinstance(value, bool):
        raise InvalidInput(field, f"must be True or False, got {value!r}")
    return value


def seconds(field: str, value: object) -> float | None:
    """Return ``value`` if it is ``None`` or a number of seconds to wait.

    From 0 to :data:`threading.TIMEOUT_MAX` (what the interpreter's waits take), not a bool.

    Raises:
        InvalidInput: not a number, negative, not a number at all (NaN), or too long.
    """
    if value is None:
        return None
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or math.isnan(value)
        or not 0 <= value <= threading.TIMEOUT_MAX
    ):
        raise InvalidInput(
            field, f"must be None or seconds from 0 to {threading.TIMEOUT_MAX:g}, got {value!r}"
        )
    return float(value)


def callback(field: str, value: object, takes: str) -> Any:
    """Return ``value`` if it is ``None`` or can be called (with ``takes``, for the message).

    Raises:
        InvalidInput: anything else: found before the work it would follow begins.
    """
    if value is not None and not callable(value):
        raise InvalidInput(
            field, f"must be None or a callable of {takes}, got {type(value).__name__}"
        )
    return value


def integer(field: str, value: object, low: int, high: int) -> int:
    """Return ``value`` if it is an integer (not a bool) from ``low`` to ``high``.

    Raises:
        InvalidInput: not an integer, or out of range.
    """
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidInput(field, f"must be an integer from {low} to {high}, got {value!r}")
    return value


def name_schema() -> dict[str, Any]:
    """The JSON-schema constraints of a name, for the OpenAPI document."""
    return {"minLength": 1, "maxLength": MAX_NAME_CHARS, "pattern": NAME_PATTERN}


def token_schema() -> dict[str, Any]:
    """The JSON-schema constraints of a token."""
    return {"minLength": 1, "maxLength": MAX_TOKEN_CHARS, "pattern": TOKEN_PATTERN}


def text_schema(limit: int) -> dict[str, Any]:
    """The JSON-schema constraints of a text of at most ``limit`` characters."""
    return {"minLength": 1, "maxLength": limit, "pattern": TEXT_PATTERN}


def _string(field: str, value: object, limit: int, forbidden: re.Pattern[str]) -> str:
    """What names and texts share: a non-blank string, within ``limit``, and Unicode."""
    if not isinstance(value, str):
        raise InvalidInput(field, f"must be a string, got {type(value).__name__}")
    if not value.strip():
        raise InvalidInput(field, "must not be empty")
    if len(value) > limit:
        raise InvalidInput(field, f"longer than {limit} characters")
    if forbidden.search(value):
        raise InvalidInput(field, "must not contain control characters")
    _unicode(field, value)
    return value


def _unicode(field: str, item: str) -> None:
    if item.isascii():  # the usual case, and no surrogate is ASCII
        return
    found = _SURROGATE.search(item)
    if found is not None:
        raise InvalidInput(
            field, f"is not valid Unicode text (a lone surrogate at position {found.start()})"
        )
