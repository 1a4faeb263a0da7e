"""MemlaneSession keeps the SDK's Session contract; its messages become memlane turns."""

from __future__ import annotations

import asyncio
import importlib
import json
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import memlane

pytest.importorskip("agents")

from agents import Agent, FunctionTool, RunConfig, Runner
from agents.items import ModelResponse
from agents.memory import Session, SessionSettings, SQLiteSession
from agents.models.interface import Model
from agents.tool_context import ToolContext
from agents.usage import Usage
from openai.types.responses import ResponseOutputMessage, ResponseOutputText

from memlane.integrations.openai_agents import MemlaneSession, memlane_tools


@pytest.fixture
def mem(clock, scratch_url):
    with memlane.Memory(scratch_url, clock=clock, embedder="hash") as memory:
        yield memory


def user(text):
    return {"role": "user", "content": text}


def assistant(text):
    return {
        "type": "message",
        "role": "assistant",
        "id": "msg_1",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


CALL = {"type": "function_call", "call_id": "c1", "name": "lookup", "arguments": "{}"}
OUTPUT = {"type": "function_call_output", "call_id": "c1", "output": "found"}


# -- the protocol, against the SDK's own SQLite session --------------------------------------

session_ops = st.one_of(
    st.tuples(
        st.just("add"),
        st.lists(st.sampled_from([user("hi"), assistant("hello"), CALL, OUTPUT]), max_size=3),
    ),
    st.tuples(st.just("get"), st.sampled_from([None, 0, 1, 2, 5, -1])),
    st.tuples(st.just("pop"), st.none()),
    st.tuples(st.just("clear"), st.none()),
)


async def _apply(session, op, argument):
    if op == "add":
        return await session.add_items(list(argument))
    if op == "get":
        return await session.get_items(argument)
    if op == "pop":
        return await session.pop_item()
    return await session.clear_session()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(session_ops, min_size=1, max_size=12))
def test_it_answers_like_the_sdks_own_sqlite_session(sequence):
    async def scenario():
        with memlane.Memory(":memory:", embedder="hash") as mem:
            ours = MemlaneSession(mem, "U-1", "s-1")
            theirs = SQLiteSession("s-1")
            try:
                for op, argument in sequence:
                    assert await _apply(ours, op, argument) == await _apply(theirs, op, argument), (
                        sequence,
                        op,
                        argument,
                    )
                assert await ours.get_items() == await theirs.get_items()
            finally:
                theirs.close()

    asyncio.run(scenario())


def test_it_is_an_sdk_session(mem):
    session = MemlaneSession(mem, "U-1", "s-1", session_settings=SessionSettings(limit=2))
    assert isinstance(session, Session) and session.session_id == "s-1"
    asyncio.run(session.add_items([user("a"), user("b"), user("c")]))
    assert asyncio.run(session.get_items()) == [user("b"), user("c")]  # the settings' limit
    assert asyncio.run(session.get_items(limit=3)) == [user("a"), user("b"), user("c")]


# -- what memlane makes of it -----------------------------------------------------------------


def test_messages_become_turns_facts_and_a_summary(mem):
    session = MemlaneSession(mem, "U-1", "s-42", window=1)
    session.add([user("我上周搬到北京了，新手机号 139-1111-2222"), assistant("好的"), CALL, OUTPUT])
    location = mem.facts.get("U-1", "location")
    assert location.value == "北京" and location.provenance == ("s-42#1",)
    assert [t.role for t in mem.running_session("U-1", "s-42").window()] == ["user", "assistant"]
    assert "北京" in mem.recall("U-1", "where does the user live?", session_id="s-42").text

    session.add([user("I also like green tea")])  # pushes the first round out of the window
    folded = mem.summaries.for_session("s-42")
    assert folded is not None and set(folded.provenance) == {"s-42#1", "s-42#2"}

    asyncio.run(session.clear_session())
    assert asyncio.run(session.get_items()) == []
    assert mem.running_session("U-1", "s-42") is None  # closed: the window was summarized
    assert "s-42#3" in mem.summaries.for_session("s-42").provenance
    assert mem.facts.get("U-1", "location").value == "北京"  # what was learned stays


def test_the_history_is_versioned_and_forget_reaches_it(mem, clock):
    session = MemlaneSession(mem, "U-1", "s-1")
    session.add([user("my email is kim@example.org"), assistant("noted")])
    before = clock.advance(minutes=1)
    clock.advance(minutes=1)
    assert session.pop() == assistant("noted")
    assert session.items() == [user("my email is kim@example.org")]
    popped = [f for f in mem.facts.audit("U-1") if f.attribute == 'agents:["s-1",2]']
    assert popped[0].value["item"] == assistant("noted") and popped[0].tx_to is not None
    assert mem.facts.get("U-1", 'agents:["s-1",2]', valid_at=before, known_at=before)

    other = MemlaneSession(mem, "U-2", "s-1")  # the same session id, another subject
    other.add([user("hello")])
    mem.forget("U-1", reason="erasure request")
    assert session.items() == [] and other.items() == [user("hello")]
    assert mem.running_session("U-1", "s-1") is None


def test_bad_input_is_invalid_input(mem):
    with pytest.raises(memlane.InvalidInput, match="session_id"):
        MemlaneSession(mem, "U-1", "")
    with pytest.raises(memlane.InvalidInput, match="window"):
        MemlaneSession(mem, "U-1", "s-1", window=0)
    session = MemlaneSession(mem, "U-1", "s-1")
    with pytest.raises(memlane.InvalidInput, match="items"):
        session.add(["just text"])
    with pytest.raises(memlane.InvalidInput, match="value"):
        session.add([user("fine"), {"role": "user", "content": object()}])
    assert session.items() == []  # all or nothing
    with pytest.raises(memlane.InvalidInput, match="limit"):
        session.items("2")


# -- tools ------------------------------------------------------------------------------------


def _invoke(tool: FunctionTool, arguments: dict) -> str:
    raw = json.dumps(arguments)
    context = ToolContext(context=None, tool_name=tool.name, tool_call_id="1", tool_arguments=raw)
    return asyncio.run(tool.on_invoke_tool(context, raw))


def test_recall_and_remember_tools(mem):
    recall, remember = memlane_tools(mem, "U-1")
    assert (recall.name, remember.name) == ("recall", "remember")
    assert recall.strict_json_schema and remember.strict_json_schema
    assert recall.params_json_schema["required"] == ["query"]
    assert remember.params_json_schema["properties"]["text"]["type"] == "string"
    assert remember.params_json_schema["additionalProperties"] is False
    assert "long-term memory" in remember.description

    assert _invoke(remember, {"text": "The user's favourite team is Chelsea"}).startswith(
        "Remembered"
    )
    assert mem.summaries.notes("U-1")[0].source == "agent"
    assert "Chelsea" in _invoke(recall, {"query": "which team does the user support?"})
    assert "text" in _invoke(remember, {"text": " "})  # the field, so the model can retry
    with pytest.raises(memlane.InvalidInput, match="subject"):
        memlane_tools(mem, "")


class _ScriptedModel(Model):
    """A model that answers every request with one line, and records what it was sent."""

    def __init__(self, reply: str) -> None:
        self.reply = reply
        self.inputs: list = []

    async def get_response(self, system_instructions, input, *args, **kwargs):
        self.inputs.append(input)
        message = ResponseOutputMessage(
            id="msg_1",
            type="message",
            role="assistant",
            status="completed",
            content=[ResponseOutputText(type="output_text", text=self.reply, annotations=[])],
        )
        return ModelResponse(output=[message], usage=Usage(), response_id=None)

    def stream_response(self, *args, **kwargs):
        raise NotImplementedError


def test_a_runner_keeps_its_conversation_in_memlane(mem):
    model = _ScriptedModel("Noted, Lisbon it is.")
    agent = Agent(name="helper", model=model, tools=memlane_tools(mem, "U-1"))
    session = MemlaneSession(mem, "U-1", "s-7")

    offline = RunConfig(tracing_disabled=True)
    for said in ("I moved to Lisbon last week", "What did I just tell you?"):
        asyncio.run(Runner.run(agent, said, session=session, run_config=offline))

    history = session.items()
    assert [item.get("role") for item in history] == ["user", "assistant", "user", "assistant"]
    assert history[0]["content"] == "I moved to Lisbon last week"
    assert [item.get("content") for item in model.inputs[1]][:1] == [history[0]["content"]]
    assert mem.facts.get("U-1", "location").value == "Lisbon"


def test_a_missing_sdk_names_the_extra(monkeypatch):
    monkeypatch.delitem(sys.modules, "memlane.integrations.openai_agents")
    monkeypatch.setitem(sys.modules, "agents", None)
    with pytest.raises(ImportError, match=r"memlane\[openai-agents\]"):
        importlib.import_module("memlane.integrations.openai_agents")
