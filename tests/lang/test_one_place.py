"""The knowledge of a language lives in memlane.lang; a test keeps it from being typed again."""

from __future__ import annotations

import re
from pathlib import Path

import memlane

PACKAGE = Path(memlane.__file__).parent
LANG = PACKAGE / "lang"

# What memlane.lang owns so far, as it would be typed again elsewhere.
OWNED = {
    "a CJK character range": re.compile(r"\\u(?:3400|4e00|9fff|4dbf|f900)", re.IGNORECASE),
    "a negation test of its own": re.compile(r"^def is_negated\(|^_NEGAT\w* = re\.compile", re.M),
    "a retraction cue list": re.compile(r"no\\s\+longer|不再用|不用了"),
}


def _modules() -> list[Path]:
    return [path for path in PACKAGE.rglob("*.py") if LANG not in path.parents]


def test_language_knowledge_is_not_defined_outside_memlane_lang() -> None:
    found = [
        f"{path.relative_to(PACKAGE)}: {what}"
        for path in _modules()
        for what, pattern in OWNED.items()
        if pattern.search(path.read_text(encoding="utf-8"))
    ]
    assert found == []


def test_the_check_finds_a_copy() -> None:
    copy = 'NEGATION_RANGE = "[\\u4e00-\\u9fff]"'
    assert OWNED["a CJK character range"].search(copy)
