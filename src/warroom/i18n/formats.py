"""How values are shown to people, one definition for the command line and the pages:
probabilities as percentages and outcome values, in the reader's language (numbers by
Babel: ``12.50%`` in English, ``12,50%`` in Polish)."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from warroom.i18n import format_decimal

Tr = Callable[[str], str]


def lang_of(tr: Tr | None) -> str:
    """The language of a translator (:class:`warroom.i18n.Translator`), else English."""
    lang = getattr(tr, "lang", None)
    return lang if isinstance(lang, str) else "en"


def fmt_number(x: float, tr: Tr | None = None, digits: int = 2) -> str:
    """``x`` with ``digits`` decimals in ``tr``'s language (``4.00``, ``4,00``)."""
    lang = lang_of(tr)
    if lang == "en":  # the common case needs no locale data
        return f"{x:.{digits}f}"
    return format_decimal(x, lang, digits)


def fmt_count(n: int, tr: Tr | None = None, terminal: bool = False) -> str:
    """A count with its thousands set apart in ``tr``'s language (``12,750`` in English
    and Chinese, ``12 750`` with a no-break space in Polish, where a comma marks
    decimals). ``terminal``: a terminal wraps lines at any space, no-break ones too, so
    there a count set apart by spaces is written whole (``12750``), never split."""
    lang = lang_of(tr)
    if lang == "en":
        return f"{n:,}"
    text = format_decimal(n, lang, 0, grouped=True)
    return "".join(text.split()) if terminal else text


def fmt_pct(p: Fraction | float, tr: Tr | None = None) -> str:
    """A probability as a percentage with two decimals; below 0.01% says so."""
    x = float(p)
    if x == 0:
        return "0%"
    if x < 0.0001:
        return f"<{fmt_number(0.01, tr)}%"
    return f"{fmt_number(x * 100, tr)}%"


def fmt_percentile(p: Fraction | float, estimate: bool = False,
                   margin: float | None = None, tr: Tr | None = None) -> str:
    """A percentile (``p`` from 0 to 1) from 0 to 100: whole, with one decimal near the
    ends (``99.6``) where the whole number would read 100 or 0; an estimate with ``≈``
    and its margin in points (``≈ 84 ± 3``)."""
    x = float(p) * 100
    digits = 1 if (x < 1 or x > 99) and 0 < x < 100 else 0
    text = fmt_number(x, tr, digits)
    if not estimate:
        return text
    if margin:
        return f"≈ {text} ± {fmt_number(margin * 100, tr, 0 if margin >= 0.01 else 1)}"
    return f"≈ {text}"


def fmt_value(v: Any, tr: Tr | None = None) -> str:
    """An outcome or parameter value: yes/no and named values translated by ``tr``
    (as they are without one), a whole float as an integer (8.0 reads 8)."""
    if isinstance(v, bool):
        word = "yes" if v else "no"
        return tr(word) if tr else word
    if isinstance(v, str):
        if tr is None:
            return v
        if "=" in v and tr(v) == v:
            # a state per unit ("squad1=broken,leader1=wounded+broken"): its words
            return ", ".join(f"{fmt_unit(unit, tr)}={'+'.join(tr(w) for w in state.split('+'))}"
                             for unit, _, state in (p.partition("=") for p in v.split(",")))
        return tr(v)
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def fmt_unit(name: str, tr: Tr | None = None) -> str:
    """A unit named by kind and order (``squad1``, ``hs2``) in ``tr``'s language: the
    kind's catalogued template (``squad{n}``; 班1 in Chinese), else as it is."""
    kind = name.rstrip("0123456789")
    if tr is None or not kind or kind == name:
        return name
    template = tr(kind + "{n}")
    return name if template == kind + "{n}" else template.format(n=name[len(kind):])


def fmt_sources(source: str, tr: Tr | None = None) -> str:
    """A rule's sources (``"FoW article on shooting; FoW article on the effects of hits"``)
    by their titles in ``tr``'s language: each title is a catalog message."""
    translate = tr or (lambda text: text)
    return "; ".join(translate(part.strip()) for part in source.split(";") if part.strip())
