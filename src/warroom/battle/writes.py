"""Writing to a battle: every change is an event appended to the battle's log; the state is
the fold of the log (:mod:`warroom.battle.state`), and a snapshot of it (with the stack of
live events) is stored with each event in the same transaction, so reads and writes never
replay the log. Each event carries ``seq``, the state counter it created: a write may
name the counter it was based on (``expect``) and is refused only when an event since
then changed what it reads (:mod:`warroom.battle.conflicts`). A write computes its event
first on the snapshot it read, then records it in one short transaction that moves the
counter only if nobody moved it in between (else it is computed again on the new
state).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from warroom.battle import conflicts, phases
from warroom.battle import events as evs
from warroom.battle.access import BattleAccess
from warroom.battle.base import READ_ONLY, Snapshot, commitment_of
from warroom.battle.base import jsonable as _jsonable
from warroom.battle.conflicts import Reads, Write, reads
from warroom.battle.errors import (
    AccessError,
    BattleError,
    ClosedError,
    ConflictError,
    NothingToUndoError,
    ProfileRequiredError,
    StaleStateError,
)
from warroom.battle.events import apply, fold
from warroom.battle.state import (
    MAX_NAME,
    State,
    first_problem,
    marker_kind,
    marker_value,
    next_position,
    parse_stat,
    phase_clears,
)
from warroom.battle.store import set_undo_request
from warroom.errors import UsageError

WRITE_ATTEMPTS = 40
"""How often a write that found the battle moved on is computed again before giving up."""


class BattleWrites(BattleAccess):
    """Every change to a battle but a resolution: units, markers, phases, undo and the
    end, each an event recorded by :meth:`_write`."""

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

    def fresh(self, battle_id: str, expect: int | None, wanted: Reads) -> None:
        """Refuse (:class:`StaleStateError`) a write based on the state counter
        ``expect`` when an event recorded since changed something it reads (``wanted``,
        :func:`warroom.battle.conflicts.reads`); anything else is no reason to refuse it.
        For a form that reads the battle before it writes (the edit form's changes)."""
        self._fresh(battle_id, self._snapshot(battle_id), expect, wanted)

    def _fresh(self, battle_id: str, snap: Snapshot, expect: int | None,
               wanted: Reads) -> None:
        counter = snap.counter
        if expect is None or expect == counter:
            return
        if expect > counter or expect < 1 or counter - expect > conflicts.MAX_BEHIND:
            raise StaleStateError(expect, counter)

        def state_of(text: str | None) -> State | None:
            return None if text is None else State.from_json(json.loads(text))

        with self.store.read() as conn:
            rows = self.store.events_between(conn, battle_id, expect, counter)
            after = {int(body["seq"]): stored for body, stored in rows}

            def lookup(seq: int) -> tuple[Mapping[str, Any], State | None]:
                body, _ = self.store.event_at(conn, battle_id, seq)
                before = after[seq - 1] if seq - 1 in after else \
                    self.store.event_at(conn, battle_id, seq - 1)[1]
                return body, state_of(before)

            recorded = [(body, state_of(after.get(int(body["seq"]) - 1)))
                        for body, _ in rows if int(body["seq"]) > expect]
            found = conflicts.changes(wanted, recorded, lookup)
        if found:
            raise StaleStateError(expect, counter, [event for event, _ in found],
                                  conflicts.what_changed(wanted, [t for _, t in found],
                                                         snap.state))

    def _write(self, battle_id: str, expect: int | None, wanted: Reads,
               build: Callable[[Snapshot], dict[str, Any]],
               by: str | None = None) -> dict[str, Any]:
        """Compute an event on the battle as it is now, then record it in one short
        transaction that moves the counter only if nobody moved it meanwhile.

        Nothing is computed while the write lock is held. With ``expect``, a change since
        ``expect`` to what the write reads (``wanted``) refuses it; anything else does
        not, and the event records ``seen``. A write that finds the battle moved on
        while it was being computed is computed again on the new state (backing off a
        little more each time, up to :data:`WRITE_ATTEMPTS` times).
        """
        for attempt in range(WRITE_ATTEMPTS):
            if attempt:
                time.sleep(0.002 * attempt)  # racing writers drift apart
            snap = self._snapshot(battle_id)
            counter = snap.counter
            _writable(snap)
            self._fresh(battle_id, snap, expect, wanted)
            built = build(snap)
            kind = built["kind"]
            event: dict[str, Any] = {
                "seq": counter + 1, "kind": kind, "at": self.clock(), "by": by,
                **{k: v for k, v in built.items() if k != "kind"}, "after": "0" * 16}
            if expect is not None and expect < counter:
                event["seen"] = expect
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
            except (StaleStateError, ConflictError):  # a racing writer recorded first:
                continue  # computed again on the new state (and checked again)
            return event
        raise BattleError("the battle is changing too fast to record this; try again")

    def add_unit(self, battle_id: str, side: str, name: str | None,
                 stats: Mapping[str, Any] | None = None, *, profile: Any = None,
                 expect: int | None = None, by: str | None = None,
                 force: Sequence[str] = ()) -> dict[str, Any]:
        """Add a unit with its typed profile: a profile object, its JSON form, or a
        reference ``FILE:UNIT`` (also given as the stat ``from``); its stats override the
        profile's values. In a game with a unit model a unit without a profile is
        refused (:class:`ProfileRequiredError`); a ``demo`` unit is stats only.
        On the web (``by`` set) a reference names an example force (``example:GAME:UNIT``):
        the server reads no files. The name defaults to the profile's. ``force``: the
        names of the units added right after it as one force (it reads those too)."""
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
            k = _stat_name(key)
            parsed[k] = parse_stat(str(value)) if not isinstance(value, int) else value

        def build(snap: Snapshot) -> dict[str, Any]:
            if name.casefold() in {n.casefold() for n in snap.state.units}:
                raise BattleError("there is already a unit called {name!r}", name=name)
            if profile is None and self._unit_model(snap.state.game):
                raise ProfileRequiredError(snap.state.game, name)
            event = {"kind": "unit_added", "unit": name, "side": side, "stats": parsed}
            if profile is not None:
                event["profile"] = _profile_json(snap.state.game, profile)
            return event

        return self._write(battle_id, expect, reads(Write.ADD_UNIT, [name, *force]), build,
                           by)

    def _unit_model(self, game: str) -> bool:
        """Whether the game has a unit model (typed profiles): then every new unit is a
        profile of it, and free stats only override its values. Units stored before
        keep loading and replaying (only :meth:`add_unit` asks)."""
        try:
            return self.registry.system(game).profile is not None
        except UsageError:
            return False

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
        names = [unit.name for unit in force.units]
        for i, unit in enumerate(force.units):  # the first reads every name of the force
            out.append(self.add_unit(battle_id, side, unit.name, profile=unit,
                                     expect=expect if i == 0 else None, by=by,
                                     force=names[1:] if i == 0 else ()))
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
            k = _stat_name(key)
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

        return self._write(battle_id, expect, reads(Write.EDIT_UNIT, [unit]), build, by)

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

        return self._write(battle_id, expect, reads(Write.MARK, [unit]), build, by)

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

        event = self._write(battle_id, expect, reads(Write.NEXT_PHASE), build, by)
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
        self._fresh(battle_id, snap, expect, reads(Write.UNDO))
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

        return self._write(battle_id, expect, reads(Write.UNDO), build, by)

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
                           reads(Write.ANSWER_UNDO), build, asked["side"])

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

        return self._write(battle_id, expect, reads(Write.END), build, by)


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


def _stat_name(key: Any) -> str:
    """A stat's name as typed, checked: a word such as ``teams`` or ``skill``."""
    k = str(key).strip()
    if not k.isidentifier():
        raise BattleError("stat name {key!r} must be a word like teams or skill", key=key)
    return k
