"""The performance suite: `make bench`. Prints a Markdown table (kept in docs/performance.md).

Times are the best of several repeats on this machine, measured side by side in one run
(for Q1, in alternating rounds); identical fractions are checked in the same run before
anything is timed. Every contender answers in its own exact form: integer weights over a
total (warroom's Distribution, dyce's counts, icepool's Die); none builds Fractions. "cold" clears
warroom's per-query memo tables (multinomials, binomials, dice views) before every call;
"warm" keeps them, as in a session at the table or a sweep.
"""

from __future__ import annotations

import argparse
import datetime
import functools
import os
import platform
import statistics
import subprocess
import sys
import time
import timeit
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import warroom  # noqa: E402
from benchmarks.battles import battle_rows  # noqa: E402
from benchmarks.q1 import PEERS, bench_system  # noqa: E402
from warroom import api  # noqa: E402


def best(fn: Callable[[], Any], budget: float = 1.5) -> float:
    """Best seconds per call: repeats until the time budget is spent."""
    fn()
    one = timeit.timeit(fn, number=1)
    number = max(1, int(0.1 / max(one, 1e-7)))
    repeats = max(3, min(15, int(budget / max(one * number, 1e-7))))
    return min(timeit.repeat(fn, number=number, repeat=repeats)) / number


def best_interleaved(fns: dict[str, Callable[[], Any]], rounds: int = 7,
                     budget: float = 0.15) -> dict[str, float]:
    """Best seconds per call of each function, timed in alternating rounds.

    This machine's speed drifts by tens of percent within a minute; timing the
    contenders in turn, round after round, keeps a slow spell from falling on one
    of them only."""
    numbers: dict[str, int] = {}
    for name, fn in fns.items():
        fn()
        one = timeit.timeit(fn, number=1)
        numbers[name] = max(1, int(budget / max(one, 1e-7)))
    out = dict.fromkeys(fns, float("inf"))
    for _ in range(rounds):
        for name, fn in fns.items():
            n = numbers[name]
            out[name] = min(out[name], timeit.timeit(fn, number=n) / n)
    return out


def fmt(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


def warroom_q1(n: int) -> dict[tuple[int, int], Fraction]:
    d = warroom.odds("bench.q1", dice=n, exact=True)
    return {(o["destroyed"], o["bailed"]): p for o, p in d.items()}


def clear_memos() -> None:
    """Forget every per-query memo table (multinomials, binomials, dice views)."""
    from warroom.dice import weights
    from warroom.engine import exact, tally
    from warroom.engine.exact import enumeration

    exact.multinomial_keys.cache_clear()
    exact.EVAL_MEMO.clear()
    exact.POOL_TABLES.clear()
    weights.binomial.cache_clear()
    weights._multinomial.cache_clear()
    weights.dice_view.cache_clear()
    weights._SUCCESS.clear()
    enumeration.outcome_getter.cache_clear()
    tally._PREFIXES.clear()
    tally._MADE.clear()
    tally._JOINTS.clear()
    tally._PLANS.clear()
    tally._layout.cache_clear()


def cold_and_warm(fn: Callable[[], Any]) -> tuple[float, float]:
    def cold() -> Any:
        clear_memos()
        return fn()

    return best(cold), best(fn)


def q1_rows(sizes: list[int]) -> list[list[str]]:
    rows = []
    for n in sizes:
        ours = warroom_q1(n)
        assert sum(ours.values()) == 1
        for name, (peer, fractions) in PEERS.items():
            if fractions(peer(n)) != ours:
                raise SystemExit(f"{name} disagrees with warroom at N={n}")

        def cold(n: int = n) -> Any:
            clear_memos()
            return warroom.odds("bench.q1", dice=n)

        def warm(n: int = n) -> Any:
            return warroom.odds("bench.q1", dice=n)

        fns: dict[str, Callable[[], Any]] = {"cold": cold, "warm": warm}
        for name, (peer, _) in PEERS.items():
            fns[name] = functools.partial(peer, n)
        times = best_interleaved(fns)
        t_cold, t_ours = times.pop("cold"), times.pop("warm")
        fastest = min(times, key=lambda k: times[k])
        rows.append([
            f"Q1, N={n}", f"{fmt(t_cold)} cold, {fmt(t_ours)} warm",
            ", ".join(f"{k} {fmt(v)}" for k, v in times.items()),
            f"{times[fastest] / t_cold:.1f}× cold, {times[fastest] / t_ours:.1f}× warm"
            f" ({fastest})",
            "≥ 10×",
        ])
    return rows


def overhead_row() -> list[str]:
    """Exact odds of a 2d6 table lookup with a modifier, the shape of an ASL IFT attack."""
    from benchmarks.shapes import lookup_system

    api.registry().add("shape", lookup_system)
    warroom.odds("shape.lookup", drm=1)
    t_cold, t = cold_and_warm(lambda: warroom.odds("shape.lookup", drm=1))
    return ["2d6 lookup + modifier (exact, in-process)", f"{fmt(t_cold)} cold, {fmt(t)} warm",
            "", "", "< 100 µs"]


ASSAULT = {"attackers": 8, "defenders": 8, "max_rounds": 4}
STACK = "squad:7:3,leader:8:-1:elr=3,hs:6:2:broken,squad:6,leader:9:-2,hs:5"
LARGEST: list[tuple[str, str, dict[str, Any]]] = [
    ("fow.assault", "8 v 8 teams, 4 rounds: infantry against infantry",
     {**ASSAULT, "defensive_dice": 8}),
    ("fow.assault", "8 v 8 teams, 4 rounds: tanks against infantry", {
        **ASSAULT, "attacker_type": "tank", "attacker_armour": 3, "attacker_top_armour": 1,
        "defensive_dice": 8, "defensive_at": 10, "defensive_firepower": 3,
        "defender_at": 6, "defender_firepower": 3}),
    ("fow.assault", "8 v 8 teams, 4 rounds: infantry with Improvised Tank Assault against "
     "tanks (the slowest)", {
        **ASSAULT, "defender_type": "tank", "defender_top_armour": 1, "attacker_at": 6,
        "attacker_firepower": 3, "rules": ["improvised_tank_assault", "unarmed"],
        "defensive_dice": 8}),
    ("asl.ift_on_stack", "six units with two leaders, NMC", {"units": STACK, "result": "NMC"}),
    ("asl.ift_on_stack", "six units with two leaders, K/1 (the slowest)",
     {"units": STACK, "result": "K/1"}),
    ("asl.ift_on_stack", "ten broken squads, K/2 (ten units, exact where the joint "
     "states are few)", {"units": ",".join(["4-6-7:broken"] * 10), "result": "K/2"}),
    ("fow.shoot_mixed", "3 weapons of 12 dice at 8 mixed teams", {
        "weapons": "12:10:3,12:2:6,12:7:4",
        "teams": "tank:6,tank:5/3,soft,infantry,infantry:gtg,gun:dug,tank:2/1:far,soft:out"}),
]
"""The largest questions some procedures take, where exact odds cost the most."""


def largest_rows(repeats: int = 3) -> list[list[str]]:
    """Exact odds of the largest questions (see LARGEST): the best of a few calls, each
    with every memo table cleared first."""
    rows = []
    for proc, label, params in LARGEST:
        best_time = float("inf")
        for _ in range(repeats):
            clear_memos()
            start = time.perf_counter()
            warroom.odds(proc, **params)
            best_time = min(best_time, time.perf_counter() - start)
        rows.append([f"{proc} exact, {label}", fmt(best_time), "", "",
                     "at the table: seconds at most"])
    return rows


ITA = {**ASSAULT, "defender_type": "tank", "defender_top_armour": 1, "attacker_at": 6,
       "attacker_firepower": 3, "rules": ["improvised_tank_assault", "unarmed"],
       "defensive_dice": 8}
TABLE = {"attackers": 16, "defenders": 16, "max_rounds": 10, "defensive_dice": 30}
ASSAULT_CASES: list[tuple[str, dict[str, Any], str]] = [
    ("Improvised Tank Assault, 8 v 8 teams, 4 rounds, 8 defensive dice", ITA,
     "≤ 100 ms median, within 10× of the DP"),
    ("16 v 16 teams, 30 defensive dice, to 10 rounds", TABLE, "≤ 1 s median"),
]
"""fow.assault at real table sizes, against a hand-written DP over counts."""


def assault_rows(repeats: int = 7) -> list[list[str]]:
    """fow.assault exact odds (every memo table cleared before each call) against
    benchmarks/assault_dp.py, a dynamic programme over counts written by hand, timed in
    alternating calls; identical fractions checked first. Medians."""
    from benchmarks import assault_dp

    def dp_cold(raw: dict[str, Any]) -> Any:
        for f in (assault_dp.binomial, assault_dp.spread_losses, assault_dp.scaled_strikes,
                  assault_dp.scaled_spread):
            f.cache_clear()
        return assault_dp.assault_odds(**raw)

    rows = []
    for label, raw, target in ASSAULT_CASES:
        ours = assault_dp.as_outcomes(warroom.odds("fow.assault", **raw))
        if ours != dp_cold(raw):
            raise SystemExit(f"the assault DP disagrees with warroom: {label}")
        rows.append([f"fow.assault exact, {label}",
                     *_side_by_side(functools.partial(warroom.odds, "fow.assault", **raw),
                                    functools.partial(dp_cold, raw), repeats,
                                    "hand-written DP over counts"), target])
    return rows


def _side_by_side(ours: Callable[[], Any], dp: Callable[[], Any], repeats: int,
                  what: str) -> list[str]:
    """warroom against a hand-written DP, timed in alternating calls with every memo
    table cleared first: the warroom, peers and ratio cells (medians)."""
    # wall and CPU (process) time: on a shared machine the wall clock also counts the
    # time other processes held the cores
    wall: dict[str, list[float]] = {"warroom": [], "dp": []}
    cpu: dict[str, list[float]] = {"warroom": [], "dp": []}
    for _ in range(repeats):
        for name, fn in (("warroom", ours), ("dp", dp)):
            clear_memos()
            start, start_cpu = time.perf_counter(), time.process_time()
            fn()
            wall[name].append(time.perf_counter() - start)
            cpu[name].append(time.process_time() - start_cpu)
    ours_t, dp_t = (statistics.median(wall[k]) for k in ("warroom", "dp"))
    ours_c, dp_c = (statistics.median(cpu[k]) for k in ("warroom", "dp"))
    return [f"{fmt(ours_t)} median ({fmt(ours_c)} CPU)",
            f"{what} {fmt(dp_t)} median ({fmt(dp_c)} CPU)",
            f"{dp_t / ours_t:.2f}× (DP time / warroom time; CPU {dp_c / ours_c:.2f}×)"]


STACK_CASES: list[tuple[str, dict[str, Any]]] = [
    ("six squads, K/2", {"units": ",".join(["4-6-7"] * 6), "result": "K/2"}),
    ("six squads, NMC", {"units": ",".join(["4-6-7"] * 6), "result": "NMC"}),
    ("ten broken squads, K/2", {"units": ",".join(["4-6-7:broken"] * 10), "result": "K/2"}),
]
"""asl.ift_on_stack on stacks without leaders, against a hand-written exact programme."""


def stack_rows(repeats: int = 7) -> list[list[str]]:
    """asl.ift_on_stack exact odds on leaderless stacks against benchmarks/stack_dp.py
    (products of per-unit chances given Random Selection), timed in alternating calls;
    identical fractions checked first. Medians."""
    from benchmarks import stack_dp

    rows = []
    for label, raw in STACK_CASES:
        units = stack_dp.squads(raw["units"])
        ours = functools.partial(warroom.odds, "asl.ift_on_stack", **raw, exact=True)
        if stack_dp.as_states(ours().items(), len(units)) != stack_dp.stack_odds(
                raw["result"], raw["units"]):
            raise SystemExit(f"the stack DP disagrees with warroom: {label}")
        rows.append([f"asl.ift_on_stack exact, {label}",
                     *_side_by_side(ours, functools.partial(
                         stack_dp.stack_weights, raw["result"], units), repeats,
                         "hand-written products per unit"), "within 2.5× of the DP"])
    return rows


def monte_carlo_rows() -> list[list[str]]:
    from warroom.engine import drivers

    proc, params = api.prepare("demo.pool", {"dice": 10})
    drivers.simulate(proc, params, 1000, seed=1, vector=True)  # numpy import, warm-up
    rows = []
    at_once = (f"its {drivers.STREAMS} streams at once" if drivers._may_fork()
               else "single core")
    for label, n, vector in ((f"one sample at a time, {at_once}", 200_000, False),
                             ("vectorised (numpy batches)", 2_000_000, True)):
        start = time.perf_counter()
        drivers.simulate(proc, params, n, seed=1, vector=vector)
        rate = n / (time.perf_counter() - start)
        rows.append([f"Monte Carlo, demo.pool 10 dice, {label}", f"{rate:,.0f} samples/s",
                     "", "", "≥ 100,000/s"])
    return rows


ESTIMATES: list[tuple[str, str, dict[str, Any]]] = [
    ("fow.shoot_mixed", "6 weapons × 30 dice at 20 teams", {
        "weapons": "30:10:3,30:2:6,30:7:4,30:4:5,30:12:2,30:6:3",
        "teams": ",".join(["tank:6", "tank:5/3", "soft", "infantry", "infantry:gtg",
                           "gun:dug", "tank:2/1:far", "soft:out"] * 2
                          + ["infantry", "infantry", "tank:4", "gun"])}),
    ("asl.ift_on_stack", "ten units with three leaders, K/2", {
        "units": "squad:7:3,leader:8:-1:elr=3,hs:6:2:broken,squad:6,leader:9:-2,hs:5,"
                 "4-6-7,4-6-7,2-4-7,8-1", "result": "K/2"}),
]
"""Questions past the exact budget at the new caps: their estimate (±0.5 points)."""


def estimate_rows(old_samples: int = 1000) -> list[list[str]]:
    """The full estimate standing in for exact odds (drivers.estimate: 38,415 samples,
    batched, or its streams on both cores where there are two) at the new caps, against the
    item-by-item sampler (SampleDice(tables=False), every chain and check rolled as the
    table does, one core) over ``old_samples`` samples, per sample."""
    import random

    from warroom.engine import drivers
    from warroom.engine.exact import gc_frozen
    from warroom.engine.montecarlo import SampleDice

    rows = []
    for proc_id, label, raw in ESTIMATES:
        proc, params = api.prepare(proc_id, raw)
        start = time.perf_counter()
        est = drivers.estimate(proc, params)
        full = time.perf_counter() - start
        old = SampleDice(random.Random(1), tables=False)
        with gc_frozen():  # as the estimate's run: the heap left out of collections
            start = time.perf_counter()
            for _ in range(old_samples):
                proc.run(params, old)
            per_old = (time.perf_counter() - start) / old_samples
        per_new = full / est.samples
        where = _path(proc, params)
        if where.startswith("sequential"):
            where += (f", {drivers.STREAMS} streams at once" if drivers._may_fork()
                      else ", one core")
        rows.append([f"{proc_id} estimate (±0.5 points, {est.samples:,} samples), {label}",
                     f"{fmt(full)} ({per_new * 1e6:.0f} µs a sample, {where})",
                     f"item by item: {per_old * 1e6:.0f} µs a sample "
                     f"({fmt(per_old * est.samples)} for the estimate)",
                     f"{per_old / per_new:.1f}×", "≤ 1 s"])
    return rows


def _cpu() -> float:
    """CPU seconds of this process and of its waited-for children (forked streams)."""
    import resource

    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + kids.ru_utime + kids.ru_stime


def _path(proc: Any, params: Any) -> str:
    """Which way drivers.estimate samples this question (the pilot's verdict)."""
    from warroom.engine import drivers
    from warroom.engine.batched import simulate_batched

    got = simulate_batched(lambda d: proc.run(params, d), proc.fields, drivers.BATCH_PILOT,
                           drivers.ESTIMATE_SEED)
    if got is None:
        return "sequential (not staged)"
    if got[1] > drivers.BATCH_ALONE * drivers.BATCH_PILOT:
        return "sequential after the pilot"
    return "batched"


def caps_questions() -> list[tuple[str, str, dict[str, Any]]]:
    """The full estimates at the caps: the stack and ``shoot_mixed`` of the numpy
    references (benchmarks/mc_numpy.py), :data:`ESTIMATES`, the assault forced to estimate."""
    from benchmarks import mc_numpy

    return [
        ("asl.ift_on_stack", "ten units with three leaders, K/2 (7 × 4-6-7, 9-2, 8-1, 8-0)",
         mc_numpy.STACK),
        ("fow.shoot_mixed", "6 weapons × 30 dice at 20 teams (12 infantry, 4 tanks, 4 "
         "infantry gone to ground)", mc_numpy.MIXED),
        *ESTIMATES,
        ("fow.assault", "16 v 16, 30 defensive dice, to 10 rounds, forced to estimate",
         TABLE)]


def batched_rows(repeats: int = 5) -> list[list[str]]:
    """The full estimates at the caps (drivers.estimate, ±0.5 points) on the batched
    driver, against a numpy Monte Carlo written by hand for the same question
    (benchmarks/mc_numpy.py) where there is one: CPU medians (children included), the
    chances of both checked first: against the exact odds within the margin (the
    assault), or field by field against each other (the stack, ``shoot_mixed``)."""
    from benchmarks import assault_dp, mc_numpy
    from warroom.engine import drivers

    rows = []
    for proc_id, label, raw in caps_questions():
        proc, params = api.prepare(proc_id, raw)
        est = drivers.estimate(proc, params)
        ref: Callable[[], Any] | None = None
        n = est.samples
        if raw is mc_numpy.STACK:
            ours_stack: dict[Any, int] = {}
            for o, c in est.counts.items():
                key = mc_numpy.stack_outcome(dict(zip(proc.fields, o, strict=True)))
                ours_stack[key] = ours_stack.get(key, 0) + c
            squads, leaders = mc_numpy.STACK_SQUADS, mc_numpy.STACK_LEADERS
            if not mc_numpy.agree(ours_stack, mc_numpy.stack_k(squads, leaders, 2, n, 1), n):
                raise SystemExit(f"the hand-written numpy Monte Carlo disagrees: {label}")
            ref = functools.partial(mc_numpy.stack_k, squads, leaders, 2, n, 2)
        elif raw is mc_numpy.MIXED:
            shot = (mc_numpy.MIXED_WEAPONS, *mc_numpy.MIXED_TEAMS)
            if not mc_numpy.agree(mc_numpy.shot_counts(proc.fields, est.counts),
                                  mc_numpy.shoot_infantry_and_tanks(*shot, n, 1), n):
                raise SystemExit(f"the hand-written numpy Monte Carlo disagrees: {label}")
            ref = functools.partial(mc_numpy.shoot_infantry_and_tanks, *shot, n, 2)
        elif proc_id == "fow.assault":
            exact = assault_dp.as_outcomes(warroom.odds(proc_id, **raw, exact=True))
            counted: dict[Any, int] = {}
            for o, c in est.counts.items():
                key = assault_dp.outcome_key(dict(zip(proc.fields, o, strict=True)))
                counted[key] = counted.get(key, 0) + c
            if not mc_numpy.within_margin(counted, exact, n):
                raise SystemExit(f"the estimate is off the exact odds: {label}")
            args = (raw["attackers"], raw["defenders"], raw["defensive_dice"],
                    raw["max_rounds"], n)
            if not mc_numpy.within_margin(mc_numpy.assault_infantry(*args, seed=1), exact, n):
                raise SystemExit(f"the hand-written numpy Monte Carlo is off: {label}")
            ref = functools.partial(mc_numpy.assault_infantry, *args, seed=2)
        ours: list[float] = []
        theirs: list[float] = []
        for _ in range(repeats):
            clear_memos()
            start = _cpu()
            drivers.estimate(proc, params)
            ours.append(_cpu() - start)
            if ref is not None:
                start = _cpu()
                ref()
                theirs.append(_cpu() - start)
        before: list[float] = []
        drivers.BATCHED = False  # the sequential sampler's streams, as before
        try:
            for _ in range(3):
                clear_memos()
                start = _cpu()
                drivers.estimate(proc, params)
                before.append(_cpu() - start)
        finally:
            drivers.BATCHED = True
        mine = statistics.median(ours)
        peer = (f"numpy by hand {fmt(statistics.median(theirs))} CPU median" if theirs
                else "no numpy reference written yet")
        peer += f"; sequential sampler {fmt(statistics.median(before))} CPU median"
        ratio = f"{mine / statistics.median(theirs):.1f}× numpy" if theirs else ""
        rows.append([f"{proc_id} full estimate (±0.5 points, {est.samples:,} samples), "
                     f"{label}", f"{fmt(mine)} CPU median ({_path(proc, params)})", peer,
                     ratio, "≤ 150 ms CPU, within 3× of numpy"])
    return rows


def refine_rows(repeats: int = 3) -> list[list[str]]:
    """What a page's refinement costs at the caps (the fine job, ``warroom.serving``): the
    estimate to ±0.1 points (25 times the samples, counted as the worker counts it: seeded,
    under the time limit) against the ±0.5 one the page shows first; CPU, children
    included (forked streams), memo tables cleared first. The ±0.5 estimate is a median
    of ``repeats``; the ±0.1 one is counted once (tens of seconds where samples run
    alone)."""
    from warroom.engine import drivers
    from warroom.serving import EXACT_LIMIT, FINE_MARGIN

    rows = []
    for proc_id, label, raw in caps_questions():
        proc, params = api.prepare(proc_id, raw)

        def count(margin: float, proc: Any = proc, params: Any = params) -> tuple[float, int]:
            clear_memos()
            start = _cpu()
            est = drivers.simulate(proc, params, drivers.samples_for(margin),
                                   seed=drivers.ESTIMATE_SEED, seconds=EXACT_LIMIT)
            return _cpu() - start, est.samples

        half = statistics.median(count(drivers.ESTIMATE_MARGIN)[0] for _ in range(repeats))
        fine, n = count(FINE_MARGIN)
        rows.append([f"{proc_id} refined to ±0.1 points ({n:,} samples), {label}",
                     f"{fmt(fine)} CPU ({_path(proc, params)})",
                     f"±0.5 points ({drivers.samples_for():,} samples): {fmt(half)} CPU "
                     "median", f"{fine / half:.1f}× the ±0.5 estimate",
                     "a background job: within the 120 s time limit"])
    return rows


def _odds_cpu(proc_id: str, raw: dict[str, Any], repeats: int = 3) -> tuple[float, bool]:
    """CPU median (children included) of ``warroom.odds`` as every surface asks it (exact
    within the budget, else the estimate), memo tables cleared first; and whether the
    answer was exact."""
    from warroom.engine.results import Distribution

    times, exact = [], False
    for _ in range(repeats):
        clear_memos()
        start = _cpu()
        exact = isinstance(warroom.odds(proc_id, **raw), Distribution)
        times.append(_cpu() - start)
    return statistics.median(times), exact


MIXED_TEAMS = "tank:6,tank:5/3,soft,infantry,infantry:gtg,gun:dug,tank:2/1:far,soft:out"
CLIFF: list[tuple[str, str, list[tuple[str, dict[str, Any]]]]] = [
    ("fow.assault", "infantry against infantry", [
        (f"{n} v {n}, {min(2 * n, 30)} defensive dice, to 10 rounds",
         {"attackers": n, "defenders": n, "defensive_dice": min(2 * n, 30),
          "max_rounds": 10})
        for n in (8, 12, 16)]),
    ("asl.ift_on_stack", "six units with two leaders and more 4-6-7s, K/1", [
        (f"{6 + k} units", {"units": ",".join([STACK, *["4-6-7"] * k]), "result": "K/1"})
        for k in range(4)]),
    ("fow.shoot_mixed", "4 weapons at 8 mixed teams", [
        (f"4 × {d} dice", {"weapons": f"{d}:10:3,{d}:2:6,{d}:7:4,{d}:4:5",
                           "teams": MIXED_TEAMS}) for d in range(8, 17)]),
]
"""Each family's sizes, growing: the last answered exactly and the first past the
budget are timed side by side (:func:`cliff_rows`)."""


def cliff_rows() -> list[list[str]]:
    """For each family (CLIFF), the last size answered exactly and the first size past
    the exact budget (answered with the estimate), as ``warroom.odds`` answers them: CPU
    medians side by side. No cliff: the first costs no more than the last."""
    rows = []
    for proc_id, family, sizes in CLIFF:
        last: tuple[str, float] | None = None
        first: tuple[str, float] | None = None
        for label, raw in sizes:
            t, exact = _odds_cpu(proc_id, raw)
            if exact:
                last = (label, t)
                continue
            first = (label, t)
            break
        if last is None:
            continue
        if first is None:
            rows.append([f"{proc_id} no cliff, {family}",
                         f"largest tried exact: {last[0]} {fmt(last[1])} CPU median",
                         "no size within the caps passes the budget", "", "no cliff"])
            continue
        rows.append([f"{proc_id} no cliff, {family}",
                     f"first past the budget: {first[0]}, estimate {fmt(first[1])} CPU "
                     "median", f"last exact: {last[0]}, {fmt(last[1])} CPU median",
                     f"{last[1] / first[1]:.2f}× (exact / estimate)",
                     "the estimate no slower than the last exact"])
    return rows


FLOOR = ("import typer\nfrom pydantic import BaseModel, Field\n"
         "class P(BaseModel):\n    dice: int = Field(8, ge=0, le=200)\n"
         "P.model_validate({'dice': 8})")


def cli_row() -> list[str]:
    exe = ROOT / ".venv" / "bin" / "warroom"
    cmd = [str(exe) if exe.exists() else "warroom", "odds", "demo.pool", "dice=8", "--json"]
    # as installed for players: bytecode caches allowed (a first run writes them)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    # the floor on this machine, measured in the same rounds: what any implementation of
    # the contract (typed pydantic parameters, a Typer CLI) pays before its own work:
    # import both and validate one small constrained model
    floor = [cmd[0].replace("warroom", "python") if exe.exists() else sys.executable,
             "-c", FLOOR]
    subprocess.run(cmd, check=True, capture_output=True, env=env)
    times: list[float] = []
    floors: list[float] = []
    for _ in range(12):
        for command, out in ((cmd, times), (floor, floors)):
            start = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True, env=env)
            out.append(time.perf_counter() - start)
    return ["`warroom odds demo.pool dice=8 --json`, whole command",
            f"{fmt(min(times))} best, {fmt(statistics.median(times))} median",
            f"floor (Typer + one pydantic model) {fmt(statistics.median(floors))} median",
            "", "< 300 ms"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="Q1 at N=10 only")
    parser.add_argument("--assault", action="store_true",
                        help="only the fow.assault rows against the hand-written DP")
    parser.add_argument("--stacks", action="store_true",
                        help="only the leaderless asl.ift_on_stack rows against the "
                             "hand-written DP")
    parser.add_argument("--estimates", action="store_true",
                        help="only the full estimates against numpy written by hand")
    parser.add_argument("--refine", action="store_true",
                        help="only what refining the estimates at the caps to ±0.1 points "
                             "costs (a page's background job; minutes)")
    args = parser.parse_args()
    api.registry().add("bench", bench_system)
    if args.refine:
        _print(refine_rows())
        return
    if args.assault:
        _print(assault_rows())
        return
    if args.stacks:
        _print(stack_rows())
        return
    if args.estimates:
        _print(batched_rows() + cliff_rows())
        return
    rows = q1_rows([10] if args.quick else [10, 40])
    rows.append(overhead_row())
    rows.extend(largest_rows())
    rows.extend(assault_rows())
    rows.extend(stack_rows())
    rows.extend(monte_carlo_rows())
    rows.extend(estimate_rows())
    rows.extend(batched_rows())
    rows.extend(cliff_rows())
    rows.extend(battle_rows())
    rows.append(cli_row())
    _print(rows)


def _print(rows: list[list[str]]) -> None:
    machine = platform.processor() or platform.machine()
    print(f"warroom benchmarks — {datetime.date.today()} — {machine}"
          f", {os.cpu_count()} cores, Python {platform.python_version()}\n")
    header = ["case", "warroom", "peers (same question, same run)", "speed-up", "target"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
