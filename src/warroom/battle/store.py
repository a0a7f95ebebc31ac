"""The battle store: SQLAlchemy 2 Core over any URL, SQLite by default.

One transaction per event. On SQLite the file runs in WAL mode with ``synchronous=FULL``
and every write transaction starts with ``BEGIN IMMEDIATE``, so two writers are
serialised and a killed process leaves either the whole event or none of it. The
schema is created and upgraded by Alembic (``migrations/``) when the store opens.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event as sa_event
from sqlalchemy.engine import Connection, Engine

from warroom.battle.errors import (
    BattleError,
    ConflictError,
    DatabaseBusyError,
    NoSuchBattleError,
    StaleStateError,
)

HEAD = "0004"
"""The newest migration; the store skips Alembic entirely when the DB is at it."""

MIGRATIONS = Path(__file__).parent / "migrations"

metadata = sa.MetaData()
battles = sa.Table(
    "battles", metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("game", sa.String(32), nullable=False),
    sa.Column("name", sa.String(200), nullable=False),
    sa.Column("seed", sa.BigInteger, nullable=False),
    sa.Column("created_at", sa.String(40), nullable=False),
    sa.Column("updated_at", sa.String(40), nullable=False),
    sa.Column("counter", sa.Integer, nullable=False),
    sa.Column("state", sa.Text, nullable=False),
    sa.Column("token_a", sa.String(64), nullable=False),
    sa.Column("token_b", sa.String(64), nullable=False),
    sa.Column("token_view", sa.String(64), nullable=False),
    # 0002: the secret dice seed (its hash is in the 'created' event), the key that signs
    # exports, "here" / "authentic" / "unsigned" (an import), the live events' seqs
    sa.Column("secret", sa.String(128), nullable=True),
    sa.Column("sign_key", sa.String(64), nullable=True),
    sa.Column("origin", sa.String(20), nullable=True),
    sa.Column("live", sa.Text, nullable=True),
    # 0003: a side's pending request to undo a virtual roll (JSON: side, target, counter),
    # cleared by any new event; a battle created single-player (free undo)
    sa.Column("undo_asked", sa.Text, nullable=True),
    sa.Column("solo", sa.Boolean, nullable=True),
)
rate_hits = sa.Table(  # 0003: the rate limits, shared by every server process
    "rate_hits", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("bucket", sa.String(40), nullable=False),
    sa.Column("who", sa.String(64), nullable=False),
    sa.Column("at", sa.Float, nullable=False),
)
events = sa.Table(
    "events", metadata,
    sa.Column("battle_id", sa.String(32), sa.ForeignKey("battles.id", ondelete="CASCADE"),
              primary_key=True),
    sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("kind", sa.String(20), nullable=False),
    sa.Column("at", sa.String(40), nullable=False),
    sa.Column("body", sa.Text, nullable=False),
    sa.Column("state", sa.Text, nullable=True),  # 0002: the state after the event
)
forces = sa.Table(  # 0003: the force library (warroom.battle.library)
    "forces", metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("game", sa.String(32), nullable=False),
    sa.Column("name", sa.String(200), nullable=False),
    sa.Column("units", sa.Text, nullable=False),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("created_at", sa.String(40), nullable=False),
    sa.Column("battle_id", sa.String(32), nullable=True),
    sa.Column("side", sa.String(1), nullable=True),
)


def default_path() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("warroom", appauthor=False)) / "battles.db"


def resolve_url(db: str | None = None, *, create: bool = True) -> str:
    """``--db`` (a path or an SQLAlchemy URL), else ``WARROOM_DB``, else the default file
    under the user's data directory. Without ``create`` (read-only commands) an SQLite
    file that does not exist is an error, and nothing is created."""
    target = db or os.environ.get("WARROOM_DB") or str(default_path())
    if "://" in target:
        return target
    path = Path(target).expanduser().resolve()
    if path.is_dir():
        raise BattleError("--db {target!r} is a folder; give a file name", target=target)
    if not create and not path.is_file():
        raise BattleError("no battles at {path} yet (nothing was created); "
                          "'warroom battle new' starts one", path=str(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{path}"


def shown_url(url: str) -> str:
    """Where the battles are, as it may be shown to anyone: an SQLite file's path, or
    the URL with its password masked."""
    try:
        parsed = sa.engine.make_url(url)
    except sa.exc.ArgumentError:
        return url
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
        return str(parsed.database)
    return parsed.render_as_string(hide_password=True)


def _first_line(error: BaseException | None) -> str:
    """The driver's own message, first line only (the name of the error if it has none)."""
    lines = str(error).strip().splitlines()
    return lines[0] if lines else type(error).__name__


def _sqlite_setup(engine: Engine) -> None:
    @sa_event.listens_for(engine, "connect")
    def _connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # we issue BEGIN ourselves
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA busy_timeout=15000")
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=FULL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.close()

    @sa_event.listens_for(engine, "begin")
    def _begin(conn: Connection) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE")


def migrate(conn: Connection) -> None:
    """Bring the schema to the newest revision (a fresh DB and an old one alike)."""
    if sa.inspect(conn).has_table("alembic_version"):
        row = conn.execute(sa.text("SELECT version_num FROM alembic_version")).first()
        if row is not None and row[0] == HEAD:
            return
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.attributes["connection"] = conn
    command.upgrade(cfg, "head")


class Store:
    """Battles and their events in one database."""

    def __init__(self, url: str) -> None:
        self.url = url
        shown = shown_url(url)
        try:
            # a server may restart under a long-running `warroom serve`: test each pooled
            # connection before use and reconnect (an SQLite file needs no such check)
            server = sa.engine.make_url(url).get_backend_name() != "sqlite"
            # hide_parameters: a failing statement's message never carries its values (the
            # battle's keys and secrets are among them)
            self.engine = sa.create_engine(url, pool_pre_ping=server, hide_parameters=True)
        except (sa.exc.ArgumentError, sa.exc.NoSuchModuleError) as exc:
            raise BattleError("cannot use database {url}: {reason}", url=shown,
                              reason=str(exc)) from None
        except ImportError as exc:  # the URL names a driver that is not installed
            raise BattleError(
                "cannot use database {url}: its Python driver {module!r} is not installed"
                " (for PostgreSQL: pip install 'psycopg[binary]' and a URL starting"
                " postgresql+psycopg://)", url=shown, module=exc.name or "?") from None
        if self.engine.dialect.name == "sqlite":
            _sqlite_setup(self.engine)
        try:
            with self.engine.begin() as conn:
                migrate(conn)
        except (sa.exc.OperationalError, sa.exc.InterfaceError, sa.exc.TimeoutError) as exc:
            self.engine.dispose()  # down, unreachable or busy: 503 on the web
            raise DatabaseBusyError("cannot open database {url}: {reason}", url=shown,
                                    reason=_first_line(getattr(exc, "orig", exc))) from None
        except sa.exc.DBAPIError as exc:
            self.engine.dispose()
            raise BattleError("cannot open database {url}: {reason}", url=shown,
                              reason=_first_line(exc.orig)) from None

    def close(self) -> None:
        self.engine.dispose()

    # ---------------------------------------------------------------- reading
    @contextmanager
    def read(self) -> Iterator[Connection]:
        with self._failures(), self.engine.connect() as conn:
            yield conn

    @contextmanager
    def write(self) -> Iterator[Connection]:
        """One transaction: everything in it is recorded, or nothing."""
        with self._failures(), self.engine.begin() as conn:
            yield conn

    @contextmanager
    def _failures(self) -> Iterator[None]:
        """The database going away or staying locked is a clear error, not a crash."""
        try:
            yield
        except sa.exc.TimeoutError:
            raise DatabaseBusyError("the database {url} is busy (no free connection); "
                                    "try again (nothing was recorded)",
                                    url=shown_url(self.url)) from None
        except (sa.exc.OperationalError, sa.exc.InterfaceError) as exc:
            raise DatabaseBusyError("the database {url} failed: {reason} (nothing was "
                                    "recorded)", url=shown_url(self.url),
                                    reason=_first_line(exc.orig)) from None
        except sa.exc.IntegrityError as exc:  # a key already taken: no SQL shown
            raise ConflictError("the database {url} refused the change: it clashes with "
                                "what is already stored ({error}); nothing was recorded, "
                                "try again", url=shown_url(self.url),
                                error=type(exc.orig).__name__) from None
        except sa.exc.DBAPIError as exc:  # a value the database refused: no SQL shown
            raise DatabaseBusyError("the database {url} refused the change ({error}); "
                                    "nothing was recorded", url=shown_url(self.url),
                                    error=type(exc.orig).__name__) from None
        except sa.exc.SQLAlchemyError as exc:  # anything else from the database layer
            raise DatabaseBusyError("the database {url} failed ({error}); nothing was "
                                    "recorded", url=shown_url(self.url),
                                    error=type(exc).__name__) from None

    @staticmethod
    def battle_row(conn: Connection, battle_id: str, *, lock: bool = False
                   ) -> dict[str, Any]:
        """The battle's row; ``lock`` holds it (``FOR UPDATE``) until the transaction
        ends, where the database has row locks (SQLite locks the whole file instead)."""
        query = sa.select(battles).where(battles.c.id == battle_id)
        row = conn.execute(query.with_for_update() if lock else query).mappings().first()
        if row is None:  # no list of the other ids: they are nobody's business
            raise NoSuchBattleError(battle_id)
        return dict(row)

    @staticmethod
    def list_rows(conn: Connection) -> list[dict[str, Any]]:
        rows = conn.execute(sa.select(battles).order_by(battles.c.created_at)).mappings()
        return [dict(r) for r in rows]

    @staticmethod
    def event_at(conn: Connection, battle_id: str, seq: int) -> tuple[dict[str, Any], str | None]:
        """One event's body and the state after it (None for a log older than snapshots)."""
        row = conn.execute(sa.select(events.c.body, events.c.state).where(
            events.c.battle_id == battle_id, events.c.seq == seq)).one()
        return json.loads(row[0]), row[1]

    @staticmethod
    def load_events(conn: Connection, battle_id: str) -> list[dict[str, Any]]:
        rows = conn.execute(sa.select(events.c.body).where(events.c.battle_id == battle_id)
                            .order_by(events.c.seq)).all()
        return [json.loads(r[0]) for r in rows]

    @staticmethod
    def events_page(conn: Connection, battle_id: str, *, before: int | None = None,
                    limit: int | None = None) -> list[dict[str, Any]]:
        """The latest ``limit`` events numbered below ``before`` (all of them without),
        oldest first: one range read on the primary key, whatever the log's length."""
        query = sa.select(events.c.body).where(events.c.battle_id == battle_id)
        if before is not None:
            query = query.where(events.c.seq < before)
        query = query.order_by(events.c.seq.desc())
        if limit is not None:
            query = query.limit(limit)
        rows = conn.execute(query).all()
        return [json.loads(r[0]) for r in reversed(rows)]

    @staticmethod
    def events_between(conn: Connection, battle_id: str, first: int, last: int
                       ) -> list[tuple[dict[str, Any], str | None]]:
        """Events ``first`` to ``last`` with the state stored after each (None before
        snapshots), oldest first: one range read on the primary key."""
        rows = conn.execute(sa.select(events.c.body, events.c.state).where(
            events.c.battle_id == battle_id, events.c.seq >= first, events.c.seq <= last)
            .order_by(events.c.seq)).all()
        return [(json.loads(r[0]), r[1]) for r in rows]

    @staticmethod
    def stored_states(conn: Connection, battle_id: str) -> list[str | None]:
        """The snapshot stored with each event, in order (None before snapshots)."""
        rows = conn.execute(sa.select(events.c.state).where(events.c.battle_id == battle_id)
                            .order_by(events.c.seq)).all()
        return [r[0] for r in rows]

    # ---------------------------------------------------------------- writing
    @staticmethod
    def insert_battle(conn: Connection, row: Mapping[str, Any]) -> None:
        conn.execute(sa.insert(battles).values(**row))

    @staticmethod
    def append(conn: Connection, battle_id: str, event: Mapping[str, Any], old_counter: int,
               state: str, live: str | None = None) -> None:
        """Add one event with the state after it, and move the counter on (with the
        snapshot: ``state`` and ``live``), only if nobody moved it first."""
        seq = int(event["seq"])
        done = conn.execute(
            sa.update(battles)
            .where(battles.c.id == battle_id, battles.c.counter == old_counter)
            .values(counter=seq, state=state, live=live, updated_at=event["at"],
                    undo_asked=None))
        if done.rowcount != 1:
            current = conn.execute(sa.select(battles.c.counter).where(
                battles.c.id == battle_id)).scalar_one()
            raise StaleStateError(old_counter, int(current))
        conn.execute(sa.insert(events).values(
            battle_id=battle_id, seq=seq, kind=event["kind"], at=event["at"],
            body=json.dumps(event, ensure_ascii=False, sort_keys=True), state=state))


def set_undo_request(conn: Connection, battle_id: str, counter: int,
                     request: str | None) -> None:
    """Record (or clear, ``None``) a pending undo request, only if the battle is still at
    ``counter`` (a new event voids any request)."""
    done = conn.execute(sa.update(battles).where(
        battles.c.id == battle_id, battles.c.counter == counter).values(undo_asked=request))
    if done.rowcount != 1:
        current = conn.execute(sa.select(battles.c.counter).where(
            battles.c.id == battle_id)).scalar_one()
        raise StaleStateError(counter, int(current))


def take_rate(conn: Connection, bucket: str, who: str, most: int, period: float,
              now: float) -> bool:
    """Count one request of ``who`` in ``bucket`` if fewer than ``most`` were counted in
    the last ``period`` seconds (True), else count nothing (False). Old counts go. On
    PostgreSQL the table is locked for the transaction, so two processes take turns."""
    if conn.dialect.name == "postgresql":
        conn.execute(sa.text("LOCK TABLE rate_hits IN SHARE ROW EXCLUSIVE MODE"))
    conn.execute(sa.delete(rate_hits).where(rate_hits.c.at < now - period,
                                            rate_hits.c.bucket == bucket))
    seen = conn.execute(sa.select(sa.func.count()).select_from(rate_hits).where(
        rate_hits.c.bucket == bucket, rate_hits.c.who == who,
        rate_hits.c.at >= now - period)).scalar_one()
    if int(seen) >= most:
        return False
    conn.execute(sa.insert(rate_hits).values(bucket=bucket, who=who[:64], at=now))
    return True


def open_store(db: str | None = None, *, create: bool = True) -> Store:
    """The store at ``db``; ``create=False`` for read-only use (see :func:`resolve_url`)."""
    return Store(resolve_url(db, create=create))
