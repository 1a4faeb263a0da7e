"""Imports only point down: adapters → facade → router → flows → lanes → storage → shared.

Every module of ``src/memlane`` is parsed (imports inside functions and ``TYPE_CHECKING``
blocks count too) and given the layer of the longest prefix in :data:`LAYERS`. A module may
import its own layer or any layer below it; an import of a higher layer is an upward edge and
fails the test. Backends implement the storage protocols, so they sit above them in import
terms; they are private besides: only the facade (and storage itself) opens one. See
ARCHITECTURE.md and STYLE.md rule 13.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "memlane"

LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("entry point", ("memlane.__main__",)),
    # Thin consumers of the facade. The CLI hosts the benchmark suites (`memlane bench`).
    ("adapters", ("memlane.cli",)),
    ("benchmarks", ("memlane.bench",)),
    ("services", ("memlane.server", "memlane.integrations")),
    # The one facade, the package's public names, and the choice of models it wires.
    ("facade", ("memlane", "memlane.memory", "memlane.models")),
    ("router", ("memlane.router",)),
    # Flows over several lanes: a running session, remember, forget and the views.
    ("flows", ("memlane.sessions", "memlane.session", "memlane.ingest", "memlane.privacy")),
    (
        "lanes",
        (
            "memlane.facts",
            "memlane.summaries",
            "memlane.window",
            "memlane.workflows",
            "memlane.keyring",
        ),
    ),
    ("backends", ("memlane.storage",)),
    (
        "storage protocols",
        ("memlane.storage.base", "memlane.storage.fact_stores", "memlane.storage.archiving"),
    ),
    # Models and language: anything above may use them.
    ("models and language", ("memlane.extract", "memlane.llm", "memlane.embed")),
    # Plain data and pure rules that storage, lanes and models share (STYLE.md rule 13).
    (
        "plain data",
        (
            "memlane.access",
            "memlane.extract.model",
            "memlane.facts.model",
            "memlane.facts.normalize",
            "memlane.facts.phones",
            "memlane.facts.temporal",
            "memlane.privacy.model",
            "memlane.summaries.model",
            "memlane.summaries.summarizer",
            "memlane.window.model",
            "memlane.workflows.model",
            # Vectors and words that the summary search shares with storage.
            "memlane.storage.lexical",
            "memlane.storage.vectors",
        ),
    ),
    ("language", ("memlane.lang",)),
    (
        "foundations",
        (
            "memlane.errors",
            "memlane.validation",
            "memlane.timeutil",
            "memlane.tables",
            "memlane.pacing",
            # What kind of database a location names (storage and the benchmarks use it).
            "memlane.locations",
            # Results of pure text functions kept for one recall (language uses it).
            "memlane.memo",
            # The garbage collector held off for a bulk write (the lanes use it).
            "memlane.collector",
        ),
    ),
)
"""The layers, top first: each entry names the module prefixes it holds."""

BACKENDS = ("memlane.storage", "memlane.storage.sqlite", "memlane.storage.postgres")
"""Modules that open or are a backend; only :data:`OPENERS` import them."""

OPENERS = ("memlane.memory", "memlane.storage")

KNOWN_EXCEPTIONS: dict[tuple[str, str], str] = {
    # Storage benchmarks measure the stores themselves, below the facade (batched notes,
    # storage-only probes, workflow lanes with bench-only thresholds).
    ("memlane.bench.backends", "memlane.storage"): "measures the SummaryStore directly",
    ("memlane.bench.workflows", "memlane.storage"): "builds WorkflowsLane with test thresholds",
}
"""Edges that point up today, each with why; remove an entry when its edge is fixed."""


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def imports(name: str) -> set[str]:
    """The memlane modules ``name`` imports (``from pkg import mod`` names ``pkg.mod``)."""
    path = MODULES[name]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(name, path, node)
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                found.add(submodule if submodule in MODULES else base)
    return {target for target in found if target in MODULES}


def _absolute(name: str, path: Path, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    package = package[: len(package) - node.level + 1]
    return ".".join([*package, *([node.module] if node.module else [])])


def layer(name: str) -> int:
    """The index in :data:`LAYERS` of the longest prefix naming ``name``."""
    best, best_length = -1, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            matches = name == prefix or name.startswith(prefix + ".")
            if matches and len(prefix) > best_length:
                best, best_length = index, len(prefix)
    if best < 0:
        pytest.fail(f"{name} is in no layer: add it to LAYERS in {__file__}")
    return best


def upward_edges() -> list[str]:
    edges = []
    for name in MODULES:
        for target in sorted(imports(name)):
            if layer(target) < layer(name) and (name, target) not in KNOWN_EXCEPTIONS:
                edges.append(f"{name} ({_named(name)}) imports {target} ({_named(target)})")
    return edges


def _named(module: str) -> str:
    return LAYERS[layer(module)][0]


def backend_openers() -> list[str]:
    found = []
    for name in MODULES:
        if any(name == opener or name.startswith(opener + ".") for opener in OPENERS):
            continue
        for target in sorted(imports(name)):
            opens = target in BACKENDS or target.startswith(
                ("memlane.storage.sqlite.", "memlane.storage.postgres.", "memlane.storage.sql")
            )
            if opens and (name, "memlane.storage") not in KNOWN_EXCEPTIONS:
                found.append(f"{name} imports {target}")
    return found


def test_every_module_has_a_layer() -> None:
    for name in MODULES:
        layer(name)


def test_imports_only_point_down() -> None:
    assert upward_edges() == []


def test_only_the_facade_opens_a_backend() -> None:
    assert backend_openers() == []


def test_known_exceptions_are_still_needed() -> None:
    """An exception whose edge is gone must be removed, so the list stays true."""
    for name, target in KNOWN_EXCEPTIONS:
        if target == "memlane.storage":
            assert any(t.startswith("memlane.storage") for t in imports(name)), name
        else:
            assert target in imports(name), (name, target)


def test_the_parser_sees_relative_nested_and_module_imports() -> None:
    relative = ast.parse("from . import base").body[0]
    assert isinstance(relative, ast.ImportFrom)
    assert _absolute("memlane.storage.sql.facts", PACKAGE / "x.py", relative) == (
        "memlane.storage.sql"
    )
    assert "memlane.validation" in imports("memlane.session")  # from memlane import validation
    assert "memlane.memory" not in imports("memlane.session")
    assert "memlane.extract.llm" in imports("memlane.models")  # imported inside a function
