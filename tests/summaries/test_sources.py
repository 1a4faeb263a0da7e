"""Line provenance and line choice of summaries, read back from notes."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime

from tests.support.conversations import told

from memlane.summaries.model import Note, Summary, SummaryContent
from memlane.summaries.sources import NoteIndex, speakers, without_speakers

AT = datetime(2023, 5, 8, tzinfo=UTC)


def _notes(*texts: str) -> list[Note]:
    return [
        Note(i, "c", text, AT, AT, provenance=(f"c-S1#{i}",)) for i, text in enumerate(texts, 1)
    ]


NOTES = _notes(
    "Caroline went to a support group and it was so powerful.",
    "Caroline is researching adoption agencies for a future family.",
    "Melanie painted a lake sunrise in 2022.",
    "Caroline said: Thanks for listening.",
    "Melanie said: Our camping trip in the mountains was great.",
    "Caroline loves her guinea pig Oscar.",
)


def test_a_line_cites_the_turn_of_the_note_saying_the_same():
    index = NoteIndex(NOTES)
    assert index.sources("Caroline: I'm researching adoption agencies!") == ("c-S1#2",)
    assert index.sources("Melanie: I painted that lake sunrise last year!") == ("c-S1#3",)


def test_an_earlier_line_cites_each_of_its_pieces_and_unknown_lines_cite_nothing():
    index = NoteIndex(NOTES)
    earlier = "earlier: camping trip mountains; lake sunrise 2022"
    assert index.sources(earlier) == ("c-S1#5", "c-S1#3")
    assert index.sources("Caroline: The weather is nice today.") == ()
    assert index.sources("Melanie: lake sunrise", within=frozenset({"c-S1#1"})) == ()


def test_choose_keeps_the_lines_about_the_query_best_first():
    index = NoteIndex(NOTES)
    lines = [
        "Caroline: I went to a support group.",
        "Caroline: I'm researching adoption agencies.",
        "Melanie: I painted a lake sunrise.",
    ]
    choice = index.choose(lines, "Which adoption agencies is Caroline researching?")
    assert choice.matched and choice.lines == (lines[1],)
    assert choice.provenance == ("c-S1#2",)
    fallback = index.choose(lines, "What is the weather like?")
    assert not fallback.matched and fallback.lines == tuple(lines)
    assert fallback.without({"caroline: i went to a support group."}).lines == tuple(lines[1:])


def test_a_name_said_in_most_notes_weighs_nothing():
    index = NoteIndex(NOTES)
    assert index.idf("caroline") == 0.0
    assert index.idf("adoption") > index.idf("melanie") > 0.0


def test_speakers_are_the_labels_of_the_lines_and_leave_the_query_when_it_asks_more():
    summary = Summary(
        1,
        "c",
        None,
        SummaryContent(facts=("Caroline: I moved.", "assistant: noted", "earlier: a 2023")),
        AT,
        AT,
        1,
        AT,
        (),
    )
    names = speakers(summary)
    assert names == frozenset({"caroline"})
    assert without_speakers("What pet does Caroline have?", names) == "What pet does have?"
    assert without_speakers("Who is Caroline?", names) == "Who is Caroline?"
    assert without_speakers("What pet do you have?", names) == "What pet do you have?"
    assert speakers(None) == frozenset()


def test_a_users_own_field_lines_name_no_speaker():
    """ "cell: 415…" is a field and its value, not Cell speaking: the query keeps its words.

    Taken for speakers, "cell" and the words of "Save my dentist's number for me" left the
    question "dentist phone number?" searching for "phone" alone, and until the notes had
    vectors the note holding the dentist's number was not found.
    """
    with told(
        "cell: 415-555-0181", "Save my dentist's number for me: +1-212-555-0159", subject="U"
    ) as mem:
        storyline = mem.summaries.storyline("U")
    assert storyline is not None and len(storyline.facts) == 2
    assert speakers(storyline) == frozenset()
    question = "dentist phone number?"
    assert without_speakers(question, speakers(storyline)) == question


_FIRST_SAID = """
from tests.summaries.test_sources import _notes
from memlane.summaries.sources import NoteIndex
index = NoteIndex(_notes("Please order the kettle", "Also get me a toaster"))
print(index.first_said("assistant: ordered the kettle and the toaster, arriving Friday"))
"""


def test_a_reply_is_tied_to_the_same_note_whatever_the_string_hashing():
    """Words of equal rarity tie; the first found in the reply wins, never a set's order.

    "kettle" and "toaster" are each held by one note: the reply's rarest word is a tie, and
    which one was tried first used to follow ``PYTHONHASHSEED`` (a storyline's "ordered …"
    was tied to the cancellation in some processes and to the order in others).
    """
    answers = {
        subprocess.run(
            [sys.executable, "-c", _FIRST_SAID],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("0", "1", "2", "3")
    }
    assert answers == {"('c-S1#1',)\n"}
