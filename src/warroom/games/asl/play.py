"""Advanced Squad Leader: the sequence of play (each phase and its checklist) and the markers a
battle puts on units. Written in our own words from the ASL reference card; every text is an English
template, translated late (msgid = the text)."""

from __future__ import annotations

from warroom.engine.game import MarkerKind, Phase

PHASES: tuple[Phase, ...] = (
    Phase("RPh", "Rally Phase (RPh)", (
        "Reinforcements enter",
        "Attempt to rally broken units",
        "Remove DM markers where allowed",
    )),
    Phase("PFPh", "Prep Fire Phase (PFPh)", (
        "Units that will not move fire now",
        "Mark units that fired with Prep Fire markers",
    )),
    Phase("MPh", "Movement Phase (MPh)", (
        "Move units one stack at a time",
        "The defender may take Defensive First Fire at moving units",
    )),
    Phase("DFPh", "Defensive Fire Phase (DFPh)", (
        "The defender fires units that have not fired yet",
        "Final Fire by units marked First Fire",
        "Remove Prep Fire and First Fire markers at the end",
    )),
    Phase("AFPh", "Advancing Fire Phase (AFPh)", (
        "Units that moved may fire, usually at half firepower",
    )),
    Phase("RtPh", "Rout Phase (RtPh)", (
        "Broken units that must rout move away from the enemy",
        "Interdiction checks for routing units",
    )),
    Phase("APh", "Advance Phase (APh)", (
        "Advance units one hex, including into enemy hexes for close combat",
    )),
    Phase("CCPh", "Close Combat Phase (CCPh)", (
        "Resolve close combat in each contested hex",
        "Remove pin and fire markers at the end of the player turn",
    )),
)

MARKERS: dict[str, MarkerKind] = {
    "broken": "flag", "pinned": "flag", "dm": "flag", "replaced": "flag", "wounded": "flag",
    "berserk": "flag", "cx": "flag", "prep_fire": "flag", "first_fire": "flag",
    "final_fire": "flag", "encircled": "flag", "casualty_reduction": "count"}
"""Markers an ASL battle knows: a flag is on or off; a count is a whole number."""
