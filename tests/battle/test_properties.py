"""Properties of the event log: any sequence of actions verifies, undo restores the
previous state exactly, and concurrent writers lose nothing."""

from __future__ import annotations

import threading
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.battle.fakes import battles, registry
from warroom.battle.core import Battles
from warroom.battle.store import Store
from warroom.errors import UsageError

ACTIONS = st.lists(st.sampled_from(["shoot", "typed", "mark", "next", "undo", "edit"]),
                   min_size=1, max_size=12)


def act(bt: Battles, bid: str, action: str, i: int) -> None:
    if action == "shoot":
        bt.do(bid, "fow.shoot", {"unit": "A1", "target": "B1"})
    elif action == "typed":
        bt.do(bid, "fow.shoot", {"target": "A1", "dice": "1"}, dice=[1])
    elif action == "mark":
        bt.mark(bid, "B1", "hits", f"+{i % 3 + 1}")
    elif action == "next":
        bt.advance(bid)
    elif action == "edit":
        bt.edit_unit(bid, "A1", {"dice": str(i % 5 + 1)})
    else:
        bt.undo(bid)


@settings(max_examples=20)
@given(ACTIONS)
def test_any_sequence_verifies_and_undo_restores(actions: list[str]) -> None:
    bt = Battles(Store("sqlite://"), registry())
    bid = str(bt.new("fow", None, 3)["id"])
    bt.add_unit(bid, "A", "A1", {"dice": "3"})
    bt.add_unit(bid, "B", "B1", {"teams": "9"})
    shown: list[dict[str, Any]] = [bt.show(bid)]
    for i, action in enumerate(actions):
        before = bt.show(bid)
        try:
            act(bt, bid, action, i)
        except UsageError:
            assert bt.show(bid) == before  # a refused action changes nothing
            continue
        if action == "undo":
            shown.pop()
            expected = {k: v for k, v in shown[-1].items() if k != "counter"}
            got = {k: v for k, v in bt.show(bid).items() if k != "counter"}
            assert got == expected
        else:
            shown.append(bt.show(bid))
    report = bt.verify(bid)
    assert report.ok, report.problems


def test_concurrent_writers_lose_nothing(db: str) -> None:
    first = battles(db)
    bid = str(first.new("fow", None, 1)["id"])
    first.add_unit(bid, "A", "A1")
    errors: list[Exception] = []

    def writer() -> None:
        bt = battles(db)
        try:
            for _ in range(8):
                bt.mark(bid, "A1", "hits", "+1")
        except Exception as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert first.show(bid)["units"][0]["markers"] == {"hits": 24}
    assert [e["seq"] for e in first.log(bid)] == list(range(1, 27))
    assert first.verify(bid).ok
