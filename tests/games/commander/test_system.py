"""The two systems: built from one core, parameters per game, reference tables."""

from __future__ import annotations

import pytest

from warroom import api
from warroom.engine.params import describe
from warroom.games.commander import bkc_system, cwc_system
from warroom.games.commander.data import Rules, load

PROCS = ("command", "orders", "artillery_call", "air_call", "aa_fire", "fire", "assault",
         "air_strike", "crossfire", "engagement")


def names(game: str, proc: str) -> set[str]:
    return {s.name for s in describe(api.registry().procedure(f"{game}.{proc}").params)}


def test_both_systems_have_the_contract_procedures() -> None:
    for system in (bkc_system(), cwc_system()):
        assert [p.id for p in system.procedures] == [f"{system.id}.{n}" for n in PROCS]


def test_game_only_parameters() -> None:
    assert "toward_enemy_20" in names("bkc", "command") - names("cwc", "command")
    assert {"reaction_fire", "initiative_action", "assault_order"} <= (
        names("cwc", "command") - names("bkc", "command"))
    assert {"suppressive", "flamethrower_or_sniper", "popup_attack"} <= (
        names("cwc", "fire") - names("bkc", "fire"))
    assert {"anti_tank", "ground_attack_aircraft"} <= names("bkc", "fire") - names("cwc", "fire")
    assert {"pursuit", "pursuit_cm"} <= names("bkc", "assault") - names("cwc", "assault")


def test_cover_choices_per_game() -> None:
    def cover(game: str) -> tuple[str, ...]:
        proc = api.registry().procedure(f"{game}.fire")
        return next(s.choices for s in describe(proc.params) if s.name == "cover")

    assert cover("bkc") == ("open", "cover", "fortified")
    assert cover("cwc") == ("open", "light", "heavy")


@pytest.mark.parametrize("game", ["bkc", "cwc"])
def test_reference_tables(game: str) -> None:
    tables = api.registry().system(game).tables
    for key in ("phases", "direct_fire_artillery", "command_bonus", "command_blunders",
                "artillery_blunders", "air_blunders", "end_phase", "retreat", "rout",
                "hit_scores", "assault_values"):
        assert tables[key], key
    assert len(tables["command_blunders"]) == (6 if game == "bkc" else 3)


def test_cwc_breakpoint_and_bkc_restrictions() -> None:
    assert "breakpoint" in api.registry().system("cwc").tables
    bkc = api.registry().system("bkc").tables
    assert bkc["charge"] and bkc["pursuit"] and bkc["damage"]


def test_data_is_checked() -> None:
    data = load("bkc").model_dump()
    data["blunders"]["command"] = data["blunders"]["command"][:5]
    with pytest.raises(ValueError, match="faces 1-6"):
        Rules.model_validate(data)
