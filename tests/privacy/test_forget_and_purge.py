"""forget hides a subject from every read path at once; purge removes the bytes."""

from __future__ import annotations

import gc
import types
from datetime import timedelta

import pytest
from tests.support.privacy import fill
from tests.support.services import stored_bytes

import memlane

SECRETS = ("Shanghaiville", "13800001234", "138-0000-1234", "zed@example.org")


@pytest.fixture
def mem(memory_url, clock):
    memory = memlane.Memory(
        memory_url,
        clock=clock,
        embedder="hash",
        retention=timedelta(days=30),
        retain_transcripts=True,
    )
    yield memory
    memory.close()


def everything_visible(mem: memlane.Memory, subject: str = "U-001") -> str:
    """Every active read path, rendered to one string."""
    facts = mem.facts
    parts: list[object] = [
        facts.profile(subject),
        facts.profile(subject, known_at="2100-01-01"),
        facts.history(subject, "location"),
        facts.get_all(subject, "phone"),
        facts.lookup("phone", "13800001234"),
        facts.lookup("email", "zed@example.org"),
        mem.summaries.for_session("s-1"),
        mem.summaries.storyline(subject),
        mem.summaries.versions(subject, "s-1"),
        mem.summaries.notes(subject),
        mem.summaries.transcript("s-1"),
        mem.views.active(subject),
    ]
    for query in ("Shanghaiville", "phone 138-0000-1234", "Quokkaberry", "zed@example.org"):
        parts += [mem.summaries.search(subject, query, k=10)]
        parts += [mem.summaries.search_notes(subject, query, k=10)]
        parts += [mem.summaries.search(None, query, k=10)]
        parts += [mem.summaries.search_notes(None, query, k=10)]
    running = mem.running_session(subject, "s-1")
    if running is not None:
        parts.append(running.window())
    return repr(parts)


def test_forgetting_a_subject_hides_it_everywhere_at_once(mem):
    fill(mem)
    assert "Quokkaberry" in everything_visible(mem)
    deletion = mem.forget("U-001", reason="GDPR erasure request")
    assert deletion.scope == "subject" and deletion.counts["facts"] >= 3
    visible = everything_visible(mem)
    for secret in (*SECRETS, "Quokkaberry"):
        assert secret not in visible
    assert "Lisbon" in repr(mem.facts.profile("U-002"))  # other subjects untouched


def test_forgetting_an_attribute_hides_its_values_in_every_text(mem):
    fill(mem)
    mem.forget("U-001", "phone", reason="user asked")
    visible = everything_visible(mem)
    assert "13800001234" not in visible and "138-0000-1234" not in visible
    assert "zed@example.org" in visible  # the rest of the subject stays


def test_audit_flags_deleted_versions_and_compliance_lists_deletions(mem, clock):
    fill(mem)
    mem.forget("U-001", reason="GDPR")
    audit = mem.views.audit("U-001")
    assert audit.facts and all(f.deleted_at is not None for f in audit.facts)
    assert audit.notes and all(n.deleted_at is not None for n in audit.notes)
    [entry] = mem.views.compliance()
    assert (entry.subject, entry.scope, entry.reason) == ("U-001", "subject", "GDPR")
    assert entry.purge_due == entry.requested_at + timedelta(days=30)
    assert entry.purged_at is None
    assert "Shanghaiville" not in repr(entry)  # the log holds no content


def test_purge_waits_for_retention_then_removes_the_bytes(mem, memory_url, clock):
    fill(mem)
    mem.forget("U-001", reason="GDPR")
    assert mem.purge().deletions == ()  # retention has not passed
    assert mem.views.audit("U-001").facts
    clock.advance(days=31)
    report = mem.purge()
    assert report.deletions == (1,) and report.rows["facts"] >= 3 and report.vacuumed
    assert mem.views.audit("U-001").facts == []
    assert mem.views.compliance()[0].purged_at == clock.now
    mem.close()
    raw = stored_bytes(memory_url)
    for secret in (*SECRETS, "Quokkaberry"):
        assert secret.encode() not in raw, secret
    assert b"Lisbon" in raw


def test_purge_immediately_for_one_subject(mem, memory_url):
    fill(mem)
    mem.forget("U-001", "email")
    report = mem.purge(subject="U-001", immediately=True)
    assert report.total_rows >= 1
    mem.close()
    assert b"zed@example.org" not in stored_bytes(memory_url)


def test_bad_forget_input(mem):
    with pytest.raises(memlane.InvalidInput):
        mem.forget("")
    with pytest.raises(memlane.InvalidInput):
        mem.forget("U-1", attribute=" ")


def test_recall_never_returns_forgotten_data(mem):
    fill(mem)
    before = mem.recall("U-001", "where does the user live and what is the phone number")
    assert "Shanghaiville" in before.text or "138" in before.text
    mem.forget("U-001", reason="GDPR")
    for query in ("where does the user live", "phone 138-0000-1234", "Quokkaberry team"):
        for subject in ("U-001", None):
            recalled = mem.recall(subject, query)
            rendered = recalled.text + repr([item.text for item in recalled.items])
            for secret in (*SECRETS, "Quokkaberry"):
                assert secret not in rendered, (subject, query, secret)


def test_forget_scrubs_workflow_parameters(mem):
    fill(mem)
    for order in ("ORD-1", "ORD-2"):
        mem.workflows.record(
            task=f"Refund order {order} for U-001 at 138-0000-1234",
            task_type="order_refund",
            steps=[{"action": "refund", "args": {"order": order, "phone": "13800001234"}}],
            success=True,
        )
    mem.forget("U-001", reason="GDPR")
    shown = repr(mem.workflows.trajectories("order_refund")) + repr(mem.workflows.all())
    assert "13800001234" not in shown and "U-001" not in shown
    assert "138-0000-1234" not in shown


def _holders(token: str) -> list[str]:
    """The types of the live objects (frames aside) that refer to a string holding ``token``."""
    found = []
    for owner in gc.get_objects():
        if isinstance(owner, types.FrameType):
            continue  # a test's own locals
        for referent in gc.get_referents(owner):
            if isinstance(referent, str) and token in referent.casefold():
                found.append(type(owner).__name__)
                break
    return found


def _said_and_recalled(mem: memlane.Memory, token: str) -> None:
    """Notes holding ``token``, recalled so that what recalls keep holds them too."""
    mem.remember("U-001", f"My locker code is {token} and my team is Arsenal")
    mem.remember("U-001", f"My locker code is now {token}9 since Monday")
    mem.remember("U-002", "My locker code is 5521")
    mem.index.wait()
    for question in ("what is my locker code?", "which team do I support?"):
        mem.recall("U-001", question)
        mem.recall("U-002", question)


def test_no_deleted_text_stays_in_the_process(mem):
    """What recalls keep to go faster (line reads per subject, text work per process) holds the
    notes' texts: a forget lets go of them at once, not when a later recall replaces them."""
    token = "".join(("qz", "vl", str(4417)))  # not a literal of this file
    _said_and_recalled(mem, token)
    gc.collect()
    assert _holders(token)  # kept across recalls: the test can see them

    mem.forget("U-001", reason="erasure")
    gc.collect()

    assert _holders(token) == []
    assert mem.recall("U-002", "what is my locker code?").items  # another subject recalls
