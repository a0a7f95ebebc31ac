"""Memo keys: what a function (a per-item chain, a stage) computes, so two closures made
by the same code over equal values share one memo entry for the whole query."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def stage_key(stage: Callable[..., Any]) -> Any:
    """What a stage computes (:func:`chain_key`), for a stage on part of the state its
    positions and the key of the function on them."""
    part = getattr(stage, "_warroom_part", None)
    if part is None:
        return chain_key(stage)
    inner = part_key(part[1], part[3])
    return None if inner is None else ("part", part[0], part[2], inner)


def part_key(fn: Callable[..., Any], key: Callable[..., Any] | None) -> Any:
    """What a stage on part of the state computes (context.part): its function's key
    (:func:`chain_key`), with that of the function keying its transitions where it has
    one (a transition kept by a key is another stage's than one kept by the values).
    None: not memoised beyond its plan."""
    inner = chain_key(fn)
    if key is None or inner is None:
        return inner
    outer = chain_key(key)
    return None if outer is None else ("keyed", inner, outer)


def chain_key(chain: Callable[..., Any] | None, depth: int = 0) -> Any:
    """A key identifying what a function (a per-item chain, a round) computes: its code
    and the values it captured, a captured function standing for its own key, so two
    closures made by the same code over equal values share one key. None when a captured
    value cannot be hashed, or functions nest too deep (then it is not memoised). A
    function marked :func:`~warroom.engine.context.fixed` keeps its key once made."""
    if hasattr(chain, "__func__"):  # a bound method computes with its object too
        return None
    known = getattr(chain, "_warroom_key", None)
    if known is not None:
        return known
    code = getattr(chain, "__code__", None)
    if code is None or depth > 8:
        return None
    cells = getattr(chain, "__closure__", None) or ()
    kwdefaults = getattr(chain, "__kwdefaults__", None) or {}
    try:
        captured = []
        for cell in cells:
            value = cell.cell_contents
            if hasattr(value, "__code__"):
                value = chain_key(value, depth + 1)
                if value is None:
                    return None
            captured.append(value)
        # the module and qualified name too: equal code compiled in two modules (a
        # lambda calling a global) reads different globals
        key = (getattr(chain, "__module__", None), getattr(chain, "__qualname__", None),
               code, tuple(captured), getattr(chain, "__defaults__", None),
               tuple(sorted(kwdefaults.items())))
        hash(key)
    except (TypeError, ValueError):
        return None
    if getattr(chain, "_warroom_fixed", False):  # its captures never change: keep it
        chain._warroom_key = key  # type: ignore[union-attr]
    return key

