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
