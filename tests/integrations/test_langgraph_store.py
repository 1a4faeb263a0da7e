"""What MemlaneStore adds to a LangGraph store: history, subjects, privacy, TTL, search."""

from __future__ import annotations

import asyncio
import importlib
import sys
from typing import TypedDict

import pytest
from tests.support.services import stored_bytes

import memlane

pytest.importorskip("langgraph")

from langgraph.config import get_store
from langgraph.graph import END, START, StateGraph
from langgraph.store.memory import InMemoryStore

from memlane.integrations.langgraph import MemlaneStore

NS = ("u-1", "memories")


@pytest.fixture
def mem(clock, scratch_url):
    with memlane.Memory(scratch_url, clock=clock, embedder="hash") as memory:
        yield memory


@pytest.fixture
def store(mem):
    return MemlaneStore(mem)


def test_every_put_and_delete_is_a_version_readable_as_of_then(store, mem, clock):
    store.put(NS, "m1", {"text": "likes dark mode"})
    first = clock.advance(seconds=30)
    clock.advance(seconds=30)
    store.put(NS, "m1", {"text": "likes light mode"})
    latest = store.get(NS, "m1")
    second = clock.advance(seconds=30)
    clock.advance(seconds=30)
    store.delete(NS, "m1")
    clock.advance(seconds=30)

    assert store.get(NS, "m1") is None
    assert store.get(NS, "m1", known_at=first).value == {"text": "likes dark mode"}
    assert store.get(NS, "m1", known_at=second).value == {"text": "likes light mode"}
    assert store.get(NS, "m1", known_at="2026-03-01") is None  # before it was written
    item = store.get(NS, "m1", known_at=second)
    assert item.created_at < item.updated_at  # created by the first put, updated by the second
    assert store.get(NS, "m1", known_at=latest.updated_at) == latest  # as of its own stamp
    versions = mem.facts.audit("u-1", 'langgraph:["u-1","memories","m1"]')
    assert [v.value["value"]["text"] for v in versions] == [
        "likes dark mode",  # believed until the update
        "likes dark mode",  # its valid time, closed by the update
        "likes light mode",  # believed until the delete
        "likes light mode",  # closed by the delete
    ]
    assert asyncio.run(store.aget(NS, "m1", known_at=first)).value["text"] == "likes dark mode"


def test_forget_reaches_what_the_agent_stored_and_purge_removes_the_bytes(memory_url, clock):
    with memlane.Memory(memory_url, clock=clock, embedder="hash") as mem:
        store = MemlaneStore(mem)
        store.put(NS, "m1", {"text": "owns a pet quokka named Zanzibar"})
        store.put(("u-2", "memories"), "m1", {"text": "likes tea"})
        assert store.search(("u-1",), query="quokka")[0].key == "m1"
        assert "Zanzibar" in mem.recall("u-1", "which pet does the user have?").text

        mem.forget("u-1", reason="erasure request")
        assert store.get(NS, "m1") is None
        assert store.search(()) == store.search(("u-2",))
        assert store.list_namespaces() == [("u-2", "memories")]
        assert "Zanzibar" not in mem.recall("u-1", "which pet does the user have?").text
        assert mem.purge(subject="u-1", immediately=True).total_rows > 0
    raw = stored_bytes(memory_url)
    assert b"Zanzibar" not in raw and b"likes tea" in raw


def test_the_subject_is_the_label_chosen(mem):
    by_second = MemlaneStore(mem, subject=1)
    by_second.put(("memories", "u-7"), "k", {"text": "hello"})
    assert [f.subject for f in mem.facts.audit("u-7")] == ["u-7", "u-7"]  # marker and item
    with pytest.raises(memlane.InvalidInput, match="namespace"):
        by_second.put(("memories",), "k", {"text": "hello"})
    assert by_second.get(("memories",), "k") is None

    joined = MemlaneStore(mem, subject=lambda namespace: "/".join(namespace))
    joined.put(("org", "team"), "k", {"text": "hi"})
    assert joined.get(("org", "team"), "k").value == {"text": "hi"}
    assert mem.facts.audit("org/team")
    assert [i.namespace for i in joined.search(())] == [("memories", "u-7"), ("org", "team")]

    for bad in (-1, True, "0"):
        with pytest.raises(memlane.InvalidInput, match="subject"):
            MemlaneStore(mem, subject=bad)


def test_items_expire_with_their_ttl_and_reads_refresh_it(mem, clock):
    store = MemlaneStore(mem, ttl={"default_ttl": 2, "refresh_on_read": True})
    store.put(NS, "short", {"text": "a"}, ttl=1)
    store.put(NS, "default", {"text": "b"})
    store.put(NS, "forever", {"text": "c"}, ttl=None)
    clock.advance(seconds=90)
    assert store.get(NS, "short") is None
    assert [i.key for i in store.search(NS)] == ["default", "forever"]  # refreshed "default"
    clock.advance(seconds=90)
    assert store.get(NS, "default", refresh_ttl=False) is not None
    clock.advance(seconds=60)
    assert store.get(NS, "default") is None
    assert [i.key for i in store.search(NS)] == ["forever"]
    assert store.get(NS, "short", known_at=clock.now.replace(minute=0, second=30)) is not None
    assert InMemoryStore().supports_ttl is False and store.supports_ttl is True
    for bad in (0, -1, True, float("inf")):
        with pytest.raises(memlane.InvalidInput, match="ttl"):
            store.put(NS, "k", {"text": "x"}, ttl=bad)


def test_query_ranks_by_memlanes_hybrid_search(mem):
    store = MemlaneStore(mem, index={"fields": ["text"]})
    store.put(NS, "tea", {"text": "drinks green tea every morning", "n": 1})
    store.put(NS, "paris", {"text": "moved to Paris last spring", "n": 2})
    store.put(NS, "quiet", {"other": "no indexed text", "n": 3})
    found = store.search(NS, query="Paris")
    assert found[0].key == "paris" and found[0].score > 0
    assert found[-1].key == "quiet" and found[-1].score is None  # not indexed: last
    assert [i.key for i in store.search(NS, query="Paris", filter={"n": {"$lt": 2}})] == ["tea"]

    notes = len(mem.summaries.notes("u-1"))
    store.put(NS, "tea", {"text": "drinks green tea every morning", "n": 5})  # same text
    assert len(mem.summaries.notes("u-1")) == notes
    store.put(NS, "tea", {"text": "drinks black tea"}, index=False)
    assert len(mem.summaries.notes("u-1")) == notes

    unindexed = MemlaneStore(mem, index=False)
    unindexed.put(("u-2",), "a", {"text": "Paris"})
    assert mem.summaries.notes("u-2") == []
    assert unindexed.search(("u-2",), query="Paris")[0].score is None
    with pytest.raises(memlane.InvalidInput, match="index"):
        MemlaneStore(mem, index={"dims": 3, "embed": lambda texts: [[0.0] * 3]})


def test_bad_input_is_invalid_input(store):
    with pytest.raises(memlane.InvalidInput, match="value"):
        store.put(NS, "k", {"when": object()})
    with pytest.raises(memlane.InvalidInput, match="filter"):
        store.put(NS, "k", {"n": "ten"})
        store.search(NS, filter={"n": {"$gt": 1}})
    with pytest.raises(memlane.InvalidInput, match="filter"):
        store.search(NS, filter={"n": {"$regex": "t"}})
    with pytest.raises(ValueError, match="langgraph"):
        store.put(("langgraph",), "k", {"text": "reserved"})


def test_async_methods_share_the_sync_logic(store):
    async def scenario():
        await store.aput(NS, "k", {"text": "likes tea"})
        await store.aput(("u-2", "memories"), "k", {"text": "likes coffee"})
        got = await store.aget(NS, "k")
        found = await store.asearch(("u-1",), query="tea")
        spaces = await store.alist_namespaces(suffix=("memories",))
        await store.adelete(NS, "k")
        return got, found, spaces, await store.aget(NS, "k")

    got, found, spaces, gone = asyncio.run(scenario())
    assert got.value == {"text": "likes tea"} and [i.key for i in found] == ["k"]
    assert spaces == [("u-1", "memories"), ("u-2", "memories")] and gone is None


class _State(TypedDict):
    text: str
    found: list[str]


def _remember_node(state: _State) -> dict[str, list[str]]:
    store = get_store()
    store.put(("u-1", "memories"), "latest", {"text": state["text"]})
    return {"found": [item.value["text"] for item in store.search(("u-1",), query="tea")]}


def test_a_compiled_graph_uses_it_as_its_store(store, mem):
    builder = StateGraph(_State)
    builder.add_node("remember", _remember_node)
    builder.add_edge(START, "remember")
    builder.add_edge("remember", END)
    graph = builder.compile(store=store)

    assert graph.invoke({"text": "likes green tea", "found": []})["found"] == ["likes green tea"]
    result = asyncio.run(graph.ainvoke({"text": "likes oolong tea", "found": []}))
    assert result["found"] == ["likes oolong tea"]
    assert mem.facts.audit("u-1")  # the graph's memory is the subject's, in the exact lane


def test_a_missing_langgraph_names_the_extra(monkeypatch):
    monkeypatch.delitem(sys.modules, "memlane.integrations.langgraph")
    monkeypatch.setitem(sys.modules, "langgraph.store.base", None)
    with pytest.raises(ImportError, match=r"memlane\[langgraph\]"):
        importlib.import_module("memlane.integrations.langgraph")


def test_a_store_sees_only_its_memorys_tenant(memory_url, clock):
    with (
        memlane.Memory(memory_url, tenant="acme", clock=clock, embedder="hash") as acme,
        memlane.Memory(memory_url, tenant="globex", clock=clock, embedder="hash") as globex,
    ):
        MemlaneStore(acme).put(NS, "k", {"text": "acme's"})
        other = MemlaneStore(globex)
        assert other.get(NS, "k") is None
        assert other.search(()) == [] and other.list_namespaces() == []
        assert MemlaneStore(acme).get(NS, "k").value == {"text": "acme's"}
