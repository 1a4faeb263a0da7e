"""Identifiers: normalization, exact reverse lookup, many-valued attributes and profiles."""

from __future__ import annotations

import pytest

import memlane


@pytest.fixture
def ids(mem: memlane.Memory) -> memlane.Memory:
    mem.facts.define("phone", cardinality="many", identifier=True)
    mem.facts.define("email", cardinality="many", identifier=True)
    return mem


def test_phone_numbers_are_kept_as_written_and_lookup_is_exact(ids):
    ids.facts.add("U-138", "phone", "138-0000-1234")
    ids.facts.add("U-139", "phone", "139 0000 1234")
    assert ids.facts.lookup("phone", "13800001234") == ["U-138"]
    assert ids.facts.lookup("phone", "(138) 0000-1234") == ["U-138"]
    assert ids.facts.lookup("phone", "13800001235") == []
    assert ids.facts.get_all("U-138", "phone")[0].value == "138-0000-1234"


def test_emails_compare_case_insensitively(ids):
    ids.facts.add("U-1", "email", " Alice@Example.COM ")
    assert ids.facts.lookup("email", "alice@example.com") == ["U-1"]


def test_many_values_hold_at_once_and_retract_per_value(ids, clock):
    ids.facts.add("U-1", "phone", "138-0000-1234", valid_from="2026-01-01")
    ids.facts.add("U-1", "phone", "139-1111-2222", valid_from="2026-01-01")
    again = ids.facts.add("U-1", "phone", "13800001234", valid_from="2026-02-01")
    assert again.valid_from.isoformat().startswith("2026-01-01")  # no-op: already held
    assert [f.value for f in ids.facts.get_all("U-1", "phone")] == [
        "138-0000-1234",
        "139-1111-2222",
    ]
    clock.advance(days=1)
    ended = ids.facts.retract("U-1", "phone", value="138 0000 1234")
    assert [f.value for f in ended] == ["138-0000-1234"]
    assert [f.value for f in ids.facts.get_all("U-1", "phone")] == ["139-1111-2222"]
    assert ids.facts.lookup("phone", "13800001234") == []
    assert ids.facts.lookup("phone", "13800001234", valid_at="2026-02-15") == ["U-1"]


def test_retract_without_value_ends_every_value(ids, clock):
    ids.facts.add("U-1", "phone", "1", valid_from="2026-01-01")
    ids.facts.add("U-1", "phone", "2", valid_from="2026-01-01")
    clock.advance(days=1)
    assert len(ids.facts.retract("U-1", "phone")) == 2
    assert ids.facts.get_all("U-1", "phone") == []


def test_lookup_on_plain_and_undeclared_attributes(mem):
    mem.facts.set("U-1", "city", "Berlin")
    assert mem.facts.lookup("city", "Berlin") == []  # undeclared: finds nothing
    mem.facts.define("tier")
    mem.facts.set("U-2", "tier", {"level": 2})
    assert mem.facts.lookup("tier", {"level": 2}) == ["U-2"]
    assert mem.facts.lookup("tier", {"level": 3}) == []


def test_profile_lists_every_attribute(ids):
    ids.facts.set("U-1", "location", "北京")
    ids.facts.add("U-1", "phone", "139-1111-2222")
    profile = ids.facts.profile("U-1")
    assert profile["location"].value == "北京"
    assert [f.value for f in profile["phone"]] == ["139-1111-2222"]


def test_callable_normalizer(mem):
    mem.facts.define(
        "sku",
        cardinality="many",
        identifier=True,
        normalizer=lambda v: str(v).replace(" ", "").upper(),
    )
    mem.facts.add("P-1", "sku", "ab 12")
    assert mem.facts.lookup("sku", "AB12") == ["P-1"]


def test_tenants_are_isolated(memory_url, clock):
    path = memory_url
    with (
        memlane.Memory(path, tenant="acme", clock=clock) as acme,
        memlane.Memory(path, tenant="globex", clock=clock) as globex,
    ):
        acme.facts.define("phone", cardinality="many", identifier=True)
        acme.facts.add("U-1", "phone", "138-0000-1234")
        acme.facts.set("U-1", "location", "Paris")
        assert globex.facts.get("U-1", "location") is None
        assert globex.facts.lookup("phone", "13800001234") == []
        assert globex.facts.audit("U-1") == []
        assert globex.facts.profile("U-1") == {}
        # Definitions belong to the tenant: globex's phone is an undeclared one-valued attribute.
        globex.facts.set("U-1", "phone", "x")
        assert acme.facts.get_all("U-1", "phone")[0].value == "138-0000-1234"


def test_facts_persist_across_reopen(memory_url, clock):
    path = memory_url
    with memlane.Memory(path, clock=clock) as mem:
        mem.facts.define("phone", cardinality="many", identifier=True)
        written = mem.facts.add("U-1", "phone", "138-0000-1234", source="chat:s-1#3")
        mem.facts.set("U-1", "location", "上海", provenance=["s-1#3"])
    clock.advance(seconds=1)
    with memlane.Memory(path, clock=clock) as mem:
        assert mem.facts.audit("U-1")[0] == written
        assert mem.facts.lookup("phone", "13800001234") == ["U-1"]
        assert mem.facts.get("U-1", "location").provenance == ("s-1#3",)
        assert mem.facts.definition("phone").cardinality == "many"
        later = mem.facts.set("U-1", "location", "北京")
        assert later.tx_from > written.tx_from
