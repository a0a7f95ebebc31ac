"""The battle JSON API and the form pages: same answers as the CLI, keys guard sides,
bad input is a 422 with a message (never a 500) and changes nothing."""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.battle.fakes import registry
from warroom.battle.core import Battles
from warroom.battle.store import open_store


@pytest.fixture
def client(tmp_path: Path) -> Iterator[Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from fastapi.testclient import TestClient
    from warroom.web.app import create_app

    app = create_app(tmp_path / "web.db")
    app.state.battles = Battles(open_store(str(tmp_path / "web.db")), registry())
    with TestClient(app) as c:
        yield c


@pytest.fixture
def battle(client: Any) -> dict[str, Any]:
    r = client.post("/api/battles", json={"game": "fow", "name": "Web"})
    assert r.status_code == 200
    made = r.json()
    ka, kb = made["keys"]["A"], made["keys"]["B"]
    bid = made["id"]
    assert client.post(f"/api/battles/{bid}/units?key={ka}", json={
        "side": "A", "name": "Shermans", "stats": {"dice": 5}}).status_code == 200
    assert client.post(f"/api/battles/{bid}/units", headers={"X-Battle-Key": kb}, json={
        "side": "B", "name": "Grenadiers", "stats": {"teams": 6}}).status_code == 200
    return made


def test_a_turn_over_the_api(client: Any, battle: dict[str, Any]) -> None:
    bid, ka, view = battle["id"], battle["keys"]["A"], battle["keys"]["view"]
    assert battle["links"]["A"] == f"/battles/{bid}/{ka}"
    ev = client.post(f"/api/battles/{bid}/do?key={ka}", json={
        "procedure": "fow.shoot", "params": {"unit": "Shermans", "target": "Grenadiers"},
        "expect": 3}).json()
    assert ev["seq"] == 4 and ev["side"] == "A" and ev["by"] == "A"
    assert ev["params"]["dice"] == 5 and len(ev["dice"]) >= 5
    undo = client.post(f"/api/battles/{bid}/undo?key={ka}", json={"expect": 4}).json()
    assert undo["kind"] == "undo_asked" and undo["target"] == 4  # a virtual roll: asked
    kb = battle["keys"]["B"]
    page_b = client.get(f"/battles/{bid}/{kb}").text
    assert 'id="undo-accept"' in page_b and 'id="undo-decline"' in page_b
    assert 'id="undo-waiting"' in client.get(f"/battles/{bid}/{ka}").text
    done = client.post(f"/api/battles/{bid}/undo/answer?key={kb}",
                       json={"accept": True}).json()
    assert done["kind"] == "undone" and done["target"] == 4 and done["agreed"] == "B"
    again = client.post(f"/api/battles/{bid}/do?key={ka}", json={
        "procedure": "fow.shoot", "params": {"unit": "Shermans", "target": "Grenadiers"}}
    ).json()
    assert again["dice"] == ev["dice"]
    typed = client.post(f"/api/battles/{bid}/do?key={ka}", json={
        "procedure": "fow.shoot", "params": {"unit": "Shermans", "target": "Grenadiers",
                                             "dice": 1},
        "dice": "6,1"}).json()
    assert typed["entered"] and typed["dice"] == [6, 1]
    assert client.post(f"/api/battles/{bid}/mark?key={ka}", json={
        "unit": "Shermans", "marker": "bailed_out", "value": 2}).json()["value"] == 2
    edited = client.post(f"/api/battles/{bid}/edit?key={ka}", json={
        "unit": "Shermans", "stats": {"dice": 4}}).json()
    assert edited["kind"] == "unit_edited" and edited["stats"] == {"dice": 4}
    r = client.post(f"/api/battles/{bid}/edit?key={ka}", json={"unit": "Grenadiers",
                                                                "stats": {"teams": 1}})
    assert r.status_code == 403 and "side B's" in r.json()["detail"]
    assert "Shermans: dice=4" in client.get(f"/battles/{bid}/{ka}").text
    nxt = client.post(f"/api/battles/{bid}/next?key={ka}").json()
    assert nxt["phase"] == "movement" and nxt["checklist"]
    shown = client.get(f"/api/battles/{bid}?key={view}").json()
    assert shown["role"] == "view" and shown["phase"] == "movement"
    assert shown["units"][0]["markers"] == {"bailed_out": 2}
    log = client.get(f"/api/battles/{bid}/log?key={view}").json()
    assert [e["seq"] for e in log] == list(range(1, 11))
    assert client.get(f"/api/battles/{bid}/verify?key={view}").json()["ok"] is True
    luck = client.get(f"/api/battles/{bid}/luck?key={view}").json()
    assert luck["sides"]["A"]["rolls"] == 2
    listed = client.get("/api/battles").json()
    assert [b["id"] for b in listed] == [bid] and "token_a" not in listed[0]
    exported = client.get(f"/api/battles/{bid}/export?key={view}").json()
    imported = client.post("/api/battles/import", json=exported).json()
    assert imported["id"] != bid
    copy_key = imported["links"]["view"].rsplit("/", 1)[1]
    copy = client.get(f"/api/battles/{imported['id']}?key={copy_key}").json()
    assert {**copy, "id": 0, "counter": 0} == {**shown, "id": 0, "counter": 0}


def test_keys_guard_sides(client: Any, battle: dict[str, Any]) -> None:
    bid, ka, kb, view = (battle["id"], battle["keys"]["A"], battle["keys"]["B"],
                         battle["keys"]["view"])
    # no key and a wrong key are answered like a battle that is not there
    assert client.get(f"/api/battles/{bid}").status_code == 404
    assert client.get(f"/api/battles/{bid}?key={ka}x").status_code == 404
    assert client.get(f"/api/battles/{bid}?key={kb}").json()["role"] == "B"
    r = client.post(f"/api/battles/{bid}/next?key={view}")
    assert r.status_code == 403 and "spectator" in r.json()["detail"]
    r = client.post(f"/api/battles/{bid}/units?key={ka}", json={"side": "B", "name": "x"})
    assert r.status_code == 403 and "acts for side A" in r.json()["detail"]
    r = client.post(f"/api/battles/{bid}/undo?key={ka}")
    assert r.status_code == 403 and "only that side can undo" in r.json()["detail"]
    assert r.json()["code"] == "not_your_event"
    # a side's page and answers carry only its own key (and the spectator's)
    r = client.get(f"/battles/{bid}/{ka}")
    assert r.status_code == 200 and kb not in r.text and battle["links"]["view"] in r.text
    assert 'data-share="B"' not in r.text and 'data-share="view"' in r.text
    for path in ("", "/log", "/export", "/luck", "/verify"):
        assert kb not in client.get(f"/api/battles/{bid}{path}?key={ka}").text


BAD = [
    ("do", {"procedure": "asl.mc"}, "this battle plays 'fow'"),
    ("do", {"procedure": "fow.shoot", "params": {"target": "Tigers"}}, "unknown unit"),
    ("do", {"procedure": "fow.shoot", "params": {"dice": 99}}, "parameter 'dice'"),
    ("do", {"procedure": "fow.shoot", "dice": []}, "at least one die"),
    ("do", {"procedure": "fow.shoot", "dice": "9"}, "from 1 to 6"),
    ("do", {"procedure": 3}, "procedure"),
    ("mark", {"unit": "Shermans", "marker": "panicked"}, "unknown marker"),
    ("mark", {"unit": "Nobody", "marker": "pinned"}, "unknown unit"),
    ("mark", {"unit": "Shermans"}, "'marker' is required"),
    ("units", {"side": "C", "name": "x"}, "side"),
    ("units", {"side": "A", "name": "Shermans"}, "already a unit"),
    ("units", {"side": "A", "name": "x", "extra": 1}, "unknown field"),
]


@pytest.mark.parametrize(("path", "body", "message"), BAD, ids=[m for _p, _b, m in BAD])
def test_bad_input_is_422_and_changes_nothing(client: Any, battle: dict[str, Any], path: str,
                                              body: dict[str, Any], message: str) -> None:
    bid, ka = battle["id"], battle["keys"]["A"]
    before = client.get(f"/api/battles/{bid}/log?key={ka}").json()
    r = client.post(f"/api/battles/{bid}/{path}?key={ka}", json=body)
    assert r.status_code == 422, r.text
    assert message in r.json()["detail"]
    assert client.get(f"/api/battles/{bid}/log?key={ka}").json() == before


def test_other_bad_requests(client: Any, battle: dict[str, Any]) -> None:
    assert client.get("/api/battles/nope?key=x").status_code == 404
    r = client.post("/api/battles", json={"game": "chess"})
    assert r.status_code == 422 and "unknown game system" in r.json()["detail"]
    r = client.post("/api/battles/import", json={"format": "nope"})
    assert r.status_code == 422 and "not a warroom battle export" in r.json()["detail"]
    assert client.post("/api/battles", content=b"{x").status_code == 422


def test_pages(client: Any, battle: dict[str, Any]) -> None:
    bid, ka, view = battle["id"], battle["keys"]["A"], battle["keys"]["view"]
    base = f"/battles/{bid}/{ka}"
    r = client.get(base)
    assert r.status_code == 200 and "Starting step" in r.text and "Shermans" in r.text
    r = client.post(f"{base}/do", data={"procedure": "fow.shoot", "unit": "Shermans",
                                        "target": "Grenadiers", "expect": "3"},
                    follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == base
    r = client.post(f"{base}/do", data={"procedure": "fow.shoot", "target": "Grenadiers",
                                        "expect": "2"})  # drawn before the Grenadiers came
    assert r.status_code == 409 and "since state 2 (it is now at 4)" in r.text
    r = client.post(f"{base}/mark", data={"unit": "Nobody", "marker": "pinned"})
    assert r.status_code == 422 and "unknown unit" in r.text
    assert client.post(f"{base}/next", data={}, follow_redirects=False).status_code == 303
    assert "Movement step" in client.get(base).text
    assert client.post(f"/battles/{bid}/{view}/next").status_code == 403
    spectator = client.get(f"/battles/{bid}/{view}").text
    assert "spectator: read only" in spectator and 'id="do-form"' not in spectator
    listing = client.get("/battles")
    assert listing.status_code == 200 and base in listing.text
    r = client.post("/battles", data={"game": "asl", "name": "Stalingrad"},
                    follow_redirects=False)
    # the creator's page: the only one with all three links
    assert r.status_code == 201 and r.text.count('data-share="') == 3
    found = re.search(r'href="([^"]+)" data-share="A"', r.text)
    assert found is not None
    link_a = found.group(1)
    page = client.get(link_a).text
    assert "Rally Phase (RPh)" in page
    r = client.post("/battles", data={"game": "chess"})
    assert r.status_code == 422
    assert client.get(f"{base}/counter").json() == {"counter": 5}
    pl = client.get(f"{base}?lang=pl").text
    assert "Faza ruchu" in pl


def test_a_link_to_no_battle_is_a_404_that_lists_no_battles(client: Any,
                                                             battle: dict[str, Any]) -> None:
    r = client.get("/api/battles/nope?key=x")
    assert r.status_code == 404 and battle["id"] not in r.json()["detail"]
    page = client.get("/battles/nope/x?lang=pl", headers={"accept": "text/html"})
    assert page.status_code == 404 and "nie ma tu bitwy" in page.text and "nope" in page.text
    assert battle["id"] not in page.text


def test_a_write_by_b_elsewhere_does_not_refuse_a(client: Any,
                                                   battle: dict[str, Any]) -> None:
    bid, ka, kb = battle["id"], battle["keys"]["A"], battle["keys"]["B"]
    api = f"/api/v1/battles/{bid}"
    drawn = client.get(f"{api}?key={ka}").json()["counter"]  # A's view
    # B adds a unit and edits it: neither is A's actor or target
    r = client.post(f"{api}/units?key={kb}", json={
        "side": "B", "name": "Panthers", "stats": {"dice": 2}, "expect": drawn})
    assert r.status_code == 200
    assert client.post(f"{api}/edit?key={kb}", json={
        "unit": "Panthers", "stats": {"dice": 3}, "expect": drawn + 1}).status_code == 200
    # A's shot and A's new unit, both from the view before: recorded, with seen
    r = client.post(f"{api}/do?key={ka}", json={
        "procedure": "fow.shoot", "params": {"unit": "Shermans", "target": "Grenadiers"},
        "expect": drawn})
    assert r.status_code == 200, r.text
    assert r.json()["seq"] == drawn + 3 and r.json()["seen"] == drawn
    r = client.post(f"{api}/units?key={ka}", json={"side": "A", "name": "Fireflies",
                                                   "expect": drawn})
    assert r.status_code == 200 and r.json()["seen"] == drawn
    # A's Next phase from the view before: nothing moved the phase since, so it applies;
    # a second press from that view is refused
    r = client.post(f"{api}/next?key={ka}", json={"expect": drawn})
    assert r.status_code == 200
    r = client.post(f"{api}/next?key={ka}", json={"expect": drawn})
    assert r.status_code == 409 and "the turn and phase" in r.json()["error"]["message"]
    assert [c["kind"] for c in r.json()["error"]["changes"]] == ["phase"]


@pytest.mark.parametrize("prefix", ["/api/v1", "/api"])
def test_a_stale_write_is_409_and_changes_nothing(client: Any, battle: dict[str, Any],
                                                  prefix: str) -> None:
    bid, ka = battle["id"], battle["keys"]["A"]
    before = client.get(f"{prefix}/battles/{bid}/log", headers={"X-Battle-Key": ka}).json()
    counter = client.get(f"{prefix}/battles/{bid}?key={ka}").json()["counter"]
    # A's page was drawn before B added the Grenadiers (the latest event): a shot at
    # them based on it reads what changed
    r = client.post(f"{prefix}/battles/{bid}/do?key={ka}", json={
        "procedure": "fow.shoot", "params": {"unit": "Shermans", "target": "Grenadiers"},
        "expect": counter - 1})
    assert r.status_code == 409, r.text
    error = r.json()["error"]
    assert error["code"] == "stale"
    assert f"since state {counter - 1} (it is now at {counter})" in error["message"]
    assert "reads: Grenadiers" in error["message"]
    assert [(c["seq"], c["kind"], c["unit"], c["by"]) for c in error["changes"]] == [
        (counter, "unit_added", "Grenadiers", "B")]
    assert client.get(f"{prefix}/battles/{bid}/log?key={ka}").json() == before
