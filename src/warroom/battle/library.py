"""The force library: whole forces a side adds to a battle in one tap.

What it offers for a battle's game: the example forces shipped with warroom
(``example:GAME``) and the forces saved in the battle store's ``forces`` table
(``saved:ID``): a force pasted or uploaded as TOML, or the units a side has in a battle.
Everyone playing on the server sees the saved forces of their game (the page says so).
A saved force keeps its units' profiles as JSON, each checked again by its game's model
whenever it is added, and the TOML text it came from.

:func:`add_force` adds the chosen units of a force to one side: every name and profile
is checked against the battle first, so a force that cannot be added whole changes
nothing; then each unit is one ``unit_added`` event with its profile.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from typing import Any

import sqlalchemy as sa

from warroom.battle.core import Battles
from warroom.battle.errors import AccessError, BattleError, StaleStateError
from warroom.battle.state import MAX_NAME
from warroom.battle.store import Store, forces
from warroom.units.forces import GAMES, Force, force_from_text, model_for, profile_model
from warroom.units.importers import TYPES

MAX_TEXT = 200_000
"""The longest force text (TOML) pasted or uploaded, in characters."""
MAX_UNITS = 40
"""The most units one force adds."""
MAX_PER_BATTLE = 50
"""The most forces saved from one battle."""
MAX_SAVED = 5_000
"""The most forces the library keeps in all; past it nothing more is saved."""
SHOWN = 50
"""The saved forces a battle page lists (the newest)."""


class ForceTooLargeError(BattleError):
    """A pasted or uploaded force over :data:`MAX_TEXT` (413)."""

    code = "force_too_large"
    http_status = 413


class NoSuchForceError(BattleError):
    """A library reference that names no force of this game (404)."""

    code = "no_such_force"
    http_status = 404


class LibraryFullError(BattleError):
    code = "library_full"
    http_status = 409


@dataclass(frozen=True)
class Entry:
    """One force of the library: its reference (``example:fow``, ``saved:ID``), game,
    name and units (profiles as JSON, in order)."""

    ref: str
    game: str
    name: str
    units: tuple[dict[str, Any], ...]
    example: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"ref": self.ref, "game": self.game, "name": self.name,
                "example": self.example, "units": [u["name"] for u in self.units]}


def plays(force_game: str, game: str) -> bool:
    """Whether a force of ``force_game`` serves a battle of ``game`` (BKC and CWC units
    share one model)."""
    return force_game == game or {force_game, game} == {"bkc", "cwc"}


def checked_force(text: str, name: str = "pasted force") -> Force:
    """A force from its TOML text: a clear error naming the line and field when it is
    not one, never a crash (over :data:`MAX_TEXT` characters: 413)."""
    if len(text) > MAX_TEXT:
        raise ForceTooLargeError("the force is too long: at most {most} characters",
                                 most=MAX_TEXT)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate from a JSON body
        raise BattleError("{name} is not valid Unicode text", name=name) from None
    force = force_from_text(text, name)
    if len(force.units) > MAX_UNITS:
        raise BattleError("too many units: a force adds at most {most}; this one has {count}",
                          most=MAX_UNITS, count=len(force.units))
    return force


def entry_of_text(text: str, game: str, name: str = "pasted force") -> Entry:
    """A pasted or uploaded force (not kept) for a battle of ``game``."""
    force = checked_force(text, name)
    if not plays(force.game, game):
        raise BattleError("this is a {unit_game} force; the battle plays {game}",
                          unit_game=force.game, game=game)
    return Entry(name, force.game, force.name, _dump(force.units))


def _dump(units: Sequence[Any]) -> tuple[dict[str, Any], ...]:
    return tuple(u.model_dump(mode="json") for u in units)


@cache
def _example(game: str) -> Entry:
    """The example force shipped for ``game`` (read once: it never changes)."""
    from warroom.units.forces import load_force

    force = load_force(f"example:{game}")
    return Entry(f"example:{game}", force.game, force.name, _dump(force.units), True)


class Library:
    """The force library of one battle store."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def entries(self, game: str) -> list[Entry]:
        """The forces a battle of ``game`` can add: its example force first (both for
        BKC and CWC), then the saved ones, newest first."""
        out = [_example(g) for g in GAMES if plays(g, game)]
        with self.store.read() as conn:
            rows = conn.execute(
                sa.select(forces.c.id, forces.c.game, forces.c.name, forces.c.units)
                .where(forces.c.game.in_([g for g in GAMES if plays(g, game)]))
                .order_by(forces.c.created_at.desc()).limit(SHOWN)).all()
        out += [Entry(f"saved:{r[0]}", r[1], r[2], tuple(json.loads(r[3]))) for r in rows]
        return out

    def get(self, ref: str, game: str) -> Entry:
        """The force ``ref`` names, for a battle of ``game``."""
        ref = ref.strip()
        kind, _, key = ref.partition(":")
        if kind == "example" and key in GAMES and plays(key, game):
            return _example(key)
        if kind == "saved" and key:
            with self.store.read() as conn:
                row = conn.execute(
                    sa.select(forces.c.game, forces.c.name, forces.c.units)
                    .where(forces.c.id == key[:32])).first()
            if row is not None and plays(row[0], game):
                return Entry(ref, row[0], row[1], tuple(json.loads(row[2])))
        raise NoSuchForceError("there is no force {ref!r} for {game} in the library",
                               ref=ref, game=game)

    def save(self, game: str, name: str, units: Sequence[Any], text: str = "", *,
             battle_id: str | None = None, side: str | None = None) -> Entry:
        """Keep a force (its units: profile objects or their JSON) in the library."""
        if not units:
            raise BattleError("a force needs at least one unit")
        data = tuple(u if isinstance(u, dict) else u.model_dump(mode="json") for u in units)
        name = (name.strip() or ", ".join(str(u["name"]) for u in data))[:200]
        force_id = secrets.token_hex(8)
        with self.store.write() as conn:
            total = conn.execute(sa.select(sa.func.count()).select_from(forces)).scalar_one()
            if total >= MAX_SAVED:
                raise LibraryFullError("the force library is full ({most} forces)",
                                       most=MAX_SAVED)
            if battle_id is not None:
                mine = conn.execute(sa.select(sa.func.count()).select_from(forces).where(
                    forces.c.battle_id == battle_id)).scalar_one()
                if mine >= MAX_PER_BATTLE:
                    raise LibraryFullError("a battle saves at most {most} forces",
                                           most=MAX_PER_BATTLE)
            conn.execute(sa.insert(forces).values(
                id=force_id, game=game, name=name,
                units=json.dumps(data, ensure_ascii=False), text=text,
                created_at=datetime.now(UTC).isoformat(timespec="microseconds"),
                battle_id=battle_id, side=side))
        return Entry(f"saved:{force_id}", game, name, data)

    def save_text(self, game: str, text: str, *, battle_id: str | None = None,
                  side: str | None = None, name: str = "pasted force") -> Entry:
        """Read a force's TOML (:func:`entry_of_text`) and keep it."""
        entry = entry_of_text(text, game, name)
        return self.save(entry.game, entry.name, entry.units, text, battle_id=battle_id,
                         side=side)


def chosen(entry: Entry, names: Sequence[str] | None) -> list[dict[str, Any]]:
    """The units of ``entry`` named in ``names`` (all of them for None), in its order."""
    if names is None:
        return list(entry.units)
    wanted = {n.strip().casefold() for n in names if n.strip()}
    known = {str(u["name"]).casefold() for u in entry.units}
    unknown = [n.strip() for n in names if n.strip().casefold() not in known]
    if unknown:
        raise BattleError("{force} has no unit {name!r} (units: {valid})", force=entry.name,
                          name=unknown[0], valid=", ".join(u["name"] for u in entry.units))
    picked = [u for u in entry.units if str(u["name"]).casefold() in wanted]
    if not picked:
        raise BattleError("pick at least one unit of the force")
    return picked


def add_force(bt: Battles, battle_id: str, side: str, units: Sequence[dict[str, Any]], *,
              expect: int | None = None, by: str | None = None) -> list[dict[str, Any]]:
    """Add ``units`` (profiles as JSON) to ``side``, one ``unit_added`` event each.

    Everything is checked first (the side is the link's own, every profile fits the
    battle's game, no name is taken or given twice, the battle is at ``expect``): a
    force that cannot be added whole adds nothing. Without ``expect``, a battle that
    moves on between the check and the first unit is checked again."""
    side = side.strip().upper()
    if side not in ("A", "B"):
        raise BattleError("side must be A or B, not {side!r}", side=side)
    if by is not None and by != side:
        raise AccessError("your link acts for side {by}; it cannot add units to {side}",
                          code="not_your_side", by=by, side=side)
    if not units:
        raise BattleError("pick at least one unit of the force")
    if len(units) > MAX_UNITS:
        raise BattleError("too many units: a force adds at most {most}; this one has {count}",
                          most=MAX_UNITS, count=len(units))
    from warroom.battle.conflicts import Write, reads

    for attempt in range(3):
        # the page's view is stale only where the force's names changed
        bt.fresh(battle_id, expect, reads(Write.ADD_UNIT,
                                          [str(u.get("name") or "") for u in units]))
        counter = int(bt.row(battle_id)["counter"])  # before the state: never newer
        checked = _checked(bt.state(battle_id), units)
        try:  # the first write holds the force's names to the state checked
            first = bt.add_unit(battle_id, side, checked[0].name, profile=checked[0],
                                expect=counter, by=by, force=[p.name for p in checked[1:]])
        except StaleStateError:
            if attempt == 2:
                raise
            continue
        return [first, *(bt.add_unit(battle_id, side, p.name, profile=p, by=by)
                         for p in checked[1:])]
    raise AssertionError("unreachable")  # pragma: no cover


def _checked(state: Any, units: Sequence[dict[str, Any]]) -> list[Any]:
    """The profiles of ``units`` checked against the battle: its game's model, names
    neither taken nor given twice."""
    if state.game not in GAMES:
        raise BattleError("units of {game} battles carry no profiles (profiles: {valid})",
                          game=state.game, valid=", ".join(GAMES))
    taken = {n.casefold() for n in state.units}
    seen: set[str] = set()
    checked = []
    for data in units:
        profile = profile_model(state.game, data)
        name = str(profile.name).strip()
        if len(name) > MAX_NAME or "=" in name:
            raise BattleError("a unit name is 1 to {most} characters without '='",
                              most=MAX_NAME)
        if name.casefold() in taken:
            raise BattleError("there is already a unit called {name!r}: untick it or "
                              "rename it in the force", name=name)
        if name.casefold() in seen:
            raise BattleError("{name!r} is given twice", name=name)
        seen.add(name.casefold())
        checked.append(profile)
    return checked


def side_units(bt: Battles, battle_id: str, side: str) -> list[Any]:
    """The profiles of ``side``'s units that have one, each under its battle name."""
    state = bt.state(battle_id)
    out = []
    for u in state.units.values():
        if u.side == side and u.profile is not None:
            out.append(model_for(state.game).model_validate(
                {**u.profile, "name": u.name}))
    if not out:
        raise BattleError("side {side} has no units with profiles to save", side=side)
    return out


UPLOADS = TYPES
"""The extensions the page's file input offers (:mod:`warroom.units.importers` reads them)."""
