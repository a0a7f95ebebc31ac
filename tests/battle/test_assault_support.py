"""A BKC/CWC assault's defender supported by units (issue 29): the target's supporting
units come from units (``params_for`` with a list of targets, ``--at`` again on the CLI,
``support=A,B`` on a battle's ``do``/``odds``), with their live state (an eliminated
unit gives no support, nor by the default reading a suppressed one), each value saying
where it came from. The odds are worked by hand."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

import warroom
from tests.battle.fakes import OPEN
from warroom.battle.core import Battles
from warroom.battle.errors import BattleError
from warroom.battle.store import open_store
from warroom.errors import UsageError
from warroom.units import params_for

INFANTRY, AT_GUN, TANKS = "example:bkc:Infantry", "example:bkc:AT gun", "example:bkc:Tanks"


def test_the_defenders_supporters_from_units_by_hand() -> None:
    # BKC card: each supporting unit adds one hit to its side's result. Infantry (assault
    # value 4 on the card) assaults Infantry in the open; the AT gun supports the
    # defender, the suppressed Tanks and an eliminated Infantry do not. The defender's
    # hits are 1 + Binomial(4, 1/2) (4+ against the attacker in the open, no save):
    # exactly 1 when its four dice all miss, (1/2)^4 = 1/16; never 0.
    at = [INFANTRY, AT_GUN, {"unit": TANKS, "suppressed": True},
          {"unit": INFANTRY, "eliminated": True}]
    built = params_for("bkc.assault", INFANTRY, at)
    assert built.params["defender_supporting"] == "other"
    assert str(built.sources["defender_supporting"]) == (
        "AT gun, type at_gun; Tanks: suppressed, gives no support "
        "(suppressed_support=none); Infantry: eliminated, gives no support")
    d = warroom.odds("bkc.assault", from_unit=INFANTRY, at_unit=at)
    assert d.probability(defender_hits=1) == Fraction(1, 16)
    assert d.probability(defender_hits=0) == 0
    by_hand = warroom.odds("bkc.assault", attacker="infantry", defender="infantry",
                           defender_supporting="other")
    assert d.probability(winner="defender") == by_hand.probability(winner="defender")
    # read so that a suppressed unit supports: the 3 Tanks add a hit each, 4 + Bin(4,
    # 1/2): exactly 4 with probability 1/16, never fewer
    counts = warroom.odds("bkc.assault", from_unit=INFANTRY, at_unit=at,
                          suppressed_support="counts")
    assert counts.probability(defender_hits=4) == Fraction(1, 16)
    assert sum(counts.probability(defender_hits=n) for n in range(4)) == 0


def test_cwc_a_supporter_adds_an_attack_die_to_the_defender() -> None:
    # CWC card: +1 (one attack die) for each supporting unit. Infantry (4) defends with
    # the ATGM team supporting: 5 dice at 4+ against the attacker in the open; one round:
    # no defender hit at all is (1/2)^5 = 1/32 (alone it would be (1/2)^4 = 1/16)
    alone = warroom.odds("cwc.assault", from_unit="example:cwc:Infantry",
                         at_unit="example:cwc:Infantry", max_rounds=1)
    helped = warroom.odds("cwc.assault", from_unit="example:cwc:Infantry",
                          at_unit=["example:cwc:Infantry", "example:cwc:ATGM team"],
                          max_rounds=1)
    assert alone.probability(defender_hits=0) == Fraction(1, 16)
    assert helped.probability(defender_hits=0) == Fraction(1, 32)


def test_several_targets_only_where_a_target_is_supported() -> None:
    with pytest.raises(UsageError, match=r"bkc\.fire takes one target unit"):
        params_for("bkc.fire", INFANTRY, [INFANTRY, AT_GUN])
    with pytest.raises(UsageError, match="a unit supporting the target"):
        params_for("bkc.assault", INFANTRY, [INFANTRY, {"unit": AT_GUN, "range_cm": 5}])
    with pytest.raises(UsageError, match="suppressed_support"):
        params_for("bkc.assault", INFANTRY, [INFANTRY, AT_GUN], suppressed_support="half")
    # the defender's own suppressed marker is not its supporters'
    p = params_for("bkc.assault", INFANTRY, [INFANTRY, AT_GUN], suppressed=True).params
    assert p["defender_suppressed"] is True and p["defender_supporting"] == "other"


def test_the_cli_takes_at_again(capsys: pytest.CaptureFixture[str]) -> None:
    from warroom.cli import main

    assert main(["odds", "bkc.assault", "--from", INFANTRY, "--at", INFANTRY,
                 "--at", AT_GUN, "--json"]) == 0
    capsys.readouterr()
    assert main(["odds", "bkc.assault", "--from", INFANTRY, "--at", INFANTRY,
                 "--at", AT_GUN]) == 0
    assert "defender_supporting other: AT gun, type at_gun" in capsys.readouterr().out
    assert main(["odds", "bkc.fire", "--from", INFANTRY, "--at", INFANTRY,
                 "--at", AT_GUN]) == 2
    err = capsys.readouterr().err
    assert "takes one target unit" in err and len(err.strip().splitlines()) == 1


def real(db: str | Path) -> Battles:
    store = open_store(str(db))
    OPEN.append(store)
    return Battles(store)


def battle(bt: Battles, game: str = "bkc") -> str:
    """Side A: the example force; side B: Grenadiers (Infantry) with the Pak (AT gun),
    suppressed Panzers (Tanks) and an eliminated platoon (Infantry) around them."""
    bid = str(bt.new(game, "Support", 3)["id"])
    bt.add_force(bid, "A", f"example:{game}")
    for name, unit in (("Grenadiers", "Infantry"), ("Pak", "AT gun"),
                       ("Panzers", "Tanks"), ("Gone", "Infantry")):
        bt.add_unit(bid, "B", name, profile=f"example:{game}:{unit}", by="B")
    bt.mark(bid, "Panzers", "suppressed")
    bt.mark(bid, "Gone", "eliminated")
    return bid


STEP = {"unit": "Infantry", "target": "Grenadiers", "support": "Pak,Panzers,Gone"}


def test_a_battle_takes_the_supporters_with_their_markers(db: str) -> None:
    bt = real(db)
    bid = battle(bt)
    step = bt.prepare(bid, "bkc.assault", STEP, by="A")
    assert step["params"]["defender_supporting"] == "other"
    assert step["filled"]["defender_supporting"] == (
        "Pak, type at_gun; Panzers: suppressed, gives no support "
        "(suppressed_support=none); Gone: eliminated, gives no support")
    assert step["support"] == ["Pak", "Panzers", "Gone"]
    # the same odds as worked out by hand above: exactly 1 defender hit is 1/16
    odds = bt.odds(bid, "bkc.assault", STEP, by="A")
    hits = {c["value"]: c["exact"] for c in odds["chances"]["defender_hits"]}
    assert hits[1] == "1/16" and 0 not in hits
    # the Panzers' suppression taken off: they support, 3 units, 3 more hits
    bt.mark(bid, "Panzers", "suppressed", "no")
    again = bt.prepare(bid, "bkc.assault", STEP)
    assert again["params"]["defender_supporting"] == "other,armour,armour,armour"
    done = bt.do(bid, "bkc.assault", {**STEP, "support": ["Pak", "Panzers"]},
                 dice=[1, 1, 1, 1, 1, 1, 1, 1], by="A")
    assert done["support"] == ["Pak", "Panzers"] and done["outcome"]["defender_hits"] == 4
    assert bt.verify(bid).ok


@pytest.mark.parametrize(("change", "words"), [
    ({"support": "Tanks"}, "only the target's own side"),
    ({"support": "Grenadiers"}, "named twice"),
    ({"target": None}, "support= needs target="),
    ({"support": "Nobody"}, "Nobody"),
])
def test_bad_supporters_are_refused(db: str, change: dict[str, Any], words: str) -> None:
    bt = real(db)
    bid = battle(bt)
    counter = bt.show(bid)["counter"]
    step = {k: v for k, v in {**STEP, **change}.items() if v is not None}
    with pytest.raises(UsageError, match=words):
        bt.do(bid, "bkc.assault", step, by="A")
    with pytest.raises(BattleError, match="takes no units supporting the target"):
        bt.do(bid, "bkc.fire", {**STEP, "support": "Pak"}, by="A")
    assert bt.show(bid)["counter"] == counter


def test_the_api_takes_a_support_list(client: Any, tmp_path: Path) -> None:
    made = client.post("/api/v1/battles", json={"game": "cwc"}).json()
    bid, ka, kb = made["id"], made["keys"]["A"], made["keys"]["B"]
    for side, key, ref in (("A", ka, "Infantry"), ("B", kb, "Infantry"),
                           ("B", kb, "ATGM team")):
        assert client.post(f"/api/v1/battles/{bid}/units?key={key}", json={
            "side": side, "name": f"{side} {ref}", "from": f"example:cwc:{ref}"}
        ).status_code == 200
    params = {"unit": "A Infantry", "target": "B Infantry", "support": ["B ATGM team"],
              "max_rounds": 1}
    r = client.post(f"/api/v1/battles/{bid}/odds?key={ka}",
                    json={"procedure": "cwc.assault", "params": params})
    assert r.status_code == 200, r.text
    assert r.json()["filled"]["defender_supporting"] == "B ATGM team, type infantry"
    r = client.post(f"/api/v1/battles/{bid}/do?key={ka}", json={
        "procedure": "cwc.assault", "params": params})
    assert r.status_code == 200 and r.json()["support"] == ["B ATGM team"]
    r = client.post(f"/api/v1/battles/{bid}/do?key={ka}", json={
        "procedure": "cwc.assault", "params": {**params, "support": [3]}})
    assert r.status_code == 422 and r.json()["error"]["code"] == "invalid"
    assert json.loads(client.get(f"/api/v1/battles/{bid}/verify?key={ka}").text)["ok"]
