"""Load on /api/odds from a second process, on loopback only: `python benchmarks/web_load.py`.

Starts `warroom serve` (one uvicorn worker, so one core) on 127.0.0.1 and a free port,
then sends a bounded number of requests from this process with a few keep-alive
clients, and prints requests per second and the error count (target: >= 200/s, 0).
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
BODY = {"procedure": "asl.ift", "params": {"fp": 8, "drm": 1}, "exact": True}


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=3000, help="requests in all")
    parser.add_argument("--clients", type=int, default=4, help="concurrent clients")
    parser.add_argument("--seconds", type=float, default=30.0, help="time limit")
    args = parser.parse_args()
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
            wait_up(url)
            with httpx.Client(base_url=url) as warm:
                assert warm.post("/api/odds", json=BODY).status_code == 200
            per_client = args.requests // args.clients
            ok = [0] * args.clients
            errors = [0] * args.clients
            deadline = time.monotonic() + args.seconds

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

            threads = [threading.Thread(target=run, args=(i,)) for i in range(args.clients)]
            start = time.perf_counter()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            elapsed = time.perf_counter() - start
        finally:
            server.terminate()
            server.wait(timeout=10)
    done = sum(ok)
    print(f"/api/odds (asl.ift fp=8 drm=1, exact): {done} ok, {sum(errors)} errors in "
          f"{elapsed:.1f}s -> {done / elapsed:,.0f} requests/s "
          f"(one uvicorn worker, {args.clients} clients on loopback)")
    sys.exit(1 if sum(errors) else 0)


if __name__ == "__main__":
    main()
