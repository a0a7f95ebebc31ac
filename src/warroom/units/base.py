"""What every game's unit profiles share: the strict model base and the situation."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict

from warroom.errors import UsageError


class Profile(BaseModel):
    """Base of every profile model: strict names, frozen values."""

    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True)


class Situation:
    """The situation keys given with the units (strings from the CLI or typed values)."""

    def __init__(self, values: Mapping[str, Any]) -> None:
        self.values = dict(values)

    def text(self, key: str) -> str | None:
        v = self.values.get(key)
        return None if v is None else str(v).strip().lower()

    def flag(self, key: str) -> bool:
        v = self.values.get(key)
        if isinstance(v, bool) or v is None:
            return bool(v)
        text = str(v).strip().lower()
        if text in ("true", "yes", "1", "on"):
            return True
        if text in ("false", "no", "0", "off", ""):
            return False
        raise UsageError("{key}: expected true or false, got {value!r}", key=key, value=v)

    def int(self, key: str) -> int | None:
        v = self.values.get(key)
        if v is None or isinstance(v, int):
            return v
        try:
            return int(str(v).strip())
        except ValueError:
            raise UsageError("{key}: expected a whole number, got {value!r}", key=key,
                             value=v) from None
