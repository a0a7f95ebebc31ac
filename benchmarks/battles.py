"""What a battle action costs as the log grows (`make bench`): a ``do`` with entered dice,
the state read behind a page, and the whole log, at about 10 and about 3,000 events, on a
SQLite file. Medians of alternating rounds, so a slow spell of this machine falls on both
sizes alike. Writes start from the stored snapshot, so the first two should stay flat;
the log itself grows with its length."""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from warroom.battle.core import Battles
from warroom.battle.store import open_store


def _battle(folder: Path, events: int) -> tuple[Battles, str]:
    bt = Battles(open_store(str(folder / f"b{events}.db")))
    bid = str(bt.new("demo", f"{events} events")["id"])
    bt.add_unit(bid, "A", "Tigers", {"dice": 2})
    for _ in range(max(0, events - 2)):
        bt.mark(bid, "Tigers", "hits", "+1")
    return bt, bid


def _median_ms(calls: dict[str, Callable[[], Any]], rounds: int = 9,
               per_round: int = 5) -> dict[str, float]:
    times: dict[str, list[float]] = {k: [] for k in calls}
    for _ in range(rounds):
        for name, fn in calls.items():
            start = time.perf_counter()
            for _ in range(per_round):
                fn()
            times[name].append((time.perf_counter() - start) / per_round * 1000)
    return {k: statistics.median(v) for k, v in times.items()}


def battle_rows() -> list[list[str]]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        small, big = _battle(Path(tmp), 10), _battle(Path(tmp), 3000)
        cases: list[tuple[str, Callable[[Battles, str], Any], str]] = [
            ("`do` with entered dice", lambda bt, bid: bt.do(
                bid, "demo.pool", {"unit": "Tigers", "dice": 2}, dice=[3, 4]),
             "flat: about the same at 3,000 events"),
            ("state behind a page (`show`)", lambda bt, bid: bt.show(bid),
             "flat: about the same at 3,000 events"),
            ("whole log (`log`)", lambda bt, bid: bt.log(bid), "grows with the log"),
        ]
        for label, call, target in cases:
            ms = _median_ms({"10": lambda c=call: c(*small),  # type: ignore[misc]
                             "3000": lambda c=call: c(*big)})  # type: ignore[misc]
            rows.append([f"battle {label}, SQLite, ~10 → ~3,000 events",
                         f"{ms['10']:.2f} ms → {ms['3000']:.2f} ms", "",
                         f"{ms['3000'] / ms['10']:.1f}× at 3,000", target])
    return rows


if __name__ == "__main__":
    for row in battle_rows():
        print("| " + " | ".join(row) + " |")
