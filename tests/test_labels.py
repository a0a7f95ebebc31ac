"""Labels: every parameter, choice and outcome field reads well in Polish and Chinese.

A name is labelled when one of its lookup ids (:func:`warroom.i18n.label_keys`: procedure,
game, bare name, and for a choice its bare value) or, for a special-rule choice, its
declared English title has a translation that differs from the id itself.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from warroom import api, i18n

LANGS = ("pl", "zh")
TITLE = "<title>"

# Names printed the same in every language, so they need no label: the Infantry Fire
# Table's result codes, which ASL cards print as they are (the Chinese card too). A choice
# is matched by its value (asl.ift_on_stack result=1KIA). Keep this list to such codes.
SAME_EVERYWHERE = frozenset({
    "1KIA", "2KIA", "3KIA", "4KIA", "5KIA", "6KIA", "7KIA",
    "K/1", "K/2", "K/3", "K/4",
    "1MC", "2MC", "3MC", "4MC", "NMC", "PTC",
})


def names() -> Iterator[tuple[str, str, str]]:
    """(procedure id, name, English title) of every parameter, choice and outcome field."""
    for proc in api.registry().procedures():
        specs = api.param_specs(proc)
        for spec in specs:
            yield proc.id, spec.name, ""
            for choice in spec.choices:
                yield proc.id, f"{spec.name}={choice}", spec.title(choice)
        for field in proc.outcome:
            yield proc.id, field.name, ""


def source(tr: Callable[[str], str], name: str, scope: str, title: str) -> str | None:
    """The catalog id that gives ``name`` its label (TITLE for a translated title), or None."""
    for key in i18n.label_keys(name, scope):
        if tr(key) != key:
            return key
    if title and tr(title) != title:
        return TITLE
    return None


def value(name: str) -> str:
    return name.split("=", 1)[1] if "=" in name else name


def labels_po(lang: str) -> Path:
    return i18n.CATALOG_DIR / lang / "LC_MESSAGES" / "labels.po"


def msgids(path: Path, lang: str) -> set[str]:
    with path.open("rb") as fh:
        return {str(m.id) for m in read_po(fh, locale=lang) if m.id}


@pytest.mark.parametrize("lang", LANGS)
def test_every_name_has_a_label(lang: str) -> None:
    tr = i18n.translator(lang)
    missing = sorted({(scope, name) for scope, name, title in names()
                      if source(tr, name, scope, title) is None
                      and value(name) not in SAME_EVERYWHERE})
    assert not missing, f"{len(missing)} names without a {lang} label: {missing[:20]}"


def test_same_everywhere_names_exist() -> None:
    """The allow-list only holds names some procedure really has."""
    used = {value(name) for _, name, _ in names()}
    assert not SAME_EVERYWHERE - used, SAME_EVERYWHERE - used


@pytest.mark.parametrize("lang", LANGS)
def test_every_labels_po_entry_is_used(lang: str) -> None:
    """Each labels.po id is the one that labels some name (not unused, not shadowed)."""
    tr = i18n.translator(lang)
    used = {source(tr, name, scope, title) for scope, name, title in names()}
    unused = sorted(msgids(labels_po(lang), lang) - used)
    assert not unused, f"labels.po ({lang}) entries no lookup reaches: {unused}"


@pytest.mark.parametrize("lang", LANGS)
def test_labels_po_ids_are_its_own(lang: str) -> None:
    """labels.po does not repeat ids of the other catalogs (merge order would pick one)."""
    ours = msgids(labels_po(lang), lang)
    for path in sorted(labels_po(lang).parent.glob("*.po")):
        if path.name != "labels.po":
            assert not ours & msgids(path, lang), path.name


@pytest.mark.parametrize("lang", LANGS)
def test_labels_differ_from_their_ids(lang: str) -> None:
    with labels_po(lang).open("rb") as fh:
        same = [m.id for m in read_po(fh, locale=lang) if m.id and m.string == m.id]
    assert not same


def test_label_prefers_procedure_then_game_then_bare() -> None:
    table = {"fow.shoot.target": "proc", "fow.target": "game", "target": "bare"}

    def tr(text: str) -> str:
        return table.get(text, text)

    assert i18n.label(tr, "target", "fow.shoot") == "proc"
    assert i18n.label(tr, "target", "fow.assault") == "game"
    assert i18n.label(tr, "target", "asl.ift") == "bare"
    del table["fow.shoot.target"]
    assert i18n.label(tr, "target", "fow.shoot") == "game"
    del table["fow.target"]
    assert i18n.label(tr, "target", "fow.shoot") == "bare"
    del table["target"]
    assert i18n.label(tr, "target", "fow.shoot") == "target"


def test_choice_label_falls_back_to_value_then_title() -> None:
    table = {"reroll=misses": "choice", "misses": "value", "Tally Ho!": "title"}

    def tr(text: str) -> str:
        return table.get(text, text)

    assert i18n.label(tr, "reroll=misses", "fow.shoot") == "choice"
    del table["reroll=misses"]
    assert i18n.label(tr, "reroll=misses", "fow.shoot") == "value"
    assert i18n.label(tr, "rules=tally_ho", "fow.shoot", "Tally Ho!") == "title"
    assert i18n.label(tr, "rules=tally_ho", "fow.shoot") == "tally ho"


def test_real_catalog_uses_the_qualified_labels() -> None:
    pl = i18n.translator("pl")
    assert i18n.label(pl, "at", "fow.shoot") == pl("fow.at") != pl("demo.at")
    assert i18n.label(pl, "order_number", "cwc.air_call") == pl("cwc.air_call.order_number")
    assert i18n.label(pl, "order_number", "bkc.command") == pl("order_number")
    zh = i18n.translator("zh")
    assert i18n.label(zh, "hits", "fow.shoot") == zh("fow.hits")


def printed_as_is(value: str) -> bool:
    """Outcome values the cards print the same in every language: the IFT's result codes
    and its "-" (no effect), and close-combat odds such as 3-2 or >10-1."""
    return value in SAME_EVERYWHERE or value == "-" or re.fullmatch(r"[<>]?\d+-\d+",
                                                                   value) is not None


@pytest.mark.parametrize("lang", LANGS)
def test_every_named_outcome_value_is_translated(lang: str) -> None:
    """Named results (winner=draw, result=loser_retreats) read in the page's or the
    command line's language, as yes/no do."""
    tr = i18n.translator(lang)
    missing = sorted({(proc.id, field.name, v) for proc in api.registry().procedures()
                      for field in proc.outcome for v in field.values
                      if tr(v) == v and not printed_as_is(v)})
    assert not missing, f"{len(missing)} outcome values without a {lang} translation: {missing}"
