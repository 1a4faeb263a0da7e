"""The public operations, each declared once; HTTP, MCP and the CLI are built from these.

A parameter's name, type, default, limit and doc are written here and nowhere else: the
HTTP request models, the MCP tool signatures and the ``memlane`` command's options are
generated from them (``tests/test_operations.py`` checks every adapter against them).
"""

from __future__ import annotations

from dataclasses import replace
from typing import get_args

from memlane.access import ROLES
from memlane.facts.model import Cardinality
from memlane.facts.normalize import IDENTIFIER_NORMALIZERS
from memlane.keyring import MAX_KEY_LABEL_CHARS
from memlane.memory import MAX_WINDOW_ROUNDS
from memlane.operations.spec import (
    Operation,
    Param,
    choice,
    flag,
    instant,
    integer,
    json_value,
    name,
    number,
    steps,
    text,
    token,
)
from memlane.summaries import lane as summaries
from memlane.validation import (
    MAX_BUDGET_TOKENS,
    MAX_LABEL_CHARS,
    MAX_NOTE_CHARS,
    MAX_OFFSET,
    MAX_PAGE,
    MAX_QUERY_CHARS,
    MAX_RECALL_ITEMS,
    MAX_TURN_CHARS,
)
from memlane.window.model import Role
from memlane.workflows import lane as workflows
from memlane.workflows.parse import MAX_STEPS

SUBJECT = name("subject", "Whose memory: a user or entity id, e.g. U-001.")
ATTRIBUTE = name("attribute", "e.g. location, phone, email.")
SESSION_ID = name("session_id", "The conversation's id, e.g. s-42.")
VALID_AT = instant("valid_at", "Valid-time instant (ISO-8601, e.g. 2026-07-01; default now).")
KNOWN_AT = instant("known_at", "Transaction-time instant: read what was believed then.")
SOURCE = text("source", "Where it came from.", MAX_LABEL_CHARS, None)
REASON = text("reason", "Why, for the record.", MAX_LABEL_CHARS, None)


def _fact(
    verb: str, doc: str, params: tuple[Param, ...], method: str = "GET", mcp: str | None = None
) -> Operation:
    """An operation of ``mem.facts``: route ``/v1/facts/<verb>``, command ``fact <verb>``."""
    route = f"{method} /v1/facts/{verb}"
    return Operation(f"facts.{verb}", doc, params, http=(route,), mcp=mcp, cli=f"fact {verb}")


def _fact_write(operation: str, doc: str, tool: str) -> Operation:
    params: tuple[Param, ...] = (
        SUBJECT,
        ATTRIBUTE,
        json_value("value", "The value: a string, a number, or any JSON (e.g. an object)."),
        instant("valid_from", "Start of validity (ISO-8601; default now)."),
        instant("valid_to", "End of validity, later than valid_from (ISO-8601; default: open)."),
        SOURCE,
        REASON,
        number("confidence", "How sure.", 0.0, 1.0, 1.0),
    )
    return _fact(operation, doc, params, "POST", tool)


RECALL = Operation(
    "recall",
    "Recall what memory holds for a question: a prompt-ready text block and the items.",
    (
        name("subject", "Whose memory; omit to resolve it from the query.", None),
        text("query", "The question, as the user asked it.", MAX_QUERY_CHARS),
        name("session_id", "A running session's id.", None),
        integer("k", "At most this many items.", 1, MAX_RECALL_ITEMS, 8),
        integer("budget_tokens", "Token budget of the text block.", 1, MAX_BUDGET_TOKENS, 1500),
        VALID_AT,
        KNOWN_AT,
        flag("include_stale", "Keep outdated statements among the items (marked stale).", True),
    ),
    http=("POST /v1/recall",),
    mcp="recall",
    cli="recall",
)

REMEMBER = Operation(
    "remember",
    "Keep a free-text statement about a subject; facts it states become exact facts.",
    (
        SUBJECT,
        text("text", "The statement to keep, in any language.", MAX_NOTE_CHARS),
        instant("at", "When it was said (ISO-8601; default now)."),
        SOURCE,
    ),
    http=("POST /v1/remember",),
    mcp="remember",
    cli="remember",
)

FORGET = Operation(
    "forget",
    "Erase a subject (or one attribute, and every text mentioning its values) everywhere.",
    (
        SUBJECT,
        name("attribute", "Only this attribute (and its mentions); omit: the subject.", None),
        text("reason", "Why, for the deletion log.", MAX_LABEL_CHARS, None),
    ),
    http=("POST /v1/forget",),
    mcp="forget",
    cli="forget",
)

FACT_SET = _fact_write(
    "set",
    "Record that a one-valued attribute is `value` from `valid_from` (default now); "
    "the old value is kept as history, never overwritten.",
    "set_fact",
)
FACT_ADD = _fact_write(
    "add",
    "Add one more value to a many-valued attribute (another phone, another e-mail).",
    "add_fact",
)

_GET = _fact(
    "get",
    "The exact value(s) of an attribute at a point in time (default: now).",
    (SUBJECT, ATTRIBUTE, VALID_AT, KNOWN_AT),
    mcp="get_fact",
)
FACT_GET = replace(_GET, http=(*_GET.http, "GET /v1/facts/get_all"))  # the same, every value

FACT_HISTORY = _fact(
    "history",
    "Every value an attribute had over time, as believed at `known_at` (default now).",
    (SUBJECT, ATTRIBUTE, KNOWN_AT),
    mcp="fact_history",
)

FACT_LOOKUP = _fact(
    "lookup",
    "The subjects an identifier belongs to, exactly (never a near miss).",
    (
        name("attribute", "The identifier's attribute, e.g. phone or order_id."),
        text("value", "The identifier, written any way.", MAX_LABEL_CHARS),
        VALID_AT,
        KNOWN_AT,
    ),
    mcp="lookup",
)

FACT_RETRACT = _fact(
    "retract",
    "End what an attribute holds (one value, if given) on an interval.",
    (
        SUBJECT,
        ATTRIBUTE,
        instant("valid_from", "Start of the interval (ISO-8601; default now)."),
        instant(
            "valid_to", "End of the interval, later than valid_from (ISO-8601; default: open)."
        ),
        json_value("value", "End only this value (default: every value).", None),
    ),
    "POST",
)

FACT_DEFINE = _fact(
    "define",
    "Declare an attribute's cardinality and whether it is an identifier.",
    (
        name("attribute", "The attribute to declare, e.g. phone."),
        choice("cardinality", "How many values may hold at once.", get_args(Cardinality), "one"),
        flag("identifier", "Normalize values for an exact reverse lookup.", False),
        choice(
            "normalizer",
            "How an identifier's values are matched.",
            IDENTIFIER_NORMALIZERS,
            None,
            only_with=(("identifier", True),),
        ),
    ),
    "POST",
)

FACT_AUDIT = _fact(
    "audit",
    "Every version ever stored for a subject, superseded and deleted ones included.",
    (SUBJECT, name("attribute", "Only this attribute's versions.", None)),
)

FACT_PROFILE = _fact(
    "profile",
    "Every attribute of a subject at a point in time (default: now).",
    (SUBJECT, VALID_AT, KNOWN_AT),
)

ADD_TURN = Operation(
    "add_turn",
    "Add a turn to a conversation (opened on its first turn); user turns become facts.",
    (
        SUBJECT,
        SESSION_ID,
        choice("role", "Who spoke.", get_args(Role)),
        text("content", "What was said.", MAX_TURN_CHARS),
        instant("at", "When it was said (ISO-8601; default now)."),
        name("speaker", "The speaker's name.", None),
        integer("window", "Rounds kept verbatim.", 1, MAX_WINDOW_ROUNDS, 5),
    ),
    http=("POST /v1/sessions/turn",),
    mcp="add_turn",
    cli="session add",
)

CLOSE_SESSION = Operation(
    "sessions.close",
    "End a conversation: fold what is left into its summary and the subject's storyline.",
    (SUBJECT, SESSION_ID),
    http=("POST /v1/sessions/close",),
    mcp="close_session",
    cli="session close",
)

SESSION_WINDOW = Operation(
    "sessions.window",
    "The turns of a running session kept verbatim.",
    (SUBJECT, SESSION_ID),
    http=("GET /v1/sessions/window",),
)

STORYLINE = Operation(
    "summaries.storyline",
    "The subject's rolling summary across sessions.",
    (SUBJECT,),
    http=("GET /v1/summaries/storyline",),
)

PURGE = Operation(
    "purge",
    "Physically remove deleted data past its retention (or all of it, at once).",
    (
        name("subject", "Only this subject's deleted data.", None),
        flag("immediately", "Do not wait for the retention period.", False),
    ),
    http=("POST /v1/purge",),
    cli="purge",
)

ACTIVE_VIEW = Operation(
    "views.active",
    "The subject as agents see it: profile, storyline and notes.",
    (SUBJECT, VALID_AT),
    http=("GET /v1/views/active",),
)

AUDIT_VIEW = Operation(
    "views.audit",
    "Every version in every lane, superseded and deleted ones flagged.",
    (SUBJECT,),
    http=("GET /v1/views/audit",),
)


def _search(operation: str, doc: str) -> Operation:
    """A search of the summary lane: route ``/v1/summaries/<verb>``."""
    params = (
        name("subject", "Whose memory; omit to search the whole tenant.", None),
        text("query", "What to look for, in any language.", MAX_QUERY_CHARS),
        integer("k", "At most this many hits.", 1, summaries.MAX_K, 5),
    )
    verb = operation.rsplit(".", 1)[-1]
    return Operation(operation, doc, params, http=(f"GET /v1/summaries/{verb}",))


SUMMARY_SEARCH = _search(
    "summaries.search", "Session summaries and storylines that best match a query."
)
NOTE_SEARCH = _search("summaries.search_notes", "Notes that best match a query.")

SUBJECTS = Operation(
    "subjects",
    "The subjects the tenant holds live data about, in byte order; forgotten ones not listed.",
    (
        name("prefix", "The subject starts with this.", None),
        integer("limit", "Page size.", 1, MAX_PAGE, 100),
        integer("offset", "Subjects to skip.", 0, MAX_OFFSET, 0),
        name("contains", "The subject contains this (ASCII letters in any case).", None),
    ),
    http=("GET /v1/subjects",),
)

COMPLIANCE_VIEW = Operation(
    "views.compliance",
    "The deletion log, oldest first: what was deleted, when, why, and when it is purged.",
    (),
    http=("GET /v1/views/compliance",),
)


def _key(verb: str, doc: str, params: tuple[Param, ...], route: str) -> Operation:
    """An operation of ``mem.keys``: command ``keys <verb>``; HTTP takes the caller's tenant."""
    return Operation(
        f"keys.{verb}", doc, params, http=(route,), cli=f"keys {verb}", from_key=("tenant",)
    )


KEY_CREATE = _key(
    "create",
    "A new API key bound to a tenant and a role; the key is shown once and never again.",
    (
        name("tenant", "The tenant the key is bound to."),
        choice("role", "What the key may do.", ROLES),
        text("label", "A note on who holds the key.", MAX_KEY_LABEL_CHARS, None),
    ),
    "POST /v1/keys",
)
KEY_LIST = _key(
    "list",
    "The API keys (never their secrets), oldest first.",
    (name("tenant", "Only this tenant's keys (default: every tenant).", None),),
    "GET /v1/keys",
)
KEY_REVOKE = _key(
    "revoke",
    "Revoke an API key: requests with it are refused from now on.",
    (
        name("key_id", "The key's public id (the part after ml_)."),
        name("tenant", "Only a key of this tenant.", None),
    ),
    "DELETE /v1/keys/{key_id}",
)

RECORD_TRAJECTORY = Operation(
    "workflows.record",
    "Record one run of a task; workflows are induced and evolved from such runs.",
    (
        text("task", "The task as it was asked.", workflows.MAX_TASK_CHARS),
        steps(
            "steps",
            'The actions taken, in order: [{"action": "search", "args": {...}}, ...].',
            MAX_STEPS,
        ),
        flag("success", "Did the run achieve the task?", True),
        token(
            "task_type", "A name for the kind of task, e.g. order_refund; omit to infer it.", None
        ),
        text("reason", "Why it failed, if it did.", workflows.MAX_TASK_CHARS, None),
    ),
    mcp="record_trajectory",
)

FIND_WORKFLOW = Operation(
    "workflows.match",
    "Workflows that fit a task, best first, each with steps an agent can follow.",
    (
        text("task", "The task about to be done, in words.", workflows.MAX_TASK_CHARS),
        integer("k", "At most this many workflows.", 1, workflows.MAX_K, 3),
    ),
    mcp="find_workflow",
)

OPERATIONS: tuple[Operation, ...] = (
    RECALL,
    REMEMBER,
    FORGET,
    FACT_SET,
    FACT_ADD,
    FACT_GET,
    FACT_HISTORY,
    FACT_LOOKUP,
    FACT_RETRACT,
    FACT_DEFINE,
    FACT_AUDIT,
    FACT_PROFILE,
    ADD_TURN,
    CLOSE_SESSION,
    SESSION_WINDOW,
    STORYLINE,
    PURGE,
    ACTIVE_VIEW,
    AUDIT_VIEW,
    SUMMARY_SEARCH,
    NOTE_SEARCH,
    SUBJECTS,
    COMPLIANCE_VIEW,
    KEY_CREATE,
    KEY_LIST,
    KEY_REVOKE,
    RECORD_TRAJECTORY,
    FIND_WORKFLOW,
)
"""Every declared operation."""
