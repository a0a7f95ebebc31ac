"""The four ways of answering a procedure's dice: exact, roll, entered, Monte Carlo."""

from __future__ import annotations

import contextlib
import math
import random
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from warroom.engine.context import Row
from warroom.engine.exact import MAX_PATHS, exact_run, gc_frozen
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
STREAMS_FROM = 10_000
"""A Monte Carlo run of at least this many samples is drawn as :data:`STREAMS` streams
(:func:`_simulate_streams`), run at once where the machine has the cores."""
STREAMS = 2
STREAM_CHUNK = 1000
"""Samples a stream counts between looks at the clock, at its parent and at progress."""
FORK_STREAMS = True
"""Whether streams may run in forked processes (False: always here, in turns)."""


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


SECONDS_PER_PATH = 2.5e-6
"""What a unit of a procedure's cost (a replay of a small procedure) takes, in CPU seconds
on this project's machine: exact odds of a six-unit stack at K/1 (33,040) in 83 ms and of
seven units (222,880) in 0.48 s; of ``fow.shoot_mixed`` with four weapons of 8 dice
(104,976) in 0.27 s and of 12 dice (456,976) in 1.1 s."""
EXACT_SECONDS = MAX_PATHS * SECONDS_PER_PATH
"""The exact budget as time (half a second): exact odds are worked out where they are
expected to cost no more than this, or no more than the estimate that would stand in
for them (:func:`exact_budget`)."""


def exact_budget(proc: Procedure, params: Params, margin: float = ESTIMATE_MARGIN) -> int:
    """The replays exact odds of this question may take: :data:`EXACT_SECONDS`' worth, or
    as many as the estimate standing in for them would cost (its samples times the
    procedure's ``sample_cost``) where that is more. So past the budget the estimate is
    expected to cost less than exact odds would: an answer never gets slower when the
    question grows past the budget (no cliff)."""
    budget = round(EXACT_SECONDS / SECONDS_PER_PATH)
    if proc.sample_cost is None:
        return budget
    return max(budget, math.ceil(samples_for(margin) * proc.sample_cost(params)))


def exact(proc: Procedure, params: Params, *, max_paths: int | None = None) -> Distribution:
    """Every outcome with its exact probability (ExactTooLargeError past ``max_paths``;
    by default :func:`exact_budget`)."""
    if max_paths is None:
        max_paths = exact_budget(proc, params)
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
    says ``stopped_early`` and how many were asked for. From :data:`STREAMS_FROM`
    samples the run is drawn as seeded streams, on several cores where there are
    (:func:`_simulate_streams`)."""
    from warroom.dice.sources import new_seed

    seed = new_seed() if seed is None else seed
    use_vector = proc.vectorize and (samples >= VECTOR_THRESHOLD if vector is None else vector)
    stop = None if seconds is None else time.perf_counter() + seconds
    if use_vector:
        return _simulate_vector(proc, params, samples, seed, progress, stop)
    if samples >= STREAMS_FROM:
        batched = (_simulate_batched(proc, params, samples, seed, progress, stop)
                   if BATCHED else None)
        if batched is not None:
            return batched
        return _simulate_streams(proc, params, samples, seed, progress, stop)
    counts: dict[tuple[Any, ...], int] = {}
    start = time.perf_counter()
    stream = _Stream(proc, params, random.Random(seed), samples, counts)
    chunk = max(1, min(samples, 5000 if stop is None else TIMED_CHUNK))
    while stream.left and (stop is None or not stream.done or time.perf_counter() < stop):
        stream.run(chunk)
        if progress is not None:
            progress(stream.done, samples)
    return _counted(proc, params, counts, stream.done, samples, seed, start)


BATCHED = True
"""Whether long runs try the batched driver first (False: the sequential streams)."""
BATCH_PILOT = 1000
"""A long run's first samples on the batched driver, which tell whether it pays."""
BATCH_ALONE = 1.0
"""Past this many steps of a single sample per sample in the pilot (samples that do not
share states: each runs alone, and the batched driver only adds its bookkeeping), the
rest of the run samples one at a time (:func:`_simulate_streams`)."""


def _simulate_batched(proc: Procedure, params: Params, samples: int, seed: int,
                      progress: Progress | None, stop: float | None) -> Estimate | None:
    """A long run on the batched driver (:mod:`warroom.engine.batched`: samples as counts
    per distinct state through the procedure's stages), in one process. None where the
    procedure is not staged. A pilot of :data:`BATCH_PILOT` samples comes first; where
    its samples mostly went alone (:data:`BATCH_ALONE`) the rest are the sequential
    sampler's streams, otherwise the batched driver's (under a time limit in chunks
    doubling in size), each chunk its own seeded stream. Which it is depends only on the
    seed and the question, so the counts are the same on any machine and any number of cores."""
    from warroom.engine.batched import simulate_batched

    start = time.perf_counter()
    counts: Counter[tuple[Any, ...]] = Counter()  # (the batched driver counts in C)
    tables: dict[str, Any] = {}  # the pilot's tables, kept for the rest
    done, k = 0, 0

    def add(more: Mapping[tuple[Any, ...], int]) -> None:
        for key, n in more.items():
            counts[key] = counts.get(key, 0) + n

    while done < samples and (stop is None or not done or time.perf_counter() < stop):
        size = min(samples - done, BATCH_PILOT if not k else
                   samples if stop is None else BATCH_PILOT << k)
        got = simulate_batched(lambda d: proc.run(params, d), proc.fields, size, seed,
                               stream=k, tables=tables, into=counts)
        if got is None:
            return None
        done, k = done + size, k + 1
        if progress is not None:
            progress(done, samples)
        if k == 1 and got[1] > BATCH_ALONE * size and done < samples:
            rest = _simulate_streams(proc, params, samples - done, seed, None, stop)
            add(rest.counts)
            done += rest.samples
            break
    if progress is not None:
        progress(done, samples)
    return _counted(proc, params, dict(counts), done, samples, seed, start)


def _counted(proc: Procedure, params: Params, counts: dict[tuple[Any, ...], int], done: int,
             samples: int, seed: int, start: float) -> Estimate:
    return Estimate(proc.id, normalized(params), proc.fields, counts, done, seed,
                    time.perf_counter() - start, _stopped(done, samples), orders=proc.orders,
                    leave_out=proc.repeats)


class _Stream:
    """``size`` samples drawn with ``rng`` (a sampler of its own: its tables and random
    stream), counted into ``counts`` a chunk at a time."""

    def __init__(self, proc: Procedure, params: Params, rng: random.Random, size: int,
                 counts: dict[tuple[Any, ...], int]) -> None:
        from warroom.engine.montecarlo import SampleDice

        self.proc, self.params, self.size, self.counts = proc, params, size, counts
        self.ctx: Dice = SampleDice(rng)
        self.done = 0

    @property
    def left(self) -> int:
        return self.size - self.done

    def run(self, chunk: int) -> None:
        run, params, ctx, counts, fields = (self.proc.run, self.params, self.ctx,
                                            self.counts, self.proc.fields)
        todo = min(chunk, self.left)
        if todo and not self.done:  # the first sample's fields are checked
            first = _checked(self.proc, run(params, ctx))
            key = tuple([first[f] for f in fields])
            counts[key] = counts.get(key, 0) + 1
            self.done, todo = 1, todo - 1
        for _ in range(todo):
            out = run(params, ctx)
            if type(out) is Row and out.names == fields:  # the outcome as a row: as it is
                key = out.cells
            else:
                key = tuple([out[f] for f in fields])
            counts[key] = counts.get(key, 0) + 1
        self.done += todo


def _stream_rng(seed: int, k: int) -> random.Random:
    """Stream ``k``'s generator in a run seeded ``seed`` (a string seed is hashed with
    SHA-512: the same on every machine and Python run)."""
    return random.Random(f"warroom:{seed}:{k}")


def _simulate_streams(proc: Procedure, params: Params, samples: int, seed: int,
                      progress: Progress | None, stop: float | None) -> Estimate:
    """A long run as :data:`STREAMS` seeded streams of (nearly) equal size, counted
    together. Where the machine has a core to spare and this process no other thread
    (:func:`_may_fork`), the other streams run in forked processes while this one runs
    the first; otherwise the streams take turns here, a chunk each. The answer is the
    same either way (each stream has its own generator and sampler); only the time
    differs. A stream whose process fails is run here."""
    sizes = [samples // STREAMS + (k < samples % STREAMS) for k in range(STREAMS)]
    counts: dict[tuple[Any, ...], int] = {}
    start = time.perf_counter()
    streams = [_Stream(proc, params, _stream_rng(seed, k), n, counts)
               for k, n in enumerate(sizes)]
    chunk = STREAM_CHUNK if stop is None else TIMED_CHUNK
    # the objects made before the run are left out of the collector's passes while it
    # runs, here and in a forked stream: walking a large heap (a server's memo tables)
    # costs time, and in a forked process copies every page it touches (4x slower)
    frozen = gc_frozen()
    frozen.__enter__()
    forked = [_Forked.start(s, chunk, stop) for s in streams[1:]] if _may_fork() else []
    try:
        here = [streams[0]] if forked else streams
        while any(s.left for s in here) and (
                stop is None or not streams[0].done or time.perf_counter() < stop):
            for s in here:
                s.run(chunk)
            if progress is not None:  # the forked streams keep pace with this one
                progress(min(samples, sum(s.done for s in here) * len(streams) // len(here)),
                         samples)
        for s, f in zip(streams[1:], forked, strict=False):
            if not f.join(s):  # its process failed: this stream is run here
                while s.left and (stop is None or not s.done or time.perf_counter() < stop):
                    s.run(chunk)
    finally:
        for f in forked:
            f.kill()
        frozen.__exit__(None, None, None)
    done = sum(s.done for s in streams)
    if progress is not None:
        progress(done, samples)
    return _counted(proc, params, counts, done, samples, seed, start)


def _may_fork() -> bool:
    """Whether a run may fork processes for its streams: a spare core, ``os.fork``, and
    no other thread in this process (forking a threaded process can copy a lock another
    thread holds)."""
    import os
    import threading

    return (FORK_STREAMS and (os.cpu_count() or 1) > 1 and hasattr(os, "fork")
            and threading.active_count() == 1)


class _Forked:
    """A stream counted in a forked process: it sends back its counts (pickled, through
    a pipe) and exits; it stops by itself when this process goes away."""

    def __init__(self, pid: int, fd: int) -> None:
        self.pid, self.fd = pid, fd

    @classmethod
    def start(cls, stream: _Stream, chunk: int, stop: float | None) -> _Forked:
        import os
        import pickle

        parent = os.getpid()
        read, write = os.pipe()
        pid = os.fork()
        if pid:
            os.close(write)
            return cls(pid, read)
        code = 1  # the child: count, send, exit without the parent's clean-up
        try:
            os.close(read)
            while stream.left and (stop is None or not stream.done
                                   or time.perf_counter() < stop):
                if os.getppid() != parent:  # the parent was stopped: stop too
                    break
                stream.run(chunk)
            data = pickle.dumps((stream.counts, stream.done), pickle.HIGHEST_PROTOCOL)
            with os.fdopen(write, "wb") as out:
                out.write(data)
            code = 0
        finally:
            os._exit(code)

    def join(self, stream: _Stream) -> bool:
        """Take the stream's counts into ``stream`` (False: its process failed)."""
        import os
        import pickle

        with os.fdopen(self.fd, "rb") as pipe:
            data = pipe.read()
        _, status = os.waitpid(self.pid, 0)
        self.pid = 0
        if status != 0 or not data:
            return False
        counts, done = pickle.loads(data)
        for key, n in counts.items():
            stream.counts[key] = stream.counts.get(key, 0) + n
        stream.done = done
        return True

    def kill(self) -> None:
        import os
        import signal

        if self.pid:
            with contextlib.suppress(OSError):
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.pid = 0


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
