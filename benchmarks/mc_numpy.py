"""Monte Carlo written by hand with numpy, the reference for the estimate rows of
`make bench`: the same question as warroom's estimate, every sample's dice drawn as
arrays, no engine.

Only the questions written here have a reference:

- ``fow.assault`` of infantry against infantry (trained, confident, no special rules)
  with defensive fire, as the procedure's note and ``benchmarks/assault_dp.py`` read the
  rules: defensive fire hits on 3+ (4/6), the hits spread evenly, a team is lost unless
  it saves every hit on 3+, and 5 hits pin (the assault is repelled); then rounds of
  close combat: each team hits on a skill test of 4+, hits spread evenly destroy
  infantry, a side that lost teams tests motivation 4+ to counterattack (a side with no
  team hit counterattacks without a test), or the striker wins.
- ``asl.ift_on_stack`` at K/N on squads in good order and leaders (:func:`stack_k`).
- ``fow.shoot_mixed`` at infantry and tanks of one armour, trained, in the open
  (:func:`shoot_infantry_and_tanks`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

Outcome = tuple[str, int, int, bool, int]
"""(winner, attacker_losses, defender_losses, repelled, rounds): fow.assault's fields."""


def assault_infantry(attackers: int, defenders: int, defensive_dice: int, max_rounds: int,
                     samples: int, seed: int) -> dict[Outcome, int]:
    """Counts of each outcome of ``samples`` assaults of infantry on infantry."""
    import numpy as np

    rng = np.random.default_rng(seed)
    n = samples
    # defensive fire: hits at 4/6 spread evenly (r teams take q + 1 hits, the others
    # q); a team with h hits stays in the fight if it makes all h 3+ saves
    hits = rng.binomial(defensive_dice, 4 / 6, size=n)
    q, r = np.divmod(hits, attackers)
    lost_fire = (rng.binomial(r, 1 - (2 / 3) ** (q + 1))
                 + rng.binomial(attackers - r, 1 - (2 / 3) ** q))
    att = attackers - lost_fire
    dfn = np.full(n, defenders)
    repelled = (hits >= 5) | (att == 0)
    winner = np.where(repelled, 1, -1)  # 0 attacker, 1 defender, -1 fighting, 2 undecided
    rounds = np.zeros(n, dtype=np.int64)
    me = np.zeros(n, dtype=np.int64)  # the side striking: the attacker first
    for rnd in range(1, max_rounds + 1):
        live = winner < 0
        if not live.any():
            break
        idx = np.flatnonzero(live)
        side = me[idx]
        strikers = np.where(side == 0, att[idx], dfn[idx])
        foes = np.where(side == 0, dfn[idx], att[idx])
        hit = rng.binomial(strikers, 0.5)
        lost = np.minimum(hit, foes)
        left = foes - lost
        go_on = rng.random(len(idx)) < 0.5  # the struck side's motivation test
        wins = (left == 0) | ((hit > 0) & ~go_on)
        new_foes = left
        att[idx] = np.where(side == 0, att[idx], new_foes)
        dfn[idx] = np.where(side == 0, new_foes, dfn[idx])
        winner[idx] = np.where(wins, side, -1)
        rounds[idx] = rnd
        me[idx] = 1 - side
    winner[winner < 0] = 2
    rounds[winner == 2] = max_rounds
    names = np.array(["attacker", "defender", "undecided"])
    table = np.stack([winner, attackers - att, defenders - dfn, repelled.astype(np.int64),
                      rounds], axis=1)
    rows, freq = np.unique(table, axis=0, return_counts=True)
    out: dict[Outcome, int] = {}
    for (w, la, ld, rep, r), c in zip(rows.tolist(), freq.tolist(), strict=True):
        out[str(names[w]), int(la), int(ld), bool(rep), int(r)] = int(c)
    return out


StackOutcome = tuple[Any, ...]
"""Each unit's final state as asl.ift_on_stack names it (``unit1``...), then the units
eliminated, the surviving units broken and those pinned."""

BROKEN, WOUNDED, PINNED, ELIM, REDUCED, HIT = 1, 2, 4, 8, 16, 64
_NAMES = (("reduced", REDUCED), ("wounded", WOUNDED), ("broken", BROKEN),
          ("pinned", PINNED))


def _state_name(s: int) -> str:
    if s & ELIM:
        return "eliminated"
    return "+".join(n for n, bit in _NAMES if s & bit) or "ok"


def stack_k(squads: list[tuple[int, int]], leaders: list[tuple[int, int]], k: int,
            samples: int, seed: int) -> dict[StackOutcome, int]:
    """Counts of each outcome of ``samples`` IFT results K/``k`` on a stack of squads in
    good order (each (morale, broken-side morale)) listed first, then leaders (each
    (morale, leadership DRM)), as the ASL Rulebook and the procedure's note read: Random
    Selection (every unit a die, the highest, ties all, A.9) takes the casualty
    reduction (a squad is reduced, a leader rolls his wound dr: 5+ killed, else wounded
    and no MC); the leaders check first, highest morale first (A10.7), each helped by
    a leader of higher morale in good order who has checked; then each squad checks at
    +k helped by the best leader in good order, and takes its Leader Loss check: if a
    leader of higher morale (his before the attack) was killed an LLMC, else if one broke
    an LLTC (failing pins), at the worst such leader's DRM (A10.2); then the leaders
    their own. An MC passed at a final DR equal to the morale pins (A7.8), a failed one
    breaks, an original 12 also reduces (a broken unit failing is reduced, on a 12
    eliminated); a wounded leader is one worse in morale and leadership (A17.3)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    n = samples
    m = len(squads) + len(leaders)
    morale = [mo for mo, _ in squads] + [mo for mo, _ in leaders]
    broken_side = [b for _, b in squads] + [mo for mo, _ in leaders]
    lead = [0] * len(squads) + [ld for _, ld in leaders]
    is_leader = [False] * len(squads) + [True] * len(leaders)
    st = np.zeros((m, n), dtype=np.int64)

    def mor(i: int) -> Any:
        s = st[i]
        return (np.where(s & BROKEN, broken_side[i], morale[i])
                - ((s & WOUNDED) > 0).astype(np.int64))

    def leadership(j: int) -> Any:
        return lead[j] + ((st[j] & WOUNDED) > 0).astype(np.int64)

    def leads(j: int) -> Any:
        return (st[j] & (BROKEN | ELIM | PINNED)) == 0

    def casualty(i: int, mask: Any) -> None:
        s = st[i]
        if is_leader[i]:
            dr = rng.integers(1, 7, n)
            killed = dr >= np.where(s & WOUNDED, 4, 5)
            st[i] = np.where(mask, np.where(killed, ELIM, s | WOUNDED), s)
        else:
            st[i] = np.where(mask, np.where(s & REDUCED, ELIM, s | REDUCED), s)

    def mc(i: int, drm: Any, mask: Any) -> None:
        original = rng.integers(1, 7, n) + rng.integers(1, 7, n)
        final = original + drm
        mo, s = mor(i), st[i]
        broken = (s & BROKEN) > 0
        passed = (final <= mo) & (original != 12)
        pin = mask & ~broken & passed & (final == mo)
        breaks = mask & ~broken & ~passed
        st[i] = np.where(pin, s | PINNED, np.where(breaks, (s | BROKEN) & ~PINNED, s))
        st[i] = np.where(mask & broken & ~passed & (original == 12), ELIM, st[i])
        casualty(i, (breaks & (original == 12)) | (mask & broken & ~passed
                                                   & (original != 12)))

    def ptc(i: int, drm: Any, mask: Any) -> None:
        final = rng.integers(1, 7, n) + rng.integers(1, 7, n) + drm
        s = st[i]
        st[i] = np.where(mask & ((s & BROKEN) == 0) & (final > mor(i)), s | PINNED, s)

    # Random Selection and the casualty reduction
    dr = rng.integers(1, 7, (m, n))
    chosen = dr == dr.max(axis=0)
    for i in range(m):
        casualty(i, chosen[i])
        if is_leader[i]:
            st[i] = np.where(chosen[i] & ((st[i] & ELIM) == 0), st[i] | HIT, st[i])
    start_lead = list(lead)
    order = sorted((i for i in range(m) if is_leader[i]),
                   key=lambda i: (-morale[i], lead[i], i))
    big = np.iinfo(np.int64).max

    def best_lead(i: int, eligible: list[tuple[int, Any]]) -> Any:
        """The DRM of the best of the ``eligible`` leaders (those allowed, each with
        where he may help), 0 where none may."""
        best = np.full(n, big)
        for j, ok in eligible:
            best = np.where(ok & leads(j), np.minimum(best, leadership(j)), best)
        return np.where(best == big, 0, best)

    for pos, i in enumerate(order):  # the leaders' own MCs
        may = [(j, (mor(j) > mor(i)) & ((order.index(j) < pos) | ((st[j] & HIT) > 0)))
               for j in order if j != i]
        mc(i, k + best_lead(i, may), (st[i] & (ELIM | HIT)) == 0)
    helper = best_lead(-1, [(j, np.ones(n, dtype=bool)) for j in order])
    lost = [(j, (st[j] & ELIM) > 0, ((st[j] & (ELIM | BROKEN)) > 0), morale[j])
            for j in order]
    for j in order:
        st[j] &= ~HIT

    def leader_loss(i: int) -> None:
        alive = (st[i] & ELIM) == 0
        mo = mor(i)
        mine = [(killed, any_lost & (mo < lm), -start_lead[j])
                for j, killed, any_lost, lm in lost if j != i]
        if not mine:
            return
        killed_any = np.zeros(n, dtype=bool)
        for killed, hit, _ in mine:
            killed_any |= killed & hit
        worst = np.full(n, -big)
        some = np.zeros(n, dtype=bool)
        for killed, hit, drm in mine:
            counted = hit & (killed == killed_any)
            worst = np.where(counted, np.maximum(worst, drm), worst)
            some |= hit
        drm_ll = np.where(some, worst, 0)
        mc(i, drm_ll, alive & some & killed_any)
        ptc(i, drm_ll, alive & some & ~killed_any)

    for i in range(m):
        if not is_leader[i]:
            mc(i, k + helper, (st[i] & ELIM) == 0)
            leader_loss(i)
    if len(order) > 1:
        for i in order:
            leader_loss(i)
    # each unit's state as a small code, the codes of a sample as one int64 key
    kinds = np.flatnonzero(np.bincount(st.ravel(), minlength=2 * HIT))  # states met
    lookup = np.zeros(2 * HIT, dtype=np.int64)
    lookup[kinds] = np.arange(len(kinds))
    codes = lookup[st]
    bits = max(1, (len(kinds) - 1).bit_length())
    key = np.zeros(n, dtype=np.int64)
    for i in range(m):
        key = (key << bits) | codes[i]
    keys, freq = np.unique(key, return_counts=True)
    unit = (keys[:, None] >> (bits * np.arange(m - 1, -1, -1))) & ((1 << bits) - 1)
    names = np.array([_state_name(int(k)) for k in kinds], dtype=object)[unit]
    gone = (kinds & ELIM) > 0
    tallies = [gone[unit].sum(axis=1), (((kinds & BROKEN) > 0) & ~gone)[unit].sum(axis=1),
               (((kinds & PINNED) > 0) & ~gone)[unit].sum(axis=1)]
    return {(*row, *counted): c for row, *counted, c in zip(
        names.tolist(), *(t.tolist() for t in tallies), freq.tolist(), strict=True)}


def shoot_infantry_and_tanks(weapons: list[tuple[int, int, int]], infantry: int,
                             tanks: int, armour: int, gone_to_ground: int, samples: int,
                             seed: int) -> dict[tuple[int, int, int, bool], int]:
    """Counts of (hits, destroyed, bailed_out, pinned) of ``samples`` shots of
    ``weapons`` (each (dice, AT, firepower)) at a trained platoon in the open of
    ``infantry`` teams, ``tanks`` tanks of ``armour`` and ``gone_to_ground`` infantry
    teams gone to ground, given in that order, as the FoW shooting article reads: each
    die hits on 3+; every team takes an equal share of the hits, the rest one each to the
    teams not gone to ground first (infantry before tanks), then to those gone to ground;
    the tanks take the hits of the highest AT first, dealt a hit at a time to each tank in
    turn; infantry is destroyed unless it saves every hit on 3+; a tank's hit is saved
    when a die plus its armour beats the AT, else a firepower test (below the AT: passed
    destroys, failed bails out; equal: passed bails out), the worst hit counting; 5 hits
    pin."""
    import numpy as np

    rng = np.random.default_rng(seed)
    n = samples
    teams = infantry + tanks + gone_to_ground
    hits = np.stack([rng.binomial(dice, 4 / 6, size=n) for dice, _, _ in weapons], axis=1)
    total = hits.sum(axis=1)
    q, r = np.divmod(total, teams)
    # infantry: only how many hits each team takes counts
    first = np.minimum(r, infantry)
    last = np.clip(r - infantry - tanks, 0, gone_to_ground)
    p_lost = 1 - (2 / 3) ** q
    p_lost1 = 1 - (2 / 3) ** (q + 1)
    destroyed = (rng.binomial(first + last, p_lost1)
                 + rng.binomial(infantry + gone_to_ground - first - last, p_lost))
    # tanks: the hits of the highest AT first, dealt round the tanks: tank t takes the
    # hits at t, t + tanks, ... below tanks * q, then the one at tanks * q + t if it is
    # among the first ``extra``
    extra = np.clip(r - infantry, 0, tanks)
    round_end = tanks * q
    ranking = sorted(range(len(weapons)), key=lambda w: (-weapons[w][1], weapons[w][2], w))
    ends = np.minimum(np.cumsum(hits[:, ranking], axis=1), (round_end + extra)[:, None])
    starts = np.concatenate([np.zeros((n, 1), dtype=np.int64), ends[:, :-1]], axis=1)
    chances = []  # per weapon, by rank: a hit bails out or worse, destroys
    for w in ranking:
        _, at, fp = weapons[w]
        need = at - armour  # the armour save's die must beat this
        lower = min(max(need - 1, 0), 6) / 6
        equal = (1 / 6 if 1 <= need <= 6 else 0) * (7 - fp) / 6 if fp <= 6 else 0
        bad = lower + equal
        chances.append((bad, lower * (7 - fp) / 6))
    bailed = np.zeros(n, dtype=np.int64)
    u = rng.random((n, tanks))
    for t in range(tanks):
        def below(x: Any, t: int = t) -> Any:  # tank t's positions below x
            return np.maximum(np.minimum(x, round_end[:, None]) - t + tanks - 1, 0) // tanks

        extra_at = round_end + t
        took = (below(ends) - below(starts)
                + ((t < extra)[:, None] & (starts <= extra_at[:, None])
                   & (extra_at[:, None] < ends)))
        unharmed = np.ones(n)
        not_destroyed = np.ones(n)
        for rank, (bad, destroys) in enumerate(chances):
            unharmed *= (1 - bad) ** took[:, rank]
            not_destroyed *= (1 - destroys) ** took[:, rank]
        destroyed = destroyed + (u[:, t] >= not_destroyed)
        bailed += (u[:, t] < not_destroyed) & (u[:, t] >= unharmed)
    key = (total * (teams + 1) + destroyed) * (tanks + 1) + bailed
    keys, freq = np.unique(key, return_counts=True)
    out: dict[tuple[int, int, int, bool], int] = {}
    for k, c in zip(keys.tolist(), freq.tolist(), strict=True):
        rest, b = divmod(k, tanks + 1)
        h, d = divmod(rest, teams + 1)
        out[h, d, b, h >= 5] = c
    return out


def within_margin(counts: dict[Any, int], exact: dict[Any, Any], samples: int) -> bool:
    """Every outcome's share within 5 standard errors (and a hair) of its exact chance."""
    for key in set(counts) | set(exact):
        p = float(exact.get(key, 0))
        got = counts.get(key, 0) / samples
        if abs(got - p) > 5 * (p * (1 - p) / samples) ** 0.5 + 1.5 / samples:
            return False
    return True


def marginals(counts: dict[Any, int]) -> list[dict[Any, int]]:
    """Each field's counts (the position in the outcome tuples), from a joint table."""
    out: list[dict[Any, int]] = []
    for key, c in counts.items():
        while len(out) < len(key):
            out.append({})
        for f, v in enumerate(key):
            out[f][v] = out[f].get(v, 0) + c
    return out


def fields_within_margin(counts: dict[Any, int], exact: dict[Any, Any], samples: int) -> bool:
    """:func:`within_margin` field by field: each field's chances (a question of ten units
    has thousands of joint outcomes, too many to hold every one to 5 standard errors)."""
    chances: list[dict[Any, Any]] = [{} for _ in marginals(counts)]
    for key, p in exact.items():
        for f, v in enumerate(key):
            chances[f][v] = chances[f].get(v, 0) + p
    return all(within_margin(got, want, samples)
               for got, want in zip(marginals(counts), chances, strict=True))


def shot_counts(fields: Sequence[str], counts: Mapping[Any, int]
                ) -> dict[tuple[Any, ...], int]:
    """``fow.shoot_mixed``'s counts on the four fields :func:`shoot_infantry_and_tanks`
    knows (hits, destroyed, bailed_out, pinned); the passenger fields are left out."""
    known = [list(fields).index(f) for f in ("hits", "destroyed", "bailed_out", "pinned")]
    out: dict[tuple[Any, ...], int] = {}
    for o, c in counts.items():
        key = tuple(o[i] for i in known)
        out[key] = out.get(key, 0) + c
    return out


def agree(a: dict[Any, int], b: dict[Any, int], samples: int) -> bool:
    """Two Monte Carlo runs of ``samples`` each give every field's chances within 5
    standard errors of their difference (and a hair)."""
    for fa, fb in zip(marginals(a), marginals(b), strict=True):
        for v in set(fa) | set(fb):
            pa, pb = fa.get(v, 0) / samples, fb.get(v, 0) / samples
            p = (pa + pb) / 2
            if abs(pa - pb) > 5 * (2 * p * (1 - p) / samples) ** 0.5 + 3 / samples:
                return False
    return True


STACK_SQUADS = [(7, 8)] * 7
STACK_LEADERS = [(9, -2), (8, -1), (8, 0)]
STACK = {"units": ",".join(["4-6-7"] * 7 + ["9-2", "8-1", "8-0"]), "result": "K/2"}
"""The stack at the caps with a reference: ten units with three leaders at K/2 (seven
4-6-7 squads, whose broken side is 8, and leaders 9-2, 8-1 and 8-0)."""

MIXED_WEAPONS = [(30, 10, 3), (30, 2, 6), (30, 7, 4), (30, 4, 5), (30, 12, 2), (30, 6, 3)]
MIXED_TEAMS = (12, 4, 3, 4)
"""Infantry teams, tanks, the tanks' armour, infantry teams gone to ground."""
MIXED = {"weapons": ",".join(f"{d}:{at}:{fp}" for d, at, fp in MIXED_WEAPONS),
         "teams": ",".join(["infantry"] * 12 + ["tank:3"] * 4 + ["infantry:gtg"] * 4)}
"""``fow.shoot_mixed`` at the caps with a reference: six weapons of 30 dice at 20 teams
(twelve infantry teams, four tanks of armour 3, four infantry teams gone to ground)."""


def stack_outcome(o: Any) -> StackOutcome:
    """An ``asl.ift_on_stack`` outcome as :func:`stack_k` gives it."""
    m = len(o["units"].split(","))
    return (*[o[f"unit{i}"] for i in range(1, m + 1)], o["eliminated"], o["broken"],
            o["pinned"])
