"""Unit profiles and forces: validation errors with line and field, parameter building
per game (hand-checked), and odds from units equal to the hand-written parameters."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

import warroom
from warroom.errors import UsageError
from warroom.games.asl.units import parse_counter
from warroom.games.commander.units import parse_attack
from warroom.units import params_for
from warroom.units.forces import ForceError, load_force, load_unit

FOW_BAD = """\
game = "fow"

[[unit]]
name = "A"

[[unit.teams]]
type = "tank"
front = 6

[[unit.teams.weapons]]
name = "gun"
range_cm = 80
rof_halted = 2
rof_moving = 1
at = 10
firepower = 3

[[unit.teams.weapons]]
name = "mg"
range_cm = 40
rof_halted = 3
rof_moving = 3
at = "two"
firepower = 6
"""


def write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "force.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def error(source: str) -> ForceError:
    with pytest.raises(ForceError) as info:
        load_force(source)
    return info.value


def test_a_bad_weapon_value_names_its_line_and_field(tmp_path: Path) -> None:
    exc = error(write(tmp_path, FOW_BAD))
    assert exc.line == 23  # `at = "two"` of the second weapon
    assert "line 23" in str(exc)
    assert exc.parameter == "unit[1].teams[1].weapons[2].at"


def test_armour_on_infantry_names_the_team(tmp_path: Path) -> None:
    text = FOW_BAD.replace('type = "tank"', 'type = "infantry"').replace('"two"', "2")
    exc = error(write(tmp_path, text))
    assert exc.line == 6 and "only tanks have armour" in str(exc)
    assert exc.parameter == "unit[1].teams[1]"


def test_an_unknown_special_rule_names_the_unit(tmp_path: Path) -> None:
    text = FOW_BAD.replace('name = "A"', 'name = "A"\nrules = ["no_such_rule"]')
    exc = error(write(tmp_path, text))
    assert exc.line == 5 and "no_such_rule" in str(exc)


@pytest.mark.parametrize(("text", "line", "field", "words"), [
    ('game = "chess"\n', 1, "game", "fow, asl, bkc, cwc"),
    ('game = "asl"\ncolour = "red"\n', 2, "colour", "unknown key"),
    ('game = "asl"\n', None, "unit", "at least one"),
    ('game = "asl"\n[[unit]]\nname = "S"\ncounters = ["4-6-7", "467"]\n', 4,
     "unit[1].counters", "'467' is not a counter"),
    ('game = "asl"\n[[unit]]\nname = "S"\ncounters = ["4-6-7"]\nelr = 7\n', 5,
     "unit[1].elr", "less than or equal to 5"),
    ('game = "bkc"\n[[unit]]\nname = "T"\ntype = "afv"\nhits = 4\nattack = ["3x"]\n', 6,
     "unit[1].attack", "'3x'"),
    ('game = "bkc"\n[[unit]]\nname = "H"\ntype = "hq"\nhits = 3\n', 2, "unit[1]",
     "command value"),
    ('game = "bkc"\n[[unit]]\nname = "T"\ntype = "tank"\nhits = 4\n', 4, "unit[1].type",
     "infantry"),
    ('game = "bkc"\n[[unit]]\nname = "T"\ntype = "afv"\nhits = 4\n[[unit]]\nname = "t"\n'
     'type = "afv"\nhits = 4\n', 7, "unit[2].name", "two units"),
    ('game = "asl"\n[[unit]\n', 2, "TOML", ""),
])
def test_force_errors(tmp_path: Path, text: str, line: int | None, field: str,
                      words: str) -> None:
    exc = error(write(tmp_path, text))
    assert exc.line == line
    assert exc.parameter == field
    assert words in str(exc)


def test_missing_file_and_unknown_unit() -> None:
    assert "file" in str(error("/nonexistent/force.toml"))
    with pytest.raises(UsageError, match="no unit named 'Tigers'"):
        load_unit("example:fow:Tigers")
    with pytest.raises(UsageError, match="FILE:UNIT"):
        load_unit("shermans.toml")
    with pytest.raises(UsageError, match="example:fow"):
        load_force("example:chess")


@pytest.mark.parametrize("game", ["fow", "asl", "bkc", "cwc"])
def test_every_example_force_loads(game: str) -> None:
    force = load_force(f"example:{game}")
    assert force.game == game and len(force.units) >= 2


def test_counters_as_players_write_them() -> None:
    assert parse_counter("4-6-7")[:5] == ("squad", "4-6-7", 4, 6, 7)
    assert parse_counter("hs 2-6-7").kind == "hs"
    leader = parse_counter("8-1")
    assert (leader.kind, leader.morale, leader.drm) == ("leader", 8, -1)
    assert parse_counter("8+1").drm == 1
    mmg = parse_counter("MMG 4-10 B11")
    assert (mmg.kind, mmg.name, mmg.fp, mmg.range, mmg.breakdown) == ("sw", "MMG", 4, 10, 11)
    assert parse_attack("3*") == (3, "*") and parse_attack("5") == (5, "none")


# -- parameters from units, hand-checked -------------------------------------------------

def test_fow_shoot_from_units() -> None:
    b = params_for("fow.shoot", "example:fow:Shermans", "example:fow:Panthers",
                   range_cm=45, moved="true")
    # three Shermans moving: ROF 1 each -> 3 dice, +1 to hit as ROF 1 moved;
    # Panthers: veteran, two tanks, front armour 10
    assert b.params == {"dice": 3, "at": 10, "firepower": 3, "main_gun": True,
                        "moving_rof1": True, "target_skill": "veteran", "target": "tank",
                        "teams": 2, "armour": 10, "range_cm": 45, "moved": "true"}
    assert "armour 10: Panthers, front armour" in b.lines()
    assert str(b.sources["range_cm"]) == "given explicitly"


def test_fow_shoot_side_armour_halted_pinned_and_override() -> None:
    b = params_for("fow.shoot", "example:fow:Shermans", "example:fow:Panthers",
                   aspect="side", range_cm=20)
    assert (b.params["dice"], b.params["armour"]) == (6, 5)  # 3 x ROF 2; side armour 5
    b = params_for("fow.shoot", "example:fow:Shermans", "example:fow:Panthers",
                   pinned="yes", armour=7)
    assert b.params["dice"] == 3 and b.params["pinned_rof1"] is True
    # an explicit parameter wins
    assert b.params["armour"] == 7 and str(b.sources["armour"]) == "given explicitly"
    b = params_for("fow.shoot", "example:fow:Panthers", "example:fow:Rifle platoon",
                   weapon="vehicle mg")
    assert (b.params["dice"], b.params["at"], b.params["main_gun"]) == (6, 2, False)
    with pytest.raises(UsageError, match="reaches 40 cm"):
        params_for("fow.shoot", "example:fow:Panthers", "example:fow:Rifle platoon",
                   weapon="Vehicle MG", range_cm=50)
    with pytest.raises(UsageError, match="unknown parameter"):
        params_for("fow.shoot", "example:fow:Panthers", "example:fow:Shermans", colour=1)


def test_fow_mixed_from_units() -> None:
    b = params_for("fow.shoot_mixed", "example:fow:Shermans", "example:fow:Panthers",
                   range_cm=50, gone_to_ground="no")
    assert b.params["weapons"] == "6:10:3:far"  # 3 x ROF 2, over 40 cm
    assert b.params["teams"] == "tank:10,tank:10"
    b = params_for("fow.shoot_mixed", "example:fow:Panthers", "example:fow:Shermans",
                   aspect="side", bailed_out=1, moved=True)
    assert b.params["weapons"] == "2:14:3:moved:rof1"
    assert b.params["teams"] == "tank:4:out,tank:4,tank:4"


def test_asl_ift_from_units() -> None:
    def fp(**kw: object) -> str:
        return str(params_for("asl.ift", "example:asl:Firegroup", **kw).params["fp"])

    assert fp(range_hexes=4) == "12"  # 4 + 4 + 4
    assert fp(range_hexes=8) == "8"   # squads at long range: 2 + 2, MMG 4
    assert fp(range_hexes=13) == "2"  # squads out of range, MMG at long range
    b = params_for("asl.ift", "example:asl:Firegroup", range_hexes=1)
    assert b.params["pbf"] is True and b.params["leader_drm"] == -1
    with pytest.raises(UsageError, match="nothing in the stack"):
        fp(range_hexes=30)


def test_asl_stack_from_units() -> None:
    b = params_for("asl.ift_on_stack", None, "example:asl:Target stack", result="1MC",
                   broken=1)
    # the counters as written (the one ASL parser reads them), the first one broken
    assert b.params["units"] == "4-4-7:broken,2-4-7:hs,8-0" and b.params["elr"] == 2


def test_commander_fire_from_units() -> None:
    b = params_for("bkc.fire", "example:bkc:Tanks", "example:bkc:Infantry", range_cm=15)
    assert b.params == {"attackers": "3,3,3", "hits_value": 3, "afv_vs_soft_20": True}
    b = params_for("cwc.fire", "example:cwc:Infantry", "example:cwc:HQ", hits=1)
    assert b.params == {"attacks": 3, "attack_marker": "*", "hits_value": 3,
                        "target_hq": True, "existing_hits": 1}
    b = params_for("bkc.fire", "example:bkc:AT gun", "example:bkc:Tanks")
    assert b.params == {"attacks": 4, "attack_marker": "#", "armoured": True, "save": 5,
                        "hits_value": 4}
    with pytest.raises(UsageError, match="no attack value that can hit"):
        params_for("bkc.fire", "example:bkc:Infantry", "example:bkc:Tanks")
    with pytest.raises(UsageError, match="is a fow unit"):
        params_for("bkc.fire", "example:fow:Shermans", "example:bkc:Tanks")
    with pytest.raises(UsageError, match="needs the target"):
        params_for("bkc.fire", "example:bkc:Tanks")


# -- the same exact odds as the hand-written parameters ----------------------------------

@pytest.mark.parametrize(("proc", "units", "situation", "hand"), [
    ("fow.shoot", ("example:fow:Shermans", "example:fow:Panthers"),
     {"range_cm": 45, "moved": True},
     {"dice": 3, "at": 10, "firepower": 3, "moving_rof1": True, "moved": True,
      "target_skill": "veteran", "target": "tank", "teams": 2, "armour": 10,
      "range_cm": 45}),
    ("fow.shoot_mixed", ("example:fow:Panthers", "example:fow:Rifle platoon"),
     {"weapon": "Vehicle MG", "range_cm": 30},
     {"weapons": "6:2:6", "teams": ",".join(["infantry"] * 6)}),
    ("asl.ift", ("example:asl:Firegroup", None), {"range_hexes": 8, "terrain": "woods"},
     {"fp": 8, "leader_drm": -1, "leader_directed": True, "terrain": "woods"}),
    ("asl.ift_on_stack", (None, "example:asl:Target stack"), {"result": "1MC"},
     {"result": "1MC", "units": "4-4-7,2-4-7:hs,8-0", "elr": 2}),
    ("bkc.fire", ("example:bkc:Tanks", "example:bkc:Infantry"), {"half_range": True},
     {"attackers": "3,3,3", "hits_value": 3, "half_range": True}),
    ("cwc.fire", ("example:cwc:Tanks", "example:cwc:Infantry"), {"cover": "light"},
     {"attackers": "3,3,3", "hits_value": 3, "cover": "light"}),
])
def test_odds_from_units_equal_the_hand_written(proc: str, units: tuple[str | None, ...],
                                                situation: dict[str, object],
                                                hand: dict[str, object]) -> None:
    by_units = warroom.odds(proc, from_unit=units[0], at_unit=units[1], **situation)
    by_hand = warroom.odds(proc, hand)
    assert by_units.params == by_hand.params
    assert list(by_units.items()) == list(by_hand.items())


def test_fow_shoot_from_units_hand_checked() -> None:
    # veteran 4+, +1 over 40 cm, +1 ROF 1 moved: 6+ on each of 3 dice
    d = warroom.odds("fow.shoot", from_unit="example:fow:Shermans",
                     at_unit="example:fow:Panthers", range_cm=45, moved=True)
    assert d.probability(hits=0) == Fraction(5, 6) ** 3


def test_roll_and_simulate_take_units() -> None:
    res = warroom.roll("fow.shoot", from_unit="example:fow:Shermans",
                       at_unit="example:fow:Panthers", range_cm=45, moved=True, seed=3)
    assert res.outcome["hits"] in (0, 1, 2, 3)
    est = warroom.simulate("bkc.fire", from_unit="example:bkc:Tanks",
                           at_unit="example:bkc:Infantry", samples=200, seed=1)
    assert est.samples == 200


# -- every message of the units in Polish and Chinese -------------------------------------

def templates() -> set[str]:
    """The first string argument of every error and message call in the units' code."""
    import ast

    root = Path(warroom.__file__).parent
    files = [*root.glob("units/*.py"), root / "games/fow/units.py",
             root / "games/fow/builders.py",
             root / "games/asl/units.py", root / "games/commander/units.py"]
    out: set[str] = set()
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id in ("UsageError", "ErrorText", "msg") and node.args
                    and isinstance(node.args[0], ast.Constant)):
                out.add(str(node.args[0].value))
    return out


@pytest.mark.parametrize("lang", ["pl", "zh"])
def test_every_units_message_is_translated(lang: str) -> None:
    from warroom import i18n

    table = i18n.catalog(lang)
    found = templates()
    assert len(found) > 25
    missing = sorted(t for t in found if not table.get(t))
    assert not missing, missing


def test_built_as_json_in_polish() -> None:
    from warroom import i18n

    b = params_for("bkc.fire", "example:bkc:Tanks", "example:bkc:Infantry", cover="cover")
    data = b.to_json(i18n.translator("pl"))
    assert data["params"] == {"attackers": "3,3,3", "hits_value": 3, "cover": "cover"}
    # three units: the second of the three Polish plural forms (2-4: jednostki)
    assert data["filled"] == {"attackers": "Tanks, atak 3, 3 jednostki",
                              "hits_value": "Infantry, wartość trafień",
                              "cover": "podano wprost"}


# -- several units in one step --------------------------------------------------------------

def machine_guns(*names: str) -> str:
    """A force of platoons of two infantry teams, each with an MG of 60 cm, ROF 2,
    AT 2, firepower 6+ (made up for the test)."""
    weapon = dict(name="MG", range_cm=60, rof_halted=2, rof_moving=1, at=2, firepower=6)
    lines = ['game = "fow"']
    for name in names:
        lines += ["[[unit]]", f'name = "{name}"', "[[unit.teams]]", 'type = "infantry"',
                  "count = 2", "[[unit.teams.weapons]]"]
        lines += [f"{k} = {v!r}".replace("'", '"') for k, v in weapon.items()]
    return "\n".join(lines) + "\n"


MGS = machine_guns("MG left", "MG right")


def test_a_fow_shooting_step_each_unit_its_own_flags(tmp_path: Path) -> None:
    force = write(tmp_path, MGS)
    b = params_for("fow.shoot_mixed", [{"unit": f"{force}:MG left", "range_cm": 30},
                                       {"unit": f"{force}:MG right", "range_cm": 50}],
                   "example:fow:Rifle platoon")
    # two teams x ROF 2 each; the right-hand MGs shoot over 40 cm: :far on their weapon only
    assert b.params["weapons"] == "4:2:6,4:2:6:far"
    assert b.params["teams"] == ",".join(["infantry"] * 6)
    assert str(b.sources["weapons"]) == "MG left: 2 x MG ROF 2; MG right: 2 x MG ROF 2"
    # the contract: trained infantry hit on 3+, 4+ over 40 cm; 5 hits pin, and
    # P(at least 5 of 4 dice at 2/3 and 4 at 1/2) = 5/9 (sum over the first pool's hits k
    # of C(4,k)(2/3)^k(1/3)^(4-k) * P(second pool >= 5-k): 16/81*11/16 + 32/81*5/16 +
    # 24/81*1/16 + 8/81*1 + 0... = 45/81 = 5/9)
    d = warroom.odds("fow.shoot_mixed", b.params)
    assert d.probability(pinned=True) == Fraction(5, 9)


def test_several_units_need_a_procedure_for_several() -> None:
    with pytest.raises(UsageError, match="takes one acting unit"):
        params_for("fow.shoot", ["example:fow:Shermans", "example:fow:Panthers"],
                   "example:fow:Rifle platoon")
    with pytest.raises(UsageError, match="gives for itself"):
        params_for("bkc.fire", [{"unit": "example:bkc:Tanks", "cover": "cover"}],
                   "example:bkc:Infantry")


def test_bkc_combined_fire_from_units() -> None:
    b = params_for("bkc.fire", ["example:bkc:Tanks", "example:bkc:Infantry"],
                   "example:bkc:HQ")
    # three tanks at 3 and the infantry's 3* (a * changes nothing against a soft HQ)
    assert b.params == {"attackers": "3,3,3,3", "hits_value": 3, "target_hq": True}
    # the contract: attackers=3,3,3 with half_range (+1 each) is attacks=12
    by_units = warroom.odds("bkc.fire", from_unit="example:bkc:Tanks",
                            at_unit="example:bkc:Infantry", half_range=True)
    by_hand = warroom.odds("bkc.fire", attacks=12, hits_value=3)
    assert list(by_units.items()) == list(by_hand.items())
    # a # (cannot hit soft targets) matters against infantry: not one combined fire
    with pytest.raises(UsageError, match="combined fire takes the same"):
        params_for("bkc.fire", ["example:bkc:Tanks", {"unit": "example:bkc:AT gun",
                                                      "weapon": 1}], "example:bkc:Infantry")
    with pytest.raises(UsageError, match="within 20 cm"):
        params_for("cwc.fire", [{"unit": "example:cwc:Tanks", "range_cm": 15},
                                "example:cwc:Infantry"], "example:cwc:HQ", range_cm=15)


def test_an_asl_fire_group_from_units() -> None:
    b = params_for("asl.fire_group", ["example:asl:Firegroup"],
                   "example:asl:Target stack", range_hexes=4)
    # the two squads, the leader and the MMG (A9.11: a squad fires it) all fire
    assert b.params == {"firers": "4-6-7,4-6-7,8-1,MMG 4-10 B11",
                        "target": "4-4-7,2-4-7:hs,8-0", "elr": 2}
    assert "MMG 4-10 B11: a support weapon, fires with the group" in str(
        b.sources["firers"])
    # at 8 hexes the squads (range 6) are at long range, the MMG (range 10) is not:
    # each squad halved on its own (:lr), 2 + 2 + 4 = 8 FP
    far = params_for("asl.fire_group", [{"unit": "example:asl:Firegroup",
                                         "range_hexes": 8, "pinned": True}],
                     "example:asl:Target stack", broken=1)
    assert far.params["firers"] == ("4-6-7:pinned:lr,4-6-7:pinned:lr,8-1:pinned,"
                                    "MMG 4-10 B11:pinned")
    assert "long_range" not in far.params
    assert far.params["target"].startswith("4-4-7:broken")
    # at 13 hexes the squads are out of range; the MMG alone is no fire group
    with pytest.raises(UsageError, match="needs a squad or half-squad"):
        warroom.odds("asl.fire_group", params_for(
            "asl.fire_group", {"unit": "example:asl:Firegroup", "range_hexes": 13},
            "example:asl:Target stack").params)
    # at 12 hexes all are beyond normal range: the whole group at long range, as before
    lr = params_for("asl.fire_group", {"unit": "example:asl:Firegroup", "range_hexes": 12},
                    "example:asl:Target stack").params
    assert lr["firers"] == "4-6-7,4-6-7,8-1,MMG 4-10 B11" and lr["long_range"] is True
    hand = warroom.odds("asl.fire_group", firers="4-6-7,4-6-7,8-1,MMG 4-10 B11",
                        target="4-4-7,2-4-7:hs,8-0", elr=2)
    assert list(warroom.odds("asl.fire_group", b.params).items()) == list(hand.items())
    assert params_for("asl.fire_group", "example:asl:Firegroup", "example:asl:Target stack",
                      range_hexes=1).params["pbf"] is True


def test_one_asl_counter_parser() -> None:
    from warroom.games.asl import counters, units

    assert units.parse_counter is counters.parse_counter
    # a profile's counter reads as the procedures read it: 3 FP or less is a half-squad
    assert parse_counter("2-4-7").kind == "hs"
    assert parse_counter("hs 2-4-7").item == "2-4-7:hs"
    assert parse_counter("3-4-7:squad").kind == "squad"
    with pytest.raises(UsageError, match="is not a counter"):
        parse_counter("4-6-7,8-1")


def test_an_asl_stack_holds_the_ten_units_a_stack_attack_takes(tmp_path: Path) -> None:
    # asl.ift_on_stack takes up to ten units: a force's stack holds them, and their
    # support weapons besides (which take no morale checks)
    units = ["4-6-7"] * 7 + ["hs 2-6-7", "8-1", "9-2"]
    counters = ", ".join(f'"{c}"' for c in [*units, "MMG 4-10 B11", "LMG 3-6 B12"])
    force = load_force(write(tmp_path, f'game = "asl"\n[[unit]]\nname = "S"\n'
                                       f"counters = [{counters}]\n"))
    b = params_for("asl.ift_on_stack", None, force.units[0], result="K/2")
    assert b.params["units"].count(",") == 9
    exc = error(write(tmp_path, 'game = "asl"\n[[unit]]\nname = "S"\ncounters = ['
                      + ", ".join(['"4-6-7"'] * 11) + "]\n"))
    assert exc.line == 4 and "at most 10 units in one location, got 11" in str(exc)
