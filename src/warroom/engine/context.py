"""The interface a procedure uses to ask for dice.

A procedure is written once against :class:`Dice`. Four drivers implement it:
exact odds, a seeded roll, dice entered by a player, and Monte Carlo sampling.

Requests are made at the level the rules speak of: "8 dice at 4+, re-roll misses",
"one save per hit", "2d6". Counts returned by :meth:`Dice.pool`, :meth:`Dice.split`
and :meth:`Dice.each` behave like ``int``. Under the exact driver they may be lazy
stand-ins: arithmetic and comparisons on them are free, while branching on them
(``if hits > 2:``) makes the driver enumerate their values, which is correct but
slower. Prefer storing a comparison in the outcome (``"pinned": hits >= 5``) over
branching on it when only the outcome needs it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

from warroom.dice.weights import Reroll, View
from warroom.engine.messages import Msg, Text, msg
from warroom.engine.steps import Target
from warroom.errors import RuleError

State = TypeVar("State", bound=tuple[Any, ...])

Stage = Callable[[State, "Dice"], State]
"""One stage of a round (or of the opening): rolls what it needs and returns the next
state, a tuple of the same length."""

Chain = Callable[["Dice"], str]
"""A per-item sub-procedure: rolls what one item needs and returns its category."""


F = TypeVar("F", bound=Callable[..., Any])


def fixed(fn: F, key: Hashable = None) -> F:
    """Mark a chain, a round or a stage whose captured values never change after it is
    made (one a cached factory returns, say): the exact driver then works out the key it
    memoises the function's distribution under once, not at every request. With ``key``
    (plain hashable values naming what the function computes, e.g. its factory's
    arguments and its own name) that key is used as it is: for functions that capture
    values which cannot be hashed."""
    if key is not None:
        fn._warroom_key = ("keyed", key)  # type: ignore[attr-defined]
    fn._warroom_fixed = True  # type: ignore[attr-defined]
    return fn


def columns(stage: F, form: Callable[..., Any]) -> F:
    """Give a stage on the whole state a columnar form for the batched Monte Carlo driver
    (:mod:`warroom.engine.batched`), for a stage whose samples rarely share a state:
    ``form(values, dice)`` takes the states of many samples as one numpy integer array
    per position (an entry per sample) and returns their next states the same way. What
    follows from the state alone it works out with numpy; its dice come from the driver
    (:class:`~warroom.engine.batched.ColumnDice`): ``dice.draw(fn, values)`` draws each
    entry's next part from the exact transition of ``fn`` (a stage on part of a state,
    marked :func:`fixed`) from the entry's value, ``dice.most(fn, subs, index, at)`` the
    largest value several independent draws of ``fn`` leave at a position,
    ``dice.chances(fn, sub)`` a transition, ``dice.random(shape)`` uniforms. Every
    other driver runs ``stage`` as it is: the form must follow its law exactly, built
    from the stage's own pieces (``fow.shoot_mixed``: its allocation's layout, its
    teams' chains), and tests hold the two drivers to each other and to exact odds."""
    stage._warroom_columns = form  # type: ignore[attr-defined]
    return stage


Pieces = Sequence[tuple[range, Sequence[tuple[Any, ...]], Sequence[int]]]
"""Last states in pieces (:func:`rows`' ``joined``): per piece, its positions, the
distinct values found there, and for every state (in the same order for every piece)
the index of its value among them."""


def rows(fields: Sequence[str], row: Callable[[Any, int], tuple[Any, ...]], *,
         plain: bool = False,
         joined: Callable[[Pieces, int], Iterable[tuple[Any, ...]]] | None = None
         ) -> Callable[[Any, int], Mapping[str, Any]]:
    """An ``outcome`` for :meth:`Dice.finish` given as a row: ``row(last state, rounds
    begun)`` returns the values of ``fields`` in that order. Rolling, it is the mapping
    of those fields to those values; the exact driver takes the rows as they are, with
    no mapping built and read back for each of the (thousands of) last states. With
    ``plain`` the rows hold only plain values (str, int: no lazy count), so the driver
    does not look for lazy counts in each value. Rolling, the outcome is a :class:`Row`.

    ``joined(pieces, rounds begun)``, when given, returns the rows of many last states at
    once (the same rows as ``row``, in order) from their values cut into consecutive
    pieces of positions (:data:`Pieces`: each piece's distinct values, and each state's
    index among them): the exact driver holds its states packed by halves, and the
    batched Monte Carlo driver as rows of codes, so a row built from a part per piece
    (each worked out once per distinct value of its piece, then picked by index) needs
    no state tuple built and cut again per last state, and no call in Python per row
    when the parts are joined in C (``map``)."""
    names = tuple(fields)

    def outcome(state: Any, fought: int) -> Row:
        return Row(names, row(state, fought))

    outcome._warroom_row = (names, row, plain)  # type: ignore[attr-defined]
    outcome._warroom_joined = joined  # type: ignore[attr-defined]
    return outcome


class Row(Mapping[str, Any]):
    """An outcome given as a row (:func:`rows`): the values of ``names``, in order, read
    as a mapping. Monte Carlo counts them (``cells``) as they are, without a mapping
    built and read back for each sample."""

    __slots__ = ("cells", "names")

    def __init__(self, names: tuple[str, ...], values: tuple[Any, ...]) -> None:
        if len(values) != len(names):
            raise RuleError(f"an outcome row of {len(names)} fields {names} has "
                            f"{len(values)} values: {values!r}")
        self.names = names
        self.cells = tuple(values)

    def __getitem__(self, key: str) -> Any:
        try:
            return self.cells[self.names.index(key)]
        except ValueError:
            raise KeyError(key) from None

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)


class _Keep:
    """The value a stage on part of a state returns for a position it leaves as it is
    (:data:`KEEP`)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "KEEP"


KEEP: Any = _Keep()
"""What a stage made by :func:`part` returns for a position it leaves as it is: needed
only for the positions it ``writes`` without reading them (it cannot return their old
values)."""


def part_changes(sub: tuple[Any, ...], after: tuple[Any, ...]) -> tuple[tuple[int, Any], ...]:
    """What a stage on part of a state did (:func:`part`): the (index in the part, new
    value) pairs of the positions it read (``sub``: their values) and changed, then of
    the positions it only writes (past ``sub``), except those it left (:data:`KEEP`)."""
    n = len(sub)
    out = [(j, v) for j, (v, old) in enumerate(zip(after[:n], sub, strict=True))
           if v is not old and v != old and v is not KEEP]
    if len(after) > n:
        out += [(j, v) for j, v in enumerate(after[n:], n) if v is not KEEP]
    return tuple(out)


def part(fields: Sequence[int], stage: Callable[[tuple[Any, ...], Dice], tuple[Any, ...]],
         writes: Sequence[int] = (), key: Callable[[tuple[Any, ...]], Any] | None = None
         ) -> Stage[Any]:
    """A stage that reads and changes only the state's values at ``fields`` (positions,
    in order): ``stage`` is called with those values as a tuple and returns their next
    values, the rest of the state is left as it is. Rolling, that is all it does. The
    exact driver works such a stage out once per distinct value of those fields, not
    per whole state, so a stage about one unit of many (its check, with the leaders it
    depends on) is enumerated once for each of its own few states and shared by every
    state of the others. Mark ``stage`` :func:`fixed` as any other stage.

    ``writes``: further positions the stage sets without reading them. It returns their
    next values after those of ``fields`` (a value, or :data:`KEEP` to leave one as it
    is), and its transitions are still worked out once per value of ``fields`` alone:
    a Random Selection die that reads only the highest roll so far and marks who is
    tied for it (the units' states, known at that point) has a few transitions, not one
    per set of units tied.

    ``key``: what the stage's changes depend on, from the values of ``fields``; values
    with the same key share one transition (worked out from the first met). Values
    with equal keys must be changed alike: the same positions left as they are, the
    others set to the same values with the same chances. A unit's Leader Loss check
    reads the leaders lost but depends only on its state and the check they call for,
    so a stack works out a few of them, not one per set of leaders lost. Like the
    stage, the key must be fixed by what the stage computes (a function of the same
    values: stages made alike and marked :func:`fixed` alike share their transitions),
    and it is worth marking :func:`fixed` itself (else its stage's transitions are kept
    for its own plan only)."""
    at = (*fields, *writes)
    if not at or len(set(at)) != len(at) or min(at) < 0 or not fields:
        raise ValueError(f"a part of a state names distinct positions, got {fields!r}, "
                         f"{writes!r}")
    n = len(fields)
    read = at[:n]

    def whole(state: tuple[Any, ...], d: Dice) -> tuple[Any, ...]:
        after = stage(tuple([state[f] for f in read]), d)
        if not isinstance(after, tuple) or len(after) != len(at):
            raise RuleError(f"a stage on {len(at)} values must return {len(at)}, got {after!r}")
        out = list(state)
        for f, v in zip(at, after, strict=True):
            if v is not KEEP:
                out[f] = v
        return tuple(out)

    whole._warroom_part = (at, stage, n, key)  # type: ignore[attr-defined]
    return whole


def parts(*stages: Stage[Any]) -> Stage[Any]:
    """Stages on parts of the state (each made by :func:`part`) one after another, as
    one stage on all their positions. Rolling, they run in order. The exact driver works
    each of them out once per distinct value of its own part, composes them over the
    values of the whole part (merging equal values between them, instead of following
    every path through all of them), and splices the result into the states once: a
    unit's check then the leaders' own checks cost the sum of their transitions, not
    their product, and one pass over the states."""
    pieces = [getattr(f, "_warroom_part", None) for f in stages]
    if not pieces or any(p is None for p in pieces):
        raise ValueError("parts() joins stages made by part()")
    at = tuple(sorted({f for p in pieces if p is not None for f in p[0]}))
    local = tuple((tuple(at.index(f) for f in p[0]), p[1], p[2], p[3]) for p in pieces
                  if p is not None)

    def composed(sub: tuple[Any, ...], d: Dice) -> tuple[Any, ...]:
        values = list(sub)
        for positions, fn, n, _ in local:
            after = fn(tuple([values[j] for j in positions[:n]]), d)
            if not isinstance(after, tuple) or len(after) != len(positions):
                raise RuleError(f"a stage on {len(positions)} values must return "
                                f"{len(positions)}, got {after!r}")
            for j, v in zip(positions, after, strict=True):
                if v is not KEEP:
                    values[j] = v
        return tuple(values)

    composed._warroom_parts = local  # type: ignore[attr-defined]
    joined = tuple(stages)

    def whole(state: tuple[Any, ...], d: Dice) -> tuple[Any, ...]:
        for stage in joined:  # rolling: each stage on its part, in order
            state = stage(state, d)
        return state

    whole._warroom_part = (at, fixed(composed), len(at), None)  # type: ignore[attr-defined]
    return whole


def as_target(at: int | Target) -> Target:
    return at if isinstance(at, Target) else Target.of(at, "target number")


class Dice(ABC):
    """What a procedure may ask of the umpire. Every method records a step when rolling."""

    explains: bool = True
    """False where no one reads the story (exact odds, Monte Carlo): a rule may then skip
    building optional messages. Dice, results and states must never depend on it."""

    round: int = 0
    """Inside :meth:`stages`, the round being fought (1, 2, ...; 0 in the opening), for
    the story only (rule ids, texts). The exact driver works each stage out once per
    state whatever the round, so what a stage rolls and returns must not depend on it."""

    @abstractmethod
    def pool(
        self,
        n: int,
        at: int | Target,
        *,
        rule: str,
        what: Text,
        reroll: Reroll = "none",
    ) -> int:
        """Roll ``n`` dice needing ``at``+ each; return how many succeed.

        ``reroll="misses"`` re-rolls every failed die once; ``reroll="hits"`` forces
        every success to be rolled again (it stays a success only if it succeeds again).
        A target above the die's highest face cannot be reached: no dice are rolled.
        """

    @abstractmethod
    def split(
        self,
        n: int,
        classes: Mapping[str, Sequence[int]],
        *,
        rule: str,
        what: Text,
        target: Target | None = None,
    ) -> dict[str, int]:
        """Roll one die per item for ``n`` items; count the items whose face falls in
        each class. ``classes`` maps a category to its faces and must cover 1-6 once."""

    @abstractmethod
    def each(
        self,
        n: int,
        chain: Chain,
        labels: Sequence[str],
        *,
        rule: str,
        what: Text,
        names: Sequence[Text] = (),
    ) -> dict[str, int]:
        """Run ``chain`` for each of ``n`` independent items and count the categories
        it returns. At the table the items roll in step: everyone's first roll, then
        everyone's second roll, and so on. The story names the items ``what`` 1, 2, ...,
        or by ``names`` (one per item) when given."""

    def one(self, chain: Chain, labels: Sequence[str], *, rule: str, what: Text) -> str:
        """Run ``chain`` for one item and return the category it ends in: ``each`` for a
        single item whose result the procedure needs at once (it branches on it). Exact
        odds answer it straight from the chain's distribution."""
        counts = self.each(1, chain, labels, rule=rule, what=what)
        for label in labels:
            if counts[label]:
                return label
        raise AssertionError("one item ends in exactly one category")  # pragma: no cover

    def tally(self, groups: Sequence[tuple[int, Chain, Text, Sequence[Text]]],
              labels: Sequence[str], *, rule: str) -> dict[str, int]:
        """Several groups of independent items, each with its own chain, counted
        together: ``groups`` holds each group's (items, chain, what, names), asked in
        that order as :meth:`each` asks them; returns each category's count over every
        group. At the table it is :meth:`each` group after group. Exact odds keep only
        each group's size and chances, and work a state's counts out once per distinct
        set of groups (several teams' rolls for each way hits were allocated)."""
        total: dict[str, Any] = dict.fromkeys(labels, 0)
        for n, chain, what, names in groups:
            counts = self.each(n, chain, labels, rule=rule, what=what, names=names)
            for label in labels:
                total[label] = total[label] + counts[label]
        return total

    @abstractmethod
    def die(self, *, rule: str, what: Text, sides: int = 6, target: Target | None = None) -> int:
        """Roll one die."""

    @abstractmethod
    def dice(
        self,
        k: int,
        *,
        rule: str,
        what: Text,
        sides: int = 6,
        view: View = "ordered",
        target: Target | None = None,
    ) -> Any:
        """Roll ``k`` dice together. ``view`` says what the rule needs of them: the
        ``ordered`` tuple (e.g. white and coloured die), the ``sorted`` tuple, the
        ``sum``, the ``max`` or the ``min``. Ask for the least you need: it is faster."""

    @abstractmethod
    def test(
        self,
        at: int | Target,
        *,
        rule: str,
        what: Text,
        reroll: bool = False,
    ) -> bool:
        """One die needing ``at``+; with ``reroll`` a failure is rolled once more."""

    @abstractmethod
    def pick(self, k: int, *, rule: str, what: Text) -> int:
        """Choose one of ``k`` things at random, each equally likely (index from 0).

        At the table: roll a die (two dice above six things) and re-roll results that
        do not name a thing."""

    @abstractmethod
    def note(self, rule: str, text: str | Msg, result: str | Msg | None = None,
             **args: Any) -> None:
        """Record a step that rolls no dice (a table lookup, a consequence, a choice)."""

    def iterate(self, state: State, step: Callable[[State, Dice], State], *, rounds: int,
                done: Callable[[State], bool] | None = None) -> State:
        """Apply ``step`` to ``state`` round after round, at most ``rounds`` times,
        stopping early once ``done(state)``; return the last state: :meth:`stages` with
        a round of one stage, without counting the rounds."""
        return self.stages(state, (step,), rounds=rounds, done=done)[0]

    def stages(self, state: State, stages: Sequence[Stage[State]], *, rounds: int,
               done: Callable[[State], bool] | None = None,
               opening: Sequence[Stage[State]] = ()) -> tuple[State, int]:
        """Run the ``opening`` stages once, then rounds of ``stages``, at most ``rounds``
        rounds; return the last state and the number of rounds begun.

        ``state`` is a tuple of plain values (ints, strings, bools, tuples of them)
        holding everything later stages depend on; each stage ``stage(state, d)`` rolls
        what it needs and returns the next state. Everything stops as soon as
        ``done(state)`` holds, checked before every stage (so a decided fight skips the
        rest of its round). Rolling, this is an ordinary loop: the stages ask for their
        dice in order and record their steps. The exact driver instead keeps the
        distribution of states between stages, merges equal ones and works each stage
        out once per distinct state (its work follows states, not paths through the
        dice). Small stages that end on a small state make that cheap: a count the next
        stage branches on is worth ending a stage for."""
        fought = 0
        outer = self.round
        try:
            self.round = 0
            for stage in opening:
                if done is not None and done(state):
                    return state, 0
                state = stage(state, self)
            for n in range(1, rounds + 1):
                self.round = n
                for j, stage in enumerate(stages):
                    if done is not None and done(state):
                        return state, fought
                    if j == 0:
                        fought += 1
                    state = stage(state, self)
            return state, fought
        finally:
            self.round = outer

    def finish(self, state: State, stages: Sequence[Stage[State]], *, rounds: int,
               outcome: Callable[[State, int], Mapping[str, Any]],
               done: Callable[[State], bool] | None = None,
               opening: Sequence[Stage[State]] = ()) -> Mapping[str, Any]:
        """:meth:`stages`, then ``outcome(last state, rounds begun)``: the procedure's
        outcome, for a procedure that ends with its stages. Return it as it is (do not
        read it): the exact driver maps every distinct last state through ``outcome``
        once, instead of replaying the whole procedure for each of them."""
        last, fought = self.stages(state, stages, rounds=rounds, done=done, opening=opening)
        return outcome(last, fought)

    # Convenience -------------------------------------------------------------
    def msg(self, template: str, **args: Any) -> Msg:
        return msg(template, **args)
