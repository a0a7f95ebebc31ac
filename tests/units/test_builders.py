"""The builders beyond shooting, hand-checked against the example forces: each value,
where it came from, and what the live state (lost, bailed out, pinned, broken,
suppressed) changes. The example forces:

* FoW: Shermans (3 tanks, trained, confident, front/side/top 6/4/1, 75mm AT 10 FP 3+,
  ROF 2), Panthers (2 tanks, veteran, 10/5/1, 75mm long AT 14 FP 3+), Rifle platoon
  (6 infantry teams, trained, confident, rifle ROF 1 AT 2 FP 6).
* ASL: Firegroup (4-6-7, 4-6-7, 8-1, MMG 4-10 B11; ELR 3), Target stack (4-4-7,
  hs 2-4-7, 8-0; ELR 2).
* BKC: Tanks (3 afv, save 5, hits 4, armoured), Infantry (hits 3), HQ (CV 9).
"""

from __future__ import annotations

from fractions import Fraction

import pytest

import warroom
from warroom.errors import UsageError
from warroom.units import GAME_OF, NEEDS, SEVERAL, NoUnitMeaningError, params_for

RIFLES = "example:fow:Rifle platoon"


def said(built: warroom.units.Built, key: str) -> str:
    return str(built.sources[key])


# -- FoW assault -------------------------------------------------------------------------

def test_fow_assault_both_sides_from_their_teams() -> None:
    b = params_for("fow.assault", "example:fow:Shermans", RIFLES)
    p = b.params
    # Shermans: 3 tanks fight as tanks, side 4 (defensive fire), top 1, main gun AT 10 FP 3
    assert (p["attackers"], p["attacker_type"]) == (3, "tank")
    assert (p["attacker_armour"], p["attacker_top_armour"]) == (4, 1)
    assert (p["attacker_at"], p["attacker_firepower"]) == (10, 3)
    assert said(b, "attacker_armour") == "Shermans, side armour"
    # the rifle platoon: 6 infantry teams, AT 2 FP 1+ against tanks
    assert (p["defenders"], p["defender_type"]) == (6, "infantry")
    assert (p["defender_at"], p["defender_firepower"]) == (2, 1)
    # defensive fire: 6 teams x rifle ROF 1 = 6 dice, AT 2, FP 6
    assert (p["defensive_dice"], p["defensive_at"], p["defensive_firepower"]) == (6, 2, 6)
    assert said(b, "defensive_dice") == ("Rifle platoon: every fighting team's main weapon "
                                         "at full ROF")
    assert said(b, "defender_skill") == "Rifle platoon, skill"


def test_fow_assault_live_state() -> None:
    # 2 of the 6 rifle teams destroyed and the platoon pinned: 4 defenders, 4 x ROF 1;
    # 1 Sherman lost and 1 bailed out: 1 tank assaults
    b = params_for("fow.assault", {"unit": "example:fow:Shermans"}, RIFLES,
                   lost=1, own_bailed_out=1, destroyed=2, target_pinned=True)
    p = b.params
    assert (p["attackers"], p["defenders"], p["defensive_dice"]) == (1, 4, 4)
    assert said(b, "attackers") == "Shermans: its teams, 1 destroyed, 1 bailed out"
    assert said(b, "defenders") == "Rifle platoon: its teams, 2 destroyed"
    assert said(b, "defensive_dice") == ("Rifle platoon: every fighting team's main "
                                         "weapon, ROF 1 (pinned down)")
    # an explicit value wins over the units
    assert params_for("fow.assault", "example:fow:Shermans", RIFLES,
                      attackers=2).sources["attackers"] == warroom.units.GIVEN


def test_fow_assault_odds_equal_the_hand_written_parameters() -> None:
    built = params_for("fow.assault", "example:fow:Panthers", RIFLES)
    from_units = warroom.odds("fow.assault", from_unit="example:fow:Panthers",
                              at_unit=RIFLES)
    by_hand = warroom.odds("fow.assault", **built.params)
    assert list(from_units.items()) == list(by_hand.items())


def test_fow_assault_defending_tanks() -> None:
    # infantry assaulting Panthers: the Panthers defend as tanks, top armour 1, and
    # fire 2 x ROF 2 = 4 dice of their long 75mm, AT 14 FP 3+
    p = params_for("fow.assault", RIFLES, "example:fow:Panthers").params
    assert (p["defender_type"], p["defender_top_armour"]) == ("tank", 1)
    assert (p["defensive_dice"], p["defensive_at"], p["defensive_firepower"]) == (4, 14, 3)
    assert (p["attacker_type"], p["attacker_at"]) == ("infantry", 2)


# -- FoW tests and morale ----------------------------------------------------------------

def test_fow_tests_take_the_ratings() -> None:
    assert params_for("fow.test", "example:fow:Panthers").params["rating"] == "veteran"
    b = params_for("fow.test", "example:fow:Panthers", kind="motivation")
    assert (b.params["rating"], said(b, "rating")) == ("confident", "Panthers, motivation")
    assert params_for("fow.unpin", RIFLES).params["motivation"] == "confident"
    assert params_for("fow.remount", "example:fow:Shermans").params["motivation"] == \
        "confident"
    b = params_for("fow.bogging", "example:fow:Panthers", terrain="very_difficult")
    assert (b.params["skill"], said(b, "skill")) == ("veteran", "Panthers, skill")
    assert params_for("fow.unbog", "example:fow:Shermans").params["skill"] == "trained"


def test_fow_platoon_morale_counts_teams_in_good_order() -> None:
    # 6 teams, 4 destroyed: 2 left of 6, below half
    b = params_for("fow.morale", RIFLES, lost=4)
    p = b.params
    assert (p["kind"], p["start"], p["left"], p["motivation"]) == ("platoon", 6, 2,
                                                                  "confident")
    assert said(b, "left") == "Rifle platoon: its teams, 4 destroyed"
    # 3 Shermans, 1 destroyed, 1 bailed out: 1 in good order of 3
    p = params_for("fow.morale", "example:fow:Shermans", lost=1, own_bailed_out=1).params
    assert (p["start"], p["left"]) == (3, 1)
    # the odds: a confident platoon's motivation test passes on 4+: 1/2 to hold
    d = warroom.odds("fow.morale", from_unit=RIFLES, lost=4)
    assert d.probability(passed=True) == Fraction(1, 2)


def test_fow_company_morale_from_its_platoons() -> None:
    company = ["example:fow:Shermans", {"unit": RIFLES, "lost": 6},
               {"unit": "example:fow:Panthers", "lost": 2}]
    b = params_for("fow.morale", company)
    # 3 platoons, 2 of them destroyed (all their teams lost): 1 left of 3
    assert (b.params["kind"], b.params["start"], b.params["left"]) == ("company", 3, 1)
    assert said(b, "start").startswith("the company's platoons: Shermans, Rifle platoon")


# -- FoW artillery, air, engagement --------------------------------------------------------

def test_fow_artillery_and_air_from_units() -> None:
    p = params_for("fow.artillery", "example:fow:Shermans", RIFLES).params
    # 3 guns of AT 10 FP 3, trained; 6 infantry teams, trained
    assert (p["guns"], p["at"], p["firepower"], p["battery_skill"]) == (3, 10, 3, "trained")
    assert (p["teams"], p["target"], p["target_skill"]) == (6, "infantry", "trained")
    b = params_for("fow.air", None, "example:fow:Panthers", destroyed=1)
    # 1 of 2 Panthers left; aircraft hit top armour 1
    assert (b.params["teams"], b.params["target"], b.params["armour"]) == (1, "tank", 1)
    assert said(b, "armour") == "Panthers, top armour"


def test_fow_engagement_adds_the_targets_start_and_motivation() -> None:
    p = params_for("fow.engagement", "example:fow:Shermans", RIFLES, range_cm=30).params
    assert (p["dice"], p["teams"], p["start_teams"], p["motivation"]) == (6, 6, 6,
                                                                          "confident")


# -- ASL -------------------------------------------------------------------------------

def test_asl_mc_takes_morale_leader_and_elr() -> None:
    b = params_for("asl.mc", "example:asl:Firegroup")
    # the 4-6-7's morale 7, the 8-1's -1 (ASLRB A10.7), ELR 3
    assert (b.params["morale"], b.params["drm"], b.params["elr"]) == (7, -1, 3)
    assert said(b, "drm") == "Firegroup, leader 8-1 (ASLRB A10.7)"
    # the leader himself checking (counter 3): no leadership DRM of his own
    p = params_for("asl.mc", "example:asl:Firegroup", counter=3).params
    assert p["morale"] == 8 and "drm" not in p
    # a broken leader gives nothing
    assert "drm" not in params_for("asl.mc", "example:asl:Firegroup",
                                   leader_broken=True).params


def test_asl_rally_with_the_stacks_leader() -> None:
    b = params_for("asl.rally", "example:asl:Firegroup")
    assert (b.params["unit"], b.params["leader"]) == ("4-6-7:broken", "8-1")
    p = params_for("asl.rally", "example:asl:Target stack", counter=3, dm=True).params
    # the 8-0 leader alone rallies himself
    assert p["self_rally"] is True and p["dm"] is True and "leader" not in p


def test_asl_close_combat_from_counters() -> None:
    b = params_for("asl.cct", "example:asl:Firegroup", "example:asl:Target stack")
    # the MMG adds no CC FP; the procedure sums 4+4 = 8 against 4+2 = 6
    assert b.params["attackers"] == "4-6-7,4-6-7,8-1"
    assert b.params["defenders"] == "4-4-7,2-4-7:hs,8-0"
    assert "MMG 4-10 B11 left out" in said(b, "attackers")
    pinned = params_for("asl.cct", {"unit": "example:asl:Firegroup"},
                        "example:asl:Target stack", pinned=True).params
    assert pinned["attackers"] == "4-6-7:pinned,4-6-7:pinned,8-1:pinned"
    d = warroom.odds("asl.cct", from_unit="example:asl:Firegroup",
                     at_unit="example:asl:Target stack")
    assert list(d.items()) == list(warroom.odds("asl.cct", **b.params).items())


# -- BKC / CWC -------------------------------------------------------------------------------

def test_bkc_command_takes_the_hqs_cv() -> None:
    b = params_for("bkc.command", "example:bkc:HQ")
    assert (b.params["cv"], said(b, "cv")) == (9, "HQ, command value")
    for proc in ("bkc.orders", "bkc.artillery_call", "bkc.air_call", "cwc.command"):
        assert params_for(proc, "example:bkc:HQ").params["cv"] == 9
    with pytest.raises(UsageError, match="Tanks is not an HQ"):
        params_for("bkc.command", "example:bkc:Tanks")
    # CV 9, first order: 2d6 of 9 or less passes (30/36, the 2 among them a bonus);
    # 12 is a blunder (1/36)
    d = warroom.odds("bkc.command", from_unit="example:bkc:HQ")
    assert d.probability(result="success") + d.probability(result="bonus") == \
        Fraction(5, 6)
    assert d.probability(result="blunder") == Fraction(1, 36)


def test_bkc_assault_types_saves_and_suppression() -> None:
    b = params_for("bkc.assault", "example:bkc:Infantry", "example:bkc:Tanks")
    assert (b.params["attacker"], b.params["defender"]) == ("infantry", "armour")
    assert b.params["defender_save"] == 5 and "attacker_save" not in b.params
    assert said(b, "defender") == "Tanks, type afv"
    p = params_for("cwc.assault", {"unit": "example:cwc:Infantry"}, "example:cwc:Tanks",
                   suppressed=True, own_suppressed=True).params
    # CWC calls its armour "afv"; the suppressed markers of both sides count
    assert p["defender"] == "afv"
    assert p["defender_suppressed"] is True and p["attacker_suppressed"] is True


def test_bkc_assault_supporting_units_and_cover() -> None:
    # Infantry assaults Infantry; the 3 Tanks and the AT gun act with it: the acting
    # units after the first support the attacker, one entry a unit (the Tanks' count 3
    # gives three, fighting as armour; the AT gun's type at_gun is "other" on the card)
    b = params_for("bkc.assault", ["example:bkc:Infantry", "example:bkc:Tanks",
                                   "example:bkc:AT gun"], "example:bkc:Infantry",
                   cover="cover", own_cover="open")
    assert b.params["attacker_supporting"] == "armour,armour,armour,other"
    assert said(b, "attacker_supporting") == "Tanks, type afv, 3 units; AT gun, type at_gun"
    # the target's situation gives the defender's cover, the attacker's own its cover
    assert (b.params["defender_cover"], b.params["attacker_cover"]) == ("cover", "open")
    assert said(b, "defender_cover") == "Infantry: in cover"
    # explicit parameters still win over what the units give
    assert params_for("bkc.assault", ["example:bkc:Infantry", "example:bkc:Tanks"],
                      "example:bkc:Infantry", attacker_supporting="infantry"
                      ).params["attacker_supporting"] == "infantry"


def test_bkc_assault_support_odds_by_hand() -> None:
    # BKC card: each supporting unit adds one hit to its side. Infantry (attack 4) with
    # the AT gun supporting, at Infantry in cover (hit on 5+, no save): the attacker's
    # hits are 1 (the supporter) + Binomial(4, 1/3); exactly 1 when all four dice miss:
    # (2/3)^4 = 16/81; never 0.
    d = warroom.odds("bkc.assault",
                     from_unit=["example:bkc:Infantry", "example:bkc:AT gun"],
                     at_unit="example:bkc:Infantry", cover="cover")
    assert d.probability(attacker_hits=1) == Fraction(16, 81)
    assert d.probability(attacker_hits=0) == 0
    by_hand = warroom.odds("bkc.assault", attacker="infantry", defender="infantry",
                           attacker_supporting="other", defender_cover="cover")
    assert d.probability(winner="attacker") == by_hand.probability(winner="attacker")


def test_cwc_assault_supporters_own_state_and_the_cards_bars() -> None:
    # CWC card: an HQ cannot support an assault; the builder names it, the card refuses
    with_hq = ["example:cwc:Infantry", "example:cwc:HQ"]
    assert params_for("cwc.assault", with_hq, "example:cwc:Infantry"
                      ).params["attacker_supporting"] == "other:hq"
    with pytest.raises(UsageError, match="HQs cannot support an assault"):
        warroom.odds("cwc.assault", from_unit=with_hq, at_unit="example:cwc:Infantry")
    # BKC's card bars no supporter: its HQ supports as "other"
    assert params_for("bkc.assault", ["example:bkc:Infantry", "example:bkc:HQ"],
                      "example:bkc:Infantry").params["attacker_supporting"] == "other"
    # a suppressed supporter (its own marker) gives no support by the default reading
    # (suppressed_support=none); with suppressed_support=counts it fights suppressed when
    # each fights, and on the card's reading adds the same die as any supporter
    acting = ["example:cwc:Infantry", {"unit": "example:cwc:ATGM team",
                                       "own_suppressed": True}]
    none = params_for("cwc.assault", acting, "example:cwc:Infantry")
    assert none.params["attacker_supporting"] == ""
    assert said(none, "attacker_supporting") == ("ATGM team: suppressed, gives no support "
                                                 "(suppressed_support=none)")
    each = params_for("cwc.assault", acting, "example:cwc:Infantry",
                      support_reading="each_fights", suppressed_support="counts").params
    assert each["attacker_supporting"] == "infantry:suppressed"
    card = params_for("cwc.assault", acting, "example:cwc:Infantry",
                      suppressed_support="counts").params
    assert card["attacker_supporting"] == "infantry"
    # CWC: a supporter adds one attack die: Infantry 4 + 1 = 5 dice at Infantry in the
    # open (4+, no save): no hit at all is (1/2)^5 = 1/32; the defender rolls its 4.
    d = warroom.odds("cwc.assault", from_unit=acting, at_unit="example:cwc:Infantry",
                     max_rounds=1, suppressed_support="counts")
    # one round only: attacker 0 hits and defender >= 1 is (1/32) * (1 - 1/16) = 15/512
    assert d.probability(attacker_hits=0, winner="defender") == Fraction(15, 512)


def test_bkc_air_strike_and_crossfire_take_the_target() -> None:
    p = params_for("bkc.air_strike", "example:bkc:HQ", "example:bkc:Tanks", hits=2).params
    assert (p["cv"], p["armoured"], p["save"], p["hits_value"], p["existing_hits"]) == \
        (9, True, 5, 4, 2)
    p = params_for("bkc.crossfire", None, "example:bkc:Infantry").params
    assert p["hits_value"] == 3 and "save" not in p


# -- which procedures take units --------------------------------------------------------

def test_the_procedures_that_take_units_are_read_from_the_games() -> None:
    takes = set(NEEDS)
    for proc in ("fow.assault", "fow.morale", "fow.test", "asl.mc", "asl.rally",
                 "asl.cct", "bkc.command", "bkc.assault", "cwc.air_strike"):
        assert proc in takes and GAME_OF[proc] == proc.partition(".")[0]
    assert "fow.morale" in SEVERAL and "fow.assault" not in SEVERAL
    assert NEEDS["fow.air"] == (False, True)


def test_a_procedure_with_no_unit_meaning_says_so() -> None:
    with pytest.raises(NoUnitMeaningError, match=r"fow\.infiltration has no unit meaning") \
            as caught:
        params_for("fow.infiltration", "example:fow:Shermans")
    assert caught.value.code == "no_unit_meaning"
