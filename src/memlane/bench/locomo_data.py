"""Reading LoCoMo-format conversations (Maharana et al. 2024) for the benchmarks.

The data set itself is CC BY-NC and never ships with memlane; point ``--data`` at a copy.
A file is a JSON list of samples, each with ``conversation`` (``speaker_a``, ``speaker_b``,
``session_N`` turn lists and ``session_N_date_time`` strings such as
"1:56 pm on 8 May, 2023") and ``qa`` (question, answer, evidence ``dia_id``s, category).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memlane.errors import InvalidInput

_SESSION_KEY = re.compile(r"^session_(\d+)$")
_DATE = re.compile(
    r"^\s*(\d{1,2}):(\d{2})\s*([ap])\.?m\.?\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$",
    re.IGNORECASE,
)
_MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("jan", "january"),
            ("feb", "february"),
            ("mar", "march"),
            ("apr", "april"),
            ("may",),
            ("jun", "june"),
            ("jul", "july"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october"),
            ("nov", "november"),
            ("dec", "december"),
        ),
        start=1,
    )
    for name in names
}
_EVIDENCE = re.compile(r"D(\d+)\s*:\s*(\d+)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class LocomoTurn:
    """One utterance: ``dia_id`` like ``"D3:7"`` (session 3, turn 7).

    ``caption`` describes the image the speaker shared with it (``""`` when none).
    """

    dia_id: str
    speaker: str
    text: str
    caption: str = ""


@dataclass(frozen=True, slots=True)
class LocomoSession:
    """One session of a conversation, with when it took place."""

    number: int
    started: datetime
    turns: tuple[LocomoTurn, ...]


@dataclass(frozen=True, slots=True)
class LocomoQuestion:
    """A question with its gold answer, evidence turns and category (5 = adversarial)."""

    question: str
    answer: str
    evidence: tuple[str, ...]
    category: int


@dataclass(frozen=True, slots=True)
class Conversation:
    """A LoCoMo sample: two speakers, their sessions in time order, and the questions."""

    sample_id: str
    speakers: tuple[str, str]
    sessions: tuple[LocomoSession, ...]
    questions: tuple[LocomoQuestion, ...]

    @property
    def ends(self) -> datetime:
        """When the last session started."""
        return self.sessions[-1].started


def parse_session_date(text: str) -> datetime:
    """Parse LoCoMo's "1:56 pm on 8 May, 2023" (read as UTC).

    >>> parse_session_date("1:56 pm on 8 May, 2023").isoformat()
    '2023-05-08T13:56:00+00:00'

    Raises:
        InvalidInput: the text is not in that format.
    """
    match = _DATE.match(text)
    if match is None or match.group(5).lower() not in _MONTHS:
        raise InvalidInput("date_time", f"not a LoCoMo session date: {text!r}")
    hour, minute = int(match.group(1)) % 12, int(match.group(2))
    if match.group(3).lower() == "p":
        hour += 12
    month = _MONTHS[match.group(5).lower()]
    return datetime(int(match.group(6)), month, int(match.group(4)), hour, minute, tzinfo=UTC)


def normalize_evidence(raw: Any) -> tuple[str, ...]:
    """Clean evidence ids: "D8:6; D9:17" → ("D8:6", "D9:17"), "D30:05" → ("D30:5",).

    >>> normalize_evidence(["D8:6; D9:17", "D30:05", "d1 : 3"])
    ('D8:6', 'D9:17', 'D30:5', 'D1:3')
    """
    items = raw if isinstance(raw, list) else [raw]
    found: list[str] = []
    for item in items:
        for session, turn in _EVIDENCE.findall(str(item)):
            dia_id = f"D{int(session)}:{int(turn)}"
            if dia_id not in found:
                found.append(dia_id)
    return tuple(found)


def load_conversations(path: str | Path) -> list[Conversation]:
    """Read every sample of a LoCoMo-format JSON file, sessions in time order.

    Raises:
        InvalidInput: the file is missing or not in LoCoMo format.
    """
    try:
        samples = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise InvalidInput("data", f"cannot read LoCoMo data at {path}: {error}") from error
    if not isinstance(samples, list):
        raise InvalidInput("data", "a LoCoMo file is a JSON list of samples")
    return [_conversation(sample, index) for index, sample in enumerate(samples)]


def _conversation(sample: dict[str, Any], index: int) -> Conversation:
    try:
        talk = sample["conversation"]
        sessions = []
        for key, turns in talk.items():
            match = _SESSION_KEY.match(key)
            if match is None or not turns:
                continue
            number = int(match.group(1))
            sessions.append(
                LocomoSession(
                    number,
                    parse_session_date(talk[f"{key}_date_time"]),
                    tuple(
                        LocomoTurn(
                            t["dia_id"], t["speaker"], t["text"], str(t.get("blip_caption") or "")
                        )
                        for t in turns
                    ),
                )
            )
        questions = tuple(
            LocomoQuestion(
                q["question"],
                str(q.get("answer", q.get("adversarial_answer", ""))),
                normalize_evidence(q.get("evidence", [])),
                int(q["category"]),
            )
            for q in sample.get("qa", [])
        )
        speakers = (talk["speaker_a"], talk["speaker_b"])
    except (KeyError, TypeError) as error:
        raise InvalidInput("data", f"sample {index} is not in LoCoMo format: {error}") from error
    return Conversation(
        str(sample.get("sample_id", index)),
        speakers,
        tuple(sorted(sessions, key=lambda s: (s.started, s.number))),
        questions,
    )
