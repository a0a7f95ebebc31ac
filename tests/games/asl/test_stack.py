"""asl.ift_on_stack, asl.fire_group and asl.rally by the ASL Rulebook: odds worked out
by hand (the calculation in a comment) and a brute-force oracle for Random Selection."""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction as F
from itertools import product
from typing import Any

import pytest

import warroom
from tests.helpers import replay_oracle
from warroom.errors import UsageError

# ways of rolling each 2d6 total (out of 36)
WAYS = {t: 6 - abs(t - 7) for t in range(2, 13)}


def states(result: str, units: str, **params: Any) -> dict[str, F]:
    return warroom.odds("asl.ift_on_stack", result=result, units=units,
                        **params).marginal("units")


def test_counters_as_players_write_them() -> None:
    from warroom.games.asl.counters import parse_units

    a, b, c = parse_units("4-6-7,2-4-8,8-1")
    assert (a.kind, a.fp, a.morale) == ("squad", 4, 7)
    assert (b.kind, b.fp, b.morale) == ("hs", 2, 8)
    assert (c.kind, c.morale, c.leadership) == ("leader", 8, -1)
    d, e = parse_units("4-6-7:broken,9-2:wounded")
    assert d.broken and e.wounded and e.leadership == -2
    assert parse_units("6+1")[0].leadership == 1
    assert parse_units("3-4-7:squad")[0].kind == "squad"
    # the long form still works, and the side's ELR reaches every unit without its own
    assert parse_units("squad:7:3,hs:6", 2)[1].elr == 2


def test_each_unit_is_its_own_outcome_field() -> None:
    dist = warroom.odds("asl.ift_on_stack", result="PTC", units="4-6-7,8-1")
    # PTC: the 8-1 checks first (pinned on 9+, 10 of 36); the squad gets his -1 unless
    # he is pinned: pinned on 9+ (10 of 36) with it, on 8+ (15 of 36) without
    assert dist.marginal("unit2") == {"ok": F(26, 36), "pinned": F(10, 36)}
    assert dist.marginal("unit1")["pinned"] == F(26, 36) * F(10, 36) + F(10, 36) * F(15, 36)
    assert dist.marginal("unit3") == {"-": F(1)}


def test_nmc_on_one_squad_pins_on_its_morale() -> None:
    # morale 7: totals 2-6 pass (15); 7 passes with final DR = morale: pinned (6, A7.8);
    # 8-11 break (14); 12 breaks and reduces it to a half-squad (1)
    assert states("NMC", "4-6-7") == {"squad1=ok": F(15, 36), "squad1=pinned": F(6, 36),
                                      "squad1=broken": F(14, 36),
                                      "squad1=reduced+broken": F(1, 36)}


def test_random_selection_takes_every_unit_tied_for_the_highest() -> None:
    # 1KIA on two squads (A.9): both roll a dr; a tie (6 of 36) selects both
    dist = states("1KIA", "squad:7,squad:7")
    assert dist["squad1=eliminated,squad2=eliminated"] == F(1, 6)
    assert dist["squad1=eliminated,squad2=broken"] == F(5, 12)
    # K/1 on two half-squads: a tie (1/6) eliminates both; otherwise one (5/6) and the
    # other dies only by an original 12 on its MC +1 (1/36): 1/6 + 5/6 * 1/36 = 41/216
    elim = warroom.odds("asl.ift_on_stack", result="K/1", units="hs:6,hs:6").marginal(
        "eliminated")
    assert elim[2] == F(41, 216)


def test_pinned_leader_gives_no_drm() -> None:
    # NMC on a 4-6-8 with an 8-1 (same morale: no Leader Loss check). The 8-1 checks
    # first and leads if still in good order and unpinned: totals 2-7 (21 of 36). The
    # squad at -1 passes unpinned on 2-8 (26), at +0 on 2-7 (21):
    # 21/36 * 26/36 + 15/36 * 21/36 = 861/1296
    assert warroom.odds("asl.ift_on_stack", result="NMC", units="4-6-8,8-1").probability(
        unit1="ok") == F(861, 1296)
    # already pinned, he never leads (A7.8): 21/36
    assert warroom.odds("asl.ift_on_stack", result="NMC",
                        units="4-6-8,8-1:pinned").probability(unit1="ok") == F(21, 36)


def test_wounded_leader_morale_and_leadership_one_worse() -> None:
    # a wounded 9-2 is morale 8 and -1 (A17.3): the same odds as the 8-1 above
    dist = warroom.odds("asl.ift_on_stack", result="NMC", units="4-6-8,9-2:wounded")
    assert dist.probability(unit1="ok") == F(861, 1296)
    # and he is pinned on a total of 8 (5 of 36), not 9
    assert dist.probability(unit2="wounded+pinned") == F(5, 36)
    # a wounded 8-0 is a 7+1: PTC on a 4-6-7 and him. He checks first at morale 7 and
    # passes on 2-7 (21 of 36), then his +1 hurts the squad, which passes on 2-6 (15);
    # pinned (15 of 36), he gives nothing and the squad passes on 2-7 (21):
    # 21/36 * 15/36 + 15/36 * 21/36 = 630/1296 = 35/72 (a PTC has no Leader Loss)
    dist = warroom.odds("asl.ift_on_stack", result="PTC", units="4-6-7,8-0:wounded")
    assert dist.probability(unit1="ok") == F(35, 72)


def test_leader_loss_mc_after_the_attack_for_broken_units_of_lower_morale() -> None:
    # NMC on a broken 9-2 and a broken squad whose broken side is 7 (4-6-7/7).
    # The leader (morale 9, no help) stays
    # broken on 2-9, suffers casualty on 10-11 (5 of 36; his wound dr kills on 5-6) and
    # dies on 12: killed 5/36 * 1/3 + 1/36 = 2/27.
    # The squad's NMC (broken, no leader): 2-7 stays broken (21), 8-11 casualty ->
    # reduced+broken (14), 12 eliminated (1). Then, the leader dead, its LLMC at +2:
    # 2-5 nothing, 6-11 casualty, 12 eliminated; from broken: eliminated only on 12 (1);
    # from reduced+broken: on 6-12 (26). Eliminated: 1/36 + 21/36*1/36 + 14/36*26/36
    # = (36 + 21 + 364)/1296 = 421/1296
    dist = states("NMC", "9-2:broken,4-6-7/7:broken")
    assert dist["leader1=eliminated,squad1=eliminated"] == F(2, 27) * F(421, 1296)
    # a German 4-6-7 breaks to 8 (its broken side): its NMC stays broken on 2-8 (26),
    # casualty on 9-11 (9), eliminated on 12 (1); the LLMC at +2 against 8 fails on 7+:
    # from broken eliminated on 12 (1), from reduced+broken on 7-12 (21):
    # 1/36 + 26/36*1/36 + 9/36*21/36 = (36 + 26 + 189)/1296 = 251/1296
    dist = states("NMC", "9-2:broken,4-6-7:broken")
    assert dist["leader1=eliminated,squad1=eliminated"] == F(2, 27) * F(251, 1296)
    # an 8-1 and a 4-6-8: not lower morale, no LLMC: the leader dies on 9-11 with the
    # wound 5-6 (9/36 * 1/3) or 12 (1/36): 1/9; the squad dies only on its own 12
    dist = states("NMC", "8-1:broken,4-6-8:broken")
    assert dist["leader1=eliminated,squad1=eliminated"] == F(1, 9) * F(1, 36)


def test_leader_who_breaks_causes_a_leader_loss_task_check() -> None:
    # NMC on a 9-1 and a 4-4-7: the leader breaks on 10-11 (5 of 36). The squad then
    # checks with no leader: 2-6 ok (15), 7 pinned (6); after the attack its LLTC at +1
    # passes on 2-6 (15), else it is pinned (our reading of A10.2):
    # ok: 5/36 * 15/36 * 15/36
    dist = states("NMC", "9-1,4-4-7")
    assert dist["leader1=broken,squad1=ok"] == F(5, 36) * F(15, 36) * F(15, 36)
    # read as breaking instead: broken by the NMC (8-11, 14) or by the LLTC (21 * 21)
    dist = states("NMC", "9-1,4-4-7", lltc_fail="broken")
    assert dist["leader1=broken,squad1=broken"] == F(5, 36) * F(14 * 36 + 21 * 21, 1296)


def test_every_leader_checks_first_highest_morale_first() -> None:
    # the 9-2 checks first though listed second: 5+6 = 11 > 9, broken. The 8-1 then
    # checks with no help: 3+3 = 6 passes; his -1 helps the 4-6-8: 4+5 = 9 - 1 = 8 =
    # morale, pinned. The 9-2's break means an LLTC at +2 for both (morale 8 < 9), the
    # squad's right after its own check, the other leader's last: 2+2 + 2 = 6 passes;
    # 1+1 + 2 = 4 passes.
    r = warroom.roll("asl.ift_on_stack", {"result": "NMC", "units": "8-1,9-2,4-6-8"},
                     dice=[5, 6, 3, 3, 4, 5, 2, 2, 1, 1])
    assert r.outcome["units"] == "leader1=ok,leader2=broken,squad1=pinned"
    assert [s.rule for s in r.steps].count("asl.lltc") >= 2


def test_elr_applies_to_leaders() -> None:
    # an 8-0 with ELR 0 (A19.1): ok on 2-7 (21), pinned on 8 (5), failing on 9-11 (9) is
    # replaced (by a 7-0) and broken; 12 also wounds him (dr 1-4) or kills him (5-6)
    dist = states("NMC", "8-0:elr=0")
    assert dist == {"leader1=ok": F(21, 36), "leader1=pinned": F(5, 36),
                    "leader1=replaced+broken": F(9, 36),
                    "leader1=replaced+wounded+broken": F(1, 36) * F(2, 3),
                    "leader1=eliminated": F(1, 36) * F(1, 3)}


def test_side_elr() -> None:
    # elr=0 for the side: every failure of the 4-6-7 (8-11) replaces it; 12 reduces too
    assert states("NMC", "4-6-7", elr=0) == {
        "squad1=ok": F(15, 36), "squad1=pinned": F(6, 36),
        "squad1=replaced+broken": F(14, 36), "squad1=reduced+replaced+broken": F(1, 36)}


def test_kia_breaks_the_rest_and_reduces_the_broken() -> None:
    # 1KIA on a squad and a broken HS: tie (1/6) both die; else the one selected dies
    # and the survivor breaks, or (the broken HS) is reduced: eliminated too
    assert states("1KIA", "squad:7,hs:6:broken") == {
        "squad1=eliminated,hs1=eliminated": F(1, 6) + F(5, 12),
        "squad1=broken,hs1=eliminated": F(5, 12)}
    assert warroom.odds("asl.ift_on_stack", result="3KIA",
                        units="squad:7,hs:6").marginal("eliminated") == {2: F(1)}


def test_k_casualty_story_and_wound_die() -> None:
    # K/1 on a lone leader: no Random Selection; the wound die 2 wounds him
    r = warroom.roll("asl.ift_on_stack", {"result": "K/1", "units": "8-1"}, dice=[2])
    assert r.outcome["units"] == "leader1=wounded"
    assert any(s.dice == (2,) for s in r.steps if s.rule == "asl.leader_wound")
    assert states("K/1", "leader:8:-1:wounded") == {"leader1=wounded": F(1, 2),
                                                    "leader1=eliminated": F(1, 2)}


def test_stack_odds_are_every_typed_roll_counted() -> None:
    params = {"units": "leader:8:-1,hs:6", "result": "K/1"}
    d = warroom.odds("asl.ift_on_stack", **params)
    assert replay_oracle("asl.ift_on_stack", params) == {
        k: F(w, d.denominator) for k, w in d.weights.items()}


@pytest.mark.parametrize("units", [
    "", "tank:7", "squad", "squad:11", "squad:seven", "squad:7:9", "hs:6:wounded",
    "leader:8:-5", "squad:7:3:routed", ",".join(["hs:6"] * 11), "4-6-7:broken:pinned",
    "8-1:hs", "4-6",
])
def test_bad_units(units: str) -> None:
    with pytest.raises(UsageError):
        warroom.odds("asl.ift_on_stack", result="NMC", units=units)


# ------------------------------------------------------------------ brute-force oracle
def _selections(result: str, m: int) -> Iterator[set[int]]:
    """Random Selection as the rulebook has it (A.9), written again for the oracles: for
    each of the 6**m rolls of a die per unit, the units selected (every one tied for the
    highest; for #KIA the # highest and all tied with them; all of them if # >= m)."""
    n = int(result[0]) if result.endswith("KIA") else 1
    for dice in product(range(1, 7), repeat=m):
        if result.endswith("KIA") and n >= m:
            yield set(range(m))
            continue
        threshold = sorted(dice, reverse=True)[n - 1]
        yield {i for i in range(m) if dice[i] >= threshold}


def _oracle(result: str, units: list[tuple[str, int, bool]]) -> dict[str, F]:
    """Every Random Selection die and every MC total of squads and half-squads without
    leaders, written independently of the product: (kind, morale, broken) per unit."""
    m = len(units)
    names = []
    counts: dict[str, int] = {}
    for kind, _, _ in units:
        counts[kind] = counts.get(kind, 0) + 1
        names.append(f"{kind}{counts[kind]}")

    def reduce(kind: str, reduced: bool) -> str | None:  # None: eliminated
        return None if kind == "hs" or reduced else "reduced"

    def after_mc(kind: str, morale: int, broken: bool, reduced: bool, drm: int
                 ) -> dict[str, F]:
        out: dict[str, F] = {}
        for t, w in WAYS.items():
            final = t + drm
            flags = {"reduced"} if reduced else set()
            if broken:
                if t == 12:
                    st = "eliminated"
                elif final > morale:
                    st = "eliminated" if reduce(kind, reduced) is None else "reduced+broken"
                else:
                    st = "+".join(sorted(flags)) + ("+" if flags else "") + "broken"
            elif t == 12:
                st = "eliminated" if reduce(kind, reduced) is None else "reduced+broken"
            elif final > morale:
                st = ("reduced+" if reduced else "") + "broken"
            elif final == morale:
                st = ("reduced+" if reduced else "") + "pinned"
            else:
                st = "reduced" if reduced else "ok"
            out[st] = out.get(st, F(0)) + F(w, 36)
        return out

    total: dict[str, F] = {}
    kia = result.endswith("KIA")
    drm = 0 if kia else int(result[2])
    for chosen in _selections(result, m):
        per_unit: list[dict[str, F]] = []
        for i, (kind, morale, broken) in enumerate(units):
            if kia:
                if i in chosen:
                    per_unit.append({"eliminated": F(1)})
                elif broken:
                    per_unit.append({"eliminated" if kind == "hs" else "reduced+broken":
                                     F(1)})
                else:
                    per_unit.append({"broken": F(1)})
            elif i in chosen:
                if kind == "hs":
                    per_unit.append({"eliminated": F(1)})
                else:
                    per_unit.append(after_mc("hs", morale, broken, True, drm))
            else:
                per_unit.append(after_mc(kind, morale, broken, False, drm))
        for combo in product(*(d.items() for d in per_unit)):
            key = ",".join(f"{names[i]}={st}" for i, (st, _) in enumerate(combo))
            p = F(1, 6 ** m)
            for _, q in combo:
                p *= q
            total[key] = total.get(key, F(0)) + p
    return total


@pytest.mark.parametrize("result", ["1KIA", "2KIA", "K/1", "K/2"])
@pytest.mark.parametrize("units", [
    [("squad", 7, False)],
    [("squad", 7, False), ("hs", 6, False)],
    [("squad", 7, False), ("hs", 6, True)],
    [("squad", 7, False), ("squad", 8, False), ("hs", 6, True)],
    [("hs", 6, False), ("hs", 6, False), ("hs", 6, False)],
])
def test_random_selection_against_every_die(result: str,
                                            units: list[tuple[str, int, bool]]) -> None:
    text = ",".join(f"{k}:{m}" + (":broken" if b else "") for k, m, b in units)
    assert states(result, text) == _oracle(result, units)


# ------------------------------------------------------------------ fire group, rally
def test_fire_group_assault_fire_per_unit() -> None:
    # two 6-6-6 assault-firing in the AFPh (A7.36): 3+1 and 3+1 = 8 FP, the 8 column;
    # doubles (1/6) cower one column, to 6
    dist = warroom.odds("asl.fire_group", firers="6-6-6:af,6-6-6:af", target="4-4-7",
                        phase="afph")
    assert dist.marginal("column") == {6: F(1, 6), 8: F(5, 6)}
    # asl.ift with the group's total: 12 halved to 6, rounded up, +1 per unit (2) = 8
    assert warroom.odds("asl.ift", fp=12, area_fire=1, assault_fire=2).marginal(
        "column") == {6: F(1, 6), 8: F(5, 6)}
    # per unit (A7.5): a pinned 6-6-6 firing PBF in the AFPh is 6 / 2 / 2 x 2 = 3,
    # assault fire 3 + 1 = 4; the other 6 / 2 x 2 = 6, + 1 = 7: 11 FP, the 8 column
    r = warroom.roll("asl.fire_group", {"firers": "6-6-6:af,6-6-6:af:pinned", "pbf": True,
                                        "target": "4-4-7", "phase": "afph"}, dice=[6, 5])
    text = [s.text.render() for s in r.steps]
    assert "squad1: 6 FP x1/2 AFPh x2 PBF assault fire: rounded up, +1 = 7 FP" in text
    assert ("squad2: 6 FP x1/2 AFPh x1/2 pinned x2 PBF assault fire: rounded up, +1 = "
            "4 FP") in text
    assert r.outcome["column"] == 8


def test_fire_group_in_one_answer() -> None:
    # 4-6-7, 4-6-7 directed by an 8-1: 8 FP, DRM -1, no cowering. On the 8 column a
    # total of 2 is final 1: 2KIA (1 of 36); 3 is final 2: 1KIA (2 of 36); either
    # eliminates the lone 4-4-7 (3 of 36)
    dist = warroom.odds("asl.fire_group", firers="4-6-7,4-6-7,8-1", target="4-4-7")
    assert dist.probability(result="2KIA") == F(1, 36)
    assert dist.probability(result="1KIA") == F(2, 36)
    assert dist.probability(unit1="eliminated", result="1KIA") == F(2, 36)
    assert dist.total() == 1


def test_rally() -> None:
    # A10.6: a broken squad of broken-side morale 7 under DM (+4) rallies on totals
    # 2-3 (3 of 36); a German 4-6-7 rallies on its broken side, 8: totals 2-4 (6 of 36)
    assert warroom.odds("asl.rally", unit="4-6-7/7", dm=True).probability(
        rallied=True) == F(3, 36)
    assert warroom.odds("asl.rally", unit="4-6-7", dm=True).probability(
        rallied=True) == F(6, 36)
    # an 8-1 rallying a 4-6-7/7 in woods: -1 -1, totals 2-9 (30 of 36); an
    # original 12 reduces it to a broken half-squad
    dist = warroom.odds("asl.rally", unit="4-6-7/7", leader="8-1", terrain="woods")
    assert dist.marginal("state") == {"ok": F(30, 36), "broken": F(5, 36),
                                      "reduced+broken": F(1, 36)}
    # self-rally +1 of a half-squad: 2-6 (15 of 36); a 12 eliminates it
    dist = warroom.odds("asl.rally", unit="2-4-7", self_rally=True)
    assert dist.probability(rallied=True) == F(15, 36)
    assert dist.probability(eliminated=True) == F(1, 36)
    with pytest.raises(UsageError):
        warroom.odds("asl.rally", unit="4-6-7", leader="4-6-7")
    # a broken leader rallies no one but himself (A10.6)
    with pytest.raises(UsageError, match="broken leader"):
        warroom.odds("asl.rally", unit="4-6-7", leader="8-1:broken")
    # a wounded 9-2 rallies at -1 (A17.3): a 4-6-7/7 on totals 2-8 (26 of 36); a German
    # 4-6-7 (broken side 8) on 2-9 (30 of 36)
    assert warroom.odds("asl.rally", unit="4-6-7/7", leader="9-2:wounded").probability(
        rallied=True) == F(26, 36)
    assert warroom.odds("asl.rally", unit="4-6-7", leader="9-2:wounded").probability(
        rallied=True) == F(30, 36)
    # no DRM: the story says no "final DR = original DR" sum with nothing in it
    r = warroom.roll("asl.rally", {"unit": "4-6-7"}, dice=[3, 4])
    assert r.outcome["rallied"] is True
    assert not any("original DR" in s.text.render() for s in r.steps)


def test_ten_units_roll_and_refuse_exact_odds_at_once() -> None:
    from warroom.errors import ExactTooLargeError

    ten = {"result": "K/2", "units": ",".join(["4-6-7"] * 8 + ["9-2", "8-1"])}
    r = warroom.roll("asl.ift_on_stack", ten, seed=1)
    assert r.outcome["unit10"] != "-" and len(r.outcome["units"].split(",")) == 10
    # the joint states of ten units are far past the exact budget: refused before
    # enumerating (the cost estimate), so the product can fall back to an estimate
    with pytest.raises(ExactTooLargeError):
        warroom.odds("asl.ift_on_stack", **ten, exact=True)


# ------------------------------------------------------------------ the staged attack
@pytest.mark.parametrize(("result", "units"), [
    ("K/1", "squad:7:3,leader:8:-1:elr=3,hs:6:2:broken,leader:9:-2"),
    ("NMC", "4-6-7,8-1,9-2,2-4-8:broken"),
    ("1KIA", "4-6-7,8-1,9-1:broken"),
    ("PTC", "4-6-7,8-1:pinned,9-2"),
])
def test_stages_on_parts_equal_the_same_stages_on_whole_states(result: str,
                                                               units: str) -> None:
    """The attack's stages each read part of the state (the leaders and one unit, say):
    the same stages run on the whole state, worked out once per whole state, give the
    same fractions."""
    from warroom.engine.context import fixed
    from warroom.engine.exact import exact_run
    from warroom.games.asl.counters import parse_units
    from warroom.games.asl.stack import Readings, _stages, first_state

    us = parse_units(units)
    stages = _stages(us, result, 0, Readings())
    whole = tuple(fixed(lambda s, d, f=f: f(s, d), ("whole", k)) for k, f in enumerate(stages))
    assert all(not hasattr(f, "_warroom_part") for f in whole)
    start = first_state(us)

    def run(fns: Any) -> dict[Any, F]:
        w = exact_run(lambda d: {"s": d.stages(start, (), rounds=0, opening=fns)[0]},
                      ("s",))
        return {k: F(v, w.denominator) for k, v in w.weights.items()}

    assert run(stages) == run(whole)


def test_two_leaders_every_typed_roll_counted() -> None:
    # both leaders check (9-2 first), and a leader who breaks costs the other a Leader
    # Loss check: every sequence of typed dice through the roll driver
    params = {"units": "9-2,8-1", "result": "NMC"}
    d = warroom.odds("asl.ift_on_stack", **params)
    assert replay_oracle("asl.ift_on_stack", params, limit=10) == {
        k: F(w, d.denominator) for k, w in d.weights.items()}


# ------------------------------------------------- brute-force oracle with a leader
def _casualty(kind: str, flags: frozenset[str]) -> list[tuple[F, frozenset[str] | None]]:
    """Casualty reduction, written again for the oracle: a HS (or a squad already
    reduced) is eliminated, a squad reduced; a leader rolls his wound dr (1-4 wounded,
    5-6 killed, +1 if already wounded). None: eliminated."""
    if kind == "hs" or (kind == "squad" and "reduced" in flags):
        return [(F(1), None)]
    if kind == "squad":
        return [(F(1), flags | {"reduced"})]
    return [(F(1, 6), None if dr + ("wounded" in flags) >= 5 else flags | {"wounded"})
            for dr in range(1, 7)]


def _check(kind: str, morale: int, flags: frozenset[str], drm: int, ptc: bool = False
           ) -> list[tuple[F, frozenset[str] | None]]:
    """Every 2d6 total of one MC (or, ``ptc``, a task check whose failure pins)."""
    out: list[tuple[F, frozenset[str] | None]] = []
    for t, w in WAYS.items():
        p, final = F(w, 36), t + drm
        if ptc:
            failed = final > morale and "broken" not in flags
            out.append((p, flags | {"pinned"} if failed else flags))
        elif "broken" in flags:
            out += ([(p, None)] if t == 12 else
                    [(p * q, f) for q, f in _casualty(kind, flags)] if final > morale
                    else [(p, flags)])
        elif t == 12 or final > morale:
            broke = (flags - {"pinned"}) | {"broken"}
            out += ([(p * q, f) for q, f in _casualty(kind, broke)] if t == 12
                    else [(p, broke)])
        else:
            out.append((p, flags | {"pinned"} if final == morale else flags))
    return out


def s_broken(s: frozenset[str] | None) -> bool:
    return s is not None and "broken" in s


def _name(flags: frozenset[str] | None) -> str:
    if flags is None:
        return "eliminated"
    return "+".join(f for f in ("reduced", "wounded", "broken", "pinned") if f in flags) or "ok"


def _oracle_with_leader(result: str, units: list[tuple[str, int, bool]],
                        leader: tuple[int, int]) -> dict[str, F]:
    """Every Random Selection die, wound dr and 2d6 of an attack on squads and
    half-squads (kind, morale, broken) with one good-order leader (morale, DRM) listed
    last, by the rulebook as the issue reads it and independently of the product: the
    K/ casualties first; the leader checks first and, in good order and not pinned,
    gives his DRM (one worse if wounded; a wounded K/ casualty takes no MC but still
    leads); after the attack, if he was killed the units of lower morale (broken ones
    too) take an LLMC at his DRM reversed, if he broke an LLTC (failing pins)."""
    kinds = [k for k, _, _ in units] + ["leader"]
    morales = [m for _, m, _ in units] + [leader[0]]
    lead_drm = leader[1]
    m, li = len(kinds), len(kinds) - 1
    counts: dict[str, int] = {}
    names = []
    for k in kinds:
        counts[k] = counts.get(k, 0) + 1
        names.append(f"{k}{counts[k]}")
    start: list[frozenset[str] | None] = [
        frozenset({"broken"} if b else ()) for _, _, b in units] + [frozenset()]
    kia = result.endswith("KIA")
    drm = 0 if kia else int(result[2])
    Branch = tuple[F, tuple[frozenset[str] | None, ...], bool]

    def each(branches: list[Branch], i: int, step: Any) -> list[Branch]:
        """Apply ``step(state of unit i, states, hit)`` -> [(p, new state)] to unit i,
        equal branches (the same states and hit) merged, their chances added."""
        out: dict[tuple[tuple[frozenset[str] | None, ...], bool], F] = {}
        for p, ss, hit in branches:
            for q, new in step(ss[i], ss, hit):
                key = ((*ss[:i], new, *ss[i + 1:]), hit)
                out[key] = out.get(key, F(0)) + p * q
        return [(p, ss, hit) for (ss, hit), p in out.items()]

    # the Random Selection rolls that select the same units, counted together
    selected: dict[frozenset[int], int] = {}
    for chosen in _selections(result, m):
        selected[frozenset(chosen)] = selected.get(frozenset(chosen), 0) + 1
    total: dict[str, F] = {}
    for chosen, times in selected.items():
        branches: list[Branch] = [(F(times, 6 ** m), tuple(start), False)]
        for i in range(m):
            if kia and i in chosen:
                branches = each(branches, i, lambda s, ss, h: [(F(1), None)])
            elif kia and s_broken(start[i]):
                branches = each(branches, i, lambda s, ss, h, k=kinds[i]: _casualty(k, s))
            elif kia:
                branches = each(branches, i, lambda s, ss, h: [
                    (F(1), (s - {"pinned"}) | {"broken"})])
            elif i in chosen:
                branches = each(branches, i, lambda s, ss, h, k=kinds[i]: _casualty(k, s))
        if not kia:
            # a surviving K/ casualty leader is hit: no MC of his own
            branches = [(p, ss, li in chosen and ss[li] is not None) for p, ss, _ in branches]
            branches = each(branches, li, lambda s, ss, hit: [(F(1), s)] if s is None or hit
                            else _check("leader", morales[li] - ("wounded" in s), s, drm))
            for i in range(li):
                def own(s: Any, ss: Any, hit: bool, i: int = i) -> Any:
                    if s is None:
                        return [(F(1), None)]
                    lead = ss[li]
                    helps = lead is not None and not lead & {"broken", "pinned"}
                    extra = lead_drm + ("wounded" in lead) if helps else 0
                    return _check(kinds[i], morales[i], s, drm + extra)
                branches = each(branches, i, own)
        for i in range(li):  # Leader Loss, after the attack
            def loss(s: Any, ss: Any, hit: bool, i: int = i) -> Any:
                if s is None or morales[i] >= morales[li]:
                    return [(F(1), s)]
                if ss[li] is None:
                    return _check(kinds[i], morales[i], s, -lead_drm)
                if "broken" in ss[li]:
                    return _check(kinds[i], morales[i], s, -lead_drm, ptc=True)
                return [(F(1), s)]
            branches = each(branches, i, loss)
        for p, ss, _ in branches:
            key = ",".join(f"{names[i]}={_name(s)}" for i, s in enumerate(ss))
            total[key] = total.get(key, F(0)) + p
    return total


@pytest.mark.parametrize(("result", "units", "leader"), [
    ("K/1", [("squad", 7, False)], (8, -1)),
    ("K/1", [("hs", 6, False), ("squad", 7, True)], (9, -2)),
    ("K/2", [("squad", 8, False)], (8, 0)),
    ("1KIA", [("squad", 7, False), ("hs", 6, False)], (8, -1)),
    ("1KIA", [("squad", 7, True)], (9, -1)),
    ("2KIA", [("squad", 7, False), ("squad", 7, False)], (8, -1)),
])
def test_random_selection_with_a_leader_against_every_die(
        result: str, units: list[tuple[str, int, bool]], leader: tuple[int, int]) -> None:
    text = ",".join([f"{k}:{m}" + (":broken" if b else "") for k, m, b in units]
                    + [f"leader:{leader[0]}:{leader[1]}"])
    expected = _oracle_with_leader(result, units, leader)
    assert sum(expected.values()) == 1 and len(expected) > 1
    assert states(result, text) == expected


def test_six_unit_stack_checks_follow_distinct_states(monkeypatch: pytest.MonkeyPatch) -> None:
    """The structure that makes the six-unit K/1 stack fast (its time is a benchmark
    row): every check is a piece of a stage on part of the state, worked out once per
    value of that part (a unit's check per leader helping it and the unit's own state,
    its Leader Loss check per check the leaders lost call for and the unit's state, and
    so each leader's own Leader Loss check; a leader's check per DRM helping him and his
    state, not per state of every leader), so the checks are replayed 375 times for
    21,716 joint outcomes (649 when the Leader Loss checks were worked out per set of
    leaders lost and the leaders' checks per state of every leader; 661 when the
    leaders' own Leader Loss checks were one piece per state of all the
    leaders; 860 before each piece's runs went leaf first, with no run only
    to find where it branches; 2,618 when a unit's check and its Leader Loss check were one
    piece per leaders' context, helper and lost leaders together, and the unit's state;
    7,151 when each unit's checks were one stage over the leaders and the unit)."""
    from warroom.games.asl import stack

    calls = [0]
    real = stack.check

    def counted(*args: Any, **kwargs: Any) -> int:
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(stack, "check", counted)
    units = "squad:7:3,leader:8:-1:elr=3,hs:6:2:broken,squad:6,leader:9:-2,hs:5"
    d = warroom.odds("asl.ift_on_stack", units=units, result="K/1")
    assert len(d.weights) == 21_716
    assert calls[0] == 375


def test_an_estimate_makes_the_attack_plan_and_rows_once() -> None:
    """Monte Carlo runs the procedure once a sample: the attack's stages, first state and
    outcome rows are made once for the question (kept by the attack), and each half of
    the stack's row once per distinct state of that half, not per sample."""
    from warroom import api
    from warroom.engine import drivers
    from warroom.games.asl import stack
    from warroom.games.asl.counters import parse_units

    raw = {"result": "K/2", "units": "squad:7:3,leader:8:-1:elr=3,hs:6:2:broken,squad:6,"
                                     "leader:9:-2,hs:5,4-6-7,4-6-7,2-4-7,8-1"}
    proc, params = api.prepare("asl.ift_on_stack", raw)
    stack._finish_plan.cache_clear()
    stack._halves.cache_clear()
    est = drivers.simulate(proc, params, 2000, seed=3)
    info = stack._finish_plan.cache_info()
    assert (info.misses, info.hits) == (1, 1999)
    first, second = stack._halves(parse_units(raw["units"]))
    heads = {k[1:6] for k in est.counts}
    tails = {k[6:11] for k in est.counts}
    assert (len(first), len(second)) == (len(heads), len(tails)) and len(heads) < 2000



# ------------------------------------------------------------------ issue 32
def test_leader_helps_only_leaders_of_lower_morale() -> None:
    # A10.7, A10.22 EX: NMC on an 8-1 and an 8-0. The 8-1 checks first; his -1 does not
    # help the 8-0 (same morale), who rolls 8 against 8 unaided: passed but pinned (A7.8)
    r = warroom.roll("asl.ift_on_stack", {"result": "NMC", "units": "8-1,8-0"},
                     dice=[3, 3, 4, 4])
    assert r.outcome["units"] == "leader1=ok,leader2=pinned"
    assert not any("leads" in s.text.render() for s in r.steps)
    # the 8-0 is ok on totals 2-7 whatever the 8-1 did (21 of 36 = 7/12); neither
    # leader's loss makes the other check (equal morale, A10.2)
    dist = warroom.odds("asl.ift_on_stack", result="NMC", units="8-1,8-0")
    assert dist.probability(unit2="ok") == F(7, 12)
    # a 9-1 does help the 8-0 (morale 8 < 9). The 9-1's NMC: 2-8 ok (26), 9 pinned (4),
    # 10-11 broken (5), 12 broken with a wound dr: wounded 4/6, killed 2/6. The 8-0 is
    # ok: with his -1 on totals 2-8 (26); pinned, he gives nothing: 2-7 (21); broken,
    # 2-7 (21) then its LLTC at +1 passes on 2-7 (21); killed, 2-7 (21) then the LLMC
    # at +1 passes unpinned on 2-6 (15):
    # 26*26/1296 + 4*21/1296 + (5/36 + 4/216) * 21*21/1296 + 2/216 * 21*15/1296
    # = (146016 + 18144 + 14994 + 630) / 279936 = 179784/279936 = 2497/3888
    dist = warroom.odds("asl.ift_on_stack", result="NMC", units="9-1,8-0")
    assert dist.probability(unit2="ok") == F(2497, 3888)


def test_broken_side_morale_decides_leader_loss() -> None:
    # A10.2 EX: 1KIA on a 6-5-8, a 4-6-7 and a 9-1. Random Selection (a dr each, every
    # unit tied for the highest): the SS squad is selected when its dr is the highest
    # (ties too): sum over k of 1/6 * (k/6)**2 = 91/216; otherwise it breaks, to its
    # broken side 9, not lower than the 9-1's 9: no LLMC, never reduced
    dist = warroom.odds("asl.ift_on_stack", result="1KIA", units="6-5-8,4-6-7,9-1")
    assert dist.marginal("unit1") == {"eliminated": F(91, 216), "broken": F(125, 216)}
    # the 4-6-7 breaks to 8 < 9 and takes the LLMC at +1 when the leader alone is
    # selected (his dr L above the 4-6-7's, at least the SS's): sum (L-1)/6 * L/6 / 6
    # = (91 - 21)/216 = 70/216; broken, it fails on 8+ (15 of 36): 8-11 casualty
    # reduction (14), 12 eliminated (1)
    assert dist.probability(unit2="reduced+broken") == F(70, 216) * F(14, 36)
    # the roll of the issue: drs 1, 1, 6 select the leader, the 4-6-7's LLMC 5+5 +1 = 11
    # > 8 reduces it; the SS takes none (only five dice)
    r = warroom.roll("asl.ift_on_stack", {"result": "1KIA", "units": "6-5-8,4-6-7,9-1"},
                     dice=[1, 1, 6, 5, 5])
    assert r.outcome["units"] == "squad1=broken,squad2=reduced+broken,leader1=eliminated"


def test_broken_morale_written_on_the_counter() -> None:
    from warroom.games.asl.counters import parse_units

    a, b, c, d, e = parse_units("4-6-7,4-6-7/7,6-5-8,4-4-7,9-1/8")
    assert (a.broken_side, b.broken_side, c.broken_side, d.broken_side) == (8, 7, 9, 7)
    assert (e.morale, e.broken_side) == (9, 8)
    # the long form too, and old notations unchanged
    assert parse_units("squad:7/8:3")[0].broken_side == 8
    assert parse_units("squad:7:3")[0].broken_side == 7
    # NMC on an already broken 4-4-7/8: it checks on 8, stays broken on 2-8 (26 of 36)
    assert states("NMC", "4-4-7/8:broken")["squad1=broken"] == F(26, 36)
    with pytest.raises(UsageError):
        parse_units("4-6-7/11")


def test_first_fire_full_unless_already_marked() -> None:
    # A8.3/A8.31 and the card: only a firer already bearing a First Fire marker
    # (Subsequent First Fire) or firing Final Fire is halved. Two 4-6-7 in their first
    # Defensive First Fire: 8 FP, the 8 column (doubles, 1/6, cower to 6)
    first = warroom.odds("asl.fire_group", firers="4-6-7,4-6-7", target="4-4-7",
                         phase="defensive_first_fire")
    assert first.marginal("column") == {6: F(1, 6), 8: F(5, 6)}
    # already marked: 2 + 2 = 4 FP, the 4 column (cowering to 2); Final Fire the same;
    # the old name first_fire still means what battles recorded with it meant
    for phase in ("marked_first_fire", "final_fire", "first_fire"):
        dist = warroom.odds("asl.fire_group", firers="4-6-7,4-6-7", target="4-4-7",
                            phase=phase)
        assert dist.marginal("column") == {2: F(1, 6), 4: F(5, 6)}
    r = warroom.roll("asl.fire_group", {"firers": "4-6-7", "target": "4-4-7",
                                        "phase": "marked_first_fire"}, dice=[6, 5])
    assert "squad1: 4 FP x1/2 already marked First Fire = 2 FP" in [
        s.text.render() for s in r.steps]


def test_assault_fire_one_rule_for_fire_group_and_ift() -> None:
    # A7.36, unit by unit: two 3-4-7 half-squads in the AFPh are 1.5 each, rounded up to
    # 2, +1 = 3 each: 6 FP, the 6 column (doubles cower to 4)
    group = warroom.odds("asl.fire_group", firers="3-4-7:af,3-4-7:af", target="4-4-7",
                         phase="afph")
    assert group.marginal("column") == {4: F(1, 6), 6: F(5, 6)}
    # asl.ift with the two units' 6 FP: 3 after the AFPh halving, 1.5 a unit: the same
    ift = warroom.odds("asl.ift", fp=6, area_fire=1, assault_fire=2)
    assert ift.marginal("column") == {4: F(1, 6), 6: F(5, 6)}
    # the entered dice of the issue agree: 6,6 cowers from the 6 column to the 4
    a = warroom.roll("asl.fire_group", {"firers": "3-4-7:af,3-4-7:af", "phase": "afph"},
                     dice=[6, 6])
    b = warroom.roll("asl.ift", {"fp": 6, "area_fire": 1, "assault_fire": 2}, dice=[6, 6])
    assert a.outcome["column"] == b.outcome["column"] == 4


def test_long_range_one_rule_for_stacks() -> None:
    from warroom.games.asl.counters import parse_counter
    from warroom.games.asl.units import reach

    c = parse_counter("4-6-7")  # normal range 6: long range up to 12 (A7.22)
    assert [reach(c, r) for r in (None, 1, 6, 7, 12, 13)] == [1, 1, 1, 2, 2, 0]


def test_leader_loss_readings_are_parameters() -> None:
    # 2KIA on a 9-2, a 9-1 and a 4-4-7: the squad escapes Random Selection only when its
    # dr is below both leaders' (sum over a of (6 - a)**2 / 216 = 55/216); then both
    # leaders are killed and the squad, broken by the KIA (morale 7), takes Leader Loss
    # checks. leader_loss=worst (default): one LLMC at +2, still just broken on 2-5
    # (10 of 36): 55/216 * 10/36
    worst = warroom.odds("asl.ift_on_stack", result="2KIA", units="9-2,9-1,4-4-7")
    assert worst.probability(unit3="broken") == F(55, 216) * F(10, 36)
    # leader_loss=each: the +2 check (2-5, 10 of 36), then the +1 one (2-6, 15 of 36)
    each = warroom.odds("asl.ift_on_stack", result="2KIA", units="9-2,9-1,4-4-7",
                        leader_loss="each")
    assert each.probability(unit3="broken") == F(55, 216) * F(10, 36) * F(15, 36)
    # wounded_12: the 9-1 breaks and is wounded by an original 12 (wound dr 2); the
    # 4-4-8 passes its NMC on 3+3. Before the wound (default) he was morale 9 > 8: an
    # LLTC at +1, 4+4+1 = 9 > 8 pins it; after it he is 8, not above 8: no LLTC
    units = {"result": "NMC", "units": "9-1,4-4-8"}
    before = warroom.roll("asl.ift_on_stack", units, dice=[6, 6, 2, 3, 3, 4, 4])
    assert before.outcome["units"] == "leader1=wounded+broken,squad1=pinned"
    after = warroom.roll("asl.ift_on_stack", {**units, "wounded_12": "after"},
                         dice=[6, 6, 2, 3, 3])
    assert after.outcome["units"] == "leader1=wounded+broken,squad1=ok"
