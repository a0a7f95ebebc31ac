"""The conformance properties, run on the special-rule procedures directly.

tests/test_conformance.py checks every registered procedure; these procedures are
registered through the core ``fow`` system, so until (and besides) that, the same
properties are checked here on ``special_rules.listing.procedures()``.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from tests.helpers import close_enough, invalid_value, params_strategy

from warroom.engine import drivers
from warroom.engine.params import describe, validate
from warroom.engine.procedure import Procedure
from warroom.errors import UsageError
from warroom.games.fow.special_rules.listing import procedures
from warroom.games.fow.special_rules.params import RulesParams

PROCS = procedures()
IDS = [p.id for p in PROCS]
SETTINGS = settings(max_examples=10, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def _valid(proc: Procedure, raw: dict[str, Any]) -> Any:
    try:
        return validate(proc, raw)
    except UsageError:
        assume(False)


@pytest.mark.parametrize("proc", PROCS, ids=IDS)
def test_shape(proc: Procedure) -> None:
    assert proc.id.startswith("fow.")
    assert issubclass(proc.params, RulesParams)
    assert proc.title and proc.summary and proc.outcome and proc.source
    for spec in describe(proc.params):
        if spec.type in ("int", "float", "fraction") and not spec.examples:
            assert spec.minimum is not None and spec.maximum is not None, spec.name


@pytest.mark.parametrize("proc", PROCS, ids=IDS)
@SETTINGS
@given(data=st.data(), seed=st.integers(min_value=0, max_value=2**32))
def test_exact_sums_to_one_and_rolls_replay(proc: Procedure, data: st.DataObject,
                                            seed: int) -> None:
    params = _valid(proc, data.draw(params_strategy(describe(proc.params))))
    dist = drivers.exact(proc, params)
    assert dist.total() == 1
    for out, _p in dist.items():
        assert set(out) == set(proc.fields)
        for f in proc.outcome:
            v = out[f.name]
            if f.kind == "bool":
                assert isinstance(v, bool)
            elif f.kind == "int":
                assert isinstance(v, int) and not isinstance(v, bool)
            elif f.kind == "str" and f.values:
                assert v in f.values
    rolled = drivers.roll(proc, params, seed=seed)
    assert all(step.rule for step in rolled.steps)
    for step in rolled.steps:
        step.to_dict()  # every template renders with its arguments
    key = tuple(rolled.outcome[f] for f in proc.fields)
    assert dist.weights.get(key, 0) > 0
    if rolled.dice:
        replay = drivers.roll(proc, params, dice=list(rolled.dice))
        assert replay.outcome == rolled.outcome
        assert replay.steps == rolled.steps


@pytest.mark.parametrize("proc", PROCS, ids=IDS)
@settings(max_examples=3, deadline=None)
@given(data=st.data())
def test_monte_carlo_agrees(proc: Procedure, data: st.DataObject) -> None:
    params = _valid(proc, data.draw(params_strategy(describe(proc.params))))
    dist = drivers.exact(proc, params)
    n = 2000
    est = drivers.simulate(proc, params, n, seed=99)
    for key in set(est.counts) | set(dist.weights):
        p_exact = dist.weights.get(key, 0) / dist.denominator
        assert close_enough(est.counts.get(key, 0) / n, p_exact, n), (key, p_exact)


@pytest.mark.parametrize("proc", PROCS, ids=IDS)
@settings(max_examples=8, deadline=None)
@given(data=st.data())
def test_invalid_params_are_usage_errors(proc: Procedure, data: st.DataObject) -> None:
    specs = describe(proc.params)
    name = data.draw(st.sampled_from([*[s.name for s in specs], "no_such_parameter"]))
    if name == "no_such_parameter":
        raw: dict[str, Any] = {name: 1}
    else:
        bad = invalid_value(next(s for s in specs if s.name == name))
        assume(bad is not None)
        raw = {name: bad}
    with pytest.raises(UsageError):
        drivers.exact(proc, validate(proc, raw))
