"""The HTTP contract under ``/api/v1``: the CLI's ``--json`` models (``warroom.schema``),
one error body with a machine-readable code (the CLI's too), the deprecated ``/api``
answering the same, a declared battle key, readable operation ids, no pages in the
OpenAPI document."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from warroom import schema
from warroom.cli import main


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any]:
    capsys.readouterr()
    code = main(list(argv))
    return code, json.loads(capsys.readouterr().out)


ANSWERS: list[tuple[str, dict[str, Any], list[str], Any]] = [
    ("odds", {"procedure": "demo.pool", "params": {"dice": 3, "at": 5}, "exact": True},
     ["odds", "demo.pool", "dice=3", "at=5", "--exact"], schema.ExactOdds),
    ("roll", {"procedure": "demo.pool", "params": {"dice": 3}, "dice": [6, 1, 4]},
     ["roll", "demo.pool", "dice=3", "--dice", "6,1,4"], schema.RollResult),
    ("roll", {"procedure": "fow.shoot", "params": {"dice": 4, "target": "tank"}, "seed": 9},
     ["roll", "fow.shoot", "dice=4", "target=tank", "--seed", "9"], schema.RollResult),
    ("simulate", {"procedure": "demo.pool", "params": {"dice": 2}, "samples": 500, "seed": 3},
     ["simulate", "demo.pool", "dice=2", "-n", "500", "--seed", "3"], schema.EstimatedOdds),
]


@pytest.mark.parametrize(("path", "body", "argv", "model"), ANSWERS,
                         ids=[f"{a[0]}-{i}" for i, a in enumerate(ANSWERS)])
def test_the_api_and_the_cli_send_the_same_model(
        client: Any, capsys: pytest.CaptureFixture[str], path: str, body: dict[str, Any],
        argv: list[str], model: Any) -> None:
    answers = [client.post(f"{prefix}/{path}", json=body) for prefix in ("/api/v1", "/api")]
    assert [r.status_code for r in answers] == [200, 200]
    code, printed = cli(capsys, *argv, "--json")
    assert code == 0
    sent, old = answers[0].json(), answers[1].json()
    if path == "simulate":  # the same samples and seed: everything but the time taken
        for data in (sent, old, printed):
            data.pop("seconds")
    assert sent == old == printed
    assert schema.emit(model, sent) == sent  # nothing outside the model, nothing missing


def test_the_battle_cli_and_the_api_send_the_same_models(
        client: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A battle made through the API, read through the CLI on the same database: the
    battle, its log, a write, its luck and its verify report are the same JSON."""
    db = str(tmp_path / "battles.sqlite3")  # the client's app keeps its battles here
    made = client.post("/api/v1/battles", json={"game": "demo", "name": "Same"}).json()
    bid, key = made["id"], made["keys"]["A"]
    url = f"/api/v1/battles/{bid}"
    assert client.post(f"{url}/units?key={key}", json={
        "side": "A", "name": "Tigers", "stats": {"dice": 2}}).status_code == 200
    wrote = client.post(f"{url}/do?key={key}", json={
        "procedure": "demo.pool", "params": {"unit": "Tigers"}, "dice": [3, 5]}).json()
    code, log = cli(capsys, "battle", "log", bid, "--db", db, "--json")
    assert code == 0 and log == client.get(f"{url}/log?key={key}").json()
    assert {k: v for k, v in log[-1].items() if k != "undone"} == wrote  # the log marks undos
    code, shown = cli(capsys, "battle", "show", bid, "--db", db, "--json")
    api_view = client.get(f"{url}?key={key}").json()
    assert code == 0 and shown == {k: v for k, v in api_view.items() if k != "role"}
    # the CLI's luck says how unusual each total is: the API's ?unusual=true
    for command, path, model in (("luck", "luck?unusual=true&", schema.Luck),
                                 ("verify", "verify?", schema.VerifyReport)):
        code, printed = cli(capsys, "battle", command, bid, "--db", db, "--json")
        assert code == 0 and printed == client.get(f"{url}/{path}key={key}").json()
        assert schema.emit(model, printed) == printed


def test_rules_are_one_model_for_both(client: Any, capsys: pytest.CaptureFixture[str]) -> None:
    r = client.get("/api/v1/rules", params={"game": "asl"})
    code, printed = cli(capsys, "rules", "asl", "--json")
    assert r.status_code == 200 and code == 0 and r.json() == printed
    assert [s["id"] for s in schema.emit(list[schema.GameRules], printed)] == ["asl"]


def test_exact_and_estimated_odds_are_told_apart_by_type() -> None:
    import warroom

    exact = schema.adapter(schema.Odds).validate_python(
        warroom.odds("demo.pool", dice=2).to_json(exact=True))
    assert isinstance(exact, schema.ExactOdds) and exact.outcomes is not None
    assert [c.exact for c in exact.outcomes] == ["1/4", "1/2", "1/4"]  # 2 dice at 4+
    est = schema.adapter(schema.Odds).validate_python(
        warroom.simulate("demo.pool", dice=2, samples=1, seed=5).to_json())
    assert isinstance(est, schema.EstimatedOdds) and est.samples == 1
    # one sample: the mean's interval is unbounded, which JSON says as null (never
    # Infinity, which is not JSON)
    dumped = schema.emit(schema.Odds, est.model_dump())
    assert dumped["means"]["successes"]["ci95"] == [None, None]
    json.dumps(dumped, allow_nan=False)


def test_an_estimate_standing_in_for_odds_is_an_estimated_odds(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from warroom import api
    from warroom.engine import drivers
    from warroom.serving import Answer, Serving, cache_key
    from warroom.web.app import create_app

    class EstimatesOnly(Serving):
        """A server whose exact odds never come in time: the estimate stands in."""

        def cached(self, proc_id: str, raw: Any) -> None:
            return None

        async def odds(self, proc_id: str, raw: Any, **_kw: Any) -> Answer:
            proc, p = api.prepare(proc_id, raw)
            est = drivers.simulate(proc, p, 2000, seed=1)
            return Answer(cache_key(proc.id, dict(raw)), estimate=est, pending=True)

    body = {"procedure": "demo.pool", "params": {"dice": 3}, "exact": True}
    with TestClient(create_app(tmp_path / "b.sqlite3", serving=EstimatesOnly())) as c:
        r = c.post("/api/v1/odds", json=body)
    assert r.status_code == 200
    data = r.json()
    model = schema.adapter(schema.Odds).validate_python(data)
    assert data["estimate"] is True and isinstance(model, schema.EstimatedOdds)
    assert data["samples"] == 2000 and data["exact_pending"] is True
    # an estimate never carries fractions, even when they were asked for
    assert all("exact" not in row for row in data["outcomes"])


ERRORS: list[tuple[str, Any, list[str], str, str | None]] = [
    ("odds", {"procedure": "demo.nope"}, ["odds", "demo.nope"], "unknown_procedure", None),
    ("odds", {"procedure": "demo.pool", "params": {"dice": "x"}},
     ["odds", "demo.pool", "dice=x"], "invalid_parameter", "dice"),
    ("roll", {"procedure": "demo.pool", "params": {"dcie": 3}},
     ["roll", "demo.pool", "dcie=3"], "unknown_parameter", "dcie"),
    ("simulate", {"procedure": "demo.pool", "params": {"reroll": "often"}},
     ["simulate", "demo.pool", "reroll=often"], "invalid_parameter", "reroll"),
]


@pytest.mark.parametrize(("path", "body", "argv", "code", "parameter"), ERRORS)
def test_errors_are_one_body_with_the_clis_code(
        client: Any, capsys: pytest.CaptureFixture[str], path: str, body: Any,
        argv: list[str], code: str, parameter: str | None) -> None:
    r = client.post(f"/api/v1/{path}", json=body)
    assert r.status_code == 422
    assert set(r.json()) == {"error"}
    error = r.json()["error"]
    assert (error["code"], error["parameter"]) == (code, parameter)
    exit_code, printed = cli(capsys, *argv, "--json")
    assert exit_code == 2 and printed == r.json()
    schema.ErrorBody.model_validate(r.json())
    # the deprecated prefix: the same error, plus its old keys for one release
    old = client.post(f"/api/{path}", json=body).json()
    assert old["error"] == error
    assert (old["detail"], old["code"], old["parameter"]) == (
        error["message"], code, parameter)


def test_request_errors_have_codes_too(client: Any) -> None:
    r = client.post("/api/v1/odds", json={"procedure": "demo.pool", "colour": "red"})
    assert r.status_code == 422 and r.json() == {"error": {
        "code": "invalid_request", "message": "unknown field 'colour'", "parameter": "colour"}}
    r = client.post("/api/v1/odds", content=b"{nope", headers={
        "content-type": "application/json"})
    assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_request"
    r = client.get("/api/v1/nowhere")
    assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"
    r = client.post("/api/v1/battles/x/next?key=y", content=b"\xff\x00",
                    headers={"content-type": "application/json"})
    assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_request"


def test_a_method_not_allowed_names_every_method_of_the_path(client: Any) -> None:
    r = client.delete("/api/v1/battles")
    assert r.status_code == 405 and r.json()["error"]["code"] == "method_not_allowed"
    assert {m.strip() for m in r.headers["allow"].split(",")} >= {"GET", "POST"}


def test_battle_errors_are_the_same_body(client: Any) -> None:
    made = client.post("/api/v1/battles", json={"game": "demo"}).json()
    bid, ka, kv = made["id"], made["keys"]["A"], made["keys"]["view"]
    r = client.get(f"/api/v1/battles/{bid}", headers={"X-Battle-Key": "wrong"})
    assert r.status_code == 404 and r.json()["error"]["code"] == "no_such_battle"
    r = client.post(f"/api/v1/battles/{bid}/units?key={kv}", json={"side": "A", "name": "x"})
    assert r.status_code == 403 and r.json()["error"]["code"] == "spectator"
    r = client.post(f"/api/v1/battles/{bid}/units", headers={"X-Battle-Key": ka},
                    json={"side": "A", "name": "x"})
    assert r.status_code == 200 and r.json()["kind"] == "unit_added"
    shown = client.get(f"/api/v1/battles/{bid}?key={ka}").json()
    assert schema.BattleView.model_validate(shown).counter == r.json()["seq"]


def test_the_openapi_document(client: Any) -> None:
    doc = client.get("/openapi.json").json()
    ops = {(m, p): op for p, item in doc["paths"].items() for m, op in item.items()}
    ids = [op["operationId"] for op in ops.values()]
    assert len(ids) == len(set(ids))
    v1 = {op["operationId"] for (_m, p), op in ops.items() if p.startswith("/api/v1/")}
    assert {"rules", "odds", "roll", "simulate", "battle_create", "battle_do",
            "battle_show", "battle_undo", "battle_import"} <= v1
    for (_m, p), op in ops.items():
        assert p.startswith("/api/"), p  # no page, no form post, no static file
        legacy = not p.startswith("/api/v1/")
        assert op.get("deprecated", False) is legacy, p
        assert op["operationId"].startswith("legacy_") is legacy, p
        # every route may fail on the server's side (a rule's bug, a lost worker, a busy
        # store): the two answers are declared everywhere, with the one error body
        assert {"422", "500", "503"} <= set(op["responses"]), p
        for status, answer in op["responses"].items():
            if status.startswith(("4", "5")):
                ref = answer["content"]["application/json"]["schema"]["$ref"]
                assert ref.endswith("/ErrorBody"), (p, status)
        if "{battle_id}" in p:
            assert op["security"] == [{"battle_key_query": []}, {"battle_key_header": []}]
            assert {"403", "404", "409", "422"} <= set(op["responses"])
    assert "HTTPValidationError" not in doc["components"]["schemas"]
    schemes = doc["components"]["securitySchemes"]
    assert (schemes["battle_key_header"]["in"], schemes["battle_key_header"]["name"]) == (
        "header", "X-Battle-Key")
    assert (schemes["battle_key_query"]["in"], schemes["battle_key_query"]["name"]) == (
        "query", "key")
    odds = ops[("post", "/api/v1/odds")]["responses"]["200"]["content"]["application/json"]
    kinds = {ref["$ref"].rsplit("/", 1)[1] for ref in odds["schema"]["oneOf"]}
    assert kinds == {"ExactOdds", "EstimatedOdds"}
    # a battle's odds are typed as /odds answers them, inside the battle's answer
    battle = ops[("post", "/api/v1/battles/{battle_id}/odds")]["responses"]["200"]
    assert battle["content"]["application/json"]["schema"]["$ref"].endswith("/BattleOdds")
    inner = doc["components"]["schemas"]["BattleOdds"]["properties"]["odds"]
    assert {ref["$ref"].rsplit("/", 1)[1] for ref in inner["oneOf"]} == kinds


def test_a_battles_odds_answer_is_its_model(client: Any) -> None:
    made = client.post("/api/v1/battles", json={"game": "demo"}).json()
    r = client.post(f"/api/v1/battles/{made['id']}/odds", headers={
        "X-Battle-Key": made["keys"]["A"]}, json={"procedure": "demo.pool",
                                                  "params": {"dice": 2}})
    assert r.status_code == 200, r.text
    answer = schema.BattleOdds.model_validate(r.json())
    assert isinstance(answer.odds, schema.ExactOdds)
    # two dice at 4+: no success 1/4, one 1/2, two 1/4; expected 1 success
    assert [(c.value, c.exact) for c in answer.chances["successes"]] == [
        (0, "1/4"), (1, "1/2"), (2, "1/4")]
    assert answer.expected == {"successes": "1/1"}


@pytest.mark.parametrize("prefix", ["/api/v1", "/api"])
def test_a_lost_worker_is_the_one_error_body(tmp_path: Path, prefix: str) -> None:
    from fastapi.testclient import TestClient

    from warroom.serving import Answer, Serving, WorkerLost
    from warroom.web.app import create_app

    class Dying(Serving):
        """A server whose worker dies (twice) on every question."""

        def cached(self, proc_id: str, raw: Any) -> None:
            return None

        async def odds(self, proc_id: str, raw: Any, **_kw: Any) -> Answer:
            raise WorkerLost(proc_id)

    with TestClient(create_app(tmp_path / "b.sqlite3", serving=Dying())) as c:
        r = c.post(f"{prefix}/odds", json={"procedure": "demo.pool"})
    assert r.status_code == 503
    error = schema.ErrorBody.model_validate(r.json()).error
    assert error.code == "worker_lost" and "ask again" in error.message
    assert error.parameter is None
    if prefix == "/api":  # the deprecated prefix keeps its old keys for one release
        assert (r.json()["detail"], r.json()["code"]) == (error.message, "worker_lost")
    else:
        assert set(r.json()) == {"error"}


def test_the_cli_disables_pydantic_plugins_by_the_documented_switch() -> None:
    """The console script sets PYDANTIC_DISABLE_PLUGINS before pydantic is imported and
    replaces no pydantic module; importing warroom sets nothing."""
    src = str(Path(__file__).resolve().parents[2] / "src")
    env = {k: v for k, v in os.environ.items() if k != "PYDANTIC_DISABLE_PLUGINS"}
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    probe = ("import os, sys, warroom, warroom.cli\n"
             "assert 'PYDANTIC_DISABLE_PLUGINS' not in os.environ\n"
             "assert 'pydantic' not in sys.modules\n"
             "sys.argv = ['warroom', 'odds', 'demo.pool', 'dice=1', '--json']\n"
             "import atexit\n"
             "def report():\n"
             "    loader = sys.modules['pydantic.plugin._loader']\n"
             "    sys.stderr.write(os.environ['PYDANTIC_DISABLE_PLUGINS'] + ' ' +"
             " str(hasattr(loader, 'entry_points')))\n"
             "atexit.register(report)\n"
             "warroom.cli.run()\n")
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["procedure"] == "demo.pool"
    assert done.stderr.strip() == "__all__ True"
