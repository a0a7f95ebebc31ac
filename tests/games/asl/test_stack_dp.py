"""asl.ift_on_stack against benchmarks/stack_dp.py, a hand-written exact programme for
stacks without leaders (products of per-unit distributions given Random Selection):
the same joint distribution of the units' final states, fraction for fraction."""

from __future__ import annotations

from fractions import Fraction as F

import pytest
from benchmarks.stack_dp import as_states, stack_odds

import warroom


def test_the_reference_on_a_lone_squad_by_hand() -> None:
    # a lone 4-6-7 after K/1 is the casualty (reduced), then MCs at +1 against 7:
    # totals 2-5 pass (10/36), 6 passes with final 7 = morale: pinned (5/36), 7-11
    # break (20/36), 12 breaks with casualty reduction: the half-squad is gone (1/36)
    assert stack_odds("K/1", "4-6-7") == {
        ("reduced",): F(10, 36), ("reduced+pinned",): F(5, 36),
        ("reduced+broken",): F(20, 36), ("eliminated",): F(1, 36)}


def test_the_reference_random_selection_by_hand() -> None:
    # two 2-4-8 half-squads after K/4: the selected one (each rolls a dr, ties take
    # both) is gone; the other MCs at +4 against 8: passes on 2-3 (3/36), pinned on 4
    # (3/36), breaks on 5-11 (29/36), is gone on 12 (1/36). Both selected: the dr tie,
    # 6/36; one alone selected: 15/36 each.
    got = stack_odds("K/4", "2-4-8,2-4-8")
    assert got[("eliminated", "eliminated")] == F(6, 36) + 2 * F(15, 36) * F(1, 36)
    assert got[("eliminated", "ok")] == F(15, 36) * F(3, 36)
    assert got[("broken", "eliminated")] == F(15, 36) * F(29, 36)
    assert sum(got.values()) == 1


CASES = [
    ("K/1", "4-6-7,2-4-8,4-4-7:broken"),
    ("K/1", "4-6-7:elr=1,4-6-7:pinned,2-4-8:broken,6-5-8"),
    ("K/2", ",".join(["4-6-7"] * 6)),
    ("NMC", ",".join(["4-6-7"] * 6)),
    ("K/2", ",".join(["4-6-7:broken"] * 10)),
    ("K/3", "4-6-7:broken,2-4-8:broken,4-4-7/8:broken"),
    ("2MC", "4-6-7:elr=1,2-4-8,4-4-7:pinned,2-4-7:broken"),
    ("PTC", "4-6-7,2-4-8:broken,4-4-7:pinned"),
    ("1KIA", "4-6-7,2-4-8:broken,4-4-7"),
    ("2KIA", "4-6-7,2-4-8:broken,4-4-7,4-6-7:pinned,4-6-7:broken"),
    ("3KIA", "4-6-7,2-4-8"),
    ("K/2", "4-4-7"),
]


@pytest.mark.parametrize(("result", "units"), CASES)
def test_the_engine_equals_the_hand_written_reference(result: str, units: str) -> None:
    dist = warroom.odds("asl.ift_on_stack", result=result, units=units, exact=True)
    assert as_states(dist.items(), len(units.split(","))) == stack_odds(result, units)


def test_the_engine_equals_the_reference_with_a_drm_and_a_side_elr() -> None:
    units = "4-6-7,4-4-7,2-4-8:pinned"
    dist = warroom.odds("asl.ift_on_stack", result="K/1", units=units, drm=2, elr=1,
                        exact=True)
    assert as_states(dist.items(), 3) == stack_odds("K/1", units, drm=2, elr=1)
