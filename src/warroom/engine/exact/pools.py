"""Closed-form transitions of pool stages: a stage whose dice are pools of independent
items, each split once by one request, and whose next state only counts them.

Recognised, in the state a stage's first run returns (nothing concrete, nothing
branched): every lazy value is a plain lazy count (:class:`~warroom.engine.symbolic.Sym`:
not a condition, not a :meth:`Dice.tally` count) adding up, with any integer
coefficients and a constant, categories that are the direct children of a root. A root
is a fresh pool of a plain number of items and its children are the categories one
request split it into: ``d.pool(n, at)`` (hit, miss), ``d.split(n, classes)`` (one per
class), ``d.each(n, chain, labels)`` (one per label) with ``n`` a plain int, whatever
the stage does with the counts afterwards by ``+``, ``-`` and ``* int`` (``left - ones``,
``k - saved``). Then the counts' joint distribution depends only on the pools' sizes,
their categories' chances and the coefficients (the *shape*): a product of multinomials,
worked out once per shape by the kernels (:func:`~warroom.engine.exact.lazy.evaluate`,
:mod:`~warroom.engine.exact.kernels`) and kept as a table of count values, which every
state of that shape fills in with its own plain values and constants. Anything else (a
count split again, such as ``d.pool(roll["hit"], at)``, a comparison left lazy, a tally,
a count the stage made concrete) goes the general way (``None``)."""

from __future__ import annotations

from typing import Any

from warroom.engine.exact.core import Outcome
from warroom.engine.exact.lazy import evaluate
from warroom.engine.symbolic import Node, Sym

Table = tuple[tuple[tuple[int, ...], ...], tuple[int, ...], int]
"""The counts' values (one tuple per outcome, constants left out), their weights and
the denominator."""

POOL_TABLES: dict[Any, Table] = {}
"""The table of each shape met (cleared with the driver's other memos)."""
_SIZE = 4096


def pool_outcomes(after: Outcome, lazy: list[int]) -> tuple[dict[Outcome, int], int] | None:
    """The distribution of the state ``after`` whose lazy values (at ``lazy``) are counts
    of pools split once (see the module), or None for any other shape."""
    roots: dict[Node, int] = {}
    shape: list[tuple[tuple[int, int, int], ...]] = []
    consts: list[int] = []
    for j in lazy:
        v = after[j]
        if type(v) is not Sym:
            return None
        field: list[tuple[int, int, int]] = []
        for node, c in v.terms.items():
            root = node.parent
            if root is None or root.parent is not None:
                return None
            k = roots.get(root)
            if k is None:
                k = roots[root] = len(roots)
            field.append((k, root.children.index(node), c))
        shape.append(tuple(field))
        consts.append(v.const)
    pools = tuple([(root.size, tuple([(c.cnum, c.cden) for c in root.children]))
                   for root in roots])
    key = (pools, tuple(shape))
    table = POOL_TABLES.get(key)
    if table is None:
        table = _table(after, lazy)
        if len(POOL_TABLES) >= _SIZE:
            POOL_TABLES.pop(next(iter(POOL_TABLES)))
        POOL_TABLES[key] = table
    values, weights, den = table
    out: dict[Outcome, int] = {}
    plain = list(after)
    if len(lazy) == 1:
        (j,), (c,) = lazy, consts
        head, tail = after[:j], after[j + 1:]
        for (v,), w in zip(values, weights, strict=True):
            out[(*head, v + c, *tail)] = w
        return out, den
    for vs, w in zip(values, weights, strict=True):
        for j, v, c in zip(lazy, vs, consts, strict=True):
            plain[j] = v + c
        out[tuple(plain)] = w
    return out, den


def _table(after: Outcome, lazy: list[int]) -> Table:
    """The joint distribution of the lazy counts of ``after`` without their constants,
    by the kernels (once per shape)."""
    dist, den = evaluate([Sym(after[j].terms) for j in lazy])
    items = list(dist.items())
    return tuple(k for k, _ in items), tuple(w for _, w in items), den
