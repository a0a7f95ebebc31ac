"""Translatable messages: an English template plus arguments, rendered late.

Procedures never build finished sentences. They hand the engine a :class:`Msg` (or a
plain template string), and the text is rendered in the reader's language when it is
shown. The English template is the message id looked up in the catalogs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

Translator = Callable[[str], str]


def _identity(text: str) -> str:
    return text


@dataclass(frozen=True, slots=True)
class Msg:
    """An English template such as ``"{n} dice needing {at}+"`` and its arguments."""

    template: str
    args: Mapping[str, Any] = field(default_factory=dict)

    def render(self, translate: Translator | None = None) -> str:
        tr = translate or _identity
        args = {k: _render_arg(v, tr) for k, v in self.args.items()}
        text = tr(self.template)
        try:
            return text.format(**args)
        except (KeyError, IndexError, ValueError):
            # A broken translation must never hide the result: fall back to English.
            return self.template.format(**args)

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


Text = str | Msg
"""What a procedure may pass where words are shown: a template without arguments, or a
:class:`Msg` (``msg("team with {k} hits", k=3)``)."""


def as_msg(text: str | Msg) -> Msg:
    return text if isinstance(text, Msg) else Msg(text)
