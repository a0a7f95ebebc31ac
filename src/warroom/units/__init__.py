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

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from warroom.engine.messages import Msg, Translator, msg
from warroom.errors import UsageError
from warroom.units.base import Situation

Actor = tuple[Any, Situation]
"""An acting unit's profile and its own situation (the step's, with its own keys)."""
Builder = Callable[[Sequence[Actor], Any, Situation, frozenset[str]],
                   tuple[dict[str, Any], dict[str, Msg]]]

GIVEN = msg("given explicitly")
# situation keys a builder reads that are not parameters of the procedure
SITUATION: dict[str, frozenset[str]] = {
    "fow.shoot": frozenset({"weapon", "pinned", "destroyed", "lost"}),
    "fow.shoot_mixed": frozenset({"weapon", "pinned", "range_cm", "gone_to_ground",
                                  "bailed_out", "destroyed", "lost"}),
    "asl.ift": frozenset({"range_hexes", "pinned", "leader_broken"}),
    "asl.ift_on_stack": frozenset({"broken"}),
    "asl.fire_group": frozenset({"range_hexes", "pinned", "broken"}),
    "bkc.fire": frozenset({"weapon", "hits", "range_cm"}),
    "cwc.fire": frozenset({"weapon", "hits", "range_cm"}),
}
# the situation keys each acting unit of a list may give for itself
ACTOR_KEYS: dict[str, frozenset[str]] = {
    "fow.shoot_mixed": frozenset({"weapon", "pinned", "range_cm", "moved", "lost"}),
    "asl.fire_group": frozenset({"range_hexes", "pinned"}),
    "bkc.fire": frozenset({"weapon", "range_cm"}),
    "cwc.fire": frozenset({"weapon", "range_cm"}),
}
# which units a procedure needs: (acting unit, target)
NEEDS: dict[str, tuple[bool, bool]] = {
    "fow.shoot": (True, True), "fow.shoot_mixed": (True, True), "asl.ift": (True, False),
    "asl.ift_on_stack": (False, True), "asl.fire_group": (True, True),
    "bkc.fire": (True, True), "cwc.fire": (True, True)}
GAME_OF = {"fow.shoot": "fow", "fow.shoot_mixed": "fow", "asl.ift": "asl",
           "asl.ift_on_stack": "asl", "asl.fire_group": "asl", "bkc.fire": "bkc",
           "cwc.fire": "cwc"}
SEVERAL = frozenset(ACTOR_KEYS)
"""Procedures where several units act together (a list of acting units)."""


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


def _builder(procedure: str) -> Builder:
    if procedure in ("fow.shoot", "fow.shoot_mixed"):
        from warroom.games.fow import units as fow

        if procedure == "fow.shoot":
            return lambda a, t, s, names: fow.shoot_params(a[0][0], t, a[0][1])
        return lambda a, t, s, names: fow.mixed_params(a, t, s)
    if procedure.startswith("asl."):
        from warroom.games.asl import units as asl

        if procedure == "asl.ift":
            return lambda a, t, s, names: asl.ift_params(a[0][0], t, a[0][1])
        if procedure == "asl.fire_group":
            return lambda a, t, s, names: asl.group_params(a, t, s)
        return lambda a, t, s, names: asl.stack_params(None, t, s)
    from warroom.games.commander.units import fire_params

    return fire_params


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
    out: list[Actor] = []
    for item in items:
        own: dict[str, Any] = {}
        if isinstance(item, Mapping):
            own = dict(item)
            item = own.pop("unit", None)
            if item is None:
                raise UsageError("an acting unit given as a mapping names it under the "
                                 "key unit")
            allowed = ACTOR_KEYS.get(procedure, frozenset())
            for key in own:
                if key not in allowed:
                    raise UsageError("{key} is not something one acting unit of {proc} "
                                     "gives for itself (it may give: {valid})", key=key,
                                     proc=procedure, valid=", ".join(sorted(allowed)) or "-")
        out.append((profile_of(item, game)[1], Situation({**situation, **own})))
    return out


def params_for(procedure: str, from_unit: Any = None, at_unit: Any = None, /,
               **situation: Any) -> Built:
    """The parameters of ``procedure`` for ``from_unit`` acting on ``at_unit`` in
    ``situation`` (situation keys and explicit parameters; explicit parameters win).

    ``from_unit`` is a profile, a ``"FILE:UNIT"`` reference, a mapping ``{"unit": ...,
    **its own situation}``, or for the procedures in :data:`SEVERAL` a list of them
    (several units acting in one step); ``at_unit`` a profile or a reference."""
    return build(procedure, from_unit, at_unit, situation)


def build(procedure: str, from_unit: Any, at_unit: Any, situation: Mapping[str, Any],
          known: Mapping[str, tuple[Any, Msg]] | None = None) -> Built:
    """:func:`params_for`, plus ``known``: values the caller knows with where they came
    from (a battle's markers: ``{"pinned": (True, msg(...))}``). A known procedure
    parameter is used unless given explicitly; a known situation key is read unless
    given; anything else known is left out."""
    from warroom import api

    if procedure not in NEEDS:
        raise UsageError("{proc} does not take units yet; units work with {valid}",
                         proc=procedure, valid=", ".join(NEEDS))
    proc = api.registry().procedure(procedure)
    game = GAME_OF[procedure]
    names = frozenset(proc.param_names)
    extra = SITUATION[procedure]
    for key in situation:
        if key not in names and key not in extra:
            from warroom.errors import UnknownParameterError

            raise UnknownParameterError(procedure, key, sorted(names | extra))
    known = dict(known or {})
    merged = {**{k: v for k, (v, _) in known.items() if k in extra}, **situation}
    actors = _actors(procedure, from_unit, game, merged)
    target = None if at_unit is None else profile_of(at_unit, game, "--at")[1]
    need_actor, need_target = NEEDS[procedure]
    if need_actor and not actors:
        raise UsageError("{proc} needs the acting unit: --from FILE:UNIT", proc=procedure)
    if need_target and target is None:
        raise UsageError("{proc} needs the target unit: --at FILE:UNIT", proc=procedure)
    built, sources = _builder(procedure)(actors, target, Situation(merged), names)
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
