"""What the privacy tests store before they forget: one subject's secrets in every lane."""

from __future__ import annotations

import memlane


def fill(mem: memlane.Memory) -> None:
    s = mem.session("U-001", session_id="s-1", window=1)
    s.add("user", "I live in Shanghaiville now and my phone is 138-0000-1234")
    s.add("assistant", "Noted.")
    s.add("user", "my email is zed@example.org")
    mem.remember("U-001", "U-001 supports the Quokkaberry team")
    mem.session("U-002", session_id="s-2", window=1).add("user", "I live in Lisbon")
    mem.summaries.index()
