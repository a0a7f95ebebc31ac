"""Shared web fixtures: an in-process client, a real uvicorn server on loopback, and a
headless Debian Chromium driven by Playwright (never a downloaded browser).

The battle tests reuse ``server_url``, ``browser`` and ``page`` (and ``shot`` for
screenshots). Screenshots go to a temporary folder; ``make screenshots`` sets
``WARROOM_SCREENSHOTS=docs/screenshots`` to refresh the ones in the docs.
"""

from __future__ import annotations

import os
import socket
import tempfile
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path(os.environ.get("WARROOM_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
SCREENSHOTS = Path(os.environ.get("WARROOM_SCREENSHOTS")
                   or Path(tempfile.gettempdir()) / "warroom-screenshots")
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}


EXPECT_MS = 15_000
"""How long Playwright's ``expect`` waits for a page to come round (its default is 5 s):
``make test`` runs the browser tests beside others on every core, where a page's
answer can take longer than on an idle machine. A wait, never a measure of speed."""


def patient_expect() -> None:
    """Give Playwright's ``expect`` :data:`EXPECT_MS` (each browser test's set-up)."""
    from playwright.sync_api import expect

    expect.set_options(timeout=EXPECT_MS)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


SLOW = 60.0
"""The deadline of the test apps: pages wait for exact odds (tests of the deadline make
their own app with a short one)."""


@pytest.fixture
def client(tmp_path: Path) -> Iterator[Any]:
    """An in-process HTTP client of a fresh app whose pages wait for exact odds."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from fastapi.testclient import TestClient

    from warroom.web.app import create_app

    with TestClient(create_app(tmp_path / "battles.sqlite3", deadline=SLOW)) as c:
        yield c


@contextmanager
def serve(app: Any) -> Iterator[str]:
    """Run ``app`` on a real uvicorn server on 127.0.0.1 (a free port) in a background
    thread; yields its address."""
    import uvicorn

    # the socket is bound here and handed over: no other test process (pytest -n) can
    # take the port between choosing it and listening on it
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = int(sock.getsockname()[1])
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                            lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail("the uvicorn test server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


@pytest.fixture(scope="session")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real uvicorn server on 127.0.0.1 (a free port) in a background thread."""
    from warroom.web.app import create_app

    db = tmp_path_factory.mktemp("web") / "battles.sqlite3"
    with serve(create_app(db, deadline=SLOW)) as url:
        yield url


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Headless Debian Chromium; the browser tests skip loudly when it is missing."""
    if not CHROMIUM.exists():
        message = (f"BROWSER TESTS SKIPPED: no Chromium at {CHROMIUM}. "
                   "Install it with: apt-get install -y chromium")
        warnings.warn(message, stacklevel=1)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    patient_expect()
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh phone-sized page (English unless a test switches)."""
    context = browser.new_context(viewport=PHONE, locale="en-US")
    pg = context.new_page()
    pg.set_default_timeout(10_000)
    yield pg
    context.close()


@pytest.fixture
def shot() -> Callable[[Any, str], Path]:
    """Save a full-page screenshot of ``page`` as <SCREENSHOTS>/<name>.png."""
    def save(pg: Any, name: str) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        pg.screenshot(path=str(path), full_page=True)
        return path

    return save


@contextmanager
def warroom_serve(*args: str, preexec: Callable[[], None] | None = None) -> Iterator[int]:
    """Run ``warroom serve`` with ``args`` in its own process on a free port of
    127.0.0.1 (``preexec`` runs in the child first: a lower file limit, say); yields the
    port once a static file answers, and stops the server after."""
    import subprocess
    import sys
    import urllib.request

    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "warroom", "serve", "--port", str(port), *args],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=preexec)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/static/app.js",
                                            timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline or proc.poll() is not None:
                err = proc.stderr.read().decode() if proc.stderr else ""
                pytest.fail(f"warroom serve did not start: {err}")
            time.sleep(0.2)
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
