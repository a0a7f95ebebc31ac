"""Armies on the phone: a unit's typed profile from a short form in the game's own words,
a whole force from the force library in one tap, a unit's profile edited in one save.

The short forms are structured fields (selects, number inputs, one counter per row),
never a text language: a FoW platoon (skill, motivation, teams with their count and
armour, weapons with range, ROF, AT and firepower), an ASL stack (counters as printed,
read by :mod:`warroom.games.asl.counters`, nationality, ELR), a BKC/CWC unit (type,
count, attacks, hits, save, CV). :func:`profile_from_form` turns the posted fields into
the profile's JSON, which the game's model checks when the unit is added
(:meth:`warroom.battle.core.Battles.add_unit`) or edited (``edit_unit``). The force
library is :mod:`warroom.battle.library`.

The page routes live on :data:`router`, the JSON API's on :data:`api` (under
``/api/v1/battles``); a side acts only for itself (its link's key).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from pydantic import Field, StrictStr
from starlette.concurrency import run_in_threadpool

from warroom.battle.errors import BattleError
from warroom.errors import ErrorText, UsageError
from warroom.web.battles import KeyHeader, KeyQuery, _Body, _key, _role, _side, battles
from warroom.web.jsonapi import errors

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
def _text(fields: Mapping[str, str], key: str) -> str:
    value = str(fields.get(key, "") or "").strip()
    if len(value) > LONGEST:
        raise BattleError("{field}: at most {most} characters", field=key, most=LONGEST)
    return value


def _number(fields: Mapping[str, str], key: str, default: int | None = None) -> int:
    text = _text(fields, key)
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


def _on(fields: Mapping[str, str], key: str) -> bool:
    return _text(fields, key).lower() in ("on", "true", "1", "yes")


def _fow(fields: Mapping[str, str]) -> dict[str, Any]:
    teams = []
    for i in range(MAX_TEAMS):
        p = f"t{i}."
        kind = _text(fields, p + "type")
        if not kind:
            continue
        team: dict[str, Any] = {"type": kind, "count": _number(fields, p + "count", 1)}
        if _text(fields, p + "name"):
            team["name"] = _text(fields, p + "name")
        if kind == "tank":
            for k in ("front", "side", "top"):
                team[k] = _number(fields, p + k, 0)
        weapons = []
        for j in range(MAX_WEAPONS):
            q = f"{p}w{j}."
            name = _text(fields, q + "name")
            if not name:
                if any(_text(fields, q + k) for k in FOW_WEAPON):
                    raise BattleError("a weapon needs a name")
                continue
            weapon: dict[str, Any] = {"name": name}
            weapon.update({k: _number(fields, q + k) for k in FOW_WEAPON})
            weapon.update({k: True for k in ("no_he", "bunker_buster") if _on(fields, q + k)})
            if _text(fields, q + "notes"):
                weapon["notes"] = _text(fields, q + "notes")
            weapons.append(weapon)
        team["weapons"] = weapons
        teams.append(team)
    if not teams:
        raise BattleError("a platoon needs at least one kind of team: pick its type")
    return {"skill": _text(fields, "skill") or "trained",
            "motivation": _text(fields, "motivation") or "confident", "teams": teams}


def _asl(fields: Mapping[str, str]) -> dict[str, Any]:
    counters: list[str] = []
    for i in range(MAX_COUNTER_ROWS):
        text = _text(fields, f"c{i}.text")
        if text:
            counters += [text] * max(1, min(_number(fields, f"c{i}.count", 1), 20))
    if not counters:
        raise BattleError("a stack needs at least one counter, such as 4-6-7 or 8-1")
    return {"nationality": _text(fields, "nationality"), "elr": _number(fields, "elr", 3),
            "counters": counters}


def _commander(fields: Mapping[str, str]) -> dict[str, Any]:
    attack = []
    for i in range(MAX_ATTACKS):
        value = _text(fields, f"a{i}.value")
        if value:
            mark = _text(fields, f"a{i}.mark")
            attack.append(f"{_number(fields, f'a{i}.value')}{mark if mark in MARKS else ''}")
    kind = _text(fields, "type") or "infantry"
    out: dict[str, Any] = {"type": kind, "count": _number(fields, "count", 1),
                           "attack": attack, "hits": _number(fields, "hits"),
                           "save": _number(fields, "save", 0),
                           "armoured": _on(fields, "armoured")}
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
    name = _text(fields, "name") or str((base or {}).get("name", ""))
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


# ---------------------------------------------------------------------------- pages
router = APIRouter(tags=["battle pages"])


@dataclass(frozen=True)
class Posted:
    """A posted form: its text fields, the picked units (``pick``, repeated) and an
    uploaded file's name and first bytes (at most one more than the library takes)."""

    fields: dict[str, str]
    picks: list[str]
    filename: str = ""
    data: bytes | None = None


async def _form(request: Request) -> Posted:
    from warroom.units.importers import MAX_UPLOAD

    form = await request.form()
    fields = {k: v for k, v in form.multi_items() if isinstance(v, str)}
    picks = [v for k, v in form.multi_items() if k == "pick" and isinstance(v, str)]
    upload = form.get("file")
    if upload is None or isinstance(upload, str) or not upload.filename:
        return Posted(fields, picks)
    return Posted(fields, picks, str(upload.filename)[:80], await upload.read(MAX_UPLOAD + 1))


def _expect(fields: Mapping[str, str]) -> int | None:
    from warroom.web.battles import _expect as expect

    return expect(str(fields.get("expect", "")))


async def _act(request: Request, battle_id: str, key: str,
               action: Callable[[Any, str, Posted], None],
               draft: Callable[[Posted], dict[str, Any]], anchor: str = "units") -> Response:
    """Run a form's action for the link's side: back to the page (303), or the page with
    the error and what was typed (``draft``) kept."""
    from warroom.web.battles import done, refused

    posted = await _form(request)
    bt = battles(request)
    side = await run_in_threadpool(_side, bt, battle_id, key)

    def run() -> Response:
        try:
            action(bt, side, posted)
        except UsageError as exc:
            return refused(request, battle_id, key, exc, draft=draft(posted))
        return done(request, f"/battles/{battle_id}/{key}#{anchor}")

    return await run_in_threadpool(run)


def _new_unit(bt: Any, side: str, battle_id: str, posted: Posted) -> None:
    profile = profile_from_form(bt.state(battle_id).game, posted.fields)
    bt.add_unit(battle_id, side, profile["name"], profile=profile,
                expect=_expect(posted.fields), by=side)


def _unit_with_overrides(bt: Any, side: str, battle_id: str, posted: Posted) -> None:
    """A unit of the library (``profile``: ``REF:UNIT``, e.g. ``example:fow:Shermans``)
    with free ``key=value`` stats overriding its values; in a game without a unit model
    (``demo``) the stats alone. Without a profile in a game with one the battle refuses
    it (:class:`~warroom.battle.errors.ProfileRequiredError`)."""
    from warroom.battle.library import Library, chosen
    from warroom.engine.params import parse_assignments

    fields = posted.fields
    stats = parse_assignments(str(fields.get("stats", "")).split())
    profile: dict[str, Any] | None = None
    pick = str(fields.get("profile", "")).strip()
    if pick:
        parts = pick.split(":", 2)
        if len(parts) < 3 or not parts[2].strip():
            raise BattleError("pick a unit of the library as its profile")
        entry = Library(bt.store).get(f"{parts[0]}:{parts[1]}", bt.state(battle_id).game)
        profile = chosen(entry, [parts[2]])[0]
    bt.add_unit(battle_id, side, str(fields.get("name", "")), stats, profile=profile,
                expect=_expect(fields), by=side)


def _edit_profile(bt: Any, side: str, battle_id: str, posted: Posted) -> None:
    st = bt.state(battle_id)
    old = st.unit(str(posted.fields.get("unit", "")))
    base = dict(old.profile or {})
    profile = profile_from_form(st.game, {**posted.fields, "name": base.get("name", "")},
                                base)
    if profile == base:
        raise BattleError("nothing to change: edit a value first")
    bt.edit_unit(battle_id, old.name, {}, profile=profile, expect=_expect(posted.fields),
                 by=side)


def _library_force(bt: Any, side: str, battle_id: str, posted: Posted) -> None:
    from warroom.battle.library import Library, add_force, chosen

    entry = Library(bt.store).get(str(posted.fields.get("force", "")),
                                  bt.state(battle_id).game)
    add_force(bt, battle_id, side, chosen(entry, posted.picks),
              expect=_expect(posted.fields), by=side)


def _pasted_force(bt: Any, side: str, battle_id: str, posted: Posted) -> None:
    from warroom.battle.library import Library, add_force, entry_of_text
    from warroom.units.importers import force_toml_from_upload

    name, text = "pasted force", str(posted.fields.get("text", ""))
    if posted.data is not None:  # the upload's own size cap gives its 413
        name, text = posted.filename, force_toml_from_upload(posted.data, posted.filename)
    elif not text.strip():
        raise BattleError("paste a force (TOML) or choose a file")
    entry = entry_of_text(text, bt.state(battle_id).game, name)
    if _on(posted.fields, "keep"):
        Library(bt.store).save(entry.game, entry.name, entry.units, text,
                               battle_id=battle_id, side=side)
    add_force(bt, battle_id, side, entry.units, expect=_expect(posted.fields), by=side)


def _saved_force(bt: Any, side: str, battle_id: str, posted: Posted) -> None:
    from warroom.battle.library import Library, side_units

    Library(bt.store).save(bt.state(battle_id).game, _text(posted.fields, "name"),
                           side_units(bt, battle_id, side), battle_id=battle_id, side=side)


@router.post("/battles/{battle_id}/{key}/units/new")
async def page_new_unit(battle_id: str, key: str, request: Request) -> Response:
    """Add a unit to the link's side from the short form (one ``unit_added`` event)."""
    return await _act(request, battle_id, key,
                      lambda bt, side, p: _new_unit(bt, side, battle_id, p),
                      lambda p: {"new": p.fields, "open": "new"})


@router.post("/battles/{battle_id}/{key}/unit")
async def page_unit(battle_id: str, key: str, request: Request) -> Response:
    """Add a unit to the link's side: a library unit's profile with ``key=value``
    overrides (a ``demo`` unit: its stats alone)."""
    return await _act(request, battle_id, key,
                      lambda bt, side, p: _unit_with_overrides(bt, side, battle_id, p),
                      lambda p: {"open": "overrides", **{k: p.fields.get(k, "") for k in
                                                         ("profile", "name", "stats")}})


@router.post("/battles/{battle_id}/{key}/units/edit")
async def page_edit_profile(battle_id: str, key: str, request: Request) -> Response:
    """Change one of the side's units' profile from its short form: one event."""
    return await _act(request, battle_id, key,
                      lambda bt, side, p: _edit_profile(bt, side, battle_id, p),
                      lambda p: {"edit": p.fields, "unit": p.fields.get("unit", "")})


@router.post("/battles/{battle_id}/{key}/forces/add")
async def page_add_force(battle_id: str, key: str, request: Request) -> Response:
    """Add the picked units of a library force to the link's side."""
    return await _act(request, battle_id, key,
                      lambda bt, side, p: _library_force(bt, side, battle_id, p),
                      lambda p: {"open": "library"})


@router.post("/battles/{battle_id}/{key}/forces/paste")
async def page_paste_force(battle_id: str, key: str, request: Request) -> Response:
    """A force pasted or uploaded as a file: kept in the library (unless unticked), and
    all its units added to the link's side."""
    return await _act(request, battle_id, key,
                      lambda bt, side, p: _pasted_force(bt, side, battle_id, p),
                      lambda p: {"open": "paste", "text": p.fields.get("text", "")})


@router.post("/battles/{battle_id}/{key}/forces/save")
async def page_save_force(battle_id: str, key: str, request: Request) -> Response:
    """Keep the side's units (those with profiles) in the library as one force."""
    return await _act(request, battle_id, key,
                      lambda bt, side, p: _saved_force(bt, side, battle_id, p),
                      lambda p: {"open": "library"}, "library")


# ---------------------------------------------------------------------------- JSON API
api = APIRouter(prefix="/battles", tags=["battles"],
                responses=errors(403, 404, 409, 413, 422, 429, 500, 503))


class SaveForce(_Body):
    toml: StrictStr = Field(description="a force file's text (TOML)")


@api.get("/{battle_id}/forces", name="battle_forces",
         summary="The force library for this battle's game: the example forces and the "
                 "saved ones (newest first), each with its units' names")
def api_forces(battle_id: str, request: Request, key: KeyQuery = None,
               x_key: KeyHeader = None) -> list[dict[str, Any]]:
    from warroom.battle.library import Library

    bt = battles(request)
    _role(bt, battle_id, _key(key, x_key))
    return [e.to_json() for e in Library(bt.store).entries(bt.state(battle_id).game)]


@api.post("/{battle_id}/forces", name="battle_save_force",
          summary="Keep a force (TOML) in the library; add it with battle_add_force "
                  "and its ref")
def api_save_force(battle_id: str, body: SaveForce, request: Request,
                   key: KeyQuery = None, x_key: KeyHeader = None) -> dict[str, Any]:
    from warroom.battle.library import Library

    bt = battles(request)
    side = _side(bt, battle_id, _key(key, x_key))
    entry = Library(bt.store).save_text(bt.state(battle_id).game, body.toml,
                                        battle_id=battle_id, side=side)
    return entry.to_json()
