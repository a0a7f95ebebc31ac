"""``warroom battle ...``: the contract's JSON outputs and its error paths."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from warroom.cli import main

Cap = pytest.CaptureFixture[str]


def run(capsys: Cap, db: str, *args: str) -> tuple[int, str, str]:
    code = main(["battle", *args, "--db", str(db)])
    out, err = capsys.readouterr()
    return code, out, err


def ok(capsys: Cap, db: str, *args: str) -> Any:
    code, out, err = run(capsys, db, *args, "--json")
    assert code == 0, err
    return json.loads(out)


@pytest.fixture
def battle(capsys: Cap, db: str) -> str:
    made = ok(capsys, db, "new", "demo", "--name", "Kursk", "--seed", "42")
    assert set(made) == {"id"}
    ok(capsys, db, "add-unit", made["id"], "--side", "A", "--name", "Tigers", "dice=4",
       "at=3")
    ok(capsys, db, "add-unit", made["id"], "--side", "B", "--name", "T-34s")
    return str(made["id"])


def test_a_turn_through_the_cli(capsys: Cap, db: str, battle: str) -> None:
    ev = ok(capsys, db, "do", battle, "demo.pool", "unit=Tigers", "target=T-34s")
    assert ev["kind"] == "resolved" and ev["procedure"] == "demo.pool"
    assert ev["params"] == {"dice": 4, "at": 3, "reroll": "none"}
    assert len(ev["dice"]) == 4 and ev["entered"] is False
    assert ev["outcome"] == {"successes": sum(d >= 3 for d in ev["dice"])}
    undone = ok(capsys, db, "undo", battle)
    assert undone["target"] == ev["seq"]
    again = ok(capsys, db, "do", battle, "demo.pool", "unit=Tigers", "target=T-34s")
    assert again["dice"] == ev["dice"]
    typed = ok(capsys, db, "do", battle, "demo.pool", "unit=T-34s", "dice=2", "--dice", "6,1")
    assert typed["dice"] == [6, 1] and typed["entered"] is True
    assert typed["outcome"] == {"successes": 1}
    marked = ok(capsys, db, "mark", battle, "T-34s", "pinned")
    assert marked["value"] is True
    nxt = ok(capsys, db, "next", battle)
    assert nxt["phase"] == "end" and nxt["checklist"]
    shown = ok(capsys, db, "show", battle)
    assert shown["phase"] == "end" and shown["counter"] == nxt["seq"]
    t34 = shown["units"][1]
    assert t34["markers"] == {"hits": again["outcome"]["successes"], "pinned": True}
    log = ok(capsys, db, "log", battle)
    assert isinstance(log, list) and [e["seq"] for e in log] == list(range(1, 10))
    assert log[3]["undone"] is True
    luck = ok(capsys, db, "luck", battle)
    assert luck["sides"]["A"]["rolls"] == 1 and luck["sides"]["B"]["rolls"] == 1
    assert ok(capsys, db, "verify", battle) == {
        "id": battle, "ok": True, "events": 9, "problems": [], "authentic": True,
        "verdict": "authentic", "notes": []}
    listed = ok(capsys, db, "list")
    assert [b["id"] for b in listed] == [battle] and listed[0]["name"] == "Kursk"


def test_human_output(capsys: Cap, db: str, battle: str) -> None:
    code, out, _ = run(capsys, db, "do", battle, "demo.pool", "unit=Tigers", "target=T-34s",
                       "--dice", "3,4,1,6")
    assert code == 0 and "your dice: 3 4 1 6" in out
    assert "Dice pool Tigers → T-34s: successes: 3" in out  # the rule by its title
    assert "T-34s: hits = 3" in out
    code, out, _ = run(capsys, db, "show", battle)
    assert code == 0 and "Action phase" in out and "[ ] Roll what needs rolling" in out
    code, out, _ = run(capsys, db, "next", battle)
    assert "End phase" in out
    code, out, _ = run(capsys, db, "verify", battle)
    assert code == 0 and "ok: 5 events reproduce" in out
    code, out, _ = run(capsys, db, "luck", battle)
    assert "successes: expected 2.67, got 3" in out


def test_polish_checklist(capsys: Cap, db: str, battle: str) -> None:
    code = main(["--lang", "pl", "battle", "show", battle, "--db", str(db)])
    out, _ = capsys.readouterr()
    assert code == 0 and "Faza działań" in out


def test_export_import_verify(capsys: Cap, db: str, battle: str, tmp_path: Path) -> None:
    ok(capsys, db, "do", battle, "demo.pool", "unit=Tigers")
    code, exported, _ = run(capsys, db, "export", battle)
    assert code == 0
    file = tmp_path / "b.json"
    file.write_text(exported)
    other = tmp_path / "other.db"
    copy = ok(capsys, other, "import", str(file))["id"]
    assert copy != battle  # the server chooses the id
    code, again, _ = run(capsys, other, "export", copy)
    # the same events; the copy is not signed: its server did not make them
    assert json.loads(again)["events"] == json.loads(exported)["events"]
    assert json.loads(again)["signature"] is None
    report = ok(capsys, other, "verify", copy)
    assert report["ok"] is True and report["verdict"] == "consistent but not signed by this server"
    code, out, _ = run(capsys, other, "verify", copy)
    assert code == 0 and "consistent but not signed by this server" in out
    # after the end the seed is public, and any copy checks every virtual die
    ended = ok(capsys, db, "end", battle)
    assert ended["kind"] == "ended" and ended["seed"] == "42"
    code, exported, _ = run(capsys, db, "export", battle)
    file.write_text(exported)
    third = tmp_path / "third.db"
    copy = ok(capsys, third, "import", str(file))["id"]
    assert ok(capsys, third, "verify", copy)["notes"] == []
    # an ended battle takes no write: exit 2, nothing recorded
    code, _out, err = run(capsys, db, "add-unit", battle, "--side", "A", "--name", "late",
                          "dice=3")
    assert code == 2 and "read-only" in err
    code, _out, _err = run(capsys, db, "verify", battle)
    assert code == 0


def test_verify_exits_1_when_something_does_not_reproduce(capsys: Cap, db: str,
                                                          battle: str) -> None:
    from tests.battle.test_core import tamper

    ev = ok(capsys, db, "do", battle, "demo.pool", "unit=Tigers")
    tamper(db, battle, ev["seq"], {"outcome": {"successes": 99}})
    code, out, _ = run(capsys, db, "verify", battle, "--json")
    assert code == 1 and json.loads(out)["ok"] is False


def test_stale_expect(capsys: Cap, db: str, battle: str) -> None:
    # the Tigers were added after state 1: a mark on them based on it is refused
    code, _, err = run(capsys, db, "mark", battle, "Tigers", "pinned", "--expect", "1")
    assert code == 2 and "since state 1 (it is now at 3) in what this action reads: " \
        "Tigers" in err
    event = ok(capsys, db, "mark", battle, "Tigers", "pinned", "--expect", "3")
    assert event["seq"] == 4 and "seen" not in event
    # a change elsewhere is no conflict: recorded on the battle as it is, with seen
    event = ok(capsys, db, "mark", battle, "T-34s", "pinned", "--expect", "3")
    assert event["seq"] == 5 and event["seen"] == 3
    assert ok(capsys, db, "next", battle, "--expect", "3")["seen"] == 3
    code, _, err = run(capsys, db, "next", battle, "--expect", "5")
    assert code == 2 and "reads: the turn and phase" in err


ERRORS = [
    (("show", "nope"), "no battle 'nope'"),
    (("new", "chess"), "unknown game system 'chess'"),
    (("do", "{id}", "fow.shoot"), "procedure of 'fow'; this battle plays 'demo'"),
    (("do", "{id}", "demo.pool", "unit=Panthers"), "unknown unit 'Panthers'"),
    (("do", "{id}", "demo.pool", "--dice", ""), "at least one die"),
    (("do", "{id}", "demo.pool", "dice=2", "--dice", "9,1"), "from 1 to 6"),
    (("do", "{id}", "demo.pool", "dice"), "expected key=value"),
    (("mark", "{id}", "Tigers", "panic"), "unknown marker 'panic'"),
    (("mark", "{id}", "Nobody", "pinned"), "unknown unit 'Nobody'"),
    (("add-unit", "{id}", "--side", "C", "--name", "x"), "side must be A or B"),
    (("import", "/nonexistent/file.json"), "cannot read"),
    (("undo", "nope"), "no battle"),
]


@pytest.mark.parametrize(("args", "message"), ERRORS, ids=[m for _a, m in ERRORS])
def test_errors_exit_2_and_change_nothing(capsys: Cap, db: str, battle: str,
                                          args: tuple[str, ...], message: str) -> None:
    before = ok(capsys, db, "log", battle)
    code, out, err = run(capsys, db, *[a.replace("{id}", battle) for a in args])
    assert code == 2, (out, err)
    assert message in err and "Traceback" not in err + out
    assert len(err.strip().splitlines()) == 1
    assert ok(capsys, db, "log", battle) == before


def test_import_of_a_non_export(capsys: Cap, db: str, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    code, _, err = run(capsys, db, "import", str(bad))
    assert code == 2 and "is not JSON" in err
    bad.write_text('{"format": "x"}')
    code, _, err = run(capsys, db, "import", str(bad))
    assert code == 2 and "not a warroom battle export" in err


def test_warroom_db_environment_and_console_script(tmp_path: Path) -> None:
    env = dict(os.environ, WARROOM_DB=str(tmp_path / "env.db"), WARROOM_DEBUG="")
    cmd = [sys.executable, "-m", "warroom.cli", "battle"]
    made = subprocess.run([*cmd, "new", "demo", "--json"], capture_output=True, text=True,
                          env=env, check=True)
    bid = json.loads(made.stdout)["id"]
    assert (tmp_path / "env.db").exists()
    shown = subprocess.run([*cmd, "show", bid, "--json"], capture_output=True, text=True,
                           env=env, check=True)
    assert json.loads(shown.stdout)["id"] == bid
    bad = subprocess.run([*cmd, "show", "zzz"], capture_output=True, text=True, env=env,
                         check=False)
    assert bad.returncode == 2 and "no battle 'zzz'" in bad.stderr


def test_importing_the_cli_module_is_cheap() -> None:
    code = ("import sys, warroom.battle.cli; "
            "print(any(m.startswith(('sqlalchemy', 'alembic')) for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_links_open_the_web_pages(capsys: Cap, db: str, battle: str) -> None:
    links = ok(capsys, db, "links", battle)
    assert set(links) == {"A", "B", "view"}
    assert all(link.startswith(f"/battles/{battle}/") for link in links.values())
    assert len(set(links.values())) == 3


def test_show_counts_teams_left_in_words(capsys: Cap, db: str, battle: str) -> None:
    ok(capsys, db, "add-unit", battle, "--side", "A", "--name", "Tiger", "teams=1")
    ok(capsys, db, "add-unit", battle, "--side", "B", "--name", "Rifles", "teams=3")
    code, out, err = run(capsys, db, "show", battle)
    assert code == 0, err
    assert "1 team left" in out and "3 teams left" in out and "1 teams" not in out
