"""The IFT data against the card, cell by cell.

The expected grid below is typed again from the card (seed 001), independently of
src/warroom/games/asl/tables.py, with the scan read as the brief says: IKIA -> 1KIA,
IMC -> 1MC, 2KJA/2KTA -> 2KIA, "1 KIA" -> 1KIA, an em dash -> "-".
"""

from __future__ import annotations

import pytest

from warroom.games.asl import tables as T

COLUMNS = [1, 2, 4, 6, 8, 12, 16, 20, 24, 30, 36]
D = "-"
# one list per row: DR <=0, 1, 2, ... 14, >=15; one entry per column above
CARD = [
    ["1KIA", "2KIA", "2KIA", "3KIA", "3KIA", "3KIA", "4KIA", "4KIA", "5KIA", "6KIA", "7KIA"],
    ["K/1", "1KIA", "1KIA", "2KIA", "2KIA", "2KIA", "3KIA", "3KIA", "4KIA", "5KIA", "6KIA"],
    ["1MC", "K/1", "K/2", "1KIA", "1KIA", "1KIA", "2KIA", "2KIA", "3KIA", "4KIA", "5KIA"],
    ["1MC", "1MC", "2MC", "K/2", "K/2", "K/3", "1KIA", "1KIA", "2KIA", "3KIA", "4KIA"],
    ["NMC", "1MC", "1MC", "2MC", "2MC", "3MC", "K/3", "K/4", "1KIA", "2KIA", "3KIA"],
    ["PTC", "NMC", "1MC", "1MC", "2MC", "2MC", "3MC", "4MC", "K/4", "1KIA", "2KIA"],
    [D, "PTC", "NMC", "1MC", "1MC", "2MC", "2MC", "3MC", "4MC", "K/4", "1KIA"],
    [D, D, "PTC", "NMC", "1MC", "1MC", "2MC", "2MC", "3MC", "4MC", "K/4"],
    [D, D, D, "PTC", "NMC", "1MC", "1MC", "2MC", "2MC", "3MC", "4MC"],
    [D, D, D, D, "PTC", "NMC", "1MC", "1MC", "2MC", "2MC", "3MC"],
    [D, D, D, D, D, "PTC", "NMC", "1MC", "1MC", "2MC", "2MC"],
    [D, D, D, D, D, D, "PTC", "NMC", "1MC", "1MC", "2MC"],
    [D, D, D, D, D, D, D, "PTC", "NMC", "1MC", "1MC"],
    [D, D, D, D, D, D, D, D, "PTC", "NMC", "1MC"],
    [D, D, D, D, D, D, D, D, D, "PTC", "NMC"],
    [D, D, D, D, D, D, D, D, D, D, "PTC"],
]


def test_shape_is_16_rows_by_11_columns() -> None:
    grid = T.ift_grid()
    assert list(T.IFT_COLUMNS) == COLUMNS
    assert sorted(grid) == list(range(16))
    assert all(list(grid[r]) == COLUMNS for r in grid)


@pytest.mark.parametrize("row", range(16))
def test_every_cell_matches_the_card(row: int) -> None:
    for col, expected in zip(COLUMNS, CARD[row], strict=True):
        assert T.ift_grid()[row][col] == expected, (row, col)


def test_final_dr_beyond_the_rows() -> None:
    # <= 0 reads the top row, >= 15 the bottom one
    assert T.ift_lookup(36, -4) == "7KIA" == T.ift_lookup(36, 0)
    assert T.ift_lookup(36, 15) == "PTC" == T.ift_lookup(36, 22)
    assert T.ift_lookup(30, 15) == "-"


def test_every_declared_result_occurs_in_the_table() -> None:
    seen = {cell for row in T.ift_grid().values() for cell in row.values()}
    assert seen == set(T.IFT_RESULTS)


@pytest.mark.parametrize(("fp", "col"), [
    (0.5, 0), (1, 1), (1.5, 1), (2, 2), (3, 2), (3.5, 2), (4, 4), (5, 4), (6, 6), (7, 6),
    (8, 8), (11, 8), (12, 12), (15, 12), (16, 16), (19, 16), (20, 20), (23, 20), (24, 24),
    (29, 24), (30, 30), (35, 30), (36, 36), (37, 36), (100, 36),
])
def test_fp_between_columns_uses_the_next_lower(fp: float, col: int) -> None:
    from fractions import Fraction

    assert T.fp_column(Fraction(fp)) == col


@pytest.mark.parametrize(("mm", "col"), [
    (19, 0), (20, 1), (25, 1), (30, 2), (35, 2), (37, 4), (45, 4), (50, 6), (57, 6),
    (60, 8), (65, 8), (70, 12), (75, 12), (76, 12), (80, 16), (88, 16), (100, 20),
    (105, 20), (120, 24), (122, 24), (150, 30), (155, 30), (200, 36), (203, 36), (280, 36),
])
def test_gun_calibre_columns(mm: int, col: int) -> None:
    assert T.gun_column(mm)[0] == col


@pytest.mark.parametrize(("attack", "defense", "odds", "kill"), [
    (1, 9, "<1-8", 0), (1, 8, "1-8", 1), (1, 7, "1-8", 1), (1, 6, "1-6", 2),
    (1, 5, "1-6", 2), (1, 4, "1-4", 3), (1, 3, "1-4", 3), (1, 2, "1-2", 4),
    (2, 3, "1-2", 4), (1, 1, "1-1", 5), (4, 3, "1-1", 5), (3, 2, "3-2", 6),
    (5, 3, "3-2", 6), (2, 1, "2-1", 7), (5, 2, "2-1", 7), (3, 1, "3-1", 8),
    (7, 2, "3-1", 8), (4, 1, "4-1", 9), (5, 1, "4-1", 9), (6, 1, "6-1", 10),
    (7, 1, "6-1", 10), (8, 1, "8-1", 11), (9, 1, "8-1", 11), (10, 1, "10-1", 12),
    (21, 2, "10-1", 12), (22, 2, ">10-1", 13), (11, 1, ">10-1", 13), (40, 1, ">10-1", 13),
])
def test_cct_columns_round_down_for_the_defender(attack: int, defense: int, odds: str,
                                                 kill: int) -> None:
    from fractions import Fraction

    assert T.cct_column(Fraction(attack), Fraction(defense)) == (odds, kill)


def test_sequence_of_play_in_order() -> None:
    abbrs = [abbr.split(" ")[0] for _, abbr, _ in T.SEQUENCE_OF_PLAY]
    assert abbrs == ["RPh", "PFPh", "MPh", "MPh", "DFPh", "AFPh", "RtPh", "APh", "CCPh"]
    assert "Defensive First Fire" in T.SEQUENCE_OF_PLAY[3][1]


def test_rules_show_the_tables_and_sequence_of_play(capsys: pytest.CaptureFixture[str]
                                                    ) -> None:
    import json

    from warroom.cli import main

    assert main(["rules", "asl"]) == 0
    out, _ = capsys.readouterr()
    for word in ("RPh", "PFPh", "MPh", "Defensive First Fire", "DFPh", "AFPh", "RtPh",
                 "APh", "CCPh", "7KIA", ">10-1", "asl.ift_on_stack", "asl.ambush"):
        assert word in out, word
    assert main(["rules", "asl", "--json"]) == 0
    data = json.loads(capsys.readouterr()[0])[0]
    assert {p["id"] for p in data["procedures"]} == {
        "asl.ift", "asl.mc", "asl.ift_on_stack", "asl.fire_group", "asl.rally",
        "asl.leader_wound", "asl.cct", "asl.ambush"}
    assert data["tables"]["cct"][">10-1"] == 13
    assert len(data["tables"]["ift"]) == 18  # two header lines and 16 DR rows


@pytest.mark.parametrize(("lang", "words"), [
    ("zh", ("回合流程", "3.5 AFPh：前进射击阶段", "最后骰数 < 消灭骰数",
            "突击射击（前进射击阶段，远程射击除外）", "步兵射击表（IFT）",
            "地域射击（每项", "退缩（对子", "FFMO（在空地上移动）",
            "火炮毫米", "长官负伤", "已负伤则 +1")),
    ("pl", ("kolejność faz", "3.8 CCPh: faza walki wręcz", "końcowy DR < liczba zabicia",
            "ogień szturmowy (AFPh, nie na dużym zasięgu)", "budynek kamienny")),
])
def test_rules_tables_in_the_readers_language(lang: str, words: tuple[str, ...],
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """The Tables part of ``rules asl`` goes through the catalogs: names, keys, texts."""
    from warroom.cli import main

    assert main(["--lang", lang, "rules", "asl"]) == 0
    out = " ".join(capsys.readouterr()[0].split())
    heading = {"zh": "表格", "pl": "Tabele"}[lang]  # the heading itself is translated
    tables = out[out.rindex(heading):]
    for word in words:
        assert " ".join(word.split()) in tables, word
    if lang == "zh":
        # the card's own words: one word for the final DR (最后骰数, never 最终骰数: that
        # is only Final Fire, 最终射击), 退缩 for cowering, 地域射击 for area fire
        for other in ("最终骰数", "击杀数", "畏缩", "区域射击", "缺乏经验"):
            assert other not in out, other
    for english in ("sequence_of_play", "Rally Phase", "final DR < kill number",
                    "assault fire (AFPh", "if already wounded", "wooden_building"):
        assert english not in tables, english
