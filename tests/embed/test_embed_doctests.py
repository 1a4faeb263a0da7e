import doctest
import importlib

import pytest

MODULES = [
    "memlane.embed.base",
    "memlane.embed.cache",
    "memlane.embed.factory",
    "memlane.embed.hashing",
    "memlane.embed.openai_compat",
    "memlane.embed.pieces",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    # The endpoint example is marked +SKIP (it needs a server); every other module runs some.
    assert result.attempted > 0 or name.endswith("openai_compat")
