"""Task descriptions (English): the words a workflow's steps and task types are read by.

Workflows are induced from what an agent did ("Book a flight from Paris to Rome on May 3"):
dates, the words that are no parameter names, and what a preposition says a value is for
("from" → origin, "on" → date). These are those words.
"""

from __future__ import annotations

import re

DATE = re.compile(
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b|\b\d{1,2}/\d{1,2}\b"
    r"|\b\d{4}-\d{2}-\d{2}\b|\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b",
    re.IGNORECASE,
)
"""Dates in a task description: month names, weekdays, d/m and ISO dates."""

NAME_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "or",
        "and",
        "of",
        "your",
        "my",
        "our",
        "required",
        "to",
        "for",
        "with",
        "by",
        "in",
        "on",
        "at",
        "from",
        "is",
        "are",
        "this",
        "that",
        "use",
        "enter",
        "please",
        "it",
    ]
)
"""Words never taken into a parameter's name (articles, prepositions, please, enter…)."""

PREPOSITION_ROLES = {
    "from": "origin",
    "to": "destination",
    "on": "date",
    "before": "date",
    "after": "date",
    "in": "location",
    "at": "location",
    "near": "location",
    "for": "target",
    "with": "option",
    "by": "author",
}
"""What a preposition says the value after it is for: from → origin, on → date, in →
location…"""

MONTH = re.compile(
    r"^(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)(?:[a-z]*)$", re.IGNORECASE
)
"""A month name or abbreviation, alone."""

STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "to",
        "in",
        "on",
        "for",
        "from",
        "at",
        "by",
        "with",
        "and",
        "or",
        "is",
        "are",
        "was",
        "were",
        "be",
        "me",
        "my",
        "i",
        "our",
        "us",
        "you",
        "your",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "what",
        "which",
        "who",
        "how",
        "many",
        "much",
        "do",
        "does",
        "did",
        "can",
        "please",
        "all",
        "any",
        "some",
    ]
)
"""Words that do not tell two task types apart."""

ORDINAL_SUFFIXES = ("st", "nd", "rd", "th")
"""What follows a number to make it an ordinal ("3 rd" split from "3rd")."""
