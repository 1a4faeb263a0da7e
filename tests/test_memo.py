"""Per-recall memos: the same answers as the plain functions, and nothing kept after a recall."""

from __future__ import annotations

from typing import Any

import pytest

import memlane
from memlane.lang.changes import only_retracts, retractions, street_addresses, switched_parts
from memlane.lang.words import salient_terms
from memlane.memo import (
    KEPT_PER_FUNCTION,
    bulk_work,
    forget_process_memos,
    in_scope,
    per_process,
    per_recall,
    recall_scope,
)
from memlane.router.slots import clauses
from memlane.summaries.text import normalize_for_dedupe
from tests.conftest import FakeClock

TEXTS = (
    "No car anymore — I take the train in every day",
    "Send to 9 Mill Lane from now on",
    "Always give me an aisle seat",
    "a window seat from now on",
    "我离开华为了",
    "  I moved to Beijing!! ",
)


def test_kept_only_inside_a_scope() -> None:
    calls: list[str] = []

    @per_recall
    def shout(text: str) -> str:
        calls.append(text)
        return text.upper()

    assert shout("a") == shout("a") == "A" and len(calls) == 2  # no scope: computed each time
    with recall_scope():
        assert in_scope()
        with recall_scope():  # a scope inside one reuses it
            assert shout("a") == "A"
        assert shout("a") == "A" and shout("b") == "B"
    assert not in_scope()
    assert calls == ["a", "a", "a", "b"]
    shout("a")  # the scope ended: nothing of it is kept
    assert calls[-1] == "a" and len(calls) == 5


def test_keyword_and_unhashable_calls_are_computed() -> None:
    calls: list[object] = []

    @per_recall
    def size(items: object, extra: int = 0) -> int:
        calls.append(items)
        return len(items) + extra  # type: ignore[arg-type]

    with recall_scope():
        assert size([1, 2]) == size([1, 2]) == 2
        assert size((1,), extra=1) == size((1,), extra=1) == 2
    assert len(calls) == 4


def _answers(text: str) -> tuple[object, ...]:
    """What each memoized text function answers for ``text``."""
    return (
        only_retracts(text, ("Ann",)),
        retractions(text),
        street_addresses(text),
        switched_parts(text, ("Ann",)),
        salient_terms(text),
        normalize_for_dedupe(text),
    )


def test_memoized_text_functions_answer_as_outside_a_scope() -> None:
    outside = [_answers(t) for t in TEXTS]
    with recall_scope():
        for _ in range(2):
            assert [_answers(t) for t in TEXTS] == outside


def test_a_forget_between_recalls_is_seen(clock: FakeClock) -> None:
    with memlane.Memory(":memory:", clock=clock, embedder="hash") as mem:
        mem.remember("U-1", "I drive to work most days")
        mem.remember("U-1", "No car anymore, I take the train in every day")
        first = mem.recall("U-1", "how do I get to work?")
        assert any("train" in item.text for item in first.items)
        assert not in_scope()
        mem.forget("U-1")
        assert mem.recall("U-1", "how do I get to work?").items == []


def test_a_recall_runs_in_a_scope_of_its_own(
    clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memlane.router import executor

    seen: list[bool] = []
    analyze = executor.analyze

    def watched(*args: Any, **kwargs: Any) -> Any:
        seen.append(in_scope())
        return analyze(*args, **kwargs)

    monkeypatch.setattr(executor, "analyze", watched)
    with memlane.Memory(":memory:", clock=clock, embedder="hash") as mem:
        mem.recall("U-1", "how do I get to work?")
    assert seen == [True] and not in_scope()


def test_text_functions_kept_for_the_process_are_computed_once_across_recalls() -> None:
    """What judging asks of each recalled clause and text recall after recall: read once."""
    from memlane.router.refilling import kind_chains
    from memlane.router.takeback import values_by_kind

    asked = [
        (kind_chains, ("my team is arsenal",)),
        (values_by_kind, ("call me at 555-0100",)),
        (only_retracts, ("Not Bex anymore", ("Ann",))),
    ]
    for function, arguments in asked:
        function.cache_clear()  # type: ignore[attr-defined]
        answers = []
        for _ in range(2):
            with recall_scope():
                answers.append(function(*arguments))  # type: ignore[operator]
        assert answers[0] == answers[1]
        assert function.cache_info().misses == 1  # type: ignore[attr-defined]


def test_every_cache_of_the_process_keeps_a_bounded_number_of_answers() -> None:
    """However many notes a process keyed and recalled, what its caches hold stays bounded:
    each full garbage collection walks all of it (~200 ms once 10^5 notes had been keyed with
    32,768 answers kept per function). A cache of a function of few arguments (a language's
    patterns) may be unbounded; one of a function of texts may not keep more than the bound."""
    import importlib
    import pkgutil

    kept: dict[str, int | None] = {}
    for module in pkgutil.walk_packages(memlane.__path__, "memlane."):
        if module.name.startswith(("memlane.server", "memlane.integrations", "memlane.bench")):
            continue  # optional dependencies; no text cache there
        for name, value in vars(importlib.import_module(module.name)).items():
            info = getattr(value, "cache_info", None)
            if callable(info) and getattr(value, "__module__", None) == module.name:
                kept[f"{module.name}.{name}"] = info().maxsize
    texts = {name for name in kept if name.endswith((".claims", ".clauses", "._index"))}
    assert len(texts) == 3 and all(kept[name] == KEPT_PER_FUNCTION for name in texts)
    too_many = {name: size for name, size in kept.items() if (size or 0) > KEPT_PER_FUNCTION}
    assert not too_many


def test_forget_process_memos_empties_every_memo_of_the_process() -> None:
    """A forget or a purge calls it: the memos are keyed by the texts recalls asked about."""

    @per_process
    def words(text: str) -> tuple[str, ...]:
        return tuple(text.split())

    @per_process(most=2)
    def length(text: str) -> int:
        return len(text)

    for text in ("my locker code is 4417", "my team is arsenal", "since monday"):
        words(text)
        length(text)
    assert words.cache_info().currsize == 3  # type: ignore[attr-defined]
    assert length.cache_info().currsize == 2  # type: ignore[attr-defined]
    assert clauses("The chair is Ada. The fee is 12.")  # one of memlane's own

    forget_process_memos()

    for memo in (words, length, clauses):
        assert memo.cache_info().currsize == 0  # type: ignore[attr-defined]


def test_a_memo_that_bulk_work_filled_is_emptied_after_it_and_one_it_barely_used_is_not() -> None:
    """An import's text work would otherwise stay as live entries the collector walks."""

    @per_process(most=4)
    def filled(text: str) -> int:
        return len(text)

    @per_process(most=4)
    def barely(text: str) -> int:
        return len(text)

    barely("kept from a recall")
    with bulk_work():
        for number in range(4):
            filled(f"note {number}")
        barely("one note")
        assert filled.cache_info().currsize == 4  # type: ignore[attr-defined]
    assert filled.cache_info().currsize == 0  # type: ignore[attr-defined]
    assert barely.cache_info().currsize == 2  # type: ignore[attr-defined]
    with pytest.raises(RuntimeError), bulk_work():
        for number in range(4):
            filled(f"note {number}")
        raise RuntimeError("the import failed")
    assert filled.cache_info().currsize == 0  # type: ignore[attr-defined]


def test_add_notes_does_its_text_work_as_bulk_work(
    clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    import memlane.memo as memo_module

    blocks: list[str] = []
    real = memo_module.bulk_work

    def recorded() -> Any:
        blocks.append("bulk")
        return real()

    monkeypatch.setattr(memo_module, "bulk_work", recorded)
    with memlane.Memory(":memory:", clock=clock, embedder="hash") as mem:
        mem.summaries.add_note("U-1", "I moved to Lyon", at=clock.now)
        assert blocks == []
        mem.summaries.add_notes([{"subject": "U-1", "text": "I moved to Paris", "at": clock.now}])
        assert blocks == ["bulk"]
