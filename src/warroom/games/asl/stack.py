"""asl.ift_on_stack: an IFT result applied to every unit in one location, by the ASL
Rulebook: Random Selection (A.9), casualty reduction, morale checks with every leader
first (A10.7), pins (A7.8), wounded leaders (A17.3), ELR (A19.1) and Leader Loss after
the attack (A10.2)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache, lru_cache
from itertools import repeat
from operator import add, itemgetter
from typing import Any, Literal, NamedTuple

from pydantic import Field, field_validator, model_validator

from warroom.engine.context import KEEP, Dice, Pieces, Stage, fixed, part, parts, rows
from warroom.engine.messages import Msg, msg
from warroom.engine.procedure import OutcomeField, Params, outcome, procedure
from warroom.games.asl import tables as T
from warroom.games.asl.counters import (
    MAX_UNITS,
    UNIT_NAMES,
    UNITS_HELP,
    Unit,
    lower_leader,
    parse_units,
    unit_msg,
)
from warroom.games.asl.ift import meaning
from warroom.games.asl.morale import Kind, MoraleResult, consequence, judge, wound_killed

__all__ = ["MAX_UNITS", "UNIT_NAMES", "Unit", "parse_units", "unit_msg"]

# A unit's state during the attack, as bits of a small int (cheap to hash and merge).
# SELECTED: tied for the highest Random Selection dr so far (cleared by the casualties).
BROKEN, WOUNDED, PINNED, ELIM, REDUCED, REPLACED, HIT, SELECTED = 1, 2, 4, 8, 16, 32, 64, 128

LltcFail = Literal["pinned", "broken"]
LeaderLoss = Literal["worst", "each"]
WoundedTwelve = Literal["before", "after"]


class Readings(NamedTuple):
    """The doubtful readings of Leader Loss (A10.2), each a parameter of the procedures
    (``docs/asl-coverage.md`` names them): what failing an LLTC does; one check per
    unit at the worst lost leader's DRM or one per lost leader; a leader broken and
    wounded by the same original 12 compared by his morale before or after the wound.
    (An original 12 on an LLTC needs no reading: its final DR is at least 11, above any
    morale, so it fails either way.)"""

    lltc_fail: LltcFail = "pinned"
    leader_loss: LeaderLoss = "worst"
    wounded_12: WoundedTwelve = "before"

_FLAG_ORDER = (("reduced", REDUCED), ("replaced", REPLACED), ("wounded", WOUNDED),
               ("broken", BROKEN), ("pinned", PINNED))


UNIT_STATES: tuple[str, ...] = (
    "ok", "pinned", "wounded", "wounded+pinned", "reduced", "reduced+pinned", "broken",
    "wounded+broken", "reduced+broken", "replaced+broken", "replaced+wounded+broken",
    "reduced+replaced+broken", "eliminated", "-")
"""Every state a unit can end in, mildest first ("-": no such unit in the stack): a
squad is never wounded nor a leader reduced, and a broken unit is never pinned."""


def state_name(s: int) -> str:
    if s & ELIM:
        return "eliminated"
    return "+".join(n for n, bit in _FLAG_ORDER if s & bit) or "ok"


def initial(u: Unit) -> int:
    return (BROKEN if u.broken else 0) | (WOUNDED if u.wounded else 0) | (
        PINNED if u.pinned else 0)


def morale_of(u: Unit, s: int) -> int:
    """Current morale: broken, the counter's broken side (A10: ``4-6-7/8``); a replaced
    leader is the next one down; wounded -1 (A17.3)."""
    m = u.broken_side if s & BROKEN else u.morale
    if u.kind == "leader" and s & REPLACED:
        m = lower_leader(u.morale, u.leadership)[0]
    return m - 1 if s & WOUNDED else m


def leadership_of(u: Unit, s: int) -> int:
    """Current leadership DRM: one worse when wounded (A17.3: -2 becomes -1)."""
    lead = u.leadership
    if s & REPLACED:
        lead = lower_leader(u.morale, u.leadership)[1]
    return lead + 1 if s & WOUNDED else lead


def leads(u: Unit, s: int) -> bool:
    """A leader gives his DRM to others only in good order and not pinned (A7.8)."""
    return u.kind == "leader" and not s & (BROKEN | ELIM | PINNED)


class StackParams(Params):
    result: Literal[T.IFT_RESULTS] = Field(  # type: ignore[valid-type]
        "NMC", description="the IFT result to apply (e.g. from asl.ift)")
    units: str = Field(
        "4-6-7,8-1", description=UNITS_HELP,
        examples=["4-6-7,8-1", "4-6-7,2-4-8,8-1", "4-6-7:broken,9-2:wounded",
                  "squad:7:3,leader:8:-1:elr=3,hs:6:2:broken", "hs:6,hs:6",
                  "4-4-7,4-4-7,4-4-7,9-1,8-0"])
    drm: int = Field(0, ge=-3, le=4, description="any further DRM for every unit's MC")
    elr: int | None = Field(None, ge=0, le=5, description="the side's Experience Level "
                            "Rating (a unit's own elr=N overrides it; omit to ignore ELR)")
    lltc_fail: LltcFail = Field(
        "pinned", description="what failing a Leader Loss Task Check does: pinned (our "
                              "reading of A10.2) or broken")
    leader_loss: LeaderLoss = Field(
        "worst", description="several leaders lost: worst (one Leader Loss check per unit, "
                             "at the worst DRM: our reading of A10.2) or each (one per "
                             "leader lost)")
    wounded_12: WoundedTwelve = Field(
        "before", description="a leader broken and wounded by the same original 12: the "
                              "units of lower morale than his before the wound (our "
                              "reading of A10.2) or after it take the LLTC")

    def readings(self) -> Readings:
        return Readings(self.lltc_fail, self.leader_loss, self.wounded_12)

    @field_validator("units")
    @classmethod
    def _units(cls, v: str) -> str:
        parse_units(v)
        return v

    @model_validator(mode="after")
    def _parsed(self) -> StackParams:
        parse_units(self.units, self.elr)
        return self


# ------------------------------------------------------------------ one unit's check
@cache
def _check_table(morale: int, drm: int, kind: Kind, broken: bool, elr: int | None
                 ) -> tuple[dict[int, MoraleResult], dict[str, MoraleResult]]:
    """What every 2d6 total does in one check, and the distinct results by label."""
    table = {total: judge(total, total + drm, morale, kind, broken, elr)
             for total in range(2, 13)}
    return table, {r.label(): r for r in table.values()}


@cache
def _chain(morale: int, drm: int, kind: Kind, broken: bool, elr: int | None,
           rule: str) -> Callable[[Dice], str]:
    """One check as a per-item chain (the same object every time: the exact driver
    memoises its distribution)."""
    table, _ = _check_table(morale, drm, kind, broken, elr)
    labels = tuple(table[t].label() if t in table else "" for t in range(13))
    what = f"{kind.upper()} DR"

    def chain(dd: Dice) -> str:
        total: int = dd.dice(2, view="sum", rule=rule, what=what)
        return labels[total]

    return fixed(chain)


_CHECK_NAMES = {"mc": "MC", "ptc": "PTC", "tc": "LLTC"}


@lru_cache(maxsize=4096)
def _check_plan(name: str, morale: int, drm: int, kind: Kind, broken: bool,
                elr: int | None, rule: str
                ) -> tuple[Callable[[Dice], str], tuple[str, ...], Msg, dict[str, MoraleResult]]:
    _, by_label = _check_table(morale, drm, kind, broken, elr)
    check = Msg("LLMC") if rule == "asl.llmc" else Msg(_CHECK_NAMES[kind])
    what = msg("{who} {check}", who=unit_msg(name), check=check)
    return _chain(morale, drm, kind, broken, elr, rule), tuple(by_label), what, by_label


@lru_cache(maxsize=4096)
def _check_note(name: str, morale: int, drm: int, kind: Kind, broken: bool,
                r: MoraleResult, rule: str) -> tuple[Msg, Msg]:
    check = Msg("LLMC") if rule == "asl.llmc" else Msg(_CHECK_NAMES[kind])
    return (msg("{who} {check} at {drm:+d} against morale {morale}", who=unit_msg(name),
                check=check, drm=drm, morale=morale),
            consequence(r, kind, broken, 0))


@lru_cache(maxsize=65536)
def _plan(u: Unit, s: int, kind: Kind, drm: int, rule: str, rd: Readings
          ) -> tuple[Callable[[Dice], str], tuple[str, ...], Msg,
                     dict[str, tuple[MoraleResult, int, bool]], Kind, bool]:
    """Everything one check needs that depends only on the unit, its state and the
    check: the chain, its labels, and per label the result, the next state bits and
    whether casualty reduction follows (worked out once, not per path)."""
    broken = bool(s & BROKEN)
    tc_kind: Kind = "ptc" if kind == "tc" and rd.lltc_fail == "pinned" else kind
    chain, labels, what, by_label = _check_plan(u.name, morale_of(u, s), drm, tc_kind,
                                                broken, u.elr, rule)
    after: dict[str, tuple[MoraleResult, int, bool]] = {}
    for label, r in by_label.items():
        if r.eliminated:
            after[label] = (r, ELIM, False)
        elif r.passed or r.pinned:
            after[label] = (r, s | PINNED if r.pinned else s, False)
        elif broken:
            after[label] = (r, s, r.casualty_reduction)
        else:
            after[label] = (r, (s | BROKEN | (REPLACED if r.replaced else 0)) & ~PINNED,
                            r.casualty_reduction)
    return chain, labels, what, after, tc_kind, broken


def check(d: Dice, u: Unit, s: int, kind: Kind, drm: int, rule: str,
          rd: Readings = Readings()) -> int:
    """One unit's MC, PTC or Leader Loss TC, and its state after it.

    The DR is one item's chain (``Dice.one``): exact odds branch over its few distinct
    results (pass, pin, break...), not the 11 totals; at the table it is one 2d6."""
    chain, labels, what, after, tc_kind, broken = _plan(u, s, kind, drm, rule, rd)
    if len(labels) == 1:  # every total alike: still rolled, for the story
        d.dice(2, view="sum", rule=rule, what=what)
        label = labels[0]
    else:
        label = d.one(chain, labels, rule=rule, what=what)
    r, out, reduce = after[label]
    if d.explains:
        text, result = _check_note(u.name, morale_of(u, s), drm, tc_kind, broken, r, rule)
        d.note(rule, text, result)
    return casualty(d, u, out) if reduce else out


def casualty(d: Dice, u: Unit, s: int) -> int:
    """Casualty reduction: a HS is eliminated, a squad becomes a HS, a leader rolls his
    wound dr."""
    if u.kind == "hs" or (u.kind == "squad" and s & REDUCED):
        if d.explains:
            d.note("asl.casualty", "{who}: casualty reduction eliminates the half-squad",
                   who=unit_msg(u.name))
        return ELIM
    if u.kind == "squad":
        if d.explains:
            d.note("asl.casualty",
                   "{who}: casualty reduction, the squad becomes a half-squad",
                   who=unit_msg(u.name))
        return s | REDUCED
    killed = wound_killed(d, bool(s & WOUNDED), unit_msg(u.name))
    return ELIM if killed else s | WOUNDED


# ------------------------------------------------------------------ the attack's plan
Step = tuple[str, int]
State = tuple[Any, ...]
"""(what the step in progress carries, then every unit's state bits, then the leaders
lost by the attack while the other units check): the step's value is Random Selection's
candidates, the leader helping the others' checks, or the leaders lost during the
leaders' own Leader Loss checks. The leaders lost have a position of their own while the
other units check, apart from the leader helping them: a unit's check reads the one, its
Leader Loss check the other, so each is worked out once per value of what it reads
(a few) and not per pair of them (a hundred and more with three leaders)."""


def first_state(units: tuple[Unit, ...]) -> State:
    """The state an attack on ``units`` starts from (:data:`State`)."""
    return ((), *(initial(u) for u in units), ())


def _steps(units: tuple[Unit, ...], result: str) -> tuple[Step, ...]:
    """The stages of an attack, fixed by the result and the units: Random Selection
    dice, the KIA or K/ casualties, every leader's check (highest morale first, A10.7),
    then each other unit's check followed by its Leader Loss check (A10.2: no later
    event depends on the order, and every leader lost by this attack is known by then),
    then the leaders' own Leader Loss checks. Between the leaders' checks and the
    others', a step without dice (``ctx``) notes what the later checks need of the
    leaders: the leader who helps the others and the leaders lost."""
    m = len(units)
    if result == "-":
        return ()
    steps: list[Step] = []
    kia = result.endswith("KIA")
    if (kia and int(result[0]) < m) or (result.startswith("K/") and m > 1):
        steps += [("rs", j) for j in range(m)]
    if kia or result.startswith("K/"):
        steps.append(("apply", 0))
    leaders = sorted((i for i, u in enumerate(units) if u.kind == "leader"),
                     key=lambda i: (-morale_of(units[i], initial(units[i])),
                                    leadership_of(units[i], initial(units[i])), i))
    if not kia:
        steps += [("check", i) for i in leaders]
    others = [i for i, u in enumerate(units) if u.kind != "leader"]
    if leaders and (others or (len(leaders) > 1 and result != "PTC")):
        # what every other unit's check and every Leader Loss check need of the leaders,
        # known once they are done
        steps.append(("ctx", 0))
    for i in others:  # each unit's check, then its Leader Loss check if leaders are lost
        steps += [("unit", i), ("loss", i)] if leaders and result != "PTC" else [("unit", i)]
    if result != "PTC" and len(leaders) > 1:
        steps += [("ll", i) for i in leaders]
    return tuple(steps)


def _selected(units: tuple[Unit, ...], result: str, aux: tuple[Any, ...]) -> list[int]:
    m = len(units)
    if (result.endswith("KIA") and int(result[0]) >= m) or m == 1:
        return list(range(m))
    return list(aux)


def _lost(units: tuple[Unit, ...], start: tuple[int, ...], ss: list[Any],
          rd: Readings = Readings()) -> tuple[tuple[int, bool, int], ...]:
    """The leaders this attack has lost: (index, killed, the morale the others compare
    with theirs), killed or newly broken. The morale is his before the attack; with
    ``wounded_12="after"``, a wound from the attack counts."""
    return tuple((j, bool(ss[j] & ELIM), morale_of(u, start[j] | (
        ss[j] & WOUNDED if rd.wounded_12 == "after" and not ss[j] & ELIM else 0)))
        for j, u in enumerate(units)
        if u.kind == "leader" and (ss[j] & ELIM or (ss[j] & BROKEN
                                                   and not start[j] & BROKEN)))


@lru_cache(maxsize=256)
def _stages(units: tuple[Unit, ...], result: str, drm: int, rd: Readings
            ) -> tuple[Stage[State], ...]:
    """The stages of an attack on ``units`` (the same functions for the same attack, so
    the exact driver shares their work, keyed by the attack). Each is a stage on part of
    the state (``part``): Random Selection reads only the highest dr so far where one
    unit is selected (and marks who is tied for it: ``top_stage``), else its
    candidates; the casualties are a piece per unit on its state; a leader's check reads
    only the leaders, another unit's check the leader helping it and that unit, its
    Leader Loss check the leaders lost and that unit. So the exact driver works a unit's
    check out once per state of the leaders and of that unit, not once per state of the
    whole stack; and the checks of units alike (seven 4-6-7s) are the same functions
    (keyed by the unit, not its place), so an estimate draws them from the same
    tables."""
    steps = _steps(units, result)
    m = len(units)
    n_sel = int(result[0]) if result.endswith("KIA") else 1
    kia = result.endswith("KIA")
    kind: Kind = "ptc" if result == "PTC" else "mc"
    mc_drm = drm + (0 if result in ("NMC", "PTC") or kia
                    else int(result[2]) if result.startswith("K/") else int(result[0]))
    order = {i: k for k, (what, i) in enumerate(steps) if what == "check"}
    start = tuple(initial(u) for u in units)
    end = len(steps)
    leaders = tuple(1 + i for i, u in enumerate(units) if u.kind == "leader")
    lost_at = m + 1  # where the leaders lost are kept while the other units check

    def announce(d: Dice, lost: tuple[tuple[int, bool, int], ...]) -> None:
        for j, killed, _ in lost:
            who = unit_msg(units[j].name)
            if killed:
                d.note("asl.llmc", "{who} is killed: after the attack, units of lower "
                       "morale take a Leader Loss MC", who=who)
            else:
                d.note("asl.lltc", "{who} broke: after the attack, units of lower morale "
                       "take a Leader Loss Task Check", who=who)

    # unit, its state, the leaders lost -> its Leader Loss checks (none: it takes none)
    Lost = tuple[tuple[int, bool, int], ...]
    loss_plans: dict[tuple[int, int, Lost], tuple[tuple[Kind, int, str], ...]] = {}

    def loss_plan(i: int, s: int, lost: Lost) -> tuple[tuple[Kind, int, str], ...]:
        u = units[i]
        mine = [(j, kd) for j, kd, lm in lost if j != i and morale_of(u, s) < lm]
        plan: tuple[tuple[Kind, int, str], ...] = ()
        if mine and rd.leader_loss == "each":  # one check per leader lost
            plan = tuple(("mc", -leadership_of(units[j], start[j]), "asl.llmc") if kd else
                         ("tc", -leadership_of(units[j], start[j]), "asl.lltc")
                         for j, kd in mine)
        elif mine:  # one check, the worst
            killed = any(kd for _, kd in mine)
            ll_drm = max(-leadership_of(units[j], start[j]) for j, kd in mine
                         if kd == killed)
            plan = (("mc", ll_drm, "asl.llmc") if killed else ("tc", ll_drm, "asl.lltc"),)
        loss_plans[i, s, lost] = plan
        return plan

    def leader_loss(d: Dice, i: int, ss: list[Any], lost: Lost) -> None:
        if ss[i] & ELIM or not lost:
            return
        key = (i, ss[i], lost)
        for kind, ll_drm, rule in loss_plans[key] if key in loss_plans else loss_plan(
                i, ss[i], lost):
            if not ss[i] & ELIM:
                ss[i] = check(d, units[i], ss[i], kind, ll_drm, rule, rd)

    def rs_stage(k: int) -> Stage[State]:
        i = steps[k][1]
        final = steps[k + 1][0] != "rs"
        if n_sel == 1:
            return top_stage(i, final)

        def rs(sub: State, d: Dice) -> State:
            roll = d.die(rule="asl.random_selection",
                         what=msg("{who}: Random Selection dr", who=unit_msg(units[i].name))
                         if d.explains else "")
            cands = sub[0]
            if n_sel == 1 and cands:  # every candidate so far tied for the highest
                top = cands[0][1]
                cands = ((i, roll),) if roll > top else (
                    (*cands, (i, roll)) if roll == top else cands)
            else:
                cands = (*cands, (i, roll))
                rolls = sorted((r for _, r in cands), reverse=True)
                if len(rolls) >= n_sel:
                    cands = tuple(c for c in cands if c[1] >= rolls[n_sel - 1])
            # the last die leaves only who is selected
            return (tuple(j for j, _ in cands),) if final else (cands,)

        return part((0,), fixed(rs, ("asl.stack", units, result, drm, rd, k)))

    def top_stage(i: int, final: bool) -> Stage[State]:
        """Unit ``i``'s Random Selection dr where one unit is selected (K/#, 1KIA): it
        reads only the highest dr so far (position 0) and marks who is tied for it in
        the units' states, which are still as they started (Random Selection comes
        first): a higher dr marks this unit alone, an equal one adds it, a lower one
        leaves the marks (KEEP). So its transitions are one per highest dr, not one per
        set of units tied. The last die leaves position 0 empty: the marks say it all."""
        mine = start[i] | SELECTED
        cleared = tuple(start[:i])
        kept = (KEEP,) * i
        what = msg("{who}: Random Selection dr", who=unit_msg(units[i].name))

        def rs(sub: State, d: Dice) -> State:
            roll = d.die(rule="asl.random_selection", what=what if d.explains else "")
            top = sub[0]
            if top == () or roll > top:
                out = (roll, *cleared, mine)
            else:
                out = (top, *kept, mine if roll == top else KEEP)
            return ((), *out[1:]) if final else out

        return part((0,), fixed(rs, ("asl.stack.top", units, result, drm, rd, i, final)),
                    writes=tuple(range(1, i + 2)))

    def run(k: int, d: Dice, ss: list[Any], aux: Any, lost: Lost) -> tuple[Any, Lost]:
        """Step ``k`` on the units' states ``ss``; what it leaves in the state's first
        value and in the leaders lost."""
        what, i = steps[k]
        if what == "check":
            _check_unit(d, units, ss, i, kind, mc_drm, _lead(units, ss, i, order, k))
        elif what == "ctx":
            aux, lost = _context(units, ss, start, result, order, k, rd)
            if lost:
                announce(d, lost)
        elif what == "unit":
            if not kia:
                _check_unit(d, units, ss, i, kind, mc_drm, aux or (-1, 0))
            if k == last_unit:  # no later step reads the leader helping
                aux = ()
        elif what == "loss":  # the unit's Leader Loss check, after its own check
            leader_loss(d, i, ss, lost)
            if k == clear_lost:  # no later step reads the leaders lost here
                lost = ()
        else:  # "ll": a leader's own Leader Loss check, against the leaders lost (the
            # attack's: a leader lost by these checks causes no further ones)
            leader_loss(d, i, ss, lost)
            if k == clear_lost:  # no later step reads the leaders lost here
                lost = ()
        if clears[k]:
            # HIT (the K/ casualty leader) is cleared once the checks are over
            for j, s in enumerate(ss):
                if s is not None:
                    ss[j] = s & ~HIT
        return aux, lost

    # per step: whether it clears HIT
    clears = [k + 1 >= end or steps[k + 1][0] == "ll" for k in range(end)]
    last_unit = max((k for k, (what, _) in enumerate(steps) if what == "unit"), default=-1)
    # the leaders lost are cleared by the last Leader Loss check
    clear_lost = max((k for k, (what, _) in enumerate(steps) if what in ("loss", "ll")),
                     default=-1)

    def fields_of(k: int) -> tuple[int, ...]:
        """The positions step ``k`` reads and changes: a leader's check the leaders, the
        leaders' context the leaders (and where it leaves the helper and the leaders
        lost), another unit's check the helper and that unit, any Leader Loss check the
        leaders lost and that unit. (Random Selection and the casualties have stages of
        their own: ``top_stage``, ``rs_stage``, ``apply_stages``.)"""
        what, i = steps[k]
        if what == "ctx":
            return (0, *leaders, lost_at)
        if what == "unit":
            return (0, 1 + i) if leaders else (1 + i,)
        if what in ("loss", "ll"):
            return (1 + i, lost_at)
        return leaders

    def key_of(ks: tuple[int, ...]) -> Any:
        """What steps ``ks`` compute, as a memo key: the steps themselves, but another
        unit's check (or Leader Loss check) by the unit and not its place, so the
        checks of units alike share their transitions (the unit's name only names it in
        the notes; clearing the K/ casualty leader's mark leaves the unit, not a leader,
        as it is). A leader's own Leader Loss check also by his place: the leaders lost
        he compares himself with are the others."""
        if len(ks) == 1 and steps[ks[0]][0] in ("unit", "loss", "ll"):
            k = ks[0]
            what, i = steps[k]
            return (what, units[i]._replace(name=""), i if what == "ll" else -1,
                    k == last_unit, k == clear_lost, clears[k])
        return ks

    def make(ks: tuple[int, ...]) -> Stage[State]:
        """Steps ``ks`` as one stage on the values they read and change
        (:func:`fields_of`)."""
        fields = tuple(sorted({f for k in ks for f in fields_of(k)}))
        at = {f - 1: n for n, f in enumerate(fields) if 0 < f <= m}
        aux_read = fields[0] == 0
        lost_read = fields[-1] == lost_at

        def stage(sub: State, d: Dice) -> State:
            ss: list[Any] = [None] * m
            for j, n in at.items():
                ss[j] = sub[n]
            aux = sub[0] if aux_read else ()
            lost = sub[-1] if lost_read else ()
            for k in ks:
                aux, lost = run(k, d, ss, aux, lost)
            out = [ss[f - 1] if 0 < f <= m else None for f in fields]
            if aux_read:
                out[0] = aux
            if lost_read:
                out[-1] = lost
            return tuple(out)

        name = ("asl.stack", units, result, drm, rd, key_of(ks))
        keyed = keyed_by(ks, fields)
        return part(fields, fixed(stage, name),
                    key=None if keyed is None else fixed(keyed, ("key", name)))

    def keyed_by(ks: tuple[int, ...], fields: tuple[int, ...]
                 ) -> Callable[[State], Any] | None:
        """What a single step's changes depend on (``part``'s key), where that is less
        than the values it reads: a leader's check on his state and the DRM of the
        leader helping him (not every other leader's state); a Leader Loss check on the
        unit's state and the check the leaders lost call for (not which leaders they
        are), and whether it clears the leaders lost. None: the values read."""
        if len(ks) != 1:
            return None
        k = ks[0]
        what, i = steps[k]
        if what == "check" and not clears[k]:
            at = {j - 1: n for n, j in enumerate(fields)}
            me = at[i]

            def check_key(sub: State) -> Any:
                ss: list[Any] = [None] * m
                for j, n in at.items():
                    ss[j] = sub[n]
                return sub[me], _lead(units, ss, i, order, k)[1]

            return check_key
        if what in ("loss", "ll"):
            clearing = k == clear_lost

            def loss_key(sub: State) -> Any:
                s, lost = sub
                if s & ELIM or not lost:
                    return s, (), clearing and bool(lost)
                key = (i, s, lost)
                plan = loss_plans[key] if key in loss_plans else loss_plan(i, s, lost)
                return s, plan, clearing

            return loss_key
        return None

    # a stage per Random Selection die, per unit's casualty, per check; a unit's Leader
    # Loss check joins the stage before it (a piece each), and so does the leaders'
    # context: fewer passes over many states
    groups: list[list[int]] = []
    for k, (what, _) in enumerate(steps):
        if what in ("ll", "ctx", "loss") and groups and steps[groups[-1][-1]][0] not in (
                "rs", "apply"):
            groups[-1].append(k)
        else:
            groups.append([k])
    def joined(g: list[int]) -> Stage[State]:
        # a piece per step: a unit's check and any Leader Loss check read different
        # values (the helper, the leaders lost), each worked out per value of its own
        return make((g[0],)) if len(g) == 1 else parts(*[make((k,)) for k in g])

    def apply_stages() -> list[Stage[State]]:
        """The KIA or K/ casualties, a stage per unit (:func:`_casualty`) on what
        selects it (position 0: the units Random Selection chose, where it chose more
        than one, else empty) and its state: each worked out once per state of the
        unit, not per set of states of the stack."""
        everyone = bool(_selected(units, result, ()))
        # units alike share their stage's transitions, unless position 0 names the units
        # chosen (#KIA with more than one selected)
        by_place = n_sel > 1 and steps[0][0] == "rs"
        return [part((0, 1 + j), fixed(functools.partial(
            _casualty, units[j], j, result, everyone, j == m - 1), (
                "asl.stack.casualty", units[j]._replace(name=""), j if by_place else -1,
                j == m - 1, result, everyone))) for j in range(m)]

    out: list[Stage[State]] = []
    for g in groups:
        what = steps[g[0]][0]
        if what == "apply":
            out += apply_stages()
        else:
            out.append(rs_stage(g[0]) if what == "rs" else joined(g))
    return tuple(out)


def _lead(units: tuple[Unit, ...], ss: list[int], i: int, order: dict[int, int], k: int
          ) -> tuple[int, int]:
    """The leader helping unit ``i``'s check at step ``k`` and his DRM ((-1, 0): none
    helps)."""
    helper = _helper(units, ss, i, order, k)
    lead = leadership_of(units[helper], ss[helper]) if helper >= 0 else 0
    return (helper, lead) if lead else (-1, 0)


def _context(units: tuple[Unit, ...], ss: list[int], start: tuple[int, ...], result: str,
             order: dict[int, int], k: int, rd: Readings
             ) -> tuple[tuple[int, int], tuple[Any, ...]]:
    """What the checks of the units other than leaders need of the leaders, once every
    leader has checked (step ``k``): the leader helping them (the same for each: every
    leader has checked by then) and the leaders lost by the attack. Clears the K/
    casualty leader's mark: no later check reads it."""
    other = next((i for i, u in enumerate(units) if u.kind != "leader"), -1)
    helper = (_lead(units, ss, other, order, k)
              if other >= 0 and not result.endswith("KIA") else (-1, 0))
    lost = _lost(units, start, ss, rd) if result != "PTC" else ()
    for j, u in enumerate(units):
        if u.kind == "leader" and ss[j] is not None:
            ss[j] &= ~HIT
    return helper, lost


def _check_unit(d: Dice, units: tuple[Unit, ...], ss: list[int], i: int, kind: Kind,
                mc_drm: int, helping: tuple[int, int]) -> None:
    """Unit ``i``'s MC or PTC from the IFT result, with the leader helping it (his
    index and DRM, :func:`_lead`)."""
    u, s = units[i], ss[i]
    if s & ELIM:
        return
    if s & HIT:
        d.note("asl.k", "{who} is the K/ casualty: he takes no MC", who=unit_msg(u.name))
        return
    if kind == "ptc" and s & BROKEN:
        d.note("asl.ptc", "{who} is broken: no PTC (it may get DM)", who=unit_msg(u.name))
        return
    helper, lead = helping
    if lead and d.explains:
        d.note("asl.leader", "{who} leads: his {v:+d} applies",
               who=unit_msg(units[helper].name), v=lead)
    elif d.explains and u.kind == "leader":
        for j, o in enumerate(units):
            if j != i and leads(o, ss[j]) and leadership_of(o, ss[j]) < 0 and \
                    morale_of(o, ss[j]) <= morale_of(u, s):
                d.note("asl.leader", "{other}'s {v:+d} does not help {who}: his morale is "
                       "not lower (A10.7)", other=unit_msg(o.name),
                       v=leadership_of(o, ss[j]), who=unit_msg(u.name))
                break
    ss[i] = check(d, u, s, kind, mc_drm + lead, f"asl.{kind}")
    if d.explains and u.kind == "leader" and not leads(u, ss[i]) and leads(u, s):
        d.note("asl.leader", "{who} is no longer in good order (or pinned): his "
               "leadership does not help the others", who=unit_msg(u.name))


def _helper(units: tuple[Unit, ...], ss: list[int], i: int, order: dict[int, int],
            k: int) -> int:
    """The leader whose DRM applies to unit ``i``'s check (-1: none): the best of those
    who have already checked, or take no check (the K/ casualty), and still lead."""
    best = -1
    for j, u in enumerate(units):
        if j == i or not leads(u, ss[j]):
            continue
        if units[i].kind == "leader" and morale_of(u, ss[j]) <= morale_of(units[i], ss[i]):
            continue  # a leader helps only leaders of lower morale (A10.7, A10.22 EX)
        if order.get(j, -1) >= k and not ss[j] & HIT:
            continue  # still to check
        if best < 0 or leadership_of(u, ss[j]) < leadership_of(units[best], ss[best]):
            best = j
    return best


def _casualty(u: Unit, j: int, result: str, everyone: bool, last: bool, sub: State,
              d: Dice) -> State:
    """The KIA or K/ result on unit ``j`` (``sub``: what selects it, then its state):
    selected by Random Selection (every unit where ``everyone``; else those in
    ``sub[0]``, or marked SELECTED), KIA eliminates it and K/ reduces it (a leader
    wounded by it takes no MC: HIT); not selected, KIA breaks it (a broken one suffers
    casualty reduction) and K/ leaves it. The ``last`` unit's piece empties position 0."""
    chosen, s = sub
    kia = result.endswith("KIA")
    selected = everyone or bool(s & SELECTED) or j in chosen
    s &= ~SELECTED
    if selected and kia:
        if everyone and not j:
            d.note("asl.kia", "{res} eliminates every unit in the location", res=result)
        d.note("asl.kia", "{who} is eliminated", who=unit_msg(u.name))
        s = ELIM
    elif selected:
        d.note("asl.k", "{who} suffers the casualty reduction", who=unit_msg(u.name))
        s = casualty(d, u, s)
        if u.kind == "leader" and not s & ELIM:
            s |= HIT  # wounded: takes no MC of his own
    elif kia and s & BROKEN:
        d.note("asl.kia", "{who} was already broken: casualty reduction",
               who=unit_msg(u.name))
        s = casualty(d, u, s)
    elif kia:
        d.note("asl.kia", "{who} breaks (DM)", who=unit_msg(u.name))
        s = (s | BROKEN) & ~PINNED
    return (() if last else chosen, s)


def apply_result(d: Dice, result: str, units: tuple[Unit, ...], drm: int,
                 rd: Readings = Readings()) -> tuple[int, ...]:
    """Every unit's state bits after ``result``."""
    start = tuple(initial(u) for u in units)
    if result == "-":
        d.note("asl.ift.result", "no effect")
        return start
    stages = _stages(units, result, drm, rd)
    if not stages:
        return start
    last, _ = d.stages(first_state(units), (), rounds=0, opening=stages)
    return tuple(last[1:len(units) + 1])


def finish_result(d: Dice, result: str, units: tuple[Unit, ...], drm: int,
                  rd: Readings, extra: Mapping[str, Any]) -> Mapping[str, Any]:
    """The procedure's outcome after ``result``: every unit's state (:func:`stack_outcome`)
    and the ``extra`` fields. Return it as it is (``Dice.finish``: exact odds map each
    distinct end of the attack once, without replaying the procedure)."""
    tail = tuple(extra.values())
    if not tail or all(type(v) in (str, int) for v in tail):  # plain: kept by them
        stages, first, outcome = _finish_plan(units, result, drm, rd, tuple(extra),
                                              tail)
    else:  # a lazy count (exact odds): a plan for this query only
        stages, first, outcome = _finish_plan.__wrapped__(units, result, drm, rd,
                                                          tuple(extra), tail)
    if not stages:
        return {**extra, **stack_outcome(units, apply_result(d, result, units, drm,
                                                             rd))}
    return d.finish(first, (), rounds=0, opening=stages, outcome=outcome)


@lru_cache(maxsize=1024)
def _finish_plan(units: tuple[Unit, ...], result: str, drm: int, rd: Readings,
                 names: tuple[str, ...], tail: tuple[Any, ...]
                 ) -> tuple[tuple[Stage[State], ...], State,
                            Callable[[State, int], Mapping[str, Any]]]:
    """What :func:`finish_result` asks ``Dice.finish`` for an attack, the ``extra``
    fields ``names`` with values ``tail``: the stages, the first state and the outcome
    (as rows). Kept by the attack and the extra values, not made again for each of a
    Monte Carlo estimate's samples."""
    stages = _stages(units, result, drm, rd) if result != "-" else ()
    plain = all(type(v) in (str, int) for v in tail)
    return stages, first_state(units), rows(
        (*STACK_FIELDS, *names), _last_row(units, tail), plain=plain,
        joined=_joined_rows(units, tail) if plain else None)


_ENDS = {  # states a unit may end in: (good order, broken) per kind, by result
    "k": {"squad": (7, 3), "hs": (4, 2), "leader": (8, 4)},
    "mc": {"squad": (5, 3), "hs": (4, 2), "leader": (5, 3)},
    "kia": {"squad": (3, 3), "hs": (2, 2), "leader": (3, 3)},
}


def joint_size(units: tuple[Unit, ...], result: str = "K/1") -> int:
    """A rough (generous) count of the joint final states of a stack after ``result``:
    the distinct outcomes exact odds list, each worked out once."""
    ends = _ENDS["kia" if result.endswith("KIA") else "k" if result.startswith("K/")
                 else "mc"]
    out = 1
    for u in units:
        out *= ends[u.kind][u.broken]
    return out


WORK_PER_STATE = 5
"""Exact odds of a stack cost about 4 µs of CPU per joint final state (or Random
Selection state) on this project's machine (the six-unit K/1 stack: 21,212 outcomes in
about 83 ms; ten broken squads after K/2: 59,048 in about 0.37 s, with their ten Random
Selection dice); 5 is kept as a margin for slower machines. Counted in quarters of a
state (``_cost``), the budget of 200,000 replays is spent at 160,000 states, so what is
answered exactly takes well under a second; past it, a Monte Carlo estimate."""


def _cost(p: StackParams) -> int:
    if p.result == "-":
        return 1
    units = parse_units(p.units, p.elr)
    m = len(units)
    n_sel = int(p.result[0]) if p.result.endswith("KIA") else 1
    # Random Selection: a stage per die over the candidates still tied (about 2**m)
    rs = 21 * n_sel**3 * 2**m if any(w == "rs" for w, _ in _steps(units, p.result)) else 0
    return WORK_PER_STATE * (joint_size(units, p.result) + rs) // 4


def _sample_cost(p: StackParams) -> float:
    """What a sample of the estimate costs, in the replays of :func:`_cost`: about two
    thirds of one per unit and one and a half besides. That is more than the batched
    estimates cost now (38,415 samples of the six-, seven- and eight-unit stacks at K/1:
    about 45, 80 and 120 ms of CPU on this project's machine, ten units with three
    leaders at K/2 about 0.3 s), so that exact odds are kept up to where the estimate past
    them is no slower: seven units at K/1 answer exactly (about 0.27 s), eight are
    estimated; six exact (about 50 ms) beside seven estimated would be a cliff."""
    return 1.5 + 0.65 * len(parse_units(p.units, p.elr))


UNIT_FIELDS = tuple(f"unit{i}" for i in range(1, MAX_UNITS + 1))

STACK_OUTCOME = outcome(
    OutcomeField("units", "str", "each unit's final state: name=state, where state is "
                 "ok, eliminated, or reduced/replaced/wounded/broken/pinned joined by +"),
    *(OutcomeField(f, "str", f"the state of unit {n} as listed ('-': no such unit)",
                   UNIT_STATES, repeats="units") for n, f in enumerate(UNIT_FIELDS, 1)),
    ("eliminated", "int", "units eliminated"),
    ("broken", "int", "surviving units that are broken"),
    ("pinned", "int", "units pinned"),
)


def stack_outcome(units: tuple[Unit, ...], st: tuple[int, ...]) -> dict[str, Any]:
    return _outcome_of(units)(st)


class _UnitViews(dict[int, tuple[str, str, int]]):
    """One unit's part of the outcome by state bits, worked out once per state: the
    state's name, ``name=state`` and its counts packed in one int (eliminated, broken
    and pinned surviving units, a byte each)."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name

    def __missing__(self, s: int) -> tuple[str, str, int]:
        n = state_name(s)
        gone = bool(s & ELIM)
        packed = int(gone) | int(bool(s & BROKEN) and not gone) << 8 | int(
            bool(s & PINNED) and not gone) << 16
        self[s] = view = (n, f"{self.name}={n}", packed)
        return view


HALF_MEMO = 1 << 13
"""Rows of the distinct states of half a stack kept (:func:`_halves`); past it they
start over (the benchmark's ten-unit K/2 estimate meets about 2,900 of each half)."""


@lru_cache(maxsize=8)
def _halves(units: tuple[Unit, ...]
            ) -> tuple[dict[State, tuple[str, tuple[str, ...], int]], ...]:
    """The outcome's part for each distinct state of the first and of the second half of
    ``units`` (:func:`_last_row`), filled as they appear and shared by every question on
    the same units (exact odds' thousands of last states, an estimate's samples)."""
    return {}, {}


def _last_row(units: tuple[Unit, ...], tail: tuple[Any, ...]
              ) -> Callable[[State, int], tuple[Any, ...]]:
    """The row of a last state of the attack (:data:`State`): the values
    of STACK_FIELDS, then ``tail``. Exact odds map thousands of last states, so each
    half of the stack's units is worked out once per distinct state of that half (a few
    dozen; kept by :func:`_halves`) and the row put together from the two."""
    views = _views(units)
    m = len(units)
    h = 1 + (m + 1) // 2  # the first half: state[1:h], the second: state[h:m + 1]
    sep = "," if len(units) > 1 else ""
    pad = ("-",) * (len(UNIT_FIELDS) - len(units))
    halves = _halves(units)
    ends: dict[int, tuple[Any, ...]] = {}

    def half(n: int, key: State) -> tuple[str, tuple[str, ...], int]:
        if not key:
            return "", (), 0
        names, pieces, counts = zip(*[view[s] for view, s in
                                      zip(views[:h - 1] if n == 0 else views[h - 1:], key,
                                          strict=True)], strict=True)
        found = (",".join(pieces) + (sep if n == 0 else ""), names, sum(counts))
        if len(halves[n]) >= HALF_MEMO:
            halves[n].clear()
        halves[n][key] = found
        return found

    def end(packed: int) -> tuple[Any, ...]:
        ends[packed] = found = (*pad, packed & 255, packed >> 8 & 255, packed >> 16, *tail)
        return found

    first, second = halves

    def row(state: State, _: int) -> tuple[Any, ...]:
        a = first.get(state[1:h]) or half(0, state[1:h])
        b = second.get(state[h:m + 1]) or half(1, state[h:m + 1])
        packed = a[2] + b[2]
        return (a[0] + b[0], *a[1], *b[1], *(ends.get(packed) or end(packed)))

    return row


class _PieceViews(dict[State, tuple[str, tuple[str, ...], int]]):
    """The outcome's part for the units at some positions of a last state (the first
    and last positions, what the step in progress carries and the leaders lost, are
    empty by then), by their values: ``name=state``
    joined (with the comma before the next units), the state names, the packed counts
    (:class:`_UnitViews`)."""

    def __init__(self, views: list[_UnitViews], at: range, more: bool) -> None:
        super().__init__()
        self.views = [views[f - 1] if 0 < f <= len(views) else None for f in at]
        self.more = more

    def __missing__(self, values: State) -> tuple[str, tuple[str, ...], int]:
        got = [view[s] for view, s in zip(self.views, values, strict=True)
               if view is not None]
        text = ",".join(v[1] for v in got)
        self[values] = found = (text + ("," if text and self.more else ""),
                                tuple(v[0] for v in got), sum(v[2] for v in got))
        if len(self) > HALF_MEMO:
            self.clear()
        return found


def _joined_rows(units: tuple[Unit, ...], tail: tuple[Any, ...]
                 ) -> Callable[[Pieces, int], Iterable[tuple[Any, ...]]]:
    """The rows of :func:`_last_row` for many last states at once, from their values cut
    into pieces (``context.rows``' ``joined``): each piece's part worked out once per
    distinct value (:class:`_PieceViews`), picked by each state's index a field at a
    time, the fields zipped into rows in C (one tuple a row, no call in Python per
    last state); the counts added in numpy."""
    views = _views(units)
    m = len(units)
    pad = ("-",) * (len(UNIT_FIELDS) - m)
    made: dict[range, _PieceViews] = {}

    def joined(pieces: Pieces, _: int) -> Iterable[tuple[Any, ...]]:
        import numpy as np

        texts: list[Iterable[str]] = []
        names: list[Iterable[str]] = []
        packed: Any = 0
        for at, values, index in pieces:
            view = made.get(at)
            if view is None:
                view = made[at] = _PieceViews(views, at, at[-1] < m if at else False)
            got = [view[v] for v in values]
            # each state's value picked for every field in C (itemgetter of one index
            # gives no tuple)
            pick = itemgetter(*index) if len(index) > 1 else _one_by_one(index)
            texts.append(pick([g[0] for g in got]))
            for j in range(len(got[0][1]) if got else 0):  # each unit's state name
                names.append(pick([g[1][j] for g in got]))
            packed = packed + np.array([g[2] for g in got], dtype=np.int64)[
                np.asarray(index, dtype=np.intp)]
        counts = [(packed & 255).tolist(), (packed >> 8 & 255).tolist(),
                  (packed >> 16).tolist()]
        return zip(functools.reduce(_joined, texts), *names, *map(repeat, pad), *counts,
                   *map(repeat, tail), strict=False)  # (the repeats never end)

    return joined


def _one_by_one(index: Sequence[int]) -> Callable[[list[Any]], list[Any]]:
    """What ``itemgetter(*index)`` does for more than one index, for any number."""
    return lambda values: [values[i] for i in index]


def _joined(a: Iterable[Any], b: Iterable[Any]) -> Iterable[Any]:
    return map(add, a, b)


STACK_FIELDS = ("units", *UNIT_FIELDS, "eliminated", "broken", "pinned")
"""The fields of STACK_OUTCOME in order."""


@lru_cache(maxsize=256)
def _outcome_of(units: tuple[Unit, ...]) -> Callable[[tuple[int, ...]], dict[str, Any]]:
    """The outcome of a stack's final state bits (every field of STACK_OUTCOME)."""
    row = _row_of(units)

    def outcome(st: tuple[int, ...]) -> dict[str, Any]:
        # the fields and the row have the same length by construction
        return dict(zip(STACK_FIELDS, row(st)))  # noqa: B905

    return outcome


@lru_cache(maxsize=256)
def _views(units: tuple[Unit, ...]) -> list[_UnitViews]:
    """Each unit's part of the outcome by its state bits (filled as states appear)."""
    return [_UnitViews(u.name) for u in units]


@lru_cache(maxsize=256)
def _row_of(units: tuple[Unit, ...]) -> Callable[[tuple[int, ...]], tuple[Any, ...]]:
    """The values of STACK_FIELDS, in order, of a stack's final state bits."""
    views = _views(units)
    pad = ("-",) * (len(UNIT_FIELDS) - len(units))

    def row(st: tuple[int, ...]) -> tuple[Any, ...]:
        # a part of the state for each unit (zip(strict=True) says so if not)
        names, pieces, counts = zip(*[view[part] for view, part in
                                      zip(views, st, strict=True)], strict=True)
        packed = sum(counts)
        return (",".join(pieces), *names, *pad, packed & 255, packed >> 8 & 255,
                packed >> 16)

    return row


STACK_NOTE = (
    "Units are named by kind and order (squad1, hs1, leader1). Following the ASL "
    "Rulebook: Random Selection (A.9) rolls a dr per unit and takes every unit tied for "
    "the highest (for #KIA the # highest and all tied with them); every leader checks "
    "first, highest morale first, and a leader in good order and not pinned who has "
    "checked gives his DRM to the later checks, a leader's only if his morale is lower "
    "(A10.7, A10.22, A7.8); a broken unit checks on its counter's broken side (4-6-7/8; "
    "left out: 8 for a 4-6-7, 9 for a 6-5-8, else the same); an MC passed with a final "
    "DR equal to the morale pins (A7.8); a wounded leader has morale -1 and leadership "
    "one worse (A17.3); ELR replacement applies to leaders too, a leader becoming the "
    "next lower one (A19.1); a K/ casualty that turns a squad into a half-squad still "
    "takes the MC, a wounded leader does not. Leader Loss (A10.2): after the whole attack, "
    "units of lower current morale than a killed leader, broken ones too, take a Leader "
    "Loss MC at his leadership DRM reversed; if he only broke, a Leader Loss Task Check "
    "(failing it pins: our reading, parameter lltc_fail; an original 12 on it fails "
    "either way, its final DR being above any morale; a leader broken and wounded by "
    "one 12 is compared by his morale before the wound: parameter wounded_12). With "
    "several lost leaders a unit takes one check, the worst (parameter leader_loss); a "
    "leader lost in the Leader Loss checks causes no further ones (our reading). DM "
    "markers are not tracked.")


@procedure(
    "asl.ift_on_stack",
    title="IFT result on a stack",
    summary="Apply an IFT result to every unit in one location: Random Selection, "
            "casualty reduction, morale checks with leaders first, pins, Leader Loss.",
    params=StackParams,
    outcome=STACK_OUTCOME,
    cost=_cost,
    sample_cost=_sample_cost,
    source="ASL reference card: #KIA, K/#, NMC, #MC, PTC, leader wounds; ASLRB A.9, "
           "A7.8, A10.2, A10.7, A17.3, A19.1",
    note=STACK_NOTE,
)
def ift_on_stack(p: StackParams, d: Dice) -> Mapping[str, Any]:
    units = parse_units(p.units, p.elr)
    if d.explains:
        d.note("asl.ift.result", "{res}: {meaning}", res=p.result, meaning=meaning(p.result))
    return finish_result(d, p.result, units, p.drm, p.readings(), {})
