"""Project hygiene that reviewers would otherwise check by hand."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import memlane

ROOT = Path(__file__).resolve().parent.parent


def test_public_names_are_sorted_and_importable():
    assert memlane.__all__ == sorted(memlane.__all__)
    for name in memlane.__all__:
        assert getattr(memlane, name) is not None


def test_readme_has_exactly_two_setup_commands():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    setup = readme.split("## Setup", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"```(?:sh|bash|console)\n(.*?)```", setup, flags=re.S)
    lines = [line for block in commands for line in block.strip().splitlines()]
    assert lines == ["pip install . && memlane demo", 'pip install -e ".[test]" && pytest']


def python_snippets():
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = path.read_text(encoding="utf-8")
        for number, block in enumerate(re.findall(r"```python\n(.*?)```", text, flags=re.S)):
            yield pytest.param(block, id=f"{path.name}-{number}")


@pytest.mark.parametrize("snippet", list(python_snippets()))
def test_doc_snippets_run(snippet, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    exec(compile(snippet, "<doc snippet>", "exec"), {"__name__": "__doc__"})


def _tool(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent))
    if found is None:
        pytest.fail(f"{name} is not installed; pip install -e '.[test]'")
    return found


@pytest.mark.parametrize(
    "command",
    [
        ["ruff", "check", "src", "tests", "bench"],
        ["ruff", "format", "--check", "src", "tests", "bench"],
        ["mypy"],
    ],
    ids=["ruff-check", "ruff-format", "mypy-strict"],
)
def test_static_checks(command):
    result = subprocess.run(
        [_tool(command[0]), *command[1:]], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
