"""Translations on gettext. Message ids are the English templates used in procedures
and pages.

Catalogs live beside this file as ``<lang>/LC_MESSAGES/<area>.po`` (one domain per
area: core, fow, asl, commander, battle, web, ...). The build compiles each to ``.mo``
(``hatch_build.py``, with Babel; ``pip install -e .`` runs it too) and they are loaded
with :class:`babel.support.Translations`, the domains of a language merged into one.
In a source tree where a ``.po`` is newer than its ``.mo`` (or the ``.mo`` is missing),
that catalog is compiled in memory from the ``.po`` instead, so an edit is never hidden
by a stale build product.

Plurals follow each catalog's ``Plural-Forms`` (Polish has three forms): use
:meth:`Translator.ngettext` or an engine message made with
:func:`warroom.engine.messages.nmsg`. A language without a catalog, or a message
without a translation, falls back to English.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from functools import cache
from gettext import NullTranslations
from io import BytesIO
from pathlib import Path

LANGUAGES: tuple[str, ...] = ("en", "pl", "zh")
DOMAIN = "warroom"
CATALOG_DIR = Path(__file__).parent


def negotiate(preferred: Iterable[str | None]) -> str | None:
    """The first of ``preferred`` (``pl_PL``, ``zh-CN``, ``en``...) warroom has, by
    Babel's locale negotiation; ``None`` when none matches."""
    asked = [p.strip().replace("-", "_").lower() for p in preferred if p and p.strip()]
    if not asked:
        return None
    if asked[0] in LANGUAGES:  # the usual case, a code as warroom names it: no Babel
        return asked[0]
    from babel import negotiate_locale

    found = negotiate_locale(asked, LANGUAGES, sep="_")
    if found is None:  # 'zh_hans_cn' against 'zh': try the language parts
        found = negotiate_locale([a.split("_")[0] for a in asked], LANGUAGES, sep="_")
    return found


def accept_language(header: str | None) -> list[str]:
    """The languages of an HTTP Accept-Language header, most preferred first (``q=0``
    left out), as :func:`negotiate` takes them."""
    if not header:
        return []
    ranked: list[tuple[float, int, str]] = []
    for index, part in enumerate(header.split(",")):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if tag.strip() and quality > 0:
            ranked.append((-quality, index, tag.strip()))
    return [tag for _, _, tag in sorted(ranked)]


def normalize(lang: str | None) -> str:
    """'pl_PL', 'PL', 'zh-CN' -> 'pl', 'zh'; anything unknown -> 'en'."""
    return negotiate([lang]) or "en"


def language(value: str) -> str:
    """A language asked for by name (``--lang``): ``pl``, ``pl_PL``, ``zh-CN``... -> its
    code; one warroom has no catalog for is a usage error naming the ones it has."""
    code = negotiate([value])
    if code is not None:
        return code
    from warroom.errors import UnknownNameError

    raise UnknownNameError("language", value, LANGUAGES)


def from_env() -> str:
    return normalize(os.environ.get("WARROOM_LANG"))


def compile_catalog(po: Path) -> bytes:
    """The ``.mo`` bytes of one ``.po`` file (fuzzy entries left out), with Babel."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with po.open("rb") as fh:
        cat = read_po(fh, locale=po.parent.parent.name, domain=po.stem)
    out = BytesIO()
    write_mo(out, cat, use_fuzzy=False)
    return out.getvalue()


def _domain(po: Path) -> NullTranslations:
    from babel.support import Translations

    mo = po.with_suffix(".mo")
    try:
        fresh = mo.stat().st_mtime >= po.stat().st_mtime
    except FileNotFoundError:
        fresh = False
    if fresh:
        with mo.open("rb") as fh:
            return Translations(fh, domain=po.stem)
    return Translations(BytesIO(compile_catalog(po)), domain=po.stem)


@cache
def translations(lang: str) -> NullTranslations:
    """Every domain of ``lang`` merged into one gettext catalog (empty for English:
    the standard library's, so English output never imports Babel)."""
    lang = normalize(lang)
    folder = CATALOG_DIR / lang / "LC_MESSAGES"
    if lang == "en" or not folder.is_dir():
        return NullTranslations()
    from babel.support import Translations

    merged: Translations | None = None
    for po in sorted(folder.glob("*.po")):
        one = _domain(po)
        if not isinstance(one, Translations):
            continue
        if merged is None:
            merged = one
        else:
            merged.merge(one)
    return merged if merged is not None else NullTranslations()


class Translator:
    """The messages of one language: ``tr(text)`` is gettext; ``tr.ngettext(singular,
    plural, n)`` picks the form for ``n`` by the catalog's Plural-Forms. It is the
    ``Callable[[str], str]`` every renderer takes."""

    __slots__ = ("_t", "lang")

    def __init__(self, lang: str) -> None:
        self.lang = normalize(lang)
        self._t = translations(self.lang)

    def __call__(self, text: str) -> str:
        return self._t.gettext(text) if text else text

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return self._t.ngettext(singular, plural, n)

    def pgettext(self, context: str, text: str) -> str:
        return str(self._t.pgettext(context, text))

    def npgettext(self, context: str, singular: str, plural: str, n: int) -> str:
        return str(self._t.npgettext(context, singular, plural, n))


@cache
def catalog(lang: str) -> dict[str, str]:
    """msgid -> translation for ``lang`` (empty for English or a missing catalog); a
    plural message is listed under its singular id with its first form."""
    table: dict[object, object] = getattr(translations(lang), "_catalog", {})
    out: dict[str, str] = {}
    for key, value in table.items():
        if isinstance(key, str):
            if key and value:
                out[key] = str(value)
        elif isinstance(key, tuple) and key[1] == 0 and value:
            out[str(key[0])] = str(value)
    return out


@cache
def translator(lang: str | None) -> Translator:
    """The :class:`Translator` of ``lang`` (English for ``None`` or an unknown one)."""
    return Translator(normalize(lang))


def _identity(text: str) -> str:
    return text


def format_decimal(value: float, lang: str | None, digits: int = 2,
                   grouped: bool = False) -> str:
    """``value`` with ``digits`` decimals as ``lang`` writes numbers: ``4.00``, ``4,00``;
    ``grouped``, thousands set apart as ``lang`` sets them (``12,750``, ``12 750``)."""
    from babel.numbers import format_decimal as babel_decimal

    pattern = "#,##0" + ("." + "0" * digits if digits else "")
    return babel_decimal(value, format=pattern, locale=normalize(lang),
                         group_separator=grouped)


def label_keys(name: str, scope: str = "") -> list[str]:
    """Catalog ids to try for a parameter, outcome field or choice, most specific first.

    Bare names clash across games (``target`` is a skill in Flames of War and a
    number in ASL), so labels are catalogued under qualified ids: the procedure
    (``fow.shoot.target``), then the game (``fow.target``), then the bare name.
    A choice is named ``param=value`` (``fow.shoot.reroll=misses``) and falls
    back to its bare value.
    """
    keys: list[str] = []
    parts = scope.split(".") if scope else []
    for i in range(len(parts), 0, -1):
        keys.append(".".join(parts[:i]) + "." + name)
    keys.append(name)
    if "=" in name:
        keys.append(name.split("=", 1)[1])
    return keys


def label(tr: Callable[[str], str], name: str, scope: str = "", title: str = "") -> str:
    """``name`` as people read it in ``tr``'s language: its catalogued label, else its
    declared English ``title`` translated, else the name with spaces for underscores."""
    keys = label_keys(name, scope)
    for key in keys:
        text = tr(key)
        if text != key:
            return text
    if title:
        return tr(title)
    bare = name.split("=", 1)[1] if "=" in name else name
    return bare.replace("_", " ")


def field_label(tr: Callable[[str], str], name: str, scope: str) -> str:
    """A parameter or outcome field as people read it: its catalogued label in the active
    language (procedure, game, then bare id; see :func:`label`), else the
    name itself, so English output shows names as they are typed and given in JSON."""
    if any(tr(key) != key for key in label_keys(name, scope)):
        return label(tr, name, scope)
    return name


RUNNING: dict[str, str] = {}
"""The language the running command line works in (``lang``: its ``--lang``, else
``WARROOM_LANG``), set by :mod:`warroom.cli` as a command starts; empty elsewhere."""


def running_translator() -> Callable[[str], str]:
    """The translator of the command line's language (:data:`RUNNING`), else of
    ``WARROOM_LANG``: for output made without a translator handed down."""
    return translator(RUNNING.get("lang") or from_env())
