"""Flames of War: the sequence of play (each phase and its checklist) and the markers a
battle puts on units. Written in our own words from the FoW reference card; every text is an English
template, translated late (msgid = the text)."""

from __future__ import annotations

from warroom.engine.game import MarkerKind, Phase

PHASES: tuple[Phase, ...] = (
    Phase("starting", "Starting step", (
        "Company morale: a company below half strength takes a motivation test or "
        "loses the battle",
        "Check the victory conditions",
        "Spring ambushes",
        "Call in air support",
        "Roll for reserves",
        "Rally pinned platoons (motivation test)",
        "Remount bailed-out vehicles (motivation test)",
        "Free bogged vehicles (skill test)",
        "Remove smoke markers",
    )),
    Phase("movement", "Movement step", (
        "Pick a platoon to move",
        "Move its teams; stay within command distance",
        "Check for bogging in difficult terrain",
        "Move the next platoon",
    )),
    Phase("shooting", "Shooting step", (
        "Pick the shooting platoon and its target platoon",
        "Check the target is allowed and whether it is concealed",
        "Roll to hit and allocate the hits",
        "Roll saves",
        "Shoot with the next platoon",
        "Pin platoons that took five or more hits",
        "Platoon morale checks for platoons that lost teams",
    )),
    Phase("assault", "Assault step", (
        "Pick the assaulting platoon and move its teams into contact",
        "Defensive fire",
        "Roll to hit and save",
        "Push back the enemy and check whether the assault goes on",
        "Counterattack or break off",
        "Consolidate or break through",
        "Platoon morale checks",
    )),
)

MARKERS: dict[str, MarkerKind] = {
    "pinned": "flag", "gone_to_ground": "flag", "dug_in": "flag", "assaulted": "flag",
    "hits": "count", "destroyed": "count", "bailed_out": "count", "bogged": "count"}
"""Markers a FoW battle knows: a flag is on or off; a count is a whole number."""

PHASE_CLEARS = ("hits",)
"""Markers a new phase takes off every unit: a platoon is pinned by the hits of one
shooting step together (FoW reference card, shooting step 9), so its ``hits`` marker
counts the hits of the phase under way and is what the next shot of the step reads as
``hits_before``."""
