"""The battle API's answers: the fields a client can rely on, the rest let through."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from warroom.schema._base import Scalar, _Model, _Open
from warroom.schema.odds import Odds


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
                                  "the expected and actual totals; with ?unusual=true "
                                  "also each total's percentile (0 to 1) among every "
                                  "total the dice could have given: percentile, "
                                  "percentile_exact (a fraction, when exact), estimate, "
                                  "margin, spread (false: the dice could not change it)")


class BattleExport(_Open):
    """A whole battle, signed; what import takes back."""

    format: str
    version: int


class BattleChance(_Model):
    """One value of a field (or unit) and its chance."""

    value: Scalar
    p: float = Field(ge=0, le=1)
    exact: str | None = Field(None, description="as a fraction, where the odds are exact",
                              examples=["1/4"])


class BattleOdds(_Open):
    """What ``/battles/{id}/odds`` answers: the parameters ``do`` would use (with where
    each came from) and their odds, typed as ``/odds`` answers them, before anyone rolls."""

    procedure: str = Field(examples=["fow.shoot"])
    params: dict[str, Any] = Field(description="the parameters, validated and completed")
    unit: str | None = Field(None, description="the acting unit, if any")
    target: str | None = Field(None, description="the unit the outcome falls on, if any")
    side: str | None = Field(None, description="whose roll it would be (A or B)")
    clear: str | None = Field(None, description="the marker a passed test would remove")
    filled: dict[str, Any] = Field(default_factory=dict, description="parameters filled "
                                   "from the units, with where each came from")
    given: dict[str, Any] = Field(default_factory=dict, description="parameters as sent")
    odds: Odds = Field(description="exact odds, or an estimate where they would take too "
                       "long (as /odds answers)")
    chances: dict[str, list[BattleChance]] = Field(
        description="each field's (and unit's) chances")
    expected: dict[str, str] = Field(description="the expectation of each numeric field: "
                                     "a fraction where exact, else a decimal")
