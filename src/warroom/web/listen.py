"""How ``warroom serve`` listens: uvicorn with limits on half-open connections, and
several server processes over one database (a club server).

Uvicorn gives a connection as long as it likes to send its request's headers, and a
connection that never finishes them holds a file descriptor for ever: 1,100 of them
exhaust the usual 1,024 and nobody else gets in. :class:`GuardedH11` (uvicorn's h11
protocol) closes a connection whose headers have not all arrived within
:data:`HEADER_SECONDS`, and keeps at most ``max_connections`` open: a new one beyond it
closes the oldest connection still waiting for its headers (a request under way is never
cut), so a flood of slow clients cannot starve a phone at the table. Bodies have their
own time limit in the app (:data:`warroom.web.security.BODY_SECONDS`), and a whole
request its cap (:data:`warroom.web.security.REQUEST_SECONDS`). Idle keep-alive
connections close after :data:`KEEP_ALIVE_SECONDS`.

Nothing here runs at import: uvicorn loads on use.
"""

from __future__ import annotations

import os
from typing import Any

HEADER_SECONDS = 10.0
"""A request's headers must all arrive within this many seconds of the connection
opening (or of the previous answer, on a kept-alive connection)."""
MAX_CONNECTIONS = 400
"""Open connections one server process keeps at most (well under the usual limit of
1,024 file descriptors, with room for the database and the workers' pipes)."""
BACKLOG = 64
"""Connections waiting to be accepted (and accepted at once): small, so one burst of new
connections cannot take every file descriptor before the cap closes the oldest."""
KEEP_ALIVE_SECONDS = 5
"""An idle kept-alive connection closes after this many seconds."""

LIMITS_ENV = "WARROOM_LISTEN_LIMITS"
"""``HEADER_SECONDS,MAX_CONNECTIONS`` for the server processes (``warroom serve`` sets it
from its options; a process started by uvicorn's supervisor reads it)."""


def limits() -> tuple[float, int]:
    """The header time limit and the connection cap in force (:data:`LIMITS_ENV`)."""
    raw = os.environ.get(LIMITS_ENV, "")
    try:
        seconds, most = raw.split(",")
        return float(seconds), int(most)
    except ValueError:
        return HEADER_SECONDS, MAX_CONNECTIONS


PROTOCOL = "warroom.web.listen:GuardedH11"
"""The protocol as uvicorn's ``http`` option names it (each process imports it)."""
_BUILT: dict[str, type[Any]] = {}


def guarded_protocol() -> type[Any]:
    """Uvicorn's h11 protocol with the header time limit and the connection cap (built
    on first use: uvicorn is imported only then)."""
    if "GuardedH11" not in _BUILT:
        _BUILT["GuardedH11"] = _build()
    return _BUILT["GuardedH11"]


def __getattr__(name: str) -> Any:
    if name == "GuardedH11":
        return guarded_protocol()
    raise AttributeError(name)


def _build() -> type[Any]:
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class GuardedH11(H11Protocol):
        """See the module's description."""

        _header_timer: Any = None
        _waiting_since = 0.0

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            seconds, most = limits()
            self._arm(seconds)
            if len(self.connections) > most:
                waiting: list[Any] = [c for c in self.connections if c is not self
                                      and getattr(c, "_header_timer", None) is not None]
                victim: Any = min(waiting, key=lambda c: c._waiting_since, default=self)
                victim._drop()

        def data_received(self, data: bytes) -> None:
            idle = self.cycle is None or self.cycle.response_complete
            super().data_received(data)
            if self.cycle is not None and not self.cycle.response_complete:
                self._disarm()  # the headers are in: a request is under way
            elif idle and self._header_timer is None:
                self._arm(limits()[0])

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _arm(self, seconds: float) -> None:
            self._disarm()
            self._waiting_since = self.loop.time()
            self._header_timer = self.loop.call_later(seconds, self._drop)

        def _disarm(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _drop(self) -> None:
            self._disarm()
            if not self.transport.is_closing():
                self.transport.close()

    return GuardedH11


def run(app: Any, host: str, port: int, *, processes: int = 1,
        header_seconds: float = HEADER_SECONDS,
        max_connections: int = MAX_CONNECTIONS) -> None:
    """Serve ``app`` (an ASGI app, or with ``processes`` > 1 the import string of an app
    factory, e.g. ``warroom.web.listen:club_app``) with the limits above."""
    import uvicorn

    os.environ[LIMITS_ENV] = f"{header_seconds},{max_connections}"
    options: dict[str, Any] = {
        "host": host, "port": port, "log_level": "warning",
        "http": PROTOCOL, "timeout_keep_alive": KEEP_ALIVE_SECONDS,
        "h11_max_incomplete_event_size": 16 * 1024, "backlog": BACKLOG,
    }
    if processes > 1:
        uvicorn.run(app, factory=True, workers=processes, **options)
    else:
        uvicorn.run(app, **options)


CLUB_ENV = "WARROOM_CLUB"
"""JSON of ``create_app``'s settings for each process of a club server (``warroom serve
--processes N`` sets it: the database URL, the deadline, the odds workers, the allowed
hosts, the address and port it listens on)."""


def club_app() -> Any:
    """The app of one process of a club server (uvicorn's supervisor calls it in each
    process it starts): the settings come from :data:`CLUB_ENV`."""
    import json

    from warroom.serving import Serving
    from warroom.web.app import create_app

    settings = json.loads(os.environ.get(CLUB_ENV, "{}"))
    front = Serving(workers=settings.get("workers"), deadline=settings.get("deadline", 0.5),
                    prestart=True)
    app = create_app(settings.get("db"), serving=front)
    hosts = settings.get("allowed_hosts")
    app.state.allowed_hosts = None if hosts is None else frozenset(hosts)
    if settings.get("listen"):
        app.state.listen = tuple(settings["listen"])
    return app
