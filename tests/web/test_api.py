"""The JSON API: the same answers as the CLI's --json, and a 422 naming the parameter for
every kind of bad input (never a 500)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from warroom import api, i18n
from warroom.cli import main


def cli_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    capsys.readouterr()
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_odds_matches_cli_exact_json(client: Any, capsys: pytest.CaptureFixture[str]) -> None:
    r = client.post("/api/odds", json={"procedure": "demo.pool",
                                       "params": {"dice": 8, "at": 4, "reroll": "misses"},
                                       "exact": True})
    assert r.status_code == 200
    expected = cli_json(capsys, "odds", "demo.pool", "dice=8", "at=4", "reroll=misses",
                        "--json", "--exact")
    assert r.json() == expected
    total = sum(int(o["exact"].split("/")[0]) / int(o["exact"].split("/")[1])
                for o in r.json()["outcomes"])
    assert abs(total - 1) < 1e-12


def test_odds_without_exact_has_no_fractions(client: Any) -> None:
    r = client.post("/api/odds", json={"procedure": "demo.pool", "params": {"dice": 2}})
    assert r.status_code == 200
    body = r.json()
    assert [o["outcome"]["successes"] for o in body["outcomes"]] == [0, 1, 2]
    assert [o["p"] for o in body["outcomes"]] == [0.25, 0.5, 0.25]
    assert all("exact" not in o for o in body["outcomes"])


@pytest.mark.parametrize("proc", [p.id for p in api.registry().procedures()][:40])
def test_every_registered_procedure_answers_odds_with_defaults(client: Any, proc: str) -> None:
    r = client.post("/api/odds", json={"procedure": proc, "exact": True})
    if r.status_code == 422:  # the defaults alone are not enough: a clear message
        assert isinstance(r.json()["detail"], str) and r.json()["detail"]
        return
    assert r.status_code == 200, r.text
    body = r.json()
    if "summary" in body:  # thousands of whole outcomes: each field's chances instead
        assert body["joint_outcomes"] > 100 and "outcomes" not in body
        for rows in body["summary"].values():
            assert abs(sum(float(o["p"]) for o in rows) - 1) < 1e-9
        return
    num = sum(float(o["p"]) for o in body["outcomes"])
    assert abs(num - 1) < 1e-9


def test_roll_with_typed_dice_matches_cli(client: Any, capsys: pytest.CaptureFixture[str]) -> None:
    r = client.post("/api/roll", json={"procedure": "demo.pool", "params": {"dice": 3},
                                       "dice": [3, 5, 6]})
    assert r.status_code == 200
    expected = cli_json(capsys, "roll", "demo.pool", "dice=3", "--dice", "3,5,6", "--json")
    assert r.json() == expected
    assert r.json()["outcome"] == {"successes": 2}


def test_roll_dice_as_text_and_seed_repeatable(client: Any) -> None:
    r = client.post("/api/roll", json={"procedure": "demo.pool", "params": {"dice": 3},
                                       "dice": "3, 5 6"})
    assert r.json()["dice"] == [3, 5, 6]
    a = client.post("/api/roll", json={"procedure": "demo.pool", "seed": 7}).json()
    b = client.post("/api/roll", json={"procedure": "demo.pool", "seed": 7}).json()
    assert a == b and a["seed"] == 7 and len(a["dice"]) >= 6


def test_roll_steps_in_polish(client: Any) -> None:
    r = client.post("/api/roll", json={"procedure": "demo.pool", "params": {"dice": 2},
                                       "dice": [1, 6], "lang": "pl"})
    assert r.status_code == 200
    text = r.json()["steps"][0]["text"]
    tr = i18n.translator("pl")
    plural = tr.ngettext("{what}: one die needing {at}+", "{what}: {n} dice needing {at}+", 2)
    assert plural != "{what}: {n} dice needing {at}+"  # the catalog has the plural entry
    assert text == "kości: 2 kości, wymagany rzut 4+"


def test_simulate(client: Any) -> None:
    r = client.post("/api/simulate", json={"procedure": "demo.pool", "params": {"dice": 4},
                                           "samples": 2000, "seed": 3})
    assert r.status_code == 200
    body = r.json()
    assert body["samples"] == 2000 and body["seed"] == 3
    assert sum(o["count"] for o in body["outcomes"]) == 2000
    assert 1.7 < body["means"]["successes"]["mean"] < 2.3


def test_rules(client: Any, capsys: pytest.CaptureFixture[str]) -> None:
    r = client.get("/api/rules", params={"game": "demo"})
    assert r.status_code == 200
    assert r.json() == cli_json(capsys, "rules", "demo", "--json")
    assert client.get("/api/rules").json()[0]["id"] == api.registry().games[0]


def test_openapi_lists_the_api(client: Any) -> None:
    doc = client.get("/openapi.json").json()
    for path in ("/api/rules", "/api/odds", "/api/roll", "/api/simulate"):
        assert path in doc["paths"]
    assert "/p/{proc_id}" not in doc["paths"]


BAD_POSTS: list[tuple[str, Any, str]] = [
    ("/api/odds", {"procedure": "demo.nope"}, "unknown procedure"),
    ("/api/odds", {"procedure": "nogame.pool"}, "unknown procedure"),
    ("/api/odds", {"procedure": "demo.pool", "params": {"dise": 3}}, "'dise'"),
    ("/api/odds", {"procedure": "demo.pool", "params": {"dice": "many"}}, "'dice'"),
    ("/api/odds", {"procedure": "demo.pool", "params": {"dice": -1}}, "'dice'"),
    ("/api/odds", {"procedure": "demo.pool", "params": {"dice": 1000}}, "'dice'"),
    ("/api/odds", {"procedure": "demo.pool", "params": {"at": [4]}}, "'at'"),
    ("/api/odds", {"procedure": "demo.pool", "params": {"reroll": "sometimes"}}, "'reroll'"),
    ("/api/odds", {"procedure": "demo.pool", "params": [1, 2]}, "'params'"),
    ("/api/odds", {"procedure": 5}, "'procedure'"),
    ("/api/odds", {"params": {}}, "'procedure'"),
    ("/api/odds", {"procedure": "demo.pool", "exact": "yes"}, "'exact'"),
    ("/api/odds", {"procedure": "demo.pool", "colour": "red"}, "'colour'"),
    ("/api/odds", [1, 2, 3], "JSON object"),
    ("/api/roll", {"procedure": "demo.pool", "params": {"dice": 3}, "dice": [3, 5]},
     "not enough dice"),
    ("/api/roll", {"procedure": "demo.pool", "params": {"dice": 3}, "dice": [3, 5, 6, 1]},
     "too many dice"),
    ("/api/roll", {"procedure": "demo.pool", "params": {"dice": 2}, "dice": [3, 9]}, "die #2"),
    ("/api/roll", {"procedure": "demo.pool", "params": {"dice": 2}, "dice": ["x", 1]},
     "die #1"),
    ("/api/roll", {"procedure": "demo.pool", "dice": []}, "dice"),
    ("/api/roll", {"procedure": "demo.pool", "dice": [1, 2], "seed": 3}, "seed"),
    ("/api/roll", {"procedure": "demo.pool", "seed": "abc"}, "'seed'"),
    ("/api/roll", {"procedure": "demo.pool", "lang": "fr"}, "'lang'"),
    ("/api/roll", {"procedure": "demo.pool", "dice": {"a": 1}}, "'dice'"),
    ("/api/simulate", {"procedure": "demo.pool", "samples": 0}, "'samples'"),
    ("/api/simulate", {"procedure": "demo.pool", "samples": 10**9}, "'samples'"),
    ("/api/simulate", {"procedure": "demo.pool", "samples": 1.5}, "'samples'"),
    ("/api/simulate", {"procedure": "demo.nope"}, "unknown procedure"),
]


@pytest.mark.parametrize(("path", "body", "named"), BAD_POSTS)
def test_bad_input_is_422_naming_the_parameter(client: Any, path: str, body: Any,
                                               named: str) -> None:
    r = client.post(path, json=body)
    assert r.status_code == 422, r.text
    detail = r.json()["detail"]
    assert isinstance(detail, str)
    assert named in detail, detail


@pytest.mark.parametrize("raw", [b"", b"{", b"not json", b"\xff\xfe", b'{"procedure": }'])
def test_non_json_body_is_422(client: Any, raw: bytes) -> None:
    for path in ("/api/odds", "/api/roll", "/api/simulate"):
        r = client.post(path, content=raw, headers={"content-type": "application/json"})
        assert r.status_code == 422, (path, raw, r.text)
        assert "JSON" in r.json()["detail"]


def test_parameter_field_names_the_parameter(client: Any) -> None:
    r = client.post("/api/odds", json={"procedure": "demo.pool", "params": {"at": 9}})
    assert r.status_code == 422
    assert r.json()["parameter"] == "at"
    r = client.post("/api/odds", json={"procedure": "demo.pool", "params": {"dise": 1}})
    assert r.json()["parameter"] == "dise"


def test_unknown_game_in_rules_is_422(client: Any) -> None:
    r = client.get("/api/rules", params={"game": "chess"})
    assert r.status_code == 422
    assert "chess" in r.json()["detail"]
