"""Every example in memlane's docstrings runs and holds.

Modules are found, not listed: a new module's ``>>>`` examples are checked from the day
they are written.
"""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import pkgutil
from pathlib import Path

import pytest

import memlane


def _source(name: str) -> str:
    spec = importlib.util.find_spec(name)
    origin = spec.origin if spec else None
    return Path(origin).read_text("utf-8") if origin and origin.endswith(".py") else ""


MODULES = [
    module.name
    for module in pkgutil.walk_packages(memlane.__path__, "memlane.")
    if ">>> " in _source(module.name)
]


def test_examples_are_found_in_every_package_that_has_them():
    packages = {name.split(".")[1] for name in MODULES}
    assert {"bench", "embed", "lang", "router", "validation"} <= packages


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    # A module whose only examples need a server marks them +SKIP; every other one runs some.
    assert result.attempted > 0 or "+SKIP" in _source(name)
