"""Real headless-browser tests: Playwright driving Debian's Chromium against a uvicorn
server on loopback. They also take the screenshots ('make screenshots' puts them in
docs/screenshots/; otherwise they go to a temporary folder)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import DESKTOP, PHONE

pytestmark = pytest.mark.browser

Shot = Callable[[Any, str], Path]


def test_odds_update_as_the_form_changes(page: Any, server_url: str, shot: Shot) -> None:
    from playwright.sync_api import expect

    page.goto(server_url + "/")
    expect(page.locator("h1")).to_have_text("Pick a rule")
    shot(page, "index-phone")
    page.click('a[href="/p/demo.pool"]')
    expect(page.locator("#odds h2")).to_have_text("Exact odds")
    # six dice at 4+: all six succeed with chance 1/64
    expect(page.locator('#odds td[title="1/64"]').first).to_be_visible()
    page.fill('input[name="dice"]', "2")
    page.press('input[name="dice"]', "Tab")
    # two dice: no success 1/4, one 1/2, both 1/4
    expect(page.locator("#odds tbody tr").first.locator("td").first).to_have_attribute(
        "title", "1/4")
    expect(page.locator('#odds td[title="1/2"]').first).to_be_visible()
    page.select_option('select[name="reroll"]', "misses")
    # re-rolling misses: one die succeeds with 3/4, both with 9/16
    expect(page.locator('#odds td[title="9/16"]').first).to_be_visible()
    assert page.locator("#odds svg.chart rect").count() == 3
    page.wait_for_timeout(700)  # let the delayed refresh of the typed number land
    page.locator("#odds tbody td[data-exact]").first.click()  # tap shows the fraction
    expect(page.locator("#odds td.show-exact").first).to_have_text(re.compile(r"^\d+/\d+$"))
    shot(page, "odds-phone")


def test_roll_with_typed_dice_then_in_polish(page: Any, server_url: str, shot: Shot) -> None:
    from playwright.sync_api import expect

    page.goto(server_url + "/p/demo.pool?lang=en")
    page.fill('input[name="dice"]', "3")
    page.fill("#dice-input", "3 5 6")
    page.click("#roll-button")
    expect(page.locator(".outcome-successes")).to_have_text("2")
    expect(page.locator(".steps .step-text").first).to_have_text("dice: 3 dice needing 4+")
    assert page.locator(".die.hit").count() == 2
    shot(page, "roll-phone")
    # wrong dice: the message, not a crash
    page.fill("#dice-input", "3 5")
    page.click("#roll-button")
    expect(page.locator("#roll .error")).to_contain_text("not enough dice")

    page.click('a[data-lang="pl"]')
    expect(page.locator("html")).to_have_attribute("lang", "pl")
    expect(page.locator("#odds h2")).to_have_text("Dokładne szanse")
    expect(page.locator("h1")).to_have_text("Pula kości")
    page.fill('input[name="dice"]', "3")
    page.fill("#dice-input", "1 4 6")
    page.click("#roll-button")
    expect(page.locator(".steps .step-text").first).to_have_text(
        "kości: 3 kości, wymagany rzut 4+")
    expect(page.locator("#roll h2")).to_have_text("Co się stało")
    shot(page, "roll-polish-phone")
    # the choice sticks (cookie) on the next page
    page.goto(server_url + "/")
    expect(page.locator("h1")).to_have_text("Wybierz zasadę")


def test_chinese_from_the_browser_language(browser: Any, server_url: str, shot: Shot) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(viewport=PHONE, locale="zh-CN")
    try:
        page = context.new_page()
        page.goto(server_url + "/p/demo.pool")
        expect(page.locator("html")).to_have_attribute("lang", "zh")
        expect(page.locator("#odds h2")).to_have_text("精确概率")
        page.fill("#dice-input", "1 2 3 4 5 6")
        page.click("#roll-button")
        expect(page.locator(".steps .step-text").first).to_have_text("骰子：6 颗骰子，需要 4+")
        shot(page, "roll-chinese-phone")
    finally:
        context.close()


def _typed_replay(page: Any) -> None:
    """Roll virtual dice with a seed, then type the same dice: the same outcome."""
    from playwright.sync_api import expect

    page.fill('input[name="_seed"]', "11")
    page.click("#roll-button")
    expect(page.locator("#roll .outcome")).to_be_visible()
    outcome = page.locator("#roll .outcome dl").inner_text()
    used = page.locator("#roll .replay").inner_text().rsplit(":", 1)[1].strip()
    page.fill('input[name="_seed"]', "")
    page.fill("#dice-input", used.replace(",", " "))
    page.click("#roll-button")
    expect(page.locator("#roll .replay")).not_to_contain_text("11.")
    assert page.locator("#roll .outcome dl").inner_text() == outcome


@pytest.mark.parametrize(("proc", "fill"), [("fow.shoot", {}), ("asl.ift", {"fp": "8"})])
def test_real_games_with_typed_dice_in_polish(page: Any, server_url: str, shot: Shot,
                                              proc: str, fill: dict[str, str]) -> None:
    from warroom import api
    from warroom.errors import UsageError

    try:
        api.registry().procedure(proc)
    except UsageError:
        pytest.skip(f"{proc} is not registered yet")
    page.goto(f"{server_url}/p/{proc}?lang=pl")
    for name, value in fill.items():
        page.fill(f'input[name="{name}"]', value)
        page.press(f'input[name="{name}"]', "Tab")
    page.wait_for_selector("#odds table")
    _typed_replay(page)
    shot(page, f"{proc.replace('.', '-')}-polish-phone")


def test_compare_and_desktop_screenshots(browser: Any, server_url: str, shot: Shot) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(viewport=DESKTOP, locale="en-GB")
    try:
        page = context.new_page()
        page.goto(server_url + "/")
        shot(page, "index-desktop")
        page.goto(server_url + "/p/demo.pool?dice=8&reroll=misses&_sent=1&_dice=")
        page.fill("#dice-input", "1 2 3 4 5 6 6 6 1 4 5")
        page.click("#roll-button")
        expect(page.locator(".outcome-successes")).to_have_text("7")
        shot(page, "odds-roll-desktop")
        page.goto(server_url + "/compare/demo.pool?n=2&s0._sent=1&s0._name=Fire%20now"
                  "&s0.dice=4&s1._sent=1&s1._name=Wait%20for%20the%20second%20platoon"
                  "&s1.dice=8")
        expect(page.locator('.compare-table td[title="255/256"]')).to_be_visible()
        page.fill('input[name="s1.dice"]', "6")
        page.press('input[name="s1.dice"]', "Tab")
        expect(page.locator('.compare-table td[title="63/64"]')).to_be_visible()
        shot(page, "compare-desktop")
        page.click("button.add-set")
        expect(page.locator("fieldset.set")).to_have_count(3)
        page.set_viewport_size(PHONE)
        shot(page, "compare-phone")
    finally:
        context.close()


def test_long_exact_odds_say_they_are_being_worked_out(page: Any, server_url: str) -> None:
    from playwright.sync_api import expect

    page.goto(server_url + "/p/asl.ift_on_stack?lang=en")
    busy = page.locator("#odds-busy")
    expect(busy).to_be_hidden()
    # six units with two leaders and a K/ result: seconds of exact odds
    page.select_option('select[name="result"]', "K/1")
    page.fill('input[name="units"]',
              "squad:7:3,leader:8:-1:elr=3,hs:6:2:broken,squad:6,leader:9:-2,hs:5")
    page.press('input[name="units"]', "Tab")
    expect(busy).to_be_visible()
    expect(busy).to_have_text("Working out the exact odds…")
    expect(busy).to_be_hidden(timeout=60_000)
    expect(page.locator('#odds td[title]').first).to_be_visible()


def test_a_written_format_offers_its_examples(page: Any, server_url: str) -> None:
    from playwright.sync_api import expect

    page.goto(server_url + "/p/fow.shoot_mixed?lang=en")
    teams = page.locator('input[name="teams"]')
    # the browser links the field to its suggestions (the schema's examples)
    options = teams.evaluate("el => Array.from(el.list.options).map(o => o.value)")
    assert "tank:6:gt,tank:5/3,infantry" in options and len(options) >= 5
    # picking one (as a player would from the list) updates the exact odds
    teams.fill("tank:6:gt,tank:5/3,infantry")
    teams.press("Tab")
    expect(page.locator('#odds td[title]').first).to_be_visible()
    expect(page.locator("#odds")).not_to_contain_text("error")


def test_a_question_too_large_for_exact_odds_shows_an_estimate(page: Any,
                                                               server_url: str) -> None:
    from playwright.sync_api import expect

    page.goto(server_url + "/p/fow.shoot_mixed?lang=en")
    page.fill('input[name="weapons"]', "12:10:3,12:2:6,12:7:4")
    page.fill('input[name="teams"]', "tank:6:gt,tank:5/3,soft")
    page.press('input[name="teams"]', "Tab")
    expect(page.locator("#odds h2")).to_have_text("Estimated odds", timeout=30_000)
    expect(page.locator("#odds .note.estimate")).to_contain_text("simulated rolls")
    expect(page.locator("#odds td").first).to_be_visible()
