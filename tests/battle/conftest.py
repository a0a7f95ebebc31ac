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


# The web engineer's real uvicorn server on loopback. (Chromium is launched by the
# browser test itself, in its own thread: a second session-wide Playwright in the main
# thread would clash with tests/web's.)
from tests.web.conftest import server_url  # noqa: E402, F401
