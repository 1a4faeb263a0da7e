"""API keys: stored hashed, bound to a tenant and role, shown once, revocable (lib and CLI)."""

from __future__ import annotations

import itertools
import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from memlane.cli import cli
from memlane.errors import InvalidInput
from memlane.server.keys import KeyRing, hash_secret, parse_key
from memlane.server.model import ROLE_PERMISSIONS, ROLES
from memlane.storage import open_backend
from tests.conftest import FakeClock


@pytest.fixture
def ring(tmp_path: Path, clock: FakeClock):
    backend = open_backend(tmp_path / "keys.db")
    yield KeyRing(backend.keys, clock)
    backend.close()


def test_roles_are_cumulative_and_only_admin_manages_keys() -> None:
    for weaker, stronger in itertools.pairwise(ROLES):
        assert ROLE_PERMISSIONS[weaker] < ROLE_PERMISSIONS[stronger]
    assert [r for r in ROLES if "keys" in ROLE_PERMISSIONS[r]] == ["admin"]
    assert [r for r in ROLES if "compliance" in ROLE_PERMISSIONS[r]] == ["compliance", "admin"]


def test_created_key_authenticates_and_only_its_hash_is_stored(
    ring: KeyRing, tmp_path: Path, clock: FakeClock
) -> None:
    record, key = ring.create("acme", "auditor", label="ci")
    parsed = parse_key(key)
    assert parsed is not None and parsed[0] == record.id
    assert record.secret_hash == hash_secret(parsed[1])
    assert ring.authenticate(key) == record
    assert (record.tenant, record.role, record.created_at) == ("acme", "auditor", clock.now)
    raw = (tmp_path / "keys.db").read_bytes()
    assert parsed[1].encode() not in raw
    with sqlite3.connect(tmp_path / "keys.db") as connection:
        columns = connection.execute("SELECT * FROM api_keys").fetchall()
    assert all(parsed[1] not in str(row) for row in columns)


def test_wrong_unknown_malformed_and_revoked_keys_fail(ring: KeyRing, clock: FakeClock) -> None:
    record, key = ring.create("acme", "agent")
    clock.advance(seconds=1)
    other, _ = ring.create("acme", "agent")
    key_id, secret = parse_key(key) or ("", "")
    assert ring.authenticate(f"ml_{other.id}_{secret}") is None  # a secret of another id
    assert ring.authenticate(key + "x") is None
    assert ring.authenticate("ml_zz_short") is None
    assert ring.authenticate("") is None
    clock.advance(minutes=5)
    revoked = ring.revoke(key_id)
    assert revoked is not None and revoked.revoked_at == clock.now
    assert ring.authenticate(key) is None
    assert ring.revoke("0123456789ab") is None
    assert ring.revoke(other.id, tenant="someone-else") is None
    assert [k.id for k in ring.list("acme")] == [record.id, other.id]
    assert ring.list("nobody") == []


@pytest.mark.parametrize(
    ("tenant", "role", "field"), [("", "agent", "tenant"), ("acme", "root", "role")]
)
def test_bad_key_requests_name_the_field(ring: KeyRing, tenant: str, role: str, field: str) -> None:
    with pytest.raises(InvalidInput) as raised:
        ring.create(tenant, role)
    assert raised.value.field == field


def test_cli_create_list_revoke(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clock: FakeClock
) -> None:
    monkeypatch.setenv("MEMLANE_URL", str(tmp_path / "cli.db"))
    runner = CliRunner()

    def run(*args: str, ok: bool = True) -> str:
        result = runner.invoke(cli, list(args), catch_exceptions=False)
        assert (result.exit_code == 0) is ok, result.output
        return result.output

    created = json.loads(
        run("keys", "create", "--tenant", "acme", "--role", "compliance", "--json")
    )
    assert created["key"].startswith(f"ml_{created['id']}_")
    assert (created["tenant"], created["role"]) == ("acme", "compliance")
    plain = run("--tenant", "beta", "keys", "create", "--role", "agent")
    assert plain.splitlines()[0].startswith("ml_")
    listed = json.loads(run("keys", "list", "--json"))
    assert [(k["tenant"], k["role"]) for k in listed] == [("acme", "compliance"), ("beta", "agent")]
    assert created["key"] not in run("keys", "list")
    assert json.loads(run("keys", "list", "--tenant", "beta", "--json"))[0]["role"] == "agent"
    beta = json.loads(run("keys", "list", "--tenant", "beta", "--json"))[0]["id"]
    assert "no key" in run("keys", "revoke", beta, "--tenant", "acme", ok=False)
    assert "label" in run("keys", "create", "--role", "agent", "--label", " ", ok=False)
    revoked = json.loads(run("keys", "revoke", created["id"], "--json"))
    assert revoked["revoked_at"] is not None
    assert "no key" in run("keys", "revoke", "0123456789ab", ok=False)
    assert "role" in run("keys", "create", "--role", "root", ok=False)
    backend = open_backend(tmp_path / "cli.db")
    try:
        ring = KeyRing(backend.keys, clock)
        assert ring.authenticate(created["key"]) is None
    finally:
        backend.close()
