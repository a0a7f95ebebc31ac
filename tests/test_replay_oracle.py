"""The exact driver against the roll driver, rule by rule: every sequence of d6 a player
could type in at the table, each weighing 6**-k, must give exactly the exact odds.

Small questions only (the oracle makes 6**dice rolls), and rules that roll only d6."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

import warroom
from tests.helpers import replay_oracle

CASES: list[tuple[str, dict[str, Any]]] = [
    ("demo.pool", {"dice": 3, "reroll": "misses"}),
    ("fow.test", {"kind": "motivation", "rating": "confident", "reroll": True}),
    ("fow.shoot", {"dice": 2, "teams": 2, "target": "tank", "armour": 3, "at": 6,
                   "firepower": 4}),
    ("fow.artillery", {"guns": 1, "teams": 1}),
    ("fow.assault", {"attackers": 1, "defenders": 1, "max_rounds": 1, "defensive_dice": 1}),
    ("fow.passengers", {}),
    ("asl.ift", {"fp": 8, "drm": 1}),
    ("bkc.command", {"cv": 8}),
    ("cwc.fire", {"attacks": 2, "hits_value": 2, "save": 5}),
]


@pytest.mark.parametrize(("procedure", "params"), CASES, ids=[c[0] for c in CASES])
def test_exact_odds_are_every_typed_roll_counted(procedure: str, params: dict[str, Any]
                                                 ) -> None:
    d = warroom.odds(procedure, **params)
    assert replay_oracle(procedure, params, limit=9) == {
        k: Fraction(w, d.denominator) for k, w in d.weights.items()}
