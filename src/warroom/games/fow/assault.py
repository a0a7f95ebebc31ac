"""Assaults (reference card): defensive fire, rounds of close combat, counterattack or
break off, until one side holds the ground."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, Literal

from pydantic import Field, model_validator

from warroom.engine.context import Dice, Stage, fixed
from warroom.engine.messages import msg, nmsg
from warroom.engine.procedure import OutcomeField, outcome, procedure
from warroom.engine.steps import Target
from warroom.errors import UsageError
from warroom.games.fow.common import (
    LABELS,
    TO_HIT,
    ExtraSaves,
    HitSpec,
    Motivation,
    Skill,
    motivation_target,
    resolve_spread,
    skill_target,
    team_chain,
)
from warroom.games.fow.passengers import Fate, passenger_losses
from warroom.games.fow.special_rules.params import RulesParams

Kind = Literal["infantry", "tank"]


@dataclass(frozen=True, slots=True)
class Side:
    """One side of the fight, worked out once per question."""

    name: str
    type: str
    label: Any            # the side's name as a translatable message
    to_hit: Target        # the skill test to hit in close combat
    morale: Target        # the motivation test (counterattack, fighting tanks)
    strikes: HitSpec      # how this side's hits on the other side are resolved
    unarmed: bool
    improvised: bool      # Improvised Tank Assault against the other side's tanks
    bulldog: bool         # British Bulldog: the counterattack test re-rolled


class AssaultParams(RulesParams):
    attackers: int = Field(3, ge=1, le=16, description="assaulting teams in contact")
    attacker_type: Kind = Field("infantry", description="infantry (or guns) or tanks")
    attacker_skill: Skill = Field("trained", description="the assaulting platoon's skill")
    attacker_motivation: Motivation = Field("confident",
                                            description="the assaulting platoon's motivation")
    attacker_armour: int = Field(1, ge=0, le=15, description="assaulting tanks: side armour "
                                 "(defensive fire)")
    attacker_open_topped: bool = Field(False, description="assaulting tanks are open-topped "
                                       "(e.g. Mounted Assault carriers): 5 defensive-fire "
                                       "hits also drive them back")
    attacker_top_armour: int = Field(1, ge=0, le=15, description="assaulting tanks: top armour")
    attacker_passengers: int = Field(0, ge=0, le=3, description="Mounted Assault: passenger "
                                     "teams aboard each assaulting carrier (0: none); the "
                                     "carriers fight as open-topped tanks")
    attacker_at: int = Field(2, ge=0, le=20, description="anti-tank of the assaulting teams "
                             "against tanks (infantry: 2)")
    attacker_firepower: int = Field(1, ge=1, le=6, description="firepower N+ of the "
                                    "assaulting teams against tanks")
    defenders: int = Field(3, ge=1, le=16, description="defending teams in the fight")
    defender_type: Kind = Field("infantry", description="infantry (or guns) or tanks")
    defender_skill: Skill = Field("trained", description="the defending platoon's skill")
    defender_motivation: Motivation = Field("confident",
                                            description="the defending platoon's motivation")
    defender_top_armour: int = Field(1, ge=0, le=15, description="defending tanks: top armour")
    defender_at: int = Field(2, ge=0, le=20, description="anti-tank of the defending teams "
                             "against tanks in assault (infantry: 2)")
    defender_firepower: int = Field(1, ge=1, le=6, description="firepower N+ of the "
                                    "defending teams against tanks in assault")
    defensive_dice: int = Field(0, ge=0, le=30, description="defensive fire dice (full ROF)")
    defensive_at: int = Field(2, ge=0, le=20, description="defensive fire anti-tank rating")
    defensive_firepower: int = Field(6, ge=1, le=6, description="defensive fire firepower N+")
    defensive_weapons: str = Field("", description="several defensive-fire weapons, each "
                                   "with its own anti-tank and firepower, as fow.shoot_mixed "
                                   "takes them (dice:AT:firepower, full ROF), e.g. "
                                   "4:2:6,2:11:3; instead of defensive_dice")
    attacker_teams: str = Field("", description="the assaulting teams as fow.shoot_mixed "
                                "takes them (tanks with their side armour), e.g. "
                                "tank:3,tank:3,infantry: defensive fire is allocated over "
                                "them (with defensive_weapons); as many as attackers")
    allocation: Literal["rules", "best"] = Field(
        "rules", description="how the charging platoon's owner allocates the hits of "
        "defensive_weapons where the rules leave a choice, as in fow.shoot_mixed: rules "
        "(our fixed order) or best (the fewest teams expected lost)")
    max_rounds: int = Field(10, ge=1, le=10, description="rounds resolved before calling it "
                            "undecided")

    @model_validator(mode="after")
    def _consistent(self) -> AssaultParams:
        if self.attacker_open_topped and self.attacker_type != "tank":
            raise UsageError("attacker_open_topped describes assaulting tanks: give "
                             "attacker_type=tank as well")
        if self.defensive_weapons or self.attacker_teams or self.allocation != "rules":
            _mixed_fire_allowed(self)
        if self.attacker_passengers and self.attacker_type != "tank":
            # FoW article on German special rules, Mounted Assault: carrying passengers,
            # the carriers are tanks in everything but platoon morale
            raise UsageError("attacker_passengers ride in Mounted Assault carriers, which "
                             "assault as tanks: give attacker_type=tank as well")
        return self


def _close_combat_hits(d: Dice, me: Side, foe: Side, teams: int, rule: str
                       ) -> tuple[Any, Any]:
    """One side's to-hit rolls in a round: (hits, own teams lost to Improvised Tank
    Assault). Unarmed teams must re-roll their hits."""
    t = me.to_hit
    reroll: Literal["none", "hits"] = "hits" if me.unarmed else "none"
    what = _WHAT[me.name, "to_hit"]
    if not me.improvised:
        return d.pool(teams, t, rule=f"{rule}.to_hit", what=what, reroll=reroll), 0
    faces, need = range(1, 7), t.final
    roll = d.split(teams, {"one": [1], "miss": [f for f in faces if 1 < f < need],
                           "hit": [f for f in faces if f >= need]},
                   rule=f"{rule}.to_hit", what=what, target=t)
    d.note(f"{rule}.improvised_tank_assault", "Improvised Tank Assault: a team that rolls "
           "a 1 is destroyed")
    hits = roll["hit"]
    if reroll == "hits":
        hits = d.pool(hits, t, rule=f"{rule}.to_hit", what=_WHAT[me.name, "rerolled"])
    return hits, roll["one"]


_WHAT = {(side, k): text.format(side=side) for side in ("attacker", "defender")
         for k, text in (("to_hit", "{side} to hit"), ("rerolled", "{side} hits re-rolled"),
                         ("tanks", "{side} motivation to fight tanks"),
                         ("counter", "{side} motivation to counterattack"))}
"""The names of each side's dice (catalogued messages), made once."""


@procedure(
    "fow.assault", title="Assault",
    summary="Defensive fire at the charging teams, then rounds of close combat: hits on "
            "skill, saves on top armour, a motivation test to counterattack or break off.",
    params=AssaultParams,
    outcome=outcome(
        OutcomeField("winner", "str", "who holds the ground",
                     ("attacker", "defender", "undecided")),
        ("attacker_losses", "int", "assaulting teams destroyed or bailed out"),
        ("defender_losses", "int", "defending teams destroyed or bailed out"),
        ("repelled", "bool", "defensive fire stopped the assault and it fell back"),
        ("rounds", "int", "rounds of close combat fought"),
        OutcomeField("passengers_destroyed", "int", "Mounted Assault: passenger teams "
                     "destroyed", shown_if="attacker_passengers")),
    source="FoW reference card, assault steps; FoW article on German special rules "
           "(Mounted Assault)",
    note="Infantry charging tanks first pass a motivation test, or the assault does not go "
         "in (the card: infantry fighting tanks test every round). Defensive fire uses full "
         "ROF and hits on the attackers' skill (2+/3+/4+); tanks save it with side armour. "
         "5 or more hits pin the assault and it falls back unless every attacker is a tank "
         "(10 with Quality of Quantity); a tank assault falls back when defensive fire "
         "destroys or bails out two of its tanks (FoW article, Mounted Assault, after the "
         "rulebook). In close combat every team rolls a skill test to hit; tanks save with "
         "top armour against the hitter's anti-tank (infantry 2) and firepower; infantry and "
         "guns hit in close combat are destroyed, as the card gives no save for them (our "
         "reading of the published rules). A side that was hit must pass a motivation test "
         "to counterattack, otherwise it breaks off; a side with no team hit counterattacks "
         "without a test unless it would assault tanks. That counterattack test is also "
         "the every-round test of infantry against tanks: there is no second one. British "
         "Bulldog re-rolls the counterattack test; Automatic Rifles re-roll defensive-fire "
         "misses. Bailed-out tanks count as out of the fight. Unarmed teams re-roll their "
         "hits; Improvised Tank Assault destroys a team that rolls a 1 to hit a tank; Tank "
         "Assault is the attacker_at/defender_at value (card). Up to 10 rounds: the card "
         "fights on until one side holds the ground; past max_rounds it is undecided. "
         "Schürzen (4+, side hits) and Improvised Armour (5+) guard assaulting tanks "
         "against defensive fire of firepower 5 or 6 (rules=), as in fow.shoot; close "
         "combat hits the top armour and is not shooting, so neither applies there. "
         "Open-topped tanks (attacker_open_topped, e.g. Mounted Assault carriers) also "
         "fall back on 5 defensive-fire hits, as well as on two tanks destroyed or bailed "
         "out (FoW article on German special rules, Mounted Assault). Mounted Assault "
         "(attacker_passengers=N, same article): carriers with passengers fight as "
         "open-topped tanks; a carrier destroyed by defensive fire loses its passengers "
         "as any armoured transport does (a 5+ save per hit that destroyed it: FoW article "
         "on the effects of hits, the one rule of fow.passengers), and its survivors fall "
         "back 5 cm out of the fight without pinning the platoon (with no room they would "
         "be destroyed: the table's geometry, not counted); a carrier destroyed in close "
         "combat loses every passenger. Passengers stay aboard to counterattack (the "
         "article lets them; the card says they dismount), so they never fight on foot "
         "here. Several defensive-fire weapons (defensive_weapons, each with its own AT "
         "and firepower) fire as fow.shoot_mixed does, its own stages: each hits on the "
         "attackers' skill at full ROF, the hits are allocated over the charging teams "
         "(attacker_teams, or attackers teams of attacker_type) by the shooting article's "
         "rules and each team rolls on its side armour; the hits in all pin. Then the "
         "survivors fight the rounds as attacker_type (close combat with a mixed platoon, "
         "tanks beside infantry, counts every survivor as that type: not yet by kind), and "
         "two tanks out drive the assault back only when every charging team is a tank.")
def assault(p: AssaultParams, d: Dice) -> Mapping[str, Any]:
    fight = _fight(*_Setup.key(p))
    start: Fight = (0, p.attackers, p.defenders, 0, "", False, 0)
    attackers, defenders = p.attackers, p.defenders

    def outcome(end: Fight, rounds: int) -> dict[str, Any]:
        _, att_left, def_left, _, winner, repelled, carried_lost = end
        return {"winner": winner or "undecided", "attacker_losses": attackers - att_left,
                "defender_losses": defenders - def_left, "repelled": repelled,
                "passengers_destroyed": carried_lost, "rounds": rounds}

    # the outcome of every last state (the exact driver maps each distinct one once)
    return d.finish(start, fight.rounds, rounds=p.max_rounds, done=_decided,
                    opening=fight.opening, outcome=outcome)


Fight = tuple[int, int, int, int, str, bool, int]
"""Between stages: (side striking next, teams fighting on each side, hits not yet
resolved, the winner ("" while undecided), whether defensive fire drove the assault
back, Mounted Assault passenger teams destroyed). Losses are the teams no longer
fighting; rounds are counted by the driver."""


def _decided(s: Fight) -> bool:
    return s[4] != ""


@dataclass(frozen=True, slots=True)
class _Setup:
    """Everything the stages depend on, worked out once per question (:func:`_fight`
    caches the stages by the plain parameter values of :meth:`key`)."""

    attackers: int
    defenders: int
    sides: tuple[Side, Side]
    defensive: int
    defensive_at: Target
    defensive_reroll: bool
    defensive_spec: HitSpec
    pin_at: int
    open_topped: bool  # open-topped tanks fall back on 5 hits too
    passengers: int  # Mounted Assault: passenger teams aboard each assaulting carrier
    mixed: Any  # several defensive-fire weapons: fow.shoot_mixed's stages and weapons
    all_tanks: bool  # every charging team is a tank (falling back: two tanks, not pins)

    @staticmethod
    def key(p: AssaultParams) -> tuple[Any, ...]:
        """The parameters the stages depend on, as plain values."""
        return (p.attackers, p.attacker_type, p.attacker_skill, p.attacker_motivation,
                p.attacker_armour, p.attacker_top_armour, p.attacker_at,
                p.attacker_firepower, p.defenders, p.defender_type, p.defender_skill,
                p.defender_motivation, p.defender_top_armour, p.defender_at,
                p.defender_firepower, p.defensive_dice, p.defensive_at,
                p.defensive_firepower, p.rules, p.target_rules, p.attacker_open_topped,
                p.attacker_passengers, p.defensive_weapons, p.attacker_teams, p.allocation)


def _setup(attackers: int, a_type: str, a_skill: str, a_motivation: str, a_armour: int,
           a_top: int, a_at: int, a_fp: int, defenders: int, d_type: str, d_skill: str,
           d_motivation: str, d_top: int, d_at: int, d_fp: int, dice: int, df_at: int,
           df_fp: int, rules: tuple[str, ...], target_rules: tuple[str, ...],
           open_topped: bool = False, passengers: int = 0, weapons: str = "",
           teams: str = "", allocation: str = "rules") -> _Setup:
    def side(name: str, kind: str, skill: str, motivation: str, at: int, fp: int,
             own: tuple[str, ...], foe_kind: str, foe_top: int) -> Side:
        strikes = HitSpec(target="tank" if foe_kind == "tank" else "infantry",
                          armour=foe_top, at=at, firepower=fp, no_save=True,
                          rule="fow.assault.saves")
        return Side(name, kind, msg(name), skill_target(skill),
                    motivation_target(motivation, own), strikes, "unarmed" in own,
                    "improvised_tank_assault" in own and foe_kind == "tank",
                    "british_bulldog" in own)

    sides = (side("attacker", a_type, a_skill, a_motivation, a_at, a_fp, rules, d_type, d_top),
             side("defender", d_type, d_skill, d_motivation, d_at, d_fp, target_rules,
                  a_type, a_top))
    df = Target.of(TO_HIT[a_skill], msg("assaulting teams are {skill}", skill=msg(a_skill)))
    # tanks save defensive fire with side armour (card), so Schürzen and Improvised
    # Armour guard them as against any side hit (shooting's own rule)
    tank = a_type == "tank"
    spec = HitSpec(target="tank" if tank else "infantry", armour=a_armour,
                   at=df_at, firepower=df_fp, rule="fow.assault.defensive_fire",
                   **(ExtraSaves.of(rules, True).against(df_fp) if tank else {}))
    # Quality of Quantity: a large assaulting Soviet company needs 10 defensive-fire hits
    pin = 10 if "quality_of_quantity" in rules else 5
    return _Setup(attackers, defenders, sides, dice, df, "automatic_rifles" in target_rules,
                  spec, pin, (open_topped or passengers > 0) and a_type == "tank",
                  passengers if a_type == "tank" else 0,
                  _mixed_fire(weapons, teams, attackers, a_type, a_armour, a_skill, rules,
                              target_rules, allocation),
                  tank and _all_tanks(teams))


@dataclass(frozen=True, slots=True)
class _Stages:
    opening: tuple[Stage[Fight], ...]
    rounds: tuple[Stage[Fight], ...]


@lru_cache(maxsize=256)
def _fight(*key: Any) -> _Stages:
    """The assault's stages for one question: the opening (the charge against tanks,
    defensive fire, its saves, falling back) and a round (hits, saves, counterattack).
    Made once per question and keyed by the parameters they depend on (``key``), so
    the exact driver memoises them without hashing what they capture."""
    setup = _setup(*key)
    attacker, defender = setup.sides
    rule = "fow.assault"

    def charge(s: Fight, d: Dice) -> Fight:
        # infantry fighting tanks test every round; for the assaulting side the first
        # test comes before it charges
        if d.test(attacker.morale, rule=f"{rule}.tank_terror",
                  what=_WHAT["attacker", "tanks"]):
            return s
        d.note(rule, "{side} will not charge the tanks: the assault does not go in",
               side=attacker.label)
        return (0, s[1], s[2], 0, defender.name, False, s[6])

    def defensive_fire(s: Fight, d: Dice) -> Fight:
        hits = d.pool(setup.defensive, setup.defensive_at, rule=f"{rule}.defensive_fire",
                      what="defensive fire",
                      reroll="misses" if setup.defensive_reroll else "none")
        return (0, s[1], s[2], hits, "", False, s[6])

    def defensive_saves(s: Fight, d: Dice) -> Fight:
        if setup.passengers:  # Mounted Assault carriers: their passengers' fate too
            out, lost = carriers_hit(d, s[3], s[1], setup.defensive_spec,
                                     setup.passengers, by_fire=True)
            return (0, s[1] - out, s[2], s[3], "", False, s[6] + lost)
        dead, bailed = resolve_spread(d, s[3], s[1], setup.defensive_spec, flat=False)
        return (0, s[1] - dead - bailed, s[2], s[3], "", False, s[6])

    def mixed_fire(s: Fight, d: Dice) -> Fight:
        # fow.shoot_mixed's stages (to hit, then the allocation over the charging teams
        # and their rolls) as one stage of the assault: its hits pin, its losses count
        (to_hit, resolve), n = setup.mixed
        shot = resolve(to_hit((0,) * (n + 3), d), d)
        return (0, s[1] - shot[n + 1] - shot[n + 2], s[2], shot[0], "", False, s[6])

    def fall_back(s: Fight, d: Dice) -> Fight:
        _, left, def_left, hits, _, _, lost = s
        if setup.all_tanks and setup.attackers - left >= 2:
            d.note(f"{rule}.defensive_fire", "defensive fire destroyed or bailed out two "
                   "assaulting tanks: the assault falls back")
        elif (hits >= setup.pin_at and (not setup.all_tanks or setup.open_topped)) \
                or left == 0:
            d.note(f"{rule}.defensive_fire", "the assault is pinned down and falls back")
        else:
            return (0, left, def_left, 0, "", False, lost)
        return (0, left, def_left, 0, defender.name, True, lost)

    def strike(s: Fight, d: Dice) -> Fight:
        active, left_a, left_d = s[0], s[1], s[2]
        me, foe = setup.sides[active], setup.sides[1 - active]
        hits, self_lost = _close_combat_hits(d, me, foe, left_d if active else left_a,
                                             f"{rule}.round{d.round}")
        if active == 0:
            return (0, left_a - self_lost, left_d, hits, "", False, s[6])
        return (1, left_a, left_d - self_lost, hits, "", False, s[6])

    def saves(s: Fight, d: Dice) -> Fight:
        active, left_a, left_d, hits = s[0], s[1], s[2], s[3]
        spec = _round_spec(setup.sides[active].strikes, f"{rule}.round{d.round}.saves")
        if active == 1 and setup.passengers:  # carriers destroyed lose every passenger
            out, lost = carriers_hit(d, hits, left_a, spec, setup.passengers, by_fire=False)
            return (1, left_a - out, left_d, hits, "", False, s[6] + lost)
        dead, bailed = resolve_spread(d, hits, left_a if active else left_d, spec, flat=False)
        if active == 0:
            return (0, left_a, left_d - dead - bailed, hits, "", False, s[6])
        return (1, left_a - dead - bailed, left_d, hits, "", False, s[6])

    def counterattack(s: Fight, d: Dice) -> Fight:
        active, left_a, left_d, hits = s[0], s[1], s[2], s[3]
        me, foe = setup.sides[active], setup.sides[1 - active]
        here = f"{rule}.round{d.round}"
        left = (left_a, left_d)
        for beaten in (1 - active, active):
            if left[beaten] == 0:
                d.note(here, "{side} has no fighting teams left: {winner} takes the ground",
                       side=setup.sides[beaten].label, winner=setup.sides[1 - beaten].label)
                return (0, left_a, left_d, 0, setup.sides[1 - beaten].name, False, s[6])
        if not hits and me.type != "tank":
            d.note(here, "{side} took no hits and counterattacks", side=foe.label)
            return (1 - active, left_a, left_d, 0, "", False, s[6])
        if not hits:
            # the card: no test when no team was hit, unless assaulting tanks; for
            # infantry it is also the every-round test against tanks
            d.note(here, "{side} took no hits but must test to counterattack tanks",
                   side=foe.label)
        if d.test(foe.morale, rule=f"{here}.counterattack", what=_WHAT[foe.name, "counter"],
                  reroll=foe.bulldog):
            return (1 - active, left_a, left_d, 0, "", False, s[6])
        d.note(here, "{side} breaks off: {winner} takes the ground", side=foe.label,
               winner=me.label)
        return (0, left_a, left_d, 0, me.name, False, s[6])

    opening: list[Stage[Fight]] = []
    if attacker.type == "infantry" and defender.type == "tank":
        opening.append(charge)
    if setup.mixed is not None:  # several weapons: fow.shoot_mixed's own fire
        opening += [mixed_fire, fall_back]
    elif setup.defensive:
        opening += [defensive_fire, defensive_saves, fall_back]
    def keyed(stage: Stage[Fight]) -> Stage[Fight]:
        return fixed(stage, ("fow.assault", key, stage.__name__))

    return _Stages(tuple(map(keyed, opening)), (keyed(strike), keyed(saves),
                                                keyed(counterattack)))


@lru_cache(maxsize=1024)
def _round_spec(spec: HitSpec, rule: str) -> HitSpec:
    """The hits of a round, named after it in the story."""
    return replace(spec, rule=rule)


PROCEDURES = (assault,)


def carriers_hit(d: Dice, hits: Any, carriers: int, spec: HitSpec, passengers: int, *,
                 by_fire: bool) -> tuple[Any, Any]:
    """Mounted Assault (FoW article on German special rules): ``hits`` spread evenly over
    the assaulting ``carriers`` (rule 1 of the allocation), each carrier rolling as a tank
    with ``passengers`` teams aboard. Returns (carriers out of the fight: destroyed or
    bailed out, passenger teams destroyed). Destroyed by defensive fire (``by_fire``), a
    carrier's passengers save as any armoured transport's (``passengers.passenger_losses``);
    destroyed in close combat, every one is lost."""
    q, r = divmod(int(hits), carriers)  # the spread depends on the hits: known here
    if hits:
        d.note(f"{spec.rule}.mounted_assault", "Mounted Assault: the surviving passengers "
               "of a carrier destroyed by defensive fire fall back 5 cm out of the fight"
               if by_fire else "Mounted Assault: a carrier destroyed in close combat loses "
               "every passenger")
    out: Any = 0
    lost: Any = 0
    for count, k in ((r, q + 1), (carriers - r, q)):
        if count <= 0 or k <= 0:
            continue
        chain = _carrier_chain(spec, k, passengers, by_fire)
        labels = _carrier_labels(passengers)
        res = d.each(count, chain, labels, rule=f"{spec.rule}.team",
                     what=nmsg("carrier with one hit", "carrier with {n} hits", n=k))
        for name, (gone, dead) in zip(labels, _CARRIER_MEANING[passengers], strict=True):
            if gone:
                out = out + res[name]
            if dead:
                lost = lost + dead * res[name]
    return out, lost


def _carrier_labels(passengers: int) -> tuple[str, ...]:
    return tuple(name for name, _ in _carrier_results(passengers))


def _carrier_results(passengers: int) -> tuple[tuple[str, tuple[bool, int]], ...]:
    """A carrier's results (catalogued words): fighting, bailed out, destroyed with so
    many passenger teams lost."""
    return (("fighting", (False, 0)), ("bailed_out", (True, 0)),
            *((_DESTROYED_WITH[k], (True, k)) for k in range(passengers + 1)))


_DESTROYED_WITH = ("destroyed, no passenger team lost", "destroyed, 1 passenger team lost",
                   "destroyed, 2 passenger teams lost", "destroyed, 3 passenger teams lost")
_CARRIER_MEANING = {n: tuple(m for _, m in _carrier_results(n)) for n in range(4)}


@lru_cache(maxsize=256)
def _carrier_chain(spec: HitSpec, k: int, passengers: int, by_fire: bool) -> Any:
    """One carrier's rolls for its ``k`` hits, each hit its own armour save (so the hits
    that destroyed it are known), then its passengers' saves."""
    fate = Fate("armoured", passengers)

    def chain(d: Dice) -> str:
        res = d.each(k, team_chain(spec, 1), LABELS, rule=f"{spec.rule}.hit", what="hit")
        killing = int(res["destroyed"])
        if not killing:
            return "bailed_out" if int(res["bailed_out"]) else "fighting"
        if not by_fire:
            return _DESTROYED_WITH[passengers]
        return _DESTROYED_WITH[int(passenger_losses(d, fate, killing, "destroyed"))]

    return fixed(chain)


def _mixed_fire_allowed(p: AssaultParams) -> None:
    """Several defensive-fire weapons replace the one weapon line; the charging teams
    are the attackers; not yet with Mounted Assault passengers or Automatic Rifles."""
    from warroom.games.fow import mixed

    if not p.defensive_weapons:
        raise UsageError("attacker_teams and allocation tell defensive fire where its hits "
                         "go: give defensive_weapons as well")
    if p.defensive_dice:
        raise UsageError("defensive_weapons replaces defensive_dice, defensive_at and "
                         "defensive_firepower: give one or the other")
    if p.attacker_passengers:
        raise UsageError("defensive_weapons with attacker_passengers: not yet")
    if "automatic_rifles" in p.target_rules:
        raise UsageError("defensive_weapons with Automatic Rifles: not yet (give their "
                         "dice as defensive_dice)")
    if p.attacker_teams:
        teams = mixed.parse_teams(p.attacker_teams)
        if len(teams) != p.attackers:
            raise UsageError("attacker_teams and attackers disagree: give attackers={n}, the "
                             "number of teams listed", n=len(teams))
    mixed.parse_weapons(p.defensive_weapons)


@lru_cache(maxsize=256)
def _mixed_fire(weapons: str, teams: str, attackers: int, a_type: str, a_armour: int,
                a_skill: str, rules: tuple[str, ...], target_rules: tuple[str, ...],
                allocation: str = "rules") -> tuple[Any, int] | None:
    """fow.shoot_mixed's stages for the defenders' weapons at the charging teams: they
    hit on the attackers' skill, tanks save on their side armour (card), the attackers'
    Schürzen and Improvised Armour apply; with no ``teams`` given, ``attackers`` teams
    of the attackers' type."""
    if not weapons:
        return None
    from warroom.games.fow import mixed

    if not teams:
        one = f"tank:{a_armour}" if a_type == "tank" else "infantry"
        teams = ",".join([one] * attackers)
    p = mixed.MixedParams(weapons=weapons, teams=teams, target_skill=a_skill,
                          aspect="side", rules=target_rules, target_rules=rules,
                          allocation=allocation)
    return mixed.fire_stages(p), len(mixed.parse_weapons(weapons))


def _all_tanks(teams: str) -> bool:
    """Every team of ``attacker_teams`` is a tank (none given: the attackers' type)."""
    from warroom.games.fow import mixed

    return all(t.kind == "tank" for t in mixed.parse_teams(teams)) if teams else True
