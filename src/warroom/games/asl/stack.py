"""asl.ift_on_stack: an IFT result applied to every unit in one location."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache, lru_cache
from typing import Any, Literal, NamedTuple

from pydantic import Field, field_validator

from warroom.engine.context import Dice, fixed
from warroom.engine.messages import Msg, msg
from warroom.engine.params import text_items, whole_number
from warroom.engine.procedure import OutcomeField, Params, outcome, procedure
from warroom.errors import UsageError
from warroom.games.asl import tables as T
from warroom.games.asl.ift import meaning
from warroom.games.asl.morale import (
    Kind,
    MoraleResult,
    consequence,
    explain,
    judge,
    wound_killed,
)

UnitKind = Literal["squad", "hs", "leader"]
MAX_UNITS = 6

UNITS_HELP = (
    "the units in the location, comma-separated. Each is kind:morale[:third][:flags]. "
    "kind is squad, hs (half-squad) or leader. For a squad or hs the third field is its "
    "ELR; for a leader it is his leadership DRM (e.g. leader:9:-2). Flags: broken, "
    "wounded (leaders), elr=N. Example: squad:7:3,leader:8:-1:elr=3,hs:6:2:broken"
)


class Unit(NamedTuple):
    """One unit as given, and later its state after the attack (a named tuple: the
    exact driver replays the procedure thousands of times, and ``_replace`` is cheap)."""

    name: str
    kind: UnitKind
    morale: int
    leadership: int = 0
    elr: int | None = None
    broken: bool = False
    wounded: bool = False
    pinned: bool = False
    eliminated: bool = False
    reduced: bool = False
    replaced: bool = False

    def state(self) -> str:
        if self.eliminated:
            return "eliminated"
        parts = [flag for flag, on in (("reduced", self.reduced), ("replaced", self.replaced),
                                       ("wounded", self.wounded), ("broken", self.broken),
                                       ("pinned", self.pinned)) if on]
        return "+".join(parts) or "ok"


# a unit's name in step texts: "squad1" in English, each kind a translatable template
UNIT_NAMES: dict[str, str] = {"squad": "squad{n}", "hs": "hs{n}", "leader": "leader{n}"}


@cache
def unit_msg(name: str) -> Msg:
    """'squad1' as a translatable message: its kind's template and its number."""
    kind = name.rstrip("0123456789")
    return msg(UNIT_NAMES[kind], n=int(name[len(kind):]))


@lru_cache(maxsize=256)
def parse_units(text: str) -> tuple[Unit, ...]:
    """Parse the ``units`` text (see ``UNITS_HELP``); a ValueError names the problem."""
    items = text_items(text, "unit", "units in one location", "squad:7:3", MAX_UNITS)
    units: list[Unit] = []
    counts: dict[str, int] = {}
    for item in items:
        fields = [f.strip().lower() for f in item.split(":")]
        kind = fields[0]
        if kind not in ("squad", "hs", "leader"):
            raise UsageError("{item!r}: unit kind must be squad, hs or leader, got {kind!r}",
                             item=item, kind=kind)
        if len(fields) < 2:
            raise UsageError("{item!r}: give the morale, e.g. {kind}:7", item=item, kind=kind)
        morale = whole_number(fields[1], "morale", item, 1, 10)
        leadership = 0
        elr: int | None = None
        broken = wounded = False
        for pos, f in enumerate(fields[2:]):
            if f == "broken":
                broken = True
            elif f == "wounded":
                if kind != "leader":
                    raise UsageError("{item!r}: only a leader can be wounded", item=item)
                wounded = True
            elif f.startswith("elr="):
                elr = whole_number(f[4:], "ELR", item, 0, 5)
            elif pos == 0 and kind == "leader":
                leadership = whole_number(f, "leadership DRM", item, -3, 1)
            elif pos == 0:
                elr = whole_number(f, "ELR", item, 0, 5)
            else:
                raise UsageError("{item!r}: unknown flag {flag!r} (broken, wounded, elr=N)",
                                 item=item, flag=f)
        counts[kind] = counts.get(kind, 0) + 1
        units.append(Unit(f"{kind}{counts[kind]}", kind,  # type: ignore[arg-type]
                          morale, leadership, elr, broken, wounded))
    return tuple(units)


class StackParams(Params):
    result: Literal[T.IFT_RESULTS] = Field(  # type: ignore[valid-type]
        "NMC", description="the IFT result to apply (e.g. from asl.ift)")
    units: str = Field(
        "squad:7:3,leader:8:-1", description=UNITS_HELP,
        examples=["squad:7:3,leader:8:-1", "squad:7:3,leader:8:-1:elr=3,hs:6:2:broken",
                  "hs:6", "squad:6:2:broken,squad:7", "leader:9:-2:wounded,squad:8:4",
                  "squad:7,hs:6,leader:8:-1"])
    drm: int = Field(0, ge=-3, le=4, description="any further DRM for every unit's MC")

    @field_validator("units")
    @classmethod
    def _units(cls, v: str) -> str:
        parse_units(v)
        return v


def _best_leader(units: list[Unit]) -> int | None:
    best: int | None = None
    for i, u in enumerate(units):
        if u.kind != "leader" or u.eliminated or u.broken:
            continue
        if best is None or (u.leadership, -u.morale) < (units[best].leadership,
                                                        -units[best].morale):
            best = i
    return best


def casualty(d: Dice, u: Unit) -> Unit:
    """Casualty reduction: a HS is eliminated, a squad becomes a HS, a leader rolls for
    his wound."""
    if u.kind == "hs" or (u.kind == "squad" and u.reduced):
        d.note("asl.casualty", "{who}: casualty reduction eliminates the half-squad",
               who=unit_msg(u.name))
        return u._replace(eliminated=True)
    if u.kind == "squad":
        d.note("asl.casualty", "{who}: casualty reduction, the squad becomes a half-squad",
               who=unit_msg(u.name))
        return u._replace(reduced=True)
    killed = wound_killed(d, u.wounded, unit_msg(u.name))
    return u._replace(eliminated=True) if killed else u._replace(wounded=True)


@cache
def _check_table(morale: int, drm: int, kind: Kind, broken: bool, elr: int | None
                 ) -> tuple[dict[int, MoraleResult], dict[str, MoraleResult]]:
    """What every 2d6 total does in one check, and the distinct results by label
    (worked out once per kind of check)."""
    table = {total: judge(total, total + drm, morale, kind, broken, elr)
             for total in range(2, 13)}
    return table, {r.label(): r for r in table.values()}


@cache
def _chain(morale: int, drm: int, kind: Kind, broken: bool, elr: int | None
           ) -> Callable[[Dice], str]:
    """The per-item chain of one kind of check; the same object every time, so a
    driver could memoise its distribution."""
    table, _ = _check_table(morale, drm, kind, broken, elr)
    # captured values are hashable (a tuple, not the dict) so the exact driver can
    # recognise and memoise this chain
    labels = tuple(table[t].label() if t in table else "" for t in range(13))
    what = f"{kind.upper()} DR"
    rule = f"asl.{kind}"

    def chain(dd: Dice) -> str:
        total: int = dd.dice(2, view="sum", rule=rule, what=what)
        return labels[total]

    return fixed(chain)


@lru_cache(maxsize=1024)
def _each_plan(name: str, morale: int, drm: int, kind: Kind, broken: bool,
               elr: int | None) -> tuple[Callable[[Dice], str], tuple[str, ...], Msg]:
    """Chain, labels and name of one unit's check (cached: replays are many)."""
    _, by_label = _check_table(morale, drm, kind, broken, elr)
    what = msg("{who} {check}", who=unit_msg(name), check=Msg(kind.upper()))
    return _chain(morale, drm, kind, broken, elr), tuple(by_label), what


@lru_cache(maxsize=1024)
def _each_note(name: str, morale: int, drm: int, kind: Kind, broken: bool,
               r: MoraleResult) -> tuple[Msg, Msg]:
    """The step saying how a unit's check went (cached: replays are many)."""
    return (msg("{who} {check} at {drm:+d} against morale {morale}", who=unit_msg(name),
                check=Msg("PTC") if kind == "ptc" else Msg("MC"), drm=drm, morale=morale),
            consequence(r, kind, broken, 0))


def _check(d: Dice, u: Unit, kind: Kind, drm: int) -> Unit:
    """One unit's MC or PTC, and the unit after it.

    The DR is asked for as one item's chain (``Dice.one``), so the exact odds branch
    only over the few distinct results (pass, break, ...) rather than the 11 totals;
    the driver memoises the chain's distribution. At the table it is one 2d6 roll. A
    check whose every total gives the same result is rolled as a plain 2d6."""
    rule = f"asl.{kind}"
    elr = None if u.kind == "leader" else u.elr  # only squads and HS are replaced
    table, by_label = _check_table(u.morale, drm, kind, u.broken, elr)
    if len(by_label) == 1:
        original = d.dice(2, view="sum", rule=rule, what=f"{kind.upper()} DR")
        r = table[original]
        explain(d, rule, unit_msg(u.name), original, drm, u.morale, kind, u.broken, r)
    else:
        chain, labels, what = _each_plan(u.name, u.morale, drm, kind, u.broken, elr)
        r = by_label[d.one(chain, labels, rule=rule, what=what)]
        text, result = _each_note(u.name, u.morale, drm, kind, u.broken, r)
        d.note(rule, text, result)
    if r.eliminated:
        return u._replace(eliminated=True)
    if r.passed:
        return u
    if r.pinned:
        return u._replace(pinned=True)
    if u.broken:
        return casualty(d, u)
    out = u._replace(broken=True, replaced=u.replaced or r.replaced)
    return casualty(d, out) if r.casualty_reduction else out


def leader_loss(d: Dice, units: list[Unit], i: int, before: Unit) -> None:
    """If unit ``i`` was a leader and has just been killed, the other units in good
    order take a Leader Loss MC at his leadership DRM with the sign reversed."""
    dead = units[i]
    if dead.kind != "leader" or before.eliminated or not dead.eliminated:
        return
    others = [k for k, u in enumerate(units) if k != i and not u.eliminated and not u.broken]
    if not others:
        return
    drm = -dead.leadership
    d.note("asl.llmc", "{who} is killed: the units with him in good order take a Leader "
           "Loss MC at {drm:+d}", who=unit_msg(dead.name), drm=drm)
    for k in others:
        u = units[k]
        units[k] = _check(d, u, "mc", drm)
        leader_loss(d, units, k, u)


Checks = tuple[tuple[Unit, ...], int, int, tuple[int, ...], int]
"""The state between two rounds of a stack's checks: the units, the leader helping the
others (-1: none), how many checks are done (-1: the K/ casualty is still to be picked),
the order of the checks and the best leader (-1: none). Once every check is done it is
(units, -1, 0, (), -1), so stacks that end alike merge however they got there."""


def _plan(d: Dice, units: tuple[Unit, ...], skip: set[int]) -> tuple[int, tuple[int, ...], int]:
    """Who checks, in what order (the best leader first), and who helps from the start:
    (helper, order, lead), -1 for none."""
    order = [i for i in range(len(units)) if i not in skip and not units[i].eliminated]
    lead = _best_leader(list(units))
    if lead is not None and lead in order:
        order.remove(lead)
        order.insert(0, lead)
    helper = -1
    if lead is not None and lead not in order:
        # the best leader takes no check himself (the K/ casualty, wounded) but still
        # leads the others
        helper = lead
        if units[lead].leadership:
            d.note("asl.leader", "{who} is in good order: his {v:+d} applies to the "
                   "others' checks", who=unit_msg(units[lead].name),
                   v=units[lead].leadership)
    return helper, tuple(order), -1 if lead is None else lead


def checks(d: Dice, units: list[Unit], kind: Kind, drm: int, casualty_first: bool = False
           ) -> None:
    """Every unit takes the check: the best leader first, then the others with his
    leadership DRM if he is still in good order. With ``casualty_first`` (a K/ result) one
    random unit first suffers casualty reduction, and the others' MC is at +K.

    The rounds run through ``Dice.iterate`` (the K/ casualty, then a unit per round): for
    exact odds, stacks that reached the same state carry on as one."""
    start: Checks
    if casualty_first:
        start = (tuple(units), -1, -1, (), -1)
    else:
        helper, order, lead = _plan(d, tuple(units), set())
        start = (tuple(units), helper, 0, order, lead)
    if _finished(start):
        return
    after = d.iterate(start, _round(kind, drm), rounds=len(units) + 1, done=_finished)
    units[:] = after[0]


def _finished(state: Checks) -> bool:
    return state[2] >= len(state[3])


@lru_cache(maxsize=256)
def _round(kind: Kind, drm: int) -> Callable[[Checks, Dice], Checks]:
    """One round of :func:`checks` (the same function for the same checks, so the exact
    driver shares its rounds): the K/ casualty, or the next unit's check."""

    def step(state: Checks, d: Dice) -> Checks:
        done, helper, k, order, lead = state
        units = list(done)
        if k < 0:
            j = d.pick(len(units), rule="asl.k", what="unit suffering casualty reduction") \
                if len(units) > 1 else 0
            d.note("asl.k", "{who} suffers the casualty reduction",
                   who=unit_msg(units[j].name))
            before = units[j]
            units[j] = casualty(d, before)
            leader_loss(d, units, j, before)
            skip = set() if units[j].kind == "squad" else {j}
            helper, order, lead = _plan(d, tuple(units), skip)
            return _next((tuple(units), helper, 0, order, lead))
        i = order[k]
        u = units[i]
        if u.eliminated:  # by a Leader Loss MC earlier in this round of checks
            d.note(f"asl.{kind}", "{who} is already eliminated: no check",
                   who=unit_msg(u.name))
            return _next((done, helper, k + 1, order, lead))
        if kind == "ptc" and u.broken:
            d.note("asl.ptc", "{who} is broken: no PTC (it may get DM)",
                   who=unit_msg(u.name))
            return _next((done, helper, k + 1, order, lead))
        mod = drm + (units[helper].leadership if helper >= 0 else 0)
        units[i] = _check(d, u, kind, mod)
        leader_loss(d, units, i, u)
        if i == lead:
            after = units[i]
            if after.eliminated or after.broken:
                d.note("asl.leader", "{who} is no longer in good order: his leadership "
                       "does not help the others", who=unit_msg(after.name))
            else:
                helper = i
                if after.leadership:
                    d.note("asl.leader", "{who} is in good order: his {v:+d} applies to "
                           "the others' checks", who=unit_msg(after.name),
                           v=after.leadership)
        return _next((tuple(units), helper, k + 1, order, lead))

    return fixed(step)


def _next(state: Checks) -> Checks:
    """The state itself, or once every check is done only the units."""
    return (state[0], -1, 0, (), -1) if _finished(state) else state


def apply_result(d: Dice, result: str, units: list[Unit], drm: int) -> None:
    if result == "-":
        d.note("asl.ift.result", "no effect")
        return
    if result.endswith("KIA"):
        n = int(result[0])
        alive = list(range(len(units)))
        if n >= len(alive):
            d.note("asl.kia", "{n}KIA eliminates every unit in the location", n=n)
            for i in alive:
                units[i] = units[i]._replace(eliminated=True)
            return
        for _ in range(n):
            j = d.pick(len(alive), rule="asl.kia", what="unit eliminated by the KIA")
            i = alive.pop(j)
            d.note("asl.kia", "{who} is eliminated", who=unit_msg(units[i].name))
            units[i] = units[i]._replace(eliminated=True)
        for i in alive:
            u = units[i]
            if u.broken:
                d.note("asl.kia", "{who} was already broken: casualty reduction",
                       who=unit_msg(u.name))
                units[i] = casualty(d, u)
            else:
                d.note("asl.kia", "{who} breaks (DM)", who=unit_msg(u.name))
                units[i] = u._replace(broken=True)
        return
    if result.startswith("K/"):
        n = int(result[2])
        checks(d, units, "mc", n + drm, casualty_first=True)
        return
    if result == "PTC":
        checks(d, units, "ptc", drm)
        return
    checks(d, units, "mc", (0 if result == "NMC" else int(result[0])) + drm)


@procedure(
    "asl.ift_on_stack",
    title="IFT result on a stack",
    summary="Apply an IFT result to every unit in one location: random KIA and K/ "
            "victims, morale checks with the best leader first, leader wounds.",
    params=StackParams,
    outcome=outcome(
        OutcomeField("units", "str", "each unit's final state: name=state, where state is "
                     "ok, eliminated, or reduced/replaced/wounded/broken/pinned joined by "
                     "+"),
        ("eliminated", "int", "units eliminated"),
        ("broken", "int", "surviving units that are broken"),
        ("pinned", "int", "units pinned"),
    ),
    source="seed 001: #KIA, K/#, NMC, #MC, PTC, leader wounds",
    note="Units are named by kind and order (squad1, hs1, leader1). The best leader "
         "(lowest leadership DRM, then highest morale) checks first; if he is still in "
         "good order his DRM applies to every other unit's check, as in ASL. A K/ "
         "casualty that turns a squad into a half-squad still takes the MC, as the card "
         "says; a wounded leader does not. ELR replacement applies to squads and half-squads, "
         "not leaders (ASL rule). When a leader is killed, the other units in good order "
         "take a Leader Loss MC at once, at his leadership DRM reversed, before any MC "
         "still due (our reading; the card only says they may have to); a unit it "
         "eliminates takes no check of its own. Not modelled: an LLMC when a leader only "
         "breaks, and DM markers.",
)
def ift_on_stack(p: StackParams, d: Dice) -> dict[str, Any]:
    units = list(parse_units(p.units))
    d.note("asl.ift.result", "{res}: {meaning}", res=p.result, meaning=meaning(p.result))
    for u in units:
        if u.kind == "leader" and u.elr is not None:
            d.note("asl.elr", "{who}: ELR replacement does not apply to leaders, only to "
                   "squads and half-squads", who=unit_msg(u.name))
    apply_result(d, p.result, units, p.drm)
    state = ",".join(f"{u.name}={u.state()}" for u in units)
    return {
        "units": state,
        "eliminated": sum(1 for u in units if u.eliminated),
        "broken": sum(1 for u in units if u.broken and not u.eliminated),
        "pinned": sum(1 for u in units if u.pinned and not u.eliminated),
    }


