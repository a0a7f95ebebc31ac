from __future__ import annotations

import os
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "warroom",
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    max_examples=int(os.environ.get("WARROOM_HYPOTHESIS_EXAMPLES", "25")),
)
settings.load_profile("warroom")


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The slow tests first (browser walks, whole-suite oracles), in their order, then
    the rest: run in parallel (``make test``: pytest-xdist), the long ones start at once
    and the many short ones fill the workers in up to the end, instead of one long test
    starting last on a worker while the others wait."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[Any]:
    """An in-process HTTP client of a fresh app (battles in a temporary SQLite file)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from fastapi.testclient import TestClient

    from warroom.web.app import create_app

    with TestClient(create_app(tmp_path / "battles.sqlite3")) as c:
        yield c
