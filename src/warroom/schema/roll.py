"""One resolution, step by step."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from warroom.schema._base import Scalar, _Model


class Modifier(_Model):
    value: int
    reason: str


class Step(_Model):
    rule: str = Field(description="the rule this step applies")
    text: str = Field(description="what happens, in the asked language")
    target: int | None = Field(description="the final target number")
    target_kind: Literal["at_least", "at_most"] | None
    base: int | None
    base_reason: str | None
    modifiers: list[Modifier]
    dice: list[int]
    rerolled: list[int]
    result: str | None


class RollResult(_Model):
    """One resolution with real dice (seeded or entered), step by step."""

    procedure: str
    params: dict[str, Any]
    outcome: dict[str, Scalar]
    steps: list[Step]
    dice: list[int] = Field(description="every die, in the order rolled")
    seed: int | None = Field(description="the virtual dice's seed (null: entered dice)")
