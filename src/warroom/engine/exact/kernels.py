"""Multinomial kernels: the distribution of a sum of per-item key deltas over ``n``
independent items, as a packed big-integer power (Kronecker substitution) or a
term-by-term recurrence, with integer weights."""

from __future__ import annotations

import functools
import itertools
import operator
import sys
from collections.abc import Sequence
from math import comb
from typing import Any

KRONECKER_BITS = 16_384
"""Largest power (in bits) the packed multinomial computes; past it the recurrence wins."""


def multinomial_dense(n: int, classes: Sequence[tuple[int, int]]
                       ) -> tuple[int, list[int]] | None:
    """The multinomial of :func:`multinomial_keys` as one dense list: ``(first key,
    weight of every key from it on)``, zeros included; None when too large to pack.

    Kronecker substitution: each class becomes the coefficient ``w`` at slot ``delta`` of
    one big integer whose slots are 64-bit words wide enough for any weight; its ``n``-th
    power holds every weight of the sum of ``n`` items in its slot, and the words come
    back out as one list in C."""
    classes = [(d, w) for d, w in classes if w]
    deltas = [d for d, _ in classes]
    dmin = min(deltas)
    span = max(deltas) - dmin
    words = ((sum([w for _, w in classes]) ** n).bit_length() + 63) >> 6
    width = words << 6
    if (span * n + 1) * width > KRONECKER_BITS or sys.byteorder != "little":
        return None
    raw = _packed_power(n, classes, dmin, width).to_bytes(((span * n + 1) * width) >> 3,
                                                          "little")
    quads = memoryview(raw).cast("Q").tolist()
    if words == 1:
        return n * dmin, quads
    weights: Any = quads[0::words]
    for j in range(1, words):
        weights = map(operator.or_, weights, map(operator.lshift, quads[j::words],
                                                  itertools.repeat(64 * j)))
    return n * dmin, list(weights)


def _packed_power(n: int, classes: Sequence[tuple[int, int]], dmin: int, width: int) -> int:
    """(sum of w * 2**(width * (d - dmin)))**n for the (d, w) classes.

    With three classes (the usual shape: nothing / one effect / another) the power is
    put together row by row, a binomial row for the two lower classes times each power
    of the third, each shifted into place: a fraction of the cost of squaring the whole
    packed number."""
    if len(classes) != 3:
        packed = 0
        for d, w in classes:
            packed += w << ((d - dmin) * width)
        return packed**n  # type: ignore[no-any-return]
    (d0, w0), (d1, w1), (d2, w2) = sorted(classes)
    pair = w0 + (w1 << ((d1 - d0) * width))
    rows = [1]
    for _ in range(n):
        rows.append(rows[-1] * pair)
    shift = (d2 - d0) * width
    packed = 0
    coef = 1  # C(n, a) * w2**a
    for a in range(n + 1):  # row a: a items of the third class, shifted into place
        packed += (coef * rows[n - a]) << (a * shift)
        coef = coef * (n - a) * w2 // (a + 1)
    return packed << ((d0 - dmin) * n * width)


@functools.lru_cache(maxsize=1024)
def multinomial_keys(n: int, classes: tuple[tuple[int, int], ...]) -> dict[int, int]:
    """Sum of per-item key deltas over ``n`` items -> integer weight (over den**n).

    Memoised: a pure function of small integers that recurs across queries and sweeps.
    Callers must not mutate the returned dict.

    ``classes`` holds (delta, weight) per category. Rows of binomial weights are built
    once; for three categories each row's keys form an arithmetic progression, so a
    row goes into the result with one C-level ``zip``.
    """
    classes = tuple((d, w) for d, w in classes if w)
    if len(classes) == 1:
        d, w = classes[0]
        return {n * d: w**n}
    if len(classes) == 2:
        (d1, w1), (d2, w2) = classes
        if d1 == d2:
            return {n * d1: (w1 + w2) ** n}
        row = _binomial_row(n, w1, w2)
        return dict(zip(range(n * d2, n * d2 + (n + 1) * (d1 - d2), d1 - d2), row, strict=True))
    if len(classes) == 3:
        (da, wa), (db, wb), (dc, wc) = classes
        step = db - dc
        out: dict[int, int] = {}
        pa = 1
        terms = 0
        for a in range(n + 1):
            m = n - a
            # row b = C(n,a) wa^a C(m,b) wb^b wc^(m-b), each term from the one before
            t = comb(n, a) * pa * wc**m
            row = [t]
            for b in range(m):
                t = t * (m - b) * wb // ((b + 1) * wc)
                row.append(t)
            start = a * da + m * dc
            if step:
                out.update(zip(range(start, start + (m + 1) * step, step), row, strict=True))
                terms += m + 1
            else:
                out[start] = sum(row)
                terms += 1
            pa *= wa
        if len(out) == terms:
            return out
        # some outcomes coincide: add up instead of overwriting
        out = {}
        pa = 1
        for a in range(n + 1):
            m = n - a
            t = comb(n, a) * pa * wc**m
            start = a * da + m * dc
            for b in range(m + 1):
                k = start + b * step
                out[k] = out.get(k, 0) + t
                t = t * (m - b) * wb // ((b + 1) * wc)
            pa *= wa
        return out
    # four or more categories: peel one off and recurse
    (d0, w0), rest = classes[0], classes[1:]
    result: dict[int, int] = {}
    p0 = 1
    for c in range(n + 1):
        sub = multinomial_keys(n - c, tuple(rest)) if c < n else {0: 1}
        scale = comb(n, c) * p0
        shift = c * d0
        for k, w in sub.items():
            key = k + shift
            result[key] = result.get(key, 0) + scale * w
        p0 *= w0
    return result


def _binomial_row(m: int, wb: int, wc: int) -> list[int]:
    """[C(m,b) wb^b wc^(m-b) for b in 0..m]."""
    pb = [1]
    pc = [1]
    for _ in range(m):
        pb.append(pb[-1] * wb)
        pc.append(pc[-1] * wc)
    return [comb(m, b) * pb[b] * pc[m - b] for b in range(m + 1)]

