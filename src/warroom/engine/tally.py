"""Exact odds of :meth:`Dice.tally <warroom.engine.context.Dice.tally>`: several groups of
independent items, each group with its own per-item chain, counted together.

Asked group by group (``each`` per group, then the counts added up), the exact driver
builds a category tree per group, lazy sums of their categories, and then works the
sums' joint distribution out from those trees. A stage that does this once per state
(``fow.shoot_mixed``: the teams' rolls for each allocation of the hits) spends most of
its time building and reading those trees. Here a tally's counts are :class:`Count`
values holding only each group's size and its chain's chances; when a state's lazy
fields are the counts of one tally, their joint distribution is the product of the
groups' multinomials, worked out by the driver's own evaluation
(:func:`warroom.engine.exact._evaluate_parts`) once per distinct multiset of (group
size, chances) and shared by every state with that multiset. Anything else done with a
count (arithmetic, comparisons, feeding it to another request) turns the tally into the
ordinary category trees first (:meth:`Tally.terms`), exactly those ``each`` builds.
"""

from __future__ import annotations

from typing import Any

from warroom.engine.symbolic import Node, Sym

Group = tuple[int, tuple[int, ...], int]
"""Items of equal chances as the joint distribution sees them: (denominator, each
label's weight, how many items)."""


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
            width = len(self.groups[0][2][1])
            per: list[dict[Node, int]] = [{} for _ in range(width)]
            for k, n, (den, weights, _, _) in self.groups:
                root = Node(self.origin + k, None, 1, 1, n)
                for c, w in enumerate(weights):
                    if w:
                        per[c][Node(self.origin + k, root, w, den)] = 1
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


Chances = tuple[int, tuple[int, ...], int, int]
"""One chain's chances as a tally reads them: (denominator, weight of each label, the
label it certainly ends in or -1, a bit per label it can end in)."""


def chances(probs: list[tuple[str, int]], den: int) -> Chances:
    """:data:`Chances` from the driver's (label, weight) list over ``den``."""
    weights = tuple(w for _, w in probs)
    live = [c for c, w in enumerate(weights) if w]
    return den, weights, live[0] if len(live) == 1 else -1, sum(1 << c for c in live)


def counts(origin: int, labels: tuple[str, ...], groups: list[tuple[int, Chances]]
           ) -> dict[str, Any]:
    """The counts of one tally request whose first group's ordinal is ``origin``, its
    groups given as (items, chances). A group certain to end in one label adds a plain
    number; a label no random group can end in is a plain number too; groups with equal
    chances are one group of all their items (one multinomial)."""
    consts = [0] * len(labels)
    random: list[tuple[int, int, Chances]] = []
    merged: dict[Chances, int] = {}
    possible = 0
    for k, (n, ch) in enumerate(groups):
        if n:
            certain = ch[2]
            if certain >= 0:
                consts[certain] += n
            else:
                random.append((k, n, ch))
                merged[ch] = merged.get(ch, 0) + n
                possible |= ch[3]
    if not random:
        return dict(zip(labels, consts, strict=True))
    # in the order of their chances (then sizes): more tallies share their first groups
    tally = Tally(origin, random, tuple(sorted([(ch[0], ch[1], n)
                                                for ch, n in merged.items()])))
    return {label: Count(tally, c, consts[c]) if possible >> c & 1 else consts[c]
            for c, label in enumerate(labels)}


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


_PREFIXES: dict[Any, tuple[dict[int, int], int]] = {}
"""The joint distribution of the first groups of a tally's (sorted) groups, by labels
and those groups: tallies of other states share their prefixes."""
_BITS = 16


def _joint(labels: tuple[int, ...], groups: tuple[Group, ...]
           ) -> tuple[dict[tuple[Any, ...], int], int]:
    """The joint distribution of the counts of ``labels`` (their constants left out)
    over the random ``groups``: the product of each group's multinomial
    (:func:`warroom.engine.exact._multinomial_keys`, the driver's own), over keys that
    hold each field's count in its own bits, built group after group from the longest
    product already known for the same first groups."""
    from warroom.engine.exact import _multinomial_keys

    # each field's count in its own bits of one int key: 16 unless some tally is larger
    bits = max(_BITS, sum(n for _, _, n in groups).bit_length())
    width = len(labels)
    shift = {c: bits * (width - 1 - j) for j, c in enumerate(labels)}
    at = len(groups)
    found = None
    while at and found is None:
        found = _PREFIXES.get((labels, bits, groups[:at]))
        if found is None:
            at -= 1
    dist, den = found if found is not None else ({0: 1}, 1)
    for k in range(at, len(groups)):
        gden, weights, n = groups[k]
        classes: dict[int, int] = {}
        for c, w in enumerate(weights):
            if w:
                delta = 1 << shift[c] if c in shift else 0
                classes[delta] = classes.get(delta, 0) + w
        # the product, a term of the group's multinomial at a time over every key so far
        (d0, w0), *more = _multinomial_keys(n, tuple(classes.items())).items()
        items = list(dist.items())
        nxt = {k1 + d0: w1 * w0 for k1, w1 in items}
        for d2, w2 in more:
            for k1, w1 in items:
                k1 += d2
                nxt[k1] = nxt.get(k1, 0) + w1 * w2
        dist, den = nxt, den * gden**n
        if len(_PREFIXES) >= 2 * _MEMO_SIZE:
            _PREFIXES.pop(next(iter(_PREFIXES)))
        _PREFIXES[labels, bits, groups[:k + 1]] = (dist, den)
    mask = (1 << bits) - 1
    if width == 1:
        return {(key,): w for key, w in dist.items()}, den
    if width == 2:
        return {(key >> bits, key & mask): w for key, w in dist.items()}, den
    return {tuple([(key >> (bits * (width - 1 - j))) & mask for j in range(width)]): w
            for key, w in dist.items()}, den
