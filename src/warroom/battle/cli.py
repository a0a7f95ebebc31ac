"""``warroom battle ...``: the battle tracker's commands (thin words over
:class:`warroom.battle.core.Battles`).

Importing this module is cheap: SQLAlchemy, Alembic and the engine load inside the
commands that need them.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from warroom.engine.messages import nmsg
from warroom.errors import UsageError

if TYPE_CHECKING:
    from warroom.battle.core import Battles

battle_app = typer.Typer(
    name="battle",
    help="Keep a battle: forces, markers, turn and phase, every roll in a log that loses "
    "nothing. The database is --db PATH (or an SQLAlchemy URL), else WARROOM_DB, else a "
    "file in your user data folder.",
    no_args_is_help=True,
    add_completion=False,
)

_DB: dict[str, str | None] = {"db": None}

DbOpt = Annotated[Optional[str], typer.Option(  # noqa: UP045 - typer needs Optional
    "--db", help="Database file or SQLAlchemy URL (default: WARROOM_DB, else the user "
    "data folder).", show_default=False)]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON.")]
IdArg = Annotated[str, typer.Argument(help="The battle's id (see 'warroom battle list').")]
ExpectOpt = Annotated[Optional[int], typer.Option(  # noqa: UP045
    "--expect", help="The state counter you last saw: refuse to record if an event since "
    "then changed what this reads (its units; the phase for next; any event for undo).",
    show_default=False)]
Words = Annotated[Optional[list[str]], typer.Argument(  # noqa: UP045
    help="key=value pairs.", show_default=False)]


READ_ONLY = frozenset({"list", "show", "log", "export", "verify", "luck", "links", "odds"})
"""Commands that only read: they never create a database."""


@battle_app.callback()
def _group(ctx: typer.Context, db: DbOpt = None) -> None:
    _DB["db"] = db
    _DB["read_only"] = "yes" if ctx.invoked_subcommand in READ_ONLY else None


def _battles(db: str | None) -> Battles:
    from warroom.battle.core import Battles
    from warroom.battle.store import open_store
    from warroom.serving import SharedOdds

    return Battles(open_store(db or _DB["db"], create=not _DB.get("read_only")),
                   odds=SharedOdds())


def _tr() -> Any:
    from warroom import i18n

    return i18n.running_translator()


def _out(data: Any, model: str | None = None) -> None:
    """Print ``data`` as JSON; with ``model`` (a name in :mod:`warroom.schema`: the same
    model the HTTP API answers with) checked and shaped by it first."""
    if model is not None:
        from warroom import schema

        kind: Any = getattr(schema, model.removeprefix("list:"))
        data = schema.emit(list[kind] if model.startswith("list:") else kind, data)
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n")


def _echo(text: str = "") -> None:
    sys.stdout.write(text + "\n")


def _words(words: list[str] | None) -> dict[str, str]:
    from warroom.engine.params import parse_assignments

    return parse_assignments(words or [])


UnitsOpt = Annotated[Optional[list[str]], typer.Option(  # noqa: UP045
    "--unit", help="An acting unit; give --unit again for several acting in one step.",
    show_default=False)]


def _with_units(words: list[str] | None, units: list[str] | None) -> dict[str, Any]:
    raw: dict[str, Any] = dict(_words(words))
    if units:
        if "unit" in raw or "units" in raw:
            raise UsageError("give the acting units once: --unit, unit= or units=")
        raw["units" if len(units) > 1 else "unit"] = units if len(units) > 1 else units[0]
    return raw


def _markers(u: Mapping[str, Any]) -> str:
    tr = _tr()
    parts = []
    for k, v in u["markers"].items():
        parts.append(tr(k.replace("_", " ")) if v is True else f"{tr(k.replace('_', ' '))} {v}")
    return ", ".join(parts) or "-"


def _profile_line(game: str, profile: dict[str, Any]) -> str:
    """A unit's profile in one line (the rows of 'warroom force show')."""
    from warroom.units.forces import profile_model

    rows = profile_model(game, profile).summary()
    return "; ".join(f"{label} {text}".strip() for label, text in rows)


def _describe(event: dict[str, Any]) -> str:
    """One line for an event of the log (each kind describes itself)."""
    from warroom.battle.events import describe

    return describe(event, _tr())


# ---------------------------------------------------------------------------- commands
@battle_app.command("new")
def new(
    game: Annotated[str, typer.Argument(help="fow, asl, bkc, cwc or demo.")],
    name: Annotated[Optional[str], typer.Option("--name", help="A name for the battle.",  # noqa: UP045
                                                show_default=False)] = None,
    seed: Annotated[Optional[int], typer.Option(  # noqa: UP045
        "--seed", help="Seed of the battle's dice (default: a fresh one, recorded).",
        show_default=False)] = None,
    solo: Annotated[bool, typer.Option(
        "--solo", help="Single-player: either side's link undoes any event at once "
        "(otherwise undoing a virtual roll on the web waits for the other side).")] = False,
    db: DbOpt = None, as_json: JsonOpt = False,
) -> None:
    """Start a battle."""
    made = _battles(db).new(game, name, seed, solo=solo)
    if as_json:
        _out({"id": made["id"]})
        return
    _echo(_tr()("battle {id} started").format(id=made["id"]))


@battle_app.command("list")
def list_(db: DbOpt = None, as_json: JsonOpt = False) -> None:
    """Every battle in the database."""
    from warroom.battle.phases import title

    rows = _battles(db).list_battles()
    if as_json:
        _out(rows, "list:BattleSummary")
        return
    if not rows:
        _echo(_tr()("no battles yet: start one with 'warroom battle new GAME'"))
    for r in rows:
        _echo(f"{r['id']}  {r['game']:<4}  {r['name']}  "
              + _tr()("turn {turn}, side {side}: {phase}").format(
                  turn=r["turn"], side=r["side"], phase=_tr()(title(r["phase"], r["game"]))))


@battle_app.command("show")
def show(battle_id: IdArg, db: DbOpt = None, as_json: JsonOpt = False) -> None:
    """The battle now: turn, phase with its checklist, units with their markers."""
    data = _battles(db).show(battle_id)
    if as_json:
        _out(data, "BattleView")
        return
    tr = _tr()
    _echo(f"{data['name']} ({data['game']}, {data['id']})  "
          + tr("state {n}").format(n=data["counter"]))
    _echo(tr("turn {turn}, side {side}: {phase}").format(
        turn=data["turn"], side=data["side"], phase=tr(data["phase_title"])))
    for item in data["checklist"]:
        _echo(f"  [ ] {tr(item)}")
    for side in ("A", "B"):
        units = [u for u in data["units"] if u["side"] == side]
        _echo(tr("side {side}:").format(side=side))
        if not units:
            _echo("  -")
        for u in units:
            stats = " ".join(f"{k}={v}" for k, v in u["stats"].items())
            left = (" " + nmsg("{n} team left", "{n} teams left", n=u["teams_left"]).render(tr)
                    if "teams_left" in u else "")
            _echo(f"  {u['name']}  {stats}{left}  {_markers(u)}")
            if u.get("profile") is not None:
                _echo("    " + _profile_line(data["game"], u["profile"]))


@battle_app.command("add-unit")
def add_unit(
    battle_id: IdArg,
    side: Annotated[str, typer.Option("--side", help="A or B.")],
    name: Annotated[Optional[str], typer.Option(  # noqa: UP045
        "--name", help="The unit's name (unique in the battle; default: the profile's).",
        show_default=False)] = None,
    source: Annotated[Optional[str], typer.Option(  # noqa: UP045
        "--from", help="The unit's profile from a force file: FILE:UNIT, or "
        "example:GAME:UNIT for the example forces.", show_default=False)] = None,
    stats: Words = None,
    expect: ExpectOpt = None, db: DbOpt = None, as_json: JsonOpt = False,
) -> None:
    """Add a unit: its profile from a force (--from FILE:UNIT), with stats overriding it.

    In a FoW, ASL, BKC or CWC battle every unit has its profile, and stats are key=value
    overrides of its values (dice=2 ...): a stat named like a procedure's parameter wins
    over the profile in 'battle do'. A demo unit is its stats alone (dice=4 at=3)."""
    event = _battles(db).add_unit(battle_id, side, name, _words(stats), profile=source,
                                  expect=expect)
    if as_json:
        _out(event, "BattleEvent")
        return
    _echo(_describe(event))


@battle_app.command("add-force")
def add_force(
    battle_id: IdArg,
    side: Annotated[str, typer.Argument(help="A or B.")],
    file: Annotated[str, typer.Argument(help="A force file (TOML), or example:GAME.")],
    expect: ExpectOpt = None, db: DbOpt = None, as_json: JsonOpt = False,
) -> None:
    """Add every unit of a force file to a side, each with its profile."""
    events = _battles(db).add_force(battle_id, side, file, expect=expect)
    if as_json:
        _out(events, "list:BattleEvent")
        return
    for event in events:
        _echo(_describe(event))


@battle_app.command("edit-unit")
def edit_unit(
    battle_id: IdArg,
    unit: Annotated[str, typer.Argument(help="The unit's name.")],
    stats: Words = None,
    expect: ExpectOpt = None, db: DbOpt = None, as_json: JsonOpt = False,
) -> None:
    """Change a unit's stats: key=value sets one, key= removes it."""
    event = _battles(db).edit_unit(battle_id, unit, _words(stats), expect=expect)
    if as_json:
        _out(event, "BattleEvent")
        return
    _echo(_describe(event))


@battle_app.command("mark")
def mark(
    battle_id: IdArg,
    unit: Annotated[str, typer.Argument(help="The unit's name.")],
    marker: Annotated[str, typer.Argument(
        help="pinned, pinned=no, hits=3, hits=+1, hits=clear ... (markers depend on the "
        "game; a wrong one lists them).")],
    expect: ExpectOpt = None, db: DbOpt = None, as_json: JsonOpt = False,
) -> None:
    """Set, change or clear a marker on a unit by hand."""
    name, eq, value = marker.partition("=")
    event = _battles(db).mark(battle_id, unit, name, value if eq else None, expect=expect)
    if as_json:
        _out(event, "BattleEvent")
        return
    _echo(_describe(event))


@battle_app.command("do")
def do(
    battle_id: IdArg,
    procedure: Annotated[str, typer.Argument(help="A procedure of the battle's game, "
                                             "e.g. fow.shoot.")],
    params: Annotated[Optional[list[str]], typer.Argument(  # noqa: UP045
        help="Parameters as key=value, plus the battle keys: unit=NAME (who acts), "
        "target=NAME (who the outcome falls on; default the unit), side=A|B (whose roll, "
        "for luck), clear=MARKER (remove it if the test is passed). Parameters you leave "
        "out are filled from the units' stats of the same name (target_X from the "
        "target's stat X).", show_default=False)] = None,
    dice: Annotated[Optional[str], typer.Option(  # noqa: UP045
        "--dice", help="The dice on your table, in the order the steps roll them: 3,5,6. "
        "Without it, the battle's own dice roll.", show_default=False)] = None,
    units: UnitsOpt = None,
    expect: ExpectOpt = None, db: DbOpt = None, as_json: JsonOpt = False,
) -> None:
    """Resolve a procedure in the battle: the outcome changes the named unit's markers.

    Units with profiles fill the parameters from them (and their markers); several of a
    side's units act in one step with --unit A --unit B (or units=A,B)."""
    from warroom.dice.sources import parse_dice

    entered = parse_dice(dice) if dice is not None else None
    if dice is not None and not entered:
        raise UsageError("--dice needs at least one die, e.g. --dice 3,5,6")
    event = _battles(db).do(battle_id, procedure, _with_units(params, units), entered,
                            expect=expect)
    if as_json:
        _out(event, "BattleEvent")
        return
    tr = _tr()
    for step in event["steps"]:
        dice_text = " ".join(str(d) for d in step["dice"])
        line = f"  {step['text']}"
        if dice_text:
            line += f": {dice_text}"
        if step.get("result"):
            line += f" → {step['result']}"
        _echo(line)
    _echo(_describe(event))
    for change in event["effects"]:
        value = change["value"]
        shown = tr("cleared") if value is None else ("" if value is True else f"= {value}")
        _echo(f"  {change['unit']}: {tr(change['marker'].replace('_', ' '))} {shown}".rstrip())


@battle_app.command("odds")
def odds(
    battle_id: IdArg,
    procedure: Annotated[str, typer.Argument(help="A procedure of the battle's game.")],
    params: Annotated[Optional[list[str]], typer.Argument(  # noqa: UP045
        help="As for 'battle do'.", show_default=False)] = None,
    units: UnitsOpt = None,
    db: DbOpt = None, as_json: JsonOpt = False,
) -> None:
    """The exact odds of what 'battle do' would resolve, before anyone rolls.

    The same parameters as 'battle do' (where each came from); nothing is recorded."""
    data = _battles(db).odds(battle_id, procedure, _with_units(params, units))
    if as_json:
        _out(data, "BattleOdds")
        return
    from warroom.i18n.formats import fmt_count, fmt_number

    tr = _tr()
    for name, value in data["params"].items():
        where = data["filled"].get(name)
        _echo(f"  {name} = {value}" + (f"  ({where})" if where else ""))
    odds = data["odds"]
    if odds["estimate"]:
        _echo(tr("Estimated odds: exact odds would take too long for these numbers. "
                 "Counted from {n} simulated rolls, each chance may be off by up to about "
                 "{m} percentage points.").format(n=fmt_count(odds["samples"], tr, terminal=True),
                                                  m=fmt_number(odds["margin"] * 100, tr, 1)))
    for name, rows in data["chances"].items():
        _echo(f"{name}:")
        for r in rows:
            _echo(f"  {r['value']!s:>10}  {r.get('exact', ''):>22}  {r['p']:7.2%}")
    for name, value in data["expected"].items():
        _echo(tr("expected {field}: {value}").format(field=name, value=value))


@battle_app.command("next")
def next_(battle_id: IdArg, expect: ExpectOpt = None, db: DbOpt = None,
          as_json: JsonOpt = False) -> None:
    """Advance to the next phase (or the other side's turn) and print its checklist."""
    event = _battles(db).advance(battle_id, expect=expect)
    if as_json:
        _out(event, "BattleEvent")
        return
    tr = _tr()
    _echo(tr("turn {turn}, side {side}: {phase}").format(
        turn=event["turn"], side=event["side"], phase=tr(event["title"])))
    for item in event["checklist"]:
        _echo(f"  [ ] {tr(item)}")


@battle_app.command("undo")
def undo(battle_id: IdArg, expect: ExpectOpt = None, db: DbOpt = None,
         as_json: JsonOpt = False) -> None:
    """Take back the latest event. A roll made again afterwards gets the same dice."""
    event = _battles(db).undo(battle_id, expect=expect)
    if as_json:
        _out(event, "BattleEvent")
        return
    _echo(_describe(event))


@battle_app.command("end")
def end(battle_id: IdArg, expect: ExpectOpt = None, db: DbOpt = None,
        as_json: JsonOpt = False) -> None:
    """End the battle and reveal its dice seed.

    From then on anyone can check every virtual die against the commitment made when
    the battle was created (on the web both sides must ask)."""
    event = _battles(db).end(battle_id, expect=expect)
    if as_json:
        _out(event, "BattleEvent")
        return
    _echo(_describe(event))


@battle_app.command("log")
def log(battle_id: IdArg, db: DbOpt = None, as_json: JsonOpt = False) -> None:
    """Every event of the battle, oldest first."""
    events = _battles(db).log(battle_id)
    if as_json:
        _out(events, "list:BattleEvent")
        return
    for e in events:
        _echo(_describe(e))


@battle_app.command("export")
def export(battle_id: IdArg, db: DbOpt = None,
           as_json: JsonOpt = False) -> None:
    """The whole battle as JSON on stdout (for 'warroom battle import')."""
    _ = as_json  # export is always JSON
    _out(_battles(db).export(battle_id), "BattleExport")


@battle_app.command("import")
def import_(
    file: Annotated[str, typer.Argument(help="A file written by 'warroom battle export' "
                                        "('-' reads stdin).")],
    db: DbOpt = None, as_json: JsonOpt = False,
) -> None:
    """Add an exported battle (it must replay exactly); keeps its id when free."""
    from pathlib import Path

    from warroom.battle.errors import ImportFormatError

    try:
        text = sys.stdin.read() if file == "-" else Path(file).read_text(encoding="utf-8")
    except OSError as exc:
        raise ImportFormatError("cannot read {file!r}: {reason}", file=file,
                                reason=exc.strerror) from None
    except UnicodeDecodeError:
        raise ImportFormatError("{file!r} is not a text file", file=file) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ImportFormatError("{file!r} is not JSON: {reason}", file=file,
                                reason=str(exc)) from None
    except RecursionError:
        raise ImportFormatError("{file!r} is nested too deeply to be a battle export",
                                file=file) from None
    made = _battles(db).import_(data)
    if as_json:
        _out({"id": made["id"]})
        return
    _echo(_tr()("battle {id} imported").format(id=made["id"]))


@battle_app.command("verify")
def verify(battle_id: IdArg, db: DbOpt = None, as_json: JsonOpt = False) -> None:
    """Replay every event from scratch with the recorded dice and seeds.

    Exits 0 only when every outcome and the state reproduce."""
    report = _battles(db).verify(battle_id)
    if as_json:
        _out(report.to_json(), "VerifyReport")
    else:
        tr = _tr()
        if report.ok:
            _echo(nmsg("ok: {n} event reproduces", "ok: {n} events reproduce",
                       n=report.events).render(tr))
            _echo(tr("authentic: made on this server") if report.authentic else
                  tr("consistent but not signed by this server"))
        for note in report.notes:
            _echo(f"{tr('note')}: {tr(note)}")
        for p in report.problems:
            _echo(f"{tr('problem')}: {p}")
    if not report.ok:
        from warroom.battle.errors import VerifyFailed

        raise VerifyFailed(f"battle {battle_id}: {len(report.problems)} problem(s); "
                           "the log does not reproduce")


@battle_app.command("luck")
def luck(battle_id: IdArg, db: DbOpt = None, as_json: JsonOpt = False) -> None:
    """Per side: what its rolls were expected to give, and what they gave."""
    from warroom.i18n import label
    from warroom.i18n.formats import fmt_number, fmt_percentile

    data = _battles(db).luck_report(battle_id)
    if as_json:
        _out(data, "Luck")
        return
    tr = _tr()
    for side, info in data["sides"].items():
        _echo(nmsg("side {side}: {n} roll", "side {side}: {n} rolls", n=info["rolls"],
                   side=side).render(tr))
        for name, f in info["fields"].items():
            if not f["spread"]:  # a total the dice could not change
                continue
            _echo("  " + tr("{field}: expected {expected}, got {actual}, percentile "
                            "{percentile}").format(
                field=label(tr, name, data["game"]), expected=fmt_number(f["expected"], tr),
                actual=f["actual"],
                percentile="-" if f["percentile"] is None else fmt_percentile(
                    f["percentile"], f["estimate"], f["margin"], tr)))


@battle_app.command("links")
def links(battle_id: IdArg, db: DbOpt = None, as_json: JsonOpt = False) -> None:
    """The battle's web links (side A, side B, spectator), for 'warroom serve'."""
    row = _battles(db).row(battle_id)
    data = {"A": f"/battles/{battle_id}/{row['token_a']}",
            "B": f"/battles/{battle_id}/{row['token_b']}",
            "view": f"/battles/{battle_id}/{row['token_view']}"}
    if as_json:
        _out(data, "BattleLinks")
        return
    for who, link in data.items():
        _echo(f"{who:<5} {link}")


def register(app: typer.Typer) -> None:
    """Add ``warroom battle`` to the main app (once: ``main()`` may run many times in
    one process, e.g. in tests)."""
    if any(group.typer_instance is battle_app for group in app.registered_groups):
        return
    app.add_typer(battle_app, name="battle")
