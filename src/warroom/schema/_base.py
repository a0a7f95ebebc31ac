"""What every model of :mod:`warroom.schema` shares, and :func:`emit`."""

from __future__ import annotations

import math
from functools import cache
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from pydantic import TypeAdapter

Scalar = bool | int | float | str
"""An outcome value: a count, a yes/no, a named result."""


def _finite(values: list[float | None]) -> list[float | None]:
    """JSON has no infinity: an unbounded end is null."""
    return [x if x is not None and math.isfinite(x) else None for x in values]


Interval = Annotated[list[float | None], Field(
    min_length=2, max_length=2,
    description="95% interval [low, high]; null where it is unbounded (a single sample)"),
    AfterValidator(_finite)]


class _Model(BaseModel):
    model_config = ConfigDict(defer_build=True)


class _Open(BaseModel):
    """A battle answer: the named fields, and whatever else the battle adds."""

    model_config = ConfigDict(defer_build=True, extra="allow")


@cache
def adapter(model: Any) -> TypeAdapter[Any]:
    """The (cached) validator of a type that is not a model, such as :data:`Odds` or
    ``list[GameRules]``."""
    from pydantic import TypeAdapter  # not needed (nor imported) for a plain model

    return TypeAdapter(model)


def emit(model: Any, data: Any) -> Any:
    """``data`` checked against ``model`` and made plain JSON (fields the data leaves out
    stay out; an infinite bound is null)."""
    if isinstance(model, type) and issubclass(model, BaseModel):
        return model.model_validate(data).model_dump(mode="json", exclude_unset=True,
                                                     fallback=str)
    ta = adapter(model)
    return ta.dump_python(ta.validate_python(data), mode="json", exclude_unset=True,
                          fallback=str)
