"""Steps of a resolution: which rule, the target, each modifier and why, the dice, the result."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal

from warroom.engine.messages import Msg, Translator, as_msg

TargetKind = Literal["at_least", "at_most"]


@dataclass(frozen=True, slots=True)
class Modifier:
    """One modifier to a target number or a roll, with its reason."""

    value: int
    reason: Msg

    def to_dict(self, translate: Translator | None = None) -> dict[str, Any]:
        return {"value": self.value, "reason": self.reason.render(translate)}


@dataclass(frozen=True, slots=True)
class Target:
    """A target number built from a base and reasoned modifiers.

    ``kind="at_least"`` is the usual "N+" (a die must show N or more);
    ``kind="at_most"`` is a "roll N or less" test (ASL morale, Commander orders).
    """

    base: int
    reason: Msg = field(default_factory=lambda: Msg("base"))
    modifiers: tuple[Modifier, ...] = ()
    kind: TargetKind = "at_least"

    @classmethod
    def of(cls, base: int, reason: str | Msg, kind: TargetKind = "at_least") -> Target:
        return cls(base, as_msg(reason), (), kind)

    def plus(self, value: int, reason: str | Msg) -> Target:
        """Add a modifier (skipped when its value is 0)."""
        if value == 0:
            return self
        return replace(self, modifiers=(*self.modifiers, Modifier(value, as_msg(reason))))

    @property
    def final(self) -> int:
        return self.base + sum(m.value for m in self.modifiers)

    def label(self) -> str:
        return f"{self.final}+" if self.kind == "at_least" else f"≤{self.final}"


@dataclass(frozen=True, slots=True)
class Step:
    """One step of a resolution, as the umpire would explain it."""

    rule: str
    text: Msg
    target: Target | None = None
    modifiers: tuple[Modifier, ...] = ()
    dice: tuple[int, ...] = ()
    rerolled: tuple[int, ...] = ()
    result: Msg | None = None

    def to_dict(self, translate: Translator | None = None) -> dict[str, Any]:
        mods = self.target.modifiers if self.target is not None else ()
        out: dict[str, Any] = {
            "rule": self.rule,
            "text": self.text.render(translate),
            "target": self.target.final if self.target is not None else None,
            "target_kind": self.target.kind if self.target is not None else None,
            "base": self.target.base if self.target is not None else None,
            "base_reason": (
                self.target.reason.render(translate) if self.target is not None else None
            ),
            "modifiers": [m.to_dict(translate) for m in (*mods, *self.modifiers)],
            "dice": list(self.dice),
            "rerolled": list(self.rerolled),
            "result": self.result.render(translate) if self.result is not None else None,
        }
        return out
