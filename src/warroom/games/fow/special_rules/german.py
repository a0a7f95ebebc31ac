"""german special rules that are procedures of their own."""

from __future__ import annotations

from warroom.engine.procedure import Procedure

PROCEDURES: tuple[Procedure, ...] = ()
