"""What memlane knows of Chinese and English, in one place.

Every component that reads language — extraction, notes, claims, query analysis — asks
this package ("is this a negation?", "which value does this sentence retract?") instead of
keeping a word list of its own. Vocabulary is data: the closed classes of each language in
:mod:`memlane.lang.zh` and :mod:`memlane.lang.en`, and a module per topic with both side by
side (:mod:`~memlane.lang.attributes`, :mod:`~memlane.lang.times`, :mod:`~memlane.lang.codes`,
:mod:`~memlane.lang.places`, :mod:`~memlane.lang.speaker`, :mod:`~memlane.lang.stopwords`, …);
the functions here only combine it. ``tests/lang/test_one_place.py`` fails when another
module keeps a vocabulary of its own.

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
    asked_terms,
    asks_about_plans,
    is_negated,
    mentions_value,
    names_other_person,
    negates_next,
    owner_of,
    salient_terms,
    salient_terms_besides,
    shares_term,
    tells_episode,
)

__all__ = [
    "CJK_RANGES",
    "Retraction",
    "asked_terms",
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
    "salient_terms_besides",
    "shares_term",
    "tells_episode",
]
