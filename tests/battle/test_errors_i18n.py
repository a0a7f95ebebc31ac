"""Battle errors and the games' own parameter checks in Polish and Chinese.

What a player gets wrong at the table (a stale write, another side's unit, a bad
marker value, a unit name taken) is a template with arguments: English unchanged,
translated on the battle pages and in ``warroom --lang pl battle ...``; the JSON API
stays English. Every literal message at these raise sites has a pl and a zh entry.
"""

from __future__ import annotations

import ast
import html
import json
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import warroom
from tests.battle import test_web_api
from tests.battle.fakes import battles
from tests.test_errors_i18n import english_words
from warroom import i18n
from warroom.battle import phases
from warroom.battle.core import Battles
from warroom.battle.store import resolve_url
from warroom.cli import main
from warroom.errors import UsageError
from warroom.web.battles import stat_changes

LANGS = ("pl", "zh")
SRC = Path(warroom.__file__).parent

client = test_web_api.client  # an app on a temporary database, with the fake games
battle = test_web_api.battle  # fow battle 'Web': Shermans (A, dice=5), Grenadiers (B)

Call = Callable[[Battles, str, str], object]  # (battles, a fow battle, a fresh demo battle)


def odds(proc: str, **params: object) -> Call:
    return lambda _bt, _b, _fresh: warroom.odds(proc, params)


# name -> (how to raise it, the English message (start), what translations must keep)
CASES: dict[str, tuple[Call, str, tuple[str, ...]]] = {
    "stale": (
        lambda bt, b, _: bt.advance(b, expect=9),
        "the battle has changed: you expected state 9 but it is now at 3; reload and try "
        "again (nothing was recorded)", ("9", "3")),
    "stale unit": (
        lambda bt, b, _: bt.mark(b, "Shermans", "pinned", expect=1),
        "the battle has changed since state 1 (it is now at 3) in what this action reads: "
        "Shermans; nothing was recorded: look at the change and try again",
        ("1", "3", "Shermans")),
    "stale phase": (
        lambda bt, b, _: (bt.advance(b), bt.advance(b, expect=3)),
        "the battle has changed since state 3 (it is now at 4) in what this action reads: "
        "the turn and phase; nothing was recorded: look at the change and try again",
        ("3", "4")),
    "stale undo": (
        lambda bt, b, _: bt.undo(b, expect=2),
        "the battle has changed since state 2 (it is now at 3) in what this action reads: "
        "the latest event, which an undo takes back; nothing was recorded: look at the "
        "change and try again", ("2", "3")),
    "nothing to undo": (
        lambda bt, _, fresh: bt.undo(fresh),
        "nothing to undo: the battle is as it was created", ()),
    "bad side": (
        lambda bt, b, _: bt.add_unit(b, "C", "Jeeps"),
        "side must be A or B, not 'C'", ("'C'",)),
    "unit name": (
        lambda bt, b, _: bt.add_unit(b, "A", "a=b"),
        "a unit name is 1 to 60 characters without '='", ("60", "'='")),
    "name taken": (
        lambda bt, b, _: bt.add_unit(b, "A", "shermans"),
        "there is already a unit called 'shermans'", ("'shermans'",)),
    "stat name": (
        lambda bt, b, _: bt.edit_unit(b, "Shermans", {"2 guns": 1}),
        "stat name '2 guns' must be a word like teams or skill", ("'2 guns'", "teams", "skill")),
    "no stats": (
        lambda bt, b, _: bt.edit_unit(b, "Shermans", {}),
        "give the stats to change as key=value (key= removes one)", ("key=value", "key=")),
    "add to the other side": (
        lambda bt, b, _: bt.add_unit(b, "B", "Jeeps", by="A"),
        "your link acts for side A; it cannot add units to B", ("A", "B")),
    "edit the other side's unit": (
        lambda bt, b, _: bt.edit_unit(b, "Grenadiers", {"teams": 1}, by="A"),
        "your link acts for side A; Grenadiers is side B's", ("A", "Grenadiers", "B")),
    "roll for the other side": (
        lambda bt, b, _: bt.do(b, "fow.test", {"side": "B"}, by="A"),
        "your link acts for side A, not B", ("A", "B")),
    "undo the other side's event": (
        lambda bt, b, _: bt.undo(b, by="A"),
        "event 3 was made by side B; only that side can undo it", ("3", "B")),
    "another game's procedure": (
        lambda bt, b, _: bt.do(b, "asl.mc", {}),
        "asl.mc is a procedure of 'asl'; this battle plays 'fow'. Use one of: fow.shoot, "
        "fow.test", ("asl.mc", "'asl'", "'fow'", "fow.shoot, fow.test")),
    "clear without passed": (
        lambda bt, b, _: bt.do(b, "fow.shoot", {"unit": "Shermans", "clear": "pinned"}),
        "clear= needs a test with a 'passed' outcome; fow.shoot has none",
        ("clear=", "'passed'", "fow.shoot")),
    "clear without a unit": (
        lambda bt, b, _: bt.do(b, "fow.test", {"clear": "pinned"}),
        "clear= needs unit=NAME (whose marker to clear)", ("clear=", "unit=")),
    "unknown unit": (
        lambda bt, b, _: bt.mark(b, "Nobody", "pinned"),
        "unknown unit 'Nobody'. Valid: Shermans, Grenadiers. Add it with 'warroom battle "
        "add-unit'.", ("'Nobody'", "Shermans, Grenadiers", "'warroom battle add-unit'")),
    "unknown marker": (
        lambda bt, b, _: bt.mark(b, "Shermans", "pined"),
        "unknown marker 'pined'; did you mean 'pinned'?", ("'pined'", "'pinned'")),
    "flag value": (
        lambda bt, b, _: bt.mark(b, "Shermans", "pinned", "maybe"),
        "marker 'pinned' is on or off: give pinned, pinned=yes or pinned=no, not 'maybe'",
        ("'pinned'", "pinned=yes", "pinned=no", "'maybe'")),
    "count value": (
        lambda bt, b, _: bt.mark(b, "Shermans", "hits", "lots"),
        "marker 'hits' counts: give a whole number like hits=2, hits=+1 or hits=clear, not "
        "'lots'", ("'hits'", "hits=2", "hits=+1", "hits=clear", "'lots'")),
    "count below 0": (
        lambda bt, b, _: bt.mark(b, "Shermans", "hits", "-2"),
        "marker 'hits' cannot go below 0 (it is 0)", ("'hits'", "0")),
    "unknown battle": (
        lambda bt, _b, _f: bt.show("nope"),
        "there is no battle 'nope' here; check the link", ("'nope'",)),
    "unknown phase": (
        lambda _bt, _b, _f: phases.phase("fow", "lunch"),
        "unknown phase 'lunch'. Valid: starting, movement", ("'lunch'", "starting, movement")),
    "wrong link": (
        lambda bt, b, _: bt.access(b, "not-a-key"),
        "there is no battle", ()),
    "bad seed": (
        lambda bt, _b, _f: bt.new("fow", "x", -1),
        "--seed must be a whole number from 0 to 2^62", ("--seed", "2^62")),
    "long battle name": (
        lambda bt, _b, _f: bt.new("fow", "x" * 201, 1),
        "a battle name has at most 200 characters", ("200",)),
    "db is a folder": (
        lambda _bt, _b, _f: resolve_url(tempfile.gettempdir()),
        "--db ", ("--db",)),
    # the battle page's edit form
    "edit: nothing changes": (
        lambda _bt, _b, _f: stat_changes({"dice": 5}, {"s.dice": "5"}),
        "nothing to change: edit a value, empty one to remove that stat, or add a stat", ()),
    "edit: no value": (
        lambda _bt, _b, _f: stat_changes({}, {}, "skill", ""),
        "the new stat 'skill' needs a value", ("'skill'",)),
    "edit: too long": (
        lambda _bt, _b, _f: stat_changes({}, {"s.dice": "x" * 201}),
        "dice: 'xxxxxxxxxxxxxxxxxxxx'... is too long (at most 200 characters)",
        ("dice", "'xxxxxxxxxxxxxxxxxxxx'...", "200")),
    "edit: new value too long": (
        lambda _bt, _b, _f: stat_changes({}, {}, "skill", "x" * 201),
        "skill: the value is too long (at most 200 characters)", ("skill", "200")),
    "edit: given twice": (
        lambda _bt, _b, _f: stat_changes({"dice": 5}, {"s.dice": "4"}, "dice", "6"),
        "'dice' is given twice, as '4' and '6'", ("'dice'", "'4'", "'6'")),
    # the games' own checks, as a form sends them
    "fow: dug-in tank": (
        odds("fow.shoot", target="tank", dug_in="yes"),
        "only infantry and guns can be dug in or in bulletproof cover", ()),
    "fow: test rating": (
        odds("fow.test", kind="skill", rating="elite"),
        "a skill test needs rating conscript, trained, veteran; got 'elite'",
        ("conscript, trained, veteran", "'elite'")),
    "fow: morale left": (
        odds("fow.morale", start="3", left="5"),
        "left (5) cannot exceed start (3)", ("left", "start", "5", "3")),
    "fow: far teams": (
        odds("fow.allocate", hits="3", ready="2", ready_far="3"),
        "ready_far (3) cannot exceed ready (2)", ("ready_far", "3", "2")),
    "fow: special rule": (
        odds("fow.shoot", rules="tank_asault"),
        "parameter 'rules': 'tank_asault' is not valid: unknown special rule 'tank_asault'. "
        "Did you mean 'tank_assault'? Valid: air_observation_post,",
        ("'rules'", "'tank_asault'", "'tank_assault'", "air_observation_post")),
    "fow: kampfgruppe donor": (
        odds("fow.kampfgruppe", members="veteran/confident", donors="tank:2:1"),
        "parameter 'donors': 'tank:2:1' is not valid: donor 'tank:2:1': must keep at least "
        "2 tanks", ("'donors'", "'tank:2:1'", "2")),
    "fow: kampfgruppe member": (
        odds("fow.kampfgruppe", members="vet/conf"),
        "parameter 'members': 'vet/conf' is not valid: member 'vet/conf': write "
        "skill/motivation, e.g. veteran/confident (skills: conscript, trained, veteran; "
        "motivations: reluctant, confident, fearless)",
        ("'vet/conf'", "veteran/confident", "conscript, trained, veteran")),
    "asl: morale of a squad": (
        odds("asl.ift_on_stack", units="squad:x"),
        "parameter 'units': 'squad:x' is not valid: 'squad:x': morale must be a whole number, "
        "got 'x'", ("'units'", "'squad:x'", "'x'")),
    "asl: unit kind": (
        odds("asl.ift_on_stack", units="tank:7"),
        "parameter 'units': 'tank:7' is not valid: 'tank:7': write a counter (4-6-7, 2-4-8, "
        "8-1, 9-2) or kind:morale (squad:7, hs:6, leader:8:-1)",
        ("'tank:7'", "4-6-7", "squad:7", "leader:8:-1")),
    "asl: leadership": (
        odds("asl.ift_on_stack", units="leader:8:-5"),
        "parameter 'units': 'leader:8:-5' is not valid: 'leader:8:-5': leadership DRM must "
        "be from -3 to 1, got -5", ("'leader:8:-5'", "DRM", "-3", "1", "-5")),
    "asl: terrain and tem": (
        odds("asl.ift", fp="8", terrain="woods", tem="3"),
        "terrain woods has TEM +1 but tem=3: give one of them", ("woods", "+1", "tem=3")),
}

# names, values and words of the input syntax a translation keeps as they are
KEPT = {"shermans", "grenadiers", "nobody", "jeeps", "pinned", "pined", "hits", "lots",
        "maybe", "clear", "passed", "shoot", "test", "teams", "skill", "unit", "name",
        "side", "value", "warroom", "battle", "list", "lunch", "nope", "dice", "seed",
        "starting", "movement", "rules", "tank", "asault", "assault", "observation",
        "post", "donors", "members", "veteran", "confident", "conscript", "trained",
        "reluctant", "fearless", "conf", "elite", "ready", "left", "start", "squad",
        "leader", "units", "woods", "link", "folder", "morale"}


def raise_case(bt: Battles, call: Call) -> UsageError:
    b = bt.new("fow", "Test", 5)["id"]
    bt.add_unit(b, "A", "Shermans", {"dice": 5})
    bt.add_unit(b, "B", "Grenadiers", {"teams": 6}, by="B")
    fresh = bt.new("demo", "Fresh", 1)["id"]
    with pytest.raises(UsageError) as info:
        call(bt, b, fresh)
    return info.value


def sample_errors() -> Iterator[UsageError]:
    """One of each error above (for the catalog coverage check in tests/)."""
    with tempfile.TemporaryDirectory() as tmp:
        bt = battles(Path(tmp) / "b.db")
        for call, _, _ in CASES.values():
            yield raise_case(bt, call)
        bt.store.close()


@pytest.mark.parametrize("name", sorted(CASES))
def test_english_is_unchanged(bt: Battles, name: str) -> None:
    call, english, _ = CASES[name]
    exc = raise_case(bt, call)
    assert str(exc).startswith(english), str(exc)
    assert exc.translated(i18n.translator("en")) == str(exc)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_translated(bt: Battles, name: str, lang: str) -> None:
    call, _, keep = CASES[name]
    exc = raise_case(bt, call)
    text = exc.translated(i18n.translator(lang))
    assert text != str(exc)
    for word in keep:
        assert word in text, (word, text)
    english = str(exc).split(" Valid: ")[0]  # the list of names is kept as it is
    left = english_words(english) & english_words(text) - KEPT
    assert not left, (left, text)


# -- every literal message at these raise sites is in both catalogs ------------------------

SOURCES = sorted([*(SRC / "battle").glob("*.py"), SRC / "web" / "battles.py",
                  *(SRC / "games").rglob("*.py")])
MESSAGE_CALLS = {"UsageError", "BattleError", "AccessError", "DiceError", "ValueError",
                 "ImportFormatError", "ErrorText"}

ENGLISH_ONLY = {
    # a broken event log (verify, import): for whoever repairs the database
    "a second 'created' event", "undoes the creation", "empty battle log",
    "a battle log must start with its 'created' event", "an event after the battle ended",
    "an undo is folded by popping its target",
}
"""Literal messages left in English on purpose."""

ENGLISH_F_STRINGS = {
    ("battle/events.py", "event "),
    ("games/commander/data.py", "no blunder table "),
    ("games/commander/data.py", " must cover faces 1-6 exactly once, got "),
}
"""f-string messages left in English: a broken log, a bad data file.
Anything a player can get wrong is a template with arguments instead."""


def _literal(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) \
        else None


def _calls(path: Path) -> Iterator[tuple[str, ast.Call]]:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else (
                func.attr if isinstance(func, ast.Attribute) else "")
            yield name, node


def source_messages() -> Iterator[tuple[str, str]]:
    """(file, message id) of every literal message these files raise."""
    for path in SOURCES:
        where = str(path.relative_to(SRC))
        for name, call in _calls(path):
            args: list[ast.expr] = list(call.args)
            if name in MESSAGE_CALLS and args:
                picked = [args[0]]
            elif name == "UnknownNameError":  # the kind and the hint
                picked = [args[0], *args[3:4]] + [k.value for k in call.keywords
                                                   if k.arg == "hint"]
            else:
                continue
            for arg in picked:
                text = _literal(arg)
                if text and text not in ENGLISH_ONLY:
                    yield where, text


def source_f_strings() -> set[tuple[str, str]]:
    out = set()
    for path in SOURCES:
        for name, call in _calls(path):
            if name in MESSAGE_CALLS - {"ErrorText"} and call.args and isinstance(
                    call.args[0], ast.JoinedStr):
                first = next((_literal(v) for v in call.args[0].values if _literal(v)), "")
                out.add((str(path.relative_to(SRC)), first or ""))
    return out


def test_the_scan_finds_the_raise_sites() -> None:
    found = {text for _where, text in source_messages()}
    assert "there is already a unit called {name!r}" in found
    assert "only infantry and guns can be dug in or in bulletproof cover" in found
    assert "Add it with 'warroom battle add-unit'." in found and "phase" in found
    assert len(found) > 50


@pytest.mark.parametrize("lang", LANGS)
def test_every_literal_message_has_a_translation(lang: str) -> None:
    table = i18n.catalog(lang)
    missing = sorted({f"{where}: {text}" for where, text in source_messages()
                      if not table.get(text)})
    assert not missing, missing


def test_player_messages_are_not_f_strings() -> None:
    assert source_f_strings() == ENGLISH_F_STRINGS


# -- where players see them ----------------------------------------------------------------


def test_the_battle_cli_prints_errors_in_the_chosen_language(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, db: str) -> None:
    monkeypatch.delenv("WARROOM_LANG", raising=False)

    def run(*args: str) -> tuple[int, str, str]:
        code = main([*args, "--db", str(db)])
        out, err = capsys.readouterr()
        return code, out, err

    code, out, _ = run("battle", "new", "demo", "--name", "Kursk", "--seed", "1", "--json")
    bid = json.loads(out)["id"]
    assert run("battle", "add-unit", bid, "--side", "A", "--name", "Tigers")[0] == 0
    code, _, err = run("--lang", "pl", "battle", "add-unit", bid, "--side", "A", "--name",
                       "tigers")
    assert code == 2 and err == "błąd: jednostka o nazwie 'tigers' już istnieje\n"
    code, _, err = run("--lang", "zh", "battle", "next", bid, "--expect", "7")
    assert code == 2 and err == ("错误：战斗已被修改：你看到的是状态 7，现在已是 2；"
                                 "请重新加载后再试（未记录任何内容）\n")
    code, _, err = run("--lang", "pl", "battle", "mark", bid, "Tigers", "hits=lots")
    assert code == 2 and "znacznik 'hits' jest licznikiem" in err and "'lots'" in err
    monkeypatch.setenv("WARROOM_LANG", "pl")
    assert run("battle", "undo", bid)[0] == 0
    code, _, err = run("battle", "undo", bid)
    assert code == 2 and err.startswith("błąd: nie ma czego cofnąć")
    monkeypatch.delenv("WARROOM_LANG")
    code, _, err = run("battle", "undo", bid)
    assert err == "error: nothing to undo: the battle is as it was created\n"


def test_the_battle_pages_show_errors_in_the_page_language(
        client: Any, battle: dict[str, Any]) -> None:
    bid, ka = battle["id"], battle["keys"]["A"]
    base = f"/battles/{bid}/{ka}"
    r = client.post(f"{base}/unit?lang=pl", data={"name": "shermans", "expect": "3"})
    assert r.status_code == 422
    assert "jednostka o nazwie 'shermans' już istnieje" in html.unescape(r.text)
    r = client.post(f"{base}/mark?lang=zh", data={"unit": "Shermans", "marker": "hits",
                                                  "value": "-1", "expect": "3"})
    assert r.status_code == 422 and "标记 'hits' 不能小于 0" in html.unescape(r.text)
    r = client.post(f"{base}/do?lang=pl", data={"procedure": "asl.mc", "expect": "3"})
    assert "asl.mc to zasada gry 'asl'" in html.unescape(r.text)
    r = client.post("/battles?lang=zh", data={"game": "fwo"})
    assert r.status_code == 422 and "未知的游戏系统 'fwo'" in html.unescape(r.text)
    # the JSON API's detail stays English whatever the browser asks for
    r = client.post(f"/api/battles/{bid}/units?key={ka}", json={
        "side": "A", "name": "shermans"}, headers={"accept-language": "pl"})
    assert r.status_code == 422
    assert r.json()["detail"] == "there is already a unit called 'shermans'"
