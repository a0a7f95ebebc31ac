"""Exact distributions of dice requests as integer weights over a common denominator.

Every function returns ``(options, denominator)`` where ``options`` is a list of
``(value, weight)`` with integer weights summing to ``denominator``. Keeping integers
(instead of ``Fraction``) in the inner loops is what makes the exact driver fast.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence
from math import comb, factorial
from typing import Literal

Reroll = Literal["none", "misses", "hits"]
View = Literal["ordered", "sorted", "sum", "max", "min"]

Options = list[tuple[object, int]]


def faces_at_least(at: int, sides: int = 6) -> int:
    """How many faces of a die show ``at`` or more (0 when ``at`` > sides)."""
    return max(0, min(sides, sides - at + 1))


def success_weight(at: int, reroll: Reroll = "none", sides: int = 6) -> tuple[int, int]:
    """Chance that one die succeeds at ``at``+ after the re-roll rule, as (num, den)."""
    found = _SUCCESS.get((at, reroll, sides))
    if found is None:
        if len(_SUCCESS) > 4096:
            _SUCCESS.clear()
        found = _SUCCESS[at, reroll, sides] = _success_weight(at, reroll, sides)
    return found


_SUCCESS: dict[tuple[int, str, int], tuple[int, int]] = {}
"""Memo of :func:`success_weight`, asked once per pool and test in every replay (targets
run from about -2 to 12, so it stays a few dozen entries)."""


def _success_weight(at: int, reroll: Reroll, sides: int) -> tuple[int, int]:
    s = faces_at_least(at, sides)
    if reroll == "none":
        return s, sides
    if reroll == "misses":
        # succeed at once, or miss and succeed on the re-roll
        return s * sides + (sides - s) * s, sides * sides
    # "hits": every success is rolled again and must succeed again
    return s * s, sides * sides


@functools.lru_cache(maxsize=4096)
def binomial(n: int, num: int, den: int) -> tuple[list[tuple[int, int]], int]:
    """Successes among ``n`` independent trials of chance ``num/den``."""
    fail = den - num
    if num == 0:
        return [(0, 1)], 1
    if fail == 0:
        return [(n, 1)], 1
    ps = [1]
    qs = [1]
    for _ in range(n):
        ps.append(ps[-1] * num)
        qs.append(qs[-1] * fail)
    return [(k, comb(n, k) * ps[k] * qs[n - k]) for k in range(n + 1)], den**n


def multinomial(n: int, weights: Sequence[int]) -> tuple[list[tuple[tuple[int, ...], int]], int]:
    """Counts per category among ``n`` items, each falling in category i with weight w_i.

    Memoised (callers must not mutate the result)."""
    return _multinomial(n, tuple(weights))


@functools.lru_cache(maxsize=4096)
def _multinomial(n: int, weights: tuple[int, ...]) -> tuple[list[tuple[tuple[int, ...], int]], int]:
    den = sum(weights)
    k = len(weights)
    pows = []
    for w in weights:
        row = [1]
        for _ in range(n):
            row.append(row[-1] * w)
        pows.append(row)
    out: list[tuple[tuple[int, ...], int]] = []
    fact_n = factorial(n)

    def rec(i: int, left: int, counts: tuple[int, ...], weight: int, denom: int) -> None:
        if i == k - 1:
            cs = (*counts, left)
            out.append((cs, fact_n // (denom * factorial(left)) * weight * pows[i][left]))
            return
        for c in range(left + 1):
            if weights[i] == 0 and c:
                break
            rec(i + 1, left - c, (*counts, c), weight * pows[i][c], denom * factorial(c))

    rec(0, n, (), 1, 1)
    return [(cs, w) for cs, w in out if w], den**n


@functools.cache
def dice_view(k: int, sides: int, view: View) -> tuple[Options, int]:
    """The distribution of ``k`` dice seen as ordered tuples, sorted tuples, a sum, max or min."""
    den = sides**k
    if view == "ordered":
        return [(t, 1) for t in itertools.product(range(1, sides + 1), repeat=k)], den
    if view == "sorted":
        opts: Options = []
        for combo in itertools.combinations_with_replacement(range(1, sides + 1), k):
            ways = factorial(k)
            for _, grp in itertools.groupby(combo):
                ways //= factorial(len(list(grp)))
            opts.append((combo, ways))
        return opts, den
    if view == "sum":
        dist = {0: 1}
        for _ in range(k):
            nxt: dict[int, int] = {}
            for total, w in dist.items():
                for f in range(1, sides + 1):
                    nxt[total + f] = nxt.get(total + f, 0) + w
            dist = nxt
        return sorted(dist.items()), den
    if view == "max":
        return [(m, m**k - (m - 1) ** k) for m in range(1, sides + 1)], den
    if view == "min":
        return [
            (m, (sides - m + 1) ** k - (sides - m) ** k) for m in range(1, sides + 1)
        ], den
    raise ValueError(f"unknown view {view!r}")


def view_of(values: Sequence[int], view: View) -> object:
    """What a procedure sees of concrete dice under ``view``."""
    if view == "ordered":
        return tuple(values)
    if view == "sorted":
        return tuple(sorted(values))
    if view == "sum":
        return sum(values)
    if view == "max":
        return max(values)
    return min(values)
