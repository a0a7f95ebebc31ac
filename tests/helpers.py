"""Shared test helpers: a brute-force oracle and random parameters from a schema."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

from hypothesis import strategies as st

from warroom.engine.params import ParamSpec


def brute_force(n_dice: int, outcome: Callable[[tuple[int, ...]], Any]) -> dict[Any, Fraction]:
    """Distribution of ``outcome`` over every ordered roll of ``n_dice`` d6."""
    dist: dict[Any, Fraction] = {}
    total = 6**n_dice
    for faces in itertools.product(range(1, 7), repeat=n_dice):
        key = outcome(faces)
        dist[key] = dist.get(key, Fraction(0)) + Fraction(1, total)
    return dist


SMALL_SPAN = 8


def value_strategy(spec: ParamSpec) -> st.SearchStrategy[Any]:
    """Valid values for one parameter, kept small so exact odds stay quick in tests."""
    if spec.examples:
        return st.sampled_from(list(spec.examples))
    if spec.type == "bool":
        return st.booleans()
    if spec.type == "choice":
        return st.sampled_from(list(spec.choices))
    if spec.type == "list":
        if spec.choices:
            return st.lists(st.sampled_from(list(spec.choices)), max_size=2, unique=True)
        return st.just([])
    if spec.type in ("int", "float", "fraction"):
        lo = int(spec.minimum) if spec.minimum is not None else 0
        hi = int(spec.maximum) if spec.maximum is not None else lo + SMALL_SPAN
        hi = min(hi, lo + SMALL_SPAN)
        ints = st.integers(min_value=lo, max_value=hi)
        if spec.type == "int":
            return ints
        return ints.map(float)
    return st.just(spec.default)


def params_strategy(specs: list[ParamSpec]) -> st.SearchStrategy[dict[str, Any]]:
    """Some parameters set, the others left at their defaults (required ones always set)."""
    fields: dict[str, st.SearchStrategy[Any]] = {}
    optional: dict[str, st.SearchStrategy[Any]] = {}
    for spec in specs:
        (fields if spec.required else optional)[spec.name] = value_strategy(spec)
    return st.fixed_dictionaries(fields, optional=optional)


def invalid_value(spec: ParamSpec) -> Any:
    """A value that the schema rules out."""
    if spec.type == "bool":
        return "maybe"
    if spec.type == "choice":
        return "no-such-choice"
    if spec.type in ("int", "float", "fraction"):
        if spec.maximum is not None:
            return spec.maximum + 1
        if spec.minimum is not None:
            return spec.minimum - 1
        return "not-a-number"
    if spec.type == "list" and spec.choices:
        return ["no-such-choice"]
    return None


def close_enough(p_mc: float, p_exact: float, n: int) -> bool:
    """Monte Carlo estimate within 5 standard errors (plus a hair) of the exact value."""
    se = (p_exact * (1 - p_exact) / n) ** 0.5
    return abs(p_mc - p_exact) <= 5 * se + 1.5 / n


def outcome_key(outcome: Mapping[str, Any], fields: tuple[str, ...]) -> tuple[Any, ...]:
    return tuple(outcome[f] for f in fields)


def replay_oracle(procedure: str, params: Mapping[str, Any],
                  limit: int = 8) -> dict[tuple[Any, ...], Fraction]:
    """Exact odds found without the exact driver: every sequence of d6 a player could
    type in, tried through the roll driver, each sequence of k dice weighing 6**-k. A
    sequence that is too short is extended a die at a time. For procedures that roll only
    d6 (no dN or random picks), and small questions (6**dice rolls)."""
    import warroom
    from warroom.errors import TooFewDiceError

    out: dict[tuple[Any, ...], Fraction] = {}
    stack: list[tuple[int, ...]] = [()]
    while stack:
        prefix = stack.pop()
        try:
            res = warroom.roll(procedure, dict(params), entered=list(prefix))
        except TooFewDiceError:
            assert len(prefix) < limit, f"{procedure} {params} needs more than {limit} dice"
            stack.extend((*prefix, face) for face in range(1, 7))
            continue
        key = tuple(res.outcome.values())
        out[key] = out.get(key, Fraction(0)) + Fraction(1, 6 ** len(prefix))
    return out
