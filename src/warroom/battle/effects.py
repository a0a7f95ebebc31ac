"""How a resolution meets the units on the table.

Battle keys (consumed here, never passed to the procedure):

* ``unit=NAME``   the unit acting (the shooter, the unit taking a test);
* ``target=NAME`` the unit the outcome falls on (the target of shooting);
  (``demo.pool``: the successes become hits on the target)
* ``side=A|B``    whose roll this is, for luck (default: the acting unit's side, else
  the target's, else the side whose player turn it is);
* ``clear=MARKER`` for a test with a ``passed`` field: remove that marker from the unit
  when the test is passed (rallying pinned, remounting bailed out...).

The outcome applies to ``target`` when given, else to ``unit``. Parameters not typed
in are filled from unit stats of the same name: from the acting unit; a parameter named
``target_X`` from the target's stat ``X``; with only one unit named, from its stats.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from warroom.battle.state import State, Unit, marker_kinds

BATTLE_KEYS = ("unit", "target", "side", "clear")


def fill_params(raw: Mapping[str, Any], param_names: list[str], actor: Unit | None,
                target: Unit | None) -> tuple[dict[str, Any], dict[str, str]]:
    """The procedure's parameters with unit stats filled in, and where each came from."""
    out = dict(raw)
    filled: dict[str, str] = {}
    for name in param_names:
        if name in out:
            continue
        if target is not None and name.startswith("target_") and name[7:] in target.stats:
            out[name] = target.stats[name[7:]]
            filled[name] = f"{target.name}.{name[7:]}"
        elif actor is not None and name in actor.stats:
            out[name] = actor.stats[name]
            filled[name] = f"{actor.name}.{name}"
        elif actor is None and target is not None and name in target.stats:
            out[name] = target.stats[name]
            filled[name] = f"{target.name}.{name}"
    return out, filled


def _count(v: Any) -> int:
    if isinstance(v, bool):
        return int(v)
    return int(v) if isinstance(v, int) else 0


def outcome_effects(state: State, procedure: str, outcome: Mapping[str, Any],
                    subject: Unit | None, clear: str | None, target_named: bool = False
                    ) -> list[dict[str, Any]]:
    """Marker changes the outcome makes on ``subject``: ``[{unit, marker, value}]``
    (value None removes the marker). Procedures without a rule here change nothing."""
    if subject is None:
        return []
    kinds = marker_kinds(state.game)
    markers: dict[str, Any] = dict(subject.markers)
    changes: dict[str, Any] = {}

    def add(name: str, n: int) -> None:
        if n and name in kinds:
            changes[name] = int(markers.get(name, 0)) + n
            markers[name] = changes[name]

    def flag(name: str, on: Any) -> None:
        if on and name in kinds:
            changes[name] = True
            markers[name] = True

    if procedure == "fow.shoot":
        add("hits", _count(outcome.get("hits")))
        add("destroyed", _count(outcome.get("destroyed")))
        add("bailed_out", _count(outcome.get("bailed_out")))
        flag("pinned", outcome.get("pinned"))
        teams = subject.stats.get("teams")
        if isinstance(teams, int) and int(markers.get("destroyed", 0)) >= teams > 0:
            flag("eliminated", True)
    elif procedure == "asl.mc":
        flag("broken", outcome.get("broken"))
        add("casualty_reduction", _count(outcome.get("casualty_reduction")))
        flag("eliminated", outcome.get("eliminated"))
        flag("replaced", outcome.get("replaced"))
        flag("pinned", outcome.get("pinned"))
    elif procedure == "demo.pool" and target_named:
        add("hits", _count(outcome.get("successes")))
    elif procedure in ("bkc.fire", "cwc.fire"):
        add("hits", _count(outcome.get("hits")))
        flag("eliminated", _count(outcome.get("destroyed")))
        flag("suppressed", outcome.get("suppressed"))
        retreat = _count(outcome.get("retreat_cm"))
        if retreat:
            changes["retreat_cm"] = retreat
    if clear and outcome.get("passed") is True and clear in markers:
        changes[clear] = None
    return [{"unit": subject.name, "marker": k, "value": v} for k, v in changes.items()]
