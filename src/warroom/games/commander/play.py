"""Blitzkrieg Commander and Cold War Commander: the sequence of play (each phase and
its checklist) and the markers a battle puts on units. Written in our own words from
the BKC and CWC reference cards; every text is an English template, translated late
(msgid = the text)."""

from __future__ import annotations

from warroom.engine.game import MarkerKind, Phase

BKC_PHASES: tuple[Phase, ...] = (
    Phase("preplanned", "Preplanned artillery phase", (
        "Resolve artillery and air strikes planned before the battle",
    )),
    Phase("reaction", "Reaction phase", (
        "Units may charge, fire at or evade the nearest visible enemy within 20 cm",
        "The enemy may counter-react by firing or evading",
        "Recce units link up with command units",
    )),
    Phase("command", "Command phase", (
        "Issue orders unit by unit: move, deploy, fire",
        "Apply command modifiers: each further order, distance, terrain, nearby enemy",
        "Call artillery and air support; check deviation",
    )),
    Phase("combat", "Combat phase", (
        "Resolve close combat: attack values and modifiers",
        "Apply extra hits, retreats and pursuits",
    )),
    Phase("end", "End phase", (
        "Remove suppression markers",
        "Check break points and victory conditions",
    )),
)

CWC_PHASES: tuple[Phase, ...] = (
    Phase("preplanned", "Preplanned artillery phase", (
        "Resolve artillery and air strikes planned before the battle",
    )),
    Phase("initiative", "Initiative phase", (
        "Act against enemy units within initiative distance",
        "Carry out engineering tasks",
        "Recce units link up with command units",
    )),
    Phase("command", "Command phase", (
        "Issue orders unit by unit: move, fire, assault",
        "Apply command modifiers: reactions, further orders, distance, terrain, assaults",
        "Call artillery and air support; check deviation and air defence",
    )),
    Phase("end", "End phase", (
        "Remove suppression markers",
        "Check break points and victory conditions",
    )),
)

MARKERS: dict[str, MarkerKind] = {"suppressed": "flag", "hits": "count", "retreat_cm": "count"}
"""Markers a BKC or CWC battle knows: a flag is on or off; a count is a whole number."""

COVER_MARKERS: dict[str, dict[str, str]] = {
    "bkc": {"in_cover": "cover", "fortified": "fortified"},
    "cwc": {"light_cover": "light", "heavy_cover": "heavy"},
}
"""The markers that say a unit stands in cover, and the card's cover each names (open
needs none); the heaviest marker on a unit counts."""


def markers(game: str) -> dict[str, MarkerKind]:
    """The markers of ``game`` (``bkc`` or ``cwc``): the common ones and its cover."""
    return {**MARKERS, **dict.fromkeys(COVER_MARKERS[game], "flag")}


def cover_of(game: str, on: dict[str, object]) -> tuple[str, str] | None:
    """(cover, marker) the markers ``on`` a unit give, heaviest first; None: none."""
    for marker, cover in reversed(COVER_MARKERS.get(game, {}).items()):
        if on.get(marker):
            return cover, marker
    return None
