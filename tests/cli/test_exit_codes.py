"""Exit codes that agree with and without --json, unknown subjects, empty tenants, typos."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

import memlane
from memlane.cli import cli


@pytest.fixture
def db(tmp_path, monkeypatch):
    path = tmp_path / "cli.db"
    monkeypatch.setenv("MEMLANE_URL", str(path))
    return path


def _run(*args: str, code: int = 0):
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == code, result.output
    return result


@pytest.mark.parametrize(
    "read",
    [["fact", "get", "U-001", "shoe_size"], ["fact", "lookup", "phone", "13800001234"]],
)
def test_nothing_found_exits_1_with_and_without_json(db, read):
    _run("fact", "set", "U-001", "location", "Oslo")
    assert _run(*read, code=1).stderr.startswith("Error: ")
    assert json.loads(_run(*read, "--json", code=1).stdout) == []


def test_found_exits_0_with_and_without_json(db):
    _run("fact", "set", "U-001", "location", "Oslo")
    assert "Oslo" in _run("fact", "get", "U-001", "location").stdout
    assert json.loads(_run("fact", "get", "U-001", "location", "--json").stdout)[0]["value"] == (
        "Oslo"
    )


def test_forget_of_an_unknown_subject_is_an_error_and_logs_nothing(db):
    _run("fact", "set", "U-001", "location", "Oslo")
    result = _run("forget", "NOBODY", code=1)
    assert "subject: nothing is known about 'NOBODY'" in result.stderr
    _run("forget", "NOBODY", "--json", code=1)
    with memlane.Memory(db) as mem:
        assert mem.views.compliance() == []
    _run("forget", "U-001")  # a known subject is still forgotten
    with memlane.Memory(db) as mem:
        assert [d.subject for d in mem.views.compliance()] == ["U-001"]


def test_keys_create_refuses_an_empty_tenant(db):
    assert (
        "tenant: must not be empty"
        in _run("keys", "create", "--tenant", "", "--role", "agent", code=1).stderr
    )
    assert _run("keys", "list", "--json").stdout.strip() == "[]"


def test_a_new_attribute_close_to_a_known_one_gets_a_warning(db):
    _run("fact", "set", "U-001", "shoe_size", "42")
    _run("fact", "define", "hat_size")
    # Known: the subject's own attributes, defined ones and memlane's extraction vocabulary.
    read = _run("fact", "get", "U-001", "shoe_sise", code=1)
    assert "did you mean 'shoe_size'?" in read.stderr
    typo = _run("fact", "set", "U-002", "hat_sise", "7")
    assert "Warning: attribute 'hat_sise' was never defined or used" in typo.stderr
    assert "did you mean 'hat_size'?" in typo.stderr
    assert "Warning" not in _run("fact", "set", "U-003", "hat_sise", "8").stderr  # used now
    assert "Warning" not in _run("fact", "set", "U-001", "favourite_band", "Low").stderr
    assert "did you mean 'location'?" in _run("fact", "set", "U-004", "locaton", "Rome").stderr
    _run("fact", "define", "phone", "--many", "--identifier")
    assert "did you mean 'phone'" in _run("fact", "lookup", "phnoe", "1", code=1).stderr
