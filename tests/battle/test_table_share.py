"""Issue 31, items 4 and 5: a battle's links handed out in full with a QR code each, the
game list of real games, log lines a player reads (rule titles, every acting unit, only
the fields that matter) and a luck table that says how unusual each side's totals are
(their percentile in the exact distribution of every total the dice could have given).
"""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from warroom import i18n
from warroom.battle.core import Battles
from warroom.battle.loglines import log_line, result_parts
from warroom.battle.store import open_store
from warroom.engine import sums
from warroom.i18n.formats import fmt_percentile

EN, PL, ZH = (i18n.translator(lang) for lang in ("en", "pl", "zh"))


# -- log lines ---------------------------------------------------------------------------

INFANTRY_SHOT = {"hits": 2, "destroyed": 1, "bailed_out": 0, "pinned": True,
                 "passengers_destroyed": 0, "dismounted": False, "sent_to_rear": False}


def test_a_shot_at_infantry_shows_what_happened_and_nothing_else() -> None:
    assert result_parts(EN, "fow.shoot", {}, INFANTRY_SHOT) == [
        "hits: 2", "destroyed: 1", "pinned"]
    assert result_parts(PL, "fow.shoot", {}, INFANTRY_SHOT) == [
        "trafienia: 2", "zniszczone: 1", "przygnieciony"]
    # a miss still says so: the rule's first field is always shown
    miss = dict.fromkeys(INFANTRY_SHOT, 0) | {"pinned": False}
    assert result_parts(EN, "fow.shoot", {}, miss) == ["hits: 0"]


def test_a_fire_group_names_the_units_it_affected() -> None:
    outcome = {"result": "1MC", "column": 12, "final_dr": 7,
               "units": "squad1=broken,squad2=ok,leader1=wounded+broken",
               "unit1": "broken", "unit2": "ok", "unit3": "wounded+broken", "unit10": "-",
               "eliminated": 0, "broken": 2, "pinned": 0, "sw_broken": 0}
    line = log_line(EN, "asl.fire_group", {}, outcome, ["Squad A", "Squad B"], "Stack")
    assert line.text() == ("Fire group on a stack Squad A + Squad B → Stack: result: 1MC, "
                           "column: 12, final dr: 7, squad1: broken, "
                           "leader1: wounded+broken, broken: 2")
    zh = log_line(ZH, "asl.fire_group", {}, outcome, ["Squad A", "Squad B"], "Stack")
    assert zh.title == "射击组对一叠部队射击" and zh.who == "Squad A + Squad B → Stack"
    assert "班1: 溃散" in zh.result and not any("unit" in p for p in zh.result)


def test_a_stack_nobody_in_which_was_hurt_says_so() -> None:
    outcome = {"units": "squad1=ok,squad2=ok", "eliminated": 0, "broken": 0, "pinned": 0}
    assert result_parts(EN, "asl.ift_on_stack", {}, outcome) == ["no unit affected"]
    assert result_parts(PL, "asl.ift_on_stack", {}, outcome) == [
        "żadna jednostka nie ucierpiała"]


def test_a_rule_no_game_has_keeps_its_id_and_every_field() -> None:
    line = log_line(EN, "old.rule", {}, {"a": 0, "b": 2}, [], "T")
    assert line.text() == "old.rule → T: a: 0, b: 2"


# -- the distribution of a sum -----------------------------------------------------------

def test_the_percentile_of_a_small_sum_worked_by_hand() -> None:
    # two dice at 4+ (successes 0, 1, 2 with 1/4, 1/2, 1/4) and one at 5+ (1 with 1/3):
    # P(S=0) = 1/4*2/3 = 1/6; P(S=1) = 1/4*1/3 + 1/2*2/3 = 5/12;
    # P(S=2) = 1/2*1/3 + 1/4*2/3 = 1/3; P(S=3) = 1/4*1/3 = 1/12
    two, one = ({0: 1, 1: 2, 2: 1}, 4), ({0: 2, 1: 1}, 3)
    chances, exact = sums.sum_chances([two, one])
    assert exact and chances == {0: Fraction(1, 6), 1: Fraction(5, 12),
                                 2: Fraction(1, 3), 3: Fraction(1, 12)}
    # 3 successes: below it 11/12, plus half of 1/12 -> 23/24; 1 success: 1/6 + 5/24
    assert sums.percentile(chances, 3) == Fraction(23, 24)
    assert sums.percentile(chances, 1) == Fraction(3, 8)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.lists(st.integers(0, 5), min_size=1, max_size=4),
                          st.integers(-2, 3)), min_size=1, max_size=6))
def test_the_packed_sum_is_the_plain_convolution(raw: list[tuple[list[int], int]]) -> None:
    parts = []
    for weights, low in raw:
        if not any(weights):
            weights = [*weights[:-1], 1]
        parts.append(({low + i: w for i, w in enumerate(weights) if w}, sum(weights)))
    plain = {0: Fraction(1)}
    for weights, den in parts:
        nxt: dict[int, Fraction] = {}
        for a, p in plain.items():
            for v, w in weights.items():
                nxt[a + v] = nxt.get(a + v, Fraction(0)) + p * Fraction(w, den)
        plain = nxt
    chances, exact = sums.sum_chances(parts)
    assert exact and chances == {v: p for v, p in sorted(plain.items()) if p}
    assert sum(chances.values()) == 1


def test_past_the_exact_size_the_sum_is_worked_in_floats(
        monkeypatch: pytest.MonkeyPatch) -> None:
    shot = ({0: 1, 1: 2, 2: 1}, 4)
    exact, _ = sums.sum_chances([shot] * 30)
    monkeypatch.setattr(sums, "EXACT_BITS", 0)
    rough, is_exact = sums.sum_chances([shot] * 30)
    assert not is_exact and set(rough) == set(exact)
    assert all(abs(float(exact[v]) - rough[v]) < 1e-12 for v in exact)
    # binomial(60, 1/2): 30 successes sits in the middle
    assert abs(float(sums.percentile(rough, 30)) - 0.5) < 1e-12


def test_percentiles_read_as_numbers_from_0_to_100() -> None:
    assert fmt_percentile(Fraction(23, 24)) == "96"
    assert fmt_percentile(0.996) == "99.6" and fmt_percentile(0.004, tr=PL) == "0,4"
    assert fmt_percentile(0.8411, True, 0.0196) == "≈ 84 ± 2"


# -- the luck of a battle ----------------------------------------------------------------

@pytest.fixture
def bt(tmp_path: Path) -> Battles:
    return Battles(open_store(str(tmp_path / "luck.db")))


def test_a_sides_luck_is_the_percentile_of_its_totals(bt: Battles) -> None:
    made = bt.new("demo", "Luck")
    bid = made["id"]
    bt.add_unit(bid, "A", "Tigers", {"dice": 2})
    bt.add_unit(bid, "B", "Scouts", {"dice": 1})
    bt.do(bid, "demo.pool", {"unit": "Tigers", "dice": 2, "at": 4}, dice=[4, 5], by="A")
    bt.do(bid, "demo.pool", {"unit": "Tigers", "dice": 1, "at": 5}, dice=[6], by="A")
    bt.do(bid, "demo.pool", {"unit": "Tigers", "dice": 1, "at": 4}, dice=[6], by="A")
    assert bt.luck_report(bid)["sides"]["A"]["fields"]["successes"]["actual"] == 4
    bt.undo(bid, by="A")  # an undone roll leaves the totals and the percentile
    report = bt.luck_report(bid)
    f = report["sides"]["A"]["fields"]["successes"]
    # the worked case above: 3 successes of 2 dice at 4+ and one at 5+ -> 23/24;
    # expected 2 * 1/2 + 1/3 = 4/3
    assert (f["actual"], f["expected_exact"]) == (3, "4/3")
    assert (f["percentile_exact"], f["estimate"], f["spread"]) == ("23/24", False, True)
    assert report["sides"]["B"] == {"rolls": 0, "fields": {}}


def test_a_roll_the_dice_cannot_change_has_no_spread(bt: Battles) -> None:
    bid = bt.new("demo", "Sure")["id"]
    bt.add_unit(bid, "A", "Tigers", {"dice": 2})
    bt.do(bid, "demo.pool", {"unit": "Tigers", "dice": 2, "at": 1}, dice=[1, 3], by="A")
    f = bt.luck_report(bid)["sides"]["A"]["fields"]["successes"]
    assert (f["spread"], f["percentile_exact"]) == (False, "1/2")


def test_past_the_exact_budget_the_percentile_is_an_estimate_with_its_margin(
        bt: Battles, monkeypatch: pytest.MonkeyPatch) -> None:
    from warroom.errors import ExactTooLargeError

    bid = bt.new("demo", "Big")["id"]
    bt.add_unit(bid, "A", "Tigers", {"dice": 2})
    bt.do(bid, "demo.pool", {"unit": "Tigers", "dice": 2}, dice=[4, 5], by="A")

    def too_large(proc: Any, *_a: Any, **_k: Any) -> Any:
        raise ExactTooLargeError(proc.id, 10**9)

    # the battle's odds source (the odds cache on the web) says the exact odds are past
    # the budget: the luck estimate stands in for them
    monkeypatch.setattr(bt.odds_source, "exact", too_large)
    f = bt.luck_report(bid)["sides"]["A"]["fields"]["successes"]
    proc = bt.registry.procedure("demo.pool")
    est = bt.odds_source.luck(proc, proc.params(dice=2))
    assert f["estimate"] and f["percentile_exact"] is None
    assert f["margin"] == round(est.margin, 4)
    assert abs(f["percentile"] - 7 / 8) <= f["margin"]  # exact: 3/4 + 1/2 * 1/4


# -- the pages (``client``: tests/conftest.py's app on a fresh database) -----------------

def test_the_game_list_offers_only_real_games(client: Any) -> None:
    page = client.get("/battles").text
    offered = re.findall(r'<option value="([a-z]+)">', page)
    assert offered == ["fow", "asl", "bkc", "cwc"]
    assert "<option value=\"fow\">Flames of War</option>" in page
    assert "高级班长" in client.get("/battles?lang=zh").text


def test_the_started_page_hands_out_full_links_with_qr_codes(client: Any) -> None:
    r = client.post("/battles", data={"game": "fow", "name": "Share"})
    assert r.status_code == 201
    links = dict(re.findall(r'href="(http://testserver/battles/[^"]+)" data-share="(\w+)"',
                            r.text))
    assert sorted(links.values()) == ["A", "B", "view"]
    assert r.text.count('<svg xmlns="http://www.w3.org/2000/svg"') == 3
    assert r.text.count('data-copy="http://testserver/battles/') == 3
    # the test client is not this computer's loopback: no warning that phones cannot
    assert 'id="share-local"' not in r.text


def test_a_battle_page_shares_its_own_link_and_the_spectators_only(client: Any) -> None:
    made = client.post("/api/battles", json={"game": "fow", "name": "Own"}).json()
    page = client.get(made["links"]["A"]).text
    shared = re.findall(r'data-share="(\w+)"', page)
    assert shared == ["A", "view"] and made["keys"]["B"] not in page
    assert page.count("<svg") >= 2


def test_a_server_on_the_loopback_says_phones_cannot_reach_it(
        client: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from warroom.web import security

    made = client.post("/api/battles", json={"game": "fow", "name": "Here"}).json()
    local = {"Host": "127.0.0.1:8000"}
    client.app.state.listen = ("127.0.0.1", 8000)
    page = client.get(made["links"]["A"], headers=local).text
    assert 'id="share-local"' in page and "--host 0.0.0.0" in page
    assert f'href="http://127.0.0.1:8000{made["links"]["A"]}"' in page
    # listening on every interface: the computer's address on its network
    client.app.state.listen = ("0.0.0.0", 8000)
    monkeypatch.setattr(security, "lan_address", lambda: "192.0.2.7")
    page = client.get(made["links"]["A"], headers=local).text
    assert 'id="share-local"' not in page
    assert f'href="http://192.0.2.7:8000{made["links"]["A"]}"' in page
    monkeypatch.setattr(security, "lan_address", lambda: None)
    pl = client.get(made["links"]["A"] + "?lang=pl", headers=local).text
    assert "nie ma teraz adresu w sieci" in pl


def test_the_log_and_the_luck_card_read_as_players_speak(client: Any) -> None:
    made = client.post("/api/battles", json={"game": "demo", "name": "Log"}).json()
    bid, ka = made["id"], made["keys"]["A"]
    client.post(f"/api/battles/{bid}/units?key={ka}",
                json={"side": "A", "name": "Tigers", "stats": {"dice": 2}})
    for dice in ([4, 5], [1]):
        r = client.post(f"/api/battles/{bid}/do?key={ka}", json={
            "procedure": "demo.pool", "params": {"unit": "Tigers", "dice": len(dice)},
            "dice": dice})
        assert r.status_code == 200, r.text
    assert client.post(f"/api/battles/{bid}/undo?key={ka}").status_code == 200
    page = client.get(made["links"]["A"] + "?lang=pl").text
    assert 'data-procedure="demo.pool"' in page and "demo.pool</strong>" not in page
    assert re.search(r'<strong class="rule">Pula kości</strong> <span class="who">Tigers'
                     r'</span>:\s*<span class="result">udane: 2</span>', page)
    assert '<small class="undone-tag">(cofnięte)</small>' in page
    assert f'hx-get="{made["links"]["A"]}/luck"' in page
    card = client.get(made["links"]["A"] + "/luck?lang=pl", headers={"HX-Request": "true"})
    assert card.status_code == 200 and 'data-report="yes"' in card.text
    # 2 dice at 4+ gave 2: P(fewer) = 3/4, plus half of 1/4 -> 7/8, shown as 88
    assert re.search(r'title="7/8">88</td>', card.text)
    assert "Strona A: 1 rzut" in card.text and "Strona B: 0 rzutów" in card.text
    whole = client.get(made["links"]["A"] + "/luck")
    assert "<html" in whole.text and 'id="luck-back"' in whole.text
    api = client.get(f"/api/v1/battles/{bid}/luck?key={ka}&unusual=true").json()
    assert api["sides"]["A"]["fields"]["successes"]["percentile_exact"] == "7/8"


def test_a_total_with_a_roll_of_unknown_odds_has_no_percentile() -> None:
    from warroom import api
    from warroom.battle.luck import report
    from warroom.engine import drivers

    proc = api.registry().procedure("demo.pool")
    known = drivers.exact(proc, proc.params(dice=2))
    table = {"id": "x", "sides": {"A": {"rolls": 2, "fields": {"successes": {
        "expected": 1.5, "actual": 2, "rolls": 2, "expected_exact": "3/2",
        "difference": 0.5}}}}}
    rolls = [{"side": "A", "procedure": p, "params": {}, "expected": {"successes": "1"}}
             for p in ("demo.pool", "old.rule")]
    f = report(table, rolls, lambda p, _params: known if p == "demo.pool" else None)[
        "sides"]["A"]["fields"]["successes"]
    assert (f["percentile"], f["percentile_exact"], f["spread"]) == (None, None, True)
    # both known (each two dice at 4+: 0, 1, 2 with 1/4, 1/2, 1/4): the sum is 0 to 4
    # with 1, 4, 6, 4, 1 sixteenths, so a total of 2 sits at 5/16 + 6/32 = 1/2
    f = report(table, rolls, lambda _p, _params: known)["sides"]["A"]["fields"]["successes"]
    assert f["percentile_exact"] == "1/2"
