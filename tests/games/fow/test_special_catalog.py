"""The special-rules catalog: every rule of the sources, valid names, clean errors."""

from __future__ import annotations

import re

import pytest
from pydantic import ValidationError

from warroom.games.fow.special_rules import catalog
from warroom.games.fow.special_rules.listing import rules_table
from warroom.games.fow.special_rules.params import RulesParams

REQUIRED = [
    "quality_of_quantity", "schurzen", "shtraf", "komissar", "stormtroopers",
    "mission_tactics", "time_on_target", "mike_target", "volley_fire", "hen_and_chicks",
    "tally_ho", "semi_indirect_fire", "automatic_rifles", "stabilizers", "british_bulldog",
    "improvised_armour", "for_the_fatherland", "tip_and_run", "tiger_ace", "stuka_zu_fuss",
    "infiltration", "kampfgruppe", "tank_destroyers", "big_battalions", "mixed_battalions",
    "night_attack", "reich_divided", "tow_hooks",
]

# Every rule named in the special-rules part of the card (seed 000) and in the four
# national articles (seed 002), as we named them.
FROM_SOURCES = [
    "dismounting_mgs", "mounting_mgs", "excellent_communications",
    "hit_em_with_everything", "truscott_trot", "under_command", "air_observation_post",
    "armoured_rocket_launchers", "mounted_assault", "recoilless_rifles", "begleit_escorts",
    "schnell", "clever_hans", "every_shot_counts", "rapid_fire", "top_ace",
    "carry_on_sergeant", "eight_gun_batteries", "independent_command",
    "combined_bombardment", "hmg_bombardments", "rounds_on_the_ground", "broadside",
    "vehicle_mg", "cal_50_vehicle_mg", "centralised_control", "battalion_komissar",
    "limited_vision", "cupola", "roll_up_the_guns", "steel_wall", "tankodesantniki",
    "tank_rider_companies", "unarmed", "amphibious", "fast_tank", "horse_artillery",
    "light_tank", "mountaineers", "overloaded", "portee", "slow_tank", "unreliable",
    "very_slow_tank", "wide_tracks", "awkward_layout", "hmg_carrier", "no_he",
    "passenger_fired_weapons", "protected_ammo", "recoilless_guns", "tank_assault",
    "improvised_tank_assault",
]


def test_every_rule_of_the_sources_is_listed() -> None:
    names = set(catalog.names())
    assert not [n for n in (*REQUIRED, *FROM_SOURCES) if n not in names]
    assert len(catalog.names()) == len(names)  # no duplicates


def test_entries_are_well_formed() -> None:
    for r in catalog.RULES:
        assert re.fullmatch(r"[a-z0-9]+(_[a-z0-9]+)*", r.name), r.name
        assert r.title and r.summary, r.name
        assert all(c.startswith("fow.") for c in r.changes), r.name
        if r.status in ("implemented", "planned"):
            assert r.changes, r.name  # a rule that changes odds says where


def test_implemented_rules_are_tested() -> None:
    """An implemented rule is honoured by one of our procedures, or by a core procedure
    whose odds with the rule are checked in one of the fow test files."""
    from pathlib import Path

    from warroom.games.fow.special_rules.listing import procedures

    ids = {p.id for p in procedures()}
    effects = "\n".join(f.read_text("utf-8") for f in Path(__file__).parent.glob("test_*.py")
                        if f.name != Path(__file__).name)
    for r in catalog.RULES:
        if r.status != "implemented":
            continue
        own = [c for c in r.changes if c in ids]
        named = f'"{r.name}' in effects or re.search(rf'rules="[^"]*\b{r.name}\b', effects)
        assert own or named, (
            f"{r.name} is marked implemented but no test shows a procedure honouring it")


def test_parse_rule_list() -> None:
    assert catalog.parse_rule_list("Quality of Quantity; schurzen") == (
        "quality_of_quantity", "schurzen")
    assert catalog.parse_rule_list(["tip-and-run", "tip_and_run"]) == ("tip_and_run",)
    assert catalog.parse_rule_list("") == ()
    with pytest.raises(ValueError, match="Did you mean 'schurzen'"):
        catalog.parse_rule_list("schurtzen")


def test_rules_params_reject_unknown_names_with_the_valid_ones() -> None:
    with pytest.raises(ValidationError) as err:
        RulesParams.model_validate({"rules": "no_such_rule"})
    assert "komissar" in str(err.value)
    p = RulesParams.model_validate({"rules": "komissar", "target_rules": ["schurzen"]})
    assert p.has("komissar") and p.target_has("schurzen") and not p.has("schurzen")


def test_get_unknown_is_a_usage_error() -> None:
    from warroom.errors import UsageError

    assert catalog.get("shtraf").nation == "soviet"
    with pytest.raises(UsageError):
        catalog.get("shtraff")


def test_rules_table_lists_every_rule() -> None:
    table = rules_table()
    assert list(table) == list(catalog.names())
    qoq = table["quality_of_quantity"]
    assert qoq["nation"] == "soviet" and "fow.shoot" in qoq["changes"]
    assert set(qoq) == {"title", "nation", "summary", "changes", "status"}


def test_docs_list_every_rule_with_its_status() -> None:
    from pathlib import Path

    doc = (Path(__file__).parents[3] / "docs" / "fow-special-rules.md").read_text("utf-8")
    rows = {line.split("|")[2].strip().strip("`"): line for line in doc.splitlines()
            if line.startswith("| ") and line.count("`") >= 2 and "|" in line[2:]}
    for r in catalog.RULES:
        assert r.name in rows, r.name
        word = {"implemented": "implemented", "data": "data only", "planned": "not yet"}
        assert word[r.status] in rows[r.name], r.name


def test_coverage_page_lists_every_rule_with_its_status() -> None:
    from pathlib import Path

    doc = (Path(__file__).parents[3] / "docs" / "fow-coverage.md").read_text("utf-8")
    word = {"implemented": "implemented", "data": "data only", "planned": "not yet"}
    for r in catalog.RULES:
        changes = ", ".join(f"`{c}`" for c in r.changes) or "—"
        assert f"| `{r.name}` | {r.nation} | {word[r.status]} | {changes} |" in doc, r.name


def test_rules_that_do_not_change_the_dice_are_explained_in_the_steps() -> None:
    import warroom

    res = warroom.roll("fow.test", {"kind": "motivation", "rating": "confident",
                                    "rules": "night_attack,shtraf"}, entered=[1])
    texts = [s.to_dict()["text"] for s in res.steps]
    # Night Attack changes nothing in a motivation test: it is shown, not applied;
    # Shtraf changes the target number, so it appears as a modifier instead.
    assert texts[0].startswith("Night Attack (acting side): ")
    assert not any(t.startswith("Shtraf") for t in texts)
    assert res.outcome == {"passed": False}
