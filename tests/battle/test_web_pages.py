"""The battle page's own routes: the edit-a-unit form (the API's ``edit`` behind a plain
form: redirect after POST, errors on the page with a 422, never a 500) and the battle
section the page swaps in when the other device changes the battle."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest

from tests.battle import test_web_api
from warroom.web.battles import stat_changes

client = test_web_api.client  # an app on a temporary database, with the fake games
battle = test_web_api.battle  # fow battle 'Web': Shermans (A, dice=5), Grenadiers (B)


def _units(client: Any, bid: str, key: str) -> dict[str, dict[str, Any]]:
    shown = client.get(f"/api/battles/{bid}?key={key}").json()
    return {u["name"]: u for u in shown["units"]}


def _log(client: Any, bid: str, key: str) -> list[dict[str, Any]]:
    return list(client.get(f"/api/battles/{bid}/log?key={key}").json())


def test_the_page_offers_an_edit_form_for_your_own_units_only(
        client: Any, battle: dict[str, Any]) -> None:
    bid, ka, kb, view = (battle["id"], battle["keys"]["A"], battle["keys"]["B"],
                         battle["keys"]["view"])
    page_a = client.get(f"/battles/{bid}/{ka}").text
    assert 'data-edit="Shermans"' in page_a and 'data-edit="Grenadiers"' not in page_a
    assert f'action="/battles/{bid}/{ka}/edit"' in page_a
    assert 'name="s.dice" value="5"' in page_a
    assert 'name="expect" value="3"' in page_a
    page_b = client.get(f"/battles/{bid}/{kb}").text
    assert 'data-edit="Grenadiers"' in page_b and 'data-edit="Shermans"' not in page_b
    spectator = client.get(f"/battles/{bid}/{view}").text
    assert "data-edit=" not in spectator and "/edit" not in spectator
    pl = client.get(f"/battles/{bid}/{ka}?lang=pl").text
    assert "Zmień jednostkę" in pl and "Zapisz" in pl
    zh = client.get(f"/battles/{bid}/{ka}?lang=zh").text
    assert "修改部队" in zh and "保存" in zh


def test_editing_a_unit_from_the_page(client: Any, battle: dict[str, Any]) -> None:
    bid, ka = battle["id"], battle["keys"]["A"]
    base = f"/battles/{bid}/{ka}"
    r = client.post(f"{base}/edit", data={"unit": "Shermans", "s.dice": "4",
                                          "new_stat": "skill", "new_value": "veteran",
                                          "expect": "3"}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == base
    assert _units(client, bid, ka)["Shermans"]["stats"] == {"dice": 4, "skill": "veteran"}
    event = _log(client, bid, ka)[-1]
    assert event["kind"] == "unit_edited" and event["by"] == "A"
    assert event["stats"] == {"dice": 4, "skill": "veteran"}  # the same event as the API's
    page = client.get(base).text
    assert 'name="s.skill" value="veteran"' in page and "Shermans: dice=4 skill=veteran" in page
    # an emptied value removes that stat; unchanged fields are left out of the event
    r = client.post(f"{base}/edit", data={"unit": "Shermans", "s.dice": "4", "s.skill": "",
                                          "expect": "4"}, follow_redirects=False)
    assert r.status_code == 303
    assert _units(client, bid, ka)["Shermans"]["stats"] == {"dice": 4}
    assert _log(client, bid, ka)[-1]["stats"] == {"skill": None}
    # without a counter (an old form) the edit still goes through
    r = client.post(f"{base}/edit", data={"unit": "shermans", "s.dice": "3"},
                    follow_redirects=False)
    assert r.status_code == 303 and _units(client, bid, ka)["Shermans"]["stats"] == {"dice": 3}


def test_the_spectator_link_cannot_edit(client: Any, battle: dict[str, Any]) -> None:
    bid, view = battle["id"], battle["keys"]["view"]
    before = _log(client, bid, view)
    r = client.post(f"/battles/{bid}/{view}/edit", data={"unit": "Shermans", "s.dice": "1",
                                                         "expect": "3"},
                    headers={"Accept": "text/html"})
    assert r.status_code == 403 and "spectator link can only watch" in r.text
    r = client.post(f"/battles/{bid}/{view}x/edit", data={"unit": "Shermans", "s.dice": "1"})
    assert r.status_code == 404
    assert _log(client, bid, view) == before


def _stale_edit(client: Any, battle: dict[str, Any]) -> tuple[Any, list[Any]]:
    """A's other phone marks the Shermans after A's page was drawn at state 3; then A
    edits them from that page. Returns A's answer and the log as it was before."""
    bid, ka = battle["id"], battle["keys"]["A"]
    assert client.post(f"/battles/{bid}/{ka}/mark", data={
        "unit": "Shermans", "marker": "pinned", "expect": "3"},
        follow_redirects=False).status_code == 303
    before = _log(client, bid, ka)
    r = client.post(f"/battles/{bid}/{ka}/edit", data={"unit": "Shermans", "s.dice": "6",
                                                       "expect": "3"})
    return r, before


def test_a_stale_edit_is_refused(client: Any, battle: dict[str, Any]) -> None:
    bid, ka = battle["id"], battle["keys"]["A"]
    r, before = _stale_edit(client, battle)
    assert r.status_code == 409 and 'id="battle-error"' in r.text
    assert "since state 3 (it is now at 4) in what this action reads: Shermans" in r.text
    assert "#4 side A: Shermans: pinned" in r.text  # what changed, as the log says it
    assert _log(client, bid, ka) == before
    assert _units(client, bid, ka)["Shermans"]["stats"] == {"dice": 5}


def test_an_edit_after_a_change_elsewhere_is_recorded(client: Any,
                                                      battle: dict[str, Any]) -> None:
    bid, ka, kb = battle["id"], battle["keys"]["A"], battle["keys"]["B"]
    assert client.post(f"/battles/{bid}/{kb}/mark", data={
        "unit": "Grenadiers", "marker": "pinned", "expect": "3"},
        follow_redirects=False).status_code == 303
    r = client.post(f"/battles/{bid}/{ka}/edit", data={"unit": "Shermans", "s.dice": "6",
                                                       "expect": "3"}, follow_redirects=False)
    assert r.status_code == 303
    assert _units(client, bid, ka)["Shermans"]["stats"] == {"dice": 6}
    assert _log(client, bid, ka)[-1]["seen"] == 3



def test_a_stale_write_on_a_polish_page_is_refused_in_polish(
        client: Any, battle: dict[str, Any]) -> None:
    bid, ka = battle["id"], battle["keys"]["A"]
    assert "Zmień jednostkę" in client.get(f"/battles/{bid}/{ka}?lang=pl").text  # the cookie
    r, before = _stale_edit(client, battle)
    assert r.status_code == 409 and 'id="battle-error"' in r.text
    page = html.unescape(r.text)
    assert ("bitwa zmieniła się od stanu 3 (teraz jest 4) w tym, na czym opiera się ta "
            "czynność: Shermans; nic nie zapisano: sprawdź zmianę i spróbuj ponownie") in page
    assert "#4 strona A: Shermans: przygnieciony" in page
    assert "since state" not in page
    r = client.post(f"/battles/{bid}/{ka}/next?lang=zh", data={"expect": "9"})
    assert r.status_code == 409
    assert "战斗已被修改：你看到的是状态 9，现在已是 4" in html.unescape(r.text)
    assert _log(client, bid, ka) == before

EDIT_ERRORS = [
    ({"unit": "Shermans", "s.dice": "5"}, "nothing to change"),
    ({"unit": "Shermans", "new_stat": "2 guns", "new_value": "1"},
     "stat name &#39;2 guns&#39; must be a word"),
    ({"unit": "Shermans", "new_stat": "skill"}, "the new stat &#39;skill&#39; needs a value"),
    ({"unit": "Shermans", "s.dice": "x" * 201}, "too long"),
    ({"unit": "Shermans", "s.dice": "4", "new_stat": "dice", "new_value": "6"},
     "given twice"),
    ({"unit": "Grenadiers", "s.teams": "1"}, "your link acts for side A"),
    ({"unit": "Nobody", "s.dice": "1"}, "unknown unit"),
    ({"s.dice": "1"}, "&#39;unit&#39; is required"),
]


@pytest.mark.parametrize(("data", "message"), EDIT_ERRORS, ids=[m for _d, m in EDIT_ERRORS])
def test_a_bad_edit_is_a_clear_422_and_changes_nothing(
        client: Any, battle: dict[str, Any], data: dict[str, str], message: str) -> None:
    bid, ka = battle["id"], battle["keys"]["A"]
    before = _log(client, bid, ka)
    r = client.post(f"/battles/{bid}/{ka}/edit", data={**data, "expect": "3"},
                    headers={"Accept": "text/html"})
    assert r.status_code == (403 if "your link" in message else 422), r.text
    assert message in r.text
    assert _log(client, bid, ka) == before


def test_stat_changes() -> None:
    now = {"dice": 5, "skill": "trained"}
    assert stat_changes(now, {"s.dice": " 5 ", "s.skill": "veteran", "other": "x"}) == {
        "skill": "veteran"}
    assert stat_changes(now, {"s.dice": ""}, "at", "3") == {"dice": "", "at": "3"}
    assert stat_changes(now, {"s.gone": "2"}) == {"gone": "2"}  # a stat removed meanwhile
    assert stat_changes(now, {"s.dice": "6"}, "dice", "6") == {"dice": "6"}


def test_the_section_the_page_swaps_in(client: Any, battle: dict[str, Any]) -> None:
    bid, ka, view = battle["id"], battle["keys"]["A"], battle["keys"]["view"]
    base = f"/battles/{bid}/{ka}"
    page = client.get(base).text
    assert f'data-poll="{base}/counter"' in page and f'data-section="{base}/section"' in page
    assert 'id="changed"' in page and 'id="refresh"' in page
    r = client.get(f"{base}/section")
    assert r.status_code == 200 and r.headers["cache-control"] == "no-store"
    section = r.text
    assert "<html" not in section and 'id="changed"' not in section
    assert 'data-counter="3"' in section and 'id="units"' in section
    # the section is the page's battle content, as drawn now
    inner = re.search(r'<div id="battle"[^>]*>(.*)</div>\s*</main>', page, re.S)
    assert inner is not None and inner.group(1).strip() == section.strip()
    client.post(f"{base}/next", data={"expect": "3"})
    assert 'data-counter="4"' in client.get(f"{base}/section").text
    assert client.get(f"{base}/counter").headers["cache-control"] == "no-store"
    assert "data-edit=" not in client.get(f"/battles/{bid}/{view}/section").text
    assert client.get(f"/battles/{bid}/nope/section").status_code == 404
