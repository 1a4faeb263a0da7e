"""A retraction tied by meaning to the statement it replaces, when they share no word (issue 13).

"No car anymore — I take the train in every day" takes back "I drive to work", and
"no more texts pls, just call me" takes back "SMS only please", though no word ties them:
of everything the speaker said before, the retraction is nearest in meaning to the
statement it replaces. Only an embedder whose similarity follows meaning may say so (its
``meaning_floor``); the hash embedder never does, and a note not embedded yet ties nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import pytest

import memlane
from memlane.embed.base import Vectors
from tests.conftest import FakeClock
from tests.support.conversations import current_texts, stale_texts, told_a_month_apart
from tests.support.embedders import TopicEmbedder

TOPICS = (
    ("drive", "car", "train", "commute", "bus", "van"),
    ("sms", "text", "call", "ring", "phone"),
    ("短信", "电话", "微信"),
    ("invoice", "receipt", "billing"),
)


REPLACED = [
    pytest.param(
        "I drive to work, so I need parking near the office",
        "No car anymore — I take the train in every day",
        "how does this user get to work?", "train", "drive to work", id="commute",
    ),
    pytest.param(
        "SMS only please, I never answer the phone",
        "no more texts pls, just call me",
        "how should we reach this user?", "just call", "SMS only", id="contact",
    ),
    pytest.param(
        "有事微信留言就行，上班不方便接",
        "别发短信了，以后直接打电话",
        "怎么联系这位用户？", "打电话", "微信留言", id="zh-contact",
    ),
]  # fmt: skip


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
@pytest.mark.parametrize(("old", "new", "question", "now", "before"), REPLACED)
def test_a_replacement_sharing_no_word_makes_the_old_statement_stale(
    clock: FakeClock, scratch_url: str, old: str, new: str, question: str, now: str, before: str
) -> None:
    embedder = TopicEmbedder(TOPICS)
    with memlane.Memory(scratch_url, clock=clock, embedder=embedder) as mem:
        told_a_month_apart(mem, clock, old, "Is the invoice for March ready?", new)
        assert mem.index.wait(timeout=30)
        r = mem.recall("U-1", question)
        assert now in r.items[0].text
        assert not any(before in text for text in current_texts(r))
        assert any(before in text for text in stale_texts(r))


def test_a_retraction_near_nothing_it_replaces_ties_nothing(clock: FakeClock) -> None:
    """The nearest earlier statement is below the embedder's floor: another topic."""
    with memlane.Memory(":memory:", clock=clock, embedder=TopicEmbedder(TOPICS)) as mem:
        told_a_month_apart(
            mem, clock, "Send my invoices to the accounts team", "No car anymore — I take the train"
        )
        assert mem.index.wait(timeout=30)
        r = mem.recall("U-1", "where do my invoices go?")
        assert any("accounts team" in text for text in current_texts(r))
        assert not stale_texts(r)


def test_the_hash_embedder_ties_nothing_by_meaning(clock: FakeClock) -> None:
    """Its similarity is shared character n-grams: "train" staff is not the train taken."""
    said = ("I train new staff at work every day", "No car anymore — I take the train in every day")
    with memlane.Memory(":memory:", clock=clock, embedder="hash") as mem:
        told_a_month_apart(mem, clock, *said)
        assert mem.index.wait(timeout=30)
        notes = mem.summaries.notes("U-1")
        assert notes and all(mem.summaries.near_in_meaning("U-1", n.id) == [] for n in notes)
        r = mem.recall("U-1", "who does the user train at work?")
        assert any("new staff" in text for text in current_texts(r))
        assert not any("new staff" in text for text in stale_texts(r))


class _Held(TopicEmbedder):
    """A :class:`TopicEmbedder` whose background embedding waits for ``gate``."""

    def __init__(self, topics: Sequence[Sequence[str]]) -> None:
        super().__init__(topics)
        self.gate = threading.Event()

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        assert self.gate.wait(timeout=60), "the test never opened the gate"
        return super().embed_documents(texts)


def test_statements_waiting_for_their_vectors_are_not_tied_and_not_waited_for(
    clock: FakeClock,
) -> None:
    embedder = _Held(TOPICS)
    with memlane.Memory(":memory:", clock=clock, embedder=embedder) as mem:
        old, new = REPLACED[0].values[:2]
        told_a_month_apart(mem, clock, str(old), str(new))
        r = mem.recall("U-1", "how does this user get to work?")
        assert any("drive to work" in text for text in current_texts(r))  # no vector: no tie yet
        embedder.gate.set()
        assert mem.index.wait(timeout=30)
        r = mem.recall("U-1", "how does this user get to work?")
        assert any("drive to work" in text for text in stale_texts(r))


def test_an_episode_is_not_taken_back_by_meaning(clock: FakeClock) -> None:
    """Only a state is taken back: "we rented a van" happened, whatever holds now."""
    said = ("We rented a van for the trip last summer", "No car anymore — I take the train in")
    with memlane.Memory(":memory:", clock=clock, embedder=TopicEmbedder(TOPICS)) as mem:
        told_a_month_apart(mem, clock, *said)
        assert mem.index.wait(timeout=30)
        r = mem.recall("U-1", "what did we rent for the trip?")
        assert any("rented a van" in text for text in current_texts(r))
        assert not stale_texts(r)
