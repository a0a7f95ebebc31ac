"""When a write is stale: only when what it reads changed since the page was drawn.

A write names the state counter its page showed (``expect``). Events recorded since
then are no reason to refuse it unless one of them changed something the write reads:
its units (acting units, target, the unit it edits or adds), the turn and phase for the
one phase-bound action (Next phase), or, for an undo, the latest event itself. Otherwise
the write is computed on the battle as it is now, the events in between stay, and the
write's event records the counter it was based on (``seen``).

What each write reads is written once, here (:data:`READS`, :func:`reads`); what each
event touched is computed from the event itself (``Event.touches``), an undo touching
what the event it took back touched (:func:`changes`).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from warroom.battle import events as evs
from warroom.battle.events import Touched
from warroom.battle.state import State
from warroom.errors import ErrorText, verbatim

MAX_BEHIND = 500
"""A page more than this many events behind is refused without reading them all."""


class Write(enum.Enum):
    """Every kind of write a side (or the command line) makes."""

    ROLL = "do"
    ADD_UNIT = "add_unit"
    EDIT_UNIT = "edit_unit"
    MARK = "mark"
    NEXT_PHASE = "next"
    UNDO = "undo"
    ANSWER_UNDO = "undo_answer"
    END = "end"


@dataclass(frozen=True)
class Reads:
    """What a write depends on: a change to any of it since ``expect`` refuses the write."""

    units: frozenset[str] = frozenset()
    """the units it reads, case-folded (acting units and target, the unit it edits)"""
    phase: bool = False
    """the turn, the side to play and the phase"""
    latest: bool = False
    """the latest event (an undo takes back that one): any new event refuses it"""


@dataclass(frozen=True)
class _Rule:
    units: bool
    phase: bool
    latest: bool


READS: Mapping[Write, _Rule] = {
    # a roll reads its acting units and its target (their stats, profiles and markers);
    # it is not bound to the phase: defensive fire is rolled in the other side's turn, and
    # what a phase changes on a unit (the hits it clears) touches that unit
    Write.ROLL: _Rule(units=True, phase=False, latest=False),
    # adding a unit reads only its name (two units of one name clash)
    Write.ADD_UNIT: _Rule(units=True, phase=False, latest=False),
    Write.EDIT_UNIT: _Rule(units=True, phase=False, latest=False),
    Write.MARK: _Rule(units=True, phase=False, latest=False),
    # Next phase moves on from the phase the page showed
    Write.NEXT_PHASE: _Rule(units=False, phase=True, latest=False),
    # an undo takes back the latest event, and a request to undo holds only while
    # nothing else happened
    Write.UNDO: _Rule(units=False, phase=False, latest=True),
    Write.ANSWER_UNDO: _Rule(units=False, phase=False, latest=True),
    # asking to end reads nothing: the other side's change does not make it wrong
    Write.END: _Rule(units=False, phase=False, latest=False),
}
"""What each write reads; the one definition every write goes through."""


def reads(write: Write, units: Iterable[str | None] = ()) -> Reads:
    """The reads of ``write`` acting on ``units`` (names; None and empty ones ignored)."""
    rule = READS[write]
    names = frozenset(u.strip().casefold() for u in units if u and u.strip()) \
        if rule.units else frozenset()
    return Reads(names, rule.phase, rule.latest)


def conflicts(wanted: Reads, touched: Touched) -> bool:
    """Whether an event that touched ``touched`` changed something the write reads."""
    if wanted.latest or touched.everything:
        return True
    if wanted.phase and touched.phase:
        return True
    if touched.units is None:  # every unit
        return bool(wanted.units)
    return not wanted.units.isdisjoint(u.casefold() for u in touched.units)


Lookup = Callable[[int], tuple[Mapping[str, Any], State | None]]
"""An event by its number, with the state before it (None where no snapshot is kept)."""


def touched_by(event: Mapping[str, Any], before: State | None, lookup: Lookup) -> Touched:
    """What ``event`` changed; an undo changed what the event it took back had changed."""
    if event.get("kind") == "undone":
        target, target_before = lookup(int(event["target"]))
        return touched_by(target, target_before, lookup)
    return evs.parse(event).touches(before)


def changes(wanted: Reads, recorded: Sequence[tuple[Mapping[str, Any], State | None]],
            lookup: Lookup) -> list[tuple[Mapping[str, Any], Touched]]:
    """The events of ``recorded`` (each with the state before it) that changed what a
    write reading ``wanted`` reads, oldest first, each with what it touched: the reasons
    to refuse the write."""
    out = []
    for event, before in recorded:
        touched = touched_by(event, before, lookup)
        if conflicts(wanted, touched):
            out.append((event, touched))
    return out


def what_changed(wanted: Reads, found: Sequence[Touched], state: State) -> ErrorText:
    """What the refused write read that changed, in words: the latest event (an undo),
    the turn and phase, or the units by their names in ``state`` (the battle now)."""
    if wanted.latest:
        return ErrorText("the latest event, which an undo takes back")
    if wanted.phase and any(t.phase for t in found):
        return ErrorText("the turn and phase")
    shown = {u.name.casefold(): u.name for u in state.units.values()}
    names: set[str] = set()
    for t in found:
        if t.everything or t.units is None:
            names.update(shown.get(n, n) for n in wanted.units)
        else:
            names.update(u for u in t.units if u.casefold() in wanted.units)
    return verbatim(", ".join(sorted(names)))
