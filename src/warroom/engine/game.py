"""What a game system holds besides its procedures: its sequence of play (phases), its
markers, its unit model (a typed profile class) and how each procedure takes units (the
builders that turn units and a situation into the procedure's parameters).

A :class:`~warroom.engine.registry.GameSystem` carries these; ``battle/`` and ``units/``
ask the game for them and keep no per-game tables of their own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict

from warroom.engine.messages import Msg
from warroom.errors import UsageError

MarkerKind = Literal["flag", "count"]

COMMON_MARKERS: dict[str, MarkerKind] = {"eliminated": "flag", "concealed": "flag",
                                         "smoke": "flag"}
"""Markers every game knows."""


@dataclass(frozen=True, slots=True)
class Phase:
    """One phase of a player turn: its id, its title and its checklist (English
    templates, translated late)."""

    id: str
    title: str
    checklist: tuple[str, ...]


class Profile(BaseModel):
    """Base of every profile model: strict names, frozen values."""

    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True)


class Situation:
    """The situation keys given with the units (strings from the CLI or typed values),
    and ``support``: the units supporting the target, each with its own situation (a
    BKC/CWC assault's defender; :attr:`Takes.supported`)."""

    def __init__(self, values: Mapping[str, Any],
                 support: Sequence[tuple[Any, Situation]] = ()) -> None:
        self.values = dict(values)
        self.support = list(support)

    def text(self, key: str) -> str | None:
        v = self.values.get(key)
        return None if v is None else str(v).strip().lower()

    def flag(self, key: str) -> bool:
        v = self.values.get(key)
        if isinstance(v, bool) or v is None:
            return bool(v)
        text = str(v).strip().lower()
        if text in ("true", "yes", "1", "on"):
            return True
        if text in ("false", "no", "0", "off", ""):
            return False
        raise UsageError("{key}: expected true or false, got {value!r}", key=key, value=v)

    def int(self, key: str) -> int | None:
        v = self.values.get(key)
        if v is None or isinstance(v, int):
            return v
        try:
            return int(str(v).strip())
        except ValueError:
            raise UsageError("{key}: expected a whole number, got {value!r}", key=key,
                             value=v) from None


Actor = tuple[Any, Situation]
"""An acting unit's profile and its own situation (the step's, with its own keys)."""
Built = tuple[dict[str, Any], dict[str, Msg]]
"""A builder's answer: parameters, and where each came from."""
Builder = Callable[[Sequence[Actor], Any, Situation, frozenset[str]], Built]
"""(acting units, target profile or None, the step's situation, the procedure's
parameter names) -> :data:`Built`."""


@dataclass(frozen=True)
class Takes:
    """How one procedure takes units: its builder, whether it needs an acting unit and a
    target unit, the situation keys the builder reads that are not parameters, and for
    a procedure where several units act together, the keys each of them may give for
    itself (None: one acting unit); for a procedure whose target may come with units
    supporting it, the keys each of those may give for itself (``supported``; None:
    one target unit)."""

    build: Builder
    actor: bool = True
    target: bool = False
    situation: frozenset[str] = frozenset()
    several: frozenset[str] | None = None
    supported: frozenset[str] | None = None


def takes(build: Builder, actor: bool = True, target: bool = False,
          situation: Sequence[str] = (), several: Sequence[str] | None = None,
          supported: Sequence[str] | None = None) -> Takes:
    """A :class:`Takes` from plain sequences (a game's table of them reads shorter)."""
    return Takes(build, actor, target, frozenset(situation),
                 None if several is None else frozenset(several),
                 None if supported is None else frozenset(supported))


def one_actor(build: Callable[[Any, Any, Situation], Built]) -> Builder:
    """A builder from a function of one acting unit (its profile and own situation) and
    the target: ``build(profile, target, own_situation)``."""
    def builder(actors: Sequence[Actor], target: Any, s: Situation,
                names: frozenset[str]) -> Built:
        del s, names
        return build(actors[0][0], target, actors[0][1])

    return builder


T = TypeVar("T")


class LazyView(Mapping[str, T]):
    """A read-only mapping computed when asked: ``get(key)`` (None: not in it) over the
    keys ``keys()`` lists. The game objects' tables (phases, markers, how procedures
    take units) are read through these; nothing is loaded before."""

    def __init__(self, get: Callable[[str], T | None],
                 keys: Callable[[], Sequence[str]]) -> None:
        self._get = get
        self._keys = keys

    def __getitem__(self, key: str) -> T:
        value = self._get(key)
        if value is None:
            raise KeyError(key)
        return value

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self._get(key) is not None

    def __iter__(self) -> Iterator[str]:
        return iter([k for k in self._keys() if self._get(k) is not None])

    def __len__(self) -> int:
        return len(list(iter(self)))
