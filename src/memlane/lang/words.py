"""Word-level questions about a text: negation, the terms a value is made of, other people."""

from __future__ import annotations

import re

from memlane.lang import en, zh
from memlane.lang.roles import roles_named
from memlane.lang.script import CJK_RANGES, fold, whole_latin
from memlane.memo import per_process, per_recall

_EN_NEGATION = re.compile(rf"\b(?:{'|'.join(en.NEGATORS)})\b|{en.NEGATING_SUFFIX}\b", re.IGNORECASE)
_LATIN_TERM = re.compile(r"[a-z][a-z'’-]*[a-z]|\d[\d\s-]*\d", re.IGNORECASE)
_CJK_RUN = re.compile(f"[{CJK_RANGES}]+")
_CJK_PAIR = re.compile(f"[{CJK_RANGES}]{{2}}")
_ZH_SEPARATORS = re.compile(zh.SEPARATORS)
_ZH_LEADING_FILLERS = re.compile(zh.LEADING_FILLERS)
_ZH_TRAILING_PARTICLES = re.compile(zh.TRAILING_PARTICLES)


def is_negated(text: str) -> bool:
    """Whether ``text`` holds a negation *word*: 不, 没, 别, not, n't, never...

    A negator character inside a word that negates nothing does not count:

    >>> is_negated("我1990年出生于无锡"), is_negated("我不住上海了"), is_negated("I don't")
    (False, True, True)
    """
    if _EN_NEGATION.search(text):
        return True
    for index, char in enumerate(text):
        if char in zh.NEGATORS and not any(
            text.startswith(word, index) for word in zh.NOT_NEGATING
        ):
            return True
    return False


_NEGATES_NEXT = re.compile(
    r"(?:\b(?:not|never|no)\s+(?:so\s+|very\s+|really\s+)?|n't\s+)$|[不没]$", re.IGNORECASE
)


def negates_next(before: str) -> bool:
    """Whether ``before`` ends with a negation of the word that follows it ("not so", "不").

    >>> negates_next("I'm not "), negates_next("太")
    (True, False)
    """
    return _NEGATES_NEXT.search(before) is not None


_POSSIBLE_NEXT = re.compile(
    rf"\b(?:{'|'.join(en.MODALS)})\s+(?:(?:just|really|also|probably)\s+)?$|(?:{'|'.join(zh.MODALS)})\s*$",
    re.IGNORECASE,
)


def possible_next(before: str) -> bool:
    """Whether ``before`` ends with a modal, making the word after it only possible.

    >>> possible_next("anyone else would "), possible_next("我可能"), possible_next("I ")
    (True, True, False)
    """
    return _POSSIBLE_NEXT.search(before) is not None


@per_recall
def salient_terms(text: str) -> frozenset[str]:
    """The terms that can carry a value: content words, digit runs, CJK runs without fillers.

    >>> sorted(salient_terms("之前那个月卡")), sorted(salient_terms("quit Novartis lol"))
    (['月卡'], ['novartis', 'quit'])
    """
    folded = fold(text)
    terms: set[str] = set()
    for match in _LATIN_TERM.finditer(folded):
        term = match.group().replace(" ", "").replace("-", "")
        if term.isdigit():
            if len(term) >= 3:
                terms.add(term)
        elif len(term) >= 3 and term not in en.STOP_WORDS:
            terms.add(stem(term))
    for run in _CJK_RUN.findall(folded):
        for piece in _ZH_SEPARATORS.split(run):
            segment = _ZH_TRAILING_PARTICLES.sub("", without_leading_fillers(piece))
            if len(segment) >= 2 and segment not in zh.GENERIC_TERMS:
                terms.add(segment)
    return frozenset(terms)


def without_leading_fillers(run: str) -> str:
    """A Chinese run less the words before a value that are not part of it ("之前那个").

    >>> without_leading_fillers("之前那个月卡"), without_leading_fillers("现在")
    ('月卡', '')
    """
    return _ZH_LEADING_FILLERS.sub("", run)


def asked_terms(question: str) -> frozenset[str]:
    """The :func:`salient_terms` of a question, its Chinese question words cut out.

    A question word ends the noun it asks about: "地址是哪" asks about the 地址, so a statement
    naming the 地址 names only what the question names.

    >>> sorted(asked_terms("之前公司那个地址是哪？")), sorted(asked_terms("以前的手机号码是多少"))
    (['公司', '地址'], ['手机号码'])
    """
    return salient_terms(_ASKING.sub(" ", fold(question)))


_ASKING = re.compile(rf"(?:{zh.COPULAS})?(?:{zh.QUESTION_WORDS})")


def salient_terms_besides(text: str, taken: frozenset[str]) -> frozenset[str]:
    """The :func:`salient_terms` of ``text`` once the words ``taken`` are cut out of it.

    Cut out of the text, not only out of its set of terms: "寄公司" without 公司 names
    nothing, although 寄公司 is a term of its own.

    >>> sorted(salient_terms_besides("寄公司", frozenset({"公司"})))
    []
    >>> sorted(salient_terms_besides("my work adress", frozenset({"old", "work"})))
    ['adress']
    """
    text = fold(text)
    for term in sorted(taken, key=len, reverse=True):
        text = re.sub(whole_latin(re.escape(term)), " ", text)
    return salient_terms(text)


def shares_term(terms: frozenset[str], text: str) -> bool:
    """Whether ``text`` holds one of ``terms`` (CJK terms: any two characters of one in a row).

    >>> shares_term(salient_terms("格力待够了"), "我在格力上班")
    True
    """
    if not terms:
        return False
    folded, words, digits = _index(text)
    for term in terms:
        if term.isdigit():
            if term in digits:
                return True
        elif term[0].isascii():
            if term in words:
                return True
        elif any(
            pair in folded and pair not in zh.GENERIC_TERMS
            for pair in (term[i : i + 2] for i in range(len(term) - 1))
        ):
            return True
    return False


def term_keys(text: str) -> tuple[frozenset[str], str, frozenset[str]]:
    """What :func:`shares_term` finds terms of ``text`` by, to store ahead of time.

    Its stemmed Latin words, its digits (one string), and its pairs of CJK characters in a
    row that are not generic: a term is shared when :func:`term_probe` names one of them.

    >>> words, digits, pairs = term_keys("我在格力上班 since 2019")
    >>> sorted(words), digits, "格力" in pairs
    (['since'], '2019', True)
    """
    folded, words, digits = _index(text)
    pairs = frozenset(
        pair
        for pair in (folded[i : i + 2] for i in range(len(folded) - 1))
        if _CJK_PAIR.fullmatch(pair) and pair not in zh.GENERIC_TERMS
    )
    return words, digits, pairs


def term_probe(term: str) -> tuple[str, tuple[str, ...]]:
    """How :func:`shares_term` looks for one term: in the digits, the words, or the CJK pairs.

    ``("digits", (term,))`` when the digits must contain it, ``("word", (term,))`` when the
    words must hold it, ``("pairs", pairs)`` when the text must hold one of the pairs (as
    :func:`term_keys` lists them; terms are :func:`salient_terms`, so their pairs are CJK).

    >>> term_probe("2019"), term_probe("novarti"), term_probe("格力电器")
    (('digits', ('2019',)), ('word', ('novarti',)), ('pairs', ('格力', '力电', '电器')))
    """
    if term.isdigit():
        return "digits", (term,)
    if term[0].isascii():
        return "word", (term,)
    pairs = (term[i : i + 2] for i in range(len(term) - 1))
    return "pairs", tuple(pair for pair in dict.fromkeys(pairs) if pair not in zh.GENERIC_TERMS)


@per_process
def _index(text: str) -> tuple[str, frozenset[str], str]:
    """``text`` folded, its stemmed Latin words and its digits: what :func:`shares_term` reads."""
    folded = fold(text)
    words = frozenset(stem(w) for w in _LATIN_TERM.findall(folded) if not w[0].isdigit())
    return folded, words, "".join(ch for ch in folded if ch.isdigit())


def mentions_value(text: str, value: object) -> bool:
    """True if ``text`` names a value: "139-1111-2222" names ``"13911112222"``.

    Compared after NFKC case-folding with spaces dropped; digit-only values compare on the
    text's digits, so any separators match.
    """
    needle = _plain(value if isinstance(value, str) else str(value))
    if not needle:
        return False
    haystack = _plain(text)
    if needle.isdigit() and len(needle) >= 5:
        return needle in "".join(ch for ch in haystack if ch.isdigit())
    return needle in haystack


_SPACE = re.compile(r"\s+")


def _plain(text: str) -> str:
    return _SPACE.sub("", fold(text))


def names_other_person(text: str) -> bool:
    """Whether ``text`` names someone (or a pet) other than its subject (see :mod:`.roles`).

    >>> names_other_person("用户的姐姐住在哪里？"), names_other_person("where does she live?")
    (True, False)
    """
    return bool(roles_named(text))


_EN_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")
_EN_REPLACEMENT = re.compile(en.REPLACEMENT)
_EN_PAST_AFTER = re.compile(en.PAST_AFTER)


@per_process
def tells_episode(text: str) -> bool:
    """Whether English ``text`` tells what happened rather than how things are.

    It has a verb in the past tense and none in the present: "Mel said: [shared a photo of
    …]" tells an episode, and a later one of the same shape adds to it instead of replacing
    it; "the chair of the club is …" says how things are, until a later statement says
    otherwise, and so does a change told in the past ("I switched to …", "got a new …": the
    cues of :data:`memlane.lang.en.REPLACEMENT`). Chinese marks no tense: a Chinese text
    never tells an episode by this test.

    >>> tells_episode("mel said: [shared an image: a photo of a …]"), tells_episode("we painted …")
    (True, True)
    >>> tells_episode("mel said: bob's team is …"), tells_episode("preferred name: …")
    (False, False)
    >>> tells_episode("i switched to the … shift"), tells_episode("i got a new phone, …")
    (False, False)
    """
    folded = fold(text).replace("’", "'")
    words = _EN_WORD.findall(folded)
    if any(_present(word) for word in words) or _EN_REPLACEMENT.search(folded):
        return False
    past = any(word in en.PAST_FORMS for word in words)
    return past or _EN_PAST_AFTER.search(folded) is not None


def _present(word: str) -> bool:
    """A verb in the present, or a word with one attached ("they're", "isn't")."""
    apostrophe = word.find("'")
    return word in en.PRESENT_VERBS or (apostrophe > 0 and word[apostrophe:] in en.PRESENT_VERBS)


_ZH_PLANS = re.compile(zh.PLANS)
_EN_PLANS = re.compile(en.PLANS)


def asks_about_plans(text: str) -> bool:
    """Whether ``text`` asks about a plan or the future ("下周要飞去哪", "considering moving")."""
    folded = fold(text)
    return bool(_ZH_PLANS.search(folded) or _EN_PLANS.search(folded))


def owner_of(text: str, end: int) -> str | None:
    """The word an English phrase ending at ``end`` belongs to: "number of *kids*".

    ``None`` when no "of …" follows or when it names the subject itself ("name of the user").
    """
    match = _OF_OWNER.match(fold(text), end)
    if match is None or match["owner"] in en.SELF or match["owner"] in en.STOP_WORDS:
        return None
    return match["owner"]


_OF_OWNER = re.compile(
    r"\s+of\s+(?:(?:the|a|an|my|his|her|their|our|your|this|that)\s+)?(?P<owner>[a-z]+)"
)


def stem(word: str) -> str:
    """A crude English stem for matching: lower case, no possessive, no plural "s".

    Words that end in "ss", "is" or "us" are not plurals ("class", "tennis", "bus").

    >>> [stem(w) for w in ("Parents", "Mel’s", "class", "tennis", "bus", "is")]
    ['parent', 'mel', 'class', 'tennis', 'bus', 'is']
    """
    lowered = word.lower().replace("’", "'")
    if lowered.endswith("'s"):
        lowered = lowered[:-2]
    if len(lowered) > 3 and lowered.endswith("s") and not lowered.endswith(("ss", "is", "us")):
        lowered = lowered[:-1]
    return lowered
