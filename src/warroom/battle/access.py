"""Who may act in a battle: which link a key is for, which side a name means, and whether a
side may change a unit or undo an event.
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping
from typing import Any

from warroom.battle.base import BattlesBase
from warroom.battle.errors import (
    AccessError,
    BattleError,
    NoSuchBattleError,
)
from warroom.battle.state import SIDES


class BattleAccess(BattlesBase):
    """Who may do what: the links' keys, the sides and the permissions of a write."""

    def access(self, battle_id: str, token: str) -> tuple[str, str | None]:
        """Which link ``token`` is for this battle: ("A"|"B", side) or ("view", None).
        Tokens are compared in constant time; a wrong one gets the same answer as an
        unknown battle (404), so nobody can probe which ids exist."""
        try:
            row = self.row(battle_id)
        except NoSuchBattleError:
            row = None
        found: tuple[str, str | None] | None = None
        for role, side, col in (("A", "A", "token_a"), ("B", "B", "token_b"),
                                ("view", None, "token_view")):
            stored = "" if row is None else str(row[col])
            if hmac.compare_digest(stored.encode(), token.encode()) and row is not None:
                found = (role, side)
        if found is None:
            raise NoSuchBattleError(battle_id)
        return found

    @staticmethod
    def _side(side: str) -> str:
        s = side.strip().upper()
        if s not in SIDES:
            raise BattleError("side must be A or B, not {side!r}", side=side)
        return s

    @staticmethod
    def _own(by: str | None, unit: Any) -> None:
        if by is not None and by != unit.side:
            raise AccessError("your link acts for side {by}; {unit} is side {side}'s",
                              code="not_your_unit", by=by, unit=unit.name, side=unit.side)

    @staticmethod
    def _undoable(target: int, done: Mapping[str, Any], by: str | None) -> None:
        if done["kind"] == "ended":
            raise BattleError("the battle has ended and its seed is public: the end "
                              "cannot be undone")
        if by is not None and done.get("by") != by:
            if done.get("by") is None:
                raise AccessError("event {event} was recorded on the command line; "
                                  "only the command line can undo it",
                                  code="not_your_event", event=target)
            raise AccessError("event {event} was made by side {side}; only that side "
                              "can undo it", code="not_your_event", event=target,
                              side=done["by"])
