"""Small stand-ins for game systems, so the battle layer is tested without them."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from warroom.battle.core import Battles
from warroom.battle.store import Store, open_store
from warroom.engine.context import Dice
from warroom.engine.procedure import Params, outcome, procedure
from warroom.engine.registry import GameSystem, Registry
from warroom.engine.steps import Target


class ShootParams(Params):
    dice: int = Field(3, ge=0, le=20)
    target_skill: Literal["conscript", "trained", "veteran"] = "trained"


SKILL = {"conscript": 2, "trained": 3, "veteran": 4}


@procedure("fow.shoot", title="fake shooting", summary="hits, then one save per hit",
           params=ShootParams,
           outcome=outcome(("hits", "int"), ("destroyed", "int"), ("bailed_out", "int"),
                           ("pinned", "bool")))
def shoot(p: ShootParams, d: Dice) -> dict[str, Any]:
    hits = d.pool(p.dice, Target.of(SKILL[p.target_skill], "skill"), rule="t.hit",
                  what="to hit")
    saved = d.pool(hits, 3, rule="t.save", what="saves")
    lost = hits - saved
    return {"hits": hits, "destroyed": lost, "bailed_out": 0, "pinned": hits >= 5}


class TestParams(Params):
    at: int = Field(4, ge=2, le=6)


@procedure("fow.test", title="fake test", summary="one die at X+", params=TestParams,
           outcome=outcome(("passed", "bool")))
def test_(p: TestParams, d: Dice) -> dict[str, Any]:
    return {"passed": d.test(p.at, rule="t.test", what="test")}


class McParams(Params):
    morale: int = Field(7, ge=2, le=12)


@procedure("asl.mc", title="fake MC", summary="2d6 at most morale", params=McParams,
           outcome=outcome(("passed", "bool"), ("broken", "bool"),
                           ("casualty_reduction", "bool"), ("eliminated", "bool"),
                           ("replaced", "bool"), ("pinned", "bool")))
def mc(p: McParams, d: Dice) -> dict[str, Any]:
    total = d.dice(2, view="sum", rule="t.mc", what="morale check")
    passed = total <= p.morale
    return {"passed": passed, "broken": not passed, "casualty_reduction": total == 12,
            "eliminated": False, "replaced": False, "pinned": False}


def registry() -> Registry:
    from warroom.games.demo import system as demo

    reg = Registry([("demo", demo)])
    reg.add("fow", lambda: GameSystem("fow", "fake FoW", (shoot, test_)))
    reg.add("asl", lambda: GameSystem("asl", "fake ASL", (mc,)))
    return reg


OPEN: list[Store] = []
"""Stores the tests opened; the battle tests' conftest closes them after each test (a
PostgreSQL server would otherwise keep every pooled connection open)."""


def battles(db: str | Path) -> Battles:
    """Battles in ``db``: a file path or an SQLAlchemy URL."""
    store = open_store(str(db))
    OPEN.append(store)
    return Battles(store, registry())


def stored_unit(bt: Battles, battle_id: str, side: str, name: str,
                stats: dict[str, Any]) -> dict[str, Any]:
    """Append a stats-only unit to a battle as versions before profiles were required
    stored it (a ``unit_added`` event without a profile, past today's check in
    ``add_unit``): battles in that shape keep loading, playing and verifying."""
    import json

    from warroom.battle.events import apply

    snap = bt._snapshot(battle_id)
    event: dict[str, Any] = {"seq": snap.counter + 1, "kind": "unit_added",
                             "at": "2026-11-28T00:00:00Z", "by": None, "unit": name,
                             "side": side, "stats": dict(stats), "after": "0" * 16}
    after = apply(snap.state, event)
    event["after"] = after.digest()
    with bt.store.write() as conn:
        bt.store.append(conn, battle_id, event, snap.counter, after.snapshot(),
                        json.dumps([*snap.live, event["seq"]]))
    return event
