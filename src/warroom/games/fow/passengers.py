"""Passengers when their transport is hit (article part 5), and dismounting under fire."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from warroom.engine.context import Dice
from warroom.engine.messages import msg
from warroom.engine.procedure import outcome, procedure
from warroom.engine.steps import Target
from warroom.games.fow.common import Motivation, motivation_target
from warroom.games.fow.special_rules.params import RulesParams


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

    @model_validator(mode="after")
    def _consistent(self) -> PassengerParams:
        if self.transport != "armoured" and self.vehicle_result != "destroyed":
            raise ValueError("vehicle_result only applies to armoured transports")
        return self


def _passenger_chain(k: int, at: int = 5) -> Any:
    def chain(d: Dice) -> str:
        saved = d.pool(k, Target.of(at, msg("passenger save")), rule="fow.passengers.save",
                       what="passenger saves")
        return "destroyed" if saved < k else "safe"
    return chain


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
    source="seed 002: 'Jak się gra we Flames of War' part 5",
    note="Armoured transport: passengers save only if the vehicle is destroyed, one 5+ save "
         "per hit that destroyed it; then the transport platoon tests motivation: passed, "
         "the passengers stay aboard (or remount); failed, everyone dismounts under fire and "
         "the transports go to the rear. Unarmoured transport: the vehicle saves on 5+ per "
         "hit and every passenger saves on 5+ per hit either way; if the vehicle is "
         "destroyed the passengers dismount under fire, the platoon is pinned and all its "
         "unarmoured transports are destroyed. Tank riders: each rider saves on 5+ per hit "
         "on the tank, with no firepower test, and the survivors dismount. Pinning the "
         "riders' platoon follows the published dismounting-under-fire rule. In this procedure "
         "`rules` are the passengers' side's: Tank Rider Companies save on 3+ and stay "
         "aboard.")
def passengers(p: PassengerParams, d: Dice) -> dict[str, Any]:
    labels = ("destroyed", "safe")
    if p.transport == "armoured":
        lost: Any = 0
        if p.vehicle_result == "destroyed":
            lost = d.each(p.passengers, _passenger_chain(p.hits), labels,
                          rule="fow.passengers.save", what="passenger team")["destroyed"]
        ok = d.test(motivation_target(p.motivation, p.rules), rule="fow.passengers.motivation",
                    what="transport platoon motivation test", reroll=p.reroll)
        destroyed = p.vehicle_result == "destroyed"
        dismount = destroyed or not ok
        return {"passengers_destroyed": lost, "transport_destroyed": destroyed,
                "dismounted": dismount, "pinned": dismount, "sent_to_rear": not ok}
    if p.transport == "unarmoured":
        saved = d.pool(p.hits, Target.of(5, msg("unarmoured vehicle save")),
                       rule="fow.passengers.vehicle", what="vehicle saves")
        gone = saved < p.hits
        lost = d.each(p.passengers, _passenger_chain(p.hits), labels,
                      rule="fow.passengers.save", what="passenger team")["destroyed"]
        return {"passengers_destroyed": lost, "transport_destroyed": gone,
                "dismounted": gone, "pinned": gone, "sent_to_rear": False}
    riders = p.has("tank_rider_companies")
    if riders:
        d.note("fow.passengers.riders", "tank rider company: saves on 3+ and stays aboard")
    lost = d.each(p.passengers, _passenger_chain(p.hits, 3 if riders else 5), labels,
                  rule="fow.passengers.save", what="rider team")["destroyed"]
    return {"passengers_destroyed": lost, "transport_destroyed": False,
            "dismounted": not riders, "pinned": not riders, "sent_to_rear": False}


PROCEDURES = (passengers,)
