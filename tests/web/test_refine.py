"""Issue 33 item 2: where a page shows an estimate, it is refined to a 95% margin of a
tenth of a percentage point in the background (a job per question in the long lane,
cached, kept going a while after the last ask, stopped by the time limit, seeded), and
the page swaps it in without a reload; the JSON API asks for it with ``"margin": 0.001``."""

from __future__ import annotations

import asyncio
import html
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.test_serving import client_of, fresh, run_in_thread  # noqa: F401
from warroom import api
from warroom.engine import drivers
from warroom.engine.params import normalized
from warroom.engine.results import Estimate
from warroom.serving import FINE_MARGIN, LUCK, OddsCache, Serving, cache_key

# past the exact budget (refused at once), and quick to simulate: the batched driver
# counts its 960,365 samples in about a tenth of a second
CHEAP = {"attacks": 60, "turns": 10, "attacks_per_turn": 4, "hits_value": 10, "save": 6}
FULL = drivers.samples_for()  # 38,415: half a point
FINE = drivers.samples_for(FINE_MARGIN)  # 960,365: a tenth of a point
# past the exact budget and slow to refine (its samples rarely share a state): about ten
# seconds of CPU for the finer count
SLOW = {"weapons": "12:10:3,12:2:6,12:7:4", "teams": "tank:6:gt,tank:5/3,soft"}
SLOW_TOO = {"weapons": "12:10:3,12:2:6,12:7:5", "teams": "tank:6:gt,tank:5/3,soft"}
HX = {"hx-request": "true"}


def key_of(proc_id: str, raw: dict[str, Any]) -> str:
    return cache_key(proc_id, normalized(api.prepare(proc_id, raw)[1]))


def test_samples_for_a_tenth_of_a_point_are_25_times_those_for_half_a_point() -> None:
    # 1.96^2 / 4 / 0.001^2 = 960,364.3...: 25 times 38,414.6 (the margin is 5 times finer)
    assert FINE == 960_365 and FULL == 38_415 and abs(FINE / FULL - 25) < 1e-3


# --------------------------------------------------------------------------- serving
def test_the_finer_estimate_is_one_job_per_question_cached_and_seeded() -> None:
    proc, p = api.prepare("bkc.engagement", CHEAP)
    key = key_of("bkc.engagement", CHEAP)
    fines: list[Estimate] = []

    async def scenario() -> None:
        srv = Serving(cache=OddsCache(), workers=2, estimate_seconds=5.0)
        await srv.start()
        try:
            # two pages ask at once: one finer job, both told it is under way
            first, second = await asyncio.gather(
                srv.odds("bkc.engagement", CHEAP, fine=0.0),
                srv.odds("bkc.engagement", CHEAP, fine=0.0))
            for a in (first, second):
                assert a.estimate is not None and a.estimate.samples == FULL
                assert a.finer == FINE_MARGIN and not a.refining and not a.pending
                assert a.to_json(full=False)["refining_to"] == FINE_MARGIN
            assert [name for name in srv.jobs if name.startswith("fine ")] == [f"fine {key}"]
            job = srv.jobs[f"fine {key}"]
            fine = await job.task
            assert isinstance(fine, Estimate) and fine.samples == FINE
            assert fine.margin <= FINE_MARGIN and not fine.extra.get("stopped_early")
            # cached: asked again, the finer estimate at once, no job started
            srv.reap()
            again = await srv.odds("bkc.engagement", CHEAP, fine=0.0)
            assert again.estimate is fine and not again.finer and not srv.jobs
            assert srv.cache.get("fine", key) is fine
            # the API's default (no finer estimate asked for) stays at half a point
            plain = await srv.odds("bkc.engagement", CHEAP, deadline=1.0,
                                   estimate_seconds=5.0)
            assert plain.estimate is not None and plain.estimate.samples == FULL
            fines.append(fine)
        finally:
            await srv.stop()

    run_in_thread(scenario)
    run_in_thread(scenario)  # a fresh server, fresh workers: the same counts
    assert fines[0].counts == fines[1].counts and fines[0].seed == drivers.ESTIMATE_SEED
    # and the same as counted here, in one process (no forked streams), with its seed
    here = drivers.simulate(proc, p, FINE, seed=drivers.ESTIMATE_SEED, seconds=600.0)
    assert here.samples == FINE and dict(here.counts) == dict(fines[0].counts)


def test_a_finer_job_goes_on_while_asked_and_stops_after_its_linger() -> None:
    key = key_of("fow.shoot_mixed", SLOW)

    async def scenario() -> None:
        srv = Serving(cache=OddsCache(), workers=1, estimate_seconds=30.0, linger=1.0,
                      prestart=True)
        await srv.start()
        try:
            answer = await srv.odds("fow.shoot_mixed", SLOW, fine=0.0)
            assert answer.estimate is not None and answer.estimate.samples == FULL
            assert answer.finer == FINE_MARGIN
            job = srv.jobs[f"fine {key}"]
            for _ in range(6):  # a page's follow-ups keep it going past its linger
                again = await srv.odds("fow.shoot_mixed", SLOW, fine=0.3)
                assert again.finer == FINE_MARGIN and srv.jobs[f"fine {key}"] is job
                await asyncio.sleep(0.3)
            assert not job.task.done()
            lane = srv.pool.lanes["long"]
            (worker,) = lane.workers
            assert lane.idle.empty()  # counting
            for _ in range(200):  # nobody asks again: cancelled after a second
                if job.task.done():
                    break
                await asyncio.sleep(0.05)
            assert job.task.cancelled() and f"fine {key}" not in srv.jobs
            assert srv.cache.get("fine", key) is None
            await asyncio.to_thread(worker.process.join, 10)
            assert not worker.process.is_alive() and srv.pool.replaced >= 1
        finally:
            await srv.stop()

    run_in_thread(scenario)


def test_the_time_limit_stops_a_finer_job_and_it_is_not_counted_again() -> None:
    key = key_of("fow.shoot_mixed", SLOW)

    async def scenario() -> None:
        srv = Serving(cache=OddsCache(), workers=1, estimate_seconds=30.0, exact_limit=1.0)
        await srv.start()
        try:
            first = await srv.odds("fow.shoot_mixed", SLOW, fine=0.0)
            assert first.estimate is not None and first.finer == FINE_MARGIN
            cut = await srv.jobs[f"fine {key}"].task
            assert isinstance(cut, Estimate) and cut.extra["stopped_early"] is True
            assert cut.samples < FINE and cut.extra["samples_asked"] == FINE
            srv.reap()
            then = await srv.odds("fow.shoot_mixed", SLOW, fine=0.0)
            assert not then.finer and not srv.jobs  # done, as far as it goes
            # shown where it counted more than the half-point estimate, else that one
            shown = cut if cut.samples > FULL else first.estimate
            assert then.estimate is shown and then.estimate.margin <= first.estimate.margin
        finally:
            await srv.stop()

    run_in_thread(scenario)


def test_finer_jobs_leave_a_long_worker_for_a_battle_actions_luck() -> None:
    """Two heavy questions refining at once on a server with two long workers: one
    counts, the other waits, and a battle action's luck estimate (the Roll's warm-up)
    gets the free worker instead of waiting behind both."""
    heavy = [("fow.shoot_mixed", SLOW), ("fow.shoot_mixed", SLOW_TOO)]

    async def scenario() -> None:
        # the first job lingers while the second question's estimate is made (seconds
        # on a slow or busy machine: past the default ten, the first would be reaped)
        srv = Serving(cache=OddsCache(), workers=2, estimate_seconds=30.0, linger=600.0)
        await srv.start()
        try:
            for proc_id, raw in heavy:
                answer = await srv.odds(proc_id, raw, fine=0.0)
                assert answer.finer == FINE_MARGIN
            jobs = [srv.jobs[f"fine {key_of(p, r)}"] for p, r in heavy]
            assert srv._fine_slots is not None and srv._fine_slots.locked()
            await srv.warm("bkc.engagement", CHEAP)  # a Roll's luck, past the budget
            assert srv.cache.get(LUCK, key_of("bkc.engagement", CHEAP)) is not None
            assert not any(job.task.done() for job in jobs)  # both still refining
        finally:
            await srv.stop()

    run_in_thread(scenario)


# --------------------------------------------------------------------------- pages
def follow(text: str) -> str | None:
    """The odds panel's follow-up request (htmx asks it on load), if any."""
    link = re.search(r'hx-get="([^"]*_wait=1[^"]*)" hx-trigger="load"', text)
    return None if link is None else html.unescape(link.group(1))


def flat(text: str) -> str:
    return " ".join(text.split())


def test_the_page_shows_half_a_point_then_swaps_in_a_tenth(tmp_path: Path,
                                                           client_of: Any) -> None:  # noqa: F811
    c = client_of(fresh(tmp_path, estimate_seconds=5.0))
    r = c.get("/p/bkc.engagement", params={**CHEAP, "_sent": "1", "_dice": "3 4"})
    assert r.status_code == 200
    text = flat(r.text)
    # at once: the half-point estimate, marked as one, with its margin and the finer
    # count under way (also beside the odds bar)
    assert "<h2>Estimated odds</h2>" in text and "data-exact" not in text
    assert f"counted from {FULL:,} simulated rolls" in text
    assert ("off by up to about 0.5 percentage points. A finer count, to about 0.1 "
            "points, is under way and will replace these.") in text
    assert "estimated, ±0.5 points; a finer count is under way" in text
    assert 'value="3 4"' in text  # the dice typed stay in the form
    url = follow(r.text)
    assert url is not None and url.startswith("/p/bkc.engagement/odds?")
    assert "attacks=60" in url and "_dice=3+4" in url  # the follow-up keeps the form
    for _ in range(40):  # each follow-up waits up to 3 s for the finer count
        r = c.get(url, headers=HX)
        assert r.status_code == 200
        if follow(r.text) is None:
            break
    text = flat(r.text)
    assert f"counted from {FINE:,} simulated rolls" in text
    assert "off by up to about 0.1 percentage points." in text and "finer" not in text
    assert "estimated, ±0.1 points)" in text
    # the panel only: the form (and what was typed in it) is the page's, untouched
    assert r.text.lstrip().startswith('<section id="odds"') and "<form" not in r.text
    # a reload shows the finer estimate at once, polling nothing
    r = c.get("/p/bkc.engagement", params={**CHEAP, "_sent": "1"})
    assert f"counted from {FINE:,} simulated rolls" in flat(r.text) and follow(r.text) is None


def test_roll_does_not_wait_for_the_finer_count(tmp_path: Path, client_of: Any  # noqa: F811
                                                ) -> None:
    c = client_of(fresh(tmp_path, estimate_seconds=30.0, workers=1))
    r = c.get("/p/fow.shoot_mixed", params={**SLOW, "_sent": "1"})
    assert "A finer count, to about 0.1 points, is under way" in flat(r.text)
    srv = c.app.state.serving
    job = srv.jobs[f"fine {key_of('fow.shoot_mixed', {**SLOW, 'main_gun': False})}"]
    r = c.post("/p/fow.shoot_mixed/roll", data={**SLOW, "_sent": "1", "_seed": "7"},
               headers=HX)
    assert r.status_code == 200 and "seed" in r.text.lower()
    assert not job.task.done()  # rolled while the finer count went on


def test_the_compare_page_stays_at_half_a_point(tmp_path: Path, client_of: Any  # noqa: F811
                                                ) -> None:
    c = client_of(fresh(tmp_path, estimate_seconds=5.0))
    query = {"n": "2", **{f"s{i}.{k}": str(v) for i in (0, 1) for k, v in CHEAP.items()},
             "s0._sent": "1", "s1._sent": "1"}
    r = c.get("/compare/bkc.engagement", params=query)
    assert r.status_code == 200 and "Estimated odds" in r.text
    assert not any(name.startswith("fine ") for name in c.app.state.serving.jobs)


# --------------------------------------------------------------------------- the API
def test_the_api_counts_a_tenth_of_a_point_when_asked(tmp_path: Path,
                                                      client_of: Any) -> None:  # noqa: F811
    # the API waits for nothing here: each answer says what is still being counted
    c = client_of(fresh(tmp_path, api_estimate_seconds=5.0, api_deadline=0.0))
    body = {"procedure": "bkc.engagement", "params": CHEAP}
    answers = [c.post("/api/v1/odds", json={**body, "margin": 0.001}).json()]
    for _ in range(1200):  # asked again every tenth of a second (two minutes at most)
        a = answers[-1]
        if not a["exact_pending"] and not a["refining"]:
            break
        assert a["estimate"] is True and a["samples"] <= FULL, trail(answers)
        if a["refining"]:  # the full estimate first (half a point), then the finer one
            assert a["refining_to"] == (0.001 if a["samples"] == FULL else 0.005), \
                trail(answers)
        time.sleep(0.1)
        answers.append(c.post("/api/v1/odds", json={**body, "margin": 0.001}).json())
    fine = answers[-1]
    assert any(a["refining"] and a["refining_to"] == 0.001 for a in answers), trail(answers)
    assert fine["estimate"] is True and fine["samples"] == FINE and fine["seed"] == 1, \
        trail(answers)
    assert fine["margin"] <= 0.001 and fine["refining"] is False
    assert "refining_to" not in fine and "stopped_early" not in fine
    # by default (or with 0.005): half a point, though the finer one is counted
    plain = c.post("/api/v1/odds", json=body).json()
    assert plain["estimate"] is True and plain["samples"] == FULL
    assert plain["refining"] is False and "refining_to" not in plain
    assert c.post("/api/v1/odds", json={**body, "margin": 0.005}).json() == plain
    # exact odds where they fit: the margin changes nothing (this API waits for nothing:
    # on a loaded machine the exact job may still be queued behind the finer count, and
    # the answer says so; asked again, the exact odds, never a finer estimate)
    ask = {"procedure": "demo.pool", "params": {"dice": 2}, "margin": 0.001}
    small = c.post("/api/v1/odds", json=ask).json()
    for _ in range(600):
        if not small.get("exact_pending"):
            break
        assert small["estimate"] is True and not small["refining"], small
        time.sleep(0.1)
        small = c.post("/api/v1/odds", json=ask).json()
    assert small["estimate"] is False


def trail(answers: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """What each answer said (for a failure's message)."""
    return [(a["samples"], a["exact_pending"], a["refining"], a.get("refining_to"),
             a.get("stopped_early")) for a in answers]


@pytest.mark.parametrize("margin", [0.002, 0.0, -1, 0.5, 1e-9])
def test_a_margin_the_server_does_not_count_is_a_422(client: Any, margin: float) -> None:
    r = client.post("/api/v1/odds", json={"procedure": "demo.pool", "params": {"dice": 2},
                                          "margin": margin})
    assert r.status_code == 422
    error = r.json()["error"]
    assert error["code"] == "invalid_parameter" and error["parameter"] == "margin"
    assert "0.005, 0.001" in error["message"]


@pytest.mark.parametrize("margin", ["fine", [0.001], {"m": 1}])
def test_a_margin_that_is_not_a_number_is_a_422(client: Any, margin: Any) -> None:
    r = client.post("/api/v1/odds", json={"procedure": "demo.pool", "params": {"dice": 2},
                                          "margin": margin})
    assert r.status_code == 422 and r.json()["error"]["parameter"] == "margin"


def bkc_battle(c: Any) -> tuple[str, str]:
    """A BKC battle: three guns of 20 attacks (side A) and a bunker (B); its id and A's
    key. Their engagement over ten turns is past the exact budget, quick to estimate."""
    made = c.post("/api/v1/battles", json={"game": "bkc"}).json()
    bid, ka, kb = made["id"], made["keys"]["A"], made["keys"]["B"]
    for side, key, profile in (
            ("A", ka, {"name": "Guns", "type": "artillery", "count": 3, "attack": ["20"],
                       "hits": 3}),
            ("B", kb, {"name": "Bunker", "type": "afv", "hits": 10, "save": 6})):
        r = c.post(f"/api/v1/battles/{bid}/units?key={key}",
                   json={"side": side, "profile": profile})
        assert r.status_code == 200, r.text
    return bid, ka


ENGAGE = ("unit=Guns&target=Bunker&procedure=bkc.engagement&_for=bkc.engagement|Guns|Bunker"
          "&p._sent=1&p.turns=10&p.attacks_per_turn=4")


def test_the_battle_screen_shows_half_a_point_then_a_tenth(tmp_path: Path,
                                                           client_of: Any) -> None:  # noqa: F811
    c = client_of(fresh(tmp_path, estimate_seconds=5.0))
    bid, ka = bkc_battle(c)
    page = c.get(f"/battles/{bid}/{ka}/resolve?{ENGAGE}", headers=HX)
    assert page.status_code == 200
    url = follow(page.text)  # the form's odds panel asks for its odds (never computed)
    assert url is not None and "_finer" not in url
    # its first ask waits for no finer count: the half-point estimate at once
    r = c.get(url, headers=HX)
    text = flat(r.text)
    assert f"counted from {FULL:,} simulated rolls" in text
    assert "A finer count, to about 0.1 points, is under way" in text
    assert "estimated, ±0.5 points; a finer count is under way" in text  # beside Roll
    url = follow(r.text)
    assert url is not None and url.endswith("&_finer=1") and "p.turns=10" in url
    for _ in range(40):
        r = c.get(url, headers=HX)
        if follow(r.text) is None:
            break
    text = flat(r.text)
    assert f"counted from {FINE:,} simulated rolls" in text and "finer" not in text
    assert "estimated, ±0.1 points)" in text


# --------------------------------------------------------------------------- browser
@pytest.fixture(scope="module")
def refine_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real server whose pages count their estimate in full at once (a busy machine's
    time caps are other tests' concern)."""
    from tests.web.conftest import serve
    from warroom.web.app import create_app

    db = tmp_path_factory.mktemp("refine") / "battles.sqlite3"
    with serve(create_app(db, serving=Serving(cache=OddsCache(), estimate_seconds=5.0))
               ) as url:
        yield url


FINER_ASK = re.compile(r"/odds\?.*_finer=1")


def held_follow_up(page: Any) -> list[Any]:
    """The odds panel's follow-ups for the finer count, held back until the test lets
    them go (``route.continue_()``): the player types meanwhile."""
    held: list[Any] = []

    def hold(route: Any) -> None:
        held.append(route)

    page.route(FINER_ASK, hold)
    return held


def let_go(page: Any, held: list[Any]) -> None:
    for _ in range(200):
        if held:
            break
        page.wait_for_timeout(50)
    assert held, "the panel did not ask for the finer count"
    for route in held:
        route.continue_()
    page.unroute(FINER_ASK)  # its next follow-ups (if it is not ready yet) go through


@pytest.mark.browser
def test_a_phone_sees_the_finer_count_swapped_in(browser: Any, refine_url: str) -> None:
    from urllib.parse import urlencode

    from playwright.sync_api import expect

    from tests.web.conftest import PHONE, SCREENSHOTS

    context = browser.new_context(viewport=PHONE, locale="en-US")
    try:
        page = context.new_page()
        page.set_default_timeout(30_000)
        held = held_follow_up(page)
        page.goto(f"{refine_url}/p/bkc.engagement?" + urlencode({**CHEAP, "_sent": "1"}))
        note, bar = page.locator("#odds .note.estimate"), page.locator("#odds-bar .sum")
        expect(note).to_contain_text("off by up to about 0.5 percentage points")
        expect(note).to_contain_text("A finer count, to about 0.1 points, is under way")
        expect(bar).to_contain_text("estimated, ±0.5 points; a finer count is under way")
        page.evaluate("window.notReloaded = true")
        page.fill('input[name="_dice"]', "3 4 5")  # the player types while it counts
        let_go(page, held)
        expect(note).to_contain_text(f"counted from {FINE:,} simulated rolls", timeout=60_000)
        expect(note).to_contain_text("off by up to about 0.1 percentage points")
        expect(note).not_to_contain_text("finer")
        expect(bar).to_contain_text("estimated, ±0.1 points")
        expect(bar).not_to_contain_text("finer")
        assert page.evaluate("window.notReloaded") is True  # swapped in, not reloaded
        assert page.input_value('input[name="_dice"]') == "3 4 5"
        assert page.input_value('input[name="attacks"]') == "60"
        assert not page.locator("#odds[data-pending]").count()  # asking no more
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / "refine-phone.png"))
    finally:
        context.close()


@pytest.mark.browser
def test_the_battle_screen_swaps_in_the_finer_count_beside_roll(browser: Any,
                                                                refine_url: str) -> None:
    import httpx
    from playwright.sync_api import expect

    from tests.web.conftest import PHONE

    with httpx.Client(base_url=refine_url) as c:
        bid, ka = bkc_battle(c)
    context = browser.new_context(viewport=PHONE, locale="en-US")
    try:
        page = context.new_page()
        page.set_default_timeout(30_000)
        held = held_follow_up(page)
        page.goto(f"{refine_url}/battles/{bid}/{ka}?{ENGAGE}")
        note = page.locator("#odds .note.estimate")
        summary = page.locator("[data-odds-summary] .sum")
        expect(note).to_contain_text("A finer count, to about 0.1 points, is under way")
        expect(summary).to_contain_text("estimated, ±0.5 points; a finer count is under way")
        page.evaluate("window.notReloaded = true")
        page.fill("#do-dice", "6 6")  # typed while the finer count goes on
        let_go(page, held)
        expect(note).to_contain_text(f"counted from {FINE:,} simulated rolls", timeout=60_000)
        expect(summary).to_contain_text("estimated, ±0.1 points")
        expect(summary).not_to_contain_text("finer")
        assert page.evaluate("window.notReloaded") is True
        assert page.input_value("#do-dice") == "6 6"
        assert page.input_value('input[name="p.turns"]') == "10"
    finally:
        context.close()
