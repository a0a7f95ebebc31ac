"""Exact odds of :meth:`Dice.tally <warroom.engine.context.Dice.tally>`: several groups of
independent items, each group with its own per-item chain, counted together.

Asked group by group (``each`` per group, then the counts added up), the exact driver
builds a category tree per group, lazy sums of their categories, and then works the
sums' joint distribution out from those trees. A stage that does this once per state
(``fow.shoot_mixed``: the teams' rolls for each allocation of the hits) spends most of
its time building and reading those trees. Here a tally's counts are :class:`Count`
values holding only each group's size and its chain's chances; when a state's lazy
fields are the counts of one tally, their joint distribution is the product of the
groups' multinomials, worked out as a product of polynomials packed into integers
(:func:`_joint`) once per distinct multiset of (group size, chances) and shared by
every state with that multiset. Anything else done with a
count (arithmetic, comparisons, feeding it to another request) turns the tally into the
ordinary category trees first (:meth:`Tally.terms`), exactly those ``each`` builds.
"""

from __future__ import annotations

import functools
import itertools
import operator
from typing import Any

from warroom.engine.symbolic import Node, Sym

Group = tuple["Chances", int]
"""Items of equal chances as the joint distribution sees them: (their chances, how many
items)."""


class Tally:
    """The groups of one :meth:`Dice.tally` request under the exact driver: ``origin``
    is the ordinal of the first group's ``each`` (the next groups' follow it)."""

    __slots__ = ("_terms", "groups", "key", "origin")

    def __init__(self, origin: int, groups: list[tuple[int, int, Chances]],
                 key: tuple[Group, ...]) -> None:
        self.origin = origin
        self.groups = groups  # (position among the groups, items, chances): random ones
        self.key = key  # what the counts' distribution depends on: the groups' multiset
        self._terms: list[dict[Node, int]] | None = None

    def terms(self, label: int) -> dict[Node, int]:
        """The category trees ``each`` would have built, group by group: one root per
        random group and a child per label it can end in (built once, shared by the
        tally's counts so that they stay joint)."""
        if self._terms is None:
            width = len(self.groups[0][2].weights)
            per: list[dict[Node, int]] = [{} for _ in range(width)]
            for k, n, ch in self.groups:
                root = Node(self.origin + k, None, 1, 1, n)
                for c, w in enumerate(ch.weights):
                    if w:
                        per[c][Node(self.origin + k, root, w, ch.den)] = 1
            self._terms = per
        return self._terms[label]


class Count(Sym):
    """One label's count over every group of a tally: a lazy count like any other
    (:class:`~warroom.engine.symbolic.Sym`), whose category trees are only built when
    something other than the tally's own evaluation needs them."""

    __slots__ = ("label", "tally")

    def __init__(self, tally: Tally, label: int, const: int) -> None:
        self.tally = tally
        self.label = label
        self.const = const

    @property
    def terms(self) -> dict[Node, int]:  # type: ignore[override]
        return self.tally.terms(self.label)

    def _combine(self, other: Any, sign: int) -> Sym:
        mine = Sym(self.terms, self.const)
        if type(other) is Count:
            other = Sym(other.terms, other.const)
        return mine._combine(other, sign)


class Chances:
    """One chain's chances as a tally reads them: the denominator, the weight of each
    label, the label it certainly ends in or -1, a bit per label it can end in, and its
    rank among the chances made so far. One object for equal chances (:func:`chances`),
    so a tally's groups are merged, ordered and keyed by it without reading the weights
    again."""

    __slots__ = ("certain", "den", "live", "rank", "weights")

    def __init__(self, den: int, weights: tuple[int, ...], rank: int) -> None:
        self.den = den
        self.weights = weights
        live = [c for c, w in enumerate(weights) if w]
        self.certain = live[0] if len(live) == 1 else -1
        self.live = sum(1 << c for c in live)
        self.rank = rank


_CHANCES: dict[tuple[int, tuple[int, ...]], Chances] = {}
"""Every distinct chances made (a tally's memo keys hold them: their identity stands for
their weights); dropped when it grows large, which only costs memos their hits."""


def chances(probs: list[tuple[str, int]], den: int) -> Chances:
    """The :class:`Chances` of the driver's (label, weight) list over ``den``."""
    weights = tuple(w for _, w in probs)
    found = _CHANCES.get((den, weights))
    if found is None:
        if len(_CHANCES) >= 4 * _MEMO_SIZE:
            _CHANCES.clear()
        found = _CHANCES[den, weights] = Chances(den, weights, next(_RANKS))
    return found


_RANKS = itertools.count()
_RANK = operator.attrgetter("rank")


def counts(origin: int, labels: tuple[str, ...], groups: list[tuple[int, Chances]]
           ) -> dict[str, Any]:
    """The counts of one tally request whose first group's ordinal is ``origin``, its
    groups given as (items, chances). A group certain to end in one label adds a plain
    number; a label no random group can end in is a plain number too; groups with equal
    chances are one group of all their items (one multinomial). New :class:`Count`
    objects each time (a run may split their trees further), from a plan worked out
    once per distinct groups (:func:`_plan`)."""
    key = (labels, tuple(groups))
    plan = _PLANS.get(key)
    if plan is None:
        if len(_PLANS) >= _MEMO_SIZE:
            _PLANS.pop(next(iter(_PLANS)))
        plan = _PLANS[key] = _plan(len(labels), groups)
    consts, random, merged, possible = plan
    if not random:
        return dict(zip(labels, consts, strict=True))
    tally = Tally(origin, random, merged)
    return {label: Count(tally, c, consts[c]) if possible >> c & 1 else consts[c]
            for c, label in enumerate(labels)}


_Plan = tuple[list[int], list[tuple[int, int, "Chances"]], tuple[Group, ...], int]


def _plan(width: int, groups: list[tuple[int, Chances]]) -> _Plan:
    """What :func:`counts` makes of some groups: the labels' plain numbers, the random
    groups (position, items, chances), their multiset (the key of their joint
    distribution) and a bit per label a random group can end in."""
    consts = [0] * width
    random: list[tuple[int, int, Chances]] = []
    merged: dict[Chances, int] = {}
    possible = 0
    for k, (n, ch) in enumerate(groups):
        if n:
            certain = ch.certain
            if certain >= 0:
                consts[certain] += n
            else:
                random.append((k, n, ch))
                merged[ch] = merged.get(ch, 0) + n
                possible |= ch.live
    # in the order the chances were made: alike tallies have one key
    key = (tuple([(ch, merged[ch]) for ch in sorted(merged, key=_RANK)])
           if len(merged) > 1 else tuple(merged.items()))
    return consts, random, key, possible


_PLANS: dict[Any, _Plan] = {}
""":func:`_plan` by labels and groups (the chances by identity): states whose
allocations differ often roll alike groups."""


_JOINTS: dict[Any, tuple[dict[tuple[Any, ...], int], int]] = {}
"""The joint distribution of some labels' counts over a multiset of groups. This and
the other memos below are cleared with the driver's (benchmarks' ``clear_memos``)."""
_MEMO_SIZE = 8192


def outcomes(key: tuple[Any, ...], lazy: list[int]
             ) -> tuple[dict[tuple[Any, ...], int], int] | None:
    """The distribution of an outcome (a state) whose lazy fields (``lazy``, their
    positions) are distinct labels' counts of one tally; None when they are anything
    else (the driver's general evaluation then answers)."""
    first = key[lazy[0]]
    if type(first) is not Count:
        return None
    tally = first.tally
    labels = []
    for j in lazy:
        v = key[j]
        if type(v) is not Count or v.tally is not tally:
            return None
        labels.append(v.label)
    if len(set(labels)) != len(labels):
        return None
    consts = tuple([key[j].const for j in lazy])
    # states whose plain values and counts' distribution are alike reach the same
    # outcomes: one mapping for all of them, which the driver adds up once (Shared)
    plain = list(key)
    for j in lazy:
        plain[j] = None
    memo_key = (tuple(labels), tally.key)
    made_key = (tuple(plain), consts, memo_key)
    made = _MADE.get(made_key)
    if made is not None:
        return made
    found = _JOINTS.get(memo_key)
    if found is None:
        if len(_JOINTS) >= _MEMO_SIZE:
            _JOINTS.pop(next(iter(_JOINTS)))
        found = _JOINTS[memo_key] = _joint(tuple(labels), tally.key)
    sub, den = found
    first_at, last = lazy[0], lazy[-1] + 1
    out = Shared()
    if last - first_at == len(lazy) and not any(consts):
        head, tail = key[:first_at], key[last:]
        out.update({head + values + tail: w for values, w in sub.items()})
    else:
        for values, w in sub.items():
            for j, v, c in zip(lazy, values, consts, strict=True):
                plain[j] = v + c
            out[tuple(plain)] = w
    if len(_MADE) >= _MEMO_SIZE:
        _MADE.pop(next(iter(_MADE)))
    _MADE[made_key] = (out, den)
    return out, den


class Shared(dict[tuple[Any, ...], int]):
    """Outcomes of a state (with their weights) that other states may reach alike: the
    same object for all of them (:func:`outcomes`), so the driver adds their weights up
    before adding the outcomes in once."""

    __slots__ = ("listed",)
    listed: SharedPairs


class SharedPairs(list[tuple[tuple[Any, ...], int]]):
    """The (outcome, weight) pairs of a :class:`Shared`, listed once."""

    __slots__ = ()


def pairs(outcomes: Shared) -> SharedPairs:
    """The pairs of ``outcomes``, the same list every time."""
    try:
        return outcomes.listed
    except AttributeError:
        listed = outcomes.listed = SharedPairs(outcomes.items())
        return listed


_MADE: dict[Any, tuple[Shared, int]] = {}
"""The outcomes made for states' plain values, constants and joint distribution: the
same mapping for alike states."""


_PREFIXES: dict[Any, int] = {}
"""One item's polynomial raised to a group's size, by labels, slot layout and group:
tallies of other states share their groups."""


def _joint(labels: tuple[int, ...], groups: tuple[Group, ...]
           ) -> tuple[dict[tuple[Any, ...], int], int]:
    """The joint distribution of the counts of ``labels`` (their constants left out)
    over the random ``groups``: the product of each group's multinomial, worked out as a
    product of polynomials packed into integers. A label's count is at most the items
    that can end in it; the counts of ``labels`` are one number in mixed radix (each
    count's digit below that bound plus one, the first label most significant). One
    item of a group is the polynomial with, for each label it can end in, that label's
    weight as coefficient and that label's digit place as power (the other labels
    power 0); a group of ``n`` items is its ``n``-th power, and the groups' product is
    the joint distribution, each coefficient the weight of one vector of counts over
    the product of the denominators. Packed with a slot of ``bits`` bits per power (no
    coefficient exceeds that denominator, so none spills into the next), the products
    are the interpreter's integer products."""
    total = 0
    den = 1
    for ch, n in groups:
        total += n
        den *= ch.den**n
    bounds = tuple([sum(n for ch, n in groups if ch.live >> c & 1) for c in labels])
    place = {}
    size = 1
    for c, most in zip(reversed(labels), reversed(bounds), strict=True):
        place[c] = size
        size *= most + 1
    nbytes = den.bit_length() // 8 + 1  # a slot holds any weight up to den
    bits = 8 * nbytes
    poly = 1
    for group in groups:
        power_key = (labels, bounds, bits, group)
        power = _PREFIXES.get(power_key)
        if power is None:
            ch, n = group
            item = 0
            for c, w in enumerate(ch.weights):
                if w:
                    item += w << (bits * place.get(c, 0))
            power = item**n
            if len(_PREFIXES) >= 2 * _MEMO_SIZE:
                _PREFIXES.pop(next(iter(_PREFIXES)))
            _PREFIXES[power_key] = power
        poly *= power
    data = poly.to_bytes(size * nbytes, "little")
    from_bytes = int.from_bytes
    return {counts: w for counts, at in _layout(bounds, total, nbytes)
            if (w := from_bytes(data[at:at + nbytes], "little"))}, den


@functools.lru_cache(maxsize=1024)
def _layout(bounds: tuple[int, ...], total: int, nbytes: int
            ) -> tuple[tuple[tuple[int, ...], int], ...]:
    """Every vector of counts each at most its bound in ``bounds``, adding up to at most
    ``total``, with the offset of its slot (``nbytes`` bytes each) in a packed
    polynomial of :func:`_joint`."""
    vectors: list[tuple[int, ...]] = [()]
    for most in bounds:
        vectors = [(*v, k) for v in vectors for k in range(min(most, total - sum(v)) + 1)]
    out = []
    for counts in vectors:
        at = 0
        for k, most in zip(counts, bounds, strict=True):
            at = at * (most + 1) + k
        out.append((counts, at * nbytes))
    return tuple(out)
