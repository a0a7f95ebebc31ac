"""fow.engagement: fractions worked by hand for tiny platoons, and an independent
oracle: a Markov chain over the teams left, built in this test from fow.shoot's own
single-turn exact odds and the card's platoon morale check, composed by hand."""

from __future__ import annotations

from fractions import Fraction as F
from typing import Any

import pytest

import warroom
from warroom.errors import UsageError

Key = tuple[bool, bool, int, int]  # destroyed, broken, turn, teams_left


def engagement(**raw: Any) -> dict[Key, F]:
    dist = warroom.odds("fow.engagement", **raw)
    assert dist.total() == 1
    out: dict[Key, F] = {}
    for o, p in dist.items():
        k = (o["destroyed"], o["broken"], o["turn"], o["teams_left"])
        out[k] = out.get(k, F(0)) + p
    return out


def test_one_team_two_turns_by_hand() -> None:
    # 1 die at a trained infantry team: hits on 3+ (2/3), the save 3+ fails 1/3, so the
    # team is destroyed with 2/3 * 1/3 = 2/9 each turn. One team never tests morale
    # (nothing is left to test once it is gone).
    # turn 1: destroyed 2/9; turn 2: 7/9 * 2/9 = 14/81; holds both turns: 49/81.
    assert engagement(dice=1, teams=1, turns=2) == {
        (True, False, 1, 0): F(2, 9), (True, False, 2, 0): F(14, 81),
        (False, False, 2, 1): F(49, 81)}


def test_two_teams_of_three_with_morale_by_hand() -> None:
    # 2 teams left of 3 at the start, 1 die (a team lost with 2/9 as above, at most one
    # per turn). Losing one leaves 1 of 3, below half: a confident motivation test,
    # passed on 4+ (1/2), or the platoon breaks.
    # turn 1: loss 2/9 -> broken 1/9 (turn 1, 1 left), holds 1/9 with 1 team;
    #         no loss 7/9 with 2 teams.
    # turn 2 from 1 team (1/9): destroyed 1/9 * 2/9 = 2/81; holds 1/9 * 7/9 = 7/81
    #         (no loss this turn: no test).
    # turn 2 from 2 teams (7/9): loss 7/9 * 2/9 = 14/81 -> broken 7/81, holds 7/81 with 1;
    #         no loss 49/81 with 2.
    assert engagement(dice=1, teams=2, start_teams=3, turns=2) == {
        (False, True, 1, 1): F(9, 81), (True, False, 2, 0): F(2, 81),
        (False, False, 2, 1): F(14, 81), (False, True, 2, 1): F(7, 81),
        (False, False, 2, 2): F(49, 81)}


def test_at_half_strength_no_test() -> None:
    # 2 teams of 2 losing one: 1 of 2 is half, not below it (card: below half), so no
    # test: with 1 die nothing can break in one turn; lost with 2/9.
    assert engagement(dice=1, teams=2, turns=1) == {
        (False, False, 1, 1): F(2, 9), (False, False, 1, 2): F(7, 9)}


def test_reroll_and_fearless_change_the_morale_test_only() -> None:
    # as the hand-worked case's first turn: loss 2/9, then the test. Fearless passes on
    # 3+ (2/3), so it breaks with 2/9 * 1/3 = 2/27; confident with a re-roll fails
    # 1/2 * 1/2 = 1/4: 2/9 * 1/4 = 1/18.
    def broken(**kw: Any) -> F:
        return sum((p for k, p in engagement(dice=1, teams=2, start_teams=3, turns=1,
                                             **kw).items() if k[1]), F(0))
    assert broken(motivation="fearless") == F(2, 27)
    assert broken(reroll=True) == F(1, 18)


# ------------------------------------------------------------------------ the oracle
def _shot_losses(shot: dict[str, Any], teams: int) -> dict[int, F]:
    """fow.shoot's own single-turn odds: teams lost (destroyed or bailed out)."""
    out: dict[int, F] = {}
    for o, p in warroom.odds("fow.shoot", teams=teams, **shot).items():
        k = o["destroyed"] + o["bailed_out"]
        out[k] = out.get(k, F(0)) + p
    return out


PASS = {"reluctant": F(1, 3), "confident": F(1, 2), "fearless": F(2, 3)}  # 5+, 4+, 3+


def _oracle(shot: dict[str, Any], teams: int, start: int, turns: int,
            motivation: str, reroll: bool) -> dict[Key, F]:
    """A Markov chain over the teams left, turn by turn."""
    passed = PASS[motivation]
    if reroll:
        passed = 1 - (1 - passed) ** 2
    alive: dict[int, F] = {teams: F(1)}
    ended: dict[Key, F] = {}
    for turn in range(1, turns + 1):
        nxt: dict[int, F] = {}
        for n, pn in alive.items():
            for lost, pl in _shot_losses(shot, n).items():
                left, w = n - lost, pn * pl
                if left == 0:
                    key: Key = (True, False, turn, 0)
                    ended[key] = ended.get(key, F(0)) + w
                elif lost and 2 * left < start:
                    key = (False, True, turn, left)
                    ended[key] = ended.get(key, F(0)) + w * (1 - passed)
                    nxt[left] = nxt.get(left, F(0)) + w * passed
                else:
                    nxt[left] = nxt.get(left, F(0)) + w
        alive = nxt
    for n, pn in alive.items():
        key = (False, False, turns, n)
        ended[key] = ended.get(key, F(0)) + pn
    return {k: p for k, p in ended.items() if p}


CASES: list[tuple[dict[str, Any], int, int, int, str, bool]] = [
    ({"dice": 3}, 3, 3, 3, "confident", False),
    ({"dice": 4, "concealed": True}, 4, 6, 3, "reluctant", False),
    ({"dice": 6, "target": "tank", "armour": 2, "at": 7, "firepower": 3}, 5, 5, 4,
     "fearless", False),
    ({"dice": 5, "target": "gun", "dug_in": True, "firepower": 4}, 4, 4, 5,
     "confident", True),
    ({"dice": 8, "range_cm": 50, "target_skill": "veteran"}, 6, 8, 3, "confident", False),
    ({"dice": 2, "target": "soft"}, 2, 2, 5, "reluctant", False),
]


@pytest.mark.parametrize(("shot", "teams", "start", "turns", "motivation", "reroll"), CASES)
def test_agrees_with_a_markov_chain_over_fow_shoot(shot: dict[str, Any], teams: int,
                                                   start: int, turns: int, motivation: str,
                                                   reroll: bool) -> None:
    got = engagement(teams=teams, start_teams=start, turns=turns, motivation=motivation,
                     reroll=reroll, **shot)
    assert got == _oracle(shot, teams, start, turns, motivation, reroll)


def test_more_turns_never_lower_the_odds_of_the_end() -> None:
    def gone(turns: int) -> F:
        return sum((p for k, p in engagement(dice=4, teams=4, turns=turns).items()
                    if k[0] or k[1]), F(0))
    odds = [gone(t) for t in range(1, 5)]
    assert odds == sorted(odds) and odds[0] < odds[-1]


def test_start_teams_below_teams_is_refused() -> None:
    with pytest.raises(UsageError):
        warroom.odds("fow.engagement", teams=4, start_teams=3)


def test_roll_tells_the_turns_in_order() -> None:
    res = warroom.roll("fow.engagement", {"dice": 2, "teams": 2, "turns": 2}, seed=7)
    assert res.outcome["turn"] in (1, 2)
    assert any(s.to_dict()["rule"].startswith("fow.shoot.to_hit") for s in res.steps)
    assert any(s.to_dict()["rule"].startswith("fow.morale.platoon") for s in res.steps)


@pytest.mark.parametrize("params", [
    {"dice": 1, "teams": 2, "start_teams": 3, "turns": 2},
    {"dice": 1, "teams": 1, "turns": 2, "target": "tank", "armour": 1, "at": 5,
     "firepower": 4}])
def test_exact_odds_are_every_typed_roll_counted(params: dict[str, Any]) -> None:
    from tests.helpers import replay_oracle

    d = warroom.odds("fow.engagement", **params)
    assert replay_oracle("fow.engagement", params, limit=9) == {
        k: F(w, d.denominator) for k, w in d.weights.items()}
