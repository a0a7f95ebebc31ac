"""fow.shoot_mixed: several weapons firing at a platoon of mixed teams, with hit
allocation rules 5-9 of the shooting article (part 4) on top of rules 1-4.

The allocation is a plain function of the hits each weapon scored (:func:`allocate`), so
it can be tested by hand; the procedure rolls to hit per weapon, allocates, then rolls
every team's saves with the existing per-team chains (``common.team_chain``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from fractions import Fraction
from functools import lru_cache, partial
from itertools import groupby, product
from math import prod
from operator import not_
from typing import Any, Literal, NamedTuple

from pydantic import Field, field_validator, model_validator

from warroom.engine.context import Dice, Stage, columns, fixed, rows
from warroom.engine.exact import exact_run
from warroom.engine.messages import Msg, msg, nmsg
from warroom.engine.params import text_items, whole_number
from warroom.engine.procedure import outcome, procedure
from warroom.engine.steps import Target
from warroom.errors import RuleError, UsageError
from warroom.games.fow.common import (
    LABELS,
    Aspect,
    ExtraSaves,
    HitSpec,
    Motivation,
    Skill,
    TargetType,
    team_chain,
)
from warroom.games.fow.shooting import (
    PASSENGER_OUTCOME,
    ShootParams,
    pinned,
    to_hit_reroll,
    to_hit_target,
)
from warroom.games.fow.special_rules.params import RulesParams

MAX_WEAPONS = 6
MAX_WEAPON_DICE = 30
MAX_TEAMS = 20
QUICK_SIZE = 20_000  # allocations kept per question (see _stages)
QUICK_TRIAL = 4_096  # past so many kept, more only if a quarter of the lookups found one
TURRET_AT = 4  # the shooter's die for a hit on a tank with two armour values: 4+ turret

Priority = Literal["none", "tank", "infantry", "gun", "soft"]

WEAPONS_HELP = (
    "the shooting weapons, comma-separated, each dice:AT:firepower (attack dice after "
    "ROF, anti-tank rating, the N of firepower N+), then if need be :bb for a bunker "
    "buster or breakthrough gun (infantry gets no save; when the shooters moved, its hits "
    "may not go to vehicles unless bogged down or bailed out) and :tank, :infantry, :gun "
    "or :soft for the type that weapon's team declares as its priority target (rule 6; "
    "else priority= below), and the weapon's own to-hit flags: :far (its shots are over "
    "40 cm: +1 to hit, +1 armour for tanks it hits), :moved (its team moved), :rof1 (a "
    "ROF 1 weapon that moved: +1), :pinned (a ROF 1 weapon whose team is pinned down: "
    "+1), and its own shooting special rules by name (e.g. :volley_fire). Example: "
    "6:10:3,4:2:6 for six 75 mm shots and four machine-gun shots")
TEAMS_HELP = (
    "the target platoon's teams, comma-separated, each kind[:armour][:flags]. kind is "
    "tank, infantry, gun or soft (unarmoured vehicle). A tank gives the armour it is hit "
    "on, or hull/turret when they differ (tank:5/3: the shooter rolls 4+ for the turret). "
    "Flags: gtg (gone to ground), out (bogged down or bailed out), far (over 40 cm), dug "
    "(infantry or gun dug in or in bulletproof cover), gt (a tank of the type declared "
    "as the gun tank: each hit then rolls 5+ to go to these tanks). Example: "
    "tank:6,tank:5/3,soft. A gun or an unarmoured vehicle carrying a gun may add shield "
    "(hit from the side its gun shield faces: a gun's failed save needs a firepower test "
    "to destroy it; the vehicle gets no save but the firepower test), e.g. "
    "gun:shield,soft:shield")
PASSENGERS_HELP = (
    "passenger teams carried, one entry per vehicle of teams (tank and soft teams, in "
    "order; others skipped): N inside (a tank is then an armoured transport), rN riding "
    "on a tank, 0 none; e.g. teams=tank:1,tank:1,soft passengers=2,0,3. Their saves, "
    "dismounting and the transport platoon's motivation test as in fow.shoot")


class Weapon(NamedTuple):
    dice: int
    at: int
    firepower: int
    bb: bool = False  # a bunker buster or breakthrough gun
    priority: str = "none"  # the type its team declared as priority target (rule 6)
    far: bool = False  # its shots are over 40 cm
    moved: bool = False  # its team moved
    rof1: bool = False  # a ROF 1 weapon that moved
    pinned: bool = False  # a ROF 1 weapon whose team is pinned down
    rules: tuple[str, ...] = ()  # its own shooting special rules


# the special rules that change one weapon's to-hit roll (fow.shoot's to_hit_target and
# to_hit_reroll), which a weapon may carry as its own
WEAPON_RULES: tuple[str, ...] = (
    "automatic_rifles", "cupola", "every_shot_counts", "hen_and_chicks", "limited_vision",
    "semi_indirect_fire", "stabilizers", "tally_ho", "volley_fire")
WEAPON_FLAGS: tuple[str, ...] = ("bb", "far", "moved", "rof1", "pinned")


class Team(NamedTuple):
    """One target team as given (``n`` numbers the teams of its kind from 1)."""

    kind: TargetType
    n: int
    hull: int = 0
    turret: int = 0
    gtg: bool = False
    out: bool = False
    far: bool = False
    dug: bool = False
    gt: bool = False
    shield: bool = False  # a gun (or a vehicle's gun) hit from the side its shield faces

    @property
    def armoured(self) -> bool:
        return self.kind == "tank"

    @property
    def bunker_safe(self) -> bool:
        """A vehicle a moving bunker buster may not hit (rule 9): one not bogged down or
        bailed out."""
        return self.kind in ("tank", "soft") and not self.out

    def label(self) -> Msg:
        return msg(TEAM_NAMES[self.kind], n=self.n)


TEAM_NAMES: dict[str, str] = {"tank": "tank {n}", "infantry": "infantry team {n}",
                              "gun": "gun {n}", "soft": "unarmoured vehicle {n}"}
GROUP_NAMES: dict[str, tuple[str, str]] = {
    "tank": ("{n} tank with the same hits", "{n} tanks with the same hits"),
    "infantry": ("{n} infantry team with the same hits", "{n} infantry teams with the same hits"),
    "gun": ("{n} gun with the same hits", "{n} guns with the same hits"),
    "soft": ("{n} unarmoured vehicle with the same hits",
             "{n} unarmoured vehicles with the same hits")}
"""A group of teams of one kind rolling together, counted (singular, plural)."""


@lru_cache(maxsize=256)
def parse_weapons(text: str) -> tuple[Weapon, ...]:
    """Parse the ``weapons`` text (see ``WEAPONS_HELP``)."""
    out = []
    for item in text_items(text, "weapon", "weapons", "6:10:3", MAX_WEAPONS):
        fields = [f.strip() for f in item.split(":")]
        flags = [f.lower() for f in fields[3:]]
        kinds = [f for f in flags if f in TEAM_NAMES]
        if len(fields) < 3 or len(set(flags)) != len(flags) or len(kinds) > 1 or any(
                f not in WEAPON_FLAGS and f not in TEAM_NAMES and f not in WEAPON_RULES
                for f in flags):
            raise UsageError("{item!r}: give dice:AT:firepower, then if need be bb, one "
                             "priority type (tank, infantry, gun or soft), far, moved, rof1, "
                             "pinned and shooting special rules, e.g. 6:10:3 or "
                             "6:10:3:bb:infantry:far", item=item)
        out.append(Weapon(whole_number(fields[0], "dice", item, 0, MAX_WEAPON_DICE),
                          whole_number(fields[1], "AT", item, 1, 20),
                          whole_number(fields[2], "firepower", item, 1, 6), "bb" in flags,
                          kinds[0] if kinds else "none", "far" in flags,
                          "moved" in flags or "rof1" in flags, "rof1" in flags,
                          "pinned" in flags,
                          tuple(sorted(f for f in flags if f in WEAPON_RULES))))
    return tuple(out)


@lru_cache(maxsize=256)
def parse_teams(text: str) -> tuple[Team, ...]:
    """Parse the ``teams`` text (see ``TEAMS_HELP``)."""
    out = []
    counts: dict[str, int] = {}
    for item in text_items(text, "team", "teams", "tank:6,soft", MAX_TEAMS):
        fields = [f.strip().lower() for f in item.split(":")]
        kind = fields[0]
        if kind not in TEAM_NAMES:
            raise UsageError("{item!r}: team kind must be tank, infantry, gun or soft, got "
                             "{kind!r}", item=item, kind=kind)
        flags = fields[1:]
        hull = turret = 0
        if kind == "tank":
            if not flags or not flags[0][:1].isdigit():
                raise UsageError("{item!r}: give the tank's armour, e.g. tank:6 or tank:5/3",
                                 item=item)
            hull_text, _, turret_text = flags.pop(0).partition("/")
            hull = whole_number(hull_text, "armour rating", item, 0, 15)
            turret = (whole_number(turret_text, "armour rating", item, 0, 15) if turret_text
                      else hull)
        seen = set()
        for flag in flags:
            if flag not in ("gtg", "out", "far", "dug", "gt", "shield") or flag in seen:
                raise UsageError("{item!r}: unknown or repeated flag {flag!r} (gtg, out, far, "
                                 "dug, gt, shield)", item=item, flag=flag)
            seen.add(flag)
        if "shield" in seen and kind not in ("gun", "soft"):
            # FoW article on the effects of hits: gun shields guard guns and the guns
            # carried by unarmoured vehicles
            raise UsageError("{item!r}: gun shields protect guns and unarmoured vehicles "
                             "only", item=item)
        if "dug" in seen and kind not in ("infantry", "gun"):
            raise UsageError("{item!r}: only infantry and guns can be dug in", item=item)
        if "gt" in seen and kind != "tank":
            raise UsageError("{item!r}: only tanks can be of the gun-tank type", item=item)
        counts[kind] = counts.get(kind, 0) + 1
        out.append(Team(kind, counts[kind], hull, turret,  # type: ignore[arg-type]
                        "gtg" in seen, "out" in seen, "far" in seen, "dug" in seen,
                        "gt" in seen, "shield" in seen))
    return tuple(out)


def allocate(hits: tuple[int, ...], weapons: tuple[Weapon, ...], teams: tuple[Team, ...],
             priority: str = "none", moved: bool = False) -> tuple[tuple[int, ...], ...]:
    """Which hits each team takes, as weapon indices (one per hit), in ``teams`` order.

    How many: every team takes an equal share and the rest go one each in this order
    (rules 1-4, 6, 7): teams not gone to ground, then gone to ground, then bogged or
    bailed out; nearer before over 40 cm; a declared priority type first; other teams
    before tanks, and weaker armour before stronger.
    Which: tanks take the hits of highest AT (rule 7), the strongest armour first, so
    weaker armour gets the lower AT; then each declared priority type takes the hits of
    the weapons that declared it, the best firepower first (rule 6), before those of
    weapons that declared nothing and, last, another type. A weapon declares its own
    type or else ``priority``. Within each of these, and for the rest, the hits are dealt
    a hit each in turn, weapon by weapon, so every weapon's hits are spread evenly (rule
    5). When the shooters
    ``moved``, a bunker buster's hits go only where rule 9 lets them, first
    (:func:`_bunker_buster_slots`). What follows from the question alone is worked out
    once (:class:`Allocation`)."""
    return _allocation(weapons, teams, priority, moved).plan(hits)


KINDS: tuple[str, ...] = tuple(TEAM_NAMES)

Share = tuple[tuple[int, ...], int, bool, tuple[tuple[int, slice, tuple[slice, ...]], ...]]
"""A group's share of the hits: the weapons it takes first (their indices, best first),
how many hits it takes, whether those weapons are in the order of their indices (then
every member's hits are too), and where the hits go (each member's index among the
teams and the slices of the group's hits it takes, the first and the others:
:func:`_turns`, or :func:`_deal` where a moving bunker buster's hits went first)."""


class Allocation:
    """:func:`allocate` for one question (its weapons, teams, priority and movement).
    The groups, the share of each group for each total of hits and how the group deals
    it are worked out once, so that a plan only takes each group's hits, whole weapons
    at a time, and hands each member its slices of them."""

    __slots__ = ("busters", "declares", "moved", "plain", "priority", "shares", "teams",
                 "weapons")

    def __init__(self, weapons: tuple[Weapon, ...], teams: tuple[Team, ...], priority: str,
                 moved: bool) -> None:
        self.weapons, self.teams, self.priority, self.moved = weapons, teams, priority, moved
        self.declares = _declares(weapons, priority)
        self.plain = all(kind == "none" for kind in self.declares)  # no type declared
        # the bunker busters that moved (rule 9)
        self.busters = tuple(w for w, weapon in enumerate(weapons)
                             if weapon.bb and (moved or weapon.moved))
        # the groups' shares by the types declared by the weapons that hit and the hits
        self.shares: dict[tuple[tuple[str, ...], int], tuple[Share, ...]] = {}

    def plan(self, hits: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
        """Which hits each team takes (see :func:`allocate`)."""
        if self.plain:
            declared: tuple[str, ...] = ()
        else:
            declares = self.declares
            declared = tuple(sorted({declares[w] for w, h in enumerate(hits) if h} - {"none"},
                                    key=KINDS.index))
        out: list[tuple[int, ...]] = [()] * len(self.teams)
        if self.busters and any(hits[w] for w in self.busters):
            order, groups = _layout(self.weapons, self.teams, self.priority, declared)
            placed: list[list[int]] = [[] for _ in self.teams]
            slots, left = _bunker_buster_slots(hits, self.busters, self.teams, order, placed)
            taken: list[list[int]] | None = placed
            shares = _shares(groups, slots)
        else:
            key = (declared, sum(hits))
            found = self.shares.get(key)
            if found is None:
                order, groups = _layout(self.weapons, self.teams, self.priority, declared)
                found = self.shares[key] = _shares_of(groups, order, key[1])
            shares, left, taken = found, list(hits), None
        _take(shares, left, out)
        if taken is not None:  # with the hits of bunker busters placed first
            return tuple([tuple(sorted((*before, *after))) if before else after
                          for before, after in zip(taken, out, strict=True)])
        return tuple(out)


def dealt_columns(a: Allocation, hits: Any) -> Any:
    """:meth:`Allocation.plan` for many counts of hits at once (numpy: ``hits`` a row of
    each weapon's hits per sample), as how many hits of each weapon each team takes
    (samples × teams × weapons): :func:`dealt_groups` put together."""
    import numpy as np

    hits = np.asarray(hits, dtype=np.int64)
    out = np.zeros((len(hits), len(a.teams), len(a.weapons)), dtype=np.int16)
    for sel, members, ranking, took in dealt_groups(a, hits):
        block = out[sel]
        block[:, np.array(members)[:, None], np.array(ranking)[None, :]] = took
        out[sel] = block
    return out


def dealt_groups(a: Allocation, hits: Any) -> Iterator[tuple[Any, tuple[int, ...],
                                                             tuple[int, ...], Any]]:
    """:meth:`Allocation.plan` for many counts of hits at once (numpy: ``hits`` a row of
    each weapon's hits per sample), for the batched Monte Carlo driver (the shot's
    columnar form), group by group: the samples (a boolean mask), the group's members
    and the weapons it takes, in its ranking order, and how many hits of each of them
    each member takes (samples × members × weapons). Not with bunker busters that moved
    (rule 9 deals their hits first: the plan does it one count at a time). The samples
    go by the types declared by the weapons that hit (:func:`declared_types` of each
    set of weapons that hit), each with the plan's layout (:func:`_layout`); then the
    plan's own dealing runs on their columns (:func:`_dealt`)."""
    import numpy as np

    if a.busters:
        # in_columns keeps such shots off the columns: a caller's bug, not a player's input
        raise RuleError("the hits of bunker busters that moved are dealt one plan at a time")
    n = len(a.weapons)
    # which weapons hit, a bit each (no matter where no weapon declares a type); the
    # plan's declared types for each such set met
    code = (np.zeros(len(hits), dtype=np.int64) if a.plain
            else (hits > 0).astype(np.int64) @ (1 << np.arange(n, dtype=np.int64)))
    layouts: dict[tuple[str, ...], int] = {}
    index = np.zeros(1 << n, dtype=np.int64)
    for c in np.unique(code).tolist():
        declared = declared_types(a, tuple(c >> w & 1 for w in range(n)))
        index[c] = layouts.setdefault(declared, len(layouts))
    which = index[code]
    # the layouts in the order of their declared types (a bit per kind, in kind order),
    # so that the draws that follow come in the same order for the same seed
    for declared, j in sorted(layouts.items(), key=lambda item: sum(
            1 << KINDS.index(kind) for kind in item[0])):
        sel = which == j
        for members, ranking, took in _dealt(
                hits[sel], *_layout(a.weapons, a.teams, a.priority, declared)):
            yield sel, members, ranking, took


def _dealt(hits: Any, order: tuple[int, ...],
           groups: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]
           ) -> Iterator[tuple[tuple[int, ...], tuple[int, ...], Any]]:
    """:func:`dealt_groups` for one layout: the plan's arithmetic run on the samples'
    columns (an array of every sample's hits per weapon): each group's share
    (:func:`_wanted`), the hits it takes of each weapon (:func:`_taken`), and where
    they fall among the group's hits; each member takes its turns of them
    (:func:`_turns`), so of each weapon the turns between the weapon's first and last
    hit among the group's (:func:`_among`)."""
    import numpy as np

    left = list(np.ascontiguousarray(hits.T, dtype=np.int16))  # a row per weapon
    total = hits.sum(axis=1).astype(np.int16)
    places = _places(order)
    for members, ranking in groups:
        if not members:
            continue
        m = len(members)
        took = _taken(left, ranking, _wanted(total, len(order), [places[i] for i in members]),
                      _all_had)
        # where each weapon's hits start among the group's, and where the last ends (a
        # row each, the samples along it: numpy's loops run along the samples)
        edges = np.zeros((len(took) + 1, len(hits)), dtype=np.int16)
        np.cumsum(np.stack(took), axis=0, out=edges[1:])
        turns = _turns(np.arange(m, dtype=np.int16)[:, None, None], m)
        # each member's hits of each weapon: its turns up to the weapon's last hit, less
        # those before its first (worked out members × weapons × samples, handed over
        # samples × members × weapons)
        yield members, ranking[:len(took)], np.diff(_among(turns, edges), axis=1).transpose(
            2, 0, 1)


def _all_had(wanted: Any) -> bool:
    """:func:`_taken`'s ``done`` for the columns: every sample has all it wants."""
    return not wanted.any()


def _take(shares: tuple[Share, ...], left: list[int], out: list[tuple[int, ...]]) -> None:
    """Deal ``shares`` (:func:`_shares_of`): each group takes its hits, whole weapons in
    its ranking order (:func:`_taken`), from ``left`` (each weapon's hits not yet dealt)
    and hands each member its slices of them, into ``out`` (the hits each team takes,
    as weapon indices)."""
    for ranking, wanted, ordered, deal in shares:
        chosen: list[int] = []  # the group's hits: whole weapons in ``ranking`` order
        _taken(left, ranking, wanted, not_, chosen)
        for i, first, more in deal:
            took = chosen[first]
            if more:  # only where a moving bunker buster's hits went first
                for part in more:
                    took += chosen[part]
            if not ordered:
                took.sort()
            out[i] = tuple(took)


@lru_cache(maxsize=256)
def _allocation(weapons: tuple[Weapon, ...], teams: tuple[Team, ...], priority: str,
                moved: bool) -> Allocation:
    return Allocation(weapons, teams, priority, moved)


def declared_types(a: Allocation, hits: tuple[int, ...]) -> tuple[str, ...]:
    """The priority types declared by the weapons that hit (rule 6), in kind order."""
    if a.plain:
        return ()
    return tuple(sorted({a.declares[w] for w, h in enumerate(hits) if h} - {"none"},
                        key=KINDS.index))


def fixed_order(a: Allocation, declared: tuple[str, ...]) -> tuple[int, ...]:
    """Our fixed order of the teams (:func:`allocate`'s, for the types ``declared``)."""
    return _layout(a.weapons, a.teams, a.priority, declared)[0]


def plan_in_order(a: Allocation, hits: tuple[int, ...], declared: tuple[str, ...],
                  order: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """:func:`allocate`'s plan with the teams in ``order`` instead of our fixed order
    (no moving bunker busters): who takes the extra hits, and in each group who takes
    which weapon's hits, follow ``order``."""
    plan: list[tuple[int, ...]] = [()] * len(a.teams)
    _take(_order_shares(a.weapons, a.teams, a.priority, declared, order, sum(hits)),
          list(hits), plan)
    return tuple(plan)


@lru_cache(maxsize=16_384)
def _order_shares(weapons: tuple[Weapon, ...], teams: tuple[Team, ...], priority: str,
                  declared: tuple[str, ...], order: tuple[int, ...], total: int
                  ) -> tuple[Share, ...]:
    """The groups' shares of ``total`` hits with the teams in ``order``."""
    return _shares_of(_groups(weapons, teams, priority, declared, order), order, total)


def team_roll(team: Team, weapons: tuple[Weapon, ...], took: tuple[int, ...],
              saves: Saves) -> Any:
    """The rolls one team makes for the hits it took (weapon indices): its worst result,
    the chain the shot rolls for it."""
    return _team_roll(team._replace(n=0), weapons, took, saves)


def _shares_of(groups: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...],
               order: tuple[int, ...], total: int) -> tuple[Share, ...]:
    """Each group's share of ``total`` hits with the teams in ``order`` (groups that take
    none left out): how many it takes (:func:`_wanted`) and each member's turns
    (:func:`_turns`)."""
    places = _places(order)
    out = []
    for members, ranking in groups:
        if not members:
            continue
        wanted = _wanted(total, len(order), [places[i] for i in members])
        if wanted:
            m = len(members)
            out.append((ranking, wanted, list(ranking) == sorted(ranking), tuple(
                (i, _turns(r, m), ()) for r, i in enumerate(members[:wanted]))))
    return tuple(out)


def _shares(groups: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...],
            slots: list[int]) -> tuple[Share, ...]:
    """Each group's share of the hits when the teams take ``slots`` hits, whatever they
    are (groups that take none left out): with a moving bunker buster's hits placed
    first (:func:`_bunker_buster_slots`), dealt by :func:`_deal`."""
    out = []
    for members, ranking in groups:
        caps = tuple([slots[i] for i in members])
        if any(caps):
            out.append((ranking, sum(caps), list(ranking) == sorted(ranking), tuple(
                (i, slices[0], slices[1:]) for i, slices in zip(members, _deal(caps),
                                                                 strict=True) if slices)))
    return tuple(out)


@lru_cache(maxsize=256)
def _declares(weapons: tuple[Weapon, ...], priority: str) -> tuple[str, ...]:
    """The type each weapon declares: its own, else the platoon's ``priority``."""
    return tuple(w.priority if w.priority != "none" else priority for w in weapons)


@lru_cache(maxsize=1024)
def _layout(weapons: tuple[Weapon, ...], teams: tuple[Team, ...], priority: str,
            declared: tuple[str, ...]
            ) -> tuple[tuple[int, ...], tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]]:
    """What :func:`allocate` follows for one question and the types declared by the
    weapons that hit: the order the extra hits go in (teams' indices), and the groups
    that take their hits in turn, each with its members (in that order) and the weapons
    it takes first (their indices, best first)."""
    order = tuple(sorted(range(len(teams)), key=lambda i: (
        *article_rank(teams[i], declared), teams[i].armoured, min(teams[i].hull, teams[i].turret))))
    return order, _groups(weapons, teams, priority, declared, order)


def article_rank(team: Team, declared: tuple[str, ...]) -> tuple[int, bool, bool]:
    """Where the article's rules put a team among those taking the extra hits: not gone
    to ground, then gone to ground, then bogged or bailed out (rules 2, 3); nearer before
    over 40 cm (rule 4); a declared priority type first (rule 6)."""
    return (2 if team.out else 1 if team.gtg else 0, team.far, team.kind not in declared)


@lru_cache(maxsize=4096)
def _groups(weapons: tuple[Weapon, ...], teams: tuple[Team, ...], priority: str,
            declared: tuple[str, ...], order: tuple[int, ...]
            ) -> tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]:
    """The groups that take their hits in turn when the teams are in ``order``: each with
    its members (in that order) and the weapons it takes first (best first, rules 6, 7)."""
    declares = _declares(weapons, priority)
    every = range(len(weapons))
    groups = []
    armours = sorted({min(t.hull, t.turret) for t in teams if t.armoured}, reverse=True)
    for armour in armours:  # the strongest armour takes the highest AT first
        groups.append((tuple(i for i in order if teams[i].armoured and min(
            teams[i].hull, teams[i].turret) == armour),
            tuple(sorted(every, key=lambda w: (-weapons[w].at, weapons[w].firepower, w)))))
    for kind in declared:
        if kind != "tank":  # tanks already take the highest AT (rule 7)
            rank = {w: (0 if declares[w] == kind else 1 if declares[w] == "none" else 2,
                        weapons[w].firepower, -weapons[w].at, w) for w in every}
            groups.append((tuple(i for i in order if teams[i].kind == kind),
                           tuple(sorted(every, key=rank.__getitem__))))
    groups.append((tuple(i for i in order if not teams[i].armoured
                         and teams[i].kind not in declared), tuple(every)))
    return tuple(groups)


@lru_cache(maxsize=1024)
def _places(order: tuple[int, ...]) -> tuple[int, ...]:
    """Each team's place in ``order`` (teams' indices)."""
    places = [0] * len(order)
    for place, i in enumerate(order):
        places[i] = place
    return tuple(places)


# The allocation's arithmetic, written once for the plan (one count of each weapon's
# hits, plain ints) and for the batched driver's columns (numpy arrays with an entry per
# sample): :func:`_wanted`, :func:`_taken`, :func:`_turns` (and :func:`_among`, which
# counts a member's turns among the first of the group's hits) use only operators that
# mean the same on both.

def _wanted(total: Any, teams: int, places: list[int]) -> Any:
    """Rules 1-4 and 6: every team takes an equal share of the ``total`` hits and the
    rest go one each in the order (:func:`_layout`): how many a group takes whose
    members stand at ``places`` in the order of ``teams`` teams."""
    share, extra = divmod(total, teams)
    wanted = share * len(places)
    for place in places:
        wanted = wanted + (place < extra)
    return wanted


def _taken(left: list[Any], ranking: tuple[int, ...], wanted: Any,
           done: Callable[[Any], bool] = not_, listed: list[int] | None = None
           ) -> list[Any]:
    """Rules 6 and 7: a group takes its ``wanted`` hits whole weapons at a time, in its
    ``ranking`` order, from ``left`` (each weapon's hits not yet dealt, which loses
    them), up to where it is ``done`` (it wants none more): how many of each weapon, in
    ranking order; or, given ``listed`` (the plan), the hits it takes put there, in
    that order, as weapon indices."""
    took: list[Any] = []
    for w in ranking:
        more = left[w]
        k = more - (more - wanted) * (more > wanted)  # all of them, or as many as wanted
        left[w] = more - k
        wanted = wanted - k
        if listed is None:
            took.append(k)
        else:
            listed += [w] * k
        if done(wanted):
            break
    return took


def _turns(r: Any, m: int) -> slice:
    """Rule 5: a group's hits go a hit at a time to each member in turn, weapon after
    weapon in the order it took them. Its members with an extra hit come first (they
    are first in the order), so every round goes all the way round but the last, and
    member ``r`` of ``m`` takes the group's ``r``-th hit and every ``m``-th after it."""
    return slice(r, None, m)


def _among(turns: slice, x: Any) -> Any:
    """How many of its ``turns`` (:func:`_turns`) a member takes among the group's first
    ``x`` hits."""
    rounds, rest = divmod(x, turns.step)  # every round gives it one, and so may the rest
    return rounds + (turns.start < rest)


@lru_cache(maxsize=1024)
def _deal(caps: tuple[int, ...]) -> tuple[tuple[slice, ...], ...]:
    """Where hits dealt a hit at a time to each member in turn that has room left
    (``caps``, whatever they are: with a moving bunker buster's hits placed first) go:
    the positions each member takes among the hits, as slices. The members with room go
    round after round; while the same ``width`` of them have room, the member ``r``-th
    among them takes its turns (:func:`_turns`) from where those rounds start."""
    out: list[list[slice]] = [[] for _ in caps]
    start = done = 0
    for level in sorted(set(caps) - {0}):  # the rounds up to the next member's last one
        room = [i for i, cap in enumerate(caps) if cap >= level]
        width = len(room)
        stop = start + (level - done) * width
        for r, i in enumerate(room):
            turns = _turns(r, width)
            out[i].append(slice(start + turns.start, stop, turns.step))
        start, done = stop, level
    return tuple(map(tuple, out))


def _bunker_buster_slots(hits: tuple[int, ...], busters: tuple[int, ...],
                         teams: tuple[Team, ...], order: tuple[int, ...],
                         taken: list[list[int]]) -> tuple[list[int], list[int]]:
    """Rule 9 in the allocation: the hits of the bunker busters that moved (``busters``)
    go first, one at a time, weapon by weapon, to the team they may hit with the fewest
    hits so far (the earlier in ``order`` on a tie), into ``taken``; with no such team
    they go nowhere. The other hits then level the count the same way over every team.
    Returns how many more hits each team takes and the hits of each weapon left to deal.

    Worked out by rounds: the busters' hits in turn (a round of the weapons with hits
    left after another) go round the teams they may hit in ``order``; the others raise
    the fewest counts to a common level and the rest go one each, in ``order``, to the
    teams at that level."""
    count = [0] * len(teams)
    may = [i for i in order if not teams[i].bunker_safe]
    if may:
        dealt = [w for r in range(max(hits[w] for w in busters)) for w in busters
                 if hits[w] > r]
        for q, i in enumerate(may):
            took = dealt[q::len(may)]
            taken[i] += took
            count[i] = len(took)
    left = [0 if w in busters else h for w, h in enumerate(hits)]
    spare = sum(left)
    # the level the other hits raise every count to: past the k lowest counts
    levels = sorted(count)
    level, k = levels[0], 1
    while True:
        while k < len(levels) and levels[k] <= level:
            k += 1
        step = spare // k if k == len(levels) else min(spare // k, levels[k] - level)
        if not step:
            break
        level += step
        spare -= step * k
    slots = [max(0, level - c) for c in count]
    for i in order:  # the rest (fewer than the teams at the level): one each, in order
        if not spare:
            break
        if count[i] <= level:
            slots[i] += 1
            spare -= 1
    return slots, left


class MixedParams(RulesParams):
    weapons: str = Field("6:10:3,4:2:6", description=WEAPONS_HELP,
                         examples=["6:10:3,4:2:6", "3:12:2", "8:2:6,2:9:3", "2:7:4,2:7:4,3:2:6",
                                   "0:10:3,5:2:6", "3:6:1:bb,4:2:6"])
    teams: str = Field("tank:6,tank:5/3,soft", description=TEAMS_HELP,
                       examples=["tank:6,tank:5/3,soft", "infantry,infantry:gtg,gun:dug",
                                 "tank:3,tank:3:far,infantry:out", "soft,soft:far,gun:gtg",
                                 "tank:2/1,infantry:dug,infantry:gtg:far,soft",
                                 "tank:6:gt,tank:5/3,infantry"])
    priority: Priority = Field("none", description="the type of team declared as the "
                               "priority target (rule 6), or none")
    target_skill: Skill = Field("trained", description="the target platoon's skill")
    concealed: bool = Field(False, description="the target is concealed")
    moved: bool = Field(False, description="the shooting teams moved this turn")
    moving_rof1: bool = Field(False, description="the weapon has ROF 1 and moved: +1 to hit")
    pinned_rof1: bool = Field(False, description="the weapons have ROF 1 and their teams are "
                              "pinned down: +1 to hit (once, even if they also moved)")
    hits_before: int = Field(0, ge=0, le=60, description="hits the target platoon already "
                             "took in this shooting step (pinning counts them all)")
    aspect: Aspect = Field("front", description="tanks: front or side armour hit")
    main_gun: bool = Field(True, description="firing the main gun (not machine-guns)")
    side_arc: bool = Field(False, description="the target is in the shooter's side or rear "
                           "arc (matters for Limited Vision)")
    passengers: str = Field("", description=PASSENGERS_HELP, examples=["2,0,3", "r2,0,0"])
    transport_motivation: Motivation = Field("confident", description="the transport "
                                             "platoon's motivation (armoured transports)")
    transport_reroll: bool = Field(False, description="the transport platoon re-rolls a "
                                   "failed motivation test")
    allocation: Literal["rules", "best"] = Field(
        "rules", description="how the owner allocates the hits where the rules leave a "
        "choice: rules (our fixed order: other teams before tanks, weaker armour first, "
        "then as listed) or best (the order with the fewest teams expected destroyed, "
        "worked out exactly; FoW article on shooting: the owner allocates)")

    @field_validator("weapons")
    @classmethod
    def _weapons(cls, v: str) -> str:
        parse_weapons(v)
        return v

    @field_validator("teams")
    @classmethod
    def _teams(cls, v: str) -> str:
        parse_teams(v)
        return v

    @model_validator(mode="after")
    def _consistent(self) -> MixedParams:
        if self.moving_rof1 and not self.moved:
            raise ValueError("moving_rof1 means the weapon moved: set moved=true as well")
        teams = parse_teams(self.teams)
        if self.passengers:
            _carrier(self)
        elif self.transport_reroll or self.transport_motivation != "confident":
            raise UsageError("transport_motivation and transport_reroll describe "
                             "passengers: give passengers= as well")
        if self.allocation == "best" and self.passengers:
            raise UsageError("allocation=best does not yet weigh passengers: use "
                             "allocation=rules")
        if self.allocation == "best":
            _best_allowed(self, teams)
        kinds = {t.kind for t in teams}
        for kind in (self.priority, *(w.priority for w in parse_weapons(self.weapons))):
            if kind != "none" and kind not in kinds:
                raise UsageError("the priority target {kind!r} is not among the teams",
                                 kind=kind)
        return self


def _carrier(p: MixedParams) -> Any:
    """The target platoon's transports and passengers (:mod:`carried`)."""
    from warroom.games.fow import carried

    teams = parse_teams(p.teams)
    return carried.parse_passengers(
        p.passengers, tuple(t.kind for t in teams),
        tuple(t.armoured and t.hull != t.turret for t in teams), p.transport_motivation,
        p.transport_reroll, p.target_rules)


def _best_allowed(p: MixedParams, teams: tuple[Team, ...]) -> None:
    """``allocation=best`` weighs every order of the teams the rules allow, for every
    count of hits: refused where a moving bunker buster's hits go first (rule 9, not
    weighed yet) or where the orders are too many to weigh."""

    if any(w.bb and (p.moved or w.moved) for w in parse_weapons(p.weapons)):
        raise UsageError("allocation=best does not yet weigh the hits of a bunker buster "
                         "that moved (rule 9): use allocation=rules")
    count = order_count(teams)
    if count > MAX_ORDERS:
        raise UsageError("allocation=best would weigh {n} orders of these teams, at most "
                         "{most}: use allocation=rules", n=count, most=MAX_ORDERS)


def _as_shot(p: MixedParams, weapon: Weapon, gtg: bool, far: bool) -> ShootParams:
    """One weapon's shot as ``fow.shoot`` sees it, for its to-hit number and re-rolls:
    gone to ground when every team is, long range when every team is over 40 cm or the
    weapon's shots are; the weapon's own flags and rules on top of the platoon's."""
    rules = tuple(sorted({*p.rules, *weapon.rules}))
    return _shot(p.target_skill, p.concealed, gtg, far or weapon.far, p.moved or weapon.moved,
                 p.moving_rof1 or weapon.rof1, p.pinned_rof1 or weapon.pinned, p.main_gun,
                 p.side_arc, rules, p.target_rules)


@lru_cache(maxsize=256)
def _shot(skill: str, concealed: bool, gtg: bool, far: bool, moved: bool, moving_rof1: bool,
          pinned_rof1: bool, main_gun: bool, side_arc: bool, rules: tuple[str, ...],
          target_rules: tuple[str, ...]) -> ShootParams:
    return ShootParams(target_skill=skill, concealed=concealed,
                       gone_to_ground=gtg, range_cm=41 if far else 40, moved=moved,
                       moving_rof1=moving_rof1, pinned_rof1=pinned_rof1, main_gun=main_gun,
                       side_arc=side_arc, rules=rules, target_rules=target_rules)


Saves = ExtraSaves
"""The target's extra saves against heavy (firepower 5 or 6) weapons (common's rule)."""


@lru_cache(maxsize=4096)
def _hit_spec(team: Team, weapon: Weapon, armour: int, saves: Saves) -> HitSpec:
    far = (team.far or weapon.far) and team.armoured
    return HitSpec(target=team.kind, armour=armour + (1 if far else 0),
                   at=weapon.at, firepower=weapon.firepower, dug_in=team.dug,
                   gone_to_ground=team.gtg and team.kind == "gun",  # only guns' saves
                   gun_shield=team.shield, **saves.against(weapon.firepower),
                   bunker_buster=weapon.bb, rule="fow.shoot_mixed")


_WORST = {"destroyed": 2, "bailed_out": 1, "unharmed": 0}


@lru_cache(maxsize=4096)
def _team_roll(team: Team, weapons: tuple[Weapon, ...], took: tuple[int, ...],
               saves: Saves) -> Any:
    """The rolls one team makes for the hits it took; its worst result. The same function
    for the same team and hits (cached, and :func:`fixed`): the exact driver keys its
    distribution once."""
    groups = tuple((weapons[w], took.count(w)) for w in sorted(set(took)))
    split = team.armoured and team.hull != team.turret
    if len(groups) == 1 and not split:  # one weapon's hits: the per-hit chain itself
        weapon, k = groups[0]
        return team_chain(_hit_spec(team, weapon, team.hull, saves), k)

    steps = tuple(_hit_by(team, weapon, k, saves) for weapon, k in groups)
    # a tank whose hits split between hull and turret branches on each weapon's split,
    # and a team hit by four weapons or more has many paths through them: its weapons
    # as stages over the worst result so far, so the exact driver works each weapon out
    # once per worst result instead of once per path through the others (a gun tank
    # taking the 5+ hits of six weapons: its table about twice as quick; with fewer
    # weapons the stages cost the exact odds more than the paths they save)
    staged = len(steps) > 3 or (split and len(steps) > 1)

    def chain(d: Dice) -> str:
        if staged:
            (worst,), _ = d.stages((0,), (), rounds=0, opening=steps)
        else:
            worst = 0
            for step in steps:
                (worst,) = step((worst,), d)
        return _BY_RANK[worst]

    return fixed(chain)


_BY_RANK = ("unharmed", "bailed_out", "destroyed")


@lru_cache(maxsize=4096)
def _hit_by(team: Team, weapon: Weapon, k: int, saves: Saves) -> Stage[tuple[int]]:
    """One weapon's ``k`` hits on ``team``: the stage from the team's worst result so far
    (its rank in :data:`_WORST`) to the worst after them."""
    split = team.armoured and team.hull != team.turret
    turret_at = Target.of(TURRET_AT, msg("4+ hits the turret"))
    # each (armour, hits): its chain and its name, made once (the step runs at every
    # replay of the team's chain)
    made: dict[tuple[int, int], tuple[Any, Msg]] = {}

    def step(s: tuple[int], d: Dice) -> tuple[int]:
        worst = s[0]
        parts = [(team.hull, k)]
        if split:
            turret = d.pool(k, turret_at, rule="fow.shoot_mixed.turret",
                            what="hull or turret")
            parts = [(team.hull, k - turret), (team.turret, turret)]
        for armour, hits in parts:
            if hits:
                found = made.get((armour, hits))
                if found is None:
                    found = made[armour, hits] = (
                        team_chain(_hit_spec(team, weapon, armour, saves), hits),
                        _hits_of(weapon, hits))
                # each weapon's hits as one item: its distribution is worked out once
                # per question, whatever else the team took
                res = d.one(found[0], LABELS, rule="fow.shoot_mixed.weapon", what=found[1])
                worst = max(worst, _WORST[res])
        return (worst,)

    return fixed(step, ("fow.shoot_mixed.hit_by", team, weapon, k, saves))


@lru_cache(maxsize=1024)
def _hits_of(weapon: Weapon, k: int) -> Msg:
    return msg("{k} × (AT {at}, firepower {fp}+)", k=k, at=weapon.at, fp=weapon.firepower)


class GunTanks(NamedTuple):
    """How rule 8 splits one question's hits: the allocation over every team, and with
    some tanks of the declared gun-tank type and other teams beside them, the gun tanks'
    and the other teams' indices and allocations, and what each weapon's 5+ rolls are."""

    whole: Allocation
    gun: tuple[int, ...] = ()
    rest: tuple[int, ...] = ()
    parts: tuple[Allocation, Allocation] | None = None
    target: Target | None = None
    what: tuple[Msg, ...] = ()


@lru_cache(maxsize=256)
def _gun_tanks(weapons: tuple[Weapon, ...], teams: tuple[Team, ...], priority: str,
               moved: bool) -> GunTanks:
    whole = _allocation(weapons, teams, priority, moved)
    gun = tuple(i for i, team in enumerate(teams) if team.gt)
    if not gun or len(gun) == len(teams):
        return GunTanks(whole)
    rest = tuple(i for i in range(len(teams)) if not teams[i].gt)
    return GunTanks(whole, gun, rest, tuple(  # type: ignore[arg-type]
        _allocation(weapons, tuple(teams[i] for i in members), priority, moved)
        for members in (gun, rest)), Target.of(5, msg("gun tank declared")),
        tuple(msg("gun-tank rolls for AT {at} firepower {fp}+", at=weapon.at,
                  fp=weapon.firepower) for weapon in weapons))


def _gun_tank_plan(d: Dice, counts: tuple[int, ...], split: GunTanks
                   ) -> tuple[tuple[int, ...], ...]:
    """Rule 8: with some tanks of the declared gun-tank type and other teams beside them,
    each hit rolls 5+; those hits are allocated among the gun tanks and the rest among
    the other teams, each by :func:`allocate` (``split``: :func:`_gun_tanks`). Without
    both, the plain allocation."""
    if split.parts is None:
        return split.whole.plan(counts)
    to_gun = tuple([int(d.pool(count, split.target,  # type: ignore[arg-type]
                                rule="fow.shoot_mixed.gun_tank", what=what)) if count else 0
                    for count, what in zip(counts, split.what, strict=True)])
    plan: list[tuple[int, ...]] = [()] * (len(split.gun) + len(split.rest))
    for members, allocation, hits in (
            (split.gun, split.parts[0], to_gun),
            (split.rest, split.parts[1], tuple([c - g for c, g in zip(counts, to_gun,
                                                                      strict=True)]))):
        for i, took in zip(members, allocation.plan(hits), strict=True):
            plan[i] = took
    return tuple(plan)


@lru_cache(maxsize=4096)
def _hit_names(weapons: tuple[Weapon, ...], took: tuple[int, ...]) -> tuple[Msg, ...]:
    return tuple(msg("{k} × (AT {at}, firepower {fp}+)", k=took.count(w), at=weapons[w].at,
                fp=weapons[w].firepower) for w in sorted(set(took)))


def _cost(p: MixedParams) -> int:
    """What exact odds cost, in replays of a small procedure: the allocation and the
    teams' rolls are worked out once per count of hits of each weapon, or with a gun-tank
    declaration once per split of each weapon's hits between the two groups; each time
    worth about two small replays per target team, so that the largest question within
    the budget (200,000) takes about a second of CPU on the project's VM (three weapons
    of 12 dice at 8 teams: 35,152, about 0.15 s; four of 8: 104,976, about 0.6 s); past
    it, the estimate."""
    teams = parse_teams(p.teams)
    declared = any(t.gt for t in teams) and not all(t.gt for t in teams)
    out = 2 * len(teams)
    if p.allocation == "best":  # each order weighed costs about a small replay

        out *= order_count(teams)
    for w in parse_weapons(p.weapons):
        out *= (w.dice + 1) * (w.dice + 2) // 2 if declared else w.dice + 1
    return out


def _sample_cost(p: MixedParams) -> float:
    """What a sample of the estimate costs, in the replays of :func:`_cost`, counted on
    the generous side. Where the batched driver deals the hits in columns
    (:func:`in_columns`), one and a tenth of one per target team (the full estimate, 38,415
    samples, of four weapons at 8 teams takes about 60 ms of CPU on this project's
    machine, 0.6 replays a sample; six weapons of 30 dice at 20 teams about 100 ms, one
    a sample): exact odds are then kept within the plain budget (half a second), four
    weapons of 9 dice at 8 teams, and 10 dice get the estimate. Otherwise each sample
    runs alone: one per target team and nine besides (four weapons at 8 teams 0.9-1.3 s,
    10-13 replays a sample), so exact odds are kept where they would cost about as
    much: four weapons of 13 dice at 8 teams answer exactly (about 1.4 s)."""
    teams = len(parse_teams(p.teams))
    return 1 + teams / 10 if in_columns(p) else 9 + teams


def in_columns(p: MixedParams) -> bool:
    """Whether the batched Monte Carlo driver deals this shot's hits in columns (the
    shot's columnar form: :func:`dealt_groups`): not with passengers, the owner's best
    allocation, gun tanks beside other teams (rule 8 rolls for each hit) or bunker
    busters that moved (rule 9 deals their hits first)."""
    teams = parse_teams(p.teams)
    gun_tanks = any(t.gt for t in teams) and not all(t.gt for t in teams)
    busters = any(w.bb and (p.moved or w.moved) for w in parse_weapons(p.weapons))
    return not (p.passengers or p.allocation != "rules" or gun_tanks or busters)


@procedure(
    "fow.shoot_mixed", title="Several weapons at a mixed platoon",
    summary="Roll to hit with each weapon, allocate the hits over teams of different "
            "kinds and armour (rules 1-9), then roll each team's saves, armour and "
            "firepower tests; 5 hits pin.",
    params=MixedParams,
    cost=_cost,
    sample_cost=_sample_cost,
    outcome=outcome(("hits", "int", "hits scored by all the weapons"),
                    ("destroyed", "int", "teams destroyed"),
                    ("bailed_out", "int", "tanks bailed out"),
                    ("pinned", "bool", "the target platoon is pinned down"),
                    *PASSENGER_OUTCOME),
    source="FoW article on shooting, allocation rules 1-9; FoW article on the effects of hits",
    note="Allocation as the article orders it: an equal share each, the rest first to teams "
         "not gone to ground, then gone to ground, then bogged or bailed out, nearer before "
         "over 40 cm, then a declared priority type (priority= for every weapon, or a "
         "type after a weapon for its own). Our reading where the article leaves the "
         "owner a choice: other teams take the rest before tanks, weaker armour first; "
         "tanks take the highest-AT hits, "
         "the strongest armour first, so weaker armour gets the lower AT; a priority type "
         "takes the hits of the weapons that declared it, the best firepower first, then "
         "those of weapons that declared nothing, then the rest (man-packed guns that the "
         "owner may count as either kind: give them as the kind chosen); within each, "
         "hits are dealt a team at a time, weapon by weapon (rule 5). A tank with a "
         "different "
         "hull and turret armour counts the weaker for allocation; each hit then rolls 4+ "
         "for the turret (rule 7). Each weapon rolls to hit with its own number (the "
         "article: each shooting team finds its own easiest target), as fow.shoot works "
         "it out: +1 for gone to ground when every team is concealed and gone to ground, "
         "+1 for range when every team is over 40 cm or the weapon is flagged far, and "
         "the weapon's own flags (moved, rof1, pinned) and special rules on top of the "
         "platoon's; far tanks, and tanks hit by a far weapon, get +1 armour. Pinning "
         "counts every hit of the shooting step (reference card, shooting step 9): "
         "hits_before adds the hits of earlier shots. The sources say nothing of a "
         "tank already bailed out that is bailed out again: it counts as bailed out. "
         "Special rules work as in fow.shoot (to-hit modifiers and re-rolls, Schürzen and "
         "Improvised Armour against firepower 5 or 6, Quality of Quantity). Gun tanks (rule "
         "8): tanks flagged gt are the declared type; when other teams are present each "
         "hit rolls 5+, those hits are allocated among the gun tanks and the rest among "
         "the other teams, both as above. Bunker busters and breakthrough guns (weapons "
         "flagged bb) leave infantry no save, as in fow.shoot; when the shooters moved "
         "(rule 9), their hits go first, a hit at a time to the team with the fewest "
         "that they may hit (not a vehicle, unless bogged down or bailed out); the other "
         "hits then even out the count over every team. Hits no team may take are lost "
         "but still count toward pinning (our reading: the article is silent). The "
         "article gives the allocation to the target's owner: allocation=best weighs "
         "every order of the teams the rules rank alike (which of them take the extra "
         "hits and which weapon's hits; vehicles kept unarmoured first, weakest armour "
         "first) and keeps the plan with the fewest teams expected destroyed, then the "
         "fewest tanks expected bailed out, then our fixed order's, each team's chances "
         "worked out exactly from its own rolls; not yet with a bunker buster that "
         "moved or with passengers. Transports with passengers (passengers=) roll as "
         "fow.shoot passengers=N does for one vehicle (fow.passengers' rule); for the "
         "platoon, an armoured transport destroyed or bailed out makes the transport "
         "platoon test motivation once, and one unarmoured vehicle destroyed destroys "
         "every unarmoured vehicle of the platoon and pins it (FoW article on the effects "
         "of hits).")
def shoot_mixed(p: MixedParams, d: Dice) -> Mapping[str, Any]:
    n = len(parse_weapons(p.weapons))

    def row(last: Shot, _: int) -> tuple[Any, ...]:
        total, destroyed, bailed = last[0], last[n + 1], last[n + 2]
        by_hits = pinned(d, p, total, p.hits_before, "fow.shoot_mixed")
        if not p.passengers:
            return total, destroyed, bailed, by_hits, 0, False, False
        lost, dismounted, rear, by_transports = last[n + 3:]
        return total, destroyed, bailed, by_hits or by_transports, lost, dismounted, rear

    # the last states' outcomes as rows: exact odds map each distinct last state once
    start = (0,) * (n + 1) + ((0, 0, 0, False, False, False) if p.passengers else (0, 0))
    return d.finish(start, (), rounds=0, opening=_stages(p),
                    outcome=rows(("hits", "destroyed", "bailed_out", "pinned",
                                  "passengers_destroyed", "dismounted", "sent_to_rear"), row))


Shot = tuple[int, ...]
"""Between the stages: (hits of all the weapons, each weapon's hits, teams destroyed,
tanks bailed out); the first after the hits are resolved, the weapons' before."""


@lru_cache(maxsize=256)
def _stages(p: MixedParams) -> tuple[Stage[Shot], Stage[Shot]]:
    """The shot as two stages over :data:`Shot`: the to-hit rolls, then the allocation
    and every team's rolls. The exact driver works the second out once per distinct
    count of each weapon's hits (not once per path to it) and merges what ends alike:
    the hits in all, destroyed and bailed out."""
    weapons, teams = parse_weapons(p.weapons), parse_teams(p.teams)
    n = len(weapons)
    saves = Saves.of(p.target_rules, p.aspect == "side")
    anonymous = tuple(team._replace(n=0) for team in teams)
    rolls: list[dict[tuple[int, ...], Any]] = [{} for _ in teams]  # hits it took -> chain
    carrier = _carrier(p) if p.passengers else None
    labels = carrier.labels if carrier is not None else LABELS
    after = (0, 0, 0, False, False, False) if carrier is not None else (0, 0)

    def chain_of(i: int, took: tuple[int, ...]) -> Any:
        """Team ``i``'s rolls for the hits it took: a transport's with its passengers'."""
        if carrier is None or carrier.carried[i] is None:
            return _team_roll(anonymous[i], weapons, took, saves)
        from warroom.games.fow import carried

        return carried.carrier_roll(tuple(
            (_hit_spec(anonymous[i], weapons[w], teams[i].hull, saves), took.count(w))
            for w in sorted(set(took))), carrier.carried[i])

    def groups(plan: tuple[tuple[int, ...], ...]) -> dict[Any, list[int]]:
        """The teams that roll together (alike but for their number, with the same
        hits): their chain -> their indices."""
        out: dict[Any, list[int]] = {}
        for i, took in enumerate(plan):
            if took:
                chain = rolls[i].get(took)
                if chain is None:
                    chain = rolls[i][took] = chain_of(i, took)
                members = out.get(chain)
                if members is None:
                    out[chain] = [i]
                else:
                    members.append(i)
        return out

    # each weapon's dice, to-hit number, re-rolls, the note naming a re-roll and what
    # it rolls, worked out once
    shots = tuple((weapon.dice, t, reroll, note, _to_hit_what(weapon))
                  for weapon, (t, reroll, note) in zip(weapons, _to_hit(p, weapons, teams),
                                                        strict=True))

    def to_hit(s: Shot, d: Dice) -> Shot:
        hits = []
        for dice, t, reroll, note, what in shots:
            if note is not None:  # each weapon its own to-hit number and re-rolls
                d.note("fow.shoot_mixed.reroll", "{name}: failed to-hit rolls are re-rolled",
                       name=note)
            hits.append(d.pool(dice, t, rule="fow.shoot_mixed.to_hit", what=what,
                               reroll=reroll))
        return (0, *hits, *after)

    # rule 8's split rolls dice; without it the allocation and the groups of teams
    # rolling together follow from the hits alone: kept per count of each weapon's hits
    # where no one reads the story (exact odds and Monte Carlo ask again and again)
    split = _gun_tanks(weapons, teams, p.priority, p.moved)
    if p.allocation == "best":  # the owner's best plan where the rules leave a choice

        split = owners(split, saves)
    declared = split.parts is not None
    busters = split.whole.busters  # rule 9 may leave hits with no team to go to
    # (a long estimate meets nearly every count of hits once: past QUICK_TRIAL kept with
    # few found again, it keeps no more, which would cost memory and the garbage
    # collector's passes over them, about a sixth of each sample at 6 x 30 dice)
    quick: dict[tuple[int, ...], list[tuple[int, Any, Any, Any]]] = {}
    keep, reused = True, 0

    def resolve(s: Shot, d: Dice) -> Shot:
        nonlocal keep, reused
        counts = s[1:n + 1]  # the allocation depends on the hits: known here
        found = None if d.explains or declared else quick.get(counts)
        if found is not None:
            reused += 1
        else:
            found = _resolved(d, counts)
            if keep and not d.explains and not declared:
                if len(quick) >= QUICK_SIZE:
                    quick.clear()
                    reused = 0
                elif len(quick) == QUICK_TRIAL and reused * 4 < QUICK_TRIAL:
                    keep = False
                if keep:
                    quick[counts] = found
        # the teams' rolls, a group of alike teams after another, counted together
        res = d.tally(found, labels, rule="fow.shoot_mixed.team")
        if carrier is not None:  # the transports' rules for the platoon (carried.py)
            from warroom.games.fow import carried

            return (sum(counts), *(0,) * n, *carried.aftermath(d, res, carrier))
        return (sum(counts), *(0,) * n, res["destroyed"], res["bailed_out"])

    def _resolved(d: Dice, counts: tuple[int, ...]) -> list[tuple[int, Any, Any, Any]]:
        """The allocation (its notes), and the groups of teams that roll together with
        their chain and names (none are built where no one reads them)."""
        plan = _gun_tank_plan(d, counts, split)
        lost = sum(counts) - sum(map(len, plan)) if busters else 0
        if lost:
            d.note("fow.shoot_mixed.bunker_buster", nmsg(
                "one hit of a bunker buster that moved has no team it may go to: no effect",
                "{n} hits of a bunker buster that moved have no team they may go to: no "
                "effect", n=lost))
        if d.explains and p.allocation == "best":

            loss = plan_loss(weapons, teams, plan, saves)
            d.note("fow.shoot_mixed.best", "the owner allocates the hits where the rules "
                   "leave a choice so as to lose the fewest teams: {destroyed} teams "
                   "expected destroyed, {bailed} tanks expected bailed out",
                   destroyed=_fraction(loss[0]), bailed=_fraction(loss[1]))
        if d.explains:
            for i, took in enumerate(plan):
                if took:
                    d.note("fow.shoot_mixed.allocate", "{team} is hit: {hits}",
                           team=teams[i].label(), hits=_hit_names(weapons, took))
        if d.explains:
            return [(len(members), chain, *_group_names(teams, members))
                    for chain, members in groups(plan).items()]
        return [(len(members), chain, "", ()) for chain, members in groups(plan).items()]

    rolling = fixed(to_hit, ("fow.shoot_mixed", "to_hit", p))
    resolving = fixed(resolve, ("fow.shoot_mixed", "resolve", p))
    if in_columns(p):
        # the batched Monte Carlo driver rolls the hits of many samples at once (each
        # weapon's pool: _pool_on), deals them (their counts by team and weapon:
        # dealt_groups) and draws each team's result from its weapons' exact
        # transitions (_weapons_on: the steps of its own chain)
        pools = tuple(_pool_on(dice, t.final, reroll) for dice, t, reroll, _, _ in shots)
        columns(rolling, partial(_to_hit_columns, pools, len(after)))
        columns(resolving, partial(_resolve_columns, split.whole, anonymous,
                                   saves, len(after)))
    return rolling, resolving


def _to_hit_columns(pools: tuple[Any, ...], after: int, values: list[Any], dice: Any
                    ) -> list[Any]:
    """The shot's first stage (every weapon's to-hit roll) for many samples at once
    (context.columns): each weapon's hits drawn by the driver from its pool's exact
    chances (:func:`_pool_on`)."""
    import numpy as np

    zero = np.zeros(len(values[0]), dtype=np.int64)
    return [zero, *(dice.draw(pool, [zero])[0] for pool in pools), *[zero] * after]


@lru_cache(maxsize=1024)
def _pool_on(dice: int, final: int, reroll: Literal["none", "misses"]) -> Any:
    """One weapon's to-hit roll (``dice`` needing ``final``) as a stage on its count of
    hits (from none), as the shot's first stage rolls it."""

    def step(_: tuple[int], d: Dice) -> tuple[int]:
        return (d.pool(dice, final, rule="fow.shoot_mixed.to_hit", what="", reroll=reroll),)

    return fixed(step, ("fow.shoot_mixed.pool", dice, final, reroll))


def _resolve_columns(a: Allocation, teams: tuple[Team, ...], saves: Saves, after: int,
                     values: list[Any], dice: Any) -> list[Any]:
    """The shot's second stage (the allocation and the teams' rolls) for many samples at
    once (context.columns: ``values`` the samples' :data:`Shot` as an array per
    position, ``dice`` the batched driver's): the hits dealt by :func:`dealt_groups`;
    then each team's result, the worst of what each weapon's hits do to it (its own
    chain, :func:`_team_roll`, keeps the worst of the weapons' rolls in turn), each
    weapon's rolls independent given its hits: the driver draws the worst of them
    (``dice.most``) from the exact transitions of :func:`_weapons_on` (:func:`_hit_by`'s
    rolls from unharmed), worked out once per kind of team, weapon and count of hits."""
    import numpy as np

    n = len(a.weapons)
    hits = np.stack(values[1:n + 1], axis=1).astype(np.int64)
    dealt = list(dealt_groups(a, hits))
    kinds = tuple(dict.fromkeys(teams))
    kind = [kinds.index(team) for team in teams]
    most = max(int(took.max()) for _, _, _, took in dealt) + 1 if dealt else 1
    # each (kind, weapon, hits) as a value of _weapons_on's part, from unharmed
    subs = [(c, w, k, 0) for c in range(len(kinds)) for w in range(n) for k in range(most)]
    fn = _weapons_on(kinds, a.weapons, saves)
    destroyed = np.zeros(len(hits), dtype=np.int64)
    bailed = np.zeros(len(hits), dtype=np.int64)
    for sel, members, ranking, took in dealt:
        hit = np.flatnonzero(took.any(axis=(0, 1)))  # the weapons that hit a member
        if not len(hit):
            continue
        first = np.array([[(kind[i] * n + ranking[j]) * most for j in hit.tolist()]
                          for i in members], dtype=np.int32)
        # each member's worst result: the worst of its weapons' independent rolls
        worst = dice.most(fn, subs, took[:, :, hit] + first, 3)
        destroyed[sel] += (worst == 2).sum(axis=1)
        bailed[sel] += (worst == 1).sum(axis=1)
    zero = np.zeros(len(hits), dtype=np.int64)
    return [hits.sum(axis=1), *[zero] * n, destroyed, bailed,
            *[zero] * (after - 2)]


@lru_cache(maxsize=256)
def _weapons_on(kinds: tuple[Team, ...], weapons: tuple[Weapon, ...], saves: Saves) -> Any:
    """The rolls a team of a kind makes for ``k`` hits of one weapon: a stage on (the
    kind's index in ``kinds``, the weapon's index, k, the worst result so far), the
    worst after :func:`_hit_by`'s rolls, as the team's own chain rolls them."""

    def step(sub: tuple[int, int, int, int], d: Dice) -> tuple[int, int, int, int]:
        c, w, k, worst = sub
        if not k:
            return sub
        return (c, w, k, _hit_by(kinds[c], weapons[w], k, saves)((worst,), d)[0])

    return fixed(step, ("fow.shoot_mixed.weapons_on", kinds, weapons, saves))


def _fraction(x: Any) -> str:
    """An expected count for the story: exact, as a fraction, and its decimal."""
    return str(x) if x.denominator == 1 else f"{x} ≈ {float(x):.3f}"


def fire_stages(p: MixedParams) -> tuple[Stage[Shot], Stage[Shot]]:
    """The shot's two stages (to hit; the allocation and the teams' rolls) over
    :data:`Shot`, for a rule that fires the same way inside its own stages (an
    assault's defensive fire)."""
    return _stages(p)


@lru_cache(maxsize=256)
def _to_hit(p: MixedParams, weapons: tuple[Weapon, ...], teams: tuple[Team, ...]
            ) -> tuple[tuple[Target, Literal["none", "misses"], Msg | None], ...]:
    """Each weapon's to-hit number, re-rolls and the note naming a re-roll (the first
    weapon with a given re-roll only), worked out once per question."""
    gtg, far = all(x.gtg for x in teams), all(x.far for x in teams)
    out = []
    noted: set[str] = set()
    for weapon in weapons:
        shot = _as_shot(p, weapon, gtg, far)
        reroll, why = to_hit_reroll(shot)
        note = msg(why) if why and why not in noted else None
        noted.add(why)
        out.append((to_hit_target(shot), reroll, note))
    return tuple(out)


@lru_cache(maxsize=256)
def _to_hit_what(weapon: Weapon) -> Msg:
    return msg("to hit with AT {at} firepower {fp}+", at=weapon.at, fp=weapon.firepower)


def _group_names(teams: tuple[Team, ...], members: list[int]
                 ) -> tuple[Msg, tuple[Msg, ...]]:
    """A group of teams rolling together, for the story: the team or how many, and
    each team's name."""
    names = tuple(teams[i].label() for i in members)
    return names[0] if len(names) == 1 else nmsg(*GROUP_NAMES[teams[members[0]].kind],
                                                    n=len(names)), names


# ---------------------------------------------------------------- the owner's best
# The owner's best hit allocation for ``fow.shoot_mixed`` (``allocation=best``).
#
# The FoW article on shooting gives the allocation to the target's owner ("Za
# przydzielenie trafień ... odpowiada ich właściciel") within rules 1-9. The rules fix
# how many hits each team takes and, in the order they rank the teams, which teams take
# the hits left over (rules 2-4, 6); rule 7 ranks vehicles (unarmoured first, then the
# weakest armour) and hands the highest-AT hits to armoured vehicles; rule 5 spreads each
# weapon's hits evenly. What they leave open is the order of teams they rank alike: which
# of them take the extra hits, and which of them take which weapon's hits.
#
# ``allocation=rules`` (the default) orders such teams by our fixed reading (other teams
# before tanks, weaker armour first, then as listed). ``allocation=best`` weighs every
# order of them the rules allow and keeps the one with the least **expected loss**: the
# expected number of teams destroyed; on a tie the fewer tanks expected bailed out; on a
# tie again, the fixed order's plan (then the first order weighed). Each order's plan is
# dealt by the same rules (above), and each team's chances come
# from the exact driver running that team's own rolls (``team_roll``, the chain
# the shot then rolls), so there is no second formula for a team's fate.

MAX_ORDERS = 720
"""The most orders of the teams ``allocation=best`` weighs for one count of hits."""

Loss = tuple[Fraction, Fraction]
"""Expected (teams destroyed, tanks bailed out)."""


@lru_cache(maxsize=8192)
def team_loss(team: Team, weapons: tuple[Weapon, ...], took: tuple[int, ...],
              saves: Saves) -> Loss:
    """One team's expected loss for the hits it took (weapon indices): the exact odds of
    the rolls it makes for them (``team_roll``), destroyed and bailed out."""
    if not took:
        return Fraction(0), Fraction(0)
    chain = team_roll(team, weapons, took, saves)
    w = exact_run(lambda d: {"label": chain(d)}, ("label",), all_concrete=True)
    weights = {key[0]: v for key, v in w.weights.items()}
    return (Fraction(weights.get("destroyed", 0), w.denominator),
            Fraction(weights.get("bailed_out", 0), w.denominator))


def plan_loss(weapons: tuple[Weapon, ...], teams: tuple[Team, ...],
              plan: tuple[tuple[int, ...], ...], saves: Saves) -> Loss:
    """A plan's expected loss: the sum of its teams' (teams roll independently)."""
    destroyed, bailed = Fraction(0), Fraction(0)
    for team, took in zip(teams, plan, strict=True):
        a, b = team_loss(team, weapons, took, saves)
        destroyed += a
        bailed += b
    return destroyed, bailed


def _vehicle(team: Team) -> tuple[bool, int] | None:
    """Rule 7's rank of a vehicle (unarmoured first, then the weakest armour); None for
    infantry and guns, which the rule does not rank against vehicles."""
    if team.kind == "soft":
        return (False, 0)
    if team.kind == "tank":
        return (True, min(team.hull, team.turret))
    return None


def _arrangements(kinds: tuple[Team, ...], counts: tuple[int, ...]
                  ) -> Iterator[tuple[int, ...]]:
    """The distinct sequences of ``kinds`` (by index) with ``counts`` of each, in which
    vehicles keep rule 7's order."""
    n = sum(counts)
    left = list(counts)
    seq: list[int] = []

    def walk(last: tuple[bool, int] | None) -> Iterator[tuple[int, ...]]:
        if len(seq) == n:
            yield tuple(seq)
            return
        for k, team in enumerate(kinds):
            if not left[k]:
                continue
            v = _vehicle(team)
            if v is not None and last is not None and v < last:
                continue
            left[k] -= 1
            seq.append(k)
            yield from walk(v if v is not None else last)
            seq.pop()
            left[k] += 1

    yield from walk(None)


@lru_cache(maxsize=1024)
def _blocks(teams: tuple[Team, ...], declared: tuple[str, ...]
            ) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """The teams the article ranks alike (rules 2-4, 6), block after block, each with
    every order of it the rules allow: any order, but vehicles in rule 7's; teams alike
    but for their number are interchangeable, so one order stands for all of theirs."""
    ranked = sorted(range(len(teams)), key=lambda i: article_rank(teams[i], declared))
    blocks: list[tuple[tuple[int, ...], ...]] = []
    for _, members in groupby(ranked, key=lambda i: article_rank(teams[i], declared)):
        kinds: list[Team] = []
        of: list[list[int]] = []
        for i in members:
            alike = teams[i]._replace(n=0)
            if alike in kinds:
                of[kinds.index(alike)].append(i)
            else:
                kinds.append(alike)
                of.append([i])
        block = []
        for seq in _arrangements(tuple(kinds), tuple(map(len, of))):
            taken = [0] * len(kinds)
            out = []
            for k in seq:
                out.append(of[k][taken[k]])
                taken[k] += 1
            block.append(tuple(out))
        blocks.append(tuple(block))
    return tuple(blocks)


@lru_cache(maxsize=1024)
def orders(teams: tuple[Team, ...], declared: tuple[str, ...], first: tuple[int, ...]
           ) -> tuple[tuple[int, ...], ...]:
    """Every order of the teams the rules allow (:func:`_blocks`), the fixed order
    (``first``) first."""
    found = [first]
    for parts in product(*_blocks(teams, declared)):
        order = tuple(i for part in parts for i in part)
        if order != first:
            found.append(order)
    return tuple(found)


def order_count(teams: tuple[Team, ...]) -> int:
    """How many orders :func:`orders` weighs at most, whichever types are declared."""
    return max(prod(len(block) for block in _blocks(teams, declared))
               for declared in ((), *((kind,) for kind in KINDS), tuple(KINDS)))


class BestAllocation(Allocation):
    """:class:`Allocation` with the owner's choice: of the orders the rules allow
    (:func:`orders`), the plan with the least expected loss (see the module)."""

    __slots__ = ("losses", "memo", "saves")

    def __init__(self, rules: Allocation, saves: Saves) -> None:
        super().__init__(rules.weapons, rules.teams, rules.priority, rules.moved)
        self.saves = saves
        self.memo: dict[tuple[int, ...], tuple[tuple[int, ...], ...]] = {}
        # (team, hits): its loss, and the teams destroyed as a float
        self.losses: dict[tuple[int, tuple[int, ...]], tuple[Loss, float]] = {}

    def plan(self, hits: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
        found = self.memo.get(hits)
        if found is None:
            found = self.memo[hits] = self._best(hits)
        return found

    def _best(self, hits: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
        """The plan with the least expected loss, the first weighed on a tie: each plan
        weighed in floats, then the few within rounding of the least (every plan whose
        loss is exactly the least among them) again in exact fractions, in order."""
        declared = declared_types(self, hits)
        seen: set[tuple[tuple[int, ...], ...]] = set()  # orders often deal alike
        weighed: list[tuple[float, tuple[tuple[int, ...], ...]]] = []
        for order in orders(self.teams, declared, fixed_order(self, declared)):
            plan = plan_in_order(self, hits, declared, order)
            if plan in seen:
                continue
            seen.add(plan)
            weighed.append((sum(self._loss(i, took)[1] for i, took in enumerate(plan)
                                if took), plan))
        low = min(destroyed for destroyed, _ in weighed)
        best: tuple[tuple[int, ...], ...] = ()
        least: Loss | None = None
        for destroyed, plan in weighed:
            if destroyed > low + 1e-9:  # more than rounding above the least
                continue
            exact = (sum((self._loss(i, took)[0][0] for i, took in enumerate(plan) if took),
                         Fraction(0)),
                     sum((self._loss(i, took)[0][1] for i, took in enumerate(plan) if took),
                         Fraction(0)))
            if least is None or exact < least:
                best, least = plan, exact
        return best

    def _loss(self, i: int, took: tuple[int, ...]) -> tuple[Loss, float]:
        """Team ``i``'s expected loss for the hits it took, and the teams it expects
        destroyed as a float."""
        found = self.losses.get((i, took))
        if found is None:
            loss = team_loss(self.teams[i], self.weapons, took, self.saves)
            found = self.losses[i, took] = (loss, float(loss[0]))
        return found


def owners(split: GunTanks, saves: Saves) -> GunTanks:
    """Rule 8's split with the owner's best allocation in the whole and in each part
    (the parts are disjoint teams, so the best of each is the best of both)."""
    parts = split.parts
    return split._replace(
        whole=BestAllocation(split.whole, saves),
        parts=None if parts is None else (BestAllocation(parts[0], saves),
                                          BestAllocation(parts[1], saves)))


PROCEDURES = (shoot_mixed,)
