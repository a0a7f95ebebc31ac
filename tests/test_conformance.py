"""Every registered procedure, present and future, must pass these checks.

Random valid parameters are drawn from each procedure's declared schema:
exact odds sum to exactly 1 and carry every declared field; a seeded roll's dice fed
back as entered dice give the same outcome and steps; Monte Carlo agrees with the
exact odds; invalid parameters are a clean usage error.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tests.helpers import close_enough, invalid_value, params_strategy
from warroom import api
from warroom.engine import drivers
from warroom.engine.params import describe, validate
from warroom.engine.procedure import Procedure
from warroom.errors import ExactTooLargeError, UsageError

PROCEDURES = api.registry().procedures()
IDS = [p.id for p in PROCEDURES]
MC_SAMPLES = 3000
TEST_PATHS = 20_000  # exact odds for test-sized parameters must stay well inside this


def _valid(proc: Procedure, raw: dict[str, Any]) -> Any:
    try:
        return validate(proc, raw)
    except UsageError:
        assume(False)


def _exact(proc: Procedure, params: Any) -> Any:
    """Exact odds; parameters too large for a quick test are discarded (hypothesis
    fails the test if that happens too often)."""
    try:
        return drivers.exact(proc, params, max_paths=TEST_PATHS)
    except ExactTooLargeError:
        assume(False)


def test_every_system_has_procedures() -> None:
    for system in api.registry().systems():
        assert system.procedures, system.id
        for proc in system.procedures:
            assert proc.id.startswith(system.id + "."), proc.id
            assert proc.outcome, proc.id
            assert proc.title and proc.summary, proc.id


@pytest.mark.parametrize("proc", PROCEDURES, ids=IDS)
def test_numeric_params_are_bounded(proc: Procedure) -> None:
    for spec in describe(proc.params):
        if spec.type in ("int", "float", "fraction") and not spec.examples:
            assert spec.minimum is not None and spec.maximum is not None, (proc.id, spec.name)


@pytest.mark.parametrize("proc", PROCEDURES, ids=IDS)
@settings(max_examples=12)
@given(data=st.data())
def test_exact_odds_sum_to_one(proc: Procedure, data: st.DataObject) -> None:
    params = _valid(proc, data.draw(params_strategy(describe(proc.params))))
    dist = _exact(proc, params)
    assert dist.total() == 1
    assert all(w > 0 for w in dist.weights.values())
    for outcome, _p in dist.items():
        assert set(outcome) == set(proc.fields)
        for f in proc.outcome:
            value = outcome[f.name]
            if f.kind == "bool":
                assert isinstance(value, bool), (f.name, value)
            elif f.kind == "int":
                assert isinstance(value, int) and not isinstance(value, bool), (f.name, value)
            elif f.kind == "str":
                assert isinstance(value, str), (f.name, value)
                if f.values:
                    assert value in f.values, (f.name, value)


@pytest.mark.parametrize("proc", PROCEDURES, ids=IDS)
@settings(max_examples=12)
@given(data=st.data(), seed=st.integers(min_value=0, max_value=2**32))
def test_seeded_roll_replays_as_entered_dice(proc: Procedure, data: st.DataObject,
                                            seed: int) -> None:
    params = _valid(proc, data.draw(params_strategy(describe(proc.params))))
    rolled = drivers.roll(proc, params, seed=seed)
    assert rolled.seed == seed
    assert drivers.roll(proc, params, seed=seed).dice == rolled.dice
    assert all(step.rule for step in rolled.steps)
    if not rolled.dice:
        return
    replay = drivers.roll(proc, params, dice=list(rolled.dice))
    assert replay.outcome == rolled.outcome
    assert replay.steps == rolled.steps
    # the outcome of a roll is one the exact driver gives a chance to
    dist = _exact(proc, params)
    key = tuple(rolled.outcome[f] for f in proc.fields)
    assert dist.weights.get(key, 0) > 0, (proc.id, rolled.outcome)


@pytest.mark.parametrize("proc", PROCEDURES, ids=IDS)
@settings(max_examples=4)
@given(data=st.data())
def test_monte_carlo_agrees_with_exact(proc: Procedure, data: st.DataObject) -> None:
    params = _valid(proc, data.draw(params_strategy(describe(proc.params))))
    dist = _exact(proc, params)
    est = drivers.simulate(proc, params, MC_SAMPLES, seed=1234)
    assert sum(est.counts.values()) == MC_SAMPLES
    for key in set(est.counts) | set(dist.weights):
        p_exact = dist.weights.get(key, 0) / dist.denominator
        p_mc = est.counts.get(key, 0) / MC_SAMPLES
        assert close_enough(p_mc, p_exact, MC_SAMPLES), (proc.id, key, p_mc, p_exact)


VECTOR_PROCEDURES = [p for p in PROCEDURES if p.vectorize]


@pytest.mark.parametrize("proc", VECTOR_PROCEDURES, ids=[p.id for p in VECTOR_PROCEDURES])
@settings(max_examples=4)
@given(data=st.data())
def test_vectorised_monte_carlo_agrees_with_exact(proc: Procedure, data: st.DataObject) -> None:
    params = _valid(proc, data.draw(params_strategy(describe(proc.params))))
    dist = _exact(proc, params)
    n = 20_000
    est = drivers.simulate(proc, params, n, seed=99, vector=True)
    assert est.extra.get("vectorized") is True
    assert sum(est.counts.values()) == n
    for key in set(est.counts) | set(dist.weights):
        p_exact = dist.weights.get(key, 0) / dist.denominator
        assert close_enough(est.counts.get(key, 0) / n, p_exact, n), (proc.id, key)


@pytest.mark.parametrize("proc", PROCEDURES, ids=IDS)
@settings(max_examples=10)
@given(data=st.data())
def test_invalid_params_are_usage_errors(proc: Procedure, data: st.DataObject) -> None:
    specs = describe(proc.params)
    choice = data.draw(st.sampled_from([*[s.name for s in specs], "no_such_parameter"]))
    if choice == "no_such_parameter":
        raw: dict[str, Any] = {choice: 1}
    else:
        spec = next(s for s in specs if s.name == choice)
        bad = invalid_value(spec)
        assume(bad is not None)
        raw = {choice: bad}
    with pytest.raises(UsageError):
        proc_params = validate(proc, raw)
        # a model-level check may only fire when the procedure runs
        drivers.exact(proc, proc_params, max_paths=TEST_PATHS)
