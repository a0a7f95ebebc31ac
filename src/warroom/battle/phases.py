"""Each game's sequence of play: its phases and each phase's checklist.

Written in our own words from the reference cards (seeds 000 FoW, 001 ASL, 003 BKC,
004 CWC). Every text is an English template, translated late (msgid = the text).

A player turn walks through the phases in order; after the last phase the other side
takes its player turn, and when side A starts again the turn number goes up.
"""

from __future__ import annotations

from dataclasses import dataclass

from warroom.errors import UnknownNameError


@dataclass(frozen=True, slots=True)
class Phase:
    id: str
    title: str
    checklist: tuple[str, ...]


FOW: tuple[Phase, ...] = (
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

ASL: tuple[Phase, ...] = (
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

BKC: tuple[Phase, ...] = (
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

CWC: tuple[Phase, ...] = (
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

DEMO: tuple[Phase, ...] = (
    Phase("act", "Action phase", ("Roll what needs rolling",)),
    Phase("end", "End phase", ("Tidy up the markers",)),
)

SEQUENCES: dict[str, tuple[Phase, ...]] = {
    "fow": FOW, "asl": ASL, "bkc": BKC, "cwc": CWC, "demo": DEMO,
}


def sequence(game: str) -> tuple[Phase, ...]:
    """The phases of ``game``'s player turn; a game without its own list gets the
    generic two-phase sequence."""
    return SEQUENCES.get(game, DEMO)


def phase(game: str, phase_id: str) -> Phase:
    for p in sequence(game):
        if p.id == phase_id:
            return p
    raise UnknownNameError("phase", phase_id, [p.id for p in sequence(game)])


def title(phase_id: str, game: str | None = None) -> str:
    """The English title (a catalog id, translated late) of a phase shown by its id: in
    ``game``'s sequence first, then in any game's (a phase id names one phase wherever
    it appears: ``end`` is the "End phase" of every game that has one). An id no game
    knows (an imported log's own) is shown as it is."""
    for seq in ((sequence(game),) if game else ()) + tuple(SEQUENCES.values()):
        for p in seq:
            if p.id == phase_id:
                return p.title
    return phase_id
