"""The distribution of a sum of independent whole-number outcomes: a side's hits over
every shot of a battle, its passed tests over every test.

Each outcome comes as integer weights over its own denominator (as :class:`Distribution`
keeps them); the sum's weights are over the product of the denominators, worked out
exactly as a product of polynomials packed into one integer each (Kronecker
substitution: Python multiplies big integers far faster than it runs a convolution's
loops). Equal outcomes (the same shot again) are raised to a power instead of
multiplied one by one. Past :data:`EXACT_BITS` the packed product would grow too large
to be quick, and :func:`sum_chances` works in floating point instead (still from the
exact chances of each outcome: off by rounding only).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from fractions import Fraction

Weights = tuple[Mapping[int, int], int]
"""An outcome: integer weights of its values over a denominator (they sum to it)."""

EXACT_BITS = 40_000_000
"""The most bits the packed product of an exact sum may have (about 5 MB; a hundred
shots of a few dice each stay far below it)."""


def _key(part: Weights) -> tuple[tuple[tuple[int, int], ...], int]:
    weights, den = part
    return tuple(sorted((v, w) for v, w in weights.items() if w)), den


def exact_size(parts: Sequence[Weights]) -> int:
    """Bits of the packed product :func:`sum_weights` would build."""
    support = 1 + sum(max(w) - min(w) for w, _ in parts if w)
    bits = 1
    for _, den in parts:
        bits += den.bit_length()
    return support * bits


def sum_weights(parts: Sequence[Weights]) -> tuple[dict[int, int], int]:
    """The exact distribution of the sum of independent outcomes: integer weights of
    each total over the product of the denominators."""
    groups = Counter(_key(p) for p in parts)
    den = 1
    for (_, d), n in groups.items():
        den *= d**n
    width = den.bit_length() + 1  # every weight of the sum is at most den: no carries
    low = 0
    product = 1
    for (items, _), n in groups.items():
        base = items[0][0]
        low += base * n
        packed = 0
        for v, w in items:
            packed |= w << (width * (v - base))
        product *= packed**n
    out: dict[int, int] = {}
    mask = (1 << width) - 1
    k = 0
    while product:
        w = product & mask
        if w:
            out[low + k] = w
        product >>= width
        k += 1
    return out, den


def sum_chances(parts: Sequence[Weights]) -> tuple[dict[int, Fraction | float], bool]:
    """The sum's chance of each total, and whether they are exact (Fractions): exact
    while the packed product stays within :data:`EXACT_BITS`, else floats."""
    if exact_size(parts) <= EXACT_BITS:
        weights, den = sum_weights(parts)
        return {v: Fraction(w, den) for v, w in sorted(weights.items())}, True
    import numpy as np

    low = 0
    total = np.ones(1)
    for (items, d), n in Counter(_key(p) for p in parts).items():
        base = items[0][0]
        low += base * n
        one = np.zeros(items[-1][0] - base + 1)
        for v, w in items:
            one[v - base] = w / d
        power = np.ones(1)
        while n:  # one outcome n times over, by squaring
            if n & 1:
                power = np.convolve(power, one)
            n >>= 1
            if n:
                one = np.convolve(one, one)
        total = np.convolve(total, power)
    return {low + k: float(p) for k, p in enumerate(total) if p > 0}, False


def percentile(chances: Mapping[int, Fraction | float], actual: int) -> Fraction | float:
    """Where ``actual`` falls in the distribution of the total, from 0 to 1: the chance
    of a smaller total plus half the chance of this one (the mid-distribution
    percentile, so that a total as likely to be beaten as not sits at 1/2)."""
    below = sum((p for v, p in chances.items() if v < actual), Fraction(0))
    return below + Fraction(1, 2) * chances.get(actual, 0)
