"""The battle page's Resolve form, filled in as a player thinks: "these units of mine do
this to that unit of yours".

The player picks the acting unit(s) from their side's units and the target from the
other side's, then the procedure by its title (only those that apply to the units
picked), then sees a form generated from the procedure's parameters (the procedure
page's own fields, ``macros.html``) with the units' values filled in and editable, the
exact odds before rolling (the procedure page's odds panel and its deadline/estimate
path), and how many dice the next step needs, worked out by the entered-dice driver
itself (:class:`~warroom.errors.TooFewDiceError`). The routes are in
:mod:`warroom.web.battles`; this module only reads the form and builds what it shows.

Fields of the form: ``unit`` (repeated: the acting units), ``target``, ``procedure``,
``p.NAME`` (the procedure's parameters), ``dice``, ``expect`` (the state counter the
form was drawn from), ``_for`` (the choice the fields were filled for) and ``_filled``
(the parameters filled from units then).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from warroom.engine.messages import Translator, nmsg
from warroom.errors import TooFewDiceError, UsageError

if TYPE_CHECKING:
    from warroom.battle.core import Battles
    from warroom.battle.state import State
    from warroom.engine.procedure import Procedure
    from warroom.web.pages import FieldForm, Form, OddsView

PREFIX = "p."
"""Prefix of the parameter fields (``p.dice``): a procedure's parameter may be called
``target`` too, which is also the battle's key for the target unit."""

@dataclass
class Choice:
    """What the player picked: acting units, target, procedure, and the units supporting
    the target (for a procedure that takes them: :data:`warroom.units.SUPPORTED`)."""

    units: list[str]
    target: str
    procedure: str
    support: list[str] = field(default_factory=list)

    @property
    def key(self) -> str:
        return "|".join([self.procedure, ",".join(self.units), self.target,
                         *([",".join(self.support)] if self.support else [])])

    def keys(self) -> dict[str, Any]:
        """The battle's keys for the acting units, the target and its supporters."""
        keys: dict[str, Any] = {}
        if len(self.units) == 1:
            keys["unit"] = self.units[0]
        elif self.units:
            keys["units"] = list(self.units)
        if self.target:
            keys["target"] = self.target
        if self.support:
            keys["support"] = list(self.support)
        return keys


def read_choice(form: Form) -> Choice:
    def picked(name: str) -> list[str]:
        return list(dict.fromkeys(str(u).strip() for u in form.getlist(name)
                                  if str(u).strip()))

    return Choice(picked("unit"), str(form.get("target") or "").strip(),
                  str(form.get("procedure") or "").strip(), picked("support"))


def applies(proc: Procedure, actors: int, has_target: bool) -> bool:
    """Whether ``proc`` fits ``actors`` acting units and a target (or none).

    The procedures that build their parameters from unit profiles say what they need
    (:data:`warroom.units.NEEDS`), and with a target picked only those acting on a target
    fit; any other procedure takes one unit at most, and a test (an outcome ``passed``)
    is about the acting unit, never the other side's."""
    from warroom.units import NEEDS, SEVERAL

    if actors > 1 and proc.id not in SEVERAL:
        return False
    if proc.id in NEEDS:
        need_actor, need_target = NEEDS[proc.id]
        if not (actors > 0 or not need_actor) or not (has_target or not need_target):
            return False
        return need_target or not has_target  # a target picked: one it acts on
    return not (has_target and "passed" in proc.fields)


def procedures_for(bt: Battles, game: str, actors: int, has_target: bool
                   ) -> list[Procedure]:
    """The battle game's procedures that fit the units picked; those built from units
    first."""
    from warroom.units import NEEDS

    try:
        procs = list(bt.registry.system(game).procedures)
    except UsageError:
        return []
    fit = [p for p in procs if applies(p, actors, has_target)]
    return [p for p in fit if p.id in NEEDS] + [p for p in fit if p.id not in NEEDS]


def unit_values(bt: Battles, st: State, proc: Procedure, choice: Choice,
                side: str | None) -> tuple[dict[str, Any], dict[str, str]]:
    """The parameters the units give, and where each came from (``Unit.stat``, or the
    profile field): the battle's own fill (:meth:`Battles.prepare`), so the odds shown
    are those of what Roll records, with one acting unit or several."""
    prepared = bt.prepare(st.id, proc.id, choice.keys(), by=side)
    filled: dict[str, str] = prepared["filled"]
    params = prepared["params"]
    return {k: params[k] for k in filled if k in params}, filled


def record(bt: Battles, battle_id: str, proc_id: str, choice: Choice,
           params: Mapping[str, Any], dice: Sequence[object] | None, *,
           expect: int | None, by: str) -> dict[str, Any]:
    """The one call the Resolve form makes to record a resolution: one acting unit
    (``unit=NAME``) or several in one step (``units=[...]``), the target and its
    supporters."""
    raw = {**params, **choice.keys()}
    return bt.do(battle_id, proc_id, raw, dice, expect=expect, by=by)


def _text(value: Any) -> str:
    """A value as the form shows it, for comparing a typed value with a filled one."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(str(v).strip() for v in value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return "" if value is None else str(value).strip()


def explicit(proc: Procedure, typed: Mapping[str, Any], filled: Mapping[str, Any]
             ) -> dict[str, Any]:
    """The typed parameters that differ from what the units (or the defaults) give:
    the others are left to the battle to fill, so its log says where they came from."""
    from warroom.engine.params import describe

    defaults = {s.name: s.to_dict()["default"] for s in describe(proc.params)}
    return {k: v for k, v in typed.items()
            if _text(v).lower() != _text(filled.get(k, defaults.get(k))).lower()}


def dice_next(proc: Procedure, params: Any, dice_text: str, tr: Translator) -> str:
    """What the typed dice still need: "next: 3 more dice for to hit", all in, or what
    is wrong with them. Worked out by rolling with the typed dice (the roll driver)."""
    from warroom.dice.sources import parse_dice
    from warroom.engine import drivers
    from warroom.errors import error_message

    try:
        dice = parse_dice(dice_text)
        drivers.roll(proc, params, dice=dice)
    except TooFewDiceError as exc:
        what = exc.text.args.get("what", exc.what)
        return nmsg("Next: {n} more die for {what}", "Next: {n} more dice for {what}",
                    n=exc.missing, what=what).render(tr)
    except UsageError as exc:
        return error_message(exc, tr)
    if not dice:
        return tr("This procedure rolls no dice.")
    return nmsg("All {n} die entered: press Roll to record the result.",
                "All {n} dice entered: press Roll to record the result.",
                n=len(dice)).render(tr)


@dataclass
class ResolveView:
    """What the Resolve form shows."""

    mine: list[str]
    theirs: list[str]
    choice: Choice
    procedures: list[tuple[str, str]]
    proc: Procedure | None = None
    fields: list[FieldForm] = field(default_factory=list)
    filled: dict[str, str] = field(default_factory=dict)
    raw: dict[str, Any] = field(default_factory=dict)
    more: list[FieldForm] = field(default_factory=list)
    """The rarely used fields, folded under "More" (:func:`fold_rare`)."""
    odds: OddsView | None = None
    dice_text: str = ""
    dice_next: str = ""
    expect: int = 0
    problem: str = ""
    odds_url: str = ""
    supporters: list[str] = field(default_factory=list)
    """The units that may support the target (the procedure takes supporters)."""

    @property
    def sources(self) -> list[tuple[str, str]]:
        return sorted(self.filled.items())


def build(request: Any, bt: Battles, st: State, side: str | None, form: Form, counter: int,
          base: str, *, keep: bool = False, expect: int | None = None,
          tr: Translator | None = None) -> ResolveView:
    """The form for ``form``'s choice on the battle ``st`` (seen at ``counter``; the
    battle page's address is ``base``).

    Values the player typed for this procedure are kept, except those the units filled
    (they are filled again from the units as they are now); with ``keep`` (working out
    odds or dice for the form as it is, or a refused write) every typed value is kept
    (:func:`typed_values`)."""
    from urllib.parse import urlencode

    from warroom import api
    from warroom.units import SUPPORTED
    from warroom.web.pages import cached_view, form_fields, raw_params

    tr = tr or (lambda s: s)
    # a unit out of action neither acts nor is a target (the battle refuses it)
    mine = [u.name for u in st.units.values()
            if side is not None and u.side == side and not u.out_of_action]
    theirs = [u.name for u in st.units.values()
              if side is not None and u.side != side and not u.out_of_action]
    choice = read_choice(form)
    choice.units = [u for u in choice.units if u in mine]
    if choice.target not in theirs:
        choice.target = ""
    choice.support = [u for u in choice.support if u in theirs and u != choice.target]
    procs = procedures_for(bt, st.game, len(choice.units), bool(choice.target))
    view = ResolveView(mine, theirs, choice, [(p.id, tr(p.title)) for p in procs],
                       dice_text=str(form.get("dice") or "").strip(),
                       expect=counter if expect is None else expect)
    if not procs:
        view.problem = tr("No procedure of this game fits these units: pick others.")
        return view
    proc = next((p for p in procs if p.id == choice.procedure), procs[0])
    choice.procedure = proc.id
    view.proc = proc
    if proc.id not in SUPPORTED or not choice.target:
        choice.support = []
    else:  # the target's own side's other units may support it
        owner = st.unit(choice.target).side
        view.supporters = [u.name for u in st.units.values() if u.side == owner
                           and u.name != choice.target and not u.out_of_action]
        choice.support = [u for u in choice.support if u in view.supporters]
    try:
        values, filled = unit_values(bt, st, proc, choice, side)
    except UsageError as exc:  # units the procedure cannot take: say why, on the form
        from warroom.errors import error_message

        view.problem = error_message(exc, tr)
        return view
    specs = api.param_specs(proc)
    fields_for = str(form.get("_for") or "").partition("|")[0]
    typed = typed_values(proc, form, choice, raw_params(specs, form, PREFIX)
                         if fields_for == proc.id else {}, keep=keep)
    # only what differs from the units (or the defaults) is the player's own
    typed = explicit(proc, typed, values)
    raw = {**values, **typed}
    view.raw = raw
    view.filled = {k: v for k, v in filled.items() if k not in typed}
    view.odds_url = f"{base}/resolve/odds?" + urlencode(
        [*choice_query(view), *typed_query(typed)])
    odds, shown = cached_view(request, proc, raw, tr, view.odds_url + "&_wait=1")
    view.odds = odds
    view.fields, view.more = fold_rare(form_fields(specs, shown, tr, PREFIX, proc.id),
                                       view.filled)
    if not odds.error:
        _, params = api.prepare(proc.id, raw, bt.registry)
        view.dice_next = dice_next(proc, params, view.dice_text, tr)
    return view


def typed_values(proc: Procedure, form: Form, choice: Choice, typed: dict[str, Any], *,
                 keep: bool) -> dict[str, Any]:
    """What the player typed on ``form`` (``typed``: its parameter fields) for
    ``choice``. With ``keep`` (the form as it is: its odds, its dice, a Roll) every value,
    unless the form was filled for other units (its ``_for`` is another choice: a Roll
    tapped before a new pick's form came back). Otherwise (a new form for these units)
    what the units filled last time (``_filled``) is left out, to be filled again from
    the units as they are now, and so is a value left at its default."""
    if keep and str(form.get("_for") or "") == choice.key:
        return typed
    old = set(str(form.get("_filled") or "").split(","))
    return explicit(proc, {k: v for k, v in typed.items() if k not in old}, {})


def fold_rare(fields: Sequence[FieldForm], filled: Mapping[str, str]
              ) -> tuple[list[FieldForm], list[FieldForm]]:
    """The fields shown at once and those folded under "More". A field is rare when it
    keeps its default, the units did not fill it, and either the units filled others
    (they carry the step: what is left is the situation's exceptions) or it is a
    switch or a list (a situational yes/no, special rules), which the default answers
    for most steps. A field with a value of its own is never folded; nor is anything
    when no field would be left in sight."""
    def rare(f: FieldForm) -> bool:
        name = f.spec.name
        default = f.spec.to_dict()["default"]
        if name in filled or _text(f.value).lower() != _text(default).lower():
            return False
        return bool(filled) or f.widget in ("checkbox", "checkboxes")

    shown = [f for f in fields if not rare(f)]
    if not shown:
        return list(fields), []
    return shown, [f for f in fields if rare(f)]


def choice_query(view: ResolveView) -> list[tuple[str, str]]:
    """The choice as query items (for the odds panel's address)."""
    items = [("unit", u) for u in view.choice.units]
    items += [("target", view.choice.target), ("procedure", view.choice.procedure),
              *(("support", u) for u in view.choice.support),
              ("_for", view.choice.key), ("_filled", ",".join(view.filled))]
    return items


def typed_query(typed: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Typed parameters as the form's query items (``p.NAME``)."""
    items = [(f"{PREFIX}_sent", "1")]
    for name, value in typed.items():
        values = value if isinstance(value, (list, tuple)) else [value]
        items += [(PREFIX + name, _text(v)) for v in values]
    return items
