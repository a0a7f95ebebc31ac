"""Issue #30, trust: forged legacy imports kept read-only, ended battles closed to every
write (and damaged ones still verifying), undo of a virtual roll only with the other
side's consent, and no fishing for dice by changing a parameter that does not matter."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.battle.fakes import battles, stored_unit
from warroom.battle.core import Battles
from warroom.battle.errors import AccessError, ClosedError
from warroom.battle.store import open_store
from warroom.errors import UsageError

SHOT = {"unit": "Shermans", "target": "Grenadiers"}


def fow(bt: Battles, *, solo: bool = False) -> str:
    bid = str(bt.new("fow", "Trust", solo=solo)["id"])
    bt.add_unit(bid, "A", "Shermans", {"dice": "6"}, by="A")
    # more teams than the Shermans have dice: no shot eliminates them (out of action)
    bt.add_unit(bid, "B", "Grenadiers", {"teams": "8", "skill": "veteran"}, by="B")
    return bid


# -- 1. forged legacy imports -------------------------------------------------------------

def test_a_forged_legacy_import_is_read_only_and_gets_a_server_id(tmp_path: Path) -> None:
    """The red team's file: a 'created' event with a public seed and no commitment, and
    an id of its own choosing. Its dice could be foreseen (legacy_rng(seed, n)), so it
    replays and verifies but takes no write at all; the id is the server's."""
    data = json.loads((Path(__file__).parent / "data" / "export_v1.json").read_text())
    data["battle"]["id"] = "c0ffee01"
    bt = Battles(open_store(str(tmp_path / "forged.db")))
    made = bt.import_(data)
    bid = made["id"]
    assert bid != "c0ffee01" and made["origin"] == "read-only"
    report = bt.verify(bid)
    assert report.ok and not report.authentic
    assert any("read-only" in n for n in report.notes)
    shown = bt.show(bid)
    assert shown["read_only"] and shown.get("commitment") is None
    counter = shown["counter"]
    for write in (lambda: bt.do(bid, "fow.shoot", {"unit": "S", "target": "G"}),
                  lambda: bt.do(bid, "fow.shoot", {"unit": "S", "target": "G"}, dice=[6]),
                  lambda: bt.add_unit(bid, "A", "Late", {"dice": 3}),
                  lambda: bt.advance(bid), lambda: bt.undo(bid), lambda: bt.end(bid)):
        with pytest.raises(ClosedError) as refused:
            write()
        assert refused.value.code == "read_only" and refused.value.http_status == 409
    assert bt.show(bid)["counter"] == counter
    bt.store.close()


def test_an_import_never_keeps_the_files_id(bt: Battles, tmp_path: Path) -> None:
    bid = fow(bt)
    other = battles(tmp_path / "other.db")
    made = other.import_(bt.export(bid))
    assert made["id"] != bid and other.verify(made["id"]).ok


# -- 2. ended battles -----------------------------------------------------------------------

def test_an_ended_battle_refuses_every_write(bt: Battles) -> None:
    bid = fow(bt)
    bt.end(bid)
    counter = bt.show(bid)["counter"]
    for write in (lambda: bt.add_unit(bid, "A", "late", {"dice": 3}),
                  lambda: bt.edit_unit(bid, "Shermans", {"dice": 2}),
                  lambda: bt.mark(bid, "Shermans", "pinned"),
                  lambda: bt.advance(bid),
                  lambda: bt.do(bid, "fow.shoot", SHOT, dice=[6, 6, 6, 6, 6, 6]),
                  lambda: bt.do(bid, "fow.shoot", SHOT),
                  lambda: bt.undo(bid), lambda: bt.end(bid),
                  lambda: bt.add_unit(bid, "B", "late", by="B")):
        with pytest.raises(ClosedError) as refused:
            write()
        assert refused.value.code == "ended" and refused.value.http_status == 409
    assert bt.show(bid)["counter"] == counter and bt.verify(bid).ok


def test_a_battle_damaged_by_writes_after_its_end_verifies_with_a_note(
        bt: Battles, tmp_path: Path) -> None:
    """What older versions let through (`battle end ID; battle add-unit ID ...`): the
    log verifies with a note naming the late event, and imports (read-only: ended)."""
    bid = fow(bt)
    bt.end(bid)
    late = stored_unit(bt, bid, "A", "late", {"dice": 3})
    report = bt.verify(bid)
    assert report.ok, report.problems
    assert any(f"event {late['seq']} (unit_added) was recorded after the battle ended" in n
               for n in report.notes)
    other = battles(tmp_path / "other.db")
    made = other.import_(bt.export(bid))
    assert other.verify(made["id"]).ok
    with pytest.raises(ClosedError):
        other.mark(made["id"], "late", "pinned")


# -- 4. undo needs the other side ------------------------------------------------------------

def test_undo_of_a_virtual_roll_waits_for_the_other_side(bt: Battles) -> None:
    bid = fow(bt)
    roll = bt.do(bid, "fow.shoot", SHOT, by="A")
    asked = bt.undo(bid, by="A")
    assert asked["kind"] == "undo_asked" and asked["target"] == roll["seq"]
    shown = bt.show(bid)
    assert shown["counter"] == roll["seq"]  # nothing recorded yet
    assert shown["undo_asked"] == {"side": "A", "target": roll["seq"],
                                   "counter": roll["seq"]}
    with pytest.raises(AccessError):  # the asking side cannot answer itself
        bt.answer_undo(bid, True, by="A")
    done = bt.answer_undo(bid, True, by="B")
    assert done["kind"] == "undone" and done["by"] == "A" and done["agreed"] == "B"
    assert bt.show(bid)["undo_asked"] is None and bt.verify(bid).ok


def test_a_declined_or_overtaken_request_leaves_the_roll(bt: Battles) -> None:
    bid = fow(bt)
    roll = bt.do(bid, "fow.shoot", SHOT, by="A")
    bt.undo(bid, by="A")
    declined = bt.answer_undo(bid, False, by="B")
    assert declined["kind"] == "undo_declined"
    assert bt.show(bid)["counter"] == roll["seq"] and bt.show(bid)["undo_asked"] is None
    with pytest.raises(UsageError, match="no request"):
        bt.answer_undo(bid, True, by="B")
    bt.undo(bid, by="A")  # asked again, then side A marks a unit: the request is void
    bt.mark(bid, "Shermans", "pinned", by="A")
    assert bt.show(bid)["undo_asked"] is None
    with pytest.raises(UsageError, match="no request"):
        bt.answer_undo(bid, True, by="B")


def test_own_entered_dice_and_other_events_undo_freely(bt: Battles) -> None:
    bid = fow(bt)
    entered = bt.do(bid, "fow.shoot", SHOT, dice=[6, 6, 6, 6, 6, 6, 1, 1, 1, 1, 1, 1],
                    by="A")
    assert bt.undo(bid, by="A")["kind"] == "undone"
    marked = bt.mark(bid, "Shermans", "pinned", by="A")
    undone = bt.undo(bid, by="A")
    assert undone["kind"] == "undone" and undone["target"] == marked["seq"]
    assert entered["entered"] and bt.verify(bid).ok


def test_the_command_line_and_a_single_player_battle_undo_at_once(bt: Battles) -> None:
    bid = fow(bt)
    bt.do(bid, "fow.shoot", SHOT, by="A")
    assert bt.undo(bid)["kind"] == "undone"  # the owner at the command line
    solo = fow(bt, solo=True)
    assert bt.show(solo)["solo"] and bt.log(solo)[0]["solo"] is True
    bt.do(solo, "fow.shoot", SHOT, by="A")
    assert bt.undo(solo, by="A")["kind"] == "undone"
    assert bt.verify(solo).ok


def test_undo_and_asking_again_cannot_fish_for_dice(bt: Battles) -> None:
    """The red team's fishing: undo a virtual roll, ask again with a parameter that does
    not change the odds (range 20 -> 39 there; here the shot given its parameters
    explicitly, then filled from the units). A request alone undoes nothing; when the
    other side agrees, the same shot still gets the same dice, whatever its parameters."""
    bid = fow(bt)
    first = bt.do(bid, "fow.shoot", SHOT, by="A")
    for _ in range(5):  # asking again and again: the roll stays
        bt.undo(bid, by="A")
        with pytest.raises(UsageError):
            bt.answer_undo(bid, True, by="A")
    assert bt.show(bid)["counter"] == first["seq"]
    seen = set()
    for params in ({}, {"dice": 6}, {"dice": 6, "target_skill": "veteran"}):
        bt.undo(bid, by="A")
        bt.answer_undo(bid, True, by="B")
        again = bt.do(bid, "fow.shoot", {**SHOT, **params}, by="A")
        seen.add(tuple(again["dice"]))
    assert seen == {tuple(first["dice"])}
    # fewer dice: the same stream, so the first three of the six
    bt.undo(bid, by="A")
    bt.answer_undo(bid, True, by="B")
    three = bt.do(bid, "fow.shoot", {**SHOT, "dice": 3}, by="A")
    assert three["dice"][:3] == first["dice"][:3]
    assert bt.verify(bid).ok


# -- over HTTP ------------------------------------------------------------------------------

from tests.battle.test_web_api import battle, client  # noqa: E402, F401


def test_writes_to_an_ended_battle_are_409_on_the_api_and_pages(
        client: Any, battle: dict[str, Any]) -> None:  # noqa: F811
    bid, ka, kb = battle["id"], battle["keys"]["A"], battle["keys"]["B"]
    client.post(f"/api/v1/battles/{bid}/end?key={ka}")
    assert client.post(f"/api/v1/battles/{bid}/end?key={kb}").json()["kind"] == "ended"
    r = client.post(f"/api/v1/battles/{bid}/units?key={ka}",
                    json={"side": "A", "name": "late", "stats": {"dice": 3}})
    assert r.status_code == 409 and r.json()["error"]["code"] == "ended"
    r = client.post(f"/api/v1/battles/{bid}/do?key={ka}", json={
        "procedure": "fow.shoot", "params": SHOT, "dice": "6,6,6,6,6"})
    assert r.status_code == 409 and r.json()["error"]["code"] == "ended"
    page = client.post(f"/battles/{bid}/{ka}/mark", data={"unit": "Shermans",
                                                          "marker": "pinned"})
    assert "read-only" in page.text
    assert client.get(f"/api/v1/battles/{bid}/verify?key={ka}").json()["ok"] is True


def test_a_read_only_import_says_so_on_every_page(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from warroom.web.app import create_app

    data = json.loads((Path(__file__).parent / "data" / "export_v1.json").read_text())
    data["battle"]["id"] = "c0ffee01"
    with TestClient(create_app(tmp_path / "real.db")) as real:  # the real games
        made = real.post("/api/v1/battles/import", json=data).json()
        pages = [real.get(link).text for link in made["links"].values()]
    assert made["id"] != "c0ffee01" and made["origin"] == "read-only"
    assert len(pages) == 3
    for page in pages:
        assert 'id="read-only"' in page and "fingerprint was published" not in page


# -- 3. text that is not valid Unicode on the command line and in imports --------------------

def test_the_cli_refuses_arguments_and_files_that_are_not_valid_text(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from warroom.cli import main

    db = str(tmp_path / "cli.db")
    # bytes that are not UTF-8 (b"\xed\xa0\x80") reach Python as lone surrogates
    name = b"\xed\xa0\x80".decode("utf-8", "surrogateescape")
    assert main(["battle", "new", "fow", "--name", name, "--db", db]) == 2
    assert "argument[4]" in capsys.readouterr().err
    file = tmp_path / "bad.json"
    file.write_text('{"format": "warroom-battle", "version": 2, "battle": {"id": "a", '
                    '"game": "fow", "name": "\\ud800", "created": "x"}, "events": []}')
    assert main(["battle", "import", str(file), "--db", db]) == 2
    assert "battle.name: the text is not valid Unicode" in capsys.readouterr().err
