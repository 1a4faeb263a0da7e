"""The head of a relation as a statement names it: "The head *coach* of the Falcons is …".

A statement of a relation names it with a noun phrase linked to its holder: English puts
the holder after "of" ("the head coach *of* the Wendridge Falcons"), Chinese before 的 with
the value after 是 ("澜峪飞马队*的*队长*是*沈星野"). The relation's head is the last word
before "of" (a noun phrase ends with its head: a *head* coach is a coach), or the run
between 的 and 是. Only the linking words are written down: a closed class of each language.

>>> sorted(relation_heads("Fact 6: The head coach of the Tovmarsh Comets is Magnus Moyo."))
['coach']
>>> sorted(relation_heads("（20）澜峪飞马队的队长是沈星野。"))
['队长']
>>> sorted(relation_heads("Luxlith Biotech has its headquarters in Yelridge."))
[]
"""

from __future__ import annotations

import re

from memlane.lang.script import CJK_RANGES, fold

_EN_HEAD = re.compile(r"\b([a-z][a-z'-]*[a-z])\s+of\s+(?:the\s+)?[a-z]")
"""The word before "of" that links a relation to its holder."""
_ZH_HEAD = re.compile(f"的([{CJK_RANGES}]{{1,5}}?)是")
"""The run between the holder's 的 and the value's 是."""


def relation_heads(statement: str) -> frozenset[str]:
    """The heads of the relations ``statement`` names (see the module docstring)."""
    folded = fold(statement)
    return frozenset(m[1] for m in _EN_HEAD.finditer(folded)) | frozenset(
        m[1] for m in _ZH_HEAD.finditer(folded)
    )
