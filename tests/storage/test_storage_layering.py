"""Storage sits at the bottom: it imports plain data and pure rules, never a lane or adapter."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import memlane.storage
from memlane.storage.sqlite.database import native

STORAGE = Path(memlane.storage.__file__).parent
# Storage itself, errors and time, plain data models, the exact lane's pure rules, the
# language data (which characters are CJK) that tokenizing for search needs, the pacing of
# long work beside requests (its building thread's), and what kind of database a location names.
ALLOWED = re.compile(
    r"memlane\.(storage(\..+)?|errors|timeutil|access|pacing|locations|facts\.(model|temporal|normalize)"
    r"|(summaries|window|workflows|privacy)\.model|lang(\.\w+)?)$"
)


def imported(path: Path) -> set[str]:
    """Every ``memlane`` module a file imports, at any depth of the file."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("memlane"):
            found |= {node.module} if node.module != "memlane" else set()
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.startswith("memlane.")}
    return found


def test_storage_imports_nothing_above_it():
    upward = {
        f"{path.relative_to(STORAGE)} imports {module}"
        for path in STORAGE.rglob("*.py")
        for module in imported(path)
        if not ALLOWED.match(module)
    }
    assert not upward


def test_sqlite_runs_the_statements_written_for_postgresql():
    assert native("a = %s AND b = %(b)s AND c LIKE 'x%%'") == "a = ? AND b = :b AND c LIKE 'x%'"
    assert native("%(tenant)s, %(tenant)s") == ":tenant, :tenant"
