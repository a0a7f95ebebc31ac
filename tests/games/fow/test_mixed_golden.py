"""fow.shoot_mixed exact odds pinned to the fractions the engine gave before the exact
odds were sped up (issue #17): any faster way to work them out must give exactly these.

The cases cover gun-tank declarations, bunker busters that moved, priority types (the
platoon's and a weapon's own), far weapons and teams, hits_before, special rules and the
benchmark's 3 weapons x 12 dice at 8 mixed teams. The fractions were recorded from the
per-path implementation; the hand-worked cases in test_mixed.py check the rules
themselves."""

from __future__ import annotations

import json
from fractions import Fraction as F
from pathlib import Path
from typing import Any

import pytest

import warroom

GOLDEN: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "test_mixed_golden.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", GOLDEN, ids=lambda c: c["params"]["weapons"])
def test_exact_odds_are_the_recorded_fractions(case: dict[str, Any]) -> None:
    dist = warroom.odds("fow.shoot_mixed", **case["params"])
    got = sorted([o["hits"], o["destroyed"], o["bailed_out"], o["pinned"], p]
                 for o, p in dist.items())
    want = [[*row[:4], F(row[4])] for row in case["odds"]]
    assert got == want
    assert sum(p for *_, p in got) == 1
