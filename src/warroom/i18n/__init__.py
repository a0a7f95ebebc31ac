"""Translations. Message ids are the English templates used in procedures and pages.

Catalogs live beside this file as ``<lang>/LC_MESSAGES/<area>.po`` (one file per area:
core, fow, asl, commander, battle, web) and are read with Babel on first use, merged,
with no compile step. A language without a catalog, or a message without a
translation, falls back to English.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import cache
from pathlib import Path

LANGUAGES: tuple[str, ...] = ("en", "pl", "zh")
DOMAIN = "warroom"
CATALOG_DIR = Path(__file__).parent


def normalize(lang: str | None) -> str:
    """'pl_PL', 'PL', 'zh-CN' -> 'pl', 'zh'; anything unknown -> 'en'."""
    if not lang:
        return "en"
    code = lang.strip().replace("-", "_").split("_")[0].lower()
    return code if code in LANGUAGES else "en"


def language(value: str) -> str:
    """A language asked for by name (``--lang``): ``pl``, ``pl_PL``, ``zh-CN``... -> its
    code; one warroom has no catalog for is a usage error naming the ones it has."""
    code = value.strip().replace("-", "_").split("_")[0].lower()
    if code in LANGUAGES:
        return code
    from warroom.errors import UnknownNameError

    raise UnknownNameError("language", value, LANGUAGES)


def from_env() -> str:
    return normalize(os.environ.get("WARROOM_LANG"))


@cache
def catalog(lang: str) -> dict[str, str]:
    """msgid -> translation for ``lang`` (empty for English or a missing catalog)."""
    lang = normalize(lang)
    if lang == "en":
        return {}
    folder = CATALOG_DIR / lang / "LC_MESSAGES"
    if not folder.is_dir():
        return {}
    from babel.messages.pofile import read_po

    out: dict[str, str] = {}
    for path in sorted(folder.glob("*.po")):
        with path.open("rb") as fh:
            cat = read_po(fh, locale=lang, domain=path.stem)
        for message in cat:
            if (message.id and isinstance(message.id, str) and message.string
                    and not message.fuzzy):
                out[message.id] = str(message.string)
    return out


def translator(lang: str | None) -> Callable[[str], str]:
    """A function translating one message id into ``lang``."""
    table = catalog(normalize(lang))
    if not table:
        return _identity
    return lambda text: table.get(text, text)


def _identity(text: str) -> str:
    return text


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
