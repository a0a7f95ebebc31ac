"""fow.shoot_mixed exact odds against an independent brute force over every die.

The oracle rolls every to-hit die face by face, allocates with :func:`allocate` (its
rules are pinned by hand in test_mixed.py), then rolls every save and firepower die of
every team face by face and takes each team's worst result, combining the teams by plain
enumeration: none of the engine's lazy counts, multinomials or stages. Small cases only
(at most five to-hit dice, trained targets: 3+ to hit)."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction as F
from functools import cache

import pytest
from tests.games.fow.helpers_fow import count_plans

import warroom
from warroom.games.fow.mixed import allocate, parse_teams, parse_weapons

WORST = {"unharmed": 0, "bailed_out": 1, "destroyed": 2}
SAVE = {"infantry": 3, "soft": 5}  # infantry in the open saves on 3+, vehicles 5+


def one_hit(kind: str, armour: int, at: int, fp: int) -> dict[str, F]:
    """One hit by a weapon of AT ``at`` and firepower ``fp``+ on a team, die by die."""
    out: Counter[str] = Counter()
    for save, test in itertools.product(range(1, 7), repeat=2):
        if kind == "tank":  # d6 + armour against AT, then a firepower test if not above
            total = save + armour
            res = ("unharmed" if total > at else
                   ("bailed_out" if test >= fp else "unharmed") if total == at else
                   ("destroyed" if test >= fp else "bailed_out"))
        else:  # a failed save destroys a team in the open; the test die is not used
            res = "unharmed" if save >= SAVE[kind] else "destroyed"
        out[res] += 1
    return {k: F(v, 36) for k, v in out.items()}


@cache
def team(kind: str, armour: int, hits: tuple[tuple[int, int], ...]) -> dict[str, F]:
    """A team's worst result over the hits it took ((AT, firepower) each)."""
    dist = {"unharmed": F(1)}
    for at, fp in hits:
        nxt: dict[str, F] = {}
        for a, pa in dist.items():
            for b, pb in one_hit(kind, armour, at, fp).items():
                worst = max(a, b, key=WORST.__getitem__)
                nxt[worst] = nxt.get(worst, F(0)) + pa * pb
        dist = nxt
    return dist


def brute(weapons: str, teams: str) -> dict[tuple[int, int, int, bool], F]:
    ws, ts = parse_weapons(weapons), parse_teams(teams)
    owner = [w for w, weapon in enumerate(ws) for _ in range(weapon.dice)]
    out: dict[tuple[int, int, int, bool], F] = {}
    for faces in itertools.product(range(1, 7), repeat=len(owner)):
        hits = [0] * len(ws)
        for w, face in zip(owner, faces, strict=True):
            hits[w] += face >= 3
        plan = allocate(tuple(hits), ws, ts)
        joint = {(0, 0): F(1, 6 ** len(owner))}  # (destroyed, bailed out)
        for t, took in zip(ts, plan, strict=True):
            res = team(t.kind, t.hull, tuple((ws[w].at, ws[w].firepower) for w in took))
            nxt: dict[tuple[int, int], F] = {}
            for (dead, bailed), p in joint.items():
                for label, q in res.items():
                    step = (dead + (label == "destroyed"), bailed + (label == "bailed_out"))
                    nxt[step] = nxt.get(step, F(0)) + p * q
            joint = nxt
        total = sum(hits)
        for (dead, bailed), p in joint.items():
            key = (total, dead, bailed, total >= 5)
            out[key] = out.get(key, F(0)) + p
    return out


CASES = [
    # AT 10 always beats armour 3 (a firepower test each); AT 2 never gets through it
    ("2:10:3,2:2:6", "tank:3,infantry"),
    # AT 5 against armour 2 (a 3 is equal: bailed out on a firepower 4+) and armour 3
    ("2:5:4,2:3:5", "tank:2,tank:3,infantry"),
    # three weapons over three kinds of team, a hit each way
    ("2:4:3,1:1:6,2:7:2", "soft,infantry,tank:1"),
    # more teams than hits: the ones in good order first, tanks last
    ("3:6:3,2:2:6", "infantry,soft,tank:2,infantry"),
]


@pytest.mark.parametrize(("weapons", "teams"), CASES)
def test_exact_odds_match_brute_force(weapons: str, teams: str) -> None:
    dist = warroom.odds("fow.shoot_mixed", weapons=weapons, teams=teams)
    got = {(o["hits"], o["destroyed"], o["bailed_out"], o["pinned"]): p
           for o, p in dist.items()}
    want = {k: p for k, p in brute(weapons, teams).items() if p}
    assert got == want
    assert sum(want.values()) == 1


def test_resolution_is_worked_out_once_per_count_of_each_weapons_hits(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # the allocation and the teams' rolls form one stage: the exact driver works it out
    # once per distinct (hits of weapon 1, hits of weapon 2, hits of weapon 3), here
    # 3 x 4 x 3 = 36 states, not once per path through the dice
    calls = count_plans(monkeypatch)
    warroom.odds("fow.shoot_mixed", weapons="2:4:3,3:1:6,2:7:2", teams="soft,infantry,tank:1")
    assert len(calls) == 36
    assert set(calls.values()) == {1}
