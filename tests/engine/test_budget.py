"""The exact budget is a cost in time (drivers.exact_budget): exact odds where they cost
no more than half a second or than the estimate that would stand in for them, so the
first size past the budget is answered by an estimate no dearer than the last exact
answer (the figures: benchmarks/run.py --estimates, the "no cliff" rows)."""

from __future__ import annotations

from fractions import Fraction

import pytest

import warroom
from warroom import api
from warroom.engine import drivers
from warroom.engine.exact import MAX_PATHS
from warroom.engine.results import Distribution, Estimate
from warroom.errors import ExactTooLargeError

STACK = "squad:7:3,leader:8:-1:elr=3,hs:6:2:broken,squad:6,leader:9:-2,hs:5"


def test_the_budget_is_half_a_second_of_replays_or_the_estimates_cost() -> None:
    # 200,000 replays at 2.5 us each: half a second
    assert pytest.approx(0.5) == drivers.EXACT_SECONDS
    demo, params = api.prepare("demo.pool", {"dice": 2})
    assert demo.sample_cost is None and drivers.exact_budget(demo, params) == MAX_PATHS
    stack, params = api.prepare("asl.ift_on_stack", {"units": STACK + ",4-6-7",
                                                     "result": "K/1"})
    # seven units: a sample costs 1.5 + 0.65 * 7 = 6.05 replays, 38,415 samples of them
    # 232,411 (rounded up): more than the time budget, so that is the budget
    assert drivers.samples_for() == 38_415
    assert drivers.exact_budget(stack, params) == 232_411
    # a wider margin means fewer samples: the time budget again
    assert drivers.exact_budget(stack, params, margin=0.05) == MAX_PATHS


def test_a_stack_past_the_old_count_is_exact_where_the_estimate_would_cost_as_much(
        ) -> None:
    seven = {"units": STACK + ",4-6-7", "result": "K/1"}
    proc, params = api.prepare("asl.ift_on_stack", seven)
    assert proc.cost is not None and MAX_PATHS < proc.cost(params) <= drivers.exact_budget(
        proc, params)
    d = warroom.odds("asl.ift_on_stack", **seven)
    assert isinstance(d, Distribution) and d.total() == Fraction(1)
    eight = {"units": STACK + ",4-6-7,4-6-7", "result": "K/1"}
    est = warroom.odds("asl.ift_on_stack", **eight)
    assert isinstance(est, Estimate) and est.samples == drivers.samples_for()
    with pytest.raises(ExactTooLargeError):
        warroom.odds("asl.ift_on_stack", **eight, exact=True)


def test_an_explicit_count_still_bounds_exact_odds() -> None:
    proc, params = api.prepare("asl.ift_on_stack", {"units": STACK + ",4-6-7",
                                                    "result": "K/1"})
    with pytest.raises(ExactTooLargeError):
        drivers.exact(proc, params, max_paths=MAX_PATHS)
