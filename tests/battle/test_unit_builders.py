"""The builders in a battle: a FoW shooting step with two platoons, an assault and a
morale test; ASL morale and rally of a broken stack; a BKC command, combined fire and
an assault; all from the units' profiles and markers, nothing typed as key=value."""

from __future__ import annotations

from typing import Any

from tests.battle.fakes import OPEN
from warroom.battle.core import Battles
from warroom.battle.store import open_store


def real(db: str) -> Battles:
    store = open_store(db)
    OPEN.append(store)
    return Battles(store)


def test_a_fow_turn_from_units(db: str) -> None:
    bt = real(db)
    bid = str(bt.new("fow", "Units", seed=11)["id"])
    bt.add_unit(bid, "A", None, profile="example:fow:Shermans")
    bt.add_unit(bid, "A", "Cats", profile="example:fow:Panthers")
    bt.add_unit(bid, "B", None, profile="example:fow:Rifle platoon")
    shot = bt.do(bid, "fow.shoot_mixed", {"units": "Shermans,Cats",
                                          "target": "Rifle platoon", "range_cm": 30})
    lost = int(shot["outcome"]["destroyed"])
    assert lost < 6  # with this seed the shooting leaves the rifle platoon some teams
    bt.mark(bid, "Shermans", "bailed_out", "1")
    odds: dict[str, Any] = bt.odds(bid, "fow.assault", {"unit": "Shermans",
                                                        "target": "Rifle platoon"})
    p = odds["params"]
    # 3 Shermans, 1 bailed out: 2 assault; the rifle platoon's 6 teams less those the
    # shooting destroyed (its destroyed marker)
    assert p["attackers"] == 2 and p["attacker_type"] == "tank"
    assert p["defenders"] == min(16, 6 - lost)
    assert odds["filled"]["attackers"] == "Shermans: its teams, 1 bailed out"
    assert odds["filled"]["defenders"] == (
        "Rifle platoon: its teams" if not lost else
        f"Rifle platoon: its teams, {lost} destroyed")
    # defensive fire: each team left fires its rifle, ROF 1 if the platoon is pinned
    assert p["defensive_dice"] == 6 - lost
    ev = bt.do(bid, "fow.assault", {"unit": "Shermans", "target": "Rifle platoon"})
    assert ev["params"] == p
    morale = bt.prepare(bid, "fow.morale", {"unit": "Rifle platoon"})
    assert (morale["params"]["start"], morale["params"]["left"]) == (6, 6 - lost)
    assert bt.verify(bid).ok


def test_asl_morale_and_rally_of_a_broken_stack(db: str) -> None:
    bt = real(db)
    bid = str(bt.new("asl", seed=5)["id"])
    bt.add_force(bid, "A", "example:asl")
    bt.mark(bid, "Firegroup", "broken")
    bt.mark(bid, "Firegroup", "dm")
    mc = bt.prepare(bid, "asl.mc", {"unit": "Firegroup"})
    # the 4-6-7 (morale 7), the 8-1's -1, already broken, ELR 3
    assert (mc["params"]["morale"], mc["params"]["drm"], mc["params"]["broken"]) == \
        (7, -1, True)
    assert mc["filled"]["broken"] == "Firegroup: broken marker"
    rally = bt.prepare(bid, "asl.rally", {"unit": "Firegroup"})
    assert (rally["params"]["leader"], rally["params"]["dm"]) == ("8-1", True)
    assert rally["filled"]["dm"] == "Firegroup: dm marker"


def test_a_bkc_command_combined_fire_and_assault(db: str) -> None:
    bt = real(db)
    bid = str(bt.new("bkc", seed=3)["id"])
    bt.add_force(bid, "A", "example:bkc")
    bt.add_unit(bid, "B", "Their tanks", profile="example:bkc:Tanks")
    order = bt.do(bid, "bkc.command", {"unit": "HQ"})
    assert order["params"]["cv"] == 9 and order["filled"]["cv"] == "HQ, command value"
    # entered dice, all misses (13 attack dice: the tanks' and the AT gun's), so the
    # target stays in action for the assault asked next; the battle's own dice come from
    # its secret seed, which could eliminate it
    fire = bt.do(bid, "bkc.fire", {"units": "Tanks,AT gun", "target": "Their tanks"},
                 dice=[1] * 13)
    assert fire["params"]["save"] == 5
    assert fire["outcome"]["damage"] == "none"
    bt.mark(bid, "Their tanks", "suppressed")
    assault = bt.prepare(bid, "bkc.assault", {"unit": "Infantry", "target": "Their tanks"})
    p = assault["params"]
    assert (p["attacker"], p["defender"], p["defender_save"]) == ("infantry", "armour", 5)
    assert p["defender_suppressed"] is True
    assert assault["filled"]["defender_suppressed"] == "Their tanks: suppressed marker"
    assert bt.verify(bid).ok


def test_a_bkc_assault_with_supporters_and_cover_markers(db: str) -> None:
    bt = real(db)
    bid = str(bt.new("bkc", seed=5)["id"])
    bt.add_force(bid, "A", "example:bkc")
    bt.add_unit(bid, "B", "Grenadiers", profile="example:bkc:Infantry")
    bt.mark(bid, "Grenadiers", "fortified")
    bt.mark(bid, "Infantry", "in_cover")
    bt.mark(bid, "AT gun", "suppressed")
    step = bt.prepare(bid, "bkc.assault", {"units": "Infantry,AT gun",
                                           "target": "Grenadiers"})
    p, filled = step["params"], step["filled"]
    # the AT gun is suppressed: it gives no support (suppressed_support=none, the
    # default reading); the markers give both sides' cover
    assert p["attacker_supporting"] == ""
    assert filled["attacker_supporting"] == ("AT gun: suppressed, gives no support "
                                             "(suppressed_support=none)")
    assert (p["defender_cover"], p["attacker_cover"]) == ("fortified", "cover")
    assert filled["defender_cover"] == "Grenadiers: in fortified"
    assert filled["attacker_cover"] == "Infantry: in cover"
    # read so that it counts, it supports: the same as any supporter on the card's
    # reading, suppressed when each fights
    counts = {"units": "Infantry,AT gun", "target": "Grenadiers",
              "suppressed_support": "counts"}
    assert bt.prepare(bid, "bkc.assault", counts)["params"]["attacker_supporting"] == "other"
    each = bt.prepare(bid, "bkc.assault", {**counts, "support_reading": "each_fights"})
    assert each["params"]["attacker_supporting"] == "other:suppressed"
    # the same marker gives bkc.fire its cover
    fire = bt.prepare(bid, "bkc.fire", {"units": "Infantry", "target": "Grenadiers"})
    assert fire["params"]["cover"] == "fortified"
    done = bt.do(bid, "bkc.assault", {"units": "Infantry,AT gun", "target": "Grenadiers"})
    assert done["params"]["defender_cover"] == "fortified"
    assert bt.verify(bid).ok


def test_a_stat_overrides_the_profile_and_a_typed_value_the_stat(db: str) -> None:
    bt = real(db)
    bid = str(bt.new("fow", "Overrides", seed=2)["id"])
    bt.add_unit(bid, "A", None, profile="example:fow:Shermans")
    plain = bt.prepare(bid, "fow.unpin", {"unit": "Shermans"})
    assert plain["params"]["motivation"] == "confident"  # the profile's
    assert plain["filled"]["motivation"] == "Shermans, motivation"
    bt.edit_unit(bid, "Shermans", {"motivation": "fearless"})
    stat = bt.prepare(bid, "fow.unpin", {"unit": "Shermans"})
    assert stat["params"]["motivation"] == "fearless"  # the stat overrides the profile
    assert stat["filled"]["motivation"] == "Shermans: its motivation stat"
    typed = bt.prepare(bid, "fow.unpin", {"unit": "Shermans", "motivation": "reluctant"})
    assert typed["params"]["motivation"] == "reluctant"  # typed in for the step wins
    assert bt.verify(bid).ok
