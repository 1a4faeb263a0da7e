"""Text helpers shared by the offline summarizer and the note extractor (Chinese and English).

Everything here is deterministic and dependency-free: sentence splitting, a token estimate
for budgets, normalization for de-duplication, typed spans (identifiers, dates, amounts,
quantities) that must survive verbatim, and light keyword helpers.
"""

from __future__ import annotations

import itertools
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from memlane.lang.script import UNSPACED_RANGES

SpanKind = Literal["identifier", "date", "amount", "quantity", "number"]

_CJK_CLASS = UNSPACED_RANGES


def word_set(text: str) -> frozenset[str]:
    """The whitespace-separated words of ``text`` as a set (for readable word lists)."""
    return frozenset(text.split())


_CJK_CHAR = re.compile(f"[{_CJK_CLASS}]")
_CJK_RUN = re.compile(f"[{_CJK_CLASS}]+")

# Words that end a sentence only in appearance ("Dr. Li", "e.g. this"); compared lower-cased
# without the final dot.
_ABBREVIATIONS = word_set(
    "mr mrs ms dr prof sr jr st mt vs etc e.g i.e a.m p.m u.s u.k no inc ltd co corp jan feb mar "
    "apr jun jul aug sep sept oct nov dec approx dept fig est ave rd"
)
_CLOSERS = "\"'”’」』）)]】》"
_ALWAYS_END = "。！？；!?…"

ENGLISH_STOPWORDS = word_set(
    """a about above after again against all also am an and any are aren't as at be because
    been before being below between both but by can can't cannot could couldn't did didn't do
    does doesn't doing don't down during each even ever every few for from further get gets got
    gotta had hadn't has hasn't have haven't having he he'd he'll he's her here here's hers
    herself him himself his how how's i i'd i'll i'm i've if in into is isn't it it's its itself
    just let let's lot lots made make makes many may me might more most much must mustn't my
    myself need needs never no nor not now of off often oh on once one only or other ought our
    ours ourselves out over own per quite rather really same shall she she'd she'll she's should
    shouldn't since so some something still such sure than that that's the their theirs them
    themselves then there there's these they they'd they'll they're they've thing things this
    those though through thus till to too under until up upon us very was wasn't way we we'd
    we'll we're we've were weren't what what's whatever when when's where where's whether which
    while who who's whom why why's will with within without won't would wouldn't yet you you'd
    you'll you're you've your yours yourself yourselves also back bit going gonna go goes went
    come came take took want wanted think thought know knew say said tell told see saw look
    looking feel felt kind sort maybe always usually already cuz 'cause ya yep yesterday today
    tomorrow tonight week weekend month year last next ago lately recently soon later help
    helps helped keep kept try tried trying give gave given start started put seem seems mean
    means almost done doing getting gets find found use used able lots bunch whole totally"""
)
"""Function words and very common verbs, lower case, ignored as keywords."""

SMALL_TALK_WORDS = word_set(
    """hi hello hey heya hiya yo bye goodbye thanks thank ty thx please sorry ok okay okey yeah
    yes yea yup no nope nah wow whoa woah cool great awesome amazing nice good fine lovely
    wonderful fantastic terrible bad haha hahaha lol lmao omg um uh hmm hm mm ah aw aww oops
    welcome cheers congrats congratulations glad happy sounds sound totally definitely
    absolutely indeed true right exactly agree love like super pretty fun stuff mate buddy dear
    guys friend appreciate care morning evening afternoon night day long time see"""
)
"""Greetings, interjections and stock reactions: words that carry no content."""

# Chinese function words and stock phrases: the split points that cut a Chinese sentence
# into candidate key phrases (longest first so 什么 wins over 什).
_CJK_FUNCTION_WORDS = sorted(
    word_set(
        """我们 你们 他们 她们 它们 咱们 自己 什么 怎么 怎样 为什么 哪里 哪儿 这里 那里 这个 那个
    这些 那些 一个 一下 一些 一点 有点 已经 因为 所以 但是 可是 不过 如果 虽然 然后 还是 就是
    不是 没有 可以 可能 应该 需要 想要 觉得 知道 现在 今天 昨天 明天 前天 后天 刚才 刚刚 时候
    非常 真的 特别 比较 还有 而且 或者 以及 请问 谢谢 你好 您好 好的 嗯嗯 哈哈 是的 对的 一定
    帮我 麻烦 告诉 一直 总是 其实 大家 东西 事情 问题 的话 之前 之后 以后 以前 最近 上周 下周
    本周 这周 上个月 下个月 这个月 去年 今年 明年 上个星期 下个星期 刚才 一直 今晚 昨晚
    的 了 吗 呢 吧 啊 呀 哦 嗯 么 啦 哈 我 你 您 他 她 它 们 是 在 和 与 跟 也 都 就 还 很 太 把
    被 给 又 才 这 那 个 从 向 要 能 想 让 去 来 说 有 没 不 再 更 请 帮 但 而 或 并 些""",
    ),
    key=lambda word: (-len(word), word),
)
_CJK_SPLIT = re.compile(
    "|".join(re.escape(word) for word in _CJK_FUNCTION_WORDS) + f"|[^{_CJK_CLASS}]+"
)

_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?"
)
_ORD = r"(?:st|nd|rd|th)?"
_NUM = r"\d+(?:[.,]\d+)*"
_CURRENCY_WORD = (
    r"(?:元|块钱|块|角|毛|万元|美元|美金|欧元|英镑|日元|港币|dollars?|bucks|cents?|USD|CNY|RMB"
    r"|EUR|GBP|HKD|JPY|yuan|euros?|pounds?)"
)
_UNIT = (
    r"(?:km|kms|kg|kgs|cm|mm|ml|lbs?|g|m|mi|miles?|kilometers?|kilometres?|meters?|metres?"
    r"|hours?|hrs?|minutes?|mins?|seconds?|secs?|days?|weeks?|months?|years?|yrs?|kids?"
    r"|children|people|persons?|times|pages?|books?|K|GB|MB|TB|%|公里|千米|米|厘米|公斤|千克|斤"
    r"|克|个月|个小时|小时|分钟|秒|天|周|星期|岁|个|次|人|位|件|本|只|张|台|部|套|箱|瓶|杯|份)"
)

# Ordered by priority: an earlier kind claims its characters first, so "2026-07-01" is a
# date rather than a dashed identifier, and "100元" an amount rather than a quantity.
_SPAN_PATTERNS: tuple[tuple[SpanKind, re.Pattern[str]], ...] = (
    ("identifier", re.compile(r"https?://[^\s<>\"'，。！？、）]+[^\s<>\"'，。！？、）.,;:!?)]")),
    ("identifier", re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}")),
    (
        "date",
        re.compile(
            r"(?<!\d)\d{4}[-/.]\d{1,2}[-/.]\d{1,2}(?:[T ]\d{1,2}:\d{2}(?::\d{2})?)?(?!\d)"
            r"|(?<![\d/])\d{1,2}/\d{1,2}/\d{2,4}(?![\d/])"
            r"|(?:\d{2,4}\s*年\s*)?\d{1,2}\s*月(?:\s*\d{1,2}\s*[日号])?"
            r"|(?<!\d)\d{4}\s*年(?!\d)"
            r"|(?:上午|下午|晚上|早上|中午|凌晨|傍晚)\d{1,2}\s*[点:：](?:\d{1,2}分?|半)?"
            r"|(?<!\d)\d{1,2}[:：]\d{2}(?::\d{2})?(?:\s?[apAP]\.?[mM]\.?)?(?![\d:])"
            r"|(?<![\d.])\d{1,2}\s?[apAP]\.?[mM]\.?(?![A-Za-z])"
            rf"|\b{_MONTH}\s+\d{{1,2}}{_ORD}(?:,?\s+\d{{4}})?\b"
            rf"|\b\d{{1,2}}{_ORD}\s+(?:of\s+)?{_MONTH}(?:,?\s+\d{{4}})?"
            rf"|\b{_MONTH},?\s+\d{{4}}\b"
            r"|(?<![\d.,])(?:19|20)\d{2}(?!\d|[.,]\d|[A-Za-z]|\s*(?:元|块|dollars?|people|%))"
        ),
    ),
    (
        "identifier",
        re.compile(
            r"(?<![\w-])\+?\d{1,4}[- ]?\(\d{2,4}\)[- ]?\d{3,4}[- ]?\d{3,4}(?![\w-])"
            r"|(?<![\w-])1[3-9]\d[- ]\d{4}[- ]\d{4}(?![\w-])"
            r"|(?<![\w-])\+\d{1,3}(?:[ -]\d{2,5}){2,5}(?![\w-])"
            r"|(?<![\w-])\+?\d[\d-]{5,}\d(?![\w-])"
            r"|#\d{3,}\b"
            r"|(?<![\w-])(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z])"
            r"[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)*(?![\w-])"
        ),
    ),
    (
        "amount",
        re.compile(
            rf"[$€£¥￥]\s?{_NUM}(?:\s?(?:k|K|m|M|million|billion|万|千))?"
            rf"|(?:RMB|USD|CNY|EUR|GBP|HKD)\s?{_NUM}"
            rf"|{_NUM}\s?(?:万|千|百)?\s?{_CURRENCY_WORD}(?![A-Za-z])"
        ),
    ),
    ("quantity", re.compile(rf"{_NUM}\s?{_UNIT}(?![A-Za-z])")),
    ("number", re.compile(r"'?\d+(?:[.,]\d+)*(?:st|nd|rd|th|s)?")),
)
# Alphanumeric runs the identifier rule would otherwise claim: ordinals, decades, "5K",
# "10am", "3x", "mp3"-like unit suffixes.
_NOT_IDENTIFIER = re.compile(
    rf"\d+(?:st|nd|rd|th|s|x|k|K|am|pm|AM|PM|D|d)|\d+{_UNIT}|[A-Za-z]{{1,2}}\d|\d[A-Za-z]"
)
_QUESTION_END = re.compile(r"[?？]\s*[\"'”’)）]*$")
_ZH_QUESTION = re.compile(r"(?:吗|么|呢|吧|是否|有没有|能不能|可不可以|要不要|会不会)[。.~～]?$")
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*[A-Za-z]|[A-Za-z]")


@dataclass(frozen=True, slots=True)
class TypedSpan:
    """A typed piece of text found by :func:`find_spans`, with its offsets."""

    kind: SpanKind
    text: str
    start: int
    end: int


def is_cjk(char: str) -> bool:
    """True for a CJK ideograph, kana or hangul character."""
    return bool(_CJK_CHAR.fullmatch(char))


def contains_cjk(text: str) -> bool:
    """True when ``text`` has at least one CJK character (the zh/en switch used throughout)."""
    return _CJK_CHAR.search(text) is not None


def split_sentences(text: str) -> list[str]:
    """Split Chinese and English text into sentences, keeping their punctuation.

    Chinese ends at 。！？；… unconditionally; English ends at ``. ! ?`` followed by a space,
    the end, or a CJK character, except after abbreviations ("Dr.", "e.g."), initials
    ("J. K.") and before a lower-case word. Line breaks always end a sentence.

    >>> split_sentences("我搬到北京了。你呢？Dr. Li moved. OK!")
    ['我搬到北京了。', '你呢？', 'Dr. Li moved.', 'OK!']
    """
    sentences: list[str] = []
    for line in text.splitlines():
        start = 0
        index = 0
        while index < len(line):
            char = line[index]
            if char in _ALWAYS_END or char == ".":
                end = _absorb_terminators(line, index)
                if char in _ALWAYS_END or _dot_ends_sentence(line, index, end):
                    _append_stripped(sentences, line[start:end])
                    start = end
                index = end
                continue
            index += 1
        _append_stripped(sentences, line[start:])
    return sentences


def _absorb_terminators(line: str, index: int) -> int:
    """Index after a run of terminators and closing quotes/brackets ("?!", "...", '."')."""
    end = index + 1
    while end < len(line) and (line[end] in _ALWAYS_END or line[end] == "."):
        end += 1
    while end < len(line) and line[end] in _CLOSERS:
        end += 1
    return end


def _dot_ends_sentence(line: str, dot: int, end: int) -> bool:
    if end < len(line) and not (line[end].isspace() or is_cjk(line[end])):
        return False  # "3.5", "a.b@c.com", "U.S.A" inside a token
    rest = line[end:].lstrip()
    if rest and rest[0].islower():
        return False  # "e.g. this", "etc. and" and "wait... what"
    word_start = dot
    while word_start > 0 and (
        (line[word_start - 1].isascii() and line[word_start - 1].isalnum())
        or line[word_start - 1] == "."
    ):
        word_start -= 1
    word = line[word_start:dot].lower()
    if end - dot > 1:
        return True  # an ellipsis or "?." before an upper-case word ends the sentence
    return not (word in _ABBREVIATIONS or (len(word) == 1 and word.isalpha()))


def _append_stripped(sentences: list[str], piece: str) -> None:
    piece = piece.strip()
    if piece:
        sentences.append(piece)


_TOKEN_PIECES = re.compile(
    f"(?P<cjk>[{_CJK_CLASS}])|(?P<word>[^\\W\\d_]+(?:['’][^\\W\\d_]+)*)|(?P<digits>\\d+)"
    r"|(?P<other>\S)"
)


def estimate_tokens(text: str) -> int:
    """Estimate how many LLM tokens ``text`` costs, for budgets (no tokenizer needed).

    Rules, chosen to err slightly high for common BPE tokenizers: each CJK character
    (ideograph, kana, hangul) is 1 token; each other word is 1.3 tokens; a digit run costs
    1 token per 3 digits; any other visible character (punctuation, symbols) half a token.
    Whitespace is free. The sum is rounded up; empty text is 0.

    >>> estimate_tokens("我搬到北京了")
    6
    >>> estimate_tokens("I moved to Beijing.")
    6
    """
    total = 0.0
    for match in _TOKEN_PIECES.finditer(text):
        kind = match.lastgroup
        if kind == "cjk":
            total += 1.0
        elif kind == "word":
            total += 1.3
        elif kind == "digits":
            total += math.ceil(len(match.group()) / 3)
        else:
            total += 0.5
    return math.ceil(total - 1e-9)


def normalize_for_dedupe(text: str) -> str:
    """Reduce text to a comparison key: NFKC, case-folded, punctuation and spacing removed.

    Latin words stay separated by one space; CJK and digits are joined, so "138-0000-1234"
    and "13800001234" compare equal, as do "我搬到北京了！" and "我搬到北京了".

    >>> normalize_for_dedupe("  I moved to Beijing!! ")
    'i moved to beijing'
    """
    pieces = _ALNUM_RUN.findall(unicodedata.normalize("NFKC", text).casefold())
    out: list[str] = []
    for piece in pieces:
        if out and _latin_letter(out[-1][-1]) and _latin_letter(piece[0]):
            out.append(" ")
        out.append(piece)
    return "".join(out)


_ALNUM_RUN = re.compile(r"[^\W_]+")


def _latin_letter(char: str) -> bool:
    return char.isascii() and char.isalpha()


def find_spans(text: str, kinds: frozenset[SpanKind] | None = None) -> list[TypedSpan]:
    """Find identifiers, dates, amounts, quantities and bare numbers, left to right.

    Spans never overlap; the text is kept exactly as written. ``kinds`` filters the result
    (all kinds are still matched, so priorities hold).

    >>> [(s.kind, s.text) for s in find_spans("新手机号 139-1111-2222，2026年7月1日付了100元")]
    [('identifier', '139-1111-2222'), ('date', '2026年7月1日'), ('amount', '100元')]
    """
    if not _SPAN_HINT.search(text):
        return []  # every pattern needs a digit, "@" or "://"
    taken: list[tuple[int, int]] = []
    spans: list[TypedSpan] = []
    for kind, pattern in _SPAN_PATTERNS:
        for match in pattern.finditer(text):
            start, end = match.span()
            raw = match.group()
            if start == end or any(start < b and a < end for a, b in taken):
                continue
            if kind == "identifier" and _NOT_IDENTIFIER.fullmatch(raw):
                continue
            taken.append((start, end))
            spans.append(TypedSpan(kind, raw, start, end))
    spans.sort(key=lambda span: span.start)
    if kinds is not None:
        spans = [span for span in spans if span.kind in kinds]
    return spans


_SPAN_HINT = re.compile(r"\d|@|://")

PROTECTED_KINDS: frozenset[SpanKind] = frozenset({"identifier", "date"})
"""Span kinds that summaries must carry verbatim and never drop."""


def has_protected(text: str) -> bool:
    """True when ``text`` carries an identifier or a date."""
    return bool(find_spans(text, PROTECTED_KINDS))


def mask_spans(text: str) -> str:
    """``text`` with every typed span replaced by " | ", so keyword rules skip identifiers.

    >>> mask_spans("Order ORD-7 ships on July 8, 2026")
    'Order  |  ships on  | '
    """
    pieces: list[str] = []
    cursor = 0
    for span in find_spans(text):
        pieces.extend([text[cursor : span.start], " | "])
        cursor = span.end
    pieces.append(text[cursor:])
    return "".join(pieces)


def is_question(sentence: str) -> bool:
    """True for a question: a final ? / ？, or a Chinese question particle at the end."""
    stripped = sentence.strip()
    return bool(_QUESTION_END.search(stripped) or _ZH_QUESTION.search(stripped))


def words(text: str) -> list[str]:
    """Latin-script words of ``text`` as written (apostrophes and hyphens kept inside)."""
    return [match.group().replace("’", "'") for match in _WORD.finditer(text)]


def stem(word: str) -> str:
    """A crude English stem for matching: lower case, no possessive, no plural ``s``."""
    lowered = word.lower().replace("’", "'")
    if lowered.endswith("'s"):
        lowered = lowered[:-2]
    if len(lowered) > 3 and lowered.endswith("s") and not lowered.endswith("ss"):
        lowered = lowered[:-1]
    return lowered


def is_content_word(word: str) -> bool:
    """True for an English word that carries meaning (not a function word or small talk)."""
    lowered = word.lower().replace("’", "'")
    return (
        len(lowered) > 2
        and lowered not in ENGLISH_STOPWORDS
        and lowered not in SMALL_TALK_WORDS
        and not lowered.endswith("n't")
    )


def content_words(text: str) -> list[str]:
    """English content words of ``text`` in order, as written."""
    return [word for word in words(text) if is_content_word(word)]


def cjk_segments(text: str) -> list[str]:
    """Chinese runs of ``text`` cut at punctuation and function words, in order.

    >>> cjk_segments("我上周搬到北京了，新手机号是多少？")
    ['搬到北京', '新手机号', '多少']
    """
    return [piece for piece in _CJK_SPLIT.split(text) if piece and _CJK_RUN.fullmatch(piece)]


def keywords(text: str) -> list[str]:
    """Comparison keywords of ``text``: stemmed English content words and CJK bigrams."""
    found = [stem(word) for word in content_words(text)]
    for segment in cjk_segments(text):
        if len(segment) == 1:
            continue
        found.extend(segment[i : i + 2] for i in range(len(segment) - 1))
    found.extend(span.text for span in find_spans(text, PROTECTED_KINDS))
    return found


_PHRASE_BREAK = re.compile(r"[^\w\s'’-]+")
_MAX_PHRASE_WORDS = 3


def topic_candidates(texts: Sequence[str], exclude: Iterable[str] = ()) -> dict[str, float]:
    """Key phrases of ``texts`` with a salience score, most salient first.

    English: runs of up to three adjacent content words ("LGBTQ support group"), scored
    by their most frequent word plus a bonus for length and repetition. Chinese: the runs
    between punctuation and function words (2-6 characters), scored by how often they occur;
    longer runs give their repeated 2-4 character pieces. ``exclude`` holds names (the
    speakers) that are not topics.
    """
    excluded = {stem(word) for name in exclude for word in words(name)}
    surface: dict[str, str] = {}
    runs = [run for text in texts for run in _content_runs(mask_spans(text), excluded, surface)]
    frequency = Counter(stemmed for run in runs for stemmed in run)
    repeats = Counter(runs)
    scores: dict[str, float] = {}
    for run in runs:
        phrase = " ".join(surface[stemmed] for stemmed in run)
        score = max(frequency[s] for s in run) + 0.5 * (len(run) - 1) + 0.5 * (repeats[run] - 1)
        scores[phrase] = max(scores.get(phrase, 0.0), score)
    scores.update(_cjk_topics(texts))
    return dict(sorted(scores.items(), key=lambda item: -item[1]))


def _content_runs(text: str, excluded: set[str], surface: dict[str, str]) -> list[tuple[str, ...]]:
    """Stemmed runs of adjacent content words, at most three long; records surface forms."""
    runs: list[tuple[str, ...]] = []
    position = 0
    for chunk in _PHRASE_BREAK.split(text):
        current: list[str] = []
        for word in [*words(chunk), ""]:
            if word and is_content_word(word) and stem(word) not in excluded:
                stemmed = stem(word)
                current.append(stemmed)
                # Keep the capital of a name, not of a word that only starts the sentence.
                proper = word[0].isupper() and (position > 0 or word[1:] != word[1:].lower())
                plain = re.sub(r"'s$", "", word.replace("’", "'"))
                surface.setdefault(stemmed, plain if proper else plain.lower())
            elif current:
                runs.extend(
                    tuple(current[i : i + _MAX_PHRASE_WORDS])
                    for i in range(0, len(current), _MAX_PHRASE_WORDS)
                )
                current = []
            position += bool(word)
    return runs


def _cjk_topics(texts: Sequence[str]) -> dict[str, float]:
    joined = "\n".join(texts)
    scores: dict[str, float] = {}
    for text in texts:
        for segment in cjk_segments(text):
            if 2 <= len(segment) <= 6:
                scores[segment] = float(joined.count(segment))
                continue
            for size in (4, 3, 2):
                for i in range(len(segment) - size + 1):
                    piece = segment[i : i + size]
                    count = joined.count(piece)
                    if count >= 2:
                        scores[piece] = max(scores.get(piece, 0.0), float(count))
    return scores


_CAPITALIZED = re.compile(
    r"(?<![\w'’])[A-Z][A-Za-z'’&-]*(?:\s+(?:of\s+|de\s+|the\s+)?[A-Z][A-Za-z'’&-]*)*"
)
_NOT_NAMES = word_set(
    """I Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March
    April May June July August September October November December OK Mr Mrs Ms Dr"""
)
# "在" before a verb is the progressive ("我在学做菜"), not a place.
_CJK_PLACE = re.compile(
    f"(?:叫|住在|搬到|搬去|来自|去了|去|到了|飞往|回到|在(?![学想做看忙等找写读吃玩弄搞听练准考]))"
    f"([{_CJK_CLASS}]{{2,8}})"
)
_CJK_LOCATIVE = re.compile("[上里中下边旁].*$")
_CJK_TRAILING_VERB = re.compile(
    "(?:工作|上班|上学|读书|生活|出差|旅游|旅行|玩|买|吃|看|开会|学习|参加|见面|住|待)+$"
)


def entity_candidates(texts: Sequence[str], exclude: Iterable[str] = ()) -> dict[str, float]:
    """Named things in ``texts`` with a score, most salient first.

    Identifiers (2 each), amounts and quantities, capitalized names, and Chinese places or
    names after 叫/在/去/到/住在/来自. A capitalized word at the start of a sentence counts
    only when it also appears inside a sentence or is part of a longer name. ``exclude``
    holds names (the speakers) to skip.
    """
    excluded = {name.casefold() for name in exclude}
    masked = [mask_spans(text) for text in texts]
    mid_sentence = {
        match.group()
        for text in masked
        for match in _CAPITALIZED.finditer(text)
        if match.start() > 0
    }
    scores: dict[str, float] = {}

    def add(name: str, score: float) -> None:
        # A speaker's name or short form ("Mel" for Melanie) is a vocative, not an entity.
        folded = name.casefold()
        short_form = len(folded) > 2 and any(speaker.startswith(folded) for speaker in excluded)
        if folded not in excluded and not short_form:
            scores[name] = scores.get(name, 0.0) + score

    for text, plain in zip(texts, masked, strict=True):
        for span in find_spans(text, frozenset({"identifier", "amount", "quantity"})):
            add(span.text, 2.0 if span.kind == "identifier" else 1.0)
        for match in _CAPITALIZED.finditer(plain):
            name = _clean_name(match.group())
            if name and (match.start() > 0 or " " in name or name in mid_sentence):
                add(name, 1.0)
        for match in _CJK_PLACE.finditer(text):
            head = _CJK_SPLIT.split(match.group(1))[0]
            head = _CJK_TRAILING_VERB.sub("", head[:2] + _CJK_LOCATIVE.sub("", head[2:]))
            if 2 <= len(head) <= 4:
                add(head, 1.0)
    return dict(sorted(scores.items(), key=lambda item: -item[1]))


def _clean_name(raw: str) -> str:
    """Drop a possessive and leading small-talk words ("Hey Caroline's" → "Caroline")."""
    parts = re.sub(r"['’]s$", "", raw).split()
    while parts and (
        parts[0] in _NOT_NAMES
        or parts[0].lower() in ENGLISH_STOPWORDS
        or parts[0].lower() in SMALL_TALK_WORDS
    ):
        parts.pop(0)
    if len(parts) == 1 and (len(parts[0]) < 2 or parts[0].lower() in ENGLISH_STOPWORDS):
        return ""
    return " ".join(parts)


# Cut after punctuation, or before a conjunction so it stays with the clause it opens.
_CLAUSE_SEPARATOR = re.compile(
    r"[,，;；:：、]\s*|\s+[-–—]\s+"
    r"|\s+(?=(?:and|but|which|because|while|though|although)\s)"
)


def clip_line(text: str, max_tokens: int, keep: Callable[[str], bool] | None = None) -> str:
    """Shorten a long sentence to its key clauses, keeping identifiers and dates whole.

    Clauses carrying an identifier, date or amount (or for which ``keep`` is true) are
    always kept; the first clause is kept for context; the clauses after it fill the
    budget in order until one does not fit. A result still too long that carries nothing
    to protect is cut at a word and ends with "…".
    """
    if estimate_tokens(text) <= max_tokens:
        return text
    spans = find_spans(text)
    clauses = _clauses(text, spans)
    must = [
        index == 0 or bool(find_spans(clause, _KEY_KINDS)) or (keep is not None and keep(clause))
        for index, clause in enumerate(clauses)
    ]
    budget = max_tokens - sum(estimate_tokens(c) for c, m in zip(clauses, must, strict=True) if m)
    chosen: list[str] = []
    filling = True  # optional clauses are added only while they follow on without a gap
    for clause, needed in zip(clauses, must, strict=True):
        cost = estimate_tokens(clause)
        filling = filling and (needed or cost <= budget)
        if needed or filling:
            budget -= 0 if needed else cost
            chosen.append(clause)
    clipped = ""
    for clause in chosen:
        glue = "" if not clipped or contains_cjk(clipped[-1]) or clipped[-1] in "，；：、" else " "
        clipped += glue + clause
    clipped = re.sub(r"[,，;；:：、\s–—-]+$", "", clipped)
    if estimate_tokens(clipped) > max_tokens and not find_spans(clipped, _KEY_KINDS):
        clipped = _cut_words(clipped, max_tokens)
    return clipped


_KEY_KINDS: frozenset[SpanKind] = frozenset({"identifier", "date", "amount"})


def _clauses(text: str, spans: list[TypedSpan]) -> list[str]:
    cuts = [
        match.end()
        for match in _CLAUSE_SEPARATOR.finditer(text)
        if not any(span.start < match.end() and match.start() < span.end for span in spans)
    ]
    bounds = [0, *cuts, len(text)]
    pieces = (text[start:end].strip() for start, end in itertools.pairwise(bounds))
    return [piece for piece in pieces if piece]


def _cut_words(text: str, max_tokens: int) -> str:
    if contains_cjk(text):
        return text[: max(1, max_tokens - 1)] + "…"
    kept: list[str] = []
    for word in text.split():
        if estimate_tokens(" ".join([*kept, word])) > max_tokens - 1:
            break
        kept.append(word)
    return " ".join(kept).rstrip(",;:") + "…"
