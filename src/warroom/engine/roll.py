"""The roll driver: real dice, seeded or typed in, with every step recorded."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from warroom.dice.sources import DiceSource
from warroom.dice.weights import Reroll, View, faces_at_least, view_of
from warroom.engine.context import Chain, Dice, as_target
from warroom.engine.exact import check_classes
from warroom.engine.messages import Msg, Text, as_msg, msg, nmsg
from warroom.engine.steps import Step, Target
from warroom.errors import RuleError


class RollDice(Dice):
    def __init__(self, source: DiceSource, record: bool = True) -> None:
        self.source = source
        self.record = record
        self.steps: list[Step] = []
        self._item: Msg | None = None

    def _take(self, k: int, what: Text, rule: str, sides: int = 6) -> list[int]:
        if k <= 0:
            return []
        return self.source.take(k, sides=sides, what=self._what_msg(what), rule=rule)

    def _step(self, step: Step) -> None:
        if self.record:
            self.steps.append(step)

    def _what_msg(self, what: Text) -> Msg:
        what_msg = as_msg(what)
        return msg("{what} ({item})", what=what_msg, item=self._item) if self._item else what_msg

    def pool(self, n: int, at: int | Target, *, rule: str, what: Text,
             reroll: Reroll = "none") -> int:
        t = as_target(at)
        n = int(n)
        if n < 0:
            raise RuleError(f"a pool cannot have {n} dice")
        w = self._what_msg(what)
        if n == 0:
            self._step(Step(rule, msg("{what}: no dice to roll", what=w), t,
                            result=msg("successes: {n}", n=0)))
            return 0
        if faces_at_least(t.final) == 0:
            self._step(Step(rule, nmsg("{what}: one die would need {at}+, which no die can roll",
                                       "{what}: {n} dice would need {at}+, which no die can roll",
                                       what=w, n=n, at=t.final), t,
                            result=msg("successes: {n}", n=0)))
            return 0
        first = self._take(n, what, rule)
        hits = sum(1 for v in first if v >= t.final)
        again: list[int] = []
        # "one die", not "1 dice": each language picks its form for n (Polish has three)
        text = nmsg("{what}: one die needing {at}+", "{what}: {n} dice needing {at}+",
                    what=w, n=n, at=t.final)
        if reroll == "misses" and hits < n:
            again = self._take(n - hits, msg("{what} (re-rolled misses)", what=as_msg(what)), rule)
            hits += sum(1 for v in again if v >= t.final)
            text = nmsg("{what}: one die needing {at}+, a miss re-rolled",
                        "{what}: {n} dice needing {at}+, misses re-rolled", what=w, n=n, at=t.final)
        elif reroll == "hits" and hits:
            again = self._take(hits, msg("{what} (re-rolled successes)", what=as_msg(what)), rule)
            hits = sum(1 for v in again if v >= t.final)
            text = nmsg("{what}: one die needing {at}+, a success must be re-rolled",
                        "{what}: {n} dice needing {at}+, successes must be re-rolled",
                        what=w, n=n, at=t.final)
        self._step(Step(rule, text, t, dice=tuple(first), rerolled=tuple(again),
                        result=msg("successes: {n}", n=hits)))
        return hits

    def split(self, n: int, classes: Mapping[str, Sequence[int]], *, rule: str, what: Text,
              target: Target | None = None) -> dict[str, int]:
        check_classes(classes)
        n = int(n)
        values = self._take(n, what, rule)
        counts = {label: sum(1 for v in values if v in faces) for label, faces in classes.items()}
        summary = _counts_msg(counts)
        text = (nmsg("{what}: one die", "{what}: {n} dice", n=1, what=self._what_msg(what))
                if n == 1 else
                msg("{what}: one die for each of {n}", what=self._what_msg(what), n=n))
        self._step(Step(rule, text,
                        target, dice=tuple(values), result=summary))
        return counts

    def one(self, chain: Chain, labels: Sequence[str], *, rule: str, what: Text) -> str:
        # the item's own steps tell the story; no "1 in all" tally after them
        counts = self._each(1, chain, labels, rule, what, (), tally=False)
        return next(label for label in labels if counts[label])

    def each(self, n: int, chain: Chain, labels: Sequence[str], *, rule: str,
             what: Text, names: Sequence[Text] = ()) -> dict[str, int]:
        return self._each(n, chain, labels, rule, what, names)

    def _each(self, n: int, chain: Chain, labels: Sequence[str], rule: str, what: Text,
              names: Sequence[Text], tally: bool = True) -> dict[str, int]:
        n = int(n)
        answers: list[list[Any]] = [[] for _ in range(n)]
        results: list[str | None] = [None] * n
        pending = list(range(n))
        while pending:
            # one round: every unfinished item (and item of an item) asks for its next roll
            requests: list[_Pending] = []
            still: list[int] = []
            for i in pending:
                try:
                    results[i] = chain(_Replay(answers[i], _numbered(what, i, n, names)))
                except _Pending as one:
                    requests.append(one)
                    still.append(i)
                except _PendingGroup as group:
                    requests.extend(group.requests)
                    still.append(i)
            # the round's requests are rolled together, item by item, as at the table
            for req in requests:
                outer = self._item
                self._item = msg("{a}, {b}", a=outer, b=req.label) if outer else req.label
                try:
                    req.target.append(getattr(self, req.method)(*req.args, **req.kwargs))
                finally:
                    self._item = outer
            pending = still
        counts = _tally(results, labels)
        if tally:
            self._step(Step(rule, msg("{what}: {n} in all", what=as_msg(what), n=n),
                            result=_counts_msg(counts)))
        return counts

    def die(self, *, rule: str, what: Text, sides: int = 6, target: Target | None = None) -> int:
        (v,) = self._take(1, what, rule, sides)
        self._step(Step(rule, nmsg("{what}: one die", "{what}: {n} dice", n=1,
                                   what=self._what_msg(what)), target,
                        dice=(v,), result=msg("rolled {v}", v=v)))
        return v

    def dice(self, k: int, *, rule: str, what: Text, sides: int = 6, view: View = "ordered",
             target: Target | None = None) -> Any:
        values = self._take(k, what, rule, sides)
        seen = view_of(values, view)
        result = msg("total {v}", v=seen) if view == "sum" else msg("rolled {v}", v=values)
        self._step(Step(rule, nmsg("{what}: one die", "{what}: {n} dice", n=k,
                                   what=self._what_msg(what)), target,
                        dice=tuple(values), result=result))
        return seen

    def test(self, at: int | Target, *, rule: str, what: Text, reroll: bool = False) -> bool:
        t = as_target(at)
        w = self._what_msg(what)
        if faces_at_least(t.final) == 0:
            self._step(Step(rule, msg("{what}: would need {at}+, which no die can roll",
                                      what=w, at=t.final), t, result=Msg("failed")))
            return False
        (v,) = self._take(1, what, rule)
        passed = v >= t.final
        again: tuple[int, ...] = ()
        if not passed and reroll:
            (v2,) = self._take(1, msg("{what} (re-roll)", what=as_msg(what)), rule)
            again = (v2,)
            passed = v2 >= t.final
        self._step(Step(rule, msg("{what}: needs {at}+", what=w, at=t.final), t, dice=(v,),
                        rerolled=again, result=Msg("passed") if passed else Msg("failed")))
        return passed

    def pick(self, k: int, *, rule: str, what: Text) -> int:
        if k < 1:
            raise RuleError("pick needs at least one thing to choose from")
        if k == 1:
            return 0
        rolled: list[int] = []
        if k <= 6:
            while True:
                (v,) = self._take(1, what, rule)
                rolled.append(v)
                if v <= k:
                    choice = v - 1
                    break
        else:
            if k > 36:
                raise RuleError("pick supports at most 36 choices")
            limit = k * (36 // k)
            while True:
                a, b = self._take(2, what, rule)
                rolled.extend((a, b))
                v = (a - 1) * 6 + (b - 1)
                if v < limit:
                    choice = v % k
                    break
        text = msg("{what}: random choice among {k}", what=self._what_msg(what), k=k)
        self._step(Step(rule, text,
                        dice=tuple(rolled), result=msg("number {v}", v=choice + 1)))
        return choice

    def note(self, rule: str, text: str | Msg, result: str | Msg | None = None,
             **args: Any) -> None:
        template = text if isinstance(text, str) else text.template
        if "{result}" in template and "result" not in args:
            raise RuleError("a note's template uses {result}, but 'result' is the step's own "
                            "result keyword: rename the template argument")
        if not self.record:
            return
        body = Msg(text, args) if isinstance(text, str) else text
        self._step(Step(rule, body, result=None if result is None else as_msg(result)))


def _numbered(what: Text, index: int, of: int, names: Sequence[Text] = ()) -> Msg:
    """'team 2': the item's name (translatable) and its number; a lone item is named
    without one; ``names`` (one per item), when given, name the items instead."""
    if len(names) == of:
        return as_msg(names[index])
    if of == 1:
        return as_msg(what)
    return msg("{what} {n}", what=as_msg(what), n=index + 1)


def _counts_msg(counts: Mapping[str, int]) -> Msg:
    """"2 hit, 1 bailed out" with each category name translatable (its msgid is the label,
    words apart: 'bailed_out' reads 'bailed out')."""
    parts = [(c, label) for label, c in counts.items() if c]
    if not parts:
        return Msg("none")
    template = ", ".join(f"{{n{i}}} {{c{i}}}" for i in range(len(parts)))
    args: dict[str, Any] = {}
    for i, (c, label) in enumerate(parts):
        args[f"n{i}"] = c
        args[f"c{i}"] = Msg(label.replace("_", " "))
    return Msg(template, args)


def _tally(results: Sequence[str | None], labels: Sequence[str]) -> dict[str, int]:
    counts = dict.fromkeys(labels, 0)
    for r in results:
        if r not in counts:
            raise RuleError(f"chain returned {r!r}, not one of {list(labels)}")
        counts[r] += 1
    return counts


class _Pending(BaseException):
    """One item's next request; its answer is appended to ``target``."""

    def __init__(self, method: str, args: tuple[Any, ...], kwargs: dict[str, Any],
                 target: list[Any], label: Msg) -> None:
        super().__init__()
        self.method = method
        self.args = args
        self.kwargs = kwargs
        self.target = target
        self.label = label


class _PendingGroup(BaseException):
    """The next requests of the items of an item (a nested ``each``)."""

    def __init__(self, requests: list[_Pending]) -> None:
        super().__init__()
        self.requests = requests


class _Nested:
    """The answers of a nested ``each``: one answer list per inner item."""

    __slots__ = ("lists",)

    def __init__(self, n: int) -> None:
        self.lists: list[list[Any]] = [[] for _ in range(n)]


class _Replay(Dice):
    """Replays one item's earlier answers; its next request is handed to the parent."""

    def __init__(self, answers: list[Any], label: Msg) -> None:
        self.answers = answers
        self.label = label
        self.pos = 0

    def _ask(self, method: str, *args: Any, **kwargs: Any) -> Any:
        if self.pos < len(self.answers):
            self.pos += 1
            return self.answers[self.pos - 1]
        raise _Pending(method, args, kwargs, self.answers, self.label)

    def pool(self, n: int, at: int | Target, *, rule: str, what: Text,
             reroll: Reroll = "none") -> int:
        return self._ask("pool", n, at, rule=rule, what=what, reroll=reroll)  # type: ignore[no-any-return]

    def split(self, n: int, classes: Mapping[str, Sequence[int]], *, rule: str, what: Text,
              target: Target | None = None) -> dict[str, int]:
        return self._ask("split", n, classes, rule=rule, what=what, target=target)  # type: ignore[no-any-return]

    def each(self, n: int, chain: Chain, labels: Sequence[str], *, rule: str,
             what: Text, names: Sequence[Text] = ()) -> dict[str, int]:
        # items of an item join the same rounds as everything else
        if self.pos < len(self.answers):
            nested = self.answers[self.pos]
        else:
            nested = _Nested(int(n))
            self.answers.append(nested)
        self.pos += 1
        results: list[str | None] = [None] * len(nested.lists)
        requests: list[_Pending] = []
        for j, inner in enumerate(nested.lists):
            try:
                results[j] = chain(_Replay(inner, msg("{a}, {b}", a=self.label,
                                                      b=_numbered(what, j, len(nested.lists),
                                                                  names))))
            except _Pending as one:
                requests.append(one)
            except _PendingGroup as group:
                requests.extend(group.requests)
        if requests:
            raise _PendingGroup(requests)
        return _tally(results, labels)

    def die(self, *, rule: str, what: Text, sides: int = 6, target: Target | None = None) -> int:
        return self._ask("die", rule=rule, what=what, sides=sides, target=target)  # type: ignore[no-any-return]

    def dice(self, k: int, *, rule: str, what: Text, sides: int = 6, view: View = "ordered",
             target: Target | None = None) -> Any:
        return self._ask("dice", k, rule=rule, what=what, sides=sides, view=view, target=target)

    def test(self, at: int | Target, *, rule: str, what: Text, reroll: bool = False) -> bool:
        return self._ask("test", at, rule=rule, what=what, reroll=reroll)  # type: ignore[no-any-return]

    def pick(self, k: int, *, rule: str, what: Text) -> int:
        return self._ask("pick", k, rule=rule, what=what)  # type: ignore[no-any-return]

    def note(self, rule: str, text: str | Msg, result: str | Msg | None = None,
             **args: Any) -> None:
        return None
