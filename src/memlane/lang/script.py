"""Writing systems: which characters are CJK ideographs (one definition for every module)."""

from __future__ import annotations

CJK_RANGES = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
"""CJK ideographs (extension A, the unified block, compatibility ideographs), for a regex class."""


def is_cjk(char: str) -> bool:
    """True for one CJK ideograph.

    >>> is_cjk("京"), is_cjk("a")
    (True, False)
    """
    return (
        "\u3400" <= char <= "\u4dbf" or "\u4e00" <= char <= "\u9fff" or "\uf900" <= char <= "\ufaff"
    )
