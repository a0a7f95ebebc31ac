"""Choosing the page language: ``?lang=``, then the cookie, then Accept-Language."""

from __future__ import annotations

from collections.abc import Callable

from warroom import i18n

COOKIE = "warroom_lang"
LANGUAGE_NAMES: dict[str, str] = {"en": "English", "pl": "Polski", "zh": "中文"}


def from_accept_language(header: str | None) -> str:
    """The best of en/pl/zh in an Accept-Language header (``pl-PL,pl;q=0.9,en;q=0.8``)."""
    if not header:
        return "en"
    ranked: list[tuple[float, int, str]] = []
    for index, part in enumerate(header.split(",")):
        piece = part.strip()
        if not piece:
            continue
        tag, _, rest = piece.partition(";")
        quality = 1.0
        rest = rest.strip()
        if rest.startswith("q="):
            try:
                quality = float(rest[2:])
            except ValueError:
                quality = 0.0
        code = tag.strip().replace("-", "_").split("_")[0].lower()
        if code in i18n.LANGUAGES and quality > 0:
            ranked.append((-quality, index, code))
    return sorted(ranked)[0][2] if ranked else "en"


def choose(query: str | None, cookie: str | None, accept: str | None) -> str:
    """The page language; an explicit choice wins over the browser's preference."""
    for value in (query, cookie):
        code = (value or "").strip().replace("-", "_").split("_")[0].lower()
        if code in i18n.LANGUAGES:
            return code
    return from_accept_language(accept)


def translator(lang: str) -> Callable[[str], str]:
    return i18n.translator(lang)
