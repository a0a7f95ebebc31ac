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
