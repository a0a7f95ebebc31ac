"""A fire group with a support weapon in a battle (issue 29: "an ASL fire group with an
MMG into a stack"), and battles recorded before support weapons fired still verifying."""

from __future__ import annotations

from typing import Any

import pytest

from tests.battle.test_core import tamper
from tests.battle.test_units import real
from warroom.battle.core import Battles


@pytest.fixture
def rb(db: str) -> Battles:
    return real(db)


def pfph(rb: Battles) -> str:
    """A new ASL battle in its Prep Fire Phase (fire groups fire there)."""
    bid = str(rb.new("asl", "ASL", 3)["id"])
    while rb.show(bid)["phase"] != "PFPh":
        rb.advance(bid)
    return bid


def test_an_mmg_fires_with_the_group_from_units(rb: Battles) -> None:
    bid = pfph(rb)
    rb.add_force(bid, "A", "example:asl")
    rb.add_unit(bid, "B", "Defenders", profile="example:asl:Target stack")
    # 6 and 5: an original 11 at 3 hexes. Two 4-6-7 and the MMG: 12 FP, the 8-1 directs
    # (-1, no cowering): final DR 10 on the 12 column, a PTC for each of the three
    # defenders (1 and 2: all pass); the MMG B11 breaks down
    ev = rb.do(bid, "asl.fire_group", {"unit": "Firegroup", "target": "Defenders",
                                       "range_hexes": 3}, dice=[6, 5, 1, 2, 1, 2, 1, 2])
    assert ev["params"]["firers"] == "4-6-7,4-6-7,8-1,MMG 4-10 B11"
    assert ev["params"]["support_weapons"] == 1
    assert ev["outcome"]["column"] == 12 and ev["outcome"]["final_dr"] == 10
    assert ev["outcome"]["result"] == "PTC" and ev["outcome"]["sw_broken"] == 1
    assert rb.verify(bid).ok


def test_a_fire_group_recorded_before_support_weapons_still_verifies(rb: Battles,
                                                                      db: str) -> None:
    bid = pfph(rb)
    ev = rb.do(bid, "asl.fire_group", {"firers": "4-6-7,4-6-7,8-1"},
               dice=[6, 5])
    assert ev["params"]["support_weapons"] == 0 and ev["outcome"]["sw_broken"] == 0
    # as logged before support weapons fired: no such parameter, no such outcome field
    # (nor expectation)
    old: dict[str, Any] = {
        "params": {k: v for k, v in ev["params"].items() if k != "support_weapons"},
        "outcome": {k: v for k, v in ev["outcome"].items() if k != "sw_broken"}}
    if isinstance(ev.get("expected"), dict):
        old["expected"] = {k: v for k, v in ev["expected"].items() if k != "sw_broken"}
    tamper(db, bid, ev["seq"], old)
    # the event replays as recorded (the stored luck snapshots still hold the sw_broken
    # the tamper took out of the event: an authentic old log never had it there)
    problems = rb.verify(bid).problems
    assert problems and not [p for p in problems if "reproduce" in p]
    assert all("luck totals" in p for p in problems)
    # a support weapon's breakdown is compared: a changed sw_broken is caught
    bid = pfph(rb)
    ev = rb.do(bid, "asl.fire_group", {"firers": "4-6-7,4-6-7,MMG 4-10 B11",
                                       }, dice=[6, 5])
    assert ev["outcome"]["sw_broken"] == 1
    tamper(db, bid, ev["seq"], {"outcome": {**ev["outcome"], "sw_broken": 0}})
    assert not rb.verify(bid).ok
