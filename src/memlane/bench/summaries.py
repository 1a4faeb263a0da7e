"""``memlane bench summaries``: the summary lane on LoCoMo conversations.

Every LoCoMo conversation is replayed through the session API as a user would: one subject
per conversation, one session per LoCoMo session (window 5), each turn added as a ``user``
turn by its speaker, 30 seconds apart from the session's start, on a clock moved to each
turn. Rules and the offline summarizer do the work; nothing is embedded while ingesting.
Then, per conversation and overall:

* compression: tokens of the raw turns / tokens of the final session summaries (the
  ``raw-turns`` system is that baseline), plus the storyline's and the notes' tokens;
* retention: the identifiers (:func:`~memlane.extract.find_identifiers`) and dates
  (:func:`~memlane.extract.resolve_times`) each turn mentions, and the share that survive —
  verbatim in the session's summary or in one of the subject's notes, as a normalized value
  in the subject's exact lane (identifiers), or as the resolved date in a note (dates);
  "in summaries" counts the session summary alone. LoCoMo has few identifiers, so a seeded
  synthetic Chinese/English support conversation full of them is measured the same way;
* ingestion speed through the session API;
* search latency over ``search_scale`` summaries of one subject, then with ten subjects of
  that size in the tenant (the subject filter comes before ranking), with the ``hash``
  embedder: the index is measured, not the model;
* throughput and query latency of the embedding model itself.
"""

from __future__ import annotations

import random
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from memlane.bench.locomo_data import Conversation, LocomoSession, load_conversations
from memlane.bench.report import Results, latencies_us, percentile
from memlane.embed import Embedder, make_embedder
from memlane.errors import InvalidInput
from memlane.extract import RuleExtractor, find_identifiers, resolve_times
from memlane.extract.model import Mention
from memlane.memory import Memory
from memlane.summaries.model import SummaryContent
from memlane.summaries.notes import render_times
from memlane.summaries.offline import OfflineSummarizer
from memlane.summaries.text import estimate_tokens

SYSTEM = "memlane"
BASELINE = "raw-turns"
WINDOW = 5
TURN_GAP = timedelta(seconds=30)
SEARCH_EMBEDDER = "hash"
SEARCH_SUBJECTS = 10
SEARCH_K = 5
EMBED_TURNS = 256
EMBED_BATCH = 32
SYNTHETIC_TURNS = 400
SYNTHETIC_SESSION_TURNS = 20
SYNTHETIC_SEED = 7
SHOWN_MISSES = 5
METRICS = (
    "tokens",
    "compression",
    "storyline_tokens",
    "note_tokens",
    "compression_with_notes",
    "id_mentions",
    "id_survival",
    "id_in_summaries",
    "date_mentions",
    "date_survival",
    "date_in_summaries",
    "survival",
    "survival_in_summaries",
    "ingest_turns_per_s",
)

Progress = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class DialogueSession:
    """One session to replay: its number, when it started, its ``(speaker, text)`` turns."""

    number: int
    started: datetime
    turns: tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class Dialogue:
    """A conversation to replay: one subject and its sessions in time order."""

    subject: str
    sessions: tuple[DialogueSession, ...]


@dataclass
class Tally:
    """What one replayed dialogue measured; tallies add up into the ``all`` group."""

    turns: int = 0
    sessions: int = 0
    seconds: float = 0.0
    raw_tokens: int = 0
    summary_tokens: int = 0
    storyline_tokens: int = 0
    note_tokens: int = 0
    found: dict[str, int] = field(default_factory=dict)
    kept: dict[str, int] = field(default_factory=dict)
    in_summary: dict[str, int] = field(default_factory=dict)
    misses: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        """Add ``other``'s counts to these."""
        for name in ("turns", "sessions", "seconds", "raw_tokens", "summary_tokens"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.storyline_tokens += other.storyline_tokens
        self.note_tokens += other.note_tokens
        for mine, theirs in (
            (self.found, other.found),
            (self.kept, other.kept),
            (self.in_summary, other.in_summary),
        ):
            for kind, count in theirs.items():
                mine[kind] = mine.get(kind, 0) + count
        self.misses.extend(other.misses)

    def count(self, kind: str, survived: bool, summarized: bool, miss: str) -> None:
        """Count one mention of ``kind`` (``"identifier"`` or ``"date"``)."""
        self.found[kind] = self.found.get(kind, 0) + 1
        self.kept[kind] = self.kept.get(kind, 0) + survived
        self.in_summary[kind] = self.in_summary.get(kind, 0) + summarized
        if not survived:
            self.misses.append(miss)


def run(
    data: Path,
    *,
    search_scale: int = 10_000,
    samples: int = 500,
    embedder_spec: str | None = None,
    progress: Progress = print,
) -> Results:
    """Run the suite on the LoCoMo-format file ``data``.

    Raises:
        InvalidInput: ``data`` is missing or not LoCoMo, or a size is not positive.
    """
    for name, value in (("search_scale", search_scale), ("samples", samples)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InvalidInput(name, f"must be a positive integer, got {value!r}")
    conversations = [c for c in load_conversations(data) if c.sessions]
    if not conversations:
        raise InvalidInput("data", f"no conversation with turns in {data}")
    questions = [q.question for c in conversations for q in c.questions]
    turn_texts = [t.text for c in conversations for s in c.sessions for t in s.turns]
    results = Results(
        "summaries",
        {
            "data": str(data),
            "conversations": len(conversations),
            "window": WINDOW,
            "turn_gap_s": TURN_GAP.total_seconds(),
            "extractor": "rules",
            "summarizer": "offline",
            "ingest_embedder": embedder_spec or "default",
            "search_scale": search_scale,
            "search_subjects": SEARCH_SUBJECTS,
            "search_embedder": SEARCH_EMBEDDER,
            "search_k": SEARCH_K,
            "samples": samples,
            "synthetic_turns": SYNTHETIC_TURNS,
            "synthetic_seed": SYNTHETIC_SEED,
        },
    )
    results.systems[BASELINE] = {}  # the baseline's rows first, then memlane's in this order
    for metric in METRICS:
        results.systems.setdefault(SYSTEM, {}).setdefault(metric, {})
    with tempfile.TemporaryDirectory(prefix="memlane-bench-") as name:
        folder = Path(name)
        overall = Tally()
        for conversation in conversations:
            tally = replay(folder, _from_locomo(conversation), embedder_spec)
            progress(f"{conversation.sample_id}: {tally.turns} turns in {tally.seconds:.1f}s")
            _put_tally(results, conversation.sample_id, tally)
            overall.add(tally)
        _put_tally(results, "all", overall)
        _show_misses(progress, "LoCoMo", overall.misses)
        synthetic = replay(folder, synthetic_dialogue(SYNTHETIC_TURNS), embedder_spec)
        _put_tally(results, "synthetic", synthetic)
        _show_misses(progress, "synthetic", synthetic.misses)
        queries = questions or turn_texts
        _search_latency(results, folder, conversations, queries, search_scale, samples, progress)
    _embedding_speed(results, embedder_spec, turn_texts, questions or turn_texts, samples)
    results.systems[SYSTEM] = {
        m: by_group for m, by_group in results.systems[SYSTEM].items() if by_group
    }
    return results


# -- replaying a dialogue through the session API -------------------------------------------


class _Clock:
    """The replay's clock: stands at the turn being said."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now


def _from_locomo(conversation: Conversation) -> Dialogue:
    return Dialogue(
        conversation.sample_id,
        tuple(
            DialogueSession(
                session.number,
                session.started,
                tuple((t.speaker, t.text) for t in session.turns if t.text.strip()),
            )
            for session in conversation.sessions
        ),
    )


def replay(folder: Path, dialogue: Dialogue, embedder: Embedder | str | None) -> Tally:
    """Replay ``dialogue`` into a fresh memory file in ``folder``, then measure it.

    ``embedder``: an embedder, or a spec for :func:`~memlane.embed.make_embedder`.
    """
    clock = _Clock(dialogue.sessions[0].started)
    tally = Tally()
    with Memory(
        Path(tempfile.mkdtemp(dir=folder)) / "memlane.db",
        clock=clock,
        timezone="UTC",
        embedder=embedder,
        extractor=RuleExtractor(),
        summarizer=OfflineSummarizer(),
    ) as mem:
        summaries: list[str] = []
        started = time.perf_counter()
        for part in dialogue.sessions:
            session_id = f"{dialogue.subject}-S{part.number}"
            session = mem.session(dialogue.subject, session_id, window=WINDOW)
            for index, (speaker, text) in enumerate(part.turns):
                clock.now = part.started + index * TURN_GAP
                session.add("user", text, at=clock.now, speaker=speaker)
            summary = session.close()
            summaries.append("" if summary is None else summary.content.as_text())
        tally.seconds = time.perf_counter() - started
        measure(mem, dialogue, summaries, tally)
    return tally


def measure(mem: Memory, dialogue: Dialogue, summaries: Sequence[str], tally: Tally) -> None:
    """Add the compression and retention of a replayed dialogue to ``tally``.

    ``summaries`` are the texts of the final session summaries, one per session.
    """
    subject = dialogue.subject
    notes = [note.text for note in mem.summaries.notes(subject)]
    note_text = "\n".join(notes)
    lane_values = _lane_values(mem, subject)
    storyline = mem.summaries.storyline(subject)
    tally.storyline_tokens = (
        0 if storyline is None else estimate_tokens(storyline.content.as_text())
    )
    tally.note_tokens = sum(estimate_tokens(note) for note in notes)
    for part, summary in zip(dialogue.sessions, summaries, strict=True):
        tally.sessions += 1
        tally.summary_tokens += estimate_tokens(summary)
        for index, (_, text) in enumerate(part.turns):
            tally.turns += 1
            tally.raw_tokens += estimate_tokens(text)
            at = part.started + index * TURN_GAP
            identifiers = find_identifiers(text)
            for mention in identifiers:
                summarized = mention.text in summary
                kept = summarized or mention.text in note_text or _in_lane(mention, lane_values)
                tally.count("identifier", kept, summarized, f"identifier {mention.text!r}: {text}")
            for mention in resolve_times(text, at, UTC):
                if any(_overlap(mention, other) for other in identifiers):
                    continue  # digits of an order id or phone, not a date
                summarized = mention.text in summary
                kept = summarized or mention.text in note_text or _date_in(mention, note_text)
                tally.count("date", kept, summarized, f"date {mention.text!r}: {text}")


def _lane_values(mem: Memory, subject: str) -> set[str]:
    """Every value the exact lane ever stored for ``subject``, in its comparison forms."""
    values: set[str] = set()
    for fact in mem.facts.audit(subject):
        if isinstance(fact.value, str):
            values.update(_forms(fact.value))
    return values


def _forms(value: str) -> set[str]:
    digits = "".join(ch for ch in value if ch.isascii() and ch.isdigit())
    return {value.strip(), value.strip().casefold(), *([digits] if digits else [])}


def _in_lane(mention: Mention, lane_values: set[str]) -> bool:
    return isinstance(mention.value, str) and bool(_forms(mention.value) & lane_values)


def _overlap(first: Mention, second: Mention) -> bool:
    return first.span[0] < second.span[1] and second.span[0] < first.span[1]


def _date_in(mention: Mention, note_text: str) -> bool:
    """The resolved date is in a note: as an ISO date, or as notes write a period."""
    value = mention.value
    start = value.get("from") if isinstance(value, dict) else value
    if isinstance(start, str) and start[:10] in note_text:
        return True
    # Periods are written out in notes ("June 2023", "the week of 2023-06-05"), not as ISO.
    rendered = render_times(mention.text, [Mention("time", mention.text, value)])
    for lead in ("on ", "in "):
        rendered = rendered.removeprefix(lead)
    return rendered != mention.text and rendered in note_text


def _put_tally(results: Results, group: str, tally: Tally) -> None:
    results.put(BASELINE, "tokens", group, tally.raw_tokens)
    results.put(BASELINE, "compression", group, 1.0)
    results.put(SYSTEM, "tokens", group, tally.summary_tokens)
    results.put(SYSTEM, "compression", group, tally.raw_tokens / max(1, tally.summary_tokens))
    results.put(SYSTEM, "storyline_tokens", group, tally.storyline_tokens)
    results.put(SYSTEM, "note_tokens", group, tally.note_tokens)
    stored = tally.summary_tokens + tally.note_tokens
    results.put(SYSTEM, "compression_with_notes", group, tally.raw_tokens / max(1, stored))
    for kind, label in (("identifier", "id"), ("date", "date")):
        results.put(SYSTEM, f"{label}_mentions", group, tally.found.get(kind, 0))
        if tally.found.get(kind):
            results.put(SYSTEM, f"{label}_survival", group, tally.kept[kind] / tally.found[kind])
            share = tally.in_summary[kind] / tally.found[kind]
            results.put(SYSTEM, f"{label}_in_summaries", group, share)
    found = sum(tally.found.values())
    if found:
        results.put(SYSTEM, "survival", group, sum(tally.kept.values()) / found)
        results.put(SYSTEM, "survival_in_summaries", group, sum(tally.in_summary.values()) / found)
    results.put(SYSTEM, "ingest_turns_per_s", group, tally.turns / max(tally.seconds, 1e-9))


def _show_misses(progress: Progress, corpus: str, misses: Sequence[str]) -> None:
    if misses:
        progress(f"{corpus}: {len(misses)} mentions lost, e.g.")
        for miss in misses[:SHOWN_MISSES]:
            progress(f"  {miss[:160]}")


# -- the synthetic support conversation -----------------------------------------------------

_EN_IDS = (
    "My new phone number is {phone}, please update it.",
    "You can email me at {email} whenever the refund is done.",
    "My order number is {order} and it still has not shipped.",
    "I paid {amount} for the upgrade, can you check the invoice?",
    "The technician is coming {date}, please confirm.",
    "I called {past} about the refund of {amount} and nobody answered.",
    "Call me back at {phone} any time {date}.",
    "Please send the receipt for {order} to {email}.",
)
_ZH_IDS = (
    "我的新手机号是{phone}，麻烦更新一下。",
    "邮箱是{email}，退款好了发邮件给我。",
    "订单号：{order}，到现在还没发货。",
    "上次升级花了{amount}，帮我查一下发票。",
    "师傅说{date}上门，请确认一下。",
    "我{past}打过电话问{amount}的退款，没人接。",
    "{date}打我电话{phone}就行。",
    "订单{order}的收据请发到{email}。",
)
_EN_CHAT = (
    "Thanks, that sounds good to me.",
    "I was busy with work, sorry for the slow reply.",
    "The app keeps logging me out on my tablet.",
    "Could you explain the difference between the two plans?",
    "No problem, I can wait a bit.",
)
_ZH_CHAT = (
    "好的，谢谢你帮忙看一下。",
    "最近工作太忙了，回复慢了不好意思。",
    "平板上的应用总是自动退出登录。",
    "两个套餐有什么区别？",
    "没关系，我可以再等等。",
)
_EN_DATES = ("on July {d}, 2026", "on 2026-07-{d:02d}", "next Friday", "on June {d}", "tomorrow")
_ZH_DATES = ("7月{d}日", "2026年8月{d}日", "下周五", "明天", "6月{d}号")
_EN_PAST = ("last Monday", "yesterday", "on May {d}", "two days ago", "last week")
_ZH_PAST = ("上周一", "昨天", "5月{d}号", "两天前", "上周")
_NAMES = ("wang.fang", "emma.li", "chen_wei", "j.smith", "liu.yang")


def synthetic_dialogue(turns: int, seed: int = SYNTHETIC_SEED) -> Dialogue:
    """A Chinese/English customer-support conversation; every 2nd turn carries identifiers.

    Phones (Chinese mobiles in three spellings, US numbers), e-mails, order ids, amounts and
    dates (absolute and relative) are drawn from a seeded generator, so runs compare.
    """
    rng = random.Random(seed)
    start = datetime(2026, 6, 1, 9, 30, tzinfo=UTC)
    sessions: list[DialogueSession] = []
    for first in range(0, turns, SYNTHETIC_SESSION_TURNS):
        said: list[tuple[str, str]] = []
        for index in range(first, min(turns, first + SYNTHETIC_SESSION_TURNS)):
            chinese = rng.random() < 0.5
            speaker = "王芳" if chinese else "Emma"
            if index % 2 == 0:
                template = rng.choice(_ZH_IDS if chinese else _EN_IDS)
                said.append((speaker, template.format(**_identifiers(rng, chinese))))
            else:
                said.append((speaker, rng.choice(_ZH_CHAT if chinese else _EN_CHAT)))
        day = start + timedelta(days=3 * len(sessions), hours=rng.randrange(9))
        sessions.append(DialogueSession(len(sessions) + 1, day, tuple(said)))
    return Dialogue("synthetic", tuple(sessions))


def _identifiers(rng: random.Random, chinese: bool) -> dict[str, str]:
    digits = f"{rng.randrange(10**8):08d}"
    mobile = f"1{rng.choice('3456789')}{rng.randrange(10)}"
    area, exchange = rng.randrange(200, 1000), rng.randrange(200, 1000)
    phone = rng.choice(
        (
            f"{mobile}-{digits[:4]}-{digits[4:]}",
            f"{mobile}{digits}",
            f"+86 {mobile} {digits[:4]} {digits[4:]}",
            f"({area}) {exchange}-{digits[4:]}",
        )
    )
    order = rng.choice((f"ORD-{rng.randrange(10**5, 10**7)}", f"A{rng.randrange(10**6, 10**7)}"))
    if not chinese and not order.startswith("ORD"):
        order = f"ORD-{order[1:]}"
    amount = (
        rng.choice((f"{rng.randrange(20, 5000)}元", f"¥{rng.randrange(20, 5000):,}"))
        if chinese
        else rng.choice((f"${rng.randrange(5, 900)}.{rng.randrange(100):02d}", "$1,250"))
    )
    day = rng.randrange(1, 29)
    when = rng.choice(_ZH_DATES if chinese else _EN_DATES).format(d=day)
    past = rng.choice(_ZH_PAST if chinese else _EN_PAST).format(d=day)
    name = rng.choice(_NAMES)
    email = f"{name}{rng.randrange(100)}@{rng.choice(('example.com', 'mail.cn', 'corp.io'))}"
    return {
        "phone": phone,
        "email": email,
        "order": order,
        "amount": amount,
        "date": when,
        "past": past,
    }


# -- search latency at scale ----------------------------------------------------------------


def _search_latency(
    results: Results,
    folder: Path,
    conversations: Sequence[Conversation],
    queries: Sequence[str],
    scale: int,
    samples: int,
    progress: Progress,
) -> None:
    """Search one subject's ``scale`` summaries, alone and then among nine more such subjects."""
    clock = _Clock(datetime(2026, 1, 1, tzinfo=UTC))
    sessions = [(c, s) for c in conversations for s in c.sessions]
    rng = random.Random(scale)
    others = [f"S-{n}" for n in range(1, SEARCH_SUBJECTS)]
    phases = (("1 subject", ["S-0"]), (f"{SEARCH_SUBJECTS} subjects", others))
    with Memory(folder / "search.db", clock=clock, embedder=SEARCH_EMBEDDER) as mem:
        lane = mem.summaries
        for group, subjects in phases:
            started = time.perf_counter()
            for subject in subjects:
                for i in range(scale):
                    content, period, provenance = _fake_summary(rng, sessions)
                    clock.now += timedelta(seconds=1)
                    lane.record(subject, f"{subject}-{i}", content, period, provenance)
            written = time.perf_counter() - started
            started = time.perf_counter()
            lane.index()
            indexed = time.perf_counter() - started
            progress(
                f"search, {group}: wrote {len(subjects) * scale:,} summaries in {written:.1f}s, "
                f"indexed in {indexed:.1f}s; searching ..."
            )
            results.put(SYSTEM, "record_per_s", group, len(subjects) * scale / max(written, 1e-9))
            for query in queries[:3]:  # warm the page cache and the query path
                lane.search("S-0", query, k=SEARCH_K)
            series = latencies_us(
                lambda k: lane.search("S-0", queries[k % len(queries)], k=SEARCH_K), samples
            )
            results.put(SYSTEM, "search_p50_ms", group, percentile(series, 0.5) / 1000)
            results.put(SYSTEM, "search_p99_ms", group, percentile(series, 0.99) / 1000)


def _fake_summary(
    rng: random.Random, sessions: Sequence[tuple[Conversation, LocomoSession]]
) -> tuple[SummaryContent, tuple[datetime, datetime], tuple[str, ...]]:
    """A varied session summary cut from a random window of real LoCoMo turns."""
    conversation, session = rng.choice(sessions)
    size = min(len(session.turns), rng.randrange(3, 7))
    first = rng.randrange(len(session.turns) - size + 1)
    turns = session.turns[first : first + size]
    words = turns[0].text.split()
    content = SummaryContent(
        topic=(" ".join(words[:6]) or "chat",),
        facts=tuple(f"{t.speaker}: {t.text[:200]}" for t in turns),
        entities=conversation.speakers,
    )
    period = (session.started, session.started + len(turns) * TURN_GAP)
    return content, period, tuple(t.dia_id for t in turns)


# -- the embedding model --------------------------------------------------------------------


def _embedding_speed(
    results: Results,
    spec: str | None,
    texts: Sequence[str],
    queries: Sequence[str],
    samples: int,
) -> None:
    """Passages/s in batches after a warm-up batch, and query latency, without the cache."""
    embedder = make_embedder(spec, cache_entries=0)
    warm, measured = texts[:EMBED_BATCH], list(texts[EMBED_BATCH : EMBED_BATCH + EMBED_TURNS])
    if not measured:
        measured = list(texts)
    embedder.embed_documents(list(warm))
    embedder.embed_query(queries[0])
    started = time.perf_counter()
    for offset in range(0, len(measured), EMBED_BATCH):
        embedder.embed_documents(measured[offset : offset + EMBED_BATCH])
    seconds = time.perf_counter() - started
    group = embedder.name
    results.params["embedder"] = group
    results.put(SYSTEM, "embed_passages_per_s", group, len(measured) / max(seconds, 1e-9))
    series = latencies_us(lambda k: embedder.embed_query(queries[k % len(queries)]), samples)
    results.put(SYSTEM, "embed_query_p50_ms", group, percentile(series, 0.5) / 1000)
