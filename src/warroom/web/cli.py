"""``warroom serve``: the table-side web app (cheap to import: uvicorn loads on use)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer


def register(app: typer.Typer) -> None:
    """Add ``warroom serve`` to the command line."""

    @app.command()
    def serve(
        host: Annotated[str, typer.Option("--host", help="Address to listen on; 0.0.0.0 lets "
                                          "phones on the same network connect.")] = "127.0.0.1",
        port: Annotated[int, typer.Option("--port", help="Port to listen on.", min=1,
                                          max=65535)] = 8000,
        database: Annotated[Optional[str], typer.Option(  # noqa: UP045 - typer needs Optional
            "--db", help="Database file or SQLAlchemy URL for battles, the same as 'warroom "
            "battle --db' (default: WARROOM_DB, else the user data folder).",
            show_default=False)] = None,
        deadline: Annotated[float, typer.Option(
            "--deadline", min=0.0, help="Seconds a page waits for exact odds before it "
            "shows a Monte Carlo estimate (the exact odds replace it when they come).")
            ] = 0.5,
        workers: Annotated[Optional[int], typer.Option(  # noqa: UP045
            "--workers", min=1, help="Worker processes for exact odds, per server process "
            "(default: one per core).", show_default=False)] = None,
        processes: Annotated[int, typer.Option(
            "--processes", min=1, max=64, help="Server processes sharing the port (a club "
            "server: give --db a PostgreSQL URL; every process reads and writes the same "
            "battles).")] = 1,
        allowed_host: Annotated[Optional[list[str]], typer.Option(  # noqa: UP045
            "--allowed-host", help="Another name this server answers to (a posted form or "
            "API call naming any other Host is refused); also WARROOM_ALLOWED_HOSTS, "
            "comma-separated.", show_default=False)] = None,
        header_seconds: Annotated[float, typer.Option(
            "--header-timeout", min=0.1, help="Seconds a connection has to send its "
            "request's headers.")] = 10.0,
        max_connections: Annotated[int, typer.Option(
            "--max-connections", min=2, help="Open connections per server process; past "
            "it the oldest one still sending its headers is closed.")] = 400,
    ) -> None:
        """Start the web app: odds, rolls and battles in a browser (phone or laptop)."""
        import json
        import os

        from warroom.battle.store import resolve_url, shown_url
        from warroom.web import listen
        from warroom.web.app import create_app
        from warroom.web.security import allowed_hosts

        db = resolve_url(database)  # where 'warroom battle' keeps them: one set of battles
        shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
        typer.echo(f"warroom is running at http://{shown}:{port}/  "
                   f"(battles kept in {shown_url(db)})")
        from warroom.web.security import exposed_warning

        if warning := exposed_warning(host, port):
            typer.echo(warning)
        extra = [*(allowed_host or []),
                 *os.environ.get("WARROOM_ALLOWED_HOSTS", "").split(",")]
        hosts = allowed_hosts(host, extra)
        typer.echo("Press Ctrl+C to stop.")
        if processes > 1:
            os.environ[listen.CLUB_ENV] = json.dumps({
                "db": db, "deadline": deadline, "workers": workers,
                "allowed_hosts": sorted(hosts), "listen": [host, port]})
            listen.run("warroom.web.listen:club_app", host, port, processes=processes,
                       header_seconds=header_seconds, max_connections=max_connections)
            return
        from warroom.serving import Serving

        front = Serving(workers=workers, deadline=deadline, prestart=True)
        app = create_app(db, serving=front)
        app.state.allowed_hosts = hosts
        app.state.listen = (host, port)  # the links a page hands out (web/share.py)
        listen.run(app, host, port, header_seconds=header_seconds,
                   max_connections=max_connections)
