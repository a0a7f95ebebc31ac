"""Stages on part of a state (``context.part``), ``Dice.finish`` and the keys chains are
memoised under: against brute force over every die, the plain roll driver and entered
dice, and by counting the work the exact driver does."""

from __future__ import annotations

import types
from collections.abc import Mapping
from fractions import Fraction as F
from itertools import product
from typing import Any

import pytest
from pydantic import Field

from warroom.dice.sources import EnteredSource
from warroom.engine import drivers
from warroom.engine.context import KEEP, Dice, fixed, part, parts, rows
from warroom.engine.exact import chain_key, exact_run
from warroom.engine.params import validate
from warroom.engine.procedure import Params, outcome, procedure
from warroom.engine.roll import RollDice
from warroom.errors import RuleError

Trio = tuple[int, int, int]
CALLS: dict[str, int] = {}


def _first(s: tuple[int], d: Dice) -> tuple[int]:
    return (d.die(rule="t.part.x", what="x"),)


def _beat(s: tuple[int, int], d: Dice) -> tuple[int, int]:
    # fields (2, 0): the running count first, then x, which it reads but keeps
    z, x = s
    return (z + int(d.die(rule="t.part.z", what="z") >= x), x)


def _third(s: tuple[int], d: Dice) -> tuple[int]:
    CALLS["third"] = CALLS.get("third", 0) + 1
    return (d.die(rule="t.part.y", what="y") % 3,)


FIRST = part((0,), fixed(_first))
BEAT = part((2, 0), fixed(_beat))
THIRD = part((1,), fixed(_third))


def _fight(d: Dice) -> Mapping[str, Any]:
    (x, y, z), fought = d.stages((0, 0, 0), (BEAT, THIRD), rounds=2, opening=(FIRST,))
    return {"x": x, "y": y, "z": z, "rounds": fought}


def _brute() -> dict[tuple[int, ...], F]:
    """Every die written out: x, then twice (a die >= x counts, y = a die mod 3)."""
    out: dict[tuple[int, ...], F] = {}
    for a, b1, _c1, b2, c2 in product(range(1, 7), repeat=5):
        key = (a, c2 % 3, int(b1 >= a) + int(b2 >= a), 2)
        out[key] = out.get(key, F(0)) + F(1, 6**5)
    return out


def test_part_stages_equal_every_die_counted() -> None:
    w = exact_run(_fight, ("x", "y", "z", "rounds"))
    assert {k: F(v, w.denominator) for k, v in w.weights.items()} == _brute()


def test_a_part_stage_is_worked_out_once_per_value_of_its_part() -> None:
    CALLS.clear()
    exact_run(_fight, ("x", "y", "z", "rounds"))
    # THIRD reads only y, which is 0 before its first round and 0, 1 or 2 after: three
    # distinct parts, each enumerated once (one run per face: past its path a run takes
    # the first face and leaves the others to runs of their own; the first part's runs
    # begin with one that finds the stage branches), however many whole states (x, y, z)
    # hold them (here up to 6 * 3 * 3)
    assert CALLS["third"] == 1 + 3 * 6


def _whole_first(s: Trio, d: Dice) -> Trio:
    return (d.die(rule="t.part.x", what="x"), s[1], s[2])


def _fight_whole_first(d: Dice) -> Mapping[str, Any]:
    # x rolled by a stage on the whole state: the states are packed after it, six at once
    (x, y, z), fought = d.stages((0, 0, 0), (BEAT, THIRD), rounds=2,
                                 opening=(fixed(_whole_first),))
    return {"x": x, "y": y, "z": z, "rounds": fought}


@pytest.mark.parametrize("fight", [_fight, _fight_whole_first])
@pytest.mark.parametrize("bits", [1, 2, 3])
def test_packed_states_that_run_out_of_bits_go_on_as_tuples(
        bits: int, fight: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # between stages on parts the exact driver packs each state in one int, a position's
    # values numbered in ``bits`` bits (16 in use); past 2**bits values at one position
    # (x takes 6, z up to 3, y 3), met in a stage or when packing, it goes on with
    # tuples: the same odds as brute force
    from warroom.engine.exact import packed

    made: list[int] = []
    real = packed.Packed.__init__

    def narrow(self: Any, width: int, bits_: int = 16) -> None:
        made.append(width)
        real(self, width, bits)

    monkeypatch.setattr(packed.Packed, "__init__", narrow)
    w = exact_run(fight, ("x", "y", "z", "rounds"))
    assert made  # packed first
    assert {k: F(v, w.denominator) for k, v in w.weights.items()} == _brute()


def test_packed_and_tuple_states_agree() -> None:
    # a test ``done`` (never true here) keeps the states as tuples: the same weights
    def fight_done(d: Dice) -> Mapping[str, Any]:
        (x, y, z), fought = d.stages((0, 0, 0), (BEAT, THIRD), rounds=2, opening=(FIRST,),
                                     done=lambda s: s[2] > 2)
        return {"x": x, "y": y, "z": z, "rounds": fought}

    a = exact_run(_fight, ("x", "y", "z", "rounds"))
    b = exact_run(fight_done, ("x", "y", "z", "rounds"))
    assert a.denominator == b.denominator and dict(a.weights) == dict(b.weights)


def test_part_stages_roll_in_order_with_entered_dice() -> None:
    # x = 4; round 1: z die 5 (>= 4), y die 2; round 2: z die 3 (< 4), y die 6 (6 % 3 = 0)
    dice = RollDice(EnteredSource([4, 5, 2, 3, 6]))
    assert _fight(dice) == {"x": 4, "y": 0, "z": 1, "rounds": 2}
    assert [s.rule for s in dice.steps] == ["t.part.x", "t.part.z", "t.part.y",
                                            "t.part.z", "t.part.y"]


def test_a_part_must_return_as_many_values() -> None:
    bad = part((0, 1), fixed(lambda s, d: (s[0],)))
    with pytest.raises(RuleError):
        exact_run(lambda d: {"s": d.stages((0, 0), (bad,), rounds=1)[0]}, ("s",))
    with pytest.raises(ValueError):
        part((0, 0), _first)


# ------------------------------------------------------------------ Dice.finish
class Twice(Params):
    dice: int = Field(2, ge=0, le=3)


def _count(p: Twice) -> Any:
    def roll(s: tuple[int, int], d: Dice) -> tuple[int, int]:
        return (s[0] + int(d.die(rule="t.fin.die", what="die") >= 5), s[1])

    return fixed(roll, ("t.fin", p.dice))


def _outcome(s: tuple[int, int], fought: int) -> dict[str, Any]:
    return {"hits": s[0], "all": s[0] == fought, "rolled": fought}


@procedure("test.finish", title="t", summary="t", params=Twice,
           outcome=outcome(("hits", "int"), ("all", "bool"), ("rolled", "int")))
def finishing(p: Twice, d: Dice) -> Mapping[str, Any]:
    return d.finish((0, 0), (_count(p),), rounds=p.dice, outcome=_outcome)


@procedure("test.stages", title="t", summary="t", params=Twice,
           outcome=outcome(("hits", "int"), ("all", "bool"), ("rolled", "int")))
def staging(p: Twice, d: Dice) -> Mapping[str, Any]:
    return _outcome(*d.stages((0, 0), (_count(p),), rounds=p.dice))


@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_finish_equals_stages_then_the_outcome(n: int) -> None:
    a = drivers.exact(finishing, validate(finishing, {"dice": n}))
    b = drivers.exact(staging, validate(staging, {"dice": n}))
    assert {k: F(w, a.denominator) for k, w in a.weights.items()} == {
        k: F(w, b.denominator) for k, w in b.weights.items()}
    # by hand: each die hits on 5-6 (1/3); all n hit with (1/3)**n
    assert a.probability(all=True) == F(1, 3) ** n
    # typed dice 6, 1, 5: hits after 0..3 dice 0, 1, 1, 2; all hit after 0 or 1 die
    assert drivers.roll(finishing, validate(finishing, {"dice": n}), dice=[6, 1, 5][:n]
                        ).outcome == {"hits": [0, 1, 1, 2][n], "all": n < 2, "rolled": n}


def _row(s: tuple[int, int], fought: int) -> tuple[Any, ...]:
    # the fields in another order than declared: the driver puts them in place
    return (fought, s[0], s[0] == fought)


@procedure("test.finish_rows", title="t", summary="t", params=Twice,
           outcome=outcome(("hits", "int"), ("all", "bool"), ("rolled", "int")))
def finishing_rows(p: Twice, d: Dice) -> Mapping[str, Any]:
    return d.finish((0, 0), (_count(p),), rounds=p.dice,
                    outcome=rows(("rolled", "hits", "all"), _row))


@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_finish_with_rows_equals_finish_with_mappings(n: int) -> None:
    a = drivers.exact(finishing_rows, validate(finishing_rows, {"dice": n}))
    b = drivers.exact(finishing, validate(finishing, {"dice": n}))
    assert a.denominator == b.denominator and dict(a.weights) == dict(b.weights)
    # n + 1 last states (0..n hits), one outcome each
    assert len(a.weights) == n + 1
    assert drivers.roll(finishing_rows, validate(finishing_rows, {"dice": n}),
                        dice=[6, 1, 5][:n]).outcome == {"hits": [0, 1, 1, 2][n],
                                                        "all": n < 2, "rolled": n}


@procedure("test.finish_plain_rows", title="t", summary="t", params=Twice,
           outcome=outcome(("hits", "int"), ("all", "bool"), ("rolled", "int")))
def finishing_plain_rows(p: Twice, d: Dice) -> Mapping[str, Any]:
    return d.finish((0, 0), (_count(p),), rounds=p.dice,
                    outcome=rows(("rolled", "hits", "all"), _row, plain=True))


@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_plain_rows_count_as_rows(n: int) -> None:
    # plain rows (no lazy count in them): counted without looking at each value's type,
    # to the same weights
    a = drivers.exact(finishing_plain_rows, validate(finishing_plain_rows, {"dice": n}))
    b = drivers.exact(finishing_rows, validate(finishing_rows, {"dice": n}))
    assert a.denominator == b.denominator and dict(a.weights) == dict(b.weights)
    # by hand: all n dice hit (5-6 on each) with (1/3)**n
    assert a.probability(all=True) == F(1, 3) ** n


def test_rows_missing_a_field_are_refused() -> None:
    def short(d: Dice) -> Mapping[str, Any]:
        return d.finish((0, 0), (_count(Twice()),), rounds=2,
                        outcome=rows(("hits", "all"), lambda s, r: (s[0], s[0] == r)))

    with pytest.raises(RuleError, match="rolled"):
        exact_run(short, ("hits", "all", "rolled"))


def test_the_outcome_of_finish_is_returned_as_it_is() -> None:
    def reads(d: Dice) -> Mapping[str, Any]:
        out = d.finish((0, 0), (_count(Twice()),), rounds=2, outcome=_outcome)
        return {"hits": out["hits"]}

    with pytest.raises(RuleError):
        exact_run(reads, ("hits",))


# ------------------------------------------------------------------ memo keys (issue #23)
SOURCE = "def chain(d):\n    return LABEL\n"


def _module(name: str, label: str) -> Any:
    mod = types.ModuleType(name)
    mod.LABEL = label  # type: ignore[attr-defined]
    exec(compile(SOURCE, "<chains>", "exec"), mod.__dict__)
    return mod


def test_equal_code_in_two_modules_does_not_share_a_memo_key() -> None:
    one, two = _module("t_chains_one", "a"), _module("t_chains_two", "b")
    assert one.chain.__code__ == two.chain.__code__  # the same code, other globals
    assert chain_key(one.chain) != chain_key(two.chain)

    def both(d: Dice) -> Mapping[str, Any]:
        return {"first": d.one(one.chain, ("a", "b"), rule="t.key", what="one"),
                "second": d.one(two.chain, ["a", "b"], rule="t.key", what="two")}

    w = exact_run(both, ("first", "second"))
    assert w.weights == {("a", "b"): 1}


# ------------------------------------------------------------------ context.parts
PIECES: dict[str, int] = {}


def _hit(s: tuple[int, int], d: Dice) -> tuple[int, int]:
    # (a target's strength, one unit's state): the unit is hit on 5+ less the strength
    PIECES["hit"] = PIECES.get("hit", 0) + 1
    return (s[0], s[1] + int(d.die(rule="t.parts.hit", what="hit") >= 5 - s[0]))


def _rally(s: tuple[int], d: Dice) -> tuple[int]:
    # the target itself: loses a point of strength on a 1
    PIECES["rally"] = PIECES.get("rally", 0) + 1
    return (s[0] - int(d.die(rule="t.parts.rally", what="rally") == 1),)


def _pieces() -> list[Any]:
    # fields: 0 the strength, 1 and 2 two units
    return [part((0, 1), fixed(_hit, ("t.hit", 1))), part((0, 2), fixed(_hit, ("t.hit", 2))),
            part((0,), fixed(_rally, ("t.rally",)))]


def _run(stages: list[Any]) -> Any:
    return exact_run(lambda d: {"s": d.stages((1, 0, 0), stages, rounds=2)[0]}, ("s",))


def _brute_parts() -> dict[tuple[Any, ...], F]:
    """Every die written out: per round unit 1's die, unit 2's, the rally die."""
    out: dict[tuple[Any, ...], F] = {}
    for dice in product(range(1, 7), repeat=6):
        a, u1, u2 = 1, 0, 0
        for r in range(2):
            x, y, z = dice[3 * r:3 * r + 3]
            u1 += int(x >= 5 - a)
            u2 += int(y >= 5 - a)
            a -= int(z == 1)
        key = ((a, u1, u2),)
        out[key] = out.get(key, F(0)) + F(1, 6**6)
    return out


def test_parts_equal_every_die_and_the_pieces_one_by_one() -> None:
    joined = _run([parts(*_pieces())])
    apart = _run(_pieces())
    as_f = [{k: F(v, w.denominator) for k, v in w.weights.items()} for w in (joined, apart)]
    assert as_f[0] == as_f[1] == _brute_parts()


def test_parts_work_each_piece_out_once_per_value_of_its_own_part() -> None:
    PIECES.clear()
    _run([parts(*_pieces())])
    # unit 1's piece starts from (strength, hits) (1, 0) in the first round and from
    # (1, 0), (1, 1), (0, 0), (0, 1) in the second: 4 distinct parts; unit 2's the same
    # 4; the rally from strength 1 and 0: 2. Each enumerated once, one run per face (and
    # one first run that finds the piece branches), however many whole states hold it
    assert PIECES == {"hit": 1 + 6 * 8, "rally": 1 + 6 * 2}
    # one piece after another in one replayed stage would follow every path instead:
    # unit 2's die and the rally die replayed for each of unit 1's faces
    PIECES.clear()
    whole = fixed(lambda s, d: parts(*_pieces())(s, d), ("t.parts.whole",))
    _run([whole])
    assert PIECES["rally"] > 7 * 2


def test_parts_roll_in_order_with_entered_dice() -> None:
    dice = RollDice(EnteredSource([6, 2, 1]))
    # strength 1: unit 1 hit on 4+ (6: hit), unit 2 not (2), then the rally die 1: 0
    assert parts(*_pieces())((1, 0, 0), dice) == (0, 1, 0)
    assert [s.rule for s in dice.steps] == ["t.parts.hit", "t.parts.hit", "t.parts.rally"]


def test_parts_join_only_stages_on_parts() -> None:
    with pytest.raises(ValueError):
        parts(_first)
    with pytest.raises(ValueError):
        parts()


# -- a stage that writes positions it does not read (part's ``writes``, KEEP) ----------
# A toy Random Selection over four units: each unit's die reads only the highest die so
# far (position 0) and marks who is tied for it (positions 1-4, known to be 0 before):
# a higher die marks this unit alone (the others written 0), an equal one marks it too
# and leaves the others' marks (KEEP), a lower one leaves every mark.
UNITS = 4


def _top(i: int) -> Any:
    def rs(sub: tuple[Any, ...], d: Dice) -> tuple[Any, ...]:
        CALLS[f"top{i}"] = CALLS.get(f"top{i}", 0) + 1
        roll = d.die(rule="t.part.rs", what="rs")
        top = sub[0]
        if not top or roll > top:
            return (roll, *(0,) * i, 1)
        return (top, *(KEEP,) * i, 1 if roll == top else KEEP)

    return part((0,), fixed(rs, ("t.part.top", i)), writes=tuple(range(1, i + 2)))


TOPS = tuple(_top(i) for i in range(UNITS))


def _selection(d: Dice) -> Mapping[str, Any]:
    last, _ = d.stages((0, *(0,) * UNITS), (), rounds=0, opening=TOPS)
    return {"top": last[0], "chosen": "".join(map(str, last[1:]))}


def _brute_selection() -> dict[tuple[int, str], F]:
    out: dict[tuple[int, str], F] = {}
    for rolls in product(range(1, 7), repeat=UNITS):
        top = max(rolls)
        key = (top, "".join("1" if r == top else "0" for r in rolls))
        out[key] = out.get(key, F(0)) + F(1, 6**UNITS)
    return out


def test_a_stage_writing_positions_it_does_not_read_equals_every_die() -> None:
    CALLS.clear()
    w = exact_run(_selection, ("top", "chosen"))
    assert {k: F(v, w.denominator) for k, v in w.weights.items()} == _brute_selection()
    # each die worked out once per highest die so far, not per set of marks (die 4 meets
    # 6 highest dice, but 6 * 8 states): one run that finds the stage branches, then a
    # run per face for each highest die met (the first die: nothing rolled yet, one)
    assert CALLS["top0"] == 1 + 6
    assert all(CALLS[f"top{i}"] == 1 + 6 * 6 for i in range(1, UNITS))


def test_writes_on_packed_and_tuple_states_agree() -> None:
    def done_never(d: Dice) -> Mapping[str, Any]:
        last, _ = d.stages((0, *(0,) * UNITS), (), rounds=0, opening=TOPS,
                           done=lambda s: False)
        return {"top": last[0], "chosen": "".join(map(str, last[1:]))}

    a = exact_run(_selection, ("top", "chosen"))
    b = exact_run(done_never, ("top", "chosen"))
    assert a.denominator == b.denominator and dict(a.weights) == dict(b.weights)


def test_writes_roll_with_entered_dice_and_keep_what_is_kept() -> None:
    # 3, 5, 5, 2: unit 2 clears unit 1's mark, unit 3 ties (unit 2's mark kept), unit 4
    # lower (every mark kept)
    assert _selection(RollDice(EnteredSource([3, 5, 5, 2]))) == {"top": 5, "chosen": "0110"}


@pytest.mark.parametrize("batched", [True, False])
def test_writes_sampled_follow_the_exact_odds(batched: bool) -> None:
    import random

    from tests.helpers import close_enough
    from warroom.engine.batched import simulate_batched
    from warroom.engine.montecarlo import SampleDice

    n = 6000
    counts: dict[tuple[Any, ...], int] = {}
    if batched:  # rows of codes in numpy (columns), tables per highest die
        got = simulate_batched(_selection, ("top", "chosen"), n, 7)
        assert got is not None
        counts = got[0]
    else:  # the sequential sampler's tables, one sample at a time
        dice = SampleDice(random.Random(7))
        for _ in range(n):
            o = _selection(dice)
            key = (o["top"], o["chosen"])
            counts[key] = counts.get(key, 0) + 1
    exact = _brute_selection()
    assert set(counts) <= set(exact)
    for key, p in exact.items():
        assert close_enough(counts.get(key, 0) / n, float(p), n), (key, p)


def test_only_written_positions_may_be_left_with_keep() -> None:
    # KEEP at a position read leaves it too (the same as returning its value)
    same = part((0,), fixed(lambda s, d: (KEEP,)))
    assert exact_run(lambda d: {"s": d.stages((3,), (same,), rounds=1)[0]},
                     ("s",)).weights == {((3,),): 1}
    with pytest.raises(ValueError):
        part((), fixed(lambda s, d: ()), writes=(0,))


# -- a stage keyed by what its changes depend on (part's ``key``) ------------------------
# x is a die; then twice, a die hits (z + 1) on 4+ where x is even, on 5+ where it is odd:
# the stage reads x and z, but its changes depend only on x's parity and z.
def _parity_hit(s: tuple[int, int], d: Dice) -> tuple[int, int]:
    CALLS["keyed"] = CALLS.get("keyed", 0) + 1
    x, z = s
    return (KEEP, z + int(d.die(rule="t.part.hit", what="hit") >= 4 + x % 2))


KEYED = part((0, 2), fixed(_parity_hit), key=fixed(lambda s: (s[0] % 2, s[1]), "t.part.parity"))


def _keyed_fight(d: Dice) -> Mapping[str, Any]:
    (x, _, z), _ = d.stages((0, 0, 0), (KEYED,), rounds=2, opening=(FIRST,))
    return {"x": x, "z": z}


def _brute_keyed() -> dict[tuple[int, int], F]:
    out: dict[tuple[int, int], F] = {}
    for x, a, b in product(range(1, 7), repeat=3):
        key = (x, int(a >= 4 + x % 2) + int(b >= 4 + x % 2))
        out[key] = out.get(key, F(0)) + F(1, 6**3)
    return out


def test_a_keyed_stage_equals_every_die_and_is_worked_out_once_per_key() -> None:
    CALLS.clear()
    w = exact_run(_keyed_fight, ("x", "z"))
    assert {k: F(v, w.denominator) for k, v in w.weights.items()} == _brute_keyed()
    # keys met: (parity, 0) in the first round, (parity, 1) too in the second: 4 in all,
    # each a run per face, after one run that finds the stage branches; by the values
    # read, (x, 0) then (x, 1), it would be 12 (1 + 12 * 6 runs)
    assert CALLS["keyed"] == 1 + 4 * 6


def test_a_keyed_stage_rolls_with_entered_dice() -> None:
    # x = 3 (odd: 5+): 5 hits, 4 misses
    assert _keyed_fight(RollDice(EnteredSource([3, 5, 4]))) == {"x": 3, "z": 1}


@pytest.mark.parametrize("batched", [True, False])
def test_a_keyed_stage_sampled_follows_the_exact_odds(batched: bool) -> None:
    import random

    from tests.helpers import close_enough
    from warroom.engine.batched import simulate_batched
    from warroom.engine.montecarlo import SampleDice

    n = 6000
    counts: dict[tuple[Any, ...], int] = {}
    if batched:
        got = simulate_batched(_keyed_fight, ("x", "z"), n, 11)
        assert got is not None
        counts = got[0]
    else:
        dice = SampleDice(random.Random(11))
        for _ in range(n):
            o = _keyed_fight(dice)
            counts[o["x"], o["z"]] = counts.get((o["x"], o["z"]), 0) + 1
    exact = _brute_keyed()
    assert set(counts) <= set(exact)
    for key, p in exact.items():
        assert close_enough(counts.get(key, 0) / n, float(p), n), (key, p)


@pytest.mark.parametrize("low_keeps", [True, False])
def test_a_stage_on_untouched_positions_adds_up_changes_that_meet(low_keeps: bool) -> None:
    # a stage on a position no stage has run on (every state holds one value there)
    # whose changes can lead to one state: on one half of the die it keeps position 1
    # as it is (5), on the other it writes 5 there; both are the state (1, 5), 6/6,
    # whichever of the two changes comes first
    def stage(s: tuple[int], d: Dice) -> tuple[int, int]:
        low = d.die(rule="t.meet", what="meet") <= 3
        return (1, KEEP if low == low_keeps else 5)

    meet = part((0,), fixed(stage, ("t.meet", low_keeps)), writes=(1,))
    w = exact_run(lambda d: {"s": d.stages((0, 5), (), rounds=0, opening=(meet,))[0]},
                  ("s",))
    assert {k: F(v, w.denominator) for k, v in w.weights.items()} == {((1, 5),): F(1)}
