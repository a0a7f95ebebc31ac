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
Z95 = 1.959963984540054
SUMMARY_OVER = 100
"""A joint outcome list longer than this is summarised per field (and per unit of a
field listing units, ``squad1=ok,leader1=broken``) unless the whole list is asked for."""
Parts = list[tuple[str, dict[Any, Fraction]]]
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
    leave_out: frozenset[str]
    """Fields that repeat part of another (``Procedure.repeats``): :meth:`parts` leaves
    them out."""

    def __init__(self, procedure: str, params: Mapping[str, Any], fields: tuple[str, ...],
                 weights: Mapping[Outcome, int], denominator: int, orders: Orders = (),
                 parts: Parts | None = None, leave_out: frozenset[str] = frozenset()
                 ) -> None:
        # one update instead of a frozen dataclass's object.__setattr__ calls: the exact
        # driver makes one per query, and this is a measurable part of a small one
        self.__dict__.update(procedure=procedure, params=params, fields=fields,
                             weights=weights, denominator=denominator, orders=orders,
                             _parts=parts, leave_out=leave_out)

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

    def parts(self) -> Parts:
        """Each field's chances, a field listing units (``squad1=ok,leader1=broken``)
        split into one part per unit (``units: squad1``), each unit's states in the order
        a field declares them (ok ... eliminated); fields in :attr:`leave_out` left out.
        Readable where the joint outcomes run to thousands. Worked out once (a worker
        process may hand them over with the distribution)."""
        found: Parts | None = self.__dict__.get("_parts")
        if found is not None:
            return found
        out: Parts = []
        den = self.denominator
        for i, name in enumerate(self.fields):
            if name in self.leave_out:
                continue
            acc: dict[Any, int] = {}
            for key, w in self.weights.items():
                acc[key[i]] = acc.get(key[i], 0) + w
            split = split_units(acc)
            if split is None:
                out.append((name, self.marginal(name)))
                continue
            out.extend((f"{name}: {unit}", {v: Fraction(chances[v], den)
                                            for v in self._declared(chances)})
                       for unit, chances in split.items())
        self.__dict__["_parts"] = out
        return out

    def _declared(self, values: Mapping[Any, Any]) -> list[Any]:
        """``values`` in the order the first field declaring all of them gives (a unit's
        states: ok ... eliminated), else as they are."""
        for order in self.orders:
            if order is not None and all(v in order for v in values):
                return sorted(values, key=order.__getitem__)
        return list(values)

    def likeliest(self, limit: int) -> list[tuple[dict[str, Any], Fraction]]:
        """The ``limit`` most likely whole outcomes, in the order of :meth:`items`."""
        import heapq

        if len(self.weights) <= limit:
            return list(self.items())
        top = heapq.nlargest(limit, self.weights.items(), key=lambda kw: kw[1])
        orders = self.orders
        top.sort(key=lambda kw: _sort_key(kw[0], orders))
        return [(dict(zip(self.fields, key, strict=True)), Fraction(w, self.denominator))
                for key, w in top]

    def to_json(self, exact: bool = False, full: bool = True) -> dict[str, Any]:
        """Every outcome; with ``full=False`` a list longer than :data:`SUMMARY_OVER`
        gives way to a summary per field (each unit's chance of each of its values)."""
        head: dict[str, Any] = {"procedure": self.procedure, "params": dict(self.params),
                                "estimate": False}
        if not full and len(self.weights) > SUMMARY_OVER:
            head["joint_outcomes"] = len(self.weights)
            head["summary"] = {
                name: [_chance_row(v, p, exact) for v, p in chances.items()]
                for name, chances in self.parts()}
            return head
        outcomes = []
        for outcome, p in self.items():
            row: dict[str, Any] = {"outcome": outcome, "p": float(p)}
            if exact:
                row["exact"] = f"{p.numerator}/{p.denominator}"
            outcomes.append(row)
        head["outcomes"] = outcomes
        return head


def _chance_row(value: Any, p: Fraction, exact: bool) -> dict[str, Any]:
    row: dict[str, Any] = {"value": value, "p": float(p)}
    if exact:
        row["exact"] = f"{p.numerator}/{p.denominator}"
    return row


def unit_pairs(value: Any) -> list[tuple[str, str]] | None:
    """A value listing units (``squad1=ok,hs1=broken``) as (unit, state) pairs; None for
    any other value."""
    if not isinstance(value, str) or "=" not in value:
        return None
    pairs = [item.partition("=") for item in value.split(",")]
    if any(not unit or not state for unit, _, state in pairs):
        return None
    return [(unit, state) for unit, _, state in pairs]


def split_units(marginal: Mapping[Any, Any]) -> dict[str, dict[str, Any]] | None:
    """A text field whose every value lists the same units (``squad1=ok,hs1=broken``),
    as each unit's total weight per state (in the order states first appear); None for
    any other field, or one with a single value. Weights may be ints, Fractions or
    counts. Each value is read once (a stack's estimate lists some 30,000)."""
    if len(marginal) <= 1:
        return None
    names: list[str] = []
    items_at: list[dict[str, Any]] = []  # each position's items (unit=state), weighed
    for value, w in marginal.items():
        if not isinstance(value, str):
            return None
        items = value.split(",")
        if not names:  # the first value names the units
            pairs = unit_pairs(value)
            if pairs is None:
                return None
            names = [unit for unit, _ in pairs]
            items_at = [{} for _ in names]
        if len(items) != len(names):
            return None
        for item, acc in zip(items, items_at, strict=True):
            acc[item] = acc.get(item, 0) + w
    units: dict[str, dict[str, Any]] = {}
    for unit, acc in zip(names, items_at, strict=True):
        prefix = unit + "="  # then a state (a unit's name has no "=")
        if any(len(item) <= len(prefix) or not item.startswith(prefix) for item in acc):
            return None
        units[unit] = {item[len(prefix):]: w for item, w in acc.items()}
    return units


Column = tuple[str, str]
"""A column of a table of whole outcomes: (field, unit), the unit "" but for a field
listing units, shown one column per unit."""


def columns(dist: Distribution, fields: Sequence[str]) -> list[Column]:
    """The columns of a table of ``dist``'s whole outcomes showing ``fields``: a field
    listing units (``squad1=ok,hs1=broken``) as one column per unit (squad1, hs1)."""
    units: dict[str, list[str]] = {}  # read from the fields' chances, never a pass
    for part, _chances in dist.parts():  # over thousands of whole outcomes
        name, _, unit = part.partition(": ")
        if unit:
            units.setdefault(name, []).append(unit)
    return [(name, unit) for name in fields for unit in units.get(name, [""])]


def cell(outcome: Mapping[str, Any], column: Column) -> Any:
    """A whole outcome's value in ``column`` (one unit's state in a unit's column)."""
    name, unit = column
    value = outcome[name]
    if not unit:
        return value
    return dict(unit_pairs(value) or ()).get(unit, value)


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


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
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
    parts: Parts | None = field(default=None, repr=False, compare=False)
    leave_out: frozenset[str] = frozenset()
    """Fields per-field summaries leave out (see :attr:`Distribution.leave_out`)."""
    """Each field's (and unit's) chances over the samples, when already worked out (a
    worker process hands them over with the counts); else worked out on first use."""

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
        half = Z95 * math.sqrt(var / n) if n > 1 else float("inf")
        return mean, mean - half, mean + half

    @property
    def margin(self) -> float:
        """How far any chance may be off, at worst (95%, normal bound at p = 1/2)."""
        return Z95 * math.sqrt(0.25 / self.samples) if self.samples else 1.0

    def as_distribution(self) -> Distribution:
        """The counts as a distribution over the samples, for views shared with exact
        odds; whoever shows it must mark it as an estimate (it is not exact). Made once."""
        found = self.__dict__.get("_dist")
        if found is None:
            found = Distribution(self.procedure, self.params, self.fields, self.counts,
                                 self.samples, self.orders, self.parts, self.leave_out)
            object.__setattr__(self, "_dist", found)
        return found

    def to_json(self, full: bool = True) -> dict[str, Any]:
        """Counts with 95% intervals, flagged ``"estimate": true`` with the worst
        ``margin``; with ``full=False`` a long list is summarised as exact odds are."""
        head: dict[str, Any] = {"procedure": self.procedure, "params": dict(self.params),
                                "estimate": True, "samples": self.samples, "seed": self.seed,
                                "margin": self.margin}
        if self.extra.get("stopped_early"):
            head["stopped_early"] = True
            head["samples_asked"] = self.extra.get("samples_asked")
        if not full and len(self.counts) > SUMMARY_OVER:
            head["joint_outcomes"] = len(self.counts)
            head["summary"] = {
                name: [{"value": v, "p": float(p), "ci95": list(wilson(
                    int(p * self.samples), self.samples))} for v, p in chances.items()]
                for name, chances in self.as_distribution().parts()}
            head["means"] = self._means()
            head["seconds"] = self.seconds
            return head
        rows = []
        for key in sorted(self.counts, key=lambda o: _sort_key(o, self.orders)):
            c = self.counts[key]
            lo, hi = wilson(c, self.samples)
            rows.append({"outcome": dict(zip(self.fields, key, strict=True)),
                         "p": c / self.samples, "ci95": [lo, hi], "count": c})
        head.update(outcomes=rows, means=self._means(), seconds=self.seconds)
        return head

    def _means(self) -> dict[str, dict[str, Any]]:
        means = {}
        for i, name in enumerate(self.fields):
            if all(isinstance(k[i], int) and not isinstance(k[i], bool) for k in self.counts):
                m, lo, hi = self.mean(name)
                means[name] = {"mean": m, "ci95": [lo, hi]}
        return means
