"""The Monte Carlo driver: many fast samples, no steps recorded."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from warroom.dice.weights import Reroll, View, success_weight, view_of
from warroom.engine.context import Chain, Dice, as_target
from warroom.engine.messages import Msg, Text
from warroom.engine.steps import Target
from warroom.errors import RuleError


class SampleDice(Dice):
    """Draws counts directly (a pool is a binomial draw); the same process as the table."""

    explains = False

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self._p: dict[tuple[int, str], float] = {}

    def _chance(self, at: int, reroll: str) -> float:
        key = (at, reroll)
        p = self._p.get(key)
        if p is None:
            num, den = success_weight(at, reroll)  # type: ignore[arg-type]
            p = self._p[key] = num / den
        return p

    def pool(self, n: int, at: int | Target, *, rule: str, what: Text,
             reroll: Reroll = "none") -> int:
        p = self._chance(at if isinstance(at, int) else at.final, reroll)
        rnd = self.rng.random
        k = 0
        for _ in range(n):
            if rnd() < p:
                k += 1
        return k

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

    def each(self, n: int, chain: Chain, labels: Sequence[str], *, rule: str,
             what: Text, names: Sequence[Text] = ()) -> dict[str, int]:
        counts = dict.fromkeys(labels, 0)
        for _ in range(n):
            counts[chain(self)] += 1
        return counts

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
