"""What every part of the battle tracker stands on (:class:`BattlesBase`): the store, the
rules and the clock, a battle's row and snapshot (:class:`Snapshot`), and the small
helpers its parts share.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from warroom.battle import phases
from warroom.battle.state import (
    Replay,
    State,
    fold,
)

if TYPE_CHECKING:
    from warroom.battle.store import Store
    from warroom.engine.registry import Registry


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="milliseconds")


def _default_registry() -> Registry:
    from warroom import api

    return api.registry()


def commitment_of(secret: str) -> str:
    """What a battle publishes about its secret dice seed at creation."""
    return hashlib.sha256(f"warroom-battle-seed:{secret}".encode()).hexdigest()


def fraction_text(x: Fraction) -> str:
    return f"{x.numerator}/{x.denominator}"


def jsonable(data: Any) -> Any:
    return json.loads(json.dumps(data, sort_keys=True))


@dataclass
class Snapshot:
    """A battle as its row stores it: the state now and the stack of live events."""

    row: dict[str, Any]
    state: State
    live: list[int]
    replay: Replay | None = None  # set when the row had no snapshot (an old log)

    @property
    def counter(self) -> int:
        return int(self.row["counter"])


READ_ONLY = "read-only"
"""The ``origin`` of an imported battle whose dice were never committed (its seed public
from the start): kept for replay and verify only, since anyone could foresee its dice."""


class BattlesBase:
    """What every part of :class:`~warroom.battle.core.Battles` stands on: the store, the
    rules (the registry) and the clock, and reading a battle's row and snapshot."""

    def __init__(self, store: Store, registry: Registry | None = None,
                 clock: Callable[[], str] = _now) -> None:
        self.store = store
        self._registry = registry
        self.clock = clock

    @property
    def default_rules(self) -> bool:
        """Whether these battles use the registered games' rules (no registry of their
        own was given): another process opening the same store replays them alike."""
        return self._registry is None or self._registry is _default_registry()

    @property
    def registry(self) -> Registry:
        if self._registry is None:
            from warroom import api

            self._registry = api.registry()
        return self._registry

    # ------------------------------------------------------------------ creating
    def games(self) -> list[str]:
        known = list(self.registry.games)
        return known + [g for g in phases.SEQUENCES if g not in known]

    @staticmethod
    def _row(battle_id: str, state: State, at: str, tokens: Mapping[str, str], *,
             secret: str | None, sign_key: str | None, origin: str,
             legacy_seed: int | None = None, solo: bool = False) -> dict[str, Any]:
        return {"id": battle_id, "game": state.game, "name": state.name,
                "seed": legacy_seed or 0, "created_at": at, "updated_at": at, "counter": 0,
                "state": state.snapshot(), "token_a": tokens["a"],
                "token_b": tokens["b"], "token_view": tokens["view"], "secret": secret,
                "sign_key": sign_key, "origin": origin, "live": None,
                "solo": solo or None, "undo_asked": None}

    # ------------------------------------------------------------------ reading
    def _snapshot(self, battle_id: str) -> Snapshot:
        with self.store.read() as conn:
            return self._snapshot_in(conn, battle_id)

    def _snapshot_in(self, conn: Any, battle_id: str) -> Snapshot:
        """The battle's row and its snapshot; a log from before snapshots (or before the
        luck totals were kept) is replayed once, and its next write stores them."""
        row = self.store.battle_row(conn, battle_id)
        if row.get("live") is not None:
            state = State.from_json(json.loads(row["state"]))
            if state.luck is not None:
                return Snapshot(row, state, json.loads(row["live"]))
        replay = fold(battle_id, self.store.load_events(conn, battle_id))
        return Snapshot(row, replay.state, list(replay.live), replay)

    def _load(self, battle_id: str) -> tuple[dict[str, Any], list[dict[str, Any]], Replay]:
        with self.store.read() as conn:
            row = self.store.battle_row(conn, battle_id)
            events = self.store.load_events(conn, battle_id)
        return row, events, fold(battle_id, events)

    def row(self, battle_id: str) -> dict[str, Any]:
        with self.store.read() as conn:
            return self.store.battle_row(conn, battle_id)

    def state(self, battle_id: str) -> State:
        return self._snapshot(battle_id).state
