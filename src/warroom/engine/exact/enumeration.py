"""Enumeration by replay: a procedure run again and again with a prefix of answers, each
run ending in an outcome (its lazy counts evaluated, :mod:`~warroom.engine.exact.lazy`)
or a branch over the next concrete answer, the outcomes added up with integer weights
over their common denominator."""

from __future__ import annotations

import functools
import itertools
import operator
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from warroom.engine import tally as _tally
from warroom.engine.context import Dice
from warroom.engine.exact.collector import gc_frozen
from warroom.engine.exact.core import (
    MAX_PATHS,
    Branch,
    MakeDice,
    Outcome,
    Outcomes,
    Path,
    Taken,
    TooLarge,
    Weights,
    follow_taken,
    over_lcm,
)
from warroom.engine.exact.lazy import lazy_outcomes
from warroom.engine.symbolic import Cond, NeedConcrete, Sym
from warroom.errors import ExactTooLargeError, RuleError


def replay(run: Callable[[Dice], Any], fields: Sequence[str], all_concrete: bool = False,
           name: str = "this procedure", max_paths: int = MAX_PATHS,
           shared: dict[Any, Any] | None = None,
           pick: Callable[[Any], Outcome] | None = None, first: Any = None, *,
           make: MakeDice) -> Weights:
    """Enumerate ``run`` exactly, each replay with dice from ``make``. ``fields`` orders
    the outcome tuple. ``shared`` holds what sub-enumerations computed (per-item chains,
    rounds), keyed by what they compute, for the whole query. ``pick`` makes the outcome
    tuple of what ``run`` returns (by default: a mapping's ``fields`` in order).
    ``first``: where a first run of ``run`` (nothing concrete) branched or what it must
    make concrete, if the caller made one."""
    if shared is None:  # the whole query: the heap before it is left out of collections
        with gc_frozen():
            return replay(run, fields, all_concrete, name, max_paths, {}, pick, first,
                          make=make)
    concrete: set[int] = set()
    if isinstance(first, NeedConcrete):  # the caller's first run: start from there
        concrete |= first.origins
        first = None
    while True:
        try:
            return enumerate_paths(run, tuple(fields), concrete, all_concrete, max_paths,
                                   shared, pick,
                                   first if not concrete and not all_concrete else None,
                                   make=make)
        except TooLarge:
            raise ExactTooLargeError(name, max_paths) from None
        except NeedConcrete as need:
            new = need.origins - concrete
            if not new:  # pragma: no cover - would loop forever
                raise RuleError("exact driver could not make a lazy count concrete") from None
            concrete |= new


def enumerate_paths(run: Callable[[Dice], Any], fields: tuple[str, ...], concrete: set[int],
                    all_concrete: bool, max_paths: int, shared: dict[Any, Any],
                    pick: Callable[[Any], Outcome] | None, first: Branch | None = None, *,
                    make: MakeDice) -> Weights:
    """Every path of ``run`` (one :func:`replay` with what is concrete fixed), each
    outcome with its weight."""
    memo: dict[Any, Any] = {}
    if pick is None:
        pick = outcome_getter(fields)
    # the first replay on its own: a procedure that never branches (every request lazy,
    # the usual case) is done after it, without the bookkeeping of the loop below
    stack: list[Path] = []
    out: Any = None
    # leaf first (as transitions.plain_transition): past its path a run takes the last
    # possible answer of each request and notes the others (``taken``), so every run
    # ends in an outcome, the paths in the order they always came; the first run's
    # notes are its own
    taken: Taken = []
    if first is None:
        d = make((), concrete, all_concrete, memo, shared)
        d.taken = taken
        try:
            out = run(d)
        except Branch as br:  # (a request answered past ``taken``'s reach)
            first = br
        else:
            if not taken and type(out) is not Outcomes:
                return _only_run(outcome_key(pick, out, fields), fields)
            stack = [((), 1, 1)]  # the first run's outcome, counted in the loop below
    if first is not None:  # the first run branched (here or in the caller's run)
        stack = [((value,), w, first.den) for value, w in first.options if w]
    plain: dict[int, dict[Outcome, int]] = {}
    lazy: list[tuple[int, int, dict[Outcome, int]]] = []
    runs = 1
    lazy_types = (Sym, Cond)
    last_den, bucket = 0, {}
    ran = first is None  # the one path on the stack is the first run's, already run
    while stack:
        path, num, den = stack.pop()
        if ran:
            ran = False
        else:
            runs += 1
            if runs > max_paths:
                raise TooLarge
            d = make(path, concrete, all_concrete, memo, shared)
            taken = d.taken = []
            try:
                out = run(d)
            except Branch as br:  # (a request answered past ``taken``'s reach)
                for value, w in br.options:
                    if w:
                        stack.append(((*path, value), num * w, den * br.den))
                continue
        if taken:  # the answers not taken, each a run to come
            path, num, den = follow_taken(taken, path, num, den, stack)
        if type(out) is Outcomes:
            finished(out, pick, fields, num, den, plain, lazy)
            last_den = 0
            continue
        key = outcome_key(pick, out, fields)
        for v in key:
            if isinstance(v, lazy_types):
                sub, sub_den = lazy_outcomes(key)
                lazy.append((den * sub_den, num, sub))
                break
        else:
            if den != last_den:
                last_den, bucket = den, plain.setdefault(den, {})
            bucket[key] = bucket.get(key, 0) + num
    return _counted(fields, plain, lazy)


def _only_run(key: Outcome, fields: tuple[str, ...]) -> Weights:
    """The outcomes of a procedure whose one run never branched: its outcome, its lazy
    counts evaluated."""
    for v in key:
        if isinstance(v, (Sym, Cond)):
            sub, sub_den = lazy_outcomes(key)
            return Weights(fields, sub, sub_den)
    return Weights(fields, {key: 1}, 1)


def _counted(fields: tuple[str, ...], plain: dict[int, dict[Outcome, int]],
             lazy: list[tuple[int, int, dict[Outcome, int]]]) -> Weights:
    """The outcomes counted as they are (per denominator) and those of outcomes with
    lazy counts ((denominator, weight, their distribution)), over one denominator."""
    if not plain and len(lazy) == 1 and lazy[0][1] == 1:
        den, _, sub = lazy[0]
        return Weights(fields, sub, den)
    for den, num, sub in lazy:
        bucket = plain.setdefault(den, {})
        for key, w in sub.items():
            bucket[key] = bucket.get(key, 0) + num * w
    return merged_weights(fields, plain)


def finished(out: Outcomes, pick: Callable[[Any], Outcome], fields: tuple[str, ...],
              num: int, den: int, plain: dict[int, dict[Outcome, int]],
              lazy: list[tuple[int, int, dict[Outcome, int]]]) -> None:
    """Count every outcome of a :meth:`ExactDice.finish` reached with weight num/den."""
    bucket = plain.setdefault(den * out.den, {})
    options = out.options
    lazy_types = LAZY_TYPES
    if out.names is not None:  # rows (context.rows): in the query's order, or put in it
        if out.names != fields:
            missing = [f for f in fields if f not in out.names]
            if missing:
                raise RuleError(f"procedure did not return outcome field {missing[0]!r}")
            at = [out.names.index(f) for f in fields]
            options = [(tuple([r[j] for j in at]), w) for r, w in _pairs(options)]
        if out.plain and num == 1 and not bucket and type(options) is dict:
            plain[den * out.den] = options  # distinct plain rows, made for this answer
            return
        finished_rows(options, num, den * out.den, bucket, lazy, out.plain)
        return
    for mapping, w in options:
        key = outcome_key(pick, mapping, fields)
        if not lazy_types.isdisjoint(map(type, key)):
            sub, sub_den = lazy_outcomes(key)
            lazy.append((den * out.den * sub_den, num * w, sub))
        else:
            bucket[key] = bucket.get(key, 0) + num * w


LAZY_TYPES = frozenset((Sym, Cond, _tally.Count))
_first = operator.itemgetter(0)


def _pairs(options: list[tuple[Outcome, int]] | dict[Outcome, int]
           ) -> Iterable[tuple[Outcome, int]]:
    return options.items() if type(options) is dict else options


def finished_rows(options: list[tuple[Outcome, int]] | dict[Outcome, int], num: int,
                   den: int, bucket: dict[Outcome, int],
                   lazy: list[tuple[int, int, dict[Outcome, int]]],
                   plain: bool = False) -> None:
    """Count outcome rows reached with weight num/den (pairs, or a mapping of distinct
    rows). There are thousands of them, so the usual case (no lazy count in any row,
    nothing counted yet) is done in bulk: the types of every value in one pass, the rows
    into the bucket as they are, and added up one by one only if two rows are equal.
    ``plain``: the rows hold no lazy count (``context.rows``), no value's type is looked
    at."""
    lazy_types = LAZY_TYPES
    if not bucket and num == 1 and (plain or lazy_types.isdisjoint(
            set(map(type, itertools.chain.from_iterable(
                options if type(options) is dict else map(_first, options)))))):
        bucket.update(options)
        if len(bucket) == len(options):
            return
        bucket.clear()
    isdisjoint = lazy_types.isdisjoint
    get = bucket.get
    for key, w in _pairs(options):
        if plain or isdisjoint(map(type, key)):
            bucket[key] = get(key, 0) + num * w
        else:
            sub, sub_den = lazy_outcomes(key)
            lazy.append((den * sub_den, num * w, sub))


def outcome_key(pick: Callable[[Any], Outcome], out: Any,
         fields: tuple[str, ...]) -> Outcome:
    try:
        return pick(out)
    except KeyError:
        for f in fields:
            outcome_field(out, f)  # names the missing field
        raise


@functools.lru_cache(maxsize=256)
def outcome_getter(fields: tuple[str, ...]) -> Callable[[Mapping[str, Any]], Outcome]:
    """The outcome tuple of a returned mapping, in ``fields`` order (KeyError if one is
    missing)."""
    if len(fields) == 1:
        (name,) = fields
        return lambda out: (out[name],)
    if not fields:
        return lambda out: ()
    return operator.itemgetter(*fields)


def outcome_field(out: Mapping[str, Any], name: str) -> Any:
    try:
        return out[name]
    except KeyError:
        raise RuleError(f"procedure did not return outcome field {name!r}") from None


def merged_weights(fields: tuple[str, ...], acc: dict[int, dict[Outcome, int]]) -> Weights:
    """The outcomes counted per denominator, over one."""
    merged, common = over_lcm(acc)
    return Weights(fields, merged, common)

