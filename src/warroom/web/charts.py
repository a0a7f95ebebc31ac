"""Server-rendered charts and tables of an exact distribution (no JavaScript needed)."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from html import escape
from typing import Any

from markupsafe import Markup

from warroom.engine.results import Distribution
from warroom.i18n.formats import fmt_pct, fmt_value

__all__ = ["bar_chart", "fmt_pct", "fmt_value", "joint_rows", "views"]

MAX_BARS = 60
CHAR = 5.6
"""About how wide a character of a chart's 10-unit labels is, in its units."""
JOINT_ROWS = 40
"""Whole outcomes a page lists (the most likely) unless all are asked for."""


def _exact(q: Fraction | None) -> str:
    q = q if q is not None else Fraction(0)
    return f"{q.numerator}/{q.denominator}"


@dataclass(frozen=True)
class Row:
    """One value of an outcome field with its exact chance, and for numbers and ordered
    results the chance of "at least" and "at most" that value."""

    value: Any
    p: Fraction
    at_least: Fraction | None = None
    at_most: Fraction | None = None

    @property
    def exact(self) -> str:
        return _exact(self.p)

    @property
    def at_least_exact(self) -> str:
        return _exact(self.at_least)

    @property
    def at_most_exact(self) -> str:
        return _exact(self.at_most)


@dataclass(frozen=True)
class FieldView:
    """Everything the page shows about one outcome field."""

    name: str
    numeric: bool
    rows: tuple[Row, ...]
    mean: Fraction | None
    ordered: bool = False
    """Text results in a declared order, most severe first (an ASL IFT result from KIA
    to '-'): "at least MC" is MC or anything listed before it."""

    @property
    def cumulative(self) -> bool:
        """Whether the rows have "at least" and "at most" chances."""
        return self.numeric or self.ordered

    @property
    def chart_rows(self) -> tuple[Row, ...]:
        return trim(self.rows)

    @property
    def summary(self) -> list[tuple[str, Any, Fraction]]:
        """What the compact bar on a phone shows of this field: for a count, the chance
        of at least one (or of its smallest value above 0); for yes/no, the chance of
        yes; otherwise the two likeliest results. Each item is (kind, value, chance),
        kind being "at least" or "" (exactly)."""
        if self.numeric:
            key = next((r for r in self.rows if r.value > 0 and r.at_least is not None),
                       None)
            return [("at least", key.value, key.at_least)] if key and key.at_least else []
        values = {r.value for r in self.rows}
        if values <= {True, False}:
            return [("", True, next((r.p for r in self.rows if r.value is True),
                                    Fraction(0)))]
        likeliest = sorted(self.rows, key=lambda r: -r.p)[:2]
        return [("", r.value, r.p) for r in likeliest]


def short_pct(p: Fraction | float) -> str:
    """A chance in at most four characters, for a label above a bar: 74%, 2.8%, <1%."""
    x = float(p) * 100
    if x == 0:
        return "0"
    if x < 0.95:
        return "<1%" if x < 0.5 else "1%"
    return f"{x:.1f}%" if x < 9.95 else f"{x:.0f}%"


def _running(chances: Sequence[Fraction]) -> list[Fraction]:
    """The running totals of ``chances`` (the first, the first two, ...)."""
    out, total = [], Fraction(0)
    for p in chances:
        total += p
        out.append(total)
    return out


def views(dist: Distribution) -> list[FieldView]:
    """One view per outcome field, or per unit of a field listing units (see
    :meth:`Distribution.parts`): its chances, with "at least" and "at most" for numbers
    and for text results in a declared order (most severe first), and the mean for
    numbers."""
    orders = {name: dist.orders[i] for i, name in enumerate(dist.fields)
              if i < len(dist.orders)}
    out = []
    for name, marg in dist.parts():
        values, chances = list(marg), list(marg.values())
        if values and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            at_most = _running(chances)
            at_least = _running(chances[::-1])[::-1]
            rows = tuple(Row(v, chances[j], at_least[j], at_most[j])
                         for j, v in enumerate(values))
            mean = sum((Fraction(v) * p for v, p in marg.items()), Fraction(0))
            out.append(FieldView(name, True, rows, mean))
        elif orders.get(name) is not None:
            # listed most severe first: "at least" a result is it or one listed before
            down = _running(chances)
            up = _running(chances[::-1])[::-1]
            rows = tuple(Row(v, chances[j], down[j], up[j]) for j, v in enumerate(values))
            out.append(FieldView(name, False, rows, None, ordered=True))
        else:
            out.append(FieldView(name, False, tuple(Row(v, p) for v, p in marg.items()),
                                 None))
    return out


def joint_rows(dist: Distribution, limit: int = JOINT_ROWS
               ) -> list[tuple[dict[str, Any], Fraction]]:
    """The most likely whole outcomes (when there is more than one field), in order."""
    return dist.likeliest(limit)


def trim(rows: Sequence[Row], limit: int = MAX_BARS) -> tuple[Row, ...]:
    """At most ``limit`` bars: drop the rarest values from both ends of the range."""
    lo, hi = 0, len(rows)
    while hi - lo > limit:
        if rows[lo].p <= rows[hi - 1].p:
            lo += 1
        else:
            hi -= 1
    return tuple(rows[lo:hi])


def _cells(text: str) -> int:
    """How many narrow characters ``text`` is as wide as (a Chinese character: two)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def bar_chart(rows: Sequence[Row], label: str = "", tr: Callable[[str], str] | None = None,
              height: int = 140, exact: bool = True) -> Markup:
    """A vertical bar chart in SVG; hovering a bar shows its chance, and its exact
    fraction unless the chances are estimates (``exact=False``)."""
    n = max(len(rows), 1)
    slot = 28 if n <= 12 else max(8, 336 // n)
    width = slot * n
    labels = slot >= 28  # room for a chance above each bar (up to 12 bars)
    top = max((float(r.p) for r in rows), default=0.0) or 1.0
    plot = height - 30
    # names longer than a bar is wide (an ASL unit's "eliminated", "reduced+broken")
    # are tilted under their bars instead of running into each other
    longest = max((_cells(fmt_value(r.value, tr)[:10]) for r in rows), default=0)
    tilt = longest * CHAR > slot - 2
    drop = round(longest * CHAR * 0.6) if tilt else 0  # sin 35 degrees, about
    pad = round(longest * CHAR * 0.82) if tilt else 0  # cos 35 degrees, about
    parts = [
        f'<svg class="chart" viewBox="{-pad} 0 {width + pad} {height + drop}" role="img" '
        f'preserveAspectRatio="xMidYMid meet" aria-label="{escape(label)}">'
    ]
    step = max(1, n // 15)
    for i, row in enumerate(rows):
        h = float(row.p) / top * plot
        x = i * slot
        value = escape(fmt_value(row.value, tr))
        tip = f"{value}: {fmt_pct(row.p, tr)}" + (f" = {row.exact}" if exact else "")
        fraction = f' data-exact="{row.exact}"' if exact else ""
        parts.append(
            f'<g class="bar"><title>{tip}</title>'
            f'<rect x="{x + 2}" y="{plot - h + 14:.2f}" width="{slot - 4}" height="{h:.2f}"'
            f'{fraction}></rect>'
        )
        if labels:
            parts.append(f'<text class="pct" x="{x + slot / 2:.1f}" y="{plot - h + 11:.2f}" '
                         f'text-anchor="middle">{short_pct(row.p)}</text>')
        if i % step == 0 and tilt:
            cx, cy = x + slot / 2 + 4, height - 10
            parts.append(f'<text x="{cx:.1f}" y="{cy}" text-anchor="end" '
                         f'transform="rotate(-35 {cx:.1f} {cy})">{value[:10]}</text>')
        elif i % step == 0:
            parts.append(f'<text x="{x + slot / 2:.1f}" y="{height - 3}" '
                         f'text-anchor="middle">{value[:10]}</text>')
        parts.append("</g>")
    parts.append(f'<line x1="0" y1="{plot + 14}" x2="{width}" y2="{plot + 14}" '
                 f'class="axis"></line></svg>')
    return Markup("".join(parts))
