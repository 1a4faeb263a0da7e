"""The window lane in Redis: same behaviour as the in-process buffer, shared by workers."""

from __future__ import annotations

import random
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

import memlane
from memlane.embed import HashEmbedder
from memlane.errors import InvalidInput
from memlane.window.base import SharedWindow, Window
from memlane.window.buffer import WindowBuffer
from memlane.window.model import Role, Turn
from memlane.window.redis import RedisWindow, connect, window_key
from tests.support.services import free_port

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


@pytest.fixture
def client(redis_url: str):
    redis_client = connect(redis_url)
    yield redis_client
    redis_client.close()


WindowMaker = Callable[[int], Window]


@pytest.fixture(params=["memory", "redis"])
def make_window(request: pytest.FixtureRequest) -> WindowMaker:
    """The same scenarios run against the in-process buffer and the Redis window."""
    if request.param == "memory":
        return WindowBuffer
    redis_client = request.getfixturevalue("client")
    return lambda rounds: RedisWindow(redis_client, f"test:{uuid.uuid4().hex}", rounds)


def turn(n: int, role: Role, content: str | None = None) -> Turn:
    return Turn(f"s#{n}", "s", "U", role, content or f"text {n}", T0 + timedelta(minutes=n))


def ids(turns: list[Turn]) -> list[str]:
    return [t.id for t in turns]


# -- the same behaviour as the in-process buffer --------------------------------------------


def test_both_windows_satisfy_the_protocol(client) -> None:
    assert isinstance(WindowBuffer(1), Window)
    assert not isinstance(WindowBuffer(1), SharedWindow)
    assert isinstance(RedisWindow(client, "k", 1), SharedWindow)


def test_a_user_turn_starts_a_round_and_old_rounds_leave(make_window: WindowMaker) -> None:
    window = make_window(2)
    roles: list[Role] = ["user", "assistant", "user", "tool", "assistant"]
    assert [window.append(turn(i + 1, r)) for i, r in enumerate(roles)] == [[]] * 5
    assert ids(window.turns()) == ["s#1", "s#2", "s#3", "s#4", "s#5"]
    assert ids(window.append(turn(6, "user"))) == ["s#1", "s#2"]
    assert ids(window.turns()) == ["s#3", "s#4", "s#5", "s#6"]
    assert len(window) == 4


def test_a_reply_to_an_empty_window_starts_a_round(make_window: WindowMaker) -> None:
    window = make_window(1)
    assert window.append(turn(1, "assistant")) == []
    assert window.append(turn(2, "assistant")) == []
    assert ids(window.append(turn(3, "user"))) == ["s#1", "s#2"]
    assert ids(window.append(turn(4, "user"))) == ["s#3"]
    assert ids(window.turns()) == ["s#4"]


def test_drain_empties_the_window_in_order(make_window: WindowMaker) -> None:
    window = make_window(3)
    for n, role in enumerate(["user", "assistant", "user"], start=1):
        window.append(turn(n, role))
    assert ids(window.drain()) == ["s#1", "s#2", "s#3"]
    assert window.turns() == [] and len(window) == 0 and window.drain() == []
    assert window.append(turn(4, "assistant")) == []  # empty again: a new round


def test_remove_drops_turns_and_empty_rounds(make_window: WindowMaker) -> None:
    window = make_window(2)
    for n, role in enumerate(["user", "assistant", "user", "assistant"], start=1):
        window.append(turn(n, role, "secret" if n in (1, 2, 4) else None))
    assert window.remove(lambda t: t.content == "secret") == 3
    assert window.remove(lambda t: t.content == "secret") == 0
    assert ids(window.turns()) == ["s#3"]
    assert window.append(turn(5, "user")) == []  # the emptied round no longer counts
    assert ids(window.append(turn(6, "user"))) == ["s#3"]


def test_turns_round_trip_exactly(make_window: WindowMaker) -> None:
    window = make_window(1)
    odd = Turn(
        "s-1#7", "s-1", "U-001", "user", '第一行\n第二行 "quoted" 🙂', T0, speaker="Caroline"
    )
    shanghai = timezone(timedelta(hours=8))
    local = Turn("s-1#8", "s-1", "U-001", "tool", '{"a": 1}', T0.astimezone(shanghai))
    window.append(odd)
    window.append(local)
    assert window.turns() == [odd, local]
    assert window.turns()[1].at.utcoffset() == timedelta(hours=8)


@pytest.mark.parametrize("seed", range(5))
def test_random_conversations_evict_like_the_buffer(client, seed: int) -> None:
    rng = random.Random(seed)
    rounds = rng.randint(1, 4)
    local, shared = WindowBuffer(rounds), RedisWindow(client, f"rand:{seed}", rounds)
    roles: list[Role] = ["user", "user", "assistant", "tool", "system"]
    for n in range(1, 80):
        t = turn(n, rng.choice(roles))
        assert shared.append(t) == local.append(t)
        if n % 17 == 0:
            assert shared.remove(lambda x: x.role == "tool") == local.remove(
                lambda x: x.role == "tool"
            )
        assert shared.turns() == local.turns()
    assert shared.drain() == local.drain()


def test_rejects_bad_rounds_and_ttl(client) -> None:
    with pytest.raises(InvalidInput, match="window"):
        RedisWindow(client, "k", 0)
    with pytest.raises(InvalidInput, match="ttl"):
        RedisWindow(client, "k", 1, ttl=timedelta(0))


# -- Redis specifics ---------------------------------------------------------------------------


def test_appends_set_and_refresh_the_time_to_live(client) -> None:
    window = RedisWindow(client, "ttl", 2, ttl=timedelta(minutes=10))
    assert window.next_turn_number(0) == 1
    window.append(turn(1, "user"))
    assert 0 < client.pttl("ttl") <= 600_000
    assert 0 < client.pttl("ttl:turns") <= 600_000
    client.pexpire("ttl", 1_000)
    client.pexpire("ttl:turns", 1_000)
    window.append(turn(2, "assistant"))
    assert client.pttl("ttl") > 500_000  # refreshed: an active session does not expire
    assert client.pttl("ttl:turns") > 500_000


def test_an_idle_window_expires(client) -> None:
    window = RedisWindow(client, "idle", 2, ttl=timedelta(milliseconds=50))
    window.append(turn(1, "user"))
    deadline = time.monotonic() + 5
    while client.exists("idle") and time.monotonic() < deadline:
        time.sleep(0.02)
    assert window.turns() == []


def test_turn_numbers_are_shared_and_continue_after_folded_ones(client) -> None:
    first, second = RedisWindow(client, "num", 1), RedisWindow(client, "num", 1)
    assert [first.next_turn_number(4), second.next_turn_number(4)] == [5, 6]
    assert first.next_turn_number(0) == 7  # a lower floor never goes back
    assert RedisWindow(client, "other", 1).next_turn_number(0) == 1


def test_concurrent_appends_hand_each_evicted_round_to_one_caller(client) -> None:
    rounds, per_thread = 3, 60
    evicted: list[list[Turn]] = [[] for _ in range(4)]
    start = threading.Barrier(4)

    def worker(index: int) -> None:
        window = RedisWindow(client, "busy", rounds)
        start.wait()
        for i in range(per_thread):
            n = index * 1000 + i
            evicted[index].extend(window.append(turn(n, "user" if i % 2 == 0 else "assistant")))

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    handed = [t.id for batch in evicted for t in batch]
    left = RedisWindow(client, "busy", rounds).drain()
    assert len(handed) == len(set(handed))  # nothing handed out twice
    assert Counter(handed + ids(left)) == Counter(
        f"s#{i * 1000 + j}" for i in range(4) for j in range(per_thread)
    )  # nothing lost
    assert sum(t.role == "user" for t in left) <= rounds


def test_a_failing_server_is_a_storage_error() -> None:
    pytest.importorskip("redis")
    window = RedisWindow(connect(f"redis://127.0.0.1:{free_port()}/0"), "k", 1)
    with pytest.raises(memlane.MemlaneError, match="redis"):
        window.turns()


def test_a_missing_client_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "redis", None)
    with pytest.raises(ImportError, match=r"memlane\[redis\]"):
        connect("redis://127.0.0.1:6379/0")


def test_keys_hash_ids_so_they_cannot_collide() -> None:
    a, b = window_key("t", "a:b", "c"), window_key("t", "a", "b:c")
    assert a != b and a.startswith("memlane:t:window:") and "a:b" not in a
    assert window_key("t:x", "a", "b").startswith("memlane:t%3Ax:window:")


# -- two workers on one database and one Redis -----------------------------------------------


@pytest.fixture
def workers(tmp_path: Path, redis_url: str, clock) -> Iterator[list[memlane.Memory]]:
    clock.set(T0)
    path = tmp_path / "shared.db"
    handles = [
        memlane.Memory(path, clock=clock, embedder=HashEmbedder(dim=64), window_url=redis_url)
        for _ in range(2)
    ]
    yield handles
    for handle in handles:
        handle.close()


def test_two_workers_share_one_window_and_fold_each_turn_once(workers, clock) -> None:
    added: list[Turn] = []
    for i in range(13):
        memory = workers[i % 2]
        session = memory.session("U-1", session_id="s-1", window=2)
        clock.advance(minutes=1)
        role: Role = "user" if i % 3 != 2 else "assistant"
        added.append(session.add(role, f"message {i} about topic{i}"))
        windows = [m.session("U-1", session_id="s-1", window=2).window() for m in workers]
        assert windows[0] == windows[1]  # each worker sees the other's turns
        assert windows[0][-1] == added[-1]
    numbers = [int(t.id.split("#")[1]) for t in added]
    assert numbers == sorted(set(numbers)) == list(range(1, 14))

    workers[0].close()
    workers[1].close()
    reader = memlane.Memory(workers[0].url, embedder=HashEmbedder(dim=64))
    versions = reader.summaries.versions("U-1", "s-1")
    reader.close()
    folded: list[str] = []
    for version in versions:  # each version extends the one before: nothing dropped
        assert version.provenance[: len(folded)] == tuple(folded)
        folded.extend(version.provenance[len(folded) :])
    assert Counter(folded) == Counter(t.id for t in added)  # every turn folded exactly once


def test_numbering_continues_after_an_earlier_run(workers, client) -> None:
    first = workers[0].session("U-1", session_id="s-2", window=5)
    assert [first.add("user", f"hello {i}").id for i in range(3)] == ["s-2#1", "s-2#2", "s-2#3"]
    first.close()
    client.flushdb()  # the shared counter expired: numbers continue after the folded ones
    again = workers[1].session("U-1", session_id="s-2", window=5)
    assert again.add("user", "back again").id == "s-2#4"


def test_the_url_can_come_from_the_environment(
    tmp_path: Path, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMLANE_REDIS_URL", redis_url)
    with memlane.Memory(tmp_path / "a.db", embedder="hash") as one:
        one.session("U-1", session_id="s-3").add("user", "shared hello")
        monkeypatch.delenv("MEMLANE_REDIS_URL")
        with memlane.Memory(tmp_path / "b.db", embedder="hash", window_url=redis_url) as two:
            assert [t.content for t in two.session("U-1", "s-3").window()] == ["shared hello"]
        with memlane.Memory(tmp_path / "c.db", embedder="hash") as local:
            assert local.session("U-1", "s-3").window() == []


def test_forget_drops_windows_other_workers_hold(workers, client) -> None:
    workers[0].session("U-1", session_id="s-4").add("user", "my secret plan")
    workers[0].session("U-2", session_id="s-5").add("user", "unrelated")
    workers[1].forget("U-1", reason="erasure request")
    assert workers[0].session("U-1", session_id="s-4").window() == []
    assert len(workers[0].session("U-2", session_id="s-5").window()) == 1


def test_last_activity_keeps_the_latest_time(client) -> None:
    window = RedisWindow(client, "act", 1, ttl=timedelta(minutes=5))
    assert window.last_active() is None
    window.mark_active(T0 + timedelta(minutes=5))
    window.mark_active(T0 + timedelta(minutes=1))  # a slower worker reporting late
    assert window.last_active() == T0 + timedelta(minutes=5)
    assert 0 < client.pttl("act:active") <= 300_000


def test_a_session_busy_on_another_worker_is_not_swept(workers, clock) -> None:
    one, two = workers
    one.session("U-1", session_id="s-6").add("user", "started on worker one")
    clock.advance(minutes=20)
    two.session("U-1", session_id="s-6").add("user", "continued on worker two")
    clock.advance(minutes=20)  # idle 40 min on worker one, 20 min on the session
    assert one.sweep() == []
    assert len(one.session("U-1", session_id="s-6").window()) == 2
    clock.advance(minutes=20)  # now idle everywhere
    swept = one.sweep()
    assert [s.session_id for s in swept] == ["s-6"] and swept[0].closed
    assert two.session("U-1", session_id="s-6").window() == []
    assert set(one.summaries.for_session("s-6").provenance) == {"s-6#1", "s-6#2"}


def test_a_close_on_one_worker_closes_the_session_for_every_worker(workers) -> None:
    one, two = workers
    started = one.session("U-1", session_id="s-7")
    started.add("user", "I moved to Lisbon")
    two.session("U-1", session_id="s-7").add("user", "and I like green tea")
    assert one.running_session("U-1", "s-7") is started
    summary = two.running_session("U-1", "s-7").close()
    assert set(summary.provenance) == {"s-7#1", "s-7#2"}
    assert started.closed and one.running_session("U-1", "s-7") is None
    with pytest.raises(InvalidInput, match="closed"):
        started.add("user", "too late on this handle")
    # Opening it again (on either worker) resumes it, numbering after what was folded.
    resumed = one.session("U-1", session_id="s-7")
    assert resumed is not started and not resumed.closed
    assert resumed.add("user", "back again").id == "s-7#3"
    assert not two.session("U-1", session_id="s-7").closed
