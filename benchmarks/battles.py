"""What a battle action costs as the log grows (`make bench`): a ``do`` with entered dice,
the state read behind a page, a side's whole battle page over HTTP (FastAPI's
TestClient), and the whole log, at about 10 and about 3,000 events, on a SQLite file.
Medians of alternating rounds, so a slow spell of this machine falls on both sizes alike.
Writes and pages start from the stored snapshot (the page shows the latest 30 events
and the luck totals the snapshot keeps), so the first three should stay flat; the whole
log grows with its length."""

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


def _page(bt: Battles, bid: str) -> Callable[[], Any]:
    """GET of side A's battle page, as a phone at the table asks for it."""
    import warnings

    from warroom.web.app import create_app

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from fastapi.testclient import TestClient
    app = create_app(bt.store.url, workers=1)
    app.state.battles = bt
    client = TestClient(app)  # no lifespan: a battle page needs no odds workers
    url = f"/battles/{bid}/{bt.row(bid)['token_a']}"

    def get() -> None:
        response = client.get(url)
        assert response.status_code == 200, response.status_code

    return get


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
        pages = {bid: _page(bt, bid) for bt, bid in (small, big)}
        cases: list[tuple[str, Callable[[Battles, str], Any], str]] = [
            ("`do` with entered dice", lambda bt, bid: bt.do(
                bid, "demo.pool", {"unit": "Tigers", "dice": 2}, dice=[3, 4]),
             "flat: about the same at 3,000 events"),
            ("state behind a page (`show`)", lambda bt, bid: bt.show(bid),
             "flat: about the same at 3,000 events"),
            ("page of side A (HTTP GET)", lambda bt, bid: pages[bid](),
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
