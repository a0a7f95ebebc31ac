"""Parameters: describing a procedure's schema, and parsing values typed by people."""

from __future__ import annotations

import enum
import functools
import types
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

import annotated_types
from pydantic import BaseModel, ValidationError
from pydantic_core import PydanticUndefined

from warroom.engine.procedure import Params, Procedure
from warroom.errors import ErrorText, ParameterError, UnknownParameterError, UsageError, verbatim

TypeName = Literal["int", "float", "fraction", "bool", "str", "choice", "list"]


@dataclass(frozen=True, slots=True)
class ParamSpec:
    name: str
    type: TypeName
    default: Any
    required: bool
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    description: str = ""
    examples: tuple[Any, ...] = ()
    titles: tuple[tuple[str, str], ...] = ()  # choice -> English display title

    def title(self, choice: str) -> str:
        """The display title declared for ``choice`` ('' when it has none)."""
        return dict(self.titles).get(choice, "")

    def allowed(self) -> str:
        return str(self.allowed_text())

    def allowed_text(self) -> ErrorText:
        """What the parameter accepts, as a translatable message (see :meth:`allowed`)."""
        if self.choices:
            return verbatim(", ".join(self.choices))
        if self.type == "bool":
            return verbatim("true/false, yes/no, 1/0")
        lo = "" if self.minimum is None else _num(self.minimum)
        hi = "" if self.maximum is None else _num(self.maximum)
        word = (ErrorText("a whole number") if self.type == "int" else
                ErrorText("a number") if self.type in ("float", "fraction") else
                ErrorText("text"))
        if lo and hi:
            return ErrorText("{word} from {lo} to {hi}", word=word, lo=lo, hi=hi)
        if lo:
            return ErrorText("{word}, at least {lo}", word=word, lo=lo)
        if hi:
            return ErrorText("{word}, at most {hi}", word=word, hi=hi)
        return word

    def to_dict(self) -> dict[str, Any]:
        default = self.default
        if isinstance(default, Fraction):
            default = float(default)
        if isinstance(default, enum.Enum):
            default = default.value
        if isinstance(default, tuple):
            default = list(default)
        out: dict[str, Any] = {
            "name": self.name,
            "type": self.type,
            "default": default,
            "required": self.required,
            "description": self.description,
        }
        if self.choices:
            out["choices"] = list(self.choices)
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.maximum is not None:
            out["maximum"] = self.maximum
        if self.examples:
            out["examples"] = list(self.examples)
        return out


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


def _unwrap_optional(ann: Any) -> Any:
    origin = typing.get_origin(ann)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(ann) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return ann


def describe(model: type[BaseModel]) -> list[ParamSpec]:
    """The schema of a parameter model, as players and tests need it."""
    return list(_describe(model))


@functools.cache
def _describe(model: type[BaseModel]) -> tuple[ParamSpec, ...]:
    specs: list[ParamSpec] = []
    for name, info in model.model_fields.items():
        ann = _unwrap_optional(info.annotation)
        choices: tuple[str, ...] = ()
        kind: TypeName
        origin = typing.get_origin(ann)
        if origin is Literal:
            kind = "choice"
            choices = tuple(str(a) for a in typing.get_args(ann))
        elif isinstance(ann, type) and issubclass(ann, enum.Enum):
            kind = "choice"
            choices = tuple(str(m.value) for m in ann)
        elif ann is bool:
            kind = "bool"
        elif ann is int:
            kind = "int"
        elif ann is float:
            kind = "float"
        elif ann is Fraction:
            kind = "fraction"
        elif origin in (list, tuple) or ann in (list, tuple):
            kind = "list"
            inner = typing.get_args(ann)
            if inner and typing.get_origin(inner[0]) is Literal:
                choices = tuple(str(a) for a in typing.get_args(inner[0]))
        else:
            kind = "str"
        lo = hi = None
        for meta in info.metadata:
            if isinstance(meta, annotated_types.Ge):
                lo = float(meta.ge)  # type: ignore[arg-type]
            elif isinstance(meta, annotated_types.Gt):
                lo = float(meta.gt) + (1 if kind == "int" else 0)  # type: ignore[arg-type]
            elif isinstance(meta, annotated_types.Le):
                hi = float(meta.le)  # type: ignore[arg-type]
            elif isinstance(meta, annotated_types.Lt):
                hi = float(meta.lt) - (1 if kind == "int" else 0)  # type: ignore[arg-type]
        extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
        if kind == "list" and not choices:
            choices = _extra_choices(extra)
        titles = _extra_titles(extra)
        required = info.default is PydanticUndefined and info.default_factory is None
        default = None if required else info.get_default(call_default_factory=True)
        specs.append(ParamSpec(name, kind, default, required, choices, lo, hi,
                               info.description or "", tuple(info.examples or ()), titles))
    return tuple(specs)


def _extra_choices(extra: Mapping[str, Any]) -> tuple[str, ...]:
    """Allowed items of a list parameter, declared in ``json_schema_extra`` either as
    ``{"choices": [...]}`` or ``{"choices_from": "module:function"}``."""
    if isinstance(extra.get("choices"), (list, tuple)):
        return tuple(str(c) for c in extra["choices"])
    source = _load(extra.get("choices_from"))
    return tuple(str(c) for c in source()) if source else ()


def _extra_titles(extra: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """Display titles of choices, declared as ``{"titles_from": "module:function"}``
    (a function returning ``{choice: English title}``)."""
    source = _load(extra.get("titles_from"))
    return tuple((str(k), str(v)) for k, v in source().items()) if source else ()


def _load(source: Any) -> Any:
    """The function named ``"module:function"`` (None for anything else)."""
    if not (isinstance(source, str) and ":" in source):
        return None
    import importlib

    module, _, attr = source.partition(":")
    return getattr(importlib.import_module(module), attr)


def parse_assignments(words: Sequence[str]) -> dict[str, str]:
    """``["dice=8", "at=4"]`` -> ``{"dice": "8", "at": "4"}``."""
    out: dict[str, str] = {}
    for word in words:
        if "=" not in word:
            raise ParameterError("", ErrorText("expected key=value, got {word!r}", word=word))
        key, _, value = word.partition("=")
        key = key.strip().replace("-", "_")
        if not key:
            raise ParameterError("", ErrorText("expected key=value, got {word!r}", word=word))
        if key in out:
            raise ParameterError(key, "given twice")
        out[key] = value.strip()
    return out


def validate(proc: Procedure, raw: Mapping[str, Any]) -> Params:
    """Check and convert raw values (strings from the CLI, JSON values from the web)."""
    names = proc.param_names
    for key in raw:
        if key not in names:
            raise UnknownParameterError(proc.id, key, list(proc.params.model_fields))
    try:
        return proc.params.model_validate(raw)
    except ValidationError as exc:
        specs = {s.name: s for s in _describe(proc.params)}
        raise _to_parameter_error(exc, specs) from None


def _to_parameter_error(exc: ValidationError, specs: Mapping[str, ParamSpec]) -> ParameterError:
    err = exc.errors(include_url=False)[0]
    loc = err.get("loc") or ()
    name = str(loc[0]) if loc else ""
    message = str(err.get("msg", "invalid value"))
    if message.startswith("Value error, "):
        message = message[len("Value error, "):]
    reason = error_reason(err, message)
    if "input" in err and name and err.get("type") != "missing":
        reason = ErrorText("{value!r} is not valid: {reason}", value=err["input"], reason=reason)
    spec = specs.get(name)
    allowed: ErrorText | str = spec.allowed_text() if spec else ""
    if "Valid:" in message:  # the validator already listed the valid names
        allowed = ""
    if spec and spec.type == "str" and not spec.choices:
        allowed = ""  # "(allowed: text)" says nothing the reason has not said
    return ParameterError(name, reason, allowed)


# pydantic's messages that carry numbers or names (the others are fixed message ids)
_PYDANTIC_TEMPLATES: dict[str, str] = {
    "greater_than_equal": "Input should be greater than or equal to {ge}",
    "greater_than": "Input should be greater than {gt}",
    "less_than_equal": "Input should be less than or equal to {le}",
    "less_than": "Input should be less than {lt}",
    "literal_error": "Input should be {expected}",
    "enum": "Input should be {expected}",
}


def error_reason(err: Mapping[str, Any], message: str) -> ErrorText:
    """The translatable form of one pydantic error's message (English: ``message``)."""
    ctx = err.get("ctx") or {}
    error = ctx.get("error")
    if isinstance(error, UsageError) and str(error) == message:
        return error.text  # a validator raised one of ours: keep its template
    template = _PYDANTIC_TEMPLATES.get(str(err.get("type")))
    if template:
        args: dict[str, object] = dict(ctx)
        expected = args.get("expected")
        if isinstance(expected, str):
            head, sep, last = expected.rpartition(" or ")
            args["expected"] = (ErrorText("{choices} or {last}", choices=head, last=last)
                                if sep else verbatim(expected))
        try:
            text = ErrorText(template, **args)
            if str(text) == message:
                return text
        except (KeyError, IndexError, ValueError):
            pass
    return ErrorText(message)


_JSON_SCALARS = frozenset({int, str, bool, float, type(None)})


def normalized(params: Params) -> dict[str, Any]:
    """Parameters as plain JSON values."""
    values = params.__dict__
    if all(type(v) in _JSON_SCALARS for v in values.values()):
        return dict(values)  # already plain JSON values: skip the serializer
    return dict(params.model_dump(mode="json"))


def whole_number(text: str, what: str, item: str, lo: int, hi: int) -> int:
    """One number inside a parameter written as text (``squad:7:3``, ``6:10:3``): ``what``
    it is, in ``item``, from ``lo`` to ``hi``; a usage error naming the item otherwise."""
    try:
        value = int(text)
    except ValueError:
        raise UsageError("{item!r}: {what} must be a whole number, got {text!r}", item=item,
                         what=ErrorText(what), text=text) from None
    if not lo <= value <= hi:
        raise UsageError("{item!r}: {what} must be from {lo} to {hi}, got {value}", item=item,
                         what=ErrorText(what), lo=lo, hi=hi, value=value)
    return value


def text_items(text: str, one: str, many: str, example: str, most: int) -> list[str]:
    """The comma-separated items of a parameter written as text (a stack's units, a
    platoon's weapons): at least one (``one`` names it, ``example`` shows one) and at
    most ``most`` (``many`` names them); a usage error otherwise."""
    items = [item.strip() for item in text.split(",") if item.strip()]
    if not items:
        raise UsageError("give at least one {what}, e.g. {example}", what=ErrorText(one),
                         example=example)
    if len(items) > most:
        raise UsageError("at most {most} {what}, got {count}", most=most,
                         what=ErrorText(many), count=len(items))
    return items
