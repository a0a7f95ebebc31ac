"""The phone-at-the-table parts of the pages, without a browser: cumulative views,
the odds summary, the installable app's files, HTML error pages, input keypads."""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

from warroom.engine.results import Distribution
from warroom.web.charts import bar_chart, short_pct, views


def test_counts_have_at_least_and_at_most() -> None:
    # two dice at 4+: no success 1/4, one 1/2, two 1/4 (weights 1, 2, 1 of 4)
    dist = Distribution("demo.pool", {}, ("successes",), {(0,): 1, (1,): 2, (2,): 1}, 4)
    (fv,) = views(dist)
    assert fv.numeric and fv.cumulative and not fv.ordered
    assert [r.at_least for r in fv.rows] == [1, Fraction(3, 4), Fraction(1, 4)]
    assert [r.at_most for r in fv.rows] == [Fraction(1, 4), Fraction(3, 4), 1]
    # the phone's bar: at least one success, 3/4
    assert fv.summary == [("at least", 1, Fraction(3, 4))]


def test_ordered_results_read_from_the_most_severe() -> None:
    # an IFT-like result listed KIA, MC, '-' with chances 1/6, 2/6, 3/6:
    # at least MC = KIA or MC = 1/2; at most MC = MC or '-' = 5/6
    orders = ({"KIA": 0, "MC": 1, "-": 2},)
    dist = Distribution("x", {}, ("result",), {("-",): 3, ("KIA",): 1, ("MC",): 2}, 6, orders)
    (fv,) = views(dist)
    assert fv.ordered and fv.cumulative and not fv.numeric
    assert [r.value for r in fv.rows] == ["KIA", "MC", "-"]
    assert [r.at_least for r in fv.rows] == [Fraction(1, 6), Fraction(1, 2), 1]
    assert [r.at_most for r in fv.rows] == [1, Fraction(5, 6), Fraction(1, 2)]
    # the two likeliest results for the bar
    assert fv.summary == [("", "-", Fraction(1, 2)), ("", "MC", Fraction(1, 3))]


def test_bars_carry_their_chance() -> None:
    dist = Distribution("demo.pool", {}, ("successes",), {(0,): 1, (1,): 2, (2,): 1}, 4)
    svg = str(bar_chart(views(dist)[0].rows, "successes"))
    assert re.findall(r'<text class="pct"[^>]*>([^<]*)</text>', svg) == ["25%", "50%", "25%"]
    assert [short_pct(Fraction(1, 36)), short_pct(Fraction(1, 1000)), short_pct(0)] == [
        "2.8%", "<1%", "0"]


def test_the_page_has_the_odds_bar_and_a_table_with_at_most(client: Any) -> None:
    html = client.get("/p/demo.pool", params={"dice": "2", "_sent": "1"}).text
    bar = re.search(r'<div id="odds-bar".*?</div>', html, re.S)
    assert bar is not None and "at least 1: <strong>75.00%</strong>" in bar.group(0)
    assert "<th>at most</th>" in html and 'class="at-most">25.00%' in html
    # the roll's own queue: Roll does not cancel the odds request
    assert re.search(r'id="roll-button"[^>]*hx-sync="this:replace"', html)
    # typing in a number or text field updates the odds (debounced)
    assert "from:.live" in html and 'name="dice"' in html


def test_a_negative_field_gets_no_numeric_keypad(client: Any) -> None:
    html = client.get("/p/asl.ift").text
    for name in ("drm", "leader_drm"):
        tag = re.search(rf'<input type="number" name="{name}"[^>]*>', html)
        assert tag is not None and "inputmode" not in tag.group(0) and 'min="-' in tag.group(0)
    fp = re.search(r'<input[^>]*name="gun_mm"[^>]*>', html)
    assert fp is not None and 'inputmode="numeric"' in fp.group(0)


def test_the_target_line_reads_as_a_sentence(client: Any) -> None:
    # fow.shoot with a veteran concealed target: "target number 5+: 4 target is veteran,
    # +1 concealed" (no space before the colon or the comma)
    form = {"target_skill": "veteran", "concealed": "true", "_sent": "1", "_seed": "3"}
    html = client.post("/p/fow.shoot/roll", data=form, headers={"hx-request": "true"}).text
    lines = [re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", m)).strip()
             for m in re.findall(r'<div class="target">(.*?)</div>', html, re.S)]
    assert any(re.fullmatch(r"target number \d\+: \d [^,]+, \+1 [^,]+", t) for t in lines), lines
    assert not any(" :" in t or " ," in t for t in lines), lines


def test_installable_files(client: Any) -> None:
    manifest = client.get("/static/manifest.webmanifest").json()
    assert manifest["display"] == "standalone"
    for icon in manifest["icons"]:
        assert client.get(icon["src"]).status_code == 200
    assert client.get("/favicon.ico").content[:4] == b"\0\0\1\0"
    sw = client.get("/sw.js")
    assert sw.status_code == 200 and "__VERSION__" not in sw.text and "caches" in sw.text
    html = client.get("/").text
    for link in ('rel="manifest"', 'rel="apple-touch-icon"', 'rel="icon"'):
        assert link in html
    assert "No internet needed" in html and "Works offline" not in html
    assert "Nie potrzeba" in client.get("/?lang=pl").text or "Internet nie jest" in client.get(
        "/?lang=pl").text


def test_error_pages_are_pages_for_people_and_json_for_scripts(client: Any) -> None:
    html = {"accept": "text/html"}
    for path in ("/p/nope", "/compare/nope", "/nope", "/battles/nope"):
        r = client.get(path, params={"lang": "pl"}, headers=html)
        assert r.status_code in (404, 422), path
        assert "<html" in r.text and '<a href="/">' in r.text and '"detail"' not in r.text
        assert 'lang="pl"' in r.text
    r = client.get("/nope", params={"lang": "zh"}, headers=html)
    assert "此地址没有页面" in r.text
    r = client.get("/api/v1/nope", headers=html)
    assert r.status_code == 404 and r.json() == {
        "error": {"code": "not_found", "message": "Not Found", "parameter": None}}


def test_home_page_finds_rules_and_links_to_battles(client: Any) -> None:
    html = client.get("/").text
    assert 'id="rule-search"' in html and 'href="/battles"' in html
    assert re.search(r'<li data-search="[^"]*fow\.shoot[^"]*">', html)
    # the special rules picker on a Flames of War page can be filtered
    assert 'class="picker-filter"' in client.get("/p/fow.shoot").text


def test_a_state_per_unit_reads_in_the_language() -> None:
    from warroom import i18n
    from warroom.web.charts import fmt_value

    pl = i18n.translator("pl")
    # the units named as the steps name them (drużyna 1), their states translated
    assert fmt_value("squad1=broken,leader1=wounded+broken", pl) == (
        "drużyna 1=rozbity, dowódca 1=ranny+rozbity")
    assert fmt_value("squad1=broken", None) == "squad1=broken"
    assert fmt_value(True, pl) == "tak" and fmt_value("none", pl) == "brak"
