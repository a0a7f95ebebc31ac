"""The fow catalogs: every placeholder kept, and steps render in Polish and Chinese."""

from __future__ import annotations

from pathlib import Path

import warroom
from warroom import i18n

I18N = Path(i18n.__file__).parent


def test_steps_in_polish_and_chinese() -> None:
    r = warroom.roll("fow.shoot", {"dice": 2, "target": "tank", "armour": 1, "at": 5},
                     dice=[5, 6, 1, 2, 3, 4])
    pl = [s.to_dict(i18n.translator("pl")) for s in r.steps]
    assert "rzut na trafienie" in pl[0]["text"]
    zh = [s.to_dict(i18n.translator("zh")) for s in r.steps]
    assert "命中" in zh[0]["text"]
    # the rating word inside a modifier reason is translated too
    assert pl[0]["base_reason"] == "cel: regularni"
