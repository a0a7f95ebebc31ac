"""Every translation catalog (pl and zh, every area): each entry is translated, keeps its
replacement fields exactly (``{n}``, ``{x!r}``, ``{d:+d}``), and no message id is given
two different translations in two catalogs (they are merged, so one would silently win)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from warroom import i18n

FIELD = re.compile(r"\{[^{}]*\}")
LANGS = [lang for lang in i18n.LANGUAGES if lang != "en"]
CATALOGS = sorted({(lang, path.name) for lang in LANGS
                   for path in (i18n.CATALOG_DIR / lang / "LC_MESSAGES").glob("*.po")})


def entries(lang: str, name: str) -> dict[str, str]:
    """msgid -> msgstr; a plural message under its singular id, its forms joined by |."""
    path: Path = i18n.CATALOG_DIR / lang / "LC_MESSAGES" / name
    with path.open("rb") as fh:
        return {(str(m.id[0]) if m.pluralizable else str(m.id)):
                ("|".join(m.string) if m.pluralizable else str(m.string))
                for m in read_po(fh, locale=lang) if m.id}


def plurals(lang: str, name: str) -> list[tuple[str, str, list[str]]]:
    path: Path = i18n.CATALOG_DIR / lang / "LC_MESSAGES" / name
    with path.open("rb") as fh:
        cat = read_po(fh, locale=lang)
    return [(str(m.id[0]), str(m.id[1]), [str(x) for x in m.string])
            for m in cat if m.id and m.pluralizable]


@pytest.mark.parametrize(("lang", "name"), CATALOGS)
def test_every_entry_is_translated_and_keeps_its_fields(lang: str, name: str) -> None:
    found = entries(lang, name)
    assert found
    counted = {singular for singular, _, _ in plurals(lang, name)}
    for msgid, msgstr in found.items():
        assert msgstr, msgid
        if msgid not in counted:
            assert sorted(FIELD.findall(msgid)) == sorted(FIELD.findall(msgstr)), msgid


@pytest.mark.parametrize(("lang", "name"), CATALOGS)
def test_plural_entries_have_every_form_of_the_language(lang: str, name: str) -> None:
    # Polish has three forms (1 trafienie, 2 trafienia, 5 trafień), Chinese one; every
    # form is translated and uses only the fields of the English forms; a form that
    # serves several counts names {n}
    from babel.messages.plurals import get_plural

    forms = get_plural(lang).num_plurals
    for singular, plural, strings in plurals(lang, name):
        assert len(strings) == forms and all(strings), singular
        allowed = set(FIELD.findall(singular)) | set(FIELD.findall(plural))
        for i, text in enumerate(strings):
            assert set(FIELD.findall(text)) <= allowed, (singular, text)
            if i > 0 or forms == 1:
                assert "{n}" in text, (singular, text)


def test_every_area_has_both_languages() -> None:
    names = {lang: {n for la, n in CATALOGS if la == lang} for lang in LANGS}
    assert names["pl"] == names["zh"]
    assert {"core.po", "fow.po", "asl.po", "commander.po", "battle.po", "web.po",
            "labels.po", "errors.po"} <= names["pl"]


@pytest.mark.parametrize("lang", LANGS)
def test_no_id_has_two_translations(lang: str) -> None:
    seen: dict[str, tuple[str, str]] = {}
    clashes = []
    for la, name in CATALOGS:
        if la != lang:
            continue
        for msgid, msgstr in entries(lang, name).items():
            first = seen.setdefault(msgid, (name, msgstr))
            if first[1] != msgstr:
                clashes.append(f"{msgid!r}: {first[0]} {first[1]!r} vs {name} {msgstr!r}")
    assert not clashes, clashes


@pytest.mark.parametrize("lang", LANGS)
def test_every_rule_page_reads_in_the_language(lang: str) -> None:
    # what a rule's page and 'warroom rules' show: its title, summary, how warroom reads
    # it (the note) and what each parameter means
    from warroom import api
    from warroom.engine.params import describe

    table = i18n.catalog(lang)
    missing = sorted(
        (proc.id, text[:60])
        for system in api.registry().systems() for proc in system.procedures
        for text in (proc.title, proc.summary, proc.note,
                     *(s.description for s in describe(proc.params)))
        if text and not table.get(text))
    assert not missing, missing
