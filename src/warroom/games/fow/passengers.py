"""Passengers when their transport is hit (article part 5), and dismounting under fire."""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated, Any, Literal, NamedTuple

from pydantic import Field, model_validator

from warroom.engine.context import Dice, fixed
from warroom.engine.messages import msg, nmsg
from warroom.engine.procedure import outcome, procedure
from warroom.engine.steps import Target
from warroom.games.fow.common import Motivation, motivation_target
from warroom.games.fow.special_rules.params import RulesParams

Room = Annotated[int, Field(ge=0, le=8, description="passenger teams that have room to "
                            "dismount under fire; survivors beyond it are destroyed")]
"""The ``room`` parameter of fow.passengers and of fow.shoot with passengers."""


class PassengerParams(RulesParams):
    transport: Literal["armoured", "unarmoured", "tank"] = Field(
        "armoured", description="armoured transport, unarmoured transport, or riders on a tank")
    passengers: int = Field(2, ge=1, le=8, description="passenger teams in the vehicle hit")
    hits: int = Field(1, ge=1, le=6, description="hits on the vehicle (armoured: the hits "
                      "that destroyed it)")
    vehicle_result: Literal["destroyed", "bailed_out"] = Field(
        "destroyed", description="armoured transports: what the hits did to the vehicle")
    motivation: Motivation = Field("confident", description="the transport platoon's "
                                   "motivation (armoured transports)")
    reroll: bool = Field(False, description="re-roll a failed motivation test")
    time_on_target: bool = Field(False, description="the vehicle was hit by a Time on Target "
                                 "bombardment: successful passenger saves are re-rolled")
    room: Room = 8

    @model_validator(mode="after")
    def _consistent(self) -> PassengerParams:
        if self.transport != "armoured" and self.vehicle_result != "destroyed":
            raise ValueError("vehicle_result only applies to armoured transports")
        return self


NOTE = ("Armoured transport: passengers save only if the vehicle is destroyed, one 5+ save "
        "per hit that destroyed it; then the transport platoon tests motivation: passed, the "
        "passengers stay aboard (or remount); failed, everyone dismounts under fire and the "
        "transports go to the rear. Unarmoured transport: the vehicle saves on 5+ per hit and"
        " every passenger saves on 5+ per hit either way; if the vehicle is destroyed the "
        "passengers dismount under fire, the platoon is pinned and all its unarmoured "
        "transports are destroyed. Tank riders: each rider saves on 5+ per hit on the tank, "
        "with no firepower test, and the survivors dismount. Pinning the riders' platoon "
        "follows the published dismounting-under-fire rule. In this procedure `rules` are the"
        " passengers' side's: Tank Rider Companies save on 3+ and stay aboard. Time on "
        "Target: every team hit by it, and its passengers, re-roll successful saves (US "
        "article); time_on_target says the hits came from one. Survivors that must dismount "
        "under fire with no room are destroyed (article on the effects of hits): room says "
        "how many have room. Only survivors dismount: when every passenger team is lost "
        "nobody does, and the platoon is pinned all the same.")


@lru_cache(maxsize=64)
def _passenger_chain(k: int, at: int = 5, tot: bool = False) -> Any:
    def chain(d: Dice) -> str:
        saved = d.pool(k, Target.of(at, msg("passenger save")), rule="fow.passengers.save",
                       what="passenger saves", reroll="hits" if tot else "none")
        return "destroyed" if saved < k else "safe"
    return fixed(chain)


class Fate(NamedTuple):
    """What happens to the passengers of one vehicle that was hit."""

    transport: str  # armoured | unarmoured | tank
    passengers: int
    motivation: str = "confident"
    reroll: bool = False
    tot: bool = False  # Time on Target: successful saves re-rolled
    room: int = 8
    rules: tuple[str, ...] = ()  # the passengers' side's special rules


def passenger_losses(d: Dice, f: Fate, hits: int, vehicle: str) -> Any:
    """The passenger teams of one vehicle lost to its ``hits`` (armoured: the hits that
    destroyed it, saved only when ``vehicle`` is destroyed; unarmoured: every hit on it,
    destroyed or not; riders on a tank: every hit on the tank, 3+ for a Tank Rider
    Company), one 5+ save per hit for each team (FoW article on the effects of hits)."""
    if not hits or (f.transport == "armoured" and vehicle != "destroyed"):
        return 0
    at = 3 if f.transport == "tank" and "tank_rider_companies" in f.rules else 5
    return d.each(f.passengers, _passenger_chain(hits, at, f.tot), ("destroyed", "safe"),
                  rule="fow.passengers.save",
                  what="rider team" if f.transport == "tank" else "passenger team"
                  )["destroyed"]


def transport_test(d: Dice, f: Fate) -> Any:
    """The transport platoon's motivation test when an armoured transport is destroyed
    or bailed out: passed, the passengers stay aboard (or remount); failed, everyone
    dismounts under fire and the transports go to the rear."""
    return d.test(motivation_target(f.motivation, f.rules), rule="fow.passengers.motivation",
                  what="transport platoon motivation test", reroll=f.reroll)


def passenger_fate(d: Dice, f: Fate, hits: Any, vehicle: str) -> dict[str, Any]:
    """The passengers' saves and dismounting for a vehicle that took ``hits`` hits
    (armoured: the hits that destroyed it) with the result ``vehicle`` (destroyed,
    bailed_out or unharmed; an unarmoured transport rolls its own saves when ``vehicle``
    is empty)."""
    if f.tot:
        d.note("fow.passengers.tot", "Time on Target: successful passenger saves are re-rolled")
    if f.transport == "armoured":
        lost = passenger_losses(d, f, int(hits), vehicle)
        ok = vehicle == "unharmed" or transport_test(d, f)
        destroyed = vehicle == "destroyed"
        dismount = destroyed or not ok
        return _no_room(d, f, lost, dismount, destroyed, dismount, not ok)
    if f.transport == "unarmoured":
        gone = vehicle == "destroyed"
        if not vehicle:
            saved = d.pool(hits, Target.of(5, msg("unarmoured vehicle save")),
                           rule="fow.passengers.vehicle", what="vehicle saves")
            gone = saved < hits
        lost = passenger_losses(d, f, int(hits), vehicle)
        return _no_room(d, f, lost, gone, gone, gone, False)
    riders = "tank_rider_companies" in f.rules
    if riders:
        d.note("fow.passengers.riders", "tank rider company: saves on 3+ and stays aboard")
    if not int(hits):
        return _no_room(d, f, 0, False, False, False, False)
    lost = passenger_losses(d, f, int(hits), vehicle)
    return _no_room(d, f, lost, not riders, False, not riders, False)


def _no_room(d: Dice, f: Fate, lost: Any, dismount: bool, destroyed: bool, pinned: bool,
             rear: bool) -> dict[str, Any]:
    """Survivors dismounting under fire with no room are destroyed (article part 5)."""
    if dismount and f.room < f.passengers:
        over = f.passengers - int(lost) - f.room
        if over > 0:
            d.note("fow.passengers.room", nmsg(
                "no room to dismount: one more passenger team is destroyed",
                "no room to dismount: {n} more passenger teams are destroyed", n=over))
            lost = int(lost) + over
    # only survivors dismount: with every passenger team lost nobody does (the platoon
    # is pinned all the same: the article pins it because the vehicle was destroyed)
    if dismount:
        dismount = lost < f.passengers  # lazy under the exact driver: no branching
    return {"passengers_destroyed": lost, "transport_destroyed": destroyed,
            "dismounted": dismount, "pinned": pinned, "sent_to_rear": rear}


@procedure(
    "fow.passengers", title="Passengers of a vehicle that was hit",
    summary="Passenger saves on 5+, one per hit on the vehicle, and whether the "
            "passengers must dismount under fire.",
    params=PassengerParams,
    outcome=outcome(("passengers_destroyed", "int", "passenger teams destroyed"),
                    ("transport_destroyed", "bool", "the vehicle carrying them is destroyed"),
                    ("dismounted", "bool", "the survivors dismount under fire"),
                    ("pinned", "bool", "the passengers' platoon is pinned down"),
                    ("sent_to_rear", "bool", "armoured transports: the failed motivation "
                     "test sends the platoon's transports to the rear")),
    source="FoW article on the effects of hits (passengers, dismounting under fire); "
           "US article (Time on Target)",
    note=NOTE)
def passengers(p: PassengerParams, d: Dice) -> dict[str, Any]:
    f = Fate(p.transport, p.passengers, p.motivation, p.reroll, p.time_on_target, p.room,
             p.rules)
    if p.transport == "armoured":
        return passenger_fate(d, f, p.hits, p.vehicle_result)
    return passenger_fate(d, f, p.hits, "")


PROCEDURES = (passengers,)
