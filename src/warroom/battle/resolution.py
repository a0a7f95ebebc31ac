"""Resolving procedures in a battle: odds, preparing and rolling.

Dice: each battle has a secret seed; its sha256 (the commitment) is published in the
``created`` event, and the seed itself only when the battle ends. A virtual roll draws
from HMAC(seed, the state before the roll and the action): the same action in the same
place gives the same dice (undo and redo cannot re-roll), anything else fresh dice, and
nobody without the seed can foresee any of them. Dice typed in by players are recorded
with ``entered: true``.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import random
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from warroom.battle import effects as fx
from warroom.battle.base import Snapshot, commitment_of
from warroom.battle.base import fraction_text as _frac
from warroom.battle.base import jsonable as _jsonable
from warroom.battle.conflicts import Reads, Write, reads
from warroom.battle.errors import (
    AccessError,
    BattleError,
    OutOfActionError,
)
from warroom.battle.models import BattleOdds, Prepared
from warroom.battle.odds import DirectOdds, OddsSource
from warroom.battle.state import (
    MAX_TEXT,
    State,
    marker_kind,
)
from warroom.battle.writes import BattleWrites
from warroom.errors import UsageError

if TYPE_CHECKING:
    from warroom.engine.procedure import Procedure
    from warroom.engine.results import Distribution, Estimate


def roll_rng(secret: str, place: str) -> random.Random:
    """The generator of a virtual roll: HMAC of the battle's secret seed and the roll's
    place (the state before it and the action, :func:`roll_place`)."""
    digest = hmac.new(secret.encode(), place.encode(), hashlib.sha256).digest()
    return random.Random(int.from_bytes(digest, "big"))


def legacy_rng(seed: int, index: int) -> random.Random:
    """The generator of the ``index``-th roll of a battle made before dice were committed
    (its seed was public); kept so those battles still verify."""
    digest = hashlib.sha256(f"warroom-battle:{seed}:{index}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def roll_place(state: State, action: Mapping[str, Any]) -> str:
    """Where a roll is made: the digest of the state before it and the action itself."""
    return state.digest() + "|" + json.dumps(action, sort_keys=True, separators=(",", ":"))


class BattleResolution(BattleWrites):
    """Resolving a procedure in a battle: its parameters from the units, the odds before
    the roll (:meth:`odds`) and the roll itself (:meth:`do`)."""

    def procedure(self, game: str, proc_id: str) -> Procedure:
        """The procedure ``proc_id`` of this battle's ``game`` (refused when it belongs
        to another game)."""
        proc_game = proc_id.partition(".")[0]
        if proc_game and proc_game != game:
            raise BattleError("{procedure} is a procedure of {other!r}; this battle plays "
                              "{game!r}. Use one of: {valid}", procedure=proc_id,
                              other=proc_game, game=game,
                              valid=", ".join(self.game_procedures(game)))
        return self.registry.procedure(proc_id)

    def game_procedures(self, game: str) -> list[str]:
        """The ids of ``game``'s procedures (none for a game without rules here)."""
        try:
            return [p.id for p in self.registry.system(game).procedures]
        except UsageError:
            return []

    def do(self, battle_id: str, proc_id: str, raw: Mapping[str, Any] | None = None,
           dice: Sequence[object] | None = None, *, expect: int | None = None,
           by: str | None = None) -> dict[str, Any]:
        """Resolve a procedure in the battle and apply its outcome to the named unit."""
        raw = dict(raw or {})
        keys = {k: raw.pop(k) for k in fx.BATTLE_KEYS if k in raw}
        if dice is not None and len(dice) == 0:
            raise BattleError("--dice needs at least one die, e.g. --dice 3,5,6")
        secret: str | None = None
        if dice is None:
            with self.store.read() as conn:
                secret = self.store.battle_row(conn, battle_id).get("secret")

        def build(snap: Snapshot) -> dict[str, Any]:
            st = snap.state
            proc = self.procedure(st.game, proc_id)
            return self._resolve(st, proc, raw, keys, dice, by, secret)

        return self._write(battle_id, expect, self._roll_reads(keys), build, by)

    @staticmethod
    def _roll_reads(keys: Mapping[str, Any]) -> Reads:
        """What a roll reads: its acting units, its target and the target's supporters."""
        return reads(Write.ROLL, [*(name for name, _ in _acting(keys)),
                                  str(keys.get("target") or ""),
                                  *_names(keys.get("support"))])

    def _resolve(self, st: State, proc: Procedure, raw: Mapping[str, Any],
                 keys: Mapping[str, Any], dice: Sequence[object] | None,
                 by: str | None, secret: str | None) -> dict[str, Any]:
        params, extra, subject = self._prepare(st, proc, raw, keys, by)
        return self._run(st, proc, params, dice, extra, subject, secret)

    def _prepare(self, st: State, proc: Procedure, raw: Mapping[str, Any],
                 keys: Mapping[str, Any], by: str | None) -> tuple[Any, dict[str, Any], Any]:
        """The procedure's parameters in this battle (typed in, else from the units'
        profiles and markers, else from their stats), the event's battle fields and the
        unit the outcome falls on."""
        from warroom.engine.params import describe, validate

        acting = _acting(keys)
        actors = [st.unit(name) for name, _ in acting]
        actor = actors[0] if actors else None
        target = st.unit(str(keys["target"])) if keys.get("target") else None
        support = [st.unit(name) for name in _names(keys.get("support"))]
        _check_support(proc.id, actors, target, support)
        subject = target or actor
        gone = next((u for u in [*actors, target] if u is not None and u.out_of_action), None)
        if gone is not None:  # out of the game: it neither acts nor is a target
            raise OutOfActionError(gone.name)
        clear = str(keys["clear"]).strip().lower() if keys.get("clear") else None
        if clear is not None:
            if "passed" not in proc.fields:
                raise BattleError("clear= needs a test with a 'passed' outcome; "
                                  "{procedure} has none", procedure=proc.id)
            if subject is None:
                raise BattleError("clear= needs unit=NAME (whose marker to clear)")
            marker_kind(st.game, clear)
        if len({u.side for u in actors}) > 1:
            raise BattleError("units acting in one step are of one side: {units}",
                              units=", ".join(f"{u.name} ({u.side})" for u in actors))
        if len({u.name for u in actors}) < len(actors):
            raise BattleError("a unit is named twice among the acting units")
        if keys.get("side"):
            side = self._side(str(keys["side"]))
        elif actor is not None:
            side = actor.side
        elif target is not None:
            side = target.side
        else:
            side = st.side
        if by is not None:
            if keys.get("side") and side != by:
                raise AccessError("your link acts for side {by}, not {side}", by=by,
                                  side=side, code="not_your_side")
            for u in actors:
                self._own(by, u)
            if actor is None and target is not None and target.side != by:
                raise AccessError("name your acting unit (unit=) to roll against side "
                                  "{side}'s {unit}", code="not_your_unit",
                                  side=target.side, unit=target.name)
            side = by
        if len(actors) > 1 and proc.id not in _several():
            raise UsageError("{proc} takes one acting unit; several units act together in "
                             "{valid}", proc=proc.id, valid=", ".join(sorted(_several())))
        filled: dict[str, str]
        if _with_profiles(proc.id, actors, target):
            given, filled = self._from_profiles(st, proc.id, acting, actors, target, raw,
                                                support)
        elif support:
            raise BattleError("units supporting the target need their profiles (add them "
                              "with --from FILE:UNIT)")
        elif len(actors) > 1:
            raise BattleError("several units act together only with their profiles (add "
                              "them with --from FILE:UNIT), in {valid}",
                              valid=", ".join(sorted(_several())))
        else:
            names = [s.name for s in describe(proc.params)]
            given, filled = fx.fill_params(raw, names, actor, target, proc.id)
        params = validate(proc, given)
        extra: dict[str, Any] = {
            "unit": actor.name if actor else None,
            "target": target.name if target else None,
            "side": side, "clear": clear, "filled": filled, "given": dict(raw),
        }
        if len(actors) > 1:
            extra["units"] = [u.name for u in actors]
        if support:
            extra["support"] = [u.name for u in support]
        return params, extra, subject

    def _from_profiles(self, st: State, proc_id: str,
                       acting: Sequence[tuple[str, Mapping[str, Any]]], actors: Sequence[Any],
                       target: Any, raw: Mapping[str, Any], support: Sequence[Any] = ()
                       ) -> tuple[dict[str, Any], dict[str, str]]:
        """Parameters built by :func:`warroom.units.build` from the units' profiles, the
        markers on them (the target's supporting units' too) and what was typed in
        (which wins); where each came from, in English, as the event records it."""
        from warroom.units import ACTOR_KEYS, NEEDS, SEVERAL, build
        from warroom.units.forces import profile_model

        need_actor, need_target = NEEDS[proc_id]
        for u in [*(actors if need_actor else []), *([target] if need_target else []),
                  *support]:
            if u is not None and u.profile is None:
                raise BattleError("{unit} has no profile: add it with --from FILE:UNIT, "
                                  "or give the parameters yourself", unit=u.name)
        known = fx.marker_situation(st.game, proc_id, actors, target)
        names = list(self.registry.procedure(proc_id).param_names)
        known.update(fx.stat_overrides(proc_id, names, actors, target))
        own_keys = ACTOR_KEYS.get(proc_id, frozenset())
        items: list[Any] = []
        def named(u: Any) -> Any:  # the battle's name for the unit, in every source
            return profile_model(st.game, u.profile).model_copy(update={"name": u.name})

        for (_name, own), u in zip(acting, actors, strict=True):
            profile = named(u)
            if proc_id in SEVERAL:
                mine = {k: v for k, v in fx.actor_situation(proc_id, u).items()
                        if k in own_keys}
                items.append({"unit": profile, **mine, **own})
            elif own:
                raise BattleError("{procedure} takes one acting unit: give its situation "
                                  "as parameters", procedure=proc_id)
            else:
                known.update({k: (v, fx.marker_source(u, k))
                              for k, v in fx.actor_situation(proc_id, u).items()})
                items.append(profile)
        at: Any = named(target) if target is not None and target.profile is not None else None
        if support:
            at = [at, *({"unit": named(u), **fx.support_situation(proc_id, u)}
                        for u in support)]
        frm: Any = (items if proc_id in SEVERAL else items[0]) if items else None
        built = build(proc_id, frm, at, raw, known)
        filled = {k: _short(str(v)) for k, v in built.sources.items()}
        return built.params, filled

    def preview(self, battle_id: str, proc_id: str, raw: Mapping[str, Any] | None = None,
                *, by: str | None = None) -> tuple[Procedure, Any, dict[str, Any]]:
        """The procedure, its validated parameters and the rest of :meth:`prepare`."""
        raw = dict(raw or {})
        keys = {k: raw.pop(k) for k in fx.BATTLE_KEYS if k in raw}
        st = self.state(battle_id)
        proc = self.procedure(st.game, proc_id)
        params, extra, _subject = self._prepare(st, proc, raw, keys, by)
        return proc, params, extra

    def prepare(self, battle_id: str, proc_id: str, raw: Mapping[str, Any] | None = None,
                *, by: str | None = None) -> Prepared:
        """What :meth:`do` would resolve, without rolling: the procedure's parameters
        (from the units' profiles and markers where they have them), where each came
        from (``filled``), the acting units, the target and the side. For a form
        before the roll, and the odds of the whole step (:meth:`odds`)."""
        from warroom.engine.params import normalized

        proc, params, extra = self.preview(battle_id, proc_id, raw, by=by)
        return cast(Prepared, {"procedure": proc.id, "params": _jsonable(normalized(params)),
                               **extra})

    def odds(self, battle_id: str, proc_id: str, raw: Mapping[str, Any] | None = None,
             *, by: str | None = None) -> BattleOdds:
        """:meth:`prepare` and the exact odds of its parameters (the odds cache the pages
        share): ``{..., "odds": Distribution.to_json(exact=True, full=False)`` (each
        outcome with its ``exact`` fraction, ``"5/9"``; a long list summed up per field),
        ``"chances"`` (each field's values with their chances), ``"expected"}``.

        Past the exact budget, a Monte Carlo estimate of its full size (a 95% margin of
        half a percentage point) stands in: ``"odds"`` is then the estimate's JSON
        (``"estimate": true``, ``"margin"``) and the chances have no ``exact``."""
        from warroom.engine import drivers
        from warroom.errors import ExactTooLargeError

        proc, params, extra = self.preview(battle_id, proc_id, raw, by=by)
        try:
            dist = self.odds_source.exact(proc, params)
        except ExactTooLargeError:
            return self.odds_of(proc, params, extra, estimate=drivers.estimate(proc, params))
        return self.odds_of(proc, params, extra, exact=dist)

    def odds_of(self, proc: Procedure, params: Any, extra: Mapping[str, Any], *,
                exact: Distribution | None = None, estimate: Estimate | None = None,
                odds: Mapping[str, Any] | None = None) -> BattleOdds:
        """What :meth:`odds` answers, from the exact odds or the estimate standing in
        for them (worked out elsewhere: the web app's worker processes); ``odds``, their
        JSON when the caller has it."""
        from warroom.engine.params import normalized

        if exact is not None:
            dist = exact
            odds = exact.to_json(exact=True, full=False) if odds is None else odds
        else:
            assert estimate is not None, "the exact odds or an estimate"
            dist = estimate.as_distribution()
            odds = estimate.to_json(full=False) if odds is None else odds
        chances = {name: [{"value": v, "exact": _frac(p), "p": float(p)} if exact else
                          {"value": v, "p": float(p)}
                          for v, p in sorted(ch.items(), key=_value_order)]
                   for name, ch in dist.parts()}
        return cast(BattleOdds, {
            "procedure": proc.id, "params": _jsonable(normalized(params)), **extra,
            "odds": _jsonable(odds), "chances": _jsonable(chances),
            "expected": self._expected(proc, params, estimate, exact, self.odds_source)})

    def _run(self, st: State, proc: Procedure, params: Any, dice: Sequence[object] | None,
             extra: dict[str, Any], subject: Any, secret: str | None) -> dict[str, Any]:
        from warroom.engine import drivers
        from warroom.engine.params import normalized

        norm = normalized(params)
        extra = dict(extra)
        place = extra.pop("place", "shot")
        # a roll from before places (its action held its parameters) is drawn again with
        # the parameters it had: one added since then is left out of its action
        told = extra.pop("told", None)
        if dice is None:
            index: int | None = st.rolls
            action = norm if told is None else {k: v for k, v in norm.items() if k in told}
            res = drivers.roll(proc, params, rng=self._rng(st, proc.id, action, extra,
                                                           secret, place))
        else:
            index = None
            res = drivers.roll(proc, params, dice=dice)
        if dice is not None or st.commitment is None:
            place = None
        outcome = dict(res.outcome)
        return {**({"place": place} if place else {}),
            "kind": "resolved", "procedure": proc.id, "params": norm,
            **extra,
            "dice": list(res.dice), "entered": dice is not None, "roll_index": index,
            "outcome": outcome,
            "steps": [s.to_dict() for s in res.steps],
            "expected": self._expected(proc, params, odds=self.odds_source),
            "effects": fx.outcome_effects(st, proc.id, outcome, subject, extra["clear"],
                                          target_named=extra["target"] is not None),
        }

    @staticmethod
    def _rng(st: State, proc_id: str, params: Any, extra: Mapping[str, Any],
             secret: str | None, place: str | None = "shot") -> random.Random:
        """The generator of a virtual roll in this place (see :func:`roll_place`). With
        ``place`` "shot" the action is the shot, not its parameters (procedure, acting
        units, target, side): after an undo the same shot gets the same dice whatever
        parameter changed (range 20 cm or 39 cm); None: a roll from before, whose
        action held its parameters."""
        if st.commitment is None:  # an old battle: its seed was public from the start
            return legacy_rng(int(st.seed or 0), st.rolls)
        if st.ended:
            raise BattleError("the battle has ended and its dice seed is public: virtual "
                              "dice would be foreseeable; enter your dice")
        if secret is None or commitment_of(secret) != st.commitment:
            raise BattleError("this imported battle's dice seed stayed on the server that "
                              "made it: enter your dice")
        action = {"procedure": proc_id, "params": _jsonable(params), "unit": extra["unit"],
                  "target": extra["target"], "side": extra["side"]}
        if place == "shot":
            action = {"shot": proc_id, "units": extra.get("units") or [extra["unit"]],
                      "target": extra["target"], "side": extra["side"]}
        return roll_rng(secret, roll_place(st, action))

    @staticmethod
    def _expected(proc: Procedure, params: Any, est: Estimate | None = None,
                  dist: Distribution | None = None, odds: OddsSource | None = None
                  ) -> dict[str, str]:
        """Expectation of each numeric field (a bool: its chance of being true): exact
        (``dist``, else from ``odds``, the battles' odds source); for a question past the
        exact budget, a Monte Carlo estimate's mean (``est``, else the luck estimate of
        ``odds``; as a decimal, so it never reads as exact)."""
        from warroom.errors import ExactTooLargeError

        odds = odds or DirectOdds()

        kinds = {f.name: f.kind for f in proc.outcome}
        names = [n for n in proc.fields if kinds[n] in ("int", "bool")]
        if est is not None:
            return {name: f"{est.mean(name)[0]:.4f}" for name in names}
        try:
            dist = dist or odds.exact(proc, params)
        except ExactTooLargeError:
            est = odds.luck(proc, params)
            return {name: f"{est.mean(name)[0]:.4f}" for name in names}
        return {name: _frac(dist.mean(name)) for name in names}


def given_params(proc: Procedure, params: Mapping[str, Any]) -> dict[str, Any]:
    """A resolution's stored parameters less those at their default (to validate them
    again): they hold every default too, and given back as they are, a check that asks
    which were given (bkc.fire: attacks or attackers) would see them all."""
    fields = proc.params.model_fields
    return {k: v for k, v in params.items() if k not in fields or fields[k].default != v}


def _value_order(item: tuple[Any, Any]) -> tuple[int, Any]:
    """Numbers and flags in their order, words after them in theirs."""
    value = item[0]
    return (0, value) if isinstance(value, (int, float)) else (1, str(value))


def _several() -> frozenset[str]:
    from warroom.units import SEVERAL

    return frozenset(SEVERAL)


def _acting(keys: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The acting units of a ``do``: ``units`` (a list of names, or of mappings
    ``{"unit": NAME, **its own situation}``, or ``"A,B"``), else ``unit``."""
    raw = keys.get("units")
    if raw is None or raw == "" or raw == []:
        return [(str(keys["unit"]), {})] if keys.get("unit") else []
    if keys.get("unit"):
        raise BattleError("give the acting units once: unit=NAME or units=A,B")
    items = raw.split(",") if isinstance(raw, str) else list(raw)
    out: list[tuple[str, dict[str, Any]]] = []
    for item in items:
        if isinstance(item, Mapping):
            own = dict(item)
            name = own.pop("unit", None)
            if not isinstance(name, str) or not name.strip():
                raise BattleError("an acting unit given as a mapping names it under the "
                                  "key unit")
            out.append((name.strip(), own))
        elif str(item).strip():
            out.append((str(item).strip(), {}))
    if not out:
        raise BattleError("units= names the acting units: units=A,B")
    return out


def _names(raw: Any) -> list[str]:
    """Unit names given as a list or as ``"A,B"``."""
    if raw is None or raw == "" or raw == []:
        return []
    items = raw.split(",") if isinstance(raw, str) else list(raw)
    if not all(isinstance(i, str) for i in items):
        raise BattleError("support= names the units supporting the target: support=A,B")
    return [i.strip() for i in items if i.strip()]


def _check_support(proc_id: str, actors: Sequence[Any], target: Any,
                   support: Sequence[Any]) -> None:
    """The target's supporting units (``support=A,B``): for a procedure that takes them,
    of the target's side, each once, neither the target nor an acting unit."""
    from warroom.units import SUPPORTED

    if not support:
        return
    if proc_id not in SUPPORTED:
        raise BattleError("{proc} takes no units supporting the target; support= is for "
                          "{valid}", proc=proc_id, valid=", ".join(sorted(SUPPORTED)))
    if target is None:
        raise BattleError("support= needs target=NAME (the unit they support)")
    names = [u.name for u in support]
    if len(set(names)) < len(names) or target.name in names or \
            {u.name for u in actors} & set(names):
        raise BattleError("a unit is named twice among the target and its supporting units")
    for u in support:
        if u.side != target.side:
            raise BattleError("{unit} is side {side}'s: only the target's own side supports "
                              "it", unit=u.name, side=u.side)


def _with_profiles(proc_id: str, actors: Sequence[Any], target: Any) -> bool:
    """Whether ``do`` builds the parameters from the units' profiles: a procedure that
    takes units, and a unit with a profile in it."""
    from warroom.units import NEEDS

    return proc_id in NEEDS and (any(u.profile is not None for u in actors)
                                 or (target is not None and target.profile is not None))


def _short(text: str, most: int = MAX_TEXT) -> str:
    return text if len(text) <= most else text[:most - 1] + "…"
