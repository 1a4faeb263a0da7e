"""MemlaneStore answers like LangGraph's own InMemoryStore, on random operation sequences.

The reference is ``InMemoryStore`` with one quirk mended (see :class:`ReferenceStore`). Every
operation — put, delete, get, search (prefix, filter, limit, offset, query), list_namespaces
(prefix, suffix with wildcards, max_depth, limit, offset) and mixed batches — must give the
same answer, or both stores must reject it. The one freedom: the order of semantic-search
results (``query``), which are compared as pages of the same candidates.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, rule

import memlane

pytest.importorskip("langgraph")

from langgraph.store.base import GetOp, ListNamespacesOp, MatchCondition, PutOp, SearchOp
from langgraph.store.memory import InMemoryStore

from memlane.integrations.langgraph import MemlaneStore


class _Namespaces(dict):
    """A namespace table where reading a missing namespace creates nothing."""

    def __missing__(self, namespace):
        return {}


class ReferenceStore(InMemoryStore):
    """``InMemoryStore`` without its namespace quirk.

    ``InMemoryStore`` keeps a namespace in its table once anything *touched* it: a ``get`` of
    a missing item or a ``delete`` makes ``list_namespaces`` report a namespace with no items
    (``store.get(("x",), "k"); store.list_namespaces() == [("x",)]``). Here a namespace exists
    while it holds an item, as LangGraph's database stores and its docs have it; its place in
    the creation order is still the first time it held one.
    """

    def __init__(self) -> None:
        super().__init__()
        self._data = _Namespaces()

    def _apply_put_ops(self, put_ops):
        for (namespace, _), op in put_ops.items():
            if op.value is not None:
                self._data.setdefault(namespace, {})
        super()._apply_put_ops(put_ops)

    def _handle_list_namespaces(self, op):
        table = self._data
        self._data = _Namespaces({ns: items for ns, items in table.items() if items})
        try:
            return super()._handle_list_namespaces(op)
        finally:
            self._data = table


# -- operations -----------------------------------------------------------------------------

labels = st.sampled_from(["a", "b"])  # few names, so operations meet the same items
namespaces = st.lists(labels, min_size=1, max_size=2).map(tuple)
prefixes = st.lists(labels, max_size=1).map(tuple) | namespaces
keys = st.sampled_from(["k1", "k2", "k3"])
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from([0.5, -1.5, 2.0]),
    st.sampled_from(["x", "y", "2", "ten"]),
)
numbers = st.integers(-3, 3) | st.sampled_from([0.5, -1.5, 2.0])
values = st.fixed_dictionaries(
    {
        "text": st.sampled_from(["dark mode", "lives in Paris", "likes tea", "vegetarian"]),
        # Always a number, so numeric filters on it answer; "m" is anything, so they fail.
        "n": numbers,
    },
    optional={
        "m": scalars,
        "tag": st.sampled_from(["x", "y"]),
        "nested": st.fixed_dictionaries({}, optional={"x": scalars, "y": scalars}),
        "list": st.lists(st.integers(0, 2), max_size=2),
    },
)
operators = st.sampled_from(["$eq", "$ne", "$gt", "$gte", "$lt", "$lte"])
filters = st.one_of(
    st.none(),
    st.fixed_dictionaries({"n": st.dictionaries(operators, numbers, min_size=1, max_size=2)}),
    st.dictionaries(
        st.sampled_from(["n", "m", "tag", "nested", "list", "text", "missing"]),
        st.one_of(
            scalars,
            st.dictionaries(operators, scalars, min_size=1, max_size=2),
            st.fixed_dictionaries({"x": scalars}),
            st.lists(st.integers(0, 2), max_size=2),
        ),
        max_size=2,
    ),
)
paths = st.lists(st.sampled_from(["a", "b", "c", "*"]), min_size=1, max_size=2).map(tuple)

put_ops = st.builds(PutOp, namespaces, keys, values, index=st.none(), ttl=st.none())
delete_ops = st.builds(PutOp, namespaces, keys, st.none(), index=st.none(), ttl=st.none())
get_ops = st.builds(GetOp, namespaces, keys, refresh_ttl=st.just(True))
search_ops = st.builds(
    SearchOp,
    prefixes,
    filters,
    st.sampled_from([1, 2, 10, 10]),
    st.sampled_from([0, 0, 1, 3]),
    st.one_of(st.none(), st.sampled_from(["Paris", "tea"])),
    refresh_ttl=st.just(True),
)
list_ops = st.builds(
    ListNamespacesOp,
    st.lists(
        st.builds(MatchCondition, st.sampled_from(["prefix", "suffix"]), paths), max_size=2
    ).map(tuple),
    st.one_of(st.none(), st.integers(1, 3)),
    st.sampled_from([0, 1, 2, 100]),
    st.integers(0, 3),
)
single_ops = st.one_of(put_ops, search_ops, list_ops, delete_ops, get_ops)


def _plain(result: Any) -> Any:
    """What must agree: items without their timestamps and scores."""
    if isinstance(result, list):
        return [_plain(entry) for entry in result]
    if hasattr(result, "key") and hasattr(result, "namespace"):
        return (result.namespace, result.key, result.value)
    return result


def _run(store, op, use_async: bool) -> Any:
    ops = op if isinstance(op, list) else [op]
    try:
        if use_async:
            return ("ok", asyncio.run(store.abatch(ops)))
        return ("ok", store.batch(ops))
    except (ValueError, TypeError) as error:  # InMemoryStore lets these escape
        return ("error", type(error).__name__)


def _candidates(op, reference) -> list[Any]:
    """Everything each semantic search in ``op`` may return, before ``op`` runs."""
    ops = op if isinstance(op, list) else [op]
    return [
        _plain(reference.batch([single._replace(query=None, limit=1_000, offset=0)])[0])
        if isinstance(single, SearchOp) and single.query
        else None
        for single in ops
    ]


def _check(op, got, expected, candidates) -> None:
    assert got[0] == expected[0], (op, got, expected)
    if got[0] == "error":
        assert got[1] == "InvalidInput", got  # memlane's own, naming the field
        return
    ops = op if isinstance(op, list) else [op]
    for single, mine, theirs, pool in zip(ops, got[1], expected[1], candidates, strict=True):
        if pool is not None:
            _check_semantic_page(single, _plain(mine), _plain(theirs), pool)
        else:
            assert _plain(mine) == _plain(theirs), single


def _check_semantic_page(op: SearchOp, mine, theirs, candidates) -> None:
    """Ranked by meaning: the same number of results, all from the same candidates."""
    assert len(mine) == len(theirs), op
    assert len({(ns, key) for ns, key, _ in mine}) == len(mine), "a result twice"
    assert all(entry in candidates for entry in mine), op
    if op.offset == 0 and op.limit >= len(candidates):
        assert sorted(mine, key=repr) == sorted(candidates, key=repr)


class StoreComparison(RuleBasedStateMachine):
    """One memlane store and one reference, given the same operations, step by step."""

    def __init__(self) -> None:
        super().__init__()
        self.reference = ReferenceStore()
        self.memory = memlane.Memory(":memory:", embedder="hash")
        self.store = MemlaneStore(self.memory)

    def compare(self, op, use_async: bool) -> None:
        try:
            candidates = _candidates(op, self.reference)
        except (ValueError, TypeError):  # a filter compares a non-number: so will the op
            candidates = None
        expected = _run(self.reference, op, use_async=False)
        got = _run(self.store, op, use_async)
        _check(op, got, expected, candidates)

    @rule(op=put_ops)
    def put(self, op) -> None:
        self.compare(op, use_async=False)

    @rule(op=single_ops, use_async=st.booleans())
    def one(self, op, use_async) -> None:
        self.compare(op, use_async)

    @rule(ops=st.lists(single_ops, min_size=2, max_size=4), use_async=st.booleans())
    def batch(self, ops, use_async) -> None:
        self.compare(ops, use_async)

    def teardown(self) -> None:
        self.memory.close()


TestStoreComparison = StoreComparison.TestCase
TestStoreComparison.settings = settings(
    max_examples=60,
    stateful_step_count=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def test_the_reference_differs_from_in_memory_store_only_by_its_namespace_quirk():
    quirky, mended = InMemoryStore(), ReferenceStore()
    for store in (quirky, mended):
        store.put(("a",), "k", {"v": 1})
        store.get(("b",), "k")
        store.delete(("c",), "k")
        store.put(("d",), "k", {"v": 2})
        store.delete(("d",), "k")
    assert quirky.list_namespaces() == [("a",), ("b",), ("c",), ("d",)]
    assert mended.list_namespaces() == [("a",)]
    assert [i.key for i in quirky.search(())] == [i.key for i in mended.search(())] == ["k"]
