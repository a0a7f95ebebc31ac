"""Lazy counts for the exact driver.

When a procedure asks for a pool, the exact driver does not branch over every number
of successes. It splits a *category tree* instead: the n items of the pool become
"succeeded" and "failed" items, a later save splits the succeeded items again, and so
on. Counts handed back to the procedure are :class:`Sym` values: integer linear
combinations of category sizes. At the end the driver turns each tree into one
categorical distribution per item and a multinomial over the item counts.

A procedure that branches on a lazy count (``bool()``, ``int()``, indexing) raises
:class:`NeedConcrete`; the driver then marks the requests behind that count as
concrete and starts over, enumerating them value by value.
"""

from __future__ import annotations

from typing import Any


class NeedConcrete(BaseException):
    """Raised when a procedure needs the actual value of a lazy count."""

    def __init__(self, origins: frozenset[int]) -> None:
        super().__init__()
        self.origins = origins


class Node:
    """A category of items: a root (a pool of ``size`` items) or a child of a split.

    Every node knows its tree's root (``top``), the chance ``num/den`` that one item of
    the root ends in it, and the root lists every node of its tree (``nodes``), so the
    driver never walks a tree to evaluate it."""

    __slots__ = ("cden", "children", "cnum", "nodes", "origin", "parent", "size", "top")

    def __init__(self, origin: int, parent: Node | None, num: int, den: int,
                 size: int = 0) -> None:
        self.origin = origin
        self.parent = parent
        self.children: list[Node] = []
        if parent is None:
            self.top = self
            self.cnum = self.cden = 1
            self.size = size
            self.nodes: list[Node] = [self]
        else:
            top = self.top = parent.top
            self.cnum = parent.cnum * num
            self.cden = parent.cden * den
            parent.children.append(self)
            top.nodes.append(self)

    def root(self) -> Node:
        return self.top

    def origins(self) -> frozenset[int]:
        out = set()
        node: Node | None = self
        while node is not None:
            out.add(node.origin)
            node = node.parent
        return frozenset(out)

    def leaves(self) -> list[Node]:
        if not self.children:
            return [self]
        out: list[Node] = []
        for c in self.children:
            out.extend(c.leaves())
        return out


class Sym:
    """An integer linear combination of category sizes plus a constant."""

    __slots__ = ("const", "terms")

    def __init__(self, terms: dict[Node, int], const: int = 0) -> None:
        self.terms = terms
        self.const = const

    # -- arithmetic that stays lazy ------------------------------------------
    def _combine(self, other: Any, sign: int) -> Sym:
        if type(other) is Sym:
            terms = self.terms.copy()
            for node, c in other.terms.items():
                v = terms.get(node, 0) + sign * c
                if v:
                    terms[node] = v
                else:
                    del terms[node]
            return Sym(terms, self.const + sign * other.const)
        if isinstance(other, bool) or not isinstance(other, int):
            return NotImplemented  # type: ignore[no-any-return]
        return Sym(self.terms, self.const + sign * other)

    def __add__(self, other: Any) -> Sym:
        return self._combine(other, 1)

    __radd__ = __add__

    def __sub__(self, other: Any) -> Sym:
        return self._combine(other, -1)

    def __rsub__(self, other: Any) -> Sym:
        return (-self)._combine(other, 1)

    def __neg__(self) -> Sym:
        return Sym({n: -c for n, c in self.terms.items()}, -self.const)

    def __pos__(self) -> Sym:
        return self

    def __mul__(self, other: Any) -> Sym:
        if isinstance(other, bool) or not isinstance(other, int):
            if isinstance(other, Sym):
                self._force(other)
            return NotImplemented
        return Sym({n: c * other for n, c in self.terms.items() if c * other}, self.const * other)

    __rmul__ = __mul__

    # -- comparisons build lazy conditions ------------------------------------
    def _cmp(self, other: Any, op: str) -> Any:
        if isinstance(other, Sym):
            return Cond(op, self - other)
        if isinstance(other, bool) or not isinstance(other, int):
            return NotImplemented
        return Cond(op, self - other)

    def __lt__(self, other: Any) -> Any:
        return self._cmp(other, "<")

    def __le__(self, other: Any) -> Any:
        return self._cmp(other, "<=")

    def __gt__(self, other: Any) -> Any:
        return self._cmp(other, ">")

    def __ge__(self, other: Any) -> Any:
        return self._cmp(other, ">=")

    def __eq__(self, other: Any) -> Any:
        return self._cmp(other, "==")

    def __ne__(self, other: Any) -> Any:
        return self._cmp(other, "!=")

    # -- anything else needs the value ---------------------------------------
    def origins(self) -> frozenset[int]:
        out: set[int] = set()
        for node in self.terms:
            out |= node.origins()
        return frozenset(out)

    def _force(self, *others: Any) -> Any:
        origins = set(self.origins())
        for o in others:
            if isinstance(o, (Sym, Cond)):
                origins |= o.origins()
        raise NeedConcrete(frozenset(origins))

    def __bool__(self) -> bool:
        return bool(self._force())

    def __int__(self) -> int:
        return int(self._force())

    def __index__(self) -> int:
        return int(self._force())

    def __float__(self) -> float:
        return float(self._force())

    def __hash__(self) -> int:
        return int(self._force())

    def __floordiv__(self, other: Any) -> Any:
        return self._force(other)

    __rfloordiv__ = __truediv__ = __rtruediv__ = __mod__ = __rmod__ = __floordiv__
    __pow__ = __rpow__ = __divmod__ = __rdivmod__ = __floordiv__

    def __abs__(self) -> Any:
        return self._force()

    __round__ = __trunc__ = __floor__ = __ceil__ = __abs__

    def __format__(self, spec: str) -> str:
        return "?"

    def __repr__(self) -> str:
        return f"Sym({len(self.terms)} terms, {self.const:+d})"


class Cond:
    """A lazy truth value: a comparison of a :class:`Sym` with 0, or a combination."""

    __slots__ = ("args", "op")

    def __init__(self, op: str, *args: Any) -> None:
        self.op = op
        self.args = args

    def origins(self) -> frozenset[int]:
        out: set[int] = set()
        for a in self.args:
            if isinstance(a, (Sym, Cond)):
                out |= a.origins()
        return frozenset(out)

    def __and__(self, other: Any) -> Cond:
        return Cond("and", self, other)

    __rand__ = __and__

    def __or__(self, other: Any) -> Cond:
        return Cond("or", self, other)

    __ror__ = __or__

    def __invert__(self) -> Cond:
        return Cond("not", self)

    def __bool__(self) -> bool:
        raise NeedConcrete(self.origins())

    __hash__ = None  # type: ignore[assignment]

    def __eq__(self, other: Any) -> Any:
        raise NeedConcrete(self.origins())

    def __format__(self, spec: str) -> str:
        return "?"

    def syms(self) -> list[Sym]:
        out: list[Sym] = []
        for a in self.args:
            if isinstance(a, Sym):
                out.append(a)
            elif isinstance(a, Cond):
                out.extend(a.syms())
        return out

    def evaluate(self, values: dict[int, int]) -> bool:
        """Truth under ``values``: id(sym) -> its value."""
        op = self.op
        if op == "and":
            return all(_truth(a, values) for a in self.args)
        if op == "or":
            return any(_truth(a, values) for a in self.args)
        if op == "not":
            return not _truth(self.args[0], values)
        v = values[id(self.args[0])]
        if op == "<":
            return v < 0
        if op == "<=":
            return v <= 0
        if op == ">":
            return v > 0
        if op == ">=":
            return v >= 0
        if op == "==":
            return v == 0
        return v != 0


def _truth(a: Any, values: dict[int, int]) -> bool:
    if isinstance(a, Cond):
        return a.evaluate(values)
    if isinstance(a, Sym):
        return values[id(a)] != 0
    return bool(a)
