"""``warroom force check FILE`` and ``warroom force show FILE``: unit rosters."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

force_app = typer.Typer(
    name="force",
    help="Forces (rosters): TOML files of unit profiles. FILE may be example:fow, "
    "example:asl, example:bkc or example:cwc for the examples shipped with warroom.",
    no_args_is_help=True,
    add_completion=False,
)

FileArg = Annotated[str, typer.Argument(help="the force file (TOML), or example:GAME")]


@force_app.command("check")
def check(file: FileArg) -> None:
    """Check a force file: errors name the line and field (exit code 2)."""
    from warroom.engine.messages import nmsg
    from warroom.i18n import running_translator as _tr
    from warroom.units.forces import load_force

    force = load_force(file)
    text = nmsg("{file}: {game}, {n} unit, OK", "{file}: {game}, {n} units, OK", file=file,
                game=force.game, n=len(force.units))
    sys.stdout.write(text.render(_tr()) + "\n")


@force_app.command("show")
def show(file: FileArg, as_json: Annotated[bool, typer.Option(
        "--json", help="Print the force as JSON (every unit's whole profile).")] = False,
         ) -> None:
    """Show a force's units as a table."""
    from rich.console import Console
    from rich.table import Table

    from warroom.i18n import running_translator as _tr
    from warroom.units.forces import load_force

    tr = _tr()
    force = load_force(file)
    if as_json:
        import json

        data = {"game": force.game, "name": force.name, "note": force.note,
                "units": [u.model_dump(mode="json") for u in force.units]}
        sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
        return
    table = Table(title=f"{force.name or file} ({force.game})", show_lines=False)
    table.add_column(tr("unit"))
    table.add_column("")
    table.add_column(tr("profile"))
    for unit in force.units:
        for i, (label, text) in enumerate(unit.summary()):
            table.add_row(unit.name if i == 0 else "", label, text)
    console = Console(highlight=False, soft_wrap=False)
    console.print(table)
    if force.note:
        console.print(force.note)


@force_app.command("import")
def import_(roster: Annotated[str, typer.Argument(
        help="a roster: BattleScribe .ros or .rosz, New Recruit .json (Flames of War "
        "3rd edition), or a .toml force to check; example:fow.ros for the example")],
            output: Annotated[str | None, typer.Option(
                "-o", "--output", help="Write the force TOML to this file instead of "
                "printing it.")] = None,
            as_json: Annotated[bool, typer.Option(
                "--json", help="Print the force TOML and the import's notes as JSON.")
            ] = False) -> None:
    """Import a roster (BattleScribe, New Recruit; Flames of War 3rd edition) as a force.

    A platoon per unit, a team per model profile; what warroom read for itself and the
    special rules it left out go to stderr and into the file as comments."""
    from pathlib import Path

    from warroom.engine.messages import nmsg
    from warroom.errors import verbatim
    from warroom.i18n import running_translator as _tr
    from warroom.units.forces import ForceError
    from warroom.units.importers import MAX_UPLOAD, example_roster, import_upload

    tr = _tr()
    path = example_roster(roster) if roster.startswith("example:") else Path(roster)
    try:
        with path.open("rb") as fh:
            data = fh.read(MAX_UPLOAD + 1)
    except OSError as exc:
        raise ForceError(roster, None, "file", verbatim(exc.strerror or str(exc))) from None
    upload = import_upload(data, path.name if roster.startswith("example:") else roster)
    if output is not None:
        try:
            Path(output).write_text(upload.toml, encoding="utf-8")
        except OSError as exc:
            raise ForceError(output, None, "file",
                             verbatim(exc.strerror or str(exc))) from None
    if as_json:
        import json

        body = {"file": roster, "game": upload.force.game, "units": len(upload.force.units),
                "notes": [n.render(tr) for n in upload.notes], "output": output,
                "toml": upload.toml}
        sys.stdout.write(json.dumps(body, ensure_ascii=False, indent=2) + "\n")
        return
    for note in upload.notes:
        sys.stderr.write(note.render(tr) + "\n")
    if output is None:
        sys.stdout.write(upload.toml)
    else:
        sys.stdout.write(nmsg("{file}: {game}, {n} unit, written to {output}",
                              "{file}: {game}, {n} units, written to {output}",
                              n=len(upload.force.units), file=roster,
                              game=upload.force.game, output=output).render(tr) + "\n")


def register(app: typer.Typer) -> None:
    """Add ``warroom force`` to the main app (once)."""
    if any(group.typer_instance is force_app for group in app.registered_groups):
        return
    app.add_typer(force_app, name="force")
