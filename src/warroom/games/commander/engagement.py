"""An engagement over several turns (Blitzkrieg Commander, Cold War Commander): the same
attack on one unit, a few times a turn, turn after turn, until the unit is destroyed.

Each attack is the game's own fire procedure, run on the unit's hits and suppression so
far this turn; the end phase removes the hit markers and the unit recovers from
suppression before the attacker's next turn (reference card, end phase). The attacks are
the rounds of :meth:`Dice.stages` over (hits this turn, suppressed, destroyed, attacks
made this turn), so equal states merge."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from pydantic import Field

from warroom.engine.context import Dice, Stage, fixed
from warroom.engine.procedure import Params, Procedure, outcome
from warroom.games.commander import params as P
from warroom.games.commander.data import Rules

State = tuple[int, bool, bool, int, bool]
"""Between attacks: (hits on the unit this turn, suppressed, destroyed, attacks made in
this turn, suppressed when the last turn ended). After a turn's last attack the end
phase clears the hits and the suppression at once, so turns that end alike merge."""


def _destroyed(s: State) -> bool:
    return s[2]


def engagement(rules: Rules, fire: Procedure) -> Procedure:
    """``{game}.engagement``: ``fire`` (the game's fire procedure) repeated over turns."""
    g = rules.id
    fields = {
        "turns": (int, Field(3, ge=1, le=10, description="turns of the same fire")),
        "attacks_per_turn": (int, Field(1, ge=1, le=4, description="attacks on the unit in "
                                        "each of the turns, one after another")),
    }
    params = P.build(f"{g.upper()}EngagementParams", fire.params, fields)

    def run(p: Any, d: Dice) -> dict[str, Any]:
        k = p.attacks_per_turn
        start: State = (p.existing_hits, p.suppressed, False, 0, False)
        end, attacks = d.stages(start, (_attack(fire, p),), rounds=p.turns * k,
                                done=_destroyed)
        return {"destroyed": end[2], "turn": max(1, (attacks + k - 1) // k),
                "suppressed": end[4] and not end[2]}

    note = ("Every attack is the fire procedure with the same parameters, on the hits "
            "and suppression the unit took so far in this turn (existing_hits and "
            "suppressed are the unit's state before the first attack). The end phase "
            "removes every hit marker and a suppressed unit recovers before the attacker's "
            "next turn (reference card, end phase), so each later turn starts afresh. A "
            "unit is destroyed by hits reaching its hits value or by a retreat beyond the "
            "limit. Damage rolls and battlegroup breakpoints are not counted.")
    return Procedure(
        f"{g}.engagement", "engagement over several turns",
        "The same attack on one unit, a few times a turn, turn after turn: the odds that "
        "it is destroyed within the turns given.", params,
        outcome(("destroyed", "bool", "the unit was destroyed"),
                ("turn", "int", "the turn the engagement ended (the last turn when the "
                                 "unit survived)"),
                ("suppressed", "bool", "suppressed after the last attack (false if "
                                       "destroyed)")),
        run, rules.source, note, cost=_cost)


def _cost(p: Any) -> int:
    """What exact odds cost, in small replays (measured): a unit that takes hits from
    several attacks in a turn is worked out for every count of hits so far, and a
    suppressed one rolls a retreat die per hit; a turn of one attack is cheap."""
    dice: int = {"none": sum(p.units()), "d6": 6, "2d6": 12}[p.attacks_roll]
    k: int = p.attacks_per_turn
    hits: int = p.hits_value
    return 20 * dice * dice * (k - 1) * hits


@lru_cache(maxsize=256)
def _attack(fire: Procedure, p: Params) -> Stage[State]:
    """One attack as a stage, for one question (keyed by the procedure and its frozen,
    hashable parameters, so the exact driver memoises it across attacks)."""
    k: int = p.attacks_per_turn  # type: ignore[attr-defined]

    def attack(s: State, d: Dice) -> State:
        hits, suppressed, _, made, _ = s
        out = fire.run(p.model_copy(update={"existing_hits": hits, "suppressed": suppressed}),
                       d)
        dead, now = bool(out["destroyed"]), bool(out["suppressed"])
        if made + 1 == k:  # the end phase: hit markers removed, suppression gone
            return (0, False, dead, 0, now)
        return (hits + out["hits"], now, dead, made + 1, False)

    return fixed(attack, (fire.id, "engagement", p))
