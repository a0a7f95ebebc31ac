"""Battle units with typed profiles: added from a force, parameters built from them and
their markers (explicit ones win, the event says where each came from), several units in
one step, results on the markers, odds before the roll, and the log still reproducing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

import warroom
from tests.battle.fakes import OPEN
from warroom.battle.core import Battles
from warroom.battle.errors import AccessError, BattleError
from warroom.battle.store import open_store
from warroom.errors import UsageError


def real(db: str) -> Battles:
    """Battles with the real games (profiles build the real procedures' parameters)."""
    store = open_store(db)
    OPEN.append(store)
    return Battles(store)


@pytest.fixture
def rb(db: str) -> Battles:
    return real(db)


def fow_battle(bt: Battles) -> str:
    bid = str(bt.new("fow", "Units", seed=7)["id"])
    bt.add_unit(bid, "A", None, profile="example:fow:Shermans")
    bt.add_unit(bid, "A", "Cats", {"from": "example:fow:Panthers"})
    bt.add_unit(bid, "B", None, profile="example:fow:Rifle platoon")
    bt.add_unit(bid, "B", "Panthers", profile="example:fow:Panthers")
    return bid


def test_a_unit_carries_its_profile(rb: Battles) -> None:
    bid = fow_battle(rb)
    shown = rb.show(bid)
    units = {u["name"]: u for u in shown["units"]}
    assert units["Shermans"]["profile"]["teams"][0]["front"] == 6
    assert units["Cats"]["profile"]["name"] == "Panthers"  # the name given wins
    assert units["Rifle platoon"]["teams_left"] == 6  # teams from the profile
    added = [e for e in rb.log(bid) if e["kind"] == "unit_added"]
    assert added[0]["profile"]["skill"] == "trained"
    assert rb.verify(bid).ok


def test_bad_profiles_are_refused_naming_the_field(rb: Battles) -> None:
    bid = fow_battle(rb)
    bad = json.loads(json.dumps(rb.show(bid)["units"][0]["profile"]))
    bad["teams"][0]["weapons"][0]["at"] = "lots"
    with pytest.raises(UsageError, match=r"teams\[1\]\.weapons\[1\]\.at"):
        rb.add_unit(bid, "A", "Bad", profile=bad)
    with pytest.raises(BattleError, match="the battle plays fow"):
        rb.add_unit(bid, "A", None, profile="example:asl:Firegroup")
    with pytest.raises(BattleError, match="server reads no files"):
        rb.add_unit(bid, "A", "X", profile="/etc/passwd:x", by="A")
    demo = str(rb.new("demo", seed=1)["id"])
    with pytest.raises(BattleError, match="carry no profiles"):
        rb.add_unit(demo, "A", None, profile="example:fow:Shermans")


def test_do_builds_the_parameters_from_profiles_and_markers(rb: Battles) -> None:
    bid = fow_battle(rb)
    rb.mark(bid, "Shermans", "pinned")
    rb.mark(bid, "Panthers", "bailed_out", "1")
    ev = rb.do(bid, "fow.shoot", {"unit": "Shermans", "target": "Panthers",
                                  "range_cm": 30, "armour": 9})
    p = ev["params"]
    # pinned Shermans: ROF 1 each, 3 dice, +1 to hit; Panthers front armour 10, but the
    # armour typed in (9) wins
    assert (p["dice"], p["pinned_rof1"], p["armour"], p["teams"]) == (3, True, 9, 2)
    assert ev["filled"]["pinned_rof1"] == "Shermans: pinned down"  # its pinned marker
    assert ev["filled"]["armour"] == "given explicitly"
    assert ev["filled"]["target_skill"] == "Panthers, skill"
    assert rb.verify(bid).ok


def test_a_shooting_step_with_several_units(rb: Battles) -> None:
    bid = fow_battle(rb)
    before = rb.odds(bid, "fow.shoot_mixed", {"units": "Shermans,Cats",
                                              "target": "Rifle platoon", "range_cm": 30})
    assert before["units"] == ["Shermans", "Cats"]
    assert before["params"]["weapons"] == "6:10:3,4:14:3"  # 3 x ROF 2, 2 x ROF 2
    ev = rb.do(bid, "fow.shoot_mixed", {"units": ["Shermans", "Cats"],
                                        "target": "Rifle platoon", "range_cm": 30})
    assert ev["units"] == ["Shermans", "Cats"] and ev["unit"] == "Shermans"
    assert ev["params"]["weapons"] == before["params"]["weapons"]
    # the exact odds shown before the roll are those of the parameters rolled
    d = warroom.odds("fow.shoot_mixed", ev["params"])
    assert before["expected"]["hits"] == f"{d.mean('hits').numerator}/" \
                                         f"{d.mean('hits').denominator}"
    markers = rb.show(bid)["units"][2]["markers"]
    assert markers.get("hits", 0) == ev["outcome"]["hits"]
    assert markers.get("pinned", False) == ev["outcome"]["pinned"]
    assert "Shermans + Cats → Rifle platoon" in ev_line(rb, bid)
    assert rb.verify(bid).ok


def test_the_hits_of_the_phase_count_for_pinning_until_the_next_phase(rb: Battles) -> None:
    """FoW pins a platoon on the hits of the whole shooting step: the target's ``hits``
    marker (this phase's hits so far) is the next shot's ``hits_before``, and the next
    phase takes it off (recorded in the phase event, so undo and verify follow)."""
    bid = fow_battle(rb)
    rb.mark(bid, "Rifle platoon", "hits", "3")  # an earlier shot of this step hit 3 times
    prep = rb.prepare(bid, "fow.shoot", {"unit": "Shermans", "target": "Rifle platoon"})
    assert prep["params"]["hits_before"] == 3
    assert prep["filled"]["hits_before"] == "Rifle platoon: hits marker"
    moved = rb.advance(bid)
    assert moved["clears"] == ["hits"]
    assert "hits" not in rb.show(bid)["units"][2]["markers"]
    prep = rb.prepare(bid, "fow.shoot", {"unit": "Shermans", "target": "Rifle platoon"})
    assert prep["params"]["hits_before"] == 0 and "hits_before" not in prep["filled"]
    assert rb.verify(bid).ok
    moved = rb.advance(bid)  # no unit carries hits: the event clears nothing
    assert "clears" not in moved
    rb.undo(bid)
    rb.undo(bid)
    assert rb.show(bid)["units"][2]["markers"]["hits"] == 3  # undo brings them back


def ev_line(bt: Battles, bid: str) -> str:
    from warroom.battle.events import describe

    return describe(bt.log(bid)[-1], lambda s: s)


def test_several_units_are_one_side_and_yours(rb: Battles) -> None:
    bid = fow_battle(rb)
    with pytest.raises(BattleError, match="of one side"):
        rb.do(bid, "fow.shoot_mixed", {"units": "Shermans,Panthers",
                                       "target": "Rifle platoon"})
    with pytest.raises(AccessError):
        rb.do(bid, "fow.shoot_mixed", {"units": "Shermans,Cats",
                                       "target": "Rifle platoon"}, by="B")
    with pytest.raises(UsageError, match="takes one acting unit"):
        rb.do(bid, "fow.shoot", {"units": "Shermans,Cats", "target": "Rifle platoon"})


def test_destroyed_teams_leave_the_target(rb: Battles) -> None:
    bid = fow_battle(rb)
    rb.mark(bid, "Rifle platoon", "destroyed", "4")
    p = rb.prepare(bid, "fow.shoot_mixed", {"unit": "Shermans", "target": "Rifle platoon",
                                            "range_cm": 30})
    assert p["params"]["teams"] == "infantry,infantry"
    # infantry has no armour: the units line does not name one (issue 32)
    assert p["filled"]["teams"] == "Rifle platoon: its teams"


def commander_battle(bt: Battles, game: str) -> str:
    bid = str(bt.new(game, seed=3)["id"])
    bt.add_force(bid, "A", f"example:{game}")
    bt.add_unit(bid, "B", "Their HQ", profile=f"example:{game}:HQ")
    return bid


@pytest.mark.parametrize("game", ["bkc", "cwc"])
def test_combined_fire_in_a_battle(rb: Battles, game: str) -> None:
    bid = commander_battle(rb, game)
    assert len(rb.show(bid)["units"]) == 5  # the example force's four, and their HQ
    rb.mark(bid, "Their HQ", "hits", "1")
    ev = rb.do(bid, f"{game}.fire", {"units": "Tanks,Infantry", "target": "Their HQ"})
    # four units of attack 3 (three tanks and the infantry)
    assert ev["params"]["attackers"] == "3,3,3,3"
    assert ev["params"]["existing_hits"] == 1
    assert ev["filled"]["existing_hits"] == "Their HQ: hits marker"
    hits = ev["outcome"]["hits"]
    marks = next(u for u in rb.show(bid)["units"] if u["name"] == "Their HQ")["markers"]
    assert marks.get("hits", 0) == 1 + hits
    assert rb.verify(bid).ok


def test_an_asl_fire_group_in_a_battle(rb: Battles) -> None:
    bid = str(rb.new("asl", seed=5)["id"])
    rb.add_force(bid, "A", "example:asl")
    rb.add_unit(bid, "B", "Defenders", profile="example:asl:Target stack")
    rb.mark(bid, "Defenders", "broken")
    p = rb.prepare(bid, "asl.fire_group", {"units": "Firegroup", "target": "Defenders",
                                           "range_hexes": 3})
    # a broken stack: every unit in it is broken for the morale checks
    assert p["params"]["target"] == "4-4-7:broken,2-4-7:hs:broken,8-0:broken"
    rb.mark(bid, "Firegroup", "broken")
    with pytest.raises(BattleError, match="cannot fire"):
        rb.do(bid, "asl.fire_group", {"unit": "Firegroup", "target": "Defenders"})


@pytest.mark.parametrize(("units", "expected"), [
    ("squad1=eliminated,hs1=eliminated,leader1=eliminated", {"eliminated": True}),
    ("squad1=reduced+broken,hs1=broken,leader1=eliminated",
     {"broken": True, "casualty_reduction": 1}),
    ("squad1=pinned,hs1=broken,leader1=ok", {}),
    ("squad1=pinned,hs1=broken,leader1=pinned", {"pinned": True}),
])
def test_an_ift_result_on_a_stack_sets_its_markers(units: str,
                                                   expected: dict[str, Any]) -> None:
    from warroom.battle import effects
    from warroom.battle.state import State, Unit

    st = State("x", "asl", "t", None)
    unit = Unit("Stack", "B")
    changes = effects.outcome_effects(st, "asl.fire_group", {"units": units}, unit, None)
    assert {c["marker"]: c["value"] for c in changes} == expected


def test_export_and_import_keep_the_profiles(rb: Battles) -> None:
    bid = fow_battle(rb)
    rb.do(bid, "fow.shoot_mixed", {"units": "Shermans,Cats", "target": "Rifle platoon"})
    data = rb.export(bid)
    copy = rb.import_(json.loads(json.dumps(data)))
    assert rb.verify(copy["id"]).ok
    assert rb.show(copy["id"])["units"][0]["profile"] == rb.show(bid)["units"][0]["profile"]
    broken = json.loads(json.dumps(data))
    added = next(e for e in broken["events"] if e["kind"] == "unit_added")
    added["profile"]["teams"][0]["count"] = 99
    with pytest.raises(UsageError, match="does not replay"):
        rb.import_(broken)


def test_the_cli_adds_forces_and_rolls_several_units(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from warroom.cli import main

    db = str(tmp_path / "cli.db")

    def run(*args: str) -> str:
        code = main(["battle", *args, "--db", db])
        out, err = capsys.readouterr()
        assert code == 0, err
        return out

    bid = json.loads(run("new", "fow", "--seed", "2", "--json"))["id"]
    run("add-force", bid, "A", "example:fow")
    run("add-unit", bid, "--side", "B", "--name", "Enemy", "--from", "example:fow:Panthers")
    out = run("odds", bid, "fow.shoot_mixed", "--unit", "Shermans", "--unit", "Panthers",
              "target=Enemy", "aspect=side")
    assert "Shermans: 3 x 75mm gun (example) ROF 2; Panthers" in out
    assert "pinned:" in out
    out = run("do", bid, "fow.shoot_mixed", "--unit", "Shermans", "--unit", "Panthers",
              "target=Enemy")
    assert "Shermans + Panthers → Enemy" in out
    assert "2x Panther (example) tank armour 10/5/1" in run("show", bid)
    code = main(["battle", "add-unit", bid, "--side", "A", "--from", "example:fow:Nobody",
                 "--db", db])
    assert code == 2 and "no unit named 'Nobody'" in capsys.readouterr().err


@contextmanager
def web_client(tmp_path: Path) -> Iterator[Any]:
    """An in-process HTTP client of a fresh app."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from fastapi.testclient import TestClient
    from warroom.web.app import create_app

    with TestClient(create_app(tmp_path / "web.db")) as client:
        yield client


def test_the_api_adds_example_units_and_previews_odds(tmp_path: Path) -> None:
    with web_client(tmp_path) as client:
        made = client.post("/api/battles", json={"game": "bkc"}).json()
        bid, ka, kb = made["id"], made["keys"]["A"], made["keys"]["B"]
        r = client.post(f"/api/battles/{bid}/force?key={ka}",
                        json={"side": "A", "force": "example:bkc"})
        assert r.status_code == 200 and len(r.json()) == 4
        r = client.post(f"/api/battles/{bid}/units?key={kb}",
                        json={"side": "B", "name": "Their HQ", "from": "example:bkc:HQ"})
        assert r.status_code == 200 and r.json()["unit"] == "Their HQ", r.text
        r = client.post(f"/api/battles/{bid}/units?key={kb}",
                        json={"side": "B", "from": "/etc/hosts:x"})
        assert r.status_code == 422 and "reads no files" in r.json()["detail"]
        r = client.post(f"/api/battles/{bid}/units?key={kb}", json={
            "side": "B", "name": "Bad", "profile": {"name": "Bad", "type": "afv",
                                                    "hits": "many"}})
        assert r.status_code == 422 and "hits" in r.json()["detail"]
        r = client.post(f"/api/battles/{bid}/odds?key={ka}", json={
            "procedure": "bkc.fire",
            "params": {"units": ["Tanks", "AT gun"], "target": "Their HQ"}})
        assert r.status_code == 200, r.text
        body = r.json()
        # three tanks at 3 and the AT gun's 1 (its 4# cannot hit soft targets)
        assert body["params"]["attackers"] == "3,3,3,1" and body["params"]["target_hq"]
        assert Fraction(body["expected"]["hits"]) > 0
        r = client.post(f"/api/battles/{bid}/do?key={ka}", json={
            "procedure": "bkc.fire",
            "params": {"units": ["Tanks", "AT gun"], "target": "Their HQ"}})
        assert r.status_code == 200 and r.json()["params"] == body["params"]


@pytest.mark.parametrize(("procedure", "outcome", "before", "after"), [
    ("fow.unpin", {"unpinned": True}, {"pinned": True}, {"pinned": None}),
    ("fow.unpin", {"unpinned": False}, {"pinned": True}, {}),
    ("fow.remount", {"remounted": True}, {"bailed_out": 2}, {"bailed_out": 1}),
    ("fow.remount", {"remounted": True}, {"bailed_out": 1}, {"bailed_out": None}),
])
def test_rallying_and_remounting_clear_their_markers(
        procedure: str, outcome: dict[str, Any], before: dict[str, Any],
        after: dict[str, Any]) -> None:
    from warroom.battle import effects
    from warroom.battle.state import State, Unit

    unit = Unit("Platoon", "A", markers=dict(before))
    changes = effects.outcome_effects(State("x", "fow", "t", None), procedure, outcome,
                                      unit, None)
    assert {c["marker"]: c["value"] for c in changes} == after


def test_the_page_adds_a_unit_from_an_example_force(tmp_path: Path) -> None:
    with web_client(tmp_path) as client:
        made = client.post("/api/battles", json={"game": "fow"}).json()
        bid, ka = made["id"], made["keys"]["A"]
        r = client.post(f"/battles/{bid}/{ka}/unit",
                        data={"stats": "from=example:fow:Shermans"}, follow_redirects=False)
        assert r.status_code in (200, 303)
        units = client.get(f"/api/battles/{bid}?key={ka}").json()["units"]
        assert units[0]["name"] == "Shermans" and units[0]["profile"]["teams"][0]["count"] == 3


def test_battle_odds_past_the_exact_budget_are_a_full_estimate(
        rb: Battles, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        tmp_path: Path) -> None:
    from warroom.battle.cli import odds as odds_command
    from warroom.engine import drivers
    from warroom.errors import ExactTooLargeError
    from warroom.serving import shared_cache

    def too_large(proc: Any, *_a: Any, **_k: Any) -> Any:
        raise ExactTooLargeError(proc.id, 200_000)

    shared_cache().clear()
    monkeypatch.setattr(drivers, "exact", too_large)  # as a ten-unit stack with K/2
    bid = fow_battle(rb)
    data = rb.odds(bid, "fow.shoot", {"unit": "Cats", "target": "Rifle platoon"})
    assert data["odds"]["estimate"] is True  # never a refusal
    assert data["odds"]["samples"] == drivers.samples_for()
    assert data["odds"]["margin"] <= drivers.ESTIMATE_MARGIN
    assert all("exact" not in row for rows in data["chances"].values() for row in rows)
    assert abs(sum(r["p"] for r in data["chances"]["pinned"]) - 1) < 1e-9
    assert set(data["expected"]) >= {"hits", "destroyed"} and "/" not in data["expected"]["hits"]
    monkeypatch.setattr("warroom.battle.cli._battles", lambda _db: rb)
    odds_command(bid, "fow.shoot", ["unit=Cats", "target=Rifle platoon"])
    out = " ".join(capsys.readouterr().out.split())
    assert "Counted from 38,415 simulated rolls" in out and "about 0.5 percentage points" in out
    # and the battle can roll it
    event = rb.do(bid, "fow.shoot", {"unit": "Cats", "target": "Rifle platoon"})
    assert event["kind"] == "resolved" and "/" not in event["expected"]["hits"]
    # its expectation comes from a fixed number of seeded samples: the replay agrees
    proc, params, _extra = rb.preview(bid, "fow.shoot", {"unit": "Cats",
                                                         "target": "Rifle platoon"})
    assert Battles._expected(proc, params) == Battles._expected(proc, params)
    assert rb.verify(bid).ok, rb.verify(bid).problems
