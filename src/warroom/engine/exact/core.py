"""What the exact driver's modules hand one another: a replay's branch, the outcomes of
:meth:`~warroom.engine.exact.dice.ExactDice.finish`, integer weights over one
denominator, and the budget of replays."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from math import lcm
from typing import Any, TypeVar

from warroom.engine.symbolic import Cond, Sym
from warroom.errors import RuleError

Outcome = tuple[Any, ...]


class Branch(BaseException):
    def __init__(self, options: Sequence[tuple[Any, int]], den: int) -> None:
        super().__init__()
        self.options = options
        self.den = den


class Outcomes:
    """What :meth:`ExactDice.finish` hands back: every outcome of the procedure with its
    weight over ``den``. The procedure returns it as it is; reading it is an error."""

    __slots__ = ("den", "names", "options", "plain")

    def __init__(self, options: list[tuple[Any, int]] | dict[Any, int], den: int,
                 names: tuple[str, ...] | None = None, plain: bool = False) -> None:
        self.options = options  # mappings, or rows of the fields ``names`` (context.rows)
        self.den = den
        self.names = names
        self.plain = plain  # rows of plain values only (context.rows)

    def __getitem__(self, name: str) -> Any:
        raise RuleError("a procedure must return the outcome of Dice.finish as it is")

    def __iter__(self) -> Any:
        return self[""]


Transition = tuple[list[tuple[Outcome, int]], int]
"""The states a stage leads to from one state, with integer weights over one
denominator."""


class Weights:
    """Outcome tuples with integer weights over one denominator (exact, not yet reduced)."""

    __slots__ = ("denominator", "fields", "weights")

    def __init__(self, fields: Sequence[str], weights: dict[Outcome, int], denominator: int):
        self.fields = tuple(fields)
        self.weights = weights
        self.denominator = denominator


MAX_PATHS = 200_000
"""Replays allowed for one exact computation before giving up with a clear error."""


class TooLarge(Exception):
    pass



LAZY = (Sym, Cond)
"""The types of a lazy count and a condition on lazy counts."""

MakeDice = Callable[..., Any]
"""How the modules below the exact dice make one for a replay: ``make(path, concrete,
all_concrete, memo, shared)`` (:class:`~warroom.engine.exact.dice.ExactDice`, handed down
by it, so no module imports the one above it)."""


K = TypeVar("K", bound=Hashable)

Path = tuple[tuple[Any, ...], int, int]
"""A run to come: the answers it is given, their weights' product and denominator."""

Taken = list[tuple[Sequence[tuple[Any, int]], int, int]]
"""The requests a run answered past its path, leaf first (``ExactDice.taken``): their
options, denominator and the index of the answer taken."""


def follow_taken(taken: Taken, path: tuple[Any, ...], num: int, den: int,
                 stack: list[Path]) -> Path:
    """After a leaf-first run given ``path`` (weight ``num/den``): every answer it did
    not take pushed on ``stack`` as a run to come; the path, weight and denominator of
    the answers it took (those of its outcome)."""
    for options, bden, j in taken:
        den *= bden
        for k, (value, w) in enumerate(options):
            if w and k != j:
                stack.append(((*path, value), num * w, den))
        value, w = options[j]
        path, num = (*path, value), num * w
    return path, num, den


def over_lcm(by_den: dict[int, dict[K, int]]) -> tuple[dict[K, int], int]:
    """Weights kept per denominator put over their least common multiple and added up
    (the one bucket as it is when there is one denominator)."""
    if len(by_den) == 1:
        ((den, bucket),) = by_den.items()
        return bucket, den
    common = lcm(*by_den)
    merged: dict[K, int] = {}
    for den, bucket in by_den.items():
        scale = common // den
        for key, w in bucket.items():
            merged[key] = merged.get(key, 0) + w * scale
    return merged, common
