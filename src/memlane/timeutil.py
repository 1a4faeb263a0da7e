"""Instants, clocks and time zones: every time inside memlane is an aware UTC ``datetime``.

Inputs may be ``datetime``, ``date`` or ISO-8601 strings. A date or a naive datetime is read
in the memory's configured time zone; a wall time that a daylight-saving change makes
ambiguous or skips is refused rather than guessed. Instants must fall in the years 2 to 9998
(UTC), so that every time zone can show them and date arithmetic near them cannot overflow.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime, time, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from memlane.errors import InvalidInput

Clock = Callable[[], datetime]
"""A zero-argument callable returning the current instant as an aware ``datetime``."""

TimeInput = datetime | date | str
"""What callers may pass wherever memlane takes an instant."""

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
EARLIEST = datetime(2, 1, 1, tzinfo=UTC)
"""The earliest instant memlane accepts."""
LATEST = datetime(9998, 12, 31, 23, 59, 59, 999_999, tzinfo=UTC)
"""The latest instant memlane accepts (omit ``valid_to`` for "until further notice")."""

_YEAR = (
    "(?:000[3-9]|00[1-9][0-9]|0[1-9][0-9]{2}|[1-8][0-9]{3}|9[0-8][0-9]{2}|99[0-8][0-9]|999[0-7])"
)
_MONTH_DAY = (
    "(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|1[0-9]|2[0-8])"
    "|(?:0[13-9]|1[0-2])-(?:29|30)|(?:0[13578]|1[02])-31)"
)
_TIME = "T(?:[01][0-9]|2[0-3]):[0-5][0-9](?::[0-5][0-9](?:[.][0-9]{1,6})?)?"
_OFFSET = "(?:Z|[+-](?:0[0-9]|1[0-3]):[0-5][0-9])?"
INSTANT_PATTERN = f"^{_YEAR}-{_MONTH_DAY}(?:{_TIME}{_OFFSET})?$"
"""ISO-8601 dates and times that :func:`parse_instant` always accepts, as a regular expression.

Published in the OpenAPI document. It is a subset: the parser also takes 29 February, a
space before the time and the first and last year within range; every match parses, in
any time zone without daylight saving (a local time that a DST change skips still fails).
"""
ONE_MICROSECOND = timedelta(microseconds=1)


def system_clock() -> datetime:
    """Return the wall-clock time in UTC."""
    return datetime.now(UTC)


def resolve_timezone(name: str | tzinfo) -> tzinfo:
    """Return the ``tzinfo`` for an IANA name such as ``"Asia/Shanghai"``.

    Raises:
        InvalidInput: the name is not a known time zone.
    """
    if isinstance(name, tzinfo):
        return name
    if not isinstance(name, str):
        raise InvalidInput(
            "timezone", f"must be an IANA name such as 'Asia/Shanghai' or a tzinfo, got {name!r}"
        )
    if name.upper() in {"UTC", "Z", "ETC/UTC"}:
        return UTC
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as error:
        raise InvalidInput("timezone", f"unknown time zone {name!r}") from error


def parse_instant(value: TimeInput, zone: tzinfo, field: str) -> datetime:
    """Turn a caller's time into an aware UTC ``datetime``.

    >>> parse_instant("2026-03-01", ZoneInfo("Asia/Shanghai"), "valid_from").isoformat()
    '2026-02-28T16:00:00+00:00'

    Raises:
        InvalidInput: the value is not a time, cannot be parsed, or names a local wall time
            that does not exist or exists twice in ``zone``.
    """
    if isinstance(value, str):
        value = _parse_iso(value.strip(), field)
    if not isinstance(value, date):
        raise InvalidInput(field, f"expected a datetime, date or ISO-8601 string, got {value!r}")
    try:
        instant = _to_utc(value, zone, field)
    except OverflowError:  # the wall time has no UTC instant (year 1 or 9999 with an offset)
        instant = None
    if instant is None or not EARLIEST <= instant <= LATEST:
        raise InvalidInput(
            field,
            f"{value.isoformat()} is out of range: times must fall in the years "
            f"{EARLIEST.year} to {LATEST.year} (UTC)",
        )
    return instant


def parse_optional_instant(value: TimeInput | None, zone: tzinfo, field: str) -> datetime | None:
    """Like :func:`parse_instant`, but ``None`` stays ``None``."""
    return None if value is None else parse_instant(value, zone, field)


def checked_now(clock: Clock) -> datetime:
    """Call ``clock`` and insist on an aware result, returned in UTC.

    Raises:
        InvalidInput: the clock returned something other than an aware ``datetime``.
    """
    now = clock()
    if not isinstance(now, datetime) or now.utcoffset() is None:
        raise InvalidInput("clock", f"must return an aware datetime, returned {now!r}")
    return now.astimezone(UTC)


def to_micros(instant: datetime) -> int:
    """Microseconds since the Unix epoch of an aware ``datetime`` (the storage encoding)."""
    delta = instant - EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def from_micros(micros: int) -> datetime:
    """Inverse of :func:`to_micros`."""
    return EPOCH + timedelta(microseconds=micros)


def _to_utc(value: date, zone: tzinfo, field: str) -> datetime:
    if isinstance(value, datetime):
        if value.tzinfo is None or value.utcoffset() is None:
            value = _localize(value, zone, field)
        return value.astimezone(UTC)
    return _localize(datetime.combine(value, time()), zone, field).astimezone(UTC)


def _parse_iso(text: str, field: str) -> datetime | date:
    if not text:
        raise InvalidInput(field, "empty time")
    try:
        if len(text) == 10 and text[4] == "-":
            return date.fromisoformat(text)
        return datetime.fromisoformat(text)
    except ValueError as error:
        raise InvalidInput(
            field, f"cannot parse {text!r}; use ISO-8601, e.g. 2026-07-01 or 2026-07-01T09:30+08:00"
        ) from error


def _localize(naive: datetime, zone: tzinfo, field: str) -> datetime:
    """Attach ``zone`` to a wall time, refusing times a DST change makes ambiguous or skips."""
    if isinstance(zone, timezone):  # a fixed offset (UTC included) has no DST changes
        return naive.replace(tzinfo=zone)
    early = naive.replace(tzinfo=zone, fold=0)
    late = naive.replace(tzinfo=zone, fold=1)
    if early.utcoffset() != late.utcoffset():
        # Either the wall time occurs twice (fall back) or never (spring forward); a round
        # trip through UTC tells which.
        round_trip = early.astimezone(UTC).astimezone(zone).replace(tzinfo=None)
        problem = "occurs twice" if round_trip == naive else "does not exist"
        raise InvalidInput(
            field,
            f"{naive.isoformat()} {problem} in {zone}; give an explicit UTC offset",
        )
    return early
