"""``memlane export`` and ``memlane import``: move a whole memory (every tenant) as JSON Lines."""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import AbstractContextManager, ExitStack, contextmanager
from pathlib import Path
from typing import IO, Any, TextIO

import click

from memlane.cli import Settings, emit_json
from memlane.errors import InvalidInput
from memlane.memory import Memory
from memlane.storage.archive import KEYING, ExportReport, Progress

url_option = click.option(
    "--url",
    default=None,
    help="The memory (a SQLite file or postgresql://...); default: memlane's --url / MEMLANE_URL.",
)
progress_option = click.option(
    "--progress/--no-progress",
    default=None,
    help="Show progress on stderr (default: when stderr is a terminal).",
)
json_option = click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")


@click.command("export")
@url_option
@click.option(
    "--out",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    default=None,
    help="Write the export to FILE (default: stdout).",
)
@progress_option
@json_option
@click.pass_obj
def export_command(
    settings: Settings, url: str | None, out: Path | None, progress: bool | None, as_json: bool
) -> None:
    """Write every tenant's data, every version with both time axes, as JSON Lines."""
    try:
        report = _export(url or settings.url, out, progress)
    except OSError as error:
        raise click.ClickException(f"cannot write the export: {error}") from error
    # With the export on stdout, the summary must not mix into it.
    _summary("exported", report.to_dict(), as_json, err=out is None)


def _export(url: str | None, out: Path | None, progress: bool | None) -> ExportReport:
    with ExitStack() as stack:
        memory = stack.enter_context(Memory(url))
        advance = stack.enter_context(meter("exporting", progress))
        if out is None:
            stdout = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", newline="\n")
            try:
                report = memory.export(stdout, advance)
            finally:
                stdout.flush()
                stdout.detach()  # leave the process's stdout open
        else:
            # Written aside and renamed when complete: a failed export leaves no FILE behind.
            partial = out.with_name(out.name + ".partial")
            try:
                with partial.open("w", encoding="utf-8", newline="\n") as stream:
                    report = memory.export(stream, advance)
                partial.replace(out)
            finally:
                partial.unlink(missing_ok=True)
    return report


@click.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, allow_dash=True))
@url_option
@progress_option
@click.option(
    "--index/--no-index",
    "embed",
    default=False,
    show_default=True,
    help="Then embed, with progress, what has no vector from the embedder (every tenant); "
    "else the background indexer of the memory's next user does. A memory with new "
    "vectors no longer matches the export, so an import cannot be resumed after it.",
)
@json_option
@click.pass_obj
def import_command(
    settings: Settings,
    file: str,
    url: str | None,
    progress: bool | None,
    embed: bool,
    as_json: bool,
) -> None:
    """Load an export (FILE, or - for stdin) into a memory; run it again to resume."""
    try:
        with Memory(url or settings.url) as memory:
            with meter("importing", progress) as advance:
                report = memory.import_export(_lines(file), advance)
            embedded = embed_pending(memory, progress, every_tenant=True) if embed else None
    except OSError as error:
        raise click.ClickException(f"cannot read {file}: {error}") from error
    summary = report.to_dict()
    if embedded is not None:
        summary["embedded"] = embedded
    _summary("imported", summary, as_json, err=False)


def embed_pending(
    memory: Memory, progress: bool | None, *, subject: str | None = None, every_tenant: bool
) -> int:
    """Embed the memory's backlog now, with progress on stderr; return how many items."""
    with meter("embedding", progress) as advance:

        def step(done: int, total: int) -> None:
            if advance is not None and total:
                advance("items", done, total)

        return memory.index.run(subject, step, every_tenant=every_tenant)


def key_notes(memory: Memory, progress: bool | None) -> int:
    """Key every note waiting for keys now, with progress on stderr; return how many."""
    with meter("keying", progress) as advance:
        return memory.key_notes(advance)


# -- helpers ------------------------------------------------------------------------------


def _lines(file: str) -> Callable[[], Iterable[str]]:
    """Opens the export for each pass an import makes over it (stdin only once)."""
    used = False

    def open_lines() -> Iterable[str]:
        nonlocal used
        if file == "-":
            if used:
                raise InvalidInput(
                    "file",
                    "the target memory is not empty, so the export is read twice: "
                    "give it as a file, not -",
                )
            used = True
            return _stdin_lines()
        return open(file, encoding="utf-8")

    return open_lines


def _stdin_lines() -> Iterator[str]:
    wrapper = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8")
    try:
        yield from wrapper
    finally:
        wrapper.detach()  # leave the process's stdin open


def _summary(verb: str, report: Mapping[str, Any], as_json: bool, *, err: bool) -> None:
    if as_json:
        if err:
            click.echo(json.dumps(report, ensure_ascii=False, indent=2), err=True)
        else:
            emit_json(report)
        return
    rows: Mapping[str, int] = report["rows"]
    parts = ", ".join(f"{name} {count}" for name, count in rows.items() if count)
    line = f"{verb} {report['total']} rows ({parts or 'nothing'})"
    if report.get("embedded"):
        line += f"; embedded {report['embedded']} items"
    skipped = sum(report.get("skipped", {}).values())
    if skipped:
        line += f"; {skipped} already there, skipped"
    click.echo(line, err=err)


def meter(label: str, wanted: bool | None) -> AbstractContextManager[Progress | None]:
    """Progress on stderr: a bar on a terminal, lines otherwise, or nothing (``wanted``)."""
    stderr = sys.stderr
    on_terminal = stderr.isatty()
    if wanted is False or (wanted is None and not on_terminal):
        return _nothing()
    return _bar(label, stderr) if on_terminal else _lines_meter(label, stderr)


@contextmanager
def _nothing() -> Iterator[None]:
    yield None


@contextmanager
def _bar(label: str, stream: TextIO) -> Iterator[Progress]:
    """A progress bar, made when the first chunk tells how many rows there are."""
    with ExitStack() as stack:
        state: dict[str, Any] = {}

        def advance(table: str, done: int, total: int) -> None:
            if "bar" not in state:
                state["bar"] = stack.enter_context(
                    click.progressbar(
                        length=total,
                        label=label,
                        file=stream,
                        show_pos=True,
                        item_show_func=lambda item: item,
                    )
                )
            bar = state["bar"]
            if total != bar.length:  # the next stage (the import's keying): a bar of its own
                bar.render_finish()
                bar = state["bar"] = stack.enter_context(
                    click.progressbar(length=total, label=table, file=stream, show_pos=True)
                )
            bar.current_item = table
            bar.update(done - bar.pos)

        yield advance


@contextmanager
def _lines_meter(label: str, stream: IO[str]) -> Iterator[Progress]:
    """Progress for a stream that is not a terminal: one line per tenth of the rows."""
    last = [-1, -1]

    def advance(table: str, done: int, total: int) -> None:
        tenth = 10 * done // total if total else 10
        if [tenth, total] != last:
            last[:] = [tenth, total]
            unit = "subjects" if table == KEYING else "rows"
            stream.write(f"{label}: {done}/{total} {unit} ({table})\n")
            stream.flush()

    yield advance
