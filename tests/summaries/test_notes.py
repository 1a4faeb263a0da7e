"""Notes from user turns, and the shared text helpers (sentences, tokens, spans)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from memlane.errors import InvalidInput
from memlane.extract.model import Mention
from memlane.summaries.notes import (
    NoteDraft,
    extract_notes,
    intents,
    moods,
    note_text,
    relations,
    render_times,
    resolve_first_person,
)
from memlane.summaries.text import (
    estimate_tokens,
    find_spans,
    normalize_for_dedupe,
    split_sentences,
)
from memlane.window.model import Role, Turn

SHANGHAI = ZoneInfo("Asia/Shanghai")
# Saturday 2026-07-04 10:00 in Shanghai (02:00 UTC)
AT = datetime(2026, 7, 4, 2, 0, tzinfo=UTC)


def turn(text: str, *, role: Role = "user", at: datetime = AT, subject: str = "U-001") -> Turn:
    return Turn("s-1#3", "s-1", subject, role, text, at)


def notes(text: str, speaker_name: str | None = None) -> list[str]:
    found = extract_notes(turn(text), timezone=SHANGHAI, speaker_name=speaker_name)
    return [note.text for note in found]


# --- what is kept ------------------------------------------------------------------------


def test_greetings_fillers_and_empty_questions_are_dropped():
    assert notes("Hi! How are you? Thanks!! 谢谢！好的。嗯嗯。Wow, that's so cool!") == []
    assert notes("Thanks Gina, appreciate it! Believe in yourself, Jon!") == []


def test_informative_sentences_become_notes_with_provenance():
    found = extract_notes(
        turn("Hey Mel! I'm swamped with the kids & work. What's up with you?"),
        timezone=SHANGHAI,
        speaker_name="Melanie",
    )
    assert found == [NoteDraft("Melanie is swamped with the kids & work.", "s-1#3", AT, "U-001")]


def test_only_user_turns_give_notes():
    assistant = turn("Your order ORD-1 ships on 2026-07-08.", role="assistant")
    assert extract_notes(assistant, timezone=SHANGHAI) == []


def test_questions_are_kept_only_when_they_carry_an_identifier():
    assert notes("Can you check order ORD-9 for me? Is it raining in Paris today?") == [
        "U-001 asked: Can you check order ORD-9 for me?"
    ]
    assert notes("我的订单 ORD-123 什么时候到？") == ["U-001问：我的订单 ORD-123 什么时候到？"]


def test_identifiers_stay_verbatim_and_duplicates_collapse():
    found = notes("我的新手机号是 139-1111-2222。我的新手机号是 139-1111-2222！")
    assert found == ["U-001的新手机号是 139-1111-2222。"]


# --- times -------------------------------------------------------------------------------


def test_relative_dates_keep_their_words_and_gain_the_date_against_the_turn_time():
    assert notes("I went to the dentist yesterday.") == [
        "U-001 went to the dentist yesterday (2026-07-03)."
    ]
    assert notes("我上周搬到北京了。", speaker_name="王芳") == [
        "王芳上周搬到北京了（2026-06-22 那周）。"
    ]
    assert notes("我上周搬到北京了。") == ["U-001上周搬到北京了（2026-06-22 那周）。"]


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("包裹请改到明天下午3点以后再送，多谢", ("明天下午3点以后再送（2026-07-05 15:00），多谢",)),
        ("Please deliver it tomorrow after 5pm, not before", ("tomorrow (2026-07-05) after 5pm",)),
    ],
)
def test_a_clock_said_one_way_is_kept_as_said(said, kept):
    [note] = notes(said)
    assert all(words in note for words in kept) and "2026-07-05" in note


def test_a_question_that_states_a_figure_is_kept_beside_the_next_sentence():
    found = notes("Could I spend my 48,300 miles on the upgrade? Loyalty id FF-20417")
    assert found == [
        "U-001 asked: Could I spend my 48,300 miles on the upgrade?",
        "U-001 said: Loyalty id FF-20417",
    ]


def test_the_time_zone_decides_which_day_yesterday_was():
    late = datetime(2026, 7, 3, 20, 0, tzinfo=UTC)  # already July 4th in Shanghai
    text = "I visited the museum yesterday."
    in_utc = extract_notes(turn(text, at=late), timezone="UTC")
    in_shanghai = extract_notes(turn(text, at=late), timezone="Asia/Shanghai")
    assert in_utc[0].text == "U-001 visited the museum yesterday (2026-07-02)."
    assert in_shanghai[0].text == "U-001 visited the museum yesterday (2026-07-03)."


def test_locomo_style_note():
    at = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    found = extract_notes(
        turn("I went to a LGBTQ support group yesterday and it was so powerful.", at=at),
        timezone=UTC,
        speaker_name="Caroline",
    )
    assert [note.text for note in found] == [
        "Caroline went to a LGBTQ support group yesterday (2023-05-07) and it was so powerful."
    ]


WEEK = {"from": "2026-06-22", "to": "2026-06-29"}
MONTH = {"from": "2026-06-01", "to": "2026-07-01"}
YEAR = {"from": "2025-01-01", "to": "2026-01-01"}
WEEKEND = {"from": "2026-07-04", "to": "2026-07-06"}


@pytest.mark.parametrize(
    ("sentence", "phrase", "value", "expected"),
    [
        ("I moved last week.", "last week", WEEK, "I moved in the week of 2026-06-22."),
        ("I moved last month.", "last month", MONTH, "I moved in June 2026."),
        ("I moved last year.", "last year", YEAR, "I moved in 2025."),
        ("I rest this weekend.", "this weekend", WEEKEND, "I rest in the weekend of 2026-07-04."),
        ("我去年在上海。", "去年", YEAR, "我2025年在上海。"),
        ("我上个月到的。", "上个月", MONTH, "我2026年6月到的。"),
        ("I left yesterday at 3pm.", "yesterday at 3pm", "2026-07-03T15:00+08:00",
         "I left on 2026-07-03 at 15:00."),
        ("I left since yesterday.", "yesterday", "2026-07-03", "I left since 2026-07-03."),
        ("Busy from Monday.", "from Monday", {"from": "2026-07-06", "to": "2026-07-09"},
         "Busy between 2026-07-06 and 2026-07-08."),
    ],
)  # fmt: skip
def test_render_times(sentence, phrase, value, expected):
    start = sentence.index(phrase)
    mention = Mention("time", phrase, value, (start, start + len(phrase)))
    assert render_times(sentence, [mention]) == expected


def test_explicit_dates_are_left_as_written():
    mention = Mention("time", "5月3日", "2026-05-03", (1, 5))
    assert render_times("我5月3日到的", [mention]) == "我5月3日到的"


def test_a_resolver_can_be_injected():
    def fixed(text: str, at: datetime, zone: object) -> list[Mention]:
        start = text.find("then")
        return [Mention("time", "then", "2030-01-02", (start, start + 4))] if start >= 0 else []

    found = extract_notes(turn("I was in Rome back then."), timezone=UTC, resolver=fixed)
    assert [note.text for note in found] == ["U-001 was in Rome back then (2030-01-02)."]


# --- pronouns, relations, moods ---------------------------------------------------------------


def test_first_person_is_resolved_and_the_words_said_are_kept():
    assert resolve_first_person("I'm keen on it and my mentor helps me.", "Caroline") == (
        "Caroline is keen on it and Caroline's mentor helps Caroline."
    )
    # The verb keeps the form the speaker gave it: what they said is found as said.
    assert resolve_first_person("I really love painting, I've done it for years.", "Mel") == (
        "Mel really love painting, Mel has done it for years."
    )
    assert resolve_first_person("I'd been there; I don't mind.", "Jon") == (
        "Jon had been there; Jon don't mind."
    )
    assert resolve_first_person("No car now, I take the train and I watch films", "U-1") == (
        "No car now, U-1 take the train and U-1 watch films"
    )
    assert (
        resolve_first_person("我的猫叫咪咪，我们很喜欢它。", "王芳")
        == "王芳的猫叫咪咪，我们很喜欢它。"
    )


def test_the_speaker_of_the_turn_is_who_i_is():
    spoken = Turn(
        "c#1", "c", "conv-26", "user", "I play my violin every evening.", AT, speaker="Melanie"
    )
    assert [note.text for note in extract_notes(spoken, timezone=UTC)] == [
        "Melanie play Melanie's violin every evening."
    ]
    found = extract_notes(spoken, timezone=UTC, speaker_name="Mel")
    assert found[0].text == "Mel play Mel's violin every evening."
    assert found[0].subject == "conv-26"


def test_a_note_without_its_speaker_says_who_said_it():
    assert notes("The transgender stories were so inspiring!", speaker_name="Caroline") == [
        "Caroline said: The transgender stories were so inspiring!"
    ]


def test_relations_are_named():
    assert relations("我上周搬到北京了，新手机号 139-1111-2222") == ["location", "phone"]
    assert relations("My favorite color is blue and I work at ACME.") == [
        "my:favorite color",
        "employer",
    ]
    found = extract_notes(turn("I moved to Berlin last month."), timezone=SHANGHAI)
    assert found[0].relations == ("location",)


def test_moods_and_intents():
    assert moods("I'm not happy, I'm really frustrated! 太好了") == ["frustrated", "happy"]
    assert moods("我一点也不开心") == ["sad"]
    assert intents("Can you check the refund status for ORD-1?") == [
        "asking",
        "requesting",
        "complaining",
    ]
    assert intents("我打算下周去杭州。") == ["planning"]
    assert intents("I adopted a puppy named Biscuit.") == ["sharing"]


# --- bad input ---------------------------------------------------------------------------


def test_bad_input_is_refused():
    with pytest.raises(InvalidInput, match="timezone"):
        extract_notes(turn("I moved to Berlin."), timezone="Mars/Olympus")
    with pytest.raises(InvalidInput, match="speaker_name"):
        extract_notes(turn("I moved to Berlin."), timezone=UTC, speaker_name="  ")
    naive = turn("I moved to Berlin.", at=datetime(2026, 7, 4))
    with pytest.raises(InvalidInput, match="at"):
        extract_notes(naive, timezone=UTC)


def test_a_fixed_offset_time_zone_works():
    found = extract_notes(turn("I got home today."), timezone=timezone(timedelta(hours=-10)))
    assert found[0].text == "U-001 got home today (2026-07-03)."


# --- text helpers ------------------------------------------------------------------------


def test_chinese_sentences_are_split_on_chinese_punctuation():
    text = "我上周搬到北京了，新手机号 139-1111-2222。真的吗？？太好了！！我想想……好吧；明天见"
    assert split_sentences(text) == [
        "我上周搬到北京了，新手机号 139-1111-2222。",
        "真的吗？？",
        "太好了！！",
        "我想想……",
        "好吧；",
        "明天见",
    ]


def test_english_sentences_respect_abbreviations_decimals_and_quotes():
    text = (
        'Dr. Li moved to the U.S. in May. It cost $3.50, i.e. cheap! "Really?" she asked. '
        "J. K. Rowling wrote it... and then\nnew line"
    )
    assert split_sentences(text) == [
        "Dr. Li moved to the U.S. in May.",
        "It cost $3.50, i.e. cheap!",
        '"Really?"',
        "she asked.",
        "J. K. Rowling wrote it... and then",
        "new line",
    ]


def test_mixed_language_text_splits_at_both_kinds_of_ends():
    assert split_sentences("我到了。OK! Email a.b@c.com now.好的") == [
        "我到了。",
        "OK!",
        "Email a.b@c.com now.",
        "好的",
    ]


def test_token_estimate():
    assert estimate_tokens("") == 0
    assert estimate_tokens("我搬到北京了") == 6
    assert estimate_tokens("I moved to Beijing") == 6  # 4 words x 1.3, rounded up
    assert estimate_tokens("13800001234") == 4  # digits cost one token per three
    assert estimate_tokens("我搬到北京了 and moved") > estimate_tokens("我搬到北京了")


def test_normalize_for_dedupe():
    assert normalize_for_dedupe("  I moved to Beijing!! ") == "i moved to beijing"
    assert normalize_for_dedupe("我搬到北京了！") == normalize_for_dedupe("我搬到北京了")
    assert normalize_for_dedupe("138-0000-1234") == normalize_for_dedupe("13800001234")
    assert normalize_for_dedupe("ＡＢＣ") == "abc"


def test_find_spans():
    found = find_spans(
        "Order ORD-20260701-001 ships May 8, 2023 at 1:56 pm, $12.50, 新手机号 139-1111-2222，"
        "2026年7月1日付了100元, mail a.b@x.com, I ran 5K with 3 kids"
    )
    assert [(span.kind, span.text) for span in found] == [
        ("identifier", "ORD-20260701-001"),
        ("date", "May 8, 2023"),
        ("date", "1:56 pm"),
        ("amount", "$12.50"),
        ("identifier", "139-1111-2222"),
        ("date", "2026年7月1日"),
        ("amount", "100元"),
        ("identifier", "a.b@x.com"),
        ("quantity", "5K"),
        ("quantity", "3 kids"),
    ]


def test_what_takes_a_value_back_is_remembered_however_short_or_asked():
    assert note_text("Tuesday is out, sorry.", "U-1") == "U-1 said: Tuesday is out, sorry."
    assert note_text("Can you cancel the blender?", "U-1") == (
        "U-1 asked: Can you cancel the blender?"
    )
    assert note_text("How are you?", "U-1") is None  # a question that takes nothing back


@pytest.mark.parametrize(
    ("sentence", "note"),
    [
        ("Flying to Oslo next Wednesday for work, what's the weather like?",
         "Jon said: Flying to Oslo next Wednesday for work"),
        ("我下周去成都出差，那边冷吗？", "Jon下周去成都出差"),
        ("Can you check, is it shipped?", None),
        ("If I move to Oslo, should I tell you?", None),
        ("Should I go to Osaka in May?", None),
        ("Thanks, how are you?", None),
    ],
)  # fmt: skip
def test_what_a_question_tells_before_it_asks_is_a_note(sentence, note):
    assert note_text(sentence, "Jon") == note


@pytest.mark.parametrize("sentence", ["We have two kids, 4 and 7", "My mum visits, 3 days a week"])
def test_a_speaker_who_opens_with_we_or_my_talks_about_themself(sentence):
    assert note_text(sentence, "Jon") is not None


def test_a_short_sentence_beside_a_code_tells_what_the_code_is_for():
    assert notes("1ZYL4F963564311443 has been stuck for 4 days. It's a baby stroller") == [
        "U-001 said: 1ZYL4F963564311443 has been stuck for 4 days.",
        "U-001 said: It's a baby stroller",
    ]
    assert notes("It's a baby stroller") == []  # alone, too thin to remember
