"""A hand-written exact dynamic programme over counts for ``fow.assault``: a test
oracle and the benchmark's reference, written without the engine.

It follows the rules as the procedure's note states them (FoW reference card, assault
steps; FoW article on German special rules, Mounted Assault): infantry charging tanks
test motivation first; defensive fire, spread evenly, pins infantry at 5 hits (10 with
Quality of Quantity), drives tanks back at two vehicles lost, and stops an assault with
no team left; then rounds of close combat: skill tests to hit (Improvised Tank Assault:
a 1 kills the team; Unarmed: hits re-rolled), hits spread evenly, infantry hit is
destroyed, tanks save on top armour, then the other side counterattacks (a motivation
test unless it took no hits and does not face tanks) or breaks off.

The state between rounds is (side striking, teams left on each side) with its exact
probability; every distribution inside a round is built from binomials over counts.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from functools import cache
from math import comb
from typing import Any

F = Fraction
TO_HIT = {"conscript": 2, "trained": 3, "veteran": 4}
SKILL_TEST = {"conscript": 5, "trained": 4, "veteran": 3}
MOTIVATION_TEST = {"reluctant": 5, "confident": 4, "fearless": 3}

DEFAULTS: dict[str, Any] = {
    "attackers": 3, "attacker_type": "infantry", "attacker_skill": "trained",
    "attacker_motivation": "confident", "attacker_armour": 1, "attacker_top_armour": 1,
    "attacker_at": 2, "attacker_firepower": 1, "defenders": 3, "defender_type": "infantry",
    "defender_skill": "trained", "defender_motivation": "confident",
    "defender_top_armour": 1, "defender_at": 2, "defender_firepower": 1,
    "defensive_dice": 0, "defensive_at": 2, "defensive_firepower": 6, "max_rounds": 2,
    "rules": (), "target_rules": (),
}

Outcome = tuple[str, int, int, bool, int]
"""(winner, attacker_losses, defender_losses, repelled, rounds)."""


def at_least(at: int) -> Fraction:
    """One die at ``at``+."""
    return F(max(0, min(6, 7 - at)), 6)


@cache
def binomial(n: int, p: Fraction) -> tuple[Fraction, ...]:
    return tuple(comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1))


def convolve(a: Iterable[Fraction], b: Iterable[Fraction]) -> list[Fraction]:
    a, b = list(a), list(b)
    out = [F(0)] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        if x:
            for j, y in enumerate(b):
                out[i + j] += x * y
    return out


def tank_fights_on(armour: int, at: int, firepower: int) -> Fraction:
    """Chance that one hit leaves a tank fighting: its save beats the AT, or equals it
    and the firepower test fails."""
    need = at - armour
    higher = F(sum(1 for f in range(1, 7) if f > need), 6)
    equal = F(1 if 1 <= need <= 6 else 0, 6)
    return higher + equal * (1 - at_least(firepower))


@cache
def spread_losses(hits: int, teams: int, fights_on: Fraction) -> tuple[Fraction, ...]:
    """Teams out of the fight when ``hits`` are spread evenly over ``teams``, each hit
    leaving a team fighting with chance ``fights_on``."""
    if hits == 0 or teams == 0:
        return (F(1),)
    q, r = divmod(hits, teams)
    more = binomial(r, 1 - fights_on ** (q + 1)) if r else (F(1),)
    fewer = binomial(teams - r, 1 - fights_on**q) if q else (F(1),)
    return tuple(convolve(more, fewer))


def assault_odds(**given: Any) -> dict[Outcome, Fraction]:
    """Every outcome of ``fow.assault`` with its exact probability."""
    p = {**DEFAULTS, **given}
    rules = tuple(p["rules"])
    target_rules = tuple(p["target_rules"])
    att_n, def_n = p["attackers"], p["defenders"]
    kinds = (p["attacker_type"], p["defender_type"])
    own = (rules, target_rules)

    def morale(side: int) -> Fraction:
        at = MOTIVATION_TEST[p[("attacker", "defender")[side] + "_motivation"]]
        if any(r in own[side] for r in ("shtraf", "for_the_fatherland")):
            at = 2
        return at_least(at)

    def counterattack(side: int) -> Fraction:
        ok = morale(side)
        return ok + (1 - ok) * ok if "british_bulldog" in own[side] else ok

    # a hit by side s on the other side leaves a team fighting with this chance
    def struck_fights_on(side: int) -> Fraction:
        foe = 1 - side
        if kinds[foe] != "tank":
            return F(0)  # infantry and guns hit in close combat are destroyed
        name = ("attacker", "defender")[side]
        foe_name = ("attacker", "defender")[foe]
        return tank_fights_on(p[foe_name + "_top_armour"], p[name + "_at"],
                              p[name + "_firepower"])

    fights_on = (struck_fights_on(0), struck_fights_on(1))

    # per team in a round: (chance it kills itself, chance it scores a hit)
    def strike_chances(side: int) -> tuple[Fraction, Fraction]:
        name = ("attacker", "defender")[side]
        hit = at_least(SKILL_TEST[p[name + "_skill"]])
        if "unarmed" in own[side]:
            hit = hit * hit
        ita = "improvised_tank_assault" in own[side] and kinds[1 - side] == "tank"
        return (F(1, 6) if ita else F(0), hit)

    chances = (strike_chances(0), strike_chances(1))
    out: dict[Outcome, Fraction] = {}

    def add(key: Outcome, w: Fraction) -> None:
        out[key] = out.get(key, F(0)) + w

    # the charge, and defensive fire
    start: dict[int, Fraction] = {}
    go = F(1)
    if kinds == ("infantry", "tank"):
        go = morale(0)
        add(("defender", 0, 0, False, 0), 1 - go)
    if p["defensive_dice"]:
        hit = at_least(TO_HIT[p["attacker_skill"]])
        if "automatic_rifles" in target_rules:
            hit = hit + (1 - hit) * hit
        armour_fights = (tank_fights_on(p["attacker_armour"], p["defensive_at"],
                                        p["defensive_firepower"])
                         if kinds[0] == "tank" else F(1, 3) * 2)  # infantry saves 3+
        pin = 10 if "quality_of_quantity" in rules else 5
        for hits, ph in enumerate(binomial(p["defensive_dice"], hit)):
            for lost, pl in enumerate(spread_losses(hits, att_n, armour_fights)):
                w = go * ph * pl
                if not w:
                    continue
                left = att_n - lost
                if (kinds[0] == "tank" and lost >= 2) or left == 0 or (
                        kinds[0] != "tank" and hits >= pin):
                    add(("defender", lost, 0, True, 0), w)
                else:
                    start[left] = start.get(left, F(0)) + w
    else:
        start[att_n] = go
    # rounds of close combat: (side striking, attackers left, defenders left). Every
    # chance in a round has a denominator dividing 6**ROUND_DICE, so the states carry
    # integer weights over START * 6**(ROUND_DICE * rounds) (integers are far cheaper
    # than Fractions); each round's table is worked out once per (side, teams, foes).
    @cache
    def round_table(me: int, n: int, foes: int) -> tuple[tuple[int, int, int, int], ...]:
        """(result: 0 striker wins, 1 struck side wins, 2 fight on; own teams lost,
        enemy teams lost, weight over SCALE). Every chance here is an integer over
        SCALE, and so is every product (a round rolls at most ROUND_DICE dice), so
        ``a * b // SCALE`` is exact."""
        self_kill, hit = chances[me]
        ok = scaled(counterattack(1 - me))
        acc: dict[tuple[int, int, int], int] = {}
        for (ones, hits), x1 in scaled_strikes(n, self_kill, hit).items():
            if x1:
                for lost, pl in enumerate(scaled_spread(hits, foes, fights_on[me])):
                    x = x1 * pl // SCALE
                    if not x:
                        continue
                    if foes - lost == 0:
                        parts = [(0, x)]
                    elif n - ones == 0:
                        parts = [(1, x)]
                    elif hits == 0 and kinds[me] != "tank":
                        parts = [(2, x)]
                    else:
                        go_on = x * ok // SCALE
                        parts = [(0, x - go_on), (2, go_on)]
                    for result, y in parts:
                        k = (result, ones, lost)
                        acc[k] = acc.get(k, 0) + y
        return tuple((r, o, lo, y) for (r, o, lo), y in acc.items() if y)

    names = ("attacker", "defender")
    # one common denominator for the start (every chance so far divides a power of 6)
    start_den = 1
    while any((x * start_den).denominator != 1 for x in start.values()):
        start_den *= 6
    states: dict[tuple[int, int, int], int] = {
        (0, a, def_n): int(x * start_den) for a, x in start.items()}
    den = start_den
    for rnd in range(1, p["max_rounds"] + 1):
        den *= SCALE
        nxt: dict[tuple[int, int, int], int] = {}
        ended: dict[Outcome, int] = {}
        for (me, la, ld), wt in states.items():
            left = (la, ld)
            for result, ones, lost, num in round_table(me, left[me], left[1 - me]):
                after = [la, ld]
                after[me] -= ones
                after[1 - me] -= lost
                if result == 2:
                    key = (1 - me, after[0], after[1])
                    nxt[key] = nxt.get(key, 0) + wt * num
                else:
                    winner = names[me] if result == 0 else names[1 - me]
                    end = (winner, att_n - after[0], def_n - after[1], False, rnd)
                    ended[end] = ended.get(end, 0) + wt * num
        for end, wt in ended.items():
            add(end, F(wt, den))
        states = nxt
        if not states:
            break
    for (_, la, ld), wt in states.items():
        add(("undecided", att_n - la, def_n - ld, False, p["max_rounds"]), F(wt, den))
    return {k: v for k, v in out.items() if v}


ROUND_DICE = 66
"""Powers of 6 in the denominator of any chance within one round: to-hit rolls with
re-rolls (36 per team, 16 teams: 6**32), saves and firepower tests of at most 16 hits
(36 per hit: 6**32), the counterattack test and its re-roll (6**2)."""
SCALE = 6**ROUND_DICE


def scaled(x: Fraction) -> int:
    """A chance within a round as an integer over SCALE (exact)."""
    num = x * SCALE
    assert num.denominator == 1
    return int(num)


@cache
def scaled_strikes(n: int, self_kill: Fraction, hit: Fraction) -> dict[tuple[int, int], int]:
    """``n`` teams striking: (teams killing themselves, hits) -> chance over SCALE (a
    trinomial: a 1, a hit, a miss)."""
    miss = 1 - self_kill - hit
    out = {}
    for ones in range(n + 1):
        for hits in range(n - ones + 1):
            rest = n - ones - hits
            x = (comb(n, ones) * comb(n - ones, hits) * self_kill**ones * hit**hits
                 * miss**rest)
            if x:
                out[ones, hits] = scaled(x)
    return out


@cache
def scaled_spread(hits: int, teams: int, fights_on: Fraction) -> tuple[int, ...]:
    return tuple(map(scaled, spread_losses(hits, teams, fights_on)))


def outcome_key(o: Any) -> Outcome:
    """One of warroom's outcomes (a mapping of its fields) as the oracle's outcome: the
    fields the oracle knows (warroom's later fields, such as passengers lost, are not
    the oracle's question)."""
    return (o["winner"], o["attacker_losses"], o["defender_losses"], o["repelled"],
            o["rounds"])


def as_outcomes(dist: Any) -> dict[Outcome, Fraction]:
    """warroom's exact odds (a Distribution: outcome dicts with Fractions) in the
    oracle's form."""
    return {outcome_key(o): f for o, f in dist.items()}
