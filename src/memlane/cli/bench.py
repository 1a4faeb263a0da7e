"""``memlane bench SUITE``: run a benchmark suite, print its table, write its JSON."""

from __future__ import annotations

import click


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
@click.option("--out", type=click.Path(dir_okay=False), default=None, help="Write JSON here.")
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
    click.echo(results.render())
    results.write(out)
    if out:
        click.echo(f"wrote {out}")


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
@click.option("--out", type=click.Path(dir_okay=False), default=None, help="Write JSON here.")
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
    click.echo(results.render())
    results.write(out)
    if out:
        click.echo(f"wrote {out}")
