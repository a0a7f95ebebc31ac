"""The OpenAPI document is the contract: schemathesis sends every ``/api/v1`` operation
generated requests in process, over ASGI, and checks every answer against the document
with its default checks: no server error, a documented status, a documented body, content
type and headers, invalid input refused, an unsupported method answered 405 with the
right ``Allow``.

One check is left out, ``positive_data_acceptance`` (every schema-valid request gets a
2xx): a request's validity depends on more than its shape, which no schema says: a
procedure's parameters depend on the procedure, a unit's name on the battle, a battle id
on the store. Those requests get a documented 4xx with the error body, which the other
checks hold to.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

schemathesis = pytest.importorskip("schemathesis")
from hypothesis import HealthCheck, settings  # noqa: E402
from schemathesis.specs.openapi.checks import (  # noqa: E402
    ignored_auth,
    positive_data_acceptance,
)

from warroom.web.app import create_app  # noqa: E402

EXAMPLES = 6
"""Generated requests per operation: few, so the whole run stays short."""

APP = create_app(None, deadline=5.0)
"""The app under test; its battle store is pointed at a temporary file before any test
runs (a battle store is opened on first use, never at import)."""
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)


@pytest.fixture(scope="module", autouse=True)
def _temporary_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    APP.state.database = Path(tmp_path_factory.mktemp("fuzz")) / "battles.sqlite3"
    yield
    found = getattr(APP.state, "battles", None)
    if found is not None:
        found.store.close()


@schema.include(path_regex=r"^/api/v1/").parametrize()
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
def test_every_v1_operation_answers_as_documented(case: Any) -> None:
    case.call_and_validate(excluded_checks=[positive_data_acceptance])


STEPS = 6
"""Calls per generated sequence of the stateful run."""
SEQUENCES = 12
"""Sequences the stateful run tries: few, so it stays within seconds."""


def test_sequences_of_battle_calls_answer_as_documented() -> None:
    """Stateful: sequences of calls following the document's links (a new battle, then
    what its two sides' keys can do with it: units, rolls, undo and its answer, the end,
    verify...), every answer checked as above, so a state a sequence reaches (an ended
    battle, a pending undo) never gives an undocumented answer or a 5xx. One more check
    is left out, ``ignored_auth`` (a call without its key must get 401 or 403): a
    missing key answers 404 ``no_such_battle``, deliberately, the same as an unknown
    battle, so nobody can probe which ids exist (the document says so)."""
    base = schema.include(path_regex=r"^/api/v1/").as_state_machine()

    class Machine(base):  # type: ignore[misc, valid-type]
        def validate_response(self, response: Any, case: Any,
                              additional_checks: Any = None, **kwargs: Any) -> None:
            case.validate_response(response, additional_checks=additional_checks,
                                   excluded_checks=[positive_data_acceptance,
                                                    ignored_auth],
                                   transport_kwargs=kwargs or None)

    Machine.run(settings=settings(max_examples=SEQUENCES, stateful_step_count=STEPS,
                                  deadline=None, derandomize=True,
                                  suppress_health_check=list(HealthCheck)))
