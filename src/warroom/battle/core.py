"""The battle tracker's one core object. The CLI and the web API are thin layers over it.

Every change is an event appended to the battle's log; the state is the fold of the log
(:mod:`warroom.battle.state`), and a snapshot of it (with the stack of live events) is
stored with each event in the same transaction, so reads and writes never replay the
log (``verify`` does). Each event carries ``seq``, the state counter it created: a
write may name the counter it was based on (``expect``) and is refused when someone else
wrote first. A write computes its event first (dice, resolution, expectation) on the
snapshot it read, then records it in one short transaction that moves the counter only
if nobody moved it in between (else it is computed again on the new state).

Dice: each battle has a secret seed; its sha256 (the commitment) is published in the
``created`` event, and the seed itself only when the battle ends. A virtual roll draws
from HMAC(seed, the state before the roll and the action): the same action in the same
place gives the same dice (undo and redo cannot re-roll), anything else fresh dice, and
nobody without the seed can foresee any of them. Dice typed in by players are recorded
with ``entered: true``.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import hmac
import json
import random
import secrets
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError

from warroom.battle import effects as fx
from warroom.battle import events as evs
from warroom.battle import phases
from warroom.battle.errors import (
    AccessError,
    BattleError,
    ClosedError,
    ConflictError,
    ImportFormatError,
    NoSuchBattleError,
    NothingToUndoError,
    StaleStateError,
)
from warroom.battle.state import (
    MAX_NAME,
    SIDES,
    Replay,
    State,
    apply,
    first_problem,
    fold,
    marker_kind,
    marker_value,
    next_position,
    parse_stat,
    phase_clears,
)
from warroom.battle.store import set_undo_request
from warroom.errors import UnknownNameError, UsageError, check_text

if TYPE_CHECKING:
    from warroom.battle.store import Store
    from warroom.engine.procedure import Procedure
    from warroom.engine.registry import Registry
    from warroom.engine.results import Distribution, Estimate

EXPORT_FORMAT = "warroom-battle"
EXPORT_VERSION = 2
WRITE_ATTEMPTS = 40
"""How often a write that found the battle moved on is computed again before giving up."""
"""2: dice committed (no seed until the end), events typed, the export signed."""

__all__ = ["MAX_NAME", "Battles", "Report", "commitment_of", "roll_rng"]


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="milliseconds")


def _default_registry() -> Registry:
    from warroom import api

    return api.registry()


def commitment_of(secret: str) -> str:
    """What a battle publishes about its secret dice seed at creation."""
    return hashlib.sha256(f"warroom-battle-seed:{secret}".encode()).hexdigest()


def roll_rng(secret: str, place: str) -> random.Random:
    """The generator of a virtual roll: HMAC of the battle's secret seed and the roll's
    place (the state before it and the action, :func:`roll_place`)."""
    digest = hmac.new(secret.encode(), place.encode(), hashlib.sha256).digest()
    return random.Random(int.from_bytes(digest, "big"))


def legacy_rng(seed: int, index: int) -> random.Random:
    """The generator of the ``index``-th roll of a battle made before dice were committed
    (its seed was public); kept so those battles still verify."""
    digest = hashlib.sha256(f"warroom-battle:{seed}:{index}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def roll_place(state: State, action: Mapping[str, Any]) -> str:
    """Where a roll is made: the digest of the state before it and the action itself."""
    return state.digest() + "|" + json.dumps(action, sort_keys=True, separators=(",", ":"))


def _frac(x: Fraction) -> str:
    return f"{x.numerator}/{x.denominator}"


def _jsonable(data: Any) -> Any:
    return json.loads(json.dumps(data, sort_keys=True))


def _sign(key: str, meta: Mapping[str, Any], events: Sequence[Mapping[str, Any]]) -> str:
    body = json.dumps({"battle": meta, "events": events}, sort_keys=True,
                      separators=(",", ":"), ensure_ascii=True)
    return hmac.new(key.encode(), body.encode(), hashlib.sha256).hexdigest()


@dataclass
class Report:
    """The result of ``verify``: ok only when every event reproduces. ``authentic``:
    every event was made on this server (or imported with this server's signature)."""

    battle: str
    events: int
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    authentic: bool = True

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def verdict(self) -> str:
        if not self.ok:
            return "does not reproduce"
        return "authentic" if self.authentic else "consistent but not signed by this server"

    def to_json(self) -> dict[str, Any]:
        return {"id": self.battle, "ok": self.ok, "authentic": self.authentic,
                "verdict": self.verdict, "events": self.events,
                "problems": list(self.problems), "notes": list(self.notes)}


class ExportMeta(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: Annotated[StrictStr, Field(pattern=r"^[0-9A-Za-z]{1,32}$")]
    game: Annotated[StrictStr, Field(min_length=1, max_length=32)]
    name: Annotated[StrictStr, Field(min_length=1, max_length=200)]
    created: Annotated[StrictStr, Field(min_length=1, max_length=40)]
    seed: Annotated[StrictInt, Field(ge=0, lt=2**62)] | None = None
    commitment: Annotated[StrictStr, Field(pattern=r"^[0-9a-f]{64}$")] | None = None


class ExportFile(BaseModel):
    """The export format: the pydantic model every import goes through."""

    model_config = ConfigDict(extra="forbid")

    format: Literal["warroom-battle"]
    version: Literal[1, 2]
    battle: ExportMeta
    events: Annotated[list[evs.AnyEvent], Field(min_length=1, max_length=100_000)]
    signature: Annotated[StrictStr, Field(pattern=r"^[0-9a-f]{64}$")] | None = None


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


class Battles:
    """Create, change and read battles in a :class:`~warroom.battle.store.Store`."""

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

    def new(self, game: str, name: str | None = None, seed: int | None = None, *,
            solo: bool = False) -> dict[str, Any]:
        """A new battle; returns its id and its three links' tokens.

        Its dice seed is a fresh secret (``seed`` picks one instead, for tests and
        replays: a seed someone chose is no secret). ``solo``: a single-player battle,
        where any link undoes freely (every view says so); otherwise undoing a virtual
        roll needs the other side's consent."""
        game = game.strip().lower()
        if game not in self.games():
            raise UnknownNameError("game system", game, self.games())
        if seed is not None and not 0 <= seed < 2**62:
            raise BattleError("--seed must be a whole number from 0 to 2^62")
        secret = secrets.token_hex(32) if seed is None else str(seed)
        name = (name or "").strip() or f"{game} battle {self.clock()[:10]}"
        if len(name) > 200:
            raise BattleError("a battle name has at most 200 characters")
        battle_id = secrets.token_hex(4)
        tokens = {s: secrets.token_urlsafe(18) for s in ("a", "b", "view")}
        at = self.clock()
        first: dict[str, Any] = {"seq": 1, "kind": "created", "at": at, "by": None,
                                 "game": game, "name": name,
                                 "commitment": commitment_of(secret), "after": "0" * 16}
        if solo:
            first["solo"] = True
        state = apply(State(battle_id, game, name, None), first)
        first["after"] = state.digest()
        with self.store.write() as conn:
            self.store.insert_battle(conn, self._row(
                battle_id, state, at, tokens, secret=secret, sign_key=secrets.token_hex(32),
                origin="here", solo=solo))
            self.store.append(conn, battle_id, first, 0, state.snapshot(), "[]")
        return {"id": battle_id, "tokens": tokens}

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
    def list_battles(self, only: Iterable[str] | None = None) -> list[dict[str, Any]]:
        """Every battle (the CLI), or only the ids in ``only`` (a browser's own)."""
        wanted = None if only is None else set(only)
        with self.store.read() as conn:
            rows = self.store.list_rows(conn)
        out = []
        for r in rows:
            if wanted is not None and r["id"] not in wanted:
                continue
            st = json.loads(r["state"])
            out.append({"id": r["id"], "game": r["game"], "name": r["name"],
                        "counter": r["counter"], "turn": st["turn"], "side": st["side"],
                        "phase": st["phase"], "units": len(st["units"]),
                        "created": r["created_at"], "updated": r["updated_at"]})
        return out

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

    def show(self, battle_id: str) -> dict[str, Any]:
        return self._show(self._snapshot(battle_id))

    @staticmethod
    def _show(snap: Snapshot) -> dict[str, Any]:
        st = snap.state
        info = st.phase_info()
        out = st.to_json()
        out["counter"] = snap.counter
        out["phase_title"] = info.title
        out["checklist"] = list(info.checklist)
        out["phases"] = [p.id for p in phases.sequence(st.game)]
        out["can_undo"] = bool(snap.live) and not st.ended
        out["read_only"] = snap.row.get("origin") == READ_ONLY
        out["solo"] = bool(snap.row.get("solo"))
        asked = snap.row.get("undo_asked")
        out["undo_asked"] = json.loads(asked) if asked else None
        return out

    def state(self, battle_id: str) -> State:
        return self._snapshot(battle_id).state

    def log(self, battle_id: str, *, limit: int | None = None,
            before: int | None = None) -> list[dict[str, Any]]:
        """Every event, oldest first, undone ones included (marked ``undone``): a roll
        taken back stays in sight of both sides. With ``limit`` and/or ``before``, only
        the latest ``limit`` events numbered below ``before``: a page of the log, read
        without replaying it."""
        if limit is not None or before is not None:
            events: list[dict[str, Any]] = self.page(battle_id, limit=limit,
                                                     before=before)["events"]
            return events
        _row, every, replay = self._load(battle_id)
        _mark_undone(every, replay.live)
        return every

    def page(self, battle_id: str, *, limit: int | None = 30, before: int | None = None
             ) -> dict[str, Any]:
        """What a battle page shows, from one read of the snapshot and never the whole
        log: the battle now (:meth:`show`), the luck totals (:meth:`luck`) and a page of
        the log (the latest ``limit`` events below ``before``, oldest first), with
        ``older``: the number to ask ``before`` for the events before them (None at the
        start of the log)."""
        if limit is not None and limit < 1:
            raise BattleError("limit must be 1 or more, not {limit}", limit=limit)
        with self.store.read() as conn:
            snap = self._snapshot_in(conn, battle_id)
            events = self.store.events_page(conn, battle_id, before=before, limit=limit)
        _mark_undone(events, snap.live)
        older = events[0]["seq"] if events and events[0]["seq"] > 1 else None
        return {"show": self._show(snap), "luck": _luck_table(battle_id, snap.state),
                "events": events, "older": older}

    # ------------------------------------------------------------------ writing
    def _before_last(self, battle_id: str, snap: Snapshot) -> State:
        """The state before the latest live event (what an undo goes back to)."""
        if snap.replay is not None:
            return snap.replay.states[-2]
        prev = snap.live[-2] if len(snap.live) >= 2 else 1
        with self.store.read() as conn:
            _body, stored = self.store.event_at(conn, battle_id, prev)
            state = None if stored is None else State.from_json(json.loads(stored))
            if state is None or state.luck is None:  # stored before snapshots (or luck)
                return fold(battle_id, self.store.load_events(conn, battle_id)).states[-2]
        return state

    def _event(self, battle_id: str, seq: int) -> dict[str, Any]:
        with self.store.read() as conn:
            return self.store.event_at(conn, battle_id, seq)[0]

    def _write(self, battle_id: str, expect: int | None,
               build: Callable[[Snapshot], dict[str, Any]],
               by: str | None = None) -> dict[str, Any]:
        """Compute an event on the battle as it is now, then record it in one short
        transaction that moves the counter only if nobody moved it meanwhile.

        Nothing is computed while the write lock is held. With ``expect`` any change since
        ``expect`` is refused; without it, a write that finds the battle moved on is
        computed again on the new state (backing off a little more each time, up to
        :data:`WRITE_ATTEMPTS` times).
        """
        for attempt in range(WRITE_ATTEMPTS):
            if attempt:
                time.sleep(0.002 * attempt)  # racing writers drift apart
            snap = self._snapshot(battle_id)
            counter = snap.counter
            _writable(snap)
            if expect is not None and expect != counter:
                raise StaleStateError(expect, counter)
            built = build(snap)
            kind = built["kind"]
            event: dict[str, Any] = {
                "seq": counter + 1, "kind": kind, "at": self.clock(), "by": by,
                **{k: v for k, v in built.items() if k != "kind"}, "after": "0" * 16}
            event = dict(_jsonable(event))
            if kind == "undone":
                new_state, live = self._before_last(battle_id, snap), snap.live[:-1]
            else:
                new_state, live = apply(snap.state, event), [*snap.live, counter + 1]
            event["after"] = new_state.digest()
            try:
                evs.parse(event)
            except ValidationError as exc:
                raise BattleError("this would record a bad event: {problem}",
                                  problem=first_problem(exc)) from None
            try:
                with self.store.write() as conn:
                    self.store.append(conn, battle_id, event, counter,
                                      new_state.snapshot(), json.dumps(live))
            except StaleStateError:
                if expect is not None:
                    raise
                continue
            except ConflictError:  # a duplicate seq from a racing writer
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

    @staticmethod
    def _own(by: str | None, unit: Any) -> None:
        if by is not None and by != unit.side:
            raise AccessError("your link acts for side {by}; {unit} is side {side}'s",
                              code="not_your_unit", by=by, unit=unit.name, side=unit.side)

    def add_unit(self, battle_id: str, side: str, name: str | None,
                 stats: Mapping[str, Any] | None = None, *, profile: Any = None,
                 expect: int | None = None, by: str | None = None) -> dict[str, Any]:
        """Add a unit with its stats, and optionally its typed profile: a profile object,
        its JSON form, or a reference ``FILE:UNIT`` (also given as the stat ``from``).
        On the web (``by`` set) a reference names an example force (``example:GAME:UNIT``):
        the server reads no files. The name defaults to the profile's."""
        side = self._side(side)
        stats = dict(stats or {})
        if "from" in stats:
            if profile is not None:
                raise BattleError("give the unit's profile once (from= or --from)")
            profile = str(stats.pop("from"))
        if isinstance(profile, str):
            profile = profile.strip()
            if by is not None and not profile.startswith("example:"):
                raise BattleError("on the web a unit's profile comes from an example force "
                                  "(example:GAME:UNIT) or is given as JSON: the server "
                                  "reads no files")
        name = (name or "").strip()
        if not name and profile is not None:
            name = self._profile_name(profile).strip()
        if not name or len(name) > MAX_NAME or "=" in name:
            raise BattleError("a unit name is 1 to {most} characters without '='",
                              most=MAX_NAME)
        if by is not None and by != side:
            raise AccessError("your link acts for side {by}; it cannot add units to {side}",
                              code="not_your_side", by=by, side=side)
        parsed: dict[str, Any] = {}
        for key, value in stats.items():
            k = str(key).strip()
            if not k.isidentifier():
                raise BattleError("stat name {key!r} must be a word like teams or skill",
                                  key=key)
            parsed[k] = parse_stat(str(value)) if not isinstance(value, int) else value

        def build(snap: Snapshot) -> dict[str, Any]:
            if name.casefold() in {n.casefold() for n in snap.state.units}:
                raise BattleError("there is already a unit called {name!r}", name=name)
            event = {"kind": "unit_added", "unit": name, "side": side, "stats": parsed}
            if profile is not None:
                event["profile"] = _profile_json(snap.state.game, profile)
            return event

        return self._write(battle_id, expect, build, by)

    @staticmethod
    def _profile_name(profile: Any) -> str:
        if isinstance(profile, str):
            from warroom.units.forces import load_unit

            return str(load_unit(profile)[1].name)
        if isinstance(profile, dict):
            return str(profile.get("name", ""))
        return str(getattr(profile, "name", ""))

    def add_force(self, battle_id: str, side: str, source: str, *,
                  expect: int | None = None, by: str | None = None) -> list[dict[str, Any]]:
        """Add every unit of a force file (``example:GAME`` for a shipped one) to a side,
        one ``unit_added`` event each, each with its profile."""
        from warroom.units.forces import load_force

        if by is not None and not source.strip().startswith("example:"):
            raise BattleError("on the web a unit's profile comes from an example force "
                              "(example:GAME:UNIT) or is given as JSON: the server "
                              "reads no files")
        force = load_force(source.strip())
        game = self.state(battle_id).game
        _check_game(force.game, game)
        out = []
        for i, unit in enumerate(force.units):
            out.append(self.add_unit(battle_id, side, unit.name, profile=unit,
                                     expect=expect if i == 0 else None, by=by))
        return out

    def edit_unit(self, battle_id: str, unit: str, stats: Mapping[str, Any], *,
                  expect: int | None = None, by: str | None = None,
                  profile: Any = None) -> dict[str, Any]:
        """Change a unit's stats (``key=value``; an empty value removes the stat) and/or
        its whole typed ``profile`` (object or JSON form), in one event."""
        if not stats and profile is None:
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

        def build(snap: Snapshot) -> dict[str, Any]:
            u = snap.state.unit(unit)
            self._own(by, u)
            event = {"kind": "unit_edited", "unit": u.name, "stats": changes,
                     "before": {k: u.stats.get(k) for k in changes}}
            if profile is not None:
                event["profile"] = _profile_json(snap.state.game, profile)
            return event

        return self._write(battle_id, expect, build, by)

    def mark(self, battle_id: str, unit: str, marker: str, value: str | None = None, *,
             expect: int | None = None, by: str | None = None) -> dict[str, Any]:
        """Set, change or clear a marker by hand (``pinned``, ``pinned=no``, ``hits=+1``).
        A side marks only its own units (what its shots do to the enemy is recorded by
        resolving them)."""
        marker = marker.strip().lower().replace("-", "_")

        def build(snap: Snapshot) -> dict[str, Any]:
            st = snap.state
            u = st.unit(unit)
            if by is not None and by != u.side:
                raise AccessError("your link acts for side {by}; only side {side} marks "
                                  "{unit} by hand (record your shot with Resolve)",
                                  code="not_your_unit", by=by, side=u.side, unit=u.name)
            marker_kind(st.game, marker)
            new = marker_value(st.game, marker, value, u.markers.get(marker))
            return {"kind": "marked", "unit": u.name, "marker": marker, "value": new,
                    "before": u.markers.get(marker)}

        return self._write(battle_id, expect, build, by)

    def advance(self, battle_id: str, *, expect: int | None = None, by: str | None = None
             ) -> dict[str, Any]:
        """The next phase; a side moves on only the phases of its own turn."""
        def build(snap: Snapshot) -> dict[str, Any]:
            if by is not None and by != snap.state.side:
                raise AccessError("it is side {side}'s turn: only side {side} moves its "
                                  "phases on", code="not_your_turn", side=snap.state.side)
            turn, side, phase = next_position(snap.state)
            event: dict[str, Any] = {"kind": "phase", "turn": turn, "side": side,
                                     "phase": phase}
            clears = phase_clears(snap.state)
            if clears:
                event["clears"] = clears
            return event

        event = self._write(battle_id, expect, build, by)
        info = phases.phase(self.state(battle_id).game, event["phase"])
        return {**event, "title": info.title, "checklist": list(info.checklist)}

    def undo(self, battle_id: str, *, expect: int | None = None, by: str | None = None
             ) -> dict[str, Any]:
        """Take back the latest live event; the undone event stays in the log. A side
        undoes only its own latest event. Its own entered dice or any other event go at
        once; a virtual roll only when the other side accepts (:meth:`answer_undo`):
        this records the request and answers ``{"kind": "undo_asked", ...}``, recording
        no event. The command line (``by`` None, acting for both) and a single-player
        battle undo at once."""
        snap = self._snapshot(battle_id)
        _writable(snap)
        if expect is not None and expect != snap.counter:
            raise StaleStateError(expect, snap.counter)
        if by is not None and not snap.row.get("solo") and snap.live:
            done = self._event(battle_id, snap.live[-1])
            if done["kind"] == "resolved" and not done.get("entered"):
                self._undoable(snap.live[-1], done, by)
                request = {"side": by, "target": snap.live[-1], "counter": snap.counter}
                with self.store.write() as conn:
                    set_undo_request(conn, battle_id, snap.counter, json.dumps(request))
                return {"kind": "undo_asked", "seq": snap.counter, "by": by,
                        "target": snap.live[-1]}

        def build(snap: Snapshot) -> dict[str, Any]:
            if not snap.live:
                raise NothingToUndoError()
            target = snap.live[-1]
            done = self._event(battle_id, target)
            self._undoable(target, done, by)
            if (by is not None and not snap.row.get("solo") and done["kind"] == "resolved"
                    and not done.get("entered")):  # it became a virtual roll meanwhile
                raise StaleStateError(snap.counter, snap.counter + 1)
            return {"kind": "undone", "target": target, "what": done["kind"]}

        return self._write(battle_id, expect, build, by)

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

    def answer_undo(self, battle_id: str, accept: bool, *, by: str,
                    expect: int | None = None) -> dict[str, Any]:
        """The other side's answer to a request to undo a virtual roll: ``accept``
        records the ``undone`` event (with ``agreed``), else the request goes. A request
        holds only while the battle stays where it was asked (any new event voids it)."""
        snap = self._snapshot(battle_id)
        _writable(snap)
        asked = json.loads(snap.row["undo_asked"]) if snap.row.get("undo_asked") else None
        if asked is None or asked["counter"] != snap.counter or not snap.live \
                or snap.live[-1] != asked["target"]:
            raise BattleError("there is no request to undo a roll to answer", )
        if asked["side"] == by:
            raise AccessError("side {side} answers your request to undo event {event}",
                              code="not_your_event", side="B" if by == "A" else "A",
                              event=asked["target"])
        if not accept:
            with self.store.write() as conn:
                set_undo_request(conn, battle_id, snap.counter, None)
            return {"kind": "undo_declined", "seq": snap.counter, "by": by,
                    "target": asked["target"]}

        def build(now: Snapshot) -> dict[str, Any]:
            if now.counter != asked["counter"]:
                raise StaleStateError(asked["counter"], now.counter)
            done = self._event(battle_id, asked["target"])
            return {"kind": "undone", "target": asked["target"], "what": done["kind"],
                    "agreed": by}

        return self._write(battle_id, expect if expect is not None else snap.counter,
                           build, asked["side"])

    def end(self, battle_id: str, *, expect: int | None = None, by: str | None = None
            ) -> dict[str, Any]:
        """Ask to end the battle; when both sides have asked (or on the command line, which
        acts for both), the battle ends and its dice seed is revealed, so anyone can check
        every virtual die against the commitment published at its creation."""
        with self.store.read() as conn:
            secret = self.store.battle_row(conn, battle_id).get("secret")

        def build(snap: Snapshot) -> dict[str, Any]:
            st = snap.state
            if st.ended:
                raise BattleError("the battle has already ended")
            other = "B" if by == "A" else "A"
            if by is not None and other not in st.end_asked:
                if by in st.end_asked:
                    raise BattleError("you have asked to end the battle; side {other} has "
                                      "not agreed yet", other=other)
                return {"kind": "end_asked", "side": by}
            seed = st.seed if st.commitment is None else secret
            if not seed or (st.commitment is not None and commitment_of(seed) != st.commitment):
                raise BattleError("this imported battle's dice seed stayed on the server "
                                  "that made it: it cannot be revealed here")
            return {"kind": "ended", "seed": seed}

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
        secret: str | None = None
        if dice is None:
            with self.store.read() as conn:
                secret = self.store.battle_row(conn, battle_id).get("secret")

        def build(snap: Snapshot) -> dict[str, Any]:
            st = snap.state
            proc = self._procedure(st.game, proc_id)
            return self._resolve(st, proc, raw, keys, dice, by, secret)

        return self._write(battle_id, expect, build, by)

    def _resolve(self, st: State, proc: Procedure, raw: Mapping[str, Any],
                 keys: Mapping[str, Any], dice: Sequence[object] | None,
                 by: str | None, secret: str | None) -> dict[str, Any]:
        params, extra, subject = self._prepare(st, proc, raw, keys, by)
        return self._run(st, proc, params, dice, extra, subject, secret)

    def _prepare(self, st: State, proc: Procedure, raw: Mapping[str, Any],
                 keys: Mapping[str, Any], by: str | None) -> tuple[Any, dict[str, Any], Any]:
        """The procedure's parameters in this battle (typed in, else from the units'
        profiles and markers, else from their stats), the event's battle fields and the
        unit the outcome falls on."""
        from warroom.engine.params import describe, validate

        acting = _acting(keys)
        actors = [st.unit(name) for name, _ in acting]
        actor = actors[0] if actors else None
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
        if len({u.side for u in actors}) > 1:
            raise BattleError("units acting in one step are of one side: {units}",
                              units=", ".join(f"{u.name} ({u.side})" for u in actors))
        if len({u.name for u in actors}) < len(actors):
            raise BattleError("a unit is named twice among the acting units")
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
                                  side=side, code="not_your_side")
            for u in actors:
                self._own(by, u)
            if actor is None and target is not None and target.side != by:
                raise AccessError("name your acting unit (unit=) to roll against side "
                                  "{side}'s {unit}", code="not_your_unit",
                                  side=target.side, unit=target.name)
            side = by
        if len(actors) > 1 and proc.id not in _several():
            raise UsageError("{proc} takes one acting unit; several units act together in "
                             "{valid}", proc=proc.id, valid=", ".join(sorted(_several())))
        filled: dict[str, str]
        if _with_profiles(proc.id, actors, target):
            given, filled = self._from_profiles(st, proc.id, acting, actors, target, raw)
        elif len(actors) > 1:
            raise BattleError("several units act together only with their profiles (add "
                              "them with --from FILE:UNIT), in {valid}",
                              valid=", ".join(sorted(_several())))
        else:
            names = [s.name for s in describe(proc.params)]
            given, filled = fx.fill_params(raw, names, actor, target, proc.id)
        params = validate(proc, given)
        extra: dict[str, Any] = {
            "unit": actor.name if actor else None,
            "target": target.name if target else None,
            "side": side, "clear": clear, "filled": filled, "given": dict(raw),
        }
        if len(actors) > 1:
            extra["units"] = [u.name for u in actors]
        return params, extra, subject

    def _from_profiles(self, st: State, proc_id: str,
                       acting: Sequence[tuple[str, Mapping[str, Any]]], actors: Sequence[Any],
                       target: Any, raw: Mapping[str, Any]
                       ) -> tuple[dict[str, Any], dict[str, str]]:
        """Parameters built by :func:`warroom.units.build` from the units' profiles, the
        markers on them and what was typed in (which wins); where each came from, in
        English, as the event records it."""
        from warroom.units import ACTOR_KEYS, NEEDS, SEVERAL, build
        from warroom.units.forces import profile_model

        need_actor, need_target = NEEDS[proc_id]
        for u in [*(actors if need_actor else []), *([target] if need_target else [])]:
            if u is not None and u.profile is None:
                raise BattleError("{unit} has no profile: add it with --from FILE:UNIT, "
                                  "or give the parameters yourself", unit=u.name)
        known = fx.marker_situation(st.game, proc_id, actors, target)
        names = list(self.registry.procedure(proc_id).param_names)
        known.update(fx.stat_overrides(proc_id, names, actors, target))
        own_keys = ACTOR_KEYS.get(proc_id, frozenset())
        items: list[Any] = []
        def named(u: Any) -> Any:  # the battle's name for the unit, in every source
            return profile_model(st.game, u.profile).model_copy(update={"name": u.name})

        for (_name, own), u in zip(acting, actors, strict=True):
            profile = named(u)
            if proc_id in SEVERAL:
                mine = {k: v for k, v in fx.actor_situation(proc_id, u).items()
                        if k in own_keys}
                items.append({"unit": profile, **mine, **own})
            elif own:
                raise BattleError("{procedure} takes one acting unit: give its situation "
                                  "as parameters", procedure=proc_id)
            else:
                known.update({k: (v, fx.marker_source(u, k))
                              for k, v in fx.actor_situation(proc_id, u).items()})
                items.append(profile)
        at = named(target) if target is not None and target.profile is not None else None
        frm: Any = (items if proc_id in SEVERAL else items[0]) if items else None
        built = build(proc_id, frm, at, raw, known)
        filled = {k: _short(str(v)) for k, v in built.sources.items()}
        return built.params, filled

    def preview(self, battle_id: str, proc_id: str, raw: Mapping[str, Any] | None = None,
                *, by: str | None = None) -> tuple[Procedure, Any, dict[str, Any]]:
        """The procedure, its validated parameters and the rest of :meth:`prepare`."""
        raw = dict(raw or {})
        keys = {k: raw.pop(k) for k in fx.BATTLE_KEYS if k in raw}
        st = self.state(battle_id)
        proc = self._procedure(st.game, proc_id)
        params, extra, _subject = self._prepare(st, proc, raw, keys, by)
        return proc, params, extra

    def prepare(self, battle_id: str, proc_id: str, raw: Mapping[str, Any] | None = None,
                *, by: str | None = None) -> dict[str, Any]:
        """What :meth:`do` would resolve, without rolling: the procedure's parameters
        (from the units' profiles and markers where they have them), where each came
        from (``filled``), the acting units, the target and the side. For a form
        before the roll, and the odds of the whole step (:meth:`odds`)."""
        from warroom.engine.params import normalized

        proc, params, extra = self.preview(battle_id, proc_id, raw, by=by)
        return {"procedure": proc.id, "params": _jsonable(normalized(params)), **extra}

    def odds(self, battle_id: str, proc_id: str, raw: Mapping[str, Any] | None = None,
             *, by: str | None = None) -> dict[str, Any]:
        """:meth:`prepare` and the exact odds of its parameters (the odds cache the pages
        share): ``{..., "odds": Distribution.to_json(exact=True, full=False)`` (each
        outcome with its ``exact`` fraction, ``"5/9"``; a long list summed up per field),
        ``"chances"`` (each field's values with their chances), ``"expected"}``.

        Past the exact budget, a Monte Carlo estimate of its full size (a 95% margin of
        half a percentage point) stands in: ``"odds"`` is then the estimate's JSON
        (``"estimate": true``, ``"margin"``) and the chances have no ``exact``."""
        from warroom.engine import drivers
        from warroom.errors import ExactTooLargeError
        from warroom.serving import cached_odds

        proc, params, extra = self.preview(battle_id, proc_id, raw, by=by)
        try:
            dist = cached_odds(proc.id, params, procedure=proc)
        except ExactTooLargeError:
            return self.odds_of(proc, params, extra, estimate=drivers.estimate(proc, params))
        return self.odds_of(proc, params, extra, exact=dist)

    def odds_of(self, proc: Procedure, params: Any, extra: Mapping[str, Any], *,
                exact: Distribution | None = None, estimate: Estimate | None = None,
                odds: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """What :meth:`odds` answers, from the exact odds or the estimate standing in
        for them (worked out elsewhere: the web app's worker processes); ``odds``, their
        JSON when the caller has it."""
        from warroom.engine.params import normalized

        if exact is not None:
            dist = exact
            odds = exact.to_json(exact=True, full=False) if odds is None else odds
        else:
            assert estimate is not None, "the exact odds or an estimate"
            dist = estimate.as_distribution()
            odds = estimate.to_json(full=False) if odds is None else odds
        chances = {name: [{"value": v, "exact": _frac(p), "p": float(p)} if exact else
                          {"value": v, "p": float(p)}
                          for v, p in sorted(ch.items(), key=_value_order)]
                   for name, ch in dist.parts()}
        return {"procedure": proc.id, "params": _jsonable(normalized(params)), **extra,
                "odds": _jsonable(odds), "chances": _jsonable(chances),
                "expected": self._expected(proc, params, estimate, exact)}

    def _run(self, st: State, proc: Procedure, params: Any, dice: Sequence[object] | None,
             extra: dict[str, Any], subject: Any, secret: str | None) -> dict[str, Any]:
        from warroom.engine import drivers
        from warroom.engine.params import normalized

        norm = normalized(params)
        extra = dict(extra)
        place = extra.pop("place", "shot")
        if dice is None:
            index: int | None = st.rolls
            res = drivers.roll(proc, params, rng=self._rng(st, proc.id, norm, extra, secret,
                                                           place))
        else:
            index = None
            res = drivers.roll(proc, params, dice=dice)
        if dice is not None or st.commitment is None:
            place = None
        outcome = dict(res.outcome)
        return {**({"place": place} if place else {}),
            "kind": "resolved", "procedure": proc.id, "params": norm,
            **extra,
            "dice": list(res.dice), "entered": dice is not None, "roll_index": index,
            "outcome": outcome,
            "steps": [s.to_dict() for s in res.steps],
            "expected": self._expected(proc, params),
            "effects": fx.outcome_effects(st, proc.id, outcome, subject, extra["clear"],
                                          target_named=extra["target"] is not None),
        }

    @staticmethod
    def _rng(st: State, proc_id: str, params: Any, extra: Mapping[str, Any],
             secret: str | None, place: str | None = "shot") -> random.Random:
        """The generator of a virtual roll in this place (see :func:`roll_place`). With
        ``place`` "shot" the action is the shot, not its parameters (procedure, acting
        units, target, side): after an undo the same shot gets the same dice whatever
        parameter changed (range 20 cm or 39 cm); None: a roll from before, whose
        action held its parameters."""
        if st.commitment is None:  # an old battle: its seed was public from the start
            return legacy_rng(int(st.seed or 0), st.rolls)
        if st.ended:
            raise BattleError("the battle has ended and its dice seed is public: virtual "
                              "dice would be foreseeable; enter your dice")
        if secret is None or commitment_of(secret) != st.commitment:
            raise BattleError("this imported battle's dice seed stayed on the server that "
                              "made it: enter your dice")
        action = {"procedure": proc_id, "params": _jsonable(params), "unit": extra["unit"],
                  "target": extra["target"], "side": extra["side"]}
        if place == "shot":
            action = {"shot": proc_id, "units": extra.get("units") or [extra["unit"]],
                      "target": extra["target"], "side": extra["side"]}
        return roll_rng(secret, roll_place(st, action))

    @staticmethod
    def _expected(proc: Procedure, params: Any, est: Estimate | None = None,
                  dist: Distribution | None = None) -> dict[str, str]:
        """Expectation of each numeric field (a bool: its chance of being true): exact
        (``dist``, else through the odds cache the pages share); for a question past the
        exact budget, a Monte Carlo estimate's mean (``est``, else the shared luck
        estimate, :func:`warroom.serving.luck_estimate`; as a decimal, so it never reads
        as exact)."""
        from warroom.errors import ExactTooLargeError
        from warroom.serving import cached_odds, luck_estimate

        kinds = {f.name: f.kind for f in proc.outcome}
        names = [n for n in proc.fields if kinds[n] in ("int", "bool")]
        if est is not None:
            return {name: f"{est.mean(name)[0]:.4f}" for name in names}
        try:
            dist = dist or cached_odds(proc.id, params, procedure=proc)
        except ExactTooLargeError:
            est = luck_estimate(proc, params)
            return {name: f"{est.mean(name)[0]:.4f}" for name in names}
        return {name: _frac(dist.mean(name)) for name in names}

    # ------------------------------------------------------------------ luck
    def luck(self, battle_id: str) -> dict[str, Any]:
        """Per side: expected against actual for each numeric outcome field of the live
        resolutions, from the totals the snapshot keeps (no replay)."""
        return _luck_table(battle_id, self._snapshot(battle_id).state)

    def luck_report(self, battle_id: str) -> dict[str, Any]:
        """:meth:`luck` with how unusual each side's totals are (their percentile in the
        distribution of every total the dice could have given: :mod:`warroom.battle.luck`).
        It reads the whole log: a page asks for it apart (the read lane)."""
        from warroom.battle.luck import report

        with self.store.read() as conn:
            snap = self._snapshot_in(conn, battle_id)
            events = self.store.load_events(conn, battle_id)
        live = set(snap.live)
        game = snap.state.game
        return report({**_luck_table(battle_id, snap.state), "game": game},
                      (e for e in events if e["kind"] == "resolved" and e["seq"] in live),
                      lambda proc_id, params: self._luck_odds(game, proc_id, params))

    def _luck_odds(self, game: str, proc_id: str, params: Mapping[str, Any]
                   ) -> Distribution | Estimate | None:
        """A recorded resolution's odds, as its expectation was worked out: exact, else
        the luck estimate; None for a rule or parameters this server does not know (a
        log imported from elsewhere)."""
        from warroom.engine.params import validate
        from warroom.errors import ExactTooLargeError
        from warroom.serving import cached_odds, luck_estimate

        try:
            proc = self._procedure(game, proc_id)
            p = validate(proc, _given(proc, params))
        except UsageError:
            return None
        try:
            return cached_odds(proc.id, p, procedure=proc)
        except ExactTooLargeError:
            return luck_estimate(proc, p)

    # ------------------------------------------------------------------ verify
    def verify(self, battle_id: str) -> Report:
        """Replay every event from scratch (the server knows the secret seed, so every
        virtual die is checked) and say whether the log is this server's own. The
        snapshots the store keeps (the state after each event, with its luck totals, and
        the battle's current state, stack of live events and counter) must all agree
        with the replay."""
        with self.store.read() as conn:
            row = self.store.battle_row(conn, battle_id)
            events = self.store.load_events(conn, battle_id)
            kept = self.store.stored_states(conn, battle_id)
        report = self.check_events(battle_id, events, secret=row.get("secret"))
        report.authentic = row.get("origin") in (None, "here", "authentic")
        if row.get("origin") == READ_ONLY:
            report.notes.append("imported from a log whose dice were never committed (its "
                                "seed was public): kept read-only, for replay and verify")
        try:
            final = fold(battle_id, events)
            afters, _ = _states(battle_id, events)
        except (UsageError, KeyError, TypeError, ValueError) as exc:
            report.problems.append(str(exc))
            return report
        for ev, text, after in zip(events, kept, afters, strict=True):
            wrong = None if text is None else _snapshot_differs(text, after)
            if wrong is not None:
                report.problems.append(f"event {ev['seq']}: what is stored after it "
                                       f"differs from the replay ({wrong})")
        wrong = _snapshot_differs(row["state"], final.state)
        if wrong == "state":
            report.problems.append("the stored state differs from the replayed state")
        elif wrong is not None:
            report.problems.append("the stored luck totals differ from the replayed log")
        if row.get("live") is not None and json.loads(row["live"]) != final.live:
            report.problems.append("the stored stack of live events differs from the log")
        if events and int(row["counter"]) != int(events[-1]["seq"]):
            report.problems.append(f"the stored counter {row['counter']} is not the last "
                                   f"event {events[-1]['seq']}")
        return report

    def check_events(self, battle_id: str, events: Sequence[Mapping[str, Any]],
                     secret: str | None = None) -> Report:
        """Replay every event from scratch, re-running each roll. Virtual dice are
        checked with ``secret`` (the server's) or the seed the log reveals at its end;
        without either, only that the recorded dice give the recorded outcome."""
        report = Report(battle_id, len(events))
        problems = report.problems
        if not events or events[0].get("kind") != "created":
            problems.append("the log does not start with a 'created' event")
            return report
        commitment = events[0].get("commitment")
        revealed = next((str(e.get("seed")) for e in events if e.get("kind") == "ended"),
                        None)
        if revealed is not None and commitment is not None and (
                commitment_of(revealed) != commitment):
            problems.append("the revealed seed does not match the commitment made at the "
                            "battle's creation")
            return report
        key = secret if secret is not None and commitment is not None and commitment_of(
            secret) == commitment else revealed
        if commitment is not None and key is None:
            report.notes.append("the virtual dice cannot be checked against the seed until "
                                "the battle ends and reveals it")
        states: list[State] = []
        for i, ev in enumerate(events, start=1):
            where = f"event {i}"
            try:
                if ev.get("seq") != i:
                    problems.append(f"{where}: numbered {ev.get('seq')!r}")
                    return report
                kind = ev["kind"]
                if kind == "created":
                    if i != 1:
                        raise BattleError("a second 'created' event")
                    states.append(apply(State(battle_id, "", "", None), ev))
                elif kind == "undone":
                    evs.parse(ev)
                    if len(states) < 2:
                        raise BattleError("undoes the creation")
                    states.pop()
                else:
                    before = states[-1]
                    if before.ended:  # recorded before ended battles became read-only
                        report.notes.append(
                            f"{where} ({kind}) was recorded after the battle ended, "
                            "before warroom closed ended battles to writes; it is "
                            "replayed as recorded")
                    if kind == "resolved":
                        problems.extend(f"{where}: {p}" for p in self._recheck(before, ev, key))
                    elif kind == "phase":
                        if (ev["turn"], ev["side"], ev["phase"]) != next_position(before):
                            problems.append(f"{where}: the phase does not follow")
                        if ev.get("clears") and ev["clears"] != phase_clears(before):
                            problems.append(f"{where}: the phase cleared other markers")
                    elif kind == "unit_edited":
                        unit = before.unit(str(ev["unit"]))
                        if ev.get("before") != {k: unit.stats.get(k) for k in ev["stats"]}:
                            problems.append(f"{where}: the stats were not as recorded")
                    elif kind == "marked":
                        unit = before.unit(str(ev["unit"]))
                        marker_kind(before.game, str(ev["marker"]))
                        if ev.get("before") != unit.markers.get(str(ev["marker"])):
                            problems.append(f"{where}: the marker was not as recorded")
                    elif kind == "ended" and commitment is None and str(ev["seed"]) != before.seed:
                        problems.append(f"{where}: the revealed seed is not the battle's")
                    states.append(apply(before, ev))
                if states[-1].digest() != ev.get("after"):
                    problems.append(f"{where} ({kind}): the state after it differs")
            except (UsageError, KeyError, TypeError, ValueError) as exc:
                problems.append(f"{where}: does not replay: {exc}")
                return report
        return report

    def _recheck(self, before: State, ev: Mapping[str, Any], key: str | None) -> list[str]:
        from warroom.engine.params import validate

        proc = self._procedure(before.game, str(ev["procedure"]))
        params = validate(proc, _given(proc, ev["params"]))
        dice: Sequence[object] | None = None
        if ev.get("entered"):
            dice = list(ev["dice"])
            if ev.get("roll_index") is not None:
                return ["entered dice with a roll index"]
        else:
            if ev.get("roll_index") != before.rolls:
                return [f"roll index {ev.get('roll_index')} but the battle was at "
                        f"{before.rolls}"]
            if before.commitment is not None and key is None:
                dice = list(ev["dice"])  # the seed is not known here yet
        actor = before.unit(str(ev["unit"])) if ev.get("unit") else None
        target = before.unit(str(ev["target"])) if ev.get("target") else None
        checking = before
        if dice is None and before.ended:  # rolls after the end are refused
            return ["a virtual roll after the battle ended"]
        again = _jsonable(self._run(checking, proc, params, dice, {
            "unit": ev.get("unit"), "target": ev.get("target"), "side": ev.get("side"),
            "clear": ev.get("clear"), "filled": ev.get("filled"), "given": ev.get("given"),
            "place": ev.get("place"), **({"units": ev["units"]} if ev.get("units") else {}),
        }, target or actor, key))
        out = []
        stored = ev.get("params")
        if isinstance(stored, dict):  # a parameter added since then took its default
            again["params"] = {k: v for k, v in again["params"].items() if k in stored}
            # an outcome field added since then with the parameter it needs (shown_if):
            # that parameter did not exist, so the field is certainly 0; not compared
            told = ev.get("outcome")
            added = {f.name for f in proc.outcome if f.shown_if and isinstance(told, dict)
                     and f.name not in told and not stored.get(f.shown_if)}
            for k in ("outcome", "expected"):
                again[k] = {n: v for n, v in again[k].items() if n not in added}
        # an estimated expectation (a decimal, never a fraction) is not compared: those
        # logged before serving.LUCK_MARGIN depended on the machine's speed
        again["expected"], told_expected = (
            {n: v for n, v in e.items() if "." not in str(v)} if isinstance(e, dict) else e
            for e in (again["expected"], ev.get("expected")))
        # the steps' numbers are compared, not their wording: an explanation reworded
        # by a later version (a plural, a clearer phrase) leaves a battle verifiable
        again["steps"], told_steps = _step_facts(again["steps"]), _step_facts(ev.get("steps"))
        for k in ("params", "dice", "outcome", "steps", "expected", "effects"):
            told = {"expected": told_expected, "steps": told_steps}.get(k, ev.get(k))
            if again[k] != told:
                out.append(f"{ev['procedure']}: {k} do not reproduce")
        return out

    # ------------------------------------------------------------------ export/import
    def export(self, battle_id: str) -> dict[str, Any]:
        """The whole battle, signed with the battle's key. The dice seed is in it only
        once the battle has ended (its ``ended`` event)."""
        row, events, _replay = self._load(battle_id)
        meta = {"id": row["id"], "game": row["game"], "name": row["name"],
                "created": row["created_at"]}
        first = events[0]
        if first.get("commitment") is not None:
            meta["commitment"] = first["commitment"]
        else:
            meta["seed"] = first.get("seed")
        signature = _sign(row["sign_key"], meta, events) if row.get("sign_key") else None
        return {"format": EXPORT_FORMAT, "version": EXPORT_VERSION, "battle": meta,
                "events": events, "signature": signature}

    def import_(self, data: Any) -> dict[str, Any]:
        """Add an exported battle. It goes through the export format's model (every event
        typed and bounded) and must replay exactly; anything else is refused with one
        message naming the field, and nothing is written. The server chooses the new
        battle's id; a log whose dice were never committed (a public seed) is kept
        read-only (:data:`READ_ONLY`): replay and verify only."""
        check_text(data)
        if not isinstance(data, dict) or data.get("format") != EXPORT_FORMAT:
            raise ImportFormatError("not a warroom battle export (no \"format\": {fmt!r})",
                                    fmt=EXPORT_FORMAT)
        if data.get("version") not in (1, EXPORT_VERSION):
            raise ImportFormatError("unsupported export version {version!r}",
                                    version=data.get("version"))
        try:
            parsed = ExportFile.model_validate(data)
        except ValidationError as exc:
            raise ImportFormatError("the export does not fit the format: {problem}",
                                    problem=first_problem(exc)) from None
        meta = parsed.battle
        clean = [e.model_dump(exclude={"undone"}) for e in parsed.events]
        first = clean[0]
        if not (first["kind"] == "created" and first["game"] == meta.game
                and first["name"] == meta.name and first["seed"] == meta.seed
                and first["commitment"] == meta.commitment):
            raise ImportFormatError("the first event does not create the exported battle")
        if meta.game not in self.games():
            raise ImportFormatError("the export's game {game!r} is not known here",
                                    game=meta.game)
        for e in clean:  # drop what the models default, as live events store them
            for k in _DEFAULTED:
                if k in e and e[k] is None:
                    del e[k]
        raw_meta = dict(data["battle"])
        secret: str | None = None
        sign_key: str | None = None
        origin = "unsigned"
        with self.store.read() as conn:  # the original, to check its signature
            try:
                original = self.store.battle_row(conn, meta.id)
            except NoSuchBattleError:
                original = None
        if (original is not None and original.get("sign_key") and parsed.signature
                and hmac.compare_digest(_sign(original["sign_key"], raw_meta,
                                              list(data["events"])), parsed.signature)):
            # the copy is signed from now on, but it never gets the original's secret seed:
            # rolling in a copy would show the original's next dice
            origin, sign_key = "authentic", secrets.token_hex(32)
            secret = original.get("secret")
        # the server chooses the id, never the file (a copy is another battle)
        battle_id = secrets.token_hex(4)
        report = self.check_events(battle_id, clean, secret=secret)
        secret = None
        if not report.ok:
            raise ImportFormatError("the battle does not replay: {problems}",
                                    problems="; ".join(report.problems[:3]))
        if first.get("commitment") is None:
            # its seed was public from the start: anyone could foresee its dice, and a
            # forged file chooses them; replay and verify only
            origin = READ_ONLY
        if secret is None:
            secret = next((e["seed"] for e in clean if e["kind"] == "ended"), None)
        afters, replay = _states(battle_id, clean)
        tokens = {s: secrets.token_urlsafe(18) for s in ("a", "b", "view")}
        with self.store.write() as conn:
            start = afters[0]
            self.store.insert_battle(conn, self._row(
                battle_id, start, meta.created, tokens, secret=secret, sign_key=sign_key,
                origin=origin, legacy_seed=meta.seed, solo=bool(first.get("solo"))))
            counter = 0
            for e, st in zip(clean, afters, strict=True):
                last = e is clean[-1]
                self.store.append(conn, battle_id, e, counter, st.snapshot(),
                                  json.dumps(replay.live) if last else None)
                counter = int(e["seq"])
        return {"id": battle_id, "tokens": tokens, "origin": origin}

    # ------------------------------------------------------------------ access
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


_PROSE = frozenset({"text", "base_reason", "result"})
"""A logged step's words (:meth:`warroom.engine.steps.Step.to_dict`), left out when
``verify`` compares steps: the rule, target, modifiers' values and dice must reproduce."""


def _given(proc: Procedure, params: Mapping[str, Any]) -> dict[str, Any]:
    """A resolution's stored parameters less those at their default: they hold every
    default too, and given back as they are, a check that asks which were given
    (bkc.fire: attacks or attackers) would see them all."""
    fields = proc.params.model_fields
    return {k: v for k, v in params.items() if k not in fields or fields[k].default != v}


def _step_facts(steps: Any) -> Any:
    """A logged step list without its wording (texts, reasons), for comparing."""
    if not isinstance(steps, list):
        return steps
    return [{k: ([m.get("value") if isinstance(m, dict) else m for m in v]
                 if k == "modifiers" and isinstance(v, list) else v)
             for k, v in s.items() if k not in _PROSE} if isinstance(s, dict) else s
            for s in steps]


_DEFAULTED = ("seed", "commitment", "solo", "profile", "units", "place", "agreed")
"""Event fields whose default (None) a live event leaves out."""
READ_ONLY = "read-only"
"""The ``origin`` of an imported battle whose dice were never committed (its seed public
from the start): kept for replay and verify only, since anyone could foresee its dice."""


def _writable(snap: Snapshot) -> None:
    """Refuse any write to a battle that takes none: an ended one (its seed is public),
    or an import kept read-only (:data:`READ_ONLY`)."""
    if snap.row.get("origin") == READ_ONLY:
        raise ClosedError("this battle was imported from a log whose dice were never "
                          "committed (its seed was public): anyone could foresee its "
                          "dice, so it is kept for replay and verify only",
                          code="read_only")
    if snap.state.ended:
        raise ClosedError("the battle has ended: it is read-only now (its log, export "
                          "and verify stay open)", code="ended")


def _snapshot_differs(text: str, state: State) -> str | None:
    """What of a stored snapshot differs from ``state``: "state", "luck totals" (when
    the snapshot keeps them) or None."""
    data = json.loads(text)
    luck = data.pop("luck", None)
    if data != state.to_json():
        return "state"
    if luck is not None and luck != state.luck:
        return "luck totals"
    return None


def _mark_undone(events: list[dict[str, Any]], live: Sequence[int]) -> None:
    """Mark each event of (a page of) the log that an undo took back. An event stays on
    the stack of live events until it is undone, and never comes back: every event but
    the creation and the undos themselves is undone exactly when it is not live."""
    alive = set(live)
    for e in events:
        e["undone"] = e["kind"] not in ("created", "undone") and e["seq"] not in alive


def _luck_table(battle_id: str, state: State) -> dict[str, Any]:
    """The luck totals as :meth:`Battles.luck` answers them: per side the rolls and, per
    field, the exact expectation (``expected_exact``), it as a decimal, what the dice gave
    and the difference."""
    sides: dict[str, Any] = {}
    for side in SIDES:
        totals = (state.luck or {}).get(side, {"rolls": 0, "fields": {}})
        fields = {}
        for name, f in totals["fields"].items():
            exp = Fraction(f["expected"])
            fields[name] = {"expected": round(float(exp), 3), "actual": f["actual"],
                            "rolls": f["rolls"], "expected_exact": _frac(exp),
                            "difference": round(f["actual"] - float(exp), 3)}
        sides[side] = {"rolls": totals["rolls"], "fields": fields}
    return {"id": battle_id, "sides": sides}


def _value_order(item: tuple[Any, Any]) -> tuple[int, Any]:
    """Numbers and flags in their order, words after them in theirs."""
    value = item[0]
    return (0, value) if isinstance(value, (int, float)) else (1, str(value))


def _several() -> frozenset[str]:
    from warroom.units import SEVERAL

    return frozenset(SEVERAL)


def _acting(keys: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The acting units of a ``do``: ``units`` (a list of names, or of mappings
    ``{"unit": NAME, **its own situation}``, or ``"A,B"``), else ``unit``."""
    raw = keys.get("units")
    if raw is None or raw == "" or raw == []:
        return [(str(keys["unit"]), {})] if keys.get("unit") else []
    if keys.get("unit"):
        raise BattleError("give the acting units once: unit=NAME or units=A,B")
    items = raw.split(",") if isinstance(raw, str) else list(raw)
    out: list[tuple[str, dict[str, Any]]] = []
    for item in items:
        if isinstance(item, Mapping):
            own = dict(item)
            name = own.pop("unit", None)
            if not isinstance(name, str) or not name.strip():
                raise BattleError("an acting unit given as a mapping names it under the "
                                  "key unit")
            out.append((name.strip(), own))
        elif str(item).strip():
            out.append((str(item).strip(), {}))
    if not out:
        raise BattleError("units= names the acting units: units=A,B")
    return out


def _with_profiles(proc_id: str, actors: Sequence[Any], target: Any) -> bool:
    """Whether ``do`` builds the parameters from the units' profiles: a procedure that
    takes units, and a unit with a profile in it."""
    from warroom.units import NEEDS

    return proc_id in NEEDS and (any(u.profile is not None for u in actors)
                                 or (target is not None and target.profile is not None))


def _short(text: str, most: int = 200) -> str:
    return text if len(text) <= most else text[:most - 1] + "…"


def _check_game(unit_game: str, game: str) -> None:
    if unit_game != game and {unit_game, game} != {"bkc", "cwc"}:
        raise BattleError("this is a {unit_game} unit; the battle plays {game}",
                          unit_game=unit_game, game=game)


def _profile_json(game: str, profile: Any) -> dict[str, Any]:
    """A unit profile (object, JSON form or ``FILE:UNIT``) checked by the battle's game's
    model, as JSON."""
    from warroom.units import profile_of
    from warroom.units.forces import GAMES, profile_model

    if game not in GAMES:
        raise BattleError("units of {game} battles carry no profiles (profiles: {valid})",
                          game=game, valid=", ".join(GAMES))
    if isinstance(profile, dict):
        model = profile_model(game, profile)
    else:
        unit_game, model = profile_of(profile)
        _check_game(unit_game, game)
    data: dict[str, Any] = model.model_dump(mode="json")
    return data


def _states(battle_id: str, events: Sequence[Mapping[str, Any]]) -> tuple[list[State], Replay]:
    """The state after each event of a log (undone ones included) and the fold."""
    replay: Replay | None = None
    afters: list[State] = []
    for ev in events:
        if replay is None:
            replay = Replay([apply(State(battle_id, "", "", None), ev)], [])
        elif ev["kind"] == "undone":
            replay.states.pop()
            replay.live.pop()
        else:
            replay.states.append(apply(replay.state, ev))
            replay.live.append(int(ev["seq"]))
        afters.append(replay.state)
    assert replay is not None
    return afters, replay
