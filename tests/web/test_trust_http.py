"""Issue #30 over HTTP: text that is not valid Unicode is a 422 naming the field on every
route (never a 500), posts with ``Origin: null`` or to an unknown ``Host`` are refused,
and battle pages and exports are never cached."""

from __future__ import annotations

from typing import Any

import pytest

JSON = {"content-type": "application/json"}
BAD = "\\ud800"  # a JSON escape of half a character: a lone surrogate


def bad(body: str, *, low: bool = False) -> str:
    """``body`` with a lone surrogate's escape (a high half, or a low one) for ``@``."""
    return body.replace("@", BAD.replace("d8", "dc") if low else BAD)


@pytest.mark.parametrize(("path", "body", "field"), [
    ("/api/v1/odds", bad('{"procedure":"asl.ift","params":{"@":1}}'), "params"),
    ("/api/v1/odds", bad('{"procedure":"asl.ift","params":{"fp":"@"}}'), "params"),
    ("/api/v1/odds", bad('{"procedure":"@"}'), "procedure"),
    ("/api/v1/roll", bad('{"procedure":"@"}'), "procedure"),
    ("/api/v1/roll", bad('{"procedure":"demo.pool","dice":["@"]}'), "dice"),
    ("/api/v1/simulate", bad('{"procedure":"@"}'), "procedure"),
    ("/api/v1/battles", bad('{"game":"fow","name":"x@y"}', low=True), "name"),
    ("/api/battles", bad('{"game":"@"}'), "game"),
])
def test_a_lone_surrogate_is_a_422_naming_the_field(client: Any, path: str, body: str,
                                                    field: str) -> None:
    r = client.post(path, content=body, headers=JSON)
    assert r.status_code == 422, r.text
    error = r.json()["error"]
    assert error["code"] == "invalid_text" and error["parameter"] == field
    assert field in error["message"]


def test_a_pair_of_surrogates_is_a_character_and_passes(client: Any) -> None:
    r = client.post("/api/v1/battles", content='{"game":"fow","name":"\\ud83d\\ude00"}',
                    headers=JSON)
    assert r.status_code == 200 and r.json()["id"]


def test_a_lone_surrogate_in_every_battle_body_field(client: Any) -> None:
    made = client.post("/api/v1/battles", json={"game": "fow"}).json()
    bid, ka = made["id"], made["keys"]["A"]
    for sub, body, field in (
            ("do", bad('{"procedure":"@"}'), "procedure"),
            ("do", bad('{"procedure":"fow.shoot","params":{"unit":"@"}}'), "params"),
            ("odds", bad('{"procedure":"@"}'), "procedure"),
            ("units", bad('{"side":"A","name":"@"}'), "name"),
            ("units", bad('{"side":"A","name":"x","stats":{"@":1}}'), "stats"),
            ("edit", bad('{"unit":"x","stats":{"a":"@"}}'), "stats"),
            ("mark", bad('{"unit":"@","marker":"pinned"}'), "unit")):
        r = client.post(f"/api/v1/battles/{bid}/{sub}?key={ka}", content=body, headers=JSON)
        assert r.status_code == 422 and r.json()["error"]["parameter"] == field, (sub, r.text)
    r = client.post("/api/v1/battles/import", content=bad('{"format":"@"}'), headers=JSON)
    assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_text"
    assert client.get(f"/api/v1/battles/{bid}?key={ka}").json()["counter"] == 1


def test_form_posts_with_origin_null_and_nothing_else_are_refused(client: Any) -> None:
    r = client.post("/battles", data={"game": "fow"}, headers={"Origin": "null"})
    assert r.status_code == 403 and r.json()["error"]["code"] == "cross_site"
    # a modern browser on the page itself says so
    r = client.post("/battles", data={"game": "fow"},
                    headers={"Origin": "null", "Sec-Fetch-Site": "same-origin"})
    assert r.status_code == 201


def test_posts_to_an_unknown_host_are_refused(client: Any) -> None:
    from warroom.web.security import allowed_hosts

    client.app.state.allowed_hosts = allowed_hosts("127.0.0.1", ["testserver"])
    r = client.post("/api/v1/battles", json={"game": "fow"},
                    headers={"Host": "evil.example:8000"})
    assert r.status_code == 403 and r.json()["error"]["code"] == "unknown_host"
    assert client.post("/api/v1/battles", json={"game": "fow"},
                       headers={"Host": "127.0.0.1:8000"}).status_code == 200
    assert client.get("/", headers={"Host": "evil.example"}).status_code == 200  # reads
    every = allowed_hosts("0.0.0.0")
    assert {"localhost", "127.0.0.1"} <= every


def test_battle_pages_and_exports_are_never_cached(client: Any) -> None:
    made = client.post("/api/v1/battles", json={"game": "fow"}).json()
    bid, ka = made["id"], made["keys"]["A"]
    for path in (f"/battles/{bid}/{ka}", f"/api/v1/battles/{bid}/export?key={ka}",
                 f"/api/v1/battles/{bid}?key={ka}", f"/api/v1/battles/{bid}/log?key={ka}",
                 f"/battles/{bid}/{ka}/section"):
        assert client.get(path).headers.get("cache-control") == "no-store", path


def test_whole_log_reads_run_in_the_read_worker_are_cached_and_rate_limited(
        client: Any) -> None:
    """verify, export and the whole log are worked out in the read lane's worker process
    (not in the server's), a verify of an unchanged battle comes from the cache, and one
    address gets its own limit of such reads (429 past it)."""
    import os

    app = client.app
    serving = app.state.serving
    made = client.post("/api/v1/battles", json={"game": "demo"}).json()
    bid, ka = made["id"], made["keys"]["A"]
    client.post(f"/api/v1/battles/{bid}/units?key={ka}",
                json={"side": "A", "name": "Tigers", "stats": {"dice": 3}})
    client.post(f"/api/v1/battles/{bid}/do?key={ka}",
                json={"procedure": "demo.pool", "params": {"unit": "Tigers"}})
    first = client.get(f"/api/v1/battles/{bid}/verify?key={ka}").json()
    assert first["ok"] is True
    readers = serving.pool.pids("read")
    assert readers and os.getpid() not in readers
    hits = serving.cache.hits
    assert client.get(f"/api/v1/battles/{bid}/verify?key={ka}").json() == first
    assert serving.cache.hits == hits + 1  # unchanged: from the cache
    exported = client.get(f"/api/v1/battles/{bid}/export?key={ka}").json()
    assert [e["seq"] for e in exported["events"]] == [1, 2, 3]
    assert len(client.get(f"/api/v1/battles/{bid}/log?key={ka}").json()) == 3
    app.state.read_rate = (5, 60.0)  # 4 reads so far
    assert client.get(f"/api/v1/battles/{bid}/log?key={ka}").status_code == 200
    r = client.get(f"/api/v1/battles/{bid}/export?key={ka}")
    assert r.status_code == 429 and r.json()["error"]["code"] == "rate_limited"
    # a page of the log is no whole-log read
    assert client.get(f"/api/v1/battles/{bid}/log?key={ka}&limit=2").status_code == 200
