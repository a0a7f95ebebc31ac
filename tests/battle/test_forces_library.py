"""Armies on the phone (issue 29, item 4): a unit's profile from the short form in the
game's own words, the force library in the database, a whole force added in one tap, a
unit's profile edited in one event; the page routes and the JSON API alike, a side acting
only for itself, and bad input a clear 4xx that changes nothing."""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.battle.fakes import battles
from warroom.battle.core import Battles
from warroom.battle.errors import AccessError, BattleError, StaleStateError
from warroom.battle.library import (
    MAX_TEXT,
    ForceTooLargeError,
    Library,
    NoSuchForceError,
    add_force,
    chosen,
    entry_of_text,
)
from warroom.errors import UsageError
from warroom.units.forces import GAMES, load_force, profile_model
from warroom.units.importers import MAX_UPLOAD, force_toml_from_upload
from warroom.web.unit_forms import fields_of, form_view, profile_from_form

EXAMPLE = Path(__file__).resolve().parents[2] / "src" / "warroom" / "units" / "examples"

SHERMANS_FORM = {
    "name": "Shermans", "skill": "trained", "motivation": "confident",
    "t0.type": "tank", "t0.count": "3", "t0.front": "6", "t0.side": "4", "t0.top": "1",
    "t0.w0.name": "75mm gun", "t0.w0.range_cm": "80", "t0.w0.rof_halted": "2",
    "t0.w0.rof_moving": "1", "t0.w0.at": "10", "t0.w0.firepower": "3",
    "t0.w1.name": "", "t1.type": "", "t1.count": "",
}


# ---------------------------------------------------------------------------- short forms
def test_a_fow_platoon_from_the_short_form() -> None:
    # what a newcomer meant by "3 tanks, 75mm AT10 FP3+": one kind of team, one weapon;
    # the spare rows left empty are not teams or weapons
    made = profile_from_form("fow", SHERMANS_FORM)
    assert made == {
        "name": "Shermans", "skill": "trained", "motivation": "confident",
        "teams": [{"type": "tank", "count": 3, "front": 6, "side": 4, "top": 1,
                   "weapons": [{"name": "75mm gun", "range_cm": 80, "rof_halted": 2,
                                "rof_moving": 1, "at": 10, "firepower": 3}]}]}
    platoon = profile_model("fow", made)
    assert platoon.team_count == 3 and platoon.teams[0].weapons[0].at == 10


def test_an_asl_stack_counts_its_counters() -> None:
    made = profile_from_form("asl", {"name": "Firegroup", "nationality": "German",
                                     "elr": "3", "c0.text": "4-6-7", "c0.count": "2",
                                     "c1.text": "8-1", "c2.text": "MMG 4-10 B11",
                                     "c3.text": ""})
    assert made["counters"] == ["4-6-7", "4-6-7", "8-1", "MMG 4-10 B11"]
    stack = profile_model("asl", made)
    # read by the one counter parser: two squads of FP 4, a leader with DRM -1, an MMG
    kinds = [(c.kind, c.fp) for c in stack.parsed()]
    assert kinds[:2] == [("squad", 4), ("squad", 4)] and kinds[3][0] == "sw"
    assert stack.parsed()[2].drm == -1


def test_a_commander_unit_with_marked_attacks_and_an_hq() -> None:
    tanks = profile_from_form("bkc", {"name": "Tanks", "type": "afv", "count": "3",
                                      "a0.value": "3", "a0.mark": "", "a1.value": "2",
                                      "a1.mark": "*", "hits": "4", "save": "5",
                                      "armoured": "on", "cv": "9"})
    # only an HQ has a command value: the CV field of another unit is left out
    assert tanks == {"name": "Tanks", "type": "afv", "count": 3, "attack": ["3", "2*"],
                     "hits": 4, "save": 5, "armoured": True}
    hq = profile_from_form("cwc", {"name": "HQ", "type": "hq", "hits": "3", "cv": "9"})
    assert profile_model("cwc", hq).cv == 9


@pytest.mark.parametrize(("game", "fields", "says"), [
    ("fow", {**SHERMANS_FORM, "t0.w0.at": "ten"}, "'ten' is not a whole number"),
    ("fow", {**SHERMANS_FORM, "t0.w0.range_cm": ""}, "Range (cm): give a number"),
    ("fow", {**SHERMANS_FORM, "t0.type": ""}, "at least one kind of team"),
    ("fow", {**SHERMANS_FORM, "name": ""}, "give the unit a name"),
    ("asl", {"name": "S", "c0.text": ""}, "at least one counter"),
    ("bkc", {"name": "HQ", "type": "hq", "hits": "3"}, "CV (HQ only): give a number"),
    ("demo", {"name": "x"}, "carry no profiles"),
])
def test_bad_short_forms_say_what_is_wrong(game: str, fields: dict[str, str],
                                           says: str) -> None:
    with pytest.raises(UsageError, match=re.escape(says)):
        profile_from_form(game, fields)


@pytest.mark.parametrize("game", GAMES)
def test_every_example_unit_goes_through_its_form_unchanged(game: str) -> None:
    # the edit form shows a profile as fields; saving it unchanged gives it back whole
    for unit in load_force(f"example:{game}").units:
        data = unit.model_dump(mode="json")
        fields = fields_of(game, data)
        view = form_view(game, fields)
        assert view["f"] == fields
        again = profile_model(game, profile_from_form(game, fields, data))
        assert again == unit, unit.name


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.sampled_from(
    ["name", "skill", "t0.type", "t0.count", "t0.front", "t0.w0.name", "t0.w0.at",
     "t0.w0.range_cm", "t0.w0.rof_halted", "t0.w0.rof_moving", "t0.w0.firepower",
     "c0.text", "c0.count", "type", "hits", "cv", "a0.value", "a0.mark", "elr"]),
    st.text(max_size=12)), st.sampled_from(list(GAMES)))
def test_odd_forms_give_a_profile_or_a_usage_error(fields: dict[str, str], game: str) -> None:
    try:
        made = profile_model(game, profile_from_form(game, fields))
    except UsageError as exc:
        assert str(exc)  # one clear message, never another exception
        return
    assert made.name == fields["name"].strip()


# ---------------------------------------------------------------------------- the library
@pytest.fixture
def fow(bt: Battles) -> dict[str, Any]:
    return bt.new("fow", "Library")


def _events(bt: Battles, battle_id: str) -> list[dict[str, Any]]:
    return bt.log(battle_id)


def test_the_library_offers_the_examples_and_keeps_saved_forces(bt: Battles) -> None:
    lib = Library(bt.store)
    assert [e.ref for e in lib.entries("fow")] == ["example:fow"]
    # BKC and CWC units share one model: either example serves both games
    assert [e.ref for e in lib.entries("cwc")] == ["example:bkc", "example:cwc"]
    text = (EXAMPLE / "asl.toml").read_text()
    saved = lib.save_text("asl", text, battle_id="b1", side="A")
    assert saved.ref.startswith("saved:") and saved.name.startswith("Example")
    assert [e.ref for e in lib.entries("asl")] == ["example:asl", saved.ref]
    assert lib.get(saved.ref, "asl").units == saved.units
    with pytest.raises(NoSuchForceError):
        lib.get(saved.ref, "fow")  # an ASL force is not offered to a FoW battle
    with pytest.raises(BattleError, match="this is a asl force; the battle plays fow"):
        lib.save_text("fow", text)


def test_a_whole_force_in_one_go_and_a_clash_changes_nothing(bt: Battles,
                                                            fow: dict[str, Any]) -> None:
    bid = fow["id"]
    entry = Library(bt.store).get("example:fow", "fow")
    added = add_force(bt, bid, "A", chosen(entry, ["Shermans", "rifle platoon"]),
                      expect=1, by="A")
    assert [e["unit"] for e in added] == ["Shermans", "Rifle platoon"]
    assert all(e["kind"] == "unit_added" and e["profile"] for e in added)
    before = bt.row(bid)["counter"]
    # side B ticks all three: Shermans is taken, so nothing of the force is added
    with pytest.raises(BattleError, match="already a unit called 'Shermans'"):
        add_force(bt, bid, "B", chosen(entry, None), by="B")
    assert bt.row(bid)["counter"] == before
    with pytest.raises(AccessError) as refused:
        add_force(bt, bid, "A", chosen(entry, ["Panthers"]), by="B")
    assert refused.value.code == "not_your_side"
    with pytest.raises(StaleStateError):  # Shermans was added since state 1
        add_force(bt, bid, "B", chosen(entry, ["Panthers", "Shermans"]), expect=1, by="B")
    with pytest.raises(BattleError, match="has no unit 'Tigers'"):
        chosen(entry, ["Tigers"])
    assert bt.row(bid)["counter"] == before
    assert bt.verify(bid).ok


@pytest.mark.parametrize(("text", "says"), [
    ("game = 'fow'\n[[unit", "pasted force: TOML:"),
    ("game = 'fow'\n[[unit]]\nname = 'X'\n", "pasted force, line 2: unit[1].teams"),
    ("game = 'chess'\n", "game: give game = one of"),
    ("a = " + "[" * 2000 + "]" * 2000, "pasted force"),
])
def test_bad_force_text_is_a_clear_error(text: str, says: str) -> None:
    with pytest.raises(UsageError, match=re.escape(says)):
        entry_of_text(text, "fow")


def test_size_caps_on_pasted_and_uploaded_forces() -> None:
    with pytest.raises(ForceTooLargeError) as big:
        entry_of_text("#" * (MAX_TEXT + 1), "fow")
    assert big.value.http_status == 413 and big.value.code == "force_too_large"
    # an upload goes through the importer (warroom.units.importers): its own cap, a
    # clear error for bytes that are not text, a roster read as a roster
    with pytest.raises(UsageError, match="larger than"):
        force_toml_from_upload(b"#" * (MAX_UPLOAD + 1), "big.toml")
    with pytest.raises(UsageError, match="not UTF-8"):
        force_toml_from_upload(b"\xff\xfe\x00", "x.toml")
    with pytest.raises(UsageError, match=r"x\.ros"):
        force_toml_from_upload(b"<roster/>", "x.ros")
    padded = (EXAMPLE / "fow.toml").read_bytes() + b"#" * MAX_TEXT
    with pytest.raises(ForceTooLargeError):  # a file under the upload cap, too long a force
        entry_of_text(force_toml_from_upload(padded, "big.toml"), "fow")
    text = (EXAMPLE / "fow.toml").read_bytes()
    assert force_toml_from_upload(b"\xef\xbb\xbf" + text, "f.toml") == text.decode()


def test_a_profile_edited_in_one_event(bt: Battles, fow: dict[str, Any]) -> None:
    bid = fow["id"]
    made = profile_from_form("fow", SHERMANS_FORM)
    bt.add_unit(bid, "A", "Shermans", profile=made, by="A")
    changed = profile_from_form("fow", {**SHERMANS_FORM, "t0.count": "4",
                                        "t0.w0.at": "11"}, made)
    event = bt.edit_unit(bid, "Shermans", {}, profile=changed, by="A")
    assert event["kind"] == "unit_edited" and event["stats"] == {}
    unit = bt.state(bid).unit("Shermans")
    assert unit.teams == 4 and unit.profile is not None
    assert unit.profile["teams"][0]["weapons"][0]["at"] == 11
    log = _events(bt, bid)
    assert [e["kind"] for e in log] == ["created", "unit_added", "unit_edited"]
    with pytest.raises(AccessError):
        bt.edit_unit(bid, "Shermans", {}, profile=changed, by="B")
    bad = {**changed, "teams": [{**changed["teams"][0], "count": 99}]}
    with pytest.raises(UsageError, match=r"teams\[1\]\.count"):
        bt.edit_unit(bid, "Shermans", {}, profile=bad, by="A")
    assert len(_events(bt, bid)) == 3
    report = bt.verify(bid)
    assert report.ok, report.problems
    # an export with the edit imports and replays
    copy = bt.import_(bt.export(bid))
    assert bt.state(copy["id"]).unit("Shermans").profile == unit.profile


# ---------------------------------------------------------------------------- web
@pytest.fixture
def client(tmp_path: Path) -> Iterator[Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from fastapi.testclient import TestClient
    from warroom.web.app import create_app

    app = create_app(tmp_path / "web.db")
    app.state.battles = battles(str(tmp_path / "web.db"))
    with TestClient(app) as c:
        yield c


def _new(client: Any, game: str = "fow") -> tuple[str, str, str, str]:
    made = client.post("/api/v1/battles", json={"game": game, "name": "Phones"}).json()
    return made["id"], made["keys"]["A"], made["keys"]["B"], made["keys"]["view"]


def _error(html: str) -> str:
    found = re.search(r'id="battle-error">([^<]*)<', html)
    return found.group(1) if found else ""


def test_the_page_adds_a_unit_by_the_short_form_and_edits_it_in_one_save(
        client: Any) -> None:
    bid, ka, kb, view = _new(client)
    page = client.get(f"/battles/{bid}/{ka}")
    assert 'action="/battles/' in page.text and 'id="new-unit"' in page.text
    r = client.post(f"/battles/{bid}/{ka}/units/new", data={**SHERMANS_FORM, "expect": "1"},
                    follow_redirects=False)
    assert r.status_code == 303, _error(r.text)
    shown = client.get(f"/battles/{bid}/{ka}").text
    assert "3× Sherman" not in shown and "3× " in shown and "75mm gun: 80 cm, ROF 2/1" in shown
    # the edit form shows the profile's values; one save, one event
    assert 'name="t0.w0.at" value="10"' in shown
    r = client.post(f"/battles/{bid}/{ka}/units/edit", data={
        **SHERMANS_FORM, "unit": "Shermans", "t0.count": "2", "t0.w1.name": ".50 cal MG",
        "t0.w1.range_cm": "40", "t0.w1.rof_halted": "3", "t0.w1.rof_moving": "3",
        "t0.w1.at": "4", "t0.w1.firepower": "5", "expect": "2"}, follow_redirects=False)
    assert r.status_code == 303, _error(r.text)
    log = client.get(f"/api/v1/battles/{bid}/log?key={ka}").json()
    assert [e["kind"] for e in log] == ["created", "unit_added", "unit_edited"]
    assert len(log[-1]["profile"]["teams"][0]["weapons"]) == 2
    # side B cannot edit A's unit, the spectator adds nothing: the page says so and
    # nothing changes
    r = client.post(f"/battles/{bid}/{kb}/units/edit", data={**SHERMANS_FORM,
                                                            "unit": "Shermans"})
    assert r.status_code == 403
    r = client.post(f"/battles/{bid}/{view}/units/new", data=SHERMANS_FORM)
    assert r.status_code == 403
    # a mistake keeps what was typed
    r = client.post(f"/battles/{bid}/{kb}/units/new",
                    data={**SHERMANS_FORM, "name": "Tigers", "t0.w0.at": "99"})
    assert r.status_code == 422 and "at" in _error(r.text)
    assert 'value="Tigers"' in r.text and 'name="t0.w0.at" value="99"' in r.text
    assert len(client.get(f"/api/v1/battles/{bid}/log?key={ka}").json()) == 3


def test_the_page_adds_a_force_from_the_library_and_a_pasted_one(client: Any) -> None:
    bid, ka, kb, _view = _new(client)
    r = client.post(f"/battles/{bid}/{ka}/forces/add", data={
        "force": "example:fow", "pick": ["Shermans", "Rifle platoon"], "expect": "1"},
        follow_redirects=False)
    assert r.status_code == 303, _error(r.text)
    # B's library leaves A's units unticked
    page = client.get(f"/battles/{bid}/{kb}").text
    assert re.search(r'value="Panthers" checked', page)
    assert re.search(r'value="Shermans">', page)
    text = (EXAMPLE / "fow.toml").read_text().replace('"Shermans"', '"Fireflies"') \
        .replace('"Rifle platoon"', '"Grenadiers"').replace('"Panthers"', '"Tigers"')
    r = client.post(f"/battles/{bid}/{kb}/forces/paste",
                    files={"file": ("list.toml", text.encode())},
                    data={"text": "", "keep": "on"}, follow_redirects=False)
    assert r.status_code == 303, _error(r.text)
    names = [u["name"] for u in client.get(f"/api/v1/battles/{bid}?key={ka}").json()["units"]]
    assert names == ["Shermans", "Rifle platoon", "Fireflies", "Tigers", "Grenadiers"]
    forces = client.get(f"/api/v1/battles/{bid}/forces?key={ka}").json()
    assert [f["units"] for f in forces][1] == ["Fireflies", "Tigers", "Grenadiers"]
    counter = client.get(f"/battles/{bid}/{ka}/counter").json()["counter"]
    for data, files, status, says in [
        ({"text": "game = 'fow'\n[[unit"}, None, 422, "TOML"),
        ({"text": ""}, {"file": ("army.ros", b"<roster/>")}, 422, "army.ros"),
        ({"text": "#" * (MAX_TEXT + 1)}, None, 413, "too long"),
        ({"text": ""}, None, 422, "paste a force"),
        ({"text": text}, None, 422, "already a unit called"),
    ]:
        r = client.post(f"/battles/{bid}/{ka}/forces/paste", data=data, files=files)
        assert r.status_code == status and says in _error(r.text), (says, _error(r.text))
    assert client.get(f"/battles/{bid}/{ka}/counter").json()["counter"] == counter



def test_the_page_adds_a_force_from_an_uploaded_roster(client: Any) -> None:
    """A BattleScribe roster uploaded on the page goes through the roster importer: its
    platoons join side A with their teams' profiles (example roster: 1st Zug, ...)."""
    from warroom.units.importers import example_roster, import_upload

    bid, ka, _kb, _view = _new(client)
    roster = example_roster("example:fow.ros").read_bytes()
    expected = [u.name for u in import_upload(roster, "list.ros").force.units]
    r = client.post(f"/battles/{bid}/{ka}/forces/paste", files={"file": ("list.ros", roster)},
                    data={"text": ""}, follow_redirects=False)
    assert r.status_code == 303, _error(r.text)
    units = client.get(f"/api/v1/battles/{bid}?key={ka}").json()["units"]
    assert [u["name"] for u in units] == expected and "1st Zug" in expected
    assert all(u["side"] == "A" and u["profile"] for u in units)


def test_the_api_adds_and_edits_units_with_profiles(client: Any) -> None:
    bid, ka, kb, view = _new(client, "asl")
    api = f"/api/v1/battles/{bid}"
    stack = profile_from_form("asl", {"name": "Firegroup", "c0.text": "4-6-7",
                                      "c0.count": "2", "c1.text": "8-1"})
    r = client.post(f"{api}/units?key={ka}", json={"side": "A", "profile": stack})
    assert r.status_code == 200 and r.json()["profile"]["counters"][0] == "4-6-7"
    saved = client.post(f"{api}/forces?key={kb}",
                        json={"toml": (EXAMPLE / "asl.toml").read_text()})
    assert saved.status_code == 200
    ref = saved.json()["ref"]
    r = client.post(f"{api}/force?key={kb}", json={"side": "B", "force": ref,
                                                   "units": ["Target stack"]})
    assert r.status_code == 200 and [e["unit"] for e in r.json()] == ["Target stack"]
    r = client.post(f"{api}/edit?key={ka}", json={
        "unit": "Firegroup", "profile": {**stack, "counters": ["4-6-7", "9-2"]}})
    assert r.status_code == 200 and r.json()["profile"]["counters"] == ["4-6-7", "9-2"]
    counter = client.get(f"{api}?key={ka}").json()["counter"]
    for url, body, status, code in [
        (f"{api}/force?key={kb}", {"side": "A", "force": "example:asl"}, 403, "not_your_side"),
        (f"{api}/force?key={view}", {"side": "B", "force": "example:asl"}, 403, "spectator"),
        (f"{api}/force?key={kb}", {"side": "B", "force": "saved:nope"}, 404, "no_such_force"),
        (f"{api}/force?key={kb}", {"side": "B", "toml": "game = 'asl'\n[[unit"}, 422,
         "force"),
        (f"{api}/force?key={kb}", {"side": "B", "toml": "#" * (MAX_TEXT + 1)}, 413,
         "force_too_large"),
        (f"{api}/force?key={kb}", {"side": "B"}, 422, "invalid"),
        (f"{api}/forces?key={kb}", {"toml": "game = 'fow'\n"}, 422, "force"),
        (f"{api}/edit?key={kb}", {"unit": "Firegroup", "profile": stack}, 403,
         "not_your_unit"),
        (f"{api}/edit?key={ka}", {"unit": "Firegroup", "profile": {"name": "x"}}, 422,
         "force"),
    ]:
        r = client.post(url, json=body)
        assert r.status_code == status, (body, r.text)
        assert r.json()["error"]["code"] == code, (body, r.json())
    assert client.get(f"{api}?key={ka}").json()["counter"] == counter


def test_a_force_with_a_lone_surrogate_is_refused_not_stored(bt: Battles) -> None:
    text = (EXAMPLE / "fow.toml").read_text().replace("Shermans", "Sher\ud800mans")
    with pytest.raises(BattleError, match="not valid Unicode"):
        Library(bt.store).save_text("fow", text)
    assert [e.ref for e in Library(bt.store).entries("fow")] == ["example:fow"]


def test_a_force_checked_on_a_state_that_moves_on_is_checked_again(
        bt: Battles, fow: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    bid = fow["id"]
    entry = Library(bt.store).get("example:fow", "fow")
    real = bt.state
    racing = {"left": 1}

    def state_then_a_racing_write(battle_id: str) -> Any:
        seen = real(battle_id)
        if racing["left"]:  # the other side adds a unit right after the check
            racing["left"] -= 1
            bt.add_unit(bid, "B", f"Intruder {len(seen.units)}", {"teams": 1}, by="B")
        return seen

    monkeypatch.setattr(bt, "state", state_then_a_racing_write)
    added = add_force(bt, bid, "A", chosen(entry, ["Shermans"]), by="A")
    assert [e["seq"] for e in added] == [3]  # checked again after the Intruder (2)
    racing["left"] = 1
    # with expect: the Intruder (4) took none of the force's names, so it is added on
    # the battle as it is, recording the counter its page showed
    added = add_force(bt, bid, "A", chosen(entry, ["Panthers"]), expect=3, by="A")
    assert [(e["seq"], e["seen"]) for e in added] == [(5, 3)]
    # a name the force reads taken since the page was drawn: refused, nothing added
    bt.add_unit(bid, "B", "Rifle platoon", {"teams": 1}, by="B")
    with pytest.raises(StaleStateError, match="reads: Rifle platoon"):
        add_force(bt, bid, "A", chosen(entry, ["Rifle platoon"]), expect=5, by="A")
    assert real(bid).units["Rifle platoon"].side == "B" and bt.row(bid)["counter"] == 6
