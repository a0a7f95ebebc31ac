"""A battle run through a turn in a real headless Chromium, on two devices."""

from __future__ import annotations

import re
import threading
import warnings
from collections.abc import Callable
from typing import Any

import pytest

from tests.web.conftest import CHROMIUM, CHROMIUM_ARGS, PHONE

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
    page.select_option("#new-game", "demo")
    page.fill("#new-name", "Prokhorovka")
    page.fill("#new-seed", "7")
    page.click("#new-battle")
    expect(page.locator("h1")).to_contain_text("Prokhorovka")
    expect(page.locator("#position")).to_contain_text("you act for side A")
    expect(page.locator("#checklist")).to_contain_text("Roll what needs rolling")
    link_a = page.url

    page.fill("#unit-name", "Tigers")
    page.fill("#unit-stats", "dice=4 at=3")
    page.click("#add-unit")
    expect(page.locator("#units")).to_contain_text("Tigers")

    # side B joins on a second device with the link side A shares
    link_b = page.locator('a[data-share="B"]').get_attribute("href")
    phone_b = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    phone_b.set_default_timeout(10_000)
    phone_b.goto(server_url + link_b)
    expect(phone_b.locator("#position")).to_contain_text("you act for side B")
    phone_b.fill("#unit-name", "T-34s")
    phone_b.click("#add-unit")
    expect(phone_b.locator("#units")).to_contain_text("T-34s")

    # side A's page is now stale: it says so, and a write from it is refused
    expect(page.locator("#changed")).to_be_visible(timeout=12_000)
    page.select_option("#do-unit", "Tigers")
    page.click("#do-roll")
    expect(page.locator("#battle-error")).to_contain_text("the battle has changed")
    page.goto(link_a)

    # A shoots with dice typed in: 6 6 1 2 at 3+ is 2 hits on the T-34s
    page.select_option("#do-unit", "Tigers")
    page.select_option("#do-target", "T-34s")
    page.fill("#do-dice", "6,6,1,2")
    page.click("#do-roll")
    expect(page.locator("#log li").first).to_contain_text("successes=2")
    expect(page.locator('tr[data-unit="T-34s"] .markers')).to_contain_text("hits 2")

    # undo, then roll with the battle's dice; undo and roll again: the same dice
    page.click("#undo")
    expect(page.locator('tr[data-unit="T-34s"] .markers')).to_have_text("")
    page.select_option("#do-unit", "Tigers")
    page.select_option("#do-target", "T-34s")
    page.click("#do-roll")
    first = page.locator("#log li").first.locator(".dice").inner_text()
    page.click("#undo")
    page.select_option("#do-unit", "Tigers")
    page.select_option("#do-target", "T-34s")
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

    # B sees the same battle after reloading; the spectator link cannot act
    phone_b.reload()
    expect(phone_b.locator("#position")).to_contain_text("Turn 1, side B")
    view = page.locator('a[data-share="view"]').get_attribute("href")
    phone_b.goto(server_url + view)
    expect(phone_b.locator("#position")).to_contain_text("spectator: read only")
    assert phone_b.locator("#do-form").count() == 0
    phone_b.context.close()
