"""A conversation flows turn by turn into window, summaries, notes and facts, offline."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

import pytest

import memlane
from memlane.embed import HashEmbedder


@pytest.fixture
def mem(clock, scratch_url):
    clock.set("2026-07-04T02:00:00+00:00")  # 10:00 in Shanghai, a Saturday
    with memlane.Memory(
        scratch_url, clock=clock, timezone="Asia/Shanghai", embedder=HashEmbedder(dim=256)
    ) as memory:
        yield memory


def chat(session, *pairs):
    for user, assistant in pairs:
        session.add("user", user)
        session.add("assistant", assistant)


def test_window_keeps_the_last_rounds_oldest_first(mem):
    s = mem.session("U-1", session_id="s-1", window=2)
    chat(s, ("one", "1"), ("two", "2"), ("three", "3"))
    assert [t.content for t in s.window()] == ["two", "2", "three", "3"]
    assert [t.id for t in s.window()] == ["s-1#3", "s-1#4", "s-1#5", "s-1#6"]
    assert len(s.window()) <= 2 * 2


def test_replies_join_the_round_of_their_user_turn(mem):
    s = mem.session("U-1", session_id="s-1", window=1)
    s.add("user", "look up my order")
    s.add("tool", "order ORD-123456 shipped")
    s.add("assistant", "it shipped")
    assert len(s.window()) == 3
    s.add("user", "thanks")
    assert [t.content for t in s.window()] == ["thanks"]


def test_nothing_is_lost_between_window_and_summary(mem):
    s = mem.session("U-1", session_id="s-9", window=2)
    turns = []
    for i in range(7):
        turns.append(s.add("user", f"message {i} about topic{i}"))
        turns.append(s.add("assistant", f"reply {i}"))
        if i >= 2:  # evicted rounds are already folded
            folded = set(mem.summaries.for_session("s-9").provenance)
            assert {t.id for t in turns[: 2 * (i - 1)]} <= folded
    summary = s.close()
    assert set(summary.provenance) == {t.id for t in turns}
    assert s.window() == []
    assert mem.summaries.storyline("U-1").provenance == summary.provenance


def test_summary_versions_are_all_kept(mem):
    s = mem.session("U-1", session_id="s-2", window=1)
    chat(s, ("I live in Paris", "ok"), ("My email is a@b.com", "ok"), ("bye", "bye"))
    s.close()
    versions = mem.summaries.versions("U-1", "s-2")
    assert [v.version for v in versions] == [1, 2, 3]
    assert all(a.tx_from < b.tx_from for a, b in itertools.pairwise(versions))
    assert mem.summaries.for_session("s-2").version == 3


def test_user_turns_become_facts_with_the_turn_as_provenance(mem):
    s = mem.session("U-001", session_id="s-42", window=5)
    turn = s.add("user", "我上周搬到北京了，新手机号 139-1111-2222")
    location = mem.facts.get("U-001", "location")
    assert location.value == "北京"
    assert location.provenance == (turn.id,)
    # "上周" said on Saturday 2026-07-04 in Shanghai: the week that began Monday 2026-06-22.
    assert location.valid_from == datetime(2026, 6, 22, tzinfo=UTC) - timedelta(hours=8)
    assert mem.facts.lookup("phone", "13911112222") == ["U-001"]
    assert [n.provenance for n in mem.summaries.notes("U-001")] == [(turn.id,)]


def test_assistant_turns_state_no_user_facts(mem):
    s = mem.session("U-1", session_id="s-3")
    s.add("assistant", "I live in Berlin and my email is bot@example.com")
    assert mem.facts.profile("U-1") == {}
    assert mem.summaries.notes("U-1") == []


def test_unclosed_sessions_fold_after_idle_timeout_and_at_close(clock, scratch_url):
    clock.set("2026-07-04T02:00:00+00:00")
    with memlane.Memory(
        scratch_url, clock=clock, idle_timeout=timedelta(minutes=10), embedder="hash"
    ) as mem:
        s = mem.session("U-1", session_id="s-idle")
        s.add("user", "remember that I prefer tea")
        clock.advance(minutes=11)
        mem.session("U-2", session_id="s-other").add("user", "hello there friend")
        assert s.closed
        assert mem.summaries.for_session("s-idle").provenance == ("s-idle#1",)
        assert mem.summaries.for_session("s-other") is None
    with pytest.raises(memlane.InvalidInput):
        s.add("user", "too late")


def test_memory_close_folds_open_sessions(memory_url, clock):
    path = memory_url
    with memlane.Memory(path, clock=clock, embedder="hash") as mem:
        mem.session("U-1", session_id="s-open").add("user", "I work at Acme now")
    with memlane.Memory(path, clock=clock, embedder="hash") as mem:
        assert mem.summaries.for_session("s-open").provenance == ("s-open#1",)
        resumed = mem.session("U-1", session_id="s-open")
        assert resumed.add("user", "still at Acme").id == "s-open#2"


def test_the_same_session_is_returned_while_running(mem):
    first = mem.session("U-1", session_id="s-1", window=3)
    first.add("user", "hi")
    assert mem.session("U-1", session_id="s-1", window=3) is first


def test_transcripts_are_not_kept_unless_asked(clock, new_scratch_url):
    with memlane.Memory(new_scratch_url(), clock=clock, embedder="hash") as mem:
        mem.session("U-1", session_id="s-1").add("user", "secret plan")
        assert mem.summaries.transcript("s-1") == []
    with memlane.Memory(
        new_scratch_url(), clock=clock, embedder="hash", retain_transcripts=True
    ) as mem:
        mem.session("U-1", session_id="s-1").add("user", "secret plan")
        assert [t.content for t in mem.summaries.transcript("s-1")] == ["secret plan"]


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda m: m.session("", session_id="s"), "subject"),
        (lambda m: m.session("U", session_id=" "), "session_id"),
        (lambda m: m.session("U", session_id="s", window=0), "window"),
        (lambda m: m.session("U", session_id="s").add("robot", "x"), "role"),
        (lambda m: m.session("U", session_id="s").add("user", "   "), "content"),
        (lambda m: m.session("U", session_id="s").add("user", "x" * 100_001), "content"),
        (lambda m: m.session("U", session_id="s").add("user", "x", at="soon"), "at"),
        (lambda m: m.remember("U", ""), "text"),
        (lambda m: m.summaries.search("U", "", k=3), "query"),
        (lambda m: m.summaries.search("U", "x", k=0), "k"),
    ],
)
def test_bad_session_input(mem, call, field):
    with pytest.raises(memlane.InvalidInput) as raised:
        call(mem)
    assert raised.value.field == field
