"""What memlane knows of Chinese and English, in one place.

Every component that reads language — extraction, notes, claims, query analysis — asks
this package ("is this a negation?", "which value does this sentence retract?") instead of
keeping a word list of its own. Vocabulary is data, one module per language
(:mod:`memlane.lang.zh`, :mod:`memlane.lang.en`); the functions here only combine it.

What is still hand-written, and why: cue words (how a language says "no longer", "from …
to …", "instead of"), negators, question words and the words for oneself and for other
people are closed classes — a few dozen words each — that no library on PyPI lists for
both languages; everything open-class (places, names, values) is found by shape or slot,
never listed.
"""

from memlane.lang.changes import Retraction, retractions
from memlane.lang.roles import roles_named, roles_of_subject
from memlane.lang.script import CJK_RANGES, is_cjk
from memlane.lang.words import (
    asks_about_plans,
    is_negated,
    mentions_value,
    names_other_person,
    negates_next,
    owner_of,
    salient_terms,
    shares_term,
    tells_episode,
)

__all__ = [
    "CJK_RANGES",
    "Retraction",
    "asks_about_plans",
    "is_cjk",
    "is_negated",
    "mentions_value",
    "names_other_person",
    "negates_next",
    "owner_of",
    "retractions",
    "roles_named",
    "roles_of_subject",
    "salient_terms",
    "shares_term",
    "tells_episode",
]
