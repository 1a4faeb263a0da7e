"""Hybrid search is filtered by tenant and subject before ranking, and reads Chinese."""

from __future__ import annotations

import pytest

import memlane
from memlane.embed import HashEmbedder
from memlane.summaries.search import as_matrix, fuse, nearest


@pytest.fixture
def shared(memory_url, clock):
    path = memory_url
    opened = []

    def open_memory(tenant: str) -> memlane.Memory:
        memory = memlane.Memory(path, tenant=tenant, clock=clock, embedder=HashEmbedder(dim=256))
        opened.append(memory)
        return memory

    yield open_memory
    for memory in opened:
        memory.close()


def summarize(mem, subject, session_id, *texts):
    s = mem.session(subject, session_id=session_id, window=1)
    for text in texts:
        s.add("user", text)
    return s.close()


def test_search_finds_chinese_and_english_by_meaning_and_words(shared):
    mem = shared("acme")
    summarize(mem, "U-1", "s-1", "我住在北京，每天坐地铁上班")
    summarize(mem, "U-1", "s-2", "I love hiking in the mountains on weekends")
    hits = mem.summaries.search("U-1", "北京", k=2)
    assert hits[0].summary.session_id in {"s-1", None}
    assert "北京" in hits[0].summary.content.as_text()
    hiking = mem.summaries.search("U-1", "hiking weekends", k=1)
    assert "hiking" in hiking[0].summary.content.as_text()
    notes = mem.summaries.search_notes("U-1", "北京 地铁", k=1)
    assert "北京" in notes[0].note.text


def test_other_subjects_and_tenants_never_appear(shared):
    acme, globex = shared("acme"), shared("globex")
    summarize(acme, "U-1", "s-a", "my favourite city is Lisbon")
    summarize(acme, "U-2", "s-b", "my favourite city is Lisbon too")
    summarize(globex, "U-1", "s-c", "my favourite city is Lisbon as well")
    for hit in acme.summaries.search("U-1", "Lisbon favourite city", k=10):
        assert hit.summary.subject == "U-1" and hit.summary.session_id in {"s-a", None}
    for hit in acme.summaries.search_notes("U-1", "Lisbon", k=10):
        assert hit.note.subject == "U-1" and hit.note.session_id == "s-a"
    tenant_wide = {hit.summary.session_id for hit in acme.summaries.search(None, "Lisbon", k=10)}
    assert "s-c" not in tenant_wide and {"s-a", "s-b"} <= tenant_wide
    assert globex.summaries.for_session("s-a") is None


def test_only_the_latest_summary_version_is_searchable(shared):
    mem = shared("acme")
    s = mem.session("U-1", session_id="s-1", window=1)
    s.add("user", "I collect vintage stamps")
    s.add("user", "and I also bake sourdough bread")
    s.close()
    hits = mem.summaries.search("U-1", "vintage stamps sourdough", k=10)
    session_hits = [h for h in hits if h.summary.session_id == "s-1"]
    assert [h.summary.version for h in session_hits] == [mem.summaries.for_session("s-1").version]


def test_writes_leave_embedding_to_the_index(shared):
    mem = shared("acme")
    mem.remember("U-1", "The user prefers window seats on flights")
    mem.remember("U-1", "The user is allergic to peanuts")
    assert mem.index.wait(timeout=30)
    assert mem.index.pending() == 0
    assert mem.summaries.index() == 0  # nothing left to embed
    assert "peanuts" in mem.summaries.search_notes("U-1", "food allergy peanuts", k=1)[0].note.text


def test_fusion_and_nearest_neighbours():
    assert fuse([[1, 2, 3], [3, 2]])[0][0] in {2, 3}
    assert fuse([[5], []]) == [(5, 1 / 61)]
    embedder = HashEmbedder(dim=64)
    vectors = embedder.embed_documents(["apples and pears", "train timetable", "pears"])
    matrix = as_matrix([row.tobytes() for row in vectors])
    assert nearest(embedder.embed_query("pears"), [10, 20, 30], matrix, 2)[0] in {10, 30}
    assert nearest(embedder.embed_query("x"), [], as_matrix([]), 3) == []
