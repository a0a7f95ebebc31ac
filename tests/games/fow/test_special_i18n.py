"""Polish and Chinese translations of the special rules' texts."""

from __future__ import annotations

import re
from typing import Any

import pytest

from warroom.engine import drivers
from warroom.engine.messages import Msg
from warroom.engine.params import validate
from warroom.games.fow.special_rules import catalog
from warroom.games.fow.special_rules.listing import procedures
from warroom.i18n import catalog as translations

LANGS = ("pl", "zh")

# Parameters that walk every branch of each procedure's story between them.
CASES: list[tuple[str, dict[str, Any]]] = [
    ("fow.stormtroopers", {}), ("fow.stormtroopers", {"pinned": True}),
    ("fow.stormtroopers", {"rules": "schnell"}),
    ("fow.tip_and_run", {}), ("fow.tip_and_run", {"shot": False}),
    ("fow.armoured_rocket_launchers", {}), ("fow.armoured_rocket_launchers", {"fired": False}),
    ("fow.tiger_ace", {}), ("fow.tiger_ace", {"team": "commander"}),
    ("fow.stuka_zu_fuss", {"target": "tank", "firepower": 3}),
    ("fow.stuka_zu_fuss", {"target": "gun", "dug_in": True, "firepower": 3}),
    ("fow.stuka_zu_fuss", {"target_skill": "veteran", "concealed": True,
                           "gone_to_ground": True, "observer_hq": True}),
    ("fow.kampfgruppe", {"members": "veteran/confident", "donors": "tank:5:2",
                         "rules": "tiger_ace"}),
    ("fow.komissar", {"commander_reroll": True}), ("fow.komissar", {"komissar": "battalion"}),
    ("fow.komissar", {"test": "other"}),
    ("fow.infiltration", {}), ("fow.infiltration", {"in_sight_within_40cm": True,
                                                    "concealed": False}),
    ("fow.infiltration", {"prepared_positions": False}),
    ("fow.british_bulldog", {"motivations": "confident,reluctant"}),
    ("fow.tank_destroyers", {"security_commander_destroyed": True}),
    ("fow.tank_destroyers", {"security_at_double_or_reorganising": True}),
    ("fow.tank_destroyers", {"nearest_enemy_cm": 5}),
]

CORE_WORDS = {"passed", "failed", "yes", "no", "none"}


def _templates(m: Msg) -> list[str]:
    out = [m.template]
    for v in m.args.values():
        if isinstance(v, Msg):
            out.extend(_templates(v))
    return out


def _ours(step_rule: str) -> bool:
    return step_rule.split(".")[1] in {p.id.split(".")[1] for p in procedures()}


@pytest.mark.parametrize("lang", LANGS)
def test_every_step_text_is_translated(lang: str) -> None:
    table = translations(lang)
    by_id = {p.id: p for p in procedures()}
    missing: set[str] = set()
    for pid, raw in CASES:
        proc = by_id[pid]
        params = validate(proc, raw)
        for seed in range(12):
            for step in drivers.roll(proc, params, seed=seed).steps:
                if not _ours(step.rule):
                    continue
                msgs = [step.text]
                if step.target is not None:
                    msgs.append(step.target.reason)
                    msgs.extend(mod.reason for mod in step.target.modifiers)
                for m in msgs:
                    for t in _templates(m):
                        if t not in table and t not in CORE_WORDS and "{what}" not in t \
                                and not re.fullmatch(r"[a-z_]+", t):
                            missing.add(t)
    assert not missing, sorted(missing)


@pytest.mark.parametrize("lang", LANGS)
def test_rule_titles_summaries_and_procedures_are_translated(lang: str) -> None:
    table = translations(lang)
    texts = [t for r in catalog.RULES for t in (r.title, r.summary)]
    texts += [t for p in procedures() for t in (p.title, p.summary)]
    assert not [t for t in texts if t not in table]
