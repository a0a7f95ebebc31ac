"""Handing out a battle's links at the table: each as the full address a phone on the
same network opens, with a QR code made here (segno, as inline SVG: nothing is fetched
from elsewhere).

The address: the one this page was opened by when that is not this computer's own
loopback (a phone that reached it, or a name given with ``--allowed-host``, reaches it
again); else, when the server listens on every interface, this computer's address on
its network (:func:`warroom.web.security.lan_address`, the address ``warroom serve``
announces and answers to); else the loopback address, which no phone can open, and the
page says so and how to listen on every interface.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from fastapi import Request
from markupsafe import Markup

ALL_INTERFACES = ("0.0.0.0", "::")
"""What ``--host`` says to listen on every interface."""


@dataclass(frozen=True)
class Base:
    """Where the links point: ``url`` (scheme, host and port, no slash after) and, when
    only this computer can open it, why: ``"loopback"`` (the server listens on this
    computer's own address alone) or ``"offline"`` (it listens on every interface, but
    this computer has no network address)."""

    url: str
    local: str | None = None


def _loopback(host: str) -> bool:
    name = host.strip("[]").lower()
    return name in ("localhost", "::1") or name.startswith("127.")


def share_base(request: Request) -> Base:
    """The start of every link this page shows (see the module's description).
    ``app.state.listen`` holds the address and port ``warroom serve`` listens on; an
    app started otherwise (tests, a library's own server) goes by the request alone."""
    from warroom.web.security import lan_address

    own = urlsplit(str(request.base_url))
    host = own.hostname or "127.0.0.1"
    if not _loopback(host):
        return Base(f"{own.scheme}://{own.netloc}")
    listen: Any = getattr(request.app.state, "listen", None)
    why = "loopback"
    if listen is not None:
        listen_host, port = str(listen[0]), int(listen[1])
        if listen_host in ALL_INTERFACES:
            lan = lan_address()
            if lan is not None:
                return Base(f"http://{lan}:{port}")
            why = "offline"
        elif not _loopback(listen_host):
            shown = f"[{listen_host}]" if ":" in listen_host else listen_host
            return Base(f"http://{shown}:{port}")
    return Base(f"{own.scheme}://{own.netloc}", why)


def qr_svg(text: str) -> Markup:
    """``text`` as a QR code, an inline ``<svg>`` (dark modules on white, whatever the
    page's theme, so that a camera reads it)."""
    import segno

    out = io.BytesIO()
    segno.make(text, error="m").save(out, kind="svg", xmldecl=False, svgns=True,
                                     scale=4, border=2, dark="#000", light="#fff",
                                     svgclass="qr", lineclass=None, title=text,
                                     omitsize=True)  # a viewBox: the page sizes it
    return Markup(out.getvalue().decode())  # segno escapes the text it puts in the SVG


def share(request: Request, paths: Mapping[str, str]) -> dict[str, Any]:
    """What a page shows to hand out ``paths`` (who → path): each link in full with its
    QR code, and why only this computer can open them, if so (``local``:
    :attr:`Base.local`)."""
    base = share_base(request)
    return {"local": base.local,
            "links": [{"who": who, "url": base.url + path, "path": path,
                       "qr": qr_svg(base.url + path)} for who, path in paths.items()]}
