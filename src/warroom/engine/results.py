"""What the drivers return: exact distributions, resolutions with steps, estimates."""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from warroom.engine.messages import Translator
from warroom.engine.steps import Step

Outcome = tuple[Any, ...]
Orders = tuple[Mapping[Any, int] | None, ...]
"""Per outcome field, the rank of each value a text field declares (None: no order):
an ASL IFT result lists KIA before K/, MC, NMC, PTC and '-', as the table does."""


def _sort_key(outcome: Outcome, orders: Orders = ()) -> tuple[Any, ...]:
    """Numbers first and ascending; text by its declared rank (undeclared values last),
    then alphabetically."""
    return tuple((0, v, "") if isinstance(v, (int, float))
                 else (1, 0 if order is None else order.get(v, len(order)), str(v))
                 for v, order in zip(outcome, orders or (None,) * len(outcome), strict=True))


@dataclass(frozen=True, init=False)
class Distribution:
    """Exact outcome distribution: integer weights over one denominator.

    ``probability``/``items`` give :class:`fractions.Fraction` values; the weights
    sum to exactly ``denominator`` (checked by :meth:`total`).
    """

    procedure: str
    params: Mapping[str, Any]
    fields: tuple[str, ...]
    weights: Mapping[Outcome, int]
    denominator: int
    orders: Orders

    def __init__(self, procedure: str, params: Mapping[str, Any], fields: tuple[str, ...],
                 weights: Mapping[Outcome, int], denominator: int, orders: Orders = ()
                 ) -> None:
        # one update instead of a frozen dataclass's object.__setattr__ calls: the exact
        # driver makes one per query, and this is a measurable part of a small one
        self.__dict__.update(procedure=procedure, params=params, fields=fields,
                             weights=weights, denominator=denominator, orders=orders)

    def outcomes(self) -> list[Outcome]:
        """Every outcome: numbers in order, text in the order its field declares."""
        orders = self.orders
        return sorted(self.weights, key=lambda o: _sort_key(o, orders))

    def items(self) -> Iterator[tuple[dict[str, Any], Fraction]]:
        for key in self.outcomes():
            yield dict(zip(self.fields, key, strict=True)), Fraction(self.weights[key],
                                                                      self.denominator)

    def total(self) -> Fraction:
        return Fraction(sum(self.weights.values()), self.denominator)

    def probability(self, **where: Any) -> Fraction:
        """Chance that every named field has the given value (a callable tests it)."""
        idx = [(self.fields.index(k), v) for k, v in where.items()]
        num = 0
        for key, w in self.weights.items():
            if all(v(key[i]) if callable(v) else key[i] == v for i, v in idx):
                num += w
        return Fraction(num, self.denominator)

    def marginal(self, name: str) -> dict[Any, Fraction]:
        i = self.fields.index(name)
        acc: dict[Any, int] = {}
        for key, w in self.weights.items():
            acc[key[i]] = acc.get(key[i], 0) + w
        orders = self.orders[i:i + 1]
        return {v: Fraction(acc[v], self.denominator)
                for v in sorted(acc, key=lambda x: _sort_key((x,), orders))}

    def at_least(self, name: str) -> dict[Any, Fraction]:
        """P(field >= v) for every value v the field takes (numeric fields)."""
        marg = self.marginal(name)
        out: dict[Any, Fraction] = {}
        running = Fraction(1)
        for v, p in marg.items():
            out[v] = running
            running -= p
        return out

    def mean(self, name: str) -> Fraction:
        return sum((Fraction(v) * p for v, p in self.marginal(name).items()), Fraction(0))

    def numeric_fields(self) -> list[str]:
        out = []
        for i, name in enumerate(self.fields):
            if all(isinstance(k[i], int) and not isinstance(k[i], bool) for k in self.weights):
                out.append(name)
        return out

    def to_json(self, exact: bool = False) -> dict[str, Any]:
        outcomes = []
        for outcome, p in self.items():
            row: dict[str, Any] = {"outcome": outcome, "p": float(p)}
            if exact:
                row["exact"] = f"{p.numerator}/{p.denominator}"
            outcomes.append(row)
        return {"procedure": self.procedure, "params": dict(self.params), "outcomes": outcomes}


@dataclass(frozen=True)
class Resolution:
    """One resolution with real dice: the outcome, the story, and the dice used."""

    procedure: str
    params: Mapping[str, Any]
    outcome: Mapping[str, Any]
    steps: Sequence[Step]
    dice: Sequence[int]
    seed: int | None
    entered: bool = False

    def to_json(self, translate: Translator | None = None) -> dict[str, Any]:
        return {
            "procedure": self.procedure,
            "params": dict(self.params),
            "outcome": dict(self.outcome),
            "steps": [s.to_dict(translate) for s in self.steps],
            "dice": list(self.dice),
            "seed": self.seed,
        }


def wilson(successes: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """95% Wilson score interval for a proportion."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class Estimate:
    """Monte Carlo counts of each outcome with 95% confidence intervals."""

    procedure: str
    params: Mapping[str, Any]
    fields: tuple[str, ...]
    counts: Mapping[Outcome, int]
    samples: int
    seed: int
    seconds: float = 0.0
    extra: Mapping[str, Any] = field(default_factory=dict)
    orders: Orders = ()

    def p(self, **where: Any) -> float:
        idx = [(self.fields.index(k), v) for k, v in where.items()]
        hits = sum(c for key, c in self.counts.items() if all(key[i] == v for i, v in idx))
        return hits / self.samples if self.samples else 0.0

    def interval(self, **where: Any) -> tuple[float, float]:
        idx = [(self.fields.index(k), v) for k, v in where.items()]
        hits = sum(c for key, c in self.counts.items() if all(key[i] == v for i, v in idx))
        return wilson(hits, self.samples)

    def mean(self, name: str) -> tuple[float, float, float]:
        """Mean of a numeric field with its 95% interval (normal approximation)."""
        i = self.fields.index(name)
        n = self.samples
        s1 = sum(float(k[i]) * c for k, c in self.counts.items())
        s2 = sum(float(k[i]) ** 2 * c for k, c in self.counts.items())
        mean = s1 / n
        var = max(0.0, s2 / n - mean * mean)
        half = 1.959963984540054 * math.sqrt(var / n) if n > 1 else float("inf")
        return mean, mean - half, mean + half

    def to_json(self) -> dict[str, Any]:
        rows = []
        for key in sorted(self.counts, key=lambda o: _sort_key(o, self.orders)):
            c = self.counts[key]
            lo, hi = wilson(c, self.samples)
            rows.append({"outcome": dict(zip(self.fields, key, strict=True)),
                         "p": c / self.samples, "ci95": [lo, hi], "count": c})
        means = {}
        for i, name in enumerate(self.fields):
            if all(isinstance(k[i], int) and not isinstance(k[i], bool) for k in self.counts):
                m, lo, hi = self.mean(name)
                means[name] = {"mean": m, "ci95": [lo, hi]}
        return {"procedure": self.procedure, "params": dict(self.params),
                "samples": self.samples, "seed": self.seed, "outcomes": rows,
                "means": means, "seconds": self.seconds}
