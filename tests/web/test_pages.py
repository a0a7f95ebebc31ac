"""The HTML pages without a browser: generated forms, odds, rolls, compare, languages."""

from __future__ import annotations

import re
from typing import Any

import pytest

from warroom import api
from warroom.engine.params import normalized
from warroom.serving import cache_key
from warroom.web import lang as langs
from warroom.web.charts import Row, bar_chart, trim
from warroom.web.pages import raw_params


def test_index_lists_every_registered_procedure(client: Any) -> None:
    r = client.get("/")
    assert r.status_code == 200
    for proc in api.registry().procedures():
        assert f'href="/p/{proc.id}"' in r.text


def test_procedure_form_is_generated_from_the_schema(client: Any) -> None:
    r = client.get("/p/demo.pool", headers={"accept-language": "en"})
    assert r.status_code == 200
    html = r.text
    assert re.search(r'<input type="number" name="dice" value="6" step="1"[^>]*min="0"[^>]*'
                     r'max="200"', html)
    assert '<select name="reroll">' in html
    assert '<option value="none" selected>' in html
    assert 'value="misses"' in html and 'value="hits"' in html
    # the odds of the defaults are on the page, with exact fractions on hover
    assert 'title="1/64" data-exact="1/64"' in html
    assert "<svg" in html and "<title>6: 1.56% = 1/64</title>" in html


def test_odds_panel_follows_the_form(client: Any) -> None:
    r = client.get("/p/demo.pool/odds", params={"dice": "2", "at": "4", "_sent": "1"})
    assert r.status_code == 200
    assert r.text.strip().startswith('<section id="odds"')
    cells = re.findall(r'<td title="[0-9/]+" data-exact="([0-9/]+)"', r.text)
    assert cells[:2] == ["1/4", "1/1"]  # P(0 successes) exactly, P(at least 0)
    assert "1/2" in cells
    assert "<html" not in r.text


def test_bad_form_value_shows_the_message_not_a_500(client: Any) -> None:
    r = client.get("/p/demo.pool/odds", params={"dice": "lots", "_sent": "1"})
    assert r.status_code == 200
    assert 'class="error"' in r.text and "&#39;dice&#39;" in r.text
    r = client.get("/p/demo.pool", params={"at": "12", "_sent": "1"})
    assert r.status_code == 200 and "&#39;at&#39;" in r.text
    r = client.get("/p/demo.nothing", headers={"accept": "text/html"})
    assert r.status_code == 422 and "unknown procedure" in r.text and "<html" in r.text


def test_roll_with_typed_dice_full_page_and_partial(client: Any) -> None:
    form = {"dice": "3", "at": "4", "reroll": "none", "_sent": "1", "_dice": "3 5 6"}
    r = client.post("/p/demo.pool/roll", data=form)
    assert r.status_code == 200 and "<html" in r.text
    assert 'class="outcome-successes">2<' in r.text
    assert '<span class="die hit">5</span>' in r.text
    r = client.post("/p/demo.pool/roll", data=form, headers={"hx-request": "true"})
    assert r.text.strip().startswith('<section id="roll"')
    assert 'class="outcome-successes">2<' in r.text


def test_text_fields_suggest_their_examples(client: Any) -> None:
    # the written formats (a platoon's teams, a stack's units) offer every example of
    # the schema as a suggestion to pick and edit
    html = client.get("/p/fow.shoot_mixed").text
    assert 'name="teams"' in html and 'list="examples-teams"' in html
    box = re.search(r'<datalist id="examples-teams">(.*?)</datalist>', html)
    assert box is not None
    assert re.findall(r'<option value="([^"]*)">', box.group(1)) == list(
        api.registry().procedure("fow.shoot_mixed").params.model_fields["teams"].examples or [])
    assert 'value="tank:6:gt,tank:5/3,infantry"' in box.group(1)


def test_a_target_any_roll_meets_reads_1_plus(client: Any) -> None:
    form = {"target": "tank", "armour": "12", "at": "10", "dice": "1", "_sent": "1",
            "_dice": "6 3"}
    r = client.post("/p/fow.shoot/roll", data=form, headers={"hx-request": "true"})
    assert r.status_code == 200
    targets = re.findall(r'class="target">[^<]*<strong>([^<]*)</strong>', r.text)
    assert targets == ["1+"]
    # the to-hit step already says "needing 3+": its line gives only the reason
    assert "needing 3+" in r.text and '<div class="target">target is trained</div>' in r.text


def test_roll_errors_are_shown(client: Any) -> None:
    r = client.post("/p/demo.pool/roll", data={"dice": "3", "_sent": "1", "_dice": "3 5"},
                    headers={"hx-request": "true"})
    assert r.status_code == 200 and "not enough dice" in r.text
    r = client.post("/p/demo.pool/roll", data={"_sent": "1", "_seed": "abc"},
                    headers={"hx-request": "true"})
    assert "seed" in r.text and 'class="error"' in r.text


def test_roll_with_seed_is_repeatable(client: Any) -> None:
    form = {"dice": "5", "_sent": "1", "_seed": "42"}
    a = client.post("/p/demo.pool/roll", data=form, headers={"hx-request": "true"}).text
    b = client.post("/p/demo.pool/roll", data=form, headers={"hx-request": "true"}).text
    assert a == b and "42" in a


def test_compare_side_by_side(client: Any) -> None:
    r = client.get("/compare/demo.pool", params={
        "n": "2", "s0._sent": "1", "s0._name": "fire now", "s0.dice": "4",
        "s1._sent": "1", "s1._name": "wait", "s1.dice": "8"})
    assert r.status_code == 200
    assert "fire now" in r.text and "wait" in r.text
    # at least 1 success: 15/16 with four dice, 255/256 with eight
    assert 'title="15/16"' in r.text and 'title="255/256"' in r.text
    r = client.get("/compare/demo.pool", params={"n": "2", "add": "1"})
    assert r.text.count('class="card set"') == 3
    r = client.get("/compare/demo.pool/results", params={"n": "9"})
    assert r.text.strip().startswith('<section id="compare-results"')


def test_language_from_query_cookie_and_browser(client: Any) -> None:
    r = client.get("/p/demo.pool", headers={"accept-language": "pl-PL,pl;q=0.9,en;q=0.8"})
    assert '<html lang="pl">' in r.text and "Dokładne szanse" in r.text
    r = client.get("/", params={"lang": "zh"}, headers={"accept-language": "pl"})
    assert '<html lang="zh">' in r.text and "选择规则" in r.text
    assert r.cookies.get(langs.COOKIE) == "zh"
    r = client.get("/p/demo.pool", headers={"accept-language": "pl"})  # cookie wins now
    assert '<html lang="zh">' in r.text and "精确概率" in r.text
    r = client.get("/", params={"lang": "en"})
    assert '<html lang="en">' in r.text and "Pick a rule" in r.text


def test_everything_on_the_procedure_page_is_translated(client: Any) -> None:
    r = client.post("/p/demo.pool/roll?lang=pl", data={"dice": "2", "_sent": "1",
                                                       "_dice": "1 6"})
    html = r.text
    for polish in ("Pula kości", "ile kości się rzuca", "przerzut", "nieudane",
                   "kości: 2 kości, wymagany rzut 4+", "udane: 1", "Co się stało",
                   "Dokładne szanse", "co najmniej"):
        assert polish in html, polish


def test_the_page_says_how_warroom_reads_the_rule(client: Any) -> None:
    # the procedure's note (our readings where the sources leave a choice), folded away
    r = client.get("/p/fow.shoot_mixed", params={"lang": "en"})
    assert '<details class="note"><summary>How warroom reads this rule</summary>' in r.text
    assert "other teams take the rest before tanks" in r.text
    r = client.get("/p/fow.shoot_mixed", params={"lang": "pl"})
    assert "Jak warroom odczytuje tę zasadę" in r.text
    assert "inne sekcje biorą resztę przed czołgami" in r.text
    # a rule without a note has no empty box
    assert '<details class="note">' not in client.get("/p/demo.pool").text


@pytest.mark.parametrize(("header", "expected"), [
    ("", "en"), ("pl", "pl"), ("zh-CN,zh;q=0.9", "zh"), ("fr-FR,pl;q=0.5,zh;q=0.7", "zh"),
    ("de, en;q=0.1", "en"), ("xx;q=abc", "en"), ("pl;q=0", "en")])
def test_accept_language(header: str, expected: str) -> None:
    assert langs.from_accept_language(header) == expected


def test_form_values_to_parameters() -> None:
    from starlette.datastructures import QueryParams

    from warroom.engine.params import ParamSpec

    specs = [ParamSpec("n", "int", 1, False), ParamSpec("flag", "bool", True, False),
             ParamSpec("tags", "list", (), False, ("a", "b")),
             ParamSpec("free", "list", (), False)]
    assert raw_params(specs, QueryParams("")) == {}
    assert raw_params(specs, QueryParams("_sent=1&n=")) == {"flag": False, "tags": [],
                                                             "free": []}
    got = raw_params(specs, QueryParams("_sent=1&n=3&flag=true&tags=a&tags=b&free=x,%20y"))
    assert got == {"n": "3", "flag": True, "tags": ["a", "b"], "free": ["x", "y"]}


def test_chart_trims_rare_tails_and_keeps_fractions() -> None:
    from fractions import Fraction

    rows = [Row(i, Fraction(1, 100)) for i in range(100)]
    assert len(trim(rows, 60)) == 60
    svg = str(bar_chart([Row(0, Fraction(1, 3)), Row(1, Fraction(2, 3))], "x"))
    assert svg.count("<rect") == 2 and "= 2/3</title>" in svg


def test_static_assets_are_vendored(client: Any) -> None:
    for name in ("htmx.min.js", "app.css", "app.js"):
        r = client.get(f"/static/{name}")
        assert r.status_code == 200 and len(r.content) > 500
    assert "htmx" in client.get("/static/htmx.min.js").text
    assert "http" not in client.get("/").text.replace("http-equiv", "")


def test_odds_too_large_to_work_out_are_estimated_and_say_so(client: Any) -> None:
    # three 12-dice weapons with a gun tank declared: refused by the exact driver
    params = {"weapons": "12:10:3,12:2:6,12:7:4", "teams": "tank:6:gt,tank:5/3,soft"}
    r = client.get("/p/fow.shoot_mixed/odds", params={**params, "_sent": "1"},
                   headers={"hx-request": "true"})
    assert r.status_code == 200
    assert "<h2>Estimated odds</h2>" in r.text and "Exact odds</h2>" not in r.text
    found = re.search(r"counted from ([\d,]+) simulated rolls, so each chance may be off by up "
                      r"to about ([0-9.]+) percentage points", r.text)
    assert found is not None, r.text
    n = int(found.group(1).replace(",", ""))
    # the 95% margin at worst (p = 1/2): 1.96 * sqrt(1/4n), in percentage points
    assert found.group(2) == f"{196 * (0.25 / n) ** 0.5:.1f}"
    assert "data-exact" not in r.text and "exact fraction" not in r.text  # no false "exact"
    # no exact odds to wait for; the panel asks again for the finer count (0.1 points)
    assert "A finer count, to about 0.1 points, is under way" in " ".join(r.text.split())
    assert 'hx-trigger="load"' in r.text.split(">")[0] and "_wait=1" in r.text.split(">")[0]
    # the counts are those of seeded Monte Carlo (seed 1), as many samples as fitted
    sent = {**params, "main_gun": False}  # a sent form's unchecked box
    key = cache_key("fow.shoot_mixed", normalized(api.prepare("fow.shoot_mixed", sent)[1]))
    est, _seconds = client.app.state.serving.cache.get("estimate", key)
    again = api.simulate("fow.shoot_mixed", sent, samples=n, seed=1)
    assert est.samples == n and dict(est.counts) == dict(again.counts)
    # in Polish too
    r = client.get("/p/fow.shoot_mixed/odds", params={**params, "_sent": "1", "lang": "pl"},
                   headers={"hx-request": "true"})
    assert "Szacowane szanse" in r.text


def test_the_summary_shows_the_chances_a_player_decides_on(client: Any) -> None:
    """The compact summary (the sticky bar, and beside Roll on a battle page): the
    headline field, then yes/no results (pinned), then counts (destroyed at least 1),
    three fields at most; a test shows only whether it is passed."""
    import html

    def summary(proc: str, **params: str) -> list[str]:
        page = client.get(f"/p/{proc}", params=params).text
        found = re.search(r'<span class="sum">(.*?)</span>\s*<', page, re.S)
        assert found is not None
        return re.findall(r'<span class="sum-name">([^<]*)</span>',
                          html.unescape(page[found.start():found.start() + 3000]))

    assert summary("fow.shoot", dice="6", target="infantry", teams="4") == [
        "hits", "pinned", "destroyed"]
    assert summary("fow.test") == ["passed"]
