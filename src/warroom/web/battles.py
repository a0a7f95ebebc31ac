"""Battles on the web: the JSON API under ``/api/battles`` and the battle pages.

Access without accounts: every battle has three unguessable keys, made when it is
created and stored with it: side A's, side B's and a spectator's. A page is opened with
its link (``/battles/ID/KEY``); the API takes the key as ``?key=`` or the header
``X-Battle-Key``. Only a side's key acts for that side, with that side's units, in that
side's turn; the spectator key only reads. A page or response carries only its own
link's key (and the spectator's); all three are shown once, to whoever creates the
battle. A wrong key is answered like an unknown battle (404). Keys are compared in
constant time. Every write may carry ``expect`` (the state counter the device last saw)
and is refused when someone else wrote in between. Creating and importing battles is
rate-limited per client address.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Form, Query, Request, Security
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.security import APIKeyHeader, APIKeyQuery
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr
from starlette.concurrency import run_in_threadpool

from warroom import schema
from warroom.battle.core import Battles
from warroom.battle.errors import (
    AccessError,
    BattleError,
    ImportFormatError,
    NoSuchBattleError,
    RateLimitedError,
    StaleStateError,
)
from warroom.battle.models import BattleListing
from warroom.battle.state import MAX_BATTLE_NAME, MAX_STAT
from warroom.errors import UsageError
from warroom.web.jsonapi import errors

router = APIRouter(tags=["battle pages"])
"""The battle pages (left out of the OpenAPI document)."""

REMEMBER = "warroom_battles"
"""Cookie listing the battles this browser opened ("id:key" pairs), for the list page."""


# ---------------------------------------------------------------------------- plumbing
def battles(request: Request) -> Battles:
    """The app's one :class:`Battles`, opened on first use (``create_app(database)``)."""
    found = getattr(request.app.state, "battles", None)
    if found is None:
        from warroom.battle.store import open_store
        from warroom.serving import SharedOdds

        db = getattr(request.app.state, "database", None)
        found = Battles(open_store(str(db) if db is not None else None), odds=SharedOdds())
        request.app.state.battles = found
    return found


def link_role(bt: Battles, battle_id: str, key: str | None) -> tuple[str, str | None]:
    """The link's role; no key, a wrong key and an unknown battle are the same 404."""
    if not key:
        raise NoSuchBattleError(battle_id)
    return bt.access(battle_id, key)


def link_side(bt: Battles, battle_id: str, key: str | None) -> str:
    _role_name, side = link_role(bt, battle_id, key)
    if side is None:
        raise AccessError("the spectator link can only watch", code="spectator")
    return side


RATE = (20, 600.0)
"""Battles one client address may create or import per period (seconds); an app may set
``app.state.battle_rate``."""
READ_RATE = (30, 60.0)
"""Whole-log reads (``verify``, ``export``, the whole ``log``) one client address may
ask for per period (seconds); an app may set ``app.state.read_rate``."""


def _rate(request: Request, bucket: str = "create") -> None:
    """Count this request against its address's limit in ``bucket`` ("create": battles
    started or imported, :data:`RATE`; "read": whole-log reads, :data:`READ_RATE`). The
    counts are kept in the battles' database, so they hold across every server process
    of a club server and across restarts (429 ``rate_limited`` past the limit)."""
    from warroom.battle.store import take_rate
    from warroom.web.security import client_address

    if bucket == "create":
        most, period = getattr(request.app.state, "battle_rate", RATE)
        text = "too many battles started from this address; wait {minutes} minutes"
    else:
        most, period = getattr(request.app.state, "read_rate", READ_RATE)
        text = ("too many whole-log reads (verify, export, log) from this address; wait "
                "{minutes} minutes")
    store = battles(request).store
    with store.write() as conn:
        taken = take_rate(conn, bucket, client_address(request), most, period,
                          time.time())
    if not taken:
        raise RateLimitedError(text, minutes=max(1, round(period / 60)))


def links(battle_id: str, tokens: dict[str, str]) -> dict[str, str]:
    return {"A": f"/battles/{battle_id}/{tokens['a']}", "B": f"/battles/{battle_id}/{tokens['b']}",
            "view": f"/battles/{battle_id}/{tokens['view']}"}


def _tokens(row: dict[str, Any]) -> dict[str, str]:
    return {"a": row["token_a"], "b": row["token_b"], "view": row["token_view"]}


_KEY_QUERY = APIKeyQuery(name="key", auto_error=False, scheme_name="battle_key_query",
                         description="the battle link's key (side A's, side B's or the "
                         "spectator's), as ?key=; without it, or with a wrong one, the "
                         "answer is 404 no_such_battle, as for an unknown battle "
                         "(deliberately: ids cannot be probed)")
_KEY_HEADER = APIKeyHeader(name="X-Battle-Key", auto_error=False,
                           scheme_name="battle_key_header",
                           description="the battle link's key, as a header")
KeyQuery = Annotated[str | None, Security(_KEY_QUERY)]
KeyHeader = Annotated[str | None, Security(_KEY_HEADER)]
"""The battle key, declared as the API's security schemes (either one will do)."""
LOG_PAGE = 30
"""Events a battle page shows (the latest; a link leads to the ones before them)."""
LOG_MOST = 1000
"""The most events one call of the API's ``/log`` returns with ``limit``."""


BeforeQuery = Annotated[int | None, Query(ge=2, le=10**7, description=(
    "show the log's events numbered below this one"))]


def link_key(query: str | None, header: str | None) -> str | None:
    return query or header


# ---------------------------------------------------------------------------- JSON API
api = APIRouter(prefix="/battles", tags=["battles"],
                responses=errors(403, 404, 409, 413, 422, 429, 500, 503))
"""The battle API, mounted under ``/api/v1`` (and the deprecated ``/api``) by the app."""
class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NewBattle(Body):
    """No seed: a battle's dice come from a secret only the server holds until the end."""

    game: StrictStr = Field(examples=["fow"], max_length=32)
    name: StrictStr | None = Field(None, max_length=MAX_BATTLE_NAME)
    solo: StrictBool = Field(False, description="single-player: either link undoes any "
                             "event at once (every view says so); otherwise undoing a "
                             "virtual roll waits for the other side's consent")


class Write(Body):
    expect: StrictInt | None = Field(None, description="the state counter you last saw")


class NewUnit(Write):
    side: Literal["A", "B"]
    name: StrictStr = Field("", description="default: the profile's name")
    stats: dict[str, StrictInt | StrictStr] = Field(default_factory=dict)
    profile: dict[str, Any] | None = Field(
        None, description="the unit's typed profile as JSON (a force file's unit)")
    source: StrictStr | None = Field(
        None, alias="from", description="the profile from an example force: "
        "example:GAME:UNIT", examples=["example:fow:Shermans"])


class NewForce(Write):
    side: Literal["A", "B"]
    force: StrictStr | None = Field(
        None, examples=["example:fow"], description="a force of the library: an example "
        "(example:GAME) or a saved one (saved:ID, from battle_forces)")
    toml: StrictStr | None = Field(None, description="or a force file's text (TOML)")
    units: list[StrictStr] | None = Field(
        None, max_length=100, description="only these units of the force (default: all)")


class EditUnit(Write):
    unit: StrictStr
    stats: dict[str, StrictInt | StrictStr] = Field(
        default_factory=dict, description="\"\" removes a stat")
    profile: dict[str, Any] | None = Field(
        None, description="the unit's new typed profile, whole (as battle_add_unit takes)")


class Mark(Write):
    unit: StrictStr
    marker: StrictStr = Field(examples=["pinned"])
    value: StrictStr | StrictInt | None = Field(None, examples=["no", 3, "+1"])


class Do(Write):
    procedure: StrictStr = Field(examples=["fow.shoot"])
    params: dict[str, Any] = Field(default_factory=dict, description="parameters plus the "
                                   "battle keys unit, target, side, clear")
    dice: list[StrictInt | StrictStr] | StrictStr | None = Field(None, max_length=1000)


_FOLLOW = ("battle_show", "battle_add_unit", "battle_do", "battle_odds", "battle_mark",
           "battle_next", "battle_undo", "battle_end", "battle_log", "battle_verify",
           "battle_export", "battle_luck")
LINKS = {f"{op}_as_{side}": {
    "operationId": op,
    "parameters": {"battle_id": "$response.body#/id", "key": f"$response.body#/keys/{side}"},
    "description": f"{op.removeprefix('battle_')} with side {side}'s key"}
    for op in _FOLLOW for side in ("A", "B")}
"""OpenAPI links from a new battle to what its keys can do (stateful tests follow them)."""


@api.post("", name="battle_create", response_model=schema.BattleCreated,
          responses={200: {"links": LINKS}},
          summary="Start a battle; returns its id and its three links "
                  "(the only answer that carries all three keys)")
def api_new(body: NewBattle, request: Request) -> dict[str, Any]:
    _rate(request)
    made = battles(request).new(body.game, body.name, solo=body.solo)
    return {"id": made["id"], "links": links(made["id"], made["tokens"]),
            "keys": {"A": made["tokens"]["a"], "B": made["tokens"]["b"],
                     "view": made["tokens"]["view"]}}


@api.get("", name="battle_list", response_model=list[schema.BattleSummary],
         summary="The battles whose links this browser has opened")
def api_list(request: Request) -> list[BattleListing]:
    bt = battles(request)
    mine = []
    for bid, key in _remembered(request):
        try:
            bt.access(bid, key)
        except UsageError:
            continue
        mine.append(bid)
    return bt.list_battles(only=mine)


@api.post("/import", name="battle_import", response_model=schema.BattleImported,
          openapi_extra={"requestBody": {"required": True, "content": {"application/json": {
              "schema": {"type": "object", "description": "a battle export, as "
                         "battle_export answers it"}}}}},
          summary="Add an exported battle (it must replay); "
                  "returns its three links")
async def api_import(request: Request) -> dict[str, Any]:
    raw = await request.body()  # at most its bound (web.security.BODY_LIMITS)
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        raise ImportFormatError("the request body is not a JSON battle export") from None
    await run_in_threadpool(_rate, request)
    made = await run_in_threadpool(battles(request).import_, data)
    return {"id": made["id"], "origin": made["origin"],
            "links": links(made["id"], made["tokens"])}


@api.get("/{battle_id}", name="battle_show", response_model=schema.BattleView,
         summary="The battle now")
def api_show(battle_id: str, request: Request, key: KeyQuery = None,
             x_key: KeyHeader = None) -> dict[str, Any]:
    bt = battles(request)
    role, _ = link_role(bt, battle_id, link_key(key, x_key))
    return {**bt.show(battle_id), "role": role}


@api.post("/{battle_id}/units", name="battle_add_unit", response_model=schema.BattleEvent,
          summary="Add a unit to your side")
def api_add_unit(battle_id: str, body: NewUnit, request: Request, key: KeyQuery = None,
                 x_key: KeyHeader = None) -> dict[str, Any]:
    bt = battles(request)
    side = link_side(bt, battle_id, link_key(key, x_key))
    if body.profile is not None and body.source is not None:
        raise BattleError("give the unit's profile once: profile or from")
    return bt.add_unit(battle_id, body.side, body.name, body.stats,
                       profile=body.profile if body.profile is not None else body.source,
                       expect=body.expect, by=side)


@api.post("/{battle_id}/force", name="battle_add_force",
          response_model=list[schema.BattleEvent], summary="Add an example force to your side")
def api_add_force(battle_id: str, body: NewForce, request: Request, key: KeyQuery = None,
                  x_key: KeyHeader = None) -> list[dict[str, Any]]:
    from warroom.battle.library import Library, add_force, chosen, entry_of_text

    bt = battles(request)
    side = link_side(bt, battle_id, link_key(key, x_key))
    if (body.force is None) == (body.toml is None):
        raise BattleError("give the force once: force (a library ref) or toml")
    game = bt.state(battle_id).game
    entry = entry_of_text(body.toml, game) if body.toml is not None else \
        Library(bt.store).get(body.force or "", game)
    return add_force(bt, battle_id, body.side, chosen(entry, body.units),
                     expect=body.expect, by=side)


class Prepare(Body):
    procedure: StrictStr = Field(examples=["fow.shoot_mixed"])
    params: dict[str, Any] = Field(default_factory=dict, description="as for do: "
                                   "parameters plus unit or units, target, side")


@api.post("/{battle_id}/odds", name="battle_odds", summary="The parameters do would use, "
          "with where each came from, and their exact odds, before anyone rolls",
          response_model=schema.BattleOdds)
async def api_odds(battle_id: str, body: Prepare, request: Request, key: KeyQuery = None,
                   x_key: KeyHeader = None) -> Response:
    """As ``/api/v1/odds`` answers (worker processes, time caps, the shared cache): the
    exact odds, or past the exact budget an estimate (``"refining"`` while the full one,
    a margin of half a point, is still being counted: ask again)."""
    from warroom.engine.params import normalized
    from warroom.serving import unless_gone

    bt = battles(request)

    def prepare() -> tuple[Any, Any, dict[str, Any]]:
        _role_name, side = link_role(bt, battle_id, link_key(key, x_key))
        return bt.preview(battle_id, body.procedure, body.params, by=side)

    proc, params, extra = await run_in_threadpool(prepare)
    srv = request.app.state.serving
    given = {k: v for k, v in normalized(params).items() if k in params.model_fields_set}
    answer = await unless_gone(request.is_disconnected, srv.odds(
        proc.id, given, deadline=srv.api_deadline,
        estimate_seconds=srv.api_estimate_seconds))
    data = await run_in_threadpool(
        bt.odds_of, proc, params, extra, exact=answer.exact, estimate=answer.estimate,
        odds=answer.to_json(exact=True, full=False))
    return JSONResponse(schema.emit(schema.BattleOdds, data))


@api.post("/{battle_id}/edit", name="battle_edit_unit", response_model=schema.BattleEvent,
          summary="Change a unit's stats")
def api_edit_unit(battle_id: str, body: EditUnit, request: Request, key: KeyQuery = None,
                  x_key: KeyHeader = None) -> dict[str, Any]:
    bt = battles(request)
    side = link_side(bt, battle_id, link_key(key, x_key))
    return bt.edit_unit(battle_id, body.unit, body.stats, expect=body.expect, by=side,
                        profile=body.profile)


@api.post("/{battle_id}/mark", name="battle_mark", response_model=schema.BattleEvent,
          summary="Set, change or clear a marker")
def api_mark(battle_id: str, body: Mark, request: Request, key: KeyQuery = None,
             x_key: KeyHeader = None) -> dict[str, Any]:
    bt = battles(request)
    side = link_side(bt, battle_id, link_key(key, x_key))
    value = None if body.value is None else str(body.value)
    return bt.mark(battle_id, body.unit, body.marker, value, expect=body.expect, by=side)


async def warm(request: Request, bt: Battles, battle_id: str, proc_id: str,
               raw: Mapping[str, Any], side: str | None) -> None:
    """Before an action runs in a thread: the odds it will ask the shared cache for (its
    luck expectation) worked out in the app's worker processes
    (:meth:`warroom.serving.Serving.warm`), so a heavy action never computes under the
    server's interpreter lock, where it would hold up every other request. A client that
    goes away meanwhile cancels the work, and nothing is recorded."""
    from warroom.serving import unless_gone

    try:
        prepared = await run_in_threadpool(
            lambda: bt.prepare(battle_id, proc_id, raw, by=side))
    except UsageError:
        return  # the action itself says what is wrong
    await unless_gone(request.is_disconnected, request.app.state.serving.warm(
        prepared["procedure"], prepared["params"]))


@api.post("/{battle_id}/do", name="battle_do", response_model=schema.BattleEvent,
          summary="Resolve a procedure against units")
async def api_do(battle_id: str, body: Do, request: Request, key: KeyQuery = None,
                 x_key: KeyHeader = None) -> dict[str, Any]:
    from warroom.web.jsonapi import entered_dice

    bt = battles(request)
    side = await run_in_threadpool(link_side, bt, battle_id, link_key(key, x_key))
    params = {k: v if isinstance(v, (str, int, float, bool, list)) else str(v)
              for k, v in body.params.items()}
    entered = entered_dice(body.dice)
    await warm(request, bt, battle_id, body.procedure, params, side)
    event: dict[str, Any] = await run_in_threadpool(
        lambda: bt.do(battle_id, body.procedure, params, entered, expect=body.expect,
                      by=side))
    return event


@api.post("/{battle_id}/next", name="battle_next", response_model=schema.BattleEvent,
          summary="Next phase, with its checklist")
def api_next(battle_id: str, request: Request, body: Write | None = None,
             key: KeyQuery = None, x_key: KeyHeader = None) -> dict[str, Any]:
    bt = battles(request)
    side = link_side(bt, battle_id, link_key(key, x_key))
    return bt.advance(battle_id, expect=body.expect if body else None, by=side)


class UndoAnswer(Write):
    accept: StrictBool = Field(description="true: take the roll back; false: keep it")


@api.post("/{battle_id}/undo", name="battle_undo", response_model=schema.BattleEvent,
          summary="Take back the latest event (a virtual roll: ask the other side, "
                  "kind undo_asked)")
def api_undo(battle_id: str, request: Request, body: Write | None = None,
             key: KeyQuery = None, x_key: KeyHeader = None) -> dict[str, Any]:
    bt = battles(request)
    side = link_side(bt, battle_id, link_key(key, x_key))
    return bt.undo(battle_id, expect=body.expect if body else None, by=side)


@api.post("/{battle_id}/undo/answer", name="battle_undo_answer",
          response_model=schema.BattleEvent,
          summary="Accept (undone) or decline (undo_declined) the other side's request "
                  "to undo its virtual roll")
def api_undo_answer(battle_id: str, body: UndoAnswer, request: Request,
                    key: KeyQuery = None, x_key: KeyHeader = None) -> dict[str, Any]:
    bt = battles(request)
    side = link_side(bt, battle_id, link_key(key, x_key))
    return bt.answer_undo(battle_id, body.accept, expect=body.expect, by=side)


@api.post("/{battle_id}/end", name="battle_end", response_model=schema.BattleEvent,
          summary="Ask to end the battle; when both "
                  "sides have asked, its dice seed is revealed")
def api_end(battle_id: str, request: Request, body: Write | None = None,
            key: KeyQuery = None, x_key: KeyHeader = None) -> dict[str, Any]:
    bt = battles(request)
    side = link_side(bt, battle_id, link_key(key, x_key))
    return bt.end(battle_id, expect=body.expect if body else None, by=side)


@api.get("/{battle_id}/log", name="battle_log", response_model=list[schema.BattleEvent],
         summary="Every event, oldest first (or the latest `limit` events below `before`)")
async def api_log(battle_id: str, request: Request, key: KeyQuery = None,
            x_key: KeyHeader = None,
            limit: Annotated[int | None, Query(ge=1, le=LOG_MOST, description=(
                "only the latest this many events (below `before`)"))] = None,
            before: Annotated[int | None, Query(ge=1, le=10**7, description=(
                "only events numbered below this one: the first `seq` of the page you "
                "have, for the page before it"))] = None) -> list[dict[str, Any]]:
    bt = battles(request)
    await run_in_threadpool(link_role, bt, battle_id, link_key(key, x_key))
    if limit is not None or before is not None:  # a page: read without the whole log
        page: list[dict[str, Any]] = await run_in_threadpool(
            lambda: bt.log(battle_id, limit=limit, before=before))
        return page
    whole: list[dict[str, Any]] = await _whole_log(request, bt, "log", battle_id)
    return whole


@api.get("/{battle_id}/export", name="battle_export", response_model=schema.BattleExport,
         summary="The whole battle (for import)")
async def api_export(battle_id: str, request: Request, key: KeyQuery = None,
                     x_key: KeyHeader = None) -> dict[str, Any]:
    bt = battles(request)
    await run_in_threadpool(link_role, bt, battle_id, link_key(key, x_key))
    exported: dict[str, Any] = await _whole_log(request, bt, "export", battle_id)
    return exported


@api.get("/{battle_id}/verify", name="battle_verify", response_model=schema.VerifyReport,
         summary="Replay every event from scratch")
async def api_verify(battle_id: str, request: Request, key: KeyQuery = None,
                     x_key: KeyHeader = None) -> dict[str, Any]:
    bt = battles(request)
    await run_in_threadpool(link_role, bt, battle_id, link_key(key, x_key))
    report: dict[str, Any] = await _whole_log(request, bt, "verify", battle_id)
    return report


async def _whole_log(request: Request, bt: Battles, what: str, battle_id: str,
                     rate: bool = True) -> Any:
    """``verify``, ``export`` or the whole ``log`` of a battle: counted against the
    address's whole-log reads (:data:`READ_RATE`), then worked out in the server's read
    worker process, never on the event loop (:meth:`warroom.serving.Serving.battle_read`;
    a ``verify`` of an unchanged battle comes from the cache). An app whose battles use
    other rules than the registered games' (tests) reads in a thread instead."""
    if rate:
        await run_in_threadpool(_rate, request, "read")
    serving = getattr(request.app.state, "serving", None)
    if serving is None or not bt.default_rules:
        if what == "verify":
            return (await run_in_threadpool(bt.verify, battle_id)).to_json()
        read = bt.luck_report if what == "luck" else getattr(bt, what)
        return await run_in_threadpool(read, battle_id)
    row = await run_in_threadpool(bt.row, battle_id)
    version = (row["counter"], row["updated_at"], hash(row["state"]), row.get("origin"))
    return await serving.battle_read(what, bt.store.url, battle_id, version)


@api.get("/{battle_id}/luck", name="battle_luck", response_model=schema.Luck,
         summary="Expected against actual, per side")
async def api_luck(battle_id: str, request: Request, key: KeyQuery = None,
                   x_key: KeyHeader = None,
                   unusual: Annotated[bool, Query(description=(
                       "also how unusual each total is (its percentile in the "
                       "distribution of every total the dice could have given): reads the "
                       "whole log, counted as verify and export are"))] = False
                   ) -> dict[str, Any]:
    bt = battles(request)
    await run_in_threadpool(link_role, bt, battle_id, link_key(key, x_key))
    if unusual:
        report: dict[str, Any] = await _whole_log(request, bt, "luck", battle_id)
        return report
    return dict(await run_in_threadpool(bt.luck, battle_id))


# ---------------------------------------------------------------------------- pages
def _remembered(request: Request) -> list[tuple[str, str]]:
    raw = request.cookies.get(REMEMBER, "")
    out = []
    for part in raw.split(","):
        bid, _, key = part.partition(":")
        if bid and key and (bid, key) not in out:
            out.append((bid, key))
    return out[-30:]


def error_text(request: Request, exc: UsageError) -> str:
    """The error in the page's language (the JSON API's ``detail`` stays English), the
    values it echoes cut short."""
    from warroom.errors import error_message
    from warroom.web.lang import translator
    from warroom.web.templating import page_lang

    return error_message(exc, translator(page_lang(request)))


def _render(request: Request, name: str, ctx: dict[str, Any], status: int = 200
            ) -> HTMLResponse:
    from warroom.web.templating import render

    return render(request, name, ctx, status_code=status)


@router.get("/battles", response_class=HTMLResponse, summary="Your battles")
def page_list(request: Request) -> HTMLResponse:
    bt = battles(request)
    mine = []
    for bid, key in reversed(_remembered(request)):
        try:
            role, _ = bt.access(bid, key)
            info = bt.show(bid)
        except UsageError:
            continue
        mine.append({"id": bid, "name": info["name"], "game": info["game"],
                     "turn": info["turn"], "side": info["side"], "role": role,
                     "link": f"/battles/{bid}/{key}"})
    return _render(request, "battles/list.html", {"mine": mine, "games": _games(bt)})


PRACTICE = frozenset({"demo"})
"""Games a new battle's list leaves out: the built-in dice pool that exercises the core
(the command line, the API and the tests still start battles of it)."""


def _games(bt: Battles) -> list[tuple[str, str]]:
    """The games a new battle may play, as (id, title), for the page's list."""
    out = []
    for game in bt.games():
        if game in PRACTICE:
            continue
        try:
            title = bt.registry.system(game).title
        except UsageError:  # a sequence of play without a game system (tests)
            title = game
        out.append((game, title))
    return out


@router.post("/battles", summary="Start a battle from the form")
def page_new(request: Request, game: Annotated[str, Form()],
             name: Annotated[str, Form()] = "", solo: Annotated[str, Form()] = "") -> Response:
    """The one page that shows all three links: the creator hands them out."""
    bt = battles(request)
    try:
        _rate(request)
        made = bt.new(game, name or None, solo=bool(solo))
    except UsageError as exc:
        return _render(request, "battles/list.html", {"mine": [], "games": _games(bt),
                                                      "error": error_text(request, exc)},
                       exc.http_status)
    bid = made["id"]
    from warroom.web.share import share as shared

    share = links(bid, made["tokens"])
    response = _render(request, "battles/created.html", {
        "id": bid, "name": bt.show(bid)["name"], "share": share,
        "shared": shared(request, share)}, 201)
    _remember(request, response, bid, made["tokens"]["a"])
    response.headers["Cache-Control"] = "no-store"
    return response


def _context(request: Request, battle_id: str, key: str, form: Any = None,
             keep: bool = False, before: int | None = None,
             draft: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """What the battle section shows to this link's holder: the battle from its
    snapshot and the latest :data:`LOG_PAGE` events below ``before`` (never the whole
    log, so a page costs the same at 3,000 events as at 10); the Resolve form as
    ``form`` (else the address's query) picks it (:func:`_resolve_view`)."""
    from warroom.web import unit_forms
    from warroom.web.share import share as shared

    bt = battles(request)
    role, side = link_role(bt, battle_id, key)
    view = bt.page(battle_id, limit=LOG_PAGE, before=before)
    info, events = view["show"], view["events"]
    _describe(request, events)
    procs = bt.game_procedures(info["game"])
    # a side's holder sees its own link and the spectator's: never the other side's
    every = links(battle_id, _tokens(bt.row(battle_id)))
    share = {side: every[side], "view": every["view"]} if side else {}
    may = allowed(bt, battle_id, info, events, side, before)
    return {
        "b": info, "events": list(reversed(events)), "luck": view["luck"]["sides"],
        "game": info["game"],
        "older": view["older"], "before": before,
        "role": role, "side": side, "key": key, "procedures": procs,
        "share": share, "shared": shared(request, share),
        "base": f"/battles/{battle_id}/{key}",
        "markers": _marker_names(info["game"]),
        "mine": [u for u in info["units"] if side is not None and u["side"] == side],
        "may": may,
        "r": _resolve_view(request, bt, battle_id, key, side, info["counter"],
                           request.query_params if form is None else form,
                           keep=keep) if may["resolve"] else None,
        **unit_forms.context(bt, info, side, draft),
    }


def allowed(bt: Battles, battle_id: str, info: Mapping[str, Any],
            events: Sequence[Mapping[str, Any]], side: str | None,
            before: int | None = None) -> dict[str, Any]:
    """What this link's holder may do now, by the rules :class:`Battles` enforces (it
    stays the judge: the page only leaves out what it would refuse). ``next``: move the
    phase on (only the side whose turn it is); ``undo``: take back the latest live
    event (only the side that made it); ``resolve``: the Resolve form (a side with a
    unit in action: ``units`` says why not otherwise, "none" or "out"). Nothing for a
    spectator, an ended battle or one kept read-only. ``events`` is a page of the log,
    oldest first (the latest page unless ``before``)."""
    open_ = side is not None and not info.get("ended") and not info.get("read_only")
    own = [u for u in info["units"] if u["side"] == side]
    in_action = [u for u in own if not _out_of_action(u)]
    return {"next": open_ and info["side"] == side,
            "undo": open_ and info["can_undo"] and _latest_by(
                bt, battle_id, events if before is None else None) == side,
            "resolve": open_ and bool(in_action),
            "units": "ok" if in_action else "out" if own else "none"}


def _out_of_action(unit: Mapping[str, Any]) -> bool:
    from warroom.battle.state import Unit

    return Unit(unit["name"], unit["side"], dict(unit["stats"]), dict(unit["markers"]),
                unit.get("profile")).out_of_action


def _latest_by(bt: Battles, battle_id: str,
               page: Sequence[Mapping[str, Any]] | None) -> str | None:
    """Who made the latest live event (what an undo takes back): found in the page of
    the log at hand, else in the pages before it (never the whole log)."""
    if page is None:
        page = bt.log(battle_id, limit=LOG_PAGE)
    while page:
        live = [e for e in page if e["kind"] not in ("created", "undone") and not e["undone"]]
        if live:
            return str(live[-1].get("by")) if live[-1].get("by") else None
        if page[0]["seq"] <= 1:
            break
        page = bt.log(battle_id, limit=LOG_PAGE, before=page[0]["seq"])
    return None


def _describe(request: Request, events: list[dict[str, Any]]) -> None:
    """Each event's line in the page's language (``text``), as its kind describes it."""
    from warroom.battle.events import Resolved, parse
    from warroom.web.lang import translator
    from warroom.web.templating import page_lang

    tr = translator(page_lang(request))
    for e in events:
        event = parse(e)
        e["text"] = event.describe(tr)
        if isinstance(event, Resolved):
            e["line"] = event.line(tr)  # the page lays out its parts


def battle_page(request: Request, battle_id: str, key: str, error: str | None = None,
          status: int = 200, form: Any = None, keep: bool = False,
          before: int | None = None, draft: Mapping[str, Any] | None = None,
          changes: Sequence[str] = ()) -> HTMLResponse:
    ctx = _context(request, battle_id, key, form, keep, before, draft)
    response = _render(request, "battles/battle.html",
                       {**ctx, "error": error, "changes": changes}, status)
    _remember(request, response, battle_id, key)
    return response


def _htmx(request: Request) -> bool:
    return request.headers.get("hx-request") == "true"


def done(request: Request, address: str) -> Response:
    """A write recorded: back to the battle page (303; for the page's script, which sent
    the form itself, the same address in ``HX-Redirect``)."""
    if _htmx(request):
        return Response(status_code=204, headers={"HX-Redirect": address})
    return RedirectResponse(address, status_code=303)


def refused(request: Request, battle_id: str, key: str, exc: UsageError, *,
            form: Any = None, keep: bool = False,
            draft: Mapping[str, Any] | None = None) -> Response:
    """A write refused, with the reason and, for a stale one, the events that changed
    what it reads (their log lines in the page's language). The page's script (an
    ``HX-Request``) gets the battle section as it is now after the notice
    (``data-refused``), to swap in where the reader is, what was typed kept; without
    the script, the whole page with the notice on top. Nothing was recorded."""
    changes = _changes(request, exc.changes) if isinstance(exc, StaleStateError) else []
    message = error_text(request, exc)
    if not _htmx(request):
        return battle_page(request, battle_id, key, message, exc.http_status, form=form,
                           keep=keep, draft=draft, changes=changes)
    ctx = _context(request, battle_id, key, form, keep, draft=draft)
    response = _render(request, "battles/_refused.html",
                       {**ctx, "error": message, "changes": changes}, exc.http_status)
    response.headers["HX-Refused"] = exc.code
    response.headers["Cache-Control"] = "no-store"
    return response


def _changes(request: Request, events: Sequence[Mapping[str, Any]]) -> list[str]:
    """What changed meanwhile, one line per event: who made it and its log line."""
    from warroom.battle.events import parse
    from warroom.web.lang import translator
    from warroom.web.templating import page_lang

    tr = translator(page_lang(request))
    out = []
    for e in events:
        text = parse(e).describe(tr)
        out.append(tr("#{n} side {side}: {change}").format(n=e["seq"], side=e["by"],
                                                          change=text) if e.get("by")
                   else tr("#{n} command line: {change}").format(n=e["seq"], change=text))
    return out


def _remember(request: Request, response: Response, battle_id: str, key: str) -> None:
    """Add the link to this browser's list (ids and keys are URL-safe ASCII here: the
    link opened, so both are the battle's own)."""
    pairs = [p for p in _remembered(request) if p != (battle_id, key)] + [(battle_id, key)]
    response.set_cookie(REMEMBER, ",".join(f"{b}:{k}" for b, k in pairs[-30:]),
                        max_age=365 * 24 * 3600, samesite="strict", httponly=True)


def _marker_names(game: str) -> list[str]:
    from warroom.battle.state import marker_kinds

    return sorted(marker_kinds(game))


@router.get("/battles/{battle_id}/{key}", response_class=HTMLResponse,
            summary="A battle, opened with its link")
def page_battle(battle_id: str, key: str, request: Request,
                before: BeforeQuery = None) -> HTMLResponse:
    return battle_page(request, battle_id, key, before=before)


@router.get("/battles/{battle_id}/{key}/counter", summary="The state counter (for polling)")
def page_counter(battle_id: str, key: str, request: Request, response: Response
                 ) -> dict[str, float]:
    """The state counter, half a step on while a request to undo a roll waits (it moves
    no counter), so the other side's page notices the request and shows it."""
    bt = battles(request)
    link_role(bt, battle_id, key)
    response.headers["Cache-Control"] = "no-store"
    row = bt.row(battle_id)
    return {"counter": int(row["counter"]) + (0.5 if row.get("undo_asked") else 0)}


@router.get("/battles/{battle_id}/{key}/section", response_class=HTMLResponse,
            summary="The battle section alone (the page swaps it in when the battle changes)")
def page_section(battle_id: str, key: str, request: Request,
                 before: BeforeQuery = None) -> HTMLResponse:
    response = _render(request, "battles/_battle.html",
                       _context(request, battle_id, key, before=before))
    response.headers["Cache-Control"] = "no-store"
    return response


@router.get("/battles/{battle_id}/{key}/luck", response_class=HTMLResponse,
            summary="The luck card with how unusual each side's totals are")
async def page_luck(battle_id: str, key: str, request: Request) -> HTMLResponse:
    """The battle section asks for it once drawn (it reads the whole log, in the read
    lane, once per state of the battle: never counted against the whole-log reads);
    without JavaScript its link opens it as a page."""
    bt = battles(request)
    await run_in_threadpool(link_role, bt, battle_id, key)
    report = await _whole_log(request, bt, "luck", battle_id, rate=False)
    ctx = {"luck": report["sides"], "report": True, "game": report["game"],
           "base": f"/battles/{battle_id}/{key}"}
    if request.headers.get("hx-request"):
        response = _render(request, "battles/_luck.html", ctx)
    else:
        info = await run_in_threadpool(bt.show, battle_id)
        response = _render(request, "battles/luck.html", {**ctx, "b": info})
    response.headers["Cache-Control"] = "no-store"
    return response


def _act(request: Request, battle_id: str, key: str, action: Any) -> Response:
    """Run a form's action; back to the page (:func:`done`) or the refusal
    (:func:`refused`: 409 for a stale write, 422 for a bad one, 403 for another's)."""
    bt = battles(request)
    side = link_side(bt, battle_id, key)
    try:
        action(bt, side)
    except UsageError as exc:
        return refused(request, battle_id, key, exc)
    return done(request, f"/battles/{battle_id}/{key}")


def expected_counter(text: str) -> int | None:
    try:
        return int(text) if text.strip() else None
    except ValueError:
        return None


@router.post("/battles/{battle_id}/{key}/do")
async def page_do(battle_id: str, key: str, request: Request,
                  procedure: Annotated[str, Form()], params: Annotated[str, Form()] = "",
                  unit: Annotated[str, Form()] = "", target: Annotated[str, Form()] = "",
                  dice: Annotated[str, Form()] = "", expect: Annotated[str, Form()] = ""
                  ) -> Response:
    from warroom.engine.params import parse_assignments

    def typed() -> dict[str, Any]:
        raw: dict[str, Any] = dict(parse_assignments(params.split()))
        if unit:
            raw["unit"] = unit
        if target:
            raw["target"] = target
        return raw

    def run(bt: Battles, side: str) -> None:
        from warroom.dice.sources import parse_dice

        entered = parse_dice(dice) if dice.strip() else None
        bt.do(battle_id, procedure, typed(), entered, expect=expected_counter(expect), by=side)

    bt = battles(request)
    side = await run_in_threadpool(link_side, bt, battle_id, key)
    try:
        raw = typed()
    except UsageError:
        pass  # the action says what is wrong
    else:
        await warm(request, bt, battle_id, procedure, raw, side)
    return await run_in_threadpool(_act, request, battle_id, key, run)


STAT = "s."
"""Prefix of the edit form's fields holding a unit's current stats (``s.teams``)."""
LONGEST = MAX_STAT
"""The longest stat value the edit form takes: the event model's own bound."""


def stat_changes(current: Mapping[str, Any], form: Mapping[str, str], new_stat: str = "",
                 new_value: str = "") -> dict[str, str]:
    """The stats the edit form changes: fields ``s.NAME`` whose value differs from the
    unit's (an emptied one removes that stat), plus the new stat if one is named.
    Values stay text; :meth:`Battles.edit_unit` reads whole numbers as numbers."""
    changes: dict[str, str] = {}
    for field, value in form.items():
        if not field.startswith(STAT):
            continue
        name, text = field[len(STAT):], value.strip()
        if len(text) > LONGEST:
            raise BattleError("{name}: {start!r}... is too long (at most {most} characters)",
                              name=name, start=text[:20], most=LONGEST)
        old = current.get(name)
        if text != ("" if old is None else str(old)):
            changes[name] = text
    name, text = new_stat.strip(), new_value.strip()
    if name:
        if not text:
            raise BattleError("the new stat {name!r} needs a value", name=name)
        if len(text) > LONGEST:
            raise BattleError("{name}: the value is too long (at most {most} characters)",
                              name=name, most=LONGEST)
        if name in changes and changes[name] != text:
            raise BattleError("{name!r} is given twice, as {first!r} and {second!r}",
                              name=name, first=changes[name], second=text)
        changes[name] = text
    if not changes:
        raise BattleError("nothing to change: edit a value, empty one to remove that stat, "
                          "or add a stat")
    return changes


@router.post("/battles/{battle_id}/{key}/edit")
async def page_edit(battle_id: str, key: str, request: Request,
                    unit: Annotated[str, Form()], new_stat: Annotated[str, Form()] = "",
                    new_value: Annotated[str, Form()] = "",
                    expect: Annotated[str, Form()] = "") -> Response:
    """Change a unit's stats from the page's edit form (the API's ``edit`` call). Besides
    the named fields the form posts one ``s.NAME`` field per current stat."""
    form = await request.form()
    fields = {k: v for k, v in form.multi_items() if isinstance(v, str)}

    def run(bt: Battles, side: str) -> None:
        from warroom.battle.conflicts import Write, reads

        seen = expected_counter(expect)
        # refuse a form whose unit changed since it was drawn before reading its changes
        bt.fresh(battle_id, seen, reads(Write.EDIT_UNIT, [unit]))
        current = bt.state(battle_id).unit(unit).stats
        changes = stat_changes(current, fields, new_stat, new_value)
        bt.edit_unit(battle_id, unit, changes, expect=seen, by=side)

    return await run_in_threadpool(_act, request, battle_id, key, run)


@router.post("/battles/{battle_id}/{key}/mark")
def page_mark(battle_id: str, key: str, request: Request, unit: Annotated[str, Form()],
              marker: Annotated[str, Form()], value: Annotated[str, Form()] = "",
              expect: Annotated[str, Form()] = "") -> Response:
    def run(bt: Battles, side: str) -> None:
        bt.mark(battle_id, unit, marker, value or None, expect=expected_counter(expect), by=side)

    return _act(request, battle_id, key, run)


@router.post("/battles/{battle_id}/{key}/next")
def page_next(battle_id: str, key: str, request: Request,
              expect: Annotated[str, Form()] = "") -> Response:
    return _act(request, battle_id, key,
                lambda bt, side: bt.advance(battle_id, expect=expected_counter(expect), by=side))


@router.post("/battles/{battle_id}/{key}/end")
def page_end(battle_id: str, key: str, request: Request,
             expect: Annotated[str, Form()] = "") -> Response:
    return _act(request, battle_id, key,
                lambda bt, side: bt.end(battle_id, expect=expected_counter(expect), by=side))


@router.post("/battles/{battle_id}/{key}/undo")
def page_undo(battle_id: str, key: str, request: Request,
              expect: Annotated[str, Form()] = "") -> Response:
    return _act(request, battle_id, key,
                lambda bt, side: bt.undo(battle_id, expect=expected_counter(expect), by=side))


@router.post("/battles/{battle_id}/{key}/undo/answer")
def page_undo_answer(battle_id: str, key: str, request: Request,
                     accept: Annotated[str, Form()] = "",
                     expect: Annotated[str, Form()] = "") -> Response:
    return _act(request, battle_id, key, lambda bt, side: bt.answer_undo(
        battle_id, accept == "yes", expect=expected_counter(expect), by=side))


# ---------------------------------------------------------------------------- Resolve form
def _resolve_view(request: Request, bt: Battles, battle_id: str, key: str,
                  side: str | None, counter: int, form: Any, *, keep: bool = False,
                  expect: int | None = None) -> Any:
    """The Resolve form for this link (:mod:`warroom.web.resolve`); None for a spectator."""
    from warroom.web import resolve
    from warroom.web.lang import translator
    from warroom.web.templating import page_lang

    if side is None:
        return None
    return resolve.build(request, bt, bt.state(battle_id), side, form, counter,
                         f"/battles/{battle_id}/{key}", keep=keep, expect=expect,
                         tr=translator(page_lang(request)))


def _resolve_for(request: Request, battle_id: str, key: str, form: Any,
                 pass_expect: bool = True, keep: bool = False) -> Any:
    bt = battles(request)
    side = link_side(bt, battle_id, key)
    counter = int(bt.row(battle_id)["counter"])
    seen = expected_counter(str(form.get("expect") or "")) if pass_expect else None
    return _resolve_view(request, bt, battle_id, key, side, counter, form, expect=seen,
                         keep=keep)


@router.get("/battles/{battle_id}/{key}/resolve", response_class=HTMLResponse,
            summary="The Resolve form for the units and procedure picked")
def page_resolve(battle_id: str, key: str, request: Request) -> HTMLResponse:
    """htmx asks for the form alone when units or the procedure change (the counter the
    page was drawn from is kept); without JavaScript the whole page comes back."""
    if not request.headers.get("hx-request"):
        return battle_page(request, battle_id, key)
    view = _resolve_for(request, battle_id, key, request.query_params)
    response = _render(request, "battles/_resolve.html",
                       {"r": view, "base": f"/battles/{battle_id}/{key}"})
    response.headers["Cache-Control"] = "no-store"
    return response


@router.get("/battles/{battle_id}/{key}/resolve/odds", response_class=HTMLResponse,
            summary="The exact odds of the Resolve form's values (the odds panel)")
async def page_resolve_odds(battle_id: str, key: str, request: Request) -> HTMLResponse:
    """The procedure page's odds path: exact odds within the deadline, else the estimate
    and a follow-up request (``_wait=1``) until the exact odds replace it."""
    from warroom.web.lang import translator
    from warroom.web.pages import compute_odds
    from warroom.web.templating import page_lang

    form = request.query_params
    view = await run_in_threadpool(_resolve_for, request, battle_id, key, form, True, True)
    if view.proc is None:
        return _render(request, "battles/_resolve.html",
                       {"r": view, "base": f"/battles/{battle_id}/{key}"})
    odds, _shown = await compute_odds(request, view.proc, view.raw,
                                      translator(page_lang(request)),
                                      refresh=view.odds_url + "&_wait=1",
                                      wait=form.get("_wait") == "1", fine=True)
    response = _render(request, "_odds.html", {"odds": odds, "fold_joint": True})
    response.headers["Cache-Control"] = "no-store"
    return response


@router.get("/battles/{battle_id}/{key}/resolve/dice", response_class=HTMLResponse,
            summary="What the typed dice still need (the next step's dice and what for)")
def page_resolve_dice(battle_id: str, key: str, request: Request) -> HTMLResponse:
    view = _resolve_for(request, battle_id, key, request.query_params, keep=True)
    response = _render(request, "battles/_dice_next.html", {"r": view})
    response.headers["Cache-Control"] = "no-store"
    return response


@router.post("/battles/{battle_id}/{key}/resolve")
async def page_resolve_roll(battle_id: str, key: str, request: Request) -> Response:
    """Roll: record the resolution and go back to the page (303), whose log shows it
    first. A refused write (someone else changed the battle: 409; anything else: 422)
    shows the page again with the message and every value the player typed."""
    from warroom.web import resolve

    form = await request.form()
    bt = battles(request)
    side = await run_in_threadpool(link_side, bt, battle_id, key)
    choice = resolve.read_choice(form)

    def refuse(exc: UsageError) -> Response:
        # stale: what the units filled is filled again from the units as they are now
        # (the change shown is in the form); a bad value: the form as it was sent
        return refused(request, battle_id, key, exc, form=form,
                       keep=not isinstance(exc, StaleStateError))

    def read() -> tuple[str, dict[str, Any], Any]:
        from warroom.dice.sources import parse_dice
        from warroom.engine.params import describe
        from warroom.web.pages import raw_params

        st = bt.state(battle_id)
        proc = bt.procedure(st.game, choice.procedure)
        filled, _where = resolve.unit_values(bt, st, proc, choice, side)
        typed = resolve.typed_values(proc, form, choice, raw_params(
            describe(proc.params), form, resolve.PREFIX), keep=True)
        dice_text = str(form.get("dice") or "")
        entered = parse_dice(dice_text) if dice_text.strip() else None
        return proc.id, resolve.explicit(proc, typed, filled), entered

    try:
        proc_id, params, entered = await run_in_threadpool(read)
    except UsageError as exc:
        return await run_in_threadpool(refuse, exc)
    await warm(request, bt, battle_id, proc_id,
               {**params, **choice.keys()}, side)

    def run() -> Response:
        try:
            resolve.record(bt, battle_id, proc_id, choice, params, entered,
                           expect=expected_counter(str(form.get("expect") or "")), by=side)
        except UsageError as exc:
            return refuse(exc)
        return done(request, f"/battles/{battle_id}/{key}")

    return await run_in_threadpool(run)
