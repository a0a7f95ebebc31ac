"""Load on the web app from a second process, on loopback only: `python benchmarks/web_load.py`.

Starts `warroom serve` (one uvicorn process; its worker processes do the odds) on
127.0.0.1 and a free port, then:

* default: a bounded number of light `/api/odds` requests from a few keep-alive
  clients; prints requests per second and the error count (target: >= 200/s, 0);
* `--stress`: the heaviest questions and Rolls sent continuously by `--clients`
  clients (a stack of six units on the page, its Roll, a compare page of four heavy
  sets, exact odds too large to work out, a 200,000-sample simulation, a battle shot
  past the exact budget, each with changing numbers so the cache cannot answer them),
  while a light client measures `/api/odds` requests and two battle writers (markers,
  rolls with entered dice, each in a battle of its own on the SQLite file) measure
  writes, each of these in a process of its own; prints their latency and every error
  (targets: light p99 <= 50 ms, write p99 <= 200 ms, no error, no "database is
  locked", no event lost or duplicated).
"""

from __future__ import annotations

import argparse
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
BODY = {"procedure": "asl.ift", "params": {"fp": 8, "drm": 1}, "exact": True}
STACK = "squad:{m}:3,squad:7:3,squad:6:2,hs:6:2,leader:8:-1,leader:9:-2"
MIXED = "12:10:3,12:2:6,12:{f}:4"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_up(url: str, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if httpx.get(url + "/api/rules?game=demo", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.2)
    raise SystemExit("the server did not start")


def heavy_requests(rng: random.Random) -> list[Callable[[httpx.Client], httpx.Response]]:
    """One of each heavy kind, with numbers drawn afresh (so the cache cannot help)."""
    m = rng.randint(5, 9)
    drm = rng.randint(-3, 4)
    stack = {"units": STACK.format(m=m), "result": rng.choice(["1MC", "2MC", "NMC"]),
             "drm": str(drm), "_sent": "1"}
    mixed = {"weapons": MIXED.format(f=rng.randint(2, 6)), "teams": "tank:6:gt,tank:5/3,soft"}
    compare = {"n": "4"}
    for i in range(4):
        compare.update({f"s{i}._sent": "1", f"s{i}.units": STACK.format(m=rng.randint(5, 9)),
                        f"s{i}.result": "1MC", f"s{i}.drm": str(rng.randint(-3, 4))})
    return [
        lambda c: c.get("/p/asl.ift_on_stack", params=stack),
        lambda c: c.post("/p/asl.ift_on_stack/roll", data=stack,
                         headers={"hx-request": "true"}),
        lambda c: c.get("/compare/asl.ift_on_stack/results", params=compare),
        lambda c: c.post("/api/odds", json={"procedure": "fow.shoot_mixed", "params": mixed}),
        lambda c: c.post("/api/simulate", json={"procedure": "fow.shoot_mixed",
                                                "params": mixed, "samples": 200_000}),
    ]


BATTLE_HEAVY = {"weapons": "12:10:3,12:2:6,12:{f}:4", "teams": "tank:6:gt,tank:5/3,soft"}
"""A battle shot past the exact budget (its luck expectation is a Monte Carlo estimate)."""


def new_battle(client: httpx.Client, game: str) -> tuple[str, dict[str, str]]:
    """A battle of ``game`` (its id and the key of side A, as the header to send)."""
    r = client.post("/api/battles", json={"game": game, "name": "load"})
    r.raise_for_status()
    made = r.json()
    return made["id"], {"X-Battle-Key": made["keys"]["A"]}


def logged(client: httpx.Client, battle: tuple[str, dict[str, str]]) -> int:
    """How many events the battle's log holds."""
    r = client.get(f"/api/battles/{battle[0]}/log", headers=battle[1])
    r.raise_for_status()
    return len(r.json())


def light_client(url: str, seconds: float, out: Any) -> None:
    """Light ``/api/odds`` requests for ``seconds``, in a process of its own (a phone at
    the table: the heavy clients' threads must not hold its interpreter lock); puts
    (latencies, errors) on ``out``."""
    light: list[float] = []
    errors: list[str] = []
    end = time.monotonic() + seconds
    with httpx.Client(base_url=url, timeout=10) as client:
        while time.monotonic() < end:
            t = time.perf_counter()
            try:
                r = client.post("/api/odds", json=BODY)
                if r.status_code != 200:
                    errors.append(f"light: {r.status_code}")
            except httpx.HTTPError as exc:
                errors.append(f"light: {type(exc).__name__}")
            light.append(time.perf_counter() - t)
            time.sleep(0.02)
    out.put((light, errors))


def battle_writer(url: str, seconds: float, out: Any) -> None:
    """Quick writes (a marker, a roll with entered dice) to a battle of its own for
    ``seconds``, in a process of its own; puts (latencies, errors, successful writes,
    events in the log at the start and at the end) on ``out``."""
    times: list[float] = []
    errors: list[str] = []
    done = 0
    with httpx.Client(base_url=url, timeout=30) as client:
        battle = new_battle(client, "demo")
        bid, key = battle
        client.post(f"/api/battles/{bid}/units", headers=key,
                    json={"side": "A", "name": "Tigers", "stats": {"dice": 2}}
                    ).raise_for_status()
        before = logged(client, battle)
        end = time.monotonic() + seconds
        i = 0
        while time.monotonic() < end:
            i += 1
            t = time.perf_counter()
            try:
                if i % 2:
                    r = client.post(f"/api/battles/{bid}/mark", headers=key,
                                    json={"unit": "Tigers", "marker": "hits", "value": "+1"})
                else:
                    r = client.post(f"/api/battles/{bid}/do", headers=key, json={
                        "procedure": "demo.pool", "params": {"unit": "Tigers"},
                        "dice": [3, 5]})
                if r.status_code == 200:
                    done += 1
                else:
                    errors.append(f"battle write: {r.status_code} {r.text[:80]}")
            except httpx.HTTPError as exc:
                errors.append(f"battle write: {type(exc).__name__}")
            times.append(time.perf_counter() - t)
            time.sleep(0.05)
        after = logged(client, battle)
    out.put((times, errors, done, before, after))


def pct(values: list[float], q: float) -> float:
    """The ``q`` quantile of ``values`` (nearest rank, below)."""
    ordered = sorted(values)
    return ordered[max(0, int(len(ordered) * q) - 1)]


def stress(url: str, clients: int, seconds: float, battles: int = 2) -> int:
    """Heavy clients (questions, Rolls and heavy battle actions) against one light client
    and ``battles`` battle writers, each of these in a process of its own; prints the
    figures, returns the count of failures."""
    import multiprocessing

    stop = threading.Event()
    errors: list[str] = []
    heavy_times: list[float] = []
    heavy_battle: list[int] = []

    def heavy(i: int) -> None:
        rng = random.Random(i)
        with httpx.Client(base_url=url, timeout=180) as client:
            battle = new_battle(client, "fow")
            before = logged(client, battle)
            acted = 0
            while not stop.is_set():
                asks = heavy_requests(rng)
                params = {k: v.format(f=rng.randint(2, 6)) for k, v in BATTLE_HEAVY.items()}

                def shoot(c: httpx.Client, p: dict[str, str] = params) -> httpx.Response:
                    return c.post(f"/api/battles/{battle[0]}/do", headers=battle[1],
                                  json={"procedure": "fow.shoot_mixed", "params": p})

                asks.append(shoot)
                for ask in asks:
                    if stop.is_set():
                        break
                    t = time.perf_counter()
                    try:
                        r = ask(client)
                        if r.status_code != 200:
                            errors.append(f"heavy {r.request.url.path}: {r.status_code}")
                        elif "/battles/" in r.request.url.path:
                            acted += 1
                    except httpx.HTTPError as exc:
                        errors.append(f"heavy: {type(exc).__name__}")
                    heavy_times.append(time.perf_counter() - t)
            if logged(client, battle) != before + acted:
                errors.append("heavy battle: events lost or duplicated")
            heavy_battle.append(acted)

    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    threads = [threading.Thread(target=heavy, args=(i,), daemon=True) for i in range(clients)]
    for th in threads:
        th.start()
    time.sleep(2.0)  # let the heavy work start
    measured = [ctx.Process(target=light_client, args=(url, seconds, out))]
    measured += [ctx.Process(target=battle_writer, args=(url, seconds, out))
                 for _ in range(battles)]
    for proc in measured:
        proc.start()
    results = [out.get(timeout=seconds + 120) for _ in measured]
    for proc in measured:
        proc.join(30)
    stop.set()
    for th in threads:
        th.join(200)
    light: list[float] = []
    writes: list[float] = []
    lost = 0
    for result in results:
        if len(result) == 2:
            light, errs = result
        else:
            times, errs, done, before, after = result
            writes += times
            lost += abs(after - before - done)
        errors += errs
    if lost:
        errors.append(f"battle writes: {lost} events lost or duplicated")
    light_p99, write_p99 = pct(light, 0.99), pct(writes, 0.99)
    print(f"stress: {clients} clients sending heavy questions, Rolls and battle actions for "
          f"{seconds:.0f}s; light /api/odds (asl.ift fp=8 drm=1, exact): {len(light)} "
          f"requests, p50 {statistics.median(light) * 1000:.1f} ms, p99 "
          f"{light_p99 * 1000:.1f} ms, max {max(light) * 1000:.1f} ms")
    print(f"battle writes (SQLite, {battles} battles, beside {sum(heavy_battle)} heavy "
          f"battle actions): {len(writes)}, p50 {statistics.median(writes) * 1000:.1f} ms, "
          f"p99 {write_p99 * 1000:.1f} ms, max {max(writes) * 1000:.1f} ms; "
          f"events lost or duplicated: {lost}")
    if heavy_times:
        print(f"heavy: {len(heavy_times)} answered, p50 {statistics.median(heavy_times):.2f}s, "
              f"max {max(heavy_times):.2f}s")
    locked = sum("locked" in e or "database_unavailable" in e for e in errors)
    print(f"errors: {len(errors)}, 'database is locked': {locked}"
          + (f" ({', '.join(sorted(set(errors))[:5])})" if errors else ""))
    return len(errors) + (light_p99 > 0.05) + (write_p99 > 0.2)


def throughput(url: str, requests: int, clients: int, seconds: float) -> int:
    per_client = requests // clients
    ok = [0] * clients
    errors = [0] * clients
    deadline = time.monotonic() + seconds

    def run(i: int) -> None:
        with httpx.Client(base_url=url, timeout=10) as client:
            for _ in range(per_client):
                if time.monotonic() > deadline:
                    return
                try:
                    r = client.post("/api/odds", json=BODY)
                    if r.status_code == 200:
                        ok[i] += 1
                    else:
                        errors[i] += 1
                except httpx.HTTPError:
                    errors[i] += 1

    threads = [threading.Thread(target=run, args=(i,)) for i in range(clients)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - start
    done = sum(ok)
    print(f"/api/odds (asl.ift fp=8 drm=1, exact): {done} ok, {sum(errors)} errors in "
          f"{elapsed:.1f}s -> {done / elapsed:,.0f} requests/s "
          f"(one uvicorn process, {clients} clients on loopback)")
    return sum(errors)


def run(url: str, args: argparse.Namespace) -> int:
    """Wait for the server at ``url``, warm it, load it; the count of failures."""
    wait_up(url)
    with httpx.Client(base_url=url, timeout=30) as warm:
        assert warm.post("/api/odds", json=BODY).status_code == 200
    if args.stress:
        return stress(url, args.clients, args.seconds)
    return throughput(url, args.requests, args.clients, args.seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=3000, help="requests in all")
    parser.add_argument("--clients", type=int, default=4, help="concurrent clients")
    parser.add_argument("--seconds", type=float, default=30.0, help="time limit")
    parser.add_argument("--stress", action="store_true",
                        help="heavy questions and Rolls while light odds are measured")
    parser.add_argument("--url", help="load a server already running there instead of "
                        "starting one (to watch it from inside)")
    args = parser.parse_args()
    if args.url:
        sys.exit(1 if run(args.url, args) else 0)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    exe = ROOT / ".venv" / "bin" / "warroom"
    with tempfile.TemporaryDirectory() as tmp:
        server = subprocess.Popen(
            [str(exe) if exe.exists() else "warroom", "serve", "--host", "127.0.0.1",
             "--port", str(port), "--db", str(Path(tmp) / "bench.db")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            env={**os.environ, "PYTHONUNBUFFERED": "1"})
        try:
            bad = run(url, args)
        finally:
            server.terminate()
            server.wait(timeout=10)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
