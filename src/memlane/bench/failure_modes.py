"""``memlane bench failure-modes``: the three failures of vector-only memory, at scale.

A seeded generator writes, for ``scale`` users (even users speak Chinese, odd ones English):

* **identifiers**: one phone number and one order id each, numbered so that neighbours
  differ in one digit; asked "用户 138-0000-1234 的订单号是多少" / "what is the order number
  of the user with phone 138-0000-1235?" with no subject given;
* **moves**: a rich statement of where the user lives, one of where they work, and, months
  later, "I moved to Denver last week" (so the move is recorded days after it happened);
  asked "where does the user live now?" / "用户以前住在哪里?" (the past one with
  ``valid_at``), the subject given to every system; the user id stays out of the query
  text because its digits would lexically match the user's phone statement and skew the
  baselines;
* **preferences**: a favourite team that changes two or three times, plus a near-identical
  statement about someone else's favourite team; asked for the favourite now and then.

Every system sees the same statements in the same order and uses the same embedder:

* ``memlane``: each statement goes through ``Memory.remember(subject, text, at=...)`` with
  the clock at the time it was said (the way an agent stores what it was told), so facts
  are extracted by memlane itself; queries go through ``Memory.recall``.
* ``flat-vector``: top-k cosine over the raw statements (:class:`FlatVectorIndex`).
* ``bm25``: BM25 over the raw statements (:class:`BM25Index`).
* ``mem0`` (``--with-mem0``, only when ``mem0ai`` is installed): see
  :mod:`memlane.bench.mem0_adapter`.

Baselines get the same scoping memlane gets: the asked user's statements (a metadata filter)
when the subject is known, the whole store for identifier questions. They cannot read
``valid_at``, which is part of what is measured.

Scoring, per question, over the top ``k`` hits (memlane: ``r.items``; a hit is *claimed
current* unless memlane marked it ``stale`` or ``historical``):

* ``accuracy_at_1``: the first hit carries the expected value and is claimed current;
* ``stale_rate``: the first hit is claimed current but carries a confusable value instead
  of the expected one: the superseded (or, for a past question, the later) state, or the
  order id of a user whose phone differs in one digit;
* ``conflict_rate``: the expected value and a confusable one are both claimed current in
  the top ``k``;
* ``inversion_rate``: both are claimed current and the confusable one ranks higher;
* ``recall_p50_ms`` / ``recall_p99_ms``: the latency of one question.
"""

from __future__ import annotations

import random
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Protocol

from memlane.bench.baselines import BM25Index, FlatVectorIndex
from memlane.bench.plots import grouped_bars
from memlane.bench.report import Results, percentile
from memlane.embed import Embedder, make_embedder
from memlane.errors import InvalidInput
from memlane.memory import Memory

MODES = ("identifiers", "moves", "preferences")
BASE = datetime(2025, 1, 1, 10, tzinfo=UTC)
ASKED_AT = BASE + timedelta(days=500)
CITIES = {
    "zh": ("上海", "北京", "杭州", "深圳", "广州", "成都", "南京", "武汉", "西安", "重庆"),
    "en": ("Boston", "Denver", "Chicago", "Seattle", "Austin", "Atlanta", "Phoenix", "Dallas"),
}
TEAMS = {
    "zh": ("湖人", "勇士", "凯尔特人", "热火", "公牛", "马刺", "火箭", "尼克斯"),
    "en": ("Arsenal", "Chelsea", "Liverpool", "Everton", "Fulham", "Brentford", "Burnley"),
}

METRICS = (
    "accuracy_at_1",
    "accuracy_now",
    "accuracy_past",
    "accuracy_zh",
    "accuracy_en",
    "stale_rate",
    "conflict_rate",
    "inversion_rate",
    "recall_p50_ms",
    "recall_p99_ms",
    "questions",
)
"""The rows of the table, per system, in this order; one column per mode."""

# A hit: the text that carries its value, and whether the system presents it as current.
Hit = tuple[str, bool]


@dataclass(frozen=True, slots=True)
class Statement:
    """One thing a user said, when they said it."""

    doc_id: str
    subject: str
    text: str
    at: datetime


@dataclass(frozen=True, slots=True)
class Case:
    """One question, its expected value and the confusable values that would be wrong."""

    mode: str
    lang: str
    subject: str | None
    query: str
    expected: str
    confusable: tuple[str, ...]
    valid_at: datetime | None = None


@dataclass(slots=True)
class Dataset:
    """The statements (in the order they were said) and the questions."""

    statements: list[Statement]
    cases: list[Case]


def phone(i: int) -> str:
    """User ``i``'s phone; users ``i`` and ``i ± 10^p`` differ in one digit."""
    return f"138-{i // 10_000:04d}-{i % 10_000:04d}"


def order(i: int) -> str:
    """User ``i``'s order id (fixed width, so no id is a substring of another)."""
    return f"ORD-{7_000_000 + i:07d}"


def subject_id(i: int) -> str:
    """User ``i``'s subject id."""
    return f"U-{i:06d}"


def one_digit_neighbours(i: int, scale: int) -> list[int]:
    """Users whose phone number differs from user ``i``'s in exactly one digit."""
    found = []
    for power in range(8):
        place = 10**power
        digit = (i // place) % 10
        for other in range(10):
            j = i + (other - digit) * place
            if other != digit and 0 <= j < scale:
                found.append(j)
    return found


def generate(scale: int, *, seed: int = 0, questions: int | None = None) -> Dataset:
    """The statements of ``scale`` users and questions about ``questions`` of them per mode."""
    if isinstance(scale, bool) or not isinstance(scale, int) or not 2 <= scale <= 10**6:
        raise InvalidInput("scale", f"must be 2 to 1,000,000 users, got {scale!r}")
    if questions is not None and (
        isinstance(questions, bool) or not isinstance(questions, int) or questions < 1
    ):
        raise InvalidInput("questions", f"must be a positive number of users, got {questions!r}")
    rng = random.Random(seed)
    statements: list[Statement] = []
    cases: list[Case] = []
    # Its own generator, so that asking fewer questions never changes the statements.
    picker = random.Random(seed + 1_000_003)
    asked = set(picker.sample(range(scale), min(scale, questions or scale)))
    for i in range(scale):
        lang = "zh" if i % 2 == 0 else "en"
        said: list[tuple[str, datetime]] = []
        user_cases: list[Case] = []
        _identity(i, scale, lang, rng, said, user_cases)
        _moves(i, lang, rng, said, user_cases)
        _preferences(i, lang, rng, said, user_cases)
        statements.extend(
            Statement(f"{subject_id(i)}#{n}", subject_id(i), text, at)
            for n, (text, at) in enumerate(said)
        )
        if i in asked:
            cases.extend(user_cases)
    statements.sort(key=lambda s: s.at)
    return Dataset(statements, cases)


def _day(rng: random.Random, start: datetime, low: int, high: int) -> datetime:
    return start + timedelta(days=rng.randint(low, high))


def _identity(
    i: int,
    scale: int,
    lang: str,
    rng: random.Random,
    said: list[tuple[str, datetime]],
    cases: list[Case],
) -> None:
    text = (
        f"我的手机号是 {phone(i)}，订单号是 {order(i)}"
        if lang == "zh"
        else f"My phone number is {phone(i)} and my order number is {order(i)}"
    )
    said.append((text, _day(rng, BASE, 0, 30)))
    query = (
        f"用户 {phone(i)} 的订单号是多少"
        if lang == "zh"
        else f"what is the order number of the user with phone {phone(i)}?"
    )
    others = tuple(order(j) for j in one_digit_neighbours(i, scale))
    cases.append(Case("identifiers", lang, None, query, order(i), others))


def _moves(
    i: int, lang: str, rng: random.Random, said: list[tuple[str, datetime]], cases: list[Case]
) -> None:
    old, work, new = rng.sample(CITIES[lang], 3)
    lived = _day(rng, BASE, 100, 130)
    moved = _day(rng, lived, 60, 120)
    told = moved + timedelta(days=7)  # "last week": the move is recorded days later
    if lang == "zh":
        said += [
            (f"我住在{old}，离公司很近，周末常去江边散步", lived),
            (f"我在{work}工作", _day(rng, lived, 1, 10)),
            (f"我上周搬到{new}了", told),
        ]
        now, before = "用户现在住在哪里?", "用户以前住在哪里?"
    else:
        said += [
            (f"I live in {old}, close to the office, and I walk by the river on weekends", lived),
            (f"I work in {work}", _day(rng, lived, 1, 10)),
            (f"I moved to {new} last week", told),
        ]
        now, before = "where does the user live now?", "where did the user live before?"
    past = lived + (moved - lived) / 2
    cases.append(Case("moves", lang, subject_id(i), now, new, (old,)))
    cases.append(Case("moves", lang, subject_id(i), before, old, (new,), past))


def _preferences(
    i: int, lang: str, rng: random.Random, said: list[tuple[str, datetime]], cases: list[Case]
) -> None:
    changes = rng.choice((2, 3))
    *teams, other = rng.sample(TEAMS[lang], changes + 1)
    when = [_day(rng, BASE, 40, 60)]
    for _ in range(changes - 1):
        when.append(_day(rng, when[-1], 30, 60))
    if lang == "zh":
        texts = [f"我最喜欢的球队是{teams[0]}"] + [f"我最喜欢的球队现在是{t}" for t in teams[1:]]
        noise = f"我朋友最喜欢的球队是{other}"
        now, then = "用户最喜欢的球队是哪个?", "用户当时最喜欢的球队是哪个?"
    else:
        texts = [f"My favourite team is {teams[0]}"] + [
            f"My favourite team is now {t}" for t in teams[1:]
        ]
        noise = f"My brother's favourite team is {other}"
        now, then = "what is the user's favourite team?", "what was the user's favourite team?"
    said += list(zip(texts, when, strict=True))
    said.append((noise, _day(rng, when[0], 5, 20)))
    past = when[0] + (when[1] - when[0]) / 2
    cases.append(Case("preferences", lang, subject_id(i), now, teams[-1], tuple(teams[:-1])))
    cases.append(Case("preferences", lang, subject_id(i), then, teams[0], tuple(teams[1:]), past))


class System(Protocol):
    """A memory under test: it ingests the statements, then answers questions."""

    name: str

    def ingest(self, statements: Sequence[Statement]) -> None:
        """Store every statement, in order."""

    def ask(self, case: Case, k: int) -> list[Hit]:
        """The top ``k`` hits for one question."""


class MemlaneSystem:
    """memlane through its public API: ``remember`` to store, ``recall`` to read."""

    name = "memlane"

    def __init__(self, embedder: Embedder, path: str | Path = ":memory:") -> None:
        """A fresh memory at ``path`` using ``embedder``."""
        self._now = BASE
        self.memory = Memory(path, embedder=embedder, clock=lambda: self._now)

    def ingest(self, statements: Sequence[Statement]) -> None:
        """``remember`` each statement with the clock at the moment it was said."""
        for statement in statements:
            self._now = max(self._now, statement.at)
            self.memory.remember(statement.subject, statement.text, at=statement.at)
        self.memory.index.wait()  # retrieval quality is measured with everything embedded
        self._now = ASKED_AT

    def ask(self, case: Case, k: int) -> list[Hit]:
        """``recall``; fact items carry their value, stale and historical ones are flagged."""
        recalled = self.memory.recall(case.subject, case.query, k=k, valid_at=case.valid_at)
        return [
            (
                f"{item.fact.value if item.fact is not None else ''} {item.text}",
                item.status == "current",
            )
            for item in recalled.items
        ]

    def close(self) -> None:
        """Close the memory."""
        self.memory.close()


class Index(Protocol):
    """What :class:`IndexSystem` needs of a baseline index."""

    def add(self, doc_id: str, text: str) -> None:
        """Add one document."""

    def search(
        self, query: str, k: int, among: Sequence[str] | None = None
    ) -> list[tuple[str, float]]:
        """The best ``k`` documents."""


class IndexSystem:
    """A raw-statement baseline: every hit is presented as current, nothing is judged."""

    def __init__(self, name: str, index: Index) -> None:
        """Wrap ``index`` under ``name``."""
        self.name = name
        self.index = index
        self._texts: dict[str, str] = {}
        self._by_subject: dict[str, list[str]] = {}

    def ingest(self, statements: Sequence[Statement]) -> None:
        """Add every statement; remember whose it is for the subject filter."""
        for statement in statements:
            self.index.add(statement.doc_id, statement.text)
            self._texts[statement.doc_id] = statement.text
            self._by_subject.setdefault(statement.subject, []).append(statement.doc_id)

    def ask(self, case: Case, k: int) -> list[Hit]:
        """Search the subject's statements (all of them for identifier questions)."""
        among = None if case.subject is None else self._by_subject.get(case.subject, [])
        return [(self._texts[doc], True) for doc, _ in self.index.search(case.query, k, among)]


@dataclass(slots=True)
class Tally:
    """Counts for one (system, mode)."""

    asked: int = 0
    correct: int = 0
    stale: int = 0
    conflicts: int = 0
    inversions: int = 0
    by_lang: dict[str, list[int]] = field(default_factory=dict)
    by_time: dict[str, list[int]] = field(default_factory=dict)
    latencies_ms: list[float] = field(default_factory=list)

    def add(self, case: Case, hits: list[Hit], ms: float) -> None:
        """Score one answer."""
        verdict = judge(case, hits)
        self.asked += 1
        self.correct += verdict.correct
        self.stale += verdict.stale
        self.conflicts += verdict.conflict
        self.inversions += verdict.inversion
        self.latencies_ms.append(ms)
        for table, key in ((self.by_lang, case.lang), (self.by_time, _when(case))):
            counts = table.setdefault(key, [0, 0])
            counts[0] += verdict.correct
            counts[1] += 1

    def metrics(self) -> dict[str, float]:
        """The rates and latencies of this tally, by metric name."""
        asked = self.asked or 1
        found = {
            "accuracy_at_1": self.correct / asked,
            "stale_rate": self.stale / asked,
            "conflict_rate": self.conflicts / asked,
            "inversion_rate": self.inversions / asked,
            "questions": float(self.asked),
        }
        for key, (hit, total) in (self.by_time | self.by_lang).items():
            found[f"accuracy_{key}"] = hit / total
        if self.latencies_ms:
            found["recall_p50_ms"] = percentile(self.latencies_ms, 0.5)
            found["recall_p99_ms"] = percentile(self.latencies_ms, 0.99)
        return found


def _when(case: Case) -> str:
    return "now" if case.valid_at is None else "past"


@dataclass(frozen=True, slots=True)
class Verdict:
    """How one answer scored."""

    correct: bool
    stale: bool
    conflict: bool
    inversion: bool


def _carries(text: str, values: Sequence[str]) -> bool:
    folded = text.casefold()
    return any(value.casefold() in folded for value in values)


def judge(case: Case, hits: list[Hit]) -> Verdict:
    """Score the top-k ``hits`` for ``case`` (see the module docstring)."""
    current = [text for text, is_current in hits if is_current]
    right = [n for n, text in enumerate(current) if _carries(text, (case.expected,))]
    wrong = [n for n, text in enumerate(current) if _carries(text, case.confusable)]
    first_ok = bool(hits) and hits[0][1]
    correct = first_ok and _carries(hits[0][0], (case.expected,))
    stale = first_ok and not correct and _carries(hits[0][0], case.confusable)
    conflict = bool(right) and bool(wrong)
    return Verdict(correct, stale, conflict, conflict and wrong[0] < right[0])


def run(
    *,
    scale: int,
    embedder_spec: str | None = None,
    k: int = 5,
    questions: int | None = None,
    seed: int = 0,
    with_mem0: bool = False,
    workdir: str | Path | None = None,
    progress: Callable[[str], None] = print,
) -> Results:
    """Generate the data, load every system, ask every question, tally the metrics."""
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= 100:
        raise InvalidInput("k", f"must be 1 to 100, got {k!r}")
    data = generate(scale, seed=seed, questions=questions)
    embedder = make_embedder(embedder_spec)
    params = {
        "scale": scale,
        "statements": len(data.statements),
        "questions": len(data.cases),
        "k": k,
        "seed": seed,
        "embedder": embedder.name,
    }
    results = Results("failure-modes", params)
    with ExitStack() as stack:
        folder = Path(workdir) if workdir else Path(stack.enter_context(_tempdir()))
        folder.mkdir(parents=True, exist_ok=True)
        systems = list(_systems(embedder, folder, with_mem0, stack, progress))
        for system in systems:
            started = time.perf_counter()
            system.ingest(data.statements)
            seconds = time.perf_counter() - started
            progress(
                f"{system.name}: ingested {len(data.statements):,} statements in {seconds:.1f}s"
            )
            results.put(system.name, "ingest_per_s", "all", len(data.statements) / seconds)
            _measure(results, system, data.cases, k)
    return results


def _systems(
    embedder: Embedder,
    folder: Path,
    with_mem0: bool,
    stack: ExitStack,
    progress: Callable[[str], None],
) -> Iterator[System]:
    memlane = MemlaneSystem(embedder, folder / "memlane.db")
    stack.callback(memlane.close)
    yield memlane
    yield IndexSystem("flat-vector", FlatVectorIndex(embedder))
    yield IndexSystem("bm25", BM25Index())
    if with_mem0:
        from memlane.bench.mem0_adapter import Mem0System, mem0_unavailable

        reason = mem0_unavailable()
        if reason is not None:
            progress(f"mem0: skipped ({reason})")
            return
        mem0 = Mem0System(embedder, folder / "mem0")
        stack.callback(mem0.close)
        yield mem0


@contextmanager
def _tempdir() -> Iterator[str]:
    with tempfile.TemporaryDirectory(prefix="memlane-failure-modes-") as name:
        yield name


def _measure(results: Results, system: System, cases: Sequence[Case], k: int) -> None:
    tallies = {mode: Tally() for mode in MODES}
    if cases:
        system.ask(cases[0], k)  # warm-up: first-use costs (caches, model load) are not recall
    for case in cases:
        started = time.perf_counter_ns()
        hits = system.ask(case, k)
        elapsed = (time.perf_counter_ns() - started) / 1e6
        tallies[case.mode].add(case, hits, elapsed)
    rows = {mode: tally.metrics() for mode, tally in tallies.items() if tally.asked}
    for metric in METRICS:
        for mode, values in rows.items():
            if metric in values:
                results.put(system.name, metric, mode, values[metric])


def plot(results: Results, path: str | Path) -> bool:
    """Draw accuracy, stale and conflict rates per mode; ``False`` when matplotlib is missing."""
    return grouped_bars(
        results,
        ("accuracy_at_1", "stale_rate", "conflict_rate"),
        MODES,
        path,
        title=f"failure modes at scale {results.params['scale']:,}",
    )
