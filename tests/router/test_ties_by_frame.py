"""A retraction tied by where it stands, when the embedder cannot tell meaning (issue 13).

On the hash embedder "No car anymore — I take the train in every day" shares no word and no
meaning anyone can measure with "I drive to work most days"; it still takes something back:
what the speaker last said of themself. Only a retraction of a kind of thing (not a name)
that no other statement names, which says what holds now, ties so, and never a statement
sharing a word with it.
"""

from __future__ import annotations

import pytest

import memlane
from tests.conftest import FakeClock
from tests.support.conversations import asked_after, current_texts, stale_texts, told_a_month_apart

REPLACED = [
    pytest.param(
        "I drive to work most days",
        "No car anymore — I take the train in every day",
        "how does this user get to work?", "take the train", "drive to work", id="commute",
    ),
    pytest.param(
        "SMS only please, I never answer the phone",
        "no more texts pls, just call me",
        "how should we reach this user?", "just call", "SMS only", id="contact",
    ),
    pytest.param(
        "Heads up, I'm vegan — please flag any dairy",
        "Update on my diet: I eat fish now, still no red meat",
        "what does this user eat?", "eat fish", "vegan", id="diet-update",
    ),
    pytest.param(
        "I'm on monthly billing",
        "switched to paying yearly — annual plan from now on",
        "how is the customer billed?", "yearly", "monthly billing", id="billing-switch",
    ),
]  # fmt: skip


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
@pytest.mark.parametrize(("old", "new", "question", "now", "before"), REPLACED)
def test_without_meaning_a_retraction_takes_back_the_speakers_last_statement(
    clock: FakeClock, scratch_url: str, old: str, new: str, question: str, now: str, before: str
) -> None:
    with memlane.Memory(scratch_url, clock=clock, embedder="hash") as mem:
        told_a_month_apart(
            mem, clock, old, "When will my invoice be ready?", "The code isn't working", new
        )
        assert mem.index.wait(timeout=30)
        r = mem.recall("U-1", question)
        assert any(now in text for text in current_texts(r))
        assert not any(before in text for text in current_texts(r))
        assert any(before in text for text in stale_texts(r))


def test_the_window_ties_as_stored_notes_do(clock: FakeClock) -> None:
    """Said in the running session, the retraction is a window turn: it ties the same way."""
    with memlane.Memory(":memory:", clock=clock, embedder="hash") as mem:
        told_a_month_apart(mem, clock, "I drive to work most days")
        clock.advance(days=30)
        s = mem.session("U-1", session_id="s-now")
        s.add("user", "No car anymore — I take the train in every day")
        r = mem.recall("U-1", "how does this user get to work?", session_id="s-now")
        assert not any("drive to work" in text for text in current_texts(r))


UNTOUCHED = [
    pytest.param(
        "I'm not at Acme anymore, I'm with Globex now", id="a-name-said-first-is-its-own-value"
    ),
    pytest.param("I'm not vegan anymore", id="only-taking-back-names-all-it-retracts"),
    pytest.param(
        "No more hiking for me — I train for a marathon every day",
        id="sharing-a-word-is-left-to-the-words",
    ),
]


@pytest.mark.parametrize("later", UNTOUCHED)
def test_what_the_speaker_said_last_stays_current_otherwise(clock: FakeClock, later: str) -> None:
    r = asked_after(
        clock, "who does the user train at work?", "I train new staff at work on Mondays", later
    )
    assert any("new staff" in text for text in current_texts(r))
    assert not any("new staff" in text for text in stale_texts(r))


def test_a_retraction_naming_an_earlier_statement_is_left_to_the_words(
    clock: FakeClock,
) -> None:
    """ "No boat anymore" ties "My boat is moored in the bay" by its word, nothing else."""
    with memlane.Memory(":memory:", clock=clock, embedder="hash") as mem:
        told_a_month_apart(
            mem,
            clock,
            "My boat is moored in the bay",
            "I train new staff at work on Mondays",
            "No boat anymore — I rent one when I sail now",
        )
        assert mem.index.wait(timeout=30)
        r = mem.recall("U-1", "who does the user train at work?")
        assert any("new staff" in text for text in current_texts(r))
        r = mem.recall("U-1", "where is the boat moored?")
        assert any("moored" in text for text in stale_texts(r))


def test_a_question_or_a_remark_about_something_else_is_not_what_is_taken_back(
    clock: FakeClock,
) -> None:
    """The speaker's last statement of their own is tied, past questions and other things."""
    with memlane.Memory(":memory:", clock=clock, embedder="hash") as mem:
        told_a_month_apart(
            mem,
            clock,
            "I drive to work most days",
            "can I pay by bank transfer?",
            "The discount code from last week isn't working",
            "No car anymore — I take the train in every day",
        )
        assert mem.index.wait(timeout=30)
        r = mem.recall("U-1", "is the discount code working?")
        assert any("discount code" in text for text in current_texts(r))
        r = mem.recall("U-1", "how does this user get to work?")
        assert any("drive to work" in text for text in stale_texts(r))


@pytest.mark.parametrize(
    ("old", "distractor", "new", "question", "now"),
    [
        pytest.param(
            "I drive to work most days",
            "The discount code for work orders isn't working",
            "I used to drive but now I take the train since we sold the car",
            "How does the user get to work?", "take the train", id="commute",
        ),
        pytest.param(
            "Please send emails in German",
            "Which language are the emails about the discount in?",
            "English is fine now, no need for German anymore — my English has got much better",
            "which language for emails to this customer?", "English is fine", id="language",
        ),
    ],
)  # fmt: skip
def test_what_replaced_a_recalled_statement_ranks_in_its_place(
    clock: FakeClock, old: str, distractor: str, new: str, question: str, now: str
) -> None:
    """Found first by its words, the old statement is stale: what replaced it comes first."""
    r = asked_after(clock, question, old, distractor, new)
    assert now in r.items[0].text


def test_the_subjects_own_name_names_no_retracted_value(clock: FakeClock) -> None:
    """Notes write "M6137730's work adress" for "my work adress": every note says the name."""
    with memlane.Memory(":memory:", clock=clock, embedder="hash") as mem:
        for number, text in enumerate(
            (
                "Deliveries go to work please — 395 Market Sq, reception",
                "why is shipping so slow this week",
                "pls stop using my work adress, send to 340 Pine St from now on",
            ),
            start=1,
        ):
            clock.advance(days=10)
            s = mem.session("M6137730", session_id=f"s-{number}")
            s.add("user", text)
            s.close()
        assert mem.index.wait(timeout=30)
        r = mem.recall("M6137730", "why is shipping slow?", include_stale=True)
        assert any("shipping" in text for text in current_texts(r))
        assert not any("shipping" in text for text in stale_texts(r))
        assert any("395 Market Sq" in text for text in stale_texts(r))


def test_a_storyline_line_is_dated_by_the_statement_it_repeats(clock: FakeClock) -> None:
    """A later retraction naming the line's value is no source of it: it takes it back."""
    with memlane.Memory(":memory:", clock=clock, embedder="hash") as mem:
        told_a_month_apart(
            mem,
            clock,
            "Email for receipts: hdimitrov@example.com",
            "please stop using hdimitrov@example.com, I don't check it anymore. "
            "Use hannah.dimitrov@example.org",
            "why is shipping so slow this week",
        )
        assert mem.index.wait(timeout=30)
        r = mem.recall("U-1", "where do I send the receipt?", k=10)
        assert not any("hdimitrov@example.com" in text for text in current_texts(r))


def test_only_the_replacing_note_ranks_in_place_not_the_other_sentences_of_its_turn(
    clock: FakeClock,
) -> None:
    """A turn is noted sentence by sentence: the note beside the replacement replaced nothing.

    On LoCoMo (default embedder) every note of a replacing turn took the stale one's score,
    and chit-chat said beside a "used to" pushed evidence out of the top ten.
    """
    with memlane.Memory(":memory:", clock=clock, embedder="hash") as mem:
        told_a_month_apart(
            mem,
            clock,
            "I drive to work most days",
            "The discount code for work orders isn't working",
            "I used to drive but now I take the train since we sold the car. "
            "My sister adopted a beagle puppy last weekend.",
        )
        assert mem.index.wait(timeout=30)
        r = mem.recall("U-1", "How does the user get to work?", include_stale=True)
        stale = [i for i in r.items if i.status == "stale" and "drive to work" in i.text]
        replacing = [i for i in r.items if "take the train" in i.text]
        beside = [i for i in r.items if "beagle" in i.text]
        assert stale and replacing and beside
        assert replacing[0].score >= stale[0].score  # the replacement ranks in its place
        assert beside[0].score < stale[0].score  # its neighbour keeps its own score
