"""The shared core of Blitzkrieg Commander and Cold War Commander.

Each function here builds one procedure for a rule set: the rule is written once and
the numbers, tables and game-only parameters come from :class:`Rules` (the TOML data).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal

from pydantic import Field, model_validator

from warroom.engine.context import Dice
from warroom.engine.messages import Msg, msg, nmsg
from warroom.engine.procedure import OutcomeField, Params, Procedure, outcome
from warroom.engine.steps import Target
from warroom.errors import UsageError, counted
from warroom.games.commander import params as P
from warroom.games.commander.data import Call, ModSpec, Rules

Result = Literal["success", "failure", "bonus", "blunder"]
RESULTS = ("success", "failure", "bonus", "blunder")
PASSED = ("success", "bonus")


# ---------------------------------------------------------------- helpers
def modified(base: Target, specs: Iterable[ModSpec], values: Mapping[str, Any]) -> Target:
    """Apply data-declared modifiers to ``base``; flags of one group count once."""
    groups: set[str] = set()
    t = base
    for s in specs:
        amount = s.amount(dict(values))
        if not amount:
            continue
        if s.group:
            if s.group in groups:
                continue
            groups.add(s.group)
        t = t.plus(amount, s.label)
    return t


def classify(pair: tuple[int, int], cv: int) -> Result:
    """A 2d6 command roll (sorted): double 1 always passes with a bonus, double 6 is
    always a blunder, otherwise it passes when the total is at most the modified CV."""
    if pair == (1, 1):
        return "bonus"
    if pair == (6, 6):
        return "blunder"
    return "success" if pair[0] + pair[1] <= cv else "failure"


def command_roll(rules: Rules, call: Call, d: Dice, t: Target, rule: str,
                 compact: bool = False) -> tuple[Result, int]:
    """Roll 2d6 against the modified CV; on a blunder roll its table. -> (result, d6).
    ``compact``: exact odds follow only the result, not each of the 21 rolls (for a
    chain that goes on after the test)."""
    if compact:
        def test(dd: Dice) -> str:
            pair = dd.dice(2, view="sorted", rule=rule, what="2d6 command test", target=t)
            return classify(pair, t.final)

        result: Result = d.one(test, RESULTS, rule=rule,  # type: ignore[assignment]
                               what="the call")
        pair = (0, 0)
    else:
        pair = d.dice(2, view="sorted", rule=rule, what="2d6 command test", target=t)
        result = classify(pair, t.final)
    blunder = 0
    if result == "bonus":
        d.note(rule + ".bonus", "double 1: command bonus, {effect}", effect=Msg(call.bonus))
    elif result == "blunder":
        table = call.blunder_table
        blunder = d.die(rule=f"{rules.id}.blunder.{table}", what="blunder table d6")
        entry = rules.blunder(table, blunder)
        d.note(f"{rules.id}.blunder.{table}", "double 6: blunder, table entry {face}: {title} "
               "{effect}", face=blunder, title=Msg(entry.title), effect=Msg(entry.text))
    elif compact:
        d.note(rule, "against command value {cv}: {outcome}", cv=t.final, outcome=Msg(result))
    else:
        d.note(rule, "{total} against command value {cv}: {outcome}", total=sum(pair),
               cv=t.final, outcome=Msg(result))
    return result, blunder


def _proc(rules: Rules, name: str, title: str, summary: str, params: type[Params],
          fields: tuple[OutcomeField, ...], run: Callable[[Any, Dice], dict[str, Any]],
          note: str = "", cost: Callable[[Any], int] | None = None) -> Procedure:
    return Procedure(f"{rules.id}.{name}", title, summary, params, fields,
                     run, rules.source, note, cost=cost)


def _mods(t: Target) -> list[Msg]:
    """A target's modifiers as short texts: "+1 charging"."""
    return [msg("{value} {reason}", value=f"{m.value:+d}", reason=m.reason)
            for m in t.modifiers]


def _values(p: Params) -> dict[str, Any]:
    return p.model_dump()


# ---------------------------------------------------------------- command
def command(rules: Rules) -> Procedure:
    call = rules.command
    params = P.build(f"{rules.id.upper()}CommandParams", P.CommandBase,
                     P.spec_fields(call.modifiers))

    def run(p: P.CommandBase, d: Dice) -> dict[str, Any]:
        t = modified(Target.of(p.cv, "command value", "at_most"), call.modifiers, _values(p))
        result, blunder = command_roll(rules, call, d, t, f"{rules.id}.command")
        return {"result": result, "blunder": blunder, "modified_cv": t.final}

    return _proc(rules, "command", "command test",
                 "Give an order: 2d6 at or under the modified command value; double 1 is a "
                 "command bonus, double 6 a blunder.", params,
                 outcome(OutcomeField("result", "str", "how the test went", RESULTS),
                         ("blunder", "int", "the d6 rolled on the blunder table (0 if none)"),
                         ("modified_cv", "int", "command value after modifiers")),
                 run, "Double 1 passes and double 6 blunders whatever the modified value.")


def orders(rules: Rules) -> Procedure:
    call = rules.command
    per_order = [s for s in call.modifiers if s.per_order]
    others = [s for s in call.modifiers if not s.per_order]
    params = P.build(f"{rules.id.upper()}OrdersParams", P.OrdersBase, P.spec_fields(others))

    def run(p: P.OrdersBase, d: Dice) -> dict[str, Any]:
        values = _values(p)
        given = 0
        stopped: str = "none"
        for i in range(1, p.orders + 1):
            for s in per_order:
                values[s.param] = i
            t = modified(Target.of(p.cv, "command value", "at_most"), call.modifiers, values)
            cv = t.final

            def one(dd: Dice, cv: int = cv, t: Target = t, i: int = i) -> str:
                pair = dd.dice(2, view="sorted", rule=f"{rules.id}.orders", target=t,
                               what=f"2d6 for order {i}")
                result = classify(pair, cv)
                return "given" if result in PASSED else result

            # one category per order keeps the exact odds linear in the number of orders
            got = d.one(one, ("given", "failure", "blunder"), rule=f"{rules.id}.orders",
                        what="command test")
            if got != "given":
                stopped = got
                d.note(f"{rules.id}.orders", "order {i} against {cv}: {outcome}; the chain "
                       "stops", i=i, cv=cv, outcome=Msg(stopped))
                break
            given += 1
            d.note(f"{rules.id}.orders", "order {i} against {cv}: given", i=i, cv=cv)
        return {"orders": given, "stopped_by": stopped}

    return _proc(rules, "orders", "chain of orders",
                 "How many successive orders one commander gets off to the same unit "
                 "before the first failure, each order after the first at -1.", params,
                 outcome(("orders", "int", "orders given before the first failure"),
                         OutcomeField("stopped_by", "str", "what ended the chain (none = "
                                      "every order given)", ("none", "failure", "blunder"))),
                 run, "A blunder ends the chain like a failure; roll its table with "
                      "the command procedure.")


# ---------------------------------------------------------------- artillery and air calls
def support_call(rules: Rules, kind: Literal["artillery", "air"]) -> Procedure:
    call = rules.artillery if kind == "artillery" else rules.air
    who = "FAO" if kind == "artillery" else "FAC"
    params = P.build(f"{rules.id.upper()}{kind.title()}CallParams", P.CallBase,
                     P.spec_fields(call.modifiers))

    def run(p: P.CallBase, d: Dice) -> dict[str, Any]:
        return call_test(rules, kind, _values(p), d)

    title = "artillery call (FAO)" if kind == "artillery" else "air support call (FAC)"
    summary = (f"The {who} calls for {'fire' if kind == 'artillery' else 'an air strike'}: "
               "a command test with the card's modifiers, its own blunder table, then "
               "deviation.")
    return _proc(rules, f"{kind}_call", title, summary, params,
                 outcome(OutcomeField("result", "str", "how the call went", RESULTS),
                         ("blunder", "int", "the d6 rolled on the blunder table (0 if none)"),
                         ("modified_cv", "int", "command value after modifiers"),
                         ("deviation_cm", "int", "how far the strike drifts, in cm (0 = on "
                          "target or no strike)"),
                         ("direction", "int", "the direction die's face when the strike "
                          "drifts (0 = no drift)")),
                 run, "The direction die is rolled as a plain d6 whose face the players "
                      "read off their direction (scatter) die.")


def call_test(rules: Rules, kind: Literal["artillery", "air"], values: Mapping[str, Any],
              d: Dice, compact: bool = False) -> dict[str, Any]:
    """The FAO's or FAC's command test, then the deviation of a strike that comes.
    ``compact`` (a chain going on after the call): exact odds follow the test's result
    and the deviation's distance only, not each roll and direction."""
    call = rules.artillery if kind == "artillery" else rules.air
    who = "FAO" if kind == "artillery" else "FAC"
    rule = f"{rules.id}.{kind}_call"
    t = modified(Target.of(values["cv"], msg("{who} command value", who=who), "at_most"),
                 call.modifiers, values)
    result, blunder = command_roll(rules, call, d, t, rule, compact)

    def drift(s: tuple[int, int], dd: Dice) -> tuple[int, int]:
        cm = _deviate(call, values, result, dd, rule + ".deviation")
        face = 0
        if cm > 0:
            face = dd.die(rule=rule + ".direction", what="direction die")
            dd.note(rule + ".direction", "the strike drifts {cm} cm the way the direction "
                    "die points (face {face})", cm=cm, face=face)
        return (cm, 0 if compact else face)

    deviation = direction = 0
    if result in PASSED and call.deviation is not None:
        if compact:  # one round: its distribution is worked out once, directions merged
            deviation, _ = d.iterate((0, 0), drift, rounds=1)
        else:
            deviation, direction = drift((0, 0), d)
    if result in PASSED:
        d.note(rule + ".area", "target area: {area}", area=Msg(call.area))
    return {"result": result, "blunder": blunder, "modified_cv": t.final,
            "deviation_cm": deviation, "direction": direction}


def _deviate(call: Call, values: Mapping[str, Any], result: str, d: Dice, rule: str) -> int:
    dev = call.deviation
    assert dev is not None
    if result == "bonus" and dev.on_bonus == "none":
        d.note(rule, "command bonus: no deviation")
        return 0
    if dev.method == "fixed":
        total = int(d.dice(dev.dice, view="sum", rule=rule, what="deviation dice"))
        if dev.double_if and values.get(dev.double_if):
            total *= 2
            d.note(rule, "deviation doubled: {cm} cm", cm=total)
        if result == "bonus":
            total //= 2
            d.note(rule, "command bonus: deviation halved (rounded down) to {cm} cm", cm=total)
        return total
    distance = int(values[dev.distance_param])
    n = -(-distance // dev.per_cm)
    if dev.extra_die_if and values.get(dev.extra_die_if):
        n += 1
    if dev.fewer_die_if and values.get(dev.fewer_die_if):
        n -= 1
    if n <= 0:
        d.note(rule, "no deviation dice: the strike lands on target")
        return 0
    return int(d.dice(n, view="sum", rule=rule, what="deviation dice"))


# ---------------------------------------------------------------- anti-aircraft fire
def aa_fire(rules: Rules) -> Procedure:
    aa = rules.aa

    def run(p: P.AABase, d: Dice) -> dict[str, Any]:
        return aa_attack(rules, p.attacks, p.hits_value, p.aircraft_attack, d)

    return _proc(rules, "aa_fire", "anti-aircraft fire",
                 f"AA fire at one aircraft: hits on {aa.hit_score}+, shot down at its hits "
                 f"value, an abort roll per hit ({aa.abort_score}+ aborts), attack -1 per hit.",
                 P.AABase,
                 outcome(("hits", "int", "AA hits on the aircraft"),
                         ("shot_down", "bool", "hits reached its hits value"),
                         ("aborted", "bool", "an abort roll succeeded"),
                         ("attack_left", "int", "its attack value if it carries on (0 if "
                          "shot down or aborted)")),
                 run)


def aa_attack(rules: Rules, attacks: int, hits_value: int, aircraft_attack: int, d: Dice
              ) -> dict[str, Any]:
    """AA fire at one aircraft: hits, shot down, abort rolls, the attack it keeps."""
    aa = rules.aa
    rule = f"{rules.id}.aa_fire"
    d.note(rule, "who fires: {who}", who=Msg(aa.who))
    hits = int(d.pool(attacks, Target.of(aa.hit_score, "AA fire hits"), rule=rule,
                      what="AA dice"))
    shot_down = hits >= hits_value
    aborted = False
    if shot_down:
        d.note(rule, nmsg("one hit against hits value {value}: shot down",
                          "{n} hits against hits value {value}: shot down", n=hits,
                          value=hits_value))
    elif hits:
        aborts = d.pool(hits, Target.of(aa.abort_score, "abort roll"),
                        rule=rule + ".abort", what="abort rolls")
        aborted = bool(aborts)
        if aborted:
            d.note(rule + ".abort", "the aircraft aborts its mission")
    left = 0 if shot_down or aborted else max(0, aircraft_attack - hits)
    if not (shot_down or aborted):
        d.note(rule, "the aircraft attacks with {left}", left=left)
    return {"hits": hits, "shot_down": shot_down, "aborted": aborted, "attack_left": left}


# ---------------------------------------------------------------- fire
def _fire_check(v: Mapping[str, Any]) -> None:
    """The card's fire modifiers that the target's own description rules out."""
    if v.get("afv_vs_soft_20") and v["armoured"]:
        raise ValueError("afv_vs_soft_20 is the +1 for an AFV firing at an unarmoured target "
                         "within 20 cm: this target is armoured")
    if v.get("open_topped") and not v["armoured"]:
        raise ValueError("open_topped describes an armoured target: set armoured=true as well")


def fire(rules: Rules) -> Procedure:
    f = rules.fire
    g = rules.id
    fields = {**P.spec_fields(f.modifiers), **P.flag_fields(f.flags),
              "cover": P.cover_field(f.cover, "the target's cover"),
              "target_hq": (bool, Field(False, description=f.hq_help))}
    params = P.build(f"{g.upper()}FireParams", P.FireBase, fields,
                     lambda p: _fire_check(_values(p)))
    damage_keys = tuple(dict.fromkeys(["none", *(e.key for e in f.damage)]))

    def run(p: P.FireBase, d: Dice) -> dict[str, Any]:
        units = p.units()
        if p.attacks_roll == "d6":
            units = (d.die(rule=f"{g}.fire.attacks", what="attack value d6"),)
        elif p.attacks_roll == "2d6":
            units = (int(d.dice(2, view="sum", rule=f"{g}.fire.attacks",
                                what="attack value 2d6")),)
        return attack(rules, _values(p), units, d)

    out_fields = outcome(
        ("hits", "int", "unsaved hits from this attack"),
        ("destroyed", "bool", "removed by hits, or by retreating too far"),
        ("suppressed", "bool", "suppressed after this attack (false if destroyed)"),
        ("retreat_cm", "int", "how far an already suppressed unit retreats"))
    if damage_keys != ("none",):
        out_fields = (*out_fields, OutcomeField(
            "damage", "str", "damage to armour or an anti-tank gun with 4+ hits this turn",
            damage_keys))
    note = ("A save of 1 cancels every hit. Any die at or above the hit score suppresses. "
            "The card's hit score for indirect fire on full armour (6) is used. A blunder "
            "that attacks a unit with a d6 (or 2d6) of dice is this procedure with "
            "attacks_roll=d6 (2d6), and hit_on where the blunder fixes the hit score.")
    return _proc(rules, "fire", "fire at one unit",
                 "One attack on one unit by the card's eight steps: to hit, saves, hits "
                 "value, suppression, and retreat of an already suppressed unit.", params,
                 out_fields, run, note)


def attack_dice(rules: Rules, values: Mapping[str, Any], units: tuple[int, ...],
                d: Dice) -> int:
    """Steps 1 and 2: each attacking unit's attack value with the fire modifiers
    applied to it (the card applies them per attacking unit); the dice are their sum."""
    g = rules.id
    each = [modified(Target.of(a, "attack value"), rules.fire.modifiers, values)
            for a in units]
    n = sum(max(0, t.final) for t in each)
    if len(units) > 1:
        d.note(f"{g}.fire.attacks", nmsg(
            "{n} unit fires, the modifiers applied to it: {dice} = {total} attack dice",
            "{n} units fire together, the modifiers applied to each unit: {dice} = {total} "
            "attack dice", n=len(units), dice=" + ".join(str(max(0, t.final)) for t in each),
            total=n))
    if each[0].modifiers and len(units) > 1:
        d.note(f"{g}.fire.attacks", "modifiers for each unit: {mods}", mods=_mods(each[0]))
    elif each[0].modifiers:
        d.note(f"{g}.fire.attacks", "attack dice: {n} ({mods})", n=n, mods=_mods(each[0]))
    return n


def attack(rules: Rules, values: Mapping[str, Any], units: tuple[int, ...], d: Dice
           ) -> dict[str, Any]:
    """The card's eight steps of one attack on one unit by the given attacking units."""
    f = rules.fire
    g = rules.id
    score = hit_score(rules, values)
    n = attack_dice(rules, values, units, d)
    marker = values["attack_marker"]
    blocked = (marker == "*" and values["armoured"]) or (marker == "#" and not values["armoured"])
    raw: Any = 0
    if blocked:
        d.note(f"{g}.fire.marker", "an attack marked {mark} cannot hit this target", mark=marker)
    else:
        raw = d.pool(n, score, rule=f"{g}.fire.hit", what="attack dice")
    hits = raw
    if values["save"] and raw:
        save = Target.of(values["save"], "save")
        worse = [name for name in f.armoured_save_worse if values.get(name)]
        if values["armoured"] and worse:
            save = save.plus(1, "armour hit in the flank or rear, or by ground-attack "
                                "aircraft or dive bombers")
        hits = raw - d.pool(raw, save, rule=f"{g}.fire.save", what="saves")
    h = int(hits)
    out = resolve_hits(rules, values, h, score, d)
    if f.damage:
        out["damage"] = _damage(rules, values, h, out["destroyed"], d)
    return out


def hit_score(rules: Rules, values: Mapping[str, Any]) -> Target:
    """The score needed to hit the target, with every step of the reasoning."""
    f = rules.fire
    covers = list(f.cover)
    cover = str(values["cover"])
    t = Target.of(f.cover[cover], msg("target in {cover}", cover=Msg(cover)))
    if values["target_recce"] and f.recce_cover_shift:
        better = covers[min(len(covers) - 1, covers.index(cover) + f.recce_cover_shift)]
        t = t.plus(f.cover[better] - t.final,
                   msg("recce: cover counts as {better}", better=Msg(better)))
    if values["indirect"] and values["armoured"]:
        need = f.indirect_open_topped if values.get("open_topped") else f.indirect_full_armour
        if need > t.final:
            t = t.plus(need - t.final, "armour under indirect fire")
    if f.flamer_score is not None and values.get("flamethrower_or_sniper"):
        t = t.plus(f.flamer_score - t.final, "vehicle flamethrower or sniper")
    if f.suppressive_score is not None and values.get("suppressive"):
        t = t.plus(f.suppressive_score - t.final, "suppressive fire")
    if values["target_hq"]:
        t = t.plus(f.hq_score - t.final, "HQ target")
    if values.get("hit_on"):
        t = t.plus(values["hit_on"] - t.final, "hit score fixed by the blunder")
    return t


def resolve_hits(rules: Rules, values: Mapping[str, Any], h: int, score: Target, d: Dice
                 ) -> dict[str, Any]:
    """Steps 5 to 8: hits value, suppression, retreat of a suppressed unit."""
    g = rules.id
    total = int(values["existing_hits"]) + h
    already = bool(values["suppressed"])
    out: dict[str, Any] = {"hits": h, "destroyed": False, "suppressed": already,
                           "retreat_cm": 0}
    if total >= values["hits_value"]:
        d.note(f"{g}.fire.destroyed", nmsg("one hit reaches hits value {value}: destroyed",
                                           "{n} hits reach hits value {value}: destroyed",
                                           n=total, value=values["hits_value"]))
        out.update(destroyed=True, suppressed=False)
        return out
    if h == 0:
        d.note(f"{g}.fire.suppression", "no hits: nothing changes")
        return out
    if not already and values.get("skip_suppression"):
        d.note(f"{g}.fire.suppression", "the unit has already acted: no suppression test")
        return out
    if not already:
        top = d.dice(h, view="max", rule=f"{g}.fire.suppression", what="suppression dice",
                     target=score)
        out["suppressed"] = top >= score.final
        d.note(f"{g}.fire.suppression", "highest die {top} against {at}: {outcome}", top=top,
               at=score.final, outcome=Msg("suppressed") if out["suppressed"] else
               Msg("not suppressed"))
        return out
    cm = int(d.dice(h, view="sum", rule=f"{g}.fire.retreat", what="retreat dice"))
    out["retreat_cm"] = cm
    limit = rules.fire.retreat_limit_cm
    if cm > limit and not values["target_recce"]:
        d.note(f"{g}.fire.retreat", "already suppressed: retreats {cm} cm, more than {limit} "
               "cm: eliminated", cm=cm, limit=limit)
        out.update(destroyed=True, suppressed=False)
    elif values["dug_in"]:
        out["retreat_cm"] = 0
        d.note(f"{g}.fire.retreat", "dug in or unlimbered: {cm} cm is not beyond {limit} cm, "
               "so it stays put", cm=cm, limit=limit)
    else:
        d.note(f"{g}.fire.retreat", "already suppressed: retreats {cm} cm from the attacker",
               cm=cm)
    return out


def _damage(rules: Rules, values: Mapping[str, Any], h: int, destroyed: bool, d: Dice) -> str:
    f = rules.fire
    before = int(values["existing_hits"])
    eligible = values["armoured"] or values.get("anti_tank")
    if destroyed or not eligible or not before < f.damage_threshold <= before + h:
        return "none"
    face = d.die(rule=f"{rules.id}.fire.damage", what="damage d6")
    entry = next(e for e in f.damage if face in e.faces)
    d.note(f"{rules.id}.fire.damage", "damage roll {face}: {effect}", face=face,
           effect=Msg(entry.text))
    return entry.key


# ---------------------------------------------------------------- assault
OPEN_AFV_READINGS = ("open_topped", "in_open")
SUPPORT_READINGS = ("card", "each_fights")
SUPPORT_FLAGS = ("suppressed", "flanked")
# who may not support (CWC reference card, assault): each flag names a broken condition
SUPPORT_BAR_TEXT = {
    "hq": "supporting unit {unit}:hq: HQs cannot support an assault (the card)",
    "recce": "supporting unit {unit}:recce: recce units cannot support an assault (the card)",
    "sniper": "supporting unit {unit}:sniper: snipers cannot support an assault (the card)",
    "far": "supporting unit {unit}:far: a supporter must be within 10 cm (the card)",
    "unseen": "supporting unit {unit}:unseen: a supporter must see the fight (the card: "
              "line of sight)",
}
MAX_SUPPORTERS = 10


def supporters(rules: Rules, text: str) -> tuple[tuple[str, frozenset[str]], ...]:
    """'infantry,afv:suppressed' -> each supporting unit's type and its flags."""
    a = rules.assault
    parts = [x.strip() for x in text.split(",")] if text.strip() else []
    if len(parts) > MAX_SUPPORTERS:
        raise UsageError(counted("at most {n} supporting unit a side",
                                 "at most {n} supporting units a side", n=MAX_SUPPORTERS))
    out = []
    known = (*SUPPORT_FLAGS, *a.support_bars)
    for part in parts:
        unit, *flags = [x.strip() for x in part.split(":")]
        if unit not in a.values:
            raise UsageError("supporting unit {unit!r}: the type is one of {types}",
                             unit=unit, types=", ".join(a.values))
        for f in flags:
            if f not in known:
                raise UsageError("supporting unit {unit}: {flag!r} is not one of {flags}",
                                 unit=unit, flag=f, flags=", ".join(known))
        out.append((unit, frozenset(flags)))
    return tuple(out)


def assault(rules: Rules) -> Procedure:
    a = rules.assault
    g = rules.id
    types = list(a.values)
    fields: dict[str, Any] = {
        **P.spec_fields(a.modifiers),
        "attacker": P.type_field(types, a.default_attacker, "the attacking unit's type"),
        "defender": P.type_field(types, a.default_defender, "the defending unit's type"),
        "attacker_cover": P.cover_field(rules.fire.cover, "cover the attacker stands in"),
        "defender_cover": P.cover_field(rules.fire.cover, "cover the defender stands in"),
    }
    example = f"{a.default_attacker},{a.armour_types[0]}:suppressed"
    for side in ("attacker", "defender"):
        fields[f"{side}_supporting"] = (str, Field("", description=(
            f"the units supporting the {side}, one each, comma-separated: its type, then "
            f"its own state after colons ({', '.join(SUPPORT_FLAGS + a.support_bars)}), "
            f"e.g. {example}; instead of {side}_support"),
            examples=["", example, f"{a.default_attacker}:flanked"]))
    fields["support_reading"] = (P.choice(SUPPORT_READINGS), Field("card", description=(
        "card: each supporting unit adds what the card says (BKC one hit, CWC one attack "
        "die); each_fights: each supporting unit rolls its own attack value with its own "
        "modifiers (its type, against armour, suppressed, flanked)")))
    rounds = a.draw == "another_round"
    if rounds:
        fields["max_rounds"] = (int, Field(10, ge=1, le=20, description=(
            "rounds to fight at most while the hits stay equal (the card: another round)")))
        fields["charge_every_round"] = (bool, Field(False, description=(
            "the +1 for charging counts in every round, not only the first (the card does "
            "not say; by default the charge is the move into contact, so round 1 only)")))
    if a.anti_armour_needs == "open_afv":
        fields["attacker_open_topped"] = (bool, Field(False, description=(
            "the attacker is an open-topped AFV")))
        fields["defender_open_topped"] = (bool, Field(False, description=(
            "the defender is an open-topped AFV")))
        fields["open_afv_reading"] = (P.choice(OPEN_AFV_READINGS), Field(
            "open_topped", description=(
                "how the card's 'open AFV' is read for the infantry bonus: open_topped (the "
                "card's own use of the word) or in_open (an AFV standing in open terrain, "
                "the old reading)")))
    params = P.build(f"{g.upper()}AssaultParams", P.AssaultBase, fields,
                     lambda p: _assault_check(rules, _values(p)))
    draw = "both_fall_back" if a.draw == "fall_back_3d6" else "another_round"

    def run(p: P.AssaultBase, d: Dice) -> dict[str, Any]:
        values = _values(p)
        if not rounds:
            att = _side_hits(rules, values, "attacker", "defender", d)
            dfn = _side_hits(rules, values, "defender", "attacker", d)
            return _assault_result(rules, draw, values, att, dfn, d)

        later = {**values, "charge": values["charge"] and values["charge_every_round"]}

        def fight(s: tuple[str, int, int, int], dd: Dice) -> tuple[str, int, int, int]:
            now = values if s[3] == 0 else later
            att = _side_hits(rules, now, "attacker", "defender", dd)
            dfn = _side_hits(rules, now, "defender", "attacker", dd)
            last = s[3] + 1 >= values["max_rounds"]
            if att == dfn and last:
                dd.note(f"{g}.assault.draw", "round {n}: equal hits, and that was the last "
                        "round asked for", n=s[3] + 1)
            elif att == dfn:
                dd.note(f"{g}.assault.draw", "round {n}: equal hits, fight another round",
                        n=s[3] + 1)
                # later rounds do not depend on a draw's hits: states merge
                return ("draw", 0, 0, s[3] + 1)
            return ("draw" if att == dfn else "decided", att, dfn, s[3] + 1)

        _, att, dfn, n = d.iterate(("draw", 0, 0, 0), fight, rounds=values["max_rounds"],
                                   done=lambda s: s[0] != "draw")
        out = _assault_result(rules, draw, values, att, dfn, d)
        out["rounds"] = n
        return out

    fields_out = outcome(OutcomeField("winner", "str", "who scored more hits",
                                      ("attacker", "defender", "draw")),
                         ("attacker_hits", "int", "hits the attacker scored on the defender"
                          + (" in the deciding round" if rounds else "")),
                         ("defender_hits", "int", "hits the defender scored on the attacker"
                          + (" in the deciding round" if rounds else "")),
                         ("retreat_cm", "int", "how far the loser retreats (or both fall "
                          "back on a draw)"),
                         OutcomeField("result", "str", "the card's result",
                                      (draw, "loser_retreats", "loser_eliminated")))
    if rounds:
        fields_out = (*fields_out, OutcomeField("rounds", "int", "rounds fought"))
    def cost(p: Any) -> int:
        """Replays of the exact odds, roughly: each side's hits (a chain worked out once),
        paired, for every round."""
        def side(me: str) -> int:
            units = supporters(rules, getattr(p, f"{me}_supporting"))
            extra = sum(a.values[u] + 1 for u, _ in units) if \
                p.support_reading == "each_fights" else len(units)
            return int(a.values[getattr(p, me)] + getattr(p, f"{me}_support") + extra
                       + len(a.modifiers) + 2)
        # x8: measured, the pairs of hits cost about eight replays each (supporters that
        # fight one by one reach 60+ dice a side: 62 a side over 10 rounds took 8 s)
        return 8 * side("attacker") * side("defender") * int(getattr(p, "max_rounds", 1))

    return _proc(rules, "assault", "close combat",
                 "Both sides roll their close-combat attacks; the side scoring more hits "
                 "wins, with the card's result for a draw, a win and a heavy defeat.", params,
                 fields_out, run, _assault_note(rules), cost)


def _assault_check(rules: Rules, v: Mapping[str, Any]) -> None:
    """The card's restrictions on who may assault and pursue whom, as usage errors."""
    a = rules.assault
    att, dfn = v["attacker"], v["defender"]
    if att in a.armour_types:
        if v["defender_cover"] != a.open_cover and not v["attacker_carries_infantry"]:
            raise ValueError("armour may assault only in open terrain unless it carries "
                             "infantry or engineers (attacker_carries_infantry=true)")
    elif v["attacker_carries_infantry"]:
        raise ValueError("attacker_carries_infantry is for an attacking armoured unit")
    if "pursuit" in v:
        if v["pursuit_cm"] and not v["pursuit"]:
            raise ValueError("pursuit_cm needs pursuit=true")
        if v["pursuit"] and dfn in a.armour_types and v["defender_cover"] == a.open_cover:
            raise ValueError("armour in open terrain cannot be pursued")
    for side in ("attacker", "defender"):
        if v.get(f"{side}_open_topped") and v[side] not in a.armour_types:
            raise ValueError("open_topped describes an AFV: the unit must be an afv")
        units = supporters(rules, v[f"{side}_supporting"])
        if units and v[f"{side}_support"]:
            raise ValueError("give the supporting units either as a count (attacker_support,"
                             " defender_support) or one by one (attacker_supporting, "
                             "defender_supporting), not both")
        for unit, flags in units:
            for bar in a.support_bars:
                if bar in flags:
                    raise UsageError(SUPPORT_BAR_TEXT[bar], unit=unit)
            if flags and v["support_reading"] == "card":
                raise ValueError("a supporting unit's own state (:suppressed, :flanked) "
                                 "changes nothing on the card, where each supporter adds "
                                 "the same: use support_reading=each_fights")


def _assault_note(rules: Rules) -> str:
    a = rules.assault
    parts = ["Hits are scored at the target's cover score and the target's save applies, "
             "as in the full rules; apply the hits to each unit's hits value yourself."]
    if a.loser_retreat == "unstated":
        parts.append("The card gives no retreat distance for the loser: retreat_cm is 0; "
                     "move it as the rulebook says.")
    else:
        parts.append("The loser retreats the hit difference in cm and is eliminated beyond "
                     "the rout limit; a draw falls back one 3d6 roll.")
    parts.append("An unlimbered gun, dug-in armour or a unit in fortifications that loses "
                 "cannot rout and is eliminated (the card's rout rules).")
    if a.double_eliminates:
        parts.append("Twice the loser's hits (including 1 or more against 0) eliminates it.")
    if a.draw == "another_round":
        parts.append("Equal hits fight another round, with the same modifiers except the "
                     "charge (round 1 only unless charge_every_round), up to max_rounds; the "
                     "hits shown are the deciding round's.")
    if a.anti_armour_needs == "open_afv":
        parts.append("The card's 'open AFV' is read as an open-topped AFV (the card uses the "
                     "word so for indirect fire; open terrain it calls by another name); "
                     "open_afv_reading=in_open gives the other reading.")
    return " ".join(parts)


def _anti_armour(rules: Rules, values: Mapping[str, Any], them: str) -> bool:
    """Whether the infantry bonus against armour applies to the unit ``them``."""
    a = rules.assault
    if a.anti_armour_needs == "none":
        return True
    if values["open_afv_reading"] == "in_open":
        return bool(values[f"{them}_cover"] == a.open_cover)
    return bool(values[f"{them}_open_topped"])


def _side_hits(rules: Rules, values: Mapping[str, Any], me: str, them: str, d: Dice) -> int:
    a = rules.assault
    g = rules.id
    mine, theirs = str(values[me]), str(values[them])
    t = Target.of(a.values[mine], msg("{unit} attack value", unit=Msg(mine)))
    if me == "attacker":
        t = modified(t, a.modifiers, values)
    if (mine in a.anti_armour_types and theirs in a.armour_types
            and _anti_armour(rules, values, them)):
        t = t.plus(1, "against armour" if a.anti_armour_needs == "none"
                   else "against an open AFV")
    t = t.plus(-1 if values[f"{me}_suppressed"] else 0, "suppressed")
    t = t.plus(-int(values[f"{me}_flanked"]), "enemies on the flank or rear")
    units = supporters(rules, str(values[f"{me}_supporting"]))
    fights = values["support_reading"] == "each_fights"
    support = int(values[f"{me}_support"]) + (0 if fights else len(units))
    if a.support == "attack_die":
        t = t.plus(support, "supporting units")
    n = max(0, t.final)
    d.note(f"{g}.assault.attacks", nmsg("{side} rolls one die: {base} {mods}",
                                        "{side} rolls {n} dice: {base} {mods}", n=n,
                                        side=Msg(me), base=t.reason, mods=_mods(t)))
    if fights:
        n += _supporters_fight(rules, values, me, them, units, d)
    cover = str(values[f"{them}_cover"])
    save = int(values[f"{them}_save"])
    # one chain for a side's hits: exact odds work its distribution out once and branch
    # on the hits alone (not on every hits-and-saves pair), in every round alike
    got = d.one(_hits_chain(g, n, rules.fire.cover[cover], cover, save, them),
                tuple(map(str, range(n + 1))),
                rule=f"{g}.assault.hit", what=Msg(me))
    h = int(got)
    if a.support == "extra_hit" and support:
        h += support
        d.note(f"{g}.assault.support", nmsg("one supporting unit adds one hit",
                                            "{n} supporting units add {n} hits", n=support))
    return h


def _supporters_fight(rules: Rules, values: Mapping[str, Any], me: str, them: str,
                      units: tuple[tuple[str, frozenset[str]], ...], d: Dice) -> int:
    """support_reading=each_fights: each supporting unit's attack value with its own
    modifiers (as the card's fire procedure applies them to each attacking unit); its dice
    join its side's, at the same hit score and save. Returns the dice added."""
    a = rules.assault
    theirs = str(values[them])
    added = 0
    for i, (unit, flags) in enumerate(units, start=1):
        t = Target.of(a.values[unit], msg("{unit} attack value", unit=Msg(unit)))
        if (unit in a.anti_armour_types and theirs in a.armour_types
                and _anti_armour(rules, values, them)):
            t = t.plus(1, "against armour" if a.anti_armour_needs == "none"
                       else "against an open AFV")
        t = t.plus(-1 if "suppressed" in flags else 0, "suppressed")
        t = t.plus(-1 if "flanked" in flags else 0, "enemies on the flank or rear")
        k = max(0, t.final)
        d.note(f"{rules.id}.assault.support", nmsg(
            "supporting unit {i} ({side}) adds one die: {base} {mods}",
            "supporting unit {i} ({side}) adds {n} dice: {base} {mods}", n=k, side=Msg(me),
            i=i, base=t.reason, mods=_mods(t)))
        added += k
    return added


def _hits_chain(g: str, n: int, at: int, cover: str, save: int, them: str
                ) -> Callable[[Dice], str]:
    """n attack dice at ``at``+ (the target's cover), then the target's saves: the
    unsaved hits. It captures plain values only, so exact odds memoise it."""
    def chain(d: Dice) -> str:
        score = Target.of(at, msg("target in {cover}", cover=Msg(cover)))
        raw = d.pool(n, score, rule=f"{g}.assault.hit", what="attack dice")
        hits: Any = raw
        if save and raw:
            hits = raw - d.pool(raw, Target.of(save, "save"), rule=f"{g}.assault.save",
                                what=f"{them} saves")
        return str(int(hits))
    return chain


def _assault_result(rules: Rules, draw: str, values: Mapping[str, Any], att: int, dfn: int,
                    d: Dice) -> dict[str, Any]:
    a = rules.assault
    g = rules.id
    out: dict[str, Any] = {"attacker_hits": att, "defender_hits": dfn, "retreat_cm": 0}
    if att == dfn:
        out.update(winner="draw", result=draw)
        if a.draw == "fall_back_3d6":
            cm = int(d.dice(3, view="sum", rule=f"{g}.assault.draw", what="fall-back dice"))
            out["retreat_cm"] = cm
            d.note(f"{g}.assault.draw", "equal hits: both sides fall back {cm} cm", cm=cm)
        return out
    win, lose = (att, dfn) if att > dfn else (dfn, att)
    loser = "defender" if att > dfn else "attacker"
    out["winner"] = "attacker" if att > dfn else "defender"
    if a.double_eliminates and win >= 2 * lose:
        out["result"] = "loser_eliminated"
        d.note(f"{g}.assault.result", nmsg(
            "one hit against none: at least double, the loser is eliminated and the winner "
            "consolidates", "{n} hits against {lose}: at least double, the loser is "
            "eliminated and the winner consolidates", n=win, lose=lose))
        return out
    cm = win - lose if a.loser_retreat == "difference" else 0
    if (loser == "defender" and values["defender_dug_in"]) or \
            values[f"{loser}_cover"] in a.rout_cover:
        out["result"] = "loser_eliminated"
        d.note(f"{g}.assault.result", "the loser is an unlimbered gun, dug-in armour or in "
               "fortifications: it cannot rout and is eliminated")
        return out
    if a.loser_retreat == "difference":
        out["retreat_cm"] = cm
        if cm > a.rout_limit_cm:
            out["result"] = "loser_eliminated"
            d.note(f"{g}.assault.result", "the loser must retreat {cm} cm, more than {limit} "
                   "cm: eliminated", cm=cm, limit=a.rout_limit_cm)
            return out
        d.note(f"{g}.assault.result", "the loser retreats {cm} cm; the winner holds, falls "
               "back or pursues", cm=cm)
    else:
        d.note(f"{g}.assault.result", "the loser retreats and the winner consolidates")
    out["result"] = "loser_retreats"
    return out


# ---------------------------------------------------------------- chains
STRIKE_TARGET = ("cover", "armoured", "save", "hits_value", "existing_hits", "suppressed",
                 "dug_in", "target_recce", "target_hq")


def air_strike(rules: Rules, fire_params: type[Params]) -> Procedure:
    """The FAC's call, the AA fire at the aircraft, then its strike on one unit with the
    attack it has left: one answer for the whole chain."""
    g = rules.id
    air = rules.air
    fields: dict[str, Any] = {
        **P.spec_fields(air.modifiers),
        "aa_attacks": (int, Field(0, ge=0, le=30, description=(
            "AA dice fired at the aircraft (0: no AA in range)"))),
        "aircraft_hits_value": (int, Field(2, ge=1, le=8, description=(
            "the aircraft's hits value"))),
        "aircraft_attack": (int, Field(4, ge=0, le=20, description=(
            "the aircraft's attack value"))),
        "one_target": (bool, Field(False, description=rules.strike.one_target_help)),
        **{k: (fire_params.model_fields[k].annotation, fire_params.model_fields[k])
           for k in STRIKE_TARGET},
    }
    bombers = "bombers" in fields

    def check(p: Any) -> None:
        if p.existing_hits >= p.hits_value:
            raise ValueError("existing_hits must be below hits_value: with that many hits "
                             "the unit is already destroyed")
        if bombers and p.one_target and p.bombers:
            raise ValueError("bombers cannot roll twice at one target")

    params = P.build(f"{g.upper()}AirStrikeParams", P.CallBase, fields, check)
    damage = bool(rules.fire.damage)

    def run(p: Any, d: Dice) -> dict[str, Any]:
        values = _values(p)
        call = call_test(rules, "air", values, d, compact=True)
        state = strike_start(p.suppressed)
        if call["result"] in PASSED:
            # the AA fire and the strike as one round: its distribution is worked out once
            # and shared by every result of the call and its deviation dice
            state = d.iterate(state, _strike_round(rules, p, fire_params), rounds=1)
        else:
            d.note(f"{g}.air_strike", "the call fails: no air strike")
        out = {"result": call["result"], "deviation_cm": call["deviation_cm"],
               **dict(zip(STRIKE_FIELDS, state, strict=True))}
        if not damage:
            del out["damage"]
        return out

    fields_out = outcome(
        OutcomeField("result", "str", "how the FAC's call went", RESULTS),
        ("deviation_cm", "int", "how far the strike drifts, in cm (0 = on target or no "
         "strike)"),
        ("shot_down", "bool", "AA fire shot the aircraft down"),
        ("aborted", "bool", "the aircraft aborted its mission"),
        ("attack_left", "int", "its attack value after AA hits (0 if no strike)"),
        ("hits", "int", "unsaved hits on the target"),
        ("destroyed", "bool", "the target is removed"),
        ("suppressed", "bool", "the target is suppressed afterwards"),
        ("retreat_cm", "int", "how far an already suppressed target retreats"))
    if damage:
        fields_out = (*fields_out, OutcomeField(
            "damage", "str", "damage to armour or an anti-tank gun with 4+ hits this turn",
            tuple(dict.fromkeys(["none", *(e.key for e in rules.fire.damage)]))))
    return _proc(rules, "air_strike", "air strike: call, AA fire, attack",
                 "The FAC's call, AA fire at the aircraft that comes, and its attack on one "
                 "unit with the attack value it has left, in one answer.", params,
                 fields_out, run, rules.strike.note)


STRIKE_FIELDS = ("shot_down", "aborted", "attack_left", "hits", "destroyed", "suppressed",
                 "retreat_cm", "damage")


def strike_start(suppressed: bool) -> tuple[Any, ...]:
    """The strike's state before the AA fire: nothing happened yet."""
    return (False, False, 0, 0, False, suppressed, 0, "none")


def _strike_round(rules: Rules, p: Any, fire_params: type[Params]
                  ) -> Callable[[tuple[Any, ...], Dice], tuple[Any, ...]]:
    """AA fire at the aircraft, then its attack on the target with what it has left."""
    g = rules.id

    def strike(s: tuple[Any, ...], d: Dice) -> tuple[Any, ...]:
        aa = aa_attack(rules, p.aa_attacks, p.aircraft_hits_value, p.aircraft_attack, d)
        if aa["shot_down"] or aa["aborted"]:
            return (aa["shot_down"], aa["aborted"], *s[2:])
        n = aa["attack_left"] * (2 if p.one_target else 1)
        if p.one_target:
            d.note(f"{g}.air_strike", nmsg("one chosen target: the attack counts twice, {n} die",
                                           "one chosen target: the attack counts twice, {n} "
                                           "dice", n=n))
        target = {k: getattr(p, k) for k in STRIKE_TARGET}
        if "ground_attack_aircraft" in fire_params.model_fields:
            target["ground_attack_aircraft"] = not p.bombers
        out = attack(rules, fire_params(**target).model_dump(), (n,), d)
        return (False, False, aa["attack_left"], out["hits"], out["destroyed"],
                out["suppressed"], out["retreat_cm"], out.get("damage", "none"))

    return strike


CROSSFIRE_FLAGS = ("suppressed", "acted")


def parse_targets(text: str, covers: tuple[str, ...], acted: bool) -> tuple[
        tuple[str, bool, bool], ...]:
    """'open,light:suppressed,heavy:acted' -> three (cover, suppressed, acted) units."""
    parts = [x.strip() for x in text.split(",")]
    if len(parts) != 3:
        raise ValueError("targets names the three units nearest the HQ, comma-separated")
    out = []
    for part in parts:
        cover, *flags = part.split(":")
        if cover not in covers or any(f not in CROSSFIRE_FLAGS for f in flags):
            raise ValueError("targets: each unit is its cover, then :suppressed or :acted")
        if "acted" in flags and not acted:
            raise ValueError("targets: :acted means nothing in this game's crossfire")
        out.append((cover, "suppressed" in flags, "acted" in flags))
    return tuple(out)


def crossfire(rules: Rules, fire_params: type[Params]) -> Procedure:
    """The command blunder 'Crossfire!': the three units nearest the HQ are attacked,
    all with the same attack value (CWC: one 2d6 roll for all three)."""
    g = rules.id
    c = rules.crossfire
    covers = tuple(rules.fire.cover)

    class CrossfireParams(Params):
        targets: str = Field(",".join([covers[0]] * 3), description=c.targets_help,
                             examples=[",".join([covers[0]] * 3),
                                       f"{covers[0]},{covers[1]}:suppressed,{covers[2]}",
                                       f"{covers[1]},{covers[1]},{covers[0]}:suppressed"])
        save: int = Field(0, ge=0, le=6, description="the units' save N (of N+); 0 = none")
        hits_value: int = Field(3, ge=1, le=10, description="the units' hits value")

        @model_validator(mode="after")
        def _targets(self) -> Any:
            parse_targets(self.targets, covers, c.acted_skips_suppression)
            return self

    def run(p: Any, d: Dice) -> dict[str, Any]:
        units = parse_targets(p.targets, covers, c.acted_skips_suppression)
        if c.attacks_roll == "2d6":
            n = int(d.dice(2, view="sum", rule=f"{g}.crossfire.attacks",
                           what="attack value 2d6"))
            d.note(f"{g}.crossfire.attacks", nmsg(
                "one roll for all three units: {n} attack die each",
                "one roll for all three units: {n} attack dice each", n=n))
        else:
            n = c.attacks

        def one(s: tuple[int, int, int], dd: Dice) -> tuple[int, int, int]:
            cover, suppressed, acted = units[s[0]]
            dd.note(f"{g}.crossfire.unit", "unit {i} in {cover}", i=s[0] + 1,
                    cover=Msg(cover))
            values = fire_params.model_validate(
                {"cover": cover, "suppressed": suppressed, "save": p.save,
                 "hits_value": p.hits_value}).model_dump()
            values["skip_suppression"] = acted
            out = attack(rules, values, (n,), dd)
            return (s[0] + 1, s[1] + int(out["destroyed"]),
                    s[2] + int(out["suppressed"] and not out["destroyed"]))

        _, destroyed, suppressed = d.iterate((0, 0, 0), one, rounds=3)
        return {"attacks": n, "destroyed": destroyed, "suppressed": suppressed}

    summary = ("Crossfire! blunder: the three units nearest the HQ are each attacked with "
               + ("one 2d6 roll of attack dice." if c.attacks_roll == "2d6"
                  else f"{c.attacks} attack dice."))
    return _proc(rules, "crossfire", "Crossfire! (command blunder)", summary,
                 CrossfireParams,
                 outcome(("attacks", "int", "attack dice each unit took"),
                         ("destroyed", "int", "units destroyed (by hits or a long retreat)"),
                         ("suppressed", "int", "units suppressed afterwards")),
                 run, c.note)
