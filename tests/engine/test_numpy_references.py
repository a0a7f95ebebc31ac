"""The hand-written numpy Monte Carlo references of the estimate benchmarks
(benchmarks/mc_numpy.py) give the chances warroom gives: against exact odds on questions
small enough for them, and against warroom's own estimate at the caps."""

from __future__ import annotations

from typing import Any

from benchmarks import mc_numpy
from hypothesis import given, settings
from hypothesis import strategies as st

import warroom
from warroom import api
from warroom.engine import drivers

N = 20_000


def _summed(d: Any, key: Any) -> dict[Any, Any]:
    out: dict[Any, Any] = {}
    for o, p in d.items():
        k = key(o)
        out[k] = out.get(k, 0) + p
    return out


@settings(max_examples=6, deadline=None)
@given(squads=st.integers(1, 3), k=st.integers(1, 3),
       leaders=st.lists(st.sampled_from([(9, -2), (8, -1), (8, 0), (10, -3)]), min_size=1,
                        max_size=3), seed=st.integers(0, 2**32 - 1))
def test_the_stack_reference_follows_exact_odds(squads: int, k: int,
                                                leaders: list[tuple[int, int]],
                                                seed: int) -> None:
    units = ",".join(["4-6-7"] * squads + [f"{m}-{-d}" for m, d in leaders])
    exact = warroom.odds("asl.ift_on_stack", units=units, result=f"K/{k}", exact=True)
    want = _summed(exact, mc_numpy.stack_outcome)
    got = mc_numpy.stack_k([(7, 8)] * squads, leaders, k, N, seed)
    assert sum(got.values()) == N
    assert mc_numpy.fields_within_margin(got, want, N)


@settings(max_examples=6, deadline=None)
@given(weapons=st.lists(st.tuples(st.integers(1, 8), st.integers(1, 14), st.integers(1, 6)),
                        min_size=1, max_size=3),
       teams=st.tuples(st.integers(0, 3), st.integers(0, 2), st.integers(1, 6),
                       st.integers(0, 2)).filter(lambda t: t[0] + t[1] + t[3] > 0),
       seed=st.integers(0, 2**32 - 1))
def test_the_shooting_reference_follows_exact_odds(
        weapons: list[tuple[int, int, int]], teams: tuple[int, int, int, int],
        seed: int) -> None:
    infantry, tanks, armour, gtg = teams
    names = ["infantry"] * infantry + [f"tank:{armour}"] * tanks + ["infantry:gtg"] * gtg
    exact = warroom.odds("fow.shoot_mixed", exact=True, teams=",".join(names),
                         weapons=",".join(f"{d}:{at}:{fp}" for d, at, fp in weapons))
    want = _summed(exact, lambda o: (o["hits"], o["destroyed"], o["bailed_out"],
                                     o["pinned"]))
    got = mc_numpy.shoot_infantry_and_tanks(weapons, infantry, tanks, armour, gtg, N, seed)
    assert sum(got.values()) == N
    assert mc_numpy.within_margin(got, want, N)


def test_at_the_caps_the_references_and_the_estimates_agree() -> None:
    stack, params = api.prepare("asl.ift_on_stack", mc_numpy.STACK)
    est = drivers.estimate(stack, params)
    ours = {}
    for o, c in est.counts.items():
        key = mc_numpy.stack_outcome(dict(zip(stack.fields, o, strict=True)))
        ours[key] = ours.get(key, 0) + c
    ref = mc_numpy.stack_k(mc_numpy.STACK_SQUADS, mc_numpy.STACK_LEADERS, 2, est.samples, 1)
    assert mc_numpy.agree(ours, ref, est.samples)

    mixed, params = api.prepare("fow.shoot_mixed", mc_numpy.MIXED)
    est = drivers.estimate(mixed, params)
    ref = mc_numpy.shoot_infantry_and_tanks(mc_numpy.MIXED_WEAPONS, *mc_numpy.MIXED_TEAMS,
                                            samples=est.samples, seed=1)
    assert mc_numpy.agree(mc_numpy.shot_counts(mixed.fields, est.counts), ref, est.samples)
