"""Sentences and clauses: where they end, and what makes one a question, zh and en."""

from __future__ import annotations

import re

from memlane.lang.script import word_set

ABBREVIATIONS = word_set(
    "mr mrs ms dr prof sr jr st mt vs etc e.g i.e a.m p.m u.s u.k no inc ltd co corp jan feb mar "
    "apr jun jul aug sep sept oct nov dec approx dept fig est ave rd"
)
"""Words that end a sentence only in appearance ("Dr. Li", "e.g. this"); compared lower-cased
without the final dot."""

ZH_QUESTION_END = re.compile(r"(?:吗|么|呢|是否|有没有|能不能|可不可以|要不要|会不会)[。.~～]?$")
"""A Chinese question without a question mark: it ends with 吗, 呢, 是否, 有没有…

Not 吧: without a question mark it closes a suggestion or a request ("洗牙约在周四晚上七点吧",
"下单吧", "叫我孟老师吧"), which states what the speaker wants; asked ("你是学生吧？"), it
carries one."""

CLAUSE_SEPARATOR = re.compile(
    r"[,，;；:：、]\s*|\s+[-–—]\s+"
    r"|\s+(?=(?:and|but|which|because|while|though|although)\s)"
)
"""Cut after punctuation, or before a conjunction so it stays with the clause it opens."""

ASKING_CLAUSE = re.compile(r"[,，]\s*(?=[^,，]*$)")
"""Where the last clause of a sentence begins ("Flying to Oslo next week*, *what's the weather
like?", "我下周去成都出差*，*那边冷吗？"): a question that follows what the speaker tells."""

NUMBERING = re.compile(
    r"^\s*(?:(?:[^\W\d_]{1,12}\s*(?![(（\[【]))?[#№]?\s*[(（\[【]?\s*(?:第\s*)?\d+\s*"
    r"(?:条|项|號|号)?\s*(?:[)）\]】、.:：,，]|-(?!\d))\s*|[#№]\s*\d+\s+)+"
)
"""Numbering in front of a statement: "22、", "(3)", "（3）", "第33条：", "#4", "Fact 12:".

Not a date a statement opens with, nor one in brackets after its first words: "下周去东京出差
（2025-12-29 那周）" keeps its words (a label is no label before a bracket, and "2025-12"
is no number followed by a dash)."""
