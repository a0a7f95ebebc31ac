"""Issue 31, items 4 and 5, in a real headless Chromium at 390 px in English, Polish and
Chinese: the started page hands out each link in full with a QR code (an inline
``<svg>``) and a copy button that copies it; the battle page's log names the rule by
its title and both platoons of a step by two, and its luck card says how unusual each
side's totals are."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.battle.test_browser_battle import in_browser
from tests.web.conftest import SCREENSHOTS

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PHONE = {"width": 390, "height": 844}
TITLES = {"en": "Several weapons at a mixed platoon",
          "pl": "Kilka rodzajów broni przeciw mieszanemu plutonowi", "zh": "多种武器射击混编排"}
"""``fow.shoot_mixed``'s title in each language (as its catalogs give it)."""


def test_the_started_page_hands_out_full_links_qr_codes_and_copies(server_url: str) -> None:
    in_browser(lambda browser, _page: started(browser, server_url))


def started(browser: Any, server_url: str) -> None:
    from playwright.sync_api import expect

    from tests.web.test_phone import Visit

    for lang in ("en", "pl", "zh"):
        v = Visit(browser, PHONE, lang)
        try:
            v.context.grant_permissions(["clipboard-read", "clipboard-write"],
                                        origin=server_url)
            page = v.page
            v.open(f"{server_url}/battles?lang={lang}")
            page.select_option("#new-game", "asl")
            page.fill("#new-name", f"Share {lang}")
            page.click("#new-battle")
            expect(page.locator("h1")).to_contain_text(f"Share {lang}")
            links = page.locator("a[data-share]")
            expect(links).to_have_count(3)
            for i in range(3):
                href = links.nth(i).get_attribute("href")
                assert re.fullmatch(rf"{re.escape(server_url)}/battles/\w+/[\w-]+", href), href
                assert links.nth(i).inner_text() == href  # the address shown whole
            qr = page.locator(".qr-code svg")
            expect(qr).to_have_count(3)
            box = qr.first.bounding_box()
            assert box is not None and box["width"] >= 120 and box["x"] + box["width"] <= 390
            # the server listens on 127.0.0.1 here: the page says phones cannot reach it
            expect(page.locator("#share-local")).to_contain_text("0.0.0.0")
            v.check("the started page", axe=lang != "en")
            if lang == "en":
                SCREENSHOTS.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(SCREENSHOTS / "battle-started-phone.png"),
                                full_page=True)

            # copy side B's link: the clipboard holds it and the button says so
            item = page.locator('li[data-share-item="B"]')
            item.locator("button.copy").click()
            expect(item.locator(".copy-status")).to_have_text(
                {"en": "Copied", "pl": "Skopiowano", "zh": "已复制"}[lang])
            got = page.evaluate("navigator.clipboard.readText()")
            assert got == item.locator("a").get_attribute("href")
            # without the clipboard API (plain http from a phone) the old way copies it
            page.evaluate("Object.defineProperty(navigator, 'clipboard', {value: undefined})")
            item = page.locator('li[data-share-item="view"]')
            item.locator("button.copy").click()
            expect(item.locator(".copy-status")).not_to_have_text("")
            assert not v.errors, v.errors
        finally:
            v.close()


def test_the_log_names_the_rule_and_both_platoons_and_the_luck_says_how_unusual(
        server_url: str) -> None:
    in_browser(lambda browser, page: log_and_luck(browser, page, server_url))


def log_and_luck(browser: Any, page: Any, server_url: str) -> None:
    from playwright.sync_api import expect

    from tests.web.test_phone import Visit

    made = page.request.post(f"{server_url}/api/battles",
                             data={"game": "fow", "name": "Log"}).json()
    api = f"{server_url}/api/battles/{made['id']}"
    for side, units in (("A", ["Shermans", "Rifle platoon"]), ("B", ["Panthers"])):
        r = page.request.post(f"{api}/force?key={made['keys'][side]}",
                              data={"side": side, "force": "example:fow", "units": units})
        assert r.ok, r.text()
    r = page.request.post(f"{api}/do?key={made['keys']['A']}", data={
        "procedure": "fow.shoot_mixed",
        "params": {"units": "Shermans,Rifle platoon", "target": "Panthers"}})
    assert r.ok, r.text()
    for lang in ("en", "pl", "zh"):
        v = Visit(browser, PHONE, lang)
        try:
            v.open(f"{server_url}{made['links']['A']}?lang={lang}")
            line = v.page.locator('#log li[data-kind="resolved"]').first
            expect(line.locator(".rule")).to_have_text(TITLES[lang])
            expect(line.locator(".who")).to_have_text("Shermans + Rifle platoon → Panthers")
            assert "fow.shoot_mixed" not in line.inner_text()
            assert not re.search(r"\w=\w", line.locator(".result").inner_text())
            # the luck card comes back with how unusual each total is
            luck = v.page.locator('#luck[data-report="yes"]')
            expect(luck).to_be_visible()
            cells = luck.locator('tr[data-side="A"] td.percentile')
            assert cells.count() >= 1
            assert all(re.fullmatch(r"(≈ )?\d+([.,]\d)?( ± \d+([.,]\d)?)?", t)
                       for t in cells.all_inner_texts()), cells.all_inner_texts()
            assert "0.00" not in luck.inner_text()
            v.check("the battle page's log and luck", axe=lang == "zh")
            if lang == "en":
                SCREENSHOTS.mkdir(parents=True, exist_ok=True)
                v.page.locator("#luck-card").screenshot(
                    path=str(SCREENSHOTS / "battle-luck-phone.png"))
                v.page.locator("section.card", has=v.page.locator("#log")).screenshot(
                    path=str(SCREENSHOTS / "battle-log-phone.png"))
        finally:
            v.close()
