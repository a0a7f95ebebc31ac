"""Odds: exact (:class:`ExactOdds`) or estimated (:class:`EstimatedOdds`), never mixed."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from warroom.schema._base import Interval, Scalar, _Model


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
    refining: bool | None = Field(None, description="odds only: a better estimate is "
                                  "being counted (its 95% margin: refining_to): the time cap "
                                  "cut this one short (see margin) and the full one, a margin "
                                  "of half a percentage point, is coming, or a finer one was "
                                  "asked for (margin 0.001); ask again for it")
    refining_to: float | None = Field(None, ge=0, le=1, description="odds only, while "
                                      "refining: the 95% margin of the estimate being "
                                      "counted", examples=[0.001])


Odds = Annotated[ExactOdds | EstimatedOdds, Field(discriminator="estimate")]
"""What ``odds`` answers: exact odds, or an estimate where they would take too long."""
