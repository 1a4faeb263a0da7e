"""Line weighing's reads kept across recalls, per subject and stamp (summaries/sources_kept)."""

from __future__ import annotations

import threading
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import pytest
from tests.conftest import FakeClock
from tests.support.note_keys import store_of

import memlane
from memlane.router.evidence import note_keys
from memlane.storage.base import KeysMoved
from memlane.summaries import sources_kept
from memlane.summaries.linedata import LineData
from memlane.summaries.sources import StoredNoteIndex
from memlane.summaries.sources_kept import CHANGES_KEPT, KeptLines, LineReads

LINES = (
    ["Caroline: I adopted a cat named Luna", "Caroline: I started pottery classes"],
    frozenset[str](),
)


def read(kept: KeptLines, stamp: int, words: dict[str, int]) -> LineReads:
    """A recall at ``stamp`` that read these word counts and offered them."""
    reads = kept.begin("t", "U-1", lambda: stamp)
    reads.counts.update(words)
    reads.weight += len(words)
    kept.offer("t", "U-1", reads)
    return reads


def test_reads_are_kept_once_a_later_stamp_read_finds_the_stamp_they_were_read_at() -> None:
    kept = KeptLines()
    read(kept, 3, {"luna": 1})
    assert kept.begin("t", "U-1", lambda: 3).counts == {"luna": 1}
    assert kept.begin("t", "U-2", lambda: 3).counts == {}  # per subject
    assert kept.begin("u", "U-1", lambda: 3).counts == {}  # per tenant


def test_reads_offered_before_a_write_are_not_kept_after_it() -> None:
    kept = KeptLines()
    read(kept, 3, {"luna": 1})
    read(kept, 3, {"pottery": 2})  # kept: the second recall's stamp read proved the first's
    assert kept.begin("t", "U-1", lambda: 4).counts == {}  # a write came between: all dropped
    read(kept, 4, {"luna": 2})
    assert kept.begin("t", "U-1", lambda: 4).counts == {"luna": 2}


def test_an_offer_made_while_the_stamp_is_read_waits_for_the_next_recall() -> None:
    # Taken before the stamp is read: an offer whose reads may have come after the read
    # that would prove them is never kept by it.
    kept = KeptLines()
    read(kept, 3, {})

    def stamp_read_during_an_offer() -> int:
        read(kept, 3, {"luna": 1})
        return 3

    assert kept.begin("t", "U-1", stamp_read_during_an_offer).counts == {}
    assert kept.begin("t", "U-1", lambda: 3).counts == {"luna": 1}


def test_what_is_kept_is_bounded_per_subject_and_in_all() -> None:
    kept = KeptLines(subject_ids=10, kept_ids=25)
    big = {f"w{n}": 1 for n in range(11)}
    read(kept, 1, big)
    assert kept.begin("t", "U-1", lambda: 1).counts == {}  # past one subject's bound
    for subject in ("A", "B", "C"):
        reads = kept.begin("t", subject, lambda: 1)
        reads.counts.update({f"w{n}": 1 for n in range(9)})
        reads.weight += 9
        kept.offer("t", subject, reads)
        kept.begin("t", subject, lambda: 1)
    assert kept.begin("t", "A", lambda: 1).counts == {}  # the least recent went first
    assert len(kept.begin("t", "C", lambda: 1).counts) == 9


def remember_five(mem: memlane.Memory) -> None:
    mem.remember("U-1", "I adopted a cat named Luna")
    mem.remember("U-1", "I started pottery classes")
    mem.remember("U-1", "We went camping near the river")
    mem.remember("U-1", "I ran a charity race last Saturday")
    mem.remember("U-1", "I painted a lake sunrise for my sister")


def index_of(mem: memlane.Memory) -> StoredNoteIndex:
    return StoredNoteIndex(mem.summaries.line_data("U-1", note_keys))


def store_reads(
    mem: memlane.Memory,
    monkeypatch: pytest.MonkeyPatch,
    *methods: str,
    told: Callable[[str, tuple[Any, ...]], object] = lambda method, _: method,
) -> list[Any]:
    """What each call of these store methods tells (``told(method, arguments)``), from now on."""
    store, read = store_of(mem), []
    for method in methods:
        original = getattr(store, method)

        def reading(*args, _original=original, _method=method):  # type: ignore[no-untyped-def]
            read.append(told(_method, args))
            return _original(*args)

        monkeypatch.setattr(store, method, reading)
    return read


def counts_read(mem: memlane.Memory, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many word counts each store read of ``mem`` asks for."""
    store, asked = store_of(mem), []
    original = store.key_counts

    def counting(tenant: str, subject: str, kind: str, keys: list[str]) -> dict[str, int]:
        asked.append(len(keys))
        return original(tenant, subject, kind, keys)

    monkeypatch.setattr(store, "key_counts", counting)
    return asked


def test_a_memorys_next_recall_reads_nothing_its_last_read_and_a_write_drops_it(
    clock: FakeClock, tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = str(tmp_path / "kept.db")
    with memlane.Memory(url, clock=clock, embedder="hash") as mem:
        remember_five(mem)
        asked = counts_read(mem, monkeypatch)
        index_of(mem).prepare("what is my cat called?", [LINES])
        index_of(mem).prepare("what is my cat called?", [LINES])
        assert asked and sum(asked) > 0
        asked.clear()
        again = index_of(mem)
        again.prepare("what is my cat called?", [LINES])
        assert asked == [] and again.idf("luna") > 0
        # Another memory (its own connection) writes: the next recall here reads anew.
        with memlane.Memory(url, clock=clock, embedder="hash") as other:
            for _ in range(3):
                other.remember("U-1", "Luna sleeps on the sofa")
        after = index_of(mem)
        after.prepare("what is my cat called?", [LINES])
        assert asked and after.idf("luna") == 0  # held by 4 of 8 notes now
        fresh = StoredNoteIndex(mem.summaries.line_data("U-1", note_keys))
        assert fresh.sources(LINES[0][0]) == after.sources(LINES[0][0])


@pytest.mark.parametrize("write", ["remember", "forget"])
def test_each_write_of_the_memory_itself_drops_what_was_kept(
    mem: memlane.Memory, write: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    remember_five(mem)
    for _ in range(2):
        index_of(mem).prepare("luna", [LINES])
    if write == "remember":
        mem.remember("U-1", "Luna sleeps on the sofa")
    else:
        mem.forget("U-1", reason="erasure")
    asked = counts_read(mem, monkeypatch)
    index = index_of(mem)
    index.prepare("luna", [LINES])
    assert asked
    assert index._held("luna") == (2 if write == "remember" else 0)


def test_inside_a_write_transaction_nothing_is_kept(
    mem: memlane.Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    mem.remember("U-1", "I adopted a cat named Luna")
    asked = counts_read(mem, monkeypatch)
    with store_of(mem).transaction():
        for _ in range(2):
            index_of(mem).prepare("luna", [LINES])
    assert len(asked) >= 2


def test_recalls_on_many_threads_answer_as_one_alone(
    clock: FakeClock, new_memory_url: Callable[[], str]
) -> None:
    with memlane.Memory(new_memory_url(), clock=clock, embedder="hash") as mem:
        for n in range(30):
            mem.remember("U-1", f"I adopted cat number {n} and started pottery class {n % 7}")
        lines = [f"Caroline: cat number {n} and pottery class {n % 7}" for n in range(30)]
        alone = StoredNoteIndex(mem.summaries.line_data("U-1", note_keys))
        expected = [alone.sources(line) for line in lines]
        found: list[list[tuple[str, ...]]] = []

        def recall() -> None:
            for _ in range(5):
                index = index_of(mem)
                index.prepare("which cat and pottery class?", [(lines, frozenset())])
                found.append([index.sources(line) for line in lines])

        threads = [threading.Thread(target=recall) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len(found) == 20 and all(answer == expected for answer in found)


def test_judgings_slot_filings_and_notes_are_kept_too_and_a_forget_drops_them(
    clock: FakeClock, tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The refilling walk's latest filings and the notes read whole, per stamp as the rest."""
    said = ["My favourite drink is tea", "My favourite drink is coffee", "I adopted a cat"]
    url = str(tmp_path / "kept.db")
    with memlane.Memory(url, clock=clock, embedder="hash") as mem:
        for text in said:
            mem.summaries.add_note("U-1", text, at=clock.now, provenance=(f"s1#{len(text)}",))
            clock.advance(minutes=1)
        assert mem.index.wait(timeout=30)
        read = store_reads(mem, monkeypatch, "recent_keyed", "notes_by_id")
        question = "what is my favourite drink?"
        first = [item.text for item in mem.recall("U-1", question).items]
        assert "recent_keyed" in read
        mem.recall("U-1", question)  # proves the first recall's reads: kept from here on
        read.clear()
        assert [item.text for item in mem.recall("U-1", question).items] == first
        assert "recent_keyed" not in read
        mem.summaries.add_note("U-1", "My favourite drink is juice", at=clock.now)
        assert mem.index.wait(timeout=30)
        after = [item.text for item in mem.recall("U-1", question).items]
        assert "recent_keyed" in read and after != first
        with memlane.Memory(url, clock=clock, embedder="hash") as fresh:
            assert [item.text for item in fresh.recall("U-1", question).items] == after
        mem.recall("U-1", question)
        mem.forget("U-1", reason="erasure")
        assert mem.recall("U-1", question).items == []


def test_the_evidences_counts_and_the_walks_note_texts_are_kept_per_stamp(
    mem: memlane.Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    remember_five(mem)
    read = store_reads(mem, monkeypatch, "count_keyed", "count_containing", "note_texts")
    ids = [note.id for note in mem.summaries.notes("U-1")]

    def recall() -> tuple[object, ...]:
        data = mem.summaries.line_data("U-1", note_keys)
        found = (data.count("w", ["luna"]), data.containing("d", "1"), data.texts(ids))
        data.offer()
        return found

    first = recall()
    recall()  # proves the first one's reads
    read.clear()
    assert recall() == first and read == []
    mem.remember("U-1", "Luna sleeps on the sofa")
    after = recall()
    # Only a note added: what it may change is read again, the texts are carried over.
    assert sorted(set(read)) == ["count_containing", "count_keyed"]
    assert after[0] == 2 and after[2] == first[2]  # a text never changes


def test_a_write_that_only_adds_notes_carries_over_what_its_keys_cannot_change(
    clock: FakeClock, tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = str(tmp_path / "kept.db")
    with memlane.Memory(url, clock=clock, embedder="hash") as mem:
        remember_five(mem)
        keys = lambda _, args: tuple(args[3])  # noqa: E731 (what each count asks about)
        counted = store_reads(mem, monkeypatch, "count_keyed", told=keys)

        def recall() -> tuple[int, int]:
            data = mem.summaries.line_data("U-1", note_keys)
            found = (data.count("w", ["luna"]), data.count("w", ["pottery"]))
            data.offer()
            return found

        assert recall() == (1, 1)
        mem.remember("U-1", "Luna sleeps on the sofa")  # the recall's offer is carried over too
        counted.clear()
        assert recall() == (2, 1) and counted == [("luna",)]
        counted.clear()
        assert recall() == (2, 1) and counted == []
        with memlane.Memory(url, clock=clock, embedder="hash") as other:
            other.remember("U-1", "More pottery on Sunday")  # not told here: all read again
        counted.clear()
        assert recall() == (2, 2) and counted == [("luna",), ("pottery",)]
        recall()
        mem.forget("U-1", reason="erasure")  # not an addition
        counted.clear()
        assert recall() == (0, 0) and counted == [("luna",), ("pottery",)]


def peak_bytes(call: Callable[[], object]) -> int:
    """The most memory ``call`` held at once (what it kept or built on the way)."""
    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def kept_of(size: int) -> KeptLines:
    """A subject with ``size`` word counts kept at stamp 1."""
    kept = KeptLines()
    read(kept, 1, {f"w{n}": n for n in range(size)})
    kept.begin("t", "U-1", lambda: 1)  # proves the offer: kept from here on
    return kept


def begin_proving_an_offer(kept: KeptLines) -> int:
    """The memory a recall's begin takes to keep a one-word offer (the least of five)."""
    costs = []
    for n in range(5):  # one of them may grow a kept table in place
        read(kept, 1, {f"new{n}": n})
        costs.append(peak_bytes(lambda: kept.begin("t", "U-1", lambda: 1)))
    return min(costs)


def test_what_a_recall_begins_on_and_offers_costs_what_it_reads_not_what_is_kept() -> None:
    # Before, a recall began on a copy of every kept table and each proved offer rebuilt
    # them all: megabytes per recall once a subject keeps ~10^5 ids. Now it reads through.
    small, large = kept_of(100), kept_of(50_000)
    assert peak_bytes(lambda: large.begin("t", "U-1", lambda: 1)) < 100_000
    assert begin_proving_an_offer(large) < begin_proving_an_offer(small) + 100_000
    reads = large.begin("t", "U-1", lambda: 1)
    assert len(reads.counts) == 50_005 and reads.counts["new4"] == 4 and reads.counts["w7"] == 7


def test_a_recall_reads_its_own_offered_reads_and_a_second_offer_keeps_only_what_is_new() -> None:
    kept = KeptLines(subject_ids=5)
    reads = kept.begin("t", "U-1", lambda: 1)
    reads.counts.update({"luna": 1, "cat": 2, "sofa": 3})
    reads.weight += 3
    kept.offer("t", "U-1", reads)
    rest = reads.then()  # what the recall adds to after offering
    assert rest.counts == {"luna": 1, "cat": 2, "sofa": 3} and rest.weight == 0
    rest.counts.update({"river": 4, "lake": 5})
    rest.weight += 2
    kept.offer("t", "U-1", rest)
    # Both offers are proved: 3 + 2 ids, within the bound of 5 (each weighed once).
    assert kept.begin("t", "U-1", lambda: 1).counts == {
        "luna": 1, "cat": 2, "sofa": 3, "river": 4, "lake": 5
    }  # fmt: skip


def test_a_new_stamp_begins_a_new_shelf_and_the_old_ones_readers_keep_theirs() -> None:
    kept = KeptLines()
    read(kept, 1, {"luna": 1})
    before = kept.begin("t", "U-1", lambda: 1)  # began at 1: reads what is kept at 1
    offered = kept.begin("t", "U-1", lambda: 1)
    offered.counts["pottery"] = 1
    offered.weight += 1
    kept.offer("t", "U-1", offered)
    after = kept.begin("t", "U-1", lambda: 2)  # a write came between
    assert after.counts == {} and before.counts == {"luna": 1}
    read(kept, 2, {"luna": 2})
    kept.begin("t", "U-1", lambda: 2)
    assert before.counts == {"luna": 1} and before.counts.get("pottery") is None
    assert kept.begin("t", "U-1", lambda: 2).counts == {"luna": 2}  # nothing of stamp 1


def test_recalls_reading_while_others_offer_and_the_stamp_moves_read_only_their_stamps() -> None:
    # Every count read at stamp s is its word's number times s: a recall that found one of
    # another stamp, or a table changing under it, would tell.
    kept, stamp, errors = KeptLines(subject_ids=3_000), [1], []
    words = [f"w{n}" for n in range(400)]

    def recall(seed: int) -> None:
        try:
            for turn in range(60):
                reads = kept.begin("t", "U-1", lambda: stamp[0])
                at = reads.stamp or 0
                for n, word in enumerate(words):
                    found = reads.counts.get(word)
                    assert found is None or found == n * at, (word, found, at)
                    if found is None and (n + seed + turn) % 7 == 0:
                        reads.counts[word] = n * at
                        reads.weight += 1
                kept.offer("t", "U-1", reads)
        except AssertionError as error:
            errors.append(error)

    def write() -> None:
        for _ in range(20):
            stamp[0] += 1
            time.sleep(0.002)

    threads = [threading.Thread(target=recall, args=(seed,)) for seed in range(4)]
    threads.append(threading.Thread(target=write))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    final = kept.begin("t", "U-1", lambda: stamp[0])
    assert all(count == words.index(word) * stamp[0] for word, count in final.counts.items())


def test_read_through_reads_what_is_missing_once_and_keeps_what_the_stamp_covers() -> None:
    kept = KeptLines()
    first = kept.begin("t", "U-1", lambda: 1)
    asked: list[list[int]] = []

    def texts(ids: list[int]) -> dict[int, tuple[str, str]]:
        asked.append(ids)
        return {i: ("U-1" if i % 2 else "U-2", f"text {i}") for i in ids if i != 4}

    def own(_: int, said: tuple[str, str]) -> int | None:
        return 1 if said[0] == "U-1" else None  # another subject's: not kept

    found = first.read_through(first.texts, [3, 1, 2, 4], texts, own)
    assert list(found) == [3, 1, 2] and asked == [[3, 1, 2, 4]] and first.weight == 2
    assert list(first.read_through(first.texts, [1, 5, 3], texts, own)) == [1, 5, 3]
    assert asked[-1] == [5] and first.weight == 3
    kept.offer("t", "U-1", first)
    kept.begin("t", "U-1", lambda: 1)
    later = kept.begin("t", "U-1", lambda: 1)
    assert list(later.read_through(later.texts, [1, 2, 3, 5], texts, own)) == [1, 2, 3, 5]
    assert asked[-1] == [2] and later.weight == 0


SAID = (
    "My favourite drink is tea",
    "I adopted a cat named Luna",
    "Luna is three years old",
    "I work at the Kalo bakery on Fir Street",
    "My favourite drink is coffee now",
    "We went camping near the river with Luna",
    "I moved to Lyon in March",
    "The bakery opens at 7 every morning",
    "Actually I moved to Grenoble, not Lyon",
    "My sister Ada painted a lake sunrise",
    "Luna is four years old now",
    "The bakery opens at 6 since the summer",
    "I ran a charity race last Saturday",
    "My favourite drink is green tea these days",
)
ASKED = (
    "what is my favourite drink?",
    "how old is Luna?",
    "where do I live?",
    "when does the bakery open?",
    "what did my sister paint?",
)


def test_recalls_between_writes_answer_as_a_memory_that_kept_nothing(
    clock: FakeClock, tmp_path
) -> None:
    """Each write carries what was kept over; the other handle, told of none, reads anew."""
    url = str(tmp_path / "kept.db")
    with (
        memlane.Memory(url, clock=clock, embedder="hash", indexing="inline") as mem,
        memlane.Memory(url, clock=clock, embedder="hash", indexing="inline") as fresh,
    ):
        for step, text in enumerate(SAID):
            turn = f"s1#{step // 2}"  # two notes of a turn: a later one cites it too
            mem.summaries.add_note("U-1", text, at=clock.now, provenance=(turn,))
            clock.advance(minutes=5)
            for question in ASKED[step % 2 :: 2]:
                kept = [(i.text, i.score) for i in mem.recall("U-1", question).items]
                anew = [(i.text, i.score) for i in fresh.recall("U-1", question).items]
                assert kept == anew, (step, question)
        assert mem._resources.lines._subjects["default", "U-1"].shelf.carries > 0


def test_an_added_note_citing_a_kept_turn_is_among_its_citers_and_sources(
    mem: memlane.Memory, clock: FakeClock
) -> None:
    line = "Caroline: I adopted a cat named Luna"
    mem.summaries.add_note("U-1", "I adopted a cat named Luna", at=clock.now, provenance=("s1#1",))
    mem.summaries.add_note("U-1", "I started pottery", at=clock.now, provenance=("s1#2",))

    def read() -> tuple[list[str], tuple[str, ...]]:
        data = mem.summaries.line_data("U-1", note_keys)
        index = StoredNoteIndex(data)
        index.prepare("luna", [([line], frozenset({"s1#1"}))])
        found = ([note.text for note in data.citing(["s1#1"])], index.sources(line))
        data.offer()
        return found

    read()
    read()  # proves the first one's reads: kept from here on
    clock.advance(minutes=1)
    mem.summaries.add_note("U-1", "Luna is my cat", at=clock.now, provenance=("s1#1",))
    citers, sources = read()
    assert citers == ["I adopted a cat named Luna", "Luna is my cat"]
    alone = StoredNoteIndex(LineData(store_of(mem), "default", "U-1"))  # keeps nothing
    alone.prepare("luna", [([line], frozenset({"s1#1"}))])
    assert sources == alone.sources(line)


def added(stamp: int, *words: str) -> KeysMoved:
    """A write of this process that added a note holding ``words``, moving the stamp there."""
    return KeysMoved("t", "U-1", stamp, {100 + stamp}, {("w", word) for word in words})


def test_a_shelf_is_carried_only_over_every_stamp_told_as_an_addition() -> None:
    kept = KeptLines()
    read(kept, 1, {"luna": 1, "pottery": 1})
    kept.begin("t", "U-1", lambda: 1)  # proves the offer
    kept.moved(added(2, "luna"))
    kept.moved(added(3, "camping"))
    assert dict(kept.begin("t", "U-1", lambda: 3).counts) == {"pottery": 1}
    kept.moved(added(5, "camping"))  # stamp 4 was another process's: never told
    assert dict(kept.begin("t", "U-1", lambda: 5).counts) == {}


def test_a_shelf_too_far_behind_or_carried_too_often_begins_anew(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    kept = KeptLines()
    read(kept, 1, {"pottery": 1})
    kept.begin("t", "U-1", lambda: 1)
    for stamp in range(2, 2 + CHANGES_KEPT + 1):
        kept.moved(added(stamp, "luna"))
    assert dict(kept.begin("t", "U-1", lambda: 2 + CHANGES_KEPT).counts) == {}  # one too many
    monkeypatch.setattr(sources_kept, "CARRIED_MOST", 2)
    stamp = 2 + CHANGES_KEPT
    read(kept, stamp, {"pottery": 1})
    for step in range(1, 4):
        kept.moved(added(stamp + step, "luna"))
        found = dict(kept.begin("t", "U-1", lambda step=step: stamp + step).counts)
        assert found == ({"pottery": 1} if step < 3 else {}), step


def kept_texts(kept: KeptLines, tenant: str, subject: str, ids: range) -> None:
    """Two recalls of the subject: the first's texts offered, then kept by the second."""
    reads = kept.begin(tenant, subject, lambda: 3)
    reads.texts.update({n: (subject, f"my locker code is {n}") for n in ids})
    reads.weight += len(ids)
    kept.offer(tenant, subject, reads)
    kept.begin(tenant, subject, lambda: 3)


def test_a_dropped_subject_keeps_nothing_and_the_others_keep_theirs() -> None:
    """After a forget (one subject) or a purge (a tenant), nothing of their texts is kept."""
    kept = KeptLines(kept_ids=12)
    kept_texts(kept, "t", "U-1", range(5))
    kept_texts(kept, "t", "U-2", range(5))
    kept_texts(kept, "u", "U-1", range(1))
    kept.drop("t", "U-1")
    assert kept.begin("t", "U-1", lambda: 3).texts == {}
    kept_texts(kept, "t", "U-3", range(5))  # fits only if what U-1 weighed was let go
    assert len(kept.begin("t", "U-2", lambda: 3).texts) == 5
    kept.drop("t")
    assert kept.begin("t", "U-2", lambda: 3).texts == {}
    assert kept.begin("t", "U-3", lambda: 3).texts == {}
    assert len(kept.begin("u", "U-1", lambda: 3).texts) == 1  # another tenant's stay
