"""A statement that tells answers before one that only asks, and what narrows a value holds.

Each case here failed before: a question the user put to the assistant, a note the
subject's location was read from, or a superseded statement outranked the answer, or a
room number was taken for a near miss of a phone number and nothing was served.
"""

from __future__ import annotations

import pytest

import memlane
from tests.support.conversations import told


def _first(said: tuple[str, ...], subject: str, question: str) -> list[str]:
    with told(*said, subject=subject, wait=True) as mem:
        return [item.text for item in mem.recall(subject, question).items]


@pytest.mark.parametrize(
    ("said", "question", "answer"),
    [
        (("why does checkout keep timing out", "We've got four grandchildren now"),
         "how many grandchildren does the customer have?", "four grandchildren"),
        (("when will the refund land in my account?", "Use tomas.berg@post.example.se"),
         "where do I send the invoice?", "tomas.berg@post.example.se"),
        (("what happened to my voucher this month", "We have two dogs and a rabbit"),
         "how many pets does the user keep?", "two dogs"),
        (("为什么这周物流这么慢", "家里有三个孩子，早上特别忙"), "客户有几个孩子？", "三个孩子"),
        (("the gift card from my birthday won't apply at checkout",
          "the sofa came with Hermes and one leg was snapped"),
         "Which carrier brought the sofa?", "Hermes"),
        (("The loyalty points from March still aren't loading", "Please write to me in Polish"),
         "What language should we use with this customer?", "Polish"),
    ],
)  # fmt: skip
def test_a_note_that_only_asks_ranks_after_a_note_that_tells(said, question, answer):
    """ "why does checkout keep timing out" asks the assistant; it tells nothing of the user."""
    for order in (said, said[::-1]):
        texts = _first(order, "U-21", question)
        assert texts and answer in texts[0], texts


def test_asking_is_read_by_shape():
    from memlane.lang.sentences import (
        asks_about_asking,
        asks_about_trouble,
        asks_for_information,
        only_asks,
        only_reports_trouble,
    )

    assert only_asks("why is the app so slow today") and only_asks("账单什么时候出？")
    assert only_asks("What happened to U-3's voucher this month (January 2026)")
    assert not only_asks("When I lived in Oslo I cycled everywhere")
    assert not only_asks("Can we do Friday instead?") and not only_asks("能不能改到周五？")
    assert not only_asks("I'm flying to Rome, what's the weather like?")
    assert asks_for_information("so which one?") and not asks_for_information("Is he a vegan?")
    assert asks_about_asking("what did she complain about?") and not asks_about_asking("她住哪")
    assert only_reports_trouble("the voucher still isn't working")
    assert not only_reports_trouble("my Amex isn't working")
    assert asks_about_trouble("what went wrong?")


def test_a_named_subject_asked_where_they_live_is_answered_by_their_move():
    """ "where's Ingrid living" names the subject: her move is no note about a thing."""
    said = (
        "Hi, Ingrid here. My address is 4 Elm Rd, Bergen",
        "The promo code from last week isn't working",
        "I relocated to Tromsø for work in March",
    )
    texts = _first(said, "U-23", "where's Ingrid living at the moment?")
    assert texts and "Tromsø" in texts[0], texts


def test_a_superseded_preference_does_not_push_the_new_one_aside():
    said = (
        "Always book me a middle seat, I like company",
        "The promo code from last week isn't working",
        "I used to like middle seats but now I want an aisle seat, long legs",
    )
    texts = _first(said, "U-24", "middle or aisle for this flyer?")
    assert texts and "aisle seat" in texts[0] and "now" in texts[0], texts


@pytest.mark.parametrize(
    ("said", "question", "answer"),
    [
        (("phone: 020 7946 0321", "Stayed at the Hilton Garden Inn, room 512, left my glasses"),
         "What was my room number at the hotel?", "512"),
        (("cell 0161 496 0732", "locker 77 at the gym, I lost my key again"),
         "What was my locker number at the gym?", "77"),
    ],
)  # fmt: skip
def test_a_number_named_by_the_noun_asked_answers(said, question, answer):
    """ "room 512" is the room number asked, at a hotel the note names by its name only; the
    note says "user-58213c's glasses", and the subject's id is no code that misses "hotel"."""
    with told(*said, subject="user-58213c", wait=True) as mem:
        items = mem.recall("user-58213c", question).items
    assert items and items[0].kind == "note" and answer in items[0].text, items


@pytest.mark.parametrize(
    ("home", "event", "city"),
    [
        ("I'm in Calgary", "our partner summit is in Denver in October", "Denver"),
        ("I'm in Tartu", "our yearly conference is in Riga in August", "Riga"),
    ],
)
def test_the_note_a_location_was_read_from_does_not_tell_an_events_city(home, event, city):
    """ "I'm in Calgary" names no verb of living, but the subject's location was read from it."""
    with told(event, subject="U-26", wait=True) as mem:
        mem.remember("U-26", home, at="2026-01-15T09:00:00+00:00")
        assert mem.index.wait(timeout=30)
        items = mem.recall("U-26", "what city do I need a hotel in for the work event?").items
    assert items and city in items[0].text, [item.text for item in items]


@pytest.mark.parametrize("thing", ["standing desk", "air fryer"])
def test_a_session_id_in_a_summarys_label_is_no_code_given(thing):
    """ "session web-7f3a91c2 (…)" names the session, not an order: the summary does not
    crowd out the note that cancelled the order asked about (it was the only item served)."""
    with memlane.Memory(":memory:", embedder="hash") as mem:
        for sid, day, user, assistant in (
            ("web-7f3a91c2", "01", f"Please go ahead and order the {thing}",
             "Done — order ORD-2026-55120 is placed and ships on 3 May."),
            ("web-b81d44e0", "02", f"Can you cancel the {thing}? Changed my mind",
             "Cancelled — your refund will arrive in 3–5 business days."),
        ):  # fmt: skip
            session = mem.session("U-31", session_id=sid)
            session.add("user", user, at=f"2026-03-{day}T09:00:00+00:00")
            session.add("assistant", assistant, at=f"2026-03-{day}T09:01:00+00:00")
            session.close()
        assert mem.index.wait(timeout=30)
        items = mem.recall("U-31", f"What's the status of my {thing} order?").items
    assert items and "cancel" in items[0].text and items[0].status == "current", items
