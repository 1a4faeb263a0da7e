"""normalize_for_dedupe, rewritten as one regular expression, keys text as the loop did."""

from __future__ import annotations

import random
import re

from memlane.lang.script import fold
from memlane.summaries.text import normalize_for_dedupe

_RUN = re.compile(r"[^\W_]+")
# Latin and accented letters, digits, CJK, full-width forms, underscores, marks, spacing.
_ALPHABET = "aBz09 _-!?.,'’\u00e9\u00dfö我搬到北京了！１３８Ａｂ\u0301\u3000\t\n#"


def _as_the_loop_did(text: str) -> str:
    out: list[str] = []
    for piece in _RUN.findall(fold(text)):
        last = out[-1][-1] if out else ""
        if last.isascii() and last.isalpha() and piece[0].isascii() and piece[0].isalpha():
            out.append(" ")
        out.append(piece)
    return "".join(out)


def test_same_key_as_the_loop() -> None:
    rng = random.Random(15)
    texts = [
        "  I moved to Beijing!! ",
        "138-0000-1234",
        "我搬到北京了！",
        "café au lait, s'il vous plaît",
        "",
        "___",
        "a_b c-d 1 2 x9 9x",
    ]
    texts += ["".join(rng.choice(_ALPHABET) for _ in range(rng.randrange(40))) for _ in range(5000)]
    for text in texts:
        assert normalize_for_dedupe(text) == _as_the_loop_did(text), text
