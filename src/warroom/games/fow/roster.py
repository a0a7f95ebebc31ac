"""Flames of War (3rd edition) rosters from BattleScribe and New Recruit, as force TOML.

A BattleScribe roster is XML (``.ros``, or ``.rosz``: a zip holding one ``.ros``); New
Recruit writes the same tree as JSON (``.json``). Both are read into the same shape::

    roster (gameSystemName) > forces > force > selections > selection (number)
        > profiles > profile (typeName) > characteristics > characteristic

and :func:`import_roster` turns it into a force of :class:`~warroom.games.fow.units.FowPlatoon`:

* a platoon per selection at the top of a force that holds team profiles (Tank, Infantry,
  Gun or Transport Team; the bombardment profiles too), named by its custom name if it
  has one;
* a team per team profile, ``count`` the number of its selection (teams alike merged);
* the weapon line: ``Range`` in inches to cm at 2.5 cm an inch (``32"`` -> 80 cm, half
  centimetres rounded up), ``ROF`` (halted), ``Anti-tank``, ``Firepower`` (``3+`` -> 3);
  a second line (``Range2``...) as a second weapon;
* armour from the front/side/top characteristics (``-`` on all three: an unarmoured
  vehicle, ``soft``);
* a vehicle's MGs named in its notes (``Co-ax MG``, ``Hull MG``, ``AA MG``, ``.50 cal AA
  MG``) as a Vehicle MG or .50 cal Vehicle MG weapon line after its own, from the
  reference card's vehicle machine-guns table;
* skill and motivation from the force's Army Rating selection (``Confident Trained``),
  or a rating selection inside the platoon;
* special rules (the roster's rules and the items of the profiles' notes) kept by name
  where warroom knows them, and listed as unknown otherwise.

Readings, because a roster does not say: a team that moved fires ROF 1 (``rof_moving =
1``; edit it for Stabilizers and SMGs), a vehicle MG its card ROF. Every one is written
in the TOML as a comment and returned as a note.

Only the standard library reads the files, carefully: expat with no DTD and no entity
declarations (refused), depth and element caps; zips with size caps read in bounded
chunks; JSON with a size cap. Anything wrong is a :class:`RosterError` (a usage error).
"""

from __future__ import annotations

import io
import json
import math
import re
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from xml.parsers import expat

from pydantic import ValidationError

from warroom.engine.messages import Msg, msg
from warroom.errors import ErrorText, UsageError, verbatim

MAX_BYTES = 2 * 1024 * 1024
"""The largest roster file read (a real FoW roster is tens of kilobytes)."""
MAX_UNPACKED = 8 * 1024 * 1024
"""The most a ``.rosz`` may unpack to."""
MAX_ZIP_ENTRIES = 64
MAX_ELEMENTS = 200_000
MAX_DEPTH = 64
MAX_NAME = 100
MAX_TEAMS = 20  # a FowTeam's count: more teams alike become several entries

SYSTEMS = ("flames of war", "flames of war 3rd edition", "flames of war v3")
"""The game system names (lower case) of FoW 3rd edition rosters."""

CM_PER_INCH = 2.5
TEAM_TYPES = {"tank team": "vehicle", "transport team": "vehicle",
              "sp bombardment": "vehicle", "infantry team": "infantry",
              "gun team": "gun", "gun bombardment": "gun"}
_CONTAINERS = frozenset({"forces", "selections", "profiles", "characteristics", "rules",
                         "categories", "costs", "costLimits", "publications", "infoLinks",
                         "modifiers", "entries"})
_MOTIVATION = ("reluctant", "confident", "fearless")
_SKILL = ("conscript", "trained", "veteran")
_RATING = re.compile(r"\b(reluctant|confident|fearless)\b.*?\b(conscript|trained|veteran)\b"
                     r"|\b(conscript|trained|veteran)\b.*?\b(reluctant|confident|fearless)\b",
                     re.I | re.S)
_INCHES = re.compile(r'^\s*(\d{1,4}(?:\.\d+)?)\s*(?:"|”|″|\'\'|in|inch|inches)?\s*$', re.I)
_ROF = re.compile(r"^\s*(\d{1,3})\s*(?:[/(]\s*(\d{1,3})\s*\)?)?\s*$")
_WHOLE = re.compile(r"^\s*(\d{1,4})\s*$")
_FIREPOWER = re.compile(r"^\s*(\d{1,2})\s*\+?\s*$")
_BLANK = frozenset({"", "-", "–", "—", "n/a"})
_RANGES = {"range_cm": (0, 400), "rof_halted": (0, 10), "at": (0, 20),
           "firepower": (1, 6), "armour": (0, 15)}
MOVING_ROF = 1


class RosterError(UsageError):
    """A roster that cannot be imported: the file, where in it (the names of the force,
    selection and profile), and what is wrong."""

    def __init__(self, where: str | tuple[str, ...], problem: str | ErrorText, /,
                 **args: object) -> None:
        text = problem if isinstance(problem, ErrorText) else ErrorText(problem, **args)
        file, *path = (where,) if isinstance(where, str) else where
        if len(path) > 1:  # the platoon and the innermost name, each shown whole
            super().__init__("{file}, {unit} > {item}: {problem}", file=file,
                             unit=path[0], item=path[-1], problem=text)
        elif path:
            super().__init__("{file}, {unit}: {problem}", file=file, unit=path[0],
                             problem=text)
        else:
            super().__init__("{file}: {problem}", file=file, problem=text)
        self.parameter = "roster"


class OtherSystemError(RosterError):
    """A roster of another game system (FoW 4th edition, Team Yankee...)."""


@dataclass
class Imported:
    """What :func:`import_roster` read: the force's title, its platoons (validated
    profiles), and per platoon the special rules warroom does not know."""

    name: str
    source: str
    platoons: list[Any] = field(default_factory=list)
    unknown: dict[str, list[str]] = field(default_factory=dict)
    notes: list[Msg] = field(default_factory=list)

    def messages(self) -> list[Msg]:
        """What the CLI prints on stderr: the readings and each platoon's unknown rules."""
        out = list(self.notes)
        for unit, rules in self.unknown.items():
            if rules:
                out.append(msg("{unit}: special rules not known to warroom, left out: "
                               "{rules}", unit=unit, rules=", ".join(rules)))
        return out


# -- reading bytes ------------------------------------------------------------------------


def _capped(data: bytes, where: str) -> None:
    if not data.strip():
        raise RosterError(where, "the file is empty")
    if len(data) > MAX_BYTES:
        raise RosterError(where, "the file is larger than {limit} bytes", limit=MAX_BYTES)


def unzip_roster(data: bytes, where: str) -> bytes:
    """The one ``.ros`` inside a ``.rosz``, read in bounded chunks (a zip bomb stops at
    :data:`MAX_UNPACKED`, whatever its headers claim)."""
    _capped(data, where)
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            infos = archive.infolist()
            if len(infos) > MAX_ZIP_ENTRIES:
                raise RosterError(where, "the archive has too many entries for a roster")
            found = [i for i in infos if not i.is_dir() and i.filename.lower().endswith(".ros")]
            if not found:
                raise RosterError(where, "the archive holds no .ros file")
            if len(found) > 1:
                raise RosterError(where, "the archive holds several .ros files ({names}); a "
                                  ".rosz holds exactly one", names=", ".join(
                                      i.filename for i in found[:5]))
            info = found[0]
            if info.file_size > MAX_UNPACKED:
                raise RosterError(where, "the roster unpacks to more than {limit} bytes",
                                  limit=MAX_UNPACKED)
            chunks: list[bytes] = []
            total = 0
            with archive.open(info) as fh:
                while chunk := fh.read(64 * 1024):
                    total += len(chunk)
                    if total > MAX_UNPACKED:
                        raise RosterError(where, "the roster unpacks to more than {limit} "
                                          "bytes", limit=MAX_UNPACKED)
                    chunks.append(chunk)
    except RosterError:
        raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, NotImplementedError,
            RuntimeError, EOFError, ValueError, OSError) as exc:
        raise RosterError(where, "not a readable zip archive ({detail})",
                          detail=verbatim(str(exc)[:80] or type(exc).__name__)) from None
    return b"".join(chunks)


class _Refused(Exception):
    def __init__(self, problem: ErrorText) -> None:
        super().__init__(str(problem))
        self.problem = problem


def parse_xml(data: bytes, where: str) -> dict[str, Any]:
    """A BattleScribe roster's XML as nested dicts (attributes, ``$text``, container
    elements as lists); DTDs and entity declarations are refused, never expanded."""
    _capped(data, where)
    parser = expat.ParserCreate()
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    root: dict[str, Any] = {}
    stack: list[dict[str, Any]] = []
    texts: list[list[str]] = []
    count = 0

    def refuse(*_: Any) -> None:
        raise _Refused(ErrorText("a roster may not contain a DTD or entity declarations"))

    def start(tag: str, attrs: dict[str, str]) -> None:
        nonlocal count
        count += 1
        if count > MAX_ELEMENTS:
            raise _Refused(ErrorText("the XML has more than {limit} elements",
                                     limit=MAX_ELEMENTS))
        if len(stack) >= MAX_DEPTH:
            raise _Refused(ErrorText("the XML nests deeper than {limit} elements",
                                     limit=MAX_DEPTH))
        node: dict[str, Any] = {k: v for k, v in attrs.items() if not k.startswith("$")}
        tag = tag.rpartition(":")[2]
        node["$tag"] = tag
        if stack:
            parent = stack[-1]
            if parent["$tag"] in _CONTAINERS:
                parent.setdefault("$items", []).append(node)
            elif tag in _CONTAINERS:
                parent[tag] = node.setdefault("$items", [])
            else:
                parent.setdefault(tag, node)
        else:
            root.update(node)
            node = root
        stack.append(node)
        texts.append([])

    def end(_: str) -> None:
        node = stack.pop()
        text = "".join(texts.pop()).strip()
        if text:
            node["$text"] = text

    def chars(data: str) -> None:
        if texts:
            texts[-1].append(data)

    parser.StartDoctypeDeclHandler = refuse
    parser.EntityDeclHandler = refuse
    parser.UnparsedEntityDeclHandler = refuse
    parser.ExternalEntityRefHandler = lambda *_: 0
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = chars
    try:
        parser.Parse(data, True)
    except _Refused as exc:
        raise RosterError(where, exc.problem) from None
    except LookupError:  # <?xml ... encoding="nonsense"?>
        raise RosterError(where, "not a BattleScribe roster: the XML names an unknown "
                          "encoding") from None
    except expat.ExpatError as exc:
        raise RosterError(where, "not a BattleScribe roster: the XML is not well-formed "
                          "(line {line}, column {column})", line=exc.lineno,
                          column=exc.offset + 1) from None
    if root.get("$tag") != "roster":
        raise RosterError(where, "not a BattleScribe roster: the root element is <{tag}>, "
                          "not <roster>", tag=str(root.get("$tag", ""))[:40])
    return root


def parse_json(data: bytes, where: str) -> dict[str, Any]:
    """A New Recruit JSON roster: ``{"roster": {...}}`` (or the roster object itself)."""
    _capped(data, where)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise RosterError(where, "not UTF-8 text") from None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RosterError(where, "not valid JSON (line {line}, column {column})",
                          line=exc.lineno, column=exc.colno) from None
    except RecursionError:
        raise RosterError(where, "the JSON nests too deeply") from None
    except ValueError:  # e.g. a number of more digits than Python converts
        raise RosterError(where, "not valid JSON (a number too long)") from None
    if isinstance(value, dict) and isinstance(value.get("roster"), dict):
        value = value["roster"]
    if not isinstance(value, dict) or not ("forces" in value or "gameSystemName" in value):
        raise RosterError(where, "not a New Recruit roster: no roster object with forces")
    return value


# -- the shared tree --------------------------------------------------------------------


class _Reader:
    """Typed access to the roster tree; every wrong shape is a RosterError naming where."""

    def __init__(self, file: str) -> None:
        self.file = file

    def where(self, path: tuple[str, ...]) -> tuple[str, ...]:
        """The file and the names below the force (a platoon and what is in it)."""
        return (self.file, *path[1:])

    def text(self, node: dict[str, Any], key: str, path: tuple[str, ...],
             required: bool = False) -> str:
        value = node.get(key)
        if value is None or value == "":
            if required:
                raise RosterError(self.where(path), "{field} is missing", field=key)
            return ""
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise RosterError(self.where(path), "{field}: expected text, got {kind}",
                              field=key, kind=type(value).__name__)
        text = str(value)
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate from JSON's \ud800
            raise RosterError(self.where(path), "{field}: not valid Unicode text",
                              field=key) from None
        return text

    def name(self, node: dict[str, Any], path: tuple[str, ...]) -> str:
        raw = self.text(node, "customName", path) or self.text(node, "name", path, True)
        name = " ".join(raw.split())[:MAX_NAME]
        if not name:
            raise RosterError(self.where(path), "{field} is missing", field="name")
        return name

    def items(self, node: dict[str, Any], key: str, path: tuple[str, ...]
              ) -> list[dict[str, Any]]:
        value = node.get(key)
        if value is None:
            return []
        if isinstance(value, dict) and len(value) == 1:  # {"selection": [...]}: wrapped
            value = next(iter(value.values()))
            if isinstance(value, dict):
                value = [value]
        if not isinstance(value, list):
            raise RosterError(self.where(path), "{field}: expected a list, got {kind}",
                              field=key, kind=type(value).__name__)
        for item in value:
            if not isinstance(item, dict):
                raise RosterError(self.where(path), "{field}: expected a list of objects, "
                                  "got {kind}", field=key, kind=type(item).__name__)
        return value

    def number(self, node: dict[str, Any], path: tuple[str, ...]) -> int:
        value = node.get("number", 1)
        if isinstance(value, float) and math.isfinite(value) and value.is_integer():
            value = int(value)
        if isinstance(value, str) and re.fullmatch(r"\s*\d{1,6}(?:\.0+)?\s*", value):
            value = int(float(value))
        if isinstance(value, bool) or not isinstance(value, int):
            raise RosterError(self.where(path), "{field}: expected a whole number, got "
                              "{value!r}", field="number", value=value)
        if not 1 <= value <= 10_000:
            raise RosterError(self.where(path), "{field}: {value} is not a count of models",
                              field="number", value=value)
        return value


def _norm(text: str) -> str:
    return re.sub(r"[\W_]+", "_", text.lower().replace("'", "").replace("’", "")).strip("_")


def _known_rules() -> dict[str, str]:
    from warroom.games.fow.special_rules import catalog

    known: dict[str, str] = {}
    for rule in catalog.all_rules():
        known[_norm(rule.name)] = rule.name
        known.setdefault(_norm(rule.title), rule.name)
    return known


def rule_name(text: str, known: dict[str, str] | None = None) -> str | None:
    """The catalog name of a special rule as a roster writes it (``Tank Assault 3`` ->
    ``tank_assault``, ``Mission Tactics`` -> ``mission_tactics``), or None."""
    table = _known_rules() if known is None else known
    key = _norm(text)
    return table.get(key) or table.get(re.sub(r"_\d+$", "", key))


def rating(text: str) -> tuple[str, str] | None:
    """``Confident Trained`` -> ("confident", "trained"): motivation and skill."""
    m = _RATING.search(text)
    if not m:
        return None
    words = [w.lower() for w in m.groups() if w]
    motivation = next(w for w in words if w in _MOTIVATION)
    skill = next(w for w in words if w in _SKILL)
    return motivation, skill


@dataclass
class _Team:
    type: str
    name: str
    count: int
    armour: tuple[int, int, int] = (0, 0, 0)
    weapons: list[dict[str, Any]] = field(default_factory=list)

    def key(self) -> tuple[Any, ...]:
        return (self.type, self.name, self.armour, json.dumps(self.weapons, sort_keys=True))


def _vehicle_mg(note: str) -> str | None:
    """The vehicle MG a vehicle's note names (``Co-ax MG``, ``Hull MG``, ``AA MG``:
    ``vehicle_mg``; ``.50 cal AA MG``: ``cal50_vehicle_mg``), or None. Passenger-fired
    MGs are the passengers' (a special rule), not the vehicle's."""
    key = _norm(note)
    if key.startswith("passenger") or not key.endswith("mg"):
        return None
    if key.startswith(("50_cal", "cal_50")):
        return "cal50_vehicle_mg"
    return "vehicle_mg" if key in _VEHICLE_MG_NOTES else None


_VEHICLE_MG_NOTES = frozenset({"co_ax_mg", "coax_mg", "hull_mg", "aa_mg", "vehicle_mg",
                               "turret_mg", "hull_mounted_mg", "twin_mg", "co_ax_mgs"})
VEHICLE_MGS = {"vehicle_mg": "Vehicle MG", "cal50_vehicle_mg": ".50 cal Vehicle MG"}


class _Converter:
    def __init__(self, file: str) -> None:
        self.r = _Reader(file)
        self.mg_table: dict[str, Any] | None = None
        self.known = _known_rules()
        self.notes: list[Msg] = []
        self.said: set[str] = set()

    def note(self, text: Msg) -> None:
        if text.render() not in self.said:
            self.said.add(text.render())
            self.notes.append(text)

    def walk(self, sel: dict[str, Any], path: tuple[str, ...], depth: int = 0
             ) -> Iterator[tuple[dict[str, Any], tuple[str, ...]]]:
        if depth > MAX_DEPTH:
            raise RosterError(self.r.where(path), "the selections nest too deeply")
        yield sel, path
        for child in self.r.items(sel, "selections", path):
            yield from self.walk(child, (*path, self.r.name(child, path)), depth + 1)

    def profile_type(self, prof: dict[str, Any], path: tuple[str, ...]) -> str:
        for key in ("typeName", "profileTypeName"):
            if prof.get(key) is not None:
                return self.r.text(prof, key, path, True).strip().lower()
        for key in ("typeId", "profileTypeId"):  # old rosters: the type's id
            if prof.get(key) is not None:
                return self.r.text(prof, key, path).split("###")[0].strip().lower()
        raise RosterError(self.r.where(path), "{field} is missing", field="typeName")

    def characteristics(self, prof: dict[str, Any], path: tuple[str, ...]) -> dict[str, str]:
        out: dict[str, str] = {}
        for ch in self.r.items(prof, "characteristics", path):
            name = self.r.text(ch, "name", path, True).strip().lower()
            value = self.r.text(ch, "$text", path) or self.r.text(ch, "value", path)
            out.setdefault(name, " ".join(value.split()))
        return out

    def rules_of(self, node: dict[str, Any], path: tuple[str, ...]) -> list[str]:
        return [" ".join(self.r.text(rule, "name", path, True).split())
                for rule in self.r.items(node, "rules", path)
                if str(rule.get("hidden", "false")).lower() != "true"]

    # -- one profile -> one team ----------------------------------------------------------

    def team(self, prof: dict[str, Any], kind: str, count: int, unit: str,
             path: tuple[str, ...]) -> tuple[_Team, list[str]]:
        name = self.r.name(prof, path)
        chars = self.characteristics(prof, path)
        notes = [n.strip() for key, value in chars.items() if "notes" in key
                 for n in re.split(r"[,;]", value) if n.strip()]
        flags = {_norm(n) for n in notes}
        weapons: list[dict[str, Any]] = []
        for suffix in ("", "2"):
            weapon = self.weapon(chars, suffix, name if not suffix else f"{name} (2)",
                                 unit, path)
            if weapon is not None:
                weapon["no_he"] = "no_he" in flags
                weapon["bunker_buster"] = "bunker_buster" in flags
                weapons.append(weapon)
        team_type = kind
        armour = (0, 0, 0)
        if kind == "vehicle":
            sides = []
            for word in ("front", "side", "top"):
                label, raw = next(((k, v) for k, v in chars.items() if word in k),
                                  (word, ""))
                sides.append(None if raw.strip().lower() in _BLANK
                             else self.whole(raw, label, "armour", path))
            team_type = "soft" if all(s is None for s in sides) else "tank"
            armour = (sides[0] or 0, sides[1] or 0, sides[2] or 0)
        mgs: dict[str, list[str]] = {}
        if kind == "vehicle":
            for n in notes:
                key = _vehicle_mg(n)
                if key:
                    mgs.setdefault(key, []).append(n)
        for key, said in mgs.items():
            weapons.append(self.card_mg(key, said, unit, name))
        rules = [n for n in notes if (_norm(n) not in ("no_he", "bunker_buster")
                                      or rule_name(n, self.known)) and not _vehicle_mg(n)]
        return _Team(team_type, name, count, armour, weapons), rules

    def card_mg(self, key: str, said: list[str], unit: str, profile: str
                ) -> dict[str, Any]:
        """A vehicle MG weapon line from the reference card's vehicle machine-guns table
        (its ROF halted and after moving), for the MGs a vehicle's notes name."""
        if self.mg_table is None:
            from warroom.games.fow import load_tables

            self.mg_table = load_tables()["vehicle_mgs"]
        row = self.mg_table[key]
        title = VEHICLE_MGS[key]
        self.note(msg("{unit}: {profile}: {mgs} read as a {weapon} weapon line, from the "
                      "FoW reference card's vehicle machine-guns table", unit=unit,
                      profile=profile, mgs=", ".join(said), weapon=title))
        return {"name": title, "range_cm": int(row["range_cm"]),
                "rof_halted": int(row["rof"]), "rof_moving": int(row["moving_rof"]),
                "at": int(row["at"]), "firepower": int(row["firepower"]),
                "no_he": False, "bunker_buster": False}

    def whole(self, raw: str, label: str, bound: str, path: tuple[str, ...]) -> int:
        m = _WHOLE.match(raw)
        if not m:
            raise RosterError(self.r.where(path), "{field} {value!r} is not a whole number",
                              field=label, value=raw)
        return self.bounded(int(m.group(1)), label, bound, path)

    def bounded(self, value: int, label: str, bound: str, path: tuple[str, ...]) -> int:
        low, high = _RANGES[bound]
        if not low <= value <= high:
            raise RosterError(self.r.where(path), "{field} {value} is outside {low} to "
                              "{high}", field=label, value=value, low=low, high=high)
        return value

    def weapon(self, chars: dict[str, str], suffix: str, name: str, unit: str,
               path: tuple[str, ...]) -> dict[str, Any] | None:
        fields = {k: chars.get(k + suffix, "") for k in ("range", "rof", "anti-tank",
                                                        "firepower")}
        if all(v.strip().lower() in _BLANK for v in fields.values()):
            return None
        rng, rof = _INCHES.match(fields["range"]), _ROF.match(fields["rof"])
        at, fp = _WHOLE.match(fields["anti-tank"]), _FIREPOWER.match(fields["firepower"])
        for label, m in (("Range", rng), ("ROF", rof), ("Anti-tank", at),
                         ("Firepower", fp)):
            if m is None:
                self.note(msg("{unit}: {profile}: weapon left out ({field} {value!r} is not "
                              "a direct-fire value warroom reads)", unit=unit, profile=name,
                              field=label + suffix,
                              value=fields[label.lower()][:20]))
                return None
        assert rng and rof and at and fp
        inches = float(rng.group(1))
        cm = inches * CM_PER_INCH
        range_cm = math.ceil(cm)
        if range_cm != cm:
            self.note(msg("{unit}: {profile}: {inches}\" is {cm} cm, kept as {kept} cm",
                          unit=unit, profile=name, inches=rng.group(1), cm=cm,
                          kept=range_cm))
        halted = int(rof.group(1))
        moving = int(rof.group(2)) if rof.group(2) else min(MOVING_ROF, halted)
        return {"name": name,
                "range_cm": self.bounded(range_cm, "Range" + suffix, "range_cm", path),
                "rof_halted": self.bounded(halted, "ROF" + suffix, "rof_halted", path),
                "rof_moving": self.bounded(moving, "ROF" + suffix, "rof_halted", path),
                "at": self.bounded(int(at.group(1)), "Anti-tank" + suffix, "at", path),
                "firepower": self.bounded(int(fp.group(1)), "Firepower" + suffix,
                                          "firepower", path)}

    # -- one top-level selection -> one platoon ---------------------------------------------

    def platoon(self, sel: dict[str, Any], path: tuple[str, ...], force_rules: list[str],
                force_rating: tuple[str, str] | None
                ) -> tuple[dict[str, Any], list[str]] | None:
        unit = path[-1]
        teams: list[_Team] = []
        rules: list[str] = list(force_rules)
        own_rating = None
        for node, where in self.walk(sel, path):
            count = self.r.number(node, where)
            rules += self.rules_of(node, where)
            if node is not sel and own_rating is None and _rating_name(where[-1]):
                own_rating = rating(where[-1])
            for prof in self.r.items(node, "profiles", where):
                ppath = (*where, self.r.name(prof, where))
                if str(prof.get("hidden", "false")).lower() == "true":
                    continue
                kind = TEAM_TYPES.get(self.profile_type(prof, ppath))
                if kind is None:
                    self.note(msg("{unit}: {profile} ({kind}) left out: not a team warroom "
                                  "models", unit=unit, profile=ppath[-1],
                                  kind=self.profile_type(prof, ppath)[:30]))
                    continue
                team, notes = self.team(prof, kind, count, unit, ppath)
                teams.append(team)
                rules += notes
        if not teams:
            return None
        merged: dict[tuple[Any, ...], _Team] = {}
        for t in teams:
            if t.key() in merged:
                merged[t.key()].count += t.count
            else:
                merged[t.key()] = t
        known: list[str] = []
        unknown: list[str] = []
        for r in rules:
            name = rule_name(r, self.known)
            if name and name not in known:
                known.append(name)
            elif not name and r[:MAX_NAME] not in unknown:
                unknown.append(r[:MAX_NAME])
        motivation, skill = own_rating or force_rating or ("confident", "trained")
        team_dicts: list[dict[str, Any]] = []
        for t in merged.values():
            left = t.count
            while left > 0:
                n = min(left, MAX_TEAMS)
                left -= n
                item: dict[str, Any] = {"type": t.type, "count": n, "name": t.name}
                if t.type == "tank":
                    item.update(front=t.armour[0], side=t.armour[1], top=t.armour[2])
                item["weapons"] = t.weapons
                team_dicts.append(item)
        return ({"name": unit, "skill": skill, "motivation": motivation, "rules": known,
                 "teams": team_dicts}, unknown)

    def force_rating(self, force: dict[str, Any], path: tuple[str, ...]
                     ) -> tuple[str, str] | None:
        """The Army Rating: a selection in the Army Rating category (or so named), or a
        top-level selection named like a rating (``Confident Trained``)."""
        fallback = None
        for sel in self.r.items(force, "selections", path):
            top = (*path, self.r.name(sel, path))
            if fallback is None and _rating_name(top[-1]):
                fallback = rating(top[-1])
            found = self.rating_below(sel, top, False, 0)
            if found:
                return found
        return fallback

    def rating_below(self, node: dict[str, Any], path: tuple[str, ...], flagged: bool,
                     depth: int) -> tuple[str, str] | None:
        """The first rating named in or below a selection of the Army Rating category
        (or named so), looking at each selection once."""
        if depth > MAX_DEPTH:
            raise RosterError(self.r.where(path), "the selections nest too deeply")
        cats = [self.r.text(c, "name", path).lower()
                for c in self.r.items(node, "categories", path)]
        flagged = flagged or "army rating" in cats or "army rating" in path[-1].lower()
        if flagged and rating(path[-1]):
            return rating(path[-1])
        for child in self.r.items(node, "selections", path):
            found = self.rating_below(child, (*path, self.r.name(child, path)), flagged,
                                      depth + 1)
            if found:
                return found
        return None


def _rating_name(name: str) -> bool:
    """A selection named just a rating, ``Confident Trained``."""
    return bool(re.fullmatch(r"\s*[A-Za-z]+\s+[A-Za-z]+\s*", name)) and rating(name) is not None


def check_system(roster: dict[str, Any], where: str) -> str:
    """The roster's game system name, refused unless it is FoW 3rd edition."""
    system = _Reader(where).text(roster, "gameSystemName", ("roster",), True)
    if " ".join(system.lower().split()) not in SYSTEMS:
        raise OtherSystemError(where, "this roster is for the game system {system!r}; warroom "
                           "imports rosters of Flames of War 3rd edition (the BattleScribe "
                           "game system 'Flames of War') only", system=system[:60])
    return system


def import_tree(roster: dict[str, Any], file: str, source: str) -> Imported:
    """Platoons from a roster tree (:func:`parse_xml` or :func:`parse_json`)."""
    from warroom.games.fow.units import FowPlatoon

    check_system(roster, file)
    conv = _Converter(file)
    r = conv.r
    title = " ".join(r.text(roster, "name", ("roster",)).split())[:MAX_NAME]
    out = Imported(title or file, source)
    seen: set[str] = set()
    for force in r.items(roster, "forces", ("roster",)):
        fpath = (r.text(force, "catalogueName", ()) or r.text(force, "name", ()) or "force",)
        force_rules = conv.rules_of(force, fpath)
        force_rating = conv.force_rating(force, fpath)
        any_platoon = False
        for sel in r.items(force, "selections", fpath):
            path = (*fpath, r.name(sel, fpath))
            built = conv.platoon(sel, path, force_rules, force_rating)
            if built is None:
                continue
            data, unknown = built
            any_platoon = True
            base, n = data["name"], 1
            while data["name"].lower() in seen:
                n += 1
                data["name"] = f"{base} ({n})"
            seen.add(data["name"].lower())
            try:
                out.platoons.append(FowPlatoon.model_validate(data))
            except (ValidationError, UsageError) as exc:
                problem = (verbatim(str(exc.errors(include_url=False)[0]["msg"]))
                           if isinstance(exc, ValidationError) else exc.text)
                raise RosterError(r.where(path), problem) from None
            out.unknown[data["name"]] = unknown
        if any_platoon and force_rating is None:
            conv.note(msg("{force}: no Army Rating selection: confident trained, warroom's "
                          "defaults", force=fpath[0]))
    if not out.platoons:
        raise RosterError(file, "no platoons: no selection holds a Tank, Infantry, Gun or "
                          "Transport Team profile")
    conv.note(msg("moving ROF 1 for every weapon but the vehicle MGs (a roster gives only "
                  "the halted ROF): edit rof_moving for Stabilizers and SMGs"))
    out.notes = conv.notes
    return out


def import_roster(data: bytes, filename: str) -> Imported:
    """A ``.ros``, ``.rosz`` or New Recruit ``.json`` roster's platoons (by extension;
    a ``.ros`` that is really a zip is read as one)."""
    name = filename.replace("\\", "/").rpartition("/")[2] or "roster"
    lower = name.lower()
    if lower.endswith(".json"):
        return import_tree(parse_json(data, name), name, "New Recruit")
    if lower.endswith((".ros", ".rosz")):
        if data[:4] == b"PK\x03\x04" or lower.endswith(".rosz"):
            data = unzip_roster(data, name)
        return import_tree(parse_xml(data, name), name, "BattleScribe")
    raise RosterError(name, "unknown roster type: give a .ros, .rosz or .json file")


# -- writing TOML -----------------------------------------------------------------------


def _quote(text: str) -> str:
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    return _quote(str(value))


def _comment(text: str) -> str:
    """A TOML comment line (no control characters: TOML forbids them there)."""
    return "# " + "".join(ch for ch in " ".join(text.split())
                          if ord(ch) >= 0x20 and ord(ch) != 0x7F)


def to_toml(imported: Imported) -> str:
    """The force file of an import: game, name, note, and a ``[[unit]]`` per platoon;
    the readings and each platoon's unknown rules as comments."""
    lines = [_comment(f"Imported by warroom from a {imported.source} roster "
                      "(Flames of War 3rd edition). Check it against your unit cards."),
             *(_comment(f"Import note: {n.render()}") for n in imported.notes),
             "game = \"fow\"",
             f"name = {_quote(imported.name)}",
             f"note = {_quote(f'Imported from a {imported.source} roster.')}"]
    for p in imported.platoons:
        lines += ["", "[[unit]]", f"name = {_quote(p.name)}", f"skill = {_quote(p.skill)}",
                  f"motivation = {_quote(p.motivation)}", f"rules = {_value(list(p.rules))}"]
        if imported.unknown.get(p.name):
            lines.append(_comment("special rules not known to warroom, left out: "
                                  + ", ".join(imported.unknown[p.name])))
        for t in p.teams:
            lines += ["", "[[unit.teams]]", f"type = {_quote(t.type)}", f"count = {t.count}",
                      f"name = {_quote(t.name)}"]
            if t.type == "tank":
                lines += [f"front = {t.front}", f"side = {t.side}", f"top = {t.top}"]
            for w in t.weapons:
                lines += ["", "[[unit.teams.weapons]]"]
                lines += [f"{k} = {_value(v)}" for k, v in w.model_dump().items()
                          if k != "notes"]
    return "\n".join(lines) + "\n"
