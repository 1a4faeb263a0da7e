"""Small pieces of grammar components read: English verb endings, the Chinese 的."""

from __future__ import annotations

VERB_ENDING = r"(?:ing|ed|es|e|s)$"
"""The endings an English verb's base is found without ("moving" → "mov", "moved" → "mov")."""

ZH_LINKER = " 的"
"""What may stand between two nouns and still tie them ("公司的邮箱": the company's e-mail)."""
