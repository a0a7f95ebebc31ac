"""Q1 of the performance suite, as an ordinary three-stage warroom procedure, and the same
question answered by icepool and dyce (dev-only dependencies) for a side-by-side timing.

Q1: N dice at 4+; each hit: d6 + armour 6 vs AT 10 (higher: no effect; equal: firepower
3+ -> bailed out, else no effect; lower: firepower 3+ -> destroyed, else bailed out);
the joint distribution of (destroyed, bailed) counts.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from pydantic import Field

from warroom.engine.context import Dice
from warroom.engine.procedure import Params, outcome, procedure
from warroom.engine.registry import GameSystem

ARMOUR = 6
AT = 10
FIREPOWER = 3


class Q1Params(Params):
    dice: int = Field(10, ge=0, le=200, description="attack dice")


@procedure(
    "bench.q1",
    title="Q1: hits, saves, firepower",
    summary="Hits at 4+, an armour save per hit, a firepower test per failed save.",
    params=Q1Params,
    outcome=outcome(("destroyed", "int"), ("bailed", "int")),
    vectorize=True,
)
def q1(p: Q1Params, d: Dice) -> dict[str, Any]:
    hits = d.pool(p.dice, 4, rule="bench.q1.hit", what="to hit")
    # d6 + 6 against 10: 5-6 higher, 4 equal, 1-3 lower
    saves = d.split(hits, {"higher": [5, 6], "equal": [4], "lower": [1, 2, 3]},
                    rule="bench.q1.save", what="armour saves")
    bailed_on_equal = d.pool(saves["equal"], FIREPOWER, rule="bench.q1.fp", what="firepower")
    destroyed = d.pool(saves["lower"], FIREPOWER, rule="bench.q1.fp", what="firepower")
    return {"destroyed": destroyed, "bailed": bailed_on_equal + (saves["lower"] - destroyed)}


def bench_system() -> GameSystem:
    return GameSystem("bench", "Benchmarks", (q1,))


def per_die(hit: int, save: int, fp: int) -> int:
    """One die's chain: 0 nothing, 1 destroyed, 2 bailed out."""
    if hit < 4:
        return 0
    total = save + ARMOUR
    if total > AT:
        return 0
    if total == AT:
        return 2 if fp >= FIREPOWER else 0
    return 1 if fp >= FIREPOWER else 2


Counts = tuple[Any, int]
"""A peer's answer in its own exact form: integer counts over a total (as warroom's
Distribution holds integer weights over a denominator). Turning them into Fractions is
left out of every timing, ours included, and done once to check the answers agree."""


def icepool_q1(n: int) -> Counts:
    import icepool

    one = icepool.map(per_die, icepool.d6, icepool.d6, icepool.d6)

    class Count(icepool.MultisetEvaluator):  # type: ignore[misc]
        def initial_state(self, *args: Any, **kwargs: Any) -> tuple[int, int]:
            return (0, 0)

        def next_state(self, state: tuple[int, int], order: Any, outcome: int,
                       count: int) -> tuple[int, int]:
            d, b = state
            if outcome == 1:
                return (d + count, b)
            if outcome == 2:
                return (d, b + count)
            return state

    die = Count().evaluate(one.pool(n))
    return die, die.denominator()


def _one_die(code: dict[int, int]) -> dict[int, int]:
    weights: dict[int, int] = {}
    for hit in range(1, 7):
        for save in range(1, 7):
            for fp in range(1, 7):
                c = code[per_die(hit, save, fp)]
                weights[c] = weights.get(c, 0) + 1
    return weights


def dyce_q1(n: int) -> Counts:
    from dyce import H, P

    out: dict[tuple[int, int], int] = {}
    for roll, count in (n @ P(H(_one_die({0: 0, 1: 1, 2: 2})))).rolls_with_counts():
        key = (roll.count(1), roll.count(2))
        out[key] = out.get(key, 0) + count
    return out, sum(out.values())


def dyce_q1_sum(n: int) -> Counts:
    """dyce's fastest form we found: encode (destroyed, bailed) as one integer and sum."""
    from dyce import H

    h = n @ H(_one_die({0: 0, 1: 1, 2: 1000}))
    return h, h.total


def icepool_fractions(answer: Counts) -> dict[tuple[int, int], Fraction]:
    die, den = answer
    return {tuple(k): Fraction(v, den) for k, v in die.items()}


def dyce_fractions(answer: Counts) -> dict[tuple[int, int], Fraction]:
    counts, total = answer
    return {k: Fraction(v, total) for k, v in counts.items()}


def dyce_sum_fractions(answer: Counts) -> dict[tuple[int, int], Fraction]:
    h, total = answer
    return {(k % 1000, k // 1000): Fraction(v, total) for k, v in h.items()}


Peer = tuple[Callable[[int], Counts], Callable[[Counts], dict[tuple[int, int], Fraction]]]

PEERS: dict[str, Peer] = {
    "icepool": (icepool_q1, icepool_fractions),
    "dyce": (dyce_q1, dyce_fractions),
    "dyce (integer-coded sum)": (dyce_q1_sum, dyce_sum_fractions),
}
