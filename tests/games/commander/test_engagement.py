"""bkc/cwc.engagement: fractions worked by hand, and an independent oracle composing
the game's own single-attack fire odds by hand (a chain over the unit's hits and
suppression within a turn, every turn starting afresh after the end phase)."""

from __future__ import annotations

from fractions import Fraction as F
from typing import Any

import pytest

import warroom

Key = tuple[bool, int, bool]  # destroyed, turn, suppressed


def engagement(pid: str, **raw: Any) -> dict[Key, F]:
    dist = warroom.odds(pid, **raw)
    assert dist.total() == 1
    out: dict[Key, F] = {}
    for o, p in dist.items():
        k = (o["destroyed"], o["turn"], o["suppressed"])
        out[k] = out.get(k, F(0)) + p
    return out


def test_one_die_one_hit_two_turns_by_hand() -> None:
    # one attack die at a unit in the open (4+: 1/2) with hits value 1: destroyed in
    # turn 1 with 1/2, in turn 2 with 1/2 * 1/2 = 1/4, survives both with 1/4 (no hit,
    # so not suppressed).
    assert engagement("bkc.engagement", attacks=1, hits_value=1, turns=2) == {
        (True, 1, False): F(1, 2), (True, 2, False): F(1, 4), (False, 2, False): F(1, 4)}


def test_two_attacks_in_a_turn_accumulate_by_hand() -> None:
    # hits value 2, two one-die attacks in one turn: destroyed when both hit: 1/4.
    # first hits, second misses (1/4): suppressed by the first hit's die (4+) half the
    # time: 1/8 suppressed, 1/8 not. First misses (1/2): the second hits (1/4),
    # suppressed half the time (1/8, 1/8), or misses too (1/4, not suppressed).
    # suppressed: 1/8 + 1/8 = 1/4; not: 1/8 + 1/8 + 1/4 = 1/2.
    assert engagement("bkc.engagement", attacks=1, hits_value=2, turns=1,
                      attacks_per_turn=2) == {
        (True, 1, False): F(1, 4), (False, 1, True): F(1, 4), (False, 1, False): F(1, 2)}


def test_the_end_phase_clears_hits_and_suppression() -> None:
    # the same two attacks in two turns: the hit of turn 1 is gone in turn 2, so one
    # die can never reach hits value 2; suppressed at the end only by turn 2's attack:
    # hit 1/2 * suppression 1/2 = 1/4.
    assert engagement("bkc.engagement", attacks=1, hits_value=2, turns=2) == {
        (False, 2, True): F(1, 4), (False, 2, False): F(3, 4)}


# ------------------------------------------------------------------------ the oracle
def _fire(pid: str, shot: dict[str, Any], hits: int, suppressed: bool
          ) -> dict[tuple[int, bool, bool], F]:
    """The game's own fire odds for one attack: (hits after, suppressed, destroyed)."""
    out: dict[tuple[int, bool, bool], F] = {}
    for o, p in warroom.odds(pid, existing_hits=hits, suppressed=suppressed,
                             **shot).items():
        k = (hits + o["hits"], o["suppressed"], o["destroyed"])
        out[k] = out.get(k, F(0)) + p
    return out


def _oracle(pid: str, shot: dict[str, Any], turns: int, k: int) -> dict[Key, F]:
    """Attack by attack within a turn over (hits, suppressed); the survivors of a turn
    start the next one with no hits and not suppressed."""
    ended: dict[Key, F] = {}
    base = {n: v for n, v in shot.items() if n not in ("existing_hits", "suppressed")}
    states = {(shot.get("existing_hits", 0), shot.get("suppressed", False)): F(1)}
    for turn in range(1, turns + 1):
        if turn > 1:
            states = {(0, False): sum(states.values(), F(0))}
        for _ in range(k):
            nxt: dict[tuple[int, bool], F] = {}
            for (h, s), w in states.items():
                for (h2, s2, dead), p in _fire(pid, base, h, s).items():
                    if dead:
                        key: Key = (True, turn, False)
                        ended[key] = ended.get(key, F(0)) + w * p
                    else:
                        nxt[h2, s2] = nxt.get((h2, s2), F(0)) + w * p
            states = nxt
    for (_, s), w in states.items():
        key = (False, turns, s)
        ended[key] = ended.get(key, F(0)) + w
    return {kk: p for kk, p in ended.items() if p}


CASES: list[tuple[str, dict[str, Any], int, int]] = [
    ("bkc.engagement", {"attacks": 3, "hits_value": 3}, 3, 1),
    ("bkc.engagement", {"attacks": 4, "hits_value": 4, "save": 5, "armoured": True,
                        "cover": "cover"}, 2, 2),
    ("bkc.engagement", {"attacks": 2, "hits_value": 3, "existing_hits": 1,
                        "suppressed": True}, 3, 2),
    ("cwc.engagement", {"attacks": 3, "hits_value": 3, "cover": "light"}, 4, 1),
    ("cwc.engagement", {"attacks": 2, "hits_value": 2, "dug_in": True}, 2, 3),
]


@pytest.mark.parametrize(("pid", "shot", "turns", "k"), CASES)
def test_agrees_with_the_fire_procedure_composed_by_hand(pid: str, shot: dict[str, Any],
                                                         turns: int, k: int) -> None:
    assert engagement(pid, turns=turns, attacks_per_turn=k, **shot) == \
        _oracle(pid.replace("engagement", "fire"), shot, turns, k)


def test_large_engagements_refuse_exact_odds_at_once() -> None:
    # 60 dice, 4 attacks a turn, hits value 10: about 11 s of exact work, measured;
    # the cost estimate refuses before spending it (the product then estimates)
    from warroom.errors import ExactTooLargeError

    with pytest.raises(ExactTooLargeError):
        warroom.odds("cwc.engagement", attacks=60, attacks_per_turn=4, hits_value=10, exact=True)
    # one attack a turn stays exact whatever the dice
    assert warroom.odds("cwc.engagement", attacks=60, hits_value=10).total() == 1


@pytest.mark.parametrize(("pid", "params"), [
    ("bkc.engagement", {"attacks": 1, "hits_value": 2, "turns": 2}),
    ("cwc.engagement", {"attacks": 1, "hits_value": 2, "attacks_per_turn": 2, "turns": 1,
                        "save": 5})])
def test_exact_odds_are_every_typed_roll_counted(pid: str, params: dict[str, Any]) -> None:
    from tests.helpers import replay_oracle

    d = warroom.odds(pid, **params)
    assert replay_oracle(pid, params, limit=9) == {
        k: F(w, d.denominator) for k, w in d.weights.items()}
