"""A question naming an identifier is answered by the turn that named it, read whole."""

from __future__ import annotations

import memlane


def said(mem: memlane.Memory, subject: str, session_id: str, text: str) -> None:
    session = mem.session(subject, session_id=session_id)
    session.add("user", text)
    session.close()


def test_the_sentence_beside_the_id_answers_what_the_id_is_for(mem):
    said(mem, "C-1", "s-1", "1ZYL4F963564311443 has been stuck for 4 days. It's a baby stroller")
    said(mem, "C-2", "s-2", "My projector is coming UPS, tracking number 1ZYL4F963564311453")
    said(mem, "C-1", "s-3", "why is shipping so slow this week")
    r = mem.recall(None, "Which item is tracking 1zyl4f963564311443 for?")
    assert r.subjects == ["C-1"]
    top = r.items[0]
    assert "baby stroller" in top.text and "stuck for 4 days" in top.text
    assert top.provenance == ["s-1#1"] and top.status == "current"
    assert "projector" not in r.text


def test_the_turn_that_gave_a_phone_outranks_the_owners_other_sessions(mem, clock):
    said(mem, "C-1", "s-1", "Can you book me in for Tuesday at 3pm? Mobile is 07700 900303")
    clock.advance(hours=1)
    said(mem, "C-1", "s-2", "The discount code from last week isn't working")
    said(mem, "C-2", "s-3", "Thursday at 11am works for me. My number's +44 (0)7700 904 303")
    r = mem.recall(None, "When's the appointment for 07700900303?")
    assert r.subjects == ["C-1"] and "3pm" in r.items[0].text
    assert "11am" not in r.text


def test_a_turn_the_running_window_holds_is_left_to_the_window(mem):
    session = mem.session("C-1", session_id="s-1")
    session.add("user", "W15-484-S 这个维修单什么时候上门？是洗衣机的问题，开不了机")
    r = mem.recall(None, "w15-484-s 这个工单报修的是啥设备", session_id="s-1")
    assert r.items[0].lane == "window" and "洗衣机" in r.items[0].text
    assert not [item for item in r.items if item.text.startswith("turn ")]
    session.close()
    r = mem.recall(None, "w15-484-s 这个工单报修的是啥设备")
    assert "洗衣机" in r.items[0].text and "W15-484-S" in r.items[0].text
