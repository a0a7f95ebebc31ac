"""``pybabel extract`` with the project's configuration (babel.cfg, keywords in
pyproject.toml) finds the messages of the sources and the page templates, and every one
it finds is translated in Polish and Chinese."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_keywords, parse_mapping_cfg

from warroom import i18n

ROOT = Path(__file__).resolve().parents[1]

# Babel's Python extractor joins the two literals of `msg("one die" if k == 1 else
# "{k} dice")` into one id that exists nowhere. These calls fork English plurals (or
# pick a message) by hand; each should become nmsg(...) or two calls, then leave this
# list; a new one fails the test below.
HAND_FORKED = {
    "{what}: one die{what}: {k} dice",
    "passedfailed",
    "{what}: one die needing {at}+{what}: {n} dice needing {at}+",
    "{what}: one die needing {at}+, a miss re-rolled{what}: {n} dice needing {at}+, "
    "misses re-rolled",
    "{what}: one die needing {at}+, a success must be re-rolled{what}: {n} dice needing "
    "{at}+, successes must be re-rolled",
    "inta whole number",
    "suppressedsuppressednot suppressed",
    "Time on TargetMike Target",
    "donor {item!r}: must keep at least {keep} tankstankdonor {item!r}: must keep at least "
    "{keep} teams",
    "tanktankother",
    "a 6, detectednot detected",
}
# English-only on purpose: a broken battle log (a bug report, not a player's mistake) and
# the JSON API's details, which stay English (web/app.py)
ENGLISH_ONLY = {
    "a second 'created' event", "undoes the creation",
    "a battle log must start with its 'created' event", "empty battle log",
    "dice: give at least one die, e.g. 3,5,6 (or leave it out and let warroom roll)",
    "give either dice or seed, not both", "an undo is folded by popping its target",
}


def extracted() -> dict[str, str]:
    """message id -> where it was found."""
    with (ROOT / "babel.cfg").open(encoding="utf-8") as fh:
        method_map, options_map = parse_mapping_cfg(fh)
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    keywords = dict(DEFAULT_KEYWORDS)
    keywords.update(parse_keywords(config["tool"]["warroom"]["babel"]["keywords"]))
    found: dict[str, str] = {}
    for filename, lineno, message, _comments, _context in extract_from_dir(
            str(ROOT), method_map, options_map, keywords=keywords):
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
                     if msgid not in table and msgid not in HAND_FORKED | ENGLISH_ONLY
                     and re.search(r"[A-Za-z]", re.sub(r"\{[^{}]*\}", "", msgid)))
    assert not missing, missing

