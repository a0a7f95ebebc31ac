"""Fire and assault against a brute-force oracle: every ordered roll of a handful of
dice, consumed in the order the table rolls them (unused dice change nothing)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from fractions import Fraction as F
from typing import Any

import pytest

import warroom
from tests.helpers import brute_force


def dist(proc: str, fields: tuple[str, ...], **params: Any) -> dict[Any, F]:
    d = warroom.odds(proc, **params)
    out: dict[Any, F] = {}
    for outcome, p in d.items():
        key = tuple(outcome[f] for f in fields)
        out[key] = out.get(key, F(0)) + p
    return out


class _Need(Exception):
    """The rule asked for a die beyond the path being replayed."""


class _Path:
    def __init__(self, faces: tuple[int, ...]) -> None:
        self.faces = faces
        self.pos = 0

    def __iter__(self) -> _Path:
        return self

    def __next__(self) -> int:
        if self.pos == len(self.faces):
            raise _Need
        self.pos += 1
        return self.faces[self.pos - 1]


def oracle(rule: Callable[[Iterator[int]], tuple[Any, ...]]) -> dict[Any, F]:
    """Every sequence of the dice the rule actually rolls, each face 1/6 (no driver)."""
    out: dict[Any, F] = {}
    stack: list[tuple[int, ...]] = [()]
    while stack:
        faces = stack.pop()
        try:
            key = rule(_Path(faces))
        except _Need:
            stack.extend((*faces, f) for f in range(1, 7))
            continue
        out[key] = out.get(key, F(0)) + F(1, 6 ** len(faces))
    return out


def test_oracle_agrees_with_brute_force() -> None:
    # one attack die, a save die, a retreat die and a damage die at most
    rule = fire_rule(1, 4, 5, 5, 3, True, True)
    assert oracle(rule) == brute_force(4, lambda faces: rule(iter(faces)))


def fire_rule(attacks: int, at: int, save: int, hits_value: int, existing: int,
              suppressed: bool, armoured: bool) -> Callable[[Iterator[int]], tuple[Any, ...]]:
    """The card's eight steps written out plainly, for BKC (damage on armour)."""

    def rule(dice: Iterator[int]) -> tuple[Any, ...]:
        hits = sum(1 for _ in range(attacks) if next(dice) >= at)
        if save and hits:
            hits -= sum(1 for _ in range(hits) if next(dice) >= save)
        total = existing + hits
        destroyed, sup, retreat, damage = False, suppressed, 0, "none"
        if total >= hits_value:
            return hits, True, False, 0, "none"
        if hits and not suppressed:
            sup = max(next(dice) for _ in range(hits)) >= at
        elif hits:
            retreat = sum(next(dice) for _ in range(hits))
            if retreat > 10:
                destroyed, sup = True, False
        if armoured and not destroyed and existing < 4 <= total:
            damage = {1: "none", 2: "half_move", 3: "half_move", 4: "half_range",
                      5: "half_range", 6: "command_minus_1"}[next(dice)]
        return hits, destroyed, sup, retreat, damage

    return rule


FIELDS = ("hits", "destroyed", "suppressed", "retreat_cm", "damage")


@pytest.mark.parametrize("suppressed", [False, True])
def test_bkc_fire_matches_oracle(suppressed: bool) -> None:
    # 2 attacks at 4+ on armour with a 5+ save, 3 hits already, hits value 5
    got = dist("bkc.fire", FIELDS, attacks=2, armoured=True, save=5, existing_hits=3,
               hits_value=5, suppressed=suppressed)
    want = oracle(fire_rule(2, 4, 5, 5, 3, suppressed, True))
    assert got == want


def test_cwc_fire_in_light_cover_matches_oracle() -> None:
    got = dist("cwc.fire", FIELDS[:4], attacks=2, cover="light", save=6, hits_value=4,
               suppressed=True)
    rule = fire_rule(2, 5, 6, 4, 0, True, False)
    want = oracle(lambda dice: rule(dice)[:4])
    assert got == want


def assault_rule(game: str) -> Callable[[Iterator[int]], tuple[Any, ...]]:
    """Two dice a side at 4+ ("other" against "other" in the open)."""

    def rule(dice: Iterator[int]) -> tuple[Any, ...]:
        a = sum(1 for _ in range(2) if next(dice) >= 4)
        b = sum(1 for _ in range(2) if next(dice) >= 4)
        if a == b:
            if game == "bkc":
                return "draw", a, b, sum(next(dice) for _ in range(3)), "both_fall_back"
            return "draw", a, b, 0, "another_round"
        win, lose = max(a, b), min(a, b)
        who = "attacker" if a > b else "defender"
        if game == "cwc":
            result = "loser_eliminated" if win >= 2 * lose else "loser_retreats"
            return who, a, b, 0, result
        return who, a, b, win - lose, "loser_retreats"

    return rule


@pytest.mark.parametrize("game", ["bkc", "cwc"])
def test_assault_matches_oracle(game: str) -> None:
    fields = ("winner", "attacker_hits", "defender_hits", "retreat_cm", "result")
    rounds = {"max_rounds": 1} if game == "cwc" else {}
    got = dist(f"{game}.assault", fields, attacker="other", defender="other", **rounds)
    assert got == oracle(assault_rule(game))
