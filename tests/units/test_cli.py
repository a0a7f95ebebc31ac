"""``warroom force check/show`` and ``odds/roll/simulate --from --at`` (exit codes)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.test_cli import run


@pytest.mark.parametrize("game", ["fow", "asl", "bkc", "cwc"])
def test_force_check_and_show_the_examples(capsys: pytest.CaptureFixture[str],
                                           game: str) -> None:
    code, out, _ = run(capsys, "force", "check", f"example:{game}")
    assert code == 0 and "OK" in out
    code, out, _ = run(capsys, "force", "show", f"example:{game}")
    assert code == 0
    assert {"fow": "Panthers", "asl": "MMG 4-10 B11", "bkc": "CV 9",
            "cwc": "ATGM team"}[game] in out


def test_force_check_a_bad_file_exits_2_naming_the_line(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('game = "asl"\n\n[[unit]]\nname = "S"\ncounters = ["4-6-7"]\n'
                    'elr = "high"\n', encoding="utf-8")
    code, out, err = run(capsys, "force", "check", str(path))
    assert code == 2 and out == ""
    assert "line 6: unit[1].elr:" in err and "Traceback" not in err
    code, _, err = run(capsys, "--lang", "pl", "force", "check", str(path))
    assert code == 2 and "wiersz 6" in err


def test_odds_from_units_prints_where_each_value_came_from(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "odds", "fow.shoot", "--from", "example:fow:Shermans",
                       "--at", "example:fow:Panthers", "range_cm=45", "moved=true")
    assert code == 0
    assert "armour 10: Panthers, front armour" in out
    assert "dice 3: Shermans: 3 x 75mm gun (example), ROF 1 moving" in out
    code, out, _ = run(capsys, "odds", "fow.shoot", "--from", "example:fow:Shermans",
                       "--at", "example:fow:Panthers", "range_cm=45", "moved=true",
                       "--json", "--exact")
    data = json.loads(out)
    # veteran 4+, +1 over 40 cm, +1 ROF 1 moved: 6+ on 3 dice; no hit (5/6)^3
    assert data["params"]["armour"] == 10
    assert {"outcome": {"hits": 0, "destroyed": 0, "bailed_out": 0, "pinned": False,
                        "passengers_destroyed": 0, "dismounted": False,
                        "sent_to_rear": False},  # no passengers: certainly 0
            "p": 125 / 216, "exact": "125/216"} in data["outcomes"]


@pytest.mark.parametrize("args", [
    ["odds", "asl.ift", "--from", "example:asl:Firegroup", "range_hexes=8"],
    ["odds", "asl.ift_on_stack", "--at", "example:asl:Target stack", "result=1MC"],
    ["roll", "bkc.fire", "--from", "example:bkc:Tanks", "--at", "example:bkc:Infantry",
     "--seed", "1"],
    ["simulate", "cwc.fire", "--from", "example:cwc:Tanks", "--at", "example:cwc:HQ",
     "-n", "100", "--seed", "1"],
    ["odds", "fow.shoot_mixed", "--from", "example:fow:Panthers", "--at",
     "example:fow:Rifle platoon", "weapon=Vehicle MG", "range_cm=30"],
])
def test_every_command_takes_units(capsys: pytest.CaptureFixture[str],
                                   args: list[str]) -> None:
    code, out, err = run(capsys, *args)
    assert code == 0, err
    assert ": " in out.splitlines()[0]  # "name value: where it came from" first


@pytest.mark.parametrize(("args", "words"), [
    (["odds", "fow.shoot", "--from", "example:fow:Tigers", "--at", "example:fow:Panthers"],
     "no unit named 'Tigers'"),
    (["odds", "fow.infiltration", "--from", "example:fow:Shermans"],
         "fow.infiltration has no unit meaning"),
    (["odds", "bkc.fire", "--from", "example:bkc:Infantry", "--at", "example:bkc:Tanks"],
     "no attack value that can hit"),
    (["odds", "asl.ift", "--from", "nowhere.toml:X"], "nowhere.toml"),
])
def test_unit_errors_exit_2(capsys: pytest.CaptureFixture[str], args: list[str],
                            words: str) -> None:
    code, _, err = run(capsys, *args)
    assert code == 2 and words in err


def test_force_show_json_gives_whole_profiles(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "force", "show", "example:fow", "--json")
    data = json.loads(out)
    assert code == 0 and data["game"] == "fow"
    shermans = data["units"][0]
    assert shermans["name"] == "Shermans" and shermans["teams"][0]["front"] == 6
    # the reference card's vehicle machine-guns table: .50 cal, 40 cm, ROF 3, AT 4, FP 5+
    mg = shermans["teams"][0]["weapons"][1]
    assert (mg["range_cm"], mg["rof_halted"], mg["at"], mg["firepower"]) == (40, 3, 4, 5)


def test_special_rules_of_both_sides_go_to_the_procedure(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "f.toml"
    path.write_text(
        'game = "fow"\n[[unit]]\nname = "A"\nrules = ["volley_fire"]\n[[unit.teams]]\n'
        'type = "infantry"\ncount = 2\n[[unit.teams.weapons]]\nname = "rifle"\n'
        'range_cm = 40\nrof_halted = 1\nrof_moving = 1\nat = 2\nfirepower = 6\n'
        '[[unit]]\nname = "B"\nskill = "veteran"\nrules = ["quality_of_quantity"]\n'
        '[[unit.teams]]\ntype = "infantry"\ncount = 8\n', encoding="utf-8")
    code, out, err = run(capsys, "odds", "fow.shoot", "--from", f"{path}:A", "--at",
                         f"{path}:B", "--json")
    assert code == 0, err
    params = json.loads(out)["params"]
    assert params["rules"] == ["volley_fire"] and params["target_rules"] == [
        "quality_of_quantity"]
    assert (params["dice"], params["teams"], params["target_skill"]) == (2, 8, "veteran")
