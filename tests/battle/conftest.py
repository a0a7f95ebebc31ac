from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.battle.fakes import OPEN, battles
from warroom.battle.core import Battles

POSTGRES_ENV = "WARROOM_TEST_POSTGRES_URL"
"""An SQLAlchemy URL of an empty PostgreSQL database the battle tests may wipe, such as
``postgresql+psycopg://warroom:warroom@localhost/warroom_test`` (`.ci/run` starts one
where the machine has PostgreSQL). Without it the PostgreSQL runs are skipped."""


def _wipe(url: str) -> None:
    import sqlalchemy as sa

    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.execute(sa.text("DROP TABLE IF EXISTS events, battles, forces, rate_hits, "
                             "alembic_version CASCADE"))
    engine.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
       ) -> Iterator[str]:
    """Where the test's battles live: a fresh SQLite file, and a wiped PostgreSQL
    database when one is configured (the club-server case)."""
    if request.param == "sqlite":
        yield str(tmp_path_factory.mktemp("db") / "battles.db")
        return
    url = os.environ.get(POSTGRES_ENV)
    if not url:
        pytest.skip(f"no PostgreSQL server: set {POSTGRES_ENV} to run these on one")
    _wipe(url)
    yield url
    _wipe(url)


@pytest.fixture(autouse=True)
def _close_stores() -> Iterator[None]:
    yield
    while OPEN:
        OPEN.pop().close()


@pytest.fixture
def bt(db: str) -> Battles:
    return battles(db)


# The web engineer's real uvicorn server on loopback. (Chromium is launched by the
# browser test itself, in its own thread: a second session-wide Playwright in the main
# thread would clash with tests/web's.)
from tests.web.conftest import server_url  # noqa: E402, F401
