"""Ratings and target numbers the special-rule procedures share.

These are the reference card's tables (the FoW reference card): skill tests, motivation tests, the
to-hit number by the target's skill (also used to range in artillery), and the
battery's to-hit number by its own skill. Kept here so the special rules do not depend
on the order in which the core fow procedures are written.
"""

from __future__ import annotations

from typing import Literal

from warroom.engine.messages import Msg, msg
from warroom.engine.steps import Target
from warroom.games.fow.common import MOTIVATION_TEST as MOTIVATION_TEST  # re-exported
from warroom.games.fow.common import SKILL_TEST as SKILL_TEST
from warroom.games.fow.common import TO_HIT as TO_HIT

Skill = Literal["conscript", "trained", "veteran"]
Motivation = Literal["reluctant", "confident", "fearless"]

SKILLS: tuple[Skill, ...] = ("conscript", "trained", "veteran")
MOTIVATIONS: tuple[Motivation, ...] = ("reluctant", "confident", "fearless")

# SKILL_TEST, MOTIVATION_TEST and TO_HIT (to hit a team, or to range in on it, by the
# target's skill) are the card's numbers, written once in data/to_hit.toml
# A bombarding battery hits on its own skill, like a skill test.
BATTERY_TO_HIT: dict[str, int] = SKILL_TEST


def skill_target(skill: str, *, pass_on_2: bool = False, why: str = "") -> Target:
    """A skill test; ``pass_on_2`` replaces the rating's number by 2+ (e.g. Schnell!)."""
    if pass_on_2:
        return Target.of(2, msg("passes on 2+ ({why})", why=Msg(why)))
    return Target.of(SKILL_TEST[skill], msg("{rating} skill test", rating=Msg(skill)))


def motivation_target(motivation: str, rules: tuple[str, ...]) -> Target:
    """A motivation test; Shtraf companies and For the Fatherland! pass on 2+."""
    if "shtraf" in rules:
        return Target.of(2, msg("passes on 2+ ({why})", why=Msg("Shtraf")))
    if "for_the_fatherland" in rules:
        return Target.of(2, msg("passes on 2+ ({why})", why=Msg("For the Fatherland!")))
    return Target.of(MOTIVATION_TEST[motivation],
                     msg("{rating} motivation test", rating=Msg(motivation)))


def yes_no(value: bool) -> str:
    return "yes" if value else "no"
