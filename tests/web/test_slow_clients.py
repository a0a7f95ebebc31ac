"""Issue #30: half-open connections cannot starve the server. A real ``warroom serve``
(its own process, its file descriptors limited to 200 so the test stays small) takes 250
connections whose headers never finish; a phone's request still gets its answer, and a
connection that never finishes its headers is closed after the header time limit."""

from __future__ import annotations

import resource
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.web.conftest import warroom_serve

pytestmark = pytest.mark.slow  # real server processes

SLOW = 250
"""Slow connections opened: more than the server's 200 file descriptors."""


def _low_fd_limit() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (200, 200))


def _get(port: int, path: str = "/static/app.js", wait: float = 5.0) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=wait) as s:
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                  .encode())
        data = b""
        while chunk := s.recv(65536):
            data += chunk
        return data


@pytest.fixture
def server(tmp_path: Path) -> Iterator[int]:
    with warroom_serve("--db", str(tmp_path / "b.db"), "--workers", "1",
                       "--max-connections", "60", "--header-timeout", "3",
                       preexec=_low_fd_limit) as port:
        yield port


def test_slow_headers_cannot_starve_the_server(server: int) -> None:
    slow: list[socket.socket] = []
    try:
        for _ in range(SLOW):
            try:
                s = socket.create_connection(("127.0.0.1", server), timeout=5)
            except OSError:
                continue  # the backlog may be full for a moment: the server keeps up
            s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")  # never finished
            slow.append(s)
        assert len(slow) > 200
        answered = 0
        for _ in range(5):
            start = time.monotonic()
            answered += _get(server).startswith(b"HTTP/1.1 200")
            assert time.monotonic() - start < 5
        assert answered == 5
        # the header time limit (3 s here): a connection that never finishes is closed
        last = slow[-1]
        last.settimeout(10)
        start = time.monotonic()
        try:
            closed = last.recv(1024) == b""
        except ConnectionResetError:
            closed = True
        assert closed and time.monotonic() - start < 8
    finally:
        for s in slow:
            s.close()
