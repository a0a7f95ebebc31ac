"""Long Monte Carlo runs as seeded streams (drivers._simulate_streams): the same counts
whether the streams run in forked processes or take turns here, a stream whose process
fails is run here, a time cap stops every stream, and a stream's process stops by itself
when the process that started it goes away. And the outcome counted as a row."""

from __future__ import annotations

import gc
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

import warroom
from tests.helpers import close_enough
from warroom import api
from warroom.engine import drivers
from warroom.engine.context import Row, rows
from warroom.errors import RuleError

LONG = drivers.STREAMS_FROM + 17  # not a multiple of the streams: sizes differ by one
QUESTION = ("asl.ift_on_stack", {"units": "squad:7:3,leader:8:-1,hs:6:2,squad:6",
                                 "result": "K/1"})


def _estimate(monkeypatch: pytest.MonkeyPatch, fork: bool, samples: int = LONG
              ) -> warroom.Estimate:
    monkeypatch.setattr(drivers, "_may_fork", lambda: fork)
    monkeypatch.setattr(drivers, "BATCHED", False)  # the streams, not the batched driver
    proc, params = api.prepare(*QUESTION)
    return drivers.simulate(proc, params, samples, seed=7)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork on this platform")
def test_forked_streams_count_as_streams_in_turns(monkeypatch: pytest.MonkeyPatch) -> None:
    forked = _estimate(monkeypatch, True)
    here = _estimate(monkeypatch, False)
    assert forked.samples == here.samples == LONG
    assert sum(forked.counts.values()) == LONG
    assert dict(forked.counts) == dict(here.counts)
    assert gc.get_freeze_count() == 0  # the heap left out of collections is let back
    # and they follow the rule's law: every unit's chances against the exact odds
    proc, params = api.prepare(*QUESTION)
    exact = drivers.exact(proc, params)
    for name in ("eliminated", "broken", "pinned"):
        estimated = forked.as_distribution().marginal(name)
        for value, p in exact.marginal(name).items():
            assert close_enough(float(estimated.get(value, 0)), float(p), LONG), (name, value)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork on this platform")
def test_a_stream_whose_process_fails_is_run_here(monkeypatch: pytest.MonkeyPatch) -> None:
    here = _estimate(monkeypatch, False)
    me = os.getpid()
    run = drivers._Stream.run

    def fails_in_a_child(self: Any, chunk: int) -> None:
        if os.getpid() != me:
            raise RuntimeError("the forked process fails")
        run(self, chunk)

    monkeypatch.setattr(drivers._Stream, "run", fails_in_a_child)
    assert dict(_estimate(monkeypatch, True).counts) == dict(here.counts)


@pytest.mark.parametrize("fork", [True, False])
def test_a_time_cap_stops_every_stream(monkeypatch: pytest.MonkeyPatch, fork: bool) -> None:
    if fork and not hasattr(os, "fork"):
        pytest.skip("no os.fork on this platform")
    monkeypatch.setattr(drivers, "_may_fork", lambda: fork)
    monkeypatch.setattr(drivers, "BATCHED", False)
    proc, params = api.prepare(*QUESTION)
    est = drivers.simulate(proc, params, 10**8, seed=7, seconds=0.2)
    assert est.extra == {"stopped_early": True, "samples_asked": 10**8}
    assert 0 < est.samples == sum(est.counts.values()) < 10**8


def test_streams_are_used_from_their_size_and_seeded() -> None:
    proc, params = api.prepare(*QUESTION)
    short = drivers.simulate(proc, params, drivers.STREAMS_FROM - 1, seed=3)
    again = drivers.simulate(proc, params, drivers.STREAMS_FROM - 1, seed=3)
    assert dict(short.counts) == dict(again.counts)
    first = drivers._stream_rng(3, 0).random()
    assert first == drivers._stream_rng(3, 0).random() != drivers._stream_rng(3, 1).random()


CHILDREN = Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children")
"""Where Linux lists a process's children (kernels built with CONFIG_PROC_CHILDREN)."""


@pytest.mark.skipif(not hasattr(os, "fork") or not CHILDREN.exists(),
                    reason="needs os.fork and Linux's /proc/PID/task/PID/children")
def test_a_stream_process_stops_when_its_parent_goes(tmp_path: Path) -> None:
    """A worker killed while counting (a request abandoned) leaves no process counting:
    its forked stream sees it gone after at most one chunk and exits."""
    script = textwrap.dedent(f"""
        from warroom import api
        from warroom.engine import drivers
        drivers._may_fork = lambda: True  # one core or not: fork
        drivers.BATCHED = False  # the streams, not the batched driver
        proc, params = api.prepare(*{QUESTION!r})
        drivers.simulate(proc, params, 10**9, seed=1)
    """)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    parent = subprocess.Popen([sys.executable, "-c", script], env=env)
    try:
        kids: list[int] = []
        for _ in range(200):  # its stream's process, once forked
            time.sleep(0.05)
            listed = Path(f"/proc/{parent.pid}/task/{parent.pid}/children")
            kids = [int(k) for k in listed.read_text().split()] if listed.exists() else []
            if kids:
                break
        assert kids, "the run forked no stream process"
    finally:
        parent.send_signal(signal.SIGKILL)
        parent.wait()
    for _ in range(200):
        if not any(_running(k) for k in kids):
            break
        time.sleep(0.05)
    assert not any(_running(k) for k in kids)


def _running(pid: int) -> bool:
    """Alive and not a zombie (an orphan's exit may wait for a reaper)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def test_an_outcome_given_as_a_row_is_a_mapping_and_counted_as_it_is() -> None:
    """``context.rows``: rolling, the outcome reads as a mapping of its fields; Monte
    Carlo counts its cells as they are (the same counts as the mapping's values)."""
    outcome = rows(("a", "b"), lambda state, fought: (state[0], fought))
    row = outcome((3,), 2)
    assert isinstance(row, Row) and dict(row) == {"a": 3, "b": 2} and row.cells == (3, 2)
    assert list(row) == ["a", "b"] and len(row) == 2 and row["b"] == 2
    with pytest.raises(KeyError):
        row["c"]
    with pytest.raises(RuleError, match="2 fields"):
        rows(("a", "b"), lambda state, fought: (1,))((0,), 0)
    proc, params = api.prepare("fow.shoot_mixed", {"weapons": "3:10:3", "teams": "tank:6,soft"})
    est = drivers.simulate(proc, params, 500, seed=2)
    assert sum(est.counts.values()) == 500
    assert all(type(k) is tuple and len(k) == len(proc.fields) for k in est.counts)
