"""Every ASL step renders in every language, and the asl catalogs keep placeholders."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from warroom import api, i18n
from warroom.engine import drivers
from warroom.engine.params import validate

CATALOGS = Path(i18n.__file__).parent
PLACEHOLDER = re.compile(r"\{(\w+)(?::[^}]*)?\}")

CASES = [
    ("asl.ift", {"fp": 4}),
    ("asl.ift", {"fp": 3, "area_fire": 1, "pbf": True, "assault_fire": True,
                 "terrain": "wooden_building", "hindrance": 1, "ffmo": True, "ffnam": True,
                 "ft_carried": 1, "inexperienced": True}),
    ("asl.ift", {"gun_mm": 75, "area_fire": 1, "pbf": True, "assault_fire": True}),
    ("asl.ift", {"fp": 0.5}),
    ("asl.mc", {"morale": 7, "elr": 0, "drm": 3}),
    ("asl.mc", {"morale": 7, "broken": True}),
    ("asl.mc", {"kind": "ptc"}),
    ("asl.mc", {"kind": "ptc", "broken": True}),
    ("asl.leader_wound", {"wounded": True, "unit_morale": 6, "unit_elr": 0}),
    ("asl.cct", {"ambush": "attacker", "cx": "both", "pinned": "both", "leader_drm": -1,
                 "inexperienced": True, "attacking_broken": True}),
    ("asl.ambush", {"attacker_cx": True, "defender_leader_drm": -1}),
    ("asl.ift_on_stack", {"result": "K/2",
                          "units": "squad:7:0,leader:8:-1,hs:6:broken,leader:9:-2:wounded"}),
    ("asl.ift_on_stack", {"result": "2KIA", "units": "squad:7,leader:8:-1:broken,hs:6"}),
    ("asl.ift_on_stack", {"result": "PTC", "units": "squad:7,leader:8:-1,hs:6:broken"}),
    ("asl.ift_on_stack", {"result": "-", "units": "squad:7"}),
    ("asl.ift_on_stack", {"result": "NMC", "units": "9-2:broken,8-1,4-6-7:broken,2-4-8"}),
    ("asl.fire_group", {"firers": "6-6-6:af,6-6-6:pinned,8-1", "target": "4-4-7,9-1",
                        "phase": "afph", "terrain": "grain"}),
    ("asl.rally", {"unit": "4-6-7", "dm": True, "leader": "9-2:wounded",
                   "terrain": "woods"}),
    ("asl.cct", {"attackers": "4-6-7:pinned,8-1", "defenders": "4-4-7,2-3-7"}),
]


@pytest.mark.parametrize("lang", ["en", "pl", "zh"])
@pytest.mark.parametrize(("proc_id", "raw"), CASES)
def test_steps_render(proc_id: str, raw: dict[str, object], lang: str) -> None:
    proc = api.registry().procedure(proc_id)
    params = validate(proc, raw)
    tr = i18n.translator(lang)
    for seed in range(8):
        res = drivers.roll(proc, params, seed=seed)
        for step in res.steps:
            data = step.to_dict(tr)
            assert data["text"] and "{" not in data["text"], data["text"]
            if data["result"]:
                assert "{" not in data["result"], data["result"]


def test_chinese_uses_the_card_terms() -> None:
    tr = i18n.translator("zh")
    assert "士气检查" in tr("Morale check")
    assert "火力压制" in tr("every unit fired on takes a pin task check")
    assert "溃散" in tr("failed: breaks (DM)")


def test_chinese_uses_the_card_words_for_replaced_and_assault_fire() -> None:
    tr = i18n.translator("zh")
    assert "降格" in tr("replaced+broken")
    assert i18n.label(tr, "assault_fire", "asl.ift") == "突击射击"
    assert "突击射击" in tr("assault fire: rounded up, +1")
    assert i18n.label(tr, "final_dr", "asl.ift") == "最后骰数"  # one word for final DR
    assert "最后骰数" in tr("final DR {final} against morale {morale}")
