"""Evidence read by stored keys judges exactly as evidence read by going through every note.

Recall fetches the statements a judgement needs by the keys stored with each note (see
:mod:`memlane.router.evidence`); these tests hold that to the reference, which lists every
statement of the subject, and check the one guarantee the slot keys rest on.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import memlane
from memlane.router import executor
from memlane.router.evidence import ListedEvidence, Statement, no_meaning
from memlane.router.slots import probe_chains, restates, slot_keys, slot_opening, slot_probes
from memlane.summaries.linedata import LineData
from memlane.summaries.model import Note
from memlane.summaries.sources import NoteIndex, StoredNoteIndex, line_words
from tests.conftest import FakeClock

_LETTERS = st.text(alphabet="abcde xy上海北京0129", min_size=0, max_size=40)


@settings(max_examples=400, deadline=None)
@given(_LETTERS, _LETTERS, _LETTERS, _LETTERS)
def test_every_clause_that_restates_another_is_filed_under_one_of_its_probes(
    head: str, old_value: str, new_value: str, tail: str
) -> None:
    old, new = (" ".join(f"{head}{v}{tail}".split()) for v in (old_value, new_value))
    for first, second in ((old, new), (new, old)):
        if restates(first, second) is None or slot_opening(first) != slot_opening(second):
            continue
        assert set(slot_probes(first)) & set(slot_keys(second)), (first, second)
        filed = set(slot_keys(second))
        for chain in probe_chains(first):  # filed under a key: under the shorter ones too
            held = [key in filed for key in chain]
            assert not any(held) or all(held[: max(i for i, h in enumerate(held) if h) + 1])


def test_probes_of_a_long_clause_leave_out_clauses_of_other_frames() -> None:
    probe = set(slot_probes("the chair of the tidewater club is ada moss"))
    assert probe & set(slot_keys("the chair of the tidewater club is ben ode"))
    assert not probe & set(slot_keys("the weather in the tidewater valley was grim"))


def test_the_longest_key_two_clauses_of_one_slot_share_is_the_slots_own() -> None:
    """Whatever the length of the entity: a frame's short head is every entity's."""
    kalo, tidewater = (
        set(slot_keys(f"the chair of the {club} club is ada moss"))
        for club in ("kalo", "tidewater")
    )
    update = set(slot_keys("the chair of the kalo club is ben ode"))
    assert kalo & update - tidewater  # the slot's own head, which no other club's files


STATEMENTS = [
    "My favourite team is Arsenal",
    "I work at Acme as an engineer",
    "I moved to Porto last spring",
    "The chair of the Tidewater Club is Ada Moss",
    "Alice's favourite team is Liverpool",
    "我住在兰州",
    "我在华为上班",
    "I love hiking with Bruno",
    "My favourite team is now Chelsea",
    "I left Acme last month",
    "I moved from Porto to Lyon",
    "The chair of the Tidewater Club is Ben Ode",
    "我从兰州搬去绍兴了",
    "华为待够了，我离开华为了",
    "I'm not vegan anymore",
    "I went hiking with Bruno again",
    "我的手机号是13100001234",
    "131那个号不用了",
]
QUERIES = [
    "what is my favourite team?",
    "where do I work?",
    "where do I live?",
    "who chairs the Tidewater Club?",
    "我住在哪里",
    "我在哪里上班",
    "what do I eat?",
    "who do I hike with?",
    "我的手机号是多少",
]


def remember_all(mem: memlane.Memory, clock: FakeClock, statements: Sequence[str]) -> None:
    for text in statements:
        mem.remember("U-1", text)
        clock.advance(hours=1)


def listed(
    data: LineData,
    as_statements,
    visible,
    window: Sequence[Statement] = (),
    meaning=no_meaning,
    tells_meaning=False,
):  # type: ignore[no-untyped-def]
    """The reference: every note of the subject in memory, as before note keys."""
    notes = data._store.notes(data._tenant, data._subject)  # type: ignore[attr-defined]
    statements = [*as_statements(notes), *window]
    return ListedEvidence(statements, meaning=meaning, tells_meaning=tells_meaning)


def judged(
    mem: memlane.Memory, query: str, known_at: str | None = None
) -> list[tuple[str, str, str | None]]:
    items = mem.recall("U-1", query, k=20, known_at=known_at, valid_at=known_at).items
    return [(item.text, item.status, item.superseded_by) for item in items]


@pytest.mark.parametrize(
    ("backend", "seed"), [("sqlite", 0), ("sqlite", 1), ("sqlite", 2), ("postgresql", 3)]
)
def test_recall_judges_as_the_reference_that_reads_every_note(
    clock: FakeClock, monkeypatch: pytest.MonkeyPatch, scratch_url: str, seed: int
) -> None:
    statements = list(STATEMENTS)
    random.Random(seed).shuffle(statements)
    with memlane.Memory(scratch_url, clock=clock, embedder="hash") as mem:
        remember_all(mem, clock, statements)
        assert mem.index.wait(timeout=30)  # both recalls see the same vectors
        midway = "2026-03-02T09:30:00+00:00"  # half of the statements said by then
        assert_judged_as_reference(mem, monkeypatch, QUERIES, midway)


def assert_judged_as_reference(
    mem: memlane.Memory, monkeypatch: pytest.MonkeyPatch, queries: Sequence[str], midway: str
) -> None:
    """Recall judges ``queries`` (now, and as known ``midway``) as the reference does."""
    asked = [(query, at) for query in queries for at in (None, midway)]
    stored = {(query, at): judged(mem, query, at) for query, at in asked}
    monkeypatch.setattr(executor, "StoredEvidence", listed)
    reference = {(query, at): judged(mem, query, at) for query, at in asked}
    assert stored == reference
    assert any(status == "stale" for items in stored.values() for _, status, _ in items)


CONVERSATION = (
    "Caroline went to the LGBTQ support group on Sunday",
    "Caroline is researching adoption agencies",
    "Melanie painted a sunrise over the lake",
    "Caroline said the support group made her feel accepted",
    "Melanie ran a charity race for mental health",
    "Caroline wants to study counseling",
)
"""What two speakers said, one note a turn: the notes the stored and in-memory indexes compare."""


def test_stored_note_index_weighs_and_cites_as_the_index_in_memory(clock: FakeClock) -> None:
    with memlane.Memory(":memory:", clock=clock, embedder="hash") as mem:
        notes: list[Note] = []
        for turn, text in enumerate(CONVERSATION):
            at = clock.advance(minutes=1)
            provenance = (f"s1#{turn}",) if turn != 2 else ("remember",)
            notes.append(mem.summaries.add_note("conv", text, at=at, provenance=provenance))
        stored = StoredNoteIndex(mem.summaries.line_data("conv", executor.note_keys))
        memory = NoteIndex(notes)
        words = ["caroline", "support", "group", "melanie", "lake", "nothing"]
        assert [stored.idf(w) for w in words] == [memory.idf(w) for w in words]
        lines = [
            "Caroline: went to a support group; researching adoption",
            "Melanie: painted a sunrise",
            "Melanie ran a race; Caroline wants counseling",
        ]
        within = frozenset(f"s1#{turn}" for turn in range(5))
        for query in ("support group", "what did Melanie paint?", "counseling"):
            for scope in (None, within):
                assert stored.choose(lines, query, scope) == memory.choose(lines, query, scope)


def test_prepared_note_index_reads_only_the_words_of_the_lines(
    clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After :meth:`StoredNoteIndex.prepare`, lines are tied as in memory, and of the notes
    compared only the words the lines say are read; when and whence only of notes holding one.
    """
    with memlane.Memory(":memory:", clock=clock, embedder="hash") as mem:
        notes = [
            mem.summaries.add_note(
                "conv", text, at=clock.advance(minutes=1), provenance=(f"s1#{turn}",)
            )
            for turn, text in enumerate(CONVERSATION)
        ]
        store = mem.summaries._store
        asked: list[tuple[list[int], list[str] | None]] = []
        timed: list[int] = []
        keys_of, notes_said = store.keys_of, store.notes_said

        def spied_keys(
            tenant: str, ids: Sequence[int], kind: str, among: Sequence[str] | None = None
        ):  # type: ignore[no-untyped-def]
            asked.append((list(ids), None if among is None else list(among)))
            return keys_of(tenant, ids, kind, among)

        def spied_said(tenant: str, ids: Sequence[int]):  # type: ignore[no-untyped-def]
            timed.extend(ids)
            return notes_said(tenant, ids)

        monkeypatch.setattr(store, "keys_of", spied_keys)
        monkeypatch.setattr(store, "notes_said", spied_said)
        session = ["Caroline: went to a support group; researching adoption"]
        storyline = ["Melanie painted a sunrise", "Caroline wants counseling"]
        session_turns = frozenset(f"s1#{turn}" for turn in range(2))
        many_turns = frozenset(f"s{n}#{turn}" for n in (1, 2) for turn in range(40))
        shown = [(session, session_turns), (storyline, many_turns)]
        stored = StoredNoteIndex(mem.summaries.line_data("conv", executor.note_keys))
        query = "what did Caroline do?"
        stored.prepare(query, shown)
        choices = [stored.choose(lines, query, within) for lines, within in shown]
        memory = NoteIndex(notes)
        assert choices == [memory.choose(lines, query, within) for lines, within in shown]
        said = {word for lines, _ in shown for line in lines for word in line_words(line)}
        assert asked and all(among is not None and set(among) <= said for _, among in asked)
        assert notes[4].id not in timed  # "Melanie ran a charity race…": no word of a line


def test_words_held_by_few_notes_are_read_by_their_holders(
    clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A line's word held by fewer notes than are compared is read by its holders, once.

    The others are asked note by note; lines are tied as in memory either way.
    """
    with memlane.Memory(":memory:", clock=clock, embedder="hash") as mem:
        said = [(f"s1#{turn}", text) for turn, text in enumerate(CONVERSATION)]
        said += [
            (f"s2#{turn}", f"Caroline joined the support group again, week {turn}")
            for turn in range(8)
        ]
        notes = [
            mem.summaries.add_note("conv", text, at=clock.advance(minutes=1), provenance=(turn,))
            for turn, text in said
        ]
        store = mem.summaries._store
        asked: list[tuple[int, list[str]]] = []
        by_holders: list[str] = []
        keys_of, keyed_ids = store.keys_of, store.keyed_ids

        def spied_keys(
            tenant: str, ids: Sequence[int], kind: str, among: Sequence[str] | None = None
        ):  # type: ignore[no-untyped-def]
            asked.append((len(ids), list(among or ())))
            return keys_of(tenant, ids, kind, among)

        def spied_holders(tenant: str, subject: str, kind: str, keys: Sequence[str]):  # type: ignore[no-untyped-def]
            by_holders.extend(keys)
            return keyed_ids(tenant, subject, kind, keys)

        monkeypatch.setattr(store, "keys_of", spied_keys)
        monkeypatch.setattr(store, "keyed_ids", spied_holders)
        lines = ["Caroline: went to a support group; researching adoption"]
        within = frozenset(f"s1#{turn}" for turn in range(len(CONVERSATION)))
        stored = StoredNoteIndex(mem.summaries.line_data("conv", executor.note_keys))
        query = "what did Caroline do?"
        stored.prepare(query, [(lines, within)])
        assert stored.choose(lines, query, within) == NoteIndex(notes).choose(lines, query, within)
        counts = mem.summaries.line_data("conv", executor.note_keys).counts(
            "w", line_words(lines[0])
        )
        assert "adoption" in by_holders  # held by one note of the six compared
        assert asked and all(counts[word] > compared for compared, among in asked for word in among)
        assert by_holders.count("adoption") == 1
