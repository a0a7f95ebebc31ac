"""``warroom --lang pl`` and ``--lang zh`` show no English: the output of ``rules``,
``odds``, ``roll``, ``battle``, ``--help`` and the errors is swept for English words.

An English word is one of the words of warroom's English messages (the catalogs' ids)
that the language's own translations never use: names a translation keeps as they are
(special rules such as Schürzen, units, ids a player types) are thereby allowed, and so
are the ids of procedures, parameters and their values, which are typed as they are."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

from warroom import i18n
from warroom.i18n import templates

WORD = re.compile(r"[A-Za-z][a-z]{2,}")
TYPED = re.compile(r"\S*[=_./:\\\[\]#<>|@-]\S*|\S*\d\S*|'[^']*'")
"""What a player types or reads as an id (key=value, fow.shoot, --seed, FILE:UNIT,
'quoted'), taken out before the sweep."""

ALLOWED = {
    # proper names and abbreviations a translation keeps
    "warroom", "Flames", "War", "Advanced", "Squad", "Leader", "Blitzkrieg", "Commander",
    "Cold", "Monte", "Carlo", "JSON", "TOML", "SQLAlchemy", "URL", "ASLRB", "FoW", "ASL",
    "BKC", "CWC", "shell", "demo", "yes",
}


@cache
def english_words() -> frozenset[str]:
    words: set[str] = set()
    for domain in templates.domains():
        for mid in templates.read(templates.POT_DIR / f"{domain}.pot"):
            for text in (mid if isinstance(mid, tuple) else (mid,)):
                words.update(w.lower() for w in WORD.findall(re.sub(r"\{[^{}]*\}", "", text)))
    return frozenset(words)


@cache
def kept(lang: str) -> frozenset[str]:
    """Words the language's translations use as they are, and every id."""
    from warroom import api

    words = {w.lower() for text in i18n.catalog(lang).values() for w in WORD.findall(text)}
    for system in api.registry().systems():
        for proc in system.procedures:
            words.update(proc.id.lower().split("."))
    for text in i18n.catalog("pl"):  # labels are catalogued under their ids
        if re.fullmatch(r"[a-z_.=0-9]+", text):
            words.update(re.split(r"[_.=]", text))
    words.update(command_names())
    return frozenset(words | {w.lower() for w in ALLOWED})


def command_names() -> set[str]:
    """The command line's commands (typed as they are: rules, odds, battle undo...)."""
    from typer.main import get_command

    from warroom import cli

    cli._register_subcommands()
    names: set[str] = set()
    todo = [get_command(cli.app)]
    while todo:
        group = todo.pop()
        for name, sub in getattr(group, "commands", {}).items():
            names.update(name.split("-"))
            todo.append(sub)
    return names


def english_in(text: str, lang: str) -> list[str]:
    text = TYPED.sub(" ", text)
    return sorted({w for w in WORD.findall(text)
                   if w.lower() in english_words() and w.lower() not in kept(lang)})


SHOOT = ["fow.shoot", "dice=4", "target=tank", "armour=6", "at=10", "firepower=3", "teams=3"]
COMMANDS: list[list[str]] = [
    ["rules"],
    ["rules", "fow.shoot"],
    ["rules", "asl.ift"],
    ["rules", "bkc.command"],
    ["odds", "demo.pool", "dice=3"],
    ["odds", *SHOOT],
    ["odds", "asl.ift", "fp=4", "drm=0"],
    ["roll", *SHOOT, "--seed", "3"],
    ["roll", "asl.ift", "fp=4", "drm=0", "--seed", "1"],
    ["roll", "bkc.command", "--seed", "2"],
    ["--help"],
    ["odds", "--help"],
    ["roll", "--help"],
    ["rules", "--help"],
    ["battle", "--help"],
    ["battle", "do", "--help"],
    ["odds", "demo.pool", "--bogus"],
    ["odds", "demo.pol"],
    ["odds", "demo.pool", "dice=x"],
    ["roll", "demo.pool", "--seed", "abc"],
    ["frobnicate"],
]


def run(capsys: pytest.CaptureFixture[str], lang: str, args: list[str]) -> str:
    from warroom.cli import main

    main(["--lang", lang, *args])
    out = capsys.readouterr()
    return out.out + out.err


@pytest.mark.parametrize("lang", ["pl", "zh"])
@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
def test_no_english_in_the_output(capsys: pytest.CaptureFixture[str], lang: str,
                                  args: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    text = run(capsys, lang, args)
    assert text.strip()
    assert not english_in(text, lang), (english_in(text, lang), text[:3000])


@pytest.mark.parametrize("lang", ["pl", "zh"])
def test_no_english_in_a_battle(capsys: pytest.CaptureFixture[str], lang: str,
                                tmp_path: Path) -> None:
    import json

    db = str(tmp_path / "b.sqlite3")
    run(capsys, lang, ["battle", "--db", db, "new", "demo", "--seed", "4", "--json"])
    from warroom.cli import main

    main(["battle", "--db", db, "list", "--json"])
    bid = json.loads(capsys.readouterr().out)[0]["id"]
    for args in (["battle", "--db", db, "add-unit", bid, "A", "--name", "alpha", "dice=3"],
                 ["battle", "--db", db, "do", bid, "demo.pool", "unit=alpha", "dice=3"],
                 ["battle", "--db", db, "odds", bid, "demo.pool", "dice=2"],
                 ["battle", "--db", db, "show", bid],
                 ["battle", "--db", db, "log", bid],
                 ["battle", "--db", db, "luck", bid],
                 ["battle", "--db", db, "undo", bid, "--bogus"]):
        text = run(capsys, lang, args)
        assert text.strip(), args
        assert not english_in(text, lang), (args, english_in(text, lang), text[:3000])


def test_the_sweep_finds_english() -> None:
    assert english_in("seed 3; replay with --seed 3", "pl") == ["replay"]
    assert english_in("błąd: nie ma opcji --bogus", "pl") == []
    assert english_in("Źródło: FoW article on shooting", "zh") == ["article", "shooting"]
