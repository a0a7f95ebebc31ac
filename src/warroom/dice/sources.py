"""Where dice come from: a seeded generator, or the values a player typed in.

No global random state: every source owns its generator.
"""

from __future__ import annotations

import os
import random
from collections.abc import Sequence

from warroom.errors import BadDieError, TooFewDiceError, TooManyDiceError


def new_seed() -> int:
    """A fresh seed for a roll nobody seeded; it is recorded so the roll can be replayed."""
    return int.from_bytes(os.urandom(6), "big")


class DiceSource:
    """Hands out dice one request at a time and remembers every die it gave."""

    def __init__(self) -> None:
        self.used: list[int] = []

    def take(self, k: int, *, sides: int, what: object, rule: str) -> list[int]:
        raise NotImplementedError

    def finish(self) -> None:
        """Called when the resolution is over."""


class SeededSource(DiceSource):
    def __init__(self, seed: int | None = None, rng: random.Random | None = None) -> None:
        super().__init__()
        self.seed = new_seed() if seed is None and rng is None else seed
        self.rng = rng if rng is not None else random.Random(self.seed)

    def take(self, k: int, *, sides: int, what: object, rule: str) -> list[int]:
        rnd = self.rng.randrange
        values = [rnd(sides) + 1 for _ in range(k)]
        self.used.extend(values)
        return values


class EnteredSource(DiceSource):
    """Dice typed in at the table, consumed in the order the rules roll them."""

    def __init__(self, values: Sequence[object]) -> None:
        super().__init__()
        parsed: list[int] = []
        for pos, v in enumerate(values, start=1):
            if isinstance(v, bool) or not isinstance(v, (int, str)):
                raise BadDieError(v, pos)
            try:
                n = int(v)
            except ValueError:
                raise BadDieError(v, pos) from None
            if not 1 <= n <= 6:
                raise BadDieError(v, pos)
            parsed.append(n)
        self.values = parsed
        self.cursor = 0

    def take(self, k: int, *, sides: int, what: object, rule: str) -> list[int]:
        left = len(self.values) - self.cursor
        if k > left:
            raise TooFewDiceError(k - left, what, rule)
        out = self.values[self.cursor : self.cursor + k]
        for offset, v in enumerate(out):
            if v > sides:
                raise BadDieError(v, self.cursor + offset + 1, sides)
        self.cursor += k
        self.used.extend(out)
        return out

    def finish(self) -> None:
        if self.cursor < len(self.values):
            raise TooManyDiceError(self.cursor, len(self.values))


def parse_dice(text: str) -> list[str]:
    """Split '3,5 6' or '3 5 6' into the individual entries (validated by EnteredSource)."""
    return [part for part in text.replace(",", " ").split() if part]
