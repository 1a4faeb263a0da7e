"""An id in a question resolves its owner exactly, and the question is still answered."""

from __future__ import annotations

import pytest

import memlane


def said(mem: memlane.Memory, subject: str, text: str) -> None:
    session = mem.session(subject, session_id=f"s-{subject}")
    session.add("user", text)
    session.close()


def texts(result: memlane.router.Recall) -> list[str]:
    return [item.text for item in result.items]


def test_two_orders_one_segment_apart_are_two_customers(mem):
    said(mem, "C-88", "my order ORD-20261015-88 hasn't arrived, it is the blue kettle")
    said(mem, "C-89", "my order ORD-20261015-89 hasn't arrived, it is a desk lamp")
    assert mem.facts.get_all("C-89", "order")[0].value == "ORD-20261015-89"
    r = mem.recall(None, "what is the status of order ORD-20261015-89?")
    assert r.subjects == ["C-89"]
    assert {item.subject for item in r.items} == {"C-89"}
    assert "lamp" in r.items[0].text and "kettle" not in r.text
    assert r.step("summary").asked  # the question is about the order, not for its value


def test_orders_of_one_year_do_not_collide(mem):
    said(mem, "C-1", "订单号ORD-2026-10003，买的是咖啡机")
    said(mem, "C-2", "订单号ORD-2026-10004，买的是乐高积木")
    r = mem.recall(None, "ORD-2026-10004 买的是什么？")
    assert r.subjects == ["C-2"] and "乐高积木" in r.items[0].text
    assert "咖啡机" not in r.text


def test_an_id_asked_in_another_form_finds_its_owner_only(mem):
    said(mem, "C-B", "工单K31-560-X-B，冰箱不制冷")
    said(mem, "C-C", "工单K31-560-X-C，燃气灶打不着火")
    assert mem.index.wait(timeout=30)  # the summary is found by meaning
    r = mem.recall(None, "K31560XB 修的是什么？")
    assert r.subjects == ["C-B"] and "冰箱" in r.items[0].text
    assert "燃气灶" not in r.text


def test_an_id_one_character_off_returns_nothing(mem):
    said(mem, "C-B", "工单K31-560-X-B，冰箱不制冷")
    r = mem.recall(None, "K31-560-X-D 修的是什么？")
    assert r.items == [] and r.subjects == []


def test_a_phone_written_another_way_resolves_its_owner(mem):
    said(mem, "C-1", "我叫曹杰，手机+86 137 0000 3333，想换货")
    said(mem, "C-2", "我叫肖梦琪，手机137-0000-4444，想换货")
    assert mem.facts.lookup("phone", "13700003333") == ["C-1"]
    r = mem.recall(None, "13700003333 这个号码的客户叫什么名字？")
    assert r.subjects == ["C-1"] and "曹杰" in r.items[0].text


def test_a_lookup_of_an_id_alone_still_answers_with_the_profile(mem, embedder):
    mem.facts.add("U-5", "phone", "+86 138 0000 5555")
    mem.facts.set("U-5", "name", "李雷")
    r = mem.recall(None, "138 0000 5555")
    assert r.subjects == ["U-5"] and not r.step("summary").asked
    assert embedder.calls == 0


def test_what_was_said_beside_an_id_outranks_the_id_restated(mem):
    said(mem, "C-40", "Reference PX-4471-20. The parcel goes to 12 Elm Row, Leeds.")
    said(mem, "C-41", "Reference PX-4471-29. The parcel goes to 3 Kirk St, Dundee.")
    r = mem.recall(None, "which town is px 4471 20 for?")
    assert r.subjects == ["C-40"] and "Leeds" in r.items[0].text


def test_a_phone_restated_alone_ranks_after_what_its_owner_said(mem):
    said(mem, "C-42", "我要改收货时间，改到周六下午。我手机号139 2210 4471")
    r = mem.recall(None, "13922104471 这位改到什么时候收货？")
    assert "周六" in r.items[0].text


def test_a_postal_tracking_number_asked_without_its_country_finds_the_parcel(mem):
    said(mem, "C-50", "Royal Mail tracking RK819227791GB, expected Monday 24 February")
    said(mem, "C-51", "Royal Mail tracking RK819227793GB, expected Tuesday 25 February")
    assert mem.index.wait(timeout=30)  # the number written another way is found by meaning
    r = mem.recall(None, "When should rk 8192 2779 1 turn up?")
    assert r.items and "24 February" in r.items[0].text
    assert "25 February" not in r.text
    assert mem.recall(None, "When should RK819227791US turn up?").items == []


@pytest.mark.parametrize(
    ("told", "question", "owner", "answer"),
    [
        # an id that may end in a letter read as a word is looked up both ways
        (("Order number E79-044-A. Delivery address is 336 Maple Ave, Sydney.",
          "my order E79-244-A should ship to 182 Queen St, Cape Town"),
         "Which city is e79 044 a going to?", 0, "Sydney"),
        # asked when, a statement that tells no time beside the id restates it
        (("Saturday at 8am works for me. My number's 07700 900572 if anything changes",
          "Monday at 4:15pm works for me. My number's 07700900577 if anything changes"),
         "When's the appointment for +44 (0)7700 900 572?", 0, "8am"),
        # asked who, a statement that names nobody beside the id restates it
        (("This is Pablo Singh, best number to reach me is 617.555.3108",
          "Hi, Jonas Ivanova here. Call me back on +1 617 555 0108 please"),
         "Whose number is (617) 555-0108?", 1, "Jonas Ivanova"),
    ],
)  # fmt: skip
def test_the_id_asked_finds_its_owner_and_what_answers(mem, told, question, owner, answer):
    for number, text in enumerate(told):
        said(mem, f"C-{number}", text)
    r = mem.recall(None, question)
    assert r.subjects == [f"C-{owner}"] and answer in r.items[0].text
