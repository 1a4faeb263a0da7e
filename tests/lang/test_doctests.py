"""The examples in memlane.lang's docstrings run and hold."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "memlane.lang.changes",
    "memlane.lang.frames",
    "memlane.lang.kinds",
    "memlane.lang.phonelabels",
    "memlane.lang.qualifiers",
    "memlane.lang.roles",
    "memlane.lang.words",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
