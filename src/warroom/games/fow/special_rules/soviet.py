"""Soviet special rules that are procedures of their own: Komissar and Infiltration.

Sources: the Soviet part of the card (the FoW reference card) and the Soviet special rules article
(the FoW article). Under Centralised Control a Soviet company plays as a platoon and a
battalion as a company; the texts below say "company" where the article does.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from warroom.engine.context import Dice
from warroom.engine.messages import Msg
from warroom.engine.procedure import OutcomeField, Procedure, outcome, procedure
from warroom.games.fow.special_rules.common import Motivation, motivation_target
from warroom.games.fow.special_rules.params import RulesParams

SOURCE = "FoW reference card, Soviet rules; FoW article on Soviet special rules"

# --- Komissar -----------------------------------------------------------------------

TestKind = Literal["unpin", "counterattack", "platoon_morale", "other"]


class KomissarParams(RulesParams):
    motivation: Motivation = Field("confident", description="the company's motivation")
    test: TestKind = Field(
        "platoon_morale",
        description="which motivation test: unpin, counterattack, platoon_morale, or other "
                    "(Tank Terror and the rest: no Komissar re-roll)")
    commander_reroll: bool = Field(
        False, description="a battalion (or higher) commander is attached: a failure is "
                           "re-rolled for him first")
    komissar: Literal["company", "battalion", "none"] = Field(
        "company", description="who acts: the company Komissar, the battalion Komissar "
                               "who joined the company (he takes over), or none")
    in_command: bool = Field(True, description="the Komissar is within command distance")
    komissar_assaulting: bool = Field(
        True, description="counterattack only: the Komissar is one of the assaulting teams")
    teams_available: int = Field(
        3, ge=0, le=60,
        description="infantry or gun teams of the company within the Komissar's command "
                    "distance that he may destroy (not heroes, independents, or himself)")
    use_komissar: bool = Field(True, description="force the re-roll if the test still fails")


def _komissar_bar(p: KomissarParams) -> str | None:
    if p.komissar == "none" or not p.use_komissar:
        return "no Komissar re-roll is made"
    if p.test == "other":
        return "the Komissar only acts on tests to unpin, to counterattack and platoon morale"
    if p.test == "counterattack" and not p.komissar_assaulting:
        return "to counterattack the Komissar must be an assaulting team"
    if not p.in_command:
        return "the Komissar is out of command distance"
    if p.teams_available < 1:
        return "there is no team within his command distance he may destroy"
    return None


@procedure(
    "fow.komissar",
    title="Komissar re-roll",
    summary="A failed motivation test to unpin, counterattack or for platoon morale may be "
            "re-rolled once the Komissar destroys one of his own teams; a re-rolled 1 is a "
            "mutiny that also destroys the Komissar.",
    params=KomissarParams,
    outcome=outcome(
        ("passed", "bool", "the motivation test is passed in the end"),
        ("team_destroyed", "bool", "the Komissar destroyed a team to force a re-roll"),
        ("komissar_destroyed", "bool", "the re-roll was a 1: mutiny, the Komissar dies"),
        OutcomeField("decided_by", "str", "which roll gave the final result",
                     ("first_test", "commander_reroll", "komissar_reroll")),
    ),
    source=SOURCE,
    note="Order: the first test; then the re-roll for an attached battalion or higher "
         "commander; then the Komissar's re-roll, an allowed exception to re-rolling a test "
         "only once. A battalion Komissar who joins a company takes the company Komissar's "
         "place (the company Komissar has no effect meanwhile). Shtraf companies and For the "
         "Fatherland! pass on 2+; a 1 still fails and on the Komissar's re-roll it is a "
         "mutiny.",
)
def komissar(p: KomissarParams, d: Dice) -> dict[str, Any]:
    t = motivation_target(p.motivation, p.rules)
    result = {"passed": True, "team_destroyed": False, "komissar_destroyed": False,
              "decided_by": "first_test"}
    if d.test(t, rule="fow.komissar.test", what="motivation test"):
        return result
    if p.commander_reroll:
        result["decided_by"] = "commander_reroll"
        if d.test(t, rule="fow.komissar.commander",
                  what="re-roll for the attached commander"):
            return result
    bar = _komissar_bar(p)
    if bar is not None:
        d.note("fow.komissar.allowed", "No Komissar re-roll: {reason}.", reason=Msg(bar))
        result["passed"] = False
        return result
    who = "battalion Komissar" if p.komissar == "battalion" else "company Komissar"
    d.note("fow.komissar.shoot",
           "The {who} destroys one team of the company within his command distance and "
           "forces a re-roll.", who=Msg(who))
    face = d.die(rule="fow.komissar.reroll", what="Komissar re-roll", target=t)
    result.update(team_destroyed=True, decided_by="komissar_reroll")
    if face == 1:
        d.note("fow.komissar.mutiny",
               "A 1: the soldiers mutiny. The test fails and the {who} is destroyed.",
               who=Msg(who))
        result.update(passed=False, komissar_destroyed=True)
        return result
    passed = face >= t.final
    d.note("fow.komissar.result", "Re-rolled {face} against {at}+: {verdict}.", face=face,
           at=t.final, verdict=Msg("passed") if passed else Msg("failed"))
    result["passed"] = passed
    return result


# --- Infiltration -------------------------------------------------------------------


class InfiltrationParams(RulesParams):
    prepared_positions: bool = Field(True, description="the mission uses Prepared Positions")
    attacking_first_turn: bool = Field(
        True, description="the infiltrating side attacks and has the first turn")
    in_sight_within_40cm: bool = Field(
        False, description="an infiltrating team ended within 40 cm and in line of sight "
                           "of an enemy team (heroes and independents do not count)")
    concealed: bool = Field(True, description="that team is concealed from the enemy team")
    enemy_recce: bool = Field(False, description="that enemy team is a reconnaissance team")


@procedure(
    "fow.infiltration",
    title="Infiltration detection",
    summary="After infiltrating up to 40 cm, the infiltrators are spotted automatically if "
            "seen in the open nearby, otherwise on the enemy's roll of 6; if spotted, the "
            "enemy takes the first turn.",
    params=InfiltrationParams,
    outcome=outcome(
        ("allowed", "bool", "the mission and turn allow infiltration"),
        ("detected", "bool", "the infiltrators were detected"),
        ("loses_first_turn", "bool", "the infiltrating player hands the first turn over"),
    ),
    source=SOURCE,
    note="Instead of the reconnaissance deployment move, the infiltrating platoon, one "
         "company of the named kind and heroes joined to it move up to 40 cm, staying in "
         "command, testing for difficult going, never closer than 20 cm to the enemy.",
)
def infiltration(p: InfiltrationParams, d: Dice) -> dict[str, Any]:
    if not (p.prepared_positions and p.attacking_first_turn):
        d.note("fow.infiltration.allowed",
               "Infiltration is only for the attacker with the first turn in a mission with "
               "Prepared Positions.")
        return {"allowed": False, "detected": False, "loses_first_turn": False}
    if p.in_sight_within_40cm and (not p.concealed or p.enemy_recce):
        why = ("a reconnaissance team sees them" if p.enemy_recce
               else "they are in the open within 40 cm of the enemy")
        d.note("fow.infiltration.detect", "Detected automatically: {reason}.",
               reason=Msg(why))
        detected = True
    else:
        face = d.die(rule="fow.infiltration.detect", what="enemy detection roll")
        detected = face == 6
        d.note("fow.infiltration.detect", "The enemy rolled {face}: {verdict}.", face=face,
               verdict=Msg("a 6, detected") if detected else Msg("not detected"))
    if detected:
        d.note("fow.infiltration.turn", "Detected: the enemy takes the first turn.")
    return {"allowed": True, "detected": detected, "loses_first_turn": detected}


PROCEDURES: tuple[Procedure, ...] = (komissar, infiltration)
