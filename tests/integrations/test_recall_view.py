"""What adapters store is memory the router can search, never raw documents in the profile."""

from __future__ import annotations

import memlane
from memlane.integrations.langgraph import MemlaneStore


def test_recall_shows_the_subjects_facts_not_the_adapters_documents():
    with memlane.Memory(":memory:", embedder="hash") as mem:
        MemlaneStore(mem).put(("u-1", "memories"), "k1", {"text": "I like green tea"})
        mem.facts.set("u-1", "location", "Lyon")
        recall = mem.recall("u-1", "what does the user like?")
        facts = [item.fact.attribute for item in recall.items if item.fact is not None]
        assert facts == ["location"]
        assert "langgraph:" not in recall.text
        assert mem.facts.get_all("u-1", 'langgraph:["u-1","memories","k1"]')  # still a fact
