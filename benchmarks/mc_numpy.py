"""Monte Carlo written by hand with numpy, the reference for the estimate rows of
`make bench`: the same question as warroom's estimate, every sample's dice drawn as
arrays, no engine.

Only the questions written here have a reference: ``fow.assault`` of infantry against
infantry (trained, confident, no special rules) with defensive fire, as the procedure's
note and ``benchmarks/assault_dp.py`` read the rules: defensive fire hits on 3+ (4/6),
the hits spread evenly, a team is lost unless it saves every hit on 3+, and 5 hits pin
(the assault is repelled); then rounds of close combat: each team hits on a skill test
of 4+, hits spread evenly destroy infantry, a side that lost teams tests motivation 4+
to counterattack (a side with no team hit counterattacks without a test), or the
striker wins.
"""

from __future__ import annotations

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


def within_margin(counts: dict[Any, int], exact: dict[Any, Any], samples: int) -> bool:
    """Every outcome's share within 5 standard errors (and a hair) of its exact chance."""
    for key in set(counts) | set(exact):
        p = float(exact.get(key, 0))
        got = counts.get(key, 0) / samples
        if abs(got - p) > 5 * (p * (1 - p) / samples) ** 0.5 + 1.5 / samples:
            return False
    return True
