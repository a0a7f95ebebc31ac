"""Exact odds and Monte Carlo without stalling a server: a cache, worker processes,
deadlines and cancellation. Nothing starts at import.

* :class:`OddsCache`, one bounded LRU keyed by the procedure id and its normalised
  parameters (:func:`cache_key`), shared by the JSON API, the pages, compare and battle
  luck (:func:`cached_odds`). It holds exact answers, the fact that a question is too
  large for exact odds, and Monte Carlo estimates.
* :class:`WorkPool`, worker *processes* (``forkserver`` where there is one, else
  ``spawn``: safe with the server's threads) at a lower priority than the server, in
  three lanes: ``quick``, where every fresh exact question goes first with a time cap of
  :data:`QUICK_SECONDS` (the question at the table, answered in a millisecond or two,
  never waits behind heavy work), ``long`` for the exact odds past that cap and
  ``/api/simulate``, ``short`` for the time-capped estimates standing in for exact odds,
  so an estimate never queues behind a long job. Workers start when first needed, up to
  each lane's size. A job nobody waits for any more is cancelled: its worker is
  terminated and replaced. A big result comes in pieces (:data:`CHUNK`), read as they
  arrive, so taking it in never holds up the event loop.
* :class:`Serving`, what the web app calls: :meth:`Serving.odds` answers with the exact
  odds when they come within the deadline, else with a Monte Carlo estimate (its 95%
  margin) while the exact job goes on for a while (``linger``) for whoever asks again.
  For a page (``fine``), the half-point estimate is then refined to a tenth of a point
  (:data:`FINE_MARGIN`) in the long lane, one seeded job per question, cached when done.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import multiprocessing
import os
import pickle
import signal
import struct
import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any, TypeVar

from warroom.battle.odds import LUCK_MARGIN
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
ESTIMATE_SECONDS = 0.75
"""Seconds a page's answer takes at most, from the question, when exact odds are past the
budget or late: the estimate shown instead uses what the wait for exact odds left of
them (at least :data:`ESTIMATE_FLOOR`), and a full-size estimate still being counted
replaces it later (``refining``)."""
ESTIMATE_FLOOR = 0.25
"""Seconds a page's estimate may always take, even when the wait for exact odds used up
:data:`ESTIMATE_SECONDS`."""
API_ESTIMATE_SECONDS = 5.0
"""Time cap of the estimate the JSON API gives instead of exact odds."""
SIMULATE_SECONDS = 10.0
"""Time cap of ``/api/simulate``: past it the answer has the samples done so far."""
WORKER_NICE = 10
FINE_MARGIN = 0.001
"""The 95% margin (a tenth of a percentage point: 25 times the samples of the half-point
estimate) a page's estimate is refined to in the background once the half-point one
stands (:meth:`Serving.odds` with ``fine``)."""
QUICK_SECONDS = 0.05
"""Time a fresh question may take in the quick lane: nearly every question at the table
(one test, one shot) is answered in a millisecond or two there, even while every long
worker is busy with heavy ones; past it the question moves to the long lane."""


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


LUCK = f"luck:{LUCK_MARGIN:g}"
"""The shared cache's table of luck estimates."""


def luck_estimate(proc: Procedure, params: Params) -> Estimate:
    """The Monte Carlo estimate a battle's luck expectation uses where exact odds are past
    the budget (:func:`warroom.engine.drivers.estimate`, its seed, :data:`LUCK_MARGIN`): from
    the shared cache when the web app worked it out beforehand in a worker
    (:meth:`Serving.warm`), else worked out here (the command line)."""
    from warroom import api
    from warroom.engine import drivers
    from warroom.engine.params import normalized

    if api.registry().procedure(proc.id) is not proc:  # not the registered rule
        return drivers.estimate(proc, params, margin=LUCK_MARGIN)
    key = cache_key(proc.id, normalized(params))
    cache = shared_cache()
    found = cache.get(LUCK, key)
    if isinstance(found, Estimate):
        return found
    est = drivers.estimate(proc, params, margin=LUCK_MARGIN)
    cache.put(LUCK, key, est)
    return est


class SharedOdds:
    """The odds source (:class:`warroom.battle.odds.OddsSource`) the web app and the
    command line hand their battles: the shared cache, which the web app's workers fill
    beforehand (:func:`cached_odds`, :func:`luck_estimate`)."""

    def exact(self, proc: Procedure, params: Params) -> Distribution:
        return cached_odds(proc.id, params, procedure=proc)

    def luck(self, proc: Procedure, params: Params) -> Estimate:
        return luck_estimate(proc, params)


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
        except _OverTime:
            reply = ("over_time",)
        except Exception as exc:  # a bug in a rule: say which, keep the worker
            reply = ("error", f"{type(exc).__name__}: {exc}")
        send_reply(conn, reply)


CHUNK = 2000
"""Entries of a result's table (the weights of each whole outcome, the counts of an
estimate) per message: the server reads a reply one message per turn of its event
loop, so taking in 25,000 whole outcomes of a stack (3.6 MB, some 15 ms of unpickling)
never holds up a light request for more than about a millisecond."""


def send_reply(conn: Connection, reply: tuple[Any, ...], chunk: int = CHUNK) -> None:
    """Send ``reply``; a result whose first item is a table longer than ``chunk`` goes
    as ``("items", [...])`` messages of ``chunk`` entries, then the result with an
    empty table (:meth:`WorkPool._run_once` puts it together again)."""
    if reply[0] == "ok" and isinstance(reply[1], tuple) and reply[1] and isinstance(
            reply[1][0], dict) and len(reply[1][0]) > chunk:
        items = list(reply[1][0].items())
        for start in range(0, len(items), chunk):
            conn.send(("items", items[start:start + chunk]))
        reply = ("ok", ({}, *reply[1][1:]))
    conn.send(reply)


class _OverTime(Exception):
    """A quick-lane question took longer than its time: it goes to the long lane."""


def _over_time(_signum: int, _frame: Any) -> None:
    raise _OverTime


def _run_task(kind: str, proc_id: str, raw: Mapping[str, Any], *args: Any) -> Any:
    """``exact``: (weights, denominator); ``simulate``: (counts, samples, seconds, extra).
    Plain data only: the parent builds the result objects."""
    from warroom import api
    from warroom.engine import drivers

    if kind == "sleep":  # for tests of cancellation: a job that only takes time
        time.sleep(float(args[0]))
        return os.getpid()
    if kind == "battle":  # a whole battle log's read: proc_id says which
        return _battle_read(proc_id, str(args[0]), str(args[1]))
    proc, p = api.prepare(proc_id, raw)
    # each field's and unit's chances are worked out here too, not in the server
    if kind == "exact":
        dist = drivers.exact(proc, p)
        return dict(dist.weights), dist.denominator, dist.parts()
    if kind == "quick":  # exact odds, unless they take longer than args[0] seconds
        if not hasattr(signal, "setitimer"):
            raise _OverTime
        previous = signal.signal(signal.SIGALRM, _over_time)
        signal.setitimer(signal.ITIMER_REAL, float(args[0]))
        try:
            dist = drivers.exact(proc, p)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        return dict(dist.weights), dist.denominator, dist.parts()
    if kind == "luck":  # a battle's luck expectation past the exact budget
        est = drivers.estimate(proc, p, margin=float(args[0]))
        return (dict(est.counts), est.samples, est.seconds, dict(est.extra),
                est.as_distribution().parts())
    if kind == "simulate":  # the time cap counts from the request (the wait in the queue)
        samples, seed, seconds, sent = args
        left = max(0.05, seconds - max(0.0, time.time() - sent))
        est = drivers.simulate(proc, p, samples, seed=seed, seconds=left)
        return (dict(est.counts), est.samples, est.seconds, dict(est.extra),
                est.as_distribution().parts())
    raise RuleError(f"unknown task {kind!r}")


_STORES: dict[str, Any] = {}
"""The battle stores a worker process has opened (by URL), kept for its next read."""
BATTLE_READS = ("verify", "export", "log", "luck")


def _battle_read(what: str, url: str, battle_id: str) -> Any:
    """A read of a whole battle log (``verify``, ``export``, ``log``, ``luck``) in a
    worker process, as plain JSON data."""
    from warroom.battle.core import Battles
    from warroom.battle.store import Store

    if what not in BATTLE_READS:
        raise RuleError(f"unknown battle read {what!r}")
    store = _STORES.get(url)
    if store is None:
        store = _STORES[url] = Store(url)
    battles = Battles(store, odds=SharedOdds())
    if what == "verify":
        return battles.verify(battle_id).to_json()
    if what == "export":
        return battles.export(battle_id)
    if what == "luck":
        return battles.luck_report(battle_id)
    return battles.log(battle_id)


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
        self.starting = 0
        """Workers being started in a thread (replacing ended ones)."""


class WorkPool:
    """Worker processes in lanes; :meth:`run` sends a task and awaits its reply. Cancel
    the awaiting task and the worker is terminated and replaced."""

    def __init__(self, workers: int | None = None, short_workers: int = 1,
                 context: str | None = None, nice: int = WORKER_NICE,
                 prestart: bool = False, quick_workers: int = 1) -> None:
        self.sizes = {"long": workers or default_workers(), "short": short_workers,
                      "quick": quick_workers, "read": 1}
        self.context = context or default_context()
        self.nice = nice
        self.prestart = prestart
        self.lanes: dict[str, _Lane] = {}
        self.closed = False
        self.replaced = 0
        self.lost = 0
        """Workers found dead with a task (each replaced, the task given to another)."""

    def start(self) -> None:
        """Make the lanes (in the running event loop); with ``prestart``, start every
        worker now (they load the rules while the first tasks wait in their pipes)."""
        self.closed = False
        self._ctx = multiprocessing.get_context(self.context)
        if self.context == "forkserver":
            self._ctx.set_forkserver_preload(PRELOAD)
        for name, size in self.sizes.items():
            lane = self.lanes[name] = _Lane(name, size)
            for _ in range(lane.size if self.prestart else 0):
                self._add(lane)

    def _new_worker(self) -> _Worker:
        while _PARKED:
            parked = _PARKED.pop()
            if parked.process.is_alive() and parked.nice == self.nice:
                return parked
            parked.kill()
        return _Worker(self._ctx, self.nice)

    def _add(self, lane: _Lane, worker: _Worker | None = None) -> None:
        worker = worker or self._new_worker()
        lane.workers.add(worker)
        lane.idle.put_nowait(worker)

    def _replace(self, lane: _Lane, worker: _Worker) -> None:
        """End ``worker`` and start another in a thread: asking the fork server for a
        process waits for it (tens of milliseconds on a busy machine), which the event
        loop must not."""
        lane.workers.discard(worker)
        worker.kill()
        self.replaced += 1
        lane.starting += 1

        def started(future: asyncio.Future[_Worker]) -> None:
            lane.starting -= 1
            if future.cancelled() or future.exception() is not None:
                if not self.closed:  # once more, here: a task may be waiting for it
                    with contextlib.suppress(Exception):
                        self._add(lane)
                return
            if self.closed:
                _PARKED.append(future.result())
            else:
                self._add(lane, future.result())

        asyncio.get_running_loop().run_in_executor(None, self._new_worker
                                                   ).add_done_callback(started)

    def pids(self, lane: str) -> set[int]:
        return {w.process.pid for w in self.lanes[lane].workers if w.process.pid}

    def close(self) -> None:
        """Stop every busy worker; idle ones are parked for another pool (daemons: they
        end with this process)."""
        self.closed = True
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
        if lane.idle.empty() and len(lane.workers) + lane.starting < lane.size:
            self._add(lane)
        worker = await lane.idle.get()
        loop = asyncio.get_running_loop()
        try:
            fd = worker.conn.fileno()
            worker.conn.send(task)
            inbox = _Inbox(fd)
            loop.add_reader(fd, inbox.read)
            table: dict[Any, Any] = {}
            try:
                while True:
                    reply = inbox.take()
                    if reply is None:
                        await inbox.arrived()
                    elif reply[0] == "items":
                        table.update(reply[1])
                        await asyncio.sleep(0)  # one message per turn of the loop
                    else:
                        break
            finally:
                loop.remove_reader(fd)
            if table:
                reply = ("ok", (table, *reply[1][1:]))
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
        if status == "over_time":
            raise _OverTime
        raise RuleError(reply[1])


class _Inbox:
    """A worker's messages, read as their bytes arrive (on the event loop, without ever
    waiting for the rest of a message a busy worker has not finished writing). The
    framing is :class:`multiprocessing.connection.Connection`'s, which the worker sends
    with: a signed 4-byte big-endian length, or -1 and an 8-byte one; then the pickle."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.data = bytearray()
        self.ended = False
        self.event = asyncio.Event()

    def read(self) -> None:
        """What the pipe has now (the loop calls this when it is readable)."""
        try:
            got = os.read(self.fd, 1 << 20)
        except BlockingIOError:
            return
        except OSError:
            got = b""
        if got:
            self.data += got
        else:
            self.ended = True
        self.event.set()

    async def arrived(self) -> None:
        """Until more bytes (or the end of the pipe) come."""
        self.event.clear()
        await self.event.wait()

    def take(self) -> Any:
        """The next whole message, or None while it is still coming; :class:`EOFError`
        when the pipe ended (the worker died) before it was whole."""
        size, start = _frame(self.data)
        if size is None or len(self.data) < start + size:
            if self.ended:
                raise EOFError("the worker's pipe ended in the middle of a message")
            return None
        message = pickle.loads(self.data[start:start + size])
        del self.data[:start + size]
        return message


def _frame(data: bytearray) -> tuple[int | None, int]:
    """The length of the message at the start of ``data`` and where it begins (None
    until the whole length has come)."""
    if len(data) < 4:
        return None, 4
    (size,) = struct.unpack("!i", data[:4])
    if size != -1:
        return size, 4
    if len(data) < 12:
        return None, 12
    (size,) = struct.unpack("!Q", data[4:12])
    return size, 12


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
    refining: bool = False
    """The estimate was cut short by its time cap: the full one (a 95% margin of half a
    point) is being counted; ask again for it."""
    finer: float = 0.0
    """The 95% margin of a finer estimate being counted in the background (0: none is):
    ask again for it."""

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
        out["refining"] = self.refining or bool(self.finer)
        if out["refining"]:
            from warroom.engine.drivers import ESTIMATE_MARGIN

            out["refining_to"] = ESTIMATE_MARGIN if self.refining else self.finer
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
                 prestart: bool = False, quick_seconds: float = QUICK_SECONDS,
                 fine_margin: float = FINE_MARGIN) -> None:
        self.pool = WorkPool(workers, short_workers, context, prestart=prestart)
        self.fine_margin = fine_margin
        """The 95% margin a page's estimate is refined to in the background."""
        self._fine_slots: asyncio.Semaphore | None = None
        self.quick_seconds = quick_seconds
        """Time cap of a question in the quick lane (0: no quick lane)."""
        self.quick = 0
        """Exact answers the quick lane gave (the others came from the long lane)."""
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
        # finer estimates leave a long worker free (where there are two or more) for
        # exact odds and a battle action's luck: a Roll never waits behind them
        self._fine_slots = asyncio.Semaphore(max(1, self.pool.sizes["long"] - 1))
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
                try:  # the quick lane first: a light question never waits for heavy ones
                    if self.quick_seconds <= 0:
                        raise _OverTime
                    weights, den, parts = await self.pool.run(
                        "quick", ("quick", proc_id, dict(raw), self.quick_seconds))
                    self.quick += 1
                except _OverTime:
                    weights, den, parts = await asyncio.wait_for(
                        self.pool.run("long", ("exact", proc_id, dict(raw))),
                        self.exact_limit)
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

    async def _wait(self, job: _Job, timeout: float
                    ) -> Distribution | TooLarge | Estimate | None:
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
                   deadline: float | None = None, estimate_seconds: float | None = None,
                   fine: float | None = None) -> Answer:
        """Exact odds if they come within ``deadline`` (the page's by default), else a
        Monte Carlo estimate with the exact job kept going for :attr:`linger` seconds.
        A page (no ``estimate_seconds``) has its answer within the longer of ``deadline``
        and :attr:`estimate_seconds` from the question: the estimate takes what the wait
        for exact odds left (at least :data:`ESTIMATE_FLOOR`), and a full-size estimate
        still being counted is ``refining``. The API's ``estimate_seconds`` caps the
        estimate alone, and it waits ``deadline`` again for the full-size one.
        With ``fine`` (seconds to wait for it, 0: none), once the full-size estimate
        stands it is refined to :attr:`fine_margin` in the background
        (:meth:`_fine_job`): the answer is the finer estimate when it is ready, else the
        full-size one with ``finer`` set (ask again).
        Usage errors are raised at once, on the event loop (validation is quick)."""
        from warroom import api
        from warroom.engine.params import normalized

        start = time.monotonic()
        proc, p = api.prepare(proc_id, raw)
        params = normalized(p)
        key = cache_key(proc.id, params)
        found = self.cache.get("exact", key) or self.cache.get("slow", key)
        if isinstance(found, Distribution):
            return Answer(key, exact=found)
        pending = False
        wait = self.deadline if deadline is None else deadline
        if found is None:
            job = self._exact_job(key, proc.id, raw, params, proc)
            result = await self._wait(job, wait)
            if isinstance(result, Distribution):
                return Answer(key, exact=result)
            pending = result is None
        page = estimate_seconds is None  # a page: its whole answer within its budget
        budget = max(wait, self.estimate_seconds)
        if page:  # what is left of the budget; cached as the page's cap, not the rest
            left = budget - (time.monotonic() - start)
            estimate_seconds = max(left, min(self.estimate_seconds, ESTIMATE_FLOOR))
        est = await self.estimate(proc, raw, params, key, estimate_seconds,
                                  self.estimate_seconds if page else None)
        done = self.cache.get("exact", key)
        if isinstance(done, Distribution):  # the exact odds came while it was estimated
            return Answer(key, exact=done)
        # (an exact job that ended while the estimate was made found it too large)
        running = self.jobs.get(key)
        pending = pending and running is not None and not running.task.done()
        if pending:
            return Answer(key, estimate=est, pending=pending)
        if est.extra.get("stopped_early") and not self.cache.get("refined", key):
            # no exact odds coming: the estimate cut short by its time cap goes on to its
            # full size (a 95% margin of half a point) in the long lane, like an exact job
            full = await self._wait(self._refine_job(key, proc, raw, params), max(
                0.0, budget - (time.monotonic() - start)) if page else wait)
            if not isinstance(full, Estimate):
                return Answer(key, estimate=est, refining=True)
            est = full
        if fine is None or est.margin <= self.fine_margin:
            return Answer(key, estimate=est)
        return await self._finer(key, proc, raw, params, est, fine)

    async def _finer(self, key: str, proc: Any, raw: Mapping[str, Any],
                     params: Mapping[str, Any], est: Estimate, wait: float) -> Answer:
        """The finer estimate of ``key`` if it is cached or comes within ``wait``
        seconds, else ``est`` with ``finer`` (its job goes on for :attr:`linger` seconds
        after this ask). A finer estimate cut short by the time limit is shown only where
        it counted more samples than ``est``."""
        done = self.cache.get("fine", key)
        if done is None:
            done = await self._wait(self._fine_job(key, proc, raw, params), wait)
        if isinstance(done, Estimate):
            return Answer(key, estimate=done if done.samples > est.samples else est)
        return Answer(key, estimate=est, finer=self.fine_margin)

    def _fine_job(self, key: str, proc: Any, raw: Mapping[str, Any],
                  params: Mapping[str, Any]) -> _Job:
        """The estimate of ``key`` refined to a 95% margin of :attr:`fine_margin`
        (:func:`warroom.engine.drivers.samples_for`, the estimates' seed: the same counts
        on any machine), one job per question in the long lane, at most all but one long
        worker at once; kept going for :attr:`linger` seconds after each ask, stopped by
        :attr:`exact_limit` (:data:`warroom.web.security.REQUEST_SECONDS`' worth), cached
        as ``fine`` when done (also when the time limit cut it short: it is not counted
        again)."""
        from warroom.engine import drivers

        async def work() -> Estimate | None:
            slots = self._fine_slots
            assert slots is not None, "Serving.start() first"
            async with slots:
                try:
                    est = await self.simulate(proc, raw, params,
                                              drivers.samples_for(self.fine_margin),
                                              drivers.ESTIMATE_SEED, self.exact_limit)
                except WorkerLost:
                    return None
            self.cache.put("fine", key, est)
            return est

        return self._lingering("fine " + key, work)

    def _refine_job(self, key: str, proc: Any, raw: Mapping[str, Any],
                    params: Mapping[str, Any]) -> _Job:
        """The full-size estimate of a question past the exact budget (kept going for
        :attr:`linger` seconds after each ask, at most :attr:`exact_limit`), cached as
        the question's estimate when it is done."""
        from warroom.engine import drivers

        async def work() -> Estimate | None:
            try:
                est = await self.simulate(proc, raw, params, drivers.samples_for(),
                                          drivers.ESTIMATE_SEED, self.exact_limit)
            except WorkerLost:
                return None
            self.cache.put("estimate", key, (est, self.exact_limit))
            self.cache.put("refined", key, True)  # even if the time limit cut it short
            return est

        return self._lingering("refine " + key, work)

    def _lingering(self, name: str,
                   work: Callable[[], Coroutine[Any, Any, Estimate | None]]) -> _Job:
        """The background job ``name`` (a running one, or ``work`` started now), kept
        going for :attr:`linger` seconds after each ask."""
        job = self.jobs.get(name)
        if job is not None and not job.task.done():
            return job
        job = _Job(asyncio.create_task(work()), keep_until=time.monotonic() + self.linger)
        # a finished job's exception is read here, so none is reported as never retrieved
        job.task.add_done_callback(lambda t: t.cancelled() or t.exception())
        self.jobs[name] = job
        return job

    def cached(self, proc_id: str, raw: Mapping[str, Any]) -> Answer | None:
        """The exact odds if the cache has them, as an answer (no task, no wait: the
        common case at the table)."""
        from warroom import api
        from warroom.engine.params import normalized

        proc, p = api.prepare(proc_id, raw)
        key = cache_key(proc.id, normalized(p))
        found = self.cache.get("exact", key)
        return Answer(key, exact=found) if isinstance(found, Distribution) else None

    async def warm(self, proc_id: str, raw: Mapping[str, Any]) -> None:
        """Work out in the workers what a battle action will ask the shared cache for
        (:func:`cached_odds`; past the exact budget, :func:`luck_estimate`), so that the
        action, in a thread of this process, only rolls and writes: no exact odds or Monte
        Carlo run under the server's interpreter lock. Waits at most the API's deadline
        for exact odds; usage errors are left to the action to report."""
        from warroom import api
        from warroom.engine import drivers
        from warroom.engine.params import normalized

        try:
            proc, p = api.prepare(proc_id, raw)
        except UsageError:
            return
        params = normalized(p)
        key = cache_key(proc.id, params)
        found = self.cache.get("exact", key)
        if found is None:
            found = await self._wait(self._exact_job(key, proc.id, raw, params, proc),
                                     self.api_deadline)
        if not isinstance(found, TooLarge) or self.cache.get(LUCK, key) is not None:
            return
        try:  # capped: past it the action works the estimate out itself, as before
            counts, done, spent, extra, parts = await asyncio.wait_for(self.pool.run(
                "long", ("luck", proc.id, dict(raw), LUCK_MARGIN)), self.api_deadline)
        except (TimeoutError, WorkerLost):
            return
        self.cache.put(LUCK, key, Estimate(proc.id, params, proc.fields, counts, done,
                                           drivers.ESTIMATE_SEED, spent, extra,
                                           orders=proc.orders, parts=parts))

    async def battle_read(self, what: str, url: str, battle_id: str,
                          version: tuple[Any, ...]) -> Any:
        """A whole battle log's ``verify``, ``export``, ``log`` or ``luck`` report
        (:data:`BATTLE_READS`), worked out in the read lane's worker process (one: such
        reads never crowd out the odds, nor hold the event loop). ``version`` says which
        state of the battle it is (its counter, its last change): a ``verify`` or a luck
        report of an unchanged battle is answered from the cache."""
        key = f"{url}|{battle_id}|{version!r}"
        kept = what in ("verify", "luck")  # an unchanged battle's: from the cache
        if kept:
            found = self.cache.get(what, key)
            if found is not None:
                return found
        result = await self.pool.run("read", ("battle", what, {}, url, battle_id))
        if kept:
            self.cache.put(what, key, result)
        return result

    async def estimate(self, proc: Any, raw: Mapping[str, Any], params: Mapping[str, Any],
                       key: str, seconds: float | None = None, cap: float | None = None
                       ) -> Estimate:
        """The seeded Monte Carlo stand-in for exact odds (cached; a cached estimate cut
        short by a smaller time cap is made again for a larger one). ``cap`` is the time
        cap it is cached under when ``seconds`` is what is left of it (a page's)."""
        from warroom.engine import drivers

        seconds = self.estimate_seconds if seconds is None else seconds
        cap = seconds if cap is None else cap
        found = self.cache.get("estimate", key)
        if found is not None and (found[1] >= cap
                                  or not found[0].extra.get("stopped_early")):
            return found[0]  # type: ignore[no-any-return]
        est = await self.simulate(proc, raw, params, drivers.samples_for(),
                                  drivers.ESTIMATE_SEED, seconds, lane="short")
        self.cache.put("estimate", key, (est, cap))
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
