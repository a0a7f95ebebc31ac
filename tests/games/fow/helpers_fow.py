"""Helpers for the fow golden tests: exact probability of an outcome pattern."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction as F
from typing import Any

import pytest

import warroom


def prob(pid: str, where: dict[str, Any], **raw: Any) -> F:
    """Exact chance that the outcome fields named in ``where`` take those values."""
    dist = warroom.odds(pid, **raw)
    assert dist.total() == 1
    return sum((p for outcome, p in dist.items()
                if all(outcome[k] == v for k, v in where.items())), F(0))


def marginal(pid: str, field: str, **raw: Any) -> dict[Any, F]:
    return dict(warroom.odds(pid, **raw).marginal(field))


def count_plans(monkeypatch: pytest.MonkeyPatch) -> Counter[tuple[int, ...]]:
    """From now on, how many times fow.shoot_mixed works out an allocation, by the
    counts of each weapon's hits it is worked out for."""
    from warroom.games.fow import mixed

    calls: Counter[tuple[int, ...]] = Counter()
    real = mixed._gun_tank_plan

    def counting(d: object, counts: tuple[int, ...], *args: object) -> object:
        calls[counts] += 1
        return real(d, counts, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(mixed, "_gun_tank_plan", counting)
    return calls
