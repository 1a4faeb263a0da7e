"""The three failures of a vector-only memory (ARCHITECTURE.md's table), each avoided."""

from __future__ import annotations

from tests.conftest import FakeClock


def test_an_identifier_one_digit_off_returns_nothing_wrong(mem, embedder):
    mem.facts.add("U-138", "phone", "138-0000-1234")
    mem.facts.add("U-138", "order", "ORD-1381")
    mem.facts.add("U-139", "phone", "139-0000-1234")
    mem.facts.add("U-139", "order", "ORD-1391")
    mem.remember("U-139", "Please ship order ORD-1391 to my number 139-0000-1234")
    mem.remember("U-138", "Customer 138-0000-1234 asked about order ORD-1381")

    right = mem.recall(None, "orders of user 138-0000-1234")
    assert right.subjects == ["U-138"]
    assert {item.subject for item in right.items} == {"U-138"}
    assert "1391" not in right.text and "139" not in right.text.replace("13800001234", "")

    off = mem.recall(None, "orders of user 138-0000-1235")  # one digit off
    assert off.items == [] and off.text == "" and off.subjects == []
    assert not off.step("exact").asked
    assert off.step("exact").reason == "phone 138-0000-1235: no subject (exact match only)"
    assert "138-0000-1235 exactly" in off.step("summary").reason

    scoped = mem.recall("U-138", "orders of user 139-0000-1234")  # another's number
    assert scoped.items == [] and "not held by U-138" in scoped.step("exact").reason


def test_where_does_the_user_live_after_a_move(mem, clock: FakeClock):
    s = mem.session("U-1", session_id="s-1", window=5)
    s.add("user", "我在上海工作，住在上海")
    s.add("assistant", "好的，记下了")
    clock.set("2026-07-04T02:00:00+00:00")
    s.add("user", "我上周搬到北京了")

    r = mem.recall("U-1", "where does the user live?", session_id="s-1")
    assert r.items[0].fact.attribute == "location" and r.items[0].fact.value == "北京"
    assert r.items[0].status == "current"
    old = [item for item in r.items if "上海" in item.text]
    assert old and all(item.status == "stale" for item in old)
    assert r.items.index(old[0]) > r.items.index(r.items[0])
    assert r.text.startswith("Memory of U-1:\nFacts (current):\n- location: 北京")

    s.close()  # the same question later, from summaries and notes only
    r = mem.recall(None, "住在哪个城市？搬家了吗")
    current = [item.text for item in r.items if item.status == "current"]
    stale = [item.text for item in r.items if item.status == "stale"]
    assert any("北京" in text for text in current)
    assert stale and all("上海" in text for text in stale)
    assert not any("上海" in text and "北京" not in text for text in current)


def test_similar_snippets_and_richer_old_text_do_not_win(mem, clock: FakeClock):
    mem.remember(
        "U-1",
        "Dana's favourite team is Arsenal, the north London club she watched every weekend "
        "at the stadium with her father since she was a child",
    )
    clock.advance(days=40)
    mem.remember("U-1", "Dana's favourite team is now Chelsea")
    mem.remember("U-1", "Dana's favourite food is ramen")
    assert mem.index.wait(timeout=30)  # ranked by meaning too, not raced by the indexer
    r = mem.recall("U-1", "which club does Dana watch every weekend, her favourite team?")
    current = [item for item in r.items if item.status == "current"]
    stale = [item for item in r.items if item.status == "stale"]
    assert current[0].text == "Dana's favourite team is now Chelsea"
    assert len(stale) == 1 and "Arsenal" in stale[0].text
    assert stale[0].score > current[0].score  # retrieval liked the richer old text more
    assert r.items.index(stale[0]) > r.items.index(current[0])
    assert any(item.text == "Dana's favourite food is ramen" for item in current)
