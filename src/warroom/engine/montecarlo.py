"""The Monte Carlo driver: many fast samples, no steps recorded.

A sample draws what the exact driver can tell it at once: a per-item chain's category
(:meth:`Dice.each`, :meth:`Dice.one`, :meth:`Dice.tally`) and a stage on part of the state
(:func:`~warroom.engine.context.part`) are drawn from their exact chances, worked out
once per simulation by the exact driver and kept per chain and per value of the part;
a pool of dice is one draw from its binomial. The draws use the chances' integer weights
(``randrange`` over their total), so each sample follows exactly the law the procedure
defines; only the random stream differs from rolling item by item. What the exact
driver cannot work out quickly (a chain or stage past :data:`TABLE_PATHS` replays, or
one whose captured values cannot be hashed) runs as it is, item by item, and so does a
chain or stage not marked :func:`~warroom.engine.context.fixed`.
"""

from __future__ import annotations

import functools
import operator
import random
from bisect import bisect_right
from collections.abc import Callable, Mapping, Sequence
from itertools import accumulate
from math import gcd
from typing import Any

from warroom.dice.weights import Reroll, View, binomial, success_weight, view_of
from warroom.engine.context import Chain, Dice, Stage, State, as_target, part_changes
from warroom.engine.messages import Msg, Text
from warroom.engine.steps import Target
from warroom.errors import ExactTooLargeError, RuleError

TABLE_PATHS = 2_000
"""Replays the exact driver may spend on one chain's chances or one part stage's
transition from one value before the sampler gives up on it and runs it as it is."""


PLANS = 1024
"""Stages requests kept as the sampler runs them (:meth:`SampleDice.stages`); past it
(stage functions made afresh for each sample) the plans start over."""

PART_TABLE_AFTER = 3
"""A part stage's table from one value of its part is worked out when that value comes
up for the third time; before, the stage runs as it is (a value that comes up once or
twice costs less rolled than worked out: a short estimate under a time cap gets more
samples). Either way each draw follows the stage's exact law."""


class Table:
    """Values with integer weights, drawn exactly: a uniform integer below their total
    (``randrange``'s own draw: ``getrandbits`` of its length until it falls below)
    placed among the cumulative weights (put over their greatest common divisor
    first)."""

    __slots__ = ("bits", "cumulative", "probs", "total", "values")

    def __init__(self, options: Sequence[tuple[Any, int]]) -> None:
        live = [(v, w) for v, w in options if w]
        g = 0
        for _, w in live:
            g = gcd(g, w)
        self.values = tuple(v for v, _ in live)
        self.cumulative = list(accumulate(w // g for _, w in live))
        self.total = self.cumulative[-1]
        self.bits = self.total.bit_length()
        self.probs: Any = None  # the chances as floats, for batched draws (batched.py)

    def draw(self, rng: random.Random) -> Any:
        values = self.values
        if len(values) == 1:
            return values[0]
        total, k = self.total, self.bits
        bits = rng.getrandbits
        r = bits(k)  # randrange(total) as it draws it, without its checks
        while r >= total:
            r = bits(k)
        return values[bisect_right(self.cumulative, r)]


RAW: Any = object()
"""A chain or stage the sampler runs as it is (no table: too large, or no key)."""


def _getter(at: tuple[int, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """The values at positions ``at`` of a state, as a tuple."""
    if len(at) == 1:
        (f,) = at
        return lambda s: (s[f],)
    return operator.itemgetter(*at)


def _joined(items: tuple[Any, ...]) -> tuple[Any, ...]:
    """A plan's stages with the steps of stages on parts that follow one another joined
    into one tuple (:meth:`SampleDice._part_steps` runs them in one call): where no
    ``done`` is checked between them, running them one after another is the same."""
    out: list[Any] = []
    for item in items:
        if type(item) is tuple and out and type(out[-1]) is tuple:
            out[-1] += item
        else:
            out.append(item)
    return tuple(out)


PartPiece = tuple[tuple[int, ...], Callable[..., Any], int,
                  Callable[[tuple[Any, ...]], Any] | None]
"""A stage on part of the state: its positions in the whole state, its function, how
many of its positions it reads (the first; the others it only writes) and what keys its
transitions (None: the values it reads) (context.part)."""


def part_pieces(stage: Stage[Any]) -> list[PartPiece] | None:
    """The pieces of a stage on part of the state (context.part; context.parts: each of
    its pieces in order) as :data:`PartPiece`; None for a stage on the whole state."""
    part = getattr(stage, "_warroom_part", None)
    if part is None:
        return None
    at, inner, n, key = part
    pieces = getattr(inner, "_warroom_parts", None)
    return ([(tuple(at[j] for j in positions), fn, k, kf) for positions, fn, k, kf in pieces]
            if pieces is not None else [(at, inner, n, key)])


_PartStep = tuple[int, Callable[[Any], tuple[Any, ...]], dict[Any, Any],
                  tuple[tuple[int, ...], Callable[..., Any], dict[Any, Any] | None,
                        Callable[[tuple[Any, ...]], Any] | None]]
"""A step of :meth:`SampleDice._part_steps`: the position of its part when it has one
(else -1), the getter of its part, the transitions it has drawn from, and its positions,
function, shared memo (:meth:`SampleDice._part_memo`) and key (context.part)."""


class SampleDice(Dice):
    """Draws counts directly (a pool is one binomial draw, a chain's category and a part
    stage's next value come from their exact chances); the same process as the table.

    ``tables=False`` runs every chain and stage item by item as the procedure asks (the
    sampler before the tables; the same law, another random stream)."""

    explains = False

    def __init__(self, rng: random.Random, *, tables: bool = True) -> None:
        self.rng = rng
        self.tables = tables
        self._p: dict[tuple[int, str], float] = {}
        self._pools: dict[tuple[int, int, str], Table] = {}
        self._finals: dict[int, tuple[Target, int]] = {}  # id(target) -> it, its number
        self._asked: dict[tuple[int, int, str], tuple[int | Target, Table]] = {}
        # for the whole simulation: what sub-enumerations computed (exact_run's shared),
        # each chain's table by its key and labels (and by the chain object), each part
        # stage's tables by its function (and key) then by the value of its part, and
        # the stages of a stages request as the sampler runs them
        self._shared: dict[Any, Any] = {}
        self._chains: dict[Any, Any] = {}
        self._parts: dict[Any, Any] = {}
        self._staged: dict[Any, tuple[tuple[Any, ...], ...]] = {}

    def _chance(self, at: int, reroll: str) -> float:
        key = (at, reroll)
        p = self._p.get(key)
        if p is None:
            num, den = success_weight(at, reroll)  # type: ignore[arg-type]
            p = self._p[key] = num / den
        return p

    def pool(self, n: int, at: int | Target, *, rule: str, what: Text,
             reroll: Reroll = "none") -> int:
        if n <= 0:
            return 0
        if self.tables:  # a pool asked before: its table by the target object (ids stay
            asked = self._asked.get((id(at), n, reroll))  # unique while it holds it)
            if asked is not None and asked[0] is at:
                table = asked[1]
                values = table.values
                if len(values) == 1:
                    return values[0]  # type: ignore[no-any-return]
                total, k = table.total, table.bits
                bits = self.rng.getrandbits
                r = bits(k)  # as Table.draw draws
                while r >= total:
                    r = bits(k)
                return values[bisect_right(table.cumulative, r)]  # type: ignore[no-any-return]
        target = at
        if not isinstance(at, int):  # a target's number, kept by the object (ids stay
            found = self._finals.get(id(at))  # unique while it holds the target)
            if found is None or found[0] is not at:
                if len(self._finals) >= PLANS:
                    self._finals.clear()
                found = self._finals[id(at)] = (at, at.final)
            at = found[1]
        if not self.tables:
            p = self._chance(at, reroll)
            rnd = self.rng.random
            k = 0
            for _ in range(n):
                if rnd() < p:
                    k += 1
            return k
        key = (n, at, reroll)
        made = self._pools.get(key)
        if made is None:
            num, den = success_weight(at, reroll)
            made = self._pools[key] = Table(binomial(n, num, den)[0])
        if len(self._asked) >= PLANS:
            self._asked.clear()
        self._asked[id(target), n, reroll] = (target, made)
        return made.draw(self.rng)  # type: ignore[no-any-return]

    def split(self, n: int, classes: Mapping[str, Sequence[int]], *, rule: str, what: Text,
              target: Target | None = None) -> dict[str, int]:
        counts = dict.fromkeys(classes, 0)
        lookup: dict[int, str] = {}
        for label, faces in classes.items():
            for f in faces:
                lookup[f] = label
        rnd = self.rng.randrange
        for _ in range(n):
            counts[lookup[rnd(6) + 1]] += 1
        return counts

    # -- chains ------------------------------------------------------------------
    def _chain_table(self, chain: Chain, labels: Sequence[str]) -> Any:
        """The exact chances of the categories ``chain`` ends in as a :class:`Table` of
        labels, worked out once per simulation; :data:`RAW` when it cannot be, or when
        ``chain`` is not marked :func:`~warroom.engine.context.fixed` (a procedure that
        makes a fresh closure per item or sample: working its key out at every request
        costs more than rolling it, twice the time of bkc.orders)."""
        if not getattr(chain, "_warroom_fixed", False):
            return RAW
        mine = self._chains.get(chain)
        if mine is not None and (mine[0] is labels or mine[0] == labels):
            return mine[1]
        from warroom.engine.exact import chain_key

        found = chain_key(chain)
        if found is None:
            table = RAW
        else:  # chains computing alike (equal keys) share one table
            known = ("chain", found, tuple(labels))
            table = self._chains.get(known)
            if table is None:
                table = self._chains[known] = self._work_chain(chain, labels)
        self._chains[chain] = (labels, table)  # by the object from now on
        return table

    def _work_chain(self, chain: Chain, labels: Sequence[str]) -> Any:
        from warroom.engine.exact import exact_run

        try:
            sub = exact_run(lambda d: {"label": chain(d)}, ("label",), all_concrete=True,
                            name="one item", max_paths=TABLE_PATHS, shared=self._shared)
        except (ExactTooLargeError, RuleError):  # too large, or a request only rolling
            return RAW                            # serves (5 ordered dice): as it is
        weights: dict[str, int] = dict.fromkeys(labels, 0)
        for (label,), w in sub.weights.items():
            if label not in weights:
                raise RuleError(f"chain returned {label!r}, not one of {list(labels)}")
            weights[label] += w
        return Table(list(weights.items()))

    def _add(self, counts: dict[str, int],
             groups: Sequence[tuple[int, Chain, Text, Sequence[Text]]],
             labels: Sequence[str]) -> None:
        """Add the categories of each group's ``n`` items of its chain to ``counts``, a
        group after another ((n, chain, what, names): :meth:`tally`'s groups)."""
        chains = self._chains
        bits = self.rng.getrandbits
        for n, chain, _, _ in groups:
            if n <= 0:
                continue
            mine = chains.get(chain)  # a fixed chain seen before: by the object
            if mine is not None and (mine[0] is labels or mine[0] == labels):
                table = mine[1]
            else:
                table = self._chain_table(chain, labels) if self.tables else RAW
            if table is RAW:
                for _ in range(n):
                    counts[chain(self)] += 1
                continue
            values = table.values
            if len(values) == 1:
                counts[values[0]] += n
                continue
            cumulative, total, k = table.cumulative, table.total, table.bits
            for _ in range(n):
                r = bits(k)
                while r >= total:
                    r = bits(k)
                counts[values[bisect_right(cumulative, r)]] += 1

    def each(self, n: int, chain: Chain, labels: Sequence[str], *, rule: str,
             what: Text, names: Sequence[Text] = ()) -> dict[str, int]:
        counts = dict.fromkeys(labels, 0)
        if n > 0:
            self._add(counts, ((n, chain, what, names),), labels)
        return counts

    def one(self, chain: Chain, labels: Sequence[str], *, rule: str, what: Text) -> str:
        table = self._chain_table(chain, labels) if self.tables else RAW
        if table is RAW:
            return chain(self)
        return table.draw(self.rng)  # type: ignore[no-any-return]

    def tally(self, groups: Sequence[tuple[int, Chain, Text, Sequence[Text]]],
              labels: Sequence[str], *, rule: str) -> dict[str, int]:
        total = dict.fromkeys(labels, 0)
        self._add(total, groups, labels)  # each group's items in turn, as each asks them
        return total

    # -- stages ------------------------------------------------------------------
    def stages(self, state: State, stages: Sequence[Stage[State]], *, rounds: int,
               done: Callable[[State], bool] | None = None,
               opening: Sequence[Stage[State]] = ()) -> tuple[State, int]:
        """:meth:`Dice.stages`' loop (``done`` before every stage, the rounds begun,
        :attr:`round`), each stage as the sampler runs it (:meth:`_drawn`), in one loop:
        while stages on parts follow one another the state is one list they splice
        their changes into, made a tuple again only for ``done``, another stage or the
        end."""
        if not self.tables:
            return super().stages(state, stages, rounds=rounds, done=done, opening=opening)
        key = (tuple(opening), tuple(stages))
        plan = self._staged.get(key)
        if plan is None:
            if len(self._staged) >= PLANS:  # stages made afresh for each sample
                self._staged.clear()
            first = tuple([self._drawn(f) for f in key[0]])
            each = tuple([self._drawn(f) for f in key[1]])
            plan = self._staged[key] = (first, each, _joined(first), _joined(each))
        first, each = plan[:2] if done is not None else plan[2:]
        fought = 0
        outer = self.round
        part_steps = self._part_steps
        cur: list[Any] | None = None  # the state as a list while stages on parts run
        try:
            n, items = 0, first  # the opening (round 0), then rounds 1, 2, ... of each
            while True:
                self.round = n
                for j, item in enumerate(items):
                    if done is not None:
                        if cur is not None:
                            state, cur = tuple(cur), None  # type: ignore[assignment]
                        if done(state):
                            return state, fought
                    if n and not j:
                        fought += 1
                    if type(item) is tuple:
                        if cur is None:
                            cur = list(state)
                        part_steps(item, cur)
                    else:
                        if cur is not None:
                            state, cur = tuple(cur), None  # type: ignore[assignment]
                        state = item(state, self)
                if n >= rounds:
                    return (state if cur is None else tuple(cur)), fought  # type: ignore[return-value]
                n, items = n + 1, each
        finally:
            self.round = outer

    def _drawn(self, stage: Stage[Any]) -> Any:
        """``stage`` as the sampler runs it: a stage on part of the state (context.part,
        context.parts: each of its pieces in order) is its steps for :meth:`_part_steps`
        (a tuple), each drawing its part's next value from the exact transition from its
        value; any other stage runs as it is (the function)."""
        steps = part_pieces(stage)
        if steps is None:
            return stage
        return tuple((positions[0] if n == 1 else -1, _getter(positions[:n]), {},
                      (positions, fn, self._part_memo(fn, key), key))
                     for positions, fn, n, key in steps)

    def _part_memo(self, fn: Callable[..., Any],
                   key: Callable[[tuple[Any, ...]], Any] | None = None
                   ) -> dict[Any, Any] | None:
        """Where ``fn``'s transitions are kept, by the value of its part or by ``key`` of
        it (shared by functions computing the same, like a chain's table; a key that
        names nothing: kept for this function alone); None: run as it is (not marked
        :func:`~warroom.engine.context.fixed`, as for chains, or no key)."""
        if not getattr(fn, "_warroom_fixed", False):
            return None
        memo: dict[Any, Any] | None = self._parts.get((fn, key))
        if memo is None and (fn, key) not in self._parts:
            from warroom.engine.exact import chain_key, part_key

            named = part_key(fn, key)
            memo = (self._parts.setdefault(("part", named), {}) if named is not None else
                    None if chain_key(fn) is None else {})
            self._parts[fn, key] = memo
        return memo

    def _part_steps(self, steps: tuple[_PartStep, ...], state: list[Any]) -> None:
        """Stages on parts of ``state`` (a list, changed in place), each one draw from
        its part's transition. A step keeps the transitions it has drawn from by its
        part's value (the value itself for a part of one position) as they serve it:
        the table's total, the bits of a draw (0: one value, no draw), its cumulative
        weights and its changes as (position in the state, value) pairs."""
        bits = self.rng.getrandbits
        for one, get, drawn, step in steps:
            key = state[one] if one >= 0 else get(state)
            found = drawn.get(key)
            if found is None:
                self._part_step(step, key, one >= 0, drawn, state)
                continue
            total, k, cumulative, changes = found
            if k:
                r = bits(k)
                while r >= total:
                    r = bits(k)
                change = changes[bisect_right(cumulative, r)]
            else:
                change = changes[0]
            for f, v in change:
                state[f] = v

    def _part_step(self, step: tuple[tuple[int, ...], Callable[..., Any],
                                     dict[Any, Any] | None,
                                     Callable[[tuple[Any, ...]], Any] | None],
                   key: Any, single: bool, drawn: dict[Any, Any], state: list[Any]) -> None:
        """One step of :meth:`_part_steps` from a value its step has not drawn from yet:
        the transition from the value of ``fn``'s part (kept as the changes it makes,
        (index in the part, value) pairs, by every function computing the same) worked
        out once the value has come up :data:`PART_TABLE_AFTER` times and then drawn
        from (and kept by the step), or the stage run as it is."""
        at, fn, memo, keyed = step
        sub = (key,) if single else key
        mk = sub if keyed is None else keyed(sub)
        table = memo.get(mk, 0) if memo is not None else RAW
        if type(table) is int:  # this value seen ``table`` times before
            if table + 1 < PART_TABLE_AFTER:  # rolled until its table pays
                memo[mk] = table + 1  # type: ignore[index]
                table = RAW
            else:
                table = memo[mk] = self._work_part(fn, sub, len(at))  # type: ignore[index]
        if table is RAW:
            change = self._run_part(fn, sub, at)
            for j, v in change:
                state[at[j]] = v
            return
        values = table.values
        drawn[key] = (table.total, table.bits if len(values) > 1 else 0, table.cumulative,
                      tuple([tuple([(at[j], v) for j, v in ch]) for ch in values]))
        for f, v in table.draw(self.rng):
            state[at[f]] = v

    def _run_part(self, fn: Callable[..., Any], sub: tuple[Any, ...], at: tuple[int, ...]
                  ) -> tuple[tuple[int, Any], ...]:
        """A part stage run as it is: the changes it makes."""
        after = fn(sub, self)
        if not isinstance(after, tuple) or len(after) != len(at):
            raise RuleError(f"a stage on {len(at)} values must return {len(at)}, "
                            f"got {after!r}")
        return part_changes(sub, after)

    def _work_part(self, fn: Callable[..., Any], sub: tuple[Any, ...],
                   width: int | None = None) -> Any:
        """The exact transition of the stage ``fn`` from the value ``sub`` of the
        positions it reads (of ``width`` in all, with those it only writes), as a
        :class:`Table` of the changes it makes (:data:`RAW`: too large to work out)."""
        from warroom.engine.exact import exact_run, plain_transition

        width = len(sub) if width is None else width
        # a stage of single dice and checks ending in plain states (a stack's): its
        # enumeration without exact_run's bookkeeping (the same weights)
        plain = plain_transition(fn, sub, width, self._shared, None, TABLE_PATHS)
        if plain is not None:
            return Table([(part_changes(sub, s2), w2) for s2, w2 in plain[0]])

        def pick(after: Any) -> tuple[Any, ...]:
            if not isinstance(after, tuple) or len(after) != width:
                raise RuleError(f"a stage on {width} values must return {width}, "
                                f"got {after!r}")
            return after

        try:
            w = exact_run(functools.partial(fn, sub), tuple(map(str, range(width))),
                          all_concrete=True, name="one stage", max_paths=TABLE_PATHS,
                          shared=self._shared, pick=pick)
        except (ExactTooLargeError, RuleError):  # as for chains (_work_chain)
            return RAW
        return Table([(part_changes(sub, s2), w2) for s2, w2 in w.weights.items()])

    # -- plain requests ------------------------------------------------------------
    def die(self, *, rule: str, what: Text, sides: int = 6, target: Target | None = None) -> int:
        return self.rng.randrange(sides) + 1

    def dice(self, k: int, *, rule: str, what: Text, sides: int = 6, view: View = "ordered",
             target: Target | None = None) -> Any:
        rnd = self.rng.randrange
        return view_of([rnd(sides) + 1 for _ in range(k)], view)

    def test(self, at: int | Target, *, rule: str, what: Text, reroll: bool = False) -> bool:
        p = self._chance(as_target(at).final, "misses" if reroll else "none")
        return self.rng.random() < p

    def pick(self, k: int, *, rule: str, what: Text) -> int:
        return self.rng.randrange(k)

    def note(self, rule: str, text: str | Msg, result: str | Msg | None = None,
             **args: Any) -> None:
        return None


class VectorDice(Dice):
    """Answers every request for a whole batch of samples at once with numpy arrays.

    Only for procedures marked ``vectorize=True``: straight-line rules whose outcome
    fields are ints or bools computed with arithmetic and comparisons (no ``if`` on a
    count, no table lookup by a count). The conformance tests check such procedures'
    Monte Carlo against their exact odds like any other.
    """

    explains = False

    def __init__(self, rng: Any, batch: int) -> None:
        self.rng = rng
        self.batch = batch

    def _p(self, at: int | Target, reroll: str) -> float:
        num, den = success_weight(at if isinstance(at, int) else at.final, reroll)  # type: ignore[arg-type]
        return num / den

    def pool(self, n: int, at: int | Target, *, rule: str, what: Text,
             reroll: Reroll = "none") -> Any:
        p = self._p(at, reroll)
        return self.rng.binomial(n, p, size=None if _is_array(n) else self.batch)

    def _multinomial(self, n: Any, labels: Sequence[str], probs: Sequence[float]) -> Any:
        counts = self.rng.multinomial(n, probs, size=None if _is_array(n) else self.batch)
        return {label: counts[:, i] for i, label in enumerate(labels)}

    def split(self, n: int, classes: Mapping[str, Sequence[int]], *, rule: str, what: Text,
              target: Target | None = None) -> Any:
        return self._multinomial(n, list(classes), [len(f) / 6 for f in classes.values()])

    def each(self, n: int, chain: Chain, labels: Sequence[str], *, rule: str,
             what: Text, names: Sequence[Text] = ()) -> Any:
        from warroom.engine.exact import exact_run

        sub = exact_run(lambda d: {"label": chain(d)}, ("label",), all_concrete=True)
        weights = dict.fromkeys(labels, 0)
        for (label,), w in sub.weights.items():
            weights[label] += w
        return self._multinomial(n, list(labels), [w / sub.denominator for w in weights.values()])

    def die(self, *, rule: str, what: Text, sides: int = 6, target: Target | None = None) -> Any:
        return self.rng.integers(1, sides + 1, size=self.batch)

    def dice(self, k: int, *, rule: str, what: Text, sides: int = 6, view: View = "ordered",
             target: Target | None = None) -> Any:
        rolls = self.rng.integers(1, sides + 1, size=(self.batch, k))
        if view == "sum":
            return rolls.sum(axis=1)
        if view == "max":
            return rolls.max(axis=1)
        if view == "min":
            return rolls.min(axis=1)
        if view == "sorted":
            rolls.sort(axis=1)
        return tuple(rolls[:, i] for i in range(k))

    def test(self, at: int | Target, *, rule: str, what: Text, reroll: bool = False) -> Any:
        return self.rng.random(self.batch) < self._p(at, "misses" if reroll else "none")

    def pick(self, k: int, *, rule: str, what: Text) -> Any:
        return self.rng.integers(0, k, size=self.batch)

    def note(self, rule: str, text: str | Msg, result: str | Msg | None = None,
             **args: Any) -> None:
        return None

    def stages(self, state: Any, stages: Any, *, rounds: int, done: Any = None,
               opening: Any = ()) -> Any:
        raise RuleError("rounds that stop on their own state cannot run on whole batches: "
                        "do not mark a procedure that iterates vectorize=True")


def _is_array(value: Any) -> bool:
    return hasattr(value, "shape") and getattr(value, "ndim", 0) > 0


def count_batch(out: Mapping[str, Any], fields: Sequence[str], kinds: Sequence[str],
                batch: int, counts: dict[tuple[Any, ...], int]) -> None:
    """Add one batch of vector outcomes to ``counts`` (outcome tuple -> samples)."""
    import numpy as np

    columns = [np.broadcast_to(np.asarray(out[f]), (batch,)).astype(np.int64) for f in fields]
    table = np.stack(columns, axis=1)
    rows, freq = np.unique(table, axis=0, return_counts=True)
    for row, c in zip(rows.tolist(), freq.tolist(), strict=True):
        key = tuple(bool(v) if kind == "bool" else int(v)
                    for v, kind in zip(row, kinds, strict=True))
        counts[key] = counts.get(key, 0) + int(c)
