"""A battle run through a turn in a real headless Chromium, on two devices."""

from __future__ import annotations

import re
import threading
import warnings
from collections.abc import Callable
from typing import Any

import pytest

from tests.web.conftest import (
    CHROMIUM,
    CHROMIUM_ARGS,
    DESKTOP,
    PHONE,
    SCREENSHOTS,
    patient_expect,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def in_browser(body: Callable[[Any, Any], None]) -> None:
    """Run ``body(browser, page)`` with headless Debian Chromium in a thread of its own;
    skip loudly when Chromium is missing."""
    if not CHROMIUM.exists():
        message = (f"BROWSER TESTS SKIPPED: no Chromium at {CHROMIUM}. "
                   "Install it with: apt-get install -y chromium")
        warnings.warn(message, stacklevel=1)
        pytest.skip(message)
    failure: list[BaseException] = []
    patient_expect()

    def run() -> None:
        from playwright.sync_api import sync_playwright

        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
                try:
                    context = browser.new_context(viewport=PHONE, locale="en-US")
                    page = context.new_page()
                    page.set_default_timeout(10_000)
                    body(browser, page)
                finally:
                    browser.close()
        except BaseException as exc:  # handed to the test's thread below
            failure.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if failure:
        raise failure[0]


def test_a_battle_through_a_turn_on_two_devices(server_url: str) -> None:
    in_browser(lambda browser, page: turn(browser, page, server_url))


def turn(browser: Any, page: Any, server_url: str) -> None:
    from playwright.sync_api import expect

    page.goto(f"{server_url}/battles")
    # the list offers the real games only; the demo game is left to the CLI and the API
    games = page.locator("#new-game option")
    assert [games.nth(i).get_attribute("value") for i in range(games.count())] == [
        "fow", "asl", "bkc", "cwc"]
    page.select_option("#new-game", "fow")
    page.fill("#new-name", "Kursk")
    page.click("#new-battle")
    # the one page with every link, in full: the creator hands them out from here
    expect(page.locator("h1")).to_contain_text("Kursk")
    assert page.locator('a[data-share="B"]').get_attribute("href").startswith(server_url)

    # the turn below is the demo game's (free stats, two phases), started over the API
    made = page.request.post(f"{server_url}/api/battles",
                             data={"game": "demo", "name": "Prokhorovka"}).json()
    link_b = server_url + made["links"]["B"]
    page.goto(server_url + made["links"]["A"])
    expect(page.locator("h1")).to_contain_text("Prokhorovka")
    expect(page.locator("#position")).to_contain_text("you act for side A")
    expect(page.locator("#checklist")).to_contain_text("Roll what needs rolling")
    link_a = page.url

    page.fill("#unit-name", "Tigers")
    page.fill("#unit-stats", "dice=4 at=3")
    page.click("#add-unit")
    expect(page.locator("#units")).to_contain_text("Tigers")

    # side B joins on a second device with its link; A's page never shows it
    assert page.locator('a[data-share="B"]').count() == 0
    phone_b = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    phone_b.set_default_timeout(10_000)
    phone_b.goto(link_b)
    expect(phone_b.locator("#position")).to_contain_text("you act for side B")
    phone_b.fill("#unit-name", "T-34s")
    phone_b.click("#add-unit")
    expect(phone_b.locator("#units")).to_contain_text("T-34s")

    def b_edits(unit: str, stats: dict[str, str]) -> None:
        """Side B changes its unit's stats through the page's edit form."""
        form = phone_b.locator(f'details[data-edit="{unit}"]')
        form.locator("summary").click()
        for name, value in stats.items():
            field = form.locator(f'input[name="s.{name}"]')
            if field.count():
                field.fill(value)
            else:
                form.locator('input[name="new_stat"]').fill(name)
                form.locator('input[name="new_value"]').fill(value)
        form.locator("button.save-unit").click()
        for name, value in stats.items():
            expect(phone_b.locator(f'tr[data-unit="{unit}"]')).to_contain_text(
                f"{name}={value}")

    # side A's page follows by itself: B's unit shows up without anyone reloading
    page.evaluate("window.notReloaded = true")
    expect(page.locator("#units")).to_contain_text("T-34s", timeout=12_000)
    expect(page.locator("#do-target")).to_contain_text("T-34s")
    expect(page.locator("#changed")).to_be_hidden()
    assert page.evaluate("window.notReloaded") is True and page.url.split("#")[0] == link_a

    # while A is typing, a change from B does not wipe the form: the banner offers a
    # refresh instead, and a write from the old view that reads what B changed (its
    # target) is refused, in place, the dice kept
    from tests.battle.test_browser_two_phones import pick

    pick(page, ["Tigers"], "T-34s", "demo.pool")
    page.fill("#do-dice", "6,6")
    b_edits("T-34s", {"teams": "5"})
    expect(page.locator("#changed")).to_be_visible(timeout=12_000)
    expect(page.locator("#do-dice")).to_have_value("6,6")
    expect(page.locator('tr[data-unit="T-34s"]')).not_to_contain_text("teams=5")
    page.click("#do-roll")
    expect(page.locator("#battle-error")).to_contain_text("the battle has changed")
    expect(page.locator("#do-dice")).to_have_value("6,6")
    page.goto(link_a)

    # the banner's Refresh button brings the change in on demand (no reload either)
    page.evaluate("window.notReloaded = true")
    page.fill("#unit-name", "Panthers")
    b_edits("T-34s", {"teams": "6"})
    expect(page.locator("#changed")).to_be_visible(timeout=12_000)
    expect(page.locator("#unit-name")).to_have_value("Panthers")
    page.click("#refresh")
    expect(page.locator("#changed")).to_be_hidden()
    expect(page.locator('tr[data-unit="T-34s"]')).to_contain_text("teams=6")
    expect(page.locator("#unit-name")).to_have_value("")
    assert page.evaluate("window.notReloaded") is True

    # A shoots with dice typed in: 6 6 1 2 at 3+ is 2 hits on the T-34s
    pick(page, ["Tigers"], "T-34s", "demo.pool")  # each pick's form in before the next
    page.fill("#do-dice", "6,6,1,2")
    page.click("#do-roll")
    expect(page.locator("#log li").first).to_contain_text("Dice pool Tigers → T-34s: "
                                                          "successes: 2")
    expect(page.locator('tr[data-unit="T-34s"] .markers')).to_contain_text("hits 2")

    # undo, then roll with the battle's dice; undo and roll again: the same dice
    page.click("#undo")
    expect(page.locator('tr[data-unit="T-34s"] .markers')).to_have_text("")
    pick(page, ["Tigers"], "T-34s", "demo.pool")  # each pick's form in before the next
    with page.expect_navigation():
        page.click("#do-roll")
    first = page.locator("#log li").first.locator(".dice").inner_text()
    page.click("#undo")  # a virtual roll: side B is asked, and its page shows it
    expect(page.locator("#undo-waiting")).to_be_visible()
    expect(phone_b.locator("#undo-request")).to_be_visible(timeout=12_000)
    phone_b.click("#undo-accept")
    expect(page.locator('tr[data-unit="T-34s"] .markers')).to_have_text("", timeout=12_000)
    pick(page, ["Tigers"], "T-34s", "demo.pool")  # each pick's form in before the next
    with page.expect_navigation():
        page.click("#do-roll")
    assert page.locator("#log li").first.locator(".dice").inner_text() == first
    assert re.search(r"virtual dice:\s+\d\s+\d\s+\d\s+\d", first)

    # the luck table and the next phase
    expect(page.locator('#luck tr[data-side="A"]')).to_contain_text("successes")
    page.click("#next-phase")
    expect(page.locator("#phase-title")).to_have_text("End phase")
    expect(page.locator("#checklist")).to_contain_text("Tidy up the markers")
    page.click("#next-phase")
    expect(page.locator("#position")).to_contain_text("Turn 1, side B")

    # B's page has followed all along, without a reload
    expect(phone_b.locator("#position")).to_contain_text("Turn 1, side B", timeout=12_000)
    # screenshots of the battle page, phone and desktop (make screenshots: into docs/)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "battle-phone.png"), full_page=True)
    desk = browser.new_context(viewport=DESKTOP).new_page()
    desk.goto(link_a)
    expect(desk.locator("#position")).to_contain_text("Turn 1, side B")
    desk.screenshot(path=str(SCREENSHOTS / "battle-desktop.png"), full_page=True)
    desk.context.close()

    # A edits the Tigers through the form: an emptied value removes a stat, a new one is
    # added; A sees the new stats at once and B's page follows
    tigers = page.locator('details[data-edit="Tigers"]')
    tigers.locator("summary").click()
    expect(tigers.locator('input[name="s.dice"]')).to_have_value("4")
    tigers.locator('input[name="s.dice"]').fill("5")
    tigers.locator('input[name="s.at"]').fill("")
    tigers.locator('input[name="new_stat"]').fill("skill")
    tigers.locator('input[name="new_value"]').fill("veteran")
    tigers.locator("button.save-unit").click()
    row = page.locator('tr[data-unit="Tigers"]')
    expect(row).to_contain_text("dice=5 skill=veteran")
    expect(row).not_to_contain_text("at=")
    expect(page.locator("#log li").first).to_contain_text("Tigers: at= dice=5 skill=veteran")
    expect(phone_b.locator('tr[data-unit="Tigers"]')).to_contain_text(
        "dice=5 skill=veteran", timeout=12_000)
    # a bad edit says what is wrong, on the page, and changes nothing
    tigers = page.locator('details[data-edit="Tigers"]')
    tigers.locator("summary").click()
    tigers.locator('input[name="new_stat"]').fill("2 guns")
    tigers.locator('input[name="new_value"]').fill("1")
    tigers.locator("button.save-unit").click()
    expect(page.locator("#battle-error")).to_contain_text("stat name '2 guns' must be a word")
    expect(page.locator('tr[data-unit="Tigers"]')).to_contain_text("dice=5 skill=veteran")
    # B cannot edit A's units from its page: there is no form for them
    assert phone_b.locator('details[data-edit="Tigers"]').count() == 0

    # the spectator link cannot act
    view = page.locator('a[data-share="view"]').get_attribute("href")
    phone_b.goto(view)
    expect(phone_b.locator("#position")).to_contain_text("spectator: read only")
    assert phone_b.locator("#do-form").count() == 0
    phone_b.context.close()


def test_the_page_follows_quietly(server_url: str) -> None:
    in_browser(lambda browser, page: follows(browser, page, server_url))


def follows(browser: Any, page: Any, server_url: str) -> None:
    """The update keeps the scroll position and open unit forms; a hidden tab does not
    poll, and catches up as soon as it is shown again."""
    from playwright.sync_api import expect

    made = page.request.post(f"{server_url}/api/battles",
                             data={"game": "demo", "name": "Kursk"}).json()
    bid, ka, kb = made["id"], made["keys"]["A"], made["keys"]["B"]
    api = f"{server_url}/api/battles/{bid}"
    for side, key, name in (("A", ka, "Elefants"), ("B", kb, "Guards")):
        assert page.request.post(f"{api}/units?key={key}", data={
            "side": side, "name": name, "stats": {"dice": 3}}).ok
    polls: list[str] = []
    page.on("request", lambda r: polls.append(r.url) if r.url.endswith("/counter") else None)
    page.goto(f"{server_url}/battles/{bid}/{ka}")
    page.locator('details[data-edit="Elefants"] summary').click()
    page.evaluate("window.scrollTo(0, 400)")
    y = page.evaluate("window.scrollY")
    assert y > 0
    assert page.request.post(f"{api}/mark?key={kb}", data={
        "unit": "Guards", "marker": "pinned"}).ok
    expect(page.locator('tr[data-unit="Guards"] .markers')).to_contain_text(
        "pinned", timeout=12_000)
    assert page.evaluate("window.scrollY") == y
    expect(page.locator('details[data-edit="Elefants"]')).to_have_attribute("open", "")

    # the tab goes to the background: no more polling
    page.evaluate("""() => {
        Object.defineProperty(document, "visibilityState", {configurable: true,
                                                            get: () => "hidden"});
        document.dispatchEvent(new Event("visibilitychange"));
    }""")
    page.wait_for_timeout(500)
    before = len(polls)
    assert page.request.post(f"{api}/mark?key={kb}", data={
        "unit": "Guards", "marker": "pinned", "value": "no"}).ok
    page.wait_for_timeout(7_000)
    assert len(polls) == before
    expect(page.locator('tr[data-unit="Guards"] .markers')).to_contain_text("pinned")
    # shown again: it asks at once and catches up
    page.evaluate("""() => {
        Object.defineProperty(document, "visibilityState", {configurable: true,
                                                            get: () => "visible"});
        document.dispatchEvent(new Event("visibilitychange"));
    }""")
    expect(page.locator('tr[data-unit="Guards"] .markers')).to_have_text("", timeout=2_000)
    assert len(polls) > before
