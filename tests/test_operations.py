"""Every adapter offers each public operation exactly as it is declared, and so does the library.

The declarations (:mod:`memlane.operations.catalog`) are the one place a parameter's name,
type, default, limits and doc are written. These tests read what each adapter publishes —
the OpenAPI document, the MCP tool schemas, the ``memlane`` command's click parameters — and
the library's signatures, and fail on any parameter, default or limit that differs.
"""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

import click
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("mcp")

import memlane
from memlane.cli import cli
from memlane.cli.declared import ANY, DeclaredArgument, DeclaredOption
from memlane.operations import OPERATIONS, Operation, Param
from memlane.server.app import create_app
from memlane.server.declared import requested
from memlane.server.fields import INSTANT_SCHEMA, NOT_NULL
from memlane.server.mcp_server import TOOL_NAMES, build_server
from memlane.validation import NAME_PATTERN, TEXT_PATTERN, TOKEN_PATTERN

PAGING = {"limit", "offset"}
"""Query parameters of list routes that belong to HTTP, not to the operation."""

LIBRARY = {"sessions.close": "running_session", "sessions.window": "running_session"}
"""Operations whose library call is not named after them."""

IDS = [operation.name for operation in OPERATIONS]


@pytest.fixture(scope="module")
def memory():
    with memlane.Memory(":memory:", embedder="hash") as mem:
        yield mem


@pytest.fixture(scope="module")
def openapi() -> dict[str, Any]:
    return create_app(":memory:").openapi()


@pytest.fixture(scope="module")
def tool_schemas(memory) -> dict[str, dict[str, Any]]:
    tools = asyncio.run(build_server(memory).list_tools())
    return {tool.name: tool.input_schema for tool in tools}


def expected(param: Param) -> dict[str, Any]:
    """What a JSON schema must say of ``param``."""
    facts: dict[str, Any] = {"description": param.doc}
    if not param.required and param.default is not None:
        facts["default"] = param.default
    patterns = {"name": NAME_PATTERN, "text": TEXT_PATTERN, "token": TOKEN_PATTERN}
    if param.kind in ("integer", "number"):
        facts |= {"minimum": param.low, "maximum": param.high}
    elif param.kind in patterns:
        facts |= {"minLength": 1, "maxLength": param.high, "pattern": patterns[param.kind]}
    elif param.kind == "instant":
        facts |= INSTANT_SCHEMA
    elif param.kind == "choice":
        facts["enum"] = list(param.choices)
    elif param.kind == "steps":
        facts |= {"minItems": 1, "maxItems": param.high}
    elif param.kind == "json" and param.required:
        facts |= NOT_NULL  # null is no value
    return facts


def published(schema: dict[str, Any]) -> dict[str, Any]:
    """The keywords :func:`expected` names, from a property (its non-null branch merged)."""
    merged = dict(schema)
    for branch in schema.get("anyOf", []):
        if branch.get("type") != "null":
            merged |= branch
    keys = (
        *("description", "default", "minimum", "maximum", "minLength", "maxLength", "pattern"),
        *("enum", "minItems", "maxItems", "not"),
    )
    found = {key: merged[key] for key in keys if key in merged}
    if found.get("default", ...) is None:  # OpenAPI leaves a null default out, MCP says it
        del found["default"]
    return found


def check_schema(
    where: str, params: tuple[Param, ...], properties: dict[str, Any], required: set[str]
) -> None:
    assert set(properties) == {param.name for param in params}, where
    assert required == {p.name for p in params if p.required}, where
    for param in params:
        assert published(properties[param.name]) == expected(param), (where, param.name)


def http_parameters(
    openapi: dict[str, Any], route: str, operation: Operation
) -> tuple[dict[str, Any], set[str]]:
    method, path = route.split(" ", 1)
    spec = openapi["paths"][path][method.lower()]
    if method in ("GET", "DELETE"):
        paging = PAGING - set(operation.names)  # HTTP's own, unless the operation pages
        params = [p for p in spec.get("parameters", []) if p["name"] not in paging]
        properties = {p["name"]: {**p["schema"], "description": p["description"]} for p in params}
        return properties, {p["name"] for p in params if p["required"]}
    reference = spec["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    body = openapi["components"]["schemas"][reference.rsplit("/", 1)[-1]]
    return body["properties"], set(body.get("required", []))


@pytest.mark.parametrize("operation", OPERATIONS, ids=IDS)
def test_every_operation_is_offered_somewhere(operation: Operation) -> None:
    assert operation.http or operation.mcp or operation.cli
    assert len(set(operation.names)) == len(operation.names)
    assert all(param.doc.strip() for param in operation.params)


@pytest.mark.parametrize("operation", OPERATIONS, ids=IDS)
def test_the_library_takes_the_declared_parameters(memory, operation: Operation) -> None:
    call: Any = memory
    for part in LIBRARY.get(operation.name, operation.name).split("."):
        call = getattr(call, part)
    library = inspect.signature(call).parameters
    assert list(library)[: len(operation.params)] == list(operation.names)
    for param in operation.params:
        default = library[param.name].default
        if param.nullable and default is inspect.Parameter.empty:
            continue  # ``recall(None, query)``: the library asks to be told "any subject"
        assert default == (inspect.Parameter.empty if param.required else param.default)
    for extra in list(library)[len(operation.params) :]:
        assert library[extra].kind == inspect.Parameter.KEYWORD_ONLY, extra


@pytest.mark.parametrize(
    "operation", [op for op in OPERATIONS if op.http], ids=lambda operation: operation.name
)
def test_every_http_route_takes_the_declared_parameters(openapi, operation: Operation) -> None:
    for route in operation.http:
        properties, required = http_parameters(openapi, route, operation)
        check_schema(route, requested(operation), properties, required)


def test_the_http_api_takes_from_the_key_only_the_tenant() -> None:
    taken = {name for operation in OPERATIONS for name in operation.from_key}
    assert taken == {"tenant"}
    assert all(op.http for op in OPERATIONS if op.from_key)


@pytest.mark.parametrize(
    "operation", [op for op in OPERATIONS if op.mcp], ids=lambda operation: operation.name
)
def test_every_mcp_tool_takes_the_declared_parameters(tool_schemas, operation: Operation) -> None:
    assert operation.mcp in TOOL_NAMES
    schema = tool_schemas[operation.mcp]
    properties, required = schema["properties"], set(schema.get("required", []))
    check_schema(operation.mcp, operation.params, properties, required)


def test_every_mcp_tool_is_declared() -> None:
    declared = [operation.mcp for operation in OPERATIONS if operation.mcp]
    assert sorted(TOOL_NAMES) == sorted(declared)


def command(path: str) -> click.Command:
    found: click.Command = cli
    for part in path.split():
        assert isinstance(found, click.Group), path
        found = found.commands[part]
    return found


@pytest.mark.parametrize(
    "operation", [op for op in OPERATIONS if op.cli], ids=lambda operation: operation.name
)
def test_every_command_takes_the_declared_parameters(operation: Operation) -> None:
    assert operation.cli is not None
    params = {param.name: param for param in command(operation.cli).params}
    for declared in operation.params:
        given = params[declared.name]
        assert isinstance(given, DeclaredArgument | DeclaredOption), declared.name
        assert given.declared == declared
        if isinstance(given, DeclaredArgument):
            assert (given.required and declared.required) or declared.nullable
            continue
        check_option(given, declared)


def check_option(option: click.Option, declared: Param) -> None:
    """An option keeps the declared default, type and doc; the library checks the limits."""
    if declared.kind == "choice" and option.is_flag:  # ``--many``: picks that value
        assert option.opts[0].lstrip("-") in declared.choices
        return
    if declared.kind == "flag":
        assert option.is_flag
        inverted = option.opts[0].startswith("--no-")
        assert declared.default is inverted
        return
    if not declared.required:
        assert option.default == declared.default, declared.name
    kinds = {"integer": click.INT, "number": click.FLOAT}
    if declared.kind == "choice":
        assert isinstance(option.type, click.Choice)
        assert tuple(option.type.choices) == declared.choices
    else:
        assert option.type == kinds.get(declared.kind, click.STRING), declared.name
    assert option.help is not None and option.help.startswith(declared.doc)
    if declared.kind in ("integer", "number"):
        assert f"({declared.low:g} to {declared.high:g})" in option.help


def test_a_declared_argument_that_may_be_omitted_is_given_as_a_dash(tmp_path) -> None:
    from click.testing import CliRunner

    url = str(tmp_path / "ops.db")
    runner = CliRunner()
    assert runner.invoke(cli, ["--url", url, "fact", "set", "U-1", "phone", "1"]).exit_code == 0
    result = runner.invoke(cli, ["--url", url, "recall", ANY, "phone of U-1", "--json"])
    assert result.exit_code == 0, result.output
    assert '"subjects": [' in result.output


SAMPLE = {
    "name": "U-1",
    "text": "where does U-1 live",
    "json": "x",
    "instant": None,
    "token": "order_refund",
    "steps": [{"action": "search", "args": {"q": "U-1"}}],
}
"""A valid value of each kind, for the arguments a limit test does not probe."""

LIBRARY_WIDER = {
    ("facts.lookup", "value"): "the library looks up any JSON value; the adapters take a string",
}
"""Declared limits of the adapters that the library does not need to hold to."""


def call_library(memory, operation: Operation, **probe: Any) -> None:
    arguments = {p.name: p.default for p in operation.params if not p.required}
    for param in operation.params:
        if param.required:
            arguments[param.name] = param.choices[0] if param.choices else SAMPLE[param.kind]
    call: Any = memory
    for part in LIBRARY.get(operation.name, operation.name).split("."):
        call = getattr(call, part)
    call(**(arguments | probe))


LIMITED = [
    (operation, param)
    for operation in OPERATIONS
    for param in operation.params
    if param.high is not None and (operation.name, param.name) not in LIBRARY_WIDER
]


@pytest.mark.parametrize(
    ("operation", "param"),
    LIMITED,
    ids=[f"{operation.name}-{param.name}" for operation, param in LIMITED],
)
def test_the_library_enforces_the_declared_limits(tmp_path, operation, param) -> None:
    with memlane.Memory(str(tmp_path / "limits.db"), embedder="hash") as mem:
        mem.facts.set("U-1", "location", "Oslo")  # forget needs a known subject
        if operation.name == "facts.add":  # the sample attribute must be many-valued
            mem.facts.define("U-1", cardinality="many")
        if param.kind in ("name", "text", "token"):
            over: Any = "x" * (int(param.high) + 1)
        elif param.kind == "steps":
            over = [{"action": "search"}] * (int(param.high) + 1)
        else:
            over = param.high + (1 if param.kind == "integer" else 0.5)
        with pytest.raises(memlane.InvalidInput) as refused:
            call_library(mem, operation, **{param.name: over})
        assert refused.value.field == param.name
        if param.kind in ("integer", "number"):  # the declared bounds themselves are accepted
            call_library(mem, operation, **{param.name: param.high})
            call_library(mem, operation, **{param.name: param.low})


CONDITIONAL = [(op, param) for op in OPERATIONS for param in op.params if param.only_with]


@pytest.mark.parametrize(
    ("operation", "param"), CONDITIONAL, ids=[f"{op.name}-{p.name}" for op, p in CONDITIONAL]
)
def test_a_parameter_given_only_with_others_is_published_and_enforced(
    openapi, tmp_path, operation: Operation, param: Param
) -> None:
    for route in operation.http:
        reference = openapi["paths"][route.split(" ", 1)[1]]["post"]["requestBody"]
        name = reference["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
        rules = openapi["components"]["schemas"][name]["allOf"]
        rule = next(rule for rule in rules if rule["if"]["required"] == [param.name])
        assert rule["then"]["properties"] == {k: {"const": v} for k, v in param.only_with}
    given = param.choices[0] if param.choices else SAMPLE[param.kind]
    otherwise = {other: not value for other, value in param.only_with}
    with memlane.Memory(str(tmp_path / "only.db"), embedder="hash") as mem:
        call_library(mem, operation, **{param.name: given}, **dict(param.only_with))
        with pytest.raises(memlane.InvalidInput) as refused:
            call_library(mem, operation, **{param.name: given}, **otherwise)
    assert refused.value.field == param.name


def test_some_parameter_depends_on_another() -> None:
    assert CONDITIONAL  # so that the test above tests something
