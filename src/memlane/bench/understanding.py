"""``memlane bench understanding``: does memlane understand what it was told?

Replays a data set in the format of ``shared/data/understanding`` (cases of events and
questions, Chinese and English; schema in that folder's README) the way its README
suggests, and scores every question:

* ``expect: answer`` passes when the top item holds a gold string, and (state changes,
  retractions) no item holding a superseded value without a gold one is served as
  ``current``;
* ``expect: nothing`` passes when no memory item comes back, or when the top item holds
  none of the near misses (``wrong``) — the strict reading; a question about an identifier
  nobody holds must return nothing at all.

Besides the pass rate per category and language it counts ``wrong_exact`` (the top item is
an exact-lane fact holding a wrong value: an exact answer that is wrong) and, for
knowledge updates, ``stale_at_1`` (the top item holds a superseded value).

Each case gets a fresh in-memory ``Memory`` whose clock follows the events, so transaction
times are the times things were said.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memlane.bench.report import Results, percentile
from memlane.embed import Embedder, make_embedder
from memlane.errors import InvalidInput
from memlane.router.model import Recall, RecallItem

if TYPE_CHECKING:
    from memlane.memory import Memory
    from memlane.session import Session

_DIGITY = re.compile(r"^[\d\s\-+().]+$")
_MIN_PHONE_DIGITS = 7
_NOT_DIGIT = re.compile(r"\D")


def matches(needle: str, text: str) -> bool:
    """The data set's scoring rule: NFKC + casefold substring; phones compare digits."""
    n, t = _norm(needle), _norm(text)
    if n in t:
        return True
    if _DIGITY.match(n) and sum(ch.isdigit() for ch in n) >= _MIN_PHONE_DIGITS:
        return _NOT_DIGIT.sub("", n) in _NOT_DIGIT.sub("", t)
    return False


def _norm(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def _holds(item: RecallItem, needles: Iterable[str]) -> bool:
    return any(matches(needle, item.text) for needle in needles)


@dataclass(frozen=True)
class Verdict:
    """How one question went."""

    case: str
    category: str
    lang: str
    question: str
    passed: bool
    wrong_exact: bool
    stale_at_1: bool
    top: str | None
    gold: tuple[str, ...] = ()
    wrong: tuple[str, ...] = ()
    served: tuple[str, ...] = ()
    """The items recalled, best first, as ``lane/status: text`` (for reading failures)."""


_SERVED = 5
"""How many recalled items a failure report shows."""


def judge(case: dict[str, Any], question: dict[str, Any], recall: Recall) -> Verdict:
    """Score one question's recall (see the module docstring)."""
    items = recall.items
    gold, wrong = question["gold"], question["wrong"]
    top = items[0] if items else None
    wrong_exact = top is not None and top.lane == "exact" and _holds(top, wrong)
    stale_at_1 = top is not None and _holds(top, wrong) and not _holds(top, gold)
    if question["expect"] == "nothing":
        unknown_id = case["category"] == "identifiers"
        passed = (not items) if unknown_id else (top is None or not _holds(top, wrong))
    else:
        passed = top is not None and _holds(top, gold)
        if case["category"] in ("state_changes", "retractions"):
            passed = passed and not any(
                i.status == "current" and _holds(i, wrong) and not _holds(i, gold) for i in items
            )
    return Verdict(
        case=case["id"],
        category=case["category"],
        lang=case["lang"],
        question=question["text"],
        passed=passed,
        wrong_exact=wrong_exact,
        stale_at_1=stale_at_1,
        top=None if top is None else top.text,
        gold=tuple(gold),
        wrong=tuple(wrong),
        served=tuple(f"{i.lane}/{i.status}: {i.text}" for i in items[:_SERVED]),
    )


class _Clock:
    def __init__(self) -> None:
        self.now = datetime.fromisoformat("2000-01-01T00:00:00+00:00")

    def __call__(self) -> datetime:
        return self.now


def feed(mem: Memory, events: Iterable[dict[str, Any]], clock: _Clock | None = None) -> None:
    """Replay a case's events into ``mem``, in order; every session is closed at the end.

    A session closes when its subject starts another one. ``clock`` (if given) follows the
    events' times, so what the memory learns is stamped when it was said.
    """
    running: dict[str, Session] = {}
    for event in events:
        if clock is not None:
            clock.now = max(clock.now, datetime.fromisoformat(event["at"]))
        subject = event["subject"]
        if event["via"] == "remember":
            mem.remember(subject, event["text"], at=event["at"])
            continue
        session = running.get(subject)
        if session is not None and session.session_id != event["session_id"]:
            session.close()
            session = None
        if session is None:
            session = running[subject] = mem.session(subject, event["session_id"])
        session.add(event["role"], event["text"], at=event["at"])
    for session in running.values():
        session.close()


def replay(case: dict[str, Any], embedder: Embedder) -> list[tuple[dict[str, Any], Recall]]:
    """Replay one case into a fresh memory and ask its questions."""
    from memlane import Memory

    clock = _Clock()
    answers = []
    with Memory(":memory:", clock=clock, embedder=embedder) as mem:
        feed(mem, case["events"], clock)
        mem.index.wait()  # retrieval quality is measured with everything embedded
        for question in case["questions"]:
            clock.now = max(clock.now, datetime.fromisoformat(question["at"]))
            recall = mem.recall(
                question["subject"], question["text"], valid_at=question.get("valid_at")
            )
            answers.append((question, recall))
    return answers


def run(
    data: Path,
    *,
    embedder_spec: str | None = None,
    categories: tuple[str, ...] = (),
    progress: Callable[[str], None] = lambda _: None,
    failures_out: Path | None = None,
) -> Results:
    """Replay every case of ``data`` and score it; optionally write the failures as JSON."""
    try:
        cases = json.loads(data.read_text(encoding="utf-8"))["cases"]
    except (OSError, ValueError, KeyError) as error:
        raise InvalidInput("data", f"not an understanding data set: {error}") from error
    if categories:
        cases = [c for c in cases if c["category"] in categories]
    embedder = make_embedder(embedder_spec)
    verdicts: list[Verdict] = []
    latencies: list[float] = []
    for number, case in enumerate(cases, 1):
        for question, recall in replay(case, embedder):
            verdicts.append(judge(case, question, recall))
            latencies.append(recall.ms)
        if number % 25 == 0:
            progress(f"{number}/{len(cases)} cases")
    results = Results(
        "understanding",
        {"data": str(data), "embedder": embedder_spec or "default", "cases": len(cases)},
    )
    _tabulate(results, verdicts)
    results.put("all", "recall_p50_ms", "all", percentile(latencies, 0.5))
    if failures_out is not None:
        failed = [v.__dict__ for v in verdicts if not v.passed or v.wrong_exact]
        failures_out.write_text(json.dumps(failed, ensure_ascii=False, indent=1), "utf-8")
    return results


def _tabulate(results: Results, verdicts: list[Verdict]) -> None:
    """One row per category (and ``all``), one column per language (and ``all``)."""
    totals: Counter[tuple[str, str]] = Counter()
    passed: Counter[tuple[str, str]] = Counter()
    for v in verdicts:
        for key in ((v.category, v.lang), (v.category, "all"), ("all", v.lang), ("all", "all")):
            totals[key] += 1
            passed[key] += v.passed
    for category, lang in sorted(totals, key=lambda key: (key[0] == "all", key)):
        share = passed[category, lang] / totals[category, lang]
        results.put(category, "pass_rate", lang, share)
    for category, lang in sorted(totals):
        if lang == "all":
            results.put(category, "questions", lang, totals[category, lang])
    results.put("all", "wrong_exact", "all", sum(v.wrong_exact for v in verdicts))
    updates = [v for v in verdicts if v.category == "knowledge_updates"]
    if updates:
        stale = sum(v.stale_at_1 for v in updates) / len(updates)
        results.put("knowledge_updates", "stale_at_1", "all", stale)
