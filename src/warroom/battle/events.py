"""The battle's events, typed: one pydantic model per kind, each with its ``apply`` (the
state after it) and its ``describe`` (one translatable line for the log).

The same models check a live event before it is stored and every event of an imported
file, so an import goes through exactly the validation of a live action: every field
typed and bounded, no field the kind does not have.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_validator,
)

from warroom.battle import phases
from warroom.battle.errors import BattleError
from warroom.battle.state import (
    MAX_BATTLE_NAME,
    MAX_NAME,
    MAX_STAT,
    MAX_STATS,
    MAX_TEXT,
    MAX_WORD,
    Replay,
    State,
    Unit,
    add_luck,
    first_problem,
    initial,
    set_marker,
)

Translate = Callable[[str], str]

Side = Literal["A", "B"]
Name = Annotated[StrictStr, Field(min_length=1, max_length=MAX_NAME)]
Word = Annotated[StrictStr, Field(min_length=1, max_length=MAX_WORD,
                                  pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]
Text = Annotated[StrictStr, Field(max_length=MAX_TEXT)]
Hex = Annotated[StrictStr, Field(pattern=r"^[0-9a-f]{64}$")]
Stat = StrictInt | Annotated[StrictStr, Field(max_length=MAX_STAT)]
MarkerValue = StrictBool | Annotated[StrictInt, Field(ge=0, le=10**6)] | None
Count = Annotated[StrictInt, Field(ge=0, le=10**9)]
MAX_PROFILE = 20_000
Json = StrictInt | StrictBool | Annotated[StrictStr, Field(max_length=2000)] | float | None


@dataclass(frozen=True)
class Touched:
    """What an event changed in the battle, as far as a write can depend on it
    (:mod:`warroom.battle.conflicts`)."""

    units: frozenset[str] | None = frozenset()
    """the units whose stats, profile, markers or presence changed (None: every unit)"""
    phase: bool = False
    """the turn, the side to play or the phase"""
    everything: bool = False
    """the whole battle (its creation or end)"""


def _unit(name: str) -> Touched:
    return Touched(frozenset({name}))


def _stats(stats: Mapping[str, Any]) -> str:
    return " ".join(f"{k}={'' if v is None else v}" for k, v in stats.items())


class Event(BaseModel):
    """What every event has: its state counter, time, who made it, and a digest of the
    state after it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    seq: Annotated[StrictInt, Field(ge=1, le=10**7)]
    at: Annotated[StrictStr, Field(max_length=40)]
    by: Side | None = None
    after: Annotated[StrictStr, Field(pattern=r"^[0-9a-f]{16}$")]
    undone: StrictBool | None = Field(None, description="set by the log, never stored")
    seen: Annotated[StrictInt, Field(ge=1, le=10**7)] | None = Field(
        None, description="the state counter the writer's page showed, when the write was "
        "recorded on a later state (the events in between changed nothing it reads)")

    def apply(self, state: State) -> State:  # pragma: no cover - every kind overrides it
        raise NotImplementedError

    def touches(self, before: State | None) -> Touched:
        """What this event changed, from the event itself (``before``: the state before
        it, where a kind needs it; None when it is not at hand)."""
        return Touched(everything=True)

    def describe(self, tr: Translate) -> str:  # pragma: no cover - every kind overrides it
        raise NotImplementedError


class Created(Event):
    kind: Literal["created"]
    game: Annotated[StrictStr, Field(min_length=1, max_length=32)]
    name: Annotated[StrictStr, Field(min_length=1, max_length=MAX_BATTLE_NAME)]
    commitment: Hex | None = None
    seed: Annotated[StrictInt, Field(ge=0, lt=2**62)] | None = Field(
        None, description="battles made before dice were committed: the public seed")
    solo: StrictBool | None = Field(
        None, description="created single-player: either link undoes any event freely")

    def apply(self, state: State) -> State:
        return initial(state.id, self.game, self.name, self.commitment, self.seed)

    def describe(self, tr: Translate) -> str:
        if self.commitment is None:
            return tr("battle created: {game}, seed {seed}").format(game=self.game,
                                                                  seed=self.seed)
        text = tr("battle created: {game}; its dice are committed to {commitment}").format(
            game=self.game, commitment=self.commitment[:16])
        if self.solo:
            text += " " + tr("(single-player: undo is free)")
        return text


class UnitAdded(Event):
    kind: Literal["unit_added"]
    unit: Name
    side: Side
    stats: Annotated[dict[Word, Stat], Field(max_length=MAX_STATS)] = Field(default_factory=dict)
    profile: dict[str, Any] | None = Field(
        None, description="the unit's typed profile (checked by the game's model)")

    @field_validator("profile")
    @classmethod
    def _small(cls, v: dict[str, Any] | None) -> dict[str, Any] | None:
        if v is not None and len(json.dumps(v)) > MAX_PROFILE:
            raise ValueError("a unit profile has at most 20000 characters of JSON")
        return v

    def apply(self, state: State) -> State:
        new = copy.deepcopy(state)
        profile = None
        if self.profile is not None:  # the game's model checks it (imports too)
            from warroom.units.forces import profile_model

            profile = profile_model(state.game, self.profile).model_dump(mode="json")
        new.units[self.unit] = Unit(self.unit, self.side, dict(self.stats), profile=profile)
        return new

    def touches(self, before: State | None) -> Touched:
        return _unit(self.unit)

    def describe(self, tr: Translate) -> str:
        text = tr("unit {unit} joins side {side}").format(unit=self.unit, side=self.side)
        if self.profile is not None:
            text += " " + tr("(with its profile)")
        return text + (f" ({_stats(self.stats)})" if self.stats else "")


class UnitEdited(Event):
    kind: Literal["unit_edited"]
    unit: Name
    stats: Annotated[dict[Word, Stat | None], Field(max_length=MAX_STATS)]
    before: Annotated[dict[Word, Stat | None], Field(max_length=MAX_STATS)]
    profile: dict[str, Any] | None = Field(
        None, description="the unit's new typed profile, whole (checked by the game's model)")

    @field_validator("profile")
    @classmethod
    def _small(cls, v: dict[str, Any] | None) -> dict[str, Any] | None:
        return UnitAdded._small(v)

    @model_validator(mode="after")
    def _changes(self) -> UnitEdited:
        if not self.stats and self.profile is None:
            raise ValueError("an edit changes stats or the profile")
        return self

    def apply(self, state: State) -> State:
        new = copy.deepcopy(state)
        unit = new.unit(self.unit)
        for key, value in self.stats.items():
            if value is None:
                unit.stats.pop(key, None)
            else:
                unit.stats[key] = value
        if self.profile is not None:  # the game's model checks it (imports too)
            from warroom.units.forces import profile_model

            unit.profile = profile_model(state.game, self.profile).model_dump(mode="json")
        return new

    def touches(self, before: State | None) -> Touched:
        return _unit(self.unit)

    def describe(self, tr: Translate) -> str:
        parts = [_stats(self.stats)] if self.stats else []
        if self.profile is not None:
            parts.append(tr("new profile"))
        return f"{self.unit}: {'; '.join(parts)}"


class Marked(Event):
    kind: Literal["marked"]
    unit: Name
    marker: Word
    value: MarkerValue
    before: MarkerValue

    def apply(self, state: State) -> State:
        new = copy.deepcopy(state)
        set_marker(new.unit(self.unit), self.marker, self.value)
        return new

    def touches(self, before: State | None) -> Touched:
        return _unit(self.unit)

    def describe(self, tr: Translate) -> str:
        shown = tr("cleared") if self.value is None else (
            "" if self.value is True else f"= {self.value}")
        return f"{self.unit}: {tr(self.marker.replace('_', ' '))} {shown}".rstrip()


class Effect(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    unit: Name
    marker: Word
    value: MarkerValue


class Resolved(Event):
    kind: Literal["resolved"]
    procedure: Annotated[StrictStr, Field(min_length=3, max_length=80)]
    params: Annotated[dict[Word, Json | list[Json]], Field(max_length=100)]
    unit: Name | None
    units: Annotated[list[Name], Field(min_length=2, max_length=20)] | None = Field(
        None, description="several acting units in one step (unit is the first)")
    target: Name | None
    support: Annotated[list[Name], Field(min_length=1, max_length=10)] | None = Field(
        None, description="the units supporting the target (a BKC/CWC assault's defender)")
    side: Side
    clear: Word | None
    filled: Annotated[dict[Word, Text], Field(max_length=100)]
    given: Annotated[dict[Annotated[StrictStr, Field(max_length=40)], Json | list[Json]],
                     Field(max_length=100)]
    dice: Annotated[list[Annotated[StrictInt, Field(ge=0, le=10**6)]], Field(max_length=5000)]
    entered: StrictBool
    roll_index: Count | None
    outcome: Annotated[dict[Word, Json], Field(max_length=100)]
    steps: Annotated[list[dict[str, Any]], Field(max_length=5000)]
    expected: Annotated[dict[Word, Text],
                        Field(max_length=100)]
    effects: Annotated[list[Effect], Field(max_length=100)]
    place: Literal["shot"] | None = Field(
        None, description="a virtual roll whose dice belong to the shot (the state before "
        "it, the procedure, the units and the side), not to its parameters; absent in "
        "rolls made before, whose dice also depended on the parameters")

    def apply(self, state: State) -> State:
        new = copy.deepcopy(state)
        if self.roll_index is not None:
            new.rolls = self.roll_index + 1
        for change in self.effects:
            set_marker(new.unit(change.unit), change.marker, change.value)
        if new.luck is not None:
            add_luck(new.luck, self.side, self.expected, self.outcome)
        return new

    def touches(self, before: State | None) -> Touched:
        """The units whose markers its outcome changed (the acting units and the
        target are only read)."""
        return Touched(frozenset(change.unit for change in self.effects))

    def describe(self, tr: Translate) -> str:
        """The rule by its title, every acting unit and the target, the result's parts
        that matter in ``tr``'s language (:func:`warroom.battle.loglines.log_line`), and
        the dice."""
        how = tr("your dice") if self.entered else tr("virtual dice")
        dice = " ".join(str(d) for d in self.dice) or "-"
        return f"{self.line(tr).text()}  ({how}: {dice})"

    def line(self, tr: Translate) -> Any:
        """The log line's parts (:class:`warroom.battle.loglines.LogLine`)."""
        from warroom.battle.loglines import log_line

        actors = list(self.units) if self.units else [self.unit] if self.unit else []
        return log_line(tr, self.procedure, self.params, self.outcome, actors, self.target)


class Phase(Event):
    kind: Literal["phase"]
    turn: Annotated[StrictInt, Field(ge=1, le=10**5)]
    side: Side
    phase: Annotated[StrictStr, Field(min_length=1, max_length=40)]
    clears: Annotated[list[Word], Field(max_length=10)] | None = Field(
        None, description="markers the new phase takes off every unit (FoW: the hits of "
        "the last shooting step)")

    def apply(self, state: State) -> State:
        new = copy.deepcopy(state)
        new.turn, new.side, new.phase = self.turn, self.side, self.phase
        for unit in new.units.values():
            for marker in self.clears or ():
                unit.markers.pop(marker, None)
        return new

    def touches(self, before: State | None) -> Touched:
        """The phase, and the units that lost a marker the new phase clears (every unit
        when the state before it is not at hand)."""
        if not self.clears:
            return Touched(phase=True)
        if before is None:
            return Touched(None, phase=True)
        return Touched(frozenset(u.name for u in before.units.values()
                                 if any(m in u.markers for m in self.clears)), phase=True)

    def describe(self, tr: Translate) -> str:
        return tr("turn {turn}, side {side}: {phase}").format(
            turn=self.turn, side=self.side, phase=tr(phases.title(self.phase)))


class Undone(Event):
    kind: Literal["undone"]
    target: Annotated[StrictInt, Field(ge=2, le=10**7)]
    what: Annotated[StrictStr, Field(max_length=20)]
    agreed: Side | None = Field(None, description="the other side, who accepted taking "
                                "back this virtual roll")

    def apply(self, state: State) -> State:  # the fold pops its target instead
        raise ValueError("an undo is folded by popping its target")

    # touches: what its target touched (warroom.battle.conflicts.touched_by); alone,
    # the event cannot tell, so the base class's answer (everything) stands

    def describe(self, tr: Translate) -> str:
        text = tr("undo of event {n}").format(n=self.target)
        if self.agreed:
            text += " " + tr("(side {side} agreed)").format(side=self.agreed)
        return text


class EndAsked(Event):
    kind: Literal["end_asked"]
    side: Side

    def apply(self, state: State) -> State:
        new = copy.deepcopy(state)
        new.end_asked = sorted({*new.end_asked, self.side})
        return new

    def touches(self, before: State | None) -> Touched:
        return Touched()  # no unit, no phase: only an undo (which reads all) minds it

    def describe(self, tr: Translate) -> str:
        return tr("side {side} asks to end the battle and reveal its dice seed").format(
            side=self.side)


class Ended(Event):
    kind: Literal["ended"]
    seed: Annotated[StrictStr, Field(min_length=1, max_length=128)]

    def apply(self, state: State) -> State:
        new = copy.deepcopy(state)
        new.seed = self.seed
        new.ended = True
        return new

    def describe(self, tr: Translate) -> str:
        return tr("battle ended; its dice seed is {seed}").format(seed=self.seed)


AnyEvent = Annotated[Created | UnitAdded | UnitEdited | Marked | Resolved | Phase | Undone
                     | EndAsked | Ended, Field(discriminator="kind")]
KINDS = ("created", "unit_added", "unit_edited", "marked", "resolved", "phase", "undone",
         "end_asked", "ended")

_ADAPTER: TypeAdapter[Any] = TypeAdapter(AnyEvent)


def parse(data: Mapping[str, Any]) -> Event:
    """The typed event of a stored or imported mapping (``pydantic.ValidationError`` when
    it is not one)."""
    event: Event = _ADAPTER.validate_python(data)
    return event


def describe(data: Mapping[str, Any], tr: Translate) -> str:
    """One line for an event of the log, with its number and the side that made it."""
    event = parse(data)
    side = f" [{event.by}]" if event.by else ""
    text = event.describe(tr)
    if data.get("undone"):
        text += "  " + tr("(undone)")
    return f"#{event.seq}{side} {text}"


def apply(state: State, event: Mapping[str, Any]) -> State:
    """The state after one (non-undo) event; the input is left unchanged. The event is
    checked against its kind's model first (:func:`parse`)."""
    try:
        typed = parse(event)
    except ValidationError as exc:
        raise BattleError("event {seq}: {problem}", seq=event.get("seq"),
                          problem=first_problem(exc)) from None
    if event["kind"] == "undone":
        raise BattleError("an undo is folded by popping its target")
    return typed.apply(state)


def fold(battle_id: str, events: Iterable[Mapping[str, Any]]) -> Replay:
    """Replay a log from scratch. ``undone`` events pop the latest live event."""
    replay: Replay | None = None
    for ev in events:
        if replay is None:
            if ev["kind"] != "created":
                raise BattleError("a battle log must start with its 'created' event")
            first = apply(State(battle_id, "", "", None), ev)
            replay = Replay([first], [])
            continue
        if ev["kind"] == "undone":
            target = replay.last_live()
            if int(ev["target"]) != target:
                raise BattleError(f"event {ev['seq']} undoes {ev['target']}, "
                                  f"but the latest live event is {target}")
            replay.states.pop()
            replay.live.pop()
        else:
            replay.states.append(apply(replay.state, ev))
            replay.live.append(int(ev["seq"]))
    if replay is None:
        raise BattleError("empty battle log")
    return replay
