"""The registry of game systems and their procedures, built explicitly at start-up.

Importing a game module registers nothing: the registry imports each system's module
the first time it is asked for it and calls its ``system()`` factory.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from warroom.engine.procedure import Procedure
from warroom.errors import UnknownNameError, UnknownProcedureError


@dataclass(frozen=True)
class GameSystem:
    """A game system: its procedures and its data tables (shown by ``warroom rules``)."""

    id: str
    title: str
    procedures: tuple[Procedure, ...]
    tables: Mapping[str, Any] = field(default_factory=dict)
    description: str = ""

    @functools.cached_property
    def _by_id(self) -> dict[str, Procedure]:
        return {p.id: p for p in self.procedures}

    def procedure(self, name: str) -> Procedure:
        """A procedure by its id (``fow.shoot``) or its name within this game (``shoot``)."""
        found = self._by_id.get(name) or self._by_id.get(f"{self.id}.{name}")
        if found is None:
            raise UnknownProcedureError(name, [p.id for p in self.procedures])
        return found


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
