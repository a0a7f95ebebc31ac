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
in are filled from the units' stats and markers (see :func:`fill_params`): those about
the target (``target_X`` from its ``X``; for fow.shoot ``teams`` (teams left),
``armour``, ``concealed``...; for fow.shoot_mixed ``teams`` from its ``team_list``; for
bkc/cwc.fire ``save``, ``hits_value``, ``existing_hits`` (its hits marker),
``suppressed``...) from the target, the rest from the acting unit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from warroom.battle.state import State, Unit, marker_kinds
from warroom.engine.messages import Msg, msg

BATTLE_KEYS = ("unit", "units", "target", "support", "side", "clear")


TARGET_SIDE: dict[str, dict[str, str]] = {
    "fow.shoot": {"target_skill": "skill", "target_rules": "rules", "target": "type",
                  "teams": "teams", "armour": "armour", "concealed": "concealed",
                  "gone_to_ground": "gone_to_ground", "dug_in": "dug_in",
                  "gun_shield": "gun_shield", "target_at_double": "at_double",
                  "hits_before": "hits"},
    "bkc.fire": {"armoured": "armoured", "target_hq": "hq", "target_recce": "recce",
                 "save": "save", "hits_value": "hits_value", "existing_hits": "hits",
                 "suppressed": "suppressed", "dug_in": "dug_in",
                 "open_topped": "open_topped", "anti_tank": "anti_tank", "cover": "cover"},
}
"""Parameters that describe the unit shot at, and the stat or marker they come from."""
TARGET_SIDE["cwc.fire"] = dict(TARGET_SIDE["bkc.fire"])
# several weapons at a mixed platoon: its teams are a list (kind:armour:flags), kept in
# a stat of its own, never the count of teams fow.shoot uses
TARGET_SIDE["fow.shoot_mixed"] = {"target_skill": "skill", "target_rules": "rules",
                                  "teams": "team_list", "concealed": "concealed",
                                  "hits_before": "hits"}


PROFILE_FACTS = ("cv", "skill", "motivation", "elr", "rules")
"""What a unit's profile brings to procedures outside :data:`warroom.units.NEEDS` (a
BKC HQ's command value for ``bkc.command``, a platoon's motivation for ``fow.unpin``)."""


def facts(unit: Unit) -> dict[str, Any]:
    """What a unit brings to a procedure: the values of its profile named in
    :data:`PROFILE_FACTS`, its stats (which win), its markers (which win over both), and
    for a unit with teams, the teams it has left."""
    out: dict[str, Any] = {}
    for key in PROFILE_FACTS:
        value = (unit.profile or {}).get(key)
        if isinstance(value, list):
            value = ",".join(str(v) for v in value) or None
        if value is not None:
            out[key] = value
    out.update(unit.stats)
    out.update(unit.markers)
    teams = unit.stats.get("teams")
    if isinstance(teams, int):
        out["teams"] = max(0, teams - int(unit.markers.get("destroyed", 0)))
    return out


def fill_params(raw: Mapping[str, Any], param_names: list[str], actor: Unit | None,
                target: Unit | None, procedure: str = ""
                ) -> tuple[dict[str, Any], dict[str, str]]:
    """The procedure's parameters with unit stats and markers filled in, and where each
    came from. Parameters describing the target (``target_X``, and those listed in
    :data:`TARGET_SIDE`) come from the target; the others from the acting unit. With a
    single unit named and no target-side table, everything comes from that unit."""
    out = dict(raw)
    filled: dict[str, str] = {}
    table = TARGET_SIDE.get(procedure, {})
    single = None if (actor and target) or table else (actor or target)
    for name in param_names:
        if name in out:
            continue
        source: Unit | None
        if single is not None:
            source, keys = single, [name]
        elif name in table:
            source, keys = target, [table[name]]
        elif name.startswith("target_"):
            source, keys = target, [name[7:], name]
        else:
            source, keys = actor, [name]
        if source is None:
            continue
        known = facts(source)
        for key in keys:
            if key in known:
                out[name] = known[key]
                filled[name] = f"{source.name}.{key}"
                break
    if procedure == "fow.shoot" and target is not None and "target" not in out:
        # no type stat: a unit with armour is a tank (infantry, guns and unarmoured
        # vehicles have none), rather than the parameter's default, infantry
        armour = facts(target).get("armour")
        if isinstance(armour, int) and not isinstance(armour, bool) and armour > 0:
            out["target"] = "tank"
            filled["target"] = f"{target.name}.armour"
    return out, filled


def marker_source(unit: Unit, marker: str) -> Msg:
    """Where a value came from: a marker on a unit."""
    return msg("{unit}: {marker} marker", unit=unit.name, marker=Msg(marker.replace("_", " ")))


def marker_situation(game: str, procedure: str, actors: Sequence[Unit],
                     target: Unit | None) -> dict[str, tuple[Any, Msg]]:
    """What the markers on the target of a unit-built resolution say (see
    :func:`warroom.units.build`'s ``known``): FoW ``gone_to_ground``, ``concealed``,
    ``bailed_out`` (that many tanks), ``destroyed`` (those teams are gone), ``hits``
    (the hits of this phase's shooting so far: ``hits_before``, for pinning; a new
    phase clears it, :data:`warroom.battle.state.PHASE_CLEARS`); ASL ``broken`` (the
    whole stack);
    BKC/CWC ``hits``, ``suppressed`` and the cover markers (the target's ``cover``, the
    first acting unit's ``own_cover``)."""
    if target is None:
        return {}
    m = target.markers
    out: dict[str, tuple[Any, Msg]] = {}

    def put(key: str, value: Any, marker: str) -> None:
        if value:
            out[key] = (value, marker_source(target, marker))

    if procedure.startswith("fow."):
        for name in ("gone_to_ground", "concealed"):
            put(name, bool(m.get(name)), name)
        for name in ("bailed_out", "destroyed"):
            put(name, _count(m.get(name)), name)
        put("target_pinned", bool(m.get("pinned")), "pinned")
        if procedure in ("fow.shoot", "fow.shoot_mixed"):
            put("hits_before", _count(m.get("hits")), "hits")
    elif procedure == "asl.cct" and m.get("pinned"):
        put("target_pinned", True, "pinned")
    elif procedure.startswith("asl.") and m.get("broken") and target.profile:
        from warroom.games.asl.counters import parse_counter

        units = [c for c in target.profile.get("counters", ())
                 if parse_counter(str(c)).kind != "sw"]
        put("broken", len(units), "broken")
    elif procedure.startswith(("bkc.", "cwc.")):
        from warroom.games.commander.play import cover_of

        put("hits", _count(m.get("hits")), "hits")
        put("suppressed", bool(m.get("suppressed")), "suppressed")
        for key, unit in (("cover", target), ("own_cover", actors[0] if actors else None)):
            found = None if unit is None else cover_of(game, dict(unit.markers))
            if unit is not None and found is not None:
                out[key] = (found[0], marker_source(unit, found[1]))
    return out


def stat_overrides(procedure: str, names: Sequence[str], actors: Sequence[Unit],
                   target: Unit | None) -> dict[str, tuple[Any, Msg]]:
    """A unit's free ``key=value`` stats are explicit overrides of what its profile
    gives: a stat named as a parameter of the procedure wins over the profiles (what is
    typed in for the step still wins over it). Parameters about the target
    (``target_X``, ``defender_X``, those of :data:`TARGET_SIDE`) come from the target's
    stats, the others from the first acting unit's."""
    table = TARGET_SIDE.get(procedure, {})
    out: dict[str, tuple[Any, Msg]] = {}
    for name in names:
        about_target = name in table or name.startswith(("target_", "defender_"))
        unit = target if about_target else (actors[0] if actors else None)
        if unit is not None and name in unit.stats:
            out[name] = (unit.stats[name], msg("{unit}: its {stat} stat", unit=unit.name,
                                               stat=name))
    return out


def actor_situation(procedure: str, unit: Unit) -> dict[str, Any]:
    """What the markers on an acting unit say: pinned down (FoW, ASL), its teams
    destroyed (FoW: they do not shoot); a broken ASL stack cannot fire."""
    broken = bool(unit.markers.get("broken"))
    if procedure in ("asl.ift", "asl.fire_group") and broken:
        from warroom.battle.errors import BattleError

        raise BattleError("{unit} is broken: a broken unit cannot fire", unit=unit.name)
    out: dict[str, Any] = {}
    if procedure in ("asl.mc", "asl.rally"):  # the check of a broken unit, its DM
        if broken:
            out["broken"] = 1
        if unit.markers.get("dm"):
            out["dm"] = True
    if procedure.startswith(("fow.", "asl.")) and unit.markers.get("pinned"):
        out["pinned"] = True
    if procedure.startswith("fow.") and _count(unit.markers.get("destroyed")):
        out["lost"] = _count(unit.markers.get("destroyed"))
    if procedure.startswith(("bkc.", "cwc.")) and unit.markers.get("suppressed"):
        out["own_suppressed"] = True
    if procedure.endswith(".assault") and unit.markers.get("eliminated"):
        out["eliminated"] = True  # a BKC/CWC supporter that is gone gives no support
    if procedure.startswith("fow.") and _count(unit.markers.get("bailed_out")):
        out["own_bailed_out"] = _count(unit.markers.get("bailed_out"))
    return out


def support_situation(procedure: str, unit: Unit) -> dict[str, Any]:
    """What the markers on a unit supporting the target say (a BKC/CWC assault's
    defender): ``suppressed``, ``eliminated``."""
    del procedure
    return {k: True for k in ("suppressed", "eliminated") if unit.markers.get(k)}


def _stack_effects(outcome: Mapping[str, Any], flag: Any, add: Any) -> None:
    """An ASL stack (a unit with its counters) after an IFT result: eliminated when every
    unit is; broken when every survivor is; pinned when every survivor is pinned or
    broken and one is pinned; each casualty reduction counts."""
    states = [part.partition("=")[2] for part in str(outcome.get("units", "")).split(",")
              if "=" in part]
    alive = [s.split("+") for s in states if s != "eliminated"]
    if states and not alive:
        flag("eliminated", True)
        return
    flag("broken", bool(alive) and all("broken" in s for s in alive))
    flag("pinned", bool(alive) and all("broken" in s or "pinned" in s for s in alive)
         and any("pinned" in s for s in alive) and not all("broken" in s for s in alive))
    add("casualty_reduction", sum(1 for s in states if "reduced" in s.split("+")))


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

    if procedure in ("fow.shoot", "fow.shoot_mixed"):
        add("hits", _count(outcome.get("hits")))
        add("destroyed", _count(outcome.get("destroyed")))
        add("bailed_out", _count(outcome.get("bailed_out")))
        flag("pinned", outcome.get("pinned"))
        teams = subject.teams
        if teams is not None and int(markers.get("destroyed", 0)) >= teams > 0:
            flag("eliminated", True)
    elif procedure == "asl.mc":
        flag("broken", outcome.get("broken"))
        add("casualty_reduction", _count(outcome.get("casualty_reduction")))
        flag("eliminated", outcome.get("eliminated"))
        flag("replaced", outcome.get("replaced"))
        flag("pinned", outcome.get("pinned"))
    elif procedure == "fow.unpin" and outcome.get("unpinned") and markers.get("pinned"):
        changes["pinned"] = None
        markers.pop("pinned")
    elif procedure == "fow.remount" and outcome.get("remounted") and markers.get("bailed_out"):
        changes["bailed_out"] = (int(markers["bailed_out"]) - 1) or None
        markers["bailed_out"] = changes["bailed_out"] or 0
    elif procedure in ("asl.ift_on_stack", "asl.fire_group"):
        _stack_effects(outcome, flag, add)
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
