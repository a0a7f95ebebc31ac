"""Batched Monte Carlo: samples move through a procedure as counts, not one at a time.

The driver replays the procedure the way the exact driver enumerates it, but each path
carries a number of samples instead of a weight. A request on a path of ``n`` samples
splits them among its answers in one draw (numpy's multinomial over the answers'
exact chances), and the procedure is replayed once per answer that got any samples.
``Dice.stages`` (and ``iterate``, ``finish``) hold the samples as counts per distinct
state. A stage on part of the state draws all the samples of a state at once from its
part's exact transition (worked out by the exact driver's enumeration, as the
sequential sampler tables it, once the value has come up a few times); a stage on the
whole state is replayed per state with the state's samples split at each of its
requests (a whole state's exact transition can be far larger than the samples). Where
every stage is on parts and nothing stops early, the states are rows of value codes in
numpy arrays (:func:`_columnar`): each piece groups the rows by its part's value and
draws them in one multinomial (the groups' chances side by side), merging the rows that
end alike after each piece. A stage on the whole state may come with a columnar form
(context.columns: ``fow.shoot_mixed``'s to-hit rolls, and its allocation and teams'
rolls): on columns its samples then go through that form an entry each
(:func:`_column_step`), its parts drawn from their exact transitions
(:class:`ColumnDice`), and the rows that end alike merge again. A path, or a state,
with a single sample goes on with the sequential sampler
(:class:`~warroom.engine.montecarlo.SampleDice`), and so do the samples of a part's
value seen too rarely to pay for its table.

Every draw follows the procedure's exact law (the multinomial's chances are the
transitions' integer weights as floats: exact up to rounding in the last bit, which is
immaterial for sampling). The counts depend only on the seed: one numpy generator and
one sequential sampler, both seeded from it, used in one fixed order in one process, so
a seeded estimate is the same on any machine and any number of cores.

A procedure whose first request is not a stages request (``stages``, ``iterate``,
``finish``) is not batched: :func:`simulate_batched` returns None and the caller uses
the sequential sampler, as before.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from warroom.dice.weights import Reroll, View, binomial, success_weight, view_of
from warroom.engine.context import Chain, Dice, Pieces, Row, Stage, State, as_target
from warroom.engine.messages import Msg, Text
from warroom.engine.montecarlo import RAW, SampleDice, Table, part_pieces
from warroom.engine.steps import Target
from warroom.errors import RuleError

PART_TABLE_FROM = 3
"""A stage on part of the state has its exact transition from a value of its part worked
out (and kept for the run, shared by every state with that value) once that value has
come up for this many samples; before, its samples run the stage one by one."""

Counts = dict[tuple[Any, ...], int]


class _Split(BaseException):
    """A request's answers on this path, each with the samples it got."""

    def __init__(self, options: list[tuple[Any, int]]) -> None:
        self.options = options


class _NotStaged(BaseException):
    """The procedure's first request is not a stages request: not batched."""


_ALONE: Any = object()
"""The answer that sends each of a path's samples on alone (the sequential sampler)."""


class _Counted:
    """What :meth:`BatchDice.finish` hands back: outcomes (rows of the procedure's
    fields) with their samples, and outcomes of one sample each (``ones``: an estimate's
    samples rarely end alike). The procedure returns it as it is."""

    __slots__ = ("ones", "rows")

    def __init__(self, rows: list[tuple[tuple[Any, ...], int]],
                 ones: list[tuple[Any, ...]] | None = None) -> None:
        self.rows = rows
        self.ones = ones or []

    def __getitem__(self, name: str) -> Any:
        raise RuleError("a procedure must return the outcome of Dice.finish as it is")


def _probs(table: Table) -> Any:
    """A :class:`Table`'s chances as floats (numpy), kept on the table."""
    import numpy as np

    found = table.probs
    if found is None:
        cum = table.cumulative
        total = table.total
        found = table.probs = np.array(
            [(c - (cum[i - 1] if i else 0)) / total for i, c in enumerate(cum)])
    return found


TABLES = ("_p", "_pools", "_shared", "_chains", "_parts")
"""The sequential sampler's tables (worked out from the procedure alone, not drawn) that
the chunks of one run share (:func:`simulate_batched`'s ``tables``)."""


class _Run:
    """What one batched run shares: the generators, the sequential sampler (its tables
    are the run's tables), the outcome's fields."""

    def __init__(self, seed: int, stream: int, fields: Sequence[str],
                 tables: dict[str, Any] | None = None) -> None:
        import numpy as np

        self.np = np.random.default_rng([seed, stream, 0x5EED])
        self.sampler = SampleDice(random.Random(f"warroom:{seed}:batched:{stream}"))
        if tables is not None:  # the tables of the run's earlier chunks, and theirs
            for name in TABLES:
                setattr(self.sampler, name, tables.setdefault(name, getattr(self.sampler,
                                                                            name)))
        self.fields = tuple(fields)
        self.tabled: dict[int, list[int]] = {}  # per part memo: tables, their changes
        self.work = 0  # replays and (state, stage) steps: what the run cost in Python
        self.single = 0  # those of them for a single sample

    def split(self, n: int, table: Table) -> list[tuple[Any, int]]:
        """``n`` samples split among ``table``'s values."""
        values = table.values
        if len(values) == 1:
            return [(values[0], n)]
        if n == 1:
            return [(table.draw(self.sampler.rng), 1)]
        got = self.np.multinomial(n, _probs(table)).tolist()
        return [(v, k) for v, k in zip(values, got, strict=True) if k]

    def grouped(self, n: int, draw: Callable[[int], Any]) -> list[tuple[Any, int]]:
        """``n`` samples of a request whose answers are many (counts of several
        labels, several dice): ``draw(n)`` gives one answer per sample, grouped here."""
        out: dict[Any, int] = {}
        for a in draw(n):
            out[a] = out.get(a, 0) + 1
        return list(out.items())


class BatchDice(Dice):
    """One replay of the procedure on a path of ``count`` samples: the answers of the
    path's requests so far, then a split (:class:`_Split`) at the first new one. On a
    path of one sample every new request is the sequential sampler's."""

    explains = False

    def __init__(self, run: _Run, path: tuple[Any, ...], count: int) -> None:
        self.run = run
        self.path = path
        self.count = count
        self.pos = 0
        self.staged = False

    def _known(self) -> tuple[bool, Any]:
        """The path's answer to this request, if it has one."""
        i = self.pos
        self.pos += 1
        if i < len(self.path):
            return True, self.path[i]
        if not self.staged and not i:
            raise _NotStaged
        return False, None

    def _ask(self, options: Callable[[int], list[tuple[Any, int]]],
             alone: Callable[[SampleDice], Any]) -> Any:
        """This request's answer: the path's, or a split of its samples among
        ``options(count)``; a path of one sample (or the answer :data:`_ALONE`) asks
        the sequential sampler (``alone``)."""
        known, answer = self._known()
        if known and answer is not _ALONE:
            return answer
        if known or self.count == 1:  # one sample: the sequential sampler's
            return alone(self.run.sampler)
        raise _Split(options(self.count))

    def _table_or_alone(self, table: Any, n: int) -> list[tuple[Any, int]]:
        if table is RAW:
            return [(_ALONE, 1)] * n
        return self.run.split(n, table)

    # -- plain requests ------------------------------------------------------------
    def pool(self, n: int, at: int | Target, *, rule: str, what: Text,
             reroll: Reroll = "none") -> int:
        def options(c: int) -> list[tuple[Any, int]]:
            num, den = success_weight(as_target(at).final, reroll)
            return self.run.split(c, Table(binomial(n, num, den)[0]))

        if n <= 0:
            return 0
        return self._ask(options, lambda s: s.pool(n, at, rule=rule, what=what,  # type: ignore[no-any-return]
                                                   reroll=reroll))

    def split(self, n: int, classes: Mapping[str, Sequence[int]], *, rule: str, what: Text,
              target: Target | None = None) -> dict[str, int]:
        labels = list(classes)
        probs = [len(f) / 6 for f in classes.values()]

        def draw(c: int) -> Iterator[tuple[int, ...]]:
            return map(tuple, self.run.np.multinomial(n, probs, size=c).tolist())

        got = self._ask(lambda c: self.run.grouped(c, draw),
                        lambda s: tuple(s.split(n, classes, rule=rule, what=what).values()))
        return dict(zip(labels, got, strict=True))

    def each(self, n: int, chain: Chain, labels: Sequence[str], *, rule: str,
             what: Text, names: Sequence[Text] = ()) -> dict[str, int]:
        return self.tally(((n, chain, what, names),), labels, rule=rule)

    def one(self, chain: Chain, labels: Sequence[str], *, rule: str, what: Text) -> str:
        sampler = self.run.sampler
        return self._ask(  # type: ignore[no-any-return]
            lambda c: self._table_or_alone(sampler._chain_table(chain, labels), c),
            lambda s: s.one(chain, labels, rule=rule, what=what))

    def tally(self, groups: Sequence[tuple[int, Chain, Text, Sequence[Text]]],
              labels: Sequence[str], *, rule: str) -> dict[str, int]:
        sampler = self.run.sampler

        def options(c: int) -> list[tuple[Any, int]]:
            import numpy as np

            total = np.zeros((c, len(labels)), dtype=np.int64)
            for n, chain, _, _ in groups:
                if n <= 0:
                    continue
                table = sampler._chain_table(chain, labels)
                if table is RAW:
                    return [(_ALONE, 1)] * c
                col = [labels.index(v) for v in table.values]
                total[:, col] += self.run.np.multinomial(n, _probs(table), size=c)
            return self.run.grouped(c, lambda _: map(tuple, total.tolist()))

        got = self._ask(options, lambda s: tuple(s.tally(groups, labels, rule=rule).values()))
        return dict(zip(labels, got, strict=True))

    def die(self, *, rule: str, what: Text, sides: int = 6, target: Target | None = None) -> int:
        return self._ask(  # type: ignore[no-any-return]
            lambda c: self.run.split(c, Table([(f, 1) for f in range(1, sides + 1)])),
            lambda s: s.die(rule=rule, what=what, sides=sides))

    def dice(self, k: int, *, rule: str, what: Text, sides: int = 6, view: View = "ordered",
             target: Target | None = None) -> Any:
        def draw(c: int) -> Iterator[Any]:
            rolls = self.run.np.integers(1, sides + 1, size=(c, k)).tolist()
            return (view_of(r, view) for r in rolls)

        return self._ask(lambda c: self.run.grouped(c, draw),
                         lambda s: s.dice(k, rule=rule, what=what, sides=sides, view=view))

    def test(self, at: int | Target, *, rule: str, what: Text, reroll: bool = False) -> bool:
        def options(c: int) -> list[tuple[Any, int]]:
            num, den = success_weight(as_target(at).final, "misses" if reroll else "none")
            return self.run.split(c, Table([(True, num), (False, den - num)]))

        return self._ask(options,  # type: ignore[no-any-return]
                         lambda s: s.test(at, rule=rule, what=what, reroll=reroll))

    def pick(self, k: int, *, rule: str, what: Text) -> int:
        return self._ask(  # type: ignore[no-any-return]
            lambda c: self.run.split(c, Table([(i, 1) for i in range(k)])),
            lambda s: s.pick(k, rule=rule, what=what))

    def note(self, rule: str, text: str | Msg, result: str | Msg | None = None,
             **args: Any) -> None:
        return None

    # -- stages --------------------------------------------------------------------
    def iterate(self, state: State, step: Callable[[State, Dice], State], *, rounds: int,
                done: Callable[[State], bool] | None = None) -> State:
        self.staged = True
        return self._ask(  # type: ignore[no-any-return]
            lambda c: _merged((s, k) for (s, _), k in
                              _population(self.run, state, (), (step,), rounds, done,
                                          False, c)),
            lambda s: s.iterate(state, step, rounds=rounds, done=done))

    def stages(self, state: State, stages: Sequence[Stage[State]], *, rounds: int,
               done: Callable[[State], bool] | None = None,
               opening: Sequence[Stage[State]] = ()) -> tuple[State, int]:
        self.staged = True
        return self._ask(  # type: ignore[no-any-return]
            lambda c: _population(self.run, state, tuple(opening), tuple(stages), rounds,
                                  done, True, c),
            lambda s: s.stages(state, stages, rounds=rounds, done=done, opening=opening))

    def finish(self, state: State, stages: Sequence[Stage[State]], *, rounds: int,
               outcome: Callable[[State, int], Mapping[str, Any]],
               done: Callable[[State], bool] | None = None,
               opening: Sequence[Stage[State]] = ()) -> Mapping[str, Any]:
        self.staged = True
        known, _ = self._known()
        if known or self.count == 1:  # one sample: the sequential sampler's
            return self.run.sampler.finish(state, stages, rounds=rounds, outcome=outcome,
                                           done=done, opening=opening)
        fields = self.run.fields
        row = getattr(outcome, "_warroom_row", None)  # context.rows: the row as it is
        joined = getattr(outcome, "_warroom_joined", None)  # and many rows at once
        if (joined is not None and row is not None and row[0] == fields and done is None
                and self.count >= COLUMNS_FROM):
            found = _joined_counts(self.run, state, tuple(opening), tuple(stages), rounds,
                                   self.count, joined)
            if found is not None:
                ones, rows = found
                for one in (ones[:1] or [key for key, _ in rows[:1]]):
                    if len(one) != len(fields):
                        raise RuleError(f"an outcome row of {len(fields)} fields has "
                                        f"{len(one)} values: {one!r}")
                return _Counted(rows, ones)  # type: ignore[return-value]
        last = _population(self.run, state, tuple(opening), tuple(stages), rounds, done,
                           True, self.count)
        out: dict[tuple[Any, ...], int] = {}
        if row is not None and row[0] == fields:
            cells = row[1]
            for (s, fought), k in last:
                key = tuple(cells(s, fought))
                if len(key) != len(fields):
                    raise RuleError(f"an outcome row of {len(fields)} fields has "
                                    f"{len(key)} values: {key!r}")
                out[key] = out.get(key, 0) + k
            return _Counted(list(out.items()))  # type: ignore[return-value]
        for (s, fought), k in last:
            o = outcome(s, fought)
            key = o.cells if type(o) is Row else tuple([o[f] for f in fields])
            out[key] = out.get(key, 0) + k
        return _Counted(list(out.items()))  # type: ignore[return-value]


def _merged(pairs: Any) -> list[tuple[Any, int]]:
    out: dict[Any, int] = {}
    for s, k in pairs:
        out[s] = out.get(s, 0) + k
    return list(out.items())


_Piece = tuple[tuple[int, ...], Callable[..., Any], Any, int,
               Callable[[tuple[Any, ...]], Any] | None]
"""A stage on part of the state: its positions, its function on them, where its
transitions are kept by the value of the positions it reads or by its key (None: it runs
as it is), how many of its positions it reads (the first) and its key (context.part)."""


def _plan(run: _Run, opening: tuple[Stage[Any], ...], stages: tuple[Stage[Any], ...]
          ) -> tuple[list[Any], list[Any]]:
    """Each stage as the batched run takes it: a stage on parts as its pieces (a list
    of :data:`_Piece`, run one after another), any other as it is."""
    def one(stage: Stage[Any]) -> Any:
        steps = part_pieces(stage)
        if steps is None:
            return stage
        return [(positions, fn, run.sampler._part_memo(fn, key), n, key)
                for positions, fn, n, key in steps]

    return [one(f) for f in opening], [one(f) for f in stages]


def _population(run: _Run, state: tuple[Any, ...], opening: tuple[Stage[Any], ...],
                stages: tuple[Stage[Any], ...], rounds: int,
                done: Callable[[Any], bool] | None, count: bool, n: int
                ) -> list[tuple[Any, int]]:
    """``n`` samples through the stages (``Dice.stages``: the opening, then up to
    ``rounds`` rounds, ``done`` before every stage) as counts per distinct state: the
    last states with the rounds begun, each with its samples."""
    hash(state)
    first, each = _plan(run, opening, stages)
    if done is None and n >= COLUMNS_FROM:
        columns = _columnar(run, state, first, each, rounds, n)
        if columns is not None:
            fought = rounds if count and each else 0
            return [((s, fought), k) for s, k in columns]
    pop: dict[tuple[Any, int], int] = {(state, 0): n}
    sampler = run.sampler
    outer = sampler.round
    try:
        r, items = 0, first
        while True:
            for j, item in enumerate(items):
                bump = int(count and r > 0 and j == 0)
                nxt: dict[tuple[Any, int], int] = {}
                moved = False
                for (s, fought), k in pop.items():
                    if done is not None and done(s):
                        nxt[s, fought] = nxt.get((s, fought), 0) + k
                        continue
                    moved = True
                    run.work += 1
                    run.single += k == 1
                    sampler.round = r
                    f2 = fought + bump
                    if type(item) is list:
                        _parts_step(run, item, s, k, f2, nxt)
                    else:
                        _whole_step(run, item, s, k, f2, nxt)
                pop = nxt
                if not moved:
                    return list(pop.items())
            if r >= rounds:
                return list(pop.items())
            r, items = r + 1, each
    finally:
        sampler.round = outer


COLUMNS_FROM = 64
"""Samples from which stages that are all on parts of the state, with no ``done``, run
on columns (:func:`_columnar`)."""


COLUMN_TABLE_FROM = 16
"""On columns, a part's exact transition from a value is worked out once that value has
come up for this many samples (working it out costs about as much as running the
stage for a score of samples); before, its samples run the stage one by one. Once a
stage has tables, its values are tabled from as many samples as its tables have changes
on average (at least 2): a stage of one die is cheap to table (``_part_tables``)."""


MERGE_USEFUL = 0.95
MERGE_GROWTH = 1.2
"""On columns, rows alike are merged after a piece while merging pays: where the last
merge left more than :data:`MERGE_USEFUL` of the rows (the states are nearly all
distinct: a sample a row), the next merges wait until the rows have grown by
:data:`MERGE_GROWTH` since (merging sorts every row: as costly as the piece)."""


def _columnar(run: _Run, state: tuple[Any, ...], first: list[Any], each: list[Any],
              rounds: int, n: int) -> list[tuple[Any, int]] | None:
    """:func:`_columns`' last states as tuples, with their samples (None as there)."""
    items = [*first, *(item for _ in range(rounds) for item in each)]
    if n > COLUMN_RUN and any(type(item) is not list for item in items):
        # a stage with a columnar form holds every sample apart: runs of a bounded size
        out: dict[Any, int] = {}
        for start in range(0, n, COLUMN_RUN):
            got = _columnar(run, state, first, each, rounds, min(COLUMN_RUN, n - start))
            if got is None:
                return None
            for s, k in got:
                out[s] = out.get(s, 0) + k
        return list(out.items())
    found = _columns(run, state, first, each, rounds, n)
    if found is None:
        return None
    rows, counts, values = found
    return list(zip(_decoded(rows, values, range(len(values))), counts.tolist(),
                    strict=True))


def _decoded(codes: Any, values: list[list[Any]], at: Sequence[int], first: int = 0
             ) -> list[tuple[Any, ...]]:
    """The values at positions ``at`` of rows of codes (``codes[:, f - first]`` holds
    position ``f``'s), a tuple per row (each position's values looked up in numpy, the
    tuples made in C)."""
    import numpy as np

    return list(zip(*(np.array(values[f] + [None], dtype=object)[:-1][
        codes[:, f - first]].tolist() for f in at), strict=True))


def _columns(run: _Run, state: tuple[Any, ...], first: list[Any], each: list[Any],
             rounds: int, n: int) -> tuple[Any, Any, list[list[Any]]] | None:
    """``n`` samples through stages that are all on parts of the state (no ``done``: every
    sample runs every stage) held as columns: a row of value codes per distinct state,
    with its samples. Each piece groups the rows by the value of its part (numpy), and
    draws the samples of every row in one multinomial over its group's exact transition
    (the chances of every group side by side), then writes each change into the rows
    that drew it; rows that end alike are merged after a piece (while that pays:
    :data:`MERGE_USEFUL`). The Python work is per distinct value of a part, not per
    state or sample. The last states as rows of codes (an array: a row per state, a
    column per position), their samples (an array) and each position's values by code;
    None where a stage is not tabled (not marked fixed, or too large): the caller then
    holds the states one by one."""
    import numpy as np

    items = [*first, *(item for _ in range(rounds) for item in each)]
    if not all(type(item) is list or _form(item) is not None for item in items):
        return None
    width = len(state)
    values: list[list[Any]] = [[v] for v in state]  # per position: code -> value
    codes: list[dict[Any, int]] = [{v: 0} for v in state]  # per position: value -> code

    def code(f: int, v: Any) -> int:
        c = codes[f].get(v)
        if c is None:
            c = codes[f][v] = len(values[f])
            values[f].append(v)
        return c

    coded: dict[tuple[int, tuple[int, ...]], Any] = {}  # tables' changes as codes
    held = _Held(np.zeros((1, width), dtype=np.int64), np.array([n], dtype=np.int64))
    merging, kept = True, 1  # whether the last merge paid; the rows it left
    for at, fn, memo, n_read, key in (piece for item in items for piece in _pieces(item)):
        rows, counts = held.rows(), held.counts()
        if memo is _COLUMNS:  # a stage on the whole state with a columnar form
            held = _Held(*_column_step(run, fn, rows, counts, values, codes))
            coded.clear()  # coded afresh
            kept = held.n
            continue
        if memo is None:
            return None  # not tabled
        read = at[:n_read]
        found = _grouped(rows, read, [len(values[f]) for f in read])
        if found is None:
            return None  # too many values for one key
        groups, inverse = found
        # each group's values, a position at a time (in C): one tuple per group
        subs = list(zip(*(map(values[f].__getitem__, groups[:, j].tolist())
                          for j, f in enumerate(read)), strict=True))
        tables = _part_tables(run, fn, memo, key, subs, len(at), np.bincount(
            inverse, weights=counts, minlength=len(subs)).astype(np.int64))
        if tables is None:
            return None
        more = [_tabled(run, at, code, rows, counts, inverse, tables, coded)]
        rolled = np.array([table is None for table in tables])
        if rolled.any():
            more.append(_rolled(run, fn, at, subs, code, rows, counts, inverse,
                                np.flatnonzero(rolled[inverse])))
        for more_rows, more_counts in more:
            held.extend(more_rows, more_counts)
        if merging or held.n >= MERGE_GROWTH * kept:
            before = held.n
            held = _Held(*_merged_rows(held.rows(), held.counts(),
                                       [len(v) for v in values]))
            kept = held.n
            merging = kept <= MERGE_USEFUL * before
    rows, counts = held.rows(), held.counts()
    return rows, counts, values


def _joined_counts(run: _Run, state: tuple[Any, ...], opening: tuple[Stage[Any], ...],
                   stages: tuple[Stage[Any], ...], rounds: int, n: int,
                   joined: Callable[[Pieces, int], Iterable[tuple[Any, ...]]]
                   ) -> tuple[list[tuple[Any, ...]], list[tuple[tuple[Any, ...], int]]] | None:
    """``Dice.finish`` on columns (:func:`_columns`) for an outcome with ``joined`` rows
    (``context.rows``): the last states handed to ``joined`` as the values of their
    first and second half, so their rows are put together per distinct half (and in C)
    with no state tuple built and no call in Python per last state; the rows of one
    sample each, then the others with their samples (a row may come more than once:
    the caller adds them up). None where the stages do not run on columns (the caller
    holds the states one by one)."""

    import numpy as np

    first, each = _plan(run, opening, stages)
    items = [*first, *each]
    if not items or not all(type(item) is list and all(memo is not None
                                                       for _, _, memo, _, _ in item)
                            for item in items):
        return None
    from warroom.engine.exact import acyclic

    with acyclic():  # tables and rows by the thousand, no cycle among them
        found = _columns(run, state, first, each, rounds, n)
    if found is None:
        return None
    rows, counts, values = found
    # the rows of one sample first (counted in C by the caller)
    alone = counts == 1
    n_ones = int(alone.sum())
    if 0 < n_ones < len(rows):
        order = np.concatenate([np.flatnonzero(alone), np.flatnonzero(~alone)])
        rows, counts = rows[order], counts[order]
    width = len(values)
    h = (width + 1) // 2
    with acyclic():
        pieces = []
        for at in (range(h), range(h, width)):
            # the half's distinct codes (numpy), their values (a tuple each), and each
            # row's index among them
            grouped = _grouped(rows, tuple(at), [len(values[f]) for f in at])
            if grouped is None:  # too many codes for one key: a tuple per row
                pieces.append((at, _decoded(rows, values, at), range(len(rows))))
                continue
            groups, inverse = grouped
            pieces.append((at, _decoded(groups, values, at, at[0]), inverse.tolist()))
        keys = list(joined(pieces, rounds if each else 0))
        if len(keys) != len(rows):
            raise RuleError(f"{len(keys)} outcome rows for {len(rows)} last states")
        return keys[:n_ones], list(zip(keys[n_ones:], counts[n_ones:].tolist(),
                                       strict=True))


LOOKUP_KEYS = 4
"""A part's rows are grouped through a table of every key where there are at most this
many keys a row (:func:`_grouped`)."""


COLUMN_RUN = 1 << 17
"""Where a stage has a columnar form (which holds every sample apart), :func:`_columnar`
takes the samples in runs of at most this many (its memory, at about 250 bytes a
sample, bounded to some tens of megabytes)."""

COLUMN_CHUNK = 1 << 14
"""A stage's columnar form gets at most this many samples at once (a form may hold
arrays of some hundreds of values per sample: the shot's hits of each weapon on each
team)."""

_COLUMNS: Any = object()
"""The memo of :func:`_columnar`'s piece for a stage with a columnar form (its ``fn``)."""


def _form(stage: Any) -> Callable[..., Any] | None:
    """A stage's columnar form (context.columns), if it has one."""
    return getattr(stage, "_warroom_columns", None)


def _pieces(item: Any) -> list[Any]:
    """:func:`_columnar`'s pieces of a planned stage: a stage on parts is its pieces, a
    stage with a columnar form one piece of its own."""
    return item if type(item) is list else [((), _form(item), _COLUMNS, 0, None)]


def _column_step(run: _Run, form: Callable[..., Any], rows: Any, counts: Any,
                 values: list[list[Any]], codes: list[dict[Any, int]]) -> tuple[Any, Any]:
    """The rows through a stage's columnar form (context.columns): its states as one
    integer array per position with an entry per sample, its draws by
    :func:`_drawn_columns`; ``values`` and ``codes`` (per position) are coded afresh
    from the states it returns, and the rows that end alike merged."""
    import numpy as np

    each = np.repeat(np.arange(len(rows)), counts)
    known = []
    for f, vals in enumerate(values):
        known.append(np.array(vals))
        if known[f].dtype.kind not in "iub":
            raise RuleError("a stage with a columnar form needs integer states, got "
                            f"{vals[:3]!r}")
    dice = ColumnDice(run)
    parts: list[list[Any]] = [[] for _ in values]
    for start in range(0, len(each), COLUMN_CHUNK):  # the memory of a chunk at most
        block = each[start:start + COLUMN_CHUNK]
        got = form([known[f][rows[block, f]] for f in range(len(values))], dice)
        if len(got) != len(values):
            raise RuleError(f"a columnar form returned {len(got)} positions, not "
                            f"{len(values)}")
        for f, col in enumerate(got):
            parts[f].append(np.asarray(col, dtype=np.int64))
    out = np.zeros((len(each), len(values)), dtype=np.int64)
    for f, pieces in enumerate(parts):
        found, out[:, f] = _coded(np.concatenate(pieces))
        values[f][:] = found.tolist()
        codes[f].clear()
        codes[f].update((v, c) for c, v in enumerate(values[f]))
    return _merged_rows(out, np.ones(len(out), dtype=np.int64), [len(v) for v in values])


class ColumnDice:
    """What a stage's columnar form (context.columns) draws with: the run's generator
    and the exact transitions of stages on parts, as the rest of the batched run."""

    def __init__(self, run: _Run) -> None:
        self.run = run

    def draw(self, fn: Callable[..., Any], cols: Sequence[Any]) -> list[Any]:
        """Each entry's next part (``cols``: the part's values, an array per position, an
        entry per sample) drawn from the exact transition of the stage ``fn`` from the
        entry's value (:func:`_drawn_columns`)."""
        return _drawn_columns(self.run, fn, cols)

    def chances(self, fn: Callable[..., Any], sub: tuple[Any, ...]
                ) -> list[tuple[tuple[tuple[int, Any], ...], float]]:
        """The exact transition of the stage ``fn`` from its part's value ``sub``: the
        changes it makes ((index in the part, value) pairs) with their chances, worked
        out once per run (kept by the sampler, as for any stage on parts)."""
        table = _part_table(self.run, fn, sub)
        if table is RAW:
            raise RuleError("a stage drawn in columns has a transition too large to work out")
        return list(zip(table.values, _probs(table).tolist(), strict=True))

    def random(self, shape: Any) -> Any:
        """Uniforms in [0, 1) from the run's generator."""
        return self.run.np.random(shape)

    def most(self, fn: Callable[..., Any], subs: Sequence[tuple[Any, ...]], index: Any,
             at: int) -> Any:
        """For each row of ``index`` (an array whose last axis holds independent draws
        of the stage ``fn``, each from the part's value ``subs[i]``), the largest value
        at position ``at`` of the part those draws leave (an integer array of the
        other axes). The largest is at most v with the product over the row of each
        draw's chance to leave at most v (exact transitions, :meth:`chances`), so the
        row takes one uniform against those products, however many draws it holds."""
        import numpy as np

        index = np.asarray(index)
        seen = np.flatnonzero(np.bincount(index.reshape(-1), minlength=len(subs)))
        ends: dict[int, dict[Any, float]] = {}  # per value seen: its value at ``at``
        for i in seen.tolist():
            sub = subs[i]
            mine = ends[i] = {}
            for change, p in self.chances(fn, sub):
                v = dict(change).get(at, sub[at])
                mine[v] = mine.get(v, 0.0) + p
        values = sorted({v for mine in ends.values() for v in mine})
        below = np.ones((len(subs), max(len(values) - 1, 0)))  # chance of at most values[j]
        for i, mine in ends.items():
            below[i] = np.cumsum([mine.get(v, 0.0) for v in values])[:-1]
        u = self.random(index.shape[:-1])
        out = np.zeros(index.shape[:-1], dtype=np.int64)
        for j in range(len(values) - 1):  # past values[j] where u is not below its chance
            chance = np.ascontiguousarray(below[:, j])
            row = chance[index[..., 0]]
            for d in range(1, index.shape[-1]):
                row *= chance[index[..., d]]
            out += u >= row
        return np.array(values, dtype=np.int64)[out]


def _part_table(run: _Run, fn: Callable[..., Any], sub: tuple[Any, ...]) -> Any:
    """``fn``'s exact transition from ``sub`` (a :class:`Table` of changes; RAW: too
    large, or ``fn`` not marked fixed), kept in the sampler's memo."""
    memo = run.sampler._part_memo(fn)
    if memo is None:
        return RAW
    table = memo.get(sub, 0)
    if type(table) is int:
        table = memo[sub] = run.sampler._work_part(fn, sub)
    return table


def _coded(col: Any) -> tuple[Any, Any]:
    """The distinct values of an integer array, sorted, and each entry's index among
    them (np.unique's, counted rather than sorted where the values are few and close)."""
    import numpy as np

    if not len(col):
        return col, col
    low, high = int(col.min()), int(col.max())
    if high - low > max(1 << 16, 4 * len(col)):
        found, inverse = np.unique(col, return_inverse=True)
        return found, inverse.reshape(-1)
    seen = np.bincount(col - low, minlength=high - low + 1) > 0
    return np.flatnonzero(seen) + low, (np.cumsum(seen) - 1)[col - low]


def _drawn_columns(run: _Run, fn: Callable[..., Any], cols: Sequence[Any]) -> list[Any]:
    """Each entry's next value of a part (``cols``: the part's values, an array per
    position, an entry per sample) drawn from the exact transition of the stage ``fn``
    from the entry's value: worked out once per distinct value (kept by the sampler,
    as for any stage on parts), drawn for every entry at once (a uniform against the
    cumulative chances); a value whose transition is too large runs the stage one
    entry at a time (the sequential sampler)."""
    import numpy as np

    cols = [np.asarray(c, dtype=np.int64) for c in cols]
    size = len(cols[0])
    if not size:
        return cols
    key = np.zeros(size, dtype=np.int64)
    lows = [int(c.min()) for c in cols]
    widths = [int(c.max()) - low + 1 for c, low in zip(cols, lows, strict=True)]
    if math.prod(widths) >= 1 << 62:
        raise RuleError("a part drawn in columns has values too far apart")
    for c, low, width in zip(cols, lows, widths, strict=True):
        key = key * width + (c - low)
    span = math.prod(widths)
    if span <= max(1 << 16, 4 * size):  # few values: counted, not sorted
        seen = np.bincount(key, minlength=span) > 0
        ids = np.cumsum(seen) - 1
        inverse = ids[key]
        first = np.zeros(int(seen.sum()), dtype=np.int64)
        first[inverse[::-1]] = np.arange(size - 1, -1, -1)
    else:
        _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
        inverse = inverse.reshape(-1)
    subs = [tuple(int(c[i]) for c in cols) for i in first.tolist()]
    tables = [_part_table(run, fn, sub) for sub in subs]
    out = list(cols)
    at = tuple(range(len(cols)))
    if any(t is RAW for t in tables):  # too large: each entry runs the stage
        out = [c.copy() for c in cols]
        for u in (u for u, t in enumerate(tables) if t is RAW):
            for i in np.flatnonzero(inverse == u).tolist():
                for j, v in run.sampler._run_part(fn, subs[u], at):
                    out[j][i] = v
    tabled = [u for u, t in enumerate(tables) if t is not RAW]
    if not tabled:
        return out
    widest = max(len(tables[u].values) for u in tabled)
    chances = np.zeros((len(tables), widest))
    new = np.zeros((len(tables), widest, len(cols)), dtype=np.int64)
    put = np.zeros((len(tables), widest, len(cols)), dtype=bool)
    for u in tabled:
        table = tables[u]
        chances[u, :len(table.values)] = _probs(table)
        for c, change in enumerate(table.values):
            for j, v in change:
                new[u, c, j] = v
                put[u, c, j] = True
    live = np.flatnonzero(np.isin(inverse, tabled)) if len(tabled) < len(tables) else None
    group = inverse if live is None else inverse[live]
    last = np.array([len(t.values) - 1 if t is not RAW else 0 for t in tables])
    pick = _picked(run, chances, last, group)
    for j in range(len(cols)):
        if not put[:, :, j].any():
            continue
        where = put[:, :, j].reshape(-1)[pick]
        target = out[j].copy() if live is None else out[j][live]
        target[where] = new[:, :, j].reshape(-1)[pick[where]]
        if live is None:
            out[j] = target
        else:
            out[j] = out[j].copy()
            out[j][live] = target
    return out


PICK_COLUMNS = 16
"""Up to this many changes a row, :func:`_picked` compares each entry's uniform with its
row's cumulative chances a column at a time (a gather and a comparison each: several
times faster than a binary search among every row's changes laid end to end)."""


def _picked(run: _Run, chances: Any, last: Any, group: Any) -> Any:
    """A categorical draw for each entry of ``group`` (its row of ``chances``: each row a
    transition's chances, padded with zeros past its ``last`` change), as the entry's
    place among every row's changes laid end to end (row ``g``'s change ``c`` at
    ``g * width + c``): one uniform each, placed among its row's cumulative chances, the
    ones past each row's last change set to 2 (rounding never carries a uniform past the
    last change): with few changes a row, counted a column at a time; else a binary
    search among the rows laid end to end, 3 apart."""
    import numpy as np

    width = chances.shape[1]
    cum = np.cumsum(chances, axis=1)
    past = np.arange(width)[None, :] >= last[:, None]
    cum[past] = 2.0
    u = run.np.random(len(group))
    if width <= PICK_COLUMNS:
        out = group * width
        for j in range(width - 1):
            out += u >= np.ascontiguousarray(cum[:, j])[group]
        return out
    cum += 3.0 * np.arange(len(chances))[:, None]
    return np.searchsorted(cum.reshape(-1), u + 3.0 * group, side="right")


def _grouped(rows: Any, at: tuple[int, ...], sizes: list[int]) -> tuple[Any, Any] | None:
    """The distinct values of the part ``at`` among ``rows`` (their codes, sorted) and
    each row's group; None where the part's codes cannot make one int64 key. Where the
    keys are few beside the rows (:data:`LOOKUP_KEYS`) they are found by marking them
    in a table of every key, not by sorting the rows (the same groups)."""
    import numpy as np

    span = math.prod(sizes)
    if span >= 1 << 62:
        return None
    key = np.zeros(len(rows), dtype=np.int64)
    for f, size in zip(at, sizes, strict=True):
        key = key * size + rows[:, f]
    if span <= LOOKUP_KEYS * len(rows):
        seen = np.zeros(span, dtype=bool)
        seen[key] = True
        keys = np.flatnonzero(seen)
        inverse = (np.cumsum(seen) - 1)[key]
    else:  # sorted: each run of equal keys a group
        order, starts = _runs(key)
        keys = key[order[starts]]
        runs = np.zeros(len(key), dtype=np.int64)
        runs[starts[1:]] = 1
        inverse = np.empty(len(key), dtype=np.int64)
        inverse[order] = np.cumsum(runs)
    groups = np.zeros((len(keys), len(at)), dtype=np.int64)
    for j in range(len(at) - 1, -1, -1):
        keys, groups[:, j] = np.divmod(keys, sizes[j])
    return groups, inverse.reshape(-1)


def _part_tables(run: _Run, fn: Callable[..., Any], memo: dict[Any, Any],
                 key: Callable[[tuple[Any, ...]], Any] | None, subs: list[tuple[Any, ...]],
                 width: int, samples: Any) -> list[Any] | None:
    """Each value's exact transition (None: its samples run the stage one by one: a value
    seen too rarely to pay for its table); None where one is too large. ``subs``: the
    values of the positions the stage reads, of ``width`` in all; ``key``: what keys
    the transitions (context.part; None: the values)."""
    tables: list[Any] = []
    seen = run.tabled.setdefault(id(memo), [0, 0])  # tables worked out, their changes
    ks = samples.tolist()
    mks: list[Any] = subs
    if key is not None:  # the samples of every value of a key count towards its table
        mks = list(map(key, subs))
        per: dict[Any, int] = {}
        for mk, k in zip(mks, ks, strict=True):
            per[mk] = per.get(mk, 0) + k
        ks = list(map(per.__getitem__, mks))
    decided: dict[Any, Any] = {}  # per key met here: its table (None: rolled)
    for sub, mk, k in zip(subs, mks, ks, strict=True):
        if key is not None and mk in decided:
            tables.append(decided[mk])
            continue
        table = memo.get(mk, 0)
        if type(table) is int:  # samples seen from this value: rolled until it pays
            # a stage whose tables have few changes (a die) is cheap to table: its
            # values are tabled sooner (at about as many samples as changes)
            pays = (COLUMN_TABLE_FROM if not seen[0] else
                    max(2, min(COLUMN_TABLE_FROM, -(-seen[1] // seen[0]))))
            if table + k < pays:
                memo[mk] = table + k
                tables.append(None)
                decided[mk] = None
                continue
            table = memo[mk] = run.sampler._work_part(fn, sub, width)
            if table is not RAW:
                seen[0] += 1
                seen[1] += len(table.values)
        if table is RAW:
            return None
        tables.append(table)
        decided[mk] = table
    return tables


def _tabled(run: _Run, at: tuple[int, ...], code: Callable[[int, Any], int], rows: Any,
            counts: Any, inverse: Any, tables: list[Any],
            coded: dict[tuple[int, tuple[int, ...]], Any]) -> tuple[Any, Any]:
    """The rows of the groups with a table drawn at once: each row's samples split among
    its table's changes (the chances of every distinct table side by side, padded with
    zeros: groups whose values have one key share a table).
    A row takes its first change that got samples in place (``rows`` and ``counts`` are
    changed: the caller's to change), at the positions its change writes; each further
    change that got some is a copy of the row as it was (the new codes of a position
    written in one ``where``). Returns the copies with their samples.
    ``coded``: each table's changes as codes and its chances, by table and positions
    (kept by the caller for its run: the codes are its own)."""
    import numpy as np

    # the distinct tables, and each group's among them
    distinct: dict[int, int] = {}
    order: list[Any] = []
    which: list[int] = []
    for table in tables:
        if table is None:
            which.append(-1)  # rolled (_rolled)
            continue
        j = distinct.get(id(table))
        if j is None:
            j = distinct[id(table)] = len(order)
            order.append(table)
        which.append(j)
    if not order:
        return rows[:0], counts[:0]
    widest = max(len(table.values) for table in order)
    chances = np.zeros((len(order), widest))
    new = np.full((len(order), widest, len(at)), -1, dtype=rows.dtype)
    for j, table in enumerate(order):
        found = coded.get((id(table), at))
        if found is None:  # each change's new codes, once per table and positions
            cells = np.full((len(table.values), len(at)), -1, dtype=rows.dtype)
            for made, change in enumerate(table.values):
                for pj, v in change:
                    cells[made, pj] = code(at[pj], v)
            found = coded[id(table), at] = (cells, _probs(table))
        cells, probs = found
        new[j, :len(cells)] = cells
        chances[j, :len(probs)] = probs
    new = new.reshape(len(order) * widest, len(at))
    last = np.array([len(table.values) - 1 for table in order])
    tab = np.array(which)[inverse]  # each row's table
    live = tab >= 0
    idx = np.flatnonzero(live) if not live.all() else None
    group = tab if idx is None else tab[idx]
    k = counts if idx is None else counts[idx]
    # a row of one sample draws its change from one uniform (a categorical draw: the
    # same law as the multinomial of one, at a third of its cost), placed among its
    # table's cumulative chances (_picked); the other rows split their samples in one
    # multinomial
    single = k == 1
    one = np.flatnonzero(single)
    pick = _picked(run, chances, last, group[one])
    many = np.flatnonzero(~single)
    drawn = run.np.multinomial(k[many], chances[group[many]])
    rm, jm = np.nonzero(drawn)  # each row's changes that got samples, in order
    got = drawn[rm, jm]
    # each row's first such change is made in place (with its samples); the others
    # are copies of the row as it was
    first = np.ones(len(rm), dtype=bool)
    first[1:] = rm[1:] != rm[:-1]
    src = one if idx is None else idx[one]
    at_many = many[rm] if idx is None else idx[many[rm]]
    copies = rows[at_many[~first]]
    # only the positions some change writes (a unit's check leaves the leader helping
    # it), and only the rows whose change writes it
    written = [(pj, f) for pj, f in enumerate(at) if (new[:, pj] >= 0).any()]
    into = np.concatenate([src, at_many[first]])
    put = new.take(np.concatenate([pick, (group[many] * widest)[rm[first]] + jm[first]]),
                   axis=0)
    for pj, f in written:  # in place
        c = put[:, pj]
        some = c >= 0
        rows[into[some], f] = c[some]
    counts[at_many[first]] = got[first]
    put = new.take((group[many] * widest)[rm[~first]] + jm[~first], axis=0)
    for pj, f in written:
        c = put[:, pj]
        copies[:, f] = np.where(c >= 0, c, copies[:, f])
    return copies, got[~first]


class _Held:
    """Rows of codes and their samples, with room to grow: rows added are copied once,
    not the rows already held (a piece changes most rows in place and adds a few)."""

    def __init__(self, rows: Any, counts: Any) -> None:
        import numpy as np

        self.n = n = len(rows)
        room = n + n // 2 + 16
        # a column at a time (the pieces read and write a few positions of every row)
        self._rows = np.empty((room, rows.shape[1]), dtype=np.int64, order="F")
        self._rows[:n] = rows
        self._counts = np.empty(room, dtype=np.int64)
        self._counts[:n] = counts

    def rows(self) -> Any:
        return self._rows[:self.n]

    def counts(self) -> Any:
        return self._counts[:self.n]

    def extend(self, rows: Any, counts: Any) -> None:
        import numpy as np

        n, more = self.n, len(rows)
        if not more:
            return
        if n + more > len(self._rows):
            room = 2 * (n + more)
            grown = np.empty((room, self._rows.shape[1]), dtype=np.int64, order="F")
            grown[:n] = self._rows[:n]
            self._rows = grown
            grown_counts = np.empty(room, dtype=np.int64)
            grown_counts[:n] = self._counts[:n]
            self._counts = grown_counts
        self._rows[n:n + more] = rows
        self._counts[n:n + more] = counts
        self.n = n + more


def _rolled(run: _Run, fn: Callable[..., Any], at: tuple[int, ...],
            subs: list[tuple[Any, ...]], code: Callable[[int, Any], int], rows: Any,
            counts: Any, inverse: Any, where: Any) -> tuple[Any, Any]:
    """The samples of the rows ``where`` (their group's value seen too rarely to table):
    each runs the stage (the sequential sampler), the first of a row in place (the row
    then holds that sample alone), the others in copies of the row as it was. Returns
    the copies and their samples (one each)."""
    import numpy as np

    out: list[Any] = []
    for i, u, k in zip(where.tolist(), inverse[where].tolist(), counts[where].tolist(),
                       strict=True):
        was = rows[i].copy()
        for j in range(k):
            got = rows[i] if not j else was.copy()
            for pj, v in run.sampler._run_part(fn, subs[u], at):
                got[at[pj]] = code(at[pj], v)
            if j:
                out.append(got)
        counts[i] = 1
    if not out:
        return rows[:0], counts[:0]
    return np.array(out), np.ones(len(out), dtype=np.int64)


def _merged_rows(rows: Any, counts: Any, sizes: list[int]) -> tuple[Any, Any]:
    """The rows with those alike merged (their samples added), where their codes make
    one int64 key; else as they are."""
    import numpy as np

    if math.prod(sizes) >= 1 << 62 or len(rows) < 2:
        return rows, counts
    key = np.zeros(len(rows), dtype=np.int64)
    for f, size in enumerate(sizes):
        key = key * size + rows[:, f]
    order, starts = _runs(key)
    if len(starts) == len(rows):
        return rows, counts
    # each run's first row in the sorted order stands for it, kept where it was (the
    # rows read in order: cheaper than gathered in the sorted order)
    kept = np.zeros(len(rows), dtype=bool)
    kept[order[starts]] = True
    added = np.zeros(len(rows), dtype=np.int64)
    added[order[starts]] = np.add.reduceat(counts[order], starts)
    return rows[kept], added[kept]


def _runs(key: Any) -> tuple[Any, Any]:
    """The order that sorts ``key`` (an int64 array) and where each run of equal keys
    starts in it (cheaper than np.unique's first places and inverse)."""
    import numpy as np

    order = np.argsort(key)
    ordered = key[order]
    new = np.empty(len(key), dtype=bool)
    new[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    return order, np.flatnonzero(new)


def _add(out: dict[Any, int], key: Any, k: int) -> None:
    out[key] = out.get(key, 0) + k


def _whole_step(run: _Run, stage: Stage[Any], s: tuple[Any, ...], k: int, fought: int,
                out: dict[Any, int]) -> None:
    """``k`` samples in state ``s`` through a stage on the whole state: the stage
    replayed with the samples split at each of its requests (a whole state's exact
    transition can be far larger than the samples: the to-hit counts of six weapons)."""
    for s2, c in _replayed(run, lambda d: stage(s, d), k, staged=True):
        _add(out, (s2, fought), c)


def _replayed(run: _Run, fn: Callable[[Dice], Any], n: int, *, staged: bool
              ) -> Iterator[tuple[Any, int]]:
    """What ``fn`` returns for ``n`` samples, replayed once per distinct path through
    its requests (:class:`BatchDice`), with the samples of each path. Raises
    :class:`_NotStaged` unless ``staged`` or the first request is a stages request."""
    todo: list[tuple[tuple[Any, ...], int]] = [((), n)]
    while todo:
        path, c = todo.pop()
        run.work += 1
        run.single += c == 1
        ctx = BatchDice(run, path, c)
        ctx.staged = staged
        try:
            got = fn(ctx)
        except _Split as split:
            todo.extend(((*path, a), k) for a, k in reversed(split.options))
            continue
        yield got, c


def _parts_step(run: _Run, pieces: list[_Piece], s: tuple[Any, ...], k: int, fought: int,
                out: dict[Any, int]) -> None:
    """``k`` samples in state ``s`` through the pieces of a stage on parts, one after
    another (samples that part ways go on as separate states)."""
    todo: list[tuple[tuple[Any, ...], int, int]] = [(s, k, 0)]
    sampler = run.sampler
    while todo:
        st, c, i = todo.pop()
        if i == len(pieces):
            _add(out, (st, fought), c)
            continue
        at, fn, memo, n_read, key = pieces[i]
        sub = tuple([st[at[f]] for f in range(n_read)])
        mk = sub if key is None else key(sub)
        table = memo.get(mk, 0) if memo is not None else RAW
        if type(table) is int:  # samples seen from this value: rolled until it pays
            if table + c < PART_TABLE_FROM:
                memo[mk] = table + c
                table = RAW
            else:
                table = memo[mk] = sampler._work_part(fn, sub, len(at))
        if table is RAW:
            for _ in range(c):
                todo.append((_spliced(st, at, sampler._run_part(fn, sub, at)), 1, i + 1))
            continue
        for change, c2 in run.split(c, table):
            todo.append((_spliced(st, at, change), c2, i + 1))


def _spliced(st: tuple[Any, ...], at: tuple[int, ...],
             change: tuple[tuple[int, Any], ...]) -> tuple[Any, ...]:
    if not change:
        return st
    cur = list(st)
    for j, v in change:
        cur[at[j]] = v
    return tuple(cur)


def simulate_batched(run_proc: Callable[[Dice], Any], fields: Sequence[str], samples: int,
                     seed: int, *, stream: int = 0, tables: dict[str, Any] | None = None,
                     into: Counts | None = None) -> tuple[Counts, int] | None:
    """``samples`` samples of ``run_proc`` counted by outcome (rows of ``fields``), drawn
    from the generators of ``seed`` and ``stream`` (a chunk of a longer run: ``tables``,
    the same dict for each chunk, keeps the tables the chunks work out), or
    None where the procedure is not staged (its first request is not ``stages``,
    ``iterate`` or ``finish``): the caller then samples one at a time. With the counts,
    the run's work: its replays and (state, stage) steps, each about one sample's worth
    of Python where states do not merge. ``into``: the counts are added to it (the
    earlier chunks' of a run) and it is returned (a ``Counter`` counts the outcomes of
    one sample each in C; the counts are a ``Counter`` where there is no ``into``)."""
    run = _Run(seed, stream, fields, tables)
    counts: Counts = Counter() if into is None else into
    names = tuple(fields)
    from warroom.engine.exact import acyclic, gc_frozen

    with gc_frozen():
        try:
            for out, n in _replayed(run, run_proc, samples, staged=False):
                if type(out) is _Counted:
                    get = counts.get
                    with acyclic():
                        if isinstance(counts, Counter):  # counted in C
                            counts.update(out.ones)
                        else:
                            for key in out.ones:
                                counts[key] = get(key, 0) + 1
                        for key, k in out.rows:
                            counts[key] = get(key, 0) + k
                    continue
                if type(out) is Row and out.names == names:
                    key = out.cells
                else:
                    missing = [f for f in names if f not in out]
                    if missing:
                        raise RuleError(f"outcome is missing fields {missing}")
                    key = tuple([out[f] for f in names])
                _add(counts, key, n)
        except _NotStaged:
            return None
    return counts, run.single
