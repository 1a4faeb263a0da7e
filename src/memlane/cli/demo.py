"""``memlane demo``: BITEMPORAL.md's story, replayed on a fresh memory and printed."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import click

from memlane.cli import emit_json
from memlane.cli.render import display_width, fact_table, pad, value_text, when
from memlane.facts.model import Fact
from memlane.memory import Memory

SHANGHAI, BEIJING, HANGZHOU = "上海 Shanghai", "北京 Beijing", "杭州 Hangzhou"
CHART_START, CHART_END = datetime(2026, 3, 1, tzinfo=UTC), datetime(2026, 9, 1, tzinfo=UTC)
CHART_WIDTH = 48
CORRECTION = "出差杭州 — business posting, corrected by HR"


class StoryClock:
    """The demo's clock: it stands on the dates of the story."""

    def __init__(self) -> None:
        self.now = datetime(2026, 3, 2, tzinfo=UTC)

    def __call__(self) -> datetime:
        """The story's current date."""
        return self.now


@click.command()
@click.option("--db", default=":memory:", show_default=True, help="Where to write the demo.")
@click.option("--json", "as_json", is_flag=True, help="Print the final audit as JSON.")
def demo(db: str, as_json: bool) -> None:
    """Replay the Shanghai → Beijing → Hangzhou-correction story on a fresh memory."""
    clock = StoryClock()
    with Memory(db, tenant="demo", clock=clock) as mem:
        facts = mem.facts
        say = _Printer(quiet=as_json)
        say.title("memlane demo: one user's location, on two time axes")

        tx1 = facts.set("U-001", "location", SHANGHAI, valid_from="2026-03-01").tx_from
        say.step(tx1, f"set U-001 location = {SHANGHAI}, valid from 2026-03-01")

        clock.now = datetime(2026, 7, 4, tzinfo=UTC)
        tx2 = facts.set(
            "U-001",
            "location",
            BEIJING,
            valid_from="2026-07-01",
            reason="user said they moved last week",
        ).tx_from
        say.step(tx2, f"set U-001 location = {BEIJING}, valid from 2026-07-01")
        say.table(facts.audit("U-001"), "Stored versions: nothing was overwritten")
        say.answer("Where does U-001 live now?", facts.get("U-001", "location"))
        say.answer(
            "Where did U-001 live on 2026-05-01?",
            facts.get("U-001", "location", valid_at="2026-05-01"),
        )
        say.answer(
            "On 2026-07-02, as we believed the day after tx1?",
            facts.get("U-001", "location", valid_at="2026-07-02", known_at=tx1 + timedelta(days=1)),
        )

        clock.now = datetime(2026, 8, 15, tzinfo=UTC)
        tx3 = facts.set(
            "U-001",
            "location",
            HANGZHOU,
            valid_from="2026-05-01",
            valid_to="2026-06-01",
            reason=CORRECTION,
        ).tx_from
        say.step(tx3, f"correction: U-001 was in {HANGZHOU} from 2026-05-01 to 2026-06-01")
        say.timeline(
            facts.history("U-001", "location"), f"Timeline as believed now ({when(tx3, UTC)})"
        )
        say.timeline(
            facts.history("U-001", "location", known_at=tx2),
            f"As believed at tx2 ({when(tx2, UTC)}): the past did not change",
        )

        clock.now = datetime(2026, 8, 16, tzinfo=UTC)
        facts.define("phone", cardinality="many", identifier=True)
        facts.add("U-001", "phone", "138-0000-1234", source="chat:s-7#2")
        facts.add("U-002", "phone", "139 0000 1234", source="chat:s-9#1")
        say.lookup("13800001234", facts.lookup("phone", "13800001234"))
        say.lookup("13800001235", facts.lookup("phone", "13800001235"))
        if as_json:
            emit_json([f.to_dict() for f in facts.audit("U-001")])


class _Printer:
    def __init__(self, *, quiet: bool) -> None:
        self.quiet = quiet
        self.steps = 0

    def echo(self, text: str = "") -> None:
        if not self.quiet:
            click.echo(text)

    def title(self, text: str) -> None:
        self.echo(click.style(text, bold=True))
        self.echo("valid time = when it was true in the world; known = when memlane learned it")

    def step(self, tx: datetime, text: str) -> None:
        self.steps += 1
        self.echo()
        self.echo(click.style(f"tx{self.steps} @ {when(tx, UTC)}  ", fg="cyan") + text)

    def table(self, facts: Sequence[Fact], caption: str) -> None:
        self.echo(f"\n  {caption}:")
        for line in fact_table(facts, UTC).splitlines():
            self.echo("    " + line)

    def answer(self, question: str, fact: Fact | None) -> None:
        found = "(nothing)" if fact is None else value_text(fact.value)
        self.echo(f"  ? {pad(question, 52)} → {found}")

    def timeline(self, facts: Sequence[Fact], caption: str) -> None:
        self.echo(f"\n  {caption}:")
        span = (CHART_END - CHART_START).total_seconds()
        for fact in facts:
            end = fact.valid_to or CHART_END
            first = int((fact.valid_from - CHART_START).total_seconds() / span * CHART_WIDTH)
            last = int((end - CHART_START).total_seconds() / span * CHART_WIDTH)
            bar = " " * first + "█" * max(1, last - first)
            label = value_text(fact.value)
            interval = f"[{when(fact.valid_from, UTC)}, {when(fact.valid_to, UTC)})"
            self.echo(f"    {pad(label, 16)} {pad(bar, CHART_WIDTH)} {interval}")
        axis = "".join(f"{month:<8}" for month in ("Mar", "Apr", "May", "Jun", "Jul", "Aug"))
        self.echo(f"    {' ' * 16} {axis[: CHART_WIDTH + display_width('')]}")

    def lookup(self, value: str, subjects: list[str]) -> None:
        found = ", ".join(subjects) if subjects else "nobody (exact: one digit off is no match)"
        self.echo(f"  ? who has phone {value}? → {found}")
