"""The batched Monte Carlo driver (engine/batched.py): its estimates follow the exact
odds, it agrees in distribution with the sequential sampler, its seeded counts are the
same on every run and whatever the cores, and procedures that are not staged are left
to the sequential sampler."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers import close_enough
from warroom import api
from warroom.engine import drivers
from warroom.engine.batched import simulate_batched
from warroom.errors import UsageError

SAMPLES = 4000


def _batched(proc_id: str, raw: dict[str, Any], samples: int = SAMPLES, seed: int = 1
             ) -> dict[tuple[Any, ...], int]:
    proc, params = api.prepare(proc_id, raw)
    got = simulate_batched(lambda d: proc.run(params, d), proc.fields, samples, seed)
    assert got is not None
    counts, _ = got
    assert sum(counts.values()) == samples
    return counts


def _agrees_with_exact(proc_id: str, raw: dict[str, Any], samples: int = SAMPLES) -> None:
    """Every field's chances of the batched estimate within 5 standard errors of the
    exact odds (fields of a few dozen values at most: a joint field's thousands of rare
    values would each be a test of its own)."""
    proc, params = api.prepare(proc_id, raw)
    exact = drivers.exact(proc, params)
    counts = _batched(proc_id, raw, samples)
    for i, name in enumerate(proc.fields):
        chances = exact.marginal(name)
        if len(chances) > 60:  # a joint field of thousands of rare values: per unit
            continue
        for value, p in chances.items():
            got = sum(c for k, c in counts.items() if k[i] == value) / samples
            assert close_enough(got, float(p), samples), (proc_id, raw, name, value, got, p)


ASSAULTS = st.fixed_dictionaries({
    "attackers": st.integers(1, 5), "defenders": st.integers(1, 5),
    "max_rounds": st.integers(1, 4), "defensive_dice": st.integers(0, 6),
    "defender_type": st.sampled_from(["infantry", "tank"]),
})
STACKS = st.tuples(
    st.lists(st.sampled_from(["squad:7", "hs:6", "squad:6:broken", "4-6-7", "2-4-7"]),
             min_size=1, max_size=3),
    st.sampled_from(["", ",leader:8:-1", ",9-2"]),
    st.sampled_from(["K/1", "K/2", "1KIA", "2KIA", "1MC"]))


@settings(max_examples=12, deadline=None, derandomize=True)
@given(ASSAULTS)
def test_assault_estimates_follow_the_exact_odds(raw: dict[str, Any]) -> None:
    _agrees_with_exact("fow.assault", raw)


@settings(max_examples=12, deadline=None, derandomize=True)
@given(STACKS)
def test_stack_estimates_follow_the_exact_odds(case: tuple[list[str], str, str]) -> None:
    units, leader, result = case
    _agrees_with_exact("asl.ift_on_stack", {"units": ",".join(units) + leader,
                                            "result": result})


@pytest.mark.parametrize("raw", [
    {"weapons": "4:4:3,3:3:5", "teams": "tank:2,infantry,infantry:gtg"},
    {"weapons": "5:10:3", "teams": "tank:6,tank:5/3,soft"},
])
def test_mixed_shooting_estimates_follow_the_exact_odds(raw: dict[str, Any]) -> None:
    _agrees_with_exact("fow.shoot_mixed", raw)


def test_batched_and_sequential_samplers_agree_in_distribution(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Fixed seeds, 20,000 samples each: every outcome's share in the batched driver's
    counts and in the sequential sampler's within 5 standard errors of their difference
    (two samples of one law), and the chi-square statistic of the two rows of counts
    (outcomes under 40 samples in both pooled) under its 99.99% point."""
    raw = {"attackers": 6, "defenders": 5, "max_rounds": 4, "defensive_dice": 4}
    proc, params = api.prepare("fow.assault", raw)
    n = 20_000
    batched = _batched("fow.assault", raw, n, seed=5)
    monkeypatch.setattr(drivers, "BATCHED", False)
    sequential = drivers.simulate(proc, params, n, seed=5).counts
    keys = set(batched) | set(sequential)
    big = [k for k in keys if batched.get(k, 0) + sequential.get(k, 0) >= 40]
    assert len(big) > 5
    chi2 = 0.0
    cells = [*big, None]  # None: every small outcome pooled
    for k in cells:
        a = (batched.get(k, 0) if k is not None
             else sum(c for o, c in batched.items() if o not in big))
        b = (sequential.get(k, 0) if k is not None
             else sum(c for o, c in sequential.items() if o not in big))
        p = (a + b) / (2 * n)
        se = (2 * p * (1 - p) / n) ** 0.5
        assert abs(a - b) / n <= 5 * se + 3 / n, (k, a, b)
        if a + b:
            chi2 += (a - b) ** 2 / (a + b)  # two equal-size rows: sum of (a-b)^2/(a+b)
    # Wilson-Hilferty: the chi-square's 99.99% point for len(cells) - 1 degrees
    dof = len(cells) - 1
    z = 3.719
    assert chi2 <= dof * (1 - 2 / (9 * dof) + z * (2 / (9 * dof)) ** 0.5) ** 3


@pytest.mark.parametrize("alone", [1.0, 0.0])  # batched after the pilot, or sequential
def test_seeded_estimates_are_the_same_on_every_run_and_core_count(
        monkeypatch: pytest.MonkeyPatch, alone: float) -> None:
    monkeypatch.setattr(drivers, "BATCH_ALONE", alone)
    proc, params = api.prepare("asl.ift_on_stack", {
        "units": "squad:7:3,leader:8:-1,hs:6:2,squad:6", "result": "K/1"})
    runs = []
    for fork in (True, False, True):
        monkeypatch.setattr(drivers, "_may_fork", lambda fork=fork: fork)
        est = drivers.simulate(proc, params, drivers.STREAMS_FROM + 3, seed=11)
        assert est.samples == sum(est.counts.values()) == drivers.STREAMS_FROM + 3
        runs.append(dict(est.counts))
    assert runs[0] == runs[1] == runs[2]
    other = drivers.simulate(proc, params, drivers.STREAMS_FROM + 3, seed=12)
    assert dict(other.counts) != runs[0]


def test_a_procedure_that_is_not_staged_is_sampled_one_at_a_time() -> None:
    proc, params = api.prepare("demo.pool", {"dice": 6})
    assert simulate_batched(lambda d: proc.run(params, d), proc.fields, 100, 1) is None
    est = drivers.simulate(proc, params, drivers.STREAMS_FROM, seed=2, vector=False)
    assert est.samples == drivers.STREAMS_FROM


def test_a_time_cap_stops_a_batched_run() -> None:
    proc, params = api.prepare("fow.assault", {"attackers": 8, "defenders": 8})
    est = drivers.simulate(proc, params, 10**9, seed=7, seconds=0.2)
    assert est.extra == {"stopped_early": True, "samples_asked": 10**9}
    assert 0 < est.samples == sum(est.counts.values()) < 10**9


def test_odds_past_the_budget_is_an_estimate_unless_exact_is_asked() -> None:
    import warroom
    from warroom.engine.results import Distribution, Estimate
    from warroom.errors import ExactTooLargeError

    big = {"units": ",".join(["4-6-7"] * 8 + ["8-1", "9-2"]), "result": "K/2"}
    est = warroom.odds("asl.ift_on_stack", **big)
    assert isinstance(est, Estimate) and est.samples == drivers.samples_for()
    with pytest.raises(ExactTooLargeError):
        warroom.odds("asl.ift_on_stack", **big, exact=True)
    small = warroom.odds("demo.pool", dice=2, at=4)
    assert isinstance(small, Distribution)
    assert isinstance(warroom.odds("demo.pool", dice=2, at=4, exact=False), Estimate)


def _spied(monkeypatch: pytest.MonkeyPatch, name: str) -> list[bool]:
    """Whether each call of the batched driver's function ``name`` answered (not None),
    in order, as the calls come."""
    from warroom.engine import batched

    used: list[bool] = []
    real = getattr(batched, name)

    def spy(*args: Any) -> Any:
        out = real(*args)
        used.append(out is not None)
        return out

    monkeypatch.setattr(batched, name, spy)
    return used


def test_a_stack_on_columns_follows_the_exact_odds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Six units with two leaders at K/1 (stages all on parts, no done): the samples run
    on columns (batched._columns), most rows single samples by the last stages, and
    every field's chances stay within the margin of the exact odds."""
    used = _spied(monkeypatch, "_columns")
    _agrees_with_exact("asl.ift_on_stack", {
        "units": "squad:7:3,leader:8:-1:elr=3,hs:6:2:broken,squad:6,leader:9:-2,hs:5",
        "result": "K/1"}, samples=20_000)
    assert used == [True]


@pytest.mark.parametrize("raw", [
    {"units": "squad:7:3,leader:8:-1:elr=3,hs:6:2:broken,squad:6,leader:9:-2,hs:5",
     "result": "K/1"},
    {"units": "4-6-7:broken,4-6-7,2-4-8,9-1,8-0", "result": "1KIA"},
    {"units": "4-6-7,4-6-7,4-6-7,8-1", "result": "NMC", "leader_loss": "each"},
])
def test_rows_joined_from_halves_count_as_rows_of_whole_states(
        monkeypatch: pytest.MonkeyPatch, raw: dict[str, Any]) -> None:
    """The last states on columns handed to the outcome's ``joined`` rows by halves
    (batched._joined_counts) count the same rows, sample for sample, as the states
    built whole and their rows made one by one (the same draws: the same seed)."""
    from warroom import api
    from warroom.engine import batched

    proc, params = api.prepare("asl.ift_on_stack", raw)

    def counts() -> dict[Any, int]:
        got = batched.simulate_batched(lambda d: proc.run(params, d), proc.fields,
                                       5000, seed=11)
        assert got is not None
        return got[0]

    used = _spied(monkeypatch, "_joined_counts")
    joined = counts()
    assert used == [True]
    monkeypatch.setattr(batched, "_joined_counts", lambda *args: None)
    assert counts() == joined


def _staged_procedures() -> list[str]:
    """Every built-in procedure whose first request is a stages request (the batched
    driver takes it), with its default parameters."""
    out = []
    for system in api.registry().systems():
        for proc in system.procedures:
            try:
                _, params = api.prepare(proc.id, {})
            except UsageError:  # a procedure with required parameters: not in the sweep
                continue
            if simulate_batched(lambda d, proc=proc, params=params: proc.run(params, d),
                                proc.fields, 1, 1) is not None:
                out.append(proc.id)
    return out


@pytest.mark.parametrize("raw", [
    {"units": "4-6-7,4-6-7:broken,hs:6,squad:6:broken,9-2,8-1,8-0", "result": "K/2"},
    {"units": "4-6-7,4-6-7,2-4-7,squad:7:broken,9-1,8-0", "result": "NMC"},
    {"units": "squad:7:3,leader:8:-1:elr=3,hs:6:2:broken,squad:6,leader:9:-2,hs:5",
     "result": "K/1", "leader_loss": "each", "lltc_fail": "broken"},
    {"units": "4-6-7:broken,4-6-7,8-1,9-2", "result": "2KIA"},
])
def test_batched_and_sequential_samplers_agree_on_stacks(
        monkeypatch: pytest.MonkeyPatch, raw: dict[str, Any]) -> None:
    """Stacks with leaders and broken units, K/#, NMC and #KIA (stages on parts: the
    batched driver runs them on columns), fixed seeds, 20,000 samples each: every field's
    chances in the batched driver's counts and in the sequential sampler's within 5
    standard errors of their difference (two samples of one law; the joint outcomes are
    too many to hold each to it)."""
    proc, params = api.prepare("asl.ift_on_stack", raw)
    n = 20_000
    batched = _batched("asl.ift_on_stack", raw, n, seed=7)
    monkeypatch.setattr(drivers, "BATCHED", False)
    sequential = drivers.simulate(proc, params, n, seed=7).counts
    for i, name in enumerate(proc.fields):
        if name == "units":  # the joint outcome: each unit's own field instead
            continue
        a: dict[Any, int] = {}
        b: dict[Any, int] = {}
        for counts, into in ((batched, a), (sequential, b)):
            for k, c in counts.items():
                into[k[i]] = into.get(k[i], 0) + c
        for v in set(a) | set(b):
            pa, pb = a.get(v, 0) / n, b.get(v, 0) / n
            p = (pa + pb) / 2
            assert abs(pa - pb) <= 5 * (2 * p * (1 - p) / n) ** 0.5 + 3 / n, (name, v, pa, pb)


@pytest.mark.parametrize("proc_id", _staged_procedures())
def test_every_staged_procedure_follows_its_exact_odds(proc_id: str) -> None:
    _agrees_with_exact(proc_id, {})


LEADER_STACKS = st.tuples(
    st.lists(st.sampled_from(["4-6-7", "squad:7", "hs:6", "2-4-7", "squad:6:broken"]),
             min_size=2, max_size=4),
    st.lists(st.sampled_from(["9-2", "8-1", "8-0", "leader:9:-1"]), min_size=2, max_size=3),
    st.sampled_from(["K/1", "K/2", "1MC", "NMC"]))


@settings(max_examples=6, deadline=None, derandomize=True)
@given(LEADER_STACKS)
def test_stacks_with_leaders_on_columns_follow_the_exact_odds(
        case: tuple[list[str], list[str], str]) -> None:
    """Stacks with several leaders (Random Selection's many candidate lists merging into
    few states after the casualty, Leader Loss checks): on columns, with rows merged
    while that pays and each piece drawn at once, every unit's chances and the counts
    stay within the margin of the exact odds."""
    squads, leaders, result = case
    _agrees_with_exact("asl.ift_on_stack", {"units": ",".join([*squads, *leaders]),
                                            "result": result}, samples=8000)


def test_seeded_stack_counts_on_columns_are_the_same_on_every_run_and_core_count(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The stack at the caps with a numpy reference (ten units, three leaders, K/2): the
    full estimate runs on columns; its seeded counts are the same run after run, with
    forked streams allowed or not."""
    proc, params = api.prepare("asl.ift_on_stack", {
        "units": ",".join(["4-6-7"] * 7 + ["9-2", "8-1", "8-0"]), "result": "K/2"})
    runs = []
    for fork in (True, False):
        monkeypatch.setattr(drivers, "_may_fork", lambda fork=fork: fork)
        est = drivers.simulate(proc, params, drivers.STREAMS_FROM + 7, seed=3)
        assert est.samples == sum(est.counts.values())
        runs.append(dict(est.counts))
    assert runs[0] == runs[1]


@pytest.mark.parametrize("sizes", [[3], [4, 5], [2, 3, 7]])
def test_rows_grouped_through_a_table_of_keys_as_by_sorting(
        monkeypatch: pytest.MonkeyPatch, sizes: list[int]) -> None:
    """A part's rows grouped through a table of every key (few keys beside the rows)
    give the same groups, in the same order, as sorting the rows' keys."""
    import numpy as np

    from warroom.engine import batched

    rng = np.random.default_rng(3)
    width = len(sizes) + 2
    rows = np.zeros((500, width), dtype=np.int64)
    at = tuple(range(1, len(sizes) + 1))
    for f, size in zip(at, sizes, strict=True):
        rows[:, f] = rng.integers(0, size, 500)
    rows[:, 0] = rng.integers(0, 1000, 500)  # columns outside the part: no matter
    by_table = batched._grouped(rows, at, sizes)
    monkeypatch.setattr(batched, "LOOKUP_KEYS", 0)
    by_sort = batched._grouped(rows, at, sizes)
    assert by_table is not None and by_sort is not None
    assert np.array_equal(by_table[0], by_sort[0])
    assert np.array_equal(by_table[1], by_sort[1])
    # each row's group holds its part's codes
    assert np.array_equal(by_table[0][by_table[1]], rows[:, list(at)])
