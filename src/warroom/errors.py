"""Typed errors. Everything a player or caller can get wrong is a :class:`UsageError`.

The CLI turns a :class:`UsageError` into a message on stderr and exit code 2; the web
API turns it into a 422. Anything else escaping is a bug in warroom.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from warroom.engine.messages import Msg, Translator


class ErrorText(Msg):
    """An error message: an English template with named arguments, rendered in any
    language (an engine :class:`~warroom.engine.messages.Msg` with an error's rules).

    The template (``"die #{position} is {value!r}: ..."``) is the catalog's message id;
    ``str()`` gives the English text. Arguments that are messages themselves (a kind
    word like "procedure", a reason, an allowed range, a roll's name) are rendered in the
    same language; other arguments (names, numbers, values the player typed) are shown
    exactly as they are, so ``{value!r}`` of ``True`` stays ``True``.
    """

    def __init__(self, template: str, /, **args: object) -> None:
        object.__setattr__(self, "template", template)
        object.__setattr__(self, "args", args)
        object.__setattr__(self, "plural", "")

    def _arg(self, value: Any, tr: Translator) -> Any:
        return value.render(tr) if isinstance(value, Msg) else value

    def __repr__(self) -> str:
        return f"ErrorText({self.template!r}, **{self.args!r})"

    def __hash__(self) -> int:
        return hash(self.template)


def counted(singular: str, plural: str, /, n: int | None, **args: object) -> ErrorText:
    """An error message that prints a count (``"at most {n} characters"``): each language
    picks its form for ``n`` by its catalog's plural forms, as
    :func:`warroom.engine.messages.nmsg` does for steps."""
    return _with_plural(ErrorText(singular, n=n, **args), plural)


def _with_plural(text: ErrorText, plural: str) -> ErrorText:
    object.__setattr__(text, "plural", plural)
    return text


def verbatim(text: str) -> ErrorText:
    """Text shown as it is in every language (names and values people type)."""
    return ErrorText("{text}", text=text)


def as_text(message: str | ErrorText) -> ErrorText:
    """``message`` as an :class:`ErrorText`; a plain string is its own message id."""
    return message if isinstance(message, ErrorText) else ErrorText(message)


class WarroomError(Exception):
    """Base class of every error warroom raises on purpose.

    Every class has a stable machine-readable :attr:`code` (scripts match it instead of
    English text): its name in snake case without ``Error`` (``UnknownProcedureError``
    -> ``unknown_procedure``), unless the class sets ``code`` itself."""

    code: str = "warroom"
    """A stable machine-readable name; a class or (rarely) an instance may set its own."""
    parameter: str | None = None
    """The parameter the error is about, where there is one."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "code" not in cls.__dict__:
            name = cls.__name__.removesuffix("Error") or cls.__name__
            cls.code = re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


SHOWN = 40
"""At most this many characters of a value someone sent are echoed in an error."""


def clip(value: Any, most: int = SHOWN) -> Any:
    """A value someone sent, cut to a short prefix when it is long (errors echo it)."""
    if isinstance(value, str):
        return value if len(value) <= most else value[:most] + "…"
    if isinstance(value, bytes):
        return value if len(value) <= most else value[:most] + b"..."
    if isinstance(value, (list, tuple, dict, set)) and len(repr(value)) > most:
        return repr(value)[:most] + "…"
    return value


KEPT = frozenset({"valid", "url"})
"""Values an error shows whole: the list of valid names, and a database's address (the
server's own setting, its password masked; cut short it names no database)."""


def clipped(text: ErrorText) -> ErrorText:
    """``text`` with every long value it echoes cut short (nested messages too; those
    named in :data:`KEPT` are kept whole)."""
    args = {k: (clipped(v) if isinstance(v, ErrorText) else v if k in KEPT else clip(v))
            for k, v in text.args.items()}
    return _with_plural(ErrorText(text.template, **args), text.plural)


def error_message(exc: WarroomError, tr: Translator | None = None) -> str:
    """An error in ``tr``'s language (English without it): what the CLI, the API and the
    pages show. A usage error echoes only a short prefix of each value it names."""
    if not isinstance(exc, UsageError):
        return str(exc)  # not the caller's input (a verdict, a broken rule): all of it
    text = getattr(exc, "text", None)
    if not isinstance(text, ErrorText):
        return str(clip(str(exc), 300))
    return clipped(text).render(tr)


def error_json(exc: WarroomError, tr: Translator | None = None) -> dict[str, Any]:
    """``{"error": {"code", "message", "parameter"}}``: what the CLI prints under
    ``--json`` (the message in ``tr``'s language, English without one)."""
    return {"error": {"code": exc.code, "message": error_message(exc, tr),
                      "parameter": clip(exc.parameter)}}


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
            self.text = (_with_plural(ErrorText(message.template, **message.args, **args),
                                      message.plural) if args else message)
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
        kind_text = as_text(kind)
        self.kind = str(kind_text)
        self.name = name
        self.valid = tuple(valid)
        self.suggestion = self._closest(name, self.valid)
        text = self._head(kind_text)
        if self.valid:
            text = ErrorText("{message} Valid: {valid}.", message=text,
                             valid=", ".join(self.valid))
        if hint:
            text = ErrorText("{message} {hint}", message=text, hint=as_text(hint))
        super().__init__(text)

    @staticmethod
    def _closest(name: str, valid: Sequence[str]) -> str | None:
        import difflib

        close = difflib.get_close_matches(name, valid, n=1, cutoff=0.5)
        return close[0] if close else None

    def _head(self, kind: ErrorText) -> ErrorText:
        """'unknown KIND NAME', with the closest valid name when there is one."""
        if self.suggestion:
            return ErrorText("unknown {kind} {name!r}; did you mean {suggestion!r}?",
                             kind=kind, name=self.name, suggestion=self.suggestion)
        return ErrorText("unknown {kind} {name!r}.", kind=kind, name=self.name)


class UnknownProcedureError(UnknownNameError):
    def __init__(self, name: str, valid: Sequence[str]) -> None:
        super().__init__(ErrorText("procedure"), name, valid,
                         ErrorText("Use 'warroom rules' to list them."))

    @staticmethod
    def _closest(name: str, valid: Sequence[str]) -> str | None:
        # 'bkc.xyz' shares only its game with 'bkc.fire': compare the names within the
        # game first, then whole ids, each needing a closer match than other names do
        import difflib

        game, _, rest = name.partition(".")
        same = {v.partition(".")[2]: v for v in valid if v.partition(".")[0] == game}
        close = difflib.get_close_matches(rest, list(same), n=1, cutoff=0.6)
        if close:
            return same[close[0]]
        close = difflib.get_close_matches(name, valid, n=1, cutoff=0.6)
        return close[0] if close else None


class UnknownParameterError(UnknownNameError):
    def __init__(self, procedure: str, name: str, valid: Sequence[str]) -> None:
        self.procedure = procedure
        self.parameter = name
        super().__init__(f"parameter of {procedure}", name, valid)

    def _head(self, kind: ErrorText) -> ErrorText:
        # one sentence, so that translations can put the procedure where it belongs
        if self.suggestion:
            return ErrorText(
                "unknown parameter of {procedure} {name!r}; did you mean {suggestion!r}?",
                procedure=self.procedure, name=self.name, suggestion=self.suggestion)
        return ErrorText("unknown parameter of {procedure} {name!r}.",
                         procedure=self.procedure, name=self.name)


class ParameterError(UsageError):
    """A parameter value that is not allowed.

    ``message`` and ``allowed`` are message ids when they are plain strings (a fixed
    English phrase such as "given twice"), or an :class:`ErrorText` with arguments.
    """

    code = "invalid_parameter"

    def __init__(self, parameter: str, message: str | ErrorText,
                 allowed: str | ErrorText = "") -> None:
        self.parameter = parameter or None
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
        """``what`` names the roll as the step shows it: English text, or an engine
        message (translated with the error, including the item it is for, as in "save
        (team 2)"). ``rule`` is the step's internal id (``fow.shoot.save``), kept for
        callers but never shown to a player."""
        self.missing = missing
        self.what = str(what)
        self.rule = rule
        super().__init__(
            "not enough dice: {missing} more needed for {what}"
            " — and possibly more after that, depending on the results",
            missing=missing, what=ErrorText(what) if isinstance(what, str) else what)


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


class InvalidTextError(UsageError):
    """Text that is not valid Unicode (a lone surrogate: half of a character), in a
    field, a key or a value: refused naming where it is (422 ``invalid_text``; exit 2)."""

    code = "invalid_text"

    def __init__(self, where: str) -> None:
        self.parameter = where.split(".", 1)[0].split("[", 1)[0] or None
        super().__init__("{where}: the text is not valid Unicode (it holds half of a "
                         "character, a lone surrogate)", where=where)


def bad_text(data: object, where: str = "") -> str | None:
    """Where the first lone surrogate in ``data`` (text, or lists and mappings of it,
    keys included) is: a path such as ``params.range_cm``, ``dice[2]`` or ``params``
    (for a key); None when all of it is valid Unicode."""
    stack: list[tuple[object, str]] = [(data, where)]
    while stack:
        item, at = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return at or "the request"
        elif isinstance(item, dict):
            for key, value in item.items():
                if isinstance(key, str) and bad_text(key) is not None:
                    return at or "the request"
                stack.append((value, f"{at}.{key}" if at else str(key)))
        elif isinstance(item, (list, tuple)):
            stack.extend((v, f"{at}[{i}]") for i, v in enumerate(item))
    return None


def check_text(data: object, where: str = "") -> None:
    """Refuse ``data`` (:class:`InvalidTextError`) if any text in it is not valid
    Unicode (:func:`bad_text`)."""
    found = bad_text(data, where)
    if found is not None:
        raise InvalidTextError(found)
