"""The fow catalogs: every placeholder kept, and steps render in Polish and Chinese."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

import warroom
from warroom import i18n

I18N = Path(i18n.__file__).parent


@pytest.mark.parametrize("lang", ["pl", "zh"])
def test_placeholders_match(lang: str) -> None:
    with (I18N / lang / "LC_MESSAGES" / "fow.po").open("rb") as fh:
        cat = read_po(fh, locale=lang)
    count = 0
    for m in cat:
        if not m.id:
            continue
        count += 1
        assert m.string, m.id
        names = set(re.findall(r"\{(\w+)\}", str(m.id)))
        assert names == set(re.findall(r"\{(\w+)\}", str(m.string))), m.id
    assert count > 200


def test_steps_in_polish_and_chinese() -> None:
    r = warroom.roll("fow.shoot", {"dice": 2, "target": "tank", "armour": 1, "at": 5},
                     dice=[5, 6, 1, 2, 3, 4])
    pl = [s.to_dict(i18n.translator("pl")) for s in r.steps]
    assert "rzut na trafienie" in pl[0]["text"]
    zh = [s.to_dict(i18n.translator("zh")) for s in r.steps]
    assert "命中" in zh[0]["text"]
    # the rating word inside a modifier reason is translated too
    assert pl[0]["base_reason"] == "cel: regularni"
