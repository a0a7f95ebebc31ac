"""One unit model (issue 29): in a battle of a game with a unit model (FoW, ASL, BKC, CWC)
every new unit is a typed profile of its game, and free ``key=value`` stats are only
overrides on it. A stats-only unit is refused with a typed error on every surface (the
core, the CLI, the JSON API, the battle page); a ``demo`` unit keeps its stats; battles
stored with stats-only units keep loading, playing and verifying."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

import pytest

from tests.battle.fakes import OPEN, stored_unit
from warroom.battle.core import Battles
from warroom.battle.errors import ProfileRequiredError
from warroom.battle.store import open_store

EXAMPLE = {"fow": "Shermans", "asl": "Firegroup", "bkc": "Tanks", "cwc": "Tanks"}
"""A unit of each game's example force."""


def real(db: str | Path) -> Battles:
    """Battles over the real game systems (the other battle tests use stand-ins)."""
    store = open_store(str(db))
    OPEN.append(store)
    return Battles(store)


@pytest.mark.parametrize("game", sorted(EXAMPLE))
def test_a_unit_without_its_profile_is_refused(db: str, game: str) -> None:
    bt = real(db)
    bid = str(bt.new(game, "Refusal", 1)["id"])
    before = bt.show(bid)["counter"]
    for stats in ({"dice": 3}, {}, None):  # free stats only, or nothing at all
        with pytest.raises(ProfileRequiredError) as refused:
            bt.add_unit(bid, "A", "Tigers", stats, by="A")
        assert refused.value.code == "profile_required"
        assert refused.value.http_status == 422
        assert "Tigers: a " + game + " unit needs its typed profile" in str(refused.value)
    assert bt.show(bid)["counter"] == before and bt.show(bid)["units"] == []
    # a profile with free stats on it: the stats are its overrides
    added = bt.add_unit(bid, "A", "Tigers", {"hits": 2}, profile=f"example:{game}:"
                        f"{EXAMPLE[game]}", by="A")
    assert added["profile"]["name"] == EXAMPLE[game] and added["stats"] == {"hits": 2}
    unit = bt.show(bid)["units"][0]
    assert unit["profile"] is not None and unit["stats"] == {"hits": 2}
    assert bt.verify(bid).ok


def test_a_demo_unit_keeps_its_stats(db: str) -> None:
    bt = real(db)
    bid = str(bt.new("demo", "Dice", 1)["id"])
    bt.add_unit(bid, "A", "Tigers", {"dice": 3})
    assert bt.show(bid)["units"][0]["stats"] == {"dice": 3}


def test_a_stat_overrides_the_profile(db: str) -> None:
    """The Shermans' profile gives fow.shoot 6 dice (3 tanks, ROF 2 halted); a dice=2
    stat on the unit overrides it, and the step says where the 2 came from."""
    bt = real(db)
    bid = str(bt.new("fow", "Override", 1)["id"])
    bt.add_unit(bid, "A", None, profile="example:fow:Shermans")
    bt.add_unit(bid, "A", "Easy Eights", {"dice": 2}, profile="example:fow:Shermans")
    bt.add_unit(bid, "B", None, profile="example:fow:Panthers")
    plain = bt.prepare(bid, "fow.shoot", {"unit": "Shermans", "target": "Panthers"})
    over = bt.prepare(bid, "fow.shoot", {"unit": "Easy Eights", "target": "Panthers"})
    assert plain["params"]["dice"] == 6 and over["params"]["dice"] == 2
    assert over["filled"]["dice"] == "Easy Eights: its dice stat"


def test_the_cli_refuses_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                     ) -> None:
    from warroom.cli import main

    db = str(tmp_path / "cli.db")
    assert main(["battle", "new", "asl", "--db", db, "--json"]) == 0
    bid = json.loads(capsys.readouterr().out)["id"]
    for lang, words in (("en", "needs its typed profile"), ("pl", "potrzebuje swojego "
                                                                   "profilu")):
        code = main(["--lang", lang, "battle", "add-unit", bid, "--side", "A", "--name",
                     "Squad", "morale=7", "--db", db])
        err = capsys.readouterr().err
        assert code == 2 and words in err and len(err.strip().splitlines()) == 1, err
        assert "Traceback" not in err
    assert main(["battle", "add-unit", bid, "--side", "A", "--from",
                 "example:asl:Firegroup", "elr=4", "--db", db]) == 0
    assert "Firegroup" in capsys.readouterr().out


def test_the_api_refuses_with_a_code(client: Any) -> None:
    made = client.post("/api/v1/battles", json={"game": "bkc"}).json()
    bid, ka = made["id"], made["keys"]["A"]
    r = client.post(f"/api/v1/battles/{bid}/units?key={ka}",
                    json={"side": "A", "name": "Tanks", "stats": {"hits": 4}})
    assert r.status_code == 422
    error = r.json()["error"]
    assert error["code"] == "profile_required" and "typed profile" in error["message"]
    assert client.get(f"/api/v1/battles/{bid}?key={ka}").json()["units"] == []
    r = client.post(f"/api/v1/battles/{bid}/units?key={ka}", json={
        "side": "A", "from": "example:bkc:Tanks", "stats": {"hits": 5}})
    assert r.status_code == 200 and r.json()["stats"] == {"hits": 5}


def test_the_page_adds_a_library_unit_with_overrides(client: Any) -> None:
    made = client.post("/api/v1/battles", json={"game": "fow"}).json()
    bid, ka = made["id"], made["keys"]["A"]
    base = f"/battles/{bid}/{ka}"
    page = html.unescape(client.get(f"{base}?lang=pl").text)
    assert "Jednostka z biblioteki, z nadpisaniami (klucz=wartość)" in page
    assert '<option value="example:fow:Shermans">Shermans</option>' in page
    # no profile picked (an old form, a hand-made post): refused, what was typed kept
    r = client.post(f"{base}/unit?lang=pl", data={"name": "Tigers", "stats": "dice=3",
                                                   "expect": "1"})
    page = html.unescape(r.text)
    assert r.status_code == 422 and "potrzebuje swojego profilu" in page
    assert 'id="unit-stats" placeholder="skill=veteran" value="dice=3"' in page
    assert '<details class="adder" id="free-stats" open>' in page
    # a library unit with an override
    r = client.post(f"{base}/unit", data={"profile": "example:fow:Shermans",
                                          "name": "Easy Eights", "stats": "dice=2",
                                          "expect": "1"}, follow_redirects=False)
    assert r.status_code == 303, r.text[:2000]
    unit = client.get(f"/api/v1/battles/{bid}?key={ka}").json()["units"][0]
    assert unit["name"] == "Easy Eights" and unit["stats"] == {"dice": 2}
    assert unit["profile"]["teams"][0]["count"] == 3
    r = client.post(f"{base}/unit?lang=en", data={"profile": "example:fow", "expect": "2"})
    assert r.status_code == 422 and "pick a unit of the library" in r.text


def test_a_demo_page_keeps_the_stats_form(client: Any) -> None:
    made = client.post("/api/v1/battles", json={"game": "demo"}).json()
    base = f"/battles/{made['id']}/{made['keys']['A']}"
    assert 'id="unit-profile"' not in client.get(base).text
    r = client.post(f"{base}/unit", data={"name": "Tigers", "stats": "dice=3"},
                    follow_redirects=False)
    assert r.status_code == 303


def test_a_battle_stored_with_stats_only_units_plays_and_verifies(
        db: str, tmp_path: Path) -> None:
    """Units added before profiles were required (their events carry stats only): the
    battle loads, their steps take the stats, it verifies, exports and imports; only a
    new stats-only unit is refused."""
    bt = real(db)
    bid = str(bt.new("fow", "Old shape", 7)["id"])
    stored_unit(bt, bid, "A", "Shermans", {"dice": 2, "at": 10, "firepower": 3})
    stored_unit(bt, bid, "B", "Grenadiers", {"teams": 4, "skill": "veteran"})
    # 2 dice at 4+ (veteran): 6 and 4 hit; two saves at 3+ (infantry in the open):
    # 1 and 2 fail, two teams destroyed (no firepower test out of cover)
    ev = bt.do(bid, "fow.shoot", {"unit": "Shermans", "target": "Grenadiers"},
               dice=[6, 4, 1, 2])
    assert ev["params"]["dice"] == 2 and ev["filled"]["dice"] == "Shermans.dice"
    assert ev["outcome"]["hits"] == 2 and ev["outcome"]["destroyed"] == 2
    bt.edit_unit(bid, "Grenadiers", {"teams": "2"})  # its stats still edit
    with pytest.raises(ProfileRequiredError):
        bt.add_unit(bid, "A", "Fireflies", {"dice": 2})
    assert bt.verify(bid).ok
    other = real(tmp_path / "other.db")
    made = other.import_(bt.export(bid))
    assert other.verify(made["id"]).ok
    assert [u["stats"] for u in other.show(made["id"])["units"]] == [
        {"dice": 2, "at": 10, "firepower": 3}, {"teams": 2, "skill": "veteran"}]
