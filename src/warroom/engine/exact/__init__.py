"""The exact driver: the full distribution of a procedure's outcomes as exact fractions.

Two techniques keep the tree small:

* requests for pools, splits and per-item chains are answered with lazy counts
  (:mod:`warroom.engine.symbolic`); each pool becomes one categorical per item and a
  multinomial over counts, evaluated with integer weights over a common denominator
  (:mod:`.lazy`, :mod:`.kernels`);
* requests that must be concrete (single dice, tests, or a lazy count the procedure
  branches on) are enumerated by replaying the procedure with a prefix of answers
  (:mod:`.enumeration`); rounds of stages run as a dynamic programme over states
  (:mod:`.stages`, :mod:`.transitions`, :mod:`.parts`, :mod:`.packed`).

Equal outcomes are merged. The result sums to exactly 1. ``docs/engine.md`` walks
through one request from the procedure to the fractions.

The modules, lowest first (none imports one above it): :mod:`.core` (what they hand
one another), :mod:`.collector` (the garbage collector during a query), :mod:`.keys`
(memo keys), :mod:`.kernels` (multinomials), :mod:`.lazy` (lazy counts evaluated), :mod:`.pools`
(closed-form transitions of pool stages),
:mod:`.enumeration` (replays), :mod:`.transitions` (one stage from one state),
:mod:`.parts` and :mod:`.packed` (stages on part of the state), :mod:`.stages` (the
stage dynamic programme) and :mod:`.dice` (the exact dice, which hand themselves down).
"""

from warroom.engine.exact.collector import acyclic, gc_frozen
from warroom.engine.exact.core import MAX_PATHS, Outcome, Transition, Weights
from warroom.engine.exact.dice import (
    ExactDice,
    check_classes,
    exact_paths,
    exact_run,
    plain_transition,
)
from warroom.engine.exact.kernels import KRONECKER_BITS, multinomial_dense, multinomial_keys
from warroom.engine.exact.keys import chain_key, part_key, stage_key
from warroom.engine.exact.lazy import EVAL_MEMO, lazy_outcomes
from warroom.engine.exact.pools import POOL_TABLES

__all__ = [
    "EVAL_MEMO",
    "KRONECKER_BITS",
    "MAX_PATHS",
    "POOL_TABLES",
    "ExactDice",
    "Outcome",
    "Transition",
    "Weights",
    "acyclic",
    "chain_key",
    "check_classes",
    "exact_paths",
    "exact_run",
    "gc_frozen",
    "lazy_outcomes",
    "multinomial_dense",
    "multinomial_keys",
    "part_key",
    "plain_transition",
    "stage_key",
]
