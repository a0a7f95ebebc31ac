"""What :class:`~warroom.battle.core.Battles` answers on its read paths, typed.

Typed dictionaries: each answer is the plain JSON data the HTTP API and the CLI's
``--json`` print (the same shapes as before), with its fields named and typed for the
code that reads them. The HTTP API checks them against :mod:`warroom.schema.battles`.
A logged event stays a mapping of its kind's fields (:mod:`warroom.battle.events` types
each kind); :class:`~warroom.battle.verify.Report` is a dataclass.
"""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict

__all__ = ["BattleListing", "BattleOdds", "BattlePage", "BattleView", "Chance", "Created",
           "Imported", "Luck", "LuckField", "LuckSide", "Prepared", "UnitView"]


class Created(TypedDict):
    """A new battle (:meth:`Battles.new`): its id and its three links' tokens."""

    id: str
    tokens: dict[str, str]


class Imported(Created):
    """An imported battle (:meth:`Battles.import_`) and whether this server signed it."""

    origin: str


class BattleListing(TypedDict):
    """One battle of :meth:`Battles.list_battles`."""

    id: str
    game: str
    name: str
    counter: int
    turn: int
    side: str
    phase: str
    units: int
    created: str
    updated: str


class UnitView(TypedDict):
    """A unit as the battle shows it."""

    name: str
    side: str
    stats: dict[str, Any]
    markers: dict[str, Any]
    profile: NotRequired[dict[str, Any]]
    teams_left: NotRequired[int]


class BattleView(TypedDict):
    """The battle now (:meth:`Battles.show`): the state and what a page needs to act."""

    id: str
    game: str
    name: str
    seed: int | str | None
    commitment: NotRequired[str | None]
    ended: NotRequired[bool]
    end_asked: NotRequired[list[str]]
    turn: int
    side: str
    phase: str
    rolls: int
    units: list[UnitView]
    counter: int
    phase_title: str
    checklist: list[str]
    phases: list[str]
    can_undo: bool
    read_only: bool
    solo: bool
    undo_asked: dict[str, Any] | None


class LuckField(TypedDict):
    """One outcome field's luck for a side: expected against actual."""

    expected: float
    actual: float
    rolls: int
    expected_exact: str
    difference: float


class LuckSide(TypedDict):
    rolls: int
    fields: dict[str, LuckField]


class Luck(TypedDict):
    """The luck table (:meth:`Battles.luck`): per side, expected against actual."""

    id: str
    sides: dict[str, LuckSide]


class BattlePage(TypedDict):
    """What a battle page shows (:meth:`Battles.page`)."""

    show: BattleView
    luck: Luck
    events: list[dict[str, Any]]
    older: int | None


class Prepared(TypedDict):
    """What :meth:`Battles.do` would resolve, without rolling (:meth:`Battles.prepare`)."""

    procedure: str
    params: dict[str, Any]
    unit: str | None
    target: str | None
    side: str
    clear: str | None
    filled: dict[str, str]
    given: dict[str, Any]
    units: NotRequired[list[str]]


class Chance(TypedDict):
    """One value of an outcome field and its chance (``exact``: where the odds are)."""

    value: Any
    p: float
    exact: NotRequired[str]


class BattleOdds(Prepared):
    """:meth:`Battles.odds`: the prepared step and its odds."""

    odds: dict[str, Any]
    chances: dict[str, list[Chance]]
    expected: dict[str, str]
