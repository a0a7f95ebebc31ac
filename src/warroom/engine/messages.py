"""Translatable messages: an English template plus arguments, rendered late.

Procedures never build finished sentences. They hand the engine a :class:`Msg` (or a
plain template string), and the text is rendered in the reader's language when it is
shown. The English template is the message id looked up in the catalogs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

Translator = Callable[[str], str]


def _identity(text: str) -> str:
    return text


@dataclass(frozen=True, slots=True)
class Msg:
    """An English template such as ``"{n} dice needing {at}+"`` and its arguments;
    with ``plural`` (see :func:`nmsg`), the singular and plural English forms of a
    message counted by its argument ``n``."""

    template: str
    args: Mapping[str, Any] = field(default_factory=dict)
    plural: str = ""

    def english(self) -> str:
        """The English template for these arguments (the plural form unless n == 1)."""
        if self.plural and self.args.get("n") != 1:
            return self.plural
        return self.template

    def render(self, translate: Translator | None = None) -> str:
        """The text in ``translate``'s language (English without one). A template
        without arguments is shown as it is (never formatted: braces are safe)."""
        tr = translate or _identity
        if self.plural:
            ngettext = getattr(tr, "ngettext", None)
            n = self.args.get("n")
            text = (ngettext(self.template, self.plural, n)
                    if ngettext is not None and isinstance(n, int) else self.english())
        else:
            text = tr(self.template)
        if not self.args:
            return text
        args = {k: self._arg(v, tr) for k, v in self.args.items()}
        try:
            return text.format(**args)
        except (KeyError, IndexError, ValueError, AttributeError):
            # A broken translation must never hide the result: fall back to English.
            return self.english().format(**args)

    def _arg(self, value: Any, tr: Translator) -> Any:
        return _render_arg(value, tr)

    def templates(self) -> Iterator[str]:
        """This template and those of every nested message (the catalog ids it needs)."""
        yield self.template
        for value in self.args.values():
            if isinstance(value, Msg):
                yield from value.templates()

    def __str__(self) -> str:
        return self.render()


def _render_arg(value: Any, tr: Translator) -> Any:
    if isinstance(value, Msg):
        return value.render(tr)
    if isinstance(value, bool):
        return tr("yes") if value else tr("no")
    if isinstance(value, (list, tuple)):
        return " ".join(str(_render_arg(v, tr)) for v in value)
    return value


def msg(template: str, **args: Any) -> Msg:
    """Build a message; the template is also the catalog key (extracted by Babel)."""
    return Msg(template, args)


def nmsg(singular: str, plural: str, /, n: int, **args: Any) -> Msg:
    """A counted message: ``nmsg("{n} hit", "{n} hits", n=k)``. Each language picks
    its form for ``n`` by its catalog's Plural-Forms (Polish: 1 trafienie, 2 trafienia,
    5 trafień); the catalog entry has ``msgid``, ``msgid_plural`` and ``msgstr[i]``."""
    return Msg(singular, {"n": n, **args}, plural)


Text = str | Msg
"""What a procedure may pass where words are shown: a template without arguments, or a
:class:`Msg` (``msg("{unit} is pinned", unit=name)``)."""


def as_msg(text: str | Msg) -> Msg:
    return text if isinstance(text, Msg) else Msg(text)
