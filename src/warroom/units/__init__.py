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

``warroom.odds(proc, from_unit=..., at_unit=..., **situation)`` does the same inside
the API; the CLI's ``--from FILE:UNIT --at FILE:UNIT``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from warroom.engine.messages import Msg, Translator, msg
from warroom.errors import UsageError

Builder = Callable[[Any, Any, Any, frozenset[str]], tuple[dict[str, Any], dict[str, Msg]]]

GIVEN = msg("given explicitly")
# situation keys a builder reads that are not parameters of the procedure
SITUATION: dict[str, frozenset[str]] = {
    "fow.shoot": frozenset({"weapon", "pinned"}),
    "fow.shoot_mixed": frozenset({"weapon", "pinned", "range_cm", "gone_to_ground",
                                  "bailed_out"}),
    "asl.ift": frozenset({"range_hexes", "pinned", "leader_broken"}),
    "asl.ift_on_stack": frozenset({"broken"}),
    "bkc.fire": frozenset({"weapon", "hits", "range_cm"}),
    "cwc.fire": frozenset({"weapon", "hits", "range_cm"}),
}
# which units a procedure needs: (acting unit, target)
NEEDS: dict[str, tuple[bool, bool]] = {
    "fow.shoot": (True, True), "fow.shoot_mixed": (True, True), "asl.ift": (True, False),
    "asl.ift_on_stack": (False, True), "bkc.fire": (True, True), "cwc.fire": (True, True)}
GAME_OF = {"fow.shoot": "fow", "fow.shoot_mixed": "fow", "asl.ift": "asl",
           "asl.ift_on_stack": "asl", "bkc.fire": "bkc", "cwc.fire": "cwc"}


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

        f = fow.shoot_params if procedure == "fow.shoot" else fow.mixed_params
        return lambda a, t, s, names: f(a, t, s)
    if procedure in ("asl.ift", "asl.ift_on_stack"):
        from warroom.games.asl import units as asl

        g = asl.ift_params if procedure == "asl.ift" else asl.stack_params
        return lambda a, t, s, names: g(a, t, s)
    from warroom.games.commander.units import fire_params

    return fire_params


def _profile(value: Any, game: str, role: str) -> Any:
    if value is None:
        return None
    if isinstance(value, str):
        from warroom.units.forces import load_unit

        unit_game, value = load_unit(value)
        if unit_game != game and {unit_game, game} != {"bkc", "cwc"}:
            raise UsageError("{role} is a {game} unit; this procedure is {wanted}",
                             role=role, game=unit_game, wanted=game)
    return value


def params_for(procedure: str, from_unit: Any = None, at_unit: Any = None, /,
               **situation: Any) -> Built:
    """The parameters of ``procedure`` for ``from_unit`` acting on ``at_unit`` (profiles
    or ``"FILE:UNIT"`` references) in ``situation`` (situation keys and explicit
    parameters; explicit parameters win)."""
    from warroom import api
    from warroom.units.base import Situation

    if procedure not in NEEDS:
        raise UsageError("{proc} does not take units yet; units work with {valid}",
                         proc=procedure, valid=", ".join(NEEDS))
    proc = api.registry().procedure(procedure)
    game = GAME_OF[procedure]
    actor = _profile(from_unit, game, "--from")
    target = _profile(at_unit, game, "--at")
    need_actor, need_target = NEEDS[procedure]
    if need_actor and actor is None:
        raise UsageError("{proc} needs the acting unit: --from FILE:UNIT", proc=procedure)
    if need_target and target is None:
        raise UsageError("{proc} needs the target unit: --at FILE:UNIT", proc=procedure)
    names = frozenset(proc.param_names)
    built, sources = _builder(procedure)(actor, target, Situation(situation), names)
    params = {k: v for k, v in built.items() if k in names}
    for key, value in situation.items():
        if key in names:
            params[key] = value
            sources[key] = GIVEN
        elif key not in SITUATION[procedure]:
            from warroom.errors import UnknownParameterError

            raise UnknownParameterError(procedure, key,
                                        sorted(names | SITUATION[procedure]))
    return Built(procedure, params, {k: sources[k] for k in params if k in sources})


def split_units(params: Mapping[str, Any]) -> tuple[Any, Any, dict[str, Any]]:
    """``from_unit`` and ``at_unit`` taken out of a parameter mapping."""
    rest = dict(params)
    return rest.pop("from_unit", None), rest.pop("at_unit", None), rest
