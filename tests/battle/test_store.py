"""The store: Alembic migrations from the first schema, WAL, the database location,
and SIGKILL while events are being recorded."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import sqlalchemy as sa

from tests.battle.fakes import battles
from warroom.battle import store as store_mod
from warroom.battle.store import HEAD, MIGRATIONS, Store, resolve_url, shown_url

ROOT = Path(__file__).resolve().parents[2]


def test_head_constant_matches_the_migration_scripts() -> None:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    assert ScriptDirectory.from_config(cfg).get_current_head() == HEAD


def test_fresh_database_is_migrated_and_uses_wal(tmp_path: Path) -> None:
    db = tmp_path / "fresh.db"
    Store(f"sqlite:///{db}").close()
    engine = sa.create_engine(f"sqlite:///{db}")
    with engine.connect() as conn:
        assert conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalar() == HEAD
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert set(sa.inspect(conn).get_table_names()) >= {"battles", "events"}
    engine.dispose()


def test_database_downgraded_to_base_is_upgraded_again(tmp_path: Path) -> None:
    """Alembic owns the schema both ways: down to base, and up again on open."""
    from alembic import command
    from alembic.config import Config

    db = tmp_path / "old.db"
    bt = battles(db)
    bid = bt.new("demo", "kept", 1)["id"]
    assert battles(db).show(bid)["name"] == "kept"  # reopening at head keeps battles
    bt.store.close()
    engine = sa.create_engine(f"sqlite:///{db}")
    with engine.begin() as conn:
        cfg = Config()
        cfg.set_main_option("script_location", str(MIGRATIONS))
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "base")
    with engine.connect() as conn:
        assert "battles" not in sa.inspect(conn).get_table_names()
    engine.dispose()
    fresh = battles(db)
    assert fresh.list_battles() == []
    assert fresh.show(fresh.new("demo")["id"])["game"] == "demo"


def test_a_database_at_base_is_built_by_alembic(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    real = store_mod.migrate

    def spy(conn: sa.Connection) -> None:
        calls.append("migrate")
        real(conn)

    monkeypatch.setattr(store_mod, "migrate", spy)
    db = tmp_path / "x.db"
    Store(f"sqlite:///{db}").close()
    Store(f"sqlite:///{db}").close()
    assert calls == ["migrate", "migrate"]  # the second one finds head and stops


def test_database_location(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WARROOM_DB", str(tmp_path / "env.db"))
    assert resolve_url() == f"sqlite:///{tmp_path / 'env.db'}"
    assert resolve_url(str(tmp_path / "opt.db")) == f"sqlite:///{tmp_path / 'opt.db'}"
    assert resolve_url("sqlite://") == "sqlite://"
    monkeypatch.delenv("WARROOM_DB")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert resolve_url().endswith("battles.db")


def test_in_memory_url_works() -> None:
    from tests.battle.fakes import registry
    from warroom.battle.core import Battles

    bt = Battles(Store("sqlite://"), registry())
    bid = bt.new("demo")["id"]
    assert bt.show(bid)["game"] == "demo"


WRITER = textwrap.dedent("""
    import sys
    from tests.battle.fakes import battles
    bt = battles(sys.argv[1])
    bid = bt.new("fow", "kill test", 5)["id"]
    bt.add_unit(bid, "A", "Shermans", {"dice": "6"})
    # teams enough for every shot of the run: an eliminated unit would be no target
    bt.add_unit(bid, "B", "Grenadiers", {"teams": "1000000"})
    print("battle", bid, flush=True)
    i = 0
    while True:
        i += 1
        if i % 3 == 0:
            ev = bt.do(bid, "fow.shoot", {"unit": "Shermans", "target": "Grenadiers"})
        elif i % 3 == 1:
            ev = bt.mark(bid, "Shermans", "hits", "+1")
        else:
            ev = bt.undo(bid) if i % 7 == 0 else bt.advance(bid)
        print("ack", ev["seq"], ev["after"], flush=True)
""")


@pytest.mark.slow
@pytest.mark.parametrize("wait", [0.4, 1.2])
def test_sigkill_while_recording_loses_no_acknowledged_event(tmp_path: Path,
                                                             wait: float) -> None:
    db = tmp_path / "kill.db"
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + str(ROOT / "src"))
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(db)], stdout=subprocess.PIPE,
                            text=True, env=env, cwd=ROOT)
    assert proc.stdout is not None
    first = proc.stdout.readline().split()
    assert first[0] == "battle", first
    bid = first[1]
    acked: dict[int, str] = {}
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline or len(acked) < 5:
        line = proc.stdout.readline()
        assert line, "writer died"
        _, seq, after = line.split()
        acked[int(seq)] = after
    os.kill(proc.pid, signal.SIGKILL)
    # whatever it printed before dying was acknowledged too
    for line in proc.stdout.read().splitlines():
        _, seq, after = line.split()
        acked[int(seq)] = after
    proc.wait()
    assert proc.returncode == -signal.SIGKILL

    bt = battles(db)  # opens cleanly
    engine = sa.create_engine(f"sqlite:///{db}")
    with engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA integrity_check").scalar() == "ok"
    engine.dispose()
    log = {e["seq"]: e for e in bt.log(bid)}
    for seq, after in acked.items():
        assert log[seq]["after"] == after
    assert max(log) >= max(acked)
    report = bt.verify(bid)
    assert report.ok, report.problems
    # and the battle goes on
    ev = bt.advance(bid, expect=max(log))
    assert ev["seq"] == max(log) + 1
    assert json.dumps(bt.export(bid))


@pytest.mark.parametrize(("url", "says"), [
    ("nonsense://host/db", "cannot use database nonsense://host/db: Can't load plugin"),
    # a dialect whose Python driver is not installed: named, with the PostgreSQL hint
    ("mysql://player:secret@localhost/club",
     "cannot use database mysql://player:***@localhost/club: its Python driver 'MySQLdb' is "
     "not installed (for PostgreSQL: pip install 'psycopg[binary]'"),
    # nobody listens on port 1: the server's answer, the password still masked
    ("postgresql+psycopg://player:secret@127.0.0.1:1/club",
     "cannot open database postgresql+psycopg://player:***@127.0.0.1:1/club: "),
])
def test_a_database_that_cannot_be_used_is_a_usage_error_without_the_password(
        capsys: pytest.CaptureFixture[str], url: str, says: str) -> None:
    from warroom.cli import main

    if url.startswith("mysql") and importlib.util.find_spec("MySQLdb") is not None:
        pytest.skip("a MySQL driver is installed here")
    code = main(["battle", "list", "--db", url])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: " + says), err
    assert "secret" not in err and "Traceback" not in err


def test_where_the_battles_are_is_shown_without_a_password(tmp_path: Path) -> None:
    db = tmp_path / "b.db"
    assert shown_url(resolve_url(str(db))) == str(db)  # a file: its path
    assert shown_url("sqlite://") == "sqlite://"  # in memory
    assert shown_url("postgresql+psycopg://club:secret@host/war") == (
        "postgresql+psycopg://club:***@host/war")


def test_a_database_that_fails_mid_session_is_a_usage_error_and_records_nothing(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
        ) -> None:
    from warroom.battle import cli as battle_cli
    from warroom.cli import main

    db = str(tmp_path / "b.db")
    bt = battles(db)
    bid = str(bt.new("demo")["id"])
    before = bt.log(bid)

    def gone(*_args: object, **_kw: object) -> None:
        raise sa.exc.OperationalError("BEGIN", {}, Exception("server closed the connection"))

    real = battle_cli._battles

    def failing(db: str | None) -> object:
        found = real(db)
        monkeypatch.setattr(found.store.engine, "begin", gone)
        return found

    monkeypatch.setattr(battle_cli, "_battles", failing)
    code = main(["battle", "add-unit", bid, "--side", "A", "--name", "Tigers", "--db", db])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert err == (f"error: the database {db} failed: server closed the connection "
                   "(nothing was recorded)\n")
    assert bt.log(bid) == before
