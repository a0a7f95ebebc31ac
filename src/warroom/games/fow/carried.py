"""Transports with passengers inside ``fow.shoot_mixed`` (``passengers=``).

The FoW article on the effects of hits, as ``fow.shoot passengers=N`` and
``fow.passengers`` read it (one definition: :mod:`warroom.games.fow.passengers`):

* an armoured transport (a ``tank`` team carrying passengers) rolls each hit's armour
  save and firepower test; its passengers save on 5+ only if it is destroyed, one save
  per hit that destroyed it; if any armoured transport of the platoon is destroyed or
  bailed out, the transport platoon tests motivation once: failed, the passengers of
  every transport dismount under fire and the transports go to the rear;
* an unarmoured transport (a ``soft`` team) saves on 5+ per hit, and its passengers save
  on 5+ per hit on it either way; if one is destroyed, the passengers of every unarmoured
  transport of the platoon dismount under fire, the platoon is pinned and every
  unarmoured transport of the platoon is destroyed;
* riders on a tank (``rN``) save on 5+ per hit on the tank (3+ for a Tank Rider Company,
  which stays aboard) and the survivors dismount under fire.

The platoon is pinned when a transport is destroyed, when a failed transport motivation
test makes the passengers dismount under fire, or when riders must dismount, as
``fow.shoot`` and ``fow.passengers`` answer for one vehicle.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, NamedTuple

from warroom.engine.context import Dice, fixed
from warroom.engine.params import text_items, whole_number
from warroom.errors import UsageError
from warroom.games.fow.common import LABELS, HitSpec, team_chain
from warroom.games.fow.passengers import Fate, passenger_losses, transport_test

MAX_PASSENGERS = 4
"""Passenger teams one vehicle of a mixed platoon carries at most (a transport's
load; fow.shoot takes up to 8 in its one vehicle)."""

Carried = Fate | None
"""What one target team carries: a :class:`passengers.Fate` (its transport kind and
passenger teams), or None."""


class Carrier(NamedTuple):
    """The platoon's transports, worked out once per question."""

    carried: tuple[Carried, ...]  # per target team
    labels: tuple[str, ...]  # every team's result: LABELS, then each transport's
    meaning: tuple[tuple[str, str, int, str, int], ...]  # label, kind, aboard, vehicle, lost
    soft: int  # the platoon's unarmoured vehicles


_KIND = {"armoured": "armoured transport", "unarmoured": "unarmoured transport",
         "tank": "tank"}
_CAN = {"armoured": ("destroyed", "bailed_out", "unharmed"),
        "unarmoured": ("destroyed", "unharmed"), "tank": LABELS}


def label(f: Fate, vehicle: str, lost: int) -> str:
    """A transport's result, a message of the catalog: its own and its passengers lost,
    e.g. ``armoured transport destroyed, 1 of 2 passenger teams lost``."""
    said = vehicle.replace("_", " ")
    if not f.passengers:
        return f"unarmoured vehicle {said}"
    teams = "rider" if f.transport == "tank" else "passenger"
    return (f"{_KIND[f.transport]} {said}, {lost} of {f.passengers} {teams} "
            f"team{'s' if f.passengers > 1 else ''} lost")


def labels_of(f: Fate) -> tuple[tuple[str, str, int, str, int], ...]:
    """Every result a transport can have: (label, kind, aboard, vehicle, lost); an
    armoured transport's passengers are lost only when it is destroyed."""
    return tuple((label(f, v, k), f.transport, f.passengers, v, k)
                 for v in _CAN[f.transport]
                 for k in range(f.passengers + 1
                                if v == "destroyed" or f.transport != "armoured" else 1))


@lru_cache(maxsize=256)
def parse_passengers(text: str, kinds: tuple[str, ...], split: tuple[bool, ...],
                     motivation: str = "confident", reroll: bool = False,
                     rules: tuple[str, ...] = ()) -> Carrier:
    """``passengers``: for each vehicle of ``teams`` in order (tank and soft teams; the
    others skipped), the passenger teams it carries: N inside (a tank is then an
    armoured transport), rN riding on a tank, 0 none."""
    vehicles = [i for i, k in enumerate(kinds) if k in ("tank", "soft")]
    if not vehicles:
        raise UsageError("passengers ride in vehicles: teams has no tank or soft team")
    items = text_items(text, "vehicle", "passengers", "2,0,r1", len(vehicles))
    if len(items) != len(vehicles):
        raise UsageError("passengers: give one entry per vehicle of teams (tank and soft "
                         "teams, in order), {want} in all, not {got}", want=len(vehicles),
                         got=len(items))
    carried: list[Carried] = [None] * len(kinds)
    for i, item in zip(vehicles, items, strict=True):
        riders = item.lower().startswith("r")
        n = whole_number(item[1:] if riders else item, "passenger teams", item, 0,
                         MAX_PASSENGERS)
        if not n:
            continue
        if riders and kinds[i] != "tank":
            raise UsageError("{item!r}: riders ride on tanks, not on unarmoured vehicles",
                             item=item)
        if split[i]:
            raise UsageError("{item!r}: a transport is hit on one armour (give tank:N, "
                             "not hull/turret)", item=item)
        kind = "tank" if riders else "armoured" if kinds[i] == "tank" else "unarmoured"
        carried[i] = Fate(kind, n, motivation, reroll, False, MAX_PASSENGERS, rules)
    if any(f is not None and f.transport == "unarmoured" for f in carried):
        # one unarmoured vehicle destroyed destroys them all (article): every one of
        # them is followed, carrying passengers or not
        carried = [Fate("unarmoured", 0, motivation, reroll, False, MAX_PASSENGERS, rules)
                   if k == "soft" and f is None else f for k, f in zip(kinds, carried,
                                                                       strict=True)]
    meaning: list[tuple[str, str, int, str, int]] = []
    for f in carried:
        if f is not None:
            meaning += [x for x in labels_of(f) if x not in meaning]
    return Carrier(tuple(carried), LABELS + tuple(x[0] for x in meaning), tuple(meaning),
                   kinds.count("soft"))


@lru_cache(maxsize=4096)
def carrier_roll(specs: tuple[tuple[HitSpec, int], ...], f: Fate) -> Any:
    """The rolls of one transport for the hits it took (each weapon's hit spec and how
    many) and of its passengers (:func:`passengers.passenger_losses`), as
    :func:`label`. An armoured transport rolls each hit's armour save on its own, so
    the hits that destroyed it are known; an unarmoured one and a tank with riders
    keep their worst result as any team does."""

    def chain(d: Dice) -> str:
        worst, killing, hits = 0, 0, 0
        for spec, k in specs:
            hits += k
            if f.transport == "armoured":
                res = d.each(k, team_chain(spec, 1), LABELS, rule=f"{spec.rule}.hit",
                             what="hit")
                killing += int(res["destroyed"])
                result = "destroyed" if int(res["destroyed"]) else "bailed_out" if int(
                    res["bailed_out"]) else "unharmed"
            else:
                result = d.one(team_chain(spec, k), LABELS, rule=f"{spec.rule}.vehicle",
                               what="vehicle saves")
            worst = max(worst, _RANK[result])
        vehicle = _BY_RANK[worst]
        lost = passenger_losses(d, f, killing if f.transport == "armoured" else hits,
                                vehicle)
        return label(f, vehicle, int(lost))

    return fixed(chain)


_RANK = {"unharmed": 0, "bailed_out": 1, "destroyed": 2}
_BY_RANK = ("unharmed", "bailed_out", "destroyed")


class After(NamedTuple):
    """The platoon after its transports' rolls."""

    destroyed: Any
    bailed_out: Any
    passengers_destroyed: Any
    dismounted: bool
    sent_to_rear: bool
    pinned: bool


def aftermath(d: Dice, res: Any, carrier: Carrier) -> After:
    """The platoon's transports after the teams' rolls (``res``: the count of each of
    ``carrier.labels``): teams destroyed and tanks bailed out with the transports', the
    passenger teams lost, and what the transports' rules do to the platoon."""
    destroyed: Any = res["destroyed"]
    bailed: Any = res["bailed_out"]
    lost: Any = 0
    # by kind: (vehicles destroyed, bailed out, passenger teams aboard those whose
    # passengers must get out (armoured: the destroyed ones; else every one hit), lost)
    tally: dict[str, list[Any]] = {}
    for name, kind, carrying, vehicle, k in carrier.meaning:
        n = res[name]
        lost = lost + k * n
        row = tally.setdefault(kind, [0, 0, 0, 0])
        if kind != "armoured" or vehicle == "destroyed":  # who would dismount
            row[2] = row[2] + carrying * n
        row[3] = row[3] + k * n
        if vehicle == "destroyed":
            destroyed = destroyed + n
            row[0] = row[0] + n
        elif vehicle == "bailed_out":
            bailed = bailed + n
            row[1] = row[1] + n
    aboard = {kind: sum(f.passengers for f in carrier.carried
                        if f is not None and f.transport == kind)
              for kind in ("armoured", "unarmoured", "tank")}
    first = {f.transport: f for f in carrier.carried if f is not None}
    dismount = rear = pinned = False
    if "armoured" in tally:
        gone, out, hit_aboard, hit_lost = tally["armoured"]
        if int(gone):  # the platoon's rules branch on it: known here
            d.note("fow.shoot_mixed.transport", "an armoured transport is destroyed: its "
                   "surviving passengers dismount under fire and the platoon is pinned")
            pinned = True
            dismount = dismount or int(hit_lost) < int(hit_aboard)
        if (int(gone) or int(out)) and not transport_test(d, first["armoured"]):
            d.note("fow.shoot_mixed.transport", "the transport platoon fails its "
                   "motivation test: every passenger dismounts under fire and the "
                   "transports go to the rear")
            pinned = rear = True
            dismount = dismount or int(hit_lost) < aboard["armoured"]
    if "unarmoured" in tally:
        gone, _, _, hit_lost = tally["unarmoured"]
        if int(gone):
            d.note("fow.shoot_mixed.transport", "an unarmoured transport is destroyed: "
                   "the passengers of every unarmoured vehicle dismount under fire, the "
                   "platoon is pinned and all its unarmoured vehicles are destroyed")
            pinned = True
            dismount = dismount or int(hit_lost) < aboard["unarmoured"]
            # every unarmoured vehicle of the platoon is destroyed (article)
            destroyed = destroyed + (carrier.soft - int(gone))
    if "tank" in tally and "tank_rider_companies" not in first["tank"].rules:
        _, _, hit_aboard, hit_lost = tally["tank"]
        if int(hit_aboard):
            pinned = True
            dismount = dismount or int(hit_lost) < int(hit_aboard)
    return After(destroyed, bailed, lost, dismount, rear, pinned)
