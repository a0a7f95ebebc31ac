"""Issue #18, what was left: a battle page costs the same at 3,000 events as at 10 (it
reads the snapshot, its luck totals and one page of the log, never the whole log);
database errors anywhere are a clear 409/503 with a code and no SQL; one definition of
how large a request body each route takes.

What keeps a page flat is pinned by counting reads and replays, never by timing it; the
figures are `make bench` rows (benchmarks/battles.py)."""

from __future__ import annotations

import json
import logging
import re
import secrets
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import pytest
import sqlalchemy as sa

from tests.battle import test_web_api
from tests.battle.fakes import battles
from warroom.battle import base, transfer, verify, writes
from warroom.battle.core import Battles
from warroom.battle.errors import ConflictError
from warroom.battle.store import Store, _sqlite_setup, events

client = test_web_api.client  # an app on a temporary database, with the fake games
battle = test_web_api.battle  # a battle on it: side A's Shermans, side B's Grenadiers

SQL = re.compile(r"\b(INSERT|SELECT|UPDATE|DELETE)\b|token_a|VALUES")


def _long_battle(bt: Battles, marks: int) -> tuple[str, dict[str, str]]:
    made = bt.new("demo", "Long")
    bid = str(made["id"])
    bt.add_unit(bid, "A", "Tigers", {"dice": 2})
    bt.add_unit(bid, "B", "Scouts", {"dice": 3})
    for _ in range(marks):
        bt.mark(bid, "Tigers", "hits", "+1")
    return bid, made["tokens"]


class Counted:
    """Counts the calls that read the whole log or replay it."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: list[str] = []
        self.rows: list[int] = []
        for owner, name in ((Store, "load_events"), (Store, "stored_states")):
            real = getattr(owner, name)
            monkeypatch.setattr(owner, name, staticmethod(self._count(name, real)))
        # every module of the battle core that replays a log
        for module, name in ((base, "fold"), (writes, "fold"), (verify, "fold"),
                             (verify, "replay_states"), (transfer, "_states")):
            monkeypatch.setattr(module, name, self._count(name, getattr(module, name)))
        real_page = Store.events_page

        def page(conn: Any, battle_id: str, **kw: Any) -> list[dict[str, Any]]:
            got = real_page(conn, battle_id, **kw)
            self.rows.append(len(got))
            return got

        monkeypatch.setattr(Store, "events_page", staticmethod(page))

    def _count(self, name: str, real: Any) -> Any:
        def counted(*args: Any, **kw: Any) -> Any:
            self.calls.append(name)
            return real(*args, **kw)
        return counted


# -- the page ---------------------------------------------------------------------------

def test_a_page_at_3000_events_reads_one_page_of_the_log_and_replays_nothing(
        client: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    bt = client.app.state.battles
    bid, keys = _long_battle(bt, 2994)  # the creation, 2 units, 2,994 marks, 4 below
    for dice in ([4, 5], [1, 2]):
        bt.do(bid, "demo.pool", {"unit": "Tigers", "dice": 2}, dice=dice, by="A")
    bt.undo(bid, by="A")
    bt.do(bid, "demo.pool", {"unit": "Scouts", "dice": 3, "at": 5}, dice=[5, 6, 1], by="B")
    assert bt.show(bid)["counter"] == 3001
    counted = Counted(monkeypatch)
    base = f"/battles/{bid}/{keys['a']}"
    page = client.get(base)
    section = client.get(f"{base}/section")
    api = client.get(f"/api/battles/{bid}/log?key={keys['view']}&limit=5")
    luck = client.get(f"/api/battles/{bid}/luck?key={keys['view']}")
    assert page.status_code == section.status_code == api.status_code == 200
    # no read of the whole log, no replay: one page of 30 rows each, and 5 for the API
    assert counted.calls == [] and counted.rows == [30, 30, 5]
    shown = [int(s) for s in re.findall(r'<li class="[a-z]*" data-seq="(\d+)"', page.text)]
    assert shown == list(range(3001, 2971, -1))  # the latest 30, newest first
    assert 'data-seq="3000" data-kind="undone"' in page.text
    assert re.search(r'class="undone" data-seq="2999"', page.text)  # the roll taken back
    assert f'href="{base}?before=2972"' in page.text
    assert [e["seq"] for e in api.json()] == [2997, 2998, 2999, 3000, 3001]
    assert [e["undone"] for e in api.json()] == [False, False, True, False, False]
    # the luck table from the totals the snapshot keeps: Tigers' live roll 2 dice at 4+
    # (expected 2 x 1/2 = 1, got 2); Scouts' 3 dice at 5+ (3 x 1/3 = 1, got 2)
    sides = luck.json()["sides"]
    for side in ("A", "B"):
        f = sides[side]["fields"]["successes"]
        assert (sides[side]["rolls"], f["expected_exact"], f["actual"]) == (1, "1/1", 2)
    assert re.search(r'data-side="A" data-field="successes">.*?>1.00</td><td>2</td>',
                     page.text)
    assert re.search(r'Side A: 1 roll<', page.text)

    # older pages, down to the creation: each one page of 30, never the whole log
    older = client.get(f"{base}?before=2972")
    assert [int(s) for s in re.findall(r'data-seq="(\d+)"', older.text)] == list(
        range(2971, 2941, -1))
    assert f'href="{base}?before=2942" id="log-older"' in older.text
    assert f'href="{base}" id="log-latest"' in older.text
    first = client.get(f"{base}/section?before=31")
    assert [int(s) for s in re.findall(r'data-seq="(\d+)"', first.text)] == list(
        range(30, 0, -1))
    assert 'id="log-older"' not in first.text  # the creation: nothing before it
    assert counted.calls == [] and max(counted.rows) == 30
    monkeypatch.undo()
    assert bt.verify(bid).ok


def test_the_log_api_pages_and_keeps_its_default(client: Any, battle: dict[str, Any]
                                                 ) -> None:
    bid, key = battle["id"], battle["keys"]["view"]
    every = client.get(f"/api/battles/{bid}/log?key={key}").json()
    assert [e["seq"] for e in every] == [1, 2, 3]  # created, two units: all, as before
    r = client.get(f"/api/battles/{bid}/log?key={key}&limit=2")
    assert [e["seq"] for e in r.json()] == [2, 3]
    r = client.get(f"/api/battles/{bid}/log?key={key}&limit=2&before=3")
    assert [e["seq"] for e in r.json()] == [1, 2]
    r = client.get(f"/api/battles/{bid}/log?key={key}&before=2")
    assert r.json() == every[:1]
    for bad in ("limit=0", "limit=x", "before=0", "limit=100000"):
        r = client.get(f"/api/battles/{bid}/log?key={key}&{bad}")
        assert r.status_code == 422, bad
    assert client.get(f"/battles/{bid}/{key}?before=nope").status_code == 422


# -- the luck totals --------------------------------------------------------------------

def _luck_from_the_log(log: list[dict[str, Any]]) -> dict[str, Any]:
    """An independent oracle: add up the live resolutions of the whole log."""
    out: dict[str, Any] = {s: {"rolls": 0, "fields": {}} for s in ("A", "B")}
    for e in log:
        if e["kind"] != "resolved" or e["undone"]:
            continue
        side = out[e["side"]]
        side["rolls"] += 1
        for name, exp in e["expected"].items():
            f = side["fields"].setdefault(name, [Fraction(0), 0])
            f[0] += Fraction(exp)
            f[1] += int(e["outcome"][name])
    return out


def _totals(luck: dict[str, Any]) -> dict[str, Any]:
    return {s: {"rolls": v["rolls"], "fields": {
        n: [Fraction(f["expected_exact"]), f["actual"]] for n, f in v["fields"].items()}}
        for s, v in luck["sides"].items()}


def test_the_luck_totals_follow_rolls_and_undos_and_match_the_log(bt: Battles) -> None:
    bid = str(bt.new("fow", "Luck")["id"])
    bt.add_unit(bid, "A", "Shermans", {"dice": 6})
    bt.add_unit(bid, "B", "Grenadiers", {"skill": "veteran"})
    # a test at 4+ passes with chance 1/2: two of them expect 1, one undone leaves 1/2
    bt.do(bid, "fow.test", {"unit": "Shermans"}, dice=[5])
    bt.do(bid, "fow.test", {"unit": "Shermans"}, dice=[2])
    f = bt.luck(bid)["sides"]["A"]["fields"]["passed"]
    assert (f["expected_exact"], f["actual"], f["rolls"]) == ("1/1", 1, 2)
    bt.undo(bid)
    f = bt.luck(bid)["sides"]["A"]["fields"]["passed"]
    assert (f["expected_exact"], f["actual"], f["rolls"]) == ("1/2", 1, 1)
    for _ in range(3):  # virtual dice, both sides, and undo in between
        bt.do(bid, "fow.shoot", {"unit": "Shermans", "target": "Grenadiers"})
        bt.do(bid, "fow.test", {"unit": "Grenadiers", "at": 3})
        bt.undo(bid)
        bt.do(bid, "fow.test", {"unit": "Grenadiers", "at": 5})
        assert _totals(bt.luck(bid)) == _luck_from_the_log(bt.log(bid))
    assert bt.luck(bid)["sides"]["B"]["fields"]["passed"]["rolls"] == 3
    assert bt.verify(bid).ok


def _tamper(bt: Battles, bid: str, seq: int | None, change: Any) -> None:
    with bt.store.engine.begin() as conn:
        if seq is None:
            text = conn.execute(sa.text("SELECT state FROM battles WHERE id = :i"),
                                {"i": bid}).scalar_one()
            conn.execute(sa.text("UPDATE battles SET state = :s WHERE id = :i"),
                         {"s": json.dumps(change(json.loads(text))), "i": bid})
            return
        text = conn.execute(sa.select(events.c.state).where(
            events.c.battle_id == bid, events.c.seq == seq)).scalar_one()
        conn.execute(sa.update(events).where(events.c.battle_id == bid, events.c.seq == seq)
                     .values(state=json.dumps(change(json.loads(text)))))


def _cheat(data: dict[str, Any]) -> dict[str, Any]:
    data["luck"]["A"]["fields"]["successes"]["actual"] += 5
    return data


def test_verify_checks_the_kept_totals_and_every_stored_snapshot(bt: Battles) -> None:
    bid = str(bt.new("demo", "Verify")["id"])
    bt.add_unit(bid, "A", "Tigers", {"dice": 2})
    bt.do(bid, "demo.pool", {"unit": "Tigers"}, dice=[6, 6])
    bt.mark(bid, "Tigers", "hits", "1")
    assert bt.verify(bid).ok
    _tamper(bt, bid, 3, _cheat)  # the state kept after the roll (an undo would go back to)
    assert bt.verify(bid).problems == [
        "event 3: what is stored after it differs from the replay (luck totals)"]
    _tamper(bt, bid, None, _cheat)  # the battle's own snapshot: what the page shows
    problems = bt.verify(bid).problems
    assert "the stored luck totals differ from the replayed log" in problems
    assert bt.luck(bid)["sides"]["A"]["fields"]["successes"]["actual"] == 7


def test_a_snapshot_from_before_the_luck_totals_is_replayed_once_and_kept_again(
        bt: Battles) -> None:
    bid = str(bt.new("demo", "Old")["id"])
    bt.add_unit(bid, "A", "Tigers", {"dice": 2})
    bt.do(bid, "demo.pool", {"unit": "Tigers", "dice": 2, "at": 3}, dice=[3, 1])
    bt.do(bid, "demo.pool", {"unit": "Tigers", "dice": 2, "at": 3}, dice=[3, 3])

    def drop(data: dict[str, Any]) -> dict[str, Any]:
        data.pop("luck")
        return data

    for seq in (None, 1, 2, 3, 4):
        _tamper(bt, bid, seq, drop)
    # 2 dice at 3+ twice: 2 x 2 x 2/3 = 8/3 expected, 3 got
    f = bt.luck(bid)["sides"]["A"]["fields"]["successes"]
    assert (f["expected_exact"], f["actual"]) == ("8/3", 3)
    assert bt.verify(bid).ok  # an old snapshot without totals is no problem
    bt.undo(bid)  # back to a state stored without totals: found by a replay
    f = bt.luck(bid)["sides"]["A"]["fields"]["successes"]
    assert (f["expected_exact"], f["actual"]) == ("4/3", 1)
    with bt.store.read() as conn:
        assert "luck" in json.loads(bt.store.battle_row(conn, bid)["state"])
    assert bt.verify(bid).ok


# -- database errors --------------------------------------------------------------------

@pytest.fixture
def on_db(client: Any, db: str) -> Iterator[Any]:
    """The web app on the test's database (SQLite, and PostgreSQL when configured)."""
    client.app.state.battles = battles(db)
    yield client


def _no_sql(caplog: pytest.LogCaptureFixture, *texts: str) -> None:
    for text in (*texts, caplog.text):
        assert not SQL.search(text), text


def test_an_id_already_taken_is_a_409_without_sql(on_db: Any, monkeypatch: pytest.MonkeyPatch,
                                                  caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    made = on_db.post("/api/battles", json={"game": "fow"}).json()
    bt = on_db.app.state.battles
    real = secrets.token_hex
    monkeypatch.setattr("warroom.battle.core.secrets.token_hex",
                        lambda n=32: made["id"] if n == 4 else real(n))
    with pytest.raises(ConflictError):  # the CLI's path: a clear usage error (exit 2)
        bt.new("fow")
    r = on_db.post("/api/battles", json={"game": "fow"})
    assert r.status_code == 409 and r.json()["code"] == "conflict"
    assert "nothing was recorded" in r.json()["detail"]
    # an import whose id is taken by the time it writes (here: its fresh id is)
    exported = bt.export(made["id"])
    r = on_db.post("/api/battles/import", json=exported)
    assert r.status_code == 409 and r.json()["code"] == "conflict"
    page = on_db.post("/battles", data={"game": "fow"}, headers={"accept": "text/html"})
    assert page.status_code == 409 and "nothing was recorded" in page.text
    _no_sql(caplog, r.text, page.text)
    monkeypatch.undo()
    assert len(bt.list_battles()) == 1 and bt.verify(made["id"]).ok  # nothing half-written


def test_a_pool_timeout_is_a_503_without_sql(on_db: Any, caplog: pytest.LogCaptureFixture
                                             ) -> None:
    caplog.set_level(logging.WARNING)
    made = on_db.post("/api/battles", json={"game": "fow"}).json()
    bt = on_db.app.state.battles
    tight = sa.create_engine(bt.store.url, pool_size=1, max_overflow=0, pool_timeout=0.2,
                             hide_parameters=True)
    if tight.dialect.name == "sqlite":
        _sqlite_setup(tight)
    usual, bt.store.engine = bt.store.engine, tight
    try:
        with tight.connect():  # the only connection, held: the next one times out
            answers = [on_db.get(f"/api/battles/{made['id']}?key={made['keys']['A']}"),
                       on_db.post(f"/api/battles/{made['id']}/next?key={made['keys']['A']}"),
                       on_db.get(made["links"]["A"], headers={"accept": "text/html"})]
    finally:
        bt.store.engine = usual
        tight.dispose()
    assert [r.status_code for r in answers] == [503, 503, 503]
    assert answers[0].json()["code"] == answers[1].json()["code"] == "database_unavailable"
    _no_sql(caplog, *(r.text for r in answers))
    assert bt.show(made["id"])["counter"] == 1  # nothing recorded


@pytest.mark.parametrize(("error", "status", "code"), [
    (sa.exc.IntegrityError("INSERT INTO battles (token_a) VALUES (?)", {"token_a": "k"},
                           Exception("UNIQUE constraint failed: battles.id")), 409, "conflict"),
    (sa.exc.OperationalError("SELECT * FROM battles", {}, Exception("server closed")), 503,
     "database_unavailable"),
    (sa.exc.ResourceClosedError("This result object is closed."), 503,
     "database_unavailable"),
])
def test_a_database_error_past_the_store_is_a_clear_answer(
        client: Any, battle: dict[str, Any], monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture, error: Exception, status: int, code: str) -> None:
    caplog.set_level(logging.WARNING)

    def failing(*_args: Any, **_kw: Any) -> Any:
        raise error

    monkeypatch.setattr(Battles, "show", failing)
    r = client.get(f"/api/battles/{battle['id']}?key={battle['keys']['A']}")
    assert r.status_code == status and r.json()["code"] == code
    _no_sql(caplog, r.text)


# -- body bounds ------------------------------------------------------------------------

def test_one_definition_of_body_bounds_and_both_sides_of_each(client: Any) -> None:
    from warroom.web.security import BODY_LIMIT, BODY_LIMITS, body_limit

    big = BODY_LIMITS[("POST", "/api/battles/import")]
    assert big > BODY_LIMIT == 1_000_000 == body_limit("POST", "/api/odds")
    assert body_limit("post", "/api/battles/import/") == big

    def body(size: int) -> bytes:  # JSON of exactly ``size`` bytes (not an export)
        return b'{"x": "' + b"y" * (size - 9) + b'"}'

    json_type = {"content-type": "application/json"}
    # an import: above the usual bound it still reaches the route (which refuses it as no
    # export: 422), above its own bound it is a 413
    r = client.post("/api/battles/import", content=body(2 * BODY_LIMIT), headers=json_type)
    assert r.status_code == 422 and r.json()["code"] == "bad_import"
    r = client.post("/api/battles/import", content=body(big + 1), headers=json_type)
    assert r.status_code == 413 and r.json()["code"] == "body_too_large"
    assert "8 MB" in r.json()["detail"]
    assert r.headers["x-content-type-options"] == "nosniff"  # refused by the guard itself

    def chunks(total: int) -> Iterator[bytes]:  # no Content-Length: counted as it comes
        yield b'{"x": "'
        for _ in range(total // 500_000):
            yield b"z" * 500_000
        yield b'"}'

    r = client.post("/api/battles/import", content=chunks(big + 500_000), headers=json_type)
    assert r.status_code == 413 and r.json()["code"] == "body_too_large"
    # any other route: the usual bound, on both sides
    r = client.post("/api/battles", content=body(BODY_LIMIT), headers=json_type)
    assert r.status_code == 422  # read, and refused as a bad battle
    r = client.post("/api/battles", content=body(BODY_LIMIT + 1), headers=json_type)
    assert r.status_code == 413 and r.json()["code"] == "body_too_large"
    assert "1 MB" in r.json()["detail"]
    r = client.post("/battles", content=b"game=" + b"f" * BODY_LIMIT,
                    headers={"content-type": "application/x-www-form-urlencoded"})
    assert r.status_code == 413
