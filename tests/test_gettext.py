"""Translations on gettext: plurals by each catalog's Plural-Forms, compiled catalogs that
are never stale, one language negotiation (Babel), numbers in the reader's language."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from warroom import i18n
from warroom.engine.messages import nmsg
from warroom.i18n.formats import fmt_count, fmt_number, fmt_pct, fmt_value

SHOT_DOWN = ("one hit against hits value {value}: shot down",
             "{n} hits against hits value {value}: shot down")


@pytest.mark.parametrize(("lang", "n", "text"), [
    ("en", 1, "one hit against hits value 3: shot down"),
    ("en", 2, "2 hits against hits value 3: shot down"),
    ("pl", 1, "jedno trafienie wobec wartości trafień 3: zestrzelony"),
    ("pl", 2, "2 trafienia wobec wartości trafień 3: zestrzelony"),   # 2-4: second form
    ("pl", 5, "5 trafień wobec wartości trafień 3: zestrzelony"),     # 5-21: third
    ("pl", 12, "12 trafień wobec wartości trafień 3: zestrzelony"),
    ("pl", 22, "22 trafienia wobec wartości trafień 3: zestrzelony"),  # 22-24 again second
    ("zh", 5, "5 次命中对命中值 3：被击落"),
])
def test_plural_forms_of_each_language(lang: str, n: int, text: str) -> None:
    assert nmsg(*SHOT_DOWN, n=n, value=3).render(i18n.translator(lang)) == text
    template = i18n.translator(lang).ngettext(*SHOT_DOWN, n)
    assert template.format(n=n, value=3) == text


def test_a_plain_function_translator_still_renders_plurals_in_english() -> None:
    assert nmsg(*SHOT_DOWN, n=4, value=2).render(lambda t: t) == \
        "4 hits against hits value 2: shot down"


@pytest.mark.parametrize(("asked", "lang"), [
    ("pl", "pl"), ("pl_PL", "pl"), ("PL", "pl"), ("zh-CN", "zh"), ("zh-Hans-CN", "zh"),
    ("en_GB", "en"), ("de", None), ("", None)])
def test_negotiation(asked: str, lang: str | None) -> None:
    assert i18n.negotiate([asked]) == lang
    assert i18n.normalize(asked) == (lang or "en")


def test_accept_language_order() -> None:
    assert i18n.accept_language("fr-FR,pl;q=0.5,zh;q=0.7, en;q=0") == ["fr-FR", "zh", "pl"]
    assert i18n.negotiate(i18n.accept_language("fr-FR,pl;q=0.5,zh;q=0.7")) == "zh"


def test_numbers_in_the_language() -> None:
    pl, en = i18n.translator("pl"), i18n.translator("en")
    assert fmt_number(4, pl) == "4,00" and fmt_number(4, en) == "4.00"
    assert fmt_pct(0.125, pl) == "12,50%" and fmt_pct(0.125) == "12.50%"
    assert fmt_pct(0.00001, pl) == "<0,01%" and fmt_pct(0) == "0%"
    assert fmt_value(True, pl) == "tak" and fmt_value(8.0) == "8" and fmt_value(True) == "yes"


def test_counts_set_their_thousands_apart_as_the_language_does() -> None:
    pl, zh = i18n.translator("pl"), i18n.translator("zh")
    assert fmt_count(38415) == "38,415" and fmt_count(38415, zh) == "38,415"
    # Polish: a comma marks decimals, so thousands are set apart by a no-break space
    assert fmt_count(38415, pl) == "38\xa0415" and fmt_count(415, pl) == "415"
    # a terminal wraps at any space: there the count is written whole, never split
    assert fmt_count(38415, pl, terminal=True) == "38415"
    assert fmt_count(38415, zh, terminal=True) == "38,415"


def test_the_cli_prints_polish_numbers(capsys: pytest.CaptureFixture[str]) -> None:
    from warroom.cli import main

    assert main(["--lang", "pl", "odds", "demo.pool", "dice=2"]) == 0
    out = capsys.readouterr().out
    assert "25,00%" in out and "50,00%" in out and "1,00" in out  # the average of 2 dice


def test_a_stale_compiled_catalog_is_never_used(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    # a .mo older than its .po (an edit since the last build) is compiled afresh
    folder = tmp_path / "pl" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    po = folder / "core.po"
    shutil.copy(i18n.CATALOG_DIR / "pl" / "LC_MESSAGES" / "core.po", po)
    (folder / "core.mo").write_bytes(i18n.compile_catalog(po))
    text = po.read_text(encoding="utf-8")
    assert 'msgstr "tak"' in text
    po.write_text(text.replace('msgstr "tak"', 'msgstr "TAK!"'), encoding="utf-8")
    past = po.stat().st_mtime - 60
    os.utime(folder / "core.mo", (past, past))
    monkeypatch.setattr(i18n, "CATALOG_DIR", tmp_path)
    i18n.translations.cache_clear()
    try:
        assert i18n.translations("pl").gettext("yes") == "TAK!"
        (folder / "core.mo").write_bytes(i18n.compile_catalog(po))  # rebuilt: used as is
        i18n.translations.cache_clear()
        assert i18n.translations("pl").gettext("yes") == "TAK!"
    finally:
        i18n.translations.cache_clear()

