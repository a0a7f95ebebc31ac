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
  :class:`BattleExport`, :class:`BattleOdds` (its ``odds`` an :data:`Odds`). The battle
  models name the fields a client can rely on and let
  the rest through (``extra="allow"``): the battle's own models (``battle.events``,
  ``battle.core``) validate what is stored.

:func:`emit` validates an answer's plain data through its model and gives back the JSON
value to send or print (fields an answer leaves out stay out). Each group of models
lives in its own module, imported on first use of one of its names
(``warroom.schema.ExactOdds`` imports :mod:`warroom.schema.odds` only) and built on
first use (``defer_build``): ``warroom odds --json`` pays for the odds models alone.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from warroom.schema._base import (
        Interval,
        Scalar,
        adapter,
        emit,
    )
    from warroom.schema.battles import (
        BattleChance,
        BattleCreated,
        BattleEvent,
        BattleExport,
        BattleImported,
        BattleLinks,
        BattleOdds,
        BattleSummary,
        BattleView,
        ImportedLinks,
        Luck,
        VerifyReport,
    )
    from warroom.schema.errors import (
        ErrorBody,
        ErrorDetail,
        error_body,
    )
    from warroom.schema.odds import (
        EstimatedChance,
        EstimatedOdds,
        EstimatedValueChance,
        ExactChance,
        ExactOdds,
        ExactValueChance,
        Mean,
        Odds,
    )
    from warroom.schema.roll import (
        Modifier,
        RollResult,
        Step,
    )
    from warroom.schema.rules import (
        GameRules,
        OutcomeInfo,
        ParamInfo,
        ProcedureInfo,
    )

_HOME = {
    "Interval": "_base",
    "Scalar": "_base",
    "adapter": "_base",
    "emit": "_base",
    "ErrorBody": "errors",
    "ErrorDetail": "errors",
    "error_body": "errors",
    "EstimatedChance": "odds",
    "EstimatedOdds": "odds",
    "EstimatedValueChance": "odds",
    "ExactChance": "odds",
    "ExactOdds": "odds",
    "ExactValueChance": "odds",
    "Mean": "odds",
    "Odds": "odds",
    "Modifier": "roll",
    "RollResult": "roll",
    "Step": "roll",
    "GameRules": "rules",
    "OutcomeInfo": "rules",
    "ParamInfo": "rules",
    "ProcedureInfo": "rules",
    "BattleChance": "battles",
    "BattleCreated": "battles",
    "BattleEvent": "battles",
    "BattleExport": "battles",
    "BattleImported": "battles",
    "BattleLinks": "battles",
    "BattleOdds": "battles",
    "BattleSummary": "battles",
    "BattleView": "battles",
    "ImportedLinks": "battles",
    "Luck": "battles",
    "VerifyReport": "battles",
}
"""Which module defines each public name."""

__all__ = [
    "BattleChance",
    "BattleCreated",
    "BattleEvent",
    "BattleExport",
    "BattleImported",
    "BattleLinks",
    "BattleOdds",
    "BattleSummary",
    "BattleView",
    "ErrorBody",
    "ErrorDetail",
    "EstimatedChance",
    "EstimatedOdds",
    "EstimatedValueChance",
    "ExactChance",
    "ExactOdds",
    "ExactValueChance",
    "GameRules",
    "ImportedLinks",
    "Interval",
    "Luck",
    "Mean",
    "Modifier",
    "Odds",
    "OutcomeInfo",
    "ParamInfo",
    "ProcedureInfo",
    "RollResult",
    "Scalar",
    "Step",
    "VerifyReport",
    "adapter",
    "emit",
    "error_body",
]


def __getattr__(name: str) -> Any:
    """A model (or helper) from its module, imported on first use."""
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'warroom.schema' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"warroom.schema.{home}"), name)
    globals()[name] = value
    return value
