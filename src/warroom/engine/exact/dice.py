"""The exact dice: every request of a procedure answered from a replay path, lazily
(a count standing for all its values at once) where it can, and the public entry point
:func:`exact_run`."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from warroom.dice.weights import (
    Reroll,
    View,
    binomial,
    dice_view,
    multinomial,
    success_weight,
)
from warroom.engine import tally as _tally
from warroom.engine.context import Chain, Dice, Stage, State, as_target
from warroom.engine.exact import transitions
from warroom.engine.exact.core import (
    MAX_PATHS,
    Branch,
    Outcome,
    Outcomes,
    Taken,
    Transition,
    Weights,
)
from warroom.engine.exact.enumeration import replay
from warroom.engine.exact.keys import chain_key, stage_key
from warroom.engine.exact.stages import Last, staged
from warroom.engine.messages import Msg, Text
from warroom.engine.steps import Target
from warroom.engine.symbolic import NeedConcrete, Node, Sym
from warroom.errors import RuleError


def check_classes(classes: Mapping[str, Sequence[int]], sides: int = 6) -> None:
    seen: list[int] = []
    for faces in classes.values():
        seen += faces
    seen.sort()
    if seen != (_FACES.get(sides) or list(range(1, sides + 1))):
        raise RuleError(f"split classes must cover faces 1-{sides} exactly once, got {classes}")


_FACES = {6: [1, 2, 3, 4, 5, 6]}
_FACE_OPTIONS: dict[int, list[tuple[int, int]]] = {}
"""Each face of a die with weight 1, by sides (built once, read only: every die a stage
asks for, a Random Selection dr say, branches over it)."""
"""Every face of a d6 in order, built once (splits are checked at every replay)."""


class ExactDice(Dice):
    """Answers requests from a replay path, lazily where it can."""

    explains = False

    def __init__(self, path: Sequence[Any], concrete: set[int], all_concrete: bool = False,
                 memo: dict[Any, Any] | None = None, shared: dict[Any, Any] | None = None):
        self.path = path
        self.pos = 0
        self.ordinal = 0
        self.concrete = concrete
        self.all_concrete = all_concrete
        # ``memo`` lives for one enumeration (keys may name replay paths); ``shared``
        # for the whole query, sub-enumerations included (keys name what is computed)
        self.memo = memo if memo is not None else {}
        self.shared = shared if shared is not None else {}
        # leaf first (transitions.plain_transition): past the path, the last possible
        # answer instead of a Branch (the one a Branch's runs would follow first), each
        # noted here (options, denominator, the index answered) for the caller to
        # follow the others; None: Branch as usual
        self.taken: Taken | None = None

    # -- plumbing --------------------------------------------------------------
    def _next(self) -> int:
        i = self.ordinal
        self.ordinal += 1
        return i

    def _answer(self, options: Sequence[tuple[Any, int]], den: int) -> Any:
        if len(options) == 1:
            return options[0][0]
        if self.pos < len(self.path):
            value = self.path[self.pos]
            self.pos += 1
            return value
        taken = self.taken
        if taken is not None:  # the last possible answer: paths in the order of Branch's
            for j in range(len(options) - 1, -1, -1):
                value, w = options[j]
                if w:
                    taken.append((options, den, j))
                    return value
        raise Branch(options, den)

    def _lazy(self, i: int) -> bool:
        return not self.all_concrete and i not in self.concrete

    def _categorize(self, i: int, n: Any, probs: Sequence[tuple[str, int]], den: int
                    ) -> dict[str, Any]:
        """Split the items counted by ``n`` into categories of chance ``num/den`` each."""
        live = 0
        for _, p in probs:
            if p:
                live += 1
        if isinstance(n, int) and (n == 0 or live == 1):
            return {label: (n if p == den else 0) for label, p in probs}
        leaves = _leaves(i, n)
        if live == 1:
            return {label: (n if p == den else 0) for label, p in probs}
        out: dict[str, Any] = {}
        if len(leaves) == 1:
            (leaf,) = leaves
            for label, p in probs:
                out[label] = Sym({Node(i, leaf, p, den): 1}) if p else 0
        else:
            for label, p in probs:
                out[label] = (Sym(dict.fromkeys([Node(i, leaf, p, den) for leaf in leaves], 1))
                              if p else 0)
        return out

    def _concrete_count(self, i: int, n: Any) -> int:
        if isinstance(n, Sym):
            raise NeedConcrete(n.origins() | {i})
        return int(n)

    # -- requests ----------------------------------------------------------------
    def pool(self, n: int, at: int | Target, *, rule: str, what: Text,
             reroll: Reroll = "none") -> int:
        i = self.ordinal
        self.ordinal = i + 1
        num, den = success_weight(at if isinstance(at, int) else at.final, reroll)
        if not self.all_concrete and i not in self.concrete:
            if 0 < num < den:
                # the common case, without the general bookkeeping: the items counted by
                # ``n`` (a fresh pool, or one category) split into hits and misses
                parent = _parent(i, n)
                if parent is not None:
                    hit = Node(i, parent, num, den)
                    Node(i, parent, den - num, den)
                    return Sym({hit: 1})  # type: ignore[return-value]
            return self._categorize(i, n, (("hit", num), ("miss", den - num)), den)["hit"]  # type: ignore[no-any-return]
        k = self._concrete_count(i, n)
        options, d = binomial(k, num, den)
        return self._answer(options, d)  # type: ignore[no-any-return]

    def split(self, n: int, classes: Mapping[str, Sequence[int]], *, rule: str, what: Text,
              target: Target | None = None) -> dict[str, int]:
        i = self.ordinal
        self.ordinal = i + 1
        check_classes(classes)
        if not self.all_concrete and i not in self.concrete:
            # the common case, as in pool: the items counted by ``n`` split by face
            for faces in classes.values():
                if len(faces) == 6:
                    break
            else:
                parent = _parent(i, n)
                if parent is not None:
                    lazy: dict[str, Any] = {
                        label: Sym({Node(i, parent, len(faces), 6): 1}) if faces else 0
                        for label, faces in classes.items()}
                    return lazy
        probs = [(label, len(faces)) for label, faces in classes.items()]
        return self._categorical(i, n, probs, 6)

    def _categorical(self, i: int, n: Any, probs: Sequence[tuple[str, int]], den: int
                     ) -> dict[str, Any]:
        if self._lazy(i):
            return self._categorize(i, n, probs, den)
        k = self._concrete_count(i, n)
        counts, d = multinomial(k, [w for _, w in probs])
        value = self._answer(counts, d)
        return {label: c for (label, _), c in zip(probs, value, strict=True)}

    def each(self, n: int, chain: Chain, labels: Sequence[str], *, rule: str,
             what: Text, names: Sequence[Text] = ()) -> dict[str, int]:
        i = self.ordinal
        self.ordinal = i + 1
        probs, den, live = self._chain_chances(chain, labels)
        if len(live) > 1 and not self.all_concrete and i not in self.concrete:
            # the common case, as in pool: the items counted by ``n`` split by category
            parent = _parent(i, n)
            if parent is not None:
                lazy: dict[str, Any] = {label: Sym({Node(i, parent, p, den): 1}) if p else 0
                                        for label, p in probs}
                return lazy
        return self._categorical(i, n, probs, den)

    def tally(self, groups: Sequence[tuple[int, Chain, Text, Sequence[Text]]],
              labels: Sequence[str], *, rule: str) -> dict[str, int]:
        # one ordinal per group, as each would take: a count made concrete replays the
        # groups with each (the base class), their requests numbered alike
        i = self.ordinal
        if self.all_concrete or (self.concrete and not self.concrete.isdisjoint(
                range(i, i + len(groups)))):
            return super().tally(groups, labels, rule=rule)
        labels = tuple(labels)
        # each chain's chances as a tally reads them, once per query
        known = self.shared.get(("tally", labels))
        if known is None:
            known = self.shared["tally", labels] = {}
        get = known.get
        chances: list[Any] = [(n, get(chain)) for n, chain, _, _ in groups]
        for j, (n, found) in enumerate(chances):
            if type(n) is not int:  # a lazy number of items: each group on its own
                return super().tally(groups, labels, rule=rule)
            if found is None:
                chain = groups[j][1]
                probs, den, _ = self._chain_chances(chain, labels)
                found = _tally.chances(probs, den)
                if getattr(chain, "_warroom_fixed", False):  # by the object: never changes
                    known[chain] = found
                chances[j] = (n, found)
        self.ordinal = i + len(groups)
        return _tally.counts(i, labels, chances)

    def one(self, chain: Chain, labels: Sequence[str], *, rule: str, what: Text) -> str:
        self.ordinal += 1
        _, den, options = self._chain_chances(chain, labels)
        return self._answer(options, den)  # type: ignore[no-any-return]

    def _chain_chances(self, chain: Chain, labels: Sequence[str]
                       ) -> tuple[list[tuple[str, int]], int, list[tuple[str, int]]]:
        """The chance of each category one item's chain ends in, over one denominator,
        and the categories it can end in (worked out once per query for each distinct
        chain and labels)."""
        # a fixed chain (its captures never change) first by the objects themselves
        # (kept alive by the memo): no key to hash when a procedure hands the same chain
        # again, as a stage does at every state
        mine = (("chance objects", chain, labels) if type(labels) is tuple
                and getattr(chain, "_warroom_fixed", False) else None)
        known = self.shared.get(mine) if mine is not None else None
        if known is not None:
            return known  # type: ignore[no-any-return]
        key = chain_key(chain)
        if key is None:
            return self._work_chances(chain, labels, None)
        kept = ("chances", key, tuple(labels))
        known = self.shared.get(kept)
        if known is None:
            known = self.shared[kept] = self._work_chances(chain, labels, key)
        if mine is not None:
            self.shared[mine] = known
        return known

    def _work_chances(self, chain: Chain, labels: Sequence[str], key: Any
                      ) -> tuple[list[tuple[str, int]], int, list[tuple[str, int]]]:
        sub = self.shared.get(key) if key is not None else None
        if sub is None:
            sub = replay(lambda d: {"label": chain(d)}, ("label",), all_concrete=True,
                         shared=self.shared, make=ExactDice)
            if key is not None:
                self.shared[key] = sub
        probs_map: dict[str, int] = dict.fromkeys(labels, 0)
        for (label,), w in sub.weights.items():
            if label not in probs_map:
                raise RuleError(f"chain returned {label!r}, not one of {list(labels)}")
            probs_map[label] += w
        probs = list(probs_map.items())
        return probs, sub.denominator, [(label, w) for label, w in probs if w]

    def die(self, *, rule: str, what: Text, sides: int = 6, target: Target | None = None) -> int:
        self._next()
        faces = _FACE_OPTIONS.get(sides)
        if faces is None:
            faces = _FACE_OPTIONS[sides] = [(f, 1) for f in range(1, sides + 1)]
        return self._answer(faces, sides)  # type: ignore[no-any-return]

    def dice(self, k: int, *, rule: str, what: Text, sides: int = 6, view: View = "ordered",
             target: Target | None = None) -> Any:
        self._next()
        if view == "ordered" and k > 4:
            raise RuleError("ask for a sorted, sum, max or min view of more than 4 dice")
        options, den = dice_view(k, sides, view)
        return self._answer(options, den)

    def test(self, at: int | Target, *, rule: str, what: Text, reroll: bool = False) -> bool:
        self._next()
        num, den = success_weight(as_target(at).final, "misses" if reroll else "none")
        options = [(True, num), (False, den - num)] if num and num != den else [(num == den, 1)]
        return bool(self._answer(options, den))

    def pick(self, k: int, *, rule: str, what: Text) -> int:
        self._next()
        if k < 1:
            raise RuleError("pick needs at least one thing to choose from")
        return self._answer([(j, 1) for j in range(k)], k)  # type: ignore[no-any-return]

    def note(self, rule: str, text: str | Msg, result: str | Msg | None = None,
             **args: Any) -> None:
        return None

    def iterate(self, state: State, step: Callable[[State, Dice], State], *, rounds: int,
                done: Callable[[State], bool] | None = None) -> State:
        return self._stage_answer(state, (), (step,), rounds, done, count=False)  # type: ignore[no-any-return]

    def stages(self, state: State, stages: Sequence[Stage[State]], *, rounds: int,
               done: Callable[[State], bool] | None = None,
               opening: Sequence[Stage[State]] = ()) -> tuple[State, int]:
        return self._stage_answer(state, tuple(opening), tuple(stages), rounds, done, count=True)  # type: ignore[no-any-return]

    def finish(self, state: State, stages: Sequence[Stage[State]], *, rounds: int,
               outcome: Callable[[State, int], Mapping[str, Any]],
               done: Callable[[State], bool] | None = None,
               opening: Sequence[Stage[State]] = ()) -> Mapping[str, Any]:
        i = self._next()
        last = self._distribution(i, state, tuple(opening), tuple(stages), rounds, done,
                                  count=True)
        row = getattr(outcome, "_warroom_row", None)
        if row is not None and last.size > 1:  # context.rows: the outcome tuples as they are
            names, fn, plain = row
            return Outcomes(last.rows(fn, getattr(outcome, "_warroom_joined", None)),
                            last.den, names, plain)  # type: ignore[return-value]
        options = last.options()
        if len(options) == 1:
            return outcome(*options[0][0])
        return Outcomes([(outcome(*s), w) for s, w in options],  # type: ignore[return-value]
                         last.den)

    def _stage_answer(self, state: tuple[Any, ...], opening: tuple[Stage[Any], ...],
                stages: tuple[Stage[Any], ...], rounds: int,
                done: Callable[[Any], bool] | None, count: bool) -> Any:
        i = self._next()
        last = self._distribution(i, state, opening, stages, rounds, done, count)
        return self._answer(last.options(), last.den)

    def _distribution(self, i: int, state: tuple[Any, ...], opening: tuple[Stage[Any], ...],
                      stages: tuple[Stage[Any], ...], rounds: int,
                      done: Callable[[Any], bool] | None, count: bool) -> Last:
        hash(state)  # a lazy count in the starting state is made concrete first
        # The request is identified by what its stages and its test compute and the state
        # they start from; failing that (a captured value that cannot be hashed), by the
        # answers replayed before it, which fix everything the procedure did so far.
        # Later replays of the procedure, and other paths reaching the same state, reuse
        # the distribution; every stage from a given state is worked out once per query.
        # What the functions compute is worked out once per query for the same function
        # objects (kept alive by the memo, so they cannot be confused with others).
        fns = (*opening, *stages)
        ident = ("stage functions", fns, done, len(opening))
        known: tuple[tuple[Any, ...] | None, Any] | None = self.shared.get(ident)
        if known is None:
            made = tuple(map(stage_key, fns))
            done_key = chain_key(done)
            if None in made or (done is not None and done_key is None):
                known = (None, None)
            else:
                known = (made, self.shared.setdefault(("stages", made, len(opening), done_key),
                                                      object()))
            self.shared[ident] = known
        keys, token = known
        memo = self.shared
        if token is not None:
            key: Any = (token, state, rounds, count)
        else:
            key, memo = ("stages", i, tuple(self.path[:self.pos])), self.memo
        found = memo.get(key)
        if found is None:
            found = memo[key] = staged(state, opening, stages, keys, rounds, done, count,
                                       self.shared, make=ExactDice)
        return found


def _parent(i: int, n: Any) -> Node | None:
    """The category a request splits when that needs no bookkeeping: a fresh pool of
    ``n`` items (a new tree), or one whole category not yet split; None otherwise."""
    if type(n) is int:
        return Node(i, None, 1, 1, n) if n > 0 else None
    if type(n) is Sym and not n.const and len(n.terms) == 1:
        ((parent, c),) = n.terms.items()
        if c == 1 and not parent.children:
            return parent
    return None


def _leaves(i: int, n: Any) -> list[Node]:
    """The categories the items counted by ``n`` (request ``i``) sit in, each to be split
    further: a fresh tree for a number, the leaves of the categories a lazy count adds
    up. NeedConcrete when the count cannot be split lazily (a multiple of a category,
    a constant added, categories overlapping)."""
    if isinstance(n, int):
        if n < 0:
            raise RuleError(f"a pool cannot have {n} items")
        return [Node(i, None, 1, 1, n)]
    terms = n.terms
    if len(terms) == 1 and not n.const:
        ((node, c),) = terms.items()
        if c != 1:
            raise NeedConcrete(n.origins() | {i})
        return node.leaves() if node.children else [node]
    if n.const != 0 or any(c != 1 for c in terms.values()):
        raise NeedConcrete(n.origins() | {i})
    nodes = list(terms)
    leaves = [leaf for node in nodes for leaf in node.leaves()]
    if len(set(map(id, leaves))) != len(leaves) or any(
        a is not b and _ancestor(a, b) for a in nodes for b in nodes
    ):
        raise NeedConcrete(n.origins() | {i})
    return leaves


def _ancestor(a: Node, b: Node) -> bool:
    node = b.parent
    while node is not None:
        if node is a:
            return True
        node = node.parent
    return False



def exact_run(run: Callable[[Dice], Any], fields: Sequence[str], all_concrete: bool = False,
              name: str = "this procedure", max_paths: int = MAX_PATHS,
              shared: dict[Any, Any] | None = None,
              pick: Callable[[Any], Outcome] | None = None, first: Any = None) -> Weights:
    """Enumerate ``run`` exactly with :class:`ExactDice`. ``fields`` orders the outcome
    tuple. ``shared`` holds what sub-enumerations computed (per-item chains, rounds),
    keyed by what they compute, for the whole query. ``pick`` makes the outcome tuple of
    what ``run`` returns (by default: a mapping's ``fields`` in order). ``first``: where
    a first run of ``run`` (nothing concrete) branched or what it must make concrete, if
    the caller made one."""
    return replay(run, fields, all_concrete, name, max_paths, shared, pick, first,
                  make=ExactDice)


def exact_paths(run: Callable[[Dice], Any], fields: Sequence[str]
                ) -> tuple[Weights, Counter[tuple[str, str]]]:
    """:func:`exact_run`, and how each stage's transitions were worked out: a count of
    them by (stage name, way), the ways of :mod:`~warroom.engine.exact.transitions`
    (``closed form``, ``lazy counts``, ``certain``, ``enumerated``, ``replayed``)."""
    paths: Counter[tuple[str, str]] = Counter()
    return exact_run(run, fields, shared={transitions.PATHS: paths}), paths


def plain_transition(stage: Stage[Any], s: tuple[Any, ...], width: int,
                     shared: dict[Any, Any], first: Branch | None,
                     budget: int | None = None) -> Transition | None:
    """:func:`~warroom.engine.exact.transitions.plain_transition` with :class:`ExactDice`
    (the Monte Carlo driver's part stages): a stage's transitions from ``s`` when every
    run of it ends in a plain state, None otherwise or past ``budget`` runs."""
    return transitions.plain_transition(stage, s, width, shared, first, budget,
                                        make=ExactDice)
