"""The owner's best hit allocation for ``fow.shoot_mixed`` (``allocation=best``).

The FoW article on shooting gives the allocation to the target's owner ("Za
przydzielenie trafień ... odpowiada ich właściciel") within rules 1-9. The rules fix
how many hits each team takes and, in the order they rank the teams, which teams take
the hits left over (rules 2-4, 6); rule 7 ranks vehicles (unarmoured first, then the
weakest armour) and hands the highest-AT hits to armoured vehicles; rule 5 spreads each
weapon's hits evenly. What they leave open is the order of teams they rank alike: which
of them take the extra hits, and which of them take which weapon's hits.

``allocation=rules`` (the default) orders such teams by our fixed reading (other teams
before tanks, weaker armour first, then as listed). ``allocation=best`` weighs every
order of them the rules allow and keeps the one with the least **expected loss**: the
expected number of teams destroyed; on a tie the fewer tanks expected bailed out; on a
tie again, the fixed order's plan (then the first order weighed). Each order's plan is
dealt by the same rules (:mod:`warroom.games.fow.mixed`), and each team's chances come
from the exact driver running that team's own rolls (``mixed._team_roll``, the chain
the shot then rolls), so there is no second formula for a team's fate.
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from functools import lru_cache
from itertools import groupby, product
from math import prod

from warroom.engine.exact import exact_run
from warroom.games.fow import mixed
from warroom.games.fow.mixed import (
    KINDS,
    Allocation,
    GunTanks,
    Saves,
    Team,
    Weapon,
    article_rank,
)

MAX_ORDERS = 720
"""The most orders of the teams ``allocation=best`` weighs for one count of hits."""

Loss = tuple[Fraction, Fraction]
"""Expected (teams destroyed, tanks bailed out)."""


@lru_cache(maxsize=8192)
def team_loss(team: Team, weapons: tuple[Weapon, ...], took: tuple[int, ...],
              saves: Saves) -> Loss:
    """One team's expected loss for the hits it took (weapon indices): the exact odds of
    the rolls it makes for them (``mixed._team_roll``), destroyed and bailed out."""
    if not took:
        return Fraction(0), Fraction(0)
    chain = mixed.team_roll(team, weapons, took, saves)
    w = exact_run(lambda d: {"label": chain(d)}, ("label",), all_concrete=True)
    weights = {key[0]: v for key, v in w.weights.items()}
    return (Fraction(weights.get("destroyed", 0), w.denominator),
            Fraction(weights.get("bailed_out", 0), w.denominator))


def plan_loss(weapons: tuple[Weapon, ...], teams: tuple[Team, ...],
              plan: tuple[tuple[int, ...], ...], saves: Saves) -> Loss:
    """A plan's expected loss: the sum of its teams' (teams roll independently)."""
    destroyed, bailed = Fraction(0), Fraction(0)
    for team, took in zip(teams, plan, strict=True):
        a, b = team_loss(team, weapons, took, saves)
        destroyed += a
        bailed += b
    return destroyed, bailed


def _vehicle(team: Team) -> tuple[bool, int] | None:
    """Rule 7's rank of a vehicle (unarmoured first, then the weakest armour); None for
    infantry and guns, which the rule does not rank against vehicles."""
    if team.kind == "soft":
        return (False, 0)
    if team.kind == "tank":
        return (True, min(team.hull, team.turret))
    return None


def _arrangements(kinds: tuple[Team, ...], counts: tuple[int, ...]
                  ) -> Iterator[tuple[int, ...]]:
    """The distinct sequences of ``kinds`` (by index) with ``counts`` of each, in which
    vehicles keep rule 7's order."""
    n = sum(counts)
    left = list(counts)
    seq: list[int] = []

    def walk(last: tuple[bool, int] | None) -> Iterator[tuple[int, ...]]:
        if len(seq) == n:
            yield tuple(seq)
            return
        for k, team in enumerate(kinds):
            if not left[k]:
                continue
            v = _vehicle(team)
            if v is not None and last is not None and v < last:
                continue
            left[k] -= 1
            seq.append(k)
            yield from walk(v if v is not None else last)
            seq.pop()
            left[k] += 1

    yield from walk(None)


@lru_cache(maxsize=1024)
def _blocks(teams: tuple[Team, ...], declared: tuple[str, ...]
            ) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """The teams the article ranks alike (rules 2-4, 6), block after block, each with
    every order of it the rules allow: any order, but vehicles in rule 7's; teams alike
    but for their number are interchangeable, so one order stands for all of theirs."""
    ranked = sorted(range(len(teams)), key=lambda i: article_rank(teams[i], declared))
    blocks: list[tuple[tuple[int, ...], ...]] = []
    for _, members in groupby(ranked, key=lambda i: article_rank(teams[i], declared)):
        kinds: list[Team] = []
        of: list[list[int]] = []
        for i in members:
            alike = teams[i]._replace(n=0)
            if alike in kinds:
                of[kinds.index(alike)].append(i)
            else:
                kinds.append(alike)
                of.append([i])
        block = []
        for seq in _arrangements(tuple(kinds), tuple(map(len, of))):
            taken = [0] * len(kinds)
            out = []
            for k in seq:
                out.append(of[k][taken[k]])
                taken[k] += 1
            block.append(tuple(out))
        blocks.append(tuple(block))
    return tuple(blocks)


@lru_cache(maxsize=1024)
def orders(teams: tuple[Team, ...], declared: tuple[str, ...], first: tuple[int, ...]
           ) -> tuple[tuple[int, ...], ...]:
    """Every order of the teams the rules allow (:func:`_blocks`), the fixed order
    (``first``) first."""
    found = [first]
    for parts in product(*_blocks(teams, declared)):
        order = tuple(i for part in parts for i in part)
        if order != first:
            found.append(order)
    return tuple(found)


def order_count(teams: tuple[Team, ...]) -> int:
    """How many orders :func:`orders` weighs at most, whichever types are declared."""
    return max(prod(len(block) for block in _blocks(teams, declared))
               for declared in ((), *((kind,) for kind in KINDS), tuple(KINDS)))


class BestAllocation(Allocation):
    """:class:`mixed.Allocation` with the owner's choice: of the orders the rules allow
    (:func:`orders`), the plan with the least expected loss (see the module)."""

    __slots__ = ("losses", "memo", "saves")

    def __init__(self, rules: Allocation, saves: Saves) -> None:
        super().__init__(rules.weapons, rules.teams, rules.priority, rules.moved)
        self.saves = saves
        self.memo: dict[tuple[int, ...], tuple[tuple[int, ...], ...]] = {}
        self.losses: dict[tuple[int, tuple[int, ...]], Loss] = {}  # (team, hits): loss

    def plan(self, hits: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
        found = self.memo.get(hits)
        if found is None:
            found = self.memo[hits] = self._best(hits)
        return found

    def _best(self, hits: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
        declared = mixed.declared_types(self, hits)
        best: tuple[tuple[int, ...], ...] = ()
        least: Loss | None = None
        seen: set[tuple[tuple[int, ...], ...]] = set()  # orders often deal alike
        losses = self.losses
        for order in orders(self.teams, declared, mixed.fixed_order(self, declared)):
            plan = mixed.plan_in_order(self, hits, declared, order)
            if plan in seen:
                continue
            seen.add(plan)
            destroyed, bailed = Fraction(0), Fraction(0)
            for i, took in enumerate(plan):
                if took:
                    found = losses.get((i, took))
                    if found is None:
                        found = losses[i, took] = team_loss(self.teams[i], self.weapons,
                                                             took, self.saves)
                    destroyed += found[0]
                    bailed += found[1]
            if least is None or (destroyed, bailed) < least:
                best, least = plan, (destroyed, bailed)
        return best


def owners(split: GunTanks, saves: Saves) -> GunTanks:
    """Rule 8's split with the owner's best allocation in the whole and in each part
    (the parts are disjoint teams, so the best of each is the best of both)."""
    parts = split.parts
    return split._replace(
        whole=BestAllocation(split.whole, saves),
        parts=None if parts is None else (BestAllocation(parts[0], saves),
                                          BestAllocation(parts[1], saves)))
