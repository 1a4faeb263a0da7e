"""``memlane fact ...``: the exact lane from the shell."""

from __future__ import annotations

import json
from typing import Any

import click

from memlane.cli import Settings, emit_json
from memlane.cli.declared import declared
from memlane.cli.render import fact_table, value_text, when
from memlane.errors import InvalidInput
from memlane.facts.model import Fact
from memlane.memory import Memory
from memlane.operations import attribute_hint, catalog, fact_values

json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON.")


@click.group()
def fact() -> None:
    """Bi-temporal facts: define, set, add, retract, get, history, audit, lookup, profile."""


def _parse_value(text: str, as_json: bool) -> Any:
    if not as_json:
        return text
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise InvalidInput("value", f"not valid JSON: {error.msg}") from error


def _print_facts(facts: list[Fact], settings: Settings, as_json: bool) -> None:
    if as_json:
        emit_json([f.to_dict() for f in facts])
    elif facts:
        from memlane.timeutil import resolve_timezone

        click.echo(fact_table(facts, resolve_timezone(settings.timezone), with_attribute=True))
    else:
        click.echo("(no versions)")


def warn_on_typo(mem: Memory, attribute: str, subject: str | None = None) -> None:
    """Print a warning (to stderr) if ``attribute`` looks like a typo of a known attribute."""
    hint = attribute_hint(mem, attribute, subject)
    if hint is not None:
        click.echo(f"Warning: {hint}", err=True)


def nothing_found(as_json: bool, message: str) -> None:
    """Exit 1 because a read found nothing: ``[]`` on stdout with ``--json``, else ``message``.

    The exit status is the same in both modes, so a script can test it either way.
    """
    if not as_json:
        raise click.ClickException(message)
    emit_json([])
    click.get_current_context().exit(1)


@fact.command("define")
@declared(catalog.FACT_DEFINE, arguments=("attribute",), spelt={"cardinality": "--many"})
@json_option
@click.pass_obj
def define_command(settings: Settings, /, as_json: bool, **arguments: Any) -> None:
    """Declare ATTRIBUTE's cardinality and whether it is an identifier."""
    attribute = arguments["attribute"]
    with settings.open() as mem:
        definition = mem.facts.define(**arguments)
    if as_json:
        emit_json(
            {
                "name": definition.name,
                "cardinality": definition.cardinality,
                "identifier": definition.identifier,
                "normalizer": definition.normalizer,
            }
        )
    else:
        kind = f" identifier ({definition.normalizer})" if definition.identifier else ""
        click.echo(f"defined {attribute}: {definition.cardinality}-valued{kind}")


def _write(
    operation: str,
    settings: Settings,
    subject: str,
    attribute: str,
    value: str,
    options: dict[str, Any],
) -> None:
    as_json = options.pop("as_json")
    parsed = _parse_value(value, options.pop("value_json"))
    with settings.open() as mem:
        warn_on_typo(mem, attribute, subject)
        write = mem.facts.set if operation == "set" else mem.facts.add
        written = write(subject, attribute, parsed, **options)
        _print_facts([written], settings, as_json)


FACT_ARGUMENTS = ("subject", "attribute", "value")


@fact.command("set")
@declared(catalog.FACT_SET, arguments=FACT_ARGUMENTS)
@click.option("--value-json", is_flag=True, help="Parse VALUE as JSON.")
@json_option
@click.pass_obj
def set_command(
    settings: Settings, /, subject: str, attribute: str, value: str, **options: Any
) -> None:
    """Assert SUBJECT's one-valued ATTRIBUTE is VALUE (from --valid-from, default now)."""
    _write("set", settings, subject, attribute, value, options)


@fact.command("add")
@declared(catalog.FACT_ADD, arguments=FACT_ARGUMENTS)
@click.option("--value-json", is_flag=True, help="Parse VALUE as JSON.")
@json_option
@click.pass_obj
def add_command(
    settings: Settings, /, subject: str, attribute: str, value: str, **options: Any
) -> None:
    """Add VALUE to SUBJECT's many-valued ATTRIBUTE."""
    _write("add", settings, subject, attribute, value, options)


@fact.command("retract")
@declared(catalog.FACT_RETRACT, arguments=("subject", "attribute"))
@click.option("--value-json", is_flag=True, help="Parse --value as JSON.")
@json_option
@click.pass_obj
def retract_command(
    settings: Settings,
    /,
    subject: str,
    attribute: str,
    valid_from: str | None,
    valid_to: str | None,
    value: str | None,
    value_json: bool,
    as_json: bool,
) -> None:
    """End what SUBJECT's ATTRIBUTE holds from --valid-from (default now)."""
    parsed = None if value is None else _parse_value(value, value_json)
    with settings.open() as mem:
        warn_on_typo(mem, attribute, subject)
        ended = mem.facts.retract(subject, attribute, valid_from, valid_to, value=parsed)
        _print_facts(ended, settings, as_json)


@fact.command("get")
@declared(catalog.FACT_GET, arguments=("subject", "attribute"))
@json_option
@click.pass_obj
def get_command(
    settings: Settings,
    subject: str,
    attribute: str,
    valid_at: str | None,
    known_at: str | None,
    as_json: bool,
) -> None:
    """Print the value of SUBJECT's ATTRIBUTE (all values if it is many-valued)."""
    with settings.open() as mem:
        found = fact_values(mem, subject, attribute, valid_at, known_at)
        if not found:
            warn_on_typo(mem, attribute, subject)
            nothing_found(as_json, f"no value of {attribute} for {subject} at that point")
        elif as_json:
            emit_json([f.to_dict() for f in found])
        else:
            for item in found:
                until = when(item.valid_to, mem.timezone)
                click.echo(
                    f"{value_text(item.value)}    (valid "
                    f"{when(item.valid_from, mem.timezone)} → {until})"
                )


@fact.command("history")
@declared(catalog.FACT_HISTORY, arguments=("subject", "attribute"))
@json_option
@click.pass_obj
def history_command(
    settings: Settings, subject: str, attribute: str, known_at: str | None, as_json: bool
) -> None:
    """Print the valid-time timeline of SUBJECT's ATTRIBUTE."""
    with settings.open() as mem:
        timeline = mem.facts.history(subject, attribute, known_at)
        if not timeline:
            warn_on_typo(mem, attribute, subject)
        _print_facts(timeline, settings, as_json)


@fact.command("audit")
@declared(catalog.FACT_AUDIT, arguments=("subject", "attribute"))
@json_option
@click.pass_obj
def audit_command(
    settings: Settings, /, subject: str, attribute: str | None, as_json: bool
) -> None:
    """Print every version ever stored for SUBJECT, superseded ones included."""
    with settings.open() as mem:
        _print_facts(mem.facts.audit(subject, attribute), settings, as_json)


@fact.command("lookup")
@declared(catalog.FACT_LOOKUP, arguments=("attribute", "value"))
@json_option
@click.pass_obj
def lookup_command(
    settings: Settings,
    attribute: str,
    value: str,
    valid_at: str | None,
    known_at: str | None,
    as_json: bool,
) -> None:
    """Print the subjects whose identifier ATTRIBUTE is exactly VALUE."""
    with settings.open() as mem:
        subjects = mem.facts.lookup(attribute, value, valid_at, known_at)
        if not subjects:
            warn_on_typo(mem, attribute)
            nothing_found(as_json, f"no subject has {attribute} = {value}")
    if as_json:
        emit_json(subjects)
    else:
        click.echo("\n".join(subjects))


@fact.command("profile")
@declared(catalog.FACT_PROFILE, arguments=("subject",))
@json_option
@click.pass_obj
def profile_command(
    settings: Settings, subject: str, valid_at: str | None, known_at: str | None, as_json: bool
) -> None:
    """Print every attribute of SUBJECT at that point."""
    with settings.open() as mem:
        profile = mem.facts.profile(subject, valid_at, known_at)
    facts = [f for item in profile.values() for f in (item if isinstance(item, list) else [item])]
    if as_json:
        emit_json({name: [f.to_dict() for f in facts if f.attribute == name] for name in profile})
    else:
        _print_facts(facts, settings, as_json=False)
