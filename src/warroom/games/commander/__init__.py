"""Blitzkrieg Commander and Cold War Commander: one core of procedures, two rule sets.

The procedures live in :mod:`.core`; what differs between the games (modifiers, hit
scores, blunder tables, assault values, deviation, AA, breakpoints) is in ``bkc.toml``
and ``cwc.toml``. Nothing registers on import: the registry calls the factories.
"""

from __future__ import annotations

from typing import Any

from warroom.engine.registry import GameSystem
from warroom.games.commander import core
from warroom.games.commander.data import Call, Rules, load


def build_system(rules: Rules) -> GameSystem:
    """A game system from one rule set's data."""
    procedures = (
        core.command(rules),
        core.orders(rules),
        core.support_call(rules, "artillery"),
        core.support_call(rules, "air"),
        core.aa_fire(rules),
        core.fire(rules),
        core.assault(rules),
    )
    return GameSystem(rules.id, rules.title, procedures, tables=tables(rules),
                      description=rules.description)


def _modifiers(call: Call) -> dict[str, str]:
    out: dict[str, str] = {}
    for s in call.modifiers:
        if s.value:
            out[s.param] = f"{s.value:+d}: {s.label}"
    return out


def _faces(faces: tuple[int, ...]) -> str:
    return str(faces[0]) if len(faces) == 1 else f"{faces[0]}-{faces[-1]}"


def tables(rules: Rules) -> dict[str, Any]:
    """The reference data shown by ``warroom rules``: the card's tables as data."""
    f = rules.fire
    a = rules.assault
    out: dict[str, Any] = {
        "command_modifiers": _modifiers(rules.command),
        "artillery_call_modifiers": _modifiers(rules.artillery),
        "air_call_modifiers": _modifiers(rules.air),
        "target_area": {"artillery": rules.artillery.area, "air": rules.air.area},
        "hit_scores": {**{f"in {k}": f"{v}+" for k, v in f.cover.items()},
                       "HQ (always)": f"{f.hq_score}+",
                       "full armour, indirect fire": f"{f.indirect_full_armour}+",
                       "open-topped armour, indirect fire": f"{f.indirect_open_topped}+"},
        "fire_modifiers": {s.param: f"{s.value:+d}: {s.label}" for s in f.modifiers},
        "assault_values": dict(a.values),
        "assault_modifiers": {s.param: f"{s.value:+d}: {s.label}" for s in a.modifiers},
        "anti_aircraft": {"who fires": rules.aa.who, "hits on": f"{rules.aa.hit_score}+",
                          "abort on": f"{rules.aa.abort_score}+"},
    }
    for name, entries in rules.blunders.items():
        out[f"{name}_blunders"] = [f"{_faces(e.faces)} {e.title} {e.text}" for e in entries]
    if f.recce_cover_shift:
        out["hit_scores"]["recce"] = "cover counts one level better"
    if f.suppressive_score is not None:
        out["hit_scores"]["suppressive fire"] = f"{f.suppressive_score}+"
    if f.flamer_score is not None:
        out["hit_scores"]["vehicle flamethrower or sniper firing"] = f"{f.flamer_score}+"
    if f.damage:
        out["damage"] = [f"{_faces(e.faces)} {e.key}: {e.text}" for e in f.damage]
    out.update(rules.tables)
    return out


def bkc_system() -> GameSystem:
    """Blitzkrieg Commander."""
    return build_system(load("bkc"))


def cwc_system() -> GameSystem:
    """Cold War Commander."""
    return build_system(load("cwc"))
