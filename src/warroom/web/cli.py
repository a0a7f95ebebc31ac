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
            "--workers", min=1, help="Worker processes for exact odds (default: one per "
            "core).", show_default=False)] = None,
    ) -> None:
        """Start the web app: odds, rolls and battles in a browser (phone or laptop)."""
        import uvicorn

        from warroom.battle.store import resolve_url, shown_url
        from warroom.web.app import create_app

        db = resolve_url(database)  # where 'warroom battle' keeps them: one set of battles
        shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
        typer.echo(f"warroom is running at http://{shown}:{port}/  "
                   f"(battles kept in {shown_url(db)})")
        from warroom.web.security import exposed_warning

        if warning := exposed_warning(host, port):
            typer.echo(warning)
        typer.echo("Press Ctrl+C to stop.")
        from warroom.serving import Serving

        front = Serving(workers=workers, deadline=deadline, prestart=True)
        uvicorn.run(create_app(db, serving=front), host=host, port=port, log_level="warning")
