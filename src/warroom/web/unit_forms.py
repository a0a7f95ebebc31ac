"""The short forms of a unit's typed profile, in the game's own words, for the battle page.

The short forms are structured fields (selects, number inputs, one counter per row),
never a text language: a FoW platoon (skill, motivation, teams with their count and
armour, weapons with range, ROF, AT and firepower), an ASL stack (counters as printed,
read by :mod:`warroom.games.asl.counters`, nationality, ELR), a BKC/CWC unit (type,
count, attacks, hits, save, CV). :func:`profile_from_form` turns the posted fields into
the profile's JSON, which the game's model checks when the unit is added
(:meth:`warroom.battle.core.Battles.add_unit`) or edited (``edit_unit``); the routes that
take them are in :mod:`warroom.web.forces`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from warroom.battle.errors import BattleError
from warroom.errors import ErrorText

PROFILE_GAMES = ("fow", "asl", "bkc", "cwc")
FOW_TEAMS = ("tank", "infantry", "gun", "soft")
FOW_SKILLS = ("conscript", "trained", "veteran")
FOW_MOTIVATIONS = ("reluctant", "confident", "fearless")
FOW_WEAPON = ("range_cm", "rof_halted", "rof_moving", "at", "firepower")
COMMANDER_TYPES = ("infantry", "engineers", "afv", "ifv", "artillery", "at_gun", "hq",
                   "recce", "sniper")
MARKS = ("", "*", "#")
MAX_TEAMS = 8
MAX_WEAPONS = 6
MAX_COUNTER_ROWS = 20
MAX_ATTACKS = 4
LONGEST = 60
"""The longest text one field of a short form takes."""

LABELS: dict[str, str] = {
    "count": "Count", "front": "Front armour", "side": "Side armour", "top": "Top armour",
    "range_cm": "Range (cm)", "rof_halted": "ROF halted", "rof_moving": "ROF moving",
    "at": "AT", "firepower": "Firepower (N+)", "elr": "ELR", "hits": "Hits",
    "cv": "CV (HQ only)", "value": "Attack", "save": "Save",
}
"""The form's labels of the number fields (message ids: errors name the field so)."""


# ---------------------------------------------------------------------------- reading
def text_field(fields: Mapping[str, str], key: str) -> str:
    value = str(fields.get(key, "") or "").strip()
    if len(value) > LONGEST:
        raise BattleError("{field}: at most {most} characters", field=key, most=LONGEST)
    return value


def _number(fields: Mapping[str, str], key: str, default: int | None = None) -> int:
    text = text_field(fields, key)
    label = ErrorText(LABELS.get(key.rsplit(".", 1)[-1], key))
    if not text:
        if default is None:
            raise BattleError("{field}: give a number", field=label)
        return default
    try:
        return int(text)
    except ValueError:
        raise BattleError("{field}: {value!r} is not a whole number", field=label,
                          value=text) from None


def checked(fields: Mapping[str, str], key: str) -> bool:
    return text_field(fields, key).lower() in ("on", "true", "1", "yes")


def _fow(fields: Mapping[str, str]) -> dict[str, Any]:
    teams = []
    for i in range(MAX_TEAMS):
        p = f"t{i}."
        kind = text_field(fields, p + "type")
        if not kind:
            continue
        team: dict[str, Any] = {"type": kind, "count": _number(fields, p + "count", 1)}
        if text_field(fields, p + "name"):
            team["name"] = text_field(fields, p + "name")
        if kind == "tank":
            for k in ("front", "side", "top"):
                team[k] = _number(fields, p + k, 0)
        weapons = []
        for j in range(MAX_WEAPONS):
            q = f"{p}w{j}."
            name = text_field(fields, q + "name")
            if not name:
                if any(text_field(fields, q + k) for k in FOW_WEAPON):
                    raise BattleError("a weapon needs a name")
                continue
            weapon: dict[str, Any] = {"name": name}
            weapon.update({k: _number(fields, q + k) for k in FOW_WEAPON})
            weapon.update({k: True for k in ("no_he", "bunker_buster") if checked(fields, q + k)})
            if text_field(fields, q + "notes"):
                weapon["notes"] = text_field(fields, q + "notes")
            weapons.append(weapon)
        team["weapons"] = weapons
        teams.append(team)
    if not teams:
        raise BattleError("a platoon needs at least one kind of team: pick its type")
    return {"skill": text_field(fields, "skill") or "trained",
            "motivation": text_field(fields, "motivation") or "confident", "teams": teams}


def _asl(fields: Mapping[str, str]) -> dict[str, Any]:
    counters: list[str] = []
    for i in range(MAX_COUNTER_ROWS):
        text = text_field(fields, f"c{i}.text")
        if text:
            counters += [text] * max(1, min(_number(fields, f"c{i}.count", 1), 20))
    if not counters:
        raise BattleError("a stack needs at least one counter, such as 4-6-7 or 8-1")
    return {"nationality": text_field(fields, "nationality"), "elr": _number(fields, "elr", 3),
            "counters": counters}


def _commander(fields: Mapping[str, str]) -> dict[str, Any]:
    attack = []
    for i in range(MAX_ATTACKS):
        value = text_field(fields, f"a{i}.value")
        if value:
            mark = text_field(fields, f"a{i}.mark")
            attack.append(f"{_number(fields, f'a{i}.value')}{mark if mark in MARKS else ''}")
    kind = text_field(fields, "type") or "infantry"
    out: dict[str, Any] = {"type": kind, "count": _number(fields, "count", 1),
                           "attack": attack, "hits": _number(fields, "hits"),
                           "save": _number(fields, "save", 0),
                           "armoured": checked(fields, "armoured")}
    if kind == "hq":
        out["cv"] = _number(fields, "cv")
    return out


def profile_from_form(game: str, fields: Mapping[str, str],
                      base: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The profile's JSON from a short form's fields (``base``: the unit's profile before
    an edit, whose values the form does not show, such as FoW special rules, stay)."""
    if game not in PROFILE_GAMES:
        raise BattleError("units of {game} battles carry no profiles (profiles: {valid})",
                          game=game, valid=", ".join(PROFILE_GAMES))
    name = text_field(fields, "name") or str((base or {}).get("name", ""))
    if not name:
        raise BattleError("give the unit a name")
    made = _fow(fields) if game == "fow" else _asl(fields) if game == "asl" \
        else _commander(fields)
    return {**(base or {}), **made, "name": name}


# ---------------------------------------------------------------------------- showing
def fields_of(game: str, profile: Mapping[str, Any] | None) -> dict[str, str]:
    """A profile as the short form's fields (the inverse of :func:`profile_from_form`)."""
    if profile is None:
        return {}
    out: dict[str, str] = {"name": str(profile.get("name", ""))}
    if game == "fow":
        out.update(skill=str(profile.get("skill", "")),
                   motivation=str(profile.get("motivation", "")))
        for i, team in enumerate(profile.get("teams", [])):
            p = f"t{i}."
            for k in ("type", "count", "name", "front", "side", "top"):
                out[p + k] = str(team.get(k, ""))
            for j, weapon in enumerate(team.get("weapons", [])):
                for k, v in weapon.items():
                    out[f"{p}w{j}.{k}"] = ("on" if v else "") if isinstance(v, bool) \
                        else str(v)
    elif game == "asl":
        out.update(nationality=str(profile.get("nationality", "")),
                   elr=str(profile.get("elr", "")))
        rows: list[list[Any]] = []
        for c in profile.get("counters", []):
            if rows and rows[-1][0] == c:
                rows[-1][1] += 1
            else:
                rows.append([c, 1])
        for i, (text, n) in enumerate(rows):
            out[f"c{i}.text"], out[f"c{i}.count"] = str(text), str(n)
    else:
        for k in ("type", "count", "hits", "save", "cv"):
            value = profile.get(k)
            out[k] = "" if value is None else str(value)
        out["armoured"] = "on" if profile.get("armoured") else ""
        for i, a in enumerate(profile.get("attack", [])):
            text = str(a).strip()
            mark = text[-1] if text[-1:] in ("*", "#") else ""
            out[f"a{i}.value"], out[f"a{i}.mark"] = text.rstrip("*#").strip(), mark
    return out


def _used(fields: Mapping[str, str], prefix: str, most: int, key: str) -> int:
    """How many rows ``prefix{i}.key`` are filled in (the last filled one's index + 1)."""
    return max((i + 1 for i in range(most) if str(fields.get(f"{prefix}{i}.{key}", ""))
                .strip()), default=0)


def form_view(game: str, fields: Mapping[str, str]) -> dict[str, Any]:
    """What the short form template shows: the values, and the rows to show (the filled
    ones and one more, to add a kind of team, a weapon, a counter, an attack)."""
    view: dict[str, Any] = {"game": game, "f": dict(fields)}
    if game == "fow":
        used = max(1, _used(fields, "t", MAX_TEAMS, "type"))
        view["teams"] = []
        for i in range(min(MAX_TEAMS, used + 1)):
            armed = max(1, _used(fields, f"t{i}.w", MAX_WEAPONS, "name"))
            view["teams"].append({"i": i, "spare": i >= used, "weapons": [
                {"j": j, "spare": j >= armed} for j in range(min(MAX_WEAPONS, armed + 1))]})
    elif game == "asl":
        view["counters"] = list(range(min(MAX_COUNTER_ROWS,
                                          _used(fields, "c", MAX_COUNTER_ROWS, "text") + 3)))
    else:
        view["attacks"] = list(range(min(MAX_ATTACKS,
                                         max(1, _used(fields, "a", MAX_ATTACKS, "value")) + 1)))
    return view


def context(bt: Any, info: Mapping[str, Any], side: str | None,
            draft: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """What the battle page needs for adding and editing units with profiles: the short
    forms (the new unit's keeps what was typed after an error) and the force library."""
    from warroom.battle.library import UPLOADS, Library

    game = str(info["game"])
    if side is None or game not in PROFILE_GAMES:
        return {"profiles": False}
    draft = draft or {}
    new = draft.get("new") or {}
    edits = {}
    for u in info["units"]:
        if u["side"] == side and u.get("profile") is not None:
            kept = draft.get("edit") if draft.get("unit") == u["name"] else None
            edits[u["name"]] = form_view(game, kept or fields_of(game, u["profile"]))
    return {"profiles": True, "new_unit": form_view(game, new), "edits": edits,
            "library": Library(bt.store).entries(game), "uploads": ",".join(UPLOADS),
            "draft": draft,
            "choices": {"fow_teams": FOW_TEAMS, "skills": FOW_SKILLS,
                        "motivations": FOW_MOTIVATIONS, "types": COMMANDER_TYPES}}
