"""Rich rendering for the CLI: tables, small bar charts and the story of a roll."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from rich.cells import cell_len
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from warroom import i18n
from warroom.engine.messages import nmsg
from warroom.engine.results import Distribution, Estimate, Resolution, cell, columns
from warroom.engine.steps import says_target, target_label
from warroom.i18n.formats import (
    fmt_count,
    fmt_number,
    fmt_pct,
    fmt_sources,
    fmt_unit,
    fmt_value,
)

Tr = Callable[[str], str]


def pgettext_lazy(context: str, text: str) -> tuple[str, str]:
    """A message with its context, as ``pybabel extract`` finds it (translated where
    shown)."""
    return context, text

MAX_ROWS = 40
BAR_WIDTH = 28


def bar(p: float, width: int = BAR_WIDTH) -> str:
    """A horizontal bar of eighth-blocks for a probability."""
    cells = p * width
    full = int(cells)
    rest = int((cells - full) * 8)
    return "█" * full + ("" if rest == 0 else " ▏▎▍▌▋▊▉"[rest])


def field_label(tr: Tr, name: str, scope: str) -> str:
    """A parameter or outcome field as people read it: its catalogued label in the active
    language (procedure, game, then bare id; see :func:`warroom.i18n.label`), else the
    name itself, so English output shows names as they are typed and given in JSON."""
    if any(tr(key) != key for key in i18n.label_keys(name, scope)):
        return i18n.label(tr, name, scope)
    return name


def _named(tr: Tr, name: str, scope: str) -> str:
    """``name`` followed by its label when a language other than English labels it."""
    shown = field_label(tr, name, scope)
    return name if shown == name else f"{name} ({shown})"


def _cell(v: Any, tr: Tr) -> str:
    """An outcome value in the active language, as the web page shows it: yes/no and
    named results translated, numbers as they are."""
    return fmt_value(v, tr)


def shown(procedure: str, params: Mapping[str, Any], fields: Sequence[str]) -> list[str]:
    """``fields`` less those certainly 0 for these parameters (an outcome field declared
    ``shown_if`` a parameter that is 0 or false, e.g. fow.shoot's passenger fields
    without passengers): summaries for people leave them out."""
    from warroom import api
    from warroom.engine.procedure import shown_fields
    from warroom.errors import UsageError

    try:
        proc = api.registry().procedure(procedure)
    except UsageError:  # a procedure of no registered game: show everything
        return list(fields)
    keep = set(shown_fields(proc.outcome, params))
    return [f for f in fields if f in keep]


class LogLine:
    """A recorded resolution as a log line shows it to players (the page and ``battle
    log`` alike): the rule's title, who acted on whom and the result's parts that
    matter (:func:`result_parts`)."""

    __slots__ = ("result", "title", "who")

    def __init__(self, title: str, who: str, result: list[str]) -> None:
        self.title = title
        self.who = who
        self.result = result

    def text(self) -> str:
        who = f" {self.who}" if self.who else ""
        return f"{self.title}{who}: {', '.join(self.result)}"


def log_line(tr: Tr, procedure: str, params: Mapping[str, Any], outcome: Mapping[str, Any],
             actors: Sequence[str], target: str | None) -> LogLine:
    """A resolution as players read it in the log: the rule by its title in ``tr``'s
    language (its id when no registered game has it, as in a log imported from
    elsewhere), every acting unit and the target, and :func:`result_parts`."""
    from warroom import api
    from warroom.errors import UsageError

    try:
        title = tr(api.registry().procedure(procedure).title)
    except UsageError:
        title = procedure
    who = " + ".join(actors)
    if target:
        who = f"{who} → {target}" if who else f"→ {target}"
    return LogLine(title, who, result_parts(tr, procedure, params, outcome))


def result_parts(tr: Tr, procedure: str, params: Mapping[str, Any],
                 outcome: Mapping[str, Any]) -> list[str]:
    """The fields of a recorded result that matter, in their declared order, each as
    ``label: value``: the rule's first field always (a miss reads "hits: 0"), the others
    only when something happened (a count above 0, a yes, a value other than "-"); a
    yes alone by its label ("pinned"); a field listing units (an ASL stack's
    ``squad1=broken,squad2=ok``) as the units affected ("squad 1: broken"). Fields
    certainly 0 for these parameters (:func:`shown`) and those repeating another
    (``unit1`` ... ``unit10``) never show."""
    from warroom import api
    from warroom.engine.results import unit_pairs
    from warroom.errors import UsageError

    try:
        declared = [f.name for f in api.registry().procedure(procedure).outcome]
    except UsageError:  # a procedure of no registered game: its fields as recorded
        declared = list(outcome)
    names = [n for n in shown(procedure, params, declared) if n in outcome]
    parts: list[str] = []
    for i, name in enumerate(names):
        value = outcome[name]
        label = i18n.label(tr, name, procedure)
        pairs = unit_pairs(value)
        if pairs is not None:
            hit = [f"{fmt_unit(unit, tr)}: {'+'.join(tr(w) for w in state.split('+'))}"
                   for unit, state in pairs if state != "ok"]
            parts.extend(hit)
            if not hit and i == 0:
                parts.append(tr("no unit affected"))
            continue
        happened = value not in (0, False, None, "", "-")
        if not happened and i > 0:
            continue
        if value is True:
            parts.append(label)
        else:
            parts.append(f"{label}: {fmt_value(value, tr)}")
    return parts


def _active_tr() -> Tr:
    """The translator of the language the CLI runs in (--lang, else WARROOM_LANG), for
    callers that pass none."""
    cli = sys.modules.get("warroom.cli")
    state = getattr(cli, "_STATE", None)
    lang = state.get("lang") if isinstance(state, dict) else None
    return i18n.translator(lang if isinstance(lang, str) else i18n.from_env())


def _counted(tr: Tr, singular: str, plural: str, n: int) -> str:
    """The form of a counted message for ``n`` in ``tr``'s language (its catalog's plural
    forms); the template still holds ``{n}``, to be filled as the count is shown."""
    ngettext = getattr(tr, "ngettext", None)
    if ngettext is None:
        return singular if n == 1 else plural
    return str(ngettext(singular, plural, n))


def _params_line(params: Mapping[str, Any]) -> str:
    """Parameters as typed at the command line; unset values and empty lists are left
    out (never ``terrain=None``)."""
    parts = []
    for k, v in params.items():
        if v is None:
            continue
        if isinstance(v, (list, tuple)):
            if not v:
                continue
            v = ",".join(str(x) for x in v)
        parts.append(f"{k}={fmt_value(v)}")
    return " ".join(parts)


def render_rules(console: Console, data: Sequence[Mapping[str, Any]], tr: Tr, full: bool) -> None:
    for system in data:
        console.print(Text(f"{system['id']} — {tr(system['title'])}", style="bold"))
        if system.get("description"):
            _indented(console, tr(system["description"]), 2)
        for proc in system["procedures"]:
            console.print(Text(f"\n  {proc['id']}", style="bold cyan"),
                          Text(f" {tr(proc['title'])}"))
            _indented(console, tr(proc["summary"]), 4)
            if not full:
                continue
            # one block per parameter: its name, type, default and allowed values on one
            # line, what it means indented below (long values wrap, never cut short)
            for prm in proc["params"]:
                choices = prm.get("choices", [])
                if len(choices) > 12:
                    allowed = nmsg("any of {n} name (listed under Tables)",
                                   "any of {n} names (listed under Tables)",
                                   n=len(choices)).render(tr)
                else:
                    allowed = ", ".join(choices)
                if not allowed and ("minimum" in prm or "maximum" in prm):
                    lo = prm.get("minimum", "")
                    hi = prm.get("maximum", "")
                    allowed = f"{_n(lo)}..{_n(hi)}"
                value = prm["default"]
                default = (tr("(required)") if prm["required"] else tr("default {value}").format(
                    value=tr("none") if value in ([], (), None) else fmt_value(value)))
                facts = " · ".join(x for x in (_type_name(tr, prm["type"]), default, allowed)
                                   if x)
                head = Text("    ")
                head.append(_named(tr, prm["name"], proc["id"]), style="cyan")
                head.append(f"  {facts}", style="dim")
                console.print(head)
                _indented(console, tr(prm["description"]), 8)
            outs = ", ".join(_named(tr, f["name"], proc["id"]) for f in proc["outcome"])
            console.print(f"    [dim]{escape(tr('outcome:'))}[/dim] {escape(outs)}")
            if proc.get("note"):
                _indented(console, tr("note: {note}").format(note=tr(proc["note"])), 4)
            if proc.get("source"):
                _indented(console, tr("source: {source}").format(
                    source=fmt_sources(proc["source"], tr)), 4)
        if full and system.get("tables"):
            console.print(Text("\n  " + tr("Tables"), style="bold"))
            for name, value in system["tables"].items():
                console.print(f"  [cyan]{escape(tr(name))}[/cyan]")
                _render_table_value(console, value, indent="    ", tr=tr)
        console.print()


TYPE_NAMES = {
    "int": pgettext_lazy("parameter type", "int"),
    "bool": pgettext_lazy("parameter type", "bool"),
    "str": pgettext_lazy("parameter type", "str"),
    "choice": pgettext_lazy("parameter type", "choice"),
    "fraction": pgettext_lazy("parameter type", "fraction"),
    "list": pgettext_lazy("parameter type", "list"),
}
"""Each parameter type's name, a message in the context "parameter type"."""


def _type_name(tr: Tr, name: str) -> str:
    """A parameter's type (int, choice, fraction...) in ``tr``'s language."""
    pgettext = getattr(tr, "pgettext", None)
    if name not in TYPE_NAMES or pgettext is None:
        return name
    return str(pgettext(*TYPE_NAMES[name]))


def _indented(console: Console, text: str, indent: int) -> None:
    """Text wrapped to the console (by cell width, so Chinese wraps too), every line
    indented, with no trailing spaces."""
    pad = " " * indent
    for line in Text(text).wrap(console, max(20, console.width - indent - 1)):
        console.print(pad + line.plain.rstrip(), markup=False, highlight=False,
                      soft_wrap=True)


def _n(x: Any) -> str:
    if isinstance(x, float) and x.is_integer():
        return str(int(x))
    return str(x)


def _render_table_value(console: Console, value: Any, indent: str,
                        tr: Tr = i18n.translator("en")) -> None:
    """A reference table; its names and texts go through ``tr`` (a text without a
    translation, a number or a code, stays as it is)."""
    if isinstance(value, Mapping):
        for k, v in value.items():
            if isinstance(v, (Mapping, list)) and v and not _flat(v):
                console.print(f"{indent}{tr(str(k))}:")
                _render_table_value(console, v, indent + "  ", tr)
            else:
                console.print(f"{indent}{tr(str(k))}: {_inline(v, tr)}")
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, (Mapping, list)) and not _flat(item):
                _render_table_value(console, item, indent + "  ", tr)
                console.print()
            else:
                console.print(f"{indent}- {_inline(item, tr)}")
    else:
        console.print(f"{indent}{_inline(value, tr)}")


def _flat(v: Any) -> bool:
    if isinstance(v, Mapping):
        return all(not isinstance(x, (Mapping, list)) for x in v.values()) and len(v) <= 6
    if isinstance(v, list):
        return all(not isinstance(x, (Mapping, list)) for x in v) and len(v) <= 12
    return True


def _inline(v: Any, tr: Tr = i18n.translator("en")) -> str:
    if isinstance(v, Mapping):
        return ", ".join(f"{tr(str(k))}={_inline(x, tr)}" for k, x in v.items())
    if isinstance(v, list):
        return ", ".join(_inline(x, tr) for x in v)
    return tr(v) if isinstance(v, str) else fmt_value(v)


def render_parts(console: Console, dist: Distribution, tr: Tr) -> None:
    """Each field's (and each unit's) chances instead of thousands of whole outcomes."""
    total = len(dist.weights)
    console.print(_counted(tr, "{n} whole outcome: its chances below.", "{n} whole outcomes: "
                           "each field's chances below (--all lists them all).", total).format(
        n=fmt_count(total, tr, terminal=True)))
    keep = set(shown(dist.procedure, dist.params, dist.fields))
    for part, chances in dist.parts():
        field, _, unit = part.partition(": ")
        if field not in keep:
            continue
        title = field_label(tr, field, dist.procedure) + (
            f": {fmt_unit(unit, tr)}" if unit else "")
        table = Table(show_edge=False, show_header=False, box=None, title=title,
                      title_justify="left", title_style="bold")
        table.add_column()
        table.add_column(justify="right")
        table.add_column()
        for v, p in chances.items():
            table.add_row(_cell(v, tr), fmt_pct(float(p)), Text(bar(float(p)), style="green"))
        console.print(table)


def render_odds(console: Console, dist: Distribution, exact: bool = False,
                tr: Tr | None = None, full: bool = False) -> None:
    """The odds table, then "at least N" for numeric fields and shares of the others.
    Outcome fields are shown by their labels in the active language (``tr``, else the
    CLI's). More than :data:`MAX_ROWS` whole outcomes are summarised per field and unit
    unless ``full``."""
    tr = tr or _active_tr()

    def name(field: str) -> str:
        return field_label(tr, field, dist.procedure)

    console.print(Text(dist.procedure, style="bold"), Text(_params_line(dist.params), style="dim"))
    if len(dist.weights) > MAX_ROWS and not full:
        render_parts(console, dist, tr)
        return
    rows = list(dist.items())
    fields = shown(dist.procedure, dist.params, dist.fields)
    cols = columns(dist, fields)
    heads = [fmt_unit(unit, tr) if unit else name(f) for f, unit in cols]
    heads.append(tr("chance"))
    if exact:
        heads.append(tr("exact"))
    lines: list[Sequence[str]] = []
    for outcome, p in rows:
        cells = [_cell(cell(outcome, c), tr) for c in cols]
        cells.append(fmt_pct(p, tr))
        if exact:
            cells.append(f"{p.numerator}/{p.denominator}")
        lines.append(cells)
    _print_with_bars(console, heads, len(cols), lines, [float(p) for _, p in rows], tr)
    for field in dist.numeric_fields():
        if field not in fields:
            continue
        marg = dist.at_least(field)
        if len(marg) <= 1:
            continue
        console.print(Text(f"\n{name(field)}: {tr('at least')} N", style="bold"),
                      Text(f"  ({tr('average')} {fmt_number(float(dist.mean(field)), tr)})",
                           style="dim"))
        t = Table(show_edge=False, show_header=False, box=None)
        t.add_column(justify="right")
        t.add_column(justify="right")
        t.add_column()
        for v, p in marg.items():
            if v == min(marg):
                continue
            t.add_row(f"≥ {v}", fmt_pct(p, tr), Text(bar(float(p)), style="cyan"))
        console.print(t)
    if len(dist.fields) <= 1:
        return
    numeric = set(dist.numeric_fields())
    for part, marg in dist.parts():
        field, _, unit = part.partition(": ")
        if field in numeric or field not in fields or len(marg) <= 1:
            continue
        # a field listing units: one line per unit (squad1: broken 42%, eliminated 58%)
        title = fmt_unit(unit, tr) if unit else name(field)
        parts = ", ".join(f"{_cell(v, tr)} {fmt_pct(p, tr)}" for v, p in marg.items())
        console.print(f"[bold]{escape(title)}[/bold]: {escape(parts)}")


def _print_with_bars(console: Console, heads: Sequence[str], left: int,
                     lines: Sequence[Sequence[str]], chances: Sequence[float],
                     tr: Tr) -> None:
    """A table of ``heads`` (the first ``left`` columns, the outcome's, left-aligned; the
    chances right) with a bar per line, the bars as wide as the console leaves room for
    (at most :data:`BAR_WIDTH`): the words are not cut short on an 80-column terminal.
    An outcome column with one value in every line is said once above the table."""
    same = [j for j in range(left)
            if len(lines) > 1 and all(line[j] == lines[0][j] for line in lines)]
    if same and len(same) < left:
        console.print(tr("in every outcome: {fields}").format(
            fields=", ".join(f"{heads[j]} = {lines[0][j]}" for j in same)),
            markup=False, highlight=False)
        keep = [j for j in range(len(heads)) if j not in same]
        heads = [heads[j] for j in keep]
        lines = [[line[j] for j in keep] for line in lines]
        left -= len(same)

    def table(bars: int) -> Table:
        t = Table(show_edge=False, header_style="bold")
        for n, head in enumerate(heads):
            t.add_column(head, justify="left" if n < left else "right")
        if bars:
            t.add_column("")
        for cells, p in zip(lines, chances, strict=True):
            t.add_row(*cells, *([Text(bar(p, bars), style="green")] if bars else []))
        return t

    # each column is its widest cell plus a space either side, with a rule between
    widths = [max([cell_len(head), *(cell_len(line[j]) for line in lines)])
              for j, head in enumerate(heads)]
    room = console.width - (sum(widths) + 3 * len(widths) - 1) - 3
    console.print(table(min(BAR_WIDTH, room) if room >= 4 else 0))


def render_roll(console: Console, res: Resolution, tr: Tr) -> None:
    data = res.to_json(tr)
    console.print(Text(res.procedure, style="bold"), Text(_params_line(res.params), style="dim"))
    for n, step in enumerate(data["steps"], start=1):
        line = Text(f"{n:>2}. ", style="dim")
        line.append(step["text"])
        label = target_label(step)
        if label is not None:
            if says_target(step):
                # the text already says "needing 3+": only say where the number comes from
                if step["base_reason"]:
                    line.append(f"   [{step['base_reason']}]", style="yellow")
            else:
                line.append(f"   [{tr('target number')} {label}", style="yellow")
                if step["base_reason"] and (step["modifiers"]
                                            or step["base"] != step["target"]):
                    line.append(f": {step['base']} {step['base_reason']}", style="yellow")
                for m in step["modifiers"]:
                    line.append(f", {m['value']:+d} {m['reason']}", style="yellow")
                line.append("]", style="yellow")
        console.print(line)
        if step["dice"]:
            dice = " ".join(str(d) for d in step["dice"])
            extra = ""
            if step["rerolled"]:
                extra = f"  {tr('re-rolled')}: " + " ".join(str(d) for d in step["rerolled"])
            console.print(f"      🎲 {dice}{extra}")
        if step["result"]:
            console.print(Text(f"      → {step['result']}", style="green"))
    console.print(Text(tr("Outcome") + ": ", style="bold"),
                  Text(", ".join(f"{field_label(tr, k, res.procedure)} = {_cell(v, tr)}"
                                 for k, v in res.outcome.items()
                                 if k in shown(res.procedure, res.params, [k]))))
    if res.seed is not None:
        dice = ",".join(str(d) for d in res.dice)
        again = (tr("seed {seed}; replay with --seed {seed} or --dice {dice}") if dice
                 else tr("seed {seed}; replay with --seed {seed}"))
        console.print(Text(again.format(seed=res.seed, dice=dice), style="dim"))


def render_estimate(console: Console, est: Estimate, tr: Tr | None = None,
                    standing_in: bool = False, full: bool = True) -> None:
    """The Monte Carlo table and averages, outcome fields by their labels (``tr``, else
    the CLI's language). ``standing_in``: the estimate answers a question too large for
    exact odds, and says so. Without ``full``, more than :data:`MAX_ROWS` outcomes are
    summarised per field and unit."""
    tr = tr or _active_tr()
    console.print(Text(est.procedure, style="bold"), Text(_params_line(est.params), style="dim"))
    if standing_in:
        console.print(Text(tr("Estimated odds: exact odds would take too long for these "
                              "numbers. Counted from {n} simulated rolls, each chance may be "
                              "off by up to about {m} percentage points.").format(
            n=fmt_count(est.samples, tr, terminal=True), m=fmt_number(est.margin * 100, tr, 1)),
            style="yellow"))
    rate = round(est.samples / max(est.seconds, 1e-9))
    console.print(Text(_counted(tr, "{n} sample, seed {seed}, {seconds} s ({rate}/s)",
                               "{n} samples, seed {seed}, {seconds} s ({rate}/s)",
                               est.samples).format(
        n=fmt_count(est.samples, tr, terminal=True), seed=est.seed,
        seconds=fmt_number(est.seconds, tr), rate=fmt_count(rate, tr, terminal=True)),
        style="dim"))
    if len(est.counts) > MAX_ROWS and not full:
        render_parts(console, est.as_distribution(), tr)
        return
    data = est.to_json()  # every outcome: only for the whole list
    fields = shown(est.procedure, est.params, est.fields)
    cols = columns(est.as_distribution(), fields)
    heads = [fmt_unit(unit, tr) if unit else field_label(tr, f, est.procedure)
             for f, unit in cols]
    heads += [tr("estimate"), tr("95% interval")]
    rows = data["outcomes"]
    if len(rows) > MAX_ROWS:
        rows = sorted(rows, key=lambda r: -r["p"])[:MAX_ROWS]
    lines = []
    for row in rows:
        lo, hi = row["ci95"]
        lines.append([*[_cell(cell(row["outcome"], c), tr) for c in cols],
                      fmt_pct(row["p"], tr), f"{fmt_pct(lo, tr)}–{fmt_pct(hi, tr)}"])
    _print_with_bars(console, heads, len(cols), lines, [row["p"] for row in rows], tr)
    for name, m in data["means"].items():
        if name not in fields:
            continue
        console.print(f"[bold]{escape(field_label(tr, name, est.procedure))}[/bold] "
                      f"{tr('average')} {fmt_number(m['mean'], tr, 3)} "
                      f"(95%: {fmt_number(m['ci95'][0], tr, 3)}–"
                      f"{fmt_number(m['ci95'][1], tr, 3)})")
