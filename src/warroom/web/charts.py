"""Server-rendered charts and tables of an exact distribution (no JavaScript needed)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from html import escape
from typing import Any

from markupsafe import Markup

from warroom.engine.results import Distribution

MAX_BARS = 60
JOINT_ROWS = 40
"""Whole outcomes a page lists (the most likely) unless all are asked for."""


@dataclass(frozen=True)
class Row:
    """One value of an outcome field with its exact chance (and "at least" chance)."""

    value: Any
    p: Fraction
    at_least: Fraction | None = None

    @property
    def exact(self) -> str:
        return f"{self.p.numerator}/{self.p.denominator}"

    @property
    def at_least_exact(self) -> str:
        q = self.at_least if self.at_least is not None else Fraction(0)
        return f"{q.numerator}/{q.denominator}"


@dataclass(frozen=True)
class FieldView:
    """Everything the page shows about one outcome field."""

    name: str
    numeric: bool
    rows: tuple[Row, ...]
    mean: Fraction | None

    @property
    def chart_rows(self) -> tuple[Row, ...]:
        return trim(self.rows)


def fmt_pct(p: Fraction | float) -> str:
    x = float(p)
    if x == 0:
        return "0%"
    if x < 0.0001:
        return "<0.01%"
    return f"{x * 100:.2f}%"


def fmt_value(v: Any, tr: Callable[[str], str] | None = None) -> str:
    if isinstance(v, bool):
        word = "yes" if v else "no"
        return tr(word) if tr else word
    if isinstance(v, str) and tr is not None:
        return tr(v)
    return str(v)


def views(dist: Distribution) -> list[FieldView]:
    """One view per outcome field, or per unit of a field listing units (see
    :meth:`Distribution.parts`): its chances, and "at least N" and the mean for numbers."""
    out = []
    for name, chances in dist.parts():
        if chances and all(isinstance(v, int) and not isinstance(v, bool) for v in chances):
            running = Fraction(1)
            rows = []
            for v, p in chances.items():
                rows.append(Row(v, p, running))
                running -= p
            mean = sum((Fraction(v) * p for v, p in chances.items()), Fraction(0))
            out.append(FieldView(name, True, tuple(rows), mean))
        else:
            out.append(FieldView(name, False, tuple(Row(v, p) for v, p in chances.items()),
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


def bar_chart(rows: Sequence[Row], label: str = "", tr: Callable[[str], str] | None = None,
              height: int = 140, exact: bool = True) -> Markup:
    """A vertical bar chart in SVG; hovering a bar shows its chance, and its exact
    fraction unless the chances are estimates (``exact=False``)."""
    n = max(len(rows), 1)
    slot = 28 if n <= 12 else max(8, 336 // n)
    width = slot * n
    top = max((float(r.p) for r in rows), default=0.0) or 1.0
    plot = height - 30
    parts = [
        f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" '
        f'preserveAspectRatio="xMidYMid meet" aria-label="{escape(label)}">'
    ]
    step = max(1, n // 15)
    for i, row in enumerate(rows):
        h = float(row.p) / top * plot
        x = i * slot
        value = escape(fmt_value(row.value, tr))
        tip = f"{value}: {fmt_pct(row.p)}" + (f" = {row.exact}" if exact else "")
        fraction = f' data-exact="{row.exact}"' if exact else ""
        parts.append(
            f'<g class="bar"><title>{tip}</title>'
            f'<rect x="{x + 2}" y="{plot - h + 14:.2f}" width="{slot - 4}" height="{h:.2f}"'
            f'{fraction}></rect>'
        )
        if i % step == 0:
            parts.append(f'<text x="{x + slot / 2:.1f}" y="{height - 3}" '
                         f'text-anchor="middle">{value[:10]}</text>')
        parts.append("</g>")
    parts.append(f'<line x1="0" y1="{plot + 14}" x2="{width}" y2="{plot + 14}" '
                 f'class="axis"></line></svg>')
    return Markup("".join(parts))
