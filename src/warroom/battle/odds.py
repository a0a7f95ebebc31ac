"""Where a battle gets its exact odds and luck estimates: an :class:`OddsSource` handed
to :class:`~warroom.battle.core.Battles` (the web app and the command line hand it the
odds cache their pages share, :class:`warroom.serving.SharedOdds`), else
:class:`DirectOdds`, which works each out when asked. Either gives the same answers: a
cache only remembers them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from warroom.engine.procedure import Procedure
    from warroom.engine.results import Distribution, Estimate

LUCK_MARGIN = 0.02
"""The 95% margin of the estimate behind a battle roll's luck expectation past the exact
budget: 2,401 seeded samples, the same on every replay (a time cap made ``verify``
depend on the machine's speed)."""


class OddsSource(Protocol):
    def exact(self, proc: Procedure, params: Any) -> Distribution:
        """The exact odds (:class:`~warroom.errors.ExactTooLargeError` past the exact
        budget)."""
        ...

    def luck(self, proc: Procedure, params: Any) -> Estimate:
        """The seeded estimate of :data:`LUCK_MARGIN` behind a luck expectation past the
        exact budget."""
        ...


class DirectOdds:
    """Every answer worked out when asked, nothing remembered."""

    def exact(self, proc: Procedure, params: Any) -> Distribution:
        from warroom.engine import drivers

        return drivers.exact(proc, params)

    def luck(self, proc: Procedure, params: Any) -> Estimate:
        from warroom.engine import drivers

        return drivers.estimate(proc, params, margin=LUCK_MARGIN)
