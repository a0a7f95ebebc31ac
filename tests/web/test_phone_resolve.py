"""The battle page's Resolve at the table (issue 31 items 1 and 3), in a real headless
Chromium at 390 px and on a 1280 px laptop, in English, Polish and Chinese, light and
dark: the odds summary is in sight whenever Roll is, the laptop has two columns (fields
left, summary, dice and Roll right), one odds request per change, the table of every
outcome folded; side B off turn has no Next phase or Undo, an empty battle no Resolve
form, an eliminated unit is not offered; the page follows a turn change without a
reload. axe finds nothing in either theme."""

from __future__ import annotations

from typing import Any

import pytest

from tests.web import test_phone
from tests.web.conftest import SCREENSHOTS
from tests.web.test_phone import LANGS, settled

visit = test_phone.visit
"""The phone test's browser contexts (size, language, colour scheme), as a fixture here."""

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 800}
SHOT = "unit=Shermans&target=Panthers&procedure=fow.shoot&_for=fow.shoot%7CShermans%7CPanthers"


def _api(server_url: str) -> Any:
    import httpx

    def call(path: str, key: str, body: dict[str, Any] | None = None) -> Any:
        r = httpx.post(f"{server_url}/api/battles{path}?key={key}", json=body or {})
        assert r.status_code < 300, r.text
        return r.json()

    return call


def _battle(server_url: str, name: str) -> dict[str, str]:
    import httpx

    made = httpx.post(f"{server_url}/api/battles", json={"game": "fow", "name": name}).json()
    bid = made["id"]
    return {"id": bid, "A": made["keys"]["A"], "B": made["keys"]["B"],
            "a": f"/battles/{bid}/{made['keys']['A']}",
            "b": f"/battles/{bid}/{made['keys']['B']}"}


@pytest.fixture(scope="module")
def table(server_url: str) -> dict[str, Any]:
    """A FoW battle in side A's turn whose latest event is A's: A's Shermans against B's
    Panthers, B's rifle platoon eliminated; and a battle with no units yet."""
    call = _api(server_url)
    b = _battle(server_url, "Table")
    unit = "/{id}/units".format(**b)
    call(unit, b["A"], {"side": "A", "name": "Shermans", "from": "example:fow:Shermans"})
    call(unit, b["B"], {"side": "B", "name": "Panthers", "from": "example:fow:Panthers"})
    call(unit, b["B"], {"side": "B", "name": "Rifles", "from": "example:fow:Rifle platoon"})
    call(f"/{b['id']}/mark", b["B"], {"unit": "Rifles", "marker": "eliminated"})
    call(unit, b["A"], {"side": "A", "name": "Cats", "from": "example:fow:Panthers"})
    return {**b, "empty": _battle(server_url, "Empty")["a"]}


def box(v: Any, selector: str) -> dict[str, float]:
    found: dict[str, float] | None = v.page.evaluate(
        """s => { const el = document.querySelector(s); if (!el) return null;
                  const r = el.getBoundingClientRect();
                  return {top: r.top, bottom: r.bottom, left: r.left, right: r.right,
                          height: window.innerHeight}; }""", selector)
    assert found is not None, selector
    return found


def in_view(b: dict[str, float]) -> bool:
    return b["top"] >= 0 and b["bottom"] <= b["height"]


def summary_in_view_with_roll(v: Any, where: str) -> None:
    """The odds summary (not empty) and Roll stay in sight together while the form
    scrolls: with its top, its fields or More in the middle of the screen (sticky: at the
    foot of a phone's screen, at the top of a laptop's right column), or Roll itself."""
    page = v.page
    page.wait_for_selector("[data-odds-summary] .sum-item")
    for anchor in ("#do-roll", "#resolve-title", "#do-params", "#do-more"):
        page.evaluate("s => document.querySelector(s).scrollIntoView({block: 'center'})",
                      anchor)
        roll, summary = box(v, "#do-roll"), box(v, "[data-odds-summary]")
        assert in_view(roll) and in_view(summary), f"{where} at {anchor}: {roll}, {summary}"
    page.evaluate("document.querySelector('#do-roll').scrollIntoView({block: 'end'})")
    assert in_view(box(v, "[data-odds-summary]")), where


@pytest.mark.parametrize("size", [PHONE, LAPTOP], ids=["390px", "1280px"])
@pytest.mark.parametrize("lang", LANGS)
def test_the_odds_stay_beside_roll(visit: Any, server_url: str, table: dict[str, Any],
                                   lang: str, size: dict[str, int]) -> None:
    where = f"{size['width']}px"
    for scheme in ("light", "dark"):
        v = visit(size, lang, scheme)
        v.open(f"{server_url}{table['a']}?{SHOT}&lang={lang}")
        summary_in_view_with_roll(v, f"{where} {scheme}")
        # the table of every outcome is folded until asked for
        assert v.page.locator("#every-outcome").count() == 1
        assert not v.page.evaluate("document.querySelector('#every-outcome').open")
        # rarely used fields are under More, folded
        assert v.page.locator("#do-more .field").count() > 0
        assert not v.page.evaluate("document.querySelector('#do-more').open")
        if size is LAPTOP:  # two columns: the fields left, summary, dice and Roll right
            main, side = box(v, ".resolve-main"), box(v, "#do-side")
            assert side["left"] >= main["right"] - 1 and side["top"] < main["bottom"], \
                (main, side)
        settled(v)
        v.check(f"battle page, Resolve ({where}, {scheme})")
        if scheme == "dark":
            continue
        # one change, one odds request; the summary follows it
        asked: list[str] = []
        v.page.on("request", lambda r, asked=asked: asked.append(r.url)
                  if "/resolve/odds" in r.url else None)
        before = v.page.inner_text("[data-odds-summary] .sum")
        v.page.fill('input[name="p.dice"]', "1")
        v.page.wait_for_function(
            "t => document.querySelector('[data-odds-summary] .sum').innerText !== t",
            arg=before)
        settled(v)
        assert len(asked) == 1, asked
        summary_in_view_with_roll(v, f"{where} after a change")
        # More opened stays open when the form is drawn again (a new pick)
        v.page.click("#do-more summary")
        v.page.select_option("#do-procedure", "fow.shoot")
        v.page.select_option("#do-target", "")
        v.page.wait_for_selector("#do-more[open]")
        if lang == "en":
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            v.open(f"{server_url}{table['a']}?{SHOT}&lang={lang}")
            v.page.wait_for_selector("[data-odds-summary] .sum-item")
            v.page.evaluate("document.querySelector('#resolve').scrollIntoView()")
            v.page.screenshot(path=str(SCREENSHOTS / f"battle-resolve-{where}.png"))


@pytest.mark.parametrize("size", [PHONE, LAPTOP], ids=["390px", "1280px"])
@pytest.mark.parametrize("lang", LANGS)
def test_only_what_a_side_may_do(visit: Any, server_url: str, table: dict[str, Any],
                                 lang: str, size: dict[str, int]) -> None:
    v = visit(size, lang)
    # side B, off turn, whose latest event is not the latest: no Next phase, no Undo
    v.open(f"{server_url}{table['b']}?lang={lang}")
    assert v.page.locator("#next-phase").count() == 0
    assert v.page.locator("#undo").count() == 0
    assert v.page.locator("#their-turn").is_visible()
    settled(v)
    v.check("side B off turn")
    # side A: both; the eliminated platoon is not offered as a target
    v.open(f"{server_url}{table['a']}?lang={lang}")
    assert v.page.locator("#next-phase").is_visible()
    assert v.page.locator("#undo").is_visible()
    targets = v.page.locator("#do-target option").evaluate_all(
        "os => os.map(o => o.value).filter(Boolean)")
    assert targets == ["Panthers"], targets
    # an empty battle: "add your units", no Resolve form
    v.open(f"{server_url}{table['empty']}?lang={lang}")
    assert v.page.locator("#do-form").count() == 0
    assert v.page.locator("#resolve-none").is_visible()
    settled(v)
    v.check("empty battle")


def test_the_buttons_change_hands_without_a_reload(visit: Any, server_url: str) -> None:
    """The page follows the battle: when side A ends its turn, B's page (swapped in, not
    reloaded) offers Next phase, and A's no longer does."""
    call = _api(server_url)
    b = _battle(server_url, "Turn")
    unit = "/{id}/units".format(**b)
    call(unit, b["A"], {"side": "A", "name": "Shermans", "from": "example:fow:Shermans"})
    call(unit, b["B"], {"side": "B", "name": "Panthers", "from": "example:fow:Panthers"})
    phone_a, phone_b = visit(PHONE, "en"), visit(PHONE, "en")
    phone_a.open(server_url + b["a"])
    phone_b.open(server_url + b["b"])
    assert phone_b.page.locator("#next-phase").count() == 0
    phone_b.page.evaluate("window.notReloaded = true")
    while phone_a.page.locator("#their-turn").count() == 0:
        with phone_a.page.expect_navigation():
            phone_a.page.click("#next-phase")
    phone_b.page.wait_for_selector("#next-phase", timeout=12_000)
    assert phone_b.page.evaluate("window.notReloaded") is True
    assert phone_a.page.locator("#next-phase").count() == 0
    assert phone_a.page.locator("#undo").is_visible()  # A's phase change is A's to undo
    assert phone_b.page.locator("#undo").count() == 0
