"""The battle tracker's one core object. The CLI and the web API are thin layers over it.

Every change is an event appended to the battle's log in one transaction; the state is
the fold of the log (:mod:`warroom.battle.state`). Each event carries ``seq``, the
state counter it created: a write may name the counter it was based on (``expect``)
and is refused when someone else wrote first.

Dice: a virtual roll draws from a generator derived from (battle seed, roll index),
where the roll index is part of the state. Undo restores the state, so the roll made
again after an undo gets exactly the same dice. Dice typed in by players are recorded
with ``entered: true`` and do not move the roll index.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import random
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from warroom.battle import effects as fx
from warroom.battle import phases
from warroom.battle.errors import AccessError, BattleError, ImportFormatError, StaleStateError
from warroom.battle.state import (
    SIDES,
    Replay,
    State,
    apply,
    fold,
    initial,
    marker_kind,
    marker_value,
    next_position,
    parse_stat,
)
from warroom.errors import UnknownNameError, UsageError

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection

    from warroom.battle.store import Store
    from warroom.engine.procedure import Procedure
    from warroom.engine.registry import Registry

EXPORT_FORMAT = "warroom-battle"
EXPORT_VERSION = 1
MAX_NAME = 60


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="milliseconds")


def roll_rng(seed: int, index: int) -> random.Random:
    """The generator of a battle's ``index``-th virtual roll (stable across versions)."""
    digest = hashlib.sha256(f"warroom-battle:{seed}:{index}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _frac(x: Fraction) -> str:
    return f"{x.numerator}/{x.denominator}"


def _jsonable(data: Any) -> Any:
    return json.loads(json.dumps(data, sort_keys=True))


@dataclass
class Report:
    """The result of ``verify``: ok only when every event reproduces."""

    battle: str
    events: int
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        return {"id": self.battle, "ok": self.ok, "events": self.events,
                "problems": list(self.problems)}


class Battles:
    """Create, change and read battles in a :class:`~warroom.battle.store.Store`."""

    def __init__(self, store: Store, registry: Registry | None = None,
                 clock: Callable[[], str] = _now) -> None:
        self.store = store
        self._registry = registry
        self.clock = clock

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

    def new(self, game: str, name: str | None = None, seed: int | None = None) -> dict[str, Any]:
        """A new battle; returns its id and its three links' tokens."""
        from warroom.dice.sources import new_seed

        game = game.strip().lower()
        if game not in self.games():
            raise UnknownNameError("game system", game, self.games())
        if seed is not None and not 0 <= seed < 2**62:
            raise BattleError("--seed must be a whole number from 0 to 2^62")
        seed = new_seed() if seed is None else seed
        name = (name or "").strip() or f"{game} battle {self.clock()[:10]}"
        if len(name) > 200:
            raise BattleError("a battle name has at most 200 characters")
        battle_id = secrets.token_hex(4)
        tokens = {s: secrets.token_urlsafe(18) for s in ("a", "b", "view")}
        at = self.clock()
        first: dict[str, Any] = {"seq": 1, "kind": "created", "at": at, "by": None,
                                 "game": game, "name": name, "seed": seed}
        state = initial(battle_id, game, name, seed)
        first["after"] = state.digest()
        with self.store.write() as conn:
            self.store.insert_battle(conn, self._row(battle_id, state, at, 0, tokens))
            self.store.append(conn, battle_id, first, 0, json.dumps(state.to_json()))
        return {"id": battle_id, "tokens": tokens}

    @staticmethod
    def _row(battle_id: str, state: State, at: str, counter: int,
             tokens: Mapping[str, str]) -> dict[str, Any]:
        return {"id": battle_id, "game": state.game, "name": state.name, "seed": state.seed,
                "created_at": at, "updated_at": at, "counter": counter,
                "state": json.dumps(state.to_json()), "token_a": tokens["a"],
                "token_b": tokens["b"], "token_view": tokens["view"]}

    # ------------------------------------------------------------------ reading
    def list_battles(self) -> list[dict[str, Any]]:
        with self.store.read() as conn:
            rows = self.store.list_rows(conn)
        out = []
        for r in rows:
            st = json.loads(r["state"])
            out.append({"id": r["id"], "game": r["game"], "name": r["name"],
                        "counter": r["counter"], "turn": st["turn"], "side": st["side"],
                        "phase": st["phase"], "units": len(st["units"]),
                        "created": r["created_at"], "updated": r["updated_at"]})
        return out

    def _load(self, battle_id: str) -> tuple[dict[str, Any], list[dict[str, Any]], Replay]:
        with self.store.read() as conn:
            return self._load_in(conn, battle_id)

    def _load_in(self, conn: Connection, battle_id: str, *, lock: bool = False
                 ) -> tuple[dict[str, Any], list[dict[str, Any]], Replay]:
        row = self.store.battle_row(conn, battle_id, lock=lock)
        events = self.store.load_events(conn, battle_id)
        return row, events, fold(battle_id, events)

    def row(self, battle_id: str) -> dict[str, Any]:
        with self.store.read() as conn:
            return self.store.battle_row(conn, battle_id)

    def show(self, battle_id: str) -> dict[str, Any]:
        row, _events, replay = self._load(battle_id)
        st = replay.state
        info = st.phase_info()
        out = st.to_json()
        out["counter"] = row["counter"]
        out["phase_title"] = info.title
        out["checklist"] = list(info.checklist)
        out["phases"] = [p.id for p in phases.sequence(st.game)]
        out["can_undo"] = bool(replay.live)
        return out

    def state(self, battle_id: str) -> State:
        return self._load(battle_id)[2].state

    def log(self, battle_id: str) -> list[dict[str, Any]]:
        _row, events, replay = self._load(battle_id)
        live = set(replay.live) | {1}
        undone = {int(e["target"]) for e in events if e["kind"] == "undone"}
        for e in events:
            e["undone"] = e["seq"] in undone and e["seq"] not in live
        return events

    # ------------------------------------------------------------------ writing
    def _write(self, battle_id: str, expect: int | None,
               build: Callable[[Replay, list[dict[str, Any]]], dict[str, Any]],
               by: str | None = None) -> dict[str, Any]:
        """Build an event from the current state and append it in one transaction.

        The transaction reads the battle first, with its row locked (on SQLite the
        transaction holds the write lock from its start), so writers of one battle take
        turns and each builds on the state the one before it left. With ``expect`` any
        change since ``expect`` is refused. A write that still finds the battle moved on
        (a server without row locks) is rebuilt on the new state, a few times at most.
        """
        from sqlalchemy.exc import IntegrityError

        for _attempt in range(5):
            try:
                with self.store.write() as conn:
                    row, events, replay = self._load_in(conn, battle_id, lock=True)
                    counter = int(row["counter"])
                    if expect is not None and expect != counter:
                        raise StaleStateError(expect, counter)
                    event = build(replay, events)
                    kind = event["kind"]
                    event = {"seq": counter + 1, "kind": kind, "at": self.clock(), "by": by,
                             **{k: v for k, v in event.items() if k != "kind"}}
                    new_state = (replay.states[-2] if kind == "undone"
                                 else apply(replay.state, event))
                    event["after"] = new_state.digest()
                    event = dict(_jsonable(event))
                    self.store.append(conn, battle_id, event, counter,
                                      json.dumps(new_state.to_json()))
            except StaleStateError:
                if expect is not None:
                    raise
                continue
            except IntegrityError:  # a duplicate seq from a racing writer
                if expect is not None:
                    raise StaleStateError(expect, counter + 1) from None
                continue
            return event
        raise BattleError("the battle is changing too fast to record this; try again")

    @staticmethod
    def _side(side: str) -> str:
        s = side.strip().upper()
        if s not in SIDES:
            raise BattleError("side must be A or B, not {side!r}", side=side)
        return s

    def add_unit(self, battle_id: str, side: str, name: str,
                 stats: Mapping[str, Any] | None = None, *, expect: int | None = None,
                 by: str | None = None) -> dict[str, Any]:
        side = self._side(side)
        name = name.strip()
        if not name or len(name) > MAX_NAME or "=" in name:
            raise BattleError("a unit name is 1 to {most} characters without '='",
                              most=MAX_NAME)
        if by is not None and by != side:
            raise AccessError("your link acts for side {by}; it cannot add units to {side}",
                              by=by, side=side)
        parsed: dict[str, Any] = {}
        for key, value in (stats or {}).items():
            k = str(key).strip()
            if not k.isidentifier():
                raise BattleError("stat name {key!r} must be a word like teams or skill",
                                  key=key)
            parsed[k] = parse_stat(str(value)) if not isinstance(value, int) else value

        def build(replay: Replay, _events: list[dict[str, Any]]) -> dict[str, Any]:
            if name.casefold() in {n.casefold() for n in replay.state.units}:
                raise BattleError("there is already a unit called {name!r}", name=name)
            return {"kind": "unit_added", "unit": name, "side": side, "stats": parsed}

        return self._write(battle_id, expect, build, by)

    def edit_unit(self, battle_id: str, unit: str, stats: Mapping[str, Any], *,
                  expect: int | None = None, by: str | None = None) -> dict[str, Any]:
        """Change a unit's stats (``key=value``; an empty value removes the stat)."""
        if not stats:
            raise BattleError("give the stats to change as key=value (key= removes one)")
        changes: dict[str, Any] = {}
        for key, value in stats.items():
            k = str(key).strip()
            if not k.isidentifier():
                raise BattleError("stat name {key!r} must be a word like teams or skill",
                                  key=key)
            text = str(value)
            changes[k] = None if text.strip() == "" else (
                value if isinstance(value, int) else parse_stat(text))

        def build(replay: Replay, _events: list[dict[str, Any]]) -> dict[str, Any]:
            u = replay.state.unit(unit)
            if by is not None and by != u.side:
                raise AccessError("your link acts for side {by}; {unit} is side {side}'s",
                                  by=by, unit=u.name, side=u.side)
            return {"kind": "unit_edited", "unit": u.name, "stats": changes,
                    "before": {k: u.stats.get(k) for k in changes}}

        return self._write(battle_id, expect, build, by)

    def mark(self, battle_id: str, unit: str, marker: str, value: str | None = None, *,
             expect: int | None = None, by: str | None = None) -> dict[str, Any]:
        """Set, change or clear a marker by hand (``pinned``, ``pinned=no``, ``hits=+1``)."""
        marker = marker.strip().lower().replace("-", "_")

        def build(replay: Replay, _events: list[dict[str, Any]]) -> dict[str, Any]:
            st = replay.state
            u = st.unit(unit)
            marker_kind(st.game, marker)
            new = marker_value(st.game, marker, value, u.markers.get(marker))
            return {"kind": "marked", "unit": u.name, "marker": marker, "value": new,
                    "before": u.markers.get(marker)}

        return self._write(battle_id, expect, build, by)

    def advance(self, battle_id: str, *, expect: int | None = None, by: str | None = None
             ) -> dict[str, Any]:
        def build(replay: Replay, _events: list[dict[str, Any]]) -> dict[str, Any]:
            turn, side, phase = next_position(replay.state)
            return {"kind": "phase", "turn": turn, "side": side, "phase": phase}

        event = self._write(battle_id, expect, build, by)
        info = phases.phase(self.state(battle_id).game, event["phase"])
        return {**event, "title": info.title, "checklist": list(info.checklist)}

    def undo(self, battle_id: str, *, expect: int | None = None, by: str | None = None
             ) -> dict[str, Any]:
        """Take back the latest live event. The roll index goes back with it, so making
        the same roll again gives the same dice: undo cannot re-roll."""

        def build(replay: Replay, events: list[dict[str, Any]]) -> dict[str, Any]:
            target = replay.last_live()
            done = next(e for e in events if e["seq"] == target)
            if by is not None and done.get("by") not in (None, by):
                raise AccessError("event {event} was made by side {side}; only that side "
                                  "can undo it", event=target, side=done["by"])
            return {"kind": "undone", "target": target, "what": done["kind"]}

        return self._write(battle_id, expect, build, by)

    # ------------------------------------------------------------------ resolutions
    def _procedure(self, game: str, proc_id: str) -> Procedure:
        proc_game = proc_id.partition(".")[0]
        if proc_game and proc_game != game:
            raise BattleError("{procedure} is a procedure of {other!r}; this battle plays "
                              "{game!r}. Use one of: {valid}", procedure=proc_id,
                              other=proc_game, game=game,
                              valid=", ".join(self._game_procedures(game)))
        return self.registry.procedure(proc_id)

    def _game_procedures(self, game: str) -> list[str]:
        try:
            return [p.id for p in self.registry.system(game).procedures]
        except UsageError:
            return []

    def do(self, battle_id: str, proc_id: str, raw: Mapping[str, Any] | None = None,
           dice: Sequence[object] | None = None, *, expect: int | None = None,
           by: str | None = None) -> dict[str, Any]:
        """Resolve a procedure in the battle and apply its outcome to the named unit."""
        raw = dict(raw or {})
        keys = {k: raw.pop(k) for k in fx.BATTLE_KEYS if k in raw}
        if dice is not None and len(dice) == 0:
            raise BattleError("--dice needs at least one die, e.g. --dice 3,5,6")

        def build(replay: Replay, _events: list[dict[str, Any]]) -> dict[str, Any]:
            st = replay.state
            proc = self._procedure(st.game, proc_id)
            return self._resolve(st, proc, raw, keys, dice, by)

        return self._write(battle_id, expect, build, by)

    def _resolve(self, st: State, proc: Procedure, raw: Mapping[str, Any],
                 keys: Mapping[str, Any], dice: Sequence[object] | None,
                 by: str | None) -> dict[str, Any]:
        from warroom.engine.params import describe, validate

        actor = st.unit(str(keys["unit"])) if keys.get("unit") else None
        target = st.unit(str(keys["target"])) if keys.get("target") else None
        subject = target or actor
        clear = str(keys["clear"]).strip().lower() if keys.get("clear") else None
        if clear is not None:
            if "passed" not in proc.fields:
                raise BattleError("clear= needs a test with a 'passed' outcome; "
                                  "{procedure} has none", procedure=proc.id)
            if subject is None:
                raise BattleError("clear= needs unit=NAME (whose marker to clear)")
            marker_kind(st.game, clear)
        if keys.get("side"):
            side = self._side(str(keys["side"]))
        elif actor is not None:
            side = actor.side
        elif target is not None:
            side = target.side
        else:
            side = st.side
        if by is not None:
            if keys.get("side") and side != by:
                raise AccessError("your link acts for side {by}, not {side}", by=by,
                                  side=side)
            side = by
        names = [s.name for s in describe(proc.params)]
        given, filled = fx.fill_params(raw, names, actor, target, proc.id)
        params = validate(proc, given)
        return self._run(st, proc, params, dice, {
            "unit": actor.name if actor else None,
            "target": target.name if target else None,
            "side": side, "clear": clear, "filled": filled, "given": dict(raw),
        }, subject)

    def _run(self, st: State, proc: Procedure, params: Any, dice: Sequence[object] | None,
             extra: dict[str, Any], subject: Any) -> dict[str, Any]:
        from warroom.engine import drivers
        from warroom.engine.params import normalized

        if dice is None:
            index: int | None = st.rolls
            res = drivers.roll(proc, params, rng=roll_rng(st.seed, st.rolls))
        else:
            index = None
            res = drivers.roll(proc, params, dice=dice)
        outcome = dict(res.outcome)
        return {
            "kind": "resolved", "procedure": proc.id, "params": normalized(params),
            **extra,
            "dice": list(res.dice), "entered": dice is not None, "roll_index": index,
            "outcome": outcome,
            "steps": [s.to_dict() for s in res.steps],
            "expected": self._expected(proc, params),
            "effects": fx.outcome_effects(st, proc.id, outcome, subject, extra["clear"],
                                          target_named=extra["target"] is not None),
        }

    @staticmethod
    def _expected(proc: Procedure, params: Any) -> dict[str, str]:
        """Exact expectation of each numeric field (a bool: its chance of being true)."""
        from warroom.engine import drivers

        dist = drivers.exact(proc, params)
        kinds = {f.name: f.kind for f in proc.outcome}
        out: dict[str, str] = {}
        for name in proc.fields:
            if kinds[name] not in ("int", "bool"):
                continue
            marg = dist.marginal(name)
            mean = sum((Fraction(int(v)) * p for v, p in marg.items()), Fraction(0))
            out[name] = _frac(mean)
        return out

    # ------------------------------------------------------------------ luck
    def luck(self, battle_id: str) -> dict[str, Any]:
        """Per side: expected against actual for each numeric outcome field."""
        _row, events, replay = self._load(battle_id)
        live = set(replay.live)
        sides: dict[str, dict[str, Any]] = {
            s: {"rolls": 0, "fields": {}} for s in SIDES}
        for e in events:
            if e["kind"] != "resolved" or e["seq"] not in live:
                continue
            side = sides[e["side"]]
            side["rolls"] += 1
            for name, exp in e["expected"].items():
                f = side["fields"].setdefault(
                    name, {"expected": Fraction(0), "actual": 0, "rolls": 0})
                f["expected"] += Fraction(exp)
                f["actual"] += int(e["outcome"][name])
                f["rolls"] += 1
        for side in sides.values():
            for f in side["fields"].values():
                exp = f["expected"]
                f["expected_exact"] = _frac(exp)
                f["expected"] = round(float(exp), 3)
                f["difference"] = round(f["actual"] - float(exp), 3)
        return {"id": battle_id, "sides": sides}

    # ------------------------------------------------------------------ verify
    def verify(self, battle_id: str) -> Report:
        row, events, _replay = self._load(battle_id)
        report = self.check_events(battle_id, events)
        try:
            final = fold(battle_id, events).state
        except UsageError as exc:
            report.problems.append(str(exc))
            return report
        if json.loads(row["state"]) != final.to_json():
            report.problems.append("the stored state differs from the replayed state")
        if events and int(row["counter"]) != int(events[-1]["seq"]):
            report.problems.append(f"the stored counter {row['counter']} is not the last "
                                   f"event {events[-1]['seq']}")
        return report

    def check_events(self, battle_id: str, events: Sequence[Mapping[str, Any]]) -> Report:
        """Replay every event from scratch, re-running each roll."""
        report = Report(battle_id, len(events))
        problems = report.problems
        if not events or events[0].get("kind") != "created":
            problems.append("the log does not start with a 'created' event")
            return report
        states: list[State] = []
        for i, ev in enumerate(events, start=1):
            where = f"event {i}"
            try:
                if int(ev["seq"]) != i:
                    problems.append(f"{where}: numbered {ev['seq']}")
                    return report
                kind = ev["kind"]
                if kind == "created":
                    if i != 1:
                        raise BattleError("a second 'created' event")
                    states.append(initial(battle_id, str(ev["game"]), str(ev["name"]),
                                          int(ev["seed"])))
                elif kind == "undone":
                    if len(states) < 2:
                        raise BattleError("undoes the creation")
                    states.pop()
                else:
                    before = states[-1]
                    if kind == "resolved":
                        problems.extend(f"{where}: {p}" for p in self._recheck(before, ev))
                    elif kind == "phase":
                        if (ev["turn"], ev["side"], ev["phase"]) != next_position(before):
                            problems.append(f"{where}: the phase does not follow")
                    elif kind == "unit_edited":
                        unit = before.unit(str(ev["unit"]))
                        if ev.get("before") != {k: unit.stats.get(k) for k in ev["stats"]}:
                            problems.append(f"{where}: the stats were not as recorded")
                    elif kind == "marked":
                        unit = before.unit(str(ev["unit"]))
                        marker_kind(before.game, str(ev["marker"]))
                        if ev.get("before") != unit.markers.get(str(ev["marker"])):
                            problems.append(f"{where}: the marker was not as recorded")
                    states.append(apply(before, ev))
                if states[-1].digest() != ev.get("after"):
                    problems.append(f"{where} ({kind}): the state after it differs")
            except (UsageError, KeyError, TypeError, ValueError) as exc:
                problems.append(f"{where}: does not replay: {exc}")
                return report
        return report

    def _recheck(self, before: State, ev: Mapping[str, Any]) -> list[str]:
        from warroom.engine.params import validate

        proc = self._procedure(before.game, str(ev["procedure"]))
        params = validate(proc, ev["params"])
        if ev.get("entered"):
            dice: Sequence[object] | None = list(ev["dice"])
        else:
            dice = None
            if ev.get("roll_index") != before.rolls:
                return [f"roll index {ev.get('roll_index')} but the battle was at "
                        f"{before.rolls}"]
        actor = before.unit(str(ev["unit"])) if ev.get("unit") else None
        target = before.unit(str(ev["target"])) if ev.get("target") else None
        again = _jsonable(self._run(before, proc, params, dice, {
            "unit": ev.get("unit"), "target": ev.get("target"), "side": ev.get("side"),
            "clear": ev.get("clear"), "filled": ev.get("filled"), "given": ev.get("given"),
        }, target or actor))
        out = []
        for key in ("params", "dice", "outcome", "steps", "expected", "effects"):
            if again[key] != ev.get(key):
                out.append(f"{ev['procedure']}: {key} do not reproduce")
        return out

    # ------------------------------------------------------------------ export/import
    def export(self, battle_id: str) -> dict[str, Any]:
        row, events, _ = self._load(battle_id)
        return {"format": EXPORT_FORMAT, "version": EXPORT_VERSION,
                "battle": {"id": row["id"], "game": row["game"], "name": row["name"],
                           "seed": row["seed"], "created": row["created_at"]},
                "events": events}

    def import_(self, data: Any) -> dict[str, Any]:
        """Add an exported battle; it must replay exactly. Keeps its id when free."""
        if not isinstance(data, dict) or data.get("format") != EXPORT_FORMAT:
            raise ImportFormatError("not a warroom battle export (no \"format\": {fmt!r})",
                                    fmt=EXPORT_FORMAT)
        if data.get("version") != EXPORT_VERSION:
            raise ImportFormatError("unsupported export version {version!r}",
                                    version=data.get("version"))
        meta, events = data.get("battle"), data.get("events")
        if not isinstance(meta, dict) or not isinstance(events, list) or not events or not all(
                isinstance(e, dict) for e in events):
            raise ImportFormatError("the export needs a 'battle' object and a list of events")
        first = events[0]
        try:
            battle_id = str(meta["id"])
            created = str(meta["created"])
            same = (first.get("kind") == "created" and first.get("game") == meta["game"]
                    and first.get("name") == meta["name"] and first.get("seed") == meta["seed"])
        except KeyError as exc:
            raise ImportFormatError("the export's battle lacks {field}",
                                    field=str(exc)) from None
        if not same:
            raise ImportFormatError("the first event does not create the exported battle")
        if not (battle_id.isalnum() and len(battle_id) <= 32):
            raise ImportFormatError("bad battle id {id!r}", id=battle_id)
        clean = [{k: v for k, v in e.items() if k != "undone"} for e in events]
        report = self.check_events(battle_id, clean)
        if not report.ok:
            raise ImportFormatError("the battle does not replay: {problems}",
                                    problems="; ".join(report.problems[:3]))
        with self.store.write() as conn:
            if self._exists(conn, battle_id):
                battle_id = secrets.token_hex(4)
            final = fold(battle_id, clean).state
            start = initial(battle_id, str(meta["game"]), str(meta["name"]), int(meta["seed"]))
            tokens = {s: secrets.token_urlsafe(18) for s in ("a", "b", "view")}
            self.store.insert_battle(conn, self._row(battle_id, start, created, 0, tokens))
            counter = 0
            for e in clean:
                self.store.append(conn, battle_id, e, counter, json.dumps(final.to_json()))
                counter = int(e["seq"])
        return {"id": battle_id, "tokens": tokens}

    def _exists(self, conn: Any, battle_id: str) -> bool:
        try:
            self.store.battle_row(conn, battle_id)
        except UnknownNameError:
            return False
        return True

    # ------------------------------------------------------------------ access
    def access(self, battle_id: str, token: str) -> tuple[str, str | None]:
        """Which link ``token`` is for this battle: ("A"|"B", side) or ("view", None).
        Tokens are compared in constant time; an unknown one is refused."""
        import hmac

        row = self.row(battle_id)
        found: tuple[str, str | None] | None = None
        for role, side, col in (("A", "A", "token_a"), ("B", "B", "token_b"),
                                ("view", None, "token_view")):
            if hmac.compare_digest(str(row[col]).encode(), token.encode()):
                found = (role, side)
        if found is None:
            raise AccessError("this link does not open that battle")
        return found
