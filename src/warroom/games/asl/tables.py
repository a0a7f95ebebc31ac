"""ASL data from the ASL reference card: the IFT, the CCT, the gun-calibre
header, terrain effects and the sequence of play.

Everything is built on first use (``functools.cache``), never at import time.
The IFT grid is kept as text in the card's layout, one line per DR row, so it can be
compared with the card by eye; ``ift_grid()`` parses it once.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from typing import Any

# FP columns of the IFT, left to right.
IFT_COLUMNS: tuple[int, ...] = (1, 2, 4, 6, 8, 12, 16, 20, 24, 30, 36)

# Gun calibre (mm) heading each column, as printed above the FP figures.
# "200+" heads the 36 column; a calibre in between reads the lower column.
GUN_HEADER: tuple[tuple[int, int], ...] = (
    (20, 1), (30, 2), (37, 4), (50, 6), (60, 8), (70, 12),
    (80, 16), (100, 20), (120, 24), (150, 30), (200, 36),
)

# Rows: final DR <= 0, 1 .. 14, >= 15. "-" is no effect.
_IFT_TEXT = """
<=0  1KIA 2KIA 2KIA 3KIA 3KIA 3KIA 4KIA 4KIA 5KIA 6KIA 7KIA
1    K/1  1KIA 1KIA 2KIA 2KIA 2KIA 3KIA 3KIA 4KIA 5KIA 6KIA
2    1MC  K/1  K/2  1KIA 1KIA 1KIA 2KIA 2KIA 3KIA 4KIA 5KIA
3    1MC  1MC  2MC  K/2  K/2  K/3  1KIA 1KIA 2KIA 3KIA 4KIA
4    NMC  1MC  1MC  2MC  2MC  3MC  K/3  K/4  1KIA 2KIA 3KIA
5    PTC  NMC  1MC  1MC  2MC  2MC  3MC  4MC  K/4  1KIA 2KIA
6    -    PTC  NMC  1MC  1MC  2MC  2MC  3MC  4MC  K/4  1KIA
7    -    -    PTC  NMC  1MC  1MC  2MC  2MC  3MC  4MC  K/4
8    -    -    -    PTC  NMC  1MC  1MC  2MC  2MC  3MC  4MC
9    -    -    -    -    PTC  NMC  1MC  1MC  2MC  2MC  3MC
10   -    -    -    -    -    PTC  NMC  1MC  1MC  2MC  2MC
11   -    -    -    -    -    -    PTC  NMC  1MC  1MC  2MC
12   -    -    -    -    -    -    -    PTC  NMC  1MC  1MC
13   -    -    -    -    -    -    -    -    PTC  NMC  1MC
14   -    -    -    -    -    -    -    -    -    PTC  NMC
>=15 -    -    -    -    -    -    -    -    -    -    PTC
"""

IFT_RESULTS: tuple[str, ...] = (
    *(f"{n}KIA" for n in range(1, 8)),
    *(f"K/{n}" for n in range(1, 5)),
    *(f"{n}MC" for n in range(1, 5)),
    "NMC",
    "PTC",
    "-",
)
"""Every result the IFT can give (the ``result`` field's values)."""

IFT_ROW_LABELS: tuple[str, ...] = ("<=0", *(str(r) for r in range(1, 15)), ">=15")


@cache
def ift_grid() -> dict[int, dict[int, str]]:
    """``grid[row][column]``: row 0 is "DR <= 0", row 15 is "DR >= 15"."""
    grid: dict[int, dict[int, str]] = {}
    for row, line in enumerate(line for line in _IFT_TEXT.splitlines() if line.strip()):
        label, *cells = line.split()
        if label != IFT_ROW_LABELS[row] or len(cells) != len(IFT_COLUMNS):
            raise AssertionError(f"IFT data row {row} is malformed: {line!r}")
        for cell in cells:
            if cell not in IFT_RESULTS:
                raise AssertionError(f"IFT cell {cell!r} is not a known result")
        grid[row] = dict(zip(IFT_COLUMNS, cells, strict=True))
    return grid


def ift_row(final_dr: int) -> int:
    """The row a final DR reads: <= 0 reads the top row, >= 15 the bottom one."""
    return 0 if final_dr <= 0 else 15 if final_dr >= 15 else final_dr


def ift_lookup(column: int, final_dr: int) -> str:
    return ift_grid()[ift_row(final_dr)][column]


def fp_column(fp: Fraction) -> int:
    """The FP column for a (possibly fractional) firepower: the next lower column when
    in between, 36 above 36; 0 means less than 1 FP (no column)."""
    col = 0
    for c in IFT_COLUMNS:
        if fp >= c:
            col = c
    return col


def gun_column(mm: int) -> tuple[int, int]:
    """(column, header calibre read) for a gun of ``mm``; (0, 0) below 20mm."""
    col = 0
    read = 0
    for cal, c in GUN_HEADER:
        if mm >= cal:
            col, read = c, cal
    return col, read


def shift_left(column: int, shifts: int) -> int:
    """The column ``shifts`` places to the left; 0 when that runs off the table."""
    i = IFT_COLUMNS.index(column) - shifts
    return IFT_COLUMNS[i] if i >= 0 else 0


# Terrain Effects Modifier of the target's location, as the card lists it.
TERRAIN_TEM: dict[str, int] = {
    "open": 0,
    "road": 0,
    "grain": 0,
    "orchard": 0,
    "woods": 1,
    "wooden_building": 2,
    "stone_building": 3,
}

# A hindrance in the target's own hex (grain, orchard: +1), besides its TEM of 0.
TERRAIN_HINDRANCE: dict[str, int] = {"grain": 1, "orchard": 1}

# Close Combat Table: odds column, its ratio (attacker/defender), kill number.
CCT_COLUMNS: tuple[tuple[str, Fraction | None, int], ...] = (
    ("<1-8", None, 0),
    ("1-8", Fraction(1, 8), 1),
    ("1-6", Fraction(1, 6), 2),
    ("1-4", Fraction(1, 4), 3),
    ("1-2", Fraction(1, 2), 4),
    ("1-1", Fraction(1), 5),
    ("3-2", Fraction(3, 2), 6),
    ("2-1", Fraction(2), 7),
    ("3-1", Fraction(3), 8),
    ("4-1", Fraction(4), 9),
    ("6-1", Fraction(6), 10),
    ("8-1", Fraction(8), 11),
    ("10-1", Fraction(10), 12),
    (">10-1", None, 13),
)
CCT_ODDS: tuple[str, ...] = tuple(name for name, _, _ in CCT_COLUMNS)


def cct_column(attack: Fraction, defense: Fraction) -> tuple[str, int]:
    """(odds column, kill number): odds rounded down, in the defender's favour (21 FP
    against 2 is 10-1, not >10-1)."""
    ratio = attack / defense
    if ratio >= 11:
        return CCT_COLUMNS[-1][0], CCT_COLUMNS[-1][2]
    name, kill = CCT_COLUMNS[0][0], CCT_COLUMNS[0][2]
    for col, r, k in CCT_COLUMNS[1:-1]:
        if r is not None and ratio >= r:
            name, kill = col, k
    return name, kill


SEQUENCE_OF_PLAY: tuple[tuple[str, str, str], ...] = (
    ("3.1", "RPh", "Rally Phase: broken units try to rally, reinforcements arrive"),
    ("3.2", "PFPh", "Preparatory Fire Phase: the attacker fires units that will not move"),
    ("3.3", "MPh", "Movement Phase: the attacker moves"),
    ("3.3.1", "MPh / Defensive First Fire",
     "during the attacker's moves the defender may fire at a moving unit"),
    ("3.4", "DFPh", "Defensive Fire Phase: the defender fires units that have not fired"),
    ("3.5", "AFPh", "Advancing Fire Phase: the attacker's units that moved fire, halved"),
    ("3.6", "RtPh", "Rout Phase: broken units must rout away from the enemy"),
    ("3.7", "APh", "Advance Phase: the attacker advances one hex, maybe into Close Combat"),
    ("3.8", "CCPh", "Close Combat Phase: units in the same location fight it out"),
)


def tables() -> dict[str, Any]:
    """The data shown by ``warroom rules asl``."""
    grid = ift_grid()
    ift_rows = [
        f"{'FP':>8} " + " ".join(f"{c:>4}" for c in IFT_COLUMNS),
        f"{'gun mm':>8} " + " ".join(f"{mm if mm < 200 else '200+':>4}" for mm, _ in GUN_HEADER),
    ]
    for row in range(16):
        ift_rows.append(f"DR {IFT_ROW_LABELS[row]:>4}: " + " ".join(f"{c:>4}"
                                                               for c in grid[row].values()))
    return {
        "sequence_of_play": [f"{num} {abbr}: {text}" for num, abbr, text in SEQUENCE_OF_PLAY],
        "ift": ift_rows,
        "ift_drm": {
            "FFMO (moving in open ground)": -1,
            "FFNAM (moving, not assault movement)": -1,
            "hindrance, per hex (cancels FFMO)": "+1",
            "grain or orchard in the target's own hex (hindrance, cancels FFMO)": "+1",
            "leader-directed fire": "leader's DRM",
            "flamethrower carried by the target, each": -1,
            "TEM": {k: v for k, v in TERRAIN_TEM.items()},
        },
        "ift_fp_modifications": {
            "area fire (each cause: pinned firer, AFPh, long range, first/final fire)":
                "x1/2",
            "assault fire (AFPh, not at long range)": "round up, +1 per unit",
            "point-blank fire (adjacent target)": "x2",
            "cowering (doubles, not leader-directed)": "1 column left (2 if inexperienced)",
        },
        "cct": {name: kill for name, _, kill in CCT_COLUMNS},
        "cct_result": {
            "final DR < kill number": "the defenders are eliminated",
            "final DR = kill number": "Partial Kill: one defender (Random Selection) "
                                      "suffers casualty reduction",
        },
        "cct_modifiers": {
            "ambusher / ambushed (not in melee)": "-1 / +1 DR",
            "pinned attacker (not a defender)": "FP x1/2",
            "CX attacker / attacking a CX unit": "+1 / -1 DR",
            "attacking broken units": "-2 DR",
            "leadership (not for a leader alone)": "leader's DRM",
        },
        "ambush": {
            "when": "Infantry advancing into woods or a building for Close Combat",
            "rule": "each side rolls a dr; an ambush if one side's final dr is 3+ lower",
            "dr modifiers": "+1 inexperienced, +1 pinned, +1 CX, + leader's DRM",
        },
        "leader_wound": {
            "dr 1-4": "wounded",
            "dr 5+": "killed; after the attack the units of lower morale with him take a "
                     "Leader Loss MC",
            "drm": "+1 if already wounded",
        },
    }
