"""Issue 31 items 1 and 3 without a browser: the battle page's Resolve built for the table
(the odds summary beside Roll is the odds panel's own headline, rare fields fold under
"More", every outcome folded) and only what a side may do (Next phase for the side whose
turn it is, Undo for the side that made the latest event, no Resolve form without units
of one's own in action, units out of action neither offered nor accepted)."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest

from tests.battle.test_unit_builders import real
from tests.web import conftest as web_fixtures
from warroom import api
from warroom.battle.errors import OutOfActionError
from warroom.battle.state import Unit
from warroom.web.pages import form_fields
from warroom.web.resolve import fold_rare

client = web_fixtures.client
"""A fresh app in process whose pages wait for exact odds (the web tests' fixture)."""


def new_battle(client: Any, game: str) -> dict[str, str]:
    made = client.post("/api/battles", json={"game": game, "name": "Table"}).json()
    bid, ka, kb = made["id"], made["keys"]["A"], made["keys"]["B"]
    return {"id": bid, "A": ka, "B": kb, "a": f"/battles/{bid}/{ka}",
            "b": f"/battles/{bid}/{kb}"}


def add(client: Any, b: dict[str, str], side: str, name: str, ref: str) -> None:
    r = client.post(f"/api/battles/{b['id']}/units?key={b[side]}",
                    json={"side": side, "name": name, "from": ref})
    assert r.status_code == 200, r.text


def mark(client: Any, b: dict[str, str], side: str, unit: str, marker: str,
         value: str | int | None = None) -> None:
    r = client.post(f"/api/battles/{b['id']}/mark?key={b[side]}",
                    json={"unit": unit, "marker": marker, "value": value})
    assert r.status_code == 200, r.text


def options(page: str, select: str) -> list[str]:
    found = re.search(rf'<select name="{select}" id="do-{select}"[^>]*>(.*?)</select>', page,
                      re.S)
    assert found is not None, select
    return [v for v in re.findall(r'<option value="([^"]*)"', found.group(1)) if v]


def text(r: Any) -> str:
    assert r.status_code == 200, r.text
    return html.unescape(r.text)


# ------------------------------------------------------------------ out of action
def test_a_unit_is_out_of_action_when_eliminated_or_every_team_is_destroyed() -> None:
    assert Unit("Tanks", "A", markers={"eliminated": True}).out_of_action
    assert Unit("Panthers", "B", {"teams": 2}, {"destroyed": 2}).out_of_action
    assert not Unit("Panthers", "B", {"teams": 2}, {"destroyed": 1}).out_of_action
    # no teams known: only the marker says so
    assert not Unit("Guards", "B", {"dice": 3}, {"destroyed": 4}).out_of_action
    assert not Unit("Guards", "B", {"dice": 3}).out_of_action


def test_the_battle_refuses_a_unit_out_of_action(db: str) -> None:
    bt = real(db)
    bid = bt.new("bkc", "Gone")["id"]
    bt.add_unit(bid, "A", "Tanks", profile="example:bkc:Tanks")
    bt.add_unit(bid, "B", "Infantry", profile="example:bkc:Infantry")
    bt.mark(bid, "Infantry", "eliminated")
    counter = bt.row(bid)["counter"]
    # an eliminated BKC unit cannot be assaulted, nor fire
    with pytest.raises(OutOfActionError) as refused:
        bt.do(bid, "bkc.assault", {"unit": "Tanks", "target": "Infantry"}, by="A")
    assert refused.value.code == "out_of_action" and "Infantry" in str(refused.value)
    with pytest.raises(OutOfActionError):
        bt.do(bid, "bkc.fire", {"unit": "Infantry", "target": "Tanks"}, by="B")
    with pytest.raises(OutOfActionError):  # nor are its odds worked out
        bt.prepare(bid, "bkc.assault", {"unit": "Tanks", "target": "Infantry"}, by="A")
    assert bt.row(bid)["counter"] == counter  # nothing recorded
    # clearing the marker (a mistake) brings it back
    bt.mark(bid, "Infantry", "eliminated", "no")
    assert bt.do(bid, "bkc.assault", {"unit": "Tanks", "target": "Infantry"},
                 by="A")["kind"] == "resolved"


def test_a_fow_platoon_whose_teams_are_all_destroyed_is_no_target(db: str) -> None:
    bt = real(db)
    bid = bt.new("fow", "Gone")["id"]
    bt.add_unit(bid, "A", "Shermans", profile="example:fow:Shermans")
    bt.add_unit(bid, "B", "Panthers", profile="example:fow:Panthers")  # 2 tanks
    bt.mark(bid, "Panthers", "destroyed", "2")
    with pytest.raises(OutOfActionError):
        bt.do(bid, "fow.shoot", {"unit": "Shermans", "target": "Panthers"}, by="A")


def test_units_out_of_action_are_not_offered_also_after_a_partial_refresh(
        client: Any) -> None:
    b = new_battle(client, "bkc")
    add(client, b, "A", "Tanks", "example:bkc:Tanks")
    add(client, b, "A", "HQ", "example:bkc:HQ")
    add(client, b, "B", "Infantry", "example:bkc:Infantry")
    add(client, b, "B", "AT gun", "example:bkc:AT gun")
    page = text(client.get(b["a"]))
    assert options(page, "target") == ["Infantry", "AT gun"]
    mark(client, b, "B", "Infantry", "eliminated")
    mark(client, b, "A", "HQ", "eliminated")
    # the API refuses it with its code (422), and records nothing
    shown = client.get(f"/api/battles/{b['id']}?key={b['A']}").json()["counter"]
    r = client.post(f"/api/v1/battles/{b['id']}/do?key={b['A']}", json={
        "procedure": "bkc.assault", "params": {"unit": "Tanks", "target": "Infantry"}})
    assert r.status_code == 422 and r.json()["error"]["code"] == "out_of_action", r.text
    assert client.get(f"/api/battles/{b['id']}?key={b['A']}").json()["counter"] == shown
    for address in (b["a"], b["a"] + "/section", b["a"] + "/resolve"):
        page = text(client.get(address, headers={"hx-request": "true"}))
        assert options(page, "target") == ["AT gun"], address
        assert options(page, "unit") == ["Tanks"], address
    # a form that still names the eliminated unit (drawn before) drops it
    page = text(client.get(b["a"] + "/resolve", params={"unit": "Tanks",
                                                        "target": "Infantry"},
                           headers={"hx-request": "true"}))
    assert not re.search(r'<option value="Infantry"', page)


# ------------------------------------------------------------------ only what you may do
def test_an_empty_battle_asks_for_units_and_has_no_resolve_form(client: Any) -> None:
    b = new_battle(client, "fow")
    for link in (b["a"], b["b"]):
        page = text(client.get(link))
        assert 'id="do-form"' not in page and 'id="resolve-none"' in page
        assert "Add your units first" in page
    # side A's units do not give side B a form: B has none of its own
    add(client, b, "A", "Shermans", "example:fow:Shermans")
    assert 'id="do-form"' in text(client.get(b["a"]))
    assert 'id="do-form"' not in text(client.get(b["b"]))
    # all of a side's units out of action: nothing to resolve, and it says why
    mark(client, b, "A", "Shermans", "eliminated")
    page = text(client.get(b["a"]))
    assert 'id="do-form"' not in page and "None of your units is in action" in page
    # in Polish and Chinese too
    for lang, words in (("pl", "Żadna z twoich jednostek"), ("zh", "你方没有")):
        assert words in text(client.get(b["a"], params={"lang": lang}))


def test_next_phase_and_undo_only_for_the_side_that_may(client: Any) -> None:
    b = new_battle(client, "fow")
    add(client, b, "A", "Shermans", "example:fow:Shermans")
    a_page, b_page = text(client.get(b["a"])), text(client.get(b["b"]))
    # side A's turn: only A moves the phases on; only A made the latest event
    assert 'id="next-phase"' in a_page and 'id="their-turn"' not in a_page
    assert 'id="next-phase"' not in b_page and 'id="their-turn"' in b_page
    assert "Side A's turn" in b_page
    assert 'id="undo"' in a_page and 'id="undo"' not in b_page
    # B adds a unit: B's own latest event is B's to undo, no longer A's
    add(client, b, "B", "Panthers", "example:fow:Panthers")
    assert 'id="undo"' in text(client.get(b["b"] + "/section"))
    assert 'id="undo"' not in text(client.get(b["a"] + "/section"))
    # A moves the phases on into B's turn: the buttons change hands
    for _ in range(8):
        if client.get(f"/api/battles/{b['id']}?key={b['A']}").json()["side"] == "B":
            break
        assert client.post(f"/api/battles/{b['id']}/next?key={b['A']}").status_code == 200
    a_page, b_page = text(client.get(b["a"])), text(client.get(b["b"]))
    assert 'id="next-phase"' in b_page and 'id="next-phase"' not in a_page
    assert 'id="undo"' in a_page and 'id="undo"' not in b_page  # A's phase change


def test_the_latest_live_event_is_found_past_a_page_of_undos(client: Any) -> None:
    from warroom.web.battles import LOG_PAGE

    b = new_battle(client, "demo")
    ok = client.post(f"/api/battles/{b['id']}/units?key={b['B']}",
                     json={"side": "B", "name": "Guards", "stats": {"dice": 3}})
    assert ok.status_code == 200
    for i in range(LOG_PAGE // 2 + 1):  # A's events, each undone: a page of them
        r = client.post(f"/api/battles/{b['id']}/units?key={b['A']}",
                        json={"side": "A", "name": f"Unit {i}", "stats": {"dice": 3}})
        assert r.status_code == 200
        assert client.post(f"/api/battles/{b['id']}/undo?key={b['A']}").status_code == 200
    # the latest live event is B's unit, beyond the latest page of the log
    assert 'id="undo"' in text(client.get(b["b"]))
    assert 'id="undo"' not in text(client.get(b["a"]))


# ------------------------------------------------------------------ Resolve for the table
SHOT = {"unit": "Shermans", "target": "Panthers", "procedure": "fow.shoot",
        "_for": "fow.shoot|Shermans|Panthers"}


def test_the_summary_beside_roll_is_the_odds_panels_headline(client: Any) -> None:
    b = new_battle(client, "fow")
    add(client, b, "A", "Shermans", "example:fow:Shermans")
    add(client, b, "B", "Panthers", "example:fow:Panthers")
    odds = text(client.get(b["a"] + "/resolve/odds", params=SHOT))
    headline = re.search(r'<template class="odds-summary">(.*?)</template>', odds, re.S)
    assert headline is not None and "at least 1:" in headline.group(1)
    # the table of every outcome is folded: it opens on request
    assert re.search(r'<details class="every-outcome"[^>]*><summary>Every outcome</summary>',
                     odds)
    page = text(client.get(b["a"], params=SHOT))  # the odds are in the cache now
    summary = re.search(r'<p class="odds-summary"[^>]*data-odds-summary>'
                        r'<span class="sum">(.*?)</span>\s*<a class="sum-more"', page, re.S)
    assert summary is not None and summary.group(1) == headline.group(1)
    # the summary sits with the dice field and Roll, after the fields
    side = page.index('id="do-side"')
    assert page.index('id="do-params"') < side < page.index('id="do-dice"') < \
        page.index('id="do-roll"') < page.index('id="odds"')
    # the rule pages keep their table of every outcome open
    assert '<h3>Every outcome</h3>' in text(client.get(
        "/p/fow.shoot", params={"dice": "2", "_sent": "1"}))


def fields_of(page: str, where: str) -> list[str]:
    if where == "more":
        part = re.search(r'<details class="more-fields".*?</details>\s*(?=<p|</div>)', page,
                         re.S)
    else:
        part = re.search(r'<div class="resolve-params" id="do-params">(.*?)'
                         r'(?:<details class="more-fields"|<p class="help filled")', page,
                         re.S)
    assert part is not None, where
    return sorted(set(re.findall(r'name="p\.([a-z_0-9]+)"', part.group(0))))


def test_rare_fields_fold_under_more_but_never_a_changed_one(client: Any) -> None:
    b = new_battle(client, "fow")
    add(client, b, "A", "Shermans", "example:fow:Shermans")
    add(client, b, "B", "Panthers", "example:fow:Panthers")
    page = text(client.get(b["a"], params=SHOT))
    shown, more = fields_of(page, "shown"), fields_of(page, "more")
    filled = re.search(r'name="_filled" value="([^"]*)"', page)
    assert filled is not None
    # what the units filled is in sight; the rest (at its default) is under More
    assert set(filled.group(1).split(",")) <= set(shown)
    assert {"concealed", "range_cm", "moved"} <= set(more)
    assert not set(shown) & set(more)
    # a value typed for a folded field (range 50 cm, not the default 20) is in sight
    page = text(client.get(b["a"], params={**SHOT, "p._sent": "1", "p.range_cm": "50"}))
    assert "range_cm" in fields_of(page, "shown")
    assert "range_cm" not in fields_of(page, "more")


def test_fold_rare_without_units() -> None:
    proc = api.registry().procedure("fow.shoot")
    fields = form_fields(api.param_specs(proc), {"concealed": True}, lambda s: s, "p.")
    shown, more = fold_rare(fields, {})
    names = {f.spec.name for f in shown}
    # nothing filled: numbers and choices stay, switches and lists at their default fold;
    # a switch that is on stays in sight
    assert {"dice", "range_cm", "target_skill", "concealed"} <= names
    assert {f.spec.name for f in more} >= {"gone_to_ground", "moved", "rules"}
    assert all(f.widget in ("checkbox", "checkboxes") for f in more)
    # nothing would be left in sight: nothing folds
    switches = [f for f in fields if f.widget == "checkbox" and f.spec.name != "concealed"]
    assert fold_rare(switches, {}) == (switches, [])
