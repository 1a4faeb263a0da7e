"""Retractions tied to what they take back by more than a shared value word (issue 13).

A short withdrawal ("Friday is out"), a request that changes something put as a question
("could you change my name to …?"), an assistant's confirmation of what was later taken
back, and a statement that only says a value no longer holds.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from tests.conftest import FakeClock
from tests.support.conversations import current_texts, said_in_session


def _answers_the_new_value_only(mem, clock, old, turn, question, new, gone) -> None:
    """``old`` said, then ``turn`` a month later: ``question`` is answered by ``new`` first,
    and no current item still holds ``gone``."""
    said_in_session(mem, clock, "s-1", old)
    said_in_session(mem, clock, "s-2", turn, days=30)
    r = mem.recall("U-1", question)
    assert new in r.items[0].text
    assert not any(gone in text for text in current_texts(r))


@pytest.mark.parametrize(
    ("booked", "moved", "question", "new", "old"),
    [
        # a short withdrawal of the day makes the booking on it stale
        ("Thursday at 7pm works for the massage",
         "Thursday is out, sorry. Saturday at 11am for the massage?",
         "when is my massage?", "11am", "7pm"),
        # a reschedule with its subject dropped (no "I", "please" in another clause)
        ("Could you book me a haircut on Tuesday at 3pm?",
         "Have to reschedule the haircut — Thursday at 9am please, the kids got sick on Tuesday",
         "when is my haircut?", "9am", "3pm"),
        # 改 right before a time moves the event
        ("瑜伽课约在周三晚上八点", "不好意思周三有事，瑜伽课改周五晚上七点行吗",
         "瑜伽课改到什么时候了？", "晚上七点", "晚上八点"),
    ],
)  # fmt: skip
def test_a_booking_moved_to_another_time(mem, clock: FakeClock, booked, moved, question, new, old):
    said_in_session(mem, clock, "s-1", booked, "Ok!")
    said_in_session(mem, clock, "s-2", moved, "Sure, moved.")
    r = mem.recall("U-1", question)
    assert new in r.items[0].text
    assert not any(old in text for text in current_texts(r))


def test_a_request_put_as_a_question_is_remembered_and_answers(mem, clock: FakeClock):
    said_in_session(mem, clock, "s-1", "Just call me Nat, everybody does", "Sure!")
    said = "Could you change my name to Natalie? Not Nat anymore"
    said_in_session(mem, clock, "s-2", said, days=20)
    r = mem.recall("U-1", "what name does this user go by?")
    assert "Natalie" in r.items[0].text
    only_back = [item for item in r.items if item.text.endswith("Not Nat anymore")]
    assert only_back and only_back[0].status == "historical"  # it names the old name only
    assert not any(text.endswith("Nat, everybody does") for text in current_texts(r))


def test_a_withdrawal_answers_a_question_about_what_it_withdrew(mem, clock: FakeClock):
    said_in_session(mem, clock, "s-1", "ok, please order the standing desk", "Ok.")
    said_in_session(mem, clock, "s-2", "Can you cancel the standing desk?", "Done.")
    r = mem.recall("U-1", "what happened with the standing desk?")
    assert r.items[0].text.endswith("Can you cancel the standing desk?")
    assert r.items[0].status == "current"


def test_an_assistants_confirmation_falls_with_what_it_confirmed(mem, clock: FakeClock):
    said = "Please book the optician for 9 June at 10:15"
    said_in_session(mem, clock, "s-1", said, "Booked: optician, 9 June at 10:15.")
    said_in_session(mem, clock, "s-2", "what are your opening hours?", "9 to 5.")
    said = "I have to cancel my optician appointment (9 June)"
    said_in_session(mem, clock, "s-3", said, "Done, cancelled.", days=30)
    r = mem.recall("U-1", "Do I have an optician appointment?")
    assert "cancel" in r.items[0].text
    assert not any("10:15" in text for text in current_texts(r))
    assert any("Booked: optician" in i.text for i in r.items if i.status == "stale")


def test_asked_for_the_old_value_the_statement_that_replaced_it_is_left_out(mem, clock):
    said = "Deliver everything to my office: 12 Harbour Rd, Leeds"
    said_in_session(mem, clock, "s-1", said)
    said = "please stop using my work address, deliver to 9 Mill Lane from now on"
    said_in_session(mem, clock, "s-2", said, days=40)
    now = mem.recall("U-1", "which address do we deliver to?")
    assert "9 Mill Lane" in now.items[0].text
    before = mem.recall("U-1", "What was the old office address?")
    assert "12 Harbour Rd" in before.items[0].text
    assert not any("9 Mill Lane" in text for text in current_texts(before))


def test_read_as_of_a_moment_a_summary_line_said_later_is_left_out(mem, clock: FakeClock):
    said_in_session(mem, clock, "s-1", "Always book me a window seat, I like the view")
    said_in_session(mem, clock, "s-2", "is there a discount for students?", days=10)
    said_in_session(
        mem, clock, "s-3", "Switch my seat preference to the aisle from now on", days=40
    )
    then = clock.now - timedelta(days=20)
    r = mem.recall("U-1", "What seat did the traveller like at that point?", valid_at=then)
    assert "window seat" in r.items[0].text
    assert not any("aisle" in text for text in current_texts(r))


def test_on_file_and_now_using_do_not_narrow_a_code(mem, clock: FakeClock):
    said_in_session(mem, clock, "s-1", "My number is 07700 900456, text me any time")
    said = "The old number is dead — please use 07700 900789 from now on"
    said_in_session(mem, clock, "s-2", said, days=30)
    r = mem.recall("U-1", "What's my phone number on file?")
    assert r.items and r.items[0].fact is not None
    assert r.items[0].fact.value == "07700 900789"
    said_in_session(mem, clock, "s-3", "我的邮箱是zhao.lin@example.org，发票发这里")
    said_in_session(mem, clock, "s-4", "邮箱换了：lin.zhao@example.net，老的那个不用了", days=30)
    r = mem.recall("U-1", "用户现在用哪个邮箱？")
    assert r.items and r.items[0].fact is not None
    assert r.items[0].fact.value == "lin.zhao@example.net"


def test_a_new_street_address_replaces_the_old_one_though_no_word_is_shared(mem, clock):
    said_in_session(mem, clock, "s-1", "Ship my orders to the office: 40 Quay Street, Bristol")
    said_in_session(mem, clock, "s-2", "Do you open on bank holidays?", "10 to 4.")
    said = "pls stop using my work adress, send to 7 Vine Row from now on"
    said_in_session(mem, clock, "s-3", said, days=40)
    now = mem.recall("U-1", "which address do we ship to?")
    assert "7 Vine Row" in now.items[0].text
    assert not any("40 Quay Street" in text for text in current_texts(now))
    before = mem.recall("U-1", "What was the old office address?")
    assert "40 Quay Street" in before.items[0].text


@pytest.mark.parametrize(
    ("old", "turn", "question", "new", "gone"),
    [
        # the retraction names the old address by description; its turn gives the new one
        ("Send parcels to my workplace — 51 Kestrel Road, front desk",
         "Here's my new shipping address: 8 Orchard Way. The work one is no longer valid",
         "where do parcels go?", "8 Orchard Way", "51 Kestrel Road"),
        # an e-mail address given in place of one said with no word in common
        ("Email for receipts: ana.p@inbox.example",
         "I'm now on ap@work.example.net, the old mailbox is dead",
         "where do I send the receipt?", "ap@work.example.net", "ana.p@inbox.example"),
        ("Receipts go to ana.p@inbox.example please",
         "New email is ap@work.example.net, the previous adress is closed",
         "where do I send the receipt?", "ap@work.example.net", "ana.p@inbox.example"),
    ],
)  # fmt: skip
def test_a_value_of_one_kind_given_in_place_of_another_by_shape(
    mem, clock: FakeClock, old, turn, question, new, gone
):
    _answers_the_new_value_only(mem, clock, old, turn, question, new, gone)


def test_chinese_questions_for_the_old_number_and_the_old_address(mem, clock: FakeClock):
    said_in_session(mem, clock, "s-1", "我手机号是138 2468 1357")
    said_in_session(mem, clock, "s-2", "旧号码已经停机了，以后联系我打199-1357-2468", days=30)
    r = mem.recall("U-1", "客户之前那个旧号码是？")
    assert r.items and r.items[0].fact is not None
    assert r.items[0].fact.value == "138 2468 1357" and r.items[0].status == "historical"
    said_in_session(mem, clock, "s-3", "收货地址写公司的：苏州工业园区星湖街218号，前台代收")
    said_in_session(
        mem, clock, "s-4", "收货地址改一下，苏州吴中区东吴路57号，公司那个不用了", days=30
    )
    r = mem.recall("U-1", "之前公司那个地址是哪？")
    assert "星湖街218号" in r.items[0].text
    assert not any("东吴路57号" in text for text in current_texts(r))


@pytest.mark.parametrize(
    ("thing", "order", "cancel", "question", "answer"),
    [
        # the request falls with the confirmation the cancellation names
        ("walnut bookshelf", "ORD-2026-31337", "pls cancel {o}, I don't need it anymore",
         "what happened with the walnut bookshelf?", "cancel"),
        # asked for the thing's order, the cancellation naming only the id answers
        ("Kindle Paperwhite", "ORD-2026-77001", "Cancel order {o} please, found it cheaper",
         "What's the status of my Kindle Paperwhite order?", "Cancel order"),
    ],
)  # fmt: skip
def test_an_order_falls_with_the_cancellation_of_its_id(
    mem, clock: FakeClock, thing, order, cancel, question, answer
):
    placed = f"Done — order {order} is placed and ships on 4 May."
    said_in_session(mem, clock, "s-1", f"ok let's do it, order the {thing}", placed)
    said_in_session(mem, clock, "s-2", cancel.format(o=order))
    r = mem.recall("U-1", question)
    assert r.items and answer in r.items[0].text
    current = current_texts(r)
    assert not any(f"order the {thing}" in text or "ships on" in text for text in current)


def test_a_summary_line_that_only_takes_a_value_back_is_historical(mem, clock: FakeClock):
    """A session's topic can be the retraction alone ("about: 别写钟霞"): not what holds now."""
    said_in_session(mem, clock, "s-1", "收货人填钟霞，白天家里有人", "明白。")
    said_in_session(
        mem, clock, "s-2", "以后收件人写程嘉琪，别写钟霞了", "好的，了解了，还有其他需要帮忙的吗？"
    )
    r = mem.recall("U-1", "包裹收件人现在是谁？")
    assert "程嘉琪" in r.items[0].text
    assert not any("钟霞" in text and "程嘉琪" not in text for text in current_texts(r))
    assert any(i.status == "historical" and "别写钟霞" in i.text for i in r.items)


def test_an_order_known_only_by_the_assistants_id_is_cancelled(mem, clock: FakeClock):
    """The id is the assistant's; its summary line keeps it, and falls with the order."""
    order = "已为您下单洗地机，订单号DD202577724821，预计4月11日送达。"
    said_in_session(mem, clock, "s-1", "确认购买洗地机", order)
    cancelled = "已为您取消订单DD202577724821，款项原路退回。"
    said_in_session(mem, clock, "s-2", "不好意思，洗地机不要了，麻烦取消订单", cancelled)
    r = mem.recall("U-1", "订单DD202577724821还会发货吗？")
    assert r.items and "取消" in r.items[0].text
    assert not any("4月11日送达" in text for text in current_texts(r))


@pytest.mark.parametrize(
    ("asked", "placed", "cancel", "cancelled", "question", "answer", "stale"),
    [
        ("确认购买罗技鼠标", "已为您下单罗技鼠标，订单号ORD-2025-20610，预计3月1日送达。",
         "订单ORD-2025-20610取消！在别家买了", "已为您取消订单ORD-2025-20610，款项原路退回。",
         "订单ORD-2025-20610还会发货吗？", "取消", "3月1日送达"),
        ("Please buy the Logitech mouse for me",
         "Ordered the Logitech mouse, order ORD-2025-20611, arriving 1 March.",
         "Cancel ORD-2025-20611! got it elsewhere", "Cancelled ORD-2025-20611, refund on its way.",
         "will order ORD-2025-20611 still ship?", "Cancel", "arriving 1 March"),
    ],
)  # fmt: skip
def test_a_reply_placing_an_order_falls_when_only_its_id_is_cancelled(
    mem, clock: FakeClock, asked, placed, cancel, cancelled, question, answer, stale
):
    """The request names the thing, the cancellation only the id the reply gave it.

    The storyline merges both sessions: the reply's line is dated by the request it
    answers (the earliest note sharing its rarest words), so the cancellation comes after it.
    """
    said_in_session(mem, clock, "s-1", asked, placed)
    said_in_session(mem, clock, "s-2", cancel, cancelled)
    r = mem.recall("U-1", question)
    assert r.items and answer in r.items[0].text
    assert not any(stale in text for text in current_texts(r))


def test_asked_for_the_old_address_a_retraction_naming_only_what_is_asked_is_left_out(
    mem, clock: FakeClock
):
    """ "别寄公司了" takes back "寄公司": no value besides the 公司 the question names."""
    said_in_session(mem, clock, "s-1", "收货地址写公司的：长沙雨花区创业路314号，前台代收")
    said_in_session(mem, clock, "s-2", "以后别寄公司了，寄雨花区科技园南路280号，我住这", days=30)
    r = mem.recall("U-1", "之前公司那个地址是哪？")
    assert "创业路314号" in r.items[0].text
    assert not any("科技园南路280号" in text for text in current_texts(r))


@pytest.mark.parametrize(
    ("old", "new", "question", "old_value", "new_value"),
    [
        ("叫我小周就行", "以后称呼我周老师吧，别叫小周了",
         "我希望你们怎么称呼我？", "小周", "周老师"),
        ("Call me Bex, that's fine", "Please call me Rebecca from now on, not Bex",
         "what should we call her?", "Bex", "Rebecca"),
    ],
)  # fmt: skip
def test_a_storyline_line_falls_with_the_first_person_statement_it_repeats(
    mem, clock: FakeClock, old, new, question, old_value, new_value
):
    """The storyline keeps "I"; its note writes the subject's id. The line repeats the note
    all the same, and is dated by it, not by the later retraction that also names the value."""
    said_in_session(mem, clock, "s-1", old)
    between = "退货运费谁出？" if old_value == "小周" else "who pays return shipping?"
    said_in_session(mem, clock, "s-2", between)
    said_in_session(mem, clock, "s-3", new, days=30)
    result = mem.recall("U-1", question)
    stale_kept = [t for t in current_texts(result) if old_value in t and new_value not in t]
    assert not stale_kept, current_texts(result)


@pytest.mark.parametrize(
    ("old", "turn", "question", "new", "gone"),
    [
        ("you can get hold of me at kim.lee@post.example",
         "Here's my new email: klee@mail.example.org — the old one is shut",
         "where should invoices be emailed?", "klee@mail.example.org", "kim.lee@post.example"),
        ("text me on 415-555-0123 anytime",
         "New mobile: 206-555-0188; the old one was disconnected last week",
         "what number do we text?", "206-555-0188", "415-555-0123"),
    ],
)  # fmt: skip
def test_a_statement_naming_an_identifier_the_exact_lane_ended_since_is_stale(
    mem, clock: FakeClock, old, turn, question, new, gone
):
    # "the old one" names nothing; the exact lane retired the old value when the new came
    _answers_the_new_value_only(mem, clock, old, turn, question, new, gone)
