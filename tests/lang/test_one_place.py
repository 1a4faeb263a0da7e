"""The knowledge of a language lives in memlane.lang; a test keeps it from being typed again.

Two checks. The first looks for what memlane.lang owns typed again as text (a CJK range, a
negation test, a retraction cue). The second reads every module of the package outside
memlane.lang as a syntax tree and finds vocabulary by its form:

* a string with a CJK character in it (docstrings aside): Chinese is always language;
* a text of eight or more lower-case words and nothing else, written over several lines or
  cut with ``split()`` (a word list; a message is one line of a sentence);
* a regular expression that offers three or more words as alternatives (``since|from|until``);
* a collection of three or more lower-case words (a tuple, list, set or the keys of a table
  of constants, or the arguments of one call).

A collection does not count when every word in it is a *name of the program*: a Python
name, a ``Literal`` member, a key of a mapping the program builds (``{"model":
self._model}``) or reads (``step["type"]``) anywhere in the package; nor does a pattern
whose words are all ``Literal`` members or mapping keys (a Python name such as ``since`` is
too often an English word to spare a pattern). Roles, lanes, section
names, column names and JSON fields are names the code gives its own things ("agent",
"exact", "topic", "tenant"); words the code looks for in what people write are not. Nor do
the headings of the tables the CLI prints (a list given to ``table(...)`` or kept as
``headers``): they are written, never read.

A single word compared in code (``word == "ago"``, ``text.endswith("yesterday")``) counts
too, unless it is a name of the program: besides the names above, the group names of
memlane.lang's patterns (``(?P<ago>ago)`` is read as ``match["ago"]``), the ``Literal``
members memlane.lang defines (units of time), and the fixed parts of the names the program
formats (``f"arg{i}"``).

Honest exemptions, by module and reason, are :data:`EXEMPT`, and by word :data:`NOT_LANGUAGE`;
nothing else is spared. Patterns and word lists written in a function body count as well as
those at module level.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import memlane
from memlane.lang.script import CJK_RANGES

PACKAGE = Path(memlane.__file__).parent
LANG = PACKAGE / "lang"

# What memlane.lang owns so far, as it would be typed again elsewhere.
OWNED = {
    "a CJK character range": re.compile(r"\\u(?:3400|4e00|9fff|4dbf|f900)", re.IGNORECASE),
    "a negation test of its own": re.compile(r"^def is_negated\(|^_NEGAT\w* = re\.compile", re.M),
    "a retraction cue list": re.compile(r"no\\s\+longer|不再用|不用了"),
}

EXEMPT = {
    "llm/prompts.py": "instructions and a worked example written for a chat model, not read "
    "from what people say",
    "cli/demo.py": "the demo's sample conversation, printed and stored, never matched",
    "bench/": "benchmark data sets and their generators: sentences, not rules",
    "embed/factory.py": "the names of the embedders an option accepts (hash, minilm, openai)",
}
"""Modules that may hold language, with the reason."""

NOT_LANGUAGE = {
    "openai": "the kind of a chat-model spec (models.LLM_SPECS)",
    "linux": "a value of sys.platform",
}
"""Single words compared in code that are no one's language, with the reason."""


_CJK = re.compile(f"[{CJK_RANGES}]")
_WORD = re.compile(r"[a-z][a-z'’ -]*")
_SINGLE_WORD = re.compile(r"[a-z]{2,}(?:['’][a-z]+)?|[a-z]*n['’]t")
_WORD_TEXT = re.compile(r"\s*[a-z'’]+(?:\s+[a-z'’]+){7,}\s*")
_ALTERNATIVE = r"[A-Za-z][a-z'’]+(?:(?:\\s[+*?]?|\s|-)[a-z'’]+)*(?:s|es|ed)?\??"
_ALTERNATION = re.compile(
    rf"(?:(?<=\\b)|(?<![\w\\])){_ALTERNATIVE}(?:\|{_ALTERNATIVE}){{2,}}(?![\w])"
)


def _modules() -> list[Path]:
    return [path for path in PACKAGE.rglob("*.py") if LANG not in path.parents]


def _name(path: Path) -> str:
    return path.relative_to(PACKAGE).as_posix()


def _exempt(name: str) -> bool:
    return any(name == key or (key.endswith("/") and name.startswith(key)) for key in EXEMPT)


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the string constants that stand alone as statements (docstrings)."""
    return {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    }


def _literal_members(tree: ast.AST) -> Iterator[str]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and ast.unparse(node.value).endswith("Literal"):
            for inner in ast.walk(node.slice):
                if isinstance(inner, ast.Constant) and isinstance(inner.value, str):
                    yield inner.value


def _constant(node: ast.expr) -> bool:
    try:
        ast.literal_eval(node)
    except ValueError:
        return False
    return True


def _keys(tree: ast.AST) -> Iterator[str]:
    """The keys of mappings the program builds or reads: ``{"model": m}``, ``x["type"]``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict) and not all(_constant(v) for v in node.values):
            keys = node.keys
        elif isinstance(node, ast.Subscript):
            keys = [node.slice]
        elif isinstance(node, ast.Call) and ast.unparse(node.func).endswith(".get"):
            keys = node.args[:1]
        else:
            continue
        for key in keys:
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                yield key.value


def _python_names(tree: ast.AST) -> Iterator[str]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            yield node.id
        elif isinstance(node, ast.Attribute):
            yield node.attr
        elif isinstance(node, ast.arg) or (isinstance(node, ast.keyword) and node.arg):
            yield node.arg
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield node.name


def _formatted_names(tree: ast.AST) -> Iterator[str]:
    """The fixed words of names the program formats: "arg" of ``f"arg{i}"``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            for part in node.values:
                if isinstance(part, ast.Constant) and isinstance(part.value, str):
                    yield part.value


@cache
def program_names(with_python_names: bool = True) -> frozenset[str]:
    """Every ``Literal`` member and mapping key of the package (outside memlane.lang), and
    every Python name unless ``with_python_names`` is false: the names of its own things."""
    names: set[str] = set()
    for path in _modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names.update(_literal_members(tree))
        names.update(_keys(tree))
        if with_python_names:
            names.update(_python_names(tree))
    return frozenset(names)


@cache
def compared_names() -> frozenset[str]:
    """What a single compared word may be besides :func:`program_names`: memlane.lang's
    pattern group names and ``Literal`` members, and the fixed parts of formatted names."""
    names: set[str] = set(program_names())
    for path in LANG.rglob("*.py"):
        source = path.read_text(encoding="utf-8")
        names.update(re.findall(r"\(\?P<(\w+)>", source))
        names.update(_literal_members(ast.parse(source)))
    for path in _modules():
        names.update(_formatted_names(ast.parse(path.read_text(encoding="utf-8"))))
    return frozenset(names)


def _words(nodes: list[ast.expr]) -> list[str]:
    return [
        node.value
        for node in nodes
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and _WORD.fullmatch(node.value)
    ]


def _word_collections(tree: ast.AST, skipped: set[int]) -> Iterator[tuple[int, list[str]]]:
    """Collections of string constants: tuples, lists, sets, dict keys, a call's arguments."""
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            yield node.lineno, _words(node.elts)
        elif isinstance(node, ast.Dict) and all(_constant(value) for value in node.values):
            if not set(_words(node.values)) <= program_names() or not _words(node.values):
                yield node.lineno, _words([key for key in node.keys if key is not None])
        elif isinstance(node, ast.Call):
            yield node.lineno, _words(node.args)


def _compared_words(tree: ast.AST, skipped: set[int]) -> Iterator[tuple[int, str]]:
    """Single words the code compares text with: ``x == "ago"``, ``x in ("a",)`` aside (a
    collection), ``x.startswith("the")``."""
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
        elif isinstance(node, ast.Call) and ast.unparse(node.func).endswith(
            (".startswith", ".endswith")
        ):
            operands = node.args
        else:
            continue
        for word in _words(operands):
            if _SINGLE_WORD.fullmatch(word):
                yield node.lineno, word


def _skipped(tree: ast.AST) -> set[int]:
    """Nodes that are no vocabulary: docstrings, ``Literal`` types, ``__all__``, headings."""
    skipped = _docstrings(tree)
    for node in ast.walk(tree):
        literal = isinstance(node, ast.Subscript) and ast.unparse(node.value).endswith("Literal")
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, ast.AugAssign | ast.AnnAssign)
            else []
        )
        named = [ast.unparse(target) for target in targets]
        table = isinstance(node, ast.Call) and ast.unparse(node.func) == "table"
        if table and isinstance(node, ast.Call):
            skipped.update(id(inner) for inner in ast.walk(node.args[0]) if node.args)
        if literal or "__all__" in named or any("headers" in name for name in named):
            skipped.update(id(inner) for inner in ast.walk(node))
    return skipped


def _split_texts(tree: ast.AST) -> set[int]:
    """The ids of texts that are cut into words: ``"a b c".split()``, ``word_set("a b c")``,
    or any written over several lines (a message is one line)."""
    texts = {
        id(node)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and "\n" in node.value
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "split":
            texts.add(id(node.value))
        elif isinstance(node, ast.Call) and ast.unparse(node.func).endswith("word_set"):
            texts.update(id(argument) for argument in node.args[:1])
    return texts


def _pattern_words(pattern: str) -> set[str]:
    """The words of an alternation (a pattern's ``\\s+`` is no word)."""
    return set(re.findall(r"[a-z]+", re.sub(r"\\s\W?", " ", pattern)))


def vocabulary(source: str) -> list[str]:
    """Where ``source`` defines vocabulary of its own, as "line: what" (see the module doc)."""
    tree = ast.parse(source)
    skipped = _skipped(tree)
    names = program_names()
    split = _split_texts(tree)
    found: list[str] = []
    for node in ast.walk(tree):
        if id(node) in skipped or not isinstance(node, ast.Constant):
            continue
        if isinstance(node.value, str) and _CJK.search(node.value):
            found.append(f"{node.lineno}: Chinese text {node.value[:30]!r}")
        elif isinstance(node.value, str) and id(node) in split and _WORD_TEXT.fullmatch(node.value):
            found.append(f"{node.lineno}: words as text {node.value.split()[:4]!r}")
        elif isinstance(node.value, str):
            found.extend(
                f"{node.lineno}: a pattern of words {match.group()[:40]!r}"
                for match in _ALTERNATION.finditer(node.value)
                if not _pattern_words(match.group()) <= program_names(with_python_names=False)
            )
    for line, words in _word_collections(tree, skipped):
        if len(words) >= 3 and not all(word in names for word in words):
            found.append(f"{line}: a word list {words[:4]!r}")
    found.extend(
        f"{line}: a word compared {word!r}"
        for line, word in _compared_words(tree, skipped)
        if word not in compared_names() and word not in NOT_LANGUAGE
    )
    return found


def test_language_knowledge_is_not_defined_outside_memlane_lang() -> None:
    found = [
        f"{path.relative_to(PACKAGE)}: {what}"
        for path in _modules()
        for what, pattern in OWNED.items()
        if pattern.search(path.read_text(encoding="utf-8"))
    ]
    assert found == []


def test_the_check_finds_a_copy() -> None:
    copy = 'NEGATION_RANGE = "[\\u4e00-\\u9fff]"'
    assert OWNED["a CJK character range"].search(copy)


SPELLED_OUT = {
    "a fold of its own (use memlane.lang.script.fold)": re.compile(
        r"normalize\(\s*[\"']NFKC[\"'][^)]*\)(?:\.strip\(\))?\.casefold\(\)"
    ),
    "Latin word bounds of its own (use memlane.lang.script.whole_latin)": re.compile(
        r"\(\?<!\[a-z0-9\]\)|\(\?!\[a-z0-9\]\)"
    ),
}
"""Rules of memlane.lang.script spelled out again, checked outside the scorers of bench/
(which keep their own definition of a match, written apart from the system they score)."""


def test_text_is_folded_and_bounded_in_one_place() -> None:
    found = [
        f"{name}: {what}"
        for path in _modules()
        if not (name := _name(path)).startswith("bench/")
        for what, pattern in SPELLED_OUT.items()
        if pattern.search(path.read_text(encoding="utf-8"))
    ]
    assert found == []


def test_the_spelling_check_finds_a_copy() -> None:
    copies = [
        'folded = unicodedata.normalize("NFKC", text).casefold()',
        'key = unicodedata.normalize("NFKC", value).strip().casefold()',
        'WORD = re.compile(r"(?<![a-z0-9])order(?![a-z0-9])")',
    ]
    assert all(any(pattern.search(copy) for pattern in SPELLED_OUT.values()) for copy in copies)


def test_no_module_outside_memlane_lang_keeps_a_vocabulary() -> None:
    found = {
        name: vocabulary(path.read_text(encoding="utf-8"))
        for path in _modules()
        if not _exempt(name := _name(path))
    }
    offenders = {name: where for name, where in found.items() if where}
    assert offenders == {}, "move these words into memlane.lang"


def test_the_vocabulary_check_finds_a_planted_copy() -> None:
    planted = [
        '_STOP = ("的", "了")',
        '_WHEN = re.compile(r"\\b(?:since|from|until)\\b")',
        '_MONTHS = frozenset({"june", "july", "august"})',
        '_SHIFT = {"yesterday": -1, "today": 0, "tomorrow": 1}',
        'gate("jan", "feb", "mar")',
        '_STOP = """a an the of to in on\\n    at by for with from and or but"""',
        '_STOP = "a an the of to in on at by for with".split()',
        'sign = -1 if direction == "hence" else 1',
        'shift = -2 if word.endswith("yesterday") else 2',
        'if not lowered.endswith("n\'t"): pass',
    ]
    assert [line for line in planted if not vocabulary(line)] == []


def test_the_vocabulary_check_spares_the_names_of_the_program() -> None:
    spared = [
        '"""一个例子：我住在北京。"""',
        'Lane = Literal["exact", "window", "summary"]',
        'LANES = ("exact", "window", "summary")',
        '__all__ = ["is_cjk", "is_negated", "retractions"]',
        '_NUMBERED = re.compile(r"^(?:\\d+|#)\\s")',
        'raise InvalidInput("at", "must be an aware datetime in the past or now, not later")',
        'if lane == "exact": pass',
        'if unit == "weekend": pass',
        'if match["ago"]: pass',
        'return key.startswith("arg")',
    ]
    assert [line for line in spared if vocabulary(line)] == []
