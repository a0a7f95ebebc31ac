"""Issue #30: a club server. Two ``warroom serve`` processes over one database (on
PostgreSQL where it is configured, else skipped there; on SQLite too): two phones on
different processes see each other's writes, a stale write gets 409 whichever process
takes it, and the rate limits hold across the processes and a restart. ``warroom serve
--processes 2`` serves the same way."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest

from tests.web.conftest import warroom_serve

pytestmark = pytest.mark.slow  # real server processes


@contextmanager
def serving(db: str, *extra: str) -> Iterator[str]:
    with warroom_serve("--db", db, "--workers", "1", *extra) as port:
        yield f"http://127.0.0.1:{port}"


def _post(url: str, path: str, body: Any = None, key: str | None = None) -> httpx.Response:
    headers = {"X-Battle-Key": key} if key else {}
    return httpx.post(url + path, json=body, headers=headers, timeout=30)


def test_two_processes_share_battles_stale_writes_and_rate_limits(db: str) -> None:
    with serving(db) as one, serving(db) as two:
        made = _post(one, "/api/v1/battles", {"game": "demo", "name": "Club"}).json()
        bid, ka, kb = made["id"], made["keys"]["A"], made["keys"]["B"]
        added = _post(one, f"/api/v1/battles/{bid}/units",
                      {"side": "A", "name": "Tigers", "stats": {"dice": 3}}, ka).json()
        # phone B on the other process sees phone A's write, and writes back
        seen = httpx.get(f"{two}/api/v1/battles/{bid}", headers={"X-Battle-Key": kb}).json()
        assert [u["name"] for u in seen["units"]] == ["Tigers"]
        assert seen["counter"] == added["seq"]
        _post(two, f"/api/v1/battles/{bid}/units", {"side": "B", "name": "Panzers"}, kb)
        seen = httpx.get(f"{one}/api/v1/battles/{bid}", headers={"X-Battle-Key": ka}).json()
        assert [u["name"] for u in seen["units"]] == ["Tigers", "Panzers"]
        # A's second phone marks the Tigers; a write on them based on what phone A saw
        # before that is a real conflict: 409 on either process
        _post(two, f"/api/v1/battles/{bid}/mark",
              {"unit": "Tigers", "marker": "pinned", "expect": added["seq"] + 1}, ka)
        for url in (one, two):
            stale = _post(url, f"/api/v1/battles/{bid}/mark",
                          {"unit": "Tigers", "marker": "hits", "value": 1,
                           "expect": added["seq"]}, ka)
            assert stale.status_code == 409 and stale.json()["error"]["code"] == "stale"
            assert [c["kind"] for c in stale.json()["error"]["changes"]] == ["marked"]
        # a new unit of B's from that old view reads only its own name: recorded
        ok = _post(one, f"/api/v1/battles/{bid}/units",
                   {"side": "B", "name": "Pumas", "expect": added["seq"]}, kb)
        assert ok.status_code == 200 and ok.json()["seen"] == added["seq"]
        # the rate limit of 20 creations per address and 10 minutes, over both processes
        codes = [_post((one, two)[i % 2], "/api/v1/battles", {"game": "demo"}).status_code
                 for i in range(20)]
        assert codes == [200] * 19 + [429]
    with serving(db) as again:  # and after a restart
        assert _post(again, "/api/v1/battles", {"game": "demo"}).status_code == 429


def test_serve_with_several_processes(db: str) -> None:
    with serving(db, "--processes", "2") as url:
        made = _post(url, "/api/v1/battles", {"game": "demo"}).json()
        bid, ka = made["id"], made["keys"]["A"]
        for i in range(6):  # whichever process takes each, one battle, one counter
            r = _post(url, f"/api/v1/battles/{bid}/units", {"side": "A", "name": f"u{i}"},
                      ka)
            assert r.status_code == 200 and r.json()["seq"] == i + 2
        shown = httpx.get(f"{url}/api/v1/battles/{bid}", headers={"X-Battle-Key": ka})
        assert shown.json()["counter"] == 7
        assert shown.headers["cache-control"] == "no-store"
