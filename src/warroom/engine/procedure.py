"""A procedure: one rule from a reference card, written once with typed parameters."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from warroom.engine.context import Dice

FieldKind = Literal["int", "bool", "str", "float"]


class Params(BaseModel):
    """Base class of every procedure's parameters: strict names, frozen values."""

    # defer_build: a game with dozens of procedures builds only the schemas it uses,
    # which keeps `warroom odds ...` start-up short.
    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True,
                              defer_build=True)


@dataclass(frozen=True, slots=True)
class OutcomeField:
    """A declared field of a procedure's outcome."""

    name: str
    kind: FieldKind
    doc: str = ""
    values: tuple[str, ...] = ()  # for kind="str": every value it can take
    shown_if: str = ""
    """A parameter: while it is 0 (or false) this field is certainly 0 (or false), and
    summaries for people leave it out (JSON answers and battle logs keep every field)."""
    repeats: str = ""
    """Another field this one repeats part of: an ASL stack's ``unit2`` is the second
    unit of ``units`` (``squad1=ok,squad2=broken``). Tables and per-field summaries
    (CLI, pages, the JSON ``summary``) show that field, one part per unit named by the
    unit, and leave this one out; each whole outcome keeps every field."""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "type": self.kind, "doc": self.doc}
        if self.values:
            out["values"] = list(self.values)
        if self.shown_if:
            out["shown_if"] = self.shown_if
        if self.repeats:
            out["repeats"] = self.repeats
        return out


def outcome(*fields: OutcomeField | tuple[str, FieldKind] | tuple[str, FieldKind, str]
            ) -> tuple[OutcomeField, ...]:
    """Declare outcome fields: ``outcome(("hits", "int", "hits scored"), ...)``."""
    out: list[OutcomeField] = []
    for f in fields:
        out.append(f if isinstance(f, OutcomeField) else OutcomeField(*f))
    return tuple(out)


def shown_fields(fields: Sequence[OutcomeField], params: Mapping[str, Any]
                 ) -> tuple[str, ...]:
    """The outcome fields a summary shows for these parameters: those without
    ``shown_if``, and those whose ``shown_if`` parameter is set (not 0 or false); never
    a field that ``repeats`` another."""
    return tuple(f.name for f in fields
                 if not f.repeats and (not f.shown_if or params.get(f.shown_if)))


RunFn = Callable[[Any, Dice], Mapping[str, Any]]


@dataclass(frozen=True)
class Procedure:
    """One rule. ``run(params, dice)`` returns a mapping with every declared field."""

    id: str
    title: str
    summary: str
    params: type[Params]
    outcome: tuple[OutcomeField, ...]
    run: RunFn
    source: str = ""
    note: str = ""
    vectorize: bool = False
    """Monte Carlo may run this rule on whole numpy batches (straight-line arithmetic and
    comparisons only; int and bool outcome fields)."""
    cost: Callable[[Any], int] | None = None
    """For a rule whose exact odds can grow past the exact driver's budget: an estimate of
    their cost for given parameters, in replays of a small procedure. Past the budget
    the driver says so at once, instead of after spending it."""
    sample_cost: Callable[[Any], float] | None = None
    """For such a rule: what one sample of its Monte Carlo estimate costs for given
    parameters, in the same replays. The exact budget is a cost in time: exact odds are
    worked out where they cost no more than the budget or than the estimate standing in
    for them (:func:`warroom.engine.drivers.exact_budget`)."""

    @property
    def game(self) -> str:
        return self.id.split(".", 1)[0]

    @functools.cached_property
    def fields(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.outcome)

    @functools.cached_property
    def orders(self) -> tuple[dict[str, int] | None, ...]:
        """Per outcome field, the rank of each declared value (None where none are
        declared); empty when no field declares values."""
        if not any(f.values for f in self.outcome):
            return ()
        return tuple({v: i for i, v in enumerate(f.values)} if f.values else None
                     for f in self.outcome)

    @functools.cached_property
    def repeats(self) -> frozenset[str]:
        """The outcome fields that repeat part of another (:attr:`OutcomeField.repeats`):
        per-field summaries leave them out."""
        return frozenset(f.name for f in self.outcome if f.repeats)

    @functools.cached_property
    def param_names(self) -> frozenset[str]:
        return frozenset(self.params.model_fields)


def procedure(
    id: str,
    *,
    title: str,
    summary: str,
    params: type[Params],
    outcome: Sequence[OutcomeField],
    source: str = "",
    note: str = "",
    vectorize: bool = False,
    cost: Callable[[Any], int] | None = None,
    sample_cost: Callable[[Any], float] | None = None,
) -> Callable[[RunFn], Procedure]:
    """Decorator turning a rule function into a :class:`Procedure` (registers nothing)."""

    def wrap(fn: RunFn) -> Procedure:
        return Procedure(id, title, summary, params, tuple(outcome), fn, source, note,
                         vectorize=vectorize, cost=cost, sample_cost=sample_cost)

    return wrap
