"""Advanced Squad Leader: the Infantry Fire Table, morale, leaders and Close Combat,
from the ASL reference card and the ASL Rulebook."""

from __future__ import annotations

from warroom.engine.registry import GameSystem


def system() -> GameSystem:
    from warroom.games.asl import play, tables, units
    from warroom.games.asl.cc import ambush, cct
    from warroom.games.asl.group import fire_group, rally
    from warroom.games.asl.ift import ift
    from warroom.games.asl.morale import leader_wound, mc
    from warroom.games.asl.stack import ift_on_stack

    return GameSystem(
        "asl", "Advanced Squad Leader",
        (ift, mc, ift_on_stack, fire_group, rally, leader_wound, cct, ambush),
        tables=tables.tables(), phases=play.PHASES, markers=play.MARKERS,
        profile=units.AslStack, takes=units.takes(),
        description="Infantry Fire Table, morale checks, leader wounds and Close Combat "
                    "from the ASL reference card; the sequence of play is in the tables.",
    )
