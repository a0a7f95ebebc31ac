"""Verifying a battle: every event replayed from scratch, every virtual die re-rolled, and
the snapshots the store keeps compared with the replay.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from warroom.battle import events as evs
from warroom.battle.base import READ_ONLY, commitment_of
from warroom.battle.base import jsonable as _jsonable
from warroom.battle.errors import BattleError
from warroom.battle.events import apply, fold
from warroom.battle.resolution import BattleResolution, given_params
from warroom.battle.state import Replay, State, marker_kind, next_position, phase_clears
from warroom.errors import UsageError


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


class BattleVerify(BattleResolution):
    """Replaying a battle's log from scratch and saying whether it reproduces."""

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
            afters, _ = replay_states(battle_id, events)
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

        proc = self.procedure(before.game, str(ev["procedure"]))
        params = validate(proc, given_params(proc, ev["params"]))
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
            **({"told": ev["params"]} if ev.get("place") is None
               and isinstance(ev.get("params"), dict) else {}),
            **({"support": ev["support"]} if ev.get("support") else {}),
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


_PROSE = frozenset({"text", "base_reason", "result"})
"""A logged step's words (:meth:`warroom.engine.steps.Step.to_dict`), left out when
``verify`` compares steps: the rule, target, modifiers' values and dice must reproduce."""


def _step_facts(steps: Any) -> Any:
    """A logged step list without its wording (texts, reasons), for comparing."""
    if not isinstance(steps, list):
        return steps
    return [{k: ([m.get("value") if isinstance(m, dict) else m for m in v]
                 if k == "modifiers" and isinstance(v, list) else v)
             for k, v in s.items() if k not in _PROSE} if isinstance(s, dict) else s
            for s in steps]


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


def replay_states(battle_id: str, events: Sequence[Mapping[str, Any]]
                  ) -> tuple[list[State], Replay]:
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
