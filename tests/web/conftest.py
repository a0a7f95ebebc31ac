"""Shared web fixtures: an in-process client, a real uvicorn server on loopback, and a
headless Debian Chromium driven by Playwright (never a downloaded browser).

The battle tests reuse ``server_url``, ``browser`` and ``page`` (and ``shot`` for
screenshots). Screenshots go to a temporary folder, so tests never rewrite tracked
files; ``make screenshots`` sets WARROOM_SCREENSHOTS=docs/screenshots to refresh them.
"""

from __future__ import annotations

import os
import socket
import tempfile
import threading
import time
import warnings
from collections.abc import Callable, Iterator
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


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real uvicorn server on 127.0.0.1 (a free port) in a background thread."""
    import uvicorn

    from warroom.web.app import create_app

    db = tmp_path_factory.mktemp("web") / "battles.sqlite3"
    port = free_port()
    config = uvicorn.Config(create_app(db), host="127.0.0.1", port=port, log_level="warning",
                            lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail("the uvicorn test server did not start")
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Headless Debian Chromium; the browser tests skip loudly when it is missing."""
    if not CHROMIUM.exists():
        message = (f"BROWSER TESTS SKIPPED: no Chromium at {CHROMIUM}. "
                   "Install it with: apt-get install -y chromium")
        warnings.warn(message, stacklevel=1)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

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
    """Save a full-page screenshot of ``page`` as <name>.png in SCREENSHOTS."""
    def save(pg: Any, name: str) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        pg.screenshot(path=str(path), full_page=True)
        return path

    return save
