"""The text child of a memory opened with ``indexing="process"``."""

from __future__ import annotations

import memlane
from memlane.textwork import TextProcess


def text_child(mem: memlane.Memory) -> TextProcess:
    """The memory's text child (it reads long notes, turns and folds): fails if it has none."""
    child = mem._resources.text
    assert isinstance(child, TextProcess)
    return child
