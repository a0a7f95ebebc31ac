"""The Python API. The CLI and the web app are thin layers over these functions.

    >>> import warroom
    >>> d = warroom.odds("demo.pool", dice=2, at=4)
    >>> d.probability(successes=2)
    Fraction(1, 4)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, overload

from warroom.engine import drivers
from warroom.engine.params import ParamSpec, describe, validate
from warroom.engine.procedure import Params, Procedure
from warroom.engine.registry import GameSystem, Registry
from warroom.engine.registry import registry as registry
from warroom.engine.results import Distribution, Estimate, Resolution

MAX_SAMPLES = 10_000_000


def prepare(procedure: str, params: Mapping[str, Any],
            reg: Registry | None = None) -> tuple[Procedure, Params]:
    """Look up a procedure and validate its parameters (raises UsageError).

    ``from_unit=`` / ``at_unit=`` (unit profiles or ``"FILE:UNIT"``) fill the parameters
    from the units' stats (:func:`warroom.units.params_for`)."""
    proc = (reg or registry()).procedure(procedure)
    if "from_unit" in params or "at_unit" in params:
        from warroom.units import params_for, split_units

        actor, target, rest = split_units(params)
        params = params_for(proc.id, actor, target, **rest).params
    return proc, validate(proc, params)


def _params(given: Mapping[str, Any] | None, kwargs: dict[str, Any]) -> dict[str, Any]:
    out = dict(given or {})
    out.update(kwargs)
    return out


def _split_dice(kwargs: dict[str, Any]) -> Sequence[object] | None:
    """``dice=[3, 5]`` (a sequence, or text like "3,5") is entered dice; ``dice=8`` is a
    parameter of the procedure (e.g. the attack dice of ``fow.shoot``)."""
    value = kwargs.get("dice")
    if isinstance(value, (list, tuple)):
        del kwargs["dice"]
        return value
    if isinstance(value, str) and ("," in value or " " in value.strip()):
        from warroom.dice.sources import parse_dice

        del kwargs["dice"]
        return parse_dice(value)
    return None


@overload
def odds(procedure: str, params: Mapping[str, Any] | None = None, /, *,
         exact: Literal[True], **kwargs: Any) -> Distribution: ...


@overload
def odds(procedure: str, params: Mapping[str, Any] | None = None, /, *,
         exact: bool | None = None, **kwargs: Any) -> Distribution | Estimate: ...


def odds(procedure: str, params: Mapping[str, Any] | None = None, /, *,
         exact: bool | None = None, **kwargs: Any) -> Distribution | Estimate:
    """Exact odds of every outcome: ``odds("fow.shoot", dice=8, target="tank")``.

    Past the exact budget it answers as the command line, the pages and the HTTP API
    do: with a seeded Monte Carlo estimate (an :class:`Estimate`, each chance within
    half a percentage point at 95%). ``exact=True`` asks for exact odds only (raises
    :class:`~warroom.errors.ExactTooLargeError` past the budget); ``exact=False``
    always estimates.

        >>> import warroom
        >>> est = warroom.odds("asl.ift_on_stack", units="4-6-7,4-6-7,4-6-7,4-6-7,"
        ...                    "4-6-7,4-6-7,4-6-7,4-6-7,8-1,9-2", result="K/2")
        >>> est.samples, abs(sum(est.counts.values()) - est.samples)
        (38415, 0)
        >>> warroom.odds("demo.pool", dice=2, at=4, exact=True).probability(successes=2)
        Fraction(1, 4)
    """
    from warroom.errors import ExactTooLargeError

    proc, p = prepare(procedure, _params(params, kwargs))
    if exact is not False:
        try:
            return drivers.exact(proc, p)
        except ExactTooLargeError:
            if exact:
                raise
    return drivers.estimate(proc, p)


def roll(procedure: str, params: Mapping[str, Any] | None = None, /, *,
         seed: int | None = None, entered: Sequence[object] | None = None,
         **kwargs: Any) -> Resolution:
    """Resolve once with seeded dice, or with dice typed in at the table.

    Entered dice go in ``entered=[3, 5, 6]`` or ``dice=[3, 5, 6]`` (a list); an integer
    ``dice=8`` is the procedure's own parameter.
    """
    typed = _split_dice(kwargs)
    if entered is None:
        entered = typed
    proc, p = prepare(procedure, _params(params, kwargs))
    return drivers.roll(proc, p, seed=seed, dice=entered)


def simulate(procedure: str, params: Mapping[str, Any] | None = None, /, *,
             samples: int = 10_000, seed: int | None = None, **kwargs: Any) -> Estimate:
    """Monte Carlo estimate with 95% confidence intervals."""
    from warroom.errors import ParameterError

    if not 1 <= samples <= MAX_SAMPLES:
        raise ParameterError("samples", f"{samples} is out of range", f"1 to {MAX_SAMPLES}")
    proc, p = prepare(procedure, _params(params, kwargs))
    return drivers.simulate(proc, p, samples, seed=seed)


def rules(game: str | None = None) -> list[dict[str, Any]]:
    """Every game system (or one) with its procedures, parameters, outcomes and tables."""
    reg = registry()
    systems = [reg.system(game)] if game else list(reg.systems())
    return [describe_system(s) for s in systems]


def describe_system(system: GameSystem) -> dict[str, Any]:
    return {
        "id": system.id,
        "title": system.title,
        "description": system.description,
        "procedures": [describe_procedure(p) for p in system.procedures],
        "tables": dict(system.tables),
    }


def describe_procedure(proc: Procedure) -> dict[str, Any]:
    return {
        "id": proc.id,
        "title": proc.title,
        "summary": proc.summary,
        "source": proc.source,
        "note": proc.note,
        "params": [s.to_dict() for s in param_specs(proc)],
        "outcome": [f.to_dict() for f in proc.outcome],
    }


def param_specs(proc: Procedure) -> list[ParamSpec]:
    return describe(proc.params)
