"""Importing Flames of War 3rd-edition rosters (BattleScribe .ros/.rosz, New Recruit .json)
as force TOML: hand-checked conversions of hand-made test rosters, the refusals and bad
files, and properties that odd rosters never raise anything but the typed error.

The test rosters under tests/units/data/ (and the example src/warroom/units/examples/
fow.ros, here "fow_new.ros") were written by hand for these tests; every stat in them is
made up."""

from __future__ import annotations

import io
import json
import tomllib
import zipfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from warroom.errors import UsageError
from warroom.games.fow import roster
from warroom.games.fow.roster import OtherSystemError, RosterError, import_roster, to_toml
from warroom.units.forces import ForceError, force_from_text
from warroom.units.importers import example_roster, force_toml_from_upload, import_upload

DATA = Path(__file__).parent / "data"


def data(name: str) -> bytes:
    """A test roster; ``fow_new.ros`` is the example shipped with warroom."""
    if name == "fow_new.ros":
        return example_roster("example:fow.ros").read_bytes()
    return (DATA / name).read_bytes()


def imported(name: str) -> dict[str, Any]:
    text = force_toml_from_upload(data(name), name)
    force_from_text(text, name)  # what `warroom force check` accepts
    return tomllib.loads(text)


def weapon(name: str, range_cm: int, rof: int, at: int, fp: int, *, moving: int = 1,
           no_he: bool = False, bb: bool = False) -> dict[str, Any]:
    return {"name": name, "range_cm": range_cm, "rof_halted": rof, "rof_moving": moving,
            "at": at, "firepower": fp, "no_he": no_he, "bunker_buster": bb}


# -- hand-checked conversions ---------------------------------------------------------


def test_old_form_ros_value_attributes() -> None:
    force = imported("fow_old.ros")
    assert force["game"] == "fow"
    assert force["name"] == "Test US company (old form)"
    tanks, rifles = force["unit"]  # the Air Support selection holds only an aircraft
    # the Army Rating selection "Confident Trained": confident, trained
    assert (tanks["name"], tanks["motivation"], tanks["skill"]) == (
        "Tank Platoon", "confident", "trained")
    # notes "Co-ax MG, Hull MG, .50 cal AA MG, Stabilizers, Smoke": Stabilizers a known
    # rule, Smoke not; the MGs weapon lines
    assert tanks["rules"] == ["stabilizers"]
    # 3 Shermans, Range 32" = 32 x 2.5 = 80 cm, ROF 2 (1 moving: the reading), AT 10,
    # firepower "3+" -> 3, armour 6/4/1; then the reference card's vehicle MGs: Co-ax
    # and Hull MG one Vehicle MG line (40 cm, ROF 3, 1 moving, AT 2, FP 6), the .50 cal
    # AA MG a .50 cal Vehicle MG line (40 cm, ROF 3, 1 moving, AT 4, FP 5)
    assert tanks["teams"] == [{"type": "tank", "count": 3, "name": "M4 Sherman (test)",
                               "front": 6, "side": 4, "top": 1,
                               "weapons": [weapon("M4 Sherman (test)", 80, 2, 10, 3),
                                           weapon("Vehicle MG", 40, 3, 2, 6, moving=1),
                                           weapon(".50 cal Vehicle MG", 40, 3, 4, 5,
                                                  moving=1)]}]
    assert rifles["rules"] == ["automatic_rifles", "tank_assault"]  # "Tank Assault 3"
    assert rifles["teams"] == [
        # 4 rifle teams in the platoon and 2 in its second squad: one entry of 6;
        # 16" = 40 cm
        {"type": "infantry", "count": 6, "name": "Rifle team (test)",
         "weapons": [weapon("Rifle team (test)", 40, 1, 2, 6)]},
        # 5" = 12.5 cm, kept as 13 (half centimetres rounded up); firepower 5+ -> 5;
        # its profile names only profileTypeId "Infantry Team###DATA###" (old rosters)
        {"type": "infantry", "count": 1, "name": "Bazooka team (test)",
         "weapons": [weapon("Bazooka team (test)", 13, 1, 10, 5)]},
        # armour "-" on all three: an unarmoured vehicle, no weapon line
        {"type": "soft", "count": 1, "name": "Jeep (test)"}]


def test_the_toml_lists_unknown_rules_and_readings_as_comments() -> None:
    text = force_toml_from_upload(data("fow_old.ros"), "fow_old.ros")
    assert "# special rules not known to warroom, left out: Smoke\n" in text
    assert ("Co-ax MG, Hull MG read as a Vehicle MG weapon line, from the FoW reference "
            "card's vehicle machine-guns table") in text
    assert "moving ROF 1 for every weapon" in text
    assert "Fighter-bomber (test) (aircraft) left out" in text
    assert '5" is 12.5 cm, kept as 13 cm' in text


def test_new_form_ros_text_characteristics() -> None:
    force = imported("fow_new.ros")
    zug, battery, grenadiers = force["unit"]
    # the custom name wins; Army Rating > "Fearless Veteran"
    assert (zug["name"], zug["motivation"], zug["skill"]) == ("1st Zug", "fearless",
                                                              "veteran")
    # the force's rules (Mission Tactics, Kampfgruppe) for every platoon, then the notes
    assert zug["rules"] == ["mission_tactics", "kampfgruppe", "protected_ammo", "schurzen"]
    assert zug["teams"] == [{"type": "tank", "count": 4, "name": "Panzer IV (example)",
                             "front": 6, "side": 3, "top": 1,
                             "weapons": [weapon("Panzer IV (example)", 80, 2, 11, 3),
                                         weapon("Vehicle MG", 40, 3, 2, 6, moving=1)]}]
    # Gun Bombardment: 24" = 60 cm, firepower 2+ -> 2, Bunker Buster a weapon flag; the
    # second line (ROF2 "Artillery") is not direct fire and is left out
    assert battery["teams"] == [{"type": "gun", "count": 2, "name": "10.5cm gun (example)",
                                 "weapons": [weapon("10.5cm gun (example)", 60, 2, 9, 2,
                                                    bb=True)]}]
    assert battery["rules"] == ["mission_tactics", "kampfgruppe"]  # Gun Shield unknown
    # the platoon's own rating selection "Reluctant Trained" wins over the force's
    assert (grenadiers["motivation"], grenadiers["skill"]) == ("reluctant", "trained")
    assert grenadiers["rules"] == ["mission_tactics", "kampfgruppe", "stormtroopers"]
    assert grenadiers["teams"][0]["count"] == 7


def test_rosz_holds_the_same_roster_as_the_ros() -> None:
    assert (force_toml_from_upload(data("fow.rosz"), "fow.rosz")
            == force_toml_from_upload(data("fow_old.ros"), "fow_old.ros"))
    # a .ros that is really a zip is read as one
    assert (force_toml_from_upload(data("fow.rosz"), "list.ros")
            == force_toml_from_upload(data("fow.rosz"), "fow.rosz"))


def test_new_recruit_json() -> None:
    force = imported("fow_newrecruit.json")
    tanks, sappers = force["unit"]
    # Army Rating > "Fearless Conscript"
    assert (tanks["motivation"], tanks["skill"]) == ("fearless", "conscript")
    # force rule Hen and Chicks, notes Limited Vision and Wide Tracks; the selection's
    # rule "Tank Riders" is unknown; the Hull MG a Vehicle MG line
    assert tanks["rules"] == ["hen_and_chicks", "limited_vision", "wide_tracks"]
    # 10 + 12 identical T-34s = 22: a team entry holds at most 20, so 20 and 2;
    # 24" = 60 cm
    t34 = {"type": "tank", "name": "T-34 (test)", "front": 6, "side": 5, "top": 1,
           "weapons": [weapon("T-34 (test)", 60, 2, 9, 3),
                       weapon("Vehicle MG", 40, 3, 2, 6, moving=1)]}
    assert tanks["teams"] == [{**t34, "count": 20}, {**t34, "count": 2}]
    # "No HE" is a known rule and the weapon's flag; 4" = 10 cm
    assert sappers["name"] == "Sappers"
    assert sappers["rules"] == ["hen_and_chicks", "no_he"]
    assert sappers["teams"][0]["weapons"] == [weapon("Flame-thrower team (test)", 10, 2,
                                                     2, 6, no_he=True)]
    notes = [n.render() for n in import_upload(data("fow_newrecruit.json"), "x.json").notes]
    assert "Tank Company: special rules not known to warroom, left out: Tank Riders" in notes
    assert "Sappers: special rules not known to warroom, left out: Flame-thrower" in notes


def test_imported_platoons_shoot() -> None:
    # the imported profiles drive the rules: 3 Shermans halted at the Panzer IVs
    from warroom.units import params_for

    shermans, = [u for u in import_upload(data("fow_old.ros"), "a.ros").force.units
                 if u.name == "Tank Platoon"]
    panzers = import_upload(data("fow_new.ros"), "b.ros").force.unit("1st Zug")
    built = params_for("fow.shoot", shermans, panzers, range_cm=45)
    # 3 teams x ROF 2 = 6 dice; AT 10 against front armour 6; the target's skill veteran
    assert built.params["dice"] == 6
    assert (built.params["at"], built.params["armour"]) == (10, 6)
    assert built.params["target_skill"] == "veteran"


def test_a_toml_upload_is_checked_and_returned_as_it_is(tmp_path: Path) -> None:
    from warroom.units.forces import example_path

    text = example_path("fow").read_text(encoding="utf-8")
    assert force_toml_from_upload(text.encode(), "mine.toml") == text
    with pytest.raises(ForceError, match=r"bad\.toml, line 1: TOML"):
        force_toml_from_upload(b"game = \n", "bad.toml")
    with pytest.raises(ForceError, match="not UTF-8"):
        force_toml_from_upload(b"\xff\xfe", "bad.toml")


def test_rating_and_rule_names() -> None:
    assert roster.rating("Confident Trained") == ("confident", "trained")
    assert roster.rating("Veteran, Fearless") == ("fearless", "veteran")
    assert roster.rating("Trained") is None
    assert roster.rule_name("Tank Assault 3") == "tank_assault"
    assert roster.rule_name(".50 cal Vehicle MG") == "cal_50_vehicle_mg"
    assert roster.rule_name("Schurzen") == "schurzen"
    assert roster.rule_name("Stabiliser") is None  # warroom knows "Stabilizers" only
    assert roster._vehicle_mg("Co-ax MG") == roster._vehicle_mg("AA MG") == "vehicle_mg"
    assert roster._vehicle_mg(".50 cal AA MG") == "cal50_vehicle_mg"
    # fired by the passengers (a special rule), not the vehicle; an MG team is infantry
    assert roster._vehicle_mg("Passenger-fired AA MG") is None
    assert roster._vehicle_mg("Smoke") is None


# -- refusals and bad files -----------------------------------------------------------


def with_system(system: str) -> bytes:
    return data("fow_new.ros").replace(b'gameSystemName="Flames of War"',
                                       f'gameSystemName="{system}"'.encode())


@pytest.mark.parametrize("system", ["Flames of War v4", "Team Yankee",
                                    "Flames Of War 4th Edition"])
def test_another_game_system_is_refused_by_name(system: str) -> None:
    with pytest.raises(OtherSystemError) as info:
        force_toml_from_upload(with_system(system), "list.ros")
    assert f"game system {system!r}" in str(info.value)
    assert "Flames of War 3rd edition" in str(info.value)


def zipped(**members: bytes) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, body in members.items():
            z.writestr(name, body)
    return buf.getvalue()


def lying_zip() -> bytes:
    """A zip whose headers claim its 1 MB member is 100 bytes (a bomb's trick)."""
    raw = bytearray(zipped(**{"x.ros": b"<roster>" + b" " * 1_000_000 + b"</roster>"}))
    for signature, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        at = raw.index(signature) + offset
        raw[at:at + 4] = (100).to_bytes(4, "little")
    return bytes(raw)


NEW = data("fow_new.ros").decode()
BAD: dict[str, tuple[bytes, str, str]] = {
    "not xml": (b"hello", "a.ros", "the XML is not well-formed (line 1, column 1)"),
    "html": (b"<html><body/></html>", "a.ros", "the root element is <html>, not <roster>"),
    "unknown encoding": (b'<?xml version="1.0" encoding="RTF-8"?><roster/>', "a.ros",
                         "the XML names an unknown encoding"),
    "empty": (b"  \n", "a.ros", "the file is empty"),
    "dtd": (b'<?xml version="1.0"?><!DOCTYPE roster [<!ENTITY a "x">]><roster>&a;</roster>',
            "a.ros", "may not contain a DTD or entity declarations"),
    "billion laughs": (b'<!DOCTYPE r [<!ENTITY a "aa"><!ENTITY b "&a;&a;">]><r>&b;</r>',
                       "a.ros", "may not contain a DTD"),
    "external entity": (b'<!DOCTYPE r SYSTEM "file:///etc/passwd"><r/>', "a.ros",
                        "may not contain a DTD"),
    "deep xml": (b"<roster>" + b"<a>" * 100 + b"</a>" * 100 + b"</roster>", "a.ros",
                 "nests deeper than 64 elements"),
    "bad json": (b'{"roster": ', "a.json", "not valid JSON (line 1, column 12)"),
    "json not a roster": (b"[1, 2]", "a.json", "not a New Recruit roster"),
    "deep json": (b"[" * 100_000 + b"]" * 100_000, "a.json", "the JSON nests too deeply"),
    "json not utf-8": (b'{"roster": "\xff"}', "a.json", "not UTF-8 text"),
    "json surrogate": (b'{"roster": {"gameSystemName": "\\ud800", "forces": []}}', "a.json",
                       "gameSystemName: not valid Unicode text"),
    "zip bomb": (zipped(**{"x.ros": b"<roster>" + b" " * 9_000_000 + b"</roster>"}),
                 "a.rosz", "unpacks to more than 8388608 bytes"),
    "lying zip": (lying_zip(), "a.rosz", "not a readable zip archive"),
    "no ros in zip": (zipped(**{"notes.txt": b"hi"}), "a.rosz", "holds no .ros file"),
    "two ros in zip": (zipped(**{"a.ros": b"<roster/>", "b.ros": b"<roster/>"}), "a.rosz",
                       "holds several .ros files (a.ros, b.ros)"),
    "not a zip": (b"PK\x03\x04 broken", "a.rosz", "not a readable zip archive"),
    "no system": (NEW.replace('gameSystemName="Flames of War"', "").encode(), "a.ros",
                  "a.ros: gameSystemName is missing"),
    "no platoons": (b'<roster gameSystemName="Flames of War"><forces/></roster>', "a.ros",
                    "no platoons"),
    "count not a number": (NEW.replace('number="4"', 'number="four"').encode(), "a.ros",
                           "a.ros, 1st Zug > Panzer IV (example): number: expected a whole "
                           "number, got 'four'"),
    "armour not a number": (NEW.replace(">6</characteristic>", ">six</characteristic>")
                            .encode(), "a.ros", "front armour 'six' is not a whole number"),
    "AT out of range": (NEW.replace(">11</characteristic>", ">25</characteristic>").encode(),
                        "a.ros", "Anti-tank 25 is outside 0 to 20"),
    "profile without a type": (NEW.replace('typeId="tank-team" typeName="Tank Team"', "")
                               .encode(), "a.ros", "typeName is missing"),
    "characteristic without a name": (NEW.replace('name="ROF" ', "", 1).encode(), "a.ros",
                                      "name is missing"),
    "wrong type": (json.dumps({"roster": {"gameSystemName": "Flames of War",
                                          "forces": [3]}}).encode(), "a.json",
                   "forces: expected a list of objects, got int"),
    "name a list": (json.dumps({"roster": {"gameSystemName": ["Flames of War"]}}).encode(),
                    "a.json", "gameSystemName: expected text, got list"),
    "unknown type": (b"x", "list.pdf", "unknown file type"),
}


@pytest.mark.parametrize("case", list(BAD), ids=list(BAD))
def test_bad_files_get_one_clear_typed_error(case: str) -> None:
    body, name, words = BAD[case]
    with pytest.raises(UsageError) as info:
        force_toml_from_upload(body, name)
    assert words in str(info.value)
    assert "\n" not in str(info.value)
    assert info.value.code in ("roster", "force")


def test_huge_files_are_refused_before_reading_them() -> None:
    with pytest.raises(ForceError, match="larger than 2097152 bytes"):
        force_toml_from_upload(b" " * (2 * 1024 * 1024 + 1), "a.ros")
    with pytest.raises(RosterError, match="larger than 2097152 bytes"):
        import_roster(b"<" * (2 * 1024 * 1024 + 1), "a.ros")


def test_errors_in_polish_and_chinese() -> None:
    from warroom.i18n import translator

    with pytest.raises(OtherSystemError) as info:
        force_toml_from_upload(with_system("Team Yankee"), "list.ros")
    for lang in ("pl", "zh"):
        text = info.value.translated(translator(lang))
        assert "'Team Yankee'" in text and text != str(info.value)


# -- properties: odd rosters never raise anything but the typed error -----------------

TAGS = ["roster", "forces", "force", "selections", "selection", "profiles", "profile",
        "characteristics", "characteristic", "rules", "rule", "categories", "category", "x"]
ATTRS = ["name", "number", "typeName", "gameSystemName", "value", "customName", "hidden",
         "profileTypeId", "catalogueName"]
VALUES = st.one_of(st.sampled_from(["Flames of War", "Tank Team", "Infantry Team",
                                    "Transport Team", "Gun Bombardment", "3", "32\"", "3+",
                                    "-", "0", "99", "Range", "ROF", "Anti-tank",
                                    "Firepower", "Front Armour", "Army Rating",
                                    "Confident Trained", "true", "Notes"]),
                   st.text(max_size=12))
SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def check(body: bytes, name: str) -> None:
    try:
        text = force_toml_from_upload(body, name)
    except UsageError as exc:
        assert isinstance(exc, (RosterError, ForceError))
        assert "\n" not in str(exc)
        return
    force_from_text(text, name)  # whatever imports is a force warroom accepts


def xml_tree() -> st.SearchStrategy[Any]:
    import xml.etree.ElementTree as ET

    def element(children: list[ET.Element], tag: str, attrs: dict[str, str],
                text: str) -> ET.Element:
        node = ET.Element(tag, attrs)
        node.text = text
        node.extend(children)
        return node

    leaf = st.builds(element, st.just([]), st.sampled_from(TAGS),
                     st.dictionaries(st.sampled_from(ATTRS), VALUES, max_size=4), VALUES)
    tree = st.recursive(leaf, lambda kids: st.builds(
        element, st.lists(kids, max_size=4), st.sampled_from(TAGS),
        st.dictionaries(st.sampled_from(ATTRS), VALUES, max_size=4), VALUES),
        max_leaves=40)
    return tree.map(lambda node: ET.tostring(
        element([node], "roster", {"gameSystemName": "Flames of War"}, "")))


@SETTINGS
@given(xml_tree())
def test_random_xml_rosters_import_or_fail_typed(body: bytes) -> None:
    check(body, "random.ros")


JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-5, 10**6), st.floats(), VALUES),
    lambda kids: st.one_of(st.lists(kids, max_size=4),
                           st.dictionaries(st.sampled_from([*TAGS, *ATTRS, "$text"]), kids,
                                           max_size=5)),
    max_leaves=40)


@SETTINGS
@given(JSON)
def test_random_json_rosters_import_or_fail_typed(value: Any) -> None:
    body = {"roster": {"gameSystemName": "Flames of War", "forces": value}}
    check(json.dumps(body).encode(), "random.json")
    check(json.dumps(value).encode(), "random.json")


FIXTURES = ["fow_old.ros", "fow_new.ros", "fow_newrecruit.json", "fow.rosz"]


@SETTINGS
@given(st.sampled_from(FIXTURES), st.data())
def test_truncated_and_mutated_fixtures_import_or_fail_typed(name: str,
                                                             draw: st.DataObject) -> None:
    body = bytearray(data(name))
    cut = draw.draw(st.integers(0, len(body)))
    check(bytes(body[:cut]), name)
    for _ in range(draw.draw(st.integers(1, 8))):
        at = draw.draw(st.integers(0, len(body) - 1))
        body[at] = draw.draw(st.integers(0, 255))
    check(bytes(body), name)


@SETTINGS
@given(st.sampled_from(["fow_new.ros", "fow_newrecruit.json"]),
       st.sampled_from(["32\"", "3+", "-", "", "x", "999", "0", "7.5\"", "2/1", "1e9"]),
       st.sampled_from(["Range", "ROF", "Anti-tank", "Firepower", "Front Armour",
                        "Side Armor", "Top Armour"]))
def test_odd_characteristic_values_import_or_fail_typed(name: str, value: str,
                                                        field: str) -> None:
    text = data(name).decode()
    if name.endswith(".json"):
        marker = f'{{"name": "{field}", "typeId": '
        text = text.replace(marker, f'{{"name": "{field}", "$text": {json.dumps(value)}, '
                            '"x": ', 1) if marker in text else text
    else:
        head = f'<characteristic name="{field}" typeId='
        at = text.find(head)
        if at >= 0:
            start = text.index(">", at) + 1
            end = text.index("<", start)
            text = text[:start] + value.replace("\"", "&quot;") + text[end:]
    check(text.encode(), name)


def test_to_toml_escapes_names() -> None:
    body = json.loads(data("fow_newrecruit.json"))
    body["roster"]["forces"][0]["selections"][2]["customName"] = 'Sappers "A"\\\x01\x7f'
    body["roster"]["forces"][0]["selections"][2]["selections"][0]["profiles"][0][
        "characteristics"][4]["$text"] = "Odd\x01rule\x7f"
    text = to_toml(import_roster(json.dumps(body).encode(), "x.json"))
    force = force_from_text(text, "x.json")
    assert force.unit('Sappers "A"\\\x01\x7f').name == 'Sappers "A"\\\x01\x7f'
    assert "# special rules not known to warroom, left out: Oddrule" in text


# -- the command line -----------------------------------------------------------------


def test_cli_prints_the_force_and_notes_on_stderr(capsys: pytest.CaptureFixture[str]
                                                  ) -> None:
    from tests.test_cli import run

    code, out, err = run(capsys, "force", "import", str(DATA / "fow_newrecruit.json"))
    assert code == 0
    assert out == force_toml_from_upload(data("fow_newrecruit.json"), "x.json")
    assert ("Tank Company: special rules not known to warroom, left out: Tank Riders"
            in err.splitlines())


def test_cli_writes_the_file_that_force_check_accepts(capsys: pytest.CaptureFixture[str],
                                                      tmp_path: Path) -> None:
    from tests.test_cli import run

    target = tmp_path / "company.toml"
    code, out, _ = run(capsys, "force", "import", str(DATA / "fow.rosz"), "-o", str(target))
    assert code == 0 and out.endswith(f"fow, 2 units, written to {target}\n")
    assert target.read_text(encoding="utf-8") == force_toml_from_upload(
        data("fow.rosz"), "fow.rosz")
    code, out, _ = run(capsys, "force", "check", str(target))
    assert code == 0 and "2 units, OK" in out
    code, out, _ = run(capsys, "odds", "fow.shoot", "--from", f"{target}:Tank Platoon",
                       "--at", f"{target}:Armored Rifle Platoon", "range_cm=30")
    assert code == 0 and "dice 6: Tank Platoon: 3 x M4 Sherman (test), ROF 2 halted" in out
    code, out, _ = run(capsys, "--lang", "pl", "force", "import", str(DATA / "fow.rosz"),
                       "-o", str(target))
    assert code == 0 and "2 jednostki, zapisano do" in out


def test_cli_errors_exit_2_in_one_line_or_json(capsys: pytest.CaptureFixture[str],
                                               tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.test_cli import run

    monkeypatch.chdir(tmp_path)
    bad = tmp_path / "list.ros"
    bad.write_bytes(with_system("Team Yankee"))
    code, out, err = run(capsys, "force", "import", str(bad))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "game system 'Team Yankee'" in err
    assert "Traceback" not in err
    code, out, err = run(capsys, "force", "import", str(bad), "--json")
    assert code == 2 and err == ""
    error = json.loads(out)["error"]
    assert error["code"] == "other_system" and "'Team Yankee'" in error["message"]
    code, out, err = run(capsys, "force", "import", "missing.ros")
    assert code == 2 and "missing.ros: file:" in err
    code, _, err = run(capsys, "--lang", "zh", "force", "import", str(bad))
    assert code == 2 and "游戏系统 'Team Yankee'" in err


def test_cli_json_gives_the_toml_and_the_notes(capsys: pytest.CaptureFixture[str]) -> None:
    from tests.test_cli import run

    code, out, _ = run(capsys, "force", "import", "example:fow.ros", "--json")
    body = json.loads(out)
    assert code == 0 and body["game"] == "fow" and body["units"] == 3
    assert body["toml"] == force_toml_from_upload(data("fow_new.ros"), "x.ros")
    assert any("Gun Shield" in n for n in body["notes"])


@pytest.mark.parametrize("lang", ["pl", "zh"])
def test_every_error_and_note_of_the_import_is_translated(lang: str) -> None:
    from warroom import i18n

    table = i18n.catalog(lang)
    templates: set[str] = set()
    for body, name, _ in BAD.values():
        with pytest.raises(UsageError) as info:
            force_toml_from_upload(body, name)
        templates.update(info.value.text.templates())
    for name in FIXTURES:
        for note in import_upload(data(name), name).notes:
            templates.update(note.templates())
    with pytest.raises(UsageError) as info:
        example_roster("example:nothing.ros")
    templates.update(info.value.text.templates())
    missing = sorted(t for t in templates if t.strip("{}") not in ("text", "file") and not
                     table.get(t))
    assert not missing, missing
    assert len(templates) > 30
