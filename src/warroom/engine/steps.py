"""Steps of a resolution: which rule, the target, each modifier and why, the dice, the result."""

from __future__ import annotations

import re
from collections.abc import Mapping
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


def target_label(step: Mapping[str, Any]) -> str | None:
    """A step's target as players write it ('4+', '≤7'), from :meth:`Step.to_dict`;
    a target below 1 (armour far above the AT) is met by any roll and reads 1+."""
    if step["target"] is None:
        return None
    if step["target_kind"] == "at_least":
        return f"{max(step['target'], 1)}+"
    return f"≤{step['target']}"


def says_target(step: Mapping[str, Any]) -> bool:
    """True when the step's text already gives its target number ('6 dice needing 3+')
    and no modifier changes it: then only the reason for the number is worth adding."""
    label = target_label(step)
    return (label is not None and not step["modifiers"]
            and re.search(rf"(?<!\d){re.escape(label)}", step["text"]) is not None)
