"""Typed errors. Everything a player or caller can get wrong is a :class:`UsageError`.

The CLI turns a :class:`UsageError` into a message on stderr and exit code 2; the web
API turns it into a 422. Anything else escaping is a bug in warroom.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

Translator = Callable[[str], str]


def _identity(text: str) -> str:
    return text


class ErrorText:
    """An English message template with named arguments, rendered in any language.

    The template (``"die #{position} is {value!r}: ..."``) is the catalog's message id;
    ``str()`` gives the English text. Arguments that are themselves an
    :class:`ErrorText` (a kind word like "procedure", a reason, an allowed range) are
    rendered in the same language; other arguments (names, numbers, values the player
    typed) are shown as they are. A template without arguments is never formatted, so
    a finished English sentence with braces in it is safe to wrap.
    """

    __slots__ = ("args", "template")

    def __init__(self, template: str, /, **args: object) -> None:
        self.template = template
        self.args = args

    def render(self, tr: Translator | None = None) -> str:
        """The text in ``tr``'s language (English without one)."""
        translate = tr or _identity
        text = translate(self.template)
        if not self.args:
            return text
        args = {k: _render_arg(v, translate) for k, v in self.args.items()}
        try:
            return text.format(**args)
        except (KeyError, IndexError, ValueError, AttributeError):
            # A broken translation must never hide the error: fall back to English.
            return self.template.format(**args)

    def templates(self) -> Iterator[str]:
        """This template and those of every nested text (the catalog ids it needs)."""
        yield self.template
        for value in self.args.values():
            if isinstance(value, ErrorText):
                yield from value.templates()

    def __str__(self) -> str:
        return self.render()

    def __repr__(self) -> str:
        return f"ErrorText({self.template!r}, **{self.args!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ErrorText):
            return NotImplemented
        return (self.template, self.args) == (other.template, other.args)

    def __hash__(self) -> int:
        return hash(self.template)


def _render_arg(value: object, tr: Translator) -> object:
    if isinstance(value, ErrorText):
        return value.render(tr)
    render = getattr(value, "render", None)  # an engine Msg
    if callable(render) and not isinstance(value, type):
        return render(tr)
    return value


def verbatim(text: str) -> ErrorText:
    """Text shown as it is in every language (names and values people type)."""
    return ErrorText("{text}", text=text)


def as_text(message: str | ErrorText) -> ErrorText:
    """``message`` as an :class:`ErrorText`; a plain string is its own message id."""
    return message if isinstance(message, ErrorText) else ErrorText(message)


class WarroomError(Exception):
    """Base class of every error warroom raises on purpose."""


class UsageError(WarroomError, ValueError):
    """Bad input from the caller: an unknown name, a bad value, wrong dice.

    Raise it with a finished English sentence, or better with a template and its
    arguments (``UsageError("seed: {seed!r} is not a whole number", seed=text)``) or an
    :class:`ErrorText`: ``str(exc)`` is the English text either way, and
    :meth:`translated` renders it in a language.
    """

    http_status = 422  # what the web app answers (a refused link is 403, a missing one 404)

    def __init__(self, message: str | ErrorText = "", /, **args: object) -> None:
        if isinstance(message, ErrorText):
            self.text = ErrorText(message.template, **message.args, **args) if args else message
        else:
            self.text = ErrorText(message, **args)
        super().__init__(str(self.text))

    @property
    def template(self) -> str:
        """The message id of the whole message (nested parts have their own)."""
        return self.text.template

    def translated(self, tr: Translator | None) -> str:
        """The message in ``tr``'s language (``i18n.translator(lang)``)."""
        text: ErrorText | None = getattr(self, "text", None)
        if text is None:  # a subclass that skipped our __init__
            return str(self)
        return text.render(tr)


class UnknownNameError(UsageError):
    """A name (procedure, game system, parameter, special rule...) that does not exist."""

    def __init__(self, kind: str | ErrorText, name: str, valid: Sequence[str],
                 hint: str | ErrorText = "") -> None:
        import difflib

        kind_text = as_text(kind)
        self.kind = str(kind_text)
        self.name = name
        self.valid = tuple(valid)
        close = difflib.get_close_matches(name, self.valid, n=1, cutoff=0.5)
        self.suggestion = close[0] if close else None
        text = self._head(kind_text)
        if self.valid:
            text = ErrorText("{message} Valid: {valid}.", message=text,
                             valid=", ".join(self.valid))
        if hint:
            text = ErrorText("{message} {hint}", message=text, hint=as_text(hint))
        super().__init__(text)

    def _head(self, kind: ErrorText) -> ErrorText:
        """'unknown KIND NAME', with the closest valid name when there is one."""
        if self.suggestion:
            return ErrorText("unknown {kind} {name!r}; did you mean {suggestion!r}?",
                             kind=kind, name=self.name, suggestion=self.suggestion)
        return ErrorText("unknown {kind} {name!r}", kind=kind, name=self.name)


class UnknownProcedureError(UnknownNameError):
    def __init__(self, name: str, valid: Sequence[str]) -> None:
        super().__init__(ErrorText("procedure"), name, valid,
                         ErrorText("Use 'warroom rules' to list them."))


class UnknownParameterError(UnknownNameError):
    def __init__(self, procedure: str, name: str, valid: Sequence[str]) -> None:
        self.procedure = procedure
        super().__init__(f"parameter of {procedure}", name, valid)

    def _head(self, kind: ErrorText) -> ErrorText:
        # one sentence, so that translations can put the procedure where it belongs
        if self.suggestion:
            return ErrorText(
                "unknown parameter of {procedure} {name!r}; did you mean {suggestion!r}?",
                procedure=self.procedure, name=self.name, suggestion=self.suggestion)
        return ErrorText("unknown parameter of {procedure} {name!r}",
                         procedure=self.procedure, name=self.name)


class ParameterError(UsageError):
    """A parameter value that is not allowed.

    ``message`` and ``allowed`` are message ids when they are plain strings (a fixed
    English phrase such as "given twice"), or an :class:`ErrorText` with arguments.
    """

    def __init__(self, parameter: str, message: str | ErrorText,
                 allowed: str | ErrorText = "") -> None:
        self.parameter = parameter
        self.reason = as_text(message)
        self.allowed = str(allowed)
        text = (ErrorText("parameter {parameter!r}: {message}", parameter=parameter,
                          message=self.reason) if parameter else self.reason)
        if self.allowed:
            text = ErrorText("{message} (allowed: {allowed})", message=text,
                             allowed=as_text(allowed))
        super().__init__(text)


class DiceError(UsageError):
    """Entered dice that do not fit the resolution."""


class TooFewDiceError(DiceError):
    def __init__(self, missing: int, what: object, rule: str) -> None:
        """``what`` names the roll: English text, or an engine message (translated
        with the error, including the item it is for, as in "save (team 2)")."""
        self.missing = missing
        self.what = str(what)
        self.rule = rule
        super().__init__(
            "not enough dice: {missing} more needed for {what} ({rule})"
            " — and possibly more after that, depending on the results",
            missing=missing, what=ErrorText(what) if isinstance(what, str) else what,
            rule=rule)


class TooManyDiceError(DiceError):
    def __init__(self, used: int, given: int) -> None:
        self.used = used
        self.given = given
        super().__init__("too many dice: {given} entered but the resolution used only {used}",
                         given=given, used=used)


class BadDieError(DiceError):
    def __init__(self, value: object, position: int, sides: int = 6) -> None:
        self.value = value
        self.position = position
        super().__init__(
            "die #{position} is {value!r}: every die must be a whole number from 1 to {sides}",
            position=position, value=value, sides=sides)


class ExactTooLargeError(UsageError):
    """Exact odds would take too long for these parameters."""

    def __init__(self, procedure: str, paths: int) -> None:
        self.procedure = procedure
        self.paths = paths
        super().__init__(
            "exact odds of {procedure} with these parameters need more than {paths:,} "
            "enumeration paths; use 'warroom simulate' (Monte Carlo) or smaller numbers",
            procedure=procedure, paths=paths)


class RuleError(WarroomError):
    """A procedure broke the engine's contract (a bug in a rule, not in the input)."""
