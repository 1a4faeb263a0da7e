"""``memlane keys ...``: API keys of the HTTP API (create, list, revoke)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import click

from memlane.cli import Settings, emit_json
from memlane.cli.declared import declared
from memlane.cli.render import table
from memlane.keyring import KeyRing
from memlane.memory import Memory
from memlane.operations import catalog

json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON.")


@contextmanager
def _ring(settings: Settings) -> Iterator[KeyRing]:
    with Memory(settings.url) as memory:
        yield memory.keys


@click.group()
def keys() -> None:
    """API keys: each is bound to one tenant and one role (agent, auditor, compliance, admin)."""


@keys.command("create")
@declared(catalog.KEY_CREATE, defaults={"tenant": None})
@json_option
@click.pass_obj
def create_command(
    settings: Settings, tenant: str | None, role: str, label: str | None, as_json: bool
) -> None:
    """Create a key and print it once; only its hash is stored.

    The key's tenant is --tenant, by default the --tenant of memlane.
    """
    with _ring(settings) as ring:
        record, key = ring.create(settings.tenant if tenant is None else tenant, role, label)
    if as_json:
        emit_json({"key": key, **record.to_dict()})
    else:
        click.echo(key)
        click.echo(
            f"(id {record.id}, tenant {record.tenant}, role {record.role}; "
            "shown once: store it now)",
            err=True,
        )


@keys.command("list")
@declared(catalog.KEY_LIST)
@json_option
@click.pass_obj
def list_command(settings: Settings, tenant: str | None, as_json: bool) -> None:
    """List keys (ids, tenants, roles; never the secrets)."""
    with _ring(settings) as ring:
        found = ring.list(tenant)
    if as_json:
        emit_json([k.to_dict() for k in found])
        return
    if not found:
        click.echo("(no keys)")
        return
    rows = [
        [
            k.id,
            k.tenant,
            k.role,
            k.created_at.isoformat(timespec="seconds"),
            "-" if k.revoked_at is None else k.revoked_at.isoformat(timespec="seconds"),
            k.label or "",
        ]
        for k in found
    ]
    click.echo(table(["id", "tenant", "role", "created", "revoked", "label"], rows))


@keys.command("revoke")
@declared(catalog.KEY_REVOKE, arguments=("key_id",))
@json_option
@click.pass_obj
def revoke_command(settings: Settings, key_id: str, tenant: str | None, as_json: bool) -> None:
    """Revoke the key KEY_ID; requests with it are refused from now on."""
    with _ring(settings) as ring:
        record = ring.revoke(key_id, tenant)
    if record is None:
        raise click.ClickException(f"no key with id {key_id!r}")
    if as_json:
        emit_json(record.to_dict())
    else:
        click.echo(f"revoked {record.id} ({record.tenant}, {record.role})")
