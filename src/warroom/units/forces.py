"""Forces (rosters): a TOML file of unit profiles of one game.

    game = "fow"
    name = "Example company"

    [[unit]]
    name = "Shermans"
    ...

Errors name the file, the line and the field. ``example:fow`` names the example force
shipped with warroom for that game.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from warroom.engine.registry import GameView, registry
from warroom.errors import ErrorText, UsageError, verbatim
from warroom.units.base import Profile

GAMES: GameView[type[Profile]] = GameView(registry, lambda system: system.profile)
"""The games whose units have typed profiles, and each one's profile model (read from
the game objects)."""
_HEADER = re.compile(r"^\s*(\[\[?)\s*([A-Za-z0-9_.]+)\s*\]\]?")
_KEY = re.compile(r"^\s*([A-Za-z0-9_]+)\s*=")


class ForceError(UsageError):
    """A force file that cannot be read: the file, line and field, and what is wrong."""

    def __init__(self, file: str, line: int | None, field: str,
                 problem: str | ErrorText) -> None:
        if line is None:
            super().__init__("{file}: {field}: {problem}", file=file, field=field,
                             problem=problem)
        else:
            super().__init__("{file}, line {line}: {field}: {problem}", file=file,
                             line=line, field=field, problem=problem)
        self.parameter = field
        self.line = line


def model_for(game: str) -> type[Profile]:
    """The profile model of a game's units (its game object's ``profile``)."""
    return GAMES[game]


def game_of(profile: Any) -> str:
    """The game of a profile object (``bkc`` for a BKC/CWC unit: they serve both)."""
    for game, model in GAMES.items():
        if isinstance(profile, model):
            return game
    raise UsageError("not a unit profile: {value!r} (give FILE:UNIT or a profile)",
                     value=type(profile).__name__)


def profile_model(game: str, data: Any) -> Any:
    """A profile of ``game`` from its JSON form (a stored unit's, or an API body's); a
    usage error names the field that is wrong."""
    from pydantic import ValidationError

    if not isinstance(data, dict):
        raise UsageError("a unit profile is a JSON object, not {kind}",
                         kind=type(data).__name__)
    try:
        return model_for(game).model_validate(data)
    except ValidationError as exc:
        from warroom.engine.params import error_reason

        err = exc.errors(include_url=False)[0]
        problem = error_reason(err, str(err["msg"]).removeprefix("Value error, "))
        raise ForceError("profile", None, _field(tuple(err["loc"])), problem) from None


@dataclass(frozen=True)
class Force:
    """A loaded force: its game, title and units by name (in file order)."""

    file: str
    game: str
    name: str
    note: str
    units: tuple[Any, ...]

    def unit(self, name: str) -> Any:
        for u in self.units:
            if u.name.lower() == name.strip().lower():
                return u
        raise UsageError("{file}: no unit named {name!r} (units: {valid})", file=self.file,
                         name=name, valid=", ".join(u.name for u in self.units))


def example_path(game: str) -> Path:
    """The example force shipped for ``game``."""
    return Path(str(resources.files("warroom.units") / "examples" / f"{game}.toml"))


def _resolve(source: str) -> Path:
    if source.startswith("example:"):
        game = source[8:]
        if game not in GAMES:
            raise UsageError("unknown example force {name!r}: give one of {valid}",
                             name=source, valid=", ".join(f"example:{g}" for g in GAMES))
        return example_path(game)
    return Path(source)


def line_map(text: str) -> dict[tuple[Any, ...], int]:
    """Where each table and key is: ``("unit", 0, "teams", 1, "at") -> line``."""
    lines: dict[tuple[Any, ...], int] = {}
    counts: dict[tuple[Any, ...], int] = {}
    current: tuple[Any, ...] = ()
    for number, line in enumerate(text.splitlines(), 1):
        head = _HEADER.match(line)
        if head:
            parts = head.group(2).split(".")
            path: tuple[Any, ...] = ()
            for i, part in enumerate(parts):
                prefix = (*path, part)
                if head.group(1) == "[[" and i == len(parts) - 1:
                    counts[prefix] = counts.get(prefix, -1) + 1
                    path = (*prefix, counts[prefix])
                elif prefix in counts:  # a parent array: its latest table
                    path = (*prefix, counts[prefix])
                else:
                    path = prefix
            current = path
            lines.setdefault(current, number)
            continue
        key = _KEY.match(line)
        if key:
            lines.setdefault((*current, key.group(1)), number)
    return lines


def _line(lines: dict[tuple[Any, ...], int], loc: tuple[Any, ...]) -> int | None:
    for end in range(len(loc), 0, -1):
        if loc[:end] in lines:
            return lines[loc[:end]]
    return None


def _field(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part + 1}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out or "file"


def load_force(source: str | Path) -> Force:
    """Read and check a force file (``example:GAME`` for a shipped one)."""
    path = _resolve(str(source))
    name = str(source)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ForceError(name, None, "file", verbatim(exc.strerror or str(exc))) from None
    except UnicodeDecodeError:
        raise ForceError(name, None, "file", ErrorText("not UTF-8 text")) from None
    return force_from_text(text, name)


def force_from_text(text: str, name: str) -> Force:
    """Check a force given as TOML text (``name`` says where it came from in errors)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"\(at line (\d+)", str(exc))
        raise ForceError(name, int(m.group(1)) if m else None, "TOML",
                         verbatim(str(exc).split(" (at line")[0])) from None
    except RecursionError:
        raise ForceError(name, None, "TOML", ErrorText("nested too deeply")) from None
    lines = line_map(text)
    game = data.get("game")
    if not isinstance(game, str) or game not in GAMES:
        raise ForceError(name, _line(lines, ("game",)), "game",
                         ErrorText("give game = one of {valid}", valid=", ".join(GAMES)))
    for key in data:
        if key not in ("game", "name", "note", "unit"):
            raise ForceError(name, _line(lines, (key,)), key,
                             ErrorText("unknown key (game, name, note and [[unit]] "
                                       "tables)"))
    raw = data.get("unit", [])
    if not isinstance(raw, list) or not raw:
        raise ForceError(name, None, "unit",
                         ErrorText("a force needs at least one [[unit]] table"))
    model = model_for(game)
    units: list[Any] = []
    seen: set[str] = set()
    for i, item in enumerate(raw):
        try:
            unit = model.model_validate(item)
        except ValidationError as exc:
            from warroom.engine.params import error_reason

            err = exc.errors(include_url=False)[0]
            loc = ("unit", i, *err["loc"])
            problem = error_reason(err, str(err["msg"]).removeprefix("Value error, "))
            raise ForceError(name, _line(lines, loc), _field(loc), problem) from None
        except UsageError as exc:  # e.g. an unknown special rule
            raise ForceError(name, _line(lines, ("unit", i, "rules")), _field(("unit", i)),
                             exc.text) from None
        key = unit.name.lower()  # type: ignore[attr-defined]
        if key in seen:
            raise ForceError(name, _line(lines, ("unit", i, "name")), _field(("unit", i,
                             "name")), ErrorText("two units have this name"))
        seen.add(key)
        units.append(unit)
    return Force(name, game, str(data.get("name", "")), str(data.get("note", "")),
                 tuple(units))


def load_unit(reference: str) -> tuple[str, Any]:
    """``"shermans.toml:Shermans"`` (or ``example:fow:Shermans``) -> (game, profile)."""
    source, sep, unit = reference.rpartition(":")
    if not sep or not source or not unit.strip():
        raise UsageError("{ref!r}: name a unit as FILE:UNIT, e.g. example:fow:Shermans",
                         ref=reference)
    force = load_force(source)
    return force.game, force.unit(unit)
