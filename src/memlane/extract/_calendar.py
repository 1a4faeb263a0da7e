"""Calendar data and arithmetic for the time resolver: hits, weeks, months, nearest dates."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo

from memlane.lang.times import FUTURE_CUE, Unit


@dataclass(frozen=True, slots=True)
class TimeHit:
    """One resolved expression: a day, a range of days, or a local datetime, with its span.

    ``begin`` is the day, the first day of a range, or an aware local datetime; ``stop`` is the
    exclusive last day of a range. ``explicit_year`` tells whether the text wrote the year.
    """

    start: int
    end: int
    begin: date
    stop: date | None = None
    explicit_year: bool = False
    clock: tuple[int, int] | None = None
    weak: bool = False

    @property
    def value(self) -> str | dict[str, str]:
        """The :class:`Mention` value: an ISO date or datetime, or a ``from``/``to`` range."""
        if self.stop is not None:
            return {"from": self.begin.isoformat(), "to": self.stop.isoformat()}
        if isinstance(self.begin, datetime):
            return self.begin.isoformat(timespec="minutes")
        return self.begin.isoformat()

    @property
    def day(self) -> date | None:
        """The single calendar day this hit names, or ``None`` for ranges and times of day."""
        if self.stop is None and not isinstance(self.begin, datetime):
            return self.begin
        return None

    def start_instant(self, zone: tzinfo) -> datetime:
        """The aware UTC instant at which this hit begins (local midnight for days)."""
        if isinstance(self.begin, datetime):
            return self.begin.astimezone(UTC)
        return local_midnight(self.begin, zone)


@dataclass(frozen=True, slots=True)
class Context:
    """What the handlers resolve against: the folded text, local now, its zone and date."""

    text: str
    now: datetime
    zone: tzinfo
    today: date

    def future(self, position: int) -> bool:
        """Whether the sentence around ``position`` talks about the future."""
        start = max(self.text.rfind(mark, 0, position) for mark in "。!?\n") + 1
        ends = [self.text.find(mark, position) for mark in "。!?\n"]
        end = min((found for found in ends if found >= 0), default=len(self.text))
        return FUTURE_CUE.search(self.text, start, end) is not None

    def at_clock(self, day: date, hour: int, minute: int) -> datetime:
        return datetime.combine(day, time(hour, minute), tzinfo=self.zone)


def local_midnight(day: date, zone: tzinfo) -> datetime:
    """The aware UTC instant at which ``day`` begins in ``zone``."""
    return datetime.combine(day, time(), tzinfo=zone).astimezone(UTC)


def week_start(day: date, weeks: int = 0) -> date:
    return day - timedelta(days=day.weekday()) + timedelta(weeks=weeks)


def add_months(day: date, months: int) -> date:
    year, month_index = divmod(day.year * 12 + day.month - 1 + months, 12)
    first = date(year, month_index + 1, 1)
    following = date(year + (month_index == 11), (month_index + 1) % 12 + 1, 1)
    return first.replace(day=min(day.day, (following - timedelta(days=1)).day))


def month_range(year: int, month: int) -> tuple[date, date]:
    first = date(year, month, 1)
    return first, add_months(first, 1)


def nearest_date(month: int, day: int, context: Context, position: int) -> date | None:
    future = context.future(position)
    year = context.today.year
    for _ in range(9):  # 29 February comes back within eight years
        try:
            candidate = date(year, month, day)
        except ValueError:
            candidate = None
        if candidate is not None and (
            candidate >= context.today if future else candidate <= context.today
        ):
            return candidate
        year += 1 if future else -1
    return None


def nearest_day_of_month(day: int, context: Context, position: int) -> date | None:
    future = context.future(position)
    first = context.today.replace(day=1)
    for step in range(13):
        month_start = add_months(first, step if future else -step)
        try:
            candidate = month_start.replace(day=day)
        except ValueError:
            continue
        if candidate >= context.today if future else candidate <= context.today:
            return candidate
    return None


def nearest_month(month: int, context: Context, position: int) -> tuple[date, date]:
    today = context.today
    if context.future(position):
        return month_range(today.year + (month < today.month), month)
    return month_range(today.year - (month > today.month), month)


def nearest_weekday(weekday: int, context: Context, position: int) -> date:
    today = context.today
    if context.future(position):
        return today + timedelta(days=(weekday - today.weekday()) % 7)
    return today - timedelta(days=(today.weekday() - weekday) % 7)


def offset(context: Context, count: float, unit: Unit, sign: int) -> date | datetime:
    """``count`` units before (sign -1) or after (sign 1) now; hours give a datetime."""
    if unit == "hour":
        moment = context.now.astimezone(UTC) + sign * timedelta(hours=count)
        return moment.astimezone(context.zone)
    if unit == "day":
        return context.today + sign * timedelta(days=count)
    if unit == "week":
        return context.today + sign * timedelta(days=7 * count)
    months = round(count * (12 if unit == "year" else 1))
    if months == 0:  # half a month
        return context.today + sign * timedelta(days=15)
    return add_months(context.today, sign * months)
