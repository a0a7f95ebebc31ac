"""The parameters every fow procedure shares: the special rules in force for each side."""

from __future__ import annotations

from typing import Any

from pydantic import Field, field_validator

from warroom.engine.procedure import Params
from warroom.games.fow.special_rules import catalog

_NAMES = "warroom.games.fow.special_rules.catalog:names"
_TITLES = "warroom.games.fow.special_rules.catalog:titles"


class RulesParams(Params):
    """Base class of fow parameters: ``rules`` (acting side) and ``target_rules``."""

    rules: tuple[str, ...] = Field(
        (), description="special rules in force for the acting side (comma-separated)",
        json_schema_extra={"choices_from": _NAMES, "titles_from": _TITLES})
    target_rules: tuple[str, ...] = Field(
        (), description="special rules in force for the side shot at or tested against",
        json_schema_extra={"choices_from": _NAMES, "titles_from": _TITLES})

    @field_validator("rules", "target_rules", mode="before")
    @classmethod
    def _known_rules(cls, value: Any) -> tuple[str, ...]:
        return catalog.parse_rule_list(value)

    def has(self, name: str) -> bool:
        """Whether the acting side has special rule ``name``."""
        return name in self.rules

    def target_has(self, name: str) -> bool:
        """Whether the side shot at or tested against has special rule ``name``."""
        return name in self.target_rules
