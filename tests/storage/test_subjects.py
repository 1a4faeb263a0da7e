"""``Memory.subjects``: the directory of a tenant's subjects, on every backend."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import memlane
from tests.conftest import FakeClock


@pytest.fixture
def backend(every_backend: str) -> str:
    return every_backend


@pytest.fixture
def mem(clock: FakeClock, memory_url: str) -> Iterator[memlane.Memory]:
    with memlane.Memory(memory_url, tenant="acme", clock=clock, embedder="hash") as memory:
        yield memory


NAMES = ["U-001", "U-002", "u-003", "a_b%c\\d", "张三", "Émile", "V-1"]


def seed(mem: memlane.Memory) -> None:
    """Subjects held through each lane: facts, notes and a session summary."""
    for number, subject in enumerate(NAMES):
        if number % 3 == 0:
            mem.facts.set(subject, "tier", "gold")
        elif number % 3 == 1:
            mem.remember(subject, "I prefer tea.")
        else:
            session = mem.session(subject, f"s-{number}")
            session.add("user", "Hello, I live in Paris.")
            session.close()


def test_every_subject_in_byte_order_with_the_total(mem: memlane.Memory) -> None:
    seed(mem)
    page = mem.subjects()
    assert page.subjects == sorted(NAMES, key=lambda s: s.encode())
    assert page.total == len(NAMES)


def test_pages_cover_the_list_once(mem: memlane.Memory) -> None:
    seed(mem)
    pages = [mem.subjects(limit=3, offset=offset) for offset in range(0, 9, 3)]
    assert [s for p in pages for s in p.subjects] == mem.subjects().subjects
    assert {p.total for p in pages} == {len(NAMES)}
    assert mem.subjects(limit=3, offset=100).subjects == []


@pytest.mark.parametrize(
    ("prefix", "contains", "expected"),
    [
        ("U-", None, ["U-001", "U-002"]),
        ("u", None, ["u-003"]),
        (None, "u-00", ["U-001", "U-002", "u-003"]),
        (None, "%", ["a_b%c\\d"]),
        (None, "_", ["a_b%c\\d"]),
        (None, "\\", ["a_b%c\\d"]),
        (None, "张", ["张三"]),
        (None, "é", []),
        (None, "É", ["Émile"]),
        ("U", "2", ["U-002"]),
        ("nobody", None, []),
    ],
)
def test_filters(
    mem: memlane.Memory, prefix: str | None, contains: str | None, expected: list[str]
) -> None:
    seed(mem)
    page = mem.subjects(prefix, contains=contains)
    assert page.subjects == expected
    assert page.total == len(expected)


def test_forgotten_subjects_and_other_tenants_are_not_listed(
    mem: memlane.Memory, clock: FakeClock, memory_url: str
) -> None:
    seed(mem)
    mem.forget("U-001", reason="erasure")
    assert "U-001" not in mem.subjects().subjects
    mem.forget("U-002", attribute="none-such")
    assert "U-002" in mem.subjects().subjects
    with memlane.Memory(memory_url, tenant="other", clock=clock, embedder="hash") as other:
        assert other.subjects().subjects == []
        other.facts.set("X-1", "tier", "gold")
        assert other.subjects().subjects == ["X-1"]
    assert "X-1" not in mem.subjects().subjects


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({"limit": 0}, "limit"),
        ({"limit": 1001}, "limit"),
        ({"limit": True}, "limit"),
        ({"limit": "5"}, "limit"),
        ({"offset": -1}, "offset"),
        ({"offset": 2**64}, "offset"),
        ({"prefix": ""}, "prefix"),
        ({"prefix": " U"}, "prefix"),
        ({"contains": "a\x00"}, "contains"),
        ({"contains": 5}, "contains"),
    ],
)
def test_bad_arguments_name_the_field(
    mem: memlane.Memory, arguments: dict[str, object], field: str
) -> None:
    with pytest.raises(memlane.InvalidInput) as raised:
        mem.subjects(**arguments)  # type: ignore[arg-type]
    assert raised.value.field == field
