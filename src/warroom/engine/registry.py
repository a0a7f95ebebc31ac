"""The registry of game systems and their procedures, built explicitly at start-up.

Importing a game module registers nothing: the registry imports each system's module
the first time it is asked for it and calls its ``system()`` factory.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from warroom.engine.game import COMMON_MARKERS, LazyView, MarkerKind, Phase, Profile, Takes
from warroom.engine.procedure import Procedure
from warroom.errors import UnknownNameError, UnknownProcedureError


@dataclass(frozen=True)
class GameSystem:
    """A game system, one object a game: its procedures, its data tables (shown by
    ``warroom rules``), its sequence of play (``phases``), its ``markers`` (the ones
    every game knows added), the markers a new phase takes off (``phase_clears``), its
    unit model (``profile``: the typed profile class of its units, None: units carry
    only stats) and how each procedure takes units (``takes``: builders by id)."""

    id: str
    title: str
    procedures: tuple[Procedure, ...]
    tables: Mapping[str, Any] = field(default_factory=dict)
    description: str = ""
    phases: tuple[Phase, ...] = ()
    markers: Mapping[str, MarkerKind] = field(default_factory=dict)
    phase_clears: tuple[str, ...] = ()
    profile: type[Profile] | None = None
    takes: Mapping[str, Takes] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "markers", {**COMMON_MARKERS, **self.markers})

    @functools.cached_property
    def _by_id(self) -> dict[str, Procedure]:
        return {p.id: p for p in self.procedures}

    def procedure(self, name: str) -> Procedure:
        """A procedure by its id (``fow.shoot``) or its name within this game (``shoot``)."""
        found = self._by_id.get(name) or self._by_id.get(f"{self.id}.{name}")
        if found is None:
            raise UnknownProcedureError(name, [p.id for p in self.procedures])
        return found


T = TypeVar("T")


class GameView(LazyView[T]):
    """A read-only view of one thing every game system of a registry holds (its
    phases, markers...), by game id, read from the game objects when asked (no game
    is loaded before). Games whose value is empty are left out."""

    def __init__(self, registry: Callable[[], Registry],
                 part: Callable[[GameSystem], T | None]) -> None:
        def get(game: str) -> T | None:
            reg = registry()
            if game not in reg.games:
                return None
            return part(reg.system(game)) or None

        super().__init__(get, lambda: registry().games)


BUILTIN_SYSTEMS: tuple[tuple[str, str], ...] = (
    ("demo", "warroom.games.demo:system"),
    ("fow", "warroom.games.fow:system"),
    ("asl", "warroom.games.asl:system"),
    ("bkc", "warroom.games.commander:bkc_system"),
    ("cwc", "warroom.games.commander:cwc_system"),
)
"""(game id, "module:factory") of the systems shipped with warroom."""


class Registry:
    def __init__(self, entries: Sequence[tuple[str, str | Callable[[], GameSystem]]] = ()):
        self._entries: dict[str, str | Callable[[], GameSystem]] = dict(entries)
        self._loaded: dict[str, GameSystem] = {}

    def add(self, game: str, factory: str | Callable[[], GameSystem]) -> None:
        self._entries[game] = factory
        self._loaded.pop(game, None)

    @property
    def games(self) -> list[str]:
        return list(self._entries)

    def system(self, game: str) -> GameSystem:
        if game not in self._entries:
            raise UnknownNameError("game system", game, self.games)
        if game not in self._loaded:
            factory = self._entries[game]
            if isinstance(factory, str):
                module, _, attr = factory.partition(":")
                factory = getattr(importlib.import_module(module), attr)
            self._loaded[game] = factory()
        return self._loaded[game]

    def systems(self) -> Iterator[GameSystem]:
        for game in self._entries:
            yield self.system(game)

    def procedure(self, proc_id: str) -> Procedure:
        game, dot, _ = proc_id.partition(".")
        if not dot or game not in self._entries:
            valid = [p.id for s in self.systems() for p in s.procedures]
            raise UnknownProcedureError(proc_id, valid)
        return self.system(game).procedure(proc_id)

    def procedures(self) -> list[Procedure]:
        return [p for s in self.systems() for p in s.procedures]


def default_registry() -> Registry:
    """A registry of every built-in game system."""
    return Registry(BUILTIN_SYSTEMS)


_SHARED: list[Registry] = []


def registry() -> Registry:
    """The process-wide registry of built-in systems, built on first use
    (:func:`warroom.api.registry`)."""
    if not _SHARED:
        _SHARED.append(default_registry())
    return _SHARED[0]


def shown(procedure: str, params: Mapping[str, Any], fields: Sequence[str]) -> list[str]:
    """``fields`` less those certainly 0 for these parameters (an outcome field declared
    ``shown_if`` a parameter that is 0 or false, e.g. fow.shoot's passenger fields
    without passengers): summaries for people leave them out."""
    from warroom.engine.procedure import shown_fields
    from warroom.errors import UsageError

    try:
        proc = registry().procedure(procedure)
    except UsageError:  # a procedure of no registered game: show everything
        return list(fields)
    keep = set(shown_fields(proc.outcome, params))
    return [f for f in fields if f in keep]
