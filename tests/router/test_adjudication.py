"""Adjudication: stale statements, knowledge updates, history, and reads as of another time."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from memlane.summaries.model import SummaryContent
from tests.conftest import FakeClock


def by_status(result, status):
    return [item for item in result.items if item.status == status]


def test_note_contradicted_by_a_newer_fact_is_stale_and_ranked_below(mem, clock: FakeClock):
    s = mem.session("U-1", session_id="s-1")
    s.add("user", "我住在上海，平时喜欢喝茶")
    s.close()
    clock.set("2026-07-04T02:00:00+00:00")
    s = mem.session("U-1", session_id="s-2")
    s.add("user", "我上周搬到北京了")
    s.close()
    assert mem.index.wait(timeout=30)  # ranked the same whether or not the indexer ran first
    r = mem.recall(None, "用户住在哪个城市，喜欢什么")
    stale = by_status(r, "stale")
    assert [item.text for item in stale] == [
        "U-1住在上海，平时喜欢喝茶",  # the note
        "session s-1 (2026-03-02 → 2026-03-02): 我住在上海，平时喜欢喝茶",  # the summary line
    ]
    assert {item.superseded_by for item in stale} == {"location is now 北京 (since 2026-06-22)"}
    assert stale[0].valid_to == datetime(2026, 6, 21, 16, tzinfo=UTC)  # 2026-06-22, Shanghai
    assert r.items[-2:] == stale  # ranked last, although the old note scored highest
    assert stale[0].score == max(item.score for item in r.items if item.lane == "summary")
    assert "(outdated) [2026-03-02] U-1住在上海" in r.text
    current = [item.text for item in r.items if item.status == "current"]
    assert any("搬到北京" in text for text in current)


def test_stale_items_can_be_left_out(mem, clock: FakeClock):
    mem.remember("U-1", "I live in Shanghai")
    clock.advance(days=30)
    mem.remember("U-1", "I moved to Beijing")
    assert mem.index.wait(timeout=30)  # found by meaning only: no word of the question in it
    r = mem.recall(None, "where does the user live", include_stale=False)
    assert r.items and not by_status(r, "stale")
    assert "Shanghai" not in r.text and "Outdated" not in r.text


def test_knowledge_update_between_notes_without_an_llm(mem, clock: FakeClock):
    first = mem.remember("U-1", "Alice's favourite team is Arsenal")
    clock.advance(days=10)
    mem.remember("U-1", "Alice's favourite team is now Chelsea")
    r = mem.recall("U-1", "what is Alice's favourite team?")
    notes = [item for item in r.items if item.kind == "note"]
    assert [(n.text, n.status) for n in notes] == [
        ("Alice's favourite team is now Chelsea", "current"),
        ("Alice's favourite team is Arsenal", "stale"),
    ]
    assert notes[1].superseded_by == "later: Alice's favourite team is now Chelsea"
    assert notes[1].valid_to == first.at + timedelta(days=10)
    # Before the update was stored, Arsenal was what memory held.
    before = mem.recall("U-1", "what is Alice's favourite team?", known_at=first.tx_from)
    assert [(i.text, i.status) for i in before.items if i.kind == "note"] == [
        ("Alice's favourite team is Arsenal", "current")
    ]


def test_chinese_knowledge_update_between_notes(mem, clock: FakeClock):
    mem.remember("U-1", "我最喜欢的球队是湖人")
    clock.advance(days=10)
    mem.remember("U-1", "我最喜欢的球队现在是勇士")
    r = mem.recall("U-1", "我最喜欢的球队是哪个？")
    notes = [(item.text, item.status) for item in r.items if item.kind == "note"]
    assert notes == [("我最喜欢的球队现在是勇士", "current"), ("我最喜欢的球队是湖人", "stale")]


def test_statements_about_someone_else_rank_after_the_subjects_own(mem, clock: FakeClock):
    mem.remember("U-1", "My favourite team is Arsenal")
    clock.advance(days=5)
    mem.remember("U-1", "My brother's favourite team is Brentford")
    clock.advance(days=5)
    mem.remember("U-1", "My favourite team is now Everton")
    r = mem.recall("U-1", "what is the user's favourite team?")
    assert (r.items[0].text, r.items[0].status) == ("My favourite team is now Everton", "current")
    named = mem.recall("U-1", "what is my brother's favourite team?")
    assert named.items[0].text == "My brother's favourite team is Brentford"


def test_chinese_statements_about_kin_rank_after_the_subjects_own(mem, clock: FakeClock):
    mem.remember("U-2", "我最喜欢的球队是湖人")
    clock.advance(days=5)
    mem.remember("U-2", "我朋友最喜欢的球队是火箭")
    clock.advance(days=5)
    mem.remember("U-2", "我最喜欢的球队现在是勇士")
    r = mem.recall("U-2", "用户最喜欢的球队是哪个?")
    assert (r.items[0].text, r.items[0].status) == ("我最喜欢的球队现在是勇士", "current")


def test_a_superseding_note_is_added_when_only_the_old_one_was_found(mem, clock: FakeClock):
    mem.remember("U-1", "Bob's favourite team is Arsenal FC from north London")
    clock.advance(days=1)
    mem.remember("U-1", "Bob's favourite team is now Chelsea")
    r = mem.recall("U-1", "Arsenal north London fan", k=1)
    assert [(i.text, i.status) for i in r.items] == [
        ("Bob's favourite team is now Chelsea", "current")
    ]


def test_first_person_updates_in_both_languages(mem, clock: FakeClock):
    mem.remember("U-1", "My favourite colour is blue")
    mem.remember("U-1", "我的爱好是滑雪")
    clock.advance(days=3)
    mem.remember("U-1", "My favourite colour is green now")
    mem.remember("U-1", "我的爱好是游泳")
    r = mem.recall("U-1", "favourite colour and 爱好", k=10)
    status = {item.text: item.status for item in r.items if item.kind == "note"}
    assert status == {
        "My favourite colour is green now": "current",
        "我的爱好是游泳": "current",
        "My favourite colour is blue": "stale",
        "我的爱好是滑雪": "stale",
    }


def test_different_people_and_restatements_do_not_supersede(mem, clock: FakeClock):
    mem.remember("U-1", "Alice's favourite team is Arsenal")
    clock.advance(days=1)
    mem.remember("U-1", "Carol's favourite team is Chelsea")
    clock.advance(days=1)
    mem.remember("U-1", "Alice's favourite team is still Arsenal")
    r = mem.recall("U-1", "favourite team", k=10)
    assert not by_status(r, "stale")


def test_window_turn_stating_a_superseded_value_is_stale(mem, clock: FakeClock):
    s = mem.session("U-1", session_id="s-1", window=5)
    s.add("user", "我住在上海")
    s.add("assistant", "好的")
    clock.set("2026-07-04T02:00:00+00:00")
    s.add("user", "我上周搬到北京了")
    r = mem.recall("U-1", "用户住在哪里", session_id="s-1")
    assert r.items[0].lane == "exact" and r.items[0].fact.value == "北京"
    turns = {item.text: item.status for item in r.items if item.lane == "window"}
    assert turns == {"user: 我上周搬到北京了": "current", "assistant: 好的": "current",
                     "user: 我住在上海": "stale"}  # fmt: skip


def test_summary_line_with_a_superseded_value_is_split_out_as_stale(mem, clock: FakeClock):
    clock.set("2026-07-04T02:00:00+00:00")
    mem.facts.set("U-1", "location", "Shanghai", valid_from="2026-03-01")
    mem.facts.set("U-1", "location", "Beijing", valid_from="2026-07-01")
    content = SummaryContent(
        topic=("moving",),
        facts=("I live in Shanghai", "I have a cat named Miso"),
        open_items=("send the new address",),
    )
    start = datetime(2026, 3, 2, tzinfo=UTC)
    summary = mem.summaries.record("U-1", "s-1", content, (start, start), ("s-1#1", "s-1#2"))
    r = mem.recall("U-1", "what did the user mention about the cat Miso and the move?")
    items = {item.ref: item for item in r.items if item.lane == "summary"}
    whole = items[f"summary:{summary.id}"]
    assert whole.status == "current" and "Shanghai" not in whole.text
    assert whole.text == (
        "session s-1 (2026-03-02 → 2026-03-02): "
        "I have a cat named Miso; to do: send the new address"
    )
    line = items[f"summary:{summary.id}#0"]
    assert line.status == "stale" and line.text.endswith("I live in Shanghai")
    assert line.superseded_by.startswith("location is now Beijing")


def test_history_questions_return_earlier_values_as_historical(mem, clock: FakeClock):
    clock.set("2026-07-04T02:00:00+00:00")
    mem.facts.set("U-1", "location", "上海", valid_from="2026-03-01")
    mem.facts.set("U-1", "location", "北京", valid_from="2026-07-01")
    r = mem.recall("U-1", "用户以前住在哪里")
    # The earlier value answers a question about the past; the present is not what was
    # asked (issue 13: no superseded-for-the-question value served as current).
    assert [(i.fact.value, i.status) for i in r.items] == [("上海", "historical")]
    assert "History (no longer valid):\n- location: 上海 (2026-03-01 → 2026-07-01)" in r.text
    plain = mem.recall("U-1", "用户住在哪里")
    assert [(i.fact.value, i.status) for i in plain.items] == [("北京", "current")]
    # With no earlier value, memory knows nothing earlier: the present is not served for it,
    # in either language (as for notes: test_near_misses).
    mem.facts.set("U-1", "employer", "Acme", valid_from="2026-03-01")
    for question in ("where did the user work before?", "用户以前在哪工作？"):
        assert [i.fact for i in mem.recall("U-1", question).items if i.fact] == []


def test_a_time_in_the_query_reads_that_period(mem, clock: FakeClock):
    clock.set("2026-07-04T02:00:00+00:00")
    mem.facts.set("U-1", "location", "上海", valid_from="2026-03-01")
    mem.facts.set("U-1", "location", "北京", valid_from="2026-07-01")
    r = mem.recall("U-1", "where did the user live in May?")
    assert [(i.fact.value, i.status) for i in r.items] == [("上海", "historical")]
    assert r.analysis.times[0].text == "May"
    assert not r.step("summary").asked


def test_a_retracted_value_comes_back_as_history_and_the_summary_lane_is_asked(mem, clock):
    mem.facts.set("U-1", "location", "Lyon", valid_from="2026-01-01")
    mem.facts.retract("U-1", "location", valid_from="2026-02-01")
    r = mem.recall("U-1", "where does the user live")
    assert [(i.fact.value, i.status) for i in r.items if i.lane == "exact"] == [
        ("Lyon", "historical")
    ]
    assert r.step("summary").asked


def test_worked_example_as_of_another_transaction_time(mem, clock: FakeClock):
    tx1 = mem.facts.set("U-001", "location", "Shanghai", valid_from="2026-03-01").tx_from
    clock.set("2026-07-04T02:00:00+00:00")
    mem.facts.set("U-001", "location", "Beijing", valid_from="2026-07-01", reason="moved last week")
    query = "where does the user live"
    then = mem.recall("U-001", query, valid_at="2026-07-02", known_at=tx1 + timedelta(seconds=1))
    assert [(i.fact.value, i.status) for i in then.items] == [("Shanghai", "current")]
    assert then.known_at == tx1 + timedelta(seconds=1)
    assert mem.recall("U-001", query, valid_at="2026-07-02").items[0].fact.value == "Beijing"
    assert mem.recall("U-001", query).items[0].fact.value == "Beijing"
    assert mem.recall("U-001", query, valid_at="2026-05-01").items[0].fact.value == "Shanghai"


def test_known_at_hides_notes_and_summary_versions_stored_later(mem, clock: FakeClock):
    start = datetime(2026, 3, 2, tzinfo=UTC)
    first = mem.summaries.record(
        "U-1", "s-1", SummaryContent(facts=("We planned a trip to Kyoto",)), (start, start), ()
    )
    clock.advance(days=2)
    mem.summaries.record(
        "U-1",
        "s-1",
        SummaryContent(facts=("We planned a trip to Kyoto", "The trip to Kyoto is booked")),
        (start, start + timedelta(days=2)),
        (),
    )
    mem.remember("U-1", "The Kyoto hotel is the Hoshinoya")
    r = mem.recall("U-1", "what about the trip to Kyoto", known_at=first.tx_from)
    assert [i.text for i in r.items] == [
        "session s-1 (2026-03-02 → 2026-03-02): We planned a trip to Kyoto"
    ]
    now = mem.recall("U-1", "what about the trip to Kyoto")
    assert any("booked" in i.text for i in now.items) and any(
        "Hoshinoya" in i.text for i in now.items
    )


def test_explicit_valid_at_hides_statements_made_afterwards(mem, clock: FakeClock):
    mem.remember("U-1", "I booked a flight to Tokyo")
    clock.advance(days=10)
    mem.remember("U-1", "I cancelled the flight to Tokyo")
    r = mem.recall("U-1", "flight to Tokyo", valid_at=clock.now - timedelta(days=5))
    assert [i.text for i in r.items if i.kind == "note"] == ["I booked a flight to Tokyo"]


def test_a_statement_naming_a_replaced_value_is_stale_whatever_its_wording(mem, clock: FakeClock):
    """No claim memlane reads in "I'm in Bergen, in case …": the value it names is enough."""
    mem.remember("U-1", "Hi, I'm in Bergen, in case that helps the courier")
    clock.advance(days=40)
    mem.remember("U-1", "Settled in Tromso now, been here since last week")
    assert mem.index.wait(timeout=30)
    r = mem.recall("U-1", "what city does the customer live in?")
    assert r.items[0].fact is not None and r.items[0].fact.value == "Tromso"
    r = mem.recall("U-1", "what did the customer say about the courier?")
    old = [item for item in r.items if "Bergen" in item.text and item.kind != "fact"]
    assert old and {item.status for item in old} == {"stale"}
    assert old[0].superseded_by.startswith("location is now Tromso")
