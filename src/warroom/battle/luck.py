"""How unusual a side's luck is: for each outcome field its rolls add up (hits, kills,
passed tests), where the total the dice gave falls in the distribution of every total
they could have given, summed over the side's live resolutions.

A resolution's chances come from its rule's exact odds (a Monte Carlo estimate where
they are past the exact budget, as for its expectation); the resolutions are
independent, so the total's distribution is theirs added up
(:func:`warroom.engine.sums.sum_chances`). The percentile is the chance of a smaller
total plus half the chance of this one (:func:`warroom.engine.sums.percentile`): 1/2
for a side whose dice gave what they usually give, near 0 or 1 for a side whose dice
were unusual, and it narrows with the number of rolls by itself (ten hits too many in
ten shots is rarer than in a hundred), so no band of colours is needed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from fractions import Fraction
from typing import Any

from warroom.engine.results import Distribution, Estimate
from warroom.engine.sums import Weights, percentile, sum_chances

Odds = Callable[[str, Mapping[str, Any]], "Distribution | Estimate | None"]
"""A resolution's odds from its procedure and its recorded parameters (None: none can
be worked out here, as for a rule of a log imported from elsewhere)."""


def weights_of(odds: Distribution | Estimate, name: str) -> Weights:
    """One field's chances as integer weights over a denominator (a yes counts 1), from
    exact odds or an estimate's counts."""
    if isinstance(odds, Estimate):
        pairs: Iterable[tuple[Any, int]] = odds.counts.items()
        den = odds.samples
        fields = odds.fields
    else:
        pairs, den, fields = odds.weights.items(), odds.denominator, odds.fields
    i = fields.index(name)
    acc: dict[int, int] = {}
    for key, w in pairs:
        v = int(key[i])
        acc[v] = acc.get(v, 0) + w
    return acc, den


def report(table: Mapping[str, Any], resolutions: Iterable[Mapping[str, Any]],
           odds: Odds) -> dict[str, Any]:
    """The luck table (:func:`warroom.battle.core._luck_table`'s totals) with, for each
    side's field, how unusual its total is: ``percentile`` (0 to 1; ``percentile_exact``
    as a fraction when it is exact), ``estimate`` (true where a resolution's odds were a
    Monte Carlo estimate, or the sum too large to work out in fractions), ``margin``
    (how far an estimated percentile may be off, 95%) and ``spread`` (false for a total
    the dice could not change: nothing to say about luck). ``resolutions`` are the live
    resolved events. A total one of whose rolls has no odds here has no percentile
    (None)."""
    parts: dict[str, dict[str, list[Weights]]] = {}
    margins: dict[str, dict[str, float]] = {}
    unknown: set[tuple[str, str]] = set()
    for ev in resolutions:
        side = str(ev["side"])
        found = odds(str(ev["procedure"]), ev["params"])
        for name in ev.get("expected") or {}:
            if found is None or name not in found.fields:
                unknown.add((side, name))
                continue
            parts.setdefault(side, {}).setdefault(name, []).append(weights_of(found, name))
            if isinstance(found, Estimate):
                acc = margins.setdefault(side, {})
                acc[name] = acc.get(name, 0.0) + found.margin
    sides: dict[str, Any] = {}
    for side, info in table["sides"].items():
        fields: dict[str, Any] = {}
        for name, f in info["fields"].items():
            row = dict(f)
            mine = parts.get(side, {}).get(name, [])
            chances, exact = sum_chances(mine) if mine else ({0: Fraction(1)}, True)
            margin = margins.get(side, {}).get(name)
            where = percentile(chances, int(f["actual"]))
            row["spread"] = len(chances) > 1 or (side, name) in unknown
            row["percentile"] = None if (side, name) in unknown else round(float(where), 4)
            row["percentile_exact"] = (f"{where.numerator}/{where.denominator}"
                                       if exact and margin is None
                                       and (side, name) not in unknown
                                       and isinstance(where, Fraction) else None)
            row["estimate"] = not exact or margin is not None
            row["margin"] = None if margin is None else round(min(margin, 1.0), 4)
            fields[name] = row
        sides[side] = {**info, "fields": fields}
    return {**table, "sides": sides}
