"""The battle page's Resolve form (warroom.web.resolve) over HTTP: the procedures that fit
the units picked, the values the units fill in, the odds panel, the next step's dice,
Roll, and a refused write that keeps what the player typed."""

from __future__ import annotations

import html
import re
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from warroom import api
from warroom.web import resolve


@pytest.fixture
def client(tmp_path: Path) -> Iterator[Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from fastapi.testclient import TestClient
    from warroom.web.app import create_app

    with TestClient(create_app(tmp_path / "web.db", deadline=60.0)) as c:
        yield c


@pytest.fixture
def fow(client: Any) -> dict[str, str]:
    """A FoW battle: side A's Shermans (3 dice at AT 10) against side B's 2 Panthers
    (veteran, front armour 10): the example profiles, dice and AT overridden by stats."""
    made = client.post("/api/battles", json={"game": "fow", "name": "Form"}).json()
    bid, ka, kb = made["id"], made["keys"]["A"], made["keys"]["B"]
    for side, key, name, ref, stats in (
            ("A", ka, "Shermans", "Shermans", {"dice": 3}),
            ("A", ka, "Fireflies", "Shermans", {"dice": 2, "at": 14}),
            ("B", kb, "Panthers", "Panthers", {})):
        assert client.post(f"/api/battles/{bid}/units?key={key}", json={
            "side": side, "name": name, "from": f"example:fow:{ref}",
            "stats": stats}).status_code == 200
    return {"id": bid, "A": ka, "B": kb, "base": f"/battles/{bid}/{ka}"}


HX = {"hx-request": "true"}
SHOT = "unit=Shermans&target=Panthers&procedure=fow.shoot&_for=fow.shoot|Shermans|Panthers"


def text(r: Any) -> str:
    return html.unescape(r.text)


def options(page: str, select: str) -> list[str]:
    found = re.search(rf'<select name="{select}"[^>]*>(.*?)</select>', page, re.S)
    assert found is not None, select
    return re.findall(r'<option value="([^"]*)"', found.group(1))


def test_the_procedures_that_fit_the_units() -> None:
    reg = api.registry()
    shoot, test, ift, stack, mc = (reg.procedure(p) for p in (
        "fow.shoot", "fow.test", "asl.ift", "asl.ift_on_stack", "asl.mc"))
    assert resolve.applies(shoot, 1, True) and not resolve.applies(shoot, 1, False)
    assert not resolve.applies(shoot, 2, True)  # one weapon's shot: not several units
    assert resolve.applies(reg.procedure("fow.shoot_mixed"), 2, True)
    assert resolve.applies(test, 1, False) and not resolve.applies(test, 1, True)
    assert resolve.applies(ift, 1, False) and not resolve.applies(ift, 0, False)
    assert resolve.applies(stack, 0, True) and not resolve.applies(stack, 1, False)
    assert resolve.applies(mc, 1, False) and not resolve.applies(mc, 1, True)


def test_picking_units_fills_the_form(client: Any, fow: dict[str, str]) -> None:
    base = fow["base"]
    page = text(client.get(f"{base}/resolve?unit=Shermans&target=Panthers", headers=HX))
    assert options(page, "unit") == ["Shermans", "Fireflies"]  # side A's own units
    assert options(page, "target") == ["", "Panthers"]  # the other side's
    procs = options(page, "procedure")
    assert procs[:2] == ["fow.shoot", "fow.shoot_mixed"]  # built from units, first
    assert "fow.test" not in procs  # a test is about the acting unit, not the target
    assert ">Shooting at a platoon</option>" in page  # by its title
    # the procedure page's fields, filled from the units, editable
    assert re.search(r'name="p.dice" value="3"', page)
    assert re.search(r'<option value="veteran" selected>', page)
    assert 'name="_for" value="fow.shoot|Shermans|Panthers"' in page
    assert "dice ← Shermans: its dice stat" in page  # the override
    assert "armour ← Panthers, front armour" in page  # the profile
    # the odds panel asks for the exact odds; the dice: 3 to hit first
    assert re.search(r'<section id="odds"[^>]*hx-get="[^"]*/resolve/odds\?', page)
    assert "Next: 3 more dice for to hit" in page
    # other units: what the old ones filled is filled again, a typed situation stays
    again = text(client.get(f"{base}/resolve?unit=Fireflies&target=Panthers&procedure="
                            "fow.shoot&_for=fow.shoot|Shermans|Panthers&_filled=dice,at"
                            "&p._sent=1&p.dice=3&p.at=10&p.range_cm=50", headers=HX))
    assert 'name="p.dice" value="2"' in again and 'name="p.at" value="14"' in again
    assert 'name="p.range_cm" value="50"' in again
    # several acting units: only the procedures for a shooting step are offered
    both = text(client.get(f"{base}/resolve?unit=Shermans&unit=Fireflies&target=Panthers",
                           headers=HX))
    assert options(both, "procedure") == ["fow.shoot_mixed"]


def test_the_odds_before_rolling(client: Any, fow: dict[str, str]) -> None:
    panel = text(client.get(f"{fow['base']}/resolve/odds?{SHOT}&p._sent=1", headers=HX))
    assert panel.lstrip().startswith('<section id="odds"') and "Exact odds" in panel
    # 3 dice needing 4+ to hit a veteran platoon: no hit (1/2)^3 = 1/8, all three 1/8,
    # exactly one or two hits 3/8 each
    hits = panel[panel.index("<h3>hits"):panel.index("</table>", panel.index("<h3>hits"))]
    assert re.findall(r'<th scope="row">(\d)</th>\s*<td[^>]*data-exact="([^"]+)"', hits) == [
        ("0", "1/8"), ("1", "3/8"), ("2", "3/8"), ("3", "1/8")]


def test_the_dice_step_by_step(client: Any, fow: dict[str, str]) -> None:
    def next_(dice: str, lang: str = "en") -> str:
        r = client.get(f"{fow['base']}/resolve/dice?{SHOT}&p._sent=1&dice={dice}"
                       f"&lang={lang}", headers=HX)
        found = re.search(r'id="dice-next"[^>]*>([^<]*)<', text(r))
        assert found is not None
        return found.group(1)

    assert next_("") == "Next: 3 more dice for to hit"
    assert next_("6") == "Next: 2 more dice for to hit"
    # two hits (6, 5; 4+ to hit a veteran): the armour saves, one die per hit
    assert next_("6,5,1") == "Next: 2 more dice for armour saves"
    assert next_("6,5,1,6") == "Next: 1 more die for armour saves"
    assert next_("6,5,1,6,6") == "All 5 dice entered: press Roll to record the result."
    assert next_("6,5,1,6,6,6").startswith("too many dice")
    assert next_("", "pl") == "Dalej: jeszcze 3 kości — rzut na trafienie"
    assert next_("6,5,1,6", "pl").startswith("Dalej: jeszcze 1 kość — ")
    assert next_("6,5,1", "zh").startswith("下一步：还需 2 颗骰子")


def test_roll_records_and_a_stale_roll_keeps_what_was_typed(
        client: Any, fow: dict[str, str]) -> None:
    bid, ka, kb, base = fow["id"], fow["A"], fow["B"], fow["base"]
    form = {"unit": "Shermans", "target": "Panthers", "procedure": "fow.shoot",
            "_for": "fow.shoot|Shermans|Panthers", "p._sent": "1", "p.dice": "3",
            "p.at": "10", "p.range_cm": "50", "dice": "6 6 1 2 2", "expect": "4"}
    # side B marks its Panthers meanwhile: side A's form is stale
    assert client.post(f"/api/battles/{bid}/mark?key={kb}", json={
        "unit": "Panthers", "marker": "gone_to_ground"}).status_code == 200
    r = client.post(f"{base}/resolve", data=form)
    page = text(r)
    assert r.status_code == 409 and "the battle has changed" in page
    assert 'name="p.range_cm" value="50"' in page and 'id="do-dice" value="6 6 1 2 2"' in page
    assert 'name="expect" value="5"' in page  # Roll again records it
    assert len(client.get(f"/api/battles/{bid}/log?key={ka}").json()) == 5
    r = client.post(f"{base}/resolve", data={**form, "expect": "5"}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == base
    event = client.get(f"/api/battles/{bid}/log?key={ka}").json()[-1]
    assert event["unit"] == "Shermans" and event["target"] == "Panthers"
    assert event["entered"] and event["dice"] == [6, 6, 1, 2, 2]
    # only what the player changed is explicit; the rest the battle filled, and says so
    assert event["given"]["range_cm"] == "50" and "dice" not in event["given"]
    assert event["filled"]["dice"] == "Shermans: its dice stat"
    assert event["params"]["gone_to_ground"] is False  # as the player's form said


def test_a_roll_from_a_form_filled_for_other_units_takes_the_units_values(
        client: Any, fow: dict[str, str]) -> None:
    """Roll tapped before the form of a new pick came back (a slow phone): the form still
    holds what the Shermans filled (3 dice, AT 10, ``_for`` the Shermans), the units sent
    are the Fireflies. The roll takes the Fireflies' 2 dice at AT 14 (the units' values
    are filled again), keeping the range the player typed."""
    bid, ka, base = fow["id"], fow["A"], fow["base"]
    r = client.post(f"{base}/resolve", data={
        "unit": "Fireflies", "target": "Panthers", "procedure": "fow.shoot",
        "_for": "fow.shoot|Shermans|Panthers", "_filled": "dice,at", "p._sent": "1",
        "p.dice": "3", "p.at": "10", "p.range_cm": "50", "expect": "4",
        "dice": "6 1 2 6"}, follow_redirects=False)
    assert r.status_code == 303, text(r)
    event = client.get(f"/api/battles/{bid}/log?key={ka}").json()[-1]
    # two dice to hit (6 hits the veterans at 4+, 1 misses), the hit's armour save (2:
    # 10 + 2 is below AT 14) and its firepower test (6): four dice, not the Shermans'
    # three to hit
    assert event["unit"] == "Fireflies" and event["dice"] == [6, 1, 2, 6]
    assert event["params"]["dice"] == 2 and event["params"]["at"] == 14
    assert event["given"]["range_cm"] == "50" and "dice" not in event["given"]


def test_several_acting_units_need_their_profiles(client: Any, fow: dict[str, str],
                                                  tmp_path: Path) -> None:
    """Stats-only units (a battle stored before profiles were required) cannot act
    together; the page says so in the player's language."""
    from tests.battle.fakes import stored_unit
    from warroom.battle.core import Battles
    from warroom.battle.store import open_store

    old = Battles(open_store(str(tmp_path / "web.db")))
    for side, name in (("A", "Stuarts"), ("A", "Greyhounds"), ("B", "Pumas")):
        stored_unit(old, fow["id"], side, name, {"dice": 2, "teams": 2})
    old.store.close()
    r = client.post(f"{fow['base']}/resolve?lang=pl", data={
        "unit": ["Stuarts", "Greyhounds"], "target": "Pumas",
        "procedure": "fow.shoot_mixed", "expect": "7"})
    assert r.status_code == 422
    assert "kilka jednostek działa razem tylko z profilami" in text(r)
    assert 'value="Greyhounds" selected' in text(r)


def test_several_units_with_profiles_shoot_in_one_step(client: Any) -> None:
    """Two platoons from the example force fire at one target as one event: the form is
    filled from both profiles (one weapon entry per platoon) and Roll records one event
    naming both acting units."""
    made = client.post("/api/battles", json={"game": "fow", "name": "Step"}).json()
    bid, ka, kb = made["id"], made["keys"]["A"], made["keys"]["B"]
    for side, key, name, ref in (("A", ka, "Shermans", "example:fow:Shermans"),
                                 ("A", ka, "Cats", "example:fow:Panthers"),
                                 ("B", kb, "Rifles", "example:fow:Rifle platoon")):
        assert client.post(f"/api/battles/{bid}/units?key={key}", json={
            "side": side, "name": name, "from": ref}).status_code == 200
    base = f"/battles/{bid}/{ka}"
    choice = {"unit": ["Shermans", "Cats"], "target": "Rifles",
              "procedure": "fow.shoot_mixed"}
    page = text(client.get(f"{base}/resolve", params=choice, headers=HX))
    weapons = re.search(r'name="p.weapons"[^>]*value="([^"]*)"', page)
    assert weapons is not None and len(weapons.group(1).split(",")) >= 2, page[:2000]
    assert "Shermans" in page and "Cats" in page
    r = client.post(f"{base}/resolve", data={**choice, "expect": "4"},
                    follow_redirects=False)
    assert r.status_code == 303, text(r)[:3000]
    event = client.get(f"/api/battles/{bid}/log?key={ka}").json()[-1]
    assert event["kind"] == "resolved" and event["units"] == ["Shermans", "Cats"]
    assert event["procedure"] == "fow.shoot_mixed" and event["target"] == "Rifles"


def test_past_the_deadline_the_form_shows_the_estimate_then_the_exact_odds(
        tmp_path: Path) -> None:
    """The procedure page's deadline path: a slow question (BKC combined fire of three
    20-attack units) shows the estimate and asks the battle's odds route again."""
    from fastapi.testclient import TestClient

    from warroom.serving import OddsCache, Serving
    from warroom.web.app import create_app

    app = create_app(tmp_path / "b.db", serving=Serving(cache=OddsCache(), deadline=0.01))
    with TestClient(app) as c:
        made = c.post("/api/battles", json={"game": "bkc"}).json()
        bid, ka, kb = made["id"], made["keys"]["A"], made["keys"]["B"]
        for side, key, profile in (  # three units of 20 attacks against an armoured one
                ("A", ka, {"name": "Guns", "type": "artillery", "count": 3,
                           "attack": ["20"], "hits": 3}),
                ("B", kb, {"name": "Bunker", "type": "afv", "hits": 10, "save": 4,
                           "armoured": True})):
            assert c.post(f"/api/battles/{bid}/units?key={key}", json={
                "side": side, "profile": profile}).status_code == 200
        query = ("unit=Guns&target=Bunker&procedure=bkc.fire&_for=bkc.fire|Guns|Bunker"
                 "&p._sent=1&p.suppressed=true&p.half_range=true&p.flank=true")
        r = c.get(f"/battles/{bid}/{ka}/resolve/odds?{query}", headers=HX)
        assert r.status_code == 200 and "<h2>Estimated odds</h2>" in r.text
        follow = re.search(r'hx-get="([^"]+)" hx-trigger="load"', r.text)
        assert follow is not None
        url = html.unescape(follow.group(1))
        assert url.startswith(f"/battles/{bid}/{ka}/resolve/odds?") and "_wait=1" in url
        assert "p.flank=true" in url and "unit=Guns" in url
        for _ in range(40):  # each follow-up waits up to 3 s for the exact odds
            r = c.get(url, headers=HX)
            if "Exact odds</h2>" in r.text:
                break
        assert "Exact odds</h2>" in r.text and "hx-trigger" not in r.text


def test_units_no_procedure_fits(client: Any) -> None:
    made = client.post("/api/battles", json={"game": "demo"}).json()
    bid, ka = made["id"], made["keys"]["A"]
    for name in ("Elefants", "Tigers"):
        assert client.post(f"/api/battles/{bid}/units?key={ka}", json={
            "side": "A", "name": name, "stats": {"dice": 3}}).status_code == 200
    page = text(client.get(f"/battles/{bid}/{ka}/resolve?unit=Elefants&unit=Tigers",
                           headers=HX))
    # the dice pool takes one unit at a time: nothing to offer, and the form says so
    assert "No procedure of this game fits these units: pick others." in page
    assert 'id="do-procedure"' not in page and 'id="do-roll"' not in page
    one = text(client.get(f"/battles/{bid}/{ka}/resolve?unit=Elefants&lang=zh", headers=HX))
    assert options(one, "procedure") == ["demo.pool"] and "骰" in one


def test_the_defenders_supporting_units_are_picked_on_the_form(client: Any) -> None:
    """A BKC assault: the form offers the target's own side's other units as supporters
    (an eliminated one not), the odds and Roll take the ones picked, and the recorded
    event names them; a procedure without supporters offers none."""
    made = client.post("/api/battles", json={"game": "bkc", "name": "Ridge"}).json()
    bid, ka, kb = made["id"], made["keys"]["A"], made["keys"]["B"]
    for side, key, name, ref in (("A", ka, "Infantry", "Infantry"),
                                 ("B", kb, "Grenadiers", "Infantry"),
                                 ("B", kb, "Pak", "AT gun"),
                                 ("B", kb, "Gone", "Infantry")):
        assert client.post(f"/api/battles/{bid}/units?key={key}", json={
            "side": side, "name": name, "from": f"example:bkc:{ref}"}).status_code == 200
    assert client.post(f"/api/battles/{bid}/mark?key={kb}", json={
        "unit": "Gone", "marker": "eliminated"}).status_code == 200
    base = f"/battles/{bid}/{ka}"
    choice = {"unit": "Infantry", "target": "Grenadiers", "procedure": "bkc.assault"}
    page = text(client.get(f"{base}/resolve", params=choice, headers=HX))
    assert options(page, "support") == ["Pak"]  # the eliminated platoon supports nobody
    picked = text(client.get(f"{base}/resolve", params={**choice, "support": "Pak"},
                             headers=HX))
    assert re.search(r'<option value="Pak" selected>', picked)
    assert "support=Pak" in picked  # the odds panel asks with the supporter
    r = client.post(f"{base}/resolve", data={**choice, "support": "Pak", "expect": "5"},
                    follow_redirects=False)
    assert r.status_code == 303, text(r)[:3000]
    event = client.get(f"/api/battles/{bid}/log?key={ka}").json()[-1]
    assert event["procedure"] == "bkc.assault" and event["support"] == ["Pak"]
    fire = text(client.get(f"{base}/resolve", params={**choice, "procedure": "bkc.fire"},
                           headers=HX))
    assert 'name="support"' not in fire
