"""Retractions tied to what they take back by more than a shared value word (issue 13).

A short withdrawal ("Friday is out"), a request that changes something put as a question
("could you change my name to …?"), an assistant's confirmation of what was later taken
back, and a statement that only says a value no longer holds.
"""

from __future__ import annotations

from datetime import timedelta

from tests.conftest import FakeClock


def _chat(mem, clock: FakeClock, session: str, *turns: tuple[str, str], days: int = 1) -> None:
    clock.advance(days=days)
    s = mem.session("U-1", session_id=session)
    for role, text in turns:
        s.add(role, text)
        clock.advance(minutes=2)
    s.close()
    assert mem.index.wait(timeout=30)  # statements are found by meaning too


def _current_texts(result) -> list[str]:
    return [item.text for item in result.items if item.status == "current"]


def test_a_short_withdrawal_of_a_day_makes_the_booking_on_it_stale(mem, clock: FakeClock):
    _chat(
        mem, clock, "s-1", ("user", "Thursday at 7pm works for the massage"), ("assistant", "Ok!")
    )
    _chat(
        mem,
        clock,
        "s-2",
        ("user", "Thursday is out, sorry. Saturday at 11am for the massage?"),
        ("assistant", "Sure, moved."),
    )
    r = mem.recall("U-1", "when is my massage?")
    assert "11am" in r.items[0].text
    assert not any("7pm" in text for text in _current_texts(r))


def test_a_request_put_as_a_question_is_remembered_and_answers(mem, clock: FakeClock):
    _chat(mem, clock, "s-1", ("user", "Just call me Nat, everybody does"), ("assistant", "Sure!"))
    _chat(
        mem,
        clock,
        "s-2",
        ("user", "Could you change my name to Natalie? Not Nat anymore"),
        ("assistant", "Done."),
        days=20,
    )
    r = mem.recall("U-1", "what name does this user go by?")
    assert "Natalie" in r.items[0].text
    only_back = [item for item in r.items if item.text.endswith("Not Nat anymore")]
    assert only_back and only_back[0].status == "historical"  # it names the old name only
    assert not any(text.endswith("Nat, everybody does") for text in _current_texts(r))


def test_a_withdrawal_answers_a_question_about_what_it_withdrew(mem, clock: FakeClock):
    _chat(mem, clock, "s-1", ("user", "ok, please order the standing desk"), ("assistant", "Ok."))
    _chat(mem, clock, "s-2", ("user", "Can you cancel the standing desk?"), ("assistant", "Done."))
    r = mem.recall("U-1", "what happened with the standing desk?")
    assert r.items[0].text.endswith("Can you cancel the standing desk?")
    assert r.items[0].status == "current"


def test_an_assistants_confirmation_falls_with_what_it_confirmed(mem, clock: FakeClock):
    _chat(
        mem,
        clock,
        "s-1",
        ("user", "Please book the optician for 9 June at 10:15"),
        ("assistant", "Booked: optician, 9 June at 10:15."),
    )
    _chat(mem, clock, "s-2", ("user", "what are your opening hours?"), ("assistant", "9 to 5."))
    _chat(
        mem,
        clock,
        "s-3",
        ("user", "I have to cancel my optician appointment (9 June)"),
        ("assistant", "Done, cancelled."),
        days=30,
    )
    r = mem.recall("U-1", "Do I have an optician appointment?")
    assert "cancel" in r.items[0].text
    assert not any("10:15" in text for text in _current_texts(r))
    assert any("Booked: optician" in i.text for i in r.items if i.status == "stale")


def test_moving_a_booking_to_another_time_in_chinese(mem, clock: FakeClock):
    _chat(mem, clock, "s-1", ("user", "瑜伽课约在周三晚上八点"), ("assistant", "好的"))
    _chat(
        mem,
        clock,
        "s-2",
        ("user", "不好意思周三有事，瑜伽课改周五晚上七点行吗"),
        ("assistant", "没问题，已为您改约。"),
    )
    r = mem.recall("U-1", "瑜伽课改到什么时候了？")
    assert "晚上七点" in r.items[0].text
    assert not any("晚上八点" in text for text in _current_texts(r))


def test_asked_for_the_old_value_the_statement_that_replaced_it_is_left_out(mem, clock):
    _chat(
        mem,
        clock,
        "s-1",
        ("user", "Deliver everything to my office: 12 Harbour Rd, Leeds"),
        ("assistant", "Noted."),
    )
    _chat(
        mem,
        clock,
        "s-2",
        ("user", "please stop using my work address, deliver to 9 Mill Lane from now on"),
        ("assistant", "Okay!"),
        days=40,
    )
    now = mem.recall("U-1", "which address do we deliver to?")
    assert "9 Mill Lane" in now.items[0].text
    before = mem.recall("U-1", "What was the old office address?")
    assert "12 Harbour Rd" in before.items[0].text
    assert not any("9 Mill Lane" in text for text in _current_texts(before))


def test_read_as_of_a_moment_a_summary_line_said_later_is_left_out(mem, clock: FakeClock):
    _chat(mem, clock, "s-1", ("user", "Always book me a window seat, I like the view"))
    _chat(mem, clock, "s-2", ("user", "is there a discount for students?"), days=10)
    _chat(
        mem, clock, "s-3", ("user", "Switch my seat preference to the aisle from now on"), days=40
    )
    then = clock.now - timedelta(days=20)
    r = mem.recall("U-1", "What seat did the traveller like at that point?", valid_at=then)
    assert "window seat" in r.items[0].text
    assert not any("aisle" in text for text in _current_texts(r))


def test_on_file_and_now_using_do_not_narrow_a_code(mem, clock: FakeClock):
    _chat(mem, clock, "s-1", ("user", "My number is 07700 900456, text me any time"))
    _chat(
        mem,
        clock,
        "s-2",
        ("user", "The old number is dead — please use 07700 900789 from now on"),
        days=30,
    )
    r = mem.recall("U-1", "What's my phone number on file?")
    assert r.items and r.items[0].fact is not None
    assert r.items[0].fact.value == "07700 900789"
    _chat(mem, clock, "s-3", ("user", "我的邮箱是zhao.lin@example.org，发票发这里"))
    _chat(mem, clock, "s-4", ("user", "邮箱换了：lin.zhao@example.net，老的那个不用了"), days=30)
    r = mem.recall("U-1", "用户现在用哪个邮箱？")
    assert r.items and r.items[0].fact is not None
    assert r.items[0].fact.value == "lin.zhao@example.net"


def test_a_new_street_address_replaces_the_old_one_though_no_word_is_shared(mem, clock):
    _chat(mem, clock, "s-1", ("user", "Ship my orders to the office: 40 Quay Street, Bristol"))
    _chat(mem, clock, "s-2", ("user", "Do you open on bank holidays?"), ("assistant", "10 to 4."))
    _chat(
        mem,
        clock,
        "s-3",
        ("user", "pls stop using my work adress, send to 7 Vine Row from now on"),
        days=40,
    )
    now = mem.recall("U-1", "which address do we ship to?")
    assert "7 Vine Row" in now.items[0].text
    assert not any("40 Quay Street" in text for text in _current_texts(now))
    before = mem.recall("U-1", "What was the old office address?")
    assert "40 Quay Street" in before.items[0].text


def test_chinese_questions_for_the_old_number_and_the_old_address(mem, clock: FakeClock):
    _chat(mem, clock, "s-1", ("user", "我手机号是138 2468 1357"))
    _chat(mem, clock, "s-2", ("user", "旧号码已经停机了，以后联系我打199-1357-2468"), days=30)
    r = mem.recall("U-1", "客户之前那个旧号码是？")
    assert r.items and r.items[0].fact is not None
    assert r.items[0].fact.value == "138 2468 1357" and r.items[0].status == "historical"
    _chat(mem, clock, "s-3", ("user", "收货地址写公司的：苏州工业园区星湖街218号，前台代收"))
    _chat(
        mem, clock, "s-4", ("user", "收货地址改一下，苏州吴中区东吴路57号，公司那个不用了"), days=30
    )
    r = mem.recall("U-1", "之前公司那个地址是哪？")
    assert "星湖街218号" in r.items[0].text
    assert not any("东吴路57号" in text for text in _current_texts(r))


def test_a_request_falls_with_the_confirmation_a_cancellation_names(mem, clock: FakeClock):
    _chat(
        mem,
        clock,
        "s-1",
        ("user", "ok let's do it, order the walnut bookshelf"),
        ("assistant", "Done — order ORD-2026-31337 is placed and ships on 4 May."),
    )
    _chat(mem, clock, "s-2", ("user", "pls cancel ORD-2026-31337, I don't need it anymore"))
    r = mem.recall("U-1", "what happened with the walnut bookshelf?")
    assert "cancel" in r.items[0].text
    assert not any("order the walnut bookshelf" in text for text in _current_texts(r))


def test_the_cancellation_of_an_order_answers_for_the_thing_ordered(mem, clock: FakeClock):
    _chat(
        mem,
        clock,
        "s-1",
        ("user", "please order the Kindle Paperwhite"),
        ("assistant", "Done — order ORD-2026-77001 is placed and ships on 2 June."),
    )
    _chat(mem, clock, "s-2", ("user", "Cancel order ORD-2026-77001 please, found it cheaper"))
    r = mem.recall("U-1", "What's the status of my Kindle Paperwhite order?")
    assert r.items and "Cancel order" in r.items[0].text
    assert not any("ships on 2 June" in text for text in _current_texts(r))
