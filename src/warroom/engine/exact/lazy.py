"""Lazy-count evaluation: the distribution of an outcome holding lazy counts
(:mod:`warroom.engine.symbolic`) and conditions on them, each category tree turned into
one categorical per item and a multinomial over the counts
(:mod:`~warroom.engine.exact.kernels`), with integer weights over one denominator."""

from __future__ import annotations

import itertools
import operator
from collections.abc import Iterator
from math import gcd, lcm
from typing import Any

from warroom.engine import tally as _tally
from warroom.engine.exact.core import Outcome
from warroom.engine.exact.kernels import multinomial_dense, multinomial_keys
from warroom.engine.symbolic import Cond, Node, Sym

EVAL_MEMO: dict[Any, tuple[dict[Outcome, int], int]] = {}
_EVAL_MEMO_SIZE = 4096


def lazy_outcomes(key: Outcome, lazy: list[int] | None = None
                  ) -> tuple[dict[Outcome, int], int]:
    """Distribution of an outcome holding lazy counts (at the positions ``lazy``, if the
    caller found them). When its lazy fields are distinct
    counts with no conditions (a state whose stage left ``teams - losses`` in it, say),
    only those counts are evaluated, without their constants, so the (memoised) work
    is shared by every state that differs only in its plain values and constants."""
    if lazy is None:
        lazy = [j for j, v in enumerate(key) if isinstance(v, (Sym, Cond))]
    if type(key[lazy[0]]) is _tally.Count:  # Dice.tally's counts (engine/tally.py)
        found = _tally.outcomes(key, lazy)
        if found is not None:
            return found
    if len(lazy) == len(key) or any(type(key[j]) is not Sym for j in lazy) or len(
            {id(key[j]) for j in lazy}) < len(lazy):
        return evaluate(list(key))
    exprs: list[Any] = []
    consts: list[int] = []
    for j in lazy:
        e = key[j]
        consts.append(e.const)
        exprs.append(Sym(e.terms) if e.const else e)
    sub, den = evaluate(exprs)
    first, last = lazy[0], lazy[-1] + 1
    if last - first == len(lazy) and not any(consts):
        # the lazy fields side by side without constants (the usual shape): each
        # outcome is the plain fields around the evaluated values, joined in C
        head, tail = key[:first], key[last:]
        return {head + values + tail: w for values, w in sub.items()}, den
    plain = list(key)
    out: dict[Outcome, int] = {}
    for values, w in sub.items():
        for j, v, c in zip(lazy, values, consts, strict=True):
            plain[j] = v + c
        out[tuple(plain)] = w
    return out, den


def _pattern(value: Any, index: dict[int, int]) -> Any:
    """A hashable description of an outcome value in terms of expression numbers."""
    if isinstance(value, Sym):
        return ("sym", index[id(value)])
    if isinstance(value, Cond):
        return ("cond", value.op, tuple(_pattern(a, index) for a in value.args))
    return ("value", type(value).__name__, value)


def evaluate(values: list[Any]) -> tuple[dict[Outcome, int], int]:
    """Distribution of an outcome whose fields hold lazy counts and conditions.

    Each category tree becomes one categorical per item: the leaves grouped by the
    vector of coefficients the expressions give them, with integer weights over the
    tree's denominator. Memoised by structure: the trees' sizes and categoricals, the
    expressions' constants and the shape of the outcome fully determine the result."""
    # "pure": every field is its own lazy count (no conditions, constants or repeats)
    pure = len({id(v) for v in values if type(v) is Sym}) == len(values)
    exprs: list[Sym] = values if pure else _expressions(values)
    m = len(exprs)
    parts = _parts(exprs)
    try:
        key: Any = (
            tuple(parts), tuple([e.const for e in exprs]),
            m if pure else tuple([_pattern(v, {id(e): i for i, e in enumerate(exprs)})
                                  for v in values]),
        )
        hit = EVAL_MEMO.get(key)
    except TypeError:  # an unhashable constant in the outcome
        key = hit = None
    if hit is not None:
        return hit
    result = _evaluate_parts(values, exprs, pure, parts)
    if key is not None:
        if len(EVAL_MEMO) >= _EVAL_MEMO_SIZE:
            EVAL_MEMO.pop(next(iter(EVAL_MEMO)))
        EVAL_MEMO[key] = result
    return result


Part = tuple[int, int, tuple[tuple[tuple[int, ...], int], ...]]
"""One category tree as (items, denominator, ((coefficient vector, weight), ...))."""


def _expressions(values: list[Any]) -> list[Sym]:
    """The distinct lazy counts in an outcome's values, conditions' included, in order."""
    exprs: list[Sym] = []
    seen: set[int] = set()
    for v in values:
        for e in (v,) if isinstance(v, Sym) else v.syms() if isinstance(v, Cond) else ():
            if id(e) not in seen:
                seen.add(id(e))
                exprs.append(e)
    return exprs


def _parts(exprs: list[Sym]) -> list[Part]:
    """Each category tree the counts ``exprs`` add up as one categorical per item: the
    leaves grouped by the vector of their coefficients in the counts, with integer
    weights over the tree's denominator."""
    m = len(exprs)
    # per tree: each leaf's coefficient in each expression
    trees: dict[Node, dict[Node, list[int]]] = {}
    for j, e in enumerate(exprs):
        for node, c in e.terms.items():
            cols = trees.get(node.top)
            if cols is None:
                top = node.top
                cols = trees[top] = {leaf: [0] * m for leaf in top.nodes if not leaf.children}
            if node.children:
                for leaf in node.leaves():
                    cols[leaf][j] += c
            else:
                cols[node][j] += c
    parts: list[Part] = []
    for top, cols in trees.items():
        d = lcm(*[leaf.cden for leaf in cols])
        chances: dict[tuple[int, ...], int] = {}
        for leaf, col in cols.items():
            k = tuple(col)
            chances[k] = chances.get(k, 0) + leaf.cnum * (d // leaf.cden)
        parts.append((top.size, d, tuple(chances.items())))
    return parts


def _evaluate_parts(values: list[Any], exprs: list[Sym], pure: bool, parts: list[Part]
                    ) -> tuple[dict[Outcome, int], int]:
    los, his = _bounds(exprs, parts)
    # Mixed-radix encoding of the vector of expression values into one int. The last
    # expression varies fastest, so increasing keys enumerate value tuples in the order
    # itertools.product yields them (the decoding below relies on it).
    radices = [hi - lo + 1 for lo, hi in zip(los, his, strict=True)]
    mults = [0] * len(exprs)
    mult = 1
    offset = 0
    for j in range(len(exprs) - 1, -1, -1):
        mults[j] = mult
        offset += (exprs[j].const - los[j]) * mult
        mult *= radices[j]
    # per tree: one categorical per item (key delta -> weight) in lowest terms
    den = 1
    classes: list[tuple[int, list[tuple[int, int]]]] = []
    for size, d, cats in parts:
        g = gcd(d, *[w for _, w in cats])
        d //= g
        classes.append((size, [(sum(map(operator.mul, col, mults)), w // g) for col, w in cats]))
        den *= d**size
    ranges = list(map(range, los, [hi + 1 for hi in his]))
    if pure and len(classes) == 1:
        dense = multinomial_dense(*classes[0])
        if dense is not None:
            first, weights = dense
            # the packed list may stop short of the last key (never run past it)
            keys: Iterator[tuple[int, ...]] = itertools.product(*ranges)
            if first + offset:
                keys = itertools.islice(keys, first + offset, None)
            return dict(zip(itertools.compress(keys, weights), filter(None, weights),
                            strict=True)), den
    dist = _convolved(classes)
    if offset:
        dist = {k + offset: w for k, w in dist.items()}
    if pure and mult <= 16 * len(dist) + 256:
        # every key in order with its weight (0 where none), decoded in C
        weights = list(map(dist.get, range(mult), itertools.repeat(0)))
        return dict(zip(itertools.compress(itertools.product(*ranges), weights),
                        filter(None, weights), strict=True)), den
    return _decode(values, exprs, mults, los, radices, dist), den


def _bounds(exprs: list[Sym], parts: list[Part]) -> tuple[list[int], list[int]]:
    """Each expression's range of values: its constant plus, per tree, the tree's size
    times its least (most) coefficient in that tree."""
    los = [e.const for e in exprs]
    his = los.copy()
    for size, _, cats in parts:
        for j, coefs in enumerate(zip(*[col for col, _ in cats], strict=True)):
            least, most = min(coefs), max(coefs)
            if least < 0:
                los[j] += size * least
            if most > 0:
                his[j] += size * most
    return los, his


def _convolved(classes: list[tuple[int, list[tuple[int, int]]]]) -> dict[int, int]:
    """The sum of every tree's items' key deltas: each tree's multinomial
    (:func:`~warroom.engine.exact.kernels.multinomial_keys`), convolved."""
    dist: dict[int, int] | None = None
    for size, cls in classes:
        part = multinomial_keys(size, tuple(cls))
        if dist is None:
            dist = part
        else:
            nxt: dict[int, int] = {}
            for k1, w1 in dist.items():
                for k2, w2 in part.items():
                    nxt[k1 + k2] = nxt.get(k1 + k2, 0) + w1 * w2
            dist = nxt
    return {0: 1} if dist is None else dist


def _decode(values: list[Any], exprs: list[Sym], mults: list[int], los: list[int],
            radices: list[int], dist: dict[int, int]) -> dict[Outcome, int]:
    """Turn mixed-radix keys back into outcome tuples."""
    out: dict[Outcome, int] = {}
    spec = list(zip(exprs, mults, los, radices, strict=True))
    for key, w in dist.items():
        vals = {id(e): (key // m) % rad + lo for e, m, lo, rad in spec}
        outcome = tuple(
            vals[id(v)] if isinstance(v, Sym)
            else v.evaluate(vals) if isinstance(v, Cond) else v
            for v in values
        )
        out[outcome] = out.get(outcome, 0) + w
    return out

