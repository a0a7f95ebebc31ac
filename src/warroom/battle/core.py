"""The battle tracker's one core object. The CLI and the web API are thin layers over it.

Every change is an event appended to the battle's log; the state is the fold of the log
(:mod:`warroom.battle.events`), and a snapshot of it (with the stack of live events) is
stored with each event in the same transaction, so reads and writes never replay the
log (``verify`` does). Writes are recorded by one write path
(:mod:`warroom.battle.writes`). Each event carries ``seq``, the state counter it
created: a write may name the counter it was based on (``expect``) and is refused only
when an event since then changed what it reads (:mod:`warroom.battle.conflicts`). A write
computes its event first (dice, resolution, expectation) on the snapshot it read, then
records it in one short transaction that moves the counter only if nobody moved it in
between (else it is computed again on the new state).

Dice come from the battle's committed secret seed (:mod:`warroom.battle.resolution`).

The work is split by concern into the modules named in :class:`Battles`; this module is
the façade that joins them, with creating and reading.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any, cast

from warroom.battle import phases
from warroom.battle.base import READ_ONLY, Snapshot, commitment_of
from warroom.battle.base import fraction_text as _frac
from warroom.battle.errors import BattleError
from warroom.battle.events import apply
from warroom.battle.models import (
    BattleListing,
    BattlePage,
    BattleView,
    Created,
    Luck,
    LuckField,
    LuckSide,
)
from warroom.battle.resolution import given_params, roll_place, roll_rng
from warroom.battle.state import MAX_BATTLE_NAME, MAX_NAME, SIDES, State
from warroom.battle.transfer import BattleTransfer
from warroom.battle.verify import Report
from warroom.errors import UnknownNameError, UsageError, counted

if TYPE_CHECKING:
    from warroom.engine.results import Distribution, Estimate

__all__ = ["MAX_NAME", "Battles", "Report", "commitment_of", "roll_place", "roll_rng"]


class Battles(BattleTransfer):
    """Create, change and read battles in a :class:`~warroom.battle.store.Store`.

    The one object the CLI and the web use; its parts, one module each: the store and
    snapshots (:mod:`~warroom.battle.base`), access (:mod:`~warroom.battle.access`),
    writes (:mod:`~warroom.battle.writes`), resolution (:mod:`~warroom.battle.resolution`),
    verify (:mod:`~warroom.battle.verify`) and transfer (:mod:`~warroom.battle.transfer`).
    Each part builds on the ones before it."""

    # ------------------------------------------------------------------ creating
    def new(self, game: str, name: str | None = None, seed: int | None = None, *,
            solo: bool = False) -> Created:
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
        if len(name) > MAX_BATTLE_NAME:
            raise BattleError(counted("a battle name has at most {n} character",
                                      "a battle name has at most {n} characters",
                                      n=MAX_BATTLE_NAME))
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

    # ------------------------------------------------------------------ reading
    def list_battles(self, only: Iterable[str] | None = None) -> list[BattleListing]:
        """Every battle (the CLI), or only the ids in ``only`` (a browser's own)."""
        wanted = None if only is None else set(only)
        with self.store.read() as conn:
            rows = self.store.list_rows(conn)
        out: list[BattleListing] = []
        for r in rows:
            if wanted is not None and r["id"] not in wanted:
                continue
            st = json.loads(r["state"])
            out.append({"id": r["id"], "game": r["game"], "name": r["name"],
                        "counter": r["counter"], "turn": st["turn"], "side": st["side"],
                        "phase": st["phase"], "units": len(st["units"]),
                        "created": r["created_at"], "updated": r["updated_at"]})
        return out

    def show(self, battle_id: str) -> BattleView:
        return self._show(self._snapshot(battle_id))

    @staticmethod
    def _show(snap: Snapshot) -> BattleView:
        st = snap.state
        info = st.phase_info()
        asked = snap.row.get("undo_asked")
        return cast(BattleView, {
            **st.to_json(),
            "counter": snap.counter,
            "phase_title": info.title,
            "checklist": list(info.checklist),
            "phases": [p.id for p in phases.sequence(st.game)],
            "can_undo": bool(snap.live) and not st.ended,
            "read_only": snap.row.get("origin") == READ_ONLY,
            "solo": bool(snap.row.get("solo")),
            "undo_asked": json.loads(asked) if asked else None,
        })

    def log(self, battle_id: str, *, limit: int | None = None,
            before: int | None = None) -> list[dict[str, Any]]:
        """Every event, oldest first, undone ones included (marked ``undone``): a roll
        taken back stays in sight of both sides. With ``limit`` and/or ``before``, only
        the latest ``limit`` events numbered below ``before``: a page of the log, read
        without replaying it."""
        if limit is not None or before is not None:
            events = self.page(battle_id, limit=limit, before=before)["events"]
            return events
        _row, every, replay = self._load(battle_id)
        _mark_undone(every, replay.live)
        return every

    def page(self, battle_id: str, *, limit: int | None = 30, before: int | None = None
             ) -> BattlePage:
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

    # ------------------------------------------------------------------ luck
    def luck(self, battle_id: str) -> Luck:
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

        try:
            proc = self.procedure(game, proc_id)
            p = validate(proc, given_params(proc, params))
        except UsageError:
            return None
        try:
            return self.odds_source.exact(proc, p)
        except ExactTooLargeError:
            return self.odds_source.luck(proc, p)


def _mark_undone(events: list[dict[str, Any]], live: Sequence[int]) -> None:
    """Mark each event of (a page of) the log that an undo took back. An event stays on
    the stack of live events until it is undone, and never comes back: every event but
    the creation and the undos themselves is undone exactly when it is not live."""
    alive = set(live)
    for e in events:
        e["undone"] = e["kind"] not in ("created", "undone") and e["seq"] not in alive


def _luck_table(battle_id: str, state: State) -> Luck:
    """The luck totals as :meth:`Battles.luck` answers them: per side the rolls and, per
    field, the exact expectation (``expected_exact``), it as a decimal, what the dice gave
    and the difference."""
    sides: dict[str, LuckSide] = {}
    for side in SIDES:
        totals = (state.luck or {}).get(side, {"rolls": 0, "fields": {}})
        fields: dict[str, LuckField] = {}
        for name, f in totals["fields"].items():
            exp = Fraction(f["expected"])
            fields[name] = {"expected": round(float(exp), 3), "actual": f["actual"],
                            "rolls": f["rolls"], "expected_exact": _frac(exp),
                            "difference": round(f["actual"] - float(exp), 3)}
        sides[side] = {"rolls": totals["rolls"], "fields": fields}
    return {"id": battle_id, "sides": sides}
