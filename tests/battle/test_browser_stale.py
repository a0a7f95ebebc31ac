"""Issue 31 item 2 on two phones (390 x 844): a write by B to another unit does not
refuse A's Roll; B's change to A's target does, in place: no reload, the Roll button
where it was on the screen, the typed dice kept, and B's change shown in A's words."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.battle.test_browser_battle import in_browser
from tests.battle.test_browser_two_phones import pick, two_devices, type_dice
from tests.web.conftest import SCREENSHOTS

pytestmark = [pytest.mark.browser, pytest.mark.slow]

UNITS = {  # each side's units: name -> the example force's profile it is added from
    "A": {"Shermans": "Shermans"},
    "B": {"Panthers": "Panthers", "Grenadiers": "Rifle platoon"},
}

def test_only_a_real_conflict_refuses_a_roll_and_the_refusal_keeps_the_place(
        server_url: str) -> None:
    in_browser(lambda browser, _page: stale(browser, server_url))


def _ready(page: Any) -> tuple[str, float]:
    """Shermans at the Panthers, dice typed, the Roll button scrolled to mid-screen:
    the dice and where the button sits on the screen."""
    pick(page, ["Shermans"], "Panthers", "fow.shoot")
    dice = type_dice(page)
    page.evaluate("""() => {
        const roll = document.getElementById("do-roll");
        const top = roll.getBoundingClientRect().top + window.scrollY;
        window.scrollTo(0, Math.max(0, top - window.innerHeight / 2));
    }""")
    box = page.locator("#do-roll").bounding_box()
    assert box is not None
    return dice, box["y"]


def stale(browser: Any, server_url: str) -> None:
    from playwright.sync_api import expect

    phones, errors = two_devices(browser)
    a = phones["A"]
    try:
        made = a.request.post(f"{server_url}/api/v1/battles",
                              data={"game": "fow", "name": "Stale"}).json()
        api = f"{server_url}/api/v1/battles/{made['id']}"
        keys = made["keys"]
        for side, units in UNITS.items():
            for name, profile in units.items():
                assert a.request.post(f"{api}/units?key={keys[side]}", data={
                    "side": side, "name": name, "from": f"example:fow:{profile}"}).ok
        a.goto(server_url + made["links"]["A"])
        drawn = int(a.locator("#position").get_attribute("data-counter") or 0)

        # 1. B edits another unit (its Grenadiers) meanwhile: A's Roll is recorded
        dice, _y = _ready(a)
        r = a.request.post(f"{api}/edit?key={keys['B']}",
                           data={"unit": "Grenadiers", "stats": {"teams": 5}})
        assert r.ok, r.text()
        expect(a.locator("#changed")).to_be_visible(timeout=12_000)  # A sees a change
        with a.expect_navigation(timeout=30_000):  # recorded: the page comes back with it
            a.click("#do-roll")
        newest = a.locator("#log li").first
        expect(newest).to_have_attribute("data-kind", "resolved")
        assert newest.locator(".die").all_inner_texts() == dice.split()
        log = a.request.get(f"{api}/log?key={keys['A']}").json()
        assert log[-1]["kind"] == "resolved" and log[-1]["seen"] == drawn
        assert log[-2]["kind"] == "unit_edited"  # B's edit stays, before A's roll

        # 2. B changes A's target: A's Roll is refused where A is, dice kept
        dice, y = _ready(a)
        scrolled = a.evaluate("window.scrollY")
        assert scrolled > 0
        a.evaluate("window.__same_page = true")
        r = a.request.post(f"{api}/mark?key={keys['B']}",
                           data={"unit": "Panthers", "marker": "gone_to_ground"})
        assert r.ok, r.text()
        expect(a.locator("#changed")).to_be_visible(timeout=12_000)
        a.click("#do-roll")
        notice = a.locator("[data-refused]")
        expect(notice).to_contain_text("in what this action reads: Panthers")
        expect(notice.locator("#refused-changes li")).to_have_text(
            re.compile(r"^#\d+ side B: Panthers: gone to ground$"))
        assert a.evaluate("window.__same_page") is True  # no reload
        expect(a.locator("#do-dice")).to_have_value(dice)
        # the form reads the Panthers as they are now
        expect(a.locator('#do-form [name="p.gone_to_ground"]')).to_be_checked()
        # and its exact odds came in (after an estimate) with the Roll button held still
        expect(a.locator("#do-form #odds h2")).to_have_text(re.compile("Exact odds"),
                                                              timeout=20_000)
        a.wait_for_timeout(500)
        box = a.locator("#do-roll").bounding_box()
        assert box is not None and abs(box["y"] - y) <= 2, (box, y)  # the same place
        assert a.evaluate("window.scrollY") > 0
        shown = notice.bounding_box()  # the refusal is in view, just below the form
        assert shown is not None and 0 <= shown["y"] < 844, shown
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        a.screenshot(path=str(SCREENSHOTS / "battle-refused-phone.png"))
        # the section is the battle as it is now: B's mark is in A's log and table
        expect(a.locator("#log li").first).to_have_attribute("data-kind", "marked")
        expect(a.locator("#changed")).to_be_hidden()
        assert a.request.get(f"{api}/log?key={keys['A']}").json()[-1]["kind"] == "marked"
        # having seen the change, Roll again records it
        with a.expect_navigation(timeout=30_000):
            a.click("#do-roll")
        newest = a.locator("#log li").first
        expect(newest).to_have_attribute("data-kind", "resolved")
        assert newest.locator(".die").all_inner_texts() == dice.split()
    finally:
        for page in phones.values():
            page.context.close()
    assert not errors, errors
