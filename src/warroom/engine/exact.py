"""The exact driver: the full distribution of a procedure's outcomes as exact fractions.

Two techniques keep the tree small:

* requests for pools, splits and per-item chains are answered with lazy counts
  (:mod:`warroom.engine.symbolic`); each pool becomes one categorical per item and a
  multinomial over counts, evaluated with integer weights over a common denominator;
* requests that must be concrete (single dice, tests, or a lazy count the procedure
  branches on) are enumerated by replaying the procedure with a prefix of answers.

Equal outcomes are merged. The result sums to exactly 1.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import itertools
import operator
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from math import comb, gcd, lcm
from typing import Any

from warroom.dice.weights import (
    Reroll,
    View,
    binomial,
    dice_view,
    multinomial,
    success_weight,
)
from warroom.engine import tally as _tally
from warroom.engine.context import Chain, Dice, Stage, State, as_target
from warroom.engine.messages import Msg, Text
from warroom.engine.steps import Target
from warroom.engine.symbolic import Cond, NeedConcrete, Node, Sym
from warroom.errors import ExactTooLargeError, RuleError

Outcome = tuple[Any, ...]
Run = Callable[[Dice], Mapping[str, Any]]


class _Branch(BaseException):
    def __init__(self, options: Sequence[tuple[Any, int]], den: int) -> None:
        super().__init__()
        self.options = options
        self.den = den


def check_classes(classes: Mapping[str, Sequence[int]], sides: int = 6) -> None:
    seen: list[int] = []
    for faces in classes.values():
        seen += faces
    seen.sort()
    if seen != (_FACES.get(sides) or list(range(1, sides + 1))):
        raise RuleError(f"split classes must cover faces 1-{sides} exactly once, got {classes}")


_FACES = {6: [1, 2, 3, 4, 5, 6]}
_FACE_OPTIONS: dict[int, list[tuple[int, int]]] = {}
"""Each face of a die with weight 1, by sides (built once, read only: every die a stage
asks for, a Random Selection dr say, branches over it)."""
"""Every face of a d6 in order, built once (splits are checked at every replay)."""


class ExactDice(Dice):
    """Answers requests from a replay path, lazily where it can."""

    explains = False

    def __init__(self, path: Sequence[Any], concrete: set[int], all_concrete: bool = False,
                 memo: dict[Any, Any] | None = None, shared: dict[Any, Any] | None = None):
        self.path = path
        self.pos = 0
        self.ordinal = 0
        self.concrete = concrete
        self.all_concrete = all_concrete
        # ``memo`` lives for one enumeration (keys may name replay paths); ``shared``
        # for the whole query, sub-enumerations included (keys name what is computed)
        self.memo = memo if memo is not None else {}
        self.shared = shared if shared is not None else {}

    # -- plumbing --------------------------------------------------------------
    def _next(self) -> int:
        i = self.ordinal
        self.ordinal += 1
        return i

    def _answer(self, options: Sequence[tuple[Any, int]], den: int) -> Any:
        if len(options) == 1:
            return options[0][0]
        if self.pos < len(self.path):
            value = self.path[self.pos]
            self.pos += 1
            return value
        raise _Branch(options, den)

    def _lazy(self, i: int) -> bool:
        return not self.all_concrete and i not in self.concrete

    def _categorize(self, i: int, n: Any, probs: Sequence[tuple[str, int]], den: int
                    ) -> dict[str, Any]:
        """Split the items counted by ``n`` into categories of chance ``num/den`` each."""
        live = 0
        for _, p in probs:
            if p:
                live += 1
        if isinstance(n, int):
            if n == 0 or live == 1:
                return {label: (n if p == den else 0) for label, p in probs}
            if n < 0:
                raise RuleError(f"a pool cannot have {n} items")
            leaves = [Node(i, None, 1, 1, n)]
        else:
            terms = n.terms
            if len(terms) == 1 and not n.const:
                ((node, c),) = terms.items()
                if c != 1:
                    raise NeedConcrete(n.origins() | {i})
                leaves = node.leaves() if node.children else [node]
            else:
                if n.const != 0 or any(c != 1 for c in terms.values()):
                    raise NeedConcrete(n.origins() | {i})
                nodes = list(terms)
                leaves = [leaf for node in nodes for leaf in node.leaves()]
                if len(set(map(id, leaves))) != len(leaves) or any(
                    a is not b and _ancestor(a, b) for a in nodes for b in nodes
                ):
                    raise NeedConcrete(n.origins() | {i})
            if live == 1:
                return {label: (n if p == den else 0) for label, p in probs}
        out: dict[str, Any] = {}
        if len(leaves) == 1:
            (leaf,) = leaves
            for label, p in probs:
                out[label] = Sym({Node(i, leaf, p, den): 1}) if p else 0
        else:
            for label, p in probs:
                out[label] = (Sym(dict.fromkeys([Node(i, leaf, p, den) for leaf in leaves], 1))
                              if p else 0)
        return out

    def _concrete_count(self, i: int, n: Any) -> int:
        if isinstance(n, Sym):
            raise NeedConcrete(n.origins() | {i})
        return int(n)

    # -- requests ----------------------------------------------------------------
    def pool(self, n: int, at: int | Target, *, rule: str, what: Text,
             reroll: Reroll = "none") -> int:
        i = self.ordinal
        self.ordinal = i + 1
        num, den = success_weight(at if isinstance(at, int) else at.final, reroll)
        if not self.all_concrete and i not in self.concrete:
            if 0 < num < den:
                # the common case, without the general bookkeeping: the items counted by
                # ``n`` (a fresh pool, or one category) split into hits and misses
                parent = _parent(i, n)
                if parent is not None:
                    hit = Node(i, parent, num, den)
                    Node(i, parent, den - num, den)
                    return Sym({hit: 1})  # type: ignore[return-value]
            return self._categorize(i, n, (("hit", num), ("miss", den - num)), den)["hit"]  # type: ignore[no-any-return]
        k = self._concrete_count(i, n)
        options, d = binomial(k, num, den)
        return self._answer(options, d)  # type: ignore[no-any-return]

    def split(self, n: int, classes: Mapping[str, Sequence[int]], *, rule: str, what: Text,
              target: Target | None = None) -> dict[str, int]:
        i = self.ordinal
        self.ordinal = i + 1
        check_classes(classes)
        if not self.all_concrete and i not in self.concrete:
            # the common case, as in pool: the items counted by ``n`` split by face
            for faces in classes.values():
                if len(faces) == 6:
                    break
            else:
                parent = _parent(i, n)
                if parent is not None:
                    lazy: dict[str, Any] = {
                        label: Sym({Node(i, parent, len(faces), 6): 1}) if faces else 0
                        for label, faces in classes.items()}
                    return lazy
        probs = [(label, len(faces)) for label, faces in classes.items()]
        return self._categorical(i, n, probs, 6)

    def _categorical(self, i: int, n: Any, probs: Sequence[tuple[str, int]], den: int
                     ) -> dict[str, Any]:
        if self._lazy(i):
            return self._categorize(i, n, probs, den)
        k = self._concrete_count(i, n)
        counts, d = multinomial(k, [w for _, w in probs])
        value = self._answer(counts, d)
        return {label: c for (label, _), c in zip(probs, value, strict=True)}

    def each(self, n: int, chain: Chain, labels: Sequence[str], *, rule: str,
             what: Text, names: Sequence[Text] = ()) -> dict[str, int]:
        i = self.ordinal
        self.ordinal = i + 1
        probs, den, live = self._chain_chances(chain, labels)
        if len(live) > 1 and not self.all_concrete and i not in self.concrete:
            # the common case, as in pool: the items counted by ``n`` split by category
            parent = _parent(i, n)
            if parent is not None:
                lazy: dict[str, Any] = {label: Sym({Node(i, parent, p, den): 1}) if p else 0
                                        for label, p in probs}
                return lazy
        return self._categorical(i, n, probs, den)

    def tally(self, groups: Sequence[tuple[int, Chain, Text, Sequence[Text]]],
              labels: Sequence[str], *, rule: str) -> dict[str, int]:
        # one ordinal per group, as each would take: a count made concrete replays the
        # groups with each (the base class), their requests numbered alike
        i = self.ordinal
        if self.all_concrete or (self.concrete and not self.concrete.isdisjoint(
                range(i, i + len(groups)))):
            return super().tally(groups, labels, rule=rule)
        labels = tuple(labels)
        # each chain's chances as a tally reads them, once per query
        known = self.shared.get(("tally", labels))
        if known is None:
            known = self.shared["tally", labels] = {}
        get = known.get
        chances: list[Any] = [(n, get(chain)) for n, chain, _, _ in groups]
        for j, (n, found) in enumerate(chances):
            if type(n) is not int:  # a lazy number of items: each group on its own
                return super().tally(groups, labels, rule=rule)
            if found is None:
                chain = groups[j][1]
                probs, den, _ = self._chain_chances(chain, labels)
                found = _tally.chances(probs, den)
                if getattr(chain, "_warroom_fixed", False):  # by the object: never changes
                    known[chain] = found
                chances[j] = (n, found)
        self.ordinal = i + len(groups)
        return _tally.counts(i, labels, chances)

    def one(self, chain: Chain, labels: Sequence[str], *, rule: str, what: Text) -> str:
        self.ordinal += 1
        _, den, options = self._chain_chances(chain, labels)
        return self._answer(options, den)  # type: ignore[no-any-return]

    def _chain_chances(self, chain: Chain, labels: Sequence[str]
                       ) -> tuple[list[tuple[str, int]], int, list[tuple[str, int]]]:
        """The chance of each category one item's chain ends in, over one denominator,
        and the categories it can end in (worked out once per query for each distinct
        chain and labels)."""
        # a fixed chain (its captures never change) first by the objects themselves
        # (kept alive by the memo): no key to hash when a procedure hands the same chain
        # again, as a stage does at every state
        mine = (("chance objects", chain, labels) if type(labels) is tuple
                and getattr(chain, "_warroom_fixed", False) else None)
        known = self.shared.get(mine) if mine is not None else None
        if known is not None:
            return known  # type: ignore[no-any-return]
        key = _chain_key(chain)
        if key is None:
            return self._work_chances(chain, labels, None)
        kept = ("chances", key, tuple(labels))
        known = self.shared.get(kept)
        if known is None:
            known = self.shared[kept] = self._work_chances(chain, labels, key)
        if mine is not None:
            self.shared[mine] = known
        return known

    def _work_chances(self, chain: Chain, labels: Sequence[str], key: Any
                      ) -> tuple[list[tuple[str, int]], int, list[tuple[str, int]]]:
        sub = self.shared.get(key) if key is not None else None
        if sub is None:
            sub = exact_run(lambda d: {"label": chain(d)}, ("label",), all_concrete=True,
                            shared=self.shared)
            if key is not None:
                self.shared[key] = sub
        probs_map: dict[str, int] = dict.fromkeys(labels, 0)
        for (label,), w in sub.weights.items():
            if label not in probs_map:
                raise RuleError(f"chain returned {label!r}, not one of {list(labels)}")
            probs_map[label] += w
        probs = list(probs_map.items())
        return probs, sub.denominator, [(label, w) for label, w in probs if w]

    def die(self, *, rule: str, what: Text, sides: int = 6, target: Target | None = None) -> int:
        self._next()
        faces = _FACE_OPTIONS.get(sides)
        if faces is None:
            faces = _FACE_OPTIONS[sides] = [(f, 1) for f in range(1, sides + 1)]
        return self._answer(faces, sides)  # type: ignore[no-any-return]

    def dice(self, k: int, *, rule: str, what: Text, sides: int = 6, view: View = "ordered",
             target: Target | None = None) -> Any:
        self._next()
        if view == "ordered" and k > 4:
            raise RuleError("ask for a sorted, sum, max or min view of more than 4 dice")
        options, den = dice_view(k, sides, view)
        return self._answer(options, den)

    def test(self, at: int | Target, *, rule: str, what: Text, reroll: bool = False) -> bool:
        self._next()
        num, den = success_weight(as_target(at).final, "misses" if reroll else "none")
        options = [(True, num), (False, den - num)] if num and num != den else [(num == den, 1)]
        return bool(self._answer(options, den))

    def pick(self, k: int, *, rule: str, what: Text) -> int:
        self._next()
        if k < 1:
            raise RuleError("pick needs at least one thing to choose from")
        return self._answer([(j, 1) for j in range(k)], k)  # type: ignore[no-any-return]

    def note(self, rule: str, text: str | Msg, result: str | Msg | None = None,
             **args: Any) -> None:
        return None

    def iterate(self, state: State, step: Callable[[State, Dice], State], *, rounds: int,
                done: Callable[[State], bool] | None = None) -> State:
        return self._staged(state, (), (step,), rounds, done, count=False)  # type: ignore[no-any-return]

    def stages(self, state: State, stages: Sequence[Stage[State]], *, rounds: int,
               done: Callable[[State], bool] | None = None,
               opening: Sequence[Stage[State]] = ()) -> tuple[State, int]:
        return self._staged(state, tuple(opening), tuple(stages), rounds, done, count=True)  # type: ignore[no-any-return]

    def finish(self, state: State, stages: Sequence[Stage[State]], *, rounds: int,
               outcome: Callable[[State, int], Mapping[str, Any]],
               done: Callable[[State], bool] | None = None,
               opening: Sequence[Stage[State]] = ()) -> Mapping[str, Any]:
        i = self._next()
        last = self._distribution(i, state, tuple(opening), tuple(stages), rounds, done,
                                  count=True)
        row = getattr(outcome, "_warroom_row", None)
        if row is not None and last.size > 1:  # context.rows: the outcome tuples as they are
            names, fn, plain = row
            return _Outcomes(last.rows(fn), last.den, names, plain)  # type: ignore[return-value]
        options = last.options()
        if len(options) == 1:
            return outcome(*options[0][0])
        return _Outcomes([(outcome(*s), w) for s, w in options],  # type: ignore[return-value]
                         last.den)

    def _staged(self, state: tuple[Any, ...], opening: tuple[Stage[Any], ...],
                stages: tuple[Stage[Any], ...], rounds: int,
                done: Callable[[Any], bool] | None, count: bool) -> Any:
        i = self._next()
        last = self._distribution(i, state, opening, stages, rounds, done, count)
        return self._answer(last.options(), last.den)

    def _distribution(self, i: int, state: tuple[Any, ...], opening: tuple[Stage[Any], ...],
                      stages: tuple[Stage[Any], ...], rounds: int,
                      done: Callable[[Any], bool] | None, count: bool) -> _Last:
        hash(state)  # a lazy count in the starting state is made concrete first
        # The request is identified by what its stages and its test compute and the state
        # they start from; failing that (a captured value that cannot be hashed), by the
        # answers replayed before it, which fix everything the procedure did so far.
        # Later replays of the procedure, and other paths reaching the same state, reuse
        # the distribution; every stage from a given state is worked out once per query.
        # What the functions compute is worked out once per query for the same function
        # objects (kept alive by the memo, so they cannot be confused with others).
        fns = (*opening, *stages)
        ident = ("stage functions", fns, done, len(opening))
        known: tuple[tuple[Any, ...] | None, Any] | None = self.shared.get(ident)
        if known is None:
            made = tuple(map(_stage_key, fns))
            done_key = _chain_key(done)
            if None in made or (done is not None and done_key is None):
                known = (None, None)
            else:
                known = (made, self.shared.setdefault(("stages", made, len(opening), done_key),
                                                      object()))
            self.shared[ident] = known
        keys, token = known
        memo = self.shared
        if token is not None:
            key: Any = (token, state, rounds, count)
        else:
            key, memo = ("stages", i, tuple(self.path[:self.pos])), self.memo
        found = memo.get(key)
        if found is None:
            found = memo[key] = _staged(state, opening, stages, keys, rounds, done, count,
                                        self.shared)
        return found


class _Outcomes:
    """What :meth:`ExactDice.finish` hands back: every outcome of the procedure with its
    weight over ``den``. The procedure returns it as it is; reading it is an error."""

    __slots__ = ("den", "names", "options", "plain")

    def __init__(self, options: list[tuple[Any, int]], den: int,
                 names: tuple[str, ...] | None = None, plain: bool = False) -> None:
        self.options = options  # mappings, or rows of the fields ``names`` (context.rows)
        self.den = den
        self.names = names
        self.plain = plain  # rows of plain values only (context.rows)

    def __getitem__(self, name: str) -> Any:
        raise RuleError("a procedure must return the outcome of Dice.finish as it is")

    def __iter__(self) -> Any:
        return self[""]


def _parent(i: int, n: Any) -> Node | None:
    """The category a request splits when that needs no bookkeeping: a fresh pool of
    ``n`` items (a new tree), or one whole category not yet split; None otherwise."""
    if type(n) is int:
        return Node(i, None, 1, 1, n) if n > 0 else None
    if type(n) is Sym and not n.const and len(n.terms) == 1:
        ((parent, c),) = n.terms.items()
        if c == 1 and not parent.children:
            return parent
    return None


def _staged(state: tuple[Any, ...], opening: tuple[Stage[Any], ...],
            stages: tuple[Stage[Any], ...], keys: tuple[Any, ...] | None, rounds: int,
            done: Callable[[Any], bool] | None, count: bool, shared: dict[Any, Any]
            ) -> _Last:
    """The distribution of the last state (with the rounds begun when ``count``): a
    dynamic programme over states. Between stages the states are held with integer
    weights over one denominator, equal ones merged; each stage is enumerated once per
    distinct state it starts from (lazily, like any procedure). With ``keys`` (what each
    stage computes) a stage's transitions are kept in ``shared`` for the whole query."""
    width = len(state)
    fields = tuple(map(str, range(width)))
    local: dict[Any, Any] = {}
    plan: list[tuple[int, Stage[Any], int]] = [(j, f, 0) for j, f in enumerate(opening)]
    for _ in range(rounds):
        plan += [(len(opening) + j, f, int(count and j == 0)) for j, f in enumerate(stages)]
    # what each stage computes, as a small token (its key is hashed once, not per state)
    tokens = [shared.setdefault(("stage token", k), object()) for k in keys] if keys else []
    # a stage on part of the state (context.part): its positions, the function on them
    # and how to read them from a state
    parts: list[tuple[tuple[int, ...], Stage[Any], Callable[[Any], Any]] | None] = []
    for f in (*opening, *stages):
        part = getattr(f, "_warroom_part", None)
        if part is None:
            parts.append(None)
        else:
            at, inner = part
            parts.append((at, inner, operator.itemgetter(*at) if len(at) > 1
                          else _single(at[0])))
    # rounds begun -> state -> weight, all over ``den``; while stages on parts follow
    # one another (and nothing stops early), each state packed in one int (_Packed)
    dist: dict[int, dict[Any, int]] = {0: {state: 1}}
    packed: _Packed | None = None
    packs = True  # until a position has more values than a packed state can number
    same: dict[Any, list[Any]] = {}  # transitions several states share (_add_shared)
    den = 1
    last_g = 1  # what the last stage's weights are still to be divided by
    for step, (index, stage, bump) in enumerate(plan, 1):
        # per denominator of a transition: rounds -> state -> weight over den * that
        buckets: dict[int, dict[int, dict[Any, int]]] = {}
        moved = False
        token = tokens[index] if keys else index
        memo = shared if keys else local
        part = parts[index]
        if part is not None and done is None and packs:
            if packed is None:
                packed = _Packed(width)
                packed_dist = packed.pack(dist)
                if packed_dist is None:  # too many values at a position: tuples
                    packed, packs = None, False
                else:
                    dist = packed_dist
            if packed is not None:
                found_moved = _packed_part_stage(part, token, memo, dist, buckets, bump,
                                                 shared, packed)
                if found_moved is None:  # a position with too many values: tuples
                    dist, packed, packs = packed.unpack(dist), None, False
                else:
                    moved, dist = found_moved, {}
        elif packed is not None:
            dist, packed = packed.unpack(dist), None
        if part is not None and packed is None:
            moved = _part_stage(part, token, memo, dist, buckets, done, bump, shared)
            dist = {}
        for r, states in dist.items():
            for s, w in states.items():
                if done is not None and done(s):
                    bucket = buckets.setdefault(1, {}).setdefault(r, {})
                    bucket[s] = bucket.get(s, 0) + w
                    continue
                moved = True
                found = memo.get((token, s))
                if found is None:
                    found = memo[token, s] = _transition(stage, s, width, fields, shared)
                after, sden = found
                if type(after) is _tally.SharedPairs:
                    # the same outcomes as other states': their weights added up first
                    seen = same.get((id(after), sden, r + bump))
                    if seen is None:
                        same[id(after), sden, r + bump] = [w, after, sden, r + bump]
                    else:
                        seen[0] += w
                    continue
                bucket = buckets.setdefault(sden, {}).setdefault(r + bump, {})
                for s2, w2 in after:
                    bucket[s2] = bucket.get(s2, 0) + w * w2
        if same:
            _add_shared(same, buckets)
            same = {}
        if not moved:
            break
        if len(buckets) == 1:  # one denominator (a stage on a part): nothing to scale
            ((common, dist),) = buckets.items()
            den *= common
        else:
            dist = _merged_buckets(buckets)
            den *= lcm(*buckets)
        g = den
        for states in dist.values():  # math.gcd skips the rest once it is 1
            g = gcd(g, *states.values())
        if g > 1:
            den //= g
            if step == len(plan):  # divided as the last states are listed, below
                last_g = g
                break
            with _acyclic():  # the weights divided in C (map), not one by one
                dist = {r: dict(_divided(states, g)) for r, states in dist.items()}
    with _acyclic():
        return _Last(dist, packed, last_g, den, count)


class _Last:
    """The last states of :func:`_staged` over ``den``, their weights still to be
    divided by ``g``, packed if ``packed``: listed when asked, with the rounds begun
    when ``count`` (:meth:`options`), or straight into the rows of an outcome
    (:meth:`rows`: ``Dice.finish`` with ``context.rows``, no pair built per state), in C
    (map and zip)."""

    __slots__ = ("count", "den", "dist", "g", "listed", "packed", "size")

    def __init__(self, dist: dict[int, dict[Any, int]], packed: _Packed | None, g: int,
                 den: int, count: bool) -> None:
        self.dist, self.packed, self.g, self.den, self.count = dist, packed, g, den, count
        self.size = sum(map(len, dist.values()))
        self.listed: list[tuple[Any, int]] | None = None

    def _each(self) -> Iterator[tuple[int, Iterable[Any], Iterable[int]]]:
        """Per rounds begun: the states and their weights, in the same order."""
        packed, g = self.packed, self.g
        for r, states in self.dist.items():
            yield (r, packed.unpacked(states) if packed is not None else states,
                   states.values() if g == 1 else
                   map(operator.floordiv, states.values(), itertools.repeat(g)))

    def options(self) -> list[tuple[Any, int]]:
        """Each last state (with the rounds begun when ``count``) and its weight."""
        if self.listed is None:
            out: list[tuple[Any, int]] = []
            with _acyclic():
                for r, keys, weights in self._each():
                    if self.count:
                        keys = zip(keys, itertools.repeat(r))
                    out += zip(keys, weights, strict=True)
            self.listed = out
        return self.listed

    def rows(self, row: Callable[[Any, int], Any]) -> list[tuple[Any, int]]:
        """``row(last state, rounds begun)`` of each last state, with its weight."""
        out: list[tuple[Any, int]] = []
        with _acyclic():
            for r, keys, weights in self._each():
                out += zip(map(row, keys, itertools.repeat(r)), weights, strict=True)
        return out


def _divided(states: dict[Any, int], g: int) -> Iterable[tuple[Any, int]]:
    """Each state with its weight divided by ``g`` (in C: no loop in Python)."""
    return zip(states, map(operator.floordiv, states.values(), itertools.repeat(g)),
               strict=True)


class _Packed:
    """States packed in one int each (:func:`_staged`, between stages on parts): the
    distinct values met at each position are numbered, and a state is its values'
    numbers with their bits interleaved (bit ``j`` of position ``f``'s number at bit
    ``j * width + f``), up to ``bits`` bits a number. Grouping by a part is then a mask,
    changing a part adding the difference of its bits, hashing an int: single int
    operations instead of tuples built and hashed per state. Interleaved, the low bits
    of a state (where a dict looks first) hold the low bits of every position's number,
    so states that differ anywhere seldom collide in a dict (side by side, the first
    position alone filled them: about three times slower dicts of states)."""

    __slots__ = ("bits", "by_bits", "codes", "halves", "masks", "width")

    def __init__(self, width: int, bits: int = 16) -> None:
        self.width = width
        self.bits = bits
        # per position: the bits of each value, the value of each bits, its mask
        self.codes: list[dict[Any, int]] = [{} for _ in range(width)]
        self.by_bits: list[dict[int, Any]] = [{} for _ in range(width)]
        self.masks = [sum(1 << (j * width + f) for j in range(bits)) for f in range(width)]
        h = (width + 1) // 2
        # the values of the first and second half of a state (positions :h, h:), by the
        # state's bits there
        self.halves: tuple[tuple[int, range, dict[int, tuple[Any, ...]]], ...] = (
            (sum(self.masks[:h]), range(h), {}), (sum(self.masks[h:]), range(h, width), {}))

    def code(self, f: int, v: Any) -> int | None:
        """The bits of value ``v`` at position ``f`` (None: no room for another)."""
        codes = self.codes[f]
        c = codes.get(v)
        if c is None:
            n = len(codes)
            if n >> self.bits:
                return None
            c = 0
            for j in range(n.bit_length()):
                c |= (n >> j & 1) << (j * self.width + f)
            codes[v] = c
            self.by_bits[f][c] = v
        return c

    def mask(self, at: Sequence[int]) -> int:
        """The bits of positions ``at``."""
        return sum(self.masks[f] for f in at)

    def pack(self, dist: dict[int, dict[Any, int]]) -> dict[int, dict[Any, int]] | None:
        """Every state packed (None: a position has too many values)."""
        out: dict[int, dict[Any, int]] = {}
        for r, states in dist.items():
            into = out[r] = {}
            for s, w in states.items():
                n = 0
                for f, v in enumerate(s):
                    c = self.code(f, v)
                    if c is None:
                        return None
                    n |= c
                into[n] = w
        return out

    def fields(self, n: int, at: Sequence[int]) -> tuple[Any, ...]:
        """The values at positions ``at`` of the packed state ``n``."""
        masks, by_bits = self.masks, self.by_bits
        return tuple([by_bits[f][n & masks[f]] for f in at])

    def unpacked(self, packed: Iterable[int]) -> list[tuple[Any, ...]]:
        """The states packed ones stand for, in order: the values of each first and
        second half worked out once (a few dozen of them), each state the two joined,
        all of it in C (map) rather than a loop in Python."""
        ns = list(packed)
        joined: list[Any] = []
        for mask, at, known in self.halves:
            bits = list(map(mask.__and__, ns))
            for b in set(bits).difference(known):
                known[b] = self.fields(b, at)
            joined.append(map(known.__getitem__, bits))
        return list(map(operator.add, *joined))

    def unpack(self, dist: dict[int, dict[Any, int]]) -> dict[int, dict[Any, int]]:
        with _acyclic():
            return {r: dict(zip(self.unpacked(states), states.values(), strict=True))
                    for r, states in dist.items()}


def _packed_part_stage(part: tuple[tuple[int, ...], Stage[Any], Callable[[Any], Any]],
                       token: Any, memo: dict[Any, Any], dist: dict[int, dict[Any, int]],
                       buckets: dict[int, dict[int, dict[Any, int]]], bump: int,
                       shared: dict[Any, Any], packed: _Packed) -> bool | None:
    """:func:`_part_stage` on packed states (:class:`_Packed`): the states grouped by
    the bits of their part, each group's transition (worked out once per value of the
    part, as there) turned into the numbers to add to its states, and added. Whether any
    state moved; None, with nothing done, when a position would get more values than
    its bits can number (the caller goes on with tuples)."""
    at, inner, _ = part
    width = len(at)
    fields = tuple(map(str, range(width)))
    part_mask = packed.mask(at)
    masks = packed.masks
    rounds: list[tuple[int, dict[int, list[tuple[int, int]]]]] = []
    with _acyclic():
        for r, states in dist.items():
            groups: dict[int, list[tuple[int, int]]] = {}
            for item in states.items():
                g = item[0] & part_mask
                group = groups.get(g)
                if group is None:
                    groups[g] = [item]
                else:
                    group.append(item)
            rounds.append((r, groups))
    # each group's changes: (number to add, weight over the transition's denominator)
    moves: dict[int, tuple[list[tuple[int, int]], int]] = {}
    code = packed.code
    for _, groups in rounds:
        for g in groups:
            if g in moves:
                continue
            changes, sden = _part_transition(inner, packed.fields(g, at), at, token, memo,
                                             width, fields, shared)
            adds: list[tuple[int, int]] = []
            for ch, w2 in changes:
                add = 0
                for f, v in ch:
                    c = code(f, v)
                    if c is None:
                        return None
                    add += c - (g & masks[f])
                adds.append((add, w2))
            moves[g] = (adds, sden)
    if not moves:
        return False
    common = lcm(*{sden for _, sden in moves.values()})
    into = buckets.setdefault(common, {})
    with _acyclic():
        for r, groups in rounds:
            bucket = into.setdefault(r + bump, {})
            for g, group in groups.items():
                adds, sden = moves[g]
                scale = common // sden
                for add, w2 in adds:
                    w2 *= scale
                    for s, w in group:
                        s2 = s + add
                        if s2 in bucket:
                            bucket[s2] += w * w2
                        else:
                            bucket[s2] = w * w2
    return True


def _merged_buckets(buckets: dict[int, dict[int, dict[Outcome, int]]]
                    ) -> dict[int, dict[Outcome, int]]:
    """States with weights over several denominators (per round), put over their least
    common multiple and merged."""
    common = lcm(*buckets)
    dist: dict[int, dict[Outcome, int]] = {}
    for d, by_round in buckets.items():
        scale = common // d
        for r, bucket in by_round.items():
            into = dist.setdefault(r, {})
            if not into and scale == 1:
                into.update(bucket)
                continue
            for s2, w in bucket.items():
                into[s2] = into.get(s2, 0) + w * scale
    return dist


def _add_shared(same: dict[Any, list[Any]],
                buckets: dict[int, dict[int, dict[Outcome, int]]]) -> None:
    """Add the transitions several states share (the same outcomes, such as those of a
    :meth:`Dice.tally` that works out alike, ``engine/tally.py``) into ``buckets``, each
    once with the states' weights added up, instead of once per state."""
    for w, after, sden, r in same.values():
        bucket = buckets.setdefault(sden, {}).setdefault(r, {})
        for s2, w2 in after:
            bucket[s2] = bucket.get(s2, 0) + w * w2


def _single(f: int) -> Callable[[tuple[Any, ...]], tuple[Any, ...]]:
    return lambda s: (s[f],)


def _part_stage(part: tuple[tuple[int, ...], Stage[Any], Callable[[Any], Any]], token: Any,
                memo: dict[Any, Any], dist: dict[int, dict[Outcome, int]],
                buckets: dict[int, dict[int, dict[Outcome, int]]],
                done: Callable[[Any], bool] | None, bump: int, shared: dict[Any, Any]
                ) -> bool:
    """One stage on part of the state (:func:`~warroom.engine.context.part`) applied to
    every state of ``dist``, into ``buckets``: worked out once per distinct value of its
    part (kept as the changes it makes to that part), then spliced into each state.
    Whether any state moved.

    The states are grouped by their part first, so the transitions are all known before
    any state is spliced: their weights are put over one denominator for the stage (the
    states go into one bucket, with nothing to merge and scale afterwards) and each
    change is spliced into the states of its group in one tight loop."""
    at, inner, get = part
    width = len(at)
    fields = tuple(map(str, range(width)))
    moved = False
    # round -> part -> [(state, weight)], and the states already done (not moved)
    rounds: list[tuple[int, dict[Any, list[tuple[Outcome, int]]], list[tuple[Outcome, int]]]] = []
    # this call's transitions by part (no key tuple to build and hash per state)
    seen: dict[Any, tuple[list[tuple[tuple[tuple[int, Any], ...], int]], int]] = {}
    with _acyclic():  # lists of the states (the test ``done`` makes no cycle either)
        for r, states in dist.items():
            stopped: list[tuple[Outcome, int]] = []
            groups: dict[Any, list[tuple[Outcome, int]]] = {}
            for s, w in states.items():
                if done is not None and done(s):
                    stopped.append((s, w))
                    continue
                sub = get(s)
                group = groups.get(sub)
                if group is None:
                    group = groups[sub] = []
                group.append((s, w))
            rounds.append((r, groups, stopped))
    for _, groups, _ in rounds:
        if groups:
            moved = True
        for sub in groups:
            if sub not in seen:
                seen[sub] = _part_transition(inner, sub, at, token, memo, width, fields, shared)
    common = lcm(*{sden for _, sden in seen.values()}) if seen else 1
    into = buckets.setdefault(common, {})
    with _acyclic():
        _splice(rounds, seen, common, into, bump)
    return moved


def _splice(rounds: list[tuple[int, dict[Any, list[tuple[Outcome, int]]],
                               list[tuple[Outcome, int]]]],
            seen: dict[Any, tuple[list[tuple[tuple[tuple[int, Any], ...], int]], int]],
            common: int, into: dict[int, dict[Outcome, int]], bump: int) -> None:
    """Each part's changes spliced into the states holding it (:func:`_part_stage`),
    their weights over ``common``, into ``into`` by round."""
    for r, groups, stopped in rounds:
        if stopped:
            bucket = into.setdefault(r, {})
            for s, w in stopped:
                bucket[s] = bucket.get(s, 0) + w * common
        if not groups:
            continue
        bucket = into.setdefault(r + bump, {})
        for sub, group in groups.items():
            changes, sden = seen[sub]
            scale = common // sden
            for ch, w2 in changes:
                w2 *= scale
                if not ch:
                    for s, w in group:
                        if s in bucket:
                            bucket[s] += w * w2
                        else:
                            bucket[s] = w * w2
                elif len(ch) == 1:
                    ((f, v),) = ch
                    g = f + 1
                    one = (v,)
                    for s, w in group:
                        s2 = s[:f] + one + s[g:]
                        if s2 in bucket:
                            bucket[s2] += w * w2
                        else:
                            bucket[s2] = w * w2
                else:
                    for s, w in group:
                        out = list(s)
                        for f, v in ch:
                            out[f] = v
                        s2 = tuple(out)
                        if s2 in bucket:
                            bucket[s2] += w * w2
                        else:
                            bucket[s2] = w * w2


def _part_transition(inner: Stage[Any], sub: Any, at: tuple[int, ...], token: Any,
                     memo: dict[Any, Any], width: int, fields: tuple[str, ...],
                     shared: dict[Any, Any]
                     ) -> tuple[list[tuple[tuple[tuple[int, Any], ...], int]], int]:
    """A part stage's transition from the values ``sub`` of its part, as the changes it
    makes to the state (position, value) with their weights, memoised under ``token``."""
    found = memo.get((token, sub))
    if found is None:
        pieces = getattr(inner, "_warroom_parts", None)
        if pieces is not None:  # context.parts: composed from its pieces' transitions
            after, sden = _composed_transition(pieces, sub, memo, shared)
        else:
            after, sden = _transition(inner, sub, width, fields, shared)
        if len(after) == 1:  # certain: weight 1 over 1
            after, sden = [(after[0][0], 1)], 1
        found = memo[token, sub] = (
            [(tuple([(f, v) for f, v, old in zip(at, s2, sub, strict=True)
                     if v is not old and v != old]), w2) for s2, w2 in after],
            sden)
    return found


def _composed_transition(pieces: tuple[tuple[tuple[int, ...], Stage[Any]], ...], sub: Any,
                         memo: dict[Any, Any], shared: dict[Any, Any]
                         ) -> tuple[list[tuple[Outcome, int]], int]:
    """The transition of stages on parts one after another (:func:`~warroom.engine.
    context.parts`) from the values ``sub`` of all their positions: a small dynamic
    programme over those values, each piece worked out once per distinct value of its
    own part (memoised for the query like any stage on a part)."""
    tokens = shared.get(("parts tokens", pieces))
    if tokens is None:
        tokens = []
        for positions, fn in pieces:
            key = _chain_key(fn)
            tokens.append(object() if key is None else shared.setdefault(
                ("stage token", ("part", positions, key)), object()))
        shared["parts tokens", pieces] = tokens
    dist: dict[Outcome, int] = {sub: 1}
    den = 1
    for (positions, fn), token in zip(pieces, tokens, strict=True):
        get = operator.itemgetter(*positions) if len(positions) > 1 else _single(positions[0])
        fields = tuple(map(str, range(len(positions))))
        buckets: dict[int, dict[Outcome, int]] = {}
        for s, w in dist.items():
            changes, sden = _part_transition(fn, get(s), positions, token, memo,
                                             len(positions), fields, shared)
            bucket = buckets.setdefault(sden, {})
            for ch, w2 in changes:
                if ch:
                    out = list(s)
                    for f, v in ch:
                        out[f] = v
                    s2 = tuple(out)
                else:
                    s2 = s
                bucket[s2] = bucket.get(s2, 0) + w * w2
        common = lcm(*buckets)
        den *= common
        dist = {}
        for d, bucket in buckets.items():
            scale = common // d
            for s2, w in bucket.items():
                dist[s2] = dist.get(s2, 0) + w * scale
    return list(dist.items()), den


def _stage_key(stage: Callable[..., Any]) -> Any:
    """What a stage computes (:func:`_chain_key`), for a stage on part of the state its
    positions and the key of the function on them."""
    part = getattr(stage, "_warroom_part", None)
    if part is None:
        return _chain_key(stage)
    inner = _chain_key(part[1])
    return None if inner is None else ("part", part[0], inner)


def _transition(stage: Stage[Any], s: tuple[Any, ...], width: int, fields: tuple[str, ...],
                shared: dict[Any, Any]) -> tuple[list[tuple[Outcome, int]], int]:
    """Every state one stage can lead to from ``s``, with integer weights."""
    # a stage seen to branch is enumerated straight away from then on in this query
    branches = ("branching stage", stage)
    found = None if branches in shared else _unbranched_transition(stage, s, width, shared)
    if found is not None and not isinstance(found, (_Branch, NeedConcrete)):
        return found
    if found is not None:
        shared[branches] = True
    if not isinstance(found, NeedConcrete) and ("lazy stage", stage) not in shared:
        plain = _plain_transition(stage, s, width, shared, found)
        if plain is not None:
            return plain
        shared["lazy stage", stage] = True  # the enumeration below, from now on

    def pick(after: Any) -> Outcome:
        if not isinstance(after, tuple) or len(after) != width:
            raise RuleError(f"a round must return a state like {s!r}, got {after!r}")
        return after

    w = exact_run(functools.partial(stage, s), fields, name="one stage", shared=shared,
                  pick=pick, first=found)
    if type(w.weights) is _tally.Shared:  # outcomes other states reach too (Dice.tally)
        return _tally.pairs(w.weights), w.denominator
    return list(w.weights.items()), w.denominator


Transition = tuple[list[tuple[Outcome, int]], int]
"""The states a stage leads to from one state, with integer weights over one
denominator."""


def _plain_transition(stage: Stage[Any], s: tuple[Any, ...], width: int,
                      shared: dict[Any, Any], first: _Branch | None,
                      budget: int | None = None) -> Transition | None:
    """A stage's transitions from ``s`` when every run of it ends in a plain state (no
    lazy count: a stage of single dice and checks, as a stack's): the enumeration of
    :func:`_enumerate` (the same paths in the same order, the same weights) without its
    bookkeeping for lazy counts, outcome mappings and replays of a whole procedure.
    ``first``: where a first run branched, if the caller made one. None, when a run
    leaves a lazy count, must make one concrete, ends in something that is not a state
    or the paths pass the budget: the full enumeration takes over (and names the
    mistake). ``budget``: the runs allowed (past it, None too; :data:`MAX_PATHS`)."""
    budget = MAX_PATHS if budget is None else budget
    concrete: set[int] = set()
    memo: dict[Any, Any] = {}
    if first is None:
        try:
            after = stage(s, ExactDice((), concrete, False, memo, shared))
        except _Branch as br:
            first = br
        except NeedConcrete:
            return None
        else:
            if type(after) is not tuple or len(after) != width or any(
                    isinstance(v, _LAZY) for v in after):
                return None
            return [(after, 1)], 1
    stack: list[tuple[tuple[Any, ...], int, int]] = [
        ((value,), w, first.den) for value, w in first.options if w]
    d = ExactDice((), concrete, False, memo, shared)
    by_den: dict[int, dict[Outcome, int]] = {}
    runs = 1
    while stack:
        runs += 1
        if runs > budget:
            return None
        path, num, den = stack.pop()
        d.path, d.pos, d.ordinal = path, 0, 0  # one object for every run: no run keeps it
        try:
            after = stage(s, d)
        except _Branch as br:
            for value, w in br.options:
                if w:
                    stack.append(((*path, value), num * w, den * br.den))
            continue
        except NeedConcrete:
            return None
        if type(after) is not tuple or len(after) != width:
            return None
        for v in after:
            if isinstance(v, _LAZY):
                return None
        bucket = by_den.get(den)
        if bucket is None:
            bucket = by_den[den] = {}
        bucket[after] = bucket.get(after, 0) + num
    if len(by_den) == 1:
        ((den, bucket),) = by_den.items()
        return list(bucket.items()), den
    common = lcm(*by_den)
    merged: dict[Outcome, int] = {}
    for den, bucket in by_den.items():
        scale = common // den
        for key, w in bucket.items():
            merged[key] = merged.get(key, 0) + w * scale
    return list(merged.items()), common


def _unbranched_transition(stage: Stage[Any], s: tuple[Any, ...], width: int,
                           shared: dict[Any, Any]
                           ) -> Transition | _Branch | NeedConcrete | None:
    """A stage's transitions from ``s`` when its first run asks for nothing it must
    branch on (its counts lazy: a stage with one ``Dice.tally``, say): that run's
    state, evaluated, without the bookkeeping of an enumeration. Else what the
    enumeration goes on from: the first run's branch (it is not run again), the counts
    it must make concrete, or None (a state that is not one: the enumeration starts
    over and names the mistake)."""
    try:
        after = stage(s, ExactDice((), set(), False, None, shared))
    except (_Branch, NeedConcrete) as stop:
        return stop
    if type(after) is not tuple or len(after) != width:
        return None
    for v in after:
        if isinstance(v, _LAZY):
            sub, den = _outcomes(after)
            if type(sub) is _tally.Shared:  # outcomes other states reach too (Dice.tally)
                return _tally.pairs(sub), den
            return list(sub.items()), den
    return [(after, 1)], 1


_LAZY = (Sym, Cond)


def _chain_key(chain: Callable[..., Any] | None, depth: int = 0) -> Any:
    """A key identifying what a function (a per-item chain, a round) computes: its code
    and the values it captured, a captured function standing for its own key, so two
    closures made by the same code over equal values share one key. None when a captured
    value cannot be hashed, or functions nest too deep (then it is not memoised). A
    function marked :func:`~warroom.engine.context.fixed` keeps its key once made."""
    if hasattr(chain, "__func__"):  # a bound method computes with its object too
        return None
    known = getattr(chain, "_warroom_key", None)
    if known is not None:
        return known
    code = getattr(chain, "__code__", None)
    if code is None or depth > 8:
        return None
    cells = getattr(chain, "__closure__", None) or ()
    kwdefaults = getattr(chain, "__kwdefaults__", None) or {}
    try:
        captured = []
        for cell in cells:
            value = cell.cell_contents
            if hasattr(value, "__code__"):
                value = _chain_key(value, depth + 1)
                if value is None:
                    return None
            captured.append(value)
        # the module and qualified name too: equal code compiled in two modules (a
        # lambda calling a global) reads different globals
        key = (getattr(chain, "__module__", None), getattr(chain, "__qualname__", None),
               code, tuple(captured), getattr(chain, "__defaults__", None),
               tuple(sorted(kwdefaults.items())))
        hash(key)
    except (TypeError, ValueError):
        return None
    if getattr(chain, "_warroom_fixed", False):  # its captures never change: keep it
        chain._warroom_key = key  # type: ignore[union-attr]
    return key


def _ancestor(a: Node, b: Node) -> bool:
    node = b.parent
    while node is not None:
        if node is a:
            return True
        node = node.parent
    return False


class Weights:
    """Outcome tuples with integer weights over one denominator (exact, not yet reduced)."""

    __slots__ = ("denominator", "fields", "weights")

    def __init__(self, fields: Sequence[str], weights: dict[Outcome, int], denominator: int):
        self.fields = tuple(fields)
        self.weights = weights
        self.denominator = denominator


MAX_PATHS = 200_000
"""Replays allowed for one exact computation before giving up with a clear error."""


class _TooLarge(Exception):
    pass


def exact_run(run: Callable[[Dice], Any], fields: Sequence[str], all_concrete: bool = False,
              name: str = "this procedure", max_paths: int = MAX_PATHS,
              shared: dict[Any, Any] | None = None,
              pick: Callable[[Any], Outcome] | None = None, first: Any = None) -> Weights:
    """Enumerate ``run`` exactly. ``fields`` orders the outcome tuple. ``shared`` holds
    what sub-enumerations computed (per-item chains, rounds), keyed by what they compute,
    for the whole query. ``pick`` makes the outcome tuple of what ``run`` returns (by
    default: a mapping's ``fields`` in order). ``first``: where a first run of ``run``
    (nothing concrete) branched or what it must make concrete, if the caller made one."""
    if shared is None:  # the whole query: the heap before it is left out of collections
        with _gc_frozen():
            return exact_run(run, fields, all_concrete, name, max_paths, {}, pick, first)
    concrete: set[int] = set()
    if isinstance(first, NeedConcrete):  # the caller's first run: start from there
        concrete |= first.origins
        first = None
    while True:
        try:
            return _enumerate(run, tuple(fields), concrete, all_concrete, max_paths, shared,
                              pick, first if not concrete and not all_concrete else None)
        except _TooLarge:
            raise ExactTooLargeError(name, max_paths) from None
        except NeedConcrete as need:
            new = need.origins - concrete
            if not new:  # pragma: no cover - would loop forever
                raise RuleError("exact driver could not make a lazy count concrete") from None
            concrete |= new


@contextlib.contextmanager
def _acyclic() -> Iterator[None]:
    """No collection while a loop makes many objects that hold no cycles (states
    spliced, outcome rows): the collector's passes would only walk them. Automatic
    collection is paused around such a loop only, and resumed after it if it was on
    when the loop began (with threads, one's pause may end during another's loop, which
    then only runs with collections, as without this)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            _spare_young()
            gc.enable()


_GC_LOCK = threading.Lock()
_GC_HOLDERS = [0]


def _spare_young() -> None:
    """During an exact query (:func:`_gc_frozen`), leave the objects made so far out of
    the collector's passes too (``gc.freeze``): a loop under :func:`_acyclic` makes tens
    of thousands (states, rows) that live on (a stage's states until the next stage),
    and resuming collection would walk each of them once for nothing. They are freed as
    usual when no longer used; any cycle among earlier objects is collected after the
    query, when the last one lets everything back (``gc.unfreeze``)."""
    with _GC_LOCK:
        if _GC_HOLDERS[0]:
            gc.freeze()


@contextlib.contextmanager
def _gc_frozen() -> Iterator[None]:
    """Leave the objects that exist before an exact query out of the collector's passes
    while it runs (``gc.freeze``; threads may run queries at once: they are let back
    when the last one ends). A query makes hundreds of thousands of short-lived objects,
    so the collector runs often, and each full pass would walk the whole program's heap
    too; the query's own garbage (lazy counts' category trees hold cycles) is still
    collected as it goes."""
    with _GC_LOCK:
        if _GC_HOLDERS[0] == 0:
            gc.freeze()
        _GC_HOLDERS[0] += 1
    try:
        yield
    finally:
        with _GC_LOCK:
            _GC_HOLDERS[0] -= 1
            if _GC_HOLDERS[0] == 0:
                gc.unfreeze()


def _enumerate(run: Callable[[Dice], Any], fields: tuple[str, ...], concrete: set[int],
               all_concrete: bool, max_paths: int, shared: dict[Any, Any],
               pick: Callable[[Any], Outcome] | None, first: _Branch | None = None
               ) -> Weights:
    memo: dict[Any, Any] = {}
    if pick is None:
        pick = _outcome_getter(fields)
    # the first replay on its own: a procedure that never branches (every request lazy,
    # the usual case) is done after it, without the bookkeeping of the loop below
    stack: list[tuple[tuple[Any, ...], int, int]] = []
    out: Any = None
    try:
        if first is None:
            out = run(ExactDice((), concrete, all_concrete, memo, shared))
    except _Branch as br:
        first = br
    else:
        if first is None and type(out) is not _Outcomes:
            key = _key(pick, out, fields)
            for v in key:
                if isinstance(v, (Sym, Cond)):
                    sub, sub_den = _outcomes(key)
                    return Weights(fields, sub, sub_den)
            return Weights(fields, {key: 1}, 1)
    if first is not None:  # the first run branched (here or in the caller's run)
        stack = [((value,), w, first.den) for value, w in first.options if w]
    plain: dict[int, dict[Outcome, int]] = {}
    lazy: list[tuple[int, int, dict[Outcome, int]]] = []
    if not stack:  # the procedure finished with stages (Dice.finish): no replays
        _finished(out, pick, fields, 1, 1, plain, lazy)
    runs = 1
    lazy_types = (Sym, Cond)
    last_den, bucket = 0, {}
    while stack:
        runs += 1
        if runs > max_paths:
            raise _TooLarge
        path, num, den = stack.pop()
        try:
            out = run(ExactDice(path, concrete, all_concrete, memo, shared))
        except _Branch as br:
            for value, w in br.options:
                if w:
                    stack.append(((*path, value), num * w, den * br.den))
            continue
        if type(out) is _Outcomes:
            _finished(out, pick, fields, num, den, plain, lazy)
            last_den = 0
            continue
        key = _key(pick, out, fields)
        for v in key:
            if isinstance(v, lazy_types):
                sub, sub_den = _outcomes(key)
                lazy.append((den * sub_den, num, sub))
                break
        else:
            if den != last_den:
                last_den, bucket = den, plain.setdefault(den, {})
            bucket[key] = bucket.get(key, 0) + num
    if not plain and len(lazy) == 1 and lazy[0][1] == 1:
        den, _, sub = lazy[0]
        return Weights(fields, sub, den)
    for den, num, sub in lazy:
        bucket = plain.setdefault(den, {})
        for key, w in sub.items():
            bucket[key] = bucket.get(key, 0) + num * w
    return _merge(fields, plain)


def _finished(out: _Outcomes, pick: Callable[[Any], Outcome], fields: tuple[str, ...],
              num: int, den: int, plain: dict[int, dict[Outcome, int]],
              lazy: list[tuple[int, int, dict[Outcome, int]]]) -> None:
    """Count every outcome of a :meth:`ExactDice.finish` reached with weight num/den."""
    bucket = plain.setdefault(den * out.den, {})
    options = out.options
    lazy_types = _LAZY_TYPES
    if out.names is not None:  # rows (context.rows): in the query's order, or put in it
        if out.names != fields:
            missing = [f for f in fields if f not in out.names]
            if missing:
                raise RuleError(f"procedure did not return outcome field {missing[0]!r}")
            at = [out.names.index(f) for f in fields]
            options = [(tuple([r[j] for j in at]), w) for r, w in options]
        _finished_rows(options, num, den * out.den, bucket, lazy, out.plain)
        return
    for mapping, w in options:
        key = _key(pick, mapping, fields)
        if not lazy_types.isdisjoint(map(type, key)):
            sub, sub_den = _outcomes(key)
            lazy.append((den * out.den * sub_den, num * w, sub))
        else:
            bucket[key] = bucket.get(key, 0) + num * w


_LAZY_TYPES = frozenset((Sym, Cond, _tally.Count))
_first = operator.itemgetter(0)


def _finished_rows(options: list[tuple[Outcome, int]], num: int, den: int,
                   bucket: dict[Outcome, int], lazy: list[tuple[int, int, dict[Outcome, int]]],
                   plain: bool = False) -> None:
    """Count outcome rows reached with weight num/den. There are thousands of them, so
    the usual case (no lazy count in any row, nothing counted yet) is done in bulk: the
    types of every value in one pass, the rows into the bucket as they are, and added up
    one by one only if two rows are equal. ``plain``: the rows hold no lazy count
    (``context.rows``), no value's type is looked at."""
    lazy_types = _LAZY_TYPES
    if not bucket and num == 1 and (plain or lazy_types.isdisjoint(
            set(map(type, itertools.chain.from_iterable(map(_first, options)))))):
        bucket.update(options)
        if len(bucket) == len(options):
            return
        bucket.clear()
    isdisjoint = lazy_types.isdisjoint
    get = bucket.get
    for key, w in options:
        if plain or isdisjoint(map(type, key)):
            bucket[key] = get(key, 0) + num * w
        else:
            sub, sub_den = _outcomes(key)
            lazy.append((den * sub_den, num * w, sub))


def _key(pick: Callable[[Any], Outcome], out: Any,
         fields: tuple[str, ...]) -> Outcome:
    try:
        return pick(out)
    except KeyError:
        for f in fields:
            _field(out, f)  # names the missing field
        raise


@functools.lru_cache(maxsize=256)
def _outcome_getter(fields: tuple[str, ...]) -> Callable[[Mapping[str, Any]], Outcome]:
    """The outcome tuple of a returned mapping, in ``fields`` order (KeyError if one is
    missing)."""
    if len(fields) == 1:
        (name,) = fields
        return lambda out: (out[name],)
    if not fields:
        return lambda out: ()
    return operator.itemgetter(*fields)


def _field(out: Mapping[str, Any], name: str) -> Any:
    try:
        return out[name]
    except KeyError:
        raise RuleError(f"procedure did not return outcome field {name!r}") from None


def _merge(fields: tuple[str, ...], acc: dict[int, dict[Outcome, int]]) -> Weights:
    if len(acc) == 1:
        (den, bucket), = acc.items()
        return Weights(fields, bucket, den)
    common = lcm(*acc)
    merged: dict[Outcome, int] = {}
    for den, bucket in acc.items():
        scale = common // den
        for key, w in bucket.items():
            merged[key] = merged.get(key, 0) + w * scale
    return Weights(fields, merged, common)


_EVAL_MEMO: dict[Any, tuple[dict[Outcome, int], int]] = {}
_EVAL_MEMO_SIZE = 4096


def _outcomes(key: Outcome) -> tuple[dict[Outcome, int], int]:
    """Distribution of an outcome holding lazy counts. When its lazy fields are distinct
    counts with no conditions (a state whose stage left ``teams - losses`` in it, say),
    only those counts are evaluated, without their constants, so the (memoised) work
    is shared by every state that differs only in its plain values and constants."""
    lazy = [j for j, v in enumerate(key) if isinstance(v, (Sym, Cond))]
    if type(key[lazy[0]]) is _tally.Count:  # Dice.tally's counts (engine/tally.py)
        found = _tally.outcomes(key, lazy)
        if found is not None:
            return found
    if len(lazy) == len(key) or any(type(key[j]) is not Sym for j in lazy) or len(
            {id(key[j]) for j in lazy}) < len(lazy):
        return _evaluate(list(key))
    exprs: list[Any] = []
    consts: list[int] = []
    for j in lazy:
        e = key[j]
        consts.append(e.const)
        exprs.append(Sym(e.terms) if e.const else e)
    sub, den = _evaluate(exprs)
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


def _evaluate(values: list[Any]) -> tuple[dict[Outcome, int], int]:
    """Distribution of an outcome whose fields hold lazy counts and conditions.

    Each category tree becomes one categorical per item: the leaves grouped by the
    vector of coefficients the expressions give them, with integer weights over the
    tree's denominator. Memoised by structure: the trees' sizes and categoricals, the
    expressions' constants and the shape of the outcome fully determine the result."""
    # "pure": every field is its own lazy count (no conditions, constants or repeats)
    pure = len({id(v) for v in values if type(v) is Sym}) == len(values)
    if pure:
        exprs: list[Sym] = values
    else:
        exprs = []
        seen: set[int] = set()
        for v in values:
            for e in (v,) if isinstance(v, Sym) else v.syms() if isinstance(v, Cond) else ():
                if id(e) not in seen:
                    seen.add(id(e))
                    exprs.append(e)
    # per tree: each leaf's coefficient in each expression
    m = len(exprs)
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
    parts: list[tuple[int, int, tuple[tuple[tuple[int, ...], int], ...]]] = []
    for top, cols in trees.items():
        d = lcm(*[leaf.cden for leaf in cols])
        chances: dict[tuple[int, ...], int] = {}
        for leaf, col in cols.items():
            k = tuple(col)
            chances[k] = chances.get(k, 0) + leaf.cnum * (d // leaf.cden)
        parts.append((top.size, d, tuple(chances.items())))
    try:
        key: Any = (
            tuple(parts), tuple([e.const for e in exprs]),
            m if pure else tuple([_pattern(v, {id(e): i for i, e in enumerate(exprs)})
                                  for v in values]),
        )
        hit = _EVAL_MEMO.get(key)
    except TypeError:  # an unhashable constant in the outcome
        key = hit = None
    if hit is not None:
        return hit
    result = _evaluate_parts(values, exprs, pure, parts)
    if key is not None:
        if len(_EVAL_MEMO) >= _EVAL_MEMO_SIZE:
            _EVAL_MEMO.pop(next(iter(_EVAL_MEMO)))
        _EVAL_MEMO[key] = result
    return result


Part = tuple[int, int, tuple[tuple[tuple[int, ...], int], ...]]
"""One category tree as (items, denominator, ((coefficient vector, weight), ...))."""


def _evaluate_parts(values: list[Any], exprs: list[Sym], pure: bool, parts: list[Part]
                    ) -> tuple[dict[Outcome, int], int]:
    # Each expression's range of values: its constant plus, per tree, the tree's size
    # times its least (most) coefficient in that tree.
    los = [e.const for e in exprs]
    his = los.copy()
    for size, _, cats in parts:
        for j, coefs in enumerate(zip(*[col for col, _ in cats], strict=True)):
            least, most = min(coefs), max(coefs)
            if least < 0:
                los[j] += size * least
            if most > 0:
                his[j] += size * most
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
        dense = _multinomial_dense(*classes[0])
        if dense is not None:
            first, weights = dense
            # the packed list may stop short of the last key (never run past it)
            keys: Iterator[tuple[int, ...]] = itertools.product(*ranges)
            if first + offset:
                keys = itertools.islice(keys, first + offset, None)
            return dict(zip(itertools.compress(keys, weights), filter(None, weights),
                            strict=True)), den
    dist: dict[int, int] | None = None
    for size, cls in classes:
        part = _multinomial_keys(size, tuple(cls))
        if dist is None:
            dist = part
        else:
            nxt: dict[int, int] = {}
            for k1, w1 in dist.items():
                for k2, w2 in part.items():
                    nxt[k1 + k2] = nxt.get(k1 + k2, 0) + w1 * w2
            dist = nxt
    if dist is None:
        dist = {0: 1}
    if offset:
        dist = {k + offset: w for k, w in dist.items()}
    if pure and mult <= 16 * len(dist) + 256:
        # every key in order with its weight (0 where none), decoded in C
        weights = list(map(dist.get, range(mult), itertools.repeat(0)))
        return dict(zip(itertools.compress(itertools.product(*ranges), weights),
                        filter(None, weights), strict=True)), den
    return _decode(values, exprs, mults, los, radices, dist), den


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


KRONECKER_BITS = 16_384
"""Largest power (in bits) the packed multinomial computes; past it the recurrence wins."""


def _multinomial_dense(n: int, classes: Sequence[tuple[int, int]]
                       ) -> tuple[int, list[int]] | None:
    """The multinomial of :func:`_multinomial_keys` as one dense list: ``(first key,
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
def _multinomial_keys(n: int, classes: tuple[tuple[int, int], ...]) -> dict[int, int]:
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
        sub = _multinomial_keys(n - c, tuple(rest)) if c < n else {0: 1}
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


gc_frozen = _gc_frozen
"""The public name of :func:`_gc_frozen` (the batched Monte Carlo driver uses it)."""
