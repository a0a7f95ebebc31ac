"""The one error body of the API and of ``--json``."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from warroom.schema._base import _Model


class ErrorDetail(_Model):
    code: str = Field(description="stable machine-readable reason, e.g. unknown_procedure, "
                      "parameter, invalid_request, stale, no_such_battle, not_found",
                      examples=["unknown_procedure"])
    message: str = Field(description="one sentence for people (English on the API)")
    parameter: str | None = Field(description="the parameter or field it is about, if any")
    changes: list[dict[str, Any]] | None = Field(
        None, description="a stale write (409 stale): the events recorded since the "
        "`expect` counter that changed what the write reads (its units, the turn and phase "
        "for Next phase, the latest event for an undo), each as the log records it")


class ErrorBody(_Model):
    """Every error the API answers (4xx, and 5xx where the server cannot answer)."""

    error: ErrorDetail


def error_body(code: str, message: str, parameter: str | None = None) -> dict[str, Any]:
    """``{"error": {"code", "message", "parameter"}}``."""
    return {"error": {"code": code, "message": message, "parameter": parameter}}
