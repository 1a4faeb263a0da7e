"""Well-known places: kept in :mod:`memlane.lang.places`, named here for the extractors."""

from __future__ import annotations

from memlane.lang.places import (
    EN_PLACES,
    ZH_PLACES,
    is_en_place,
    is_zh_place,
    longest_zh_place_prefix,
)

__all__ = ["EN_PLACES", "ZH_PLACES", "is_en_place", "is_zh_place", "longest_zh_place_prefix"]
