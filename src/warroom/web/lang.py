"""Choosing the page language: ``?lang=``, then the cookie, then Accept-Language, all
negotiated by :func:`warroom.i18n.negotiate` (Babel), as the command line's ``--lang``."""

from __future__ import annotations

from warroom import i18n
from warroom.i18n import Translator

COOKIE = "warroom_lang"
LANGUAGE_NAMES: dict[str, str] = {"en": "English", "pl": "Polski", "zh": "中文"}


def from_accept_language(header: str | None) -> str:
    """The best of en/pl/zh in an Accept-Language header (``pl-PL,pl;q=0.9,en;q=0.8``)."""
    return i18n.negotiate(i18n.accept_language(header)) or "en"


def choose(query: str | None, cookie: str | None, accept: str | None) -> str:
    """The page language; an explicit choice wins over the browser's preference."""
    for value in (query, cookie):
        code = i18n.negotiate([value])
        if code is not None:
            return code
    return from_accept_language(accept)


def translator(lang: str) -> Translator:
    return i18n.translator(lang)
