"""The JSON contract: one pydantic model per answer, shared by ``warroom ... --json`` and
the HTTP API (``/api/v1``), so both emit the same shapes and the OpenAPI document
describes exactly what is sent.

* Odds come in two types: :class:`ExactOdds` (``"estimate": false``, chances worked out
  exactly, optionally as fractions) and :class:`EstimatedOdds` (``"estimate": true``,
  counted from simulated rolls, each chance with its 95% interval and the worst
  ``margin``). :data:`Odds` is the union, told apart by ``estimate``. ``simulate``
  answers an :class:`EstimatedOdds` too.
* :class:`RollResult`: one resolution, step by step; :class:`GameRules`: a game system
  with its procedures, parameters, outcomes and tables.
* Every error is an :class:`ErrorBody`: ``{"error": {"code", "message", "parameter"}}``
  with a stable machine-readable ``code`` (:attr:`warroom.errors.WarroomError.code`).
* Battles: :class:`BattleCreated`, :class:`BattleImported`, :class:`BattleSummary`,
  :class:`BattleView`, :class:`BattleEvent`, :class:`VerifyReport`, :class:`Luck`,
  :class:`BattleExport`. The battle models name the fields a client can rely on and let
  the rest through (``extra="allow"``): the battle's own models (``battle.events``,
  ``battle.core``) validate what is stored.

:func:`emit` validates an answer's plain data through its model and gives back the JSON
value to send or print (fields an answer leaves out stay out). Models are built on first
use (``defer_build``): importing this module costs start-up next to nothing.
"""

from __future__ import annotations

import math
from functools import cache
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PlainSerializer, TypeAdapter

Scalar = bool | int | float | str
"""An outcome value: a count, a yes/no, a named result."""


def _finite(values: list[float | None]) -> list[float | None]:
    """JSON has no infinity: an unbounded end is null."""
    return [x if x is not None and math.isfinite(x) else None for x in values]


Interval = Annotated[list[float | None], Field(
    min_length=2, max_length=2,
    description="95% interval [low, high]; null where it is unbounded (a single sample)"),
    PlainSerializer(_finite)]


class _Model(BaseModel):
    model_config = ConfigDict(defer_build=True)


class _Open(BaseModel):
    """A battle answer: the named fields, and whatever else the battle adds."""

    model_config = ConfigDict(defer_build=True, extra="allow")


# ------------------------------------------------------------------------- errors
class ErrorDetail(_Model):
    code: str = Field(description="stable machine-readable reason, e.g. unknown_procedure, "
                      "parameter, invalid_request, stale, no_such_battle, not_found",
                      examples=["unknown_procedure"])
    message: str = Field(description="one sentence for people (English on the API)")
    parameter: str | None = Field(description="the parameter or field it is about, if any")


class ErrorBody(_Model):
    """Every error the API answers (4xx, and 5xx where the server cannot answer)."""

    error: ErrorDetail


def error_body(code: str, message: str, parameter: str | None = None) -> dict[str, Any]:
    """``{"error": {"code", "message", "parameter"}}``."""
    return {"error": {"code": code, "message": message, "parameter": parameter}}


# ------------------------------------------------------------------------- odds
class ExactChance(_Model):
    outcome: dict[str, Scalar] = Field(description="one whole outcome: every field's value")
    p: float = Field(ge=0, le=1, description="its chance")
    exact: str | None = Field(None, description="the chance as a fraction 'n/d' (asked "
                              "with exact)", examples=["11/36"])


class ExactValueChance(_Model):
    value: Scalar
    p: float = Field(ge=0, le=1)
    exact: str | None = Field(None, description="as a fraction (asked with exact)")


class ExactOdds(_Model):
    """Exact odds: every chance worked out, not sampled."""

    procedure: str = Field(examples=["demo.pool"])
    params: dict[str, Any] = Field(description="the parameters, validated and completed")
    estimate: Literal[False] = Field(description="false: these odds are exact")
    outcomes: list[ExactChance] | None = Field(None, description="every whole outcome "
                                               "(absent when summarised)")
    joint_outcomes: int | None = Field(None, description="how many whole outcomes there "
                                       "are, when summarised")
    summary: dict[str, list[ExactValueChance]] | None = Field(
        None, description="each field's (and unit's) chances instead of a long list")


class EstimatedChance(_Model):
    outcome: dict[str, Scalar]
    p: float = Field(ge=0, le=1, description="share of the samples")
    ci95: Interval
    count: int = Field(ge=0, description="samples with this outcome")


class EstimatedValueChance(_Model):
    value: Scalar
    p: float = Field(ge=0, le=1)
    ci95: Interval


class Mean(_Model):
    mean: float | None
    ci95: Interval


class EstimatedOdds(_Model):
    """A Monte Carlo estimate: counted from simulated rolls, never exact."""

    procedure: str = Field(examples=["demo.pool"])
    params: dict[str, Any]
    estimate: Literal[True] = Field(description="true: counted from simulated rolls")
    samples: int = Field(ge=0, description="resolutions simulated")
    seed: int = Field(description="seed of the simulated dice (repeats the run)")
    margin: float = Field(ge=0, le=1, description="how far any chance may be off, at worst "
                          "(95%)")
    stopped_early: bool | None = Field(None, description="true when the time cap stopped "
                                       "it before all the samples asked for")
    samples_asked: int | None = None
    outcomes: list[EstimatedChance] | None = None
    joint_outcomes: int | None = None
    summary: dict[str, list[EstimatedValueChance]] | None = None
    means: dict[str, Mean] = Field(default_factory=dict,
                                   description="average of each numeric field")
    seconds: float = Field(0.0, ge=0)
    exact_pending: bool | None = Field(None, description="odds only: the exact odds are "
                                       "still being worked out; ask again for them")


Odds = Annotated[ExactOdds | EstimatedOdds, Field(discriminator="estimate")]
"""What ``odds`` answers: exact odds, or an estimate where they would take too long."""


# ------------------------------------------------------------------------- roll
class Modifier(_Model):
    value: int
    reason: str


class Step(_Model):
    rule: str = Field(description="the rule this step applies")
    text: str = Field(description="what happens, in the asked language")
    target: int | None = Field(description="the final target number")
    target_kind: Literal["at_least", "at_most"] | None
    base: int | None
    base_reason: str | None
    modifiers: list[Modifier]
    dice: list[int]
    rerolled: list[int]
    result: str | None


class RollResult(_Model):
    """One resolution with real dice (seeded or entered), step by step."""

    procedure: str
    params: dict[str, Any]
    outcome: dict[str, Scalar]
    steps: list[Step]
    dice: list[int] = Field(description="every die, in the order rolled")
    seed: int | None = Field(description="the virtual dice's seed (null: entered dice)")


# ------------------------------------------------------------------------- rules
class ParamInfo(_Model):
    name: str
    type: str
    default: Any
    required: bool
    description: str
    choices: list[Any] | None = None
    minimum: float | None = None
    maximum: float | None = None
    examples: list[Any] | None = None


class OutcomeInfo(_Model):
    name: str
    type: str
    doc: str
    values: list[Any] | None = None


class ProcedureInfo(_Model):
    id: str = Field(examples=["fow.shoot"])
    title: str
    summary: str
    source: str
    note: str
    params: list[ParamInfo]
    outcome: list[OutcomeInfo]


class GameRules(_Model):
    """A game system: its procedures and reference tables."""

    id: str = Field(examples=["fow"])
    title: str
    description: str
    procedures: list[ProcedureInfo]
    tables: dict[str, Any]


# ------------------------------------------------------------------------- battles
class BattleLinks(_Model):
    A: str
    B: str
    view: str


class BattleCreated(_Model):
    """The only answer that carries all three keys: hand them out."""

    id: str
    links: BattleLinks
    keys: BattleLinks


class ImportedLinks(_Open):
    A: str | None = None
    B: str | None = None
    view: str | None = None


class BattleImported(_Open):
    id: str
    origin: str = Field(description="whether this server signed the export")
    links: ImportedLinks


class BattleSummary(_Open):
    id: str
    game: str
    name: str
    counter: int


class BattleView(_Open):
    """The battle now, as the link's holder sees it."""

    id: str
    game: str
    name: str
    counter: int = Field(description="the state counter: send it as expect with a write")
    role: str | None = Field(None, description="the link's role: A, B or view")


class BattleEvent(_Open):
    """One event of the log, or what a write recorded (its kind says which fields
    follow)."""

    seq: int = Field(description="its place in the log; the new state counter")
    kind: str = Field(examples=["resolved"])


class VerifyReport(_Model):
    id: str
    ok: bool
    authentic: bool
    verdict: str
    events: int
    problems: list[str]
    notes: list[str]


class Luck(_Open):
    id: str
    sides: dict[str, Any] = Field(description="per side: rolls, and per numeric field "
                                  "the expected and actual totals")


class BattleExport(_Open):
    """A whole battle, signed; what import takes back."""

    format: str
    version: int


# ------------------------------------------------------------------------- emitting
@cache
def adapter(model: Any) -> TypeAdapter[Any]:
    """The (cached) validator of a model or an annotated union such as :data:`Odds`."""
    return TypeAdapter(model)


def emit(model: Any, data: Any) -> Any:
    """``data`` checked against ``model`` and made plain JSON (fields the data leaves out
    stay out; an infinite bound becomes null)."""
    ta = adapter(model)
    return ta.dump_python(ta.validate_python(data), mode="json", exclude_unset=True,
                          fallback=str)
