"""Small pieces of grammar components read: English verb endings, joiners, the Chinese 的."""

from __future__ import annotations

from memlane.lang import en

VERB_ENDING = r"(?:ing|ed|es|e|s)$"
"""The endings an English verb's base is found without ("moving" → "mov", "moved" → "mov")."""

ZH_LINKER = " 的"
"""What may stand between two nouns and still tie them ("公司的邮箱": the company's e-mail)."""

JOINERS = en.PREPOSITIONS | {"a", "an", "the", "and", "or"}
"""Words two values may share and still be one span ("onward through *the* fog", "patience
makes *the* path"); a shared verb ("… quarterly *is* …", "… journal *is* …") splits them."""
