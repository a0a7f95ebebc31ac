"""The catalog of Flames of War special rules (national and unit rules).

Interface shared by every fow procedure: a side's rules are given as a list of
snake_case names (``rules=quality_of_quantity,schurzen``). ``RULES`` is the data, one
entry per special rule named in the sources (the special-rules part of the reference
the FoW reference card, and the Soviet, British, US and German FoW articles); see
docs/fow-special-rules.md for the status of each.

``changes`` names the procedures whose odds a rule changes. ``status`` is
``implemented`` when a tested procedure honours it, ``data`` when it only changes what
a player may do (explained, not rolled), and ``planned`` when it changes a roll in a
procedure that does not honour it yet.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from warroom.errors import UsageError

Nation = Literal["soviet", "british", "us", "german", "general"]
Status = Literal["implemented", "data", "planned"]
Category = Literal["national", "unit", "tiger_ace", "vehicle_mg", "movement", "shooting",
                   "assault"]


@dataclass(frozen=True, slots=True)
class SpecialRule:
    name: str                     # snake_case id, e.g. "quality_of_quantity"
    title: str                    # English rule name, e.g. "Quality of Quantity"
    nation: Nation
    summary: str                  # one line in our own words
    changes: tuple[str, ...] = ()  # procedure ids whose odds it changes; () = play only
    status: Status = "data"       # implemented: changes odds in `changes`; data: explained only
    note: str = ""                # sources, card vs article differences, judgement calls
    category: Category = "national"
    source: str = ""              # where in the sources: "card", "article", "card+article"


def _r(name: str, title: str, nation: Nation, summary: str, changes: tuple[str, ...] = (),
       status: Status = "data", note: str = "", category: Category = "national",
       source: str = "card+article") -> SpecialRule:
    return SpecialRule(name, title, nation, summary, changes, status, note, category, source)


# both direct-fire procedures share the to-hit number, its re-rolls and the extra saves
_SHOOTING = ("fow.shoot", "fow.shoot_mixed")
_ART = ("fow.artillery",)
_TEST = ("fow.test",)
# Every motivation test: the core checks and the special rules' own re-roll procedures.
_MOTIVATION = ("fow.test", "fow.unpin", "fow.remount", "fow.morale", "fow.assault",
               "fow.passengers", "fow.komissar", "fow.british_bulldog")

RULES: tuple[SpecialRule, ...] = (
    # --- United States -----------------------------------------------------------
    _r("automatic_rifles", "Automatic Rifles", "us",
       "BAR teams lose the +1 to hit for ROF 1 weapons that moved or are pinned, and "
       "re-roll missed defensive fire when not pinned.",
       ("fow.shoot", "fow.shoot_mixed", "fow.assault"), "implemented",
       "Both halves change to-hit rolls inside fow.shoot (moving_rof1) and the defensive "
       "fire of fow.assault."),
    _r("dismounting_mgs", "Dismounting MGs", "us",
       "Passengers may climb out carrying the vehicle's .50 cal or AA MG and fight as an "
       "M2 .50 cal or LMG team; the platoon's vehicles are then sent to the rear for good.",
       note="Article (Transportery): needs a spare model; a commander stays a commander."),
    _r("mounting_mgs", "Mounting HMGs and LMGs", "us",
       "Up to two HMG or LMG teams riding in half-tracks may mount their guns on the sides "
       "and fire as AA MGs; the gun leaves with the team.",
       note="Card calls them side-mounted MGs; the article limits it to two teams."),
    _r("excellent_communications", "Excellent Communications", "us",
       "Platoon commanders and the company second-in-command may spot for artillery like "
       "the company commander, with the same +1 to range in.",
       ("fow.artillery",), "data",
       "Changes who may observe, not the odds: use observer_hq=true for these observers."),
    _r("hit_em_with_everything", "Hit 'em With Everything You've Got", "us",
       "An artillery platoon with a staff team may fold other artillery platoons into one "
       "bombardment before ranging in, resolved as a mixed bombardment.",
       note="Give fow.artillery the total number of guns; the card words it as other "
            "batteries using the same ranging."),
    _r("stabilizers", "Stabilizers", "us",
       "May fire at full ROF after moving, but at +1 to hit.",
       _SHOOTING, "implemented",
       "In fow.shoot: the player counts full ROF dice; the +1 replaces the ROF-1 moving "
       "penalty (not cumulative with it)."),
    _r("tank_destroyers", "Tank Destroyers", "us",
       "Tank destroyer platoons move cautiously and may disengage; their jeeps save on 3+; "
       "they may keep the destroyers off table behind a security section (Seek, Strike and "
       "Destroy).",
       ("fow.tank_destroyers",), "implemented",
       "fow.tank_destroyers checks the placement of the tank destroyer section and whether "
       "it arrives reorganising (article, LFTF May 2015 update). The card's wording "
       "(cautious movement, withdrawal, deployment off table) is the older summary. The 3+ "
       "save of unarmoured jeeps is a target save in fow.shoot (target=infantry save)."),
    _r("time_on_target", "Time on Target", "us",
       "A battery with a staff team that ranges in on the first attempt forces every team "
       "hit in that first bombardment to re-roll successful saves.",
       _ART, "implemented",
       "Article wins: only on the first attempt and not with All Guns Repeat. The card says "
       "it works with All Guns Repeat when ranged in first time; that is the older wording."),
    _r("truscott_trot", "Truscott Trot", "us",
       "Infantry and man-packed guns move 40 cm instead of 30 cm at the double.",
       note="Card: 'infantry at the double up to 40 cm'."),
    _r("under_command", "Under Command", "us",
       "Company commanders, their 2iC and platoon commanders range in artillery without the "
       "usual +1 when calling their own combat or weapons platoons.",
       _ART, "implemented",
       "In fow.artillery this cancels the observer_hq +1."),
    _r("air_observation_post", "Air Observation Post", "us",
       "If the AOP did not spot in its own turn, enemy ambushes cannot be placed within "
       "30 cm of it and in its line of sight during the enemy turn.",
       source="article"),
    # --- Germany -----------------------------------------------------------------
    _r("armoured_rocket_launchers", "Armoured Rocket Launchers", "german",
       "After firing, the battery may take a skill test in the assault step: on a pass its "
       "smoke trail markers are removed.",
       ("fow.armoured_rocket_launchers",), "implemented",
       "The card says it may use the Stormtrooper move after shooting; the article replaces "
       "the Stormtrooper move or assault with this skill test. Article wins.",
       category="unit"),
    _r("mission_tactics", "Mission Tactics", "german",
       "When a platoon commander is destroyed, another team of the same kind within command "
       "distance takes over at once; without one the platoon is leaderless."),
    _r("mounted_assault", "Mounted Assault", "german",
       "Armoured transports carrying passengers count as (open-topped) tanks except for "
       "platoon morale: they may charge and fight; passengers need not dismount to "
       "counterattack.",
       note="Empty ones stay on the table instead of going to the rear."),
    _r("kampfgruppe", "Kampfgruppe", "german",
       "Before deployment a company with a 2iC may pull up to half the teams of its platoons "
       "into a new platoon led by the 2iC, using the lowest skill and motivation among them.",
       ("fow.kampfgruppe",), "implemented",
       "Each donor platoon keeps at least two tanks or three other teams."),
    _r("recoilless_rifles", "Recoilless Rifles", "german",
       "Firing gives away the position (no Gone to Ground); cannot fire from buildings.",
       note="Card only. Same effect as the general Recoilless Guns rule.", category="unit",
       source="card"),
    _r("schurzen", "Schürzen", "german",
       "A tank hit on the side armour by a firepower 5+ or 6 weapon that fails its armour "
       "save gets a further 4+ save.",
       ("fow.shoot", "fow.shoot_mixed", "fow.air", "fow.assault"), "implemented",
       "Article wins: side armour only and only after a failed armour save. The card says "
       "front or side; we follow the article. Uses fow.shoot aspect=side.",
       category="unit"),
    _r("stormtroopers", "Stormtroopers", "german",
       "A platoon with its commander may take a skill test in the assault step: on a pass it "
       "moves 10 cm more; either way it cannot assault that turn.",
       ("fow.stormtroopers",), "implemented",
       "Not after moving at the double, not when bogged or bailed out, not when pinned "
       "unless armoured, not for immobile guns or guns that fired, nor after a "
       "bombardment."),
    _r("stuka_zu_fuss", "Stuka zu Fuss", "german",
       "Each launcher fires once a game as six guns, with up to six ranging attempts; each "
       "failure takes one gun off the bombardment.",
       ("fow.stuka_zu_fuss",), "implemented",
       "Several launchers of one platoon each range in and bombard separately. The to-hit "
       "penalty for later attempts is not named in the article; fow.stuka_zu_fuss applies "
       "none (rocket launchers ignore it by the card) and says so.",
       category="unit"),
    _r("tiger_ace", "Tiger Ace", "german",
       "Before deployment each Tiger platoon and hero rolls on the Tiger Ace skills table.",
       ("fow.tiger_ace",), "implemented",
       "Skills chosen for a commander or hero apply to that tank only, except Schnell!, "
       "Clever Hans! and For the Fatherland!, which the whole platoon gets.",
       category="unit"),
    _r("reich_divided", "Reich Divided", "german",
       "Heer, Luftwaffe and SS count as allies of each other; paratroops are Luftwaffe.",
       source="article"),
    _r("begleit_escorts", "Begleit Escorts", "german",
       "Assault guns with tank escorts follow the tank escort rules and may fire their hull "
       "MG alongside the hull-mounted main gun.",
       category="unit", source="article"),
    # --- Tiger Ace skills (the German FoW article) ----------------------------------
    _r("schnell", "Schnell!", "german",
       "Tiger Ace skill 1: the platoon makes Stormtrooper moves on 2+.",
       ("fow.stormtroopers",), "implemented", category="tiger_ace", source="article"),
    _r("clever_hans", "Clever Hans!", "german",
       "Tiger Ace skill 2: re-roll failed bogging checks in difficult going and failed skill "
       "tests to unbog.",
       ("fow.bogging", "fow.unbog"), "implemented",
       "With Wide Tracks the tank may free itself after the re-rolled bogging check.",
       category="tiger_ace", source="article"),
    _r("for_the_fatherland", "For the Fatherland!", "german",
       "Tiger Ace skill 3: the platoon passes motivation tests on 2+.",
       _MOTIVATION, "implemented", category="tiger_ace", source="article"),
    _r("every_shot_counts", "Every Shot Counts!", "german",
       "Tiger Ace skill 4: the platoon's Tigers re-roll failed to-hit rolls when shooting.",
       _SHOOTING, "implemented", category="tiger_ace", source="article"),
    _r("rapid_fire", "Rapid Fire!", "german",
       "Tiger Ace skill 5: the Tigers' 8.8 cm guns have ROF 3.",
       note="Changes the number of attack dice the player gives fow.shoot.",
       category="tiger_ace", source="article"),
    _r("top_ace", "Top Ace!", "german",
       "Tiger Ace skill 6: roll again for the platoon (another 6: choose), then roll a third "
       "time for an extra skill of the commander's tank (a 6 or a repeat: choose).",
       ("fow.tiger_ace",), "implemented", category="tiger_ace", source="article"),
    # --- Britain -----------------------------------------------------------------
    _r("british_bulldog", "British Bulldog", "british",
       "When British platoons test motivation to counterattack, one re-roll may be made and "
       "its result applies to every platoon that failed.",
       ("fow.british_bulldog", "fow.assault"), "implemented",
       "fow.british_bulldog: one die is the original roll of every platoon testing to "
       "counterattack, and one re-roll counts for every platoon that failed it (the "
       "article re-rolls 'the result' of 'the original roll')."),
    _r("carry_on_sergeant", "Carry on, Sergeant!", "british",
       "A platoon without its commander may still charge and consolidate, and its assaulting "
       "teams need not stay in command.",
       note="Card: a platoon without a commander may counterattack."),
    _r("eight_gun_batteries", "Eight-Gun and Twelve-Gun Batteries", "british",
       "British batteries with a staff team use Independent Command, Combined Bombardment "
       "and Mixed Battery, and from mid-war Mike Target.",
       note="Card: each of the two gun troops is its own platoon and both may use one HQ "
            "in command. Mixed Battery is named but not described in the sources.",
       category="unit"),
    _r("independent_command", "Independent Command", "british",
       "Any gun troop within command distance of the battery staff counts as having a staff "
       "team (so it may use All Guns Repeat).",
       category="unit", source="article"),
    _r("combined_bombardment", "Combined Bombardment", "british",
       "Gun troops of the battery, and of other batteries with the rule, may join one mixed "
       "bombardment before ranging in.",
       note="Give fow.artillery the combined number of guns.", category="unit",
       source="article"),
    _r("night_attack", "Night Attack", "british",
       "A British infantry company may attack at night outside Meeting Engagements: it "
       "always attacks, the game starts at night under the Dawn rule, and infantry "
       "platoons may use Spearhead."),
    _r("mike_target", "Mike Target", "british",
       "The battery may re-roll its first failed ranging attempt; repeating with All Guns "
       "Repeat brings in the regiment and forces re-rolls of successful saves.",
       _ART, "implemented",
       "Not for early-war British batteries. Card mentions only the All Guns Repeat half.",
       category="unit"),
    _r("hmg_bombardments", "HMG Bombardments", "british",
       "Vickers HMG teams and carriers firing as HMGs may bombard; with no AT or firepower "
       "they cannot hurt armour or teams in bulletproof cover, but still pin.",
       _ART, "data",
       "Resolve with fow.artillery against infantry or guns in the open only.",
       category="unit", source="article"),
    _r("rounds_on_the_ground", "Rounds on the Ground", "british",
       "If both gun troops fire, re-roll missed hits or use a double-width template.",
       _ART, "implemented", "Card only.", category="unit", source="card"),
    _r("semi_indirect_fire", "Semi-indirect Fire", "british",
       "Weapons that did not move re-roll missed main-gun shots at platoons whose teams are "
       "all over 40 cm away.",
       _SHOOTING, "implemented", category="unit"),
    _r("tally_ho", "Tally Ho!", "british",
       "No ROF penalty for moving when firing at 40 cm or less, so always counts as moving; "
       "not at the double.",
       _SHOOTING, "implemented",
       "In fow.shoot: the player counts full ROF dice and moving_rof1 has no effect within "
       "40 cm.", category="unit"),
    _r("broadside", "Broadside", "british",
       "For tanks with Tally Ho! weapons, only the turret's facing decides front or side "
       "armour (not at the double).",
       note="Choose fow.shoot aspect by the turret.", category="unit"),
    _r("tip_and_run", "Tip and Run", "british",
       "Right after shooting the platoon may take a skill test: on a pass it moves 10 cm "
       "away from the platoons it shot; either way it cannot assault that turn.",
       ("fow.tip_and_run",), "implemented",
       "Article wins. The card describes pulling back 10 cm after defensive fire in an "
       "assault.", category="unit"),
    _r("tow_hooks", "Tow Hooks", "british",
       "Tanks with tow hooks may tow 6 pdr and 17 pdr guns, the crew riding as passengers.",
       category="unit"),
    # --- Vehicle machine-guns ----------------------------------------------------
    _r("vehicle_mg", "Vehicle MG", "general",
       "Range 40 cm, ROF 3, AT 2, firepower 6.",
       note="Weapon data: give fow.shoot at=2 firepower=6.", category="vehicle_mg",
       source="card"),
    _r("cal_50_vehicle_mg", ".50 cal Vehicle MG", "general",
       "Range 40 cm, ROF 3, AT 4, firepower 5+.",
       note="Weapon data: give fow.shoot at=4 firepower=5.", category="vehicle_mg",
       source="card"),
    # --- Soviet Union ------------------------------------------------------------
    _r("big_battalions", "Big Battalions", "soviet",
       "A bombardment by nine or more guns uses a double-width template.",
       _ART, "data",
       "Card only. The wider template only changes how many teams are under it: give "
       "fow.artillery that number of teams.",
       category="unit", source="card"),
    _r("centralised_control", "Centralised Control", "soviet",
       "A Soviet company plays as one platoon and a battalion as a company: command, "
       "shooting and morale work at that size."),
    _r("hen_and_chicks", "Hen and Chicks", "soviet",
       "The commander's tank moving makes the whole company move; tanks that moved are +1 "
       "to hit with main guns (so +2 for ROF 1 guns); MGs and flame-throwers are exempt.",
       _SHOOTING, "implemented",
       "Article wins. The card says none may shoot if any tank moved over 15 cm."),
    _r("infiltration", "Infiltration", "soviet",
       "When attacking with the first turn in Prepared Positions, infiltrators and one "
       "named company move 40 cm instead of reconnaissance deployment; unless spotted "
       "automatically the enemy detects them on a 6, and then gets the first turn.",
       ("fow.infiltration",), "implemented",
       "Not closer than 20 cm to the enemy; hero and independent teams are ignored.",
       category="unit"),
    _r("komissar", "Komissar", "soviet",
       "After a failed motivation test to unpin, counterattack or for platoon morale, the "
       "Komissar may destroy a team to re-roll; a re-rolled 1 is a mutiny and kills him.",
       ("fow.komissar",), "implemented",
       "Company or higher commander re-roll comes first; the Komissar re-roll is an "
       "exception to one re-roll per test. Not for Tank Terror or other tests."),
    _r("battalion_komissar", "Battalion Komissar", "soviet",
       "A battalion Komissar who joins a company takes over the company Komissar's duty; "
       "otherwise he is a hero team.",
       ("fow.komissar",), "implemented", source="article"),
    _r("limited_vision", "Limited Vision", "soviet",
       "+1 to hit when shooting into the side or rear arc.",
       _SHOOTING, "implemented", "Card only; a cupola cancels it.", category="unit",
       source="card"),
    _r("cupola", "Cupola", "soviet",
       "Tanks with a commander's cupola ignore Limited Vision.",
       _SHOOTING, "implemented", category="unit"),
    _r("mixed_battalions", "Mixed Battalions", "soviet",
       "A bombardment including three or more 122 mm howitzers has AT 4 and firepower 4+.",
       _ART, "implemented", "Card only.", category="unit", source="card"),
    _r("quality_of_quantity", "Quality of Quantity", "soviet",
       "A company with 15 or more infantry or gun teams in command is pinned only by 10 "
       "hits in a shooting step (one bombardment hit still pins) and may charge and "
       "counterattack from 30 cm.",
       ("fow.shoot", "fow.shoot_mixed", "fow.air", "fow.assault"), "implemented",
       "A bombardment is unchanged (any hit pins). With 15 or more assaulting infantry "
       "teams it needs 10 defensive fire hits to be pinned. The Komissar and attached "
       "teams count. Our reading: aircraft need 10 hits too, as the article keeps the "
       "single-hit pin for artillery bombardments only."),
    _r("roll_up_the_guns", "Roll Up the Guns", "soviet",
       "Soviet medium and heavy guns and staff teams move as light guns."),
    _r("shtraf", "Shtraf Companies", "soviet",
       "Penal companies pass motivation tests on 2+, always attack, never dig in and do "
       "not count for company morale.",
       _MOTIVATION, "implemented", category="unit", source="article"),
    _r("steel_wall", "Steel Wall", "soviet",
       "Batteries mixing 76 mm guns, 122 mm howitzers and 120 mm mortars may fire the "
       "howitzers and mortars as a separate battery from the 76 mm guns.",
       category="unit", source="article"),
    _r("tankodesantniki", "Tankodesantniki", "soviet",
       "SMG infantry riding tanks are tank escorts and may fight without dismounting.",
       category="unit"),
    _r("tank_rider_companies", "Tank-Rider Companies", "soviet",
       "Tank riders save on 3+ as passengers on tanks and need not dismount when hit.",
       ("fow.passengers", "fow.shoot"), "implemented",
       "Honoured by fow.passengers and by fow.shoot with passengers (riders=true).",
       category="unit", source="article"),
    _r("unarmed", "Unarmed", "soviet",
       "Cannot shoot; in assaults must re-roll successful hits.",
       ("fow.assault",), "implemented", "Card only.", category="unit", source="card"),
    _r("volley_fire", "Volley Fire", "soviet",
       "Guns and turretless tanks that did not move re-roll misses when the easiest team "
       "to hit is within 40 cm; not for MGs, AA, bombardments, barrages or ambushes.",
       _SHOOTING, "implemented", category="unit", source="article"),
    # --- Movement ----------------------------------------------------------------
    _r("amphibious", "Amphibious", "general", "Treats water as difficult going.",
       category="movement", source="card"),
    _r("fast_tank", "Fast Tank", "general", "Moves 80 cm at the double.",
       category="movement", source="card"),
    _r("horse_artillery", "Horse Artillery", "general",
       "Fires at full ROF after unlimbering.", category="movement", source="card"),
    _r("light_tank", "Light Tank", "general", "Moves up to 40 cm on road and cross country.",
       category="movement", source="card"),
    _r("mountaineers", "Mountaineers", "general",
       "May move at the double over steep hills, treat mountains as difficult going and "
       "cross cliffs after a passed skill test.",
       _TEST, "data", "The cliff test is a plain skill test (fow.test kind=skill).",
       category="movement", source="card"),
    _r("overloaded", "Overloaded", "general",
       "Bogs down on a 1 or 2 instead of a 1.",
       ("fow.bogging",), "implemented", category="movement", source="card"),
    _r("portee", "Portee", "general", "The gun may be unloaded and fought on the ground.",
       category="movement", source="card"),
    _r("slow_tank", "Slow Tank", "general", "Moves up to 20 cm.", category="movement",
       source="card"),
    _r("unreliable", "Unreliable", "general",
       "Breaks down on a 1 when moving at the double or trying to unbog.",
       ("fow.unbog",), "implemented",
       "Breaking down at the double happens in the movement step, outside any procedure.",
       category="movement", source="card"),
    _r("very_slow_tank", "Very Slow Tank", "general", "Moves up to 15 cm.",
       category="movement", source="card"),
    _r("wide_tracks", "Wide Tracks", "general",
       "A bogged tank frees itself automatically on a 4+.",
       ("fow.bogging", "fow.unbog"), "implemented",
       "Also straight after a failed bogging check: the tank rolls 4+ to free itself at "
       "once (German article, Clever Hans!, which re-rolls the check first).",
       category="movement", source="card"),
    # --- Shooting ----------------------------------------------------------------
    _r("awkward_layout", "Awkward Layout", "general", "Cannot shoot after moving.",
       category="shooting", source="card"),
    _r("hmg_carrier", "HMG Carrier", "general",
       "Fires as an MG when moving and as an HMG when stationary.", category="shooting",
       source="card"),
    _r("improvised_armour", "Improvised Armour", "general",
       "A further 5+ save against firepower 5+ or 6 weapons after a failed armour save.",
       ("fow.shoot", "fow.shoot_mixed", "fow.artillery", "fow.air", "fow.assault"),
       "implemented",
       "Card only; by the published rules it works like Schürzen on any aspect, after a "
       "failed armour save. Our reading: top armour too (bombardments and aircraft), as "
       "the card names no aspect.", category="shooting", source="card"),
    _r("no_he", "No HE", "general", "Can only hit vehicles.", category="shooting",
       source="card"),
    _r("passenger_fired_weapons", "Passenger-fired Weapons", "general",
       "Fires only while carrying passengers.", category="shooting", source="card"),
    _r("protected_ammo", "Protected Ammo", "general",
       "The crew may re-roll a failed test to remount a bailed-out vehicle.",
       ("fow.remount",), "implemented", category="shooting",
       source="card"),
    _r("recoilless_guns", "Recoilless Guns", "general",
       "Firing gives away the position (no Gone to Ground).", category="shooting",
       source="card"),
    # --- Assault -----------------------------------------------------------------
    _r("tank_assault", "Tank Assault", "general",
       "Has the given anti-tank value when assaulting tanks.",
       ("fow.assault",), "data", "Give the assault procedure that AT.",
       category="assault", source="card"),
    _r("improvised_tank_assault", "Improvised Tank Assault", "general",
       "A team assaulting tanks is destroyed if it rolls a 1 to hit.",
       ("fow.assault",), "implemented", category="assault", source="card"),
)


def all_rules() -> tuple[SpecialRule, ...]:
    return RULES


def names() -> tuple[str, ...]:
    return tuple(r.name for r in RULES)


def titles() -> dict[str, str]:
    """Rule id -> its English title (forms show the title, translated)."""
    return {r.name: r.title for r in RULES}


def get(name: str) -> SpecialRule:
    for r in RULES:
        if r.name == name:
            return r
    from warroom.errors import UnknownNameError

    raise UnknownNameError("special rule", name, names())


def parse_rule_list(value: object) -> tuple[str, ...]:
    """``"a,b"``, ``["a", "b"]`` or ``()`` -> validated names; unknown names raise
    ``ValueError`` listing the valid ones (pydantic turns it into a usage error)."""
    if value is None or value == "":
        return ()
    items: Iterable[object]
    if isinstance(value, str):
        items = [v for v in value.replace(";", ",").split(",")]
    elif isinstance(value, (list, tuple)):
        items = value
    else:
        raise ValueError("expected a comma-separated list of special rule names")
    out: list[str] = []
    valid = set(names())
    for item in items:
        name = str(item).strip().lower().replace("-", "_").replace(" ", "_")
        if not name:
            continue
        if name not in valid:
            import difflib

            close = difflib.get_close_matches(name, sorted(valid), n=1)
            valid_text = ", ".join(sorted(valid))
            if close:
                raise UsageError("unknown special rule {name!r}. Did you mean {suggestion!r}? "
                                 "Valid: {valid}", name=name, suggestion=close[0],
                                 valid=valid_text)
            raise UsageError("unknown special rule {name!r}. Valid: {valid}", name=name,
                             valid=valid_text)
        if name not in out:
            out.append(name)
    return tuple(out)
