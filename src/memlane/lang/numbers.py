"""Numbers written as words: Chinese numerals and small English number words."""

from __future__ import annotations

CN_NUMERAL = "[0-9零〇一二两三四五六七八九十]{1,3}"
"""Regex fragment for a small number written in digits or Chinese numerals (days, months)."""

CN_DIGITS = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
"""Chinese digits and their values."""

CN_SMALL_UNITS = {"十": 10, "百": 100, "千": 1000}
"""Chinese units below ten thousand (十, 百, 千)."""

CN_LARGE_UNITS = {"万": 10_000, "亿": 100_000_000}
"""Chinese units of ten thousand and a hundred million (万, 亿)."""

EN_NUMBERS = {
    "a": 1,
    "an": 1,
    "a couple of": 2,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "fifteen": 15,
    "twenty": 20,
    "thirty": 30,
}
"""Small English number words and their values (a, a couple of, one … thirty)."""
