"""The memory inspector end to end: a real server, headless Chromium, the worked example.

Skips when Playwright or /usr/bin/chromium is missing, unless MEMLANE_REQUIRE_SERVICES=1
(then it fails). Screenshots go to a temporary folder, and also to $MEMLANE_ARTIFACTS when
that is set.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NoReturn

import pytest

import memlane
from tests.conftest import FakeClock
from tests.support.services import serving

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
TX1, TX2, TX3 = (
    "2026-03-02T00:00:00+00:00",
    "2026-07-04T00:00:00+00:00",
    "2026-07-10T00:00:00+00:00",
)
NOW = datetime(2026, 8, 1, tzinfo=UTC)


def unavailable(reason: str) -> NoReturn:
    """Skip, or fail when the services are required (CI)."""
    if os.environ.get("MEMLANE_REQUIRE_SERVICES") == "1":
        pytest.fail(f"{reason} (required: MEMLANE_REQUIRE_SERVICES=1)")
    pytest.skip(reason)


@dataclass
class Served:
    """A running inspector: its base URL, minted keys, and the stored location versions."""

    base: str
    keys: dict[str, str]
    versions: list[memlane.Fact]
    url: str


def seed(url: str) -> list[memlane.Fact]:
    """BITEMPORAL.md's worked example (in Chinese), a note and a closed session."""
    clock = FakeClock(datetime(2026, 3, 2, tzinfo=UTC))
    with memlane.Memory(url, tenant="acme", clock=clock, embedder="hash") as mem:
        clock.set(TX1)
        mem.facts.set("U-001", "location", "上海", valid_from="2026-03-01", source="signup")
        clock.set(TX2)
        mem.facts.set(
            "U-001", "location", "北京", valid_from="2026-07-01", reason="用户说上周搬到北京了"
        )
        clock.set(TX3)
        mem.facts.set(
            "U-001",
            "location",
            "杭州",
            valid_from="2026-05-01",
            valid_to="2026-06-01",
            reason="business posting, corrected by HR",
        )
        mem.facts.set("U-002", "tier", "gold", valid_from="2026-03-01")
        clock.set("2026-07-20")
        session = mem.session("U-001", "s-1")
        session.add("user", "我想把会员升级到金卡。")
        session.add("assistant", "好的, 我来帮你办理升级。")
        session.close()
        mem.remember("U-001", "我更喜欢用微信联系。")
        return mem.facts.audit("U-001", "location")


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    """``memlane serve``'s app under uvicorn in a thread, over the seeded database."""
    from memlane.server.app import create_app

    url = str(tmp_path / "inspector.db")
    versions = seed(url)
    clock = FakeClock(NOW)
    app = create_app(url, memory=memlane.Memory(url, clock=clock, embedder="hash"))
    ring = app.state.memlane.keys
    keys = {role: ring.create("acme", role)[1] for role in ("agent", "compliance")}
    with serving(app) as base:
        yield Served(base=base, keys=keys, versions=versions, url=url)


@pytest.fixture
def browser() -> Iterator[Any]:
    """Headless Debian Chromium driven by Playwright (never a downloaded browser)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("Playwright is not installed: pip install 'playwright>=1.40'")
    if not CHROMIUM.exists():
        unavailable(f"{CHROMIUM} is missing: apt-get install -y chromium")
    with sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def artifacts(tmp_path: Path) -> Iterator[Path]:
    """Where screenshots go; copied to $MEMLANE_ARTIFACTS (as ui-*.png) when set."""
    folder = tmp_path / "artifacts"
    folder.mkdir()
    yield folder
    target = os.environ.get("MEMLANE_ARTIFACTS")
    if target:
        Path(target).mkdir(parents=True, exist_ok=True)
        for shot in folder.glob("*.png"):
            shutil.copy(shot, Path(target) / f"ui-{shot.name}")


def login(browser: Any, served: Served, role: str) -> Any:
    """A fresh page logged in with a key of ``role`` (typed into the login form)."""
    from playwright.sync_api import expect

    page = browser.new_context(viewport={"width": 1200, "height": 1400}).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{served.base}/ui")
    page.fill("#key", served.keys[role])
    page.press("#key", "Enter")
    expect(page.locator("#who")).to_contain_text(role)
    page.errors = errors
    return page


def location_value(page: Any) -> Any:
    return page.locator('#profile tr[data-attribute="location"] td.value')


def test_subject_page_chart_and_as_of(browser: Any, served: Served, artifacts: Path) -> None:
    from playwright.sync_api import expect

    page = login(browser, served, "agent")
    page.fill("#subject-query", "U-001")
    page.press("#subject-query", "Enter")
    page.click("#results a")
    expect(location_value(page)).to_have_text("北京")

    rects = page.locator('figure[data-attribute="location"] rect.version')
    assert rects.count() == len(served.versions) >= 5
    shown = {
        rects.nth(i).get_attribute("data-version-id"): rects.nth(i).get_attribute("class")
        for i in range(rects.count())
    }
    for fact in served.versions:
        state = "superseded" if fact.tx_to is not None else "current"
        assert state in (shown[str(fact.id)] or "").split()
    assert page.locator("rect.superseded").count() == sum(
        f.tx_to is not None for f in served.versions
    )
    first = page.locator(f'rect[data-version-id="{served.versions[1].id}"] title')
    assert "用户说上周搬到北京了" in first.text_content() or "signup" in first.text_content()
    expect(page.locator("#sessions")).to_contain_text("open items")
    expect(page.locator("#notes")).to_contain_text("微信")
    page.screenshot(path=str(artifacts / "subject-now.png"), full_page=True)

    page.fill("#valid-at", "2026-05-15T00:00:00Z")
    page.press("#valid-at", "Tab")
    expect(location_value(page)).to_have_text("杭州")
    page.fill("#known-at", TX2.replace("+00:00", "Z"))
    page.press("#known-at", "Tab")
    expect(location_value(page)).to_have_text("上海")
    expect(page.locator("#asof-caption")).to_contain_text("2026-07-04")
    believed = page.locator("rect.believed")
    expect(believed).to_have_count(1)
    page.screenshot(path=str(artifacts / "subject-as-of-tx2.png"), full_page=True)

    handle = page.locator('figure[data-attribute="location"] .handle')
    before = handle.get_attribute("aria-valuetext")
    handle.focus()
    page.keyboard.press("ArrowUp")
    expect(page.locator('figure[data-attribute="location"] .handle')).not_to_have_attribute(
        "aria-valuetext", before or ""
    )

    # Dragging the point left moves valid time back (to March: Shanghai, whatever is known).
    handle = page.locator('figure[data-attribute="location"] .handle')
    box = handle.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    chart = page.locator('figure[data-attribute="location"] svg').bounding_box()
    assert chart is not None
    page.mouse.move(chart["x"] + chart["width"] * 0.14, box["y"] + box["height"] / 2, steps=5)
    page.mouse.up()
    expect(page.locator("#valid-at")).to_have_value(re.compile(r"^2026-0[34]-"))
    expect(location_value(page)).to_have_text("上海")
    assert page.errors == []


def test_recall_shows_the_plan(browser: Any, served: Served, artifacts: Path) -> None:
    from playwright.sync_api import expect

    page = login(browser, served, "agent")
    page.click("text=Recall")
    page.fill("#recall-subject", "U-001")
    page.fill("#recall-query", "用户现在住在哪里?")
    page.click("#recall button[type=submit]")
    expect(page.locator("#plan tr[data-lane]")).to_have_count(4)
    expect(page.locator('#plan tr[data-lane="exact"]')).to_have_attribute("data-asked", "true")
    expect(page.locator("#items")).to_contain_text("北京")
    page.screenshot(path=str(artifacts / "recall.png"), full_page=True)
    page.click("text=Workflows")
    expect(page.locator("main")).to_contain_text("No workflows yet.")
    assert page.errors == []


def test_agent_cannot_reach_audit_or_compliance(browser: Any, served: Served) -> None:
    from playwright.sync_api import expect

    page = login(browser, served, "agent")
    page.click("#theme")
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    expect(page.locator("#theme")).to_have_attribute("aria-pressed", "true")
    page.goto(f"{served.base}/ui/#/compliance")
    expect(page.locator("#denied")).to_contain_text("agent role may not open the compliance")
    page.goto(f"{served.base}/ui/#/audit/U-001")
    expect(page.locator("#denied")).to_contain_text("agent role may not open the audit")
    assert page.locator("#deletions").count() == 0
    assert page.locator("#audit").count() == 0


def test_compliance_forgets_after_confirmation(
    browser: Any, served: Served, artifacts: Path
) -> None:
    from playwright.sync_api import expect

    page = login(browser, served, "compliance")
    page.click("#nav-compliance")
    expect(page.locator("#deletions")).to_be_visible()
    assert page.locator("#deletions tr[data-deletion-id]").count() == 0
    page.fill("#forget-subject", "U-002")
    page.click("#forget button[type=submit]")
    expect(page.locator("#confirm")).to_be_visible()
    page.click("#confirm-cancel")
    expect(page.locator("#status")).to_have_text("Nothing forgotten.")
    assert page.locator("#deletions tr[data-deletion-id]").count() == 0

    page.click("#forget button[type=submit]")
    page.fill("#confirm-reason", "GDPR 删除请求")
    page.screenshot(path=str(artifacts / "forget-dialog.png"))
    page.click("#confirm-ok")
    expect(page.locator("#deletions tr[data-deletion-id]")).to_have_count(1)
    expect(page.locator("#deletions")).to_contain_text("GDPR 删除请求")
    page.goto(f"{served.base}/ui/#/audit/U-001")
    expect(page.locator("#audit tr[data-version-id]")).to_have_count(len(served.versions))
    assert page.errors == []


def add_facts(served: Served, writes: list[tuple[str, str, str, str]]) -> None:
    """Store ``(instant, subject, attribute, value)`` writes, each at its instant."""
    clock = FakeClock(NOW)
    with memlane.Memory(served.url, tenant="acme", clock=clock, embedder="hash") as mem:
        for instant, subject, attribute, value in writes:
            clock.set(instant)
            mem.facts.set(subject, attribute, value, valid_from="2026-03-01")


def test_subjects_are_listed_paged_and_filtered(browser: Any, served: Served) -> None:
    from playwright.sync_api import expect

    extra = [f"C-{n:03d}" for n in range(30)]
    add_facts(served, [("2026-07-01", subject, "tier", "silver") for subject in extra])
    page = login(browser, served, "agent")
    listed = page.locator("#subject-list a")
    expect(listed).to_have_count(25)
    expect(page.locator("#subject-range")).to_have_text("1–25 of 32")
    assert listed.first.text_content() == "C-000"
    expect(page.locator("#subject-prev")).to_be_disabled()
    page.click("#subject-next")
    expect(page.locator("#subject-range")).to_have_text("26–32 of 32")
    expect(listed).to_have_text(["C-025", "C-026", "C-027", "C-028", "C-029", "U-001", "U-002"])
    expect(page.locator("#subject-next")).to_be_disabled()
    page.click("#subject-prev")
    expect(page.locator("#subject-range")).to_have_text("1–25 of 32")

    page.fill("#subject-query", "u-00")  # part of an id, in any case
    expect(listed).to_have_text(["U-001", "U-002"])
    expect(page.locator("#subject-range")).to_have_text("1–2 of 2")
    page.fill("#subject-query", "nobody")
    expect(page.locator("#subject-list")).to_contain_text("No subject contains")
    page.fill("#subject-query", "U-002")
    expect(listed).to_have_text(["U-002"])
    listed.first.click()
    expect(page.locator("#view h2")).to_have_text("Subject U-002")
    assert page.errors == []


def point_fractions(page: Any, attribute: str) -> tuple[float, float]:
    """Where the as-of point sits in a chart's plot: fractions of the x and y axes."""
    return page.eval_on_selector(  # type: ignore[no-any-return]
        f'figure[data-attribute="{attribute}"] svg',
        """svg => {
          const [x, y] = [...svg.querySelectorAll("line.axis")];
          const n = (node, name) => Number(node.getAttribute(name));
          const handle = svg.querySelector(".handle");
          return [(n(handle, "cx") - n(x, "x1")) / (n(x, "x2") - n(x, "x1")),
                  (n(y, "y2") - n(handle, "cy")) / (n(y, "y2") - n(y, "y1"))];
        }""",
    )


def slider_fraction(page: Any, selector: str) -> float:
    return float(page.eval_on_selector(selector, "e => (e.value - e.min) / (e.max - e.min)"))


def test_sliders_follow_typed_instants_and_the_chart(browser: Any, served: Served) -> None:
    from playwright.sync_api import expect

    page = login(browser, served, "agent")
    page.goto(f"{served.base}/ui/#/subject/U-001")
    expect(location_value(page)).to_have_text("北京")
    for valid, known in [
        ("2026-05-15T00:00:00Z", TX2),
        ("2026-06-20T06:00:00Z", "2026-07-06T12:00:00Z"),
        ("2026-03-05T00:00:00Z", "2026-03-09T00:00:00Z"),
    ]:
        page.fill("#valid-at", valid)
        page.fill("#known-at", known.replace("+00:00", "Z"))
        page.press("#known-at", "Tab")
        expect(page.locator("#asof-caption")).to_contain_text(known[:10])
        x, y = point_fractions(page, "location")
        assert slider_fraction(page, "#valid-range") == pytest.approx(x, abs=0.002)
        assert slider_fraction(page, "#known-range") == pytest.approx(y, abs=0.002)
    # Transaction time has one band per change of belief: TX2 opens the second of three.
    page.fill("#known-at", TX2.replace("+00:00", "Z"))
    page.press("#known-at", "Tab")
    assert slider_fraction(page, "#known-range") == pytest.approx(1 / 3, abs=0.002)

    # And the other way round: a slider lands exactly on a change of belief.
    page.fill("#valid-at", "2026-08-01T00:00:00Z")
    page.press("#valid-at", "Tab")
    page.fill("#known-range", "334")
    expect(page.locator("#known-at")).to_have_value("2026-07-04T00:00:00Z")
    expect(location_value(page)).to_have_text("北京")
    page.fill("#known-range", "300")
    expect(page.locator("#known-at")).to_have_value(re.compile(r"^2026-06-"))
    expect(location_value(page)).to_have_text("上海")
    assert page.errors == []


def test_transaction_labels_name_the_time_when_they_share_a_date(
    browser: Any, served: Served
) -> None:
    from playwright.sync_api import expect

    add_facts(
        served,
        [
            ("2026-07-21T09:15:00+00:00", "U-003", "tier", "silver"),
            ("2026-07-21T14:30:00+00:00", "U-003", "tier", "gold"),
            ("2026-07-21T14:30:20+00:00", "U-003", "tier", "platinum"),
            ("2026-07-25T08:00:00+00:00", "U-003", "tier", "gold"),
        ],
    )
    page = login(browser, served, "agent")
    page.goto(f"{served.base}/ui/#/subject/U-003")
    ticks = page.locator('figure[data-attribute="tier"] text.tx-tick')
    expect(ticks).to_have_text(
        ["2026-07-21 09:15:00", "2026-07-21 14:30:00", "2026-07-21 14:30:20", "2026-07-25"]
    )
    page.goto(f"{served.base}/ui/#/subject/U-001")
    expect(page.locator('figure[data-attribute="location"] text.tx-tick')).to_have_text(
        ["2026-03-02", "2026-07-04", "2026-07-10"]
    )
    assert page.errors == []


def test_valid_axis_has_a_year_and_now(browser: Any, served: Served, artifacts: Path) -> None:
    from playwright.sync_api import expect

    page = login(browser, served, "agent")
    page.goto(f"{served.base}/ui/#/subject/U-001")
    chart = page.locator('figure[data-attribute="location"] svg')
    labels = chart.locator("text.valid-tick")
    expect(labels.first).to_have_text("2026-03-01")
    assert labels.all_text_contents()[1:] == ["05-01", "06-01", "07-01"]
    marker = chart.locator("g.now")
    expect(marker).to_have_attribute("data-now", NOW.isoformat().replace("+00:00", ".000Z"))
    expect(marker.locator("text")).to_have_text("now")
    now_x = float(marker.locator("line").get_attribute("x1") or "nan")
    july_x = float(labels.nth(3).get_attribute("x") or "nan")
    axis_end = float(chart.locator("line.axis").first.get_attribute("x2") or "nan")
    assert july_x < now_x < axis_end
    # "Now" is the server's: the point starts on the marker.
    assert float(chart.locator(".handle").get_attribute("cx") or "nan") == pytest.approx(now_x)
    page.screenshot(path=str(artifacts / "subject-axis.png"), full_page=True)
    assert page.errors == []


def test_chart_uses_the_card_width_and_no_request_fails(browser: Any, served: Served) -> None:
    from playwright.sync_api import expect

    failed: list[str] = []
    page = browser.new_context(viewport={"width": 1200, "height": 1000}).new_page()
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    page.goto(f"{served.base}/ui/")
    page.fill("#key", served.keys["agent"])
    page.press("#key", "Enter")
    expect(page.locator("#who")).to_contain_text("agent")
    page.goto(f"{served.base}/ui/#/subject/U-001")
    expect(location_value(page)).to_have_text("北京")

    def widths() -> tuple[float, float]:
        box = page.locator('figure[data-attribute="location"] .chart-box').bounding_box()
        svg = page.locator('figure[data-attribute="location"] svg').bounding_box()
        assert box is not None and svg is not None
        return box["width"], svg["width"]

    card, chart = widths()
    assert card > 900 and chart == pytest.approx(card, abs=2)
    page.set_viewport_size({"width": 700, "height": 1000})
    expect(page.locator('figure[data-attribute="location"] svg')).to_have_attribute(
        "width", re.compile(r"^[4-6]\d\d$")
    )
    card, chart = widths()
    assert chart == pytest.approx(card, abs=2)
    assert page.evaluate("() => document.querySelector('link[rel=icon]').href").endswith(
        "/ui/static/favicon.svg"
    )
    assert page.request.get(f"{served.base}/favicon.ico").status == 200
    assert failed == []
