"""ASL units written as players write them: counters (``4-6-7``, ``2-4-8``, ``8-1``,
``9-2:wounded``) or the long form ``kind:morale[:third][:flags]`` (``squad:7:3``).

A squad or half-squad counter reads FP-range-morale; a leader reads morale and his
leadership DRM (``9-2`` is morale 9, DRM -2; ``6+1`` is morale 6, DRM +1). A counter of
3 FP or less is read as a half-squad unless ``:squad`` says otherwise (some nations'
squads have 3 FP); ``:hs`` forces a half-squad.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from typing import Literal, NamedTuple

from warroom.engine.messages import Msg, msg
from warroom.engine.params import text_items, whole_number
from warroom.errors import UsageError

UnitKind = Literal["squad", "hs", "leader"]
MAX_UNITS = 10

UNITS_HELP = (
    "the units in the location, comma-separated, as counters: squads and half-squads "
    "FP-range-morale (4-6-7, 2-4-8), leaders morale and leadership DRM (8-1, 9-2, 6+1); "
    "the broken side's morale after a slash (4-6-7/8; left out: 8 for a 4-6-7, 9 for a "
    "6-5-8, else the same morale). "
    "Flags after a colon: broken, pinned, wounded (leaders), elr=N, hs or squad (a 3-FP "
    "counter is read as a half-squad unless :squad). The long form kind:morale[:third] "
    "also works (squad:7:3 with ELR 3, leader:9:-2 with DRM -2, hs:6). Example: "
    "4-6-7,4-6-7:broken,9-2:wounded"
)

_SQUAD = re.compile(r"^(\d+)-(\d+)-(\d+)(?:/(\d+))?$")
_LEADER = re.compile(r"^(\d+)([+-]\d)(?:/(\d+))?$")
_MORALE = re.compile(r"^(\d+)(?:/(\d+))?$")  # the long form's morale: 7 or 7/8

BROKEN_MORALE: dict[tuple[int, int, int], int] = {(4, 6, 7): 8, (6, 5, 8): 9}
"""The broken side's morale of counters whose broken side differs from the good-order
morale, when the counter does not say (``4-6-7/8``): the German first-line 4-6-7
breaks to 8 and the SS 6-5-8 to 9 (ASLRB A10.2 EX, quoted in issue 32). Every other
counter, and a leader, keeps its morale when broken unless written with ``/N``; the
printed counter is the source, so a player whose counters differ writes ``/N``."""
_SW = re.compile(r"^([a-z][a-z0-9.]*)\s+(\d+)-(\d+)(?:\s+b(\d+))?$")
_PREFIX = re.compile(r"^(hs|squad)\s+(\S.*)$")

# A leader replaced by a lower-quality one (ELR, ASLRB A19.1) becomes the next one down.
LEADER_LADDER: tuple[tuple[int, int], ...] = (
    (10, -3), (10, -2), (9, -2), (9, -1), (8, -1), (8, 0), (7, 0), (6, 1))


class Unit(NamedTuple):
    """One unit as given (its counter), never changed by the dice."""

    name: str  # squad1, hs2, leader1: kind and order
    label: str  # the counter as written (4-6-7, 9-2, squad:7)
    kind: UnitKind
    morale: int
    leadership: int = 0
    fp: int = 0  # 0 when given in the long form (unknown)
    elr: int | None = None
    broken: bool = False
    wounded: bool = False
    pinned: bool = False
    broken_morale: int = 0  # the broken side's morale (0: read as ``morale``)

    @property
    def broken_side(self) -> int:
        """The morale on the counter's broken side (ASLRB A10: a broken unit checks
        and rallies on it)."""
        return self.broken_morale or self.morale


# a unit's name in step texts: "squad1" in English, each kind a translatable template
UNIT_NAMES: dict[str, str] = {"squad": "squad{n}", "hs": "hs{n}", "leader": "leader{n}"}


@cache
def unit_msg(name: str) -> Msg:
    """'squad1' as a translatable message: its kind's template and its number."""
    kind = name.rstrip("0123456789")
    return msg(UNIT_NAMES[kind], n=int(name[len(kind):]))


def lower_leader(morale: int, leadership: int) -> tuple[int, int]:
    """The leader an ELR failure turns this one into (A19.1): the next lower on the
    ladder 10-3 ... 6+1; a 6+1 stays as he is."""
    for m, lead in LEADER_LADDER:
        if (m, -lead) < (morale, -leadership):
            return m, lead
    return morale, leadership


class _Read(NamedTuple):
    kind: UnitKind
    morale: int
    leadership: int
    fp: int
    elr: int | None
    flags: set[str]
    broken_morale: int


def _broken(text: str | None, item: str, default: int) -> int:
    return whole_number(text, "broken morale", item, 1, 10) if text else default


def _item(item: str, elr: int | None) -> _Read:
    """Kind, morale, leadership, FP, ELR, flags and broken-side morale of one unit."""
    fields = [f.strip().lower() for f in item.split(":")]
    head, rest = fields[0], fields[1:]
    flags: set[str] = set()
    kind: UnitKind
    fp = leadership = broken = 0
    m_squad, m_leader = _SQUAD.match(head), _LEADER.match(head)
    if m_squad:
        fp = whole_number(m_squad[1], "FP", item, 0, 20)
        rng = whole_number(m_squad[2], "range", item, 0, 30)
        morale = whole_number(m_squad[3], "morale", item, 1, 10)
        broken = _broken(m_squad[4], item, BROKEN_MORALE.get((fp, rng, morale), 0))
        kind = "hs" if fp <= 3 else "squad"
    elif m_leader:
        morale = whole_number(m_leader[1], "morale", item, 1, 10)
        leadership = whole_number(m_leader[2], "leadership DRM", item, -3, 1)
        broken = _broken(m_leader[3], item, 0)
        kind = "leader"
    elif head in ("squad", "hs", "leader"):
        if not rest:
            raise UsageError("{item!r}: give the morale, e.g. {kind}:7", item=item, kind=head)
        kind = head  # type: ignore[assignment]
        m_morale = _MORALE.match(rest[0])
        morale = whole_number(m_morale[1] if m_morale else rest[0], "morale", item, 1, 10)
        broken = _broken(m_morale[2] if m_morale else None, item, 0)
        rest = rest[1:]
        if rest and rest[0] not in _FLAGS and not rest[0].startswith("elr="):
            if kind == "leader":
                leadership = whole_number(rest[0], "leadership DRM", item, -3, 1)
            else:
                elr = whole_number(rest[0], "ELR", item, 0, 5)
            rest = rest[1:]
    else:
        raise UsageError("{item!r}: write a counter (4-6-7, 2-4-8, 8-1, 9-2) or "
                         "kind:morale (squad:7, hs:6, leader:8:-1)", item=item)
    for f in rest:
        if f.startswith("elr="):
            elr = whole_number(f[4:], "ELR", item, 0, 5)
        elif f in _FLAGS:
            flags.add(f)
        else:
            raise UsageError("{item!r}: unknown flag {flag!r} (broken, pinned, wounded, "
                             "elr=N, hs, squad)", item=item, flag=f)
    if "wounded" in flags and kind != "leader":
        raise UsageError("{item!r}: only a leader can be wounded", item=item)
    if flags & {"hs", "squad"}:
        if kind == "leader":
            raise UsageError("{item!r}: a leader is neither a squad nor a half-squad",
                             item=item)
        kind = "hs" if "hs" in flags else "squad"
    return _Read(kind, morale, leadership, fp, elr, flags, broken)


_FLAGS = frozenset({"broken", "pinned", "wounded", "hs", "squad"})


@lru_cache(maxsize=512)
def parse_units(text: str, elr: int | None = None, most: int = MAX_UNITS
                ) -> tuple[Unit, ...]:
    """Parse a list of units (see ``UNITS_HELP``); ``elr`` is the side's ELR, which a
    unit's own ``elr=N`` overrides. A usage error names the problem."""
    items = text_items(text, "unit", "units in one location", "4-6-7", most)
    units: list[Unit] = []
    counts: dict[str, int] = {}
    for item in items:
        r = _item(item, elr)
        if "broken" in r.flags and "pinned" in r.flags:
            raise UsageError("{item!r}: a broken unit cannot be pinned", item=item)
        counts[r.kind] = counts.get(r.kind, 0) + 1
        units.append(Unit(f"{r.kind}{counts[r.kind]}", item.strip(), r.kind, r.morale,
                          r.leadership, r.fp, r.elr, "broken" in r.flags,
                          "wounded" in r.flags, "pinned" in r.flags, r.broken_morale))
    return tuple(units)


CounterKind = Literal["squad", "hs", "leader", "sw"]


class Counter(NamedTuple):
    """One counter of a stack as written in a force file: a unit (as :func:`parse_units`
    reads it) or a support weapon (``MMG 4-10 B11``: FP-range, breakdown number)."""

    kind: CounterKind
    text: str  # as written
    fp: int = 0
    range: int = 0
    morale: int = 0
    drm: int = 0
    breakdown: int | None = None
    name: str = ""  # a support weapon's name (MMG)
    item: str = ""  # a unit as parse_units reads it (hs 2-6-7 -> 2-6-7:hs)


@lru_cache(maxsize=512)
def parse_sw(text: str) -> Counter | None:
    """A support weapon ``MMG 4-10 B11`` (name, FP-range, breakdown number), or None
    when ``text`` is not written as one. A usage error for numbers out of bounds."""
    m = _SW.match(" ".join(text.strip().lower().split()))
    if not m or m[1] in ("hs", "squad"):
        return None
    return Counter("sw", text.strip(), whole_number(m[2], "FP", text, 0, 40),
                   whole_number(m[3], "range", text, 0, 60),
                   breakdown=whole_number(m[4], "breakdown", text, 2, 12) if m[4]
                   else None, name=m[1].upper())


@lru_cache(maxsize=512)
def parse_counter(text: str) -> Counter:
    """One counter: a unit as :func:`parse_units` reads it (``hs 2-6-7`` also spells
    ``2-6-7:hs``), or a support weapon ``MMG 4-10 B11``. A usage error names the
    problem."""
    t = " ".join(text.strip().lower().split())
    sw = parse_sw(text)
    if sw is not None:
        return sw
    prefix = _PREFIX.match(t)
    item = f"{prefix[2]}:{prefix[1]}" if prefix else t
    head = item.split(":")[0].strip()
    if "," in item or not (_SQUAD.match(head) or _LEADER.match(head)
                           or head in ("squad", "hs", "leader")):
        raise UsageError("{text!r} is not a counter: write a squad 4-6-7, a half-squad "
                         "hs 2-6-7, a leader 8-1 or a support weapon MMG 4-10 B11",
                         text=text)
    r = _item(item, None)
    squad = _SQUAD.match(item.split(":")[0])
    return Counter(r.kind, text.strip(), r.fp, int(squad[2]) if squad else 0, r.morale,
                   r.leadership, item=item)
