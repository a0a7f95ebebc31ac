"""Each game's sequence of play: its phases and each phase's checklist, as the game
object holds them (:attr:`warroom.engine.registry.GameSystem.phases`; the texts are in
each game's ``play`` module).

A player turn walks through the phases in order; after the last phase the other side
takes its player turn, and when side A starts again the turn number goes up.
"""

from __future__ import annotations

from warroom import api
from warroom.engine.game import Phase
from warroom.engine.registry import GameView
from warroom.errors import UnknownNameError

__all__ = ["SEQUENCES", "Phase", "phase", "sequence", "title"]


SEQUENCES: GameView[tuple[Phase, ...]] = GameView(api.registry, lambda system: system.phases)
"""Each game's phases, read from its game object (:attr:`GameSystem.phases`)."""


def sequence(game: str) -> tuple[Phase, ...]:
    """The phases of ``game``'s player turn; a game without its own list gets the
    generic two-phase sequence."""
    return SEQUENCES.get(game) or SEQUENCES["demo"]


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
