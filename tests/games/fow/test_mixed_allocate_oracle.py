"""fow.shoot_mixed's hit allocation against its earlier implementation.

:func:`allocate` deals whole rounds of hits by slicing, with what follows from the question
alone worked out once. The implementation below is the one it replaced, kept as an
oracle: it deals the hits one at a time, team by team, and places a moving bunker
buster's hits and levels the others a hit at a time (the groups and their order,
``_layout``, are the product's: they did not change; the shares are counted here). Both
must give the same plan for every question: weapons of every kind (bunker busters,
moved, their own priority type), teams with every flag, the platoon's priority and
movement, and the gun-tank split that the procedure makes from them (rule 8: each part
allocated on its own)."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.games.fow.helpers_fow import count_plans

from warroom import api
from warroom.engine import drivers
from warroom.games.fow import mixed
from warroom.games.fow.mixed import (
    KINDS,
    Team,
    Weapon,
    _declares,
    _layout,
    allocate,
    parse_teams,
    parse_weapons,
)


# ------------------------------------------------------------------ the earlier dealing
def old_allocate(hits: tuple[int, ...], weapons: tuple[Weapon, ...], teams: tuple[Team, ...],
                 priority: str = "none", moved: bool = False) -> tuple[tuple[int, ...], ...]:
    declares = _declares(weapons, priority)
    declared = tuple(sorted({declares[w] for w, h in enumerate(hits) if h} - {"none"},
                            key=KINDS.index))
    order, groups = _layout(weapons, teams, priority, declared)
    taken: list[list[int]] = [[] for _ in teams]
    if any(weapons[w].bb and (moved or weapons[w].moved) for w, h in enumerate(hits) if h):
        slots, pool = old_bunker_buster_slots(hits, weapons, teams, list(order), taken, moved)
        left = [pool.count(w) for w in range(len(weapons))]
    else:
        slots = [0] * len(teams)  # an equal share each, the rest one each in order
        for k in range(sum(hits)):
            slots[order[k % len(teams)]] += 1
        left = list(hits)
    for members, ranking in groups:
        wanted = sum(slots[i] for i in members)
        runs = []
        for w in ranking:
            if not wanted:
                break
            k = min(left[w], wanted)
            if k:
                runs.append((w, k))
                left[w] -= k
                wanted -= k
        if runs:
            dealt = old_deal(tuple(runs), tuple(slots[i] for i in members))
            for i, took in zip(members, dealt, strict=True):
                taken[i] += took
    return tuple(tuple(sorted(t)) for t in taken)


def old_deal(runs: tuple[tuple[int, int], ...], caps: tuple[int, ...]
             ) -> tuple[tuple[int, ...], ...]:
    chosen = [w for w, k in runs for _ in range(k)]
    left = list(caps)
    taken: list[list[int]] = [[] for _ in caps]
    j = 0
    while j < len(chosen):
        for i, room in enumerate(left):
            if room and j < len(chosen):
                taken[i].append(chosen[j])
                left[i] -= 1
                j += 1
    return tuple(map(tuple, taken))


def old_bunker_buster_slots(hits: tuple[int, ...], weapons: tuple[Weapon, ...],
                            teams: tuple[Team, ...], order: list[int],
                            taken: list[list[int]], moved: bool = True
                            ) -> tuple[list[int], list[int]]:
    count = [0] * len(teams)

    def place(members: list[int]) -> int:
        best = min(members, key=lambda i: (count[i], order.index(i)))
        count[best] += 1
        return best

    may = [i for i in order if not teams[i].bunker_safe]
    busters = [weapons[w].bb and (moved or weapons[w].moved) for w in range(len(hits))]
    left = [h if busters[w] else 0 for w, h in enumerate(hits)]
    while may and any(left):
        for w, n in enumerate(left):
            if n:
                taken[place(may)].append(w)
                left[w] -= 1
    slots = [0] * len(teams)
    pool = [w for w, h in enumerate(hits) if not busters[w] for _ in range(h)]
    for _ in pool:
        slots[place(order)] += 1
    return slots, pool


# ------------------------------------------------------------------------ the comparison
TEAM_KINDS = ("tank", "infantry", "gun", "soft")
TEAM_FLAGS = ("gtg", "out", "far", "dug", "gt")
WEAPON_FLAGS = ("bb", "far", "moved", "rof1", "pinned")


def team_text(rng: random.Random) -> str:
    kind = rng.choice(TEAM_KINDS)
    fields = [kind]
    if kind == "tank":
        hull = rng.randint(0, 8)
        fields.append(f"{hull}/{rng.randint(0, 8)}" if rng.random() < 0.3 else str(hull))
    for flag in TEAM_FLAGS:
        if rng.random() < 0.25 and (flag != "dug" or kind in ("infantry", "gun")) and (
                flag != "gt" or kind == "tank"):
            fields.append(flag)
    return ":".join(fields)


def weapon_text(rng: random.Random, kinds: Sequence[str], most: int) -> str:
    fields = [str(rng.randint(0, most)), str(rng.choice((1, 2, 3, 5, 7, 10, 12, 14))),
              str(rng.randint(1, 6))]
    fields += [f for f in WEAPON_FLAGS if rng.random() < 0.2]
    if rng.random() < 0.35:
        fields.append(rng.choice(kinds))
    return ":".join(fields)


def check(hits: tuple[int, ...], ws: tuple[Weapon, ...], ts: tuple[Team, ...],
          priority: str, moved: bool) -> None:
    assert allocate(hits, ws, ts, priority, moved) == old_allocate(hits, ws, ts, priority,
                                                                   moved)
    # rule 8's split: the gun tanks and the other teams, each allocated on its own
    gun = tuple(t for t in ts if t.gt)
    rest = tuple(t for t in ts if not t.gt)
    if gun and rest:
        some = tuple(h // 2 for h in hits)
        for part, share in ((gun, some), (rest, tuple(h - s for h, s in zip(
                hits, some, strict=True)))):
            assert allocate(share, ws, part, priority, moved) == old_allocate(
                share, ws, part, priority, moved)


def random_question(rng: random.Random, most: int, size: int
                    ) -> tuple[tuple[Weapon, ...], tuple[Team, ...], str, bool]:
    ts = parse_teams(",".join(team_text(rng) for _ in range(rng.randint(1, size))))
    kinds = sorted({t.kind for t in ts})
    ws = parse_weapons(",".join(weapon_text(rng, kinds, most)
                                for _ in range(rng.randint(1, 6))))
    return ws, ts, rng.choice(["none", *kinds]), rng.random() < 0.4


def test_allocation_matches_the_earlier_one_over_thousands_of_random_questions() -> None:
    rng = random.Random(20261124)
    for n in range(4000):
        ws, ts, priority, moved = random_question(rng, 30 if n % 4 == 0 else 8,
                                                  20 if n % 3 == 0 else 6)
        for _ in range(3):  # some hits of each weapon, from none to all its dice
            hits = tuple(rng.randint(0, w.dice) for w in ws)
            check(hits, ws, ts, priority, moved)


def test_allocation_matches_the_earlier_one_for_every_count_of_hits_of_a_small_question(
        ) -> None:
    rng = random.Random(17)
    for _ in range(150):
        ws, ts, priority, moved = random_question(rng, 4, 8)
        ws = ws[:3]
        grid: list[tuple[int, ...]] = [()]
        for w in ws:
            grid = [(*g, h) for g in grid for h in range(w.dice + 1)]
        for hits in grid:
            check(hits, ws, ts, priority, moved)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 30), st.integers(1, 20))
def test_allocation_matches_the_earlier_one(seed: int, most: int, size: int) -> None:
    rng = random.Random(seed)
    ws, ts, priority, moved = random_question(rng, most, size)
    check(tuple(rng.randint(0, w.dice) for w in ws), ws, ts, priority, moved)


# ------------------------------------------------------- the allocations kept per count
def _plans_worked_out(monkeypatch: pytest.MonkeyPatch, weapons: str, teams: str,
                      samples: int) -> tuple[int, int]:
    """How many times a fresh estimate worked an allocation out, and how many distinct
    counts of each weapon's hits it met."""
    calls = count_plans(monkeypatch)
    mixed._stages.cache_clear()  # a fresh question: nothing kept yet
    proc, params = api.prepare("fow.shoot_mixed", {"weapons": weapons, "teams": teams})
    drivers.simulate(proc, params, samples, seed=5)
    return sum(calls.values()), len(calls)


def test_an_estimate_keeps_allocations_while_they_are_found_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mixed, "QUICK_TRIAL", 40)
    # few counts (3 x 3 x 3 at most, well under the trial's 40): each worked out once
    worked, distinct = _plans_worked_out(monkeypatch, "2:10:3,2:2:6,2:7:4",
                                         "tank:6,infantry,soft", 600)
    assert worked == distinct <= 27
    # many counts (31 ** 3): past 40 kept with few found again, none more are kept, so
    # counts met again are worked out again
    worked, distinct = _plans_worked_out(monkeypatch, "30:10:3,30:2:6,30:7:4",
                                         "tank:6,infantry,soft,gun", 3000)
    assert distinct > 40 and worked > distinct
