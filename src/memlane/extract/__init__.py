"""Extraction: turn one statement into fact operations and typed mentions.

:class:`RuleExtractor` is the offline, deterministic extractor (Chinese and English);
:func:`resolve_times` and :func:`find_identifiers` are its building blocks, reused by the
router to read queries.
"""

from memlane.extract.config import ExtractConfig
from memlane.extract.identifiers import find_identifiers
from memlane.extract.model import AttributeSpec, Extraction, Extractor, FactOp, Mention
from memlane.extract.rules import RuleExtractor
from memlane.extract.times import resolve_times, time_interval

__all__ = [
    "AttributeSpec",
    "ExtractConfig",
    "Extraction",
    "Extractor",
    "FactOp",
    "Mention",
    "RuleExtractor",
    "find_identifiers",
    "resolve_times",
    "time_interval",
]
