"""The Monte Carlo driver: many fast samples, no steps recorded."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from warroom.dice.weights import Reroll, View, success_weight, view_of
from warroom.engine.context import Chain, Dice, as_target
from warroom.engine.messages import Msg
from warroom.engine.steps import Target


class SampleDice(Dice):
    """Draws counts directly (a pool is a binomial draw); the same process as the table."""

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

    def pool(self, n: int, at: int | Target, *, rule: str, what: str,
             reroll: Reroll = "none") -> int:
        p = self._chance(at if isinstance(at, int) else at.final, reroll)
        rnd = self.rng.random
        k = 0
        for _ in range(n):
            if rnd() < p:
                k += 1
        return k

    def split(self, n: int, classes: Mapping[str, Sequence[int]], *, rule: str, what: str,
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
             what: str) -> dict[str, int]:
        counts = dict.fromkeys(labels, 0)
        for _ in range(n):
            counts[chain(self)] += 1
        return counts

    def die(self, *, rule: str, what: str, sides: int = 6, target: Target | None = None) -> int:
        return self.rng.randrange(sides) + 1

    def dice(self, k: int, *, rule: str, what: str, sides: int = 6, view: View = "ordered",
             target: Target | None = None) -> Any:
        rnd = self.rng.randrange
        return view_of([rnd(sides) + 1 for _ in range(k)], view)

    def test(self, at: int | Target, *, rule: str, what: str, reroll: bool = False) -> bool:
        p = self._chance(as_target(at).final, "misses" if reroll else "none")
        return self.rng.random() < p

    def pick(self, k: int, *, rule: str, what: str) -> int:
        return self.rng.randrange(k)

    def note(self, rule: str, text: str | Msg, result: str | Msg | None = None,
             **args: Any) -> None:
        return None
