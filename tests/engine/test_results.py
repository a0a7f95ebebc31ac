"""Results list outcomes in a reader's order: numbers ascending, text in the order its
field declares (an ASL IFT result from KIA to '-'), in exact odds, estimates and pages."""

from __future__ import annotations

from fractions import Fraction

import warroom
from warroom.engine.results import Distribution
from warroom.games.asl.tables import IFT_RESULTS


def test_text_outcomes_follow_their_declared_order() -> None:
    d = warroom.odds("asl.ift", fp=8, drm=-1)
    results = list(d.marginal("result"))
    assert results == sorted(results, key=IFT_RESULTS.index)
    assert results[0] == "1KIA" and results[-1] == "-"
    # whole outcomes: the result first, then the numbers within it
    firsts = [o[0] for o in d.outcomes()]
    assert firsts == sorted(firsts, key=IFT_RESULTS.index)
    est = warroom.simulate("asl.ift", fp=8, drm=-1, samples=2000, seed=1)
    rows = [r["outcome"]["result"] for r in est.to_json()["outcomes"]]
    assert rows == sorted(rows, key=IFT_RESULTS.index)


def test_without_a_declared_order_text_sorts_alphabetically() -> None:
    d = Distribution("x.y", {}, ("kind", "n"), {("b", 2): 1, ("a", 3): 1, ("b", 1): 2}, 4)
    assert d.outcomes() == [("a", 3), ("b", 1), ("b", 2)]
    ordered = Distribution("x.y", {}, ("kind", "n"), d.weights, 4, ({"b": 0, "a": 1}, None))
    assert ordered.outcomes() == [("b", 1), ("b", 2), ("a", 3)]
    assert list(ordered.marginal("kind")) == ["b", "a"]
    assert ordered.marginal("kind")["b"] == Fraction(3, 4)
    # a value the field does not declare comes after those it does
    odd = Distribution("x.y", {}, ("kind",), {("z",): 1, ("a",): 1}, 2, ({"z": 0},))
    assert odd.outcomes() == [("z",), ("a",)]


def test_a_field_listing_units_splits_into_each_units_chances() -> None:
    """results.split_units reads each value once: every value must list the same units,
    each with a state; the weights add up per unit and state, in the order states first
    appear."""
    from warroom.engine.results import split_units

    got = split_units({"squad1=ok,hs1=broken": 1, "squad1=broken,hs1=broken": 3,
                       "squad1=ok,hs1=ok": 2})
    assert got == {"squad1": {"ok": 3, "broken": 3}, "hs1": {"broken": 4, "ok": 2}}
    assert list(got["hs1"]) == ["broken", "ok"]
    assert split_units({"a=1=2,b=2": 1, "a=3,b=1": 1}) == {"a": {"1=2": 1, "3": 1},
                                                           "b": {"2": 1, "1": 1}}
    for not_units in ({"a=1,b=2": 1, "a=2,c=2": 3},  # other units
                      {"a=1,b=2": 1, "a=1": 2},  # fewer
                      {"a=1": 1, "a=": 1},  # no state
                      {"x": 1, "y": 2}, {1: 1, 2: 2},  # no listing
                      {"a=1,b=2": 1}):  # a single value
        assert split_units(not_units) is None
