"""The command line's help and parser errors in the reader's language.

Typer builds the Click command tree from the English help texts written beside each
command; :func:`command` builds it and translates every help text through the catalogs
(the commands', their options' and arguments', and the panel titles), so that
``warroom --lang pl odds --help`` reads in Polish. :func:`usage_error` turns what the
parser refuses (an unknown option, a missing argument, a value of the wrong type) into
a :class:`warroom.errors.UsageError`, told like every other usage error: one line and
exit code 2, or JSON under ``--json``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import typer
from typer._click import exceptions as click_errors  # Typer's own copy of Click's errors
from typer.main import get_command

from warroom import i18n
from warroom.errors import ErrorText, UsageError


class CommandLineError(UsageError):
    """A command line the parser refuses: an unknown option or command, a missing
    argument, a value of the wrong type."""


_BAD_VALUES = (
    (re.compile(r"valid integer|valid int\b"), "give a whole number"),
    (re.compile(r"valid (?:float|number)"), "give a number"),
    (re.compile(r"valid bool"), "give yes or no"),
)
"""What the parser says of a value of the wrong type (Typer's words, through pydantic),
as a message of warroom's catalogs."""


def usage_error(exc: Exception) -> UsageError | None:
    """The parser's refusal ``exc`` as a usage error; ``None`` for what is no mistake
    (``warroom`` alone or a group alone: Typer has printed the help)."""
    if isinstance(exc, click_errors.NoArgsIsHelpError):
        return None
    if isinstance(exc, click_errors.NoSuchOption):
        found = sorted(exc.possibilities or ())
        if found:
            return CommandLineError(ErrorText(
                "no such option: {option}; did you mean {suggestion}?",
                option=exc.option_name, suggestion=found[0]))
        return CommandLineError(ErrorText("no such option: {option}", option=exc.option_name))
    if isinstance(exc, click_errors.MissingParameter):
        return CommandLineError(ErrorText("missing {name}", name=_hint(exc)))
    if isinstance(exc, click_errors.BadParameter):
        for pattern, template in _BAD_VALUES:
            if pattern.search(exc.message):
                return CommandLineError(ErrorText("invalid value for {name}: {reason}",
                                                  name=_hint(exc), reason=ErrorText(template)))
        return CommandLineError(ErrorText("invalid value for {name}", name=_hint(exc)))
    message = str(getattr(exc, "message", "") or exc)
    command = re.match(r"^No such command '(?P<name>[^']*)'", message)
    if command:
        return CommandLineError(ErrorText("no such command: {name}", name=command["name"]))
    extra = re.match(r"^Got unexpected extra arguments? \((?P<words>.*)\)$", message)
    if extra:
        return CommandLineError(ErrorText("unexpected words: {words}", words=extra["words"]))
    return CommandLineError(ErrorText("the command line is not valid: {reason}",
                                      reason=message))


def _hint(exc: Any) -> str:
    param = getattr(exc, "param", None)
    if param is not None:
        names = [*getattr(param, "opts", ())] or [str(getattr(param, "name", "") or "")]
        if getattr(param, "param_type_name", "") == "argument":
            return str(getattr(param, "name", "") or names[0]).upper()
        return " / ".join(names)
    hint = getattr(exc, "param_hint", None)
    if isinstance(hint, (list, tuple)):
        return " / ".join(str(h) for h in hint)
    return str(hint or "")


FRAMING = {"DEFAULT_STRING": "[default: {}]", "REQUIRED_LONG_STRING": "[required]",
           "ENVVAR_STRING": "[env var: {}]"}
"""The words Typer's help panels put beside an option (``typer.rich_utils``' settings of
these names), in English."""


def command(app: typer.Typer, lang: str) -> Any:
    """The Click command of ``app``, every help text in ``lang``."""
    root = get_command(app)
    english = i18n.normalize(lang) == "en"
    _framing((lambda s: s) if english else i18n.translator(lang))
    if not english:
        _translate(root, i18n.translator(lang))
    return root


def _framing(tr: Callable[[str], str]) -> None:
    """Typer's help panels say [required] and [default: ...] in ``tr``'s language. They
    read these words from its module settings when they draw: set for every command
    line, English included, so one language never stays for the next."""
    from typer import rich_utils

    for name, english in FRAMING.items():
        setattr(rich_utils, name, tr(english))


TYPE_WORDS = {"<str>": "text", "<int>": "whole number", "<float>": "number",
              "<bool>": "yes/no", "<path>": "file", "<list[str]>": "texts"}
"""The value types ``--help`` names beside an option (Typer's ``<str>``), by their words."""


def _translate(cmd: Any, tr: i18n.Translator) -> None:
    _usage(cmd, tr)
    for attr in ("help", "short_help", "epilog"):
        text = getattr(cmd, attr, None)
        if isinstance(text, str) and text:
            setattr(cmd, attr, _paragraphs(text, tr))
    for param in getattr(cmd, "params", ()):
        text = getattr(param, "help", None)
        if isinstance(text, str) and text:
            param.help = tr(text)
        _type_word(param, tr)
        if not getattr(param, "rich_help_panel", None):  # unset (Typer: a falsy placeholder)
            param.rich_help_panel = (tr("Arguments") if param.param_type_name == "argument"
                                     else tr("Options"))
    if getattr(cmd, "add_help_option", False) and cmd._help_option is None:
        # Typer makes the help option on first use, with its English help: made here
        from typer._click.decorators import help_option

        help_option(["-h", "--help"])(cmd)
        cmd._help_option = cmd.params.pop()
        cmd._help_option.help = tr("Show this message and exit.")
        cmd._help_option.rich_help_panel = tr("Options")
    for sub in getattr(cmd, "commands", {}).values():
        if not getattr(sub, "rich_help_panel", None):
            sub.rich_help_panel = tr("Commands")
        _translate(sub, tr)


def _usage(cmd: Any, tr: i18n.Translator) -> None:
    """The usage line in ``tr``'s language: its prefix and the placeholders for options
    and subcommands (the command and argument names stay as they are typed)."""
    if getattr(cmd, "options_metavar", None) == "[OPTIONS]":
        cmd.options_metavar = tr("[OPTIONS]")
    if getattr(cmd, "subcommand_metavar", None) == "COMMAND [ARGS]...":
        cmd.subcommand_metavar = tr("COMMAND [ARGS]...")

    def format_usage(ctx: Any, formatter: Any) -> None:
        formatter.write_usage(ctx.command_path, " ".join(cmd.collect_usage_pieces(ctx)),
                              prefix=tr("Usage:") + " ")

    cmd.format_usage = format_usage


def _type_word(param: Any, tr: i18n.Translator) -> None:
    """An option's value type by its word in ``tr``'s language (``<tekst>``)."""
    shown = getattr(param, "display_type", None)
    if not callable(shown):
        return

    def display_type(ctx: Any, shown: Any = shown) -> Any:
        label = shown(ctx)
        return f"<{tr(TYPE_WORDS[label])}>" if label in TYPE_WORDS else label

    param.display_type = display_type


def _paragraphs(text: str, tr: i18n.Translator) -> str:
    """A command's help: each paragraph is one message (a docstring's first line is
    its summary, shown in the list of commands)."""
    import inspect

    return "\n\n".join(tr(" ".join(p.split())) for p in inspect.cleandoc(text).split("\n\n"))
