"""The catalog of Flames of War special rules (national and unit rules).

Interface shared by every fow procedure: a side's rules are given as a list of
snake_case names (``rules=quality_of_quantity,schurzen``). ``RULES`` is the data; the
entries are filled in from the sources (see docs/fow-coverage.md).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

Nation = Literal["soviet", "british", "us", "german", "general"]
Status = Literal["implemented", "data", "planned"]


@dataclass(frozen=True, slots=True)
class SpecialRule:
    name: str                     # snake_case id, e.g. "quality_of_quantity"
    title: str                    # English rule name, e.g. "Quality of Quantity"
    nation: Nation
    summary: str                  # one line in our own words
    changes: tuple[str, ...] = ()  # procedure ids whose odds it changes; () = play only
    status: Status = "data"       # implemented: changes odds in `changes`; data: explained only
    note: str = ""                # sources, card vs article differences, judgement calls


RULES: tuple[SpecialRule, ...] = ()


def all_rules() -> tuple[SpecialRule, ...]:
    return RULES


def names() -> tuple[str, ...]:
    return tuple(r.name for r in RULES)


def get(name: str) -> SpecialRule:
    for r in RULES:
        if r.name == name:
            return r
    from warroom.errors import UnknownNameError

    raise UnknownNameError("special rule", name, names())


def parse_rule_list(value: object) -> tuple[str, ...]:
    """``"a,b"``, ``["a", "b"]`` or ``()`` -> validated names; unknown names raise
    ``ValueError`` listing the valid ones (pydantic turns it into a usage error)."""
    if value is None or value == "":
        return ()
    items: Iterable[object]
    if isinstance(value, str):
        items = [v for v in value.replace(";", ",").split(",")]
    elif isinstance(value, (list, tuple)):
        items = value
    else:
        raise ValueError("expected a comma-separated list of special rule names")
    out: list[str] = []
    valid = set(names())
    for item in items:
        name = str(item).strip().lower().replace("-", "_").replace(" ", "_")
        if not name:
            continue
        if name not in valid:
            import difflib

            close = difflib.get_close_matches(name, sorted(valid), n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise ValueError(f"unknown special rule {name!r}.{hint} "
                             f"Valid: {', '.join(sorted(valid))}")
        if name not in out:
            out.append(name)
    return tuple(out)
