"""The command line: thin words over :mod:`warroom.api`.

Usage errors (unknown names, bad values, wrong dice) print one clear message and exit
with code 2 (under ``--json``, a JSON object ``{"error": {"code", "message",
"parameter"}}`` on stdout); nothing prints a traceback unless WARROOM_DEBUG is set.
"""

from __future__ import annotations

import json
import os
import sys
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from warroom.errors import UsageError, WarroomError

if TYPE_CHECKING:
    from collections.abc import Callable

    from rich.console import Console

    from warroom.engine.results import Estimate


app = typer.Typer(
    name="warroom",
    help="An umpire for tabletop wargames: exact odds, explained resolutions, battle logs.\n\n"
    "Games: Flames of War (fow), Advanced Squad Leader (asl), Blitzkrieg Commander (bkc),"
    " Cold War Commander (cwc). Parameters are given as key=value.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

ESTIMATE_SECONDS: float | None = None
"""Time cap of the estimate 'warroom odds' prints where exact odds would take too long:
none, so that its 95% margin is half a percentage point (a bar shows how far it is)."""

def _complete_procedure(incomplete: str) -> list[str]:
    """Shell completion: procedure ids (``fow.sh`` -> ``fow.shoot``, ``fow.shoot_mixed``)."""
    from warroom import api

    return [p.id for p in api.registry().procedures() if p.id.startswith(incomplete)]


def _complete_game(incomplete: str) -> list[str]:
    """Shell completion for ``rules``: game systems, then procedure ids."""
    from warroom import api

    names = [*api.registry().games, *(p.id for p in api.registry().procedures())]
    return [n for n in names if n.startswith(incomplete)]


def _complete_params(ctx: typer.Context, incomplete: str) -> list[str]:
    """Shell completion: ``name=`` for the procedure's parameters, then a choice's values."""
    from warroom import api
    from warroom.errors import UsageError

    try:
        proc = api.registry().procedure(str(ctx.params.get("procedure") or ""))
    except UsageError:
        return []
    specs = api.param_specs(proc)
    name, eq, value = incomplete.partition("=")
    if eq:
        spec = next((s for s in specs if s.name == name), None)
        choices = list(spec.choices) if spec is not None and spec.choices else []
        return [f"{name}={c}" for c in choices if str(c).startswith(value)]
    return [f"{s.name}=" for s in specs if s.name.startswith(name)]


ParamsArg = Annotated[
    Optional[list[str]],  # noqa: UP045 - typer needs Optional here
    typer.Argument(help="Parameters as key=value, e.g. dice=8 at=4. See 'warroom rules GAME'.",
                   show_default=False, autocompletion=_complete_params),
]
ProcArg = Annotated[str, typer.Argument(help="game.procedure, e.g. fow.shoot",
                                        autocompletion=_complete_procedure)]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]
FromOpt = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Option("--from", help="The acting unit, FILE:UNIT (a force file, or "
                 "example:GAME): its stats fill the parameters. Again for several units "
                 "acting in one step (fow.shoot_mixed, asl.fire_group, bkc/cwc.fire).",
                 show_default=False),
]
AtOpt = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Option("--at", help="The target unit, FILE:UNIT. Again for the units "
                 "supporting it (bkc/cwc.assault: the defender's supporters).",
                 show_default=False),
]
LangOpt = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--lang", help="Language: en, pl or zh (default: WARROOM_LANG or en).",
                 show_default=False),
]


def _set_lang(lang: str | None) -> None:
    """``--lang``: en, pl or zh (``pl_PL``, ``zh-CN`` too); anything else is a usage
    error (exit 2), never a silent fall-back to English."""
    if lang:
        from warroom import i18n

        i18n.RUNNING["lang"] = i18n.language(lang)


def _version(value: bool) -> None:
    if value:
        from warroom import __version__

        sys.stdout.write(f"warroom {__version__}\n")
        raise typer.Exit()


@app.callback()
def _root(
    lang: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option("--lang", help="Language of explanations: en, pl or zh "
                     "(default: WARROOM_LANG or en).", show_default=False),
    ] = None,
    version: Annotated[bool, typer.Option(
        "--version", help="Print warroom's version and exit.", callback=_version,
        is_eager=True)] = False,
) -> None:
    from warroom import i18n

    del version
    i18n.RUNNING["lang"] = i18n.from_env()
    _set_lang(lang)


def _tr() -> Any:
    from warroom import i18n

    return i18n.running_translator()


def _console() -> Console:
    from rich.console import Console

    return Console(highlight=False, soft_wrap=False)


def _print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n")


def _emit(answer: str, data: Any) -> Any:
    """``data`` through its model in :mod:`warroom.schema`, the one the HTTP API
    answers with: ``--json`` prints exactly what ``/api/v1`` sends."""
    from warroom import schema

    # each model is looked up only when needed: its module is imported on first use
    if answer == "rules":
        return schema.emit(list[schema.GameRules], data)
    if answer == "roll":
        return schema.emit(schema.RollResult, data)
    # odds: exact or estimated, as the answer says (the two are separate models)
    return schema.emit(schema.EstimatedOdds if data["estimate"] else schema.ExactOdds, data)


def _parse(words: list[str] | None) -> dict[str, str]:
    from warroom.engine.params import parse_assignments

    return parse_assignments(words or [])


def _units(procedure: str, words: list[str] | None, from_unit: list[str] | None,
           at_unit: list[str] | None, as_json: bool) -> dict[str, Any]:
    """The parameters, filled from ``--from`` / ``--at`` units where given (and, unless
    under --json, where each value came from, printed first)."""
    given: dict[str, Any] = _parse(words)
    if not from_unit and not at_unit:
        return given
    from warroom.units import params_for

    acting = None if not from_unit else from_unit[0] if len(from_unit) == 1 else from_unit
    target = None if not at_unit else at_unit[0] if len(at_unit) == 1 else at_unit
    built = params_for(procedure, acting, target, **given)
    if not as_json:
        sys.stdout.write("".join(f"  {line}\n" for line in built.lines(_tr())))
    return built.params


# --------------------------------------------------------------------------- rules
@app.command()
def rules(
    game: Annotated[Optional[str], typer.Argument(  # noqa: UP045
        help="fow, asl, bkc, cwc or demo; or one rule, e.g. fow.shoot.", show_default=False,
        autocompletion=_complete_game)] = None,
    as_json: JsonOpt = False,
    lang: LangOpt = None,
) -> None:
    """List game systems and their procedures, parameters, outcomes and data tables.

    Each parameter shows its type, default and allowed values. GAME.PROC shows one rule."""
    from warroom import api

    _set_lang(lang)
    if game and "." in game:
        proc = api.registry().procedure(game)  # an unknown id is a usage error
        system = api.rules(proc.id.partition(".")[0])[0]
        data = [{**system, "procedures": [p for p in system["procedures"]
                                          if p["id"] == proc.id], "tables": {}}]
    else:
        data = api.rules(game)
    if as_json:
        _print_json(_emit("rules", data))
        return
    from warroom.cli_render import render_rules

    render_rules(_console(), data, _tr(), full=game is not None)


# --------------------------------------------------------------------------- odds
@app.command()
def odds(
    procedure: ProcArg,
    params: ParamsArg = None,
    as_json: JsonOpt = False,
    exact: Annotated[bool, typer.Option("--exact", help="Also give each probability as an "
                                        "exact fraction.")] = False,
    show_all: Annotated[bool, typer.Option("--all", help="Every whole outcome, even when "
                                           "there are thousands (else each field's and "
                                           "unit's chances).")] = False,
    from_unit: FromOpt = None,
    at_unit: AtOpt = None,
    lang: LangOpt = None,
) -> None:
    """Exact odds of every outcome, before you commit.

    Where exact odds would take too long, a Monte Carlo estimate, marked as one, with
    how far off each chance may be."""
    from warroom import api
    from warroom.engine import drivers
    from warroom.errors import ExactTooLargeError

    _set_lang(lang)
    working: AbstractContextManager[Any] = nullcontext()
    if not as_json and sys.stderr.isatty():
        # most answers are instant; a long fight can take seconds: say it is working
        from rich.console import Console

        working = Console(stderr=True).status(_tr()("Working out the exact odds..."))
    proc, p = api.prepare(procedure, _units(procedure, params, from_unit, at_unit, as_json))
    with working:
        try:
            dist = drivers.exact(proc, p)
        except ExactTooLargeError:
            dist = None
    if dist is None:
        est = _counted(proc.id, drivers.samples_for(), not as_json, lambda progress: (
            drivers.estimate(proc, p, seconds=ESTIMATE_SECONDS, progress=progress)))
        if as_json:
            _print_json(_emit("odds", est.to_json(full=show_all)))
            return
        from warroom.cli_render import render_estimate

        render_estimate(_console(), est, tr=_tr(), standing_in=True, full=show_all)
        return
    if as_json:
        _print_json(_emit("odds", dist.to_json(exact=exact, full=show_all)))
        return
    from warroom.cli_render import render_odds

    render_odds(_console(), dist, exact=exact, tr=_tr(), full=show_all)


# --------------------------------------------------------------------------- roll
@app.command()
def roll(
    procedure: ProcArg,
    params: ParamsArg = None,
    dice: Annotated[Optional[str], typer.Option(  # noqa: UP045
        "--dice", help="Your own dice, in the order the steps roll them: 3,5,6.",
        show_default=False)] = None,
    seed: Annotated[Optional[int], typer.Option(  # noqa: UP045
        "--seed", help="Seed for virtual dice (the same seed gives the same dice).",
        show_default=False)] = None,
    as_json: JsonOpt = False,
    from_unit: FromOpt = None,
    at_unit: AtOpt = None,
    lang: LangOpt = None,
) -> None:
    """Resolve once, with virtual dice or the ones on your table, step by step."""
    from warroom import api
    from warroom.dice.sources import parse_dice

    _set_lang(lang)
    if dice is not None and seed is not None:
        raise UsageError("give either --dice or --seed, not both")
    entered = parse_dice(dice) if dice is not None else None
    if dice is not None and not entered:
        raise UsageError("--dice needs at least one die, e.g. --dice 3,5,6")
    res = api.roll(procedure, _units(procedure, params, from_unit, at_unit, as_json),
                   seed=seed, entered=entered)
    if as_json:
        _print_json(_emit("roll", res.to_json(_tr())))
        return
    from warroom.cli_render import render_roll

    render_roll(_console(), res, _tr())


# --------------------------------------------------------------------------- simulate
@app.command()
def simulate(
    procedure: ProcArg,
    params: ParamsArg = None,
    samples: Annotated[int, typer.Option("--samples", "-n", help="How many resolutions.")
                       ] = 100_000,
    seed: Annotated[Optional[int], typer.Option("--seed", show_default=False,  # noqa: UP045
                                                help="Seed for repeatable runs.")] = None,
    as_json: JsonOpt = False,
    from_unit: FromOpt = None,
    at_unit: AtOpt = None,
    lang: LangOpt = None,
) -> None:
    """Monte Carlo: many resolutions, with 95% confidence intervals."""
    from warroom import api
    from warroom.engine import drivers
    from warroom.errors import ParameterError

    if not 1 <= samples <= api.MAX_SAMPLES:
        raise ParameterError("samples", f"{samples} is out of range", f"1 to {api.MAX_SAMPLES}")
    _set_lang(lang)
    proc, p = api.prepare(procedure, _units(procedure, params, from_unit, at_unit, as_json))
    est = _counted(proc.id, samples, not as_json and samples >= 20_000, lambda progress: (
        drivers.simulate(proc, p, samples, seed=seed, progress=progress)))
    if as_json:
        _print_json(_emit("simulate", est.to_json()))
        return
    from warroom.cli_render import render_estimate

    render_estimate(_console(), est, tr=_tr())


def _counted(label: str, samples: int, show: bool,
             run: Callable[[Callable[[int, int], None] | None], Estimate]) -> Estimate:
    """``run(progress)``, Monte Carlo of ``samples`` samples, with a progress bar on a
    terminal when ``show``."""
    if not (show and sys.stderr.isatty()):
        return run(None)
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TimeRemainingColumn

    with Progress("[progress.description]{task.description}", BarColumn(),
                  "{task.completed:,}/{task.total:,}", TimeRemainingColumn(),
                  console=Console(stderr=True), transient=True,
                  auto_refresh=False) as bar:  # no refresh thread: a run may fork
        task = bar.add_task(label, total=samples)
        return run(lambda done, _total: bar.update(task, completed=done, refresh=True))


_REGISTERED: list[bool] = []
_CORE_COMMANDS = frozenset({"rules", "odds", "roll", "simulate"})


def _needs_subcommands(argv: list[str] | None) -> bool:
    """Whether this invocation may touch a sub-command group (battle, serve) or list them.

    Typer builds every command of every group on each start; `warroom odds ...` at the
    table should not pay for the battle tracker's fifteen commands."""
    args = sys.argv[1:] if argv is None else argv
    words = [a for a in args if not a.startswith("-")]
    if not words or "--help" in args or "-h" in args:
        return True
    first = words[0]
    if args and args[0] == "--lang" and len(words) > 1:
        first = words[1]  # `--lang pl odds ...`: the value of --lang comes first
    return first not in _CORE_COMMANDS


def _register_subcommands() -> None:
    """Sub-command groups that live beside their subsystem (imported cheaply), once."""
    if _REGISTERED:
        return
    _REGISTERED.append(True)
    from warroom.battle import cli as battle_cli
    from warroom.units import cli as units_cli
    from warroom.web import cli as web_cli

    for module in (battle_cli, web_cli, units_cli):
        module.register(app)


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code."""
    args = sys.argv[1:] if argv is None else list(argv)
    if _needs_subcommands(args):
        _register_subcommands()
    debug = bool(os.environ.get("WARROOM_DEBUG"))
    as_json = "--json" in args
    try:
        from warroom.cli_help import command
        from warroom.errors import check_text

        check_text(args, "argument")  # bytes that are not UTF-8 arrive as lone surrogates
        # not standalone: the parser's own usage errors come here, to be told as ours
        code = command(app, _lang_asked(args)).main(args=args, prog_name="warroom",
                                                    standalone_mode=False)
        return code if isinstance(code, int) else 0
    except SystemExit as exc:
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except (typer.Exit, typer.TyperException) as exc:
        from warroom.cli_help import usage_error

        if isinstance(exc, typer.Exit):
            return exc.exit_code
        from warroom.i18n import RUNNING

        RUNNING["lang"] = _lang_asked(args)
        failure = usage_error(exc)
        if failure is None:  # 'warroom' alone, or a group without its command: the help
            return exc.exit_code
        _error(failure, as_json)
        return 2
    except UsageError as exc:
        _error(exc, as_json)  # in --lang / WARROOM_LANG
        return 2
    except WarroomError as exc:
        if debug:
            raise
        _error(exc, False)  # not the caller's mistake (verify's verdict, a broken rule)
        return 1
    except (KeyboardInterrupt, typer.Abort):
        sys.stderr.write(_tr()("Interrupted.") + "\n")
        return 130
    except Exception as exc:  # pragma: no cover - a bug; say so without a traceback
        if debug:
            raise
        sys.stderr.write(f"internal error ({type(exc).__name__}): {exc}\n"
                         "Set WARROOM_DEBUG=1 for details and please report it.\n")
        return 1


def _lang_asked(args: list[str]) -> str:
    """The language of this invocation before the parser runs (for its help and its
    usage errors): the last valid ``--lang``, else WARROOM_LANG, else English."""
    from warroom import i18n

    lang = i18n.from_env()
    for i, arg in enumerate(args):
        value = (args[i + 1] if arg == "--lang" and i + 1 < len(args)
                 else arg.partition("=")[2] if arg.startswith("--lang=") else None)
        if value:
            lang = i18n.negotiate([value]) or lang
    return lang


def _error(exc: WarroomError, as_json: bool) -> None:
    """One line on stderr, or under ``--json`` the error as JSON on stdout."""
    from warroom.errors import error_json, error_message

    tr = _tr()
    if as_json:
        _print_json(error_json(exc, tr))
        return
    sys.stderr.write(tr("error: {message}").format(message=error_message(exc, tr)) + "\n")


def run() -> None:
    """Console-script entry point (also ``python -m warroom``)."""
    # Start-up time matters at the table: no pydantic plugins, so pydantic never scans
    # the installed distributions' entry points for them. PYDANTIC_DISABLE_PLUGINS is
    # pydantic's documented switch; it is set here, in the entry point, before anything
    # imports pydantic (the library itself never sets it), and a user's own value wins.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    sys.exit(main())


if __name__ == "__main__":  # pragma: no cover
    run()
