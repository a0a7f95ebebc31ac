"""``pybabel extract`` with the project's configuration (babel.cfg, keywords in
pyproject.toml) finds the messages of the sources and the page templates, and every one
it finds is translated in Polish and Chinese."""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path

import pytest
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_keywords, parse_mapping_cfg

from warroom import i18n
from warroom.i18n import templates

ROOT = Path(__file__).resolve().parents[1]

# Babel's Python extractor joins the two literals of `msg("one die" if k == 1 else
# "{k} dice")` into one id that exists nowhere, so such a hand-forked message can never be
# translated. Counted messages are nmsg(singular, plural, n=...) (Polish picks one of three
# forms, Chinese has one) and a choice between two messages is two calls
# (`Msg("passed") if ok else Msg("failed")`). Every fork found has been converted; a
# message that truly cannot be goes here with the reason, and a new fork fails the test
# below (its joined id has no translation).
HAND_FORKED: set[str] = set()
# English-only on purpose: a broken battle log (a bug report, not a player's mistake) and
# the JSON API's details, which stay English (web/app.py); kept out of the templates too
ENGLISH_ONLY = templates.ENGLISH_ONLY


@cache
def raw_messages() -> tuple[tuple[str, int, str | tuple[str, ...]], ...]:
    """(file, line, message) as ``pybabel extract`` finds them with the project's
    configuration; a plural (ngettext, nmsg) is the tuple of its ids."""
    with (ROOT / "babel.cfg").open(encoding="utf-8") as fh:
        method_map, options_map = parse_mapping_cfg(fh)
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    keywords = dict(DEFAULT_KEYWORDS)
    keywords.update(parse_keywords(config["tool"]["warroom"]["babel"]["keywords"]))
    # a message with a context (pgettext) is keyed as gettext keys it: context \x04 text
    return tuple((filename, lineno, f"{context}\x04{message}" if context else message)
                 for filename, lineno, message, _comments, context
                 in extract_from_dir(str(ROOT), method_map, options_map, keywords=keywords))


def extracted() -> dict[str, str]:
    """message id -> where it was found."""
    found: dict[str, str] = {}
    for filename, lineno, message in raw_messages():
        msgid = message[0] if isinstance(message, tuple) else message
        if msgid:
            found.setdefault(str(msgid), f"{filename}:{lineno}")
    return found


@pytest.fixture(scope="module")
def messages() -> dict[str, str]:
    return extracted()


def test_extraction_finds_sources_and_templates(messages: dict[str, str]) -> None:
    places = {where.split(":")[0] for where in messages.values()}
    assert any(p.endswith(".html") for p in places)        # the templates, via jinja2.ext.i18n
    assert any(p.startswith("src/warroom/games/") for p in places)
    assert "one hit against hits value {value}: shot down" in messages  # nmsg's singular
    assert "unknown {kind} {name!r}; did you mean {suggestion!r}?" in messages


@pytest.mark.parametrize("lang", ["pl", "zh"])
def test_every_extracted_message_is_translated(messages: dict[str, str], lang: str) -> None:
    table = i18n.catalog(lang)
    missing = sorted(f"{where}: {msgid}" for msgid, where in messages.items()
                     if msgid not in table and msgid not in HAND_FORKED
                     and templates.translatable(msgid))
    assert not missing, missing



def test_counted_roll_texts_are_extracted_as_plurals() -> None:
    """The roll driver's dice counts are ngettext plurals, found by ``pybabel extract``
    with their plural id, never as a joined hand fork."""
    plurals = {tuple(message) for filename, _line, message in raw_messages()
               if isinstance(message, tuple) and filename.startswith("src/warroom/engine/")}
    assert ("{what}: one die needing {at}+", "{what}: {n} dice needing {at}+") in plurals
    assert ("{what}: one die", "{what}: {n} dice") in plurals


@pytest.mark.parametrize(("lang", "n", "text"), [
    ("en", 1, "dice: one die needing 4+, a miss re-rolled"),
    ("en", 3, "dice: 3 dice needing 4+, misses re-rolled"),
    ("pl", 1, "kości: jedna kość, wymagany rzut 4+, przerzut nieudanej"),
    ("pl", 3, "kości: 3 kości, wymagany rzut 4+, przerzut nieudanych"),   # 2-4
    ("pl", 5, "kości: 5 kości, wymagany rzut 4+, przerzut nieudanych"),   # 5-21
    ("zh", 1, "骰子：1 颗骰子，需要 4+，失败的重掷"),
    ("zh", 5, "骰子：5 颗骰子，需要 4+，失败的重掷"),
])
def test_dice_counts_read_in_each_language(lang: str, n: int, text: str) -> None:
    import warroom

    # seed 1 leaves at least one miss for each n here, so the re-roll text is shown
    res = warroom.roll("demo.pool", {"dice": n, "reroll": "misses"}, seed=1)
    assert res.steps[0].text.render(i18n.translator(lang)) == text
