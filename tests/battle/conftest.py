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


# The web engineer's browser fixtures: a real uvicorn server and headless Chromium
# (skips loudly when Chromium is missing).
from tests.web.conftest import browser, page, server_url  # noqa: E402, F401
