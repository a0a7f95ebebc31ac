"""Game systems, procedures, parameters, outcomes and tables."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from warroom.schema._base import _Model


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
    shown_if: str | None = Field(None, description="a parameter: while it is 0 or false "
                                 "this field is certainly 0 or false (summaries leave it out)")
    repeats: str | None = Field(None, description="another field this one repeats part of "
                                "(ASL's unit1 ... unit10 repeat units): summaries leave it "
                                "out, every whole outcome keeps it")


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
