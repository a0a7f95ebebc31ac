"""What every game's unit profiles share: the strict model base and the situation
(defined with the game object, :mod:`warroom.engine.game`)."""

from __future__ import annotations

from warroom.engine.game import Profile, Situation

__all__ = ["Profile", "Situation"]
