"""Issue 29's "done", in a real headless Chromium at 390 x 844: two phones set up a battle
of each game with nothing typed as ``key=value`` (each side's units from a roster it
uploads, the force library or the short form in the game's own words), then play
through the battle page's Resolve form, the odds shown before Roll and the result in
view after it:

* FoW, from a BattleScribe roster each: a shooting step with two platoons, an assault
  and a morale test;
* ASL: a fire group of two stacks (squads, a leader and an MMG) into a stack;
* BKC: a command roll, combined fire and an assault with supporting units.

One browser and two contexts a game (the three games are three tests)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.battle.test_browser_battle import in_browser
from tests.battle.test_browser_two_phones import PHONE, odds_text, pick, two_devices, type_dice
from warroom.units.importers import example_roster

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# The ASL stacks side A adds by the short form: (counter as printed, how many); the
# MMG fires with the group (asl.fire_group takes support weapons).
ROSTERS = Path(__file__).resolve().parents[1] / "units" / "data"
EXAMPLE_ROSTER = example_roster("example:fow.ros")
ASL_STACKS: dict[str, list[tuple[str, int]]] = {
    "1st squads": [("4-6-7", 2), ("8-1", 1), ("MMG 4-10 B11", 1)],
    "2nd squad": [("4-6-7", 1)],
}


GAMES = ("fow", "asl", "bkc")


@pytest.mark.parametrize("game", GAMES)
def test_two_phones_play_every_game_from_their_armies(server_url: str, game: str) -> None:
    """One game a test (``make test`` spreads them over its workers)."""
    in_browser(lambda browser, _page: done(browser, server_url, game))


def done(browser: Any, server_url: str, game: str) -> None:
    play = {"fow": fow, "asl": asl, "bkc": bkc}[game]
    phones, errors = two_devices(browser, 15_000)
    try:
        made = phones["A"].request.post(f"{server_url}/api/battles", data={
            "game": game, "name": f"Done, {game}"}).json()
        for side in "AB":
            phones[side].goto(server_url + made["links"][side])
        play(phones["A"], phones["B"])
        api = f"{server_url}/api/v1/battles/{made['id']}?key={made['keys']['A']}"
        state = phones["A"].request.get(api).json()
        # nothing typed as key=value: every unit a typed profile with no free stats
        assert state["units"] and all(u["stats"] == {} and u["profile"]
                                      for u in state["units"]), state["units"]
    finally:
        for page in phones.values():
            page.context.close()
    assert not errors, errors


# -- adding units ---------------------------------------------------------------------------

def from_library(page: Any, force: str, untick: list[str], expect_unit: str) -> None:
    """One tap adds the ticked units of a force from the library."""
    from playwright.sync_api import expect

    form = page.locator(f'#library form[data-force="{force}"]')
    expect(form).to_be_visible()
    for name in untick:
        form.locator(f'input[value="{name}"]').uncheck()
    form.locator("button.add-force").click()
    expect(page.locator(f'tr[data-unit="{expect_unit}"]')).to_be_visible()


def upload(page: Any, roster: Path, expect_unit: str) -> None:
    """A roster file uploaded on the battle page: its platoons join the side."""
    from playwright.sync_api import expect

    page.evaluate("document.getElementById('paste').open = true")
    page.set_input_files("#paste-force input[type=file]", str(roster))
    page.click("#paste-add")
    expect(page.locator(f'tr[data-unit="{expect_unit}"]')).to_be_visible()


def short_form(page: Any, fields: list[tuple[str, str]], selects: list[tuple[str, str]],
               name: str) -> None:
    """A unit by the short form: its name, then each field as a player fills it."""
    from playwright.sync_api import expect

    page.evaluate("document.getElementById('new-unit-box').open = true")
    form = page.locator("#new-unit")
    form.locator('[name="name"]').fill(name)
    for field, value in selects:
        form.locator(f'[name="{field}"]').select_option(value)
    for field, value in fields:
        form.locator(f'[name="{field}"]').fill(value)
    form.locator("#add-profile").click()
    expect(page.locator(f'tr[data-profile="{name}"]')).to_be_visible()


def follow(page: Any, unit: str) -> None:
    """The other phone has the new unit (it follows by itself); reload for its forms."""
    from playwright.sync_api import expect

    expect(page.locator("#units")).to_contain_text(unit, timeout=12_000)
    page.reload()


def mark(page: Any, unit: str, marker: str, value: str) -> None:
    """A marker set by the battle page's marker form."""
    from playwright.sync_api import expect

    page.select_option("#mark-unit", unit)
    page.select_option("#mark-marker", marker)
    page.fill("#mark-value", value)
    page.click("#mark")
    expect(page.locator(f'tr[data-unit="{unit}"] [data-marker="{marker}"]')).to_be_visible()


# -- one step through the Resolve form --------------------------------------------------

def resolve(page: Any, other: Any, units: list[str], target: str, proc: str,
            filled: dict[str, str] | None = None, typed: bool = True) -> None:
    """Pick the acting units, the target and the procedure; the values come from the
    units (``filled``: fields and the values the profiles give); the odds are shown
    before Roll; after it the result is the newest log line, in view, on both phones."""
    from playwright.sync_api import expect

    seen = other.locator("#log li[data-kind=resolved]").count()
    pick(page, units, target, proc)
    for unit in units:
        expect(page.locator("#do-filled")).to_contain_text(unit)
    for field, value in (filled or {}).items():
        expect(page.locator(f'#do-form [name="{field}"]')).to_have_value(value)
    assert "%" in odds_text(page)  # the odds, before anyone rolls
    dice = type_dice(page) if typed else ""
    page.click("#do-roll")
    newest = page.locator("#log li").first
    expect(newest).to_have_attribute("data-kind", "resolved")
    expect(newest).to_have_attribute("data-procedure", proc)
    expect(newest.locator(".who")).to_contain_text(" + ".join(units))
    if typed:
        assert newest.locator(".die").all_inner_texts() == dice.split()
    page.wait_for_function("document.activeElement && document.activeElement.matches('#log li')")
    box = newest.bounding_box()
    assert box is not None and 0 <= box["y"] < PHONE["height"], box
    expect(other.locator("#log li[data-kind=resolved]")).to_have_count(seen + 1,
                                                                        timeout=12_000)
    other.reload()


# -- the three games ------------------------------------------------------------------------

def fow(a: Any, b: Any) -> None:
    """Each player uploads the army list they keep in BattleScribe (A an American
    company in the older value= form, B the German example roster)."""
    upload(a, ROSTERS / "fow_old.ros", "Armored Rifle Platoon")
    follow(b, "Armored Rifle Platoon")
    upload(b, EXAMPLE_ROSTER, "1st Zug")
    follow(a, "1st Zug")
    # a shooting step with two platoons at the Panzer IVs
    resolve(a, b, ["Tank Platoon", "Armored Rifle Platoon"], "1st Zug", "fow.shoot_mixed")
    # the Panzer IVs assault the riflemen: both sides' teams from their profiles
    resolve(b, a, ["1st Zug"], "Armored Rifle Platoon", "fow.assault")
    # the riflemen lost six of their eight teams (the marker form): 2 left, under half,
    # and a team lost this phase: its morale check rolls
    mark(a, "Armored Rifle Platoon", "destroyed", "6")
    resolve(a, b, ["Armored Rifle Platoon"], "", "fow.morale", {"p.start": "8", "p.left": "2"})


def asl(a: Any, b: Any) -> None:
    for name, counters in ASL_STACKS.items():
        fields = [("elr", "3")]
        for i, (text, count) in enumerate(counters):
            fields += [(f"c{i}.text", text), (f"c{i}.count", str(count))]
        short_form(a, fields, [], name)
        a.reload()
    follow(b, "2nd squad")
    from_library(b, "example:asl", ["Firegroup"], "Target stack")
    follow(a, "Target stack")
    resolve(a, b, list(ASL_STACKS), "Target stack", "asl.fire_group",
            {"p.target": "4-4-7,2-4-7:hs,8-0"})


def bkc(a: Any, b: Any) -> None:
    from_library(a, "example:bkc", ["AT gun"], "HQ")
    follow(b, "HQ")
    short_form(b, [("count", "2"), ("a0.value", "4"), ("hits", "3")],
               [("type", "infantry"), ("save", "0")], "Grenadiers")
    follow(a, "Grenadiers")
    resolve(a, b, ["HQ"], "", "bkc.command", {"p.cv": "9"}, typed=False)
    # the Tanks assault (the first acting unit in the list: in the open, as the card
    # lets armour); the Infantry supports them, one extra hit on the card
    resolve(a, b, ["Tanks", "Infantry"], "Grenadiers", "bkc.assault",
            {"p.attacker": "armour", "p.attacker_supporting": "infantry"})
    # combined fire: the three Tanks (attack 3 each) and the Infantry (3*: soft targets)
    # (after it the Grenadiers may be destroyed: an eliminated unit is no target any more)
    resolve(a, b, ["Tanks", "Infantry"], "Grenadiers", "bkc.fire",
            {"p.attackers": "3,3,3,3"})
