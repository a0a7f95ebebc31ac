"""Armies on the phone: a unit's typed profile from a short form in the game's own words,
a whole force from the force library in one tap, a unit's profile edited in one save.

The short forms are :mod:`warroom.web.unit_forms`; the force library is
:mod:`warroom.battle.library`.

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
from warroom.errors import UsageError
from warroom.web.battles import (
    Body,
    KeyHeader,
    KeyQuery,
    battles,
    link_key,
    link_role,
    link_side,
)
from warroom.web.jsonapi import errors
from warroom.web.unit_forms import checked, profile_from_form, text_field

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
    from warroom.web.battles import expected_counter as expect

    return expect(str(fields.get("expect", "")))


async def _act(request: Request, battle_id: str, key: str,
               action: Callable[[Any, str, Posted], None],
               draft: Callable[[Posted], dict[str, Any]], anchor: str = "units") -> Response:
    """Run a form's action for the link's side: back to the page (303), or the page with
    the error and what was typed (``draft``) kept."""
    from warroom.web.battles import done, refused

    posted = await _form(request)
    bt = battles(request)
    side = await run_in_threadpool(link_side, bt, battle_id, key)

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
    if checked(posted.fields, "keep"):
        Library(bt.store).save(entry.game, entry.name, entry.units, text,
                               battle_id=battle_id, side=side)
    add_force(bt, battle_id, side, entry.units, expect=_expect(posted.fields), by=side)


def _saved_force(bt: Any, side: str, battle_id: str, posted: Posted) -> None:
    from warroom.battle.library import Library, side_units

    Library(bt.store).save(bt.state(battle_id).game, text_field(posted.fields, "name"),
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


class SaveForce(Body):
    toml: StrictStr = Field(description="a force file's text (TOML)")


@api.get("/{battle_id}/forces", name="battle_forces",
         summary="The force library for this battle's game: the example forces and the "
                 "saved ones (newest first), each with its units' names")
def api_forces(battle_id: str, request: Request, key: KeyQuery = None,
               x_key: KeyHeader = None) -> list[dict[str, Any]]:
    from warroom.battle.library import Library

    bt = battles(request)
    link_role(bt, battle_id, link_key(key, x_key))
    return [e.to_json() for e in Library(bt.store).entries(bt.state(battle_id).game)]


@api.post("/{battle_id}/forces", name="battle_save_force",
          summary="Keep a force (TOML) in the library; add it with battle_add_force "
                  "and its ref")
def api_save_force(battle_id: str, body: SaveForce, request: Request,
                   key: KeyQuery = None, x_key: KeyHeader = None) -> dict[str, Any]:
    from warroom.battle.library import Library

    bt = battles(request)
    side = link_side(bt, battle_id, link_key(key, x_key))
    entry = Library(bt.store).save_text(bt.state(battle_id).game, body.toml,
                                        battle_id=battle_id, side=side)
    return entry.to_json()
