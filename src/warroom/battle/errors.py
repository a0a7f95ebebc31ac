"""What can go wrong when recording a battle; every one is a usage error (exit 2, 422)."""

from __future__ import annotations

from warroom.errors import UsageError, WarroomError


class BattleError(UsageError):
    """Bad input for a battle: nothing was recorded."""


class StaleStateError(BattleError):
    """A write based on an old state counter (someone else recorded an event first)."""

    def __init__(self, expected: int, current: int) -> None:
        self.expected = expected
        self.current = current
        super().__init__(
            "the battle has changed: you expected state {expected} but it is now at "
            "{current}; reload and try again (nothing was recorded)",
            expected=expected, current=current)


class NothingToUndoError(BattleError):
    def __init__(self) -> None:
        super().__init__("nothing to undo: the battle is as it was created")


class ImportFormatError(BattleError):
    """A file that is not a warroom battle export, or one that does not replay."""


class AccessError(BattleError):
    """A link that does not allow this action."""

    http_status = 403


class NoSuchBattleError(BattleError):
    """A link to a battle that is not on this server (its id is not listed: battle ids
    are not secret, but a web visitor has no business browsing them)."""

    http_status = 404

    def __init__(self, battle_id: str) -> None:
        self.battle_id = battle_id
        super().__init__("there is no battle {battle_id!r} here; check the link",
                         battle_id=battle_id)


class VerifyFailed(WarroomError):
    """``verify`` found events or state that do not reproduce (exit code 1)."""
