"""What can go wrong when recording a battle; every one is a usage error (exit 2, 422)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from warroom.errors import ErrorText, UsageError, WarroomError


class BattleError(UsageError):
    """Bad input for a battle: nothing was recorded. ``code`` is the machine-readable
    reason the web API sends with the message."""

    code = "invalid"

    def details(self) -> dict[str, Any]:
        """Fields the API's error body carries besides code, message and parameter."""
        return {}


class StaleStateError(BattleError):
    """A write based on an old state counter where something it reads changed since
    (:mod:`warroom.battle.conflicts`): 409 on the web API. ``changes`` holds the events
    that changed it (each as recorded), ``what`` names what they changed."""

    code = "stale"
    http_status = 409

    def __init__(self, expected: int, current: int,
                 changes: Sequence[Mapping[str, Any]] = (), what: ErrorText | None = None
                 ) -> None:
        self.expected = expected
        self.current = current
        self.changes = [dict(c) for c in changes]
        if what is None:
            super().__init__(
                "the battle has changed: you expected state {expected} but it is now at "
                "{current}; reload and try again (nothing was recorded)",
                expected=expected, current=current)
        else:
            super().__init__(ErrorText(
                "the battle has changed since state {expected} (it is now at {current}) "
                "in what this action reads: {what}; nothing was recorded: look at the "
                "change and try again", expected=expected, current=current, what=what))

    def details(self) -> dict[str, Any]:
        """What the API adds to the error body: the events that changed it."""
        return {"changes": self.changes}


class ProfileRequiredError(BattleError):
    """A new unit without a typed profile in a battle of a game with a unit model (FoW,
    ASL, BKC, CWC): its free ``key=value`` stats are only overrides of a profile's
    values. Nothing was recorded (422, ``profile_required``)."""

    code = "profile_required"

    def __init__(self, game: str, unit: str) -> None:
        self.game = game
        self.unit = unit
        super().__init__(
            "{unit}: a {game} unit needs its typed profile (--from FILE:UNIT, e.g. "
            "example:{game}:UNIT, a force, a roster or the battle page's short form); "
            "key=value stats only override a profile's values", unit=unit, game=game)


class NothingToUndoError(BattleError):
    code = "nothing_to_undo"

    def __init__(self) -> None:
        super().__init__("nothing to undo: the battle is as it was created")


class ImportFormatError(BattleError):
    """A file that is not a warroom battle export, or one that does not replay."""

    code = "bad_import"


class AccessError(BattleError):
    """A link that does not allow this action; ``code`` says which rule refused it
    (``spectator``, ``not_your_side``, ``not_your_unit``, ``not_your_turn``,
    ``not_your_event``)."""

    http_status = 403

    def __init__(self, message: str, /, code: str = "forbidden", **args: object) -> None:
        self.code = code
        super().__init__(message, **args)


class NoSuchBattleError(BattleError):
    """A link to a battle that is not on this server (its id is not listed: battle ids
    are not secret, but a web visitor has no business browsing them)."""

    http_status = 404
    code = "no_such_battle"

    def __init__(self, battle_id: str) -> None:
        self.battle_id = battle_id
        super().__init__("there is no battle {battle_id!r} here; check the link",
                         battle_id=battle_id)


class DatabaseBusyError(BattleError):
    """The database is down, locked or out of connections: nothing was recorded (503).
    The message never carries SQL or its parameters."""

    http_status = 503
    code = "database_unavailable"


class RateLimitedError(BattleError):
    """Too many battles created or imported from one address in a short time."""

    http_status = 429
    code = "rate_limited"


class ClosedError(BattleError):
    """A write to a battle that takes none (409): one that has ended (``ended``), or an
    import whose dice were never committed, kept for replay and verify only
    (``read_only``). Nothing was recorded."""

    http_status = 409

    def __init__(self, message: str, /, code: str = "ended", **args: object) -> None:
        self.code = code
        super().__init__(message, **args)


class VerifyFailed(WarroomError):
    """``verify`` found events or state that do not reproduce (exit code 1)."""


class ConflictError(BattleError):
    """The database refused a change that clashes with what it holds (a key already
    taken: a battle id, an event number a racing writer recorded first): nothing was
    recorded (409). The message never carries SQL or its parameters."""

    http_status = 409
    code = "conflict"


class OutOfActionError(BattleError):
    """A unit out of the game (eliminated, or every team destroyed) named to act or as
    the target (:attr:`warroom.battle.state.Unit.out_of_action`)."""

    code = "out_of_action"

    def __init__(self, unit: str) -> None:
        super().__init__("{unit} is out of action (eliminated): it can neither act nor be "
                         "a target; clear its eliminated marker if that was a mistake",
                         unit=unit)
