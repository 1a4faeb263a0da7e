"""The window lane in Redis, for agent workers in several processes sharing sessions.

Requires the ``redis`` extra (``pip install 'memlane[redis]'``). A window is a Redis list
with one element per round (the round's turns as JSON lines). Appending and evicting run in
one Lua script, so a round pushed out of the window is handed to exactly one caller (and so
folded by exactly one summarizer). Every append refreshes the key's time to live: the
window of a session nobody talks to expires.
"""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import quote

from memlane.errors import InvalidInput, StorageError
from memlane.timeutil import from_micros, to_micros
from memlane.window.model import Role, Turn

if TYPE_CHECKING:
    import redis as redis_py

EXTRA_HINT = "pip install 'memlane[redis]'"
DEFAULT_TTL = timedelta(hours=24)
FOLD_LOCK_TTL = timedelta(seconds=30)
FOLD_LOCK_WAIT = timedelta(seconds=30)

# KEYS: window, turn counter. ARGV: turn json, "1" when the turn starts a round, rounds kept,
# ttl in ms. Returns the evicted rounds, oldest first.
_APPEND = """
local n = redis.call('LLEN', KEYS[1])
if ARGV[2] == '1' or n == 0 then
  redis.call('RPUSH', KEYS[1], ARGV[1])
  n = n + 1
else
  local last = redis.call('LINDEX', KEYS[1], -1)
  redis.call('LSET', KEYS[1], -1, last .. '\\n' .. ARGV[1])
end
local evicted = {}
local limit = tonumber(ARGV[3])
while n > limit do
  evicted[#evicted + 1] = redis.call('LPOP', KEYS[1])
  n = n - 1
end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return evicted
"""

_DRAIN = """
local rounds = redis.call('LRANGE', KEYS[1], 0, -1)
redis.call('DEL', KEYS[1])
return rounds
"""

# KEYS: turn counter. ARGV: floor (the numbers an earlier run already folded), ttl in ms.
_NEXT_NUMBER = """
local n = redis.call('INCR', KEYS[1])
local floor = tonumber(ARGV[1])
if n <= floor then
  n = floor + 1
  redis.call('SET', KEYS[1], n)
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return n
"""

# KEYS: last activity (µs). ARGV: activity (µs), ttl in ms. Keeps the latest of the two.
_MARK = """
local current = redis.call('GET', KEYS[1])
if not current or tonumber(current) < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
else
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
"""

_UNLOCK = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


def connect(url: str) -> redis_py.Redis:
    """A Redis client for ``url`` (``redis://host:port/db``); connects on first use.

    Raises:
        ImportError: the ``redis`` extra is not installed.
    """
    try:
        import redis as redis_py
    except ImportError as missing:
        raise ImportError(f"shared windows need the redis client: {EXTRA_HINT}") from missing
    return redis_py.Redis.from_url(url)


def window_key(tenant: str, subject: str, session_id: str) -> str:
    """The Redis key of a session's window.

    Subject and session ids are hashed: they may hold ``:`` (which would make two keys
    collide) and should not be readable from the key space.
    """
    return f"memlane:{quote(tenant, safe='')}:window:{_digest(subject)}:{_digest(session_id)}"


def subject_pattern(tenant: str, subject: str) -> str:
    """A ``SCAN`` pattern matching every window key (and companion key) of a subject."""
    return f"memlane:{quote(tenant, safe='')}:window:{_digest(subject)}:*"


class RedisWindow:
    """The last ``rounds`` rounds of a session, in Redis, shared by every worker.

    Args:
        client: a ``redis.Redis`` client (see :func:`connect`).
        key: the window's key (see :func:`window_key`); ``{key}:turns`` numbers turns and
            ``{key}:fold`` orders folds, ``{key}:active`` holds the last activity and
            ``{key}:closed`` the mark of the latest close.
        rounds: how many rounds are kept.
        ttl: how long an idle window lives; refreshed on each append.
    """

    def __init__(
        self, client: redis_py.Redis, key: str, rounds: int, ttl: timedelta = DEFAULT_TTL
    ) -> None:
        if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
            raise InvalidInput("window", f"must be a positive number of rounds, got {rounds!r}")
        if not isinstance(ttl, timedelta) or ttl < timedelta(milliseconds=1):
            raise InvalidInput("ttl", "must be a positive timedelta")
        if not isinstance(key, str) or not key:
            raise InvalidInput("key", "must be a non-empty string")
        self.rounds = rounds
        self.key = key
        self.ttl = ttl
        self._client = client
        self._counter = f"{key}:turns"
        self._lock_key = f"{key}:fold"
        self._active = f"{key}:active"
        self._closed = f"{key}:closed"
        self._mark = client.register_script(_MARK)
        self._append = client.register_script(_APPEND)
        self._drain = client.register_script(_DRAIN)
        self._next_number = client.register_script(_NEXT_NUMBER)
        self._unlock = client.register_script(_UNLOCK)

    def append(self, turn: Turn) -> list[Turn]:
        """Add a turn; return the turns of the rounds it pushed out (oldest first)."""
        starts = "1" if turn.role == "user" else "0"
        args: list[str | int] = [_encode(turn), starts, self.rounds, self._ttl_ms()]
        evicted = _guard(lambda: self._append(keys=[self.key, self._counter], args=args))
        return _decode_rounds(evicted)

    def turns(self) -> list[Turn]:
        """The turns in the window, oldest first."""
        return _decode_rounds(_guard(lambda: self._client.lrange(self.key, 0, -1)))

    def drain(self) -> list[Turn]:
        """Empty the window and return what it held, oldest first (to one caller only)."""
        return _decode_rounds(_guard(lambda: self._drain(keys=[self.key])))

    def remove(self, predicate: Callable[[Turn], bool]) -> int:
        """Drop the turns for which ``predicate`` is true (for ``forget``); return how many."""
        removed_box = [0]

        def rewrite(pipe: Any) -> None:
            rounds = [_decode_round(r) for r in pipe.lrange(self.key, 0, -1)]
            kept = [[t for t in round_ if not predicate(t)] for round_ in rounds]
            removed = sum(map(len, rounds)) - sum(map(len, kept))
            pipe.multi()
            if removed:
                pipe.delete(self.key)
                encoded = ["\n".join(_encode(t) for t in round_) for round_ in kept if round_]
                if encoded:
                    pipe.rpush(self.key, *encoded)
                    pipe.pexpire(self.key, self._ttl_ms())
            removed_box[0] = removed  # the transaction may rerun: the last run counts

        _guard(lambda: self._client.transaction(rewrite, self.key))
        return removed_box[0]

    def next_turn_number(self, floor: int) -> int:
        """The next turn number of the session, shared by every worker, above ``floor``."""
        args: list[str | int] = [floor, self._ttl_ms()]
        return int(_guard(lambda: self._next_number(keys=[self._counter], args=args)))

    @contextmanager
    def fold_lock(self) -> Iterator[None]:
        """Hold the session's fold lock (expires by itself if its holder dies).

        Raises:
            StorageError: another worker held it for longer than ``FOLD_LOCK_WAIT``.
        """
        token = uuid.uuid4().hex
        lock_ms = int(FOLD_LOCK_TTL / timedelta(milliseconds=1))
        deadline = time.monotonic() + FOLD_LOCK_WAIT.total_seconds()
        while not _guard(lambda: self._client.set(self._lock_key, token, nx=True, px=lock_ms)):
            if time.monotonic() > deadline:
                raise StorageError(f"window {self.key}: fold lock not released")
            time.sleep(0.005)
        try:
            yield
        finally:
            _guard(lambda: self._unlock(keys=[self._lock_key], args=[token]))

    def mark_active(self, at: datetime) -> None:
        """Record that a worker used the session at ``at`` (the latest time wins)."""
        args: list[str | int] = [to_micros(at), self._ttl_ms()]
        _guard(lambda: self._mark(keys=[self._active], args=args))

    def last_active(self) -> datetime | None:
        """When any worker last used the session; ``None`` once it expired."""
        raw = _guard(lambda: self._client.get(self._active))
        return None if raw is None else from_micros(int(raw))

    def mark_closed(self) -> None:
        """Record a close under a fresh mark; handles opened before it see themselves closed."""
        _guard(lambda: self._client.set(self._closed, uuid.uuid4().hex, px=self._ttl_ms()))
        _guard(lambda: self._client.delete(self._active))

    def close_mark(self) -> str | None:
        """The mark of the latest close, or ``None``."""
        raw = _guard(lambda: self._client.get(self._closed))
        return None if raw is None else raw.decode() if isinstance(raw, bytes) else str(raw)

    def __len__(self) -> int:
        return len(self.turns())

    def _ttl_ms(self) -> int:
        return max(1, int(self.ttl / timedelta(milliseconds=1)))


def forget_windows(client: redis_py.Redis, tenant: str, subject: str) -> int:
    """Delete every shared window of ``subject`` (and its counters); return keys deleted."""
    keys: list[bytes] = _guard(
        lambda: list(client.scan_iter(match=subject_pattern(tenant, subject)))
    )
    if not keys:
        return 0
    return int(_guard(lambda: client.delete(*keys)))


# -- encoding -------------------------------------------------------------------------------


def _encode(turn: Turn) -> str:
    # json.dumps escapes newlines inside strings, so a newline safely separates turns.
    return json.dumps(
        {
            "id": turn.id,
            "session_id": turn.session_id,
            "subject": turn.subject,
            "role": turn.role,
            "content": turn.content,
            "at": turn.at.isoformat(),
            "speaker": turn.speaker,
        },
        ensure_ascii=False,
    )


def _decode_round(raw: bytes | str) -> list[Turn]:
    text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    turns = []
    for line in text.split("\n"):
        data = json.loads(line)
        turns.append(
            Turn(
                id=data["id"],
                session_id=data["session_id"],
                subject=data["subject"],
                role=cast(Role, data["role"]),
                content=data["content"],
                at=datetime.fromisoformat(data["at"]),
                speaker=data["speaker"],
            )
        )
    return turns


def _decode_rounds(raw: Any) -> list[Turn]:
    return [turn for round_ in raw or () for turn in _decode_round(round_)]


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def _guard(call: Callable[[], Any]) -> Any:
    """Run a Redis call; a failing server is a :class:`StorageError`, like a broken database."""
    import redis as redis_py

    try:
        return call()
    except redis_py.RedisError as error:
        raise StorageError(f"redis: {type(error).__name__}: {error}") from error
