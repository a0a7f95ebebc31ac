"""Every phase title, checklist item and marker name has a Polish and a Chinese text."""

from __future__ import annotations

import pytest
from babel.messages.pofile import read_po

from warroom.battle import phases, state
from warroom.i18n import CATALOG_DIR, catalog


@pytest.mark.parametrize("lang", ["pl", "zh"])
def test_battle_catalog_covers_the_game_texts(lang: str) -> None:
    """In the merged catalogs (a word such as "pinned" may live in a game's catalog);
    placeholders are checked for every catalog by tests/test_catalogs.py."""
    have = catalog(lang)
    texts = [t for seq in phases.SEQUENCES.values() for p in seq for t in (p.title,
                                                                         *p.checklist)]
    texts += [m.replace("_", " ") for kinds in state.MARKERS.values() for m in kinds]
    missing = [t for t in texts if t not in have]
    assert not missing


@pytest.mark.parametrize("lang", ["pl", "zh"])
def test_battle_pages_are_translated(lang: str) -> None:
    import re
    from pathlib import Path

    import warroom.web

    folder = Path(warroom.web.__file__).parent / "templates" / "battles"
    texts = {m for f in folder.glob("*.html")
             for m in re.findall(r'_\("([^"]+)"\)', f.read_text(encoding="utf-8"))}
    assert len(texts) > 30
    have: set[object] = set()
    for area in ("battle", "web"):  # the catalogs are merged at run time
        with (CATALOG_DIR / lang / "LC_MESSAGES" / f"{area}.po").open("rb") as fh:
            have |= {m.id for m in read_po(fh, locale=lang) if m.id and m.string}
    assert sorted(texts - have) == []


def test_a_phase_id_names_one_phase_in_every_game() -> None:
    """The log shows a phase by its id's title without knowing the game, which is sound
    only while an id means the same phase in every game that has it."""
    titles: dict[str, set[str]] = {}
    for seq in phases.SEQUENCES.values():
        for p in seq:
            titles.setdefault(p.id, set()).add(p.title)
    assert {i: t for i, t in titles.items() if len(t) > 1} == {}
    assert phases.title("RPh", "asl") == "Rally Phase (RPh)"
    assert phases.title("end") == "End phase"
    assert phases.title("no_such_phase") == "no_such_phase"  # an imported log's own id


def _phase_line(lang: str, title: str) -> str:
    from warroom.i18n import translator

    tr = translator(lang)
    return tr("turn {turn}, side {side}: {phase}").format(turn=1, side="A", phase=tr(title))


@pytest.mark.parametrize("lang", ["en", "pl", "zh"])
def test_the_log_and_the_list_show_phase_titles_in_the_cli(
        lang: str, capsys: pytest.CaptureFixture[str], tmp_path: object) -> None:
    import json
    from pathlib import Path

    from warroom.cli import main

    db = str(Path(str(tmp_path)) / "b.db")
    assert main(["battle", "new", "demo", "--name", "K", "--seed", "1", "--db", db,
                 "--json"]) == 0
    bid = json.loads(capsys.readouterr().out)["id"]
    assert main(["battle", "next", bid, "--db", db]) == 0
    capsys.readouterr()
    line = _phase_line(lang, "End phase")  # demo: "act", then "end"
    for command in ("log", "list"):
        args = ["--lang", lang, "battle", command] + ([bid] if command == "log" else [])
        assert main([*args, "--db", db]) == 0
        out = capsys.readouterr().out
        assert line in out and _phase_line(lang, "end") + "\n" not in out, (command, out)


@pytest.mark.parametrize("lang", ["en", "pl", "zh"])
def test_the_battle_page_log_shows_phase_titles(lang: str, tmp_path: object) -> None:
    import html
    import warnings
    from pathlib import Path

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from fastapi.testclient import TestClient
    from warroom.web.app import create_app

    with TestClient(create_app(Path(str(tmp_path)) / "web.db")) as client:
        made = client.post("/api/battles", json={"game": "fow", "name": "Web"}).json()
        key = made["keys"]["A"]
        assert client.post(f"/api/battles/{made['id']}/next?key={key}").status_code == 200
        page = html.unescape(client.get(f"/battles/{made['id']}/{key}?lang={lang}").text)
        log = client.get(f"/api/battles/{made['id']}/log?key={key}").json()
    assert log[-1]["kind"] == "phase" and log[-1]["phase"] == "movement"
    assert _phase_line(lang, "Movement step") in page  # fow: "starting", then "movement"
    assert ": movement" not in page


@pytest.mark.parametrize("lang", ["en", "pl", "zh"])
def test_a_roll_in_the_log_reads_in_the_language(
        lang: str, capsys: pytest.CaptureFixture[str], tmp_path: object) -> None:
    """A resolution's line names the rule by its title and each outcome field by its
    label, with yes/no translated: no rule id, no ``pinned=False``."""
    import json
    from pathlib import Path

    from warroom.cli import main
    from warroom.i18n import label, translator

    db = str(Path(str(tmp_path)) / "b.db")
    assert main(["battle", "new", "fow", "--name", "K", "--db", db, "--json"]) == 0
    bid = json.loads(capsys.readouterr().out)["id"]
    # the example profiles, the Shermans' dice overridden by a stat (2 instead of 6)
    for side, unit, more in (("A", "Shermans", ["dice=2"]), ("B", "Rifles", [])):
        assert main(["battle", "add-unit", bid, "--side", side, "--name", unit, "--from",
                     f"example:fow:{'Rifle platoon' if side == 'B' else unit}", *more,
                     "--db", db]) == 0
    # 2 dice at trained infantry (3+): 6 and 5 hit; the two saves (3+) fail on 1 and 2
    assert main(["battle", "do", bid, "fow.shoot", "unit=Shermans", "target=Rifles",
                 "--dice", "6,5,1,2", "--db", db]) == 0
    capsys.readouterr()
    assert main(["--lang", lang, "battle", "log", bid, "--db", db]) == 0
    out = capsys.readouterr().out
    tr = translator(lang)
    line = next(x for x in out.splitlines() if "Shermans → Rifles" in x)
    assert f" {tr('Shooting at a platoon')} Shermans → Rifles: " in line, line
    # only what happened: 2 hits, 2 destroyed; not pinned, nothing bailed out
    hits, destroyed = (label(tr, name, "fow.shoot") for name in ("hits", "destroyed"))
    assert line.split(": ", 1)[1].startswith(f"{hits}: 2, {destroyed}: 2  ("), line
    assert "fow.shoot" not in line and "False" not in line and "True" not in line
    assert "passengers" not in line and tr("no") not in line.split(": ", 1)[1], line
