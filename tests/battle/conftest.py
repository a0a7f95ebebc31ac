from __future__ import annotations

from pathlib import Path

import pytest

from tests.battle.fakes import battles
from warroom.battle.core import Battles


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "battles.db"


@pytest.fixture
def bt(db: Path) -> Battles:
    return battles(db)
