"""The message templates (``.pot``), one per catalog domain, that ``make messages`` writes
to ``src/warroom/i18n/pot/`` and ``pybabel update`` merges into the catalogs.

A domain's template holds every message of the domain: those ``pybabel extract`` finds
in the sources and the page templates (``babel.cfg``, the keywords under
``[tool.warroom.babel]`` in ``pyproject.toml``), and those the domain's catalogs hold
that no extractor can see (procedure titles and notes, parameter labels and table names
built from data, the command line's help paragraphs). A message found in the sources
but in no catalog goes to the domain of its source file (:data:`AREAS`); ``pybabel
update`` then adds it, untranslated, to the Polish and the Chinese catalog alike, and
the tests refuse it until it is translated in both. A counted message (``nmsg``,
``ngettext``) carries its plural id, so each catalog gives it every plural form of its
language.

Run it as ``python -m warroom.i18n.templates [ROOT]`` (what ``make messages`` does); it
writes nothing when imported.
"""

from __future__ import annotations

import re
import sys
import tomllib
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from babel.messages.catalog import Catalog

from warroom import i18n

POT_DIR = i18n.CATALOG_DIR / "pot"
"""Where the committed templates live, one ``<domain>.pot`` per catalog domain."""

AREAS: tuple[tuple[str, str], ...] = (
    ("src/warroom/games/fow/special_rules/", "fow_special"),
    ("src/warroom/games/fow/", "fow"),
    ("src/warroom/games/asl/", "asl"),
    ("src/warroom/games/commander/", "commander"),
    ("src/warroom/units/", "units"),
    ("src/warroom/battle/", "battle"),
    ("src/warroom/web/", "web"),
    ("src/warroom/errors.py", "errors"),
    ("src/warroom/cli", "cli"),
)
"""The domain of a new message by where it was found, first match (else ``core``)."""

STABLE_DATE = datetime(2026, 1, 1, tzinfo=UTC)
"""The creation date every template states, so that one changes only with its messages."""

MessageId = str | tuple[str, str]
"""A message id: its text, or for a counted message (singular, plural); a message with
a context (``pgettext``) is ``"context\x04text"``, as gettext keys it."""

CTX = "\x04"

ENGLISH_ONLY: frozenset[str] = frozenset({
    # a broken battle log: a bug report, not a player's mistake
    "a second 'created' event", "undoes the creation",
    "a battle log must start with its 'created' event", "empty battle log",
    "an undo is folded by popping its target",
    # the JSON API's own details, which stay English (web/app.py)
    "dice: give at least one die, e.g. 3,5,6 (or leave it out and let warroom roll)",
    "give either dice or seed, not both",
})
"""Messages the sources mark but no reader sees translated: left out of the templates."""

_FIELD = re.compile(r"\{[^{}]*\}")


def translatable(msgid: str) -> bool:
    """Whether a message found in the sources is one to translate: it has words besides
    its replacement fields (``"{a}, {b}"`` has none) and is not :data:`ENGLISH_ONLY`."""
    text = msgid.rpartition(CTX)[2]
    return msgid not in ENGLISH_ONLY and re.search(r"[A-Za-z]", _FIELD.sub("", text)) is not None


def area(path: str) -> str:
    """The catalog domain of a source file (a path relative to the project root)."""
    return next((domain for prefix, domain in AREAS if path.startswith(prefix)), "core")


def extracted(root: Path) -> dict[MessageId, str]:
    """Every message ``pybabel extract`` finds under ``root`` with the project's
    configuration, and the file it was first found in."""
    from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
    from babel.messages.frontend import parse_keywords, parse_mapping_cfg

    with (root / "babel.cfg").open(encoding="utf-8") as fh:
        method_map, options_map = parse_mapping_cfg(fh)  # type: ignore[no-untyped-call]
    config = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    keywords = dict(DEFAULT_KEYWORDS)
    keywords.update(parse_keywords(config["tool"]["warroom"]["babel"]["keywords"]))
    found: dict[MessageId, str] = {}
    for filename, _line, message, _comments, context in extract_from_dir(
            str(root), method_map, options_map, keywords=keywords):
        if context and isinstance(message, str) and message:
            found.setdefault(f"{context}{CTX}{message}", filename)
        elif isinstance(message, (tuple, list)):
            if len(message) >= 2 and message[0] and message[1]:
                found.setdefault((str(message[0]), str(message[1])), filename)
        elif message:
            found.setdefault(str(message), filename)
    return found


def catalog_ids(lang: str, domain: str) -> Iterator[MessageId]:
    """The message ids of one catalog (``<lang>/LC_MESSAGES/<domain>.po``)."""
    from babel.messages.pofile import read_po

    path = i18n.CATALOG_DIR / lang / "LC_MESSAGES" / f"{domain}.po"
    if not path.exists():
        return
    with path.open("rb") as fh:
        for message in read_po(fh, locale=lang, domain=domain):
            if not message.id:
                continue
            yield _id(message)


def domains() -> list[str]:
    """Every catalog domain (the ``.po`` names of the translated languages)."""
    return sorted({po.stem for lang in i18n.LANGUAGES if lang != "en"
                   for po in (i18n.CATALOG_DIR / lang / "LC_MESSAGES").glob("*.po")})


def templates(root: Path) -> dict[str, set[MessageId]]:
    """Each domain's messages: what its catalogs hold, and each message the sources
    define that no catalog holds yet, in the domain of its source file."""
    langs = [lang for lang in i18n.LANGUAGES if lang != "en"]
    out = {domain: {mid for lang in langs for mid in catalog_ids(lang, domain)}
           for domain in domains()}
    held = {_key(mid) for ids in out.values() for mid in ids}
    for mid, path in extracted(root).items():
        if _key(mid) not in held and translatable(_key(mid)):
            out.setdefault(area(path), set()).add(mid)
            held.add(_key(mid))
    return out


def _key(mid: MessageId) -> str:
    return mid[0] if isinstance(mid, tuple) else mid


def write(root: Path, folder: Path = POT_DIR) -> list[Path]:
    """Write each domain's template to ``folder`` (sorted, without source locations, so
    that a template changes only when its messages do); the paths written."""
    from babel.messages.pofile import write_po

    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for domain, ids in sorted(templates(root).items()):
        cat = Catalog(project="warroom", domain=domain, fuzzy=False,
                      creation_date=STABLE_DATE, copyright_holder="warroom contributors")
        for mid in sorted(ids, key=_key):
            if isinstance(mid, str) and CTX in mid:
                context, _, text = mid.partition(CTX)
                cat.add(text, context=context)
            else:
                cat.add(mid)
        path = folder / f"{domain}.pot"
        with path.open("wb") as fh:
            write_po(fh, cat, no_location=True, omit_header=False, sort_output=True,
                     width=100)
        written.append(path)
    return written


def read(path: Path) -> set[MessageId]:
    """The message ids of a template."""
    from babel.messages.pofile import read_po

    with path.open("rb") as fh:
        return {_id(m) for m in read_po(fh) if m.id}


def _id(message: Any) -> MessageId:
    if message.pluralizable:
        return str(message.id[0]), str(message.id[1])
    return f"{message.context}{CTX}{message.id}" if message.context else str(message.id)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    root = Path(args[0] if args else ".").resolve()
    for path in write(root):
        sys.stdout.write(f"{path.relative_to(root)}\n")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
