"""More ways to ask for an attribute, beside :data:`memlane.router.synonyms.DEFAULT_SYNONYMS`.

Colloquial questions about where someone lives or works now: "客户现在人在哪呀", "常住地",
"他在哪干", "客户目前的东家", "where's home for this user", "where's she working now", "which
firm employs the customer". Every new registry starts with them.
"""

from __future__ import annotations

ASKED_BY: dict[str, tuple[str, ...]] = {
    "location": ("人在哪", "常住", "where's home", "where is home"),
    "work_location": ("where * working",),
    "employer": (
        "在哪干", "东家", "where * working", "employs", "employed",
    ),
}  # fmt: skip
"""Phrases by attribute; "where * working" asks for the employer or the place of work."""
