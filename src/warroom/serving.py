"""Exact odds and Monte Carlo without stalling a server: a cache, worker processes,
deadlines and cancellation. Nothing starts at import.

* :class:`OddsCache`, one bounded LRU keyed by the procedure id and its normalised
  parameters (:func:`cache_key`), shared by the JSON API, the pages, compare and battle
  luck (:func:`cached_odds`). It holds exact answers, the fact that a question is too
  large for exact odds, and Monte Carlo estimates.
* :class:`WorkPool`, worker *processes* (``forkserver`` where there is one, else
  ``spawn``: safe with the server's threads) at a lower priority than the server, in two
  lanes: ``long`` for exact odds and ``/api/simulate``, ``short`` for the time-capped
  estimates standing in for exact odds, so an estimate never queues behind a long job.
  Workers start when first needed, up to each lane's size. A job nobody waits for any
  more is cancelled: its worker is terminated and replaced.
* :class:`Serving`, what the web app calls: :meth:`Serving.odds` answers with the exact
  odds when they come within the deadline, else with a Monte Carlo estimate (its 95%
  margin) while the exact job goes on for a while (``linger``) for whoever asks again.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import multiprocessing
import os
import signal
import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any, TypeVar

from warroom.engine.procedure import Params, Procedure
from warroom.engine.results import Distribution, Estimate
from warroom.errors import ExactTooLargeError, RuleError, UsageError

T = TypeVar("T")

CACHE_SIZE = 512
DEADLINE = 0.5
"""Seconds a page waits for exact odds before it shows the estimate."""
API_DEADLINE = 10.0
"""Seconds the JSON API waits for exact odds before it answers with the estimate."""
EXACT_LIMIT = 120.0
"""No exact job runs longer than this; past it the estimate stands."""
LINGER = 10.0
"""Seconds an exact job past its deadline goes on without anyone asking for it again."""
ESTIMATE_SECONDS = 1.0
"""Time cap of the estimate a page shows instead of exact odds."""
API_ESTIMATE_SECONDS = 5.0
"""Time cap of the estimate the JSON API gives instead of exact odds."""
SIMULATE_SECONDS = 10.0
"""Time cap of ``/api/simulate``: past it the answer has the samples done so far."""
WORKER_NICE = 10


def default_workers() -> int:
    """Long-lane workers: one per core, at least one (two on this project's machine)."""
    return max(1, os.cpu_count() or 1)


def default_context() -> str:
    """``forkserver`` (a worker is a quick fork of a server that has loaded warroom)
    where the platform has it, else ``spawn``."""
    return "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"


PRELOAD = ["warroom.api", "warroom.engine.drivers", "warroom.engine.exact",
           "warroom.engine.montecarlo", "warroom.engine.roll", "warroom.games.demo",
           "warroom.games.fow", "warroom.games.asl", "warroom.games.commander", "numpy"]
"""Modules the fork server loads once, so that each worker starts in milliseconds."""


def cache_key(proc_id: str, params: Mapping[str, Any]) -> str:
    """The cache key of a question: the procedure and its normalised parameters."""
    return proc_id + " " + json.dumps(params, sort_keys=True, separators=(",", ":"),
                                      default=str)


@dataclass(frozen=True)
class TooLarge:
    """The cache's record that a question is past the exact budget."""

    procedure: str
    paths: int


class OddsCache:
    """A bounded least-recently-used map, safe to use from several threads."""

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self.size = size
        self._data: OrderedDict[tuple[str, str], Any] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, kind: str, key: str) -> Any:
        with self._lock:
            value = self._data.get((kind, key))
            if value is None:
                self.misses += 1
                return None
            self._data.move_to_end((kind, key))
            self.hits += 1
            return value

    def put(self, kind: str, key: str, value: Any) -> None:
        with self._lock:
            self._data[(kind, key)] = value
            self._data.move_to_end((kind, key))
            while len(self._data) > self.size:
                self._data.popitem(last=False)

    def __len__(self) -> int:
        return len(self._data)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()


_CACHE: list[OddsCache] = []


def shared_cache() -> OddsCache:
    """The process's one odds cache (made on first use)."""
    if not _CACHE:
        _CACHE.append(OddsCache())
    return _CACHE[0]


def cached_odds(proc_id: str, params: Mapping[str, Any] | Params, *,
                procedure: Procedure | None = None) -> Distribution:
    """Exact odds through the shared cache, computed here on a miss (for callers outside
    the event loop, such as a battle's luck). ``params`` as given (validated here) or
    already validated (then ``procedure``, when given, is the one they belong to).
    Raises :class:`ExactTooLargeError` (also remembered) for a question past the exact
    budget, :class:`UsageError` for bad parameters."""
    from warroom import api
    from warroom.engine import drivers
    from warroom.engine.params import normalized

    if isinstance(params, Mapping):
        proc, p = api.prepare(proc_id, params)
    else:
        proc, p = api.registry().procedure(proc_id), params
        if procedure is not None and procedure is not proc:
            return drivers.exact(procedure, p)  # not the registered rule: never cached
    key = cache_key(proc.id, normalized(p))
    cache = shared_cache()
    found = cache.get("exact", key)
    if isinstance(found, TooLarge):
        raise ExactTooLargeError(found.procedure, found.paths)
    if found is not None:
        return found  # type: ignore[no-any-return]
    try:
        dist = drivers.exact(proc, p)
    except ExactTooLargeError as exc:
        cache.put("exact", key, TooLarge(exc.procedure, exc.paths))
        raise
    cache.put("exact", key, dist)
    return dist


# --------------------------------------------------------------------------- workers
def _worker_main(conn: Connection, nice: int) -> None:
    """A worker process: answer tasks from ``conn`` until it closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C is the server's to handle
    with contextlib.suppress(OSError):
        os.nice(nice)
    from warroom import api

    api.registry()
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        try:
            reply: tuple[Any, ...] = ("ok", _run_task(*task))
        except ExactTooLargeError as exc:
            reply = ("too_large", exc.procedure, exc.paths)
        except UsageError as exc:
            reply = ("usage", str(exc))
        except Exception as exc:  # a bug in a rule: say which, keep the worker
            reply = ("error", f"{type(exc).__name__}: {exc}")
        conn.send(reply)


def _run_task(kind: str, proc_id: str, raw: Mapping[str, Any], *args: Any) -> Any:
    """``exact``: (weights, denominator); ``simulate``: (counts, samples, seconds, extra).
    Plain data only: the parent builds the result objects."""
    from warroom import api
    from warroom.engine import drivers

    if kind == "sleep":  # for tests of cancellation: a job that only takes time
        time.sleep(float(args[0]))
        return os.getpid()
    proc, p = api.prepare(proc_id, raw)
    # each field's and unit's chances are worked out here too, not in the server
    if kind == "exact":
        dist = drivers.exact(proc, p)
        return dict(dist.weights), dist.denominator, dist.parts()
    if kind == "simulate":  # the time cap counts from the request (the wait in the queue)
        samples, seed, seconds, sent = args
        left = max(0.05, seconds - max(0.0, time.time() - sent))
        est = drivers.simulate(proc, p, samples, seed=seed, seconds=left)
        return (dict(est.counts), est.samples, est.seconds, dict(est.extra),
                est.as_distribution().parts())
    raise RuleError(f"unknown task {kind!r}")


class WorkerLost(RuleError):
    """A worker process died while working (killed from outside, out of memory), and so
    did the fresh one the job was given to next: the web app answers 503 with the code
    ``worker_lost`` (ask again)."""

    code = "worker_lost"
    http_status = 503

    def __init__(self, procedure: str) -> None:
        self.procedure = procedure
        super().__init__(f"the worker process working on {procedure} stopped (killed or out "
                         "of memory), and so did a fresh one given the same work; ask again "
                         "in a moment")


class _Worker:
    def __init__(self, ctx: Any, nice: int) -> None:
        parent, child = ctx.Pipe()
        self.process = ctx.Process(target=_worker_main, args=(child, nice), daemon=True,
                                   name="warroom-worker")
        self.process.start()
        child.close()
        self.conn: Connection = parent
        self.nice = nice

    def kill(self) -> None:
        with contextlib.suppress(Exception):
            self.process.kill()
        # reap without blocking the event loop
        threading.Thread(target=self._reap, daemon=True).start()

    def _reap(self) -> None:
        self.process.join(10)
        with contextlib.suppress(Exception):
            self.conn.close()


_PARKED: list[_Worker] = []
"""Idle workers of pools that closed, kept for the next pool of this process (several
apps in one process, as in tests, share warm workers instead of starting new ones)."""


class _Lane:
    def __init__(self, name: str, size: int) -> None:
        self.name = name
        self.size = max(1, size)
        self.idle: asyncio.Queue[_Worker] = asyncio.Queue()
        self.workers: set[_Worker] = set()


class WorkPool:
    """Worker processes in lanes; :meth:`run` sends a task and awaits its reply. Cancel
    the awaiting task and the worker is terminated and replaced."""

    def __init__(self, workers: int | None = None, short_workers: int = 1,
                 context: str | None = None, nice: int = WORKER_NICE,
                 prestart: bool = False) -> None:
        self.sizes = {"long": workers or default_workers(), "short": short_workers}
        self.context = context or default_context()
        self.nice = nice
        self.prestart = prestart
        self.lanes: dict[str, _Lane] = {}
        self.replaced = 0
        self.lost = 0
        """Workers found dead with a task (each replaced, the task given to another)."""

    def start(self) -> None:
        """Make the lanes (in the running event loop); with ``prestart``, start every
        worker now (they load the rules while the first tasks wait in their pipes)."""
        self._ctx = multiprocessing.get_context(self.context)
        if self.context == "forkserver":
            self._ctx.set_forkserver_preload(PRELOAD)
        for name, size in self.sizes.items():
            lane = self.lanes[name] = _Lane(name, size)
            for _ in range(lane.size if self.prestart else 0):
                self._add(lane)

    def _add(self, lane: _Lane) -> None:
        worker = None
        while _PARKED and worker is None:
            parked = _PARKED.pop()
            if parked.process.is_alive() and parked.nice == self.nice:
                worker = parked
            else:
                parked.kill()
        if worker is None:
            worker = _Worker(self._ctx, self.nice)
        lane.workers.add(worker)
        lane.idle.put_nowait(worker)

    def _replace(self, lane: _Lane, worker: _Worker) -> None:
        lane.workers.discard(worker)
        worker.kill()
        self.replaced += 1
        self._add(lane)

    def pids(self, lane: str) -> set[int]:
        return {w.process.pid for w in self.lanes[lane].workers if w.process.pid}

    def close(self) -> None:
        """Stop every busy worker; idle ones are parked for another pool (daemons: they
        end with this process)."""
        for lane in self.lanes.values():
            idle = set()
            while not lane.idle.empty():
                idle.add(lane.idle.get_nowait())
            for worker in lane.workers:
                if worker in idle:
                    _PARKED.append(worker)
                else:
                    worker.kill()
            lane.workers.clear()

    async def run(self, lane_name: str, task: tuple[Any, ...], retries: int = 1) -> Any:
        """The task's result (``too_large`` raises ExactTooLargeError, as in-process). A
        worker that dies while working (killed, out of memory) is replaced at once and the
        task given to a live worker, ``retries`` times; past them :class:`WorkerLost`."""
        lane = self.lanes[lane_name]
        for _ in range(retries):
            with contextlib.suppress(_Died):
                return await self._run_once(lane, task)
        try:
            return await self._run_once(lane, task)
        except _Died:
            raise WorkerLost(task[1]) from None

    async def _run_once(self, lane: _Lane, task: tuple[Any, ...]) -> Any:
        if lane.idle.empty() and len(lane.workers) < lane.size:
            self._add(lane)
        worker = await lane.idle.get()
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[None] = loop.create_future()
        try:
            fd = worker.conn.fileno()
            worker.conn.send(task)
            def wake() -> None:
                if not ready.done():
                    ready.set_result(None)

            loop.add_reader(fd, wake)
            try:
                await ready
            finally:
                loop.remove_reader(fd)
            reply = worker.conn.recv()
        except asyncio.CancelledError:
            self._replace(lane, worker)
            raise
        except (EOFError, OSError) as exc:  # it died, working or idle: a fresh one stands in
            self.lost += 1
            self._replace(lane, worker)
            raise _Died from exc
        lane.idle.put_nowait(worker)
        status = reply[0]
        if status == "ok":
            return reply[1]
        if status == "too_large":
            raise ExactTooLargeError(reply[1], reply[2])
        if status == "usage":
            raise UsageError("{text}", text=reply[1])
        raise RuleError(reply[1])


class _Died(Exception):
    """The worker given a task died before it answered (it has been replaced)."""


# --------------------------------------------------------------------------- serving
@dataclass
class Answer:
    """Odds as a page or the API shows them: exact, or an estimate standing in for them
    (``pending``: the exact odds are still being worked out; ask again for them)."""

    key: str
    exact: Distribution | None = None
    estimate: Estimate | None = None
    pending: bool = False

    @property
    def dist(self) -> Distribution:
        """What views show: the exact odds, or the estimate's counts over its samples."""
        if self.exact is not None:
            return self.exact
        assert self.estimate is not None
        return self.estimate.as_distribution()

    def to_json(self, exact: bool = False, full: bool = True) -> dict[str, Any]:
        if self.exact is not None:
            return self.exact.to_json(exact=exact, full=full)
        assert self.estimate is not None
        out = self.estimate.to_json(full=full)
        out["exact_pending"] = self.pending
        return out


@dataclass
class _Job:
    task: asyncio.Task[Any]
    waiters: int = 0
    keep_until: float = 0.0
    started: float = field(default_factory=time.monotonic)


class ClientGone(Exception):
    """The client went away before its answer was ready."""


class Serving:
    """The app's front to the worker pool and the cache (one per app, started in its
    lifespan). Times are in seconds."""

    def __init__(self, *, workers: int | None = None, short_workers: int = 1,
                 deadline: float = DEADLINE, api_deadline: float = API_DEADLINE,
                 exact_limit: float = EXACT_LIMIT, linger: float = LINGER,
                 estimate_seconds: float = ESTIMATE_SECONDS,
                 api_estimate_seconds: float = API_ESTIMATE_SECONDS,
                 simulate_seconds: float = SIMULATE_SECONDS,
                 cache: OddsCache | None = None, context: str | None = None,
                 prestart: bool = False) -> None:
        self.pool = WorkPool(workers, short_workers, context, prestart=prestart)
        self.cache = cache if cache is not None else shared_cache()
        self.deadline = deadline
        self.api_deadline = api_deadline
        self.exact_limit = exact_limit
        self.linger = linger
        self.estimate_seconds = estimate_seconds
        self.api_estimate_seconds = api_estimate_seconds
        self.simulate_seconds = simulate_seconds
        self.jobs: dict[str, _Job] = {}
        self._reaper: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self.pool.start()
        self._reaper = asyncio.create_task(self._reap_forever())

    async def stop(self) -> None:
        if self._reaper is not None:
            self._reaper.cancel()
        for job in self.jobs.values():
            job.task.cancel()
        self.jobs.clear()
        self.pool.close()

    async def _reap_forever(self) -> None:
        while True:
            await asyncio.sleep(0.25)
            self.reap()

    def reap(self) -> None:
        """Cancel exact jobs that nobody waits for and whose lingering time is over."""
        now = time.monotonic()
        for key, job in list(self.jobs.items()):
            if job.task.done():
                self.jobs.pop(key, None)
            elif job.waiters == 0 and now >= job.keep_until:
                job.task.cancel()
                self.jobs.pop(key, None)

    # ------------------------------------------------------------------ exact odds
    def _exact_job(self, key: str, proc_id: str, raw: Mapping[str, Any],
                   params: Mapping[str, Any], proc: Any) -> _Job:
        job = self.jobs.get(key)
        if job is not None and not job.task.done():
            return job

        async def work() -> Distribution | TooLarge:
            try:
                weights, den, parts = await asyncio.wait_for(
                    self.pool.run("long", ("exact", proc_id, dict(raw))), self.exact_limit)
            except ExactTooLargeError as exc:
                too = TooLarge(exc.procedure, exc.paths)
                self.cache.put("exact", key, too)
                return too
            except (TimeoutError, WorkerLost):
                # not the budget but the time limit, or two workers died on it (out of
                # memory, say): the estimate stands
                too = TooLarge(proc_id, 0)
                self.cache.put("slow", key, too)
                return too
            dist = Distribution(proc.id, params, proc.fields, weights, den, proc.orders,
                                parts, proc.repeats)
            self.cache.put("exact", key, dist)
            return dist

        job = _Job(asyncio.create_task(work()))
        # a finished job's exception is read here, so none is reported as never retrieved
        job.task.add_done_callback(lambda t: t.cancelled() or t.exception())
        self.jobs[key] = job
        return job

    async def _wait(self, job: _Job, timeout: float) -> Distribution | TooLarge | None:
        """The job's result, or None past ``timeout`` (the job then goes on for
        :attr:`linger` seconds more for whoever asks again)."""
        job.waiters += 1
        try:
            return await asyncio.wait_for(asyncio.shield(job.task), timeout)
        except TimeoutError:
            job.keep_until = max(job.keep_until, time.monotonic() + self.linger)
            return None
        finally:
            job.waiters -= 1
            if job.waiters == 0 and time.monotonic() >= job.keep_until and (
                    not job.task.done()):
                job.task.cancel()  # the only asker went away before its deadline

    async def odds(self, proc_id: str, raw: Mapping[str, Any], *,
                   deadline: float | None = None, estimate_seconds: float | None = None
                   ) -> Answer:
        """Exact odds if they come within ``deadline`` (the page's by default), else a
        Monte Carlo estimate with the exact job kept going for :attr:`linger` seconds.
        Usage errors are raised at once, on the event loop (validation is quick)."""
        from warroom import api
        from warroom.engine.params import normalized

        proc, p = api.prepare(proc_id, raw)
        params = normalized(p)
        key = cache_key(proc.id, params)
        found = self.cache.get("exact", key) or self.cache.get("slow", key)
        if isinstance(found, Distribution):
            return Answer(key, exact=found)
        pending = False
        if found is None:
            job = self._exact_job(key, proc.id, raw, params, proc)
            result = await self._wait(job, self.deadline if deadline is None else deadline)
            if isinstance(result, Distribution):
                return Answer(key, exact=result)
            pending = result is None
        est = await self.estimate(proc, raw, params, key, estimate_seconds)
        done = self.cache.get("exact", key)
        if isinstance(done, Distribution):  # the exact odds came while it was estimated
            return Answer(key, exact=done)
        return Answer(key, estimate=est, pending=pending and key in self.jobs)

    def cached(self, proc_id: str, raw: Mapping[str, Any]) -> Answer | None:
        """The exact odds if the cache has them, as an answer (no task, no wait: the
        common case at the table)."""
        from warroom import api
        from warroom.engine.params import normalized

        proc, p = api.prepare(proc_id, raw)
        key = cache_key(proc.id, normalized(p))
        found = self.cache.get("exact", key)
        return Answer(key, exact=found) if isinstance(found, Distribution) else None

    def peek(self, proc_id: str, raw: Mapping[str, Any]) -> Distribution | None:
        """The exact odds if they are in the cache; never computes."""
        from warroom import api
        from warroom.engine.params import normalized

        proc, p = api.prepare(proc_id, raw)
        found = self.cache.get("exact", cache_key(proc.id, normalized(p)))
        return found if isinstance(found, Distribution) else None

    async def estimate(self, proc: Any, raw: Mapping[str, Any], params: Mapping[str, Any],
                       key: str, seconds: float | None = None) -> Estimate:
        """The seeded Monte Carlo stand-in for exact odds (cached; a cached estimate cut
        short by a smaller time cap is made again for a larger one)."""
        from warroom.engine import drivers

        seconds = self.estimate_seconds if seconds is None else seconds
        found = self.cache.get("estimate", key)
        if found is not None and (found[1] >= seconds
                                  or not found[0].extra.get("stopped_early")):
            return found[0]  # type: ignore[no-any-return]
        est = await self.simulate(proc, raw, params, drivers.samples_for(),
                                  drivers.ESTIMATE_SEED, seconds, lane="short")
        self.cache.put("estimate", key, (est, seconds))
        return est

    async def simulate(self, proc: Any, raw: Mapping[str, Any], params: Mapping[str, Any],
                       samples: int, seed: int, seconds: float, lane: str = "long"
                       ) -> Estimate:
        """Monte Carlo in a worker, stopping ``seconds`` after now (time spent waiting
        for a free worker counts; at least one chunk of samples is always drawn)."""
        counts, done, spent, extra, parts = await self.pool.run(
            lane, ("simulate", proc.id, dict(raw), samples, seed, seconds, time.time()))
        return Estimate(proc.id, params, proc.fields, counts, done, seed, spent, extra,
                        orders=proc.orders, parts=parts, leave_out=proc.repeats)


async def unless_gone(is_disconnected: Callable[[], Awaitable[bool]], work: Awaitable[T],
                      every: float = 0.1) -> T:
    """Await ``work`` unless the client goes away first: then cancel it (its workers stop
    when nobody else waits for them) and raise :class:`ClientGone`."""
    task = asyncio.ensure_future(work)

    async def watch() -> None:
        while not await is_disconnected():
            await asyncio.sleep(every)

    watcher = asyncio.ensure_future(watch())
    try:
        done, _ = await asyncio.wait({task, watcher}, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        task.cancel()
        watcher.cancel()
        raise
    if task in done:
        watcher.cancel()
        return task.result()
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await task
    raise ClientGone
