"""Which lanes a query goes to, and why: the four rules of ARCHITECTURE.md's router."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

import memlane
from memlane.router import Router
from tests.conftest import FakeClock
from tests.router.conftest import CountingEmbedder


def steps(result: memlane.router.Recall) -> dict[str, bool]:
    return {step.lane: step.asked for step in result.plan}


def test_identifier_query_resolves_the_subject_and_short_circuits(mem, embedder):
    mem.facts.add("U-001", "phone", "138-0000-1234")
    mem.facts.add("U-001", "order", "ORD-7001")
    mem.facts.add("U-002", "phone", "139-0000-1234")
    mem.facts.add("U-002", "order", "ORD-8002")
    mem.remember("U-001", "I ordered a blue kettle, order ORD-7001")  # a note: never reached
    r = mem.recall(None, "用户 138-0000-1234 的订单号是多少")
    assert r.subjects == ["U-001"]
    assert r.items[0].lane == "exact" and r.items[0].fact.attribute == "order"
    assert r.items[0].fact.value == "ORD-7001" and r.items[0].status == "current"  # as written
    assert {item.fact.subject for item in r.items} == {"U-001"}
    assert steps(r) == {"exact": True, "window": False, "summary": False, "workflow": False}
    assert "answered" in r.step("exact").reason and "phone 138-0000-1234" in r.step("exact").reason
    assert embedder.calls == 0
    assert "ORD-7001" in r.text and "ORD-8002" not in r.text


def test_exact_answer_computes_no_embedding_even_with_a_broken_model(
    clock: FakeClock, scratch_url: str
):
    refusing = CountingEmbedder(refuse=True)
    with memlane.Memory(scratch_url, clock=clock, embedder=refusing) as mem:
        session = mem.session("U-1", session_id="s-1")
        session.add("user", "I moved to Berlin last week")
        mem.remember("U-1", "My favourite team is Arsenal")
        r = mem.recall("U-1", "where does the user live", session_id="s-1")
    assert r.items[0].fact.value == "Berlin"
    assert not r.step("summary").asked and "no embedding" in r.step("summary").reason
    assert r.step("window").asked  # in memory: costs no model
    assert refusing.calls == 0


def test_plan_lists_every_lane_once_with_timings(mem):
    mem.facts.set("U-1", "location", "Paris")
    r = mem.recall("U-1", "where does the user live")
    assert [step.lane for step in r.plan] == ["exact", "window", "summary", "workflow"]
    assert all(step.ms >= 0 and step.reason for step in r.plan)
    assert r.step("exact").found == 1
    assert r.ms >= r.step("exact").ms


def test_known_attribute_without_value_falls_back_to_the_summary_lane(mem, embedder):
    mem.facts.set("U-1", "employer", "ACME")
    mem.remember("U-1", "I live in a small flat near the river in Lyon")
    assert mem.index.wait(timeout=30)  # so that the question's own vector is needed
    r = mem.recall("U-1", "where does the user live")
    assert steps(r)["summary"] and "no value for location" in r.step("summary").reason
    assert embedder.calls > 0
    lanes = [item.lane for item in r.items]
    assert lanes.index("summary") < lanes.index("exact")  # the profile only supplements
    supplement = next(item for item in r.items if item.lane == "exact")
    assert supplement.fact.attribute == "employer" and supplement.score < 1


def test_context_query_asks_the_summary_lane_with_the_profile(mem):
    mem.facts.set("U-1", "location", "Lyon")
    mem.remember("U-1", "I love hiking in the Alps on weekends")
    mem.remember("U-1", "My dentist appointment is on Friday")
    r = mem.recall("U-1", "what does the user love to do on weekends?")
    assert steps(r)["summary"] and "context" in r.step("summary").reason
    assert "hiking" in r.items[0].text
    assert any(item.lane == "exact" and item.fact.value == "Lyon" for item in r.items)
    assert r.text.index("Facts (current):") < r.text.index("From memory")


def test_running_session_window_is_included_and_outranks_summaries(mem, clock):
    mem.remember("U-1", "I like green tea with my breakfast")
    s = mem.session("U-1", session_id="s-1", window=3)
    clock.advance(minutes=5)
    s.add("user", "What tea should I buy?")
    s.add("assistant", "Maybe a sencha.")
    r = mem.recall("U-1", "which tea does the user like", session_id="s-1")
    assert steps(r)["window"] and steps(r)["summary"]
    lanes = [item.lane for item in r.items]
    assert lanes[:2] == ["window", "window"] and "summary" in lanes
    assert lanes.index("summary") > max(i for i, lane in enumerate(lanes) if lane == "window")
    assert r.text.index("This conversation") < r.text.index("From memory")
    window_lines = r.text.split("This conversation (latest turns):\n")[1].splitlines()[:2]
    assert "What tea" in window_lines[0] and "sencha" in window_lines[1]  # oldest first


def test_window_of_a_session_that_is_not_running_is_not_asked(mem):
    s = mem.session("U-1", session_id="s-1")
    s.add("user", "hello there, I need help with my order")
    s.close()
    r = mem.recall("U-1", "what did the user say", session_id="s-1")
    assert not steps(r)["window"] and "no running session" in r.step("window").reason
    assert not any(item.lane == "window" for item in r.items)
    r = mem.recall("U-1", "what did the user say")
    assert r.step("window").reason == "no session_id given"


def test_session_of_another_subject_is_never_read(mem):
    s = mem.session("U-2", session_id="s-2")
    s.add("user", "my secret code word is pineapple")
    r = mem.recall("U-1", "what is the code word", session_id="s-2")
    assert not steps(r)["window"]
    assert "pineapple" not in r.text and all(i.subject != "U-2" for i in r.items)


def test_without_subject_the_running_session_names_it(mem):
    mem.facts.set("U-3", "location", "Oslo")
    s = mem.session("U-3", session_id="s-3")
    s.add("user", "I'm cold today")
    r = mem.recall(None, "where does the user live", session_id="s-3")
    assert r.subjects == ["U-3"] and r.items[0].fact.value == "Oslo"
    assert steps(r)["window"] and "from the running session" in r.step("exact").reason


def test_without_subject_or_identifier_the_whole_tenant_is_searched(mem):
    mem.remember("U-1", "I adopted a cat named Miso")
    mem.remember("U-2", "I adopted a dog named Rex")
    r = mem.recall(None, "who adopted a cat")
    assert not steps(r)["exact"] and "whole tenant" in r.step("summary").reason
    assert r.items[0].subject == "U-1" and "Miso" in r.items[0].text
    assert {"U-1", "U-2"} <= set(r.subjects)


def test_identifier_only_query_returns_the_profile(mem):
    mem.facts.add("U-5", "phone", "+86 138 0000 5555")
    mem.facts.set("U-5", "name", "李雷")
    r = mem.recall(None, "13800005555")
    assert r.subjects == ["U-5"]
    assert {item.fact.attribute for item in r.items} == {"phone", "name"}
    assert not r.step("summary").asked


def test_a_user_id_that_is_a_subject_resolves_to_it(mem):
    mem.facts.set("U-042", "location", "Xi'an")
    r = mem.recall(None, "U-042 住在哪里")
    assert r.subjects == ["U-042"] and r.items[0].fact.value == "Xi'an"


def test_identifier_shared_by_two_subjects_reads_both(mem):
    mem.facts.add("U-1", "phone", "13800001111")
    mem.facts.add("U-2", "phone", "13800001111")
    mem.facts.set("U-1", "location", "Paris")
    mem.facts.set("U-2", "location", "Rome")
    r = mem.recall(None, "where does 138-0000-1111 live")
    assert r.subjects == ["U-1", "U-2"]
    assert sorted(i.text for i in r.items if i.fact.attribute == "location") == [
        "U-1 location: Paris (since 2026-03-02)",
        "U-2 location: Rome (since 2026-03-02)",
    ]


def test_how_to_question_asks_the_workflow_lane_even_when_it_is_empty(mem):
    mem.remember("U-1", "Last refund took three days because the receipt was missing")
    r = mem.recall("U-1", "退款一般怎么做")
    assert r.step("workflow").asked
    assert not any(item.lane == "workflow" for item in r.items)  # nothing recorded yet
    assert r.analysis.workflow and r.step("summary").asked


def test_how_to_question_finds_a_recorded_workflow(mem):
    for order in ("ORD-1", "ORD-2"):
        steps = [
            {"action": "validate_order", "args": {"order": order}},
            {"action": "issue_refund", "args": {"order": order}},
        ]
        mem.workflows.record(
            task=f"Refund order {order}", task_type="order_refund", steps=steps, success=True
        )
    r = mem.recall("U-1", "how do I refund an order?")
    workflow_items = [item for item in r.items if item.lane == "workflow"]
    assert workflow_items and "issue_refund" in workflow_items[0].text
    assert r.step("workflow").asked


@dataclass
class _Workflow:
    task_type: str
    description: str
    steps: list[dict[str, object]]
    version: int = 1


@dataclass
class _Hit:
    workflow: _Workflow
    score: float


class _Workflows:
    def __init__(self) -> None:
        self.queries: list[str] = []

    def match(self, query: str, k: int = 3) -> list[_Hit]:
        self.queries.append(query)
        flow = _Workflow(
            "order_refund",
            "Refund an order after checking it",
            [{"action": "validate_order"}, {"action": "refund"}],
        )
        return [_Hit(flow, 0.8)]


def test_an_attached_workflow_lane_answers_how_to_questions(mem):
    workflows = _Workflows()
    mem.router.workflows = workflows
    r = mem.recall("U-1", "how do I refund an order?")
    assert r.step("workflow").asked and workflows.queries == ["how do I refund an order?"]
    item = next(item for item in r.items if item.lane == "workflow")
    assert item.text == (
        "order_refund: Refund an order after checking it (steps: validate_order → refund)"
    )
    assert "Workflows:" in r.text
    r = mem.recall("U-1", "where does the user live")
    assert not r.step("workflow").asked and len(workflows.queries) == 1


def test_router_is_a_public_part_of_memory(mem):
    assert isinstance(mem.router, Router)
    analysis = mem.router.analyze("where did I live last May?", at="2026-07-04")
    assert analysis.attributes == ("location",) and analysis.times[0].text == "last May"


@pytest.mark.parametrize(
    ("query", "attribute"),
    [
        ("她的手机号是多少", "phone"),
        ("what's the user's email address?", "email"),
        ("用户现在住哪儿", "location"),
        ("which company does she work for", "employer"),
        ("你叫什么名字", "name"),
    ],
)
def test_attribute_questions_in_both_languages_go_to_the_exact_lane(mem, query, attribute):
    values = {"phone": "13800001234", "email": "li@example.com", "location": "杭州"}
    if attribute in ("phone", "email"):
        mem.facts.define("email", cardinality="many", identifier=True)
        mem.facts.add("U-1", attribute, values[attribute])
    else:
        mem.facts.set("U-1", attribute, values.get(attribute, "测试"))
    r = mem.recall("U-1", query)
    assert r.items[0].fact.attribute == attribute
    assert not r.step("summary").asked
