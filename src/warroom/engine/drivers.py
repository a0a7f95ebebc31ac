"""The four ways of answering a procedure's dice: exact, roll, entered, Monte Carlo."""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from warroom.engine.exact import MAX_PATHS, exact_run
from warroom.engine.params import normalized
from warroom.engine.procedure import Params, Procedure
from warroom.engine.results import Z95, Distribution, Estimate, Resolution
from warroom.errors import ExactTooLargeError, RuleError

if TYPE_CHECKING:
    from warroom.dice.sources import DiceSource
    from warroom.engine.context import Dice

# The roll and Monte Carlo drivers are imported where they are used: `warroom odds`
# should not pay for them at start-up.

Progress = Callable[[int, int], None]
VECTOR_THRESHOLD = 20_000
VECTOR_BATCH = 100_000
TIMED_CHUNK = 250
"""With a time limit, Monte Carlo looks at the clock after every this many samples."""
ESTIMATE_MARGIN = 0.005
"""An estimate standing in for exact odds aims at a 95% margin of half a percentage point."""
ESTIMATE_SEED = 1
"""Estimates standing in for exact odds are seeded: the same question, the same answer."""


def samples_for(margin: float = ESTIMATE_MARGIN) -> int:
    """Samples that bring every chance's 95% margin to ``margin`` at worst (the normal
    bound at p = 1/2: 1.96 * sqrt(1/4n) <= margin; 38,415 for half a point)."""
    return math.ceil(Z95 * Z95 * 0.25 / (margin * margin))


def estimate(proc: Procedure, params: Params, *, margin: float = ESTIMATE_MARGIN,
             seconds: float | None = None, seed: int = ESTIMATE_SEED,
             progress: Progress | None = None) -> Estimate:
    """A Monte Carlo stand-in for exact odds: :func:`samples_for` ``margin`` samples, or
    as many as ``seconds`` allows (at least :data:`TIMED_CHUNK`; the estimate's
    ``margin`` says how far off it may be)."""
    return simulate(proc, params, samples_for(margin), seed=seed, seconds=seconds,
                    progress=progress)


def _checked(proc: Procedure, out: Mapping[str, Any]) -> dict[str, Any]:
    missing = [f for f in proc.fields if f not in out]
    extra = [k for k in out if k not in proc.fields]
    if missing or extra:
        raise RuleError(f"{proc.id} returned fields {sorted(out)}; declared {list(proc.fields)}")
    return {f: out[f] for f in proc.fields}


def exact(proc: Procedure, params: Params, *, max_paths: int = MAX_PATHS) -> Distribution:
    """Every outcome with its exact probability (ExactTooLargeError past ``max_paths``)."""
    if proc.cost is not None and proc.cost(params) > max_paths:
        raise ExactTooLargeError(proc.id, max_paths)
    w = exact_run(lambda d: proc.run(params, d), proc.fields, name=proc.id, max_paths=max_paths)
    # memoised tables may be shared between results: hand out a read-only view
    return Distribution(proc.id, normalized(params), proc.fields,
                        MappingProxyType(w.weights), w.denominator, proc.orders,
                        leave_out=proc.repeats)


def resolve(proc: Procedure, params: Params, source: DiceSource) -> Resolution:
    """One resolution with dice from ``source``, steps recorded."""
    from warroom.dice.sources import EnteredSource, SeededSource
    from warroom.engine.roll import RollDice

    dice = RollDice(source)
    out = _checked(proc, proc.run(params, dice))
    source.finish()
    seed = source.seed if isinstance(source, SeededSource) else None
    return Resolution(proc.id, normalized(params), out, tuple(dice.steps), tuple(source.used),
                      seed, entered=isinstance(source, EnteredSource))


def roll(proc: Procedure, params: Params, *, seed: int | None = None,
         dice: Sequence[object] | None = None, rng: random.Random | None = None) -> Resolution:
    """Roll with a seed (a fresh one is drawn and recorded when none is given), with a
    generator owned by the caller (a battle's), or with dice typed in by a player."""
    from warroom.dice.sources import EnteredSource, SeededSource

    if dice is not None:
        return resolve(proc, params, EnteredSource(dice))
    return resolve(proc, params, SeededSource(seed, rng))


def simulate(proc: Procedure, params: Params, samples: int, *, seed: int | None = None,
             progress: Progress | None = None, vector: bool | None = None,
             seconds: float | None = None) -> Estimate:
    """Monte Carlo: ``samples`` independent resolutions, counted.

    Procedures marked ``vectorize`` run on numpy batches for large runs (``vector=None``
    decides by size; True/False forces it). With ``seconds``, it stops early when the
    time is up (between chunks): the estimate then has fewer samples, and its ``extra``
    says ``stopped_early`` and how many were asked for."""
    from warroom.dice.sources import new_seed
    from warroom.engine.montecarlo import SampleDice

    seed = new_seed() if seed is None else seed
    use_vector = proc.vectorize and (samples >= VECTOR_THRESHOLD if vector is None else vector)
    stop = None if seconds is None else time.perf_counter() + seconds
    if use_vector:
        return _simulate_vector(proc, params, samples, seed, progress, stop)
    rng = random.Random(seed)
    ctx: Dice = SampleDice(rng)
    run = proc.run
    fields = proc.fields
    counts: dict[tuple[Any, ...], int] = {}
    start = time.perf_counter()
    chunk = max(1, min(samples, 5000 if stop is None else TIMED_CHUNK))
    done = 0
    first = True
    while done < samples and (stop is None or not done or time.perf_counter() < stop):
        todo = min(chunk, samples - done)
        for _ in range(todo):
            out = run(params, ctx)
            if first:
                _checked(proc, out)
                first = False
            key = tuple([out[f] for f in fields])
            counts[key] = counts.get(key, 0) + 1
        done += todo
        if progress is not None:
            progress(done, samples)
    return Estimate(proc.id, normalized(params), fields, counts, done, seed,
                    time.perf_counter() - start, _stopped(done, samples), orders=proc.orders,
                    leave_out=proc.repeats)


def _stopped(done: int, asked: int) -> dict[str, Any]:
    return {} if done >= asked else {"stopped_early": True, "samples_asked": asked}


def _simulate_vector(proc: Procedure, params: Params, samples: int, seed: int,
                     progress: Progress | None, stop: float | None) -> Estimate:
    import numpy as np

    from warroom.engine.montecarlo import VectorDice, count_batch

    rng = np.random.default_rng(seed)
    kinds = [f.kind for f in proc.outcome]
    if any(k not in ("int", "bool") for k in kinds):
        raise RuleError(f"{proc.id} is marked vectorize but has non-numeric outcome fields")
    counts: dict[tuple[Any, ...], int] = {}
    start = time.perf_counter()
    done = 0
    while done < samples and (stop is None or not done or time.perf_counter() < stop):
        batch = min(VECTOR_BATCH, samples - done)
        out = proc.run(params, VectorDice(rng, batch))
        count_batch(_checked(proc, out), proc.fields, kinds, batch, counts)
        done += batch
        if progress is not None:
            progress(done, samples)
    return Estimate(proc.id, normalized(params), proc.fields, counts, done, seed,
                    time.perf_counter() - start, {"vectorized": True, **_stopped(done, samples)},
                    orders=proc.orders, leave_out=proc.repeats)
