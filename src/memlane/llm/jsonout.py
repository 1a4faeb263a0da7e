"""Find the JSON in a chat model's reply, which small models wrap in fences, prose or both.

>>> extract_json('Sure! Here it is: ```json {"facts": []} ```')
{'facts': []}
"""

from __future__ import annotations

import json
import re
from typing import Any

# Reasoning models (qwen3, deepseek-r1) think aloud before answering; the thoughts may hold
# draft JSON that is not the answer.
_THINKING = re.compile(r"<think>.*?(?:</think>|$)", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n?(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
# A reply with hundreds of braces is garbage; scanning them all would only waste time.
_MAX_OBJECT_STARTS = 64


class NoJSONFound(ValueError):
    """The reply holds no decodable JSON value."""


def extract_json(text: str) -> Any:
    """Decode the JSON answer in ``text``.

    Tries, in order: the whole reply; the contents of each Markdown code fence; the first
    ``{...}`` object that decodes, anywhere in the text; the same again with trailing commas
    removed (a frequent small-model slip).

    Raises:
        NoJSONFound: nothing in the reply decodes; the message says why, for the model.
    """
    cleaned = _THINKING.sub("", text).strip()
    if not cleaned:
        raise NoJSONFound("the reply was empty; expected a JSON object")
    for candidate in (cleaned, *(block.strip() for block in _FENCE.findall(cleaned))):
        try:
            return json.loads(candidate)
        except json.JSONDecodeError:
            continue
    found, first_error = _first_object(cleaned)
    if found is None:
        repaired = _TRAILING_COMMA.sub(r"\1", cleaned)
        if repaired != cleaned:
            found, _ = _first_object(repaired)
    if found is not None:
        return found
    if first_error is None:
        raise NoJSONFound("no JSON object found in the reply; expected one starting with {")
    raise NoJSONFound(f"the JSON object in the reply does not parse: {first_error}")


def _first_object(text: str) -> tuple[dict[str, Any] | None, str | None]:
    """Return the first ``{...}`` in ``text`` that decodes, else the first decoding error."""
    decoder = json.JSONDecoder()
    first_error: str | None = None
    start = text.find("{")
    tries = 0
    while start != -1 and tries < _MAX_OBJECT_STARTS:
        tries += 1
        try:
            value, _ = decoder.raw_decode(text, start)
        except json.JSONDecodeError as error:
            if first_error is None:
                first_error = f"{error.msg} (line {error.lineno} column {error.colno})"
        else:
            if isinstance(value, dict):
                return value, None
        start = text.find("{", start + 1)
    return None, first_error
