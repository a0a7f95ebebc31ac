"""Battle state, derived from events by a pure fold (no dice, no database).

Events are plain JSON mappings ``{"seq", "kind", "at", "after", ...data}``. The state
after an event depends only on the state before it and the event's data: a resolution
event carries its outcome and the marker changes it caused, so the fold never re-runs a
procedure (``verify`` does that separately).
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from warroom import api
from warroom.battle import phases
from warroom.battle.errors import BattleError, NothingToUndoError
from warroom.engine.game import MarkerKind
from warroom.engine.registry import GameView
from warroom.errors import UnknownNameError

SIDES = ("A", "B")
MAX_NAME = 60
MAX_BATTLE_NAME = 200
"""The longest battle name."""
MAX_STAT = 200
"""The longest value of a unit's stat, as text (the event model's bound and the forms')."""
MAX_STATS = 60
"""The most stats one unit carries (or one edit changes)."""
MAX_WORD = 40
"""The longest word of a log: a stat's, marker's or outcome field's name."""
MAX_TEXT = 200
"""The longest short text of a log: where a parameter came from, an expectation."""
Scalar = int | str

MARKERS: GameView[Mapping[str, MarkerKind]] = GameView(api.registry,
                                                       lambda system: system.markers)
"""Markers each game knows (its game object's :attr:`GameSystem.markers`): a flag is on
or off; a count is a whole number (0 = none)."""


def marker_kinds(game: str) -> Mapping[str, MarkerKind]:
    return MARKERS.get(game) or MARKERS["demo"]


def marker_kind(game: str, name: str) -> MarkerKind:
    kinds = marker_kinds(game)
    if name not in kinds:
        raise UnknownNameError("marker", name, sorted(kinds))
    return kinds[name]


_ON = {"", "yes", "true", "on", "1", "y"}
_OFF = {"no", "false", "off", "0", "n", "clear", "none"}


def marker_value(game: str, name: str, text: str | None, current: int | bool | None
                 ) -> int | bool | None:
    """The new value of a marker from what a player typed (None removes it).

    A flag: ``pinned`` or ``pinned=yes`` sets it, ``pinned=no`` clears it. A count:
    ``hits=3`` sets it, ``hits=+1``/``hits=-2`` changes it, ``hits`` adds one,
    ``hits=0`` or ``hits=clear`` removes it.
    """
    kind = marker_kind(game, name)
    raw = "" if text is None else text.strip().lower()
    if kind == "flag":
        if raw in _ON:
            return True
        if raw in _OFF:
            return None
        raise BattleError("marker {name!r} is on or off: give {name}, {name}=yes or "
                          "{name}=no, not {text!r}", name=name, text=text)
    if raw in ("clear", "none", "off", "no"):
        return None
    base = int(current or 0)
    try:
        if raw == "":
            value = base + 1
        elif raw[0] in "+-":
            value = base + int(raw)
        else:
            value = int(raw)
    except ValueError:
        raise BattleError("marker {name!r} counts: give a whole number like {name}=2, "
                          "{name}=+1 or {name}=clear, not {text!r}", name=name,
                          text=text) from None
    if value < 0:
        raise BattleError("marker {name!r} cannot go below 0 (it is {base})", name=name,
                          base=base)
    return value or None


def parse_stat(text: str) -> Scalar:
    t = text.strip()
    try:
        return int(t)
    except ValueError:
        return t


@dataclass
class Unit:
    name: str
    side: str
    stats: dict[str, Scalar] = field(default_factory=dict)
    markers: dict[str, int | bool] = field(default_factory=dict)
    profile: dict[str, Any] | None = None
    """the unit's typed profile (a force file's unit, as JSON), or None: stats only"""

    @property
    def teams(self) -> int | None:
        """How many teams the unit has: its ``teams`` stat, else the items of its
        ``team_list`` (a mixed platoon, ``tank:6,tank:5/3,soft``), else its profile's
        (a FoW platoon's teams, a BKC/CWC unit's count); None if none of these."""
        teams = self.stats.get("teams")
        if isinstance(teams, int) and not isinstance(teams, bool):
            return teams
        listed = self.stats.get("team_list")
        if isinstance(listed, str) and listed.strip():
            return len([item for item in listed.split(",") if item.strip()])
        if self.profile is not None:
            if isinstance(self.profile.get("teams"), list):
                return sum(int(t.get("count", 1)) for t in self.profile["teams"])
            if "count" in self.profile and "hits" in self.profile:
                return int(self.profile["count"])
        return None

    @property
    def out_of_action(self) -> bool:
        """Whether the unit is out of the game: marked ``eliminated`` (an outcome does it:
        a BKC/CWC unit destroyed, an ASL stack whose every unit is eliminated, a FoW
        platoon whose last team is destroyed), or every one of its teams destroyed. Such
        a unit neither acts nor is a target (:meth:`warroom.battle.core.Battles.do`
        refuses it; the Resolve form does not offer it); clearing the marker brings
        it back."""
        if self.markers.get("eliminated"):
            return True
        teams = self.teams
        lost = self.markers.get("destroyed", 0)
        return bool(teams) and not isinstance(lost, bool) and int(lost) >= int(teams or 0)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "side": self.side, "stats": dict(self.stats),
                               "markers": dict(self.markers)}
        if self.profile is not None:  # absent otherwise: older battles keep their digests
            out["profile"] = self.profile
        teams = self.teams
        if teams is not None:
            out["teams_left"] = max(0, teams - int(self.markers.get("destroyed", 0)))
        return out


@dataclass
class State:
    id: str
    game: str
    name: str
    commitment: str | None
    """sha256 of the battle's secret dice seed, published at creation (None: a battle made
    before dice were committed, whose seed was public from the start)"""
    seed: str | None = None
    """the dice seed once revealed (at the end, or from the start for old battles)"""
    turn: int = 1
    side: str = "A"
    phase: str = ""
    rolls: int = 0
    units: dict[str, Unit] = field(default_factory=dict)
    ended: bool = False
    end_asked: list[str] = field(default_factory=list)
    luck: dict[str, Any] | None = field(default_factory=lambda: no_luck())
    """Per side, the running totals of the live resolutions (:func:`add_luck`): kept with
    the snapshot, so the luck table never replays the log; not part of the digest (it is
    derived from the events' own data). None: a snapshot stored before it was kept."""

    def to_json(self) -> dict[str, Any]:
        if self.commitment is None and not self.ended and not self.end_asked:
            # a battle from before committed dice keeps its old shape (and digests)
            return {"id": self.id, "game": self.game, "name": self.name,
                    "seed": int(self.seed or 0), "turn": self.turn, "side": self.side,
                    "phase": self.phase, "rolls": self.rolls,
                    "units": [u.to_json() for u in self.units.values()]}
        return {"id": self.id, "game": self.game, "name": self.name,
                "commitment": self.commitment, "seed": self.seed, "ended": self.ended,
                "end_asked": list(self.end_asked),
                "turn": self.turn, "side": self.side, "phase": self.phase,
                "rolls": self.rolls, "units": [u.to_json() for u in self.units.values()]}

    def snapshot(self) -> str:
        """What the store keeps as the state after an event: :meth:`to_json` and the luck
        totals."""
        data = self.to_json()
        if self.luck is not None:
            data["luck"] = self.luck
        return json.dumps(data)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> State:
        """The state a snapshot stored (the inverse of ``to_json`` and :meth:`snapshot`)."""
        units = {u["name"]: Unit(u["name"], u["side"], dict(u["stats"]), dict(u["markers"]),
                                 u.get("profile"))
                 for u in data["units"]}
        luck = copy.deepcopy(data["luck"]) if "luck" in data else None
        if "commitment" not in data:  # the old shape: a public seed
            return cls(data["id"], data["game"], data["name"], None, str(data["seed"]),
                       data["turn"], data["side"], data["phase"], data["rolls"], units,
                       luck=luck)
        return cls(data["id"], data["game"], data["name"], data["commitment"], data["seed"],
                   data["turn"], data["side"], data["phase"], data["rolls"], units,
                   data["ended"], list(data["end_asked"]), luck)

    def digest(self) -> str:
        data = self.to_json()
        del data["id"]  # an imported copy under a new id is the same battle
        text = json.dumps(data, sort_keys=True, ensure_ascii=True,
                          separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def unit(self, name: str) -> Unit:
        if name in self.units:
            return self.units[name]
        folded = {n.casefold(): n for n in self.units}
        if name.casefold() in folded:
            return self.units[folded[name.casefold()]]
        raise UnknownNameError("unit", name, list(self.units),
                               "Add it with 'warroom battle add-unit'.")

    def phase_info(self) -> phases.Phase:
        return phases.phase(self.game, self.phase)


def initial(battle_id: str, game: str, name: str, commitment: str | None,
            legacy_seed: int | None = None) -> State:
    """A battle as created. ``legacy_seed``: a battle made before dice were committed
    (its seed was public from the start)."""
    first = phases.sequence(game)[0].id
    seed = None if legacy_seed is None else str(legacy_seed)
    return State(battle_id, game, name, commitment, seed, phase=first)


def no_luck() -> dict[str, Any]:
    """Luck totals before any roll."""
    return {s: {"rolls": 0, "fields": {}} for s in SIDES}


def add_luck(luck: dict[str, Any], side: str, expected: Mapping[str, str],
             outcome: Mapping[str, Any]) -> None:
    """Add one resolution to the running totals (in place): per side the rolls, and per
    outcome field the sum of the exact expectations (a fraction ``"n/d"``; a Monte Carlo
    estimate's decimal adds in as the fraction it writes), the sum of what the dice gave
    and how many rolls had that field."""
    totals = luck.setdefault(side, {"rolls": 0, "fields": {}})
    totals["rolls"] += 1
    for name, exp in expected.items():
        f = totals["fields"].setdefault(name, {"expected": "0", "actual": 0, "rolls": 0})
        total = Fraction(f["expected"]) + Fraction(exp)
        f["expected"] = f"{total.numerator}/{total.denominator}"
        f["actual"] += int(outcome[name])
        f["rolls"] += 1


def set_marker(unit: Unit, name: str, value: Any) -> None:
    if value is None or value is False or value == 0:
        unit.markers.pop(name, None)
    else:
        unit.markers[name] = value


def first_problem(exc: Any) -> str:
    """One line from a pydantic ValidationError: the field's path and what is wrong."""
    errors = exc.errors()
    if not errors:
        return "invalid"
    err = errors[0]
    where = ".".join(str(x) for x in err.get("loc", ()))
    return f"{where}: {err.get('msg', 'invalid')}" if where else str(err.get("msg"))


PHASE_CLEARS: GameView[tuple[str, ...]] = GameView(api.registry,
                                                   lambda system: system.phase_clears)
"""Markers a new phase takes off every unit, per game (its game object's
:attr:`GameSystem.phase_clears`; FoW: ``hits``, the hits of one shooting step)."""


def phase_clears(state: State) -> list[str]:
    """The markers the next phase takes off (only those some unit carries now)."""
    carried = {m for u in state.units.values() for m in u.markers}
    return [m for m in PHASE_CLEARS.get(state.game, ()) if m in carried]


def next_position(state: State) -> tuple[int, str, str]:
    """(turn, side, phase) after the current phase."""
    seq = phases.sequence(state.game)
    ids = [p.id for p in seq]
    i = ids.index(state.phase) if state.phase in ids else -1
    if i + 1 < len(ids):
        return state.turn, state.side, ids[i + 1]
    other = "B" if state.side == "A" else "A"
    turn = state.turn + 1 if other == "A" else state.turn
    return turn, other, ids[0]


@dataclass
class Replay:
    """The fold of an event log: the current state, and the stack undo walks back."""

    states: list[State]
    live: list[int]  # seq of the event that produced each state after the first

    @property
    def state(self) -> State:
        return self.states[-1]

    def last_live(self) -> int:
        if not self.live:
            raise NothingToUndoError()
        return self.live[-1]
