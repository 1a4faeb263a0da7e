"""Memory locations: one rule says which database a location names, and bad ones are refused."""

from __future__ import annotations

from pathlib import Path

import pytest

import memlane
from memlane.locations import is_postgres, scheme
from memlane.storage import open_backend


@pytest.mark.parametrize(
    ("location", "postgres"),
    [
        ("postgresql://u@localhost/m", True),
        ("POSTGRES://u@db/m", True),
        ("postgres.db", False),  # a file in the working directory
        ("./postgres.db", False),
        ("/tmp/postgresql-backups/m.db", False),
        ("sqlite:///m.db", False),
        (":memory:", False),
    ],
)
def test_a_location_is_postgresql_by_its_scheme_only(location: str, postgres: bool) -> None:
    assert is_postgres(location) is postgres


def test_sqlite_urls_open_the_file_they_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)
    backend = open_backend("SQLite:///m.db")
    backend.close()
    assert scheme("SQLite:///m.db") == "sqlite" and (tmp_path / "m.db").exists()


@pytest.mark.parametrize(
    ("location", "message"),
    [
        ("mysql://u@db/m", "unknown memory location scheme 'mysql'"),
        ("  ", "empty memory location"),
        ("/no/such/directory/m.db", "does not exist"),
    ],
)
def test_a_location_no_backend_opens_is_refused(location: str, message: str) -> None:
    with pytest.raises(memlane.InvalidInput, match=message) as refused:
        memlane.Memory(location)
    assert refused.value.field == "url"
