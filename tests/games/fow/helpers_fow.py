"""Helpers for the fow golden tests: exact probability of an outcome pattern."""

from __future__ import annotations

from fractions import Fraction as F
from typing import Any

import warroom


def prob(pid: str, where: dict[str, Any], **raw: Any) -> F:
    """Exact chance that the outcome fields named in ``where`` take those values."""
    dist = warroom.odds(pid, **raw)
    assert dist.total() == 1
    return sum((p for outcome, p in dist.items()
                if all(outcome[k] == v for k, v in where.items())), F(0))


def marginal(pid: str, field: str, **raw: Any) -> dict[Any, F]:
    return dict(warroom.odds(pid, **raw).marginal(field))
