"""A constant regular expression is compiled once, by its module, never looked up per call.

``re.search(PATTERN, text)`` finds its compiled pattern in ``re``'s one cache of 512, which
every pattern built per call (``re.escape(word)``) shares and which drops its oldest entries
first: after an import of many distinct words, the first recall compiled its constant
patterns again (2.5 ms of a first tenant-wide recall at 10^5 notes, stop 47). So a call of a
``re`` function may only take a pattern built from what the call is given.
"""

from __future__ import annotations

import ast
from pathlib import Path

import memlane

PACKAGE = Path(memlane.__file__).parent
LOOKED_UP = {"search", "match", "fullmatch", "findall", "finditer", "sub", "subn", "split"}


def _constant(node: ast.expr) -> bool:
    """Whether ``node`` names no value of the call: literals and upper-case (module) names."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Name):
        return node.id.isupper()  # ("_PLANS" too: no case to "_")
    if isinstance(node, ast.Attribute):
        return node.attr.isupper() and isinstance(node.value, ast.Name)
    if isinstance(node, ast.JoinedStr):
        return all(
            _constant(part.value if isinstance(part, ast.FormattedValue) else part)
            for part in node.values
        )
    if isinstance(node, ast.BinOp):
        return _constant(node.left) and _constant(node.right)
    return False


def _constant_lookups(path: Path, root: Path = PACKAGE) -> list[str]:
    """Where ``path`` passes a constant pattern to a ``re`` function, as ``file:line``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        f"{path.relative_to(root)}:{node.lineno}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "re"
        and node.func.attr in LOOKED_UP
        and node.args
        and _constant(node.args[0])
    ]


def test_no_constant_pattern_is_looked_up_in_res_cache():
    found = [site for path in sorted(PACKAGE.rglob("*.py")) for site in _constant_lookups(path)]
    assert found == [], "compile these patterns once, at module level: " + ", ".join(found)


def test_the_check_finds_a_constant_pattern(tmp_path):
    module = tmp_path / "m.py"
    module.write_text(
        "import re\n"
        "def f(text, word):\n"
        "    re.search(zh.PLANS, text)\n"
        '    re.sub(rf"^(?:{zh.SUBJECT_WORDS})+", "", text)\n'
        "    re.search(re.escape(word), text)\n"
        '    re.search(rf"\\d{word}", text)\n',
        encoding="utf-8",
    )
    assert _constant_lookups(module, tmp_path) == ["m.py:3", "m.py:4"]  # not the per-call two
