"""A battle stored before the Monte Carlo sampler drew from exact tables still verifies.

``data/old_sampler_battle.sql`` is an SQLite dump of a battle recorded by the sampler
that ran every chain item by item (before ``SampleDice`` drew from exact tables): side A
shot with three weapons of 12 dice at a platoon with a declared gun tank, past the
exact budget, so its luck expectation is a seeded Monte Carlo estimate (decimals in the
event, their fractions in the stored luck totals); side B's small shot has exact odds.
The new sampler draws another random stream, so the same estimate now reads
differently; ``verify`` never compares estimated expectations (the decimals) and folds
the luck totals from the stored events, so the battle keeps verifying.

Made with the code of commit 9c7c3c9 (the item-by-item sampler): ``Battles.new("fow",
name="old sampler", seed=7)``, then ``do`` with ``fow.shoot_mixed`` weapons
``12:10:3,12:2:6,12:7:4`` at teams ``tank:6:gt,tank:5/3,infantry,infantry:gtg`` for
side A and weapons ``2:4:3`` at ``infantry,infantry`` for side B; the database dumped
with ``sqlite3``'s ``iterdump``.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from warroom import api
from warroom.battle.core import Battles
from warroom.battle.store import open_store
from warroom.engine import drivers
from warroom.engine.params import validate
from warroom.serving import LUCK_MARGIN, luck_estimate, shared_cache

DUMP = Path(__file__).parent / "data" / "old_sampler_battle.sql"


@pytest.fixture
def old(tmp_path: Path) -> tuple[Battles, str]:
    path = tmp_path / "old.db"
    con = sqlite3.connect(path)
    con.executescript(DUMP.read_text())
    con.close()
    shared_cache().clear()  # the luck estimate is worked out again, by this sampler
    bt = Battles(open_store(str(path)))
    (row,) = bt.list_battles()
    return bt, str(row["id"])


def test_a_battle_whose_luck_estimate_the_old_sampler_made_still_verifies(
        old: tuple[Battles, str]) -> None:
    bt, bid = old
    shot = next(e for e in bt.log(bid) if e.get("procedure") == "fow.shoot_mixed"
                and e.get("side") == "A")
    told = shot["expected"]
    assert all("." in v for v in told.values())  # an estimate: decimals, not fractions
    proc = api.registry().procedure("fow.shoot_mixed")
    params = validate(proc, {k: v for k, v in shot["params"].items()
                             if k in proc.params.model_fields})
    est = luck_estimate(proc, params)
    assert est.samples == drivers.samples_for(LUCK_MARGIN)
    now = {name: f"{est.mean(name)[0]:.4f}" for name in told}
    assert now != told  # another random stream ...
    for name, value in told.items():  # ... for the same law: within both margins
        mean, lo, hi = est.mean(name)
        assert abs(mean - float(value)) <= hi - lo + 1e-9, (name, mean, value)
    report = bt.verify(bid)
    assert report.ok, report.problems
    bt.store.close()


def test_the_old_battle_goes_on_and_still_verifies(old: tuple[Battles, str]) -> None:
    bt, bid = old
    before = bt.luck(bid)["sides"]["A"]["rolls"]
    bt.do(bid, "fow.shoot_mixed", {"weapons": "2:4:3", "teams": "infantry,infantry",
                                   "side": "A"})
    assert bt.luck(bid)["sides"]["A"]["rolls"] == before + 1
    report = bt.verify(bid)
    assert report.ok, report.problems
    bt.store.close()
