"""asl.ift against odds worked out by hand from the card, and the story it tells."""

from __future__ import annotations

from fractions import Fraction as F
from typing import Any

import pytest

import warroom
from warroom.cli import main
from warroom.errors import UsageError


def results(**params: Any) -> dict[str, F]:
    return warroom.odds("asl.ift", **params).marginal("result")


def n36(**counts: int) -> dict[str, F]:
    """Expected marginal from counts out of 36 (keys: KIA_1 -> "1KIA", K_2 -> "K/2",
    MC_1 -> "1MC", NMC, PTC, none -> "-")."""
    out = {}
    for key, c in counts.items():
        if key.startswith("KIA_"):
            name = f"{key[4:]}KIA"
        elif key.startswith("K_"):
            name = f"K/{key[2:]}"
        elif key.startswith("MC_"):
            name = f"{key[3:]}MC"
        elif key == "none":
            name = "-"
        else:
            name = key
        out[name] = F(c, 36)
    assert sum(out.values()) == 1
    return out


def test_four_fp_with_cowering() -> None:
    # 4 FP column; doubles cower to the 2 column.
    # Not doubles (30 ways): sum 3 (2 ways) 2MC, 4 (2) 1MC, 5 (4) 1MC, 6 (4) NMC,
    #   7 (6) PTC, 8-11 (4+4+2+2) "-".
    # Doubles on the 2 column: 1-1 DR 2 K/1, 2-2 DR 4 1MC, 3-3 DR 6 PTC, 4-4+ "-".
    # K/1 1, 2MC 2, 1MC 2+4+1 = 7, NMC 4, PTC 6+1 = 7, "-" 12+3 = 15
    assert results(fp=4) == n36(K_1=1, MC_2=2, MC_1=7, NMC=4, PTC=7, none=15)


def test_four_fp_leader_directed_does_not_cower() -> None:
    # 4 column for every DR: 2 (1 way) K/2, 3 (2) 2MC, 4 (3) + 5 (4) 1MC, 6 (5) NMC,
    # 7 (6) PTC, 8-12 (15) "-"
    expected = n36(K_2=1, MC_2=2, MC_1=7, NMC=5, PTC=6, none=15)
    assert results(fp=4, leader_directed=True) == expected
    # a leader's DRM means he directs the fire: -1 shifts each DR one row up
    # 2,3 -> DR 1,2 (1+2 ways) K/2... row 1 on the 4 column is 1KIA
    shifted = results(fp=4, leader_drm=-1)
    assert shifted["1KIA"] == F(1, 36) and shifted["K/2"] == F(2, 36)


def test_inexperienced_cowers_two_columns() -> None:
    # not doubles as above: 2MC 2, 1MC 6, NMC 4, PTC 6, "-" 12
    # doubles on the 1 column: 1-1 DR 2 1MC, 2-2 DR 4 NMC, 3-3 and up "-"
    assert results(fp=4, inexperienced=True) == n36(MC_2=2, MC_1=7, NMC=5, PTC=6, none=16)


def test_cowering_off_the_one_column_has_no_effect() -> None:
    # 1 FP column, not doubles: 3 (2 ways) 1MC, 4 (2) NMC, 5 (4) PTC, the other 22 "-";
    # the 6 doubles cower off the table: "-" on no column
    dist = warroom.odds("asl.ift", fp=1)
    assert dist.marginal("result") == n36(MC_1=2, NMC=2, PTC=4, none=28)
    assert dist.probability(column=0) == F(6, 36)


def test_halving_below_a_column() -> None:
    # 6 FP area fire: 3 FP, between 2 and 4 -> the 2 column; leader directed (no cowering)
    # 2 column: 2 (1) K/1, 3 (2) + 4 (3) 1MC, 5 (4) NMC, 6 (5) PTC, 7+ (21) "-"
    dist = warroom.odds("asl.ift", fp=6, area_fire=1, leader_directed=True)
    assert dist.marginal("column") == {2: F(1)}
    assert dist.marginal("result") == n36(K_1=1, MC_1=5, NMC=4, PTC=5, none=21)
    # 7/2 written as a fraction or a decimal is the same 2 column
    assert warroom.odds("asl.ift", fp="7/2").marginal("column")[2] == F(30, 36)
    assert warroom.odds("asl.ift", fp=3.5).marginal("column")[2] == F(30, 36)
    # 1 FP halved is 1/2 FP: below the 1 column, no attack, no DR
    half = warroom.odds("asl.ift", fp=1, area_fire=1)
    assert half.marginal("result") == {"-": F(1)}
    assert half.marginal("final_dr") == {0: F(1)}
    # halved twice: 16 -> 4
    assert warroom.odds("asl.ift", fp=16, area_fire=2,
                        leader_directed=True).marginal("column") == {4: F(1)}


@pytest.mark.parametrize(("params", "column"), [
    ({"fp": 3, "area_fire": 1, "assault_fire": True}, 2),   # 1.5 -> 2, +1 = 3 -> 2 column
    ({"fp": 5, "area_fire": 1, "assault_fire": True}, 4),   # 2.5 -> 3, +1 = 4
    ({"fp": 4, "pbf": True}, 8),                            # 4 x 2 = 8
    ({"fp": 7, "area_fire": 1, "pbf": True}, 6),            # 7 / 2 x 2 = 7 -> 6 column
    ({"fp": 40}, 36),                                       # above 36 -> 36
])
def test_fp_modifications(params: dict[str, Any], column: int) -> None:
    dist = warroom.odds("asl.ift", leader_directed=True, **params)
    assert dist.marginal("column") == {column: F(1)}


def test_gun_calibre_column() -> None:
    # 75mm reads under 70mm: the 12 column; a gun's HE does not cower.
    # 12 column: 2 (1) 1KIA, 3 (2) K/3, 4 (3) 3MC, 5 (4) + 6 (5) 2MC, 7 (6) + 8 (5) 1MC,
    # 9 (4) NMC, 10 (3) PTC, 11-12 (3) "-"
    dist = warroom.odds("asl.ift", gun_mm=75)
    assert dist.marginal("column") == {12: F(1)}
    assert dist.marginal("result") == n36(KIA_1=1, K_3=2, MC_3=3, MC_2=9, MC_1=11, NMC=4,
                                          PTC=3, none=3)
    # below 20mm there is no column
    assert warroom.odds("asl.ift", gun_mm=15).marginal("result") == {"-": F(1)}
    # 200mm and more: the 36 column; a gun's HE is not halved as infantry FP is
    # (ASLRB A7: the area-fire halvings are for infantry): 80mm stays on the 16 column
    assert warroom.odds("asl.ift", gun_mm=240).marginal("column") == {36: F(1)}
    assert warroom.odds("asl.ift", gun_mm=80, area_fire=1).marginal("column") == {16: F(1)}


def test_final_dr_at_most_zero_reads_the_top_row() -> None:
    # 36 column, DRM -4, directed: DR 2, 3, 4 (1+2+3 ways) give final -2, -1, 0 -> 7KIA;
    # DR 5 (4 ways) gives 1 -> 6KIA
    dist = warroom.odds("asl.ift", fp=36, drm=-4, leader_directed=True)
    assert dist.probability(result="7KIA") == F(6, 36)
    assert dist.probability(result="6KIA") == F(4, 36)
    assert dist.probability(final_dr=-2) == F(1, 36)


def test_final_dr_fifteen_or_more_reads_the_bottom_row() -> None:
    # 36 column, DRM +5, directed: DR 10, 11, 12 (3+2+1 ways) give 15, 16, 17 -> PTC;
    # DR 9 (4 ways) gives 14 -> NMC
    dist = warroom.odds("asl.ift", fp=36, drm=5, leader_directed=True)
    assert dist.probability(result="PTC") == F(6, 36)
    assert dist.probability(result="NMC") == F(4, 36)


def test_drm_parts_add_up() -> None:
    # woods +1, 2 hindrance hexes +2, FFMO cancelled by the hindrance, FFNAM -1,
    # leader -1, one flamethrower carried -1, extra +1: total +1
    r = warroom.roll("asl.ift", {"fp": 8, "terrain": "woods", "hindrance": 2, "ffmo": True,
                                 "ffnam": True, "leader_drm": -1, "ft_carried": 1,
                                 "drm": 1}, dice=[2, 3])
    assert r.outcome == {"result": "1MC", "column": 8, "final_dr": 6}
    text = " ".join(s.text.render() for s in r.steps)
    assert "(no FFMO: hindrance or positive TEM)" in text and "+1 TEM (woods)" in text
    # FFMO in the open counts -1: DR 5 -> 4 on the 8 column is 2MC
    r = warroom.roll("asl.ift", {"fp": 8, "terrain": "open", "ffmo": True,
                                 "leader_directed": True}, dice=[2, 3])
    assert r.outcome == {"result": "2MC", "column": 8, "final_dr": 4}
    # a stone building +3 given as terrain or as tem is the same
    a = warroom.odds("asl.ift", fp=8, terrain="stone_building")
    b = warroom.odds("asl.ift", fp=8, tem=3, terrain="stone_building")
    c = warroom.odds("asl.ift", fp=8, tem=3)
    assert a.weights == b.weights == c.weights


def test_grain_in_the_target_hex_and_no_ffmo() -> None:
    # ASLRB B5/B14: grain is TEM 0 but a +1 hindrance in the target's own hex, so FFMO
    # does not apply (A4.6): final DR = DR + 1 on the 8 column, leader directed (no
    # cowering). DR 2 -> 3 K/2 (1 way); 3, 4 -> 2MC (2+3); 5, 6 -> 1MC (4+5);
    # 7 -> 8 NMC (6); 8 -> 9 PTC (5); 9-12 -> 10+ "-" (4+3+2+1)
    dist = warroom.odds("asl.ift", fp=8, terrain="grain", ffmo=True, leader_directed=True)
    assert dist.marginal("result") == n36(K_2=1, MC_2=5, MC_1=9, NMC=6, PTC=5, none=10)
    # a positive TEM (woods +1) also cancels FFMO: the same odds
    assert warroom.odds("asl.ift", fp=8, terrain="woods", ffmo=True,
                        leader_directed=True).weights == dist.weights


def test_doubles_cower_at_the_table() -> None:
    # 3-3 on 4 FP: cowers to the 2 column, DR 6 -> PTC
    r = warroom.roll("asl.ift", {"fp": 4}, dice=[3, 3])
    assert r.outcome == {"result": "PTC", "column": 2, "final_dr": 6}
    assert any(s.rule == "asl.ift.cowering" for s in r.steps)
    # the same dice with a leader directing: the 4 column, DR 6 -> NMC
    r = warroom.roll("asl.ift", {"fp": 4, "leader_directed": True}, dice=[3, 3])
    assert r.outcome == {"result": "NMC", "column": 4, "final_dr": 6}
    assert not any(s.rule == "asl.ift.cowering" for s in r.steps)


def test_fp_defaults_to_8_when_neither_is_given() -> None:
    # a form or command with no firepower yet shows the common 8 FP column
    assert str(warroom.odds("asl.ift").params["fp"]) == "8"  # fractions print as text
    assert warroom.odds("asl.ift", gun_mm=75).params["fp"] is None


@pytest.mark.parametrize("params", [
    {"fp": None},                        # neither fp nor gun_mm
    {"fp": 4, "gun_mm": 75},             # both
    {"fp": -1},
    {"fp": 4, "terrain": "woods", "tem": 3},
    {"fp": 4, "terrain": "swamp"},
    {"fp": 4, "hindrance": 9},
])
def test_bad_parameters_are_usage_errors(params: dict[str, Any]) -> None:
    with pytest.raises(UsageError):
        warroom.odds("asl.ift", **params)


def test_cli_bad_parameters_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["odds", "asl.ift", "fp=8", "gun_mm=75"])
    _, err = capsys.readouterr()
    assert code == 2 and "exactly one of fp" in err and "Traceback" not in err


def test_story_of_an_ift_attack(capsys: pytest.CaptureFixture[str]) -> None:
    # 8 FP, +1 DRM, dice 2 and 3: DR 5, final 6 on the 8 column -> 1MC
    code = main(["roll", "asl.ift", "fp=8", "drm=1", "--dice", "2,3"])
    out, _ = capsys.readouterr()
    assert code == 0
    lines = [line.strip() for line in out.splitlines()]
    assert "1. 8 FP: fire on the 8 FP column" in lines
    assert "🎲 2 3" in lines
    assert "3. final DR 6 = original DR 5 +1 DRM" in lines
    assert "4. 8 FP column, final DR 6: 1MC" in lines
    assert "→ every unit fired on takes a morale check at +1" in lines
    assert "result = 1MC, column = 8, final_dr = 6" in out

