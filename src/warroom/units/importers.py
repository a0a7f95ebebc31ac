"""Force files from uploads: one entry point for the CLI's ``warroom force import`` and the
battle page's upload.

:func:`force_toml_from_upload` takes a file's bytes and name and returns force TOML text
that :func:`warroom.units.forces.force_from_text` accepts: a roster (``.ros``, ``.rosz``,
New Recruit ``.json``) through its game's importer (Flames of War 3rd edition:
:mod:`warroom.games.fow.roster`), a ``.toml`` force checked as it is. Anything wrong is a
usage error naming the file and what is wrong.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from warroom.engine.messages import Msg
from warroom.errors import ErrorText
from warroom.units.forces import Force, ForceError, force_from_text

MAX_UPLOAD = 2 * 1024 * 1024
"""The largest file taken (the rosters' cap, :data:`warroom.games.fow.roster.MAX_BYTES`)."""
ROSTER_TYPES = (".ros", ".rosz", ".json")
TYPES = (*ROSTER_TYPES, ".toml")


@dataclass(frozen=True)
class Upload:
    """An upload turned into a force: its TOML text, the checked force, and what the
    import says (readings, special rules left out) for the player to read."""

    toml: str
    force: Force
    notes: tuple[Msg, ...] = field(default=())


def example_roster(name: str) -> Path:
    """``example:fow.ros``: a roster shipped with warroom (for the docs and to try)."""
    from importlib import resources

    from warroom.errors import UsageError

    folder = resources.files("warroom.units") / "examples"
    valid = sorted(f"example:{p.name}" for p in folder.iterdir()
                   if p.name.endswith(ROSTER_TYPES))
    if name not in valid:
        raise UsageError("unknown example roster {name!r}: give one of {valid}", name=name,
                         valid=", ".join(valid))
    return Path(str(folder / name.removeprefix("example:")))


def import_upload(data: bytes, filename: str) -> Upload:
    """:func:`force_toml_from_upload` with the checked force and the import's notes."""
    name = filename.replace("\\", "/").rpartition("/")[2] or "upload"
    lower = name.lower()
    if len(data) > MAX_UPLOAD:
        raise ForceError(name, None, "file", ErrorText(
            "the file is larger than {limit} bytes", limit=MAX_UPLOAD))
    if lower.endswith(ROSTER_TYPES):
        from warroom.games.fow.roster import import_roster, to_toml

        imported = import_roster(data, name)
        text = to_toml(imported)
        return Upload(text, force_from_text(text, name), tuple(imported.messages()))
    if lower.endswith(".toml"):
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise ForceError(name, None, "file", ErrorText("not UTF-8 text")) from None
        return Upload(text, force_from_text(text, name))
    raise ForceError(name, None, "file", ErrorText(
        "unknown file type: give a .ros, .rosz, .json (a roster) or .toml (a force) file"))


def force_toml_from_upload(data: bytes, filename: str) -> str:
    """Force TOML text from an uploaded file, by its extension: ``.ros``, ``.rosz`` and
    ``.json`` rosters are imported (Flames of War 3rd edition), a ``.toml`` force is
    checked and returned as it is. Raises a usage error (a ``ForceError`` or the roster
    importer's ``RosterError``) naming the file and what is wrong."""
    return import_upload(data, filename).toml
