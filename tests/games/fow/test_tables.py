"""The fow data tables: loaded from TOML, shown by `warroom rules fow`, and agreeing with
the numbers the procedures use."""

from __future__ import annotations

import pytest

from warroom.cli import main
from warroom.games.fow import load_tables, system
from warroom.games.fow.artillery import battery_reroll
from warroom.games.fow.common import MOTIVATION_TEST, SKILL_TEST, TO_HIT


def test_system_exposes_every_table() -> None:
    tables = system().tables
    for name in ("phases", "movement", "command", "to_hit", "weapons", "vehicle_mgs"):
        assert tables[name], name


def test_to_hit_table_matches_the_procedures() -> None:
    t = load_tables()["to_hit"]
    for skill, base in TO_HIT.items():
        assert t[skill]["base"] == base
        assert t[skill]["concealed"] == base + 1
        assert t[skill]["gone_to_ground_and_concealed"] == base + 2
    assert t["tests"]["skill"] == SKILL_TEST
    assert t["tests"]["motivation"] == MOTIVATION_TEST
    assert t["tests"]["battery_to_hit"] == SKILL_TEST
    assert t["battery_size"] == {"1-2": "re-roll hits", "3-5": "normal roll",
                                 "6+": "re-roll misses"}
    assert [battery_reroll(g) for g in (1, 2, 3, 5, 6, 9)] == [
        "hits", "hits", "none", "none", "misses", "misses"]


def test_card_values() -> None:
    tables = load_tables()
    assert tables["movement"]["tracked"] == {"road": 30, "cross_country": 30,
                                             "difficult": 20}
    assert tables["movement"]["medium_guns"]["road"] == 5
    assert tables["command"]["veteran"] == {"tanks": 20, "others": 15}
    assert tables["weapons"]["smg"] == {"rof": 3, "range_cm": 10, "at": 1, "firepower": 6,
                                        "moving_rof": 3}
    assert tables["vehicle_mgs"]["cal50_vehicle_mg"]["at"] == 4
    assert len(tables["phases"]["shooting"]["steps"]) == 11
    assert len(tables["phases"]["assault"]["steps"]) == 13


def test_rules_command_lists_tables(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["rules", "fow"])
    out, _ = capsys.readouterr()
    assert code == 0
    assert "fow.shoot" in out and "fow.artillery" in out
    assert "movement" in out and "vehicle_mgs" in out
