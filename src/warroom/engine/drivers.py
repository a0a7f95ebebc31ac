"""The four ways of answering a procedure's dice: exact, roll, entered, Monte Carlo."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from warroom.engine.exact import MAX_PATHS, exact_run
from warroom.engine.params import normalized
from warroom.engine.procedure import Params, Procedure
from warroom.engine.results import Distribution, Estimate, Resolution
from warroom.errors import ExactTooLargeError, RuleError

if TYPE_CHECKING:
    from warroom.dice.sources import DiceSource
    from warroom.engine.context import Dice

# The roll and Monte Carlo drivers are imported where they are used: `warroom odds`
# should not pay for them at start-up.

Progress = Callable[[int, int], None]
VECTOR_THRESHOLD = 20_000
VECTOR_BATCH = 100_000


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
                        MappingProxyType(w.weights), w.denominator, proc.orders)


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
             progress: Progress | None = None, vector: bool | None = None) -> Estimate:
    """Monte Carlo: ``samples`` independent resolutions, counted.

    Procedures marked ``vectorize`` run on numpy batches for large runs (``vector=None``
    decides by size; True/False forces it)."""
    from warroom.dice.sources import new_seed
    from warroom.engine.montecarlo import SampleDice

    seed = new_seed() if seed is None else seed
    use_vector = proc.vectorize and (samples >= VECTOR_THRESHOLD if vector is None else vector)
    if use_vector:
        return _simulate_vector(proc, params, samples, seed, progress)
    rng = random.Random(seed)
    ctx: Dice = SampleDice(rng)
    run = proc.run
    fields = proc.fields
    counts: dict[tuple[Any, ...], int] = {}
    start = time.perf_counter()
    chunk = max(1, min(samples, 5000))
    done = 0
    first = True
    while done < samples:
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
    return Estimate(proc.id, normalized(params), fields, counts, samples, seed,
                    time.perf_counter() - start, orders=proc.orders)


def _simulate_vector(proc: Procedure, params: Params, samples: int, seed: int,
                     progress: Progress | None) -> Estimate:
    import numpy as np

    from warroom.engine.montecarlo import VectorDice, count_batch

    rng = np.random.default_rng(seed)
    kinds = [f.kind for f in proc.outcome]
    if any(k not in ("int", "bool") for k in kinds):
        raise RuleError(f"{proc.id} is marked vectorize but has non-numeric outcome fields")
    counts: dict[tuple[Any, ...], int] = {}
    start = time.perf_counter()
    done = 0
    while done < samples:
        batch = min(VECTOR_BATCH, samples - done)
        out = proc.run(params, VectorDice(rng, batch))
        count_batch(_checked(proc, out), proc.fields, kinds, batch, counts)
        done += batch
        if progress is not None:
            progress(done, samples)
    return Estimate(proc.id, normalized(params), proc.fields, counts, samples, seed,
                    time.perf_counter() - start, {"vectorized": True})
