"""A note's speaker label is one list of verbs, read by both patterns that strip it."""

from __future__ import annotations

import pytest

from memlane.lang.speaker import SAYING, SPEAKER_LABEL, SPEAKER_PREFIX


@pytest.mark.parametrize("verb", SAYING)
def test_every_verb_of_the_label_is_read_with_and_without_the_name(verb: str) -> None:
    colon = ":" if verb.isascii() else "："
    note = f"Ilse Varga {verb}{colon} the ferry leaves at nine"
    assert SPEAKER_LABEL.match(note[len("Ilse Varga") :])
    assert SPEAKER_PREFIX.sub("", note).strip() == "the ferry leaves at nine"


@pytest.mark.parametrize("note", ["Fact 12: the ferry leaves at nine", "注意：渡轮九点开"])
def test_a_colon_without_a_verb_of_saying_is_no_speaker(note: str) -> None:
    assert SPEAKER_PREFIX.sub("", note) == note
