"""What recall reads of a subject does not grow with how often the subject said one thing.

Judging a note against later statements of its slot once read every later note filed under
the slot's probe: a subject that said "note N: the user tried a new tea" 300 times made each
recall read 608 notes (and take up to 0.7 s). The clauses filed under a probe are now read
once each, with their latest holder. Counted here as notes read from the database.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

import memlane
from memlane.router.refilling import RECENT_FILINGS
from memlane.storage.sql import rows
from tests.conftest import FakeClock
from tests.router.test_evidence import assert_judged_as_reference


@pytest.fixture
def notes_read(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """A counter of the note rows the SQL stores decode."""
    count = [0]
    real = rows.note

    def counting(row):  # type: ignore[no-untyped-def]
        count[0] += 1
        return real(row)

    monkeypatch.setattr(rows, "note", counting)
    yield count


def _read_by_one_recall(clock: FakeClock, count: list[int], repeats: int) -> int:
    with memlane.Memory(":memory:", clock=clock, embedder="hash") as mem:
        for number in range(repeats):
            mem.remember("U-1", f"note {number}: the user tried a new tea")
            clock.advance(minutes=1)
        assert mem.index.wait(timeout=30)
        mem.recall("U-1", "what did the user try?")  # keys, vectors: all settled
        count[0] = 0
        assert mem.recall("U-1", "which tea did the user try?").items
        return count[0]


def test_a_recall_reads_as_many_notes_however_often_the_subject_repeated_itself(
    clock: FakeClock, notes_read: list[int]
) -> None:
    few = _read_by_one_recall(clock, notes_read, 20)
    many = _read_by_one_recall(clock, notes_read, 300)
    assert many == few <= 20  # before: 48 and 608


SAID = [
    "The chair of the Tidewater Club is Ada Moss",
    "The chair of the Tidewater Club is Ben Ode",
    "The chair of the Tidewater Club is Cy Lane",
    "note {n}: the user tried a new tea",
    "My favourite drink is tea",
    "My favourite drink is coffee",
]


@pytest.mark.parametrize("seed", range(6))
def test_repeated_statements_are_judged_as_the_reference_that_reads_every_note(
    clock: FakeClock, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    """Values said again after another one, and again from one turn: as before keys."""
    rng = random.Random(seed)
    with memlane.Memory(":memory:", clock=clock, embedder="hash") as mem:
        for number in range(80):
            text = rng.choice(SAID).format(n=number)
            if rng.random() < 0.5:  # notes of a few turns: a turn's own notes never judge it
                turn = (f"s1#{rng.randint(0, 3)}",)
                mem.summaries.add_note("U-1", text, at=clock.now, provenance=turn)
            else:
                mem.remember("U-1", text)
            clock.advance(hours=1)
        mem.remember("U-1", "My favourite drink is coffee", at="2026-03-02T12:30:00+00:00")
        assert mem.index.wait(timeout=30)
        queries = ["who chairs the Tidewater Club?", "what is my favourite drink?", "tea"]
        assert_judged_as_reference(mem, monkeypatch, queries, "2026-03-03T12:00:00+00:00")


def test_one_recall_reads_the_slot_heads_of_its_candidates_in_one_store_call(
    clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each read is a round trip on PostgreSQL: a recall once made one per probed slot key."""
    from memlane.storage.sql.note_keys import SQLNoteKeys

    calls: list[int] = []
    real = SQLNoteKeys.recent_keyed

    def counting(self, tenant, subject, kinds, visible, limit):  # type: ignore[no-untyped-def]
        calls.append(len(kinds))
        return real(self, tenant, subject, kinds, visible, limit)

    with memlane.Memory(":memory:", clock=clock, embedder="hash") as mem:
        for text in [*SAID[:3], "My favourite colour is teal", "I work as a nurse in Leeds"]:
            mem.remember("U-1", text)
            clock.advance(minutes=1)
        assert mem.index.wait(timeout=30)
        monkeypatch.setattr(SQLNoteKeys, "recent_keyed", counting)
        assert mem.recall("U-1", "who chairs the Tidewater Club, and where do I work?").items
    assert calls and calls[0] > 1  # every probed key of the candidates at once
    assert len(calls) <= 2  # and at most one more for a replacement judged after


NAMES = ["ada", "ben"]
PLACES = ["lyon", "oslo", "riga", "kyiv", "bern", "faro", "graz", "linz", "nice", "pula", "turku"]


def _one_shape(number: int) -> str:
    """Clauses of one shape that differ in two spans: none re-fills another's slot.

    Two names and three places: each of their heads is shared by a sixth of the clauses or
    more, so both sizes asked for below file more than ``RECENT_FILINGS`` under each.
    """
    name, place = NAMES[number % len(NAMES)], PLACES[number // len(NAMES) % 3]
    return f"I met {name} at the {place} market on day {number}"


def _read_by_one_shaped_recall(clock: FakeClock, count: list[int], said: int) -> int:
    with memlane.Memory(":memory:", clock=clock, embedder="hash") as mem:
        notes = [
            {"subject": "U-1", "text": _one_shape(n), "at": clock.advance(minutes=1)}
            for n in range(said)
        ]
        mem.summaries.add_notes(notes)
        assert mem.index.wait(timeout=60)
        mem.recall("U-1", "who did I meet at the market?")  # keys, vectors: all settled
        count[0] = 0
        assert mem.recall("U-1", "who did I meet at the lyon market?").items
        return count[0]


def test_judging_reads_the_latest_clauses_of_a_shape_not_every_one_the_subject_said(
    clock: FakeClock, notes_read: list[int]
) -> None:
    """The refilling walk reads at most ``RECENT_FILINGS`` clauses per slot probe.

    Before, it read every distinct clause filed under the probe: here every note, a recall
    reading 5 times more notes for 5 times as many.
    """
    few = _read_by_one_shaped_recall(clock, notes_read, 8 * RECENT_FILINGS)
    many = _read_by_one_shaped_recall(clock, notes_read, 40 * RECENT_FILINGS)
    assert many <= few + RECENT_FILINGS // 4, (few, many)


def _chairs(numbers: range, clock: FakeClock) -> list[dict[str, object]]:
    """Notes filed under one slot probe that do not re-fill the Vaasa club's chair."""
    texts = [f"The chair of the {PLACES[n % 11]} club is Ada{n}" for n in numbers]
    return [{"subject": "U-1", "text": text, "at": clock.advance(minutes=1)} for text in texts]


def test_a_refill_among_the_latest_filings_still_supersedes_after_many_older_ones(
    clock: FakeClock,
) -> None:
    with memlane.Memory(":memory:", clock=clock, embedder="hash") as mem:
        mem.summaries.add_notes(_chairs(range(5 * RECENT_FILINGS), clock))
        mem.remember("U-1", "The chair of the Vaasa club is Zed", at=clock.advance(hours=1))
        mem.summaries.add_notes(_chairs(range(RECENT_FILINGS // 2), clock))
        mem.remember("U-1", "The chair of the Vaasa club is Amy", at=clock.advance(hours=1))
        assert mem.index.wait(timeout=60)
        items = mem.recall("U-1", "who chairs the Vaasa club?").items
        stale = [item.text for item in items if item.status == "stale"]
        assert stale == ["The chair of the Vaasa club is Zed"]


def test_an_update_in_a_long_stream_of_one_frame_supersedes_beyond_the_latest_filings(
    clock: FakeClock,
) -> None:
    """Every statement of the stream opens "the chair of the …": one short probe for all.

    Its latest filings are other clubs' updates; the head the two statements of one club
    share ("the chair of the kakan rowing club is") has two. Before the longer heads were
    read, the first updates of a stream longer than ``RECENT_FILINGS`` left their old value
    current.
    """
    syllables = ["ka", "lo", "mi", "ren", "sa", "tor", "vel", "zu", "bri", "dan", "fe", "gor"]

    def word(n: int) -> str:
        return syllables[n % 12] + syllables[n // 12 % 12] + "n"

    clubs = [f"{word(n)} rowing club" for n in range(3 * RECENT_FILINGS)]
    old, new = (
        [word(n).title() + "ia" for n in range(100, 200)],
        [f"Sir {word(n)}" for n in range(200, 300)],
    )
    with memlane.Memory(":memory:", clock=clock, embedder="hash") as mem:
        said = [f"The chair of the {club} is {old[n]}" for n, club in enumerate(clubs)]
        said += [f"The chair of the {club} is {new[n]}" for n, club in enumerate(clubs)]
        notes = [{"subject": "U-1", "text": t, "at": clock.advance(minutes=1)} for t in said]
        mem.summaries.add_notes(notes)
        assert mem.index.wait(timeout=60)
        for n in (0, 1, RECENT_FILINGS):  # updated first: 3 x RECENT_FILINGS filings ago
            items = mem.recall("U-1", f"who chairs the {clubs[n]}?").items
            status = {item.text: item.status for item in items}
            assert status.get(f"The chair of the {clubs[n]} is {old[n]}") == "stale", status
            assert status.get(f"The chair of the {clubs[n]} is {new[n]}") == "current", status


@pytest.mark.parametrize(
    "frame", ["The chair of the {} club is {}", "The {} club has {} as its chair"]
)
def test_an_update_of_a_short_name_in_a_long_stream_of_one_frame_supersedes(
    clock: FakeClock, frame: str
) -> None:
    """Names of four letters: the two statements of one club share only 29 characters.

    Filed at head lengths 1, 2, 4, … 64, the longest head both held was "the chair of the"
    (or "the ka"), every club's: an update said more than ``RECENT_FILINGS`` statements of
    the frame ago was not found and the old chair stayed current. Filed under every head and
    tail cut at a word, they share the slot's own ("the chair of the kaka club is").
    """
    syllables = ["ka", "lo", "mi", "re", "sa", "to", "ve", "zu", "bi", "da", "fe", "go"]
    clubs = [syllables[n % 12] + syllables[n // 12 % 12] for n in range(3 * RECENT_FILINGS)]
    old = [f"Ada{syllables[n % 12]}" for n in range(len(clubs))]
    new = [f"Ben{syllables[n % 12]}" for n in range(len(clubs))]
    said = [frame.format(club, old[n]) for n, club in enumerate(clubs)]
    said += [frame.format(club, new[n]) for n, club in enumerate(clubs)]
    with memlane.Memory(":memory:", clock=clock, embedder="hash") as mem:
        notes = [{"subject": "U-1", "text": t, "at": clock.advance(minutes=1)} for t in said]
        mem.summaries.add_notes(notes)
        assert mem.index.wait(timeout=60)
        for n in (0, 1, RECENT_FILINGS):  # updated 3 x RECENT_FILINGS filings of the frame ago
            items = mem.recall("U-1", f"who chairs the {clubs[n]} club?").items
            status = {item.text: item.status for item in items}
            assert status.get(frame.format(clubs[n], old[n])) == "stale", status
            assert status.get(frame.format(clubs[n], new[n])) == "current", status


def _statuses(mem: memlane.Memory, question: str) -> dict[str, str]:
    return {item.text: item.status for item in mem.recall("U-1", question).items}


def test_an_update_after_the_old_value_said_again_and_again_supersedes_it(
    clock: FakeClock,
) -> None:
    """The old clause said again and again fills the heads that reach into its value.

    "the chair of the kalo club is ada" (and every shorter head) then holds more than
    ``RECENT_FILINGS`` filings, all of the old clause; the update shares only the slot's own
    head ("the chair of the kalo club is") and no tail. A walk that skipped a chain's shorter
    filled keys for a longer filled one would not read it, and the old chair stayed current.
    """
    old, new = "The chair of the Kalo club is Ada Moss", "The chair of the Kalo club is Ben Ode"
    with memlane.Memory(":memory:", clock=clock, embedder="hash") as mem:
        others = _chairs(range(2 * RECENT_FILINGS), clock)
        said = [
            {"subject": "U-1", "text": old, "at": clock.advance(minutes=1)}
            for _ in range(2 * RECENT_FILINGS)
        ]
        mem.summaries.add_notes(others + said)
        mem.remember("U-1", new, at=clock.advance(hours=1))
        assert mem.index.wait(timeout=60)
        status = _statuses(mem, "who chairs the Kalo club?")
        assert status.get(old) == "stale", status
        assert status.get(new) == "current", status


LONG_FRAME = "{who} is planning {what} lessons in {where} {when}, and would like tacos afterwards"
"""The shape of ``memlane bench scale``'s notes: two of them share a head and a tail of more
than half of each (the person, the verb, the time, the food) and differ in two spans."""


def _long_frames(numbers: range, when: str, clock: FakeClock) -> list[dict[str, object]]:
    """Statements of ``LONG_FRAME`` that re-fill no slot of another: each differs in two spans."""
    syllables = ["ka", "lo", "mi", "ren", "sa", "tor", "vel", "zu", "bri", "dan", "fe", "gor"]
    texts = [
        LONG_FRAME.format(
            who="Hiro",
            what=syllables[n % 12] + syllables[n // 12 % 12] + "di",
            where=(syllables[n // 7 % 12] + syllables[n % 7]).title() + "pur",
            when=when,
        )
        for n in numbers
    ]
    return [{"subject": "U-1", "text": text, "at": clock.advance(minutes=1)} for text in texts]


@pytest.mark.parametrize("later", [0, 3 * RECENT_FILINGS])
def test_an_update_in_a_stream_of_long_frames_supersedes_by_the_side_it_shares_most(
    clock: FakeClock, later: int
) -> None:
    """Each update shares with the statement it updates a short tail and a long head, or
    the other way round, in a stream whose statements share long frames.

    The tail ", and would like tacos afterwards" and the longer "after work, and would like
    tacos afterwards" (and the heads "hiro is planning" …) are filed more than
    ``RECENT_FILINGS`` times by statements that re-fill nothing, some of them said after
    the update (``later``): the first update is filed under a short tail only below the
    longer ones, and found by its head ("hiro is planning kalodi lessons in"); the second
    shares a short head below "hiro is planning", and is found by its tail.
    """
    first_old = LONG_FRAME.format(who="Hiro", what="kalodi", where="Zumi", when="after work")
    first_new = "Hiro is planning kalodi lessons in Tor Vale, and would like tacos afterwards"
    second_old = LONG_FRAME.format(who="Hiro", what="mekodi", where="Vask", when="after work")
    second_new = LONG_FRAME.replace("is planning", "wants to try").format(
        who="Hiro", what="mekodi", where="Vask", when="after work"
    )
    with memlane.Memory(":memory:", clock=clock, embedder="hash") as mem:
        notes = [
            {"subject": "U-1", "text": t, "at": clock.advance(minutes=1)}
            for t in (first_old, second_old)
        ]
        notes += _long_frames(range(2 * RECENT_FILINGS), "after work", clock)
        notes += _long_frames(range(100, 100 + 2 * RECENT_FILINGS), "every morning", clock)
        notes += [
            {"subject": "U-1", "text": t, "at": clock.advance(minutes=1)}
            for t in (first_new, second_new)
        ]
        notes += _long_frames(range(200, 200 + later), "after work", clock)
        notes += _long_frames(range(300, 300 + later), "every morning", clock)
        mem.summaries.add_notes(notes)
        assert mem.index.wait(timeout=60)
        status = _statuses(mem, "what about kalodi lessons in Zumi?")
        assert status.get(first_old) == "stale", status
        status = _statuses(mem, "what about mekodi lessons in Vask?")
        assert status.get(second_old) == "stale", status


def _tested_by_one_recall(clock: FakeClock, calls: list[int], others: int) -> int:
    with memlane.Memory(":memory:", clock=clock, embedder="hash") as mem:
        first = LONG_FRAME.format(who="Hiro", what="kalodi", where="Zumi", when="after work")
        notes = [{"subject": "U-1", "text": first, "at": clock.advance(minutes=1)}]
        notes += _long_frames(range(3 * RECENT_FILINGS), "after work", clock)
        notes += _long_frames(range(100, 100 + others), "every morning", clock)
        mem.summaries.add_notes(notes)
        assert mem.index.wait(timeout=60)
        mem.recall("U-1", "what about kalodi lessons?")  # keys, vectors: all settled
        calls[0] = 0
        assert mem.recall("U-1", "what about kalodi lessons in Zumi?").items
        return calls[0]


def test_judging_tests_no_more_clauses_for_statements_sharing_less_of_a_clause(
    clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Statements said since that share only the shortest tails of the judged clauses.

    Every "… every morning, and would like tacos afterwards" said after the "… after work, and
    would like tacos afterwards" statements is filed under their tail ", and would like tacos
    afterwards" but not under "after work, and would like tacos afterwards", whose 16 latest
    filings are other statements said since: on main each judged clause was tested against
    the 16 latest of both (129 clauses tested without them, 230 with them); the shorter keys
    are no longer read.
    """
    import memlane.router.adjudicate as adjudicate

    calls = [0]
    real = adjudicate.restates

    def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(adjudicate, "restates", counting)
    few = _tested_by_one_recall(clock, calls, 0)
    many = _tested_by_one_recall(clock, calls, 3 * RECENT_FILINGS)
    assert many <= few + RECENT_FILINGS // 4, (few, many)


def test_a_clause_prepared_before_is_not_walked_again(
    clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each judged clause asks for its walk (``probed``): ~100 per recall, all read ahead."""
    from memlane.router import refilling
    from memlane.router.evidence import note_keys

    walked: list[str] = []
    real = refilling.kind_chains

    def counting(clause: str):  # type: ignore[no-untyped-def]
        walked.append(clause)
        return real(clause)

    with memlane.Memory(":memory:", clock=clock, embedder="hash") as mem:
        for text in SAID[:3]:
            mem.remember("U-1", text)
            clock.advance(minutes=1)
        assert mem.index.wait(timeout=30)
        walk = refilling.RefillWalk(
            mem.summaries.line_data("U-1", note_keys), (None, None), lambda kind, keys: iter(())
        )
        monkeypatch.setattr(refilling, "kind_chains", counting)
        walk.prepare(["the chair of the tidewater club is ada moss", "my team is arsenal"])
        walk.prepare(["my team is arsenal"])  # as ``probed`` asks of each judged clause
    assert sorted(walked) == ["my team is arsenal", "the chair of the tidewater club is ada moss"]
