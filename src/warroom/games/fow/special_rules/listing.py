"""The FoW special rules that are procedures of their own, and the catalog as a table."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from warroom.engine.procedure import Procedure

__all__ = ["procedures", "rules_table"]


def procedures() -> tuple[Procedure, ...]:
    """The special rules that are procedures of their own, in display order."""
    from warroom.games.fow.special_rules import german, national, soviet

    return (*german.PROCEDURES, *soviet.PROCEDURES, *national.PROCEDURES)


def rules_table() -> dict[str, Any]:
    """The catalog as data for ``warroom rules fow``: special rule name -> its title,
    nation, one-line summary, the procedures whose odds it changes, and its status."""
    from warroom.games.fow.special_rules.catalog import RULES

    return {r.name: {"title": r.title, "nation": r.nation, "summary": r.summary,
                     "changes": list(r.changes), "status": r.status} for r in RULES}
