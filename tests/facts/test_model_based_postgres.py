"""The exact lane's model-based test on PostgreSQL: the same machine, a real server.

Fewer runs than on SQLite (every read is a round trip); each run empties one database.
"""

from __future__ import annotations

import psycopg
import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis.stateful import run_state_machine_as_test
from tests.facts.test_model_based import ExactLaneMachine

from memlane.storage.sql import facts as sql_facts


def test_the_machine_finds_a_planted_bug_on_postgresql(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        sql_facts,
        "_KNOWN_AT",
        "tx_from <= %(known)s AND (tx_to IS NULL OR tx_to >= %(known)s) AND deleted_at IS NULL",
    )
    with pytest.raises(AssertionError):
        run_state_machine_as_test(
            _on_postgresql(postgres_url),
            settings=settings(
                POSTGRES_SETTINGS,
                max_examples=100,
                phases=[Phase.generate],
                report_multiple_bugs=False,
            ),
        )


def test_the_exact_lane_on_postgresql_matches_the_model(postgres_url: str) -> None:
    """The same machine on PostgreSQL (fewer runs: every read is a round trip)."""
    run_state_machine_as_test(_on_postgresql(postgres_url), settings=POSTGRES_SETTINGS)


POSTGRES_SETTINGS = settings(
    max_examples=40,
    stateful_step_count=30,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)


def _on_postgresql(url: str) -> type[ExactLaneMachine]:
    """The machine on one PostgreSQL database, emptied before each run."""

    def empty_memory() -> str:
        with psycopg.connect(url, autocommit=True) as connection:
            connection.execute(
                "TRUNCATE attributes, facts RESTART IDENTITY; UPDATE tx_clock SET last_tx = 0; "
                "SELECT setval('memlane_tx', 1, false)"  # where transaction times come from
            )
        return url

    return type(
        "PostgresExactLaneMachine",
        (ExactLaneMachine,),
        {"empty_memory": staticmethod(empty_memory)},
    )
