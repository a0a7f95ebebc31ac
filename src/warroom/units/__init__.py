"""Units with their stats, and "unit X does Y to unit Z".

:func:`params_for` builds a procedure's parameters from two unit profiles (typed per
game: :mod:`warroom.games.fow.units`, :mod:`warroom.games.asl.units`,
:mod:`warroom.games.commander.units`) and the situation, and says where each value came
from. Explicit parameters override what the units give::

    >>> from warroom.units import params_for
    >>> built = params_for("fow.shoot", "example:fow:Shermans", "example:fow:Panthers",
    ...                    range_cm=30)
    >>> built.params["armour"], str(built.sources["armour"])
    (10, 'Panthers, front armour')

Several units acting in one step (a FoW shooting step, an ASL fire group, a BKC/CWC
combined fire) are a list; each may carry its own situation as a mapping
``{"unit": ref_or_profile, "range_cm": 50, "moved": True}``::

    >>> built = params_for("bkc.fire", ["example:bkc:Tanks", "example:bkc:Infantry"],
    ...                    "example:bkc:HQ")
    >>> built.params["attackers"]
    '3,3,3,3'

``warroom.odds(proc, from_unit=..., at_unit=..., **situation)`` does the same inside
the API; the CLI's ``--from FILE:UNIT --at FILE:UNIT`` (``--from`` again for more).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from warroom.engine.game import Actor, Builder, LazyView, Situation, Takes
from warroom.engine.messages import Msg, Translator, msg
from warroom.errors import UsageError

__all__ = ["ACTOR_KEYS", "GAME_OF", "NEEDS", "SEVERAL", "SITUATION", "SUPPORTED", "Actor",
           "Builder",
           "Built", "NoUnitMeaningError", "build", "params_for", "profile_of",
           "split_units", "takes_units"]

GIVEN = msg("given explicitly")
MAX_SUPPORTING = 10
"""The most units supporting a target in one step (a BKC/CWC assault's side)."""
T = TypeVar("T")


class NoUnitMeaningError(UsageError):
    """A procedure whose parameters are not a unit's numbers (code ``no_unit_meaning``):
    give its parameters yourself."""

    def __init__(self, procedure: str) -> None:
        super().__init__("{proc} has no unit meaning: it takes no units, give its "
                         "parameters yourself", proc=procedure)
        self.procedure = procedure


def takes_units(procedure: str) -> Takes | None:
    """How ``procedure`` takes units (its game object's :attr:`GameSystem.takes`), or
    None: it has no unit meaning."""
    from warroom.engine.registry import registry

    game = procedure.partition(".")[0]
    reg = registry()
    if game not in reg.games:
        return None
    return reg.system(game).takes.get(procedure)


def _procedures() -> list[str]:
    from warroom.engine.registry import registry

    return [p for system in registry().systems() for p in system.takes]


def _by_procedure(part: Callable[[str, Takes], T | None]) -> LazyView[T]:
    """One thing about how each procedure takes units, by procedure id, read from the
    game objects (procedures where it is None are left out)."""
    def get(procedure: str) -> T | None:
        found = takes_units(procedure)
        return None if found is None else part(procedure, found)

    return LazyView(get, _procedures)


NEEDS: Mapping[str, tuple[bool, bool]] = _by_procedure(lambda p, t: (t.actor, t.target))
"""Which units a procedure needs: (acting unit, target)."""
GAME_OF: Mapping[str, str] = _by_procedure(lambda p, t: p.partition(".")[0])
SITUATION: Mapping[str, frozenset[str]] = _by_procedure(lambda p, t: t.situation)
"""Situation keys a builder reads that are not parameters of the procedure."""
ACTOR_KEYS: Mapping[str, frozenset[str]] = _by_procedure(lambda p, t: t.several)
"""The situation keys each acting unit of a list may give for itself."""
SEVERAL: Mapping[str, frozenset[str]] = ACTOR_KEYS
"""Procedures where several units act together (a list of acting units)."""
SUPPORTED: Mapping[str, frozenset[str]] = _by_procedure(lambda p, t: t.supported)
"""Procedures whose target may come with units supporting it (a list of target units:
the first is the target); the situation keys each supporting unit may give for itself."""


@dataclass(frozen=True)
class Built:
    """A procedure's parameters built from units: ``params`` (for :func:`warroom.odds`
    and friends) and ``sources``, where each came from ("given explicitly" for explicit
    ones), as messages: ``str()`` in English, ``render(tr)`` in any language."""

    procedure: str
    params: dict[str, Any]
    sources: dict[str, Msg]

    def lines(self, tr: Translator | None = None) -> list[str]:
        """``["armour 10: Panthers, front armour", ...]`` (in ``tr``'s language)."""
        def show(v: Any) -> str:
            return ("yes" if v else "no") if isinstance(v, bool) else str(v)

        return [f"{k} {show(self.params[k])}: {v.render(tr)}"
                for k, v in self.sources.items()]

    def to_json(self, tr: Translator | None = None) -> dict[str, Any]:
        """``{"procedure", "params", "filled": {name: where it came from}}``, the shape
        of the battle tracker's ``filled`` (texts in ``tr``'s language)."""
        return {"procedure": self.procedure, "params": dict(self.params),
                "filled": {k: v.render(tr) for k, v in self.sources.items()}}


def profile_of(value: Any, game: str | None = None, role: str = "--from"
               ) -> tuple[str, Any]:
    """``(game, profile)`` of a profile object or a ``"FILE:UNIT"`` reference; with
    ``game``, a unit of another game is refused (BKC and CWC units serve both)."""
    from warroom.units.forces import game_of, load_unit

    if isinstance(value, str):
        unit_game, profile = load_unit(value)
    else:
        unit_game, profile = game_of(value), value
    if game is not None and unit_game != game and {unit_game, game} != {"bkc", "cwc"}:
        raise UsageError("{role} is a {game} unit; this procedure is {wanted}",
                         role=role, game=unit_game, wanted=game)
    return unit_game, profile


def _actors(procedure: str, value: Any, game: str,
            situation: Mapping[str, Any]) -> list[Actor]:
    """The acting units (one, or a list) with their own situations."""
    if value is None:
        return []
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    if len(items) > 1 and procedure not in SEVERAL:
        raise UsageError("{proc} takes one acting unit; several units act together in "
                         "{valid}", proc=procedure, valid=", ".join(sorted(SEVERAL)))
    if len(items) > 20:
        raise UsageError("at most {most} acting units in one step, got {count}", most=20,
                         count=len(items))
    return _with_own(procedure, items, game, situation, ACTOR_KEYS.get(procedure), "--from")


def _targets(procedure: str, value: Any, game: str,
             situation: Mapping[str, Any]) -> tuple[Any, list[Actor]]:
    """The target unit and the units supporting it (a list: the first is the target,
    for the procedures in :data:`SUPPORTED`), each supporter with its own situation."""
    if value is None:
        return None, []
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    if not items:
        return None, []
    if len(items) > 1 and procedure not in SUPPORTED:
        raise UsageError("{proc} takes one target unit; a target with supporting units "
                         "in {valid}", proc=procedure, valid=", ".join(sorted(SUPPORTED)))
    if len(items) > MAX_SUPPORTING + 1:
        from warroom.errors import counted

        raise UsageError(counted("at most {n} supporting unit a side",
                                 "at most {n} supporting units a side", n=MAX_SUPPORTING))
    target = profile_of(items[0], game, "--at")[1]
    own = SUPPORTED.get(procedure) or frozenset()
    base = {k: v for k, v in situation.items() if k not in own}  # the target's own state
    return target, _with_own(procedure, items[1:], game, base, own, "--at")


def _with_own(procedure: str, items: list[Any], game: str, situation: Mapping[str, Any],
              allowed: frozenset[str] | None, role: str) -> list[Actor]:
    """Units (profiles, references, or mappings ``{"unit": ..., **its own situation}``
    whose keys are among ``allowed``), each with the step's situation and its own."""
    out: list[Actor] = []
    for item in items:
        own: dict[str, Any] = {}
        if isinstance(item, Mapping):
            own = dict(item)
            item = own.pop("unit", None)
            if item is None:
                raise UsageError("an acting unit given as a mapping names it under the "
                                 "key unit")
            valid = ", ".join(sorted(allowed or ())) or "-"
            for key in own:
                if key not in (allowed or ()) and role == "--at":
                    raise UsageError("{key} is not something a unit supporting the target "
                                     "of {proc} gives for itself (it may give: {valid})",
                                     key=key, proc=procedure, valid=valid)
                if key not in (allowed or ()):
                    raise UsageError("{key} is not something one acting unit of {proc} "
                                     "gives for itself (it may give: {valid})", key=key,
                                     proc=procedure, valid=valid)
        out.append((profile_of(item, game, role)[1], Situation({**situation, **own})))
    return out


def params_for(procedure: str, from_unit: Any = None, at_unit: Any = None, /,
               **situation: Any) -> Built:
    """The parameters of ``procedure`` for ``from_unit`` acting on ``at_unit`` in
    ``situation`` (situation keys and explicit parameters; explicit parameters win).

    ``from_unit`` is a profile, a ``"FILE:UNIT"`` reference, a mapping ``{"unit": ...,
    **its own situation}``, or for the procedures in :data:`SEVERAL` a list of them
    (several units acting in one step); ``at_unit`` a profile or a reference, or for
    the procedures in :data:`SUPPORTED` a list: the target, then the units supporting
    it (each may be a mapping with its own situation, ``{"unit": ..., "suppressed":
    True}``)."""
    return build(procedure, from_unit, at_unit, situation)


def build(procedure: str, from_unit: Any, at_unit: Any, situation: Mapping[str, Any],
          known: Mapping[str, tuple[Any, Msg]] | None = None) -> Built:
    """:func:`params_for`, plus ``known``: values the caller knows with where they came
    from (a battle's markers: ``{"pinned": (True, msg(...))}``). A known procedure
    parameter is used unless given explicitly; a known situation key is read unless
    given; anything else known is left out."""
    from warroom.engine.registry import registry

    proc = registry().procedure(procedure)
    how = takes_units(proc.id)
    if how is None:
        raise NoUnitMeaningError(proc.id)
    game = proc.id.partition(".")[0]
    names = frozenset(proc.param_names)
    extra = how.situation
    for key in situation:
        if key not in names and key not in extra:
            from warroom.errors import UnknownParameterError

            raise UnknownParameterError(procedure, key, sorted(names | extra))
    known = dict(known or {})
    merged = {**{k: v for k, (v, _) in known.items() if k in extra}, **situation}
    actors = _actors(procedure, from_unit, game, merged)
    target, support = _targets(procedure, at_unit, game, merged)
    need_actor, need_target = how.actor, how.target
    if need_actor and not actors:
        raise UsageError("{proc} needs the acting unit: --from FILE:UNIT", proc=procedure)
    if need_target and target is None:
        raise UsageError("{proc} needs the target unit: --at FILE:UNIT", proc=procedure)
    built, sources = how.build(actors, target, Situation(merged, support), names)
    params = {k: v for k, v in built.items() if k in names}
    for key, (value, why) in known.items():
        if key in names and key not in situation:
            params[key], sources[key] = value, why
    for key, value in situation.items():
        if key in names:
            params[key] = value
            sources[key] = GIVEN
    return Built(procedure, params, {k: sources[k] for k in params if k in sources})


def split_units(params: Mapping[str, Any]) -> tuple[Any, Any, dict[str, Any]]:
    """``from_unit`` and ``at_unit`` taken out of a parameter mapping."""
    rest = dict(params)
    return rest.pop("from_unit", None), rest.pop("at_unit", None), rest
