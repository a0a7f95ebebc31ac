from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.battle.fakes import OPEN, battles
from warroom.battle.core import Battles

POSTGRES_ENV = "WARROOM_TEST_POSTGRES_URL"
"""An SQLAlchemy URL of an empty PostgreSQL database the battle tests may wipe, such as
``postgresql+psycopg://warroom:warroom@localhost/warroom_test`` (`.ci/run` starts one
where the machine has PostgreSQL). Without it the PostgreSQL runs are skipped. Run in
parallel (``pytest -n``), each worker gets a database of its own, named after this one
and the worker (``warroom_test_gw0``...): the role needs CREATEDB for that."""


def _wipe(url: str) -> None:
    import sqlalchemy as sa

    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.execute(sa.text("DROP TABLE IF EXISTS events, battles, forces, rate_hits, "
                             "alembic_version CASCADE"))
    engine.dispose()


def _admin(url: str, *statements: str) -> None:
    """Run ``statements`` outside a transaction (CREATE/DROP DATABASE), connected to the
    database of ``url``."""
    import sqlalchemy as sa

    engine = sa.create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            for statement in statements:
                conn.execute(sa.text(statement))
    finally:
        engine.dispose()


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """The PostgreSQL database of this test process: the configured one, or under
    pytest-xdist a fresh one of the worker's own (dropped and made again at the start,
    dropped at the end), so workers never wipe each other's tables."""
    url = os.environ.get(POSTGRES_ENV)
    if not url:
        pytest.skip(f"no PostgreSQL server: set {POSTGRES_ENV} to run these on one")
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not worker:
        yield url
        return
    import sqlalchemy as sa

    base = sa.make_url(url)
    name = f"{base.database}_{worker}"
    drop = f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'
    try:
        _admin(url, drop, f'CREATE DATABASE "{name}"')
    except sa.exc.SQLAlchemyError as exc:
        pytest.fail(f"cannot make the worker's database {name} on {base!r} (the role "
                    f"needs CREATEDB, or run serially with -n0): {exc}", pytrace=False)
    yield base.set(database=name).render_as_string(hide_password=False)
    _admin(url, drop)


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
       ) -> Iterator[str]:
    """Where the test's battles live: a fresh SQLite file, and a wiped PostgreSQL
    database when one is configured (the club-server case)."""
    if request.param == "sqlite":
        yield str(tmp_path_factory.mktemp("db") / "battles.db")
        return
    url = request.getfixturevalue("postgres_url")
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
