"""Direct fire: one platoon's fire at one target platoon, to the end of hit effects
(articles part 4 and part 5), and the hit-allocation rules of part 4."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from warroom.engine.context import Dice
from warroom.engine.messages import msg, nmsg
from warroom.engine.procedure import OutcomeField, outcome, procedure
from warroom.engine.steps import Target
from warroom.errors import UsageError
from warroom.games.fow.common import (
    LABELS,
    TO_HIT,
    Aspect,
    ExtraSaves,
    HitSpec,
    Motivation,
    Skill,
    TargetType,
    resolve_spread,
    team_chain,
)
from warroom.games.fow.passengers import Fate, Room, passenger_fate
from warroom.games.fow.special_rules.params import RulesParams

LONG_RANGE_CM = 40


class FireParams(RulesParams):
    """One platoon's fire at one target platoon (fow.shoot without passengers, and every
    turn of fow.engagement)."""

    dice: int = Field(3, ge=0, le=60, description="attack dice after ROF")
    target_skill: Skill = Field("trained", description="the target platoon's skill")
    concealed: bool = Field(False, description="the target is concealed")
    gone_to_ground: bool = Field(False, description="the target has gone to ground")
    range_cm: int = Field(20, ge=0, le=400, description="range in cm (over 40: +1 to hit, "
                          "+1 armour for tanks)")
    moving_rof1: bool = Field(False, description="the weapon has ROF 1 and moved: +1 to hit")
    pinned_rof1: bool = Field(False, description="the weapon has ROF 1 and its team is "
                              "pinned down: +1 to hit (once, even if it also moved)")
    hits_before: int = Field(0, ge=0, le=60, description="hits the target platoon already "
                             "took in this shooting step (pinning counts them all)")
    target_at_double: bool = Field(False, description="the target moved at the double: "
                                   "the attack dice are doubled")
    target: TargetType = Field("infantry", description="tank, infantry, gun or soft "
                               "(unarmoured vehicle)")
    teams: int = Field(1, ge=1, le=20, description="valid target teams in the platoon")
    armour: int = Field(1, ge=0, le=15, description="tanks: armour of the aspect hit")
    aspect: Aspect = Field("front", description="tanks: front or side armour hit")
    at: int = Field(2, ge=0, le=20, description="the weapon's anti-tank rating")
    firepower: int = Field(6, ge=1, le=6, description="the N of the weapon's firepower N+")
    dug_in: bool = Field(False, description="dug in or in bulletproof cover: a failed save "
                         "needs a firepower test to destroy")
    gun_shield: bool = Field(False, description="guns and unarmoured vehicles hit from the "
                             "side their gun shield faces")
    bunker_buster: bool = Field(False, description="breakthrough gun or bunker buster: "
                                "infantry gets no save")
    moved: bool = Field(False, description="the shooting teams moved this turn")
    main_gun: bool = Field(True, description="firing the main gun (not machine-guns)")
    side_arc: bool = Field(False, description="the target is in the shooter's side or rear "
                           "arc (matters for Limited Vision)")

    @model_validator(mode="after")
    def _consistent(self) -> FireParams:
        if self.dug_in and self.target in ("tank", "soft"):
            raise ValueError("only infantry and guns can be dug in or in bulletproof cover")
        if self.gun_shield and self.target not in ("gun", "soft"):
            raise ValueError("gun shields protect guns and unarmoured vehicles only")
        if self.moving_rof1 and not self.moved:
            raise ValueError("moving_rof1 means the weapon moved: set moved=true as well")
        if self.target_at_double and self.gone_to_ground:
            # FoW article on shooting: only a team that neither moved nor shot goes to ground
            raise ValueError("a target that moved at the double has not gone to ground: "
                             "target_at_double and gone_to_ground cannot both be true")
        return self


class ShootParams(FireParams):
    """fow.shoot: the fire, and with ``passengers`` a shot at one transport (or a tank
    carrying riders) and its passengers' fate (FoW article on the effects of hits)."""

    passengers: int = Field(0, ge=0, le=8, description="passenger teams riding in (or on) "
                            "the one vehicle shot at (0: none; then target is tank or soft "
                            "and teams=1)")
    riders: bool = Field(False, description="the passengers ride on a tank (target=tank) "
                         "rather than inside an armoured transport")
    transport_motivation: Motivation = Field("confident", description="the transport "
                                             "platoon's motivation (armoured transports)")
    transport_reroll: bool = Field(False, description="the transport platoon re-rolls a "
                                   "failed motivation test")
    room: Room = 8

    @model_validator(mode="after")
    def _transport(self) -> ShootParams:
        if self.passengers:
            if self.target not in ("tank", "soft"):
                raise UsageError("passengers ride in a vehicle: target=tank (an armoured "
                                 "transport, or a tank with riders) or target=soft (an "
                                 "unarmoured transport), not {target}", target=self.target)
            if self.teams != 1:
                raise UsageError("passengers: the shot is at the one vehicle carrying them, "
                                 "teams=1 (not {teams})", teams=self.teams)
        elif self.riders or self.transport_reroll or self.room != 8 or \
                self.transport_motivation != "confident":
            raise UsageError("riders, transport_motivation, transport_reroll and room "
                             "describe passengers: give passengers=N as well")
        if self.riders and self.target != "tank":
            raise UsageError("riders ride on tanks: target=tank")
        return self


def to_hit_target(p: FireParams) -> Target:
    t = Target.of(TO_HIT[p.target_skill], msg("target is {skill}", skill=msg(p.target_skill)))
    t = t.plus(1 if p.concealed else 0, msg("concealed"))
    t = t.plus(1 if p.concealed and p.gone_to_ground else 0, msg("gone to ground"))
    t = t.plus(1 if p.range_cm > LONG_RANGE_CM else 0, msg("range over 40 cm"))
    tally_ho = p.has("tally_ho") and p.range_cm <= LONG_RANGE_CM
    moving = p.moving_rof1 and not tally_ho
    if (moving or p.pinned_rof1) and not p.has("automatic_rifles"):
        # the usual +1 for a ROF 1 weapon, moving or pinned (US article, Automatic
        # Rifles), taken once
        t = t.plus(1, msg("ROF 1 weapon moved") if moving else msg("ROF 1 weapon pinned down"))
    elif p.moved and p.has("stabilizers") and not p.moving_rof1:
        t = t.plus(1, msg("Stabilizers: full ROF on the move"))
    if p.side_arc and p.has("limited_vision") and not p.has("cupola"):
        t = t.plus(1, msg("Limited Vision: target outside the front arc"))
    if p.moved and p.main_gun and p.has("hen_and_chicks"):
        t = t.plus(1, msg("Hen and Chicks: main gun moved"))
    return t


def to_hit_reroll(p: FireParams) -> tuple[Literal["none", "misses"], str]:
    if p.has("every_shot_counts"):
        return "misses", "Every Shot Counts!"
    if not p.moved and p.range_cm <= LONG_RANGE_CM and p.has("volley_fire") and p.main_gun:
        return "misses", "Volley Fire"
    if not p.moved and p.range_cm > LONG_RANGE_CM and p.has("semi_indirect_fire") \
            and p.main_gun:
        return "misses", "Semi-indirect Fire"
    return "none", ""


def hit_spec(p: FireParams, rule: str) -> HitSpec:
    armour = p.armour + (1 if p.target == "tank" and p.range_cm > LONG_RANGE_CM else 0)
    return HitSpec(
        target=p.target, armour=armour, at=p.at, firepower=p.firepower, dug_in=p.dug_in,
        gone_to_ground=p.gone_to_ground, gun_shield=p.gun_shield,
        bunker_buster=p.bunker_buster,
        **ExtraSaves.of(p.target_rules, p.aspect == "side").against(p.firepower),
        rule=rule)


PASSENGER_OUTCOME = (
    OutcomeField("passengers_destroyed", "int", "passenger teams destroyed",
                 shown_if="passengers"),
    OutcomeField("dismounted", "bool", "the surviving passengers dismount under fire, "
                 "pinned down", shown_if="passengers"),
    OutcomeField("sent_to_rear", "bool", "armoured transports: the failed motivation test "
                 "sends the platoon's transports to the rear", shown_if="passengers"))
"""The passengers' outcome fields of fow.shoot and fow.shoot_mixed, shown only when the
question has passengers (a battle stored before them still verifies)."""

PASSENGER_NOTE = (
    " With passengers (FoW article on the effects of hits): the shot is at the one "
    "vehicle carrying them (teams=1). An armoured transport (target=tank) rolls each "
    "hit's armour save and firepower test; its passengers save on 5+ once per hit that "
    "destroyed it (our reading of 'as many times as the hits that destroyed it'), then, "
    "if it was destroyed or bailed out, the transport platoon tests motivation as "
    "fow.passengers does. Riders on a tank (riders=true) save on 5+ once per hit on the "
    "tank and dismount. An unarmoured transport (target=soft) saves on 5+ per hit and its "
    "passengers on 5+ per hit either way. Survivors dismounting with no room are "
    "destroyed (room). target_rules are the target side's, passengers included (Tank "
    "Rider Companies). Without passengers the passenger fields are 0. The platoon is "
    "pinned when its transport is destroyed or a failed transport motivation test makes "
    "the passengers dismount under fire (fow.passengers' own answer); only survivors "
    "dismount.")


@procedure(
    "fow.shoot", title="Shooting at a platoon",
    summary="Roll to hit on the target's skill with its modifiers, spread the hits evenly "
            "over the target teams, then roll saves, armour and firepower tests; 5 hits pin."
            " With passengers=N, a shot at one transport and its passengers' fate.",
    params=ShootParams,
    outcome=outcome(("hits", "int", "hits scored"),
                    ("destroyed", "int", "teams destroyed"),
                    ("bailed_out", "int", "tanks bailed out (0 for other targets)"),
                    ("pinned", "bool", "the target platoon is pinned down"),
                    *PASSENGER_OUTCOME),
    source="FoW article on shooting; FoW article on the effects of hits; "
           "FoW reference card, shooting",
    note="Gone to ground adds +1 only together with concealment (article's table: base, "
         "concealed, gone to ground and concealed); the card lists it as a separate +1. "
         "Needing 7 cannot hit. Tanks: d6 + armour (+1 over 40 cm) against AT; a tank with "
         "several hits keeps its worst result. Guns save 3+ when gone to ground, else 5+. "
         "Bunker busters deny infantry a save (article part 5). Quality of Quantity: 10 hits "
         "to pin. Schürzen: side hits of firepower 5 or 6 get a 4+ save after a failed "
         "armour save; Improvised Armour a 5+ save (card). Volley Fire and Semi-indirect "
         "Fire re-roll misses when the shooters did not move (within / beyond 40 cm). Hen "
         "and Chicks: +1 for main guns that moved. Stabilizers: +1 moving at full ROF. "
         "A ROF 1 weapon takes +1 to hit when it moved or when its team is pinned down (the "
         "US article calls it the usual +1, moving or pinned), once; Automatic Rifles "
         "ignore it. Pinning counts every hit of the shooting step (reference card, "
         "shooting step 9): hits_before adds the hits of earlier shots. Limited Vision: "
         "+1 to hit a target in the side or rear arc, unless the tank has a Cupola (card)."
         + PASSENGER_NOTE)
def shoot(p: ShootParams, d: Dice) -> dict[str, Any]:
    if p.passengers:
        return _transport_shot(p, d)
    return {**fire(p, d), "passengers_destroyed": 0, "dismounted": False,
            "sent_to_rear": False}


def fire(p: FireParams, d: Dice) -> dict[str, Any]:
    """The fire at a platoon without passengers: hits, teams destroyed and bailed out,
    pinned (fow.shoot's rule, also each turn of fow.engagement)."""
    hits = roll_to_hit(p, d)
    destroyed, bailed = resolve_spread(d, hits, p.teams, hit_spec(p, "fow.shoot"))
    return {"hits": hits, "destroyed": destroyed, "bailed_out": bailed,
            "pinned": pinned(d, p, hits, p.hits_before, "fow.shoot")}


def _transport_shot(p: ShootParams, d: Dice) -> dict[str, Any]:
    """The shot at the one vehicle carrying passengers, then their fate."""
    hits = int(roll_to_hit(p, d))  # the passengers' fate depends on it: known here
    spec = hit_spec(p, "fow.shoot")
    vehicle = "unharmed"
    killing: Any = hits
    if hits and p.target == "tank":
        res = d.each(hits, team_chain(spec, 1), LABELS, rule="fow.shoot.hit", what="hit")
        killing = int(res["destroyed"])
        vehicle = "destroyed" if killing else "bailed_out" if int(res["bailed_out"]) \
            else "unharmed"
    elif hits:
        vehicle = "destroyed" if d.one(team_chain(spec, hits), LABELS,
                                       rule="fow.shoot.vehicle",
                                       what="vehicle saves") == "destroyed" else "unharmed"
    kind = "unarmoured" if p.target == "soft" else "tank" if p.riders else "armoured"
    fate = Fate(kind, p.passengers, p.transport_motivation, p.transport_reroll, False,
                p.room, p.target_rules)
    out = passenger_fate(d, fate, killing if kind == "armoured" else hits, vehicle)
    # the platoon is pinned by the hits of the step, or when its passengers must
    # dismount under fire: fow.passengers' own answer for the same event
    return {"hits": hits, "destroyed": int(vehicle == "destroyed"),
            "bailed_out": int(vehicle == "bailed_out"),
            "pinned": pinned(d, p, hits, p.hits_before, "fow.shoot") or out["pinned"],
            "passengers_destroyed": out["passengers_destroyed"],
            "dismounted": out["dismounted"], "sent_to_rear": out["sent_to_rear"]}


def roll_to_hit(p: FireParams, d: Dice) -> Any:
    """The shot's to-hit roll: doubled dice at a target at the double, the modifiers
    and the re-rolls of special rules. Returns the hits."""
    n = p.dice
    if p.target_at_double and n:
        n = 2 * n
        d.note("fow.shoot.dice", nmsg("target moved at the double: one die becomes 2",
                                      "target moved at the double: {n} dice become {doubled}",
                                      n=p.dice, doubled=n))
    t = to_hit_target(p)
    reroll, why = to_hit_reroll(p)
    if why:
        d.note("fow.shoot.reroll", "{name}: failed to-hit rolls are re-rolled", name=msg(why))
    return d.pool(n, t, rule="fow.shoot.to_hit", what="to hit", reroll=reroll)


def pinned(d: Dice, p: RulesParams, hits: Any, before: int, rule: str) -> Any:
    """Pinned down by the hits of the whole shooting step (reference card, shooting step
    9): this shot's ``hits`` and the ``before`` of earlier shots in the step."""
    pin_at = 10 if p.target_has("quality_of_quantity") else 5
    if before:
        d.note(f"{rule}.pinned", nmsg(
            "with one hit earlier in this shooting step, the platoon is pinned down at {pin} "
            "hits in all", "with {n} hits earlier in this shooting step, the platoon is "
            "pinned down at {pin} hits in all", n=before, pin=pin_at))
    return hits + before >= pin_at


class AllocateParams(RulesParams):
    hits: int = Field(3, ge=0, le=30, description="hits to allocate")
    ready: int = Field(3, ge=0, le=20, description="valid target teams in good order and "
                       "not gone to ground")
    gone_to_ground: int = Field(0, ge=0, le=20, description="valid target teams gone to ground")
    out_of_action: int = Field(0, ge=0, le=20, description="bogged-down or bailed-out teams")
    ready_far: int = Field(0, ge=0, le=20, description="how many of the ready teams are "
                           "over 40 cm away")
    gone_to_ground_far: int = Field(0, ge=0, le=20, description="how many of the teams gone "
                                    "to ground are over 40 cm away")
    out_of_action_far: int = Field(0, ge=0, le=20, description="how many of the bogged or "
                                   "bailed-out teams are over 40 cm away")
    gun_tanks: int = Field(0, ge=0, le=10, description="teams of the declared gun-tank type "
                           "(0: no declaration)")

    @model_validator(mode="after")
    def _consistent(self) -> AllocateParams:
        if self.hits and self.ready + self.gone_to_ground + self.out_of_action + \
                self.gun_tanks == 0:
            raise ValueError("hits need at least one valid target team")
        for group, far in (("ready", self.ready_far), ("gone_to_ground",
                           self.gone_to_ground_far), ("out_of_action", self.out_of_action_far)):
            if far > getattr(self, group):
                raise UsageError("{group}_far ({far}) cannot exceed {group} ({count})",
                                 group=group, far=far, count=getattr(self, group))
        return self


def _spread(hits: int, groups: list[int]) -> tuple[list[int], int]:
    """Every team takes ``q`` hits; the ``r`` left over go by priority order of groups."""
    total = sum(groups)
    if total == 0:
        return [0 for _ in groups], 0
    q, r = divmod(hits, total)
    out = []
    for g in groups:
        extra = min(r, g)
        r -= extra
        out.append(q * g + extra)
    return out, q + (1 if hits % total else 0)


@procedure(
    "fow.allocate", title="Allocating hits",
    summary="Spread hits as evenly as possible: first to teams in good order, then to "
            "teams gone to ground, then to bogged or bailed-out vehicles, nearer teams "
            "before those over 40 cm; with a declared gun tank each hit on 5+ goes to "
            "that type.",
    params=AllocateParams,
    outcome=outcome(("gun_tank_hits", "int", "hits that must go to the declared gun-tank type"),
                    ("hits_ready", "int", "hits on teams in good order"),
                    ("hits_gone_to_ground", "int", "hits on teams gone to ground"),
                    ("hits_out_of_action", "int", "hits on bogged or bailed-out teams"),
                    ("hits_far", "int", "hits on teams over 40 cm away"),
                    ("most_on_one_team", "int", "the most hits any one of these teams takes")),
    source="FoW article on shooting, allocation rules 1-9",
    note="Rules 1-4 and 8 are computed: every team takes an equal share, and the hits left "
         "over go first to teams in good order, then gone to ground, then bogged or bailed "
         "out, nearer before farther within each. Gun-tank hits (5+ per hit) go to that "
         "type (spread evenly over its teams) and the rest are spread over the others. "
         "Rules 5-7 (several weapons, priority targets, matching weapons to armour) and 9 "
         "(moving bunker busters may not hit vehicles unless bogged or bailed out) need "
         "each weapon and each team: fow.shoot_mixed.")
def allocate(p: AllocateParams, d: Dice) -> dict[str, Any]:
    groups = [p.ready - p.ready_far, p.ready_far,
              p.gone_to_ground - p.gone_to_ground_far, p.gone_to_ground_far,
              p.out_of_action - p.out_of_action_far, p.out_of_action_far]
    hits: Any = p.hits
    gt: Any = 0
    if p.gun_tanks and p.hits and sum(groups) == 0:
        d.note("fow.allocate.gun_tank", "only the gun-tank type can be hit: it takes every hit")
        gt, hits = p.hits, 0
    elif p.gun_tanks and p.hits:
        gt = d.pool(p.hits, Target.of(5, msg("gun tank declared")), rule="fow.allocate.gun_tank",
                    what="gun-tank rolls")
        hits = p.hits - gt
    parts, most = _spread(int(hits), groups)
    if p.gun_tanks:
        gq, gr = divmod(int(gt), p.gun_tanks)
        most = max(most, gq + (1 if gr else 0))
    ready, gtg, out = parts[0] + parts[1], parts[2] + parts[3], parts[4] + parts[5]
    far = parts[1] + parts[3] + parts[5]
    d.note("fow.allocate", "hits on teams ready: {a}, gone to ground: {b}, bogged or "
           "bailed out: {c}; over 40 cm: {f}", a=ready, b=gtg, c=out, f=far)
    return {"gun_tank_hits": gt, "hits_ready": ready, "hits_gone_to_ground": gtg,
            "hits_out_of_action": out, "hits_far": far, "most_on_one_team": most}


PROCEDURES = (shoot, allocate)
