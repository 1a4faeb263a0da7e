"""``memlane bench locomo``: recall on LoCoMo against plain retrieval baselines.

Each conversation is replayed through the session API with
:func:`memlane.bench.summaries.replay` (one subject per conversation, one session per
LoCoMo session, turns in order at the session's date, sessions closed), then the memory
file is reopened as of the conversation's end and every question is asked through
``mem.recall``. Turn ``n`` of session ``S`` is memlane turn ``"<subject>-S<S>#<n>"`` and
LoCoMo turn ``"D<S>:<n>"``. A turn that shared an image is said as
``"text [shared an image: caption]"``, to memlane and to the baselines alike.

Two scores, per LoCoMo category and overall (categories 1–4):

* evidence recall at ``k`` turns: recall's ranked items are expanded into their provenance
  turns in rank order, deduplicated and cut at ``k`` (an item covering many turns spends
  that many of the ``k``) → turn recall@k, turn hit@k and session recall@k;
* answer recall at equal context: does ``r.text`` at ``budget_tokens=B`` contain the
  normalized gold answer, against each baseline's top turns joined up to the same ``B``
  tokens (:func:`~memlane.summaries.text.estimate_tokens`).

Baselines, same data and embedder: flat vector retrieval over turns, BM25 over turns and
their reciprocal-rank fusion. Category 5 (adversarial: the answer was never said) is
reported apart, as abstention: how often nothing comes back, and how often the context
carries the adversarial answer.

With ``questions=`` a list, one :class:`QuestionRecord` per question asked is appended to
it (``memlane bench locomo --questions FILE`` writes them as JSON lines), so two trees can
be compared question by question.
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from memlane.bench.baselines import BM25Index, FlatVectorIndex
from memlane.bench.locomo_data import Conversation, LocomoQuestion, load_conversations
from memlane.bench.locomo_metrics import (
    ANSWERLESS_WORDS,
    WORDS,
    answer_token_recall,
    contains_answer,
    expand_turns,
    fill_budget,
    session_recall,
    turn_hit,
    turn_recall,
)
from memlane.bench.plots import grouped_bars
from memlane.bench.report import Results
from memlane.bench.summaries import TURN_GAP, Dialogue, DialogueSession, replay
from memlane.embed import Embedder, make_embedder
from memlane.errors import InvalidInput
from memlane.extract import RuleExtractor
from memlane.memory import Memory
from memlane.router import Recall
from memlane.summaries.offline import OfflineSummarizer

SYSTEM = "memlane"
BASELINES = ("vector", "bm25", "bm25+vector-rrf")
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
ADVERSARIAL = 5
KS = (1, 5, 10)
BUDGETS = (200, 500, 1000)
ITEMS_PER_TOKENS = 10
"""memlane is asked for ``B / 10`` items (at least 20), enough to fill ``B`` tokens."""
MIN_ITEMS = 20
RRF_K = 60
BM25_K1 = 1.2
BM25_B = 0.75
EMBED_BATCH = 32

Progress = Callable[[str], None]
Ranker = Callable[[str], list[int]]

# -- baselines -----------------------------------------------------------------------------


def bm25_tokens(text: str) -> list[str]:
    """BM25 terms: lower-cased words without stopwords, a trailing plural ``s`` dropped."""
    terms = []
    for word in WORDS.findall(unicodedata.normalize("NFKC", text).casefold()):
        if word in ANSWERLESS_WORDS:
            continue
        terms.append(word[:-1] if len(word) > 3 and word.endswith("s") else word)
    return terms


def turn_rankers(documents: Sequence[str], embedder: Embedder) -> tuple[Ranker, Ranker]:
    """The vector and BM25 baselines over ``documents``: each ranks turn positions, best first.

    The vector ranking holds every turn; BM25 only the turns sharing a term with the query.
    """
    vector = FlatVectorIndex(embedder, batch=EMBED_BATCH)
    bm25 = BM25Index(BM25_K1, BM25_B, tokenize=bm25_tokens)
    for position, text in enumerate(documents):
        vector.add(str(position), text)
        bm25.add(str(position), text)
    every = max(len(documents), 1)

    def by_vector(query: str) -> list[int]:
        return [int(doc) for doc, _ in vector.search(query, every)]

    def by_bm25(query: str) -> list[int]:
        return [int(doc) for doc, _ in bm25.search(query, every)]

    return by_vector, by_bm25


def rrf(rankings: Sequence[Sequence[int]], k: int = RRF_K) -> list[int]:
    """Reciprocal-rank fusion: ``sum(1 / (k + rank))`` over the rankings, best first.

    >>> rrf([[0, 1, 2], [2, 1]])
    [2, 1, 0]
    """
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, index in enumerate(ranking, start=1):
            scores[index] = scores.get(index, 0.0) + 1.0 / (k + rank)
    return sorted(scores, key=lambda index: (-scores[index], index))


# -- ingestion -----------------------------------------------------------------------------


def turn_content(text: str, caption: str) -> str:
    """What is said for a turn: its text, plus the caption of an image it shared."""
    text = text.strip()
    return f"{text} [shared an image: {caption.strip()}]" if caption.strip() else text


@dataclass(frozen=True, slots=True)
class Transcript:
    """A conversation as replayed.

    ``to_dia`` maps memlane turn ids to LoCoMo ids; the baselines' documents are, in order,
    ``dia_ids``, ``documents`` (indexed: ``"Caroline: text"``) and ``lines`` (put in a
    prompt: ``"[2023-05-08 13:56] Caroline: text"``).
    """

    dialogue: Dialogue
    to_dia: dict[str, str]
    dia_ids: list[str]
    documents: list[str]
    lines: list[str]


def transcript(conversation: Conversation) -> Transcript:
    """The dialogue to replay and both directions of the turn id map.

    Empty turns are not said, so they get no memlane id and no baseline line.
    """
    subject = conversation.sample_id
    sessions: list[DialogueSession] = []
    to_dia: dict[str, str] = {}
    dia_ids: list[str] = []
    documents: list[str] = []
    lines: list[str] = []
    for part in conversation.sessions:
        said: list[tuple[str, str]] = []
        for turn in part.turns:
            content = turn_content(turn.text, turn.caption)
            if not content:
                continue
            at = part.started + len(said) * TURN_GAP
            said.append((turn.speaker, content))
            to_dia[f"{subject}-S{part.number}#{len(said)}"] = turn.dia_id
            dia_ids.append(turn.dia_id)
            documents.append(f"{turn.speaker}: {content}")
            lines.append(f"[{at:%Y-%m-%d %H:%M}] {documents[-1]}")
        sessions.append(DialogueSession(part.number, part.started, tuple(said)))
    return Transcript(Dialogue(subject, tuple(sessions)), to_dia, dia_ids, documents, lines)


# -- scoring -------------------------------------------------------------------------------


@dataclass
class Scores:
    """Per-question values of every metric, per system and group, averaged at the end."""

    values: dict[tuple[str, str, str], list[float]] = field(default_factory=dict)

    def add(self, system: str, metric: str, groups: Sequence[str], value: float) -> None:
        """Record one question's ``value`` in each of ``groups``."""
        for group in groups:
            self.values.setdefault((system, metric, group), []).append(value)

    def put_into(self, results: Results) -> None:
        """Means into ``results``, systems and metrics in first-seen order."""
        for (system, metric, group), series in self.values.items():
            results.put(system, metric, group, statistics.fmean(series))


def score_evidence(
    scores: Scores, system: str, groups: Sequence[str], ranked: Sequence[str], gold: Sequence[str]
) -> None:
    """Turn recall, turn hit and session recall at every ``k`` of ``KS``."""
    for k in KS:
        scores.add(system, f"turn_recall@{k}", groups, turn_recall(ranked, gold, k))
        scores.add(system, f"turn_hit@{k}", groups, turn_hit(ranked, gold, k))
        scores.add(system, f"session_recall@{k}", groups, session_recall(ranked, gold, k))


def score_answer(
    scores: Scores, system: str, groups: Sequence[str], budget: int, context: str, gold: str
) -> None:
    """Exact containment and content-word recall of the gold answer in ``context``."""
    scores.add(system, f"answer@{budget}", groups, float(contains_answer(context, gold)))
    scores.add(system, f"answer_words@{budget}", groups, answer_token_recall(context, gold))


@dataclass(frozen=True, slots=True)
class Asked:
    """One question as scored: its gold turns (known ones only) and groups."""

    question: LocomoQuestion
    gold: tuple[str, ...]
    groups: tuple[str, ...]
    index: int = 0


@dataclass(frozen=True, slots=True)
class QuestionRecord:
    """What memlane did with one question (``--questions``): enough to diff two trees.

    ``index`` is the question's position in the conversation's ``qa`` list, ``gold`` its
    evidence turns of the conversation, ``ranked`` memlane's first ``max(KS)`` turns at the
    smallest budget, ``hit`` turn hit@k for every ``k`` of ``KS`` (empty without gold turns)
    and ``answer`` whether ``r.text`` held the gold answer at each budget.
    """

    conversation: str
    index: int
    category: int
    question: str
    answer: str
    gold: tuple[str, ...]
    ranked: tuple[str, ...]
    items: int
    hit: dict[str, float]
    answered: dict[str, bool]

    def to_json(self) -> str:
        """One JSON line."""
        return json.dumps(asdict(self), ensure_ascii=False)


def write_questions(records: Iterable[QuestionRecord], path: str | Path) -> int:
    """Write ``records`` to ``path`` as JSON lines; return how many were written."""
    count = 0
    with Path(path).open("w", encoding="utf-8") as out:
        for record in records:
            out.write(record.to_json() + "\n")
            count += 1
    return count


def asked_questions(conversation: Conversation, known: set[str]) -> list[Asked]:
    """Questions with evidence naming turns of the conversation, with their groups."""
    asked = []
    for index, question in enumerate(conversation.questions):
        gold = tuple(dia_id for dia_id in question.evidence if dia_id in known)
        if question.category == ADVERSARIAL:
            asked.append(Asked(question, gold, ("adversarial",), index))
        elif question.category in CATEGORIES and gold:
            asked.append(Asked(question, gold, (CATEGORIES[question.category], "all"), index))
    return asked


def items_for(budget: int) -> int:
    """How many items memlane is asked for at ``budget`` tokens (enough to fill it)."""
    return min(100, max(MIN_ITEMS, budget // ITEMS_PER_TOKENS))


def score_memlane(
    scores: Scores,
    mem: Memory,
    subject: str,
    item: Asked,
    to_dia: Mapping[str, str],
    records: list[QuestionRecord] | None = None,
) -> float:
    """Ask memlane at every budget; return the milliseconds of the first recall.

    With ``records``, the question's :class:`QuestionRecord` is appended to it.
    """
    question, groups = item.question, item.groups
    elapsed = 0.0
    ranked: list[str] = []
    items = 0
    answered: dict[str, bool] = {}
    for index, budget in enumerate(BUDGETS):
        started = time.perf_counter()
        result = mem.recall(subject, question.question, k=items_for(budget), budget_tokens=budget)
        if index == 0:
            elapsed = (time.perf_counter() - started) * 1000
            ranked = _score_items(scores, result, item, to_dia)
            items = len(result.items)
        score_answer(scores, SYSTEM, groups, budget, result.text, question.answer)
        answered[str(budget)] = contains_answer(result.text, question.answer)
    if records is not None:
        hit = {f"@{k}": turn_hit(ranked, item.gold, k) for k in KS} if item.gold else {}
        records.append(
            QuestionRecord(
                subject,
                item.index,
                question.category,
                question.question,
                question.answer,
                item.gold,
                tuple(ranked),
                items,
                hit,
                answered,
            )
        )
    return elapsed


def _score_items(
    scores: Scores, result: Recall, item: Asked, to_dia: Mapping[str, str]
) -> list[str]:
    """Evidence recall of memlane's items, and what kind of items came back.

    Returns the first ``max(KS)`` ranked turns.
    """
    groups, gold = item.groups, item.gold
    ranked = expand_turns((i.provenance for i in result.items), to_dia, max(KS))
    if gold:
        score_evidence(scores, SYSTEM, groups, ranked, gold)
    items = result.items
    scores.add(SYSTEM, "empty", groups, 0.0 if items else 1.0)
    scores.add(SYSTEM, "items", groups, float(len(items)))
    if items:
        scores.add(
            SYSTEM, "turns_per_item", groups, statistics.fmean(len(i.provenance) for i in items)
        )
        top = items[0]
        for kind in ("fact", "note", "summary"):
            scores.add(SYSTEM, f"top_is_{kind}", groups, float(top.kind == kind))
    return ranked


def score_baseline(
    scores: Scores,
    name: str,
    order: Sequence[int],
    item: Asked,
    script: Transcript,
) -> None:
    """Evidence and answer scores of one baseline's ranking of the turns."""
    ranked = [script.dia_ids[i] for i in order]
    if item.gold:
        score_evidence(scores, name, item.groups, ranked, item.gold)
    for budget in BUDGETS:
        context = fill_budget((script.lines[i] for i in order), budget)
        score_answer(scores, name, item.groups, budget, context, item.question.answer)


# -- the suite -----------------------------------------------------------------------------


def run(
    data: Path,
    *,
    embedder_spec: str | None = None,
    limit_conversations: int | None = None,
    progress: Progress = print,
    questions: list[QuestionRecord] | None = None,
) -> Results:
    """Run the suite on the LoCoMo-format file ``data``.

    With ``questions`` a list, each question's :class:`QuestionRecord` is appended to it.

    Raises:
        InvalidInput: ``data`` is missing or not LoCoMo, or the limit is not positive.
    """
    if limit_conversations is not None and (
        isinstance(limit_conversations, bool)
        or not isinstance(limit_conversations, int)
        or limit_conversations < 1
    ):
        raise InvalidInput("limit_conversations", "must be a positive integer")
    conversations = [c for c in load_conversations(data) if c.sessions]
    conversations = conversations[:limit_conversations]
    if not conversations:
        raise InvalidInput("data", f"no conversation with turns in {data}")
    embedder = make_embedder(embedder_spec)
    results = Results(
        "locomo",
        {
            "data": str(data),
            "conversations": len(conversations),
            "embedder": embedder.name,
            "ks": list(KS),
            "budgets": list(BUDGETS),
            "items_asked": {str(b): items_for(b) for b in BUDGETS},
            "rrf_k": RRF_K,
            "bm25": {"k1": BM25_K1, "b": BM25_B},
            "extractor": "rules",
            "summarizer": "offline",
            "categories": {str(n): name for n, name in CATEGORIES.items()} | {"5": "adversarial"},
        },
    )
    scores = Scores()
    latencies: list[float] = []
    asked_in = Counter[str]()
    with tempfile.TemporaryDirectory(prefix="memlane-locomo-") as name:
        for conversation in conversations:
            folder = Path(name) / conversation.sample_id
            folder.mkdir()
            asked = _conversation(
                conversation, folder, embedder, scores, latencies, progress, questions
            )
            for item in asked:
                asked_in.update(item.groups)
    results.systems = {SYSTEM: {}, **{b: {} for b in BASELINES}}
    for group in ("all", *CATEGORIES.values(), "adversarial"):
        if asked_in[group]:
            results.put(SYSTEM, "questions", group, asked_in[group])
    scores.put_into(results)
    if latencies:
        results.put(SYSTEM, "recall_p50_ms", "all", statistics.median(latencies))
    return results


def replayed_memory(folder: Path, dialogue: Dialogue, embedder: Embedder) -> Memory:
    """The memory a replay left in ``folder``, opened as questions are asked: at its end.

    Its clock stands where the dialogue's last turn was said; extraction and summaries are the
    offline ones the replay used. Open it with ``with``.
    """
    last = dialogue.sessions[-1]
    end = last.started + len(last.turns) * TURN_GAP
    return Memory(
        next(folder.glob("*/memlane.db")),
        clock=lambda: end,
        timezone="UTC",
        embedder=embedder,
        extractor=RuleExtractor(),
        summarizer=OfflineSummarizer(),
    )


def _conversation(
    conversation: Conversation,
    folder: Path,
    embedder: Embedder,
    scores: Scores,
    latencies: list[float],
    progress: Progress,
    records: list[QuestionRecord] | None = None,
) -> list[Asked]:
    """Replay, index the baselines, ask every question; return the questions scored."""
    script = transcript(conversation)
    tally = replay(folder, script.dialogue, embedder)
    progress(f"{conversation.sample_id}: replayed {tally.turns} turns in {tally.seconds:.1f}s")
    started = time.perf_counter()
    by_vector, by_bm25 = turn_rankers(script.documents, embedder)
    progress(f"{conversation.sample_id}: baselines indexed in {time.perf_counter() - started:.1f}s")
    asked = asked_questions(conversation, set(script.dia_ids))
    started = time.perf_counter()
    with replayed_memory(folder, script.dialogue, embedder) as mem:
        mem.index.wait()  # the replay's backlog: quality is measured with everything embedded
        for item in asked:
            latencies.append(
                score_memlane(scores, mem, script.dialogue.subject, item, script.to_dia, records)
            )
            vector_order = by_vector(item.question.question)
            bm25_order = by_bm25(item.question.question)
            for name, order in zip(
                BASELINES, (vector_order, bm25_order, rrf([bm25_order, vector_order])), strict=True
            ):
                score_baseline(scores, name, order, item, script)
    progress(
        f"{conversation.sample_id}: {len(asked)} questions in {time.perf_counter() - started:.1f}s"
    )
    return asked


def plot(results: Results, path: str | Path) -> bool:
    """Turn hit@10, recall@10 and answer@500 per category, every system side by side."""
    return grouped_bars(
        results,
        ("turn_hit@10", "turn_recall@10", "answer@500"),
        ("all", *CATEGORIES.values()),
        path,
        title=f"LoCoMo ({results.params.get('embedder', '?')}), categories 1-4",
    )
