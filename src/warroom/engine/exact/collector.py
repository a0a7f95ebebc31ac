"""The garbage collector during an exact query: the heap that exists before it is left
out of the collector's passes, and loops that make many objects without cycles run with
automatic collection paused."""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator


@contextlib.contextmanager
def acyclic() -> Iterator[None]:
    """No collection while a loop makes many objects that hold no cycles (states
    spliced, outcome rows): the collector's passes would only walk them. Automatic
    collection is paused around such a loop only, and resumed after it if it was on
    when the loop began (with threads, one's pause may end during another's loop, which
    then only runs with collections, as without this)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            _spare_young()
            gc.enable()


_GC_LOCK = threading.Lock()
_GC_HOLDERS = [0]


def _spare_young() -> None:
    """During an exact query (:func:`gc_frozen`), leave the objects made so far out of
    the collector's passes too (``gc.freeze``): a loop under :func:`acyclic` makes tens
    of thousands (states, rows) that live on (a stage's states until the next stage),
    and resuming collection would walk each of them once for nothing. They are freed as
    usual when no longer used; any cycle among earlier objects is collected after the
    query, when the last one lets everything back (``gc.unfreeze``)."""
    with _GC_LOCK:
        if _GC_HOLDERS[0]:
            gc.freeze()


@contextlib.contextmanager
def gc_frozen() -> Iterator[None]:
    """Leave the objects that exist before an exact query out of the collector's passes
    while it runs (``gc.freeze``; threads may run queries at once: they are let back
    when the last one ends). A query makes hundreds of thousands of short-lived objects,
    so the collector runs often, and each full pass would walk the whole program's heap
    too; the query's own garbage (lazy counts' category trees hold cycles) is still
    collected as it goes."""
    with _GC_LOCK:
        if _GC_HOLDERS[0] == 0:
            gc.freeze()
        _GC_HOLDERS[0] += 1
    try:
        yield
    finally:
        with _GC_LOCK:
            _GC_HOLDERS[0] -= 1
            if _GC_HOLDERS[0] == 0:
                gc.unfreeze()

