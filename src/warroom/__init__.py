"""warroom: an umpire for tabletop wargames.

Importing warroom registers nothing and imports no game system; the functions below
load what they need on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["odds", "roll", "rules", "simulate"]

if TYPE_CHECKING:
    from warroom.api import odds, roll, rules, simulate


def __getattr__(name: str) -> Any:
    if name in __all__:
        from warroom import api

        value = getattr(api, name)
        globals()[name] = value  # later look-ups skip this function
        return value
    raise AttributeError(name)
