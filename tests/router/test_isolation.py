"""Recall never crosses a tenant, and never shows another subject's data."""

from __future__ import annotations

import memlane
from tests.conftest import FakeClock
from tests.router.conftest import CountingEmbedder


def test_tenants_sharing_a_database_never_see_each_other(memory_url, clock: FakeClock):
    path = memory_url
    with (
        memlane.Memory(path, tenant="acme", clock=clock, embedder=CountingEmbedder()) as acme,
        memlane.Memory(path, tenant="globex", clock=clock, embedder=CountingEmbedder()) as globex,
    ):
        for mem, city in ((acme, "Paris"), (globex, "Tokyo")):
            mem.facts.define("phone", cardinality="many", identifier=True)
            mem.facts.add("U-1", "phone", "13800001234")
            mem.facts.set("U-1", "location", city)
            mem.remember("U-1", f"I love the museums of {city}")
        for mem, mine, theirs in ((acme, "Paris", "Tokyo"), (globex, "Tokyo", "Paris")):
            by_id = mem.recall(None, "where does 138-0000-1234 live")
            assert by_id.items[0].fact.value == mine
            tenant_wide = mem.recall(None, "which museums does the user love")
            texts = " ".join(item.text for item in tenant_wide.items)
            assert mine in texts and theirs not in texts
            assert theirs not in by_id.text + tenant_wide.text


def test_a_given_subject_reads_only_its_own_memory(mem, clock: FakeClock):
    mem.facts.add("U-2", "phone", "139-2222-2222")
    mem.facts.set("U-2", "location", "Rome")
    mem.remember("U-2", "My favourite food is carbonara in Rome")
    s = mem.session("U-2", session_id="s-2")
    s.add("user", "I really love carbonara")
    mem.remember("U-1", "My favourite food is dumplings")
    for query in (
        "what is the user's favourite food?",
        "where does 139-2222-2222 live",  # U-2's number, asked about U-1
        "carbonara Rome",
    ):
        r = mem.recall("U-1", query, session_id="s-2")
        assert all(item.subject == "U-1" for item in r.items), query
        assert "Rome" not in r.text and "carbonara" not in r.text, query
        assert r.subjects in ([], ["U-1"])


def test_without_a_subject_only_the_resolved_subject_is_read(mem):
    mem.facts.add("U-1", "phone", "13800001111")
    mem.facts.add("U-2", "phone", "13800002222")
    mem.remember("U-1", "I complained about a late parcel")
    mem.remember("U-2", "I complained about a broken kettle")
    r = mem.recall(None, "what did 138-0000-1111 complain about?")
    assert r.subjects == ["U-1"]
    assert {item.subject for item in r.items} == {"U-1"}
    assert "kettle" not in r.text and "parcel" in r.text
