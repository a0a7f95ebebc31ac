"""A recorded resolution as players read it in the log, on the page and in ``battle
log`` alike: the rule's title in the reader's language, every acting unit and the
target, and only the parts of the result that matter (a miss, what happened; an ASL
stack's affected units, never ``unit1`` ... ``unit10``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from warroom import i18n
from warroom.engine.registry import registry, shown
from warroom.engine.results import unit_pairs
from warroom.errors import UsageError
from warroom.i18n.formats import Tr, fmt_unit, fmt_value


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
    try:
        title = tr(registry().procedure(procedure).title)
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
    try:
        declared = [f.name for f in registry().procedure(procedure).outcome]
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
