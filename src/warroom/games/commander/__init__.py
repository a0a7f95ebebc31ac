"""Blitzkrieg Commander and Cold War Commander: one core of procedures, two rule sets.

The procedures live in :mod:`.core`; what differs between the games (modifiers, hit
scores, blunder tables, assault values, deviation, AA, breakpoints) is in ``bkc.toml``
and ``cwc.toml``. Nothing registers on import: the registry calls the factories.
"""

from __future__ import annotations

from typing import Any

from warroom.engine.registry import GameSystem
from warroom.games.commander import core
from warroom.games.commander.data import ModSpec, Rules, load
from warroom.games.commander.engagement import engagement


def build_system(rules: Rules) -> GameSystem:
    """A game system from one rule set's data."""
    fire = core.fire(rules)
    procedures = (
        core.command(rules),
        core.orders(rules),
        core.support_call(rules, "artillery"),
        core.support_call(rules, "air"),
        core.aa_fire(rules),
        fire,
        core.assault(rules),
        core.air_strike(rules, fire.params),
        core.crossfire(rules, fire.params),
        engagement(rules, fire),
    )
    from warroom.games.commander import play, units

    return GameSystem(rules.id, rules.title, procedures, tables=tables(rules),
                      description=rules.description,
                      phases=play.BKC_PHASES if rules.id == "bkc" else play.CWC_PHASES,
                      markers=play.markers(rules.id), profile=units.CommanderUnit,
                      takes=units.takes(rules.id, tuple(rules.assault.values),
                                        rules.assault.armour_types[0],
                                        rules.assault.support_bars))


def _modifiers(specs: tuple[ModSpec, ...]) -> dict[str, str]:
    """Each modifier's reason and its value: one translatable text a key."""
    return {s.label: f"{s.value:+d}" for s in specs if s.value}


def _faces(faces: tuple[int, ...]) -> str:
    return str(faces[0]) if len(faces) == 1 else f"{faces[0]}-{faces[-1]}"


def tables(rules: Rules) -> dict[str, Any]:
    """The reference data shown by ``warroom rules``: the card's tables as data. Every
    key and text is one catalog message, so the tables read in the reader's language."""
    f = rules.fire
    a = rules.assault
    scores: dict[str, str] = {k: f"{v}+" for k, v in f.cover.items()}
    scores.update({"HQ (always)": f"{f.hq_score}+",
                   "full armour, indirect fire": f"{f.indirect_full_armour}+",
                   "open-topped armour, indirect fire": f"{f.indirect_open_topped}+"})
    if f.recce_cover_shift:
        scores["recce"] = "cover counts one level better"
    if f.suppressive_score is not None:
        scores["suppressive fire"] = f"{f.suppressive_score}+"
    if f.flamer_score is not None:
        scores["vehicle flamethrower or sniper firing"] = f"{f.flamer_score}+"
    out: dict[str, Any] = {
        "command_modifiers": _modifiers(rules.command.modifiers),
        "artillery_call_modifiers": _modifiers(rules.artillery.modifiers),
        "air_call_modifiers": _modifiers(rules.air.modifiers),
        "target_area": {"artillery": rules.artillery.area, "air": rules.air.area},
        "hit_scores": scores,
        "fire_modifiers": _modifiers(f.modifiers),
        "assault_values": dict(a.values),
        "assault_modifiers": _modifiers(a.modifiers),
        "anti_aircraft": {"who fires": rules.aa.who, "hits on": f"{rules.aa.hit_score}+",
                          "abort on": f"{rules.aa.abort_score}+"},
    }
    for name, entries in rules.blunders.items():
        out[f"{name}_blunders"] = {_faces(e.faces): [e.title, e.text] for e in entries}
    if f.damage:
        out["damage"] = {_faces(e.faces): e.text for e in f.damage}
    out.update(rules.tables)
    return out


def bkc_system() -> GameSystem:
    """Blitzkrieg Commander."""
    return build_system(load("bkc"))


def cwc_system() -> GameSystem:
    """Cold War Commander."""
    return build_system(load("cwc"))
