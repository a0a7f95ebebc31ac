"""Issue 31 item 2: a write is refused as stale only when what it reads changed since the
page it came from was drawn (its units, the turn and phase for Next phase, the latest
event for an undo); otherwise it is recorded on the battle as it is, the events in
between kept, and its event records the counter its page showed (``seen``).

The property tests judge each write by an oracle of their own: the states before and
after each of the other phone's writes (which units' records differ, whether the turn or
phase moved), never by the events' ``touches``."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.battle.fakes import battles
from warroom.battle.conflicts import READS, Reads, Write, conflicts, reads
from warroom.battle.core import Battles, roll_place, roll_rng
from warroom.battle.errors import StaleStateError
from warroom.battle.events import Touched
from warroom.battle.state import State

UNITS = {"A1": "A", "A2": "A", "B1": "B", "B2": "B"}


def fow(bt: Battles) -> str:
    bid = str(bt.new("fow", "Conflicts", 7)["id"])
    for name, side in UNITS.items():
        bt.add_unit(bid, side, name, {"dice": "3", "teams": "6", "skill": "veteran"})
    return bid


# ------------------------------------------------------------------ the rule, alone
def test_each_write_reads_what_the_issue_names() -> None:
    assert set(READS) == set(Write)  # every write has its reads, in one table
    roll = reads(Write.ROLL, ["Shermans", None, " grenadiers ", ""])
    assert roll == Reads(frozenset({"shermans", "grenadiers"}))
    assert reads(Write.NEXT_PHASE, ["Shermans"]) == Reads(phase=True)
    assert reads(Write.UNDO) == Reads(latest=True)
    assert reads(Write.END) == Reads()
    # a unit touched by name, whatever its case
    assert conflicts(roll, Touched(frozenset({"Grenadiers"})))
    assert not conflicts(roll, Touched(frozenset({"Panthers"})))
    assert not conflicts(roll, Touched(phase=True))  # a roll is not bound to the phase
    assert conflicts(roll, Touched(None, phase=True))  # every unit (a phase, no snapshot)
    assert conflicts(Reads(phase=True), Touched(phase=True))
    assert not conflicts(Reads(phase=True), Touched(frozenset({"Shermans"})))
    assert conflicts(Reads(latest=True), Touched())  # an undo minds any event
    assert not conflicts(Reads(), Touched(frozenset({"x"}), phase=True))
    assert conflicts(Reads(), Touched(everything=True)) is True


# ------------------------------------------------------------------ the rule, in a battle
def test_a_change_elsewhere_applies_and_records_seen(bt: Battles) -> None:
    bid = fow(bt)
    drawn = bt.show(bid)["counter"]  # A's page
    b_mark = bt.mark(bid, "B2", "pinned", by="B")  # B, on another unit
    b_edit = bt.edit_unit(bid, "B2", {"dice": "4"}, by="B")
    ev = bt.do(bid, "fow.shoot", {"unit": "A1", "target": "B1"}, expect=drawn, by="A")
    assert ev["seq"] == drawn + 3 and ev["seen"] == drawn
    assert [e["seq"] for e in bt.log(bid)][-3:] == [b_mark["seq"], b_edit["seq"], ev["seq"]]
    assert bt.add_unit(bid, "B", "B3", expect=drawn, by="B")["seen"] == drawn
    assert bt.verify(bid).ok


def test_a_roll_applied_later_draws_its_dice_from_the_state_it_was_recorded_on(
        bt: Battles) -> None:
    bid = str(bt.new("fow", "Dice", 11)["id"])
    bt.add_unit(bid, "A", "Shermans", {"dice": "6"})
    bt.add_unit(bid, "B", "Grenadiers", {"teams": "4", "skill": "veteran"})
    drawn = bt.show(bid)["counter"]
    bt.add_unit(bid, "B", "Panthers", {"dice": "2"}, by="B")
    now: State = bt.state(bid)
    ev = bt.do(bid, "fow.shoot", {"unit": "Shermans", "target": "Grenadiers"},
               expect=drawn, by="A")
    action = {"shot": "fow.shoot", "units": ["Shermans"], "target": "Grenadiers",
              "side": "A"}
    rng = roll_rng("11", roll_place(now, action))
    assert ev["seen"] == drawn and ev["dice"][:6] == [rng.randrange(6) + 1 for _ in range(6)]
    # the page's own state would have given other dice: the Panthers are in the digest
    then = copy.deepcopy(now)
    del then.units["Panthers"]
    assert roll_place(then, action) != roll_place(now, action)


def test_a_change_to_what_a_write_reads_refuses_it_and_says_what(bt: Battles) -> None:
    bid = fow(bt)
    drawn = bt.show(bid)["counter"]
    changed = bt.mark(bid, "B1", "gone_to_ground", by="B")  # B, on A's target
    before = bt.log(bid), bt.show(bid)
    with pytest.raises(StaleStateError) as refused:
        bt.do(bid, "fow.shoot", {"unit": "A1", "target": "B1"}, expect=drawn, by="A")
    assert refused.value.code == "stale" and refused.value.http_status == 409
    assert [c["seq"] for c in refused.value.changes] == [changed["seq"]]
    assert str(refused.value) == (
        f"the battle has changed since state {drawn} (it is now at {drawn + 1}) in what "
        "this action reads: B1; nothing was recorded: look at the change and try again")
    assert (bt.log(bid), bt.show(bid)) == before
    # several acting units: any of them
    bt.mark(bid, "A2", "pinned", by="A")
    with pytest.raises(StaleStateError, match="reads: A2"):
        bt.do(bid, "fow.shoot", {"units": "A1,A2", "target": "B2"}, expect=drawn + 1,
              by="A")


def test_next_phase_reads_the_phase_and_a_phase_touches_the_units_it_clears(
        bt: Battles) -> None:
    bid = fow(bt)
    drawn = bt.show(bid)["counter"]
    bt.advance(bid, by="A")
    with pytest.raises(StaleStateError, match="reads: the turn and phase"):
        bt.advance(bid, expect=drawn, by="A")  # pressed twice on two phones: once only
    assert bt.show(bid)["phase"] == "movement"
    # a phase that clears the hits touches the units that had them, and only those
    bt.mark(bid, "B1", "hits", "2", by="B")
    drawn = bt.show(bid)["counter"]
    assert bt.advance(bid, by="A")["clears"] == ["hits"]  # B1's hits go
    assert "hits" not in bt.state(bid).units["B1"].markers
    with pytest.raises(StaleStateError, match="reads: B1"):
        bt.mark(bid, "B1", "pinned", expect=drawn, by="B")
    assert bt.mark(bid, "B2", "pinned", expect=drawn, by="B")["seen"] == drawn


def test_an_undo_reads_the_latest_event_and_touches_what_it_took_back(bt: Battles) -> None:
    bid = fow(bt)
    bt.mark(bid, "B1", "pinned", by="B")
    drawn = bt.show(bid)["counter"]  # A's page shows B1 pinned
    bt.undo(bid, by="B")  # B takes its mark back: B1 changed again
    with pytest.raises(StaleStateError, match="reads: B1") as refused:
        bt.do(bid, "fow.shoot", {"unit": "A1", "target": "B1"}, expect=drawn, by="A")
    assert [c["kind"] for c in refused.value.changes] == ["undone"]
    ev = bt.do(bid, "fow.shoot", {"unit": "A1", "target": "B2"}, expect=drawn, by="A")
    assert ev["seen"] == drawn
    # an undo based on an old page: any event since refuses it
    drawn = bt.show(bid)["counter"]
    bt.mark(bid, "B2", "pinned", by="B")
    with pytest.raises(StaleStateError, match="reads: the latest event"):
        bt.undo(bid, expect=drawn, by="A")


def test_a_page_from_the_future_or_far_behind_is_refused(bt: Battles) -> None:
    bid = fow(bt)
    counter = bt.show(bid)["counter"]
    with pytest.raises(StaleStateError, match=f"you expected state {counter + 1} but"):
        bt.mark(bid, "A1", "pinned", expect=counter + 1, by="A")
    with pytest.raises(StaleStateError, match="you expected state 0 but"):
        bt.mark(bid, "A1", "pinned", expect=0, by="A")


# ------------------------------------------------------------------ properties
OTHER = st.lists(st.tuples(st.sampled_from(["mark", "hits", "edit", "add", "next"]),
                           st.sampled_from(sorted(UNITS))), min_size=1, max_size=6)
MINE = st.sampled_from([("mark", "A1"), ("edit", "A1"), ("mark", "A2"),
                        ("roll", "A1", "B1"), ("roll", "A2", "B2"), ("next",)])


def _other(bt: Battles, bid: str, op: tuple[str, str], i: int) -> None:
    """One write by the other phone (the command line, acting for both sides); each
    changes what it names."""
    kind, unit = op
    current = bt.state(bid).units[unit]
    if kind == "mark":
        bt.mark(bid, unit, "pinned", "no" if current.markers.get("pinned") else "yes")
    elif kind == "hits":
        bt.mark(bid, unit, "hits", "+1")
    elif kind == "edit":
        bt.edit_unit(bid, unit, {"dice": str(int(current.stats["dice"]) + 1)})
    elif kind == "add":
        bt.add_unit(bid, "B", f"N{i}")
    else:
        bt.advance(bid)


def _mine(bt: Battles, bid: str, write: tuple[str, ...], expect: int) -> dict[str, Any]:
    if write[0] == "mark":
        return bt.mark(bid, write[1], "dug_in", expect=expect, by="A")
    if write[0] == "edit":
        return bt.edit_unit(bid, write[1], {"skill": "trained"}, expect=expect, by="A")
    if write[0] == "roll":
        return bt.do(bid, "fow.shoot", {"unit": write[1], "target": write[2]},
                     expect=expect, by="A")
    return bt.advance(bid, expect=expect)


def _changed(before: State, after: State) -> tuple[set[str], bool]:
    """The oracle: the units whose record differs, and whether the phase moved."""
    names = set(before.units) | set(after.units)
    units = {n for n in names if (before.units.get(n) is None) != (after.units.get(n) is None)
             or (n in before.units and n in after.units
                 and vars(before.units[n]) != vars(after.units[n]))}
    return units, (before.turn, before.side, before.phase) != (after.turn, after.side,
                                                               after.phase)


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(other=OTHER, mine=MINE)
def test_untouched_reads_always_apply_and_touched_ones_are_always_refused(
        db: str, other: list[tuple[str, str]], mine: tuple[str, ...]) -> None:
    bt = battles(db)
    bid = fow(bt)
    drawn = bt.show(bid)["counter"]  # A's page
    touched: set[str] = set()
    phase = False
    for i, op in enumerate(other):
        before = bt.state(bid)
        _other(bt, bid, op, i)
        units, moved = _changed(before, bt.state(bid))
        touched |= units
        phase = phase or moved
    wanted = {"next": Reads(phase=True)}.get(mine[0], Reads(frozenset(
        u.casefold() for u in mine[1:])))
    conflict = (wanted.phase and phase) or bool(
        wanted.units & {u.casefold() for u in touched})
    log, shown = bt.log(bid), bt.show(bid)
    if conflict:
        with pytest.raises(StaleStateError) as refused:
            _mine(bt, bid, mine, drawn)
        assert refused.value.changes  # it says which events changed it
        assert (bt.log(bid), bt.show(bid)) == (log, shown)  # nothing recorded
    else:
        ev = _mine(bt, bid, mine, drawn)
        assert ev["seq"] == shown["counter"] + 1 and ev["seen"] == drawn
        assert bt.log(bid)[:-1] == log  # the events in between are kept
    assert bt.verify(bid).ok
