"""Flames of War: the reference card's tests, shooting and hit effects, artillery, air
support, assaults, and the data tables (phases, movement, command, weapons)."""

from __future__ import annotations

from typing import Any

from warroom.engine.procedure import Procedure
from warroom.engine.registry import GameSystem

TABLE_FILES = ("phases", "movement", "command", "to_hit", "weapons", "vehicle_mgs")


def load_tables() -> dict[str, Any]:
    """The data tables, read from the TOML files beside this module."""
    import tomllib
    from importlib import resources

    out: dict[str, Any] = {}
    base = resources.files(__package__) / "data"
    for name in TABLE_FILES:
        out[name] = tomllib.loads((base / f"{name}.toml").read_text(encoding="utf-8"))
    return out


def explaining_rules(proc: Procedure) -> Procedure:
    """The procedure, opening its steps with a reminder of each special rule named in
    ``rules``/``target_rules`` that does not change its dice (what the rule lets or
    stops players do), so the rule is shown where it is relevant."""
    import dataclasses

    from warroom.engine.context import Dice
    from warroom.engine.messages import Msg
    from warroom.games.fow.special_rules import catalog

    inner = proc.run

    def run(p: Any, d: Dice) -> Any:
        for side, names in (("acting side", getattr(p, "rules", ())),
                            ("target side", getattr(p, "target_rules", ()))):
            for name in names:
                rule = catalog.get(name)
                if proc.id not in rule.changes:
                    d.note("fow.special_rules", "{title} ({side}): {summary}",
                           title=Msg(rule.title), side=Msg(side), summary=Msg(rule.summary))
        return inner(p, d)

    return dataclasses.replace(proc, run=run)


def system() -> GameSystem:
    from warroom.games.fow.air import PROCEDURES as AIR
    from warroom.games.fow.artillery import PROCEDURES as ARTILLERY
    from warroom.games.fow.assault import PROCEDURES as ASSAULT
    from warroom.games.fow.checks import PROCEDURES as CHECKS
    from warroom.games.fow.engagement import PROCEDURES as ENGAGEMENT
    from warroom.games.fow.mixed import PROCEDURES as MIXED
    from warroom.games.fow.passengers import PROCEDURES as PASSENGERS
    from warroom.games.fow.shooting import PROCEDURES as SHOOTING
    from warroom.games.fow.special_rules import listing as special

    procs: list[Procedure] = [*CHECKS, *SHOOTING, *MIXED, *ARTILLERY, *AIR, *ASSAULT, *PASSENGERS]
    procs.extend(ENGAGEMENT)
    tables = load_tables()
    extra = getattr(special, "procedures", None)
    if callable(extra):
        procs.extend(extra())
    procs = [explaining_rules(p) for p in procs]
    rules_table = getattr(special, "rules_table", None)
    if callable(rules_table):
        tables["special_rules"] = rules_table()
    from warroom.games.fow import builders, play, units

    return GameSystem(
        "fow", "Flames of War", tuple(procs), tables=tables, phases=play.PHASES,
        markers=play.MARKERS, phase_clears=play.PHASE_CLEARS, profile=units.FowPlatoon,
        takes={**builders.takes(), **units.takes()},
        description="Flames of War (WWII, 15 mm): the reference card's tests, shooting and "
                    "hit effects, artillery, air support and assaults, with exact odds.")
