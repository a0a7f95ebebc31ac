"""Typed errors. Everything a player or caller can get wrong is a :class:`UsageError`.

The CLI turns a :class:`UsageError` into a message on stderr and exit code 2; the web
API turns it into a 422. Anything else escaping is a bug in warroom.
"""

from __future__ import annotations

from collections.abc import Sequence


class WarroomError(Exception):
    """Base class of every error warroom raises on purpose."""


class UsageError(WarroomError, ValueError):
    """Bad input from the caller: an unknown name, a bad value, wrong dice."""


class UnknownNameError(UsageError):
    """A name (procedure, game system, parameter, special rule...) that does not exist."""

    def __init__(self, kind: str, name: str, valid: Sequence[str], hint: str = "") -> None:
        import difflib

        self.kind = kind
        self.name = name
        self.valid = tuple(valid)
        close = difflib.get_close_matches(name, self.valid, n=1, cutoff=0.5)
        self.suggestion = close[0] if close else None
        message = f"unknown {kind} {name!r}"
        if self.suggestion:
            message += f"; did you mean {self.suggestion!r}?"
        if self.valid:
            message += f" Valid: {', '.join(self.valid)}."
        if hint:
            message += f" {hint}"
        super().__init__(message)


class UnknownProcedureError(UnknownNameError):
    def __init__(self, name: str, valid: Sequence[str]) -> None:
        super().__init__("procedure", name, valid, "Use 'warroom rules' to list them.")


class UnknownParameterError(UnknownNameError):
    def __init__(self, procedure: str, name: str, valid: Sequence[str]) -> None:
        self.procedure = procedure
        super().__init__(f"parameter of {procedure}", name, valid)


class ParameterError(UsageError):
    """A parameter value that is not allowed."""

    def __init__(self, parameter: str, message: str, allowed: str = "") -> None:
        self.parameter = parameter
        self.allowed = allowed
        text = f"parameter {parameter!r}: {message}" if parameter else message
        if allowed:
            text += f" (allowed: {allowed})"
        super().__init__(text)


class DiceError(UsageError):
    """Entered dice that do not fit the resolution."""


class TooFewDiceError(DiceError):
    def __init__(self, missing: int, what: str, rule: str) -> None:
        self.missing = missing
        self.what = what
        self.rule = rule
        super().__init__(
            f"not enough dice: {missing} more needed for {what} ({rule})"
            " — and possibly more after that, depending on the results"
        )


class TooManyDiceError(DiceError):
    def __init__(self, used: int, given: int) -> None:
        self.used = used
        self.given = given
        super().__init__(
            f"too many dice: {given} entered but the resolution used only {used}"
        )


class BadDieError(DiceError):
    def __init__(self, value: object, position: int, sides: int = 6) -> None:
        self.value = value
        self.position = position
        super().__init__(
            f"die #{position} is {value!r}: every die must be a whole number from 1 to {sides}"
        )


class ExactTooLargeError(UsageError):
    """Exact odds would take too long for these parameters."""

    def __init__(self, procedure: str, paths: int) -> None:
        self.procedure = procedure
        self.paths = paths
        super().__init__(
            f"exact odds of {procedure} with these parameters need more than {paths:,} "
            "enumeration paths; use 'warroom simulate' (Monte Carlo) or smaller numbers"
        )


class RuleError(WarroomError):
    """A procedure broke the engine's contract (a bug in a rule, not in the input)."""
