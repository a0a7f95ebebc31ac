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
