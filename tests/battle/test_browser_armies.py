"""Armies on the phone (issue 29, item 4), in a real headless Chromium at 390 x 844: two
phones set up a Flames of War battle with nothing typed as ``key=value``. Side A adds
two platoons of the example force from the force library in one tap; side B adds the
third from the library (A's are left unticked for it), a gun platoon by the short form
and edits a platoon's profile in one save; then A plays a shooting step with its two
platoons through the Resolve form. Every new form fits 390 px in English, Polish and
Chinese, with tap targets of 44 px and more."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.battle.test_browser_battle import in_browser
from tests.battle.test_browser_two_phones import PHONE, odds_text, pick, two_devices
from tests.web.conftest import SCREENSHOTS

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TAP = 44
"""The smallest tap target, in CSS pixels."""


def test_two_phones_bring_their_armies_and_shoot(server_url: str) -> None:
    in_browser(lambda browser, _page: armies(browser, server_url))


def armies(browser: Any, server_url: str) -> None:
    from playwright.sync_api import expect

    phones, errors = two_devices(browser, 15_000)
    try:
        a, b = phones["A"], phones["B"]
        made = a.request.post(f"{server_url}/api/battles",
                              data={"game": "fow", "name": "Armies"}).json()
        a.goto(server_url + made["links"]["A"])
        b.goto(server_url + made["links"]["B"])

        # A: the library is open while A has no units; one tap adds the ticked platoons
        force = a.locator('#library form[data-force="example:fow"]')
        expect(force).to_be_visible()
        force.locator('input[value="Panthers"]').uncheck()
        force.locator("button.add-force").click()
        expect(a.locator("#units")).to_contain_text("Rifle platoon")
        expect(a.locator('tr[data-profile="Shermans"]')).to_contain_text(
            "75mm gun (example): 80 cm, ROF 2/1, AT 10, FP 3+")

        # B: the same force, A's platoons left unticked: one tap adds the Panthers
        expect(b.locator("#units")).to_contain_text("Rifle platoon", timeout=12_000)
        b.reload()
        force = b.locator('#library form[data-force="example:fow"]')
        expect(force.locator('input[value="Shermans"]')).not_to_be_checked()
        expect(force.locator('input[value="Panthers"]')).to_be_checked()
        force.locator("button.add-force").click()
        expect(b.locator('tr[data-unit="Panthers"] td').first).to_have_text("B")

        # B: a gun platoon by the short form, in the game's own words
        b.locator("#new-unit-box > summary").click()
        form = b.locator("#new-unit")
        form.locator('[name="name"]').fill("PaK 40")
        form.locator('[name="skill"]').select_option("veteran")
        form.locator('[name="t0.type"]').select_option("gun")
        # armour is asked of tanks only
        expect(form.locator('[name="t0.front"]')).to_be_hidden()
        for field, value in (("t0.count", "2"), ("t0.w0.name", "7.5cm PaK40"),
                             ("t0.w0.range_cm", "80"), ("t0.w0.rof_halted", "2"),
                             ("t0.w0.rof_moving", "1"), ("t0.w0.at", "12"),
                             ("t0.w0.firepower", "3")):
            form.locator(f'[name="{field}"]').fill(value)
        form.locator("#add-profile").click()
        expect(b.locator('tr[data-profile="PaK 40"]')).to_contain_text(
            "7.5cm PaK40: 80 cm, ROF 2/1, AT 12, FP 3+")

        # B: one save changes the Panthers' profile: one event, one log line
        edit = b.locator('details[data-edit="Panthers"]')
        edit.locator("> summary").click()
        edit.locator('[name="t0.count"]').fill("3")
        edit.locator("button.save-profile").click()
        expect(b.locator("#log li").first).to_have_attribute("data-kind", "unit_edited")
        expect(b.locator("#log li").first).to_contain_text("Panthers: new profile")
        expect(b.locator('tr[data-profile="Panthers"]')).to_contain_text("3× Panther")
        log = b.locator("#log li")
        assert [log.nth(i).get_attribute("data-kind") for i in range(log.count())] == [
            "unit_edited", "unit_added", "unit_added", "unit_added", "unit_added",
            "created"]

        # A: a shooting step with both platoons at the Panthers, values from the profiles
        expect(a.locator("#units")).to_contain_text("PaK 40", timeout=12_000)
        a.reload()
        pick(a, ["Shermans", "Rifle platoon"], "Panthers", "fow.shoot_mixed")
        expect(a.locator("#do-filled")).to_contain_text("Shermans")
        expect(a.locator("#do-filled")).to_contain_text("Rifle platoon")
        assert "%" in odds_text(a)
        a.click("#do-roll")
        newest = a.locator("#log li").first
        expect(newest).to_have_attribute("data-kind", "resolved")
        expect(newest).to_have_attribute("data-procedure", "fow.shoot_mixed")
        expect(newest.locator(".who")).to_have_text("Shermans + Rifle platoon → Panthers")
        expect(b.locator("#log li[data-kind=resolved]")).to_have_count(1, timeout=12_000)
        nothing_typed = a.request.get(
            f"{server_url}/api/v1/battles/{made['id']}?key={made['keys']['A']}").json()
        assert all(u["stats"] == {} and u["profile"] for u in nothing_typed["units"])

        narrow(browser, server_url + made["links"]["B"])
    finally:
        for page in phones.values():
            page.context.close()
    assert not errors, errors


def narrow(browser: Any, link: str) -> None:
    """Every adder open at 390 px in each language: no sideways scroll, no English left,
    no console error, every control of the new forms at least 44 px tall (a checkbox
    through its label), and axe-core once."""
    from tests.web.test_phone import Visit

    for lang in ("en", "pl", "zh"):
        v = Visit(browser, PHONE, lang)
        try:
            v.open(f"{link}?lang={lang}")
            if lang == "en":  # the docs' picture comes from here (WARROOM_SCREENSHOTS)
                v.page.locator("#new-unit-box > summary").click()
                SCREENSHOTS.mkdir(parents=True, exist_ok=True)
                v.page.locator("section.card", has=v.page.locator("#units")).screenshot(
                    path=str(SCREENSHOTS / "battle-armies-phone.png"))
            v.page.evaluate("document.querySelectorAll('details.adder, details.spare, "
                            "details.edit-unit').forEach(d => { d.open = true; })")
            v.check(f"the battle page's armies ({lang})", axe=lang == "pl")
            small = v.page.evaluate("""tap => [...document.querySelectorAll(
                '#units ~ * :is(input, select, button, textarea, summary)')]
                .filter(e => e.type !== 'hidden' && e.offsetParent)
                .map(e => e.type === 'checkbox' ? e.closest('label') : e)
                .filter(e => e.getBoundingClientRect().height < tap)
                .map(e => e.outerHTML.slice(0, 80))""", TAP)
            assert not small, f"{lang}: tap targets under {TAP} px: {small[:5]}"
            text = v.page.locator("#new-unit").inner_text()
            assert re.search({"en": "Team type", "pl": "Rodzaj zespołu",
                              "zh": "小组类型"}[lang], text), text[:200]
        finally:
            v.close()
