"""The phone at the table (issue 22), in a real headless Chromium.

At 360 x 740 in English, Polish and Chinese every rule's page and the battle page must
fit the screen (no sideways scrolling), show no English template text in another
language, log no console error, and bring the result into view after Roll; a few pages
again at 1366 x 900. Every page passes axe-core (vendored in tests/web/vendor). Also:
the manifest and service worker, odds that are never left looking current when a
change is followed by Roll at once or the odds request fails, the offline banner, and
the home page's search.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from warroom import api, i18n

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PHONE = {"width": 360, "height": 740}
DESKTOP = {"width": 1366, "height": 900}
LANGS = ("en", "pl", "zh")
AXE = Path(__file__).parent / "vendor" / "axe.min.js"
TEMPLATES = Path(__file__).resolve().parents[2] / "src" / "warroom" / "web" / "templates"
MSGID = re.compile(r"""_\(\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')\s*\)""")
DESKTOP_PROCS = ("fow.shoot", "asl.ift", "asl.ift_on_stack", "bkc.fire")


@cache
def english_texts(lang: str) -> list[str]:
    """Template sentences (two words or more, no fields) that read differently in
    ``lang``: seeing one on a page in ``lang`` means it was left in English."""
    table = i18n.catalog(lang)
    ids = {m.group(1) or m.group(2) for f in TEMPLATES.rglob("*.html")
           for m in MSGID.finditer(f.read_text())}
    return sorted(i for i in ids if " " in i and "{" not in i and table.get(i, i) != i)


@pytest.fixture(scope="module")
def battle_link(server_url: str) -> str:
    """A demo battle whose unit has a long stat value (it must wrap on a phone)."""
    import httpx

    made = httpx.post(f"{server_url}/api/battles", json={"game": "demo", "name": "Kursk"}).json()
    bid, key = made["id"], made["keys"]["A"]
    for side, name in (("A", "Elefants"), ("B", "Guards")):
        r = httpx.post(f"{server_url}/api/battles/{bid}/units?key={made['keys'][side]}", json={
            "side": side, "name": name,
            "stats": {"dice": 3, "note": "a-very-long-value-without-any-space-" * 3}})
        assert r.status_code < 300, r.text
    return f"/battles/{bid}/{key}"


class Visit:
    """One browser context at one size and language, collecting console errors."""

    def __init__(self, browser: Any, size: dict[str, int], lang: str,
                 scheme: str = "light") -> None:
        self.context = browser.new_context(viewport=size, color_scheme=scheme,
                                           locale={"en": "en-US", "pl": "pl-PL",
                                                   "zh": "zh-CN"}[lang])
        # axe-core, served as if from the site itself: the pages' CSP allows no inline
        # script (one route for the context, whatever page asks for it)
        self.context.route("**/__axe__.js", lambda route: route.fulfill(
            path=str(AXE), content_type="application/javascript"))
        self.page = self.context.new_page()
        self.page.set_default_timeout(20_000)
        self.size, self.lang = size, lang
        self.errors: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text)
                     if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.english = english_texts(lang) if lang != "en" else []
        self.going = ""

    def open(self, url: str) -> None:
        self.page.goto(url)  # returns once the page has loaded

    def start(self, url: str) -> None:
        """Begin loading ``url`` without waiting, so several visits load at once (the
        server works on one page while the test checks another); :meth:`arrive` waits."""
        self.going = url
        self.page.evaluate("u => { setTimeout(() => { location.href = u; }, 0); }", url)

    def arrive(self) -> None:
        self.page.wait_for_url(self.going, wait_until="load")

    def check(self, where: str, axe: bool = True) -> None:
        """No sideways scrolling, no English left over, no console error, no axe issue."""
        page = self.page
        where = f"{where} ({self.lang})"
        width, text = page.evaluate(
            "[document.documentElement.scrollWidth, document.body.innerText]")
        assert width <= self.size["width"], f"{where}: {width}px wide at {self.size['width']}"
        assert "{{" not in text and "{%" not in text, where
        left = [e for e in self.english if e in text]
        assert not left, f"{where}: left in English: {left}"
        assert not self.errors, f"{where}: console errors: {self.errors}"
        if axe:
            if not page.evaluate("!!window.axe"):
                page.add_script_tag(url="/__axe__.js")
            found = page.evaluate("""() => axe.run(document, {resultTypes: ['violations']})
                .then(r => r.violations.map(v => v.id + ' (' + v.impact + '): ' +
                      v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', ')))""")
            assert not found, f"{where}: axe: {found}"

    def result_in_view(self, selector: str, where: str) -> None:
        box = self.page.evaluate(f"""() => {{
            const el = document.querySelector({selector!r});
            if (!el) return null;
            const r = el.getBoundingClientRect();
            return {{top: r.top, height: window.innerHeight,
                     focused: document.activeElement === el}};
        }}""")
        assert box is not None, f"{where}: no result"
        assert 0 <= box["top"] < box["height"] * 0.6, f"{where}: result at {box['top']:.0f}px"
        assert box["focused"], f"{where}: the result is not focused"

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def visit(browser: Any) -> Iterator[Any]:
    opened: list[Visit] = []

    def make(size: dict[str, int], lang: str, scheme: str = "light") -> Visit:
        v = Visit(browser, size, lang, scheme)
        opened.append(v)
        return v

    yield make
    for v in opened:
        v.close()


SEED = "_seed=7"
"""Rule pages are opened with virtual dice seeded in the address (as a shared link would
be): Roll then needs no typing, whose change would ask for the same odds again."""


def roll(v: Visit) -> None:
    """Press Roll (virtual dice, seeded); :func:`rolled` waits for the result."""
    assert v.page.input_value('input[name="_seed"]') == "7"
    v.page.click("#roll-button")


def rolled(v: Visit, where: str) -> None:
    """The result, or the message, has come into view and has the focus."""
    v.page.wait_for_selector("#roll:not(.empty) h2")
    v.page.wait_for_function(
        "() => document.activeElement && document.activeElement.id === 'roll'")
    v.result_in_view("#roll", where)


PROCEDURES = [proc.id for proc in api.registry().procedures()]
SYSTEMS = list(dict.fromkeys(pid.split(".")[0] for pid in PROCEDURES))
"""The game systems, in the registry's order: the walk over every rule is one test a
system, so ``make test`` spreads it over its workers."""


@pytest.mark.parametrize("system", SYSTEMS)
def test_every_rule_on_a_phone(visit: Any, server_url: str, system: str) -> None:
    """Every rule's page of a game system in the three languages, walked side by side:
    each page is asked for in all three before the first is checked, and Roll pressed in
    all three before the first result is awaited, so the server and the browser work at
    the same time."""
    visits = [visit(PHONE, lang) for lang in LANGS]
    for i, pid in enumerate(PROCEDURES):
        if not pid.startswith(system + "."):
            continue
        where = f"/p/{pid}"
        for v in visits:
            v.start(f"{server_url}{where}?{SEED}")
        for turn, v in enumerate(visits):
            v.arrive()
            v.page.wait_for_selector("#odds h2")
            # axe on every rule's page, each in one of the languages in turn (it takes a
            # second or two a page; the languages share the markup)
            v.check(where, axe=i % len(LANGS) == turn)
            roll(v)
        for v in visits:
            rolled(v, where)
            v.check(where + " after Roll", axe=False)


def test_the_home_battle_and_missing_pages_on_a_phone(visit: Any, server_url: str,
                                                      battle_link: str) -> None:
    """The home page, a battle page (a roll lands in the log) and the pages of things
    that are not there, in the three languages."""
    visits = [visit(PHONE, lang) for lang in LANGS]
    for v in visits:
        v.open(f"{server_url}/?lang={v.lang}")
        v.check("home")
    for v in visits:  # one battle: each roll lands in the log the others see
        v.open(server_url + battle_link)
        settled(v)
        v.check("battle page")
        v.page.select_option("#do-unit", "Elefants")
        v.page.select_option("#do-target", "Guards")
        with v.page.expect_navigation(wait_until="load"):  # the page comes back with the log
            v.page.click("#do-roll")
        # Roll leaves the page at once: the new forms the picks asked for are cut off, and
        # htmx logs each cut-off request on the page being left. Those are not errors of
        # the page after Roll (whose own errors are still checked below).
        v.errors[:] = [e for e in v.errors
                       if not e.startswith(("htmx:sendAbort,", "htmx:afterRequest,"))]
        v.page.wait_for_function(
            "() => document.activeElement && document.activeElement.matches('#log li')")
        assert v.page.locator("#log li").first.get_attribute("data-kind") == "resolved"
        v.result_in_view("#log li", f"battle page after Roll ({v.lang})")
        v.check("battle page after Roll", axe=False)
    for where in ("/p/nope", "/compare/nope", battle_link + "x", "/battles/nope"):
        for v in visits:
            v.open(server_url + where)
            assert v.page.locator("main a[href='/']").count() == 1, where
            assert "detail" not in v.page.evaluate("document.body.innerText"), where
            v.errors.clear()  # the browser logs the error status of the page itself
            v.check(where)


@pytest.mark.parametrize("lang", LANGS)
def test_some_pages_on_a_desktop(visit: Any, server_url: str, battle_link: str,
                                 lang: str) -> None:
    v = visit(DESKTOP, lang)
    for proc in DESKTOP_PROCS:
        v.open(f"{server_url}/p/{proc}?lang={lang}&{SEED}")
        v.page.wait_for_selector("#odds h2")
        v.check(proc, axe=False)  # checked on a phone
        roll(v)
        rolled(v, proc)
    v.open(f"{server_url}/compare/fow.shoot?lang={lang}")
    settled(v)  # axe reads dimmed odds on their way as low contrast
    v.check("compare")
    v.open(server_url + battle_link)
    settled(v)
    v.check("battle page")


def test_installable(visit: Any, server_url: str) -> None:
    import httpx

    manifest = httpx.get(f"{server_url}/static/manifest.webmanifest").json()
    assert manifest["start_url"] == "/" and manifest["display"] == "standalone"
    sizes = {i["sizes"] for i in manifest["icons"]}
    assert {"192x192", "512x512"} <= sizes
    for icon in manifest["icons"]:
        assert httpx.get(server_url + icon["src"]).status_code == 200, icon
    for path in ("/favicon.ico", "/static/apple-touch-icon.png", "/sw.js"):
        assert httpx.get(server_url + path).status_code == 200, path
    v = visit(PHONE, "en")
    v.open(server_url + "/")
    assert v.page.locator('link[rel="manifest"]').count() == 1
    state = v.page.evaluate("""() => navigator.serviceWorker.ready.then(r => r.active.state)""")
    assert state in ("activating", "activated")
    cached = v.page.evaluate("""async () => {
        for (const name of await caches.keys()) {
            const c = await caches.open(name);
            if (await c.match('/static/app.css') && await c.match('/static/app.js')) return true;
        }
        return false;
    }""")
    assert cached
    footer = v.page.locator("footer").inner_text()
    assert "No internet needed" in footer and "Works offline" not in footer



def test_a_page_never_visited_falls_back_to_the_home_page_offline(
        visit: Any, server_url: str) -> None:
    """Offline, a rule page the phone never opened shows the cached home page, not the
    browser's error (sw.js waits for each cache look-up before trying the next)."""
    v = visit(PHONE, "en")
    v.open(server_url + "/")
    v.page.evaluate("() => navigator.serviceWorker.ready")
    v.page.reload()  # now the worker controls the page
    assert v.page.evaluate("() => !!navigator.serviceWorker.controller")
    v.context.set_offline(True)
    try:
        v.page.goto(server_url + "/p/asl.rally")
        assert v.page.locator("#rule-search").count() == 1  # the home page's search
    finally:
        v.context.set_offline(False)
    v.errors.clear()  # the failed fetch of the page itself is logged


def settled(v: Visit) -> None:
    """No odds on their way (dimmed odds are meant to be read as outdated: axe would
    count their contrast)."""
    v.page.wait_for_function(
        "() => !document.body.classList.contains('busy') && !document.querySelector("
        "'.odds.stale, .odds-summary.stale, .htmx-request')")


def luminance(css_colour: str) -> float:
    """WCAG relative luminance of an ``rgb(r, g, b)`` colour."""
    channels = [int(c) / 255 for c in re.findall(r"\d+", css_colour)[:3]]
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def test_evening_colours_follow_the_phone_and_the_theme_button(
        visit: Any, server_url: str, battle_link: str) -> None:
    """A phone set to dark gets dark pages (home, a rule with its odds and a roll, a
    battle) that pass axe in all three languages; the theme button forces day or evening
    colours and the choice stays on the next page."""
    import httpx

    made = httpx.post(f"{server_url}/api/battles", json={"game": "demo", "name": "Prokhorovka"}
                      ).json()
    bid, key = made["id"], made["keys"]["A"]
    for name in ("Tigers", "Panthers"):
        r = httpx.post(f"{server_url}/api/battles/{bid}/units?key={key}",
                       json={"side": "A", "name": name, "stats": {"dice": 3}})
        assert r.status_code < 300, r.text
    r = httpx.post(f"{server_url}/api/battles/{bid}/undo?key={key}")  # an undone log line
    assert r.status_code < 300, r.text
    undone = f"/battles/{bid}/{key}"
    light = visit(PHONE, "en")
    light.open(server_url + undone)
    settled(light)
    assert light.page.locator("#log li.undone").count() == 1
    light.check("battle with an undone event, light")  # axe: its contrast holds
    for lang in LANGS:
        v = visit(PHONE, lang, "dark")
        for path in ("/", f"/p/fow.shoot?{SEED}", battle_link, undone):
            v.open(f"{server_url}{path}{'&' if '?' in path else '?'}lang={lang}")
            if path.startswith("/p/"):
                roll(v)
                rolled(v, path)
            settled(v)
            bg = v.page.evaluate("getComputedStyle(document.documentElement).backgroundColor")
            assert luminance(bg) < 0.05, f"{path} ({lang}): background {bg} in the dark"
            v.check(f"{path}, dark")
    v = visit(PHONE, "en", "dark")
    v.open(server_url + "/")
    button = v.page.locator("#theme-toggle")
    assert button.is_visible() and button.bounding_box()["height"] >= 44
    label_auto = button.get_attribute("aria-label")
    button.click()  # auto -> dark (already dark here): the label says so
    assert button.get_attribute("aria-label") != label_auto
    button.click()  # dark -> light: a bright page although the phone is set to dark
    bg = v.page.evaluate("getComputedStyle(document.documentElement).backgroundColor")
    assert luminance(bg) > 0.8, bg
    v.open(server_url + "/battles")  # the choice is kept on this device
    assert v.page.evaluate("document.documentElement.dataset.theme") == "light"
    v.check("battles, forced light")


BROKEN_WORDS = """() => {
    // words (Latin letters only, up to 14) of the units table that are split over two
    // lines (Chinese wraps between any two characters: that is no broken word)
    const broken = [];
    for (const cell of document.querySelectorAll('#units th, #units td')) {
        const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            for (const m of node.data.matchAll(/[\\p{Script=Latin}]{2,14}/gu)) {
                const range = document.createRange();
                range.setStart(node, m.index);
                range.setEnd(node, m.index + m[0].length);
                const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
                if (tops.size > 1) broken.push(m[0]);
            }
        }
    }
    return broken;
}"""


def test_the_units_table_breaks_no_word_on_a_phone(visit: Any, server_url: str) -> None:
    """At 360 px the units table wraps between words ("Shermans", "Markers" whole), in
    every language, and the page still does not scroll sideways."""
    import httpx

    made = httpx.post(f"{server_url}/api/battles", json={"game": "fow", "name": "Bocage"}).json()
    bid, keys = made["id"], made["keys"]
    r = httpx.post(f"{server_url}/api/battles/{bid}/force?key={keys['A']}",
                   json={"side": "A", "force": "example:fow"})
    assert r.status_code < 300, r.text
    r = httpx.post(f"{server_url}/api/battles/{bid}/mark?key={keys['A']}",
                   json={"unit": "Shermans", "marker": "bailed_out", "value": 1})
    assert r.status_code < 300, r.text
    for lang in LANGS:
        v = visit(PHONE, lang)
        v.open(f"{server_url}/battles/{bid}/{keys['A']}?lang={lang}")
        assert v.page.locator("#units tbody tr").count() >= 3
        assert v.page.evaluate(BROKEN_WORDS) == [], lang
        v.check(f"units table ({lang})", axe=False)

def test_odds_are_never_left_looking_current(visit: Any, server_url: str) -> None:
    from playwright.sync_api import expect

    v = visit(PHONE, "en")
    page = v.page
    v.open(server_url + "/p/demo.pool")
    expect(page.locator('#odds td[title="1/64"]').first).to_be_attached()
    # a changed field and Roll within half a second: the odds still follow the change
    page.select_option('select[name="reroll"]', "misses")
    page.click("#roll-button")
    expect(page.locator("#roll .outcome")).to_be_visible()
    # six dice re-rolling misses: all six succeed with (3/4)^6 = 729/4096
    expect(page.locator('#odds td[title="729/4096"]').first).to_be_attached()
    expect(page.locator("#odds")).not_to_have_class(re.compile("stale"))
    # typing updates the odds without leaving the field (debounced)
    page.locator('input[name="dice"]').press("End")
    page.locator('input[name="dice"]').press_sequentially("0")  # 60 dice
    expect(page.locator("#odds th[scope=row]", has_text=re.compile(r"^60$"))).to_be_attached()
    assert page.evaluate("document.activeElement.name") == "dice"
    # the address follows the form: the language switch keeps what was typed
    assert "dice=60" in page.url and "/odds" not in page.url
    assert "dice=60" in (page.locator('a[data-lang="pl"]').get_attribute("href") or "")
    # the odds request fails: the odds are marked outdated, with a retry button
    page.route("**/p/demo.pool/odds*", lambda route: route.abort())
    page.fill('input[name="dice"]', "2")
    expect(page.locator("#odds-retry")).to_be_visible()
    expect(page.locator("#odds")).to_have_class(re.compile("failed"))
    expect(page.locator("#offline")).to_be_visible()  # the server could not be reached
    assert page.locator('input[name="dice"]').input_value() == "2"  # what was typed stays
    page.unroute("**/p/demo.pool/odds*")
    page.click("#odds-retry")
    # two dice re-rolling misses: both succeed with (3/4)^2 = 9/16
    expect(page.locator('#odds td[title="9/16"]').first).to_be_attached()
    expect(page.locator("#odds")).not_to_have_class(re.compile("stale|failed"))
    expect(page.locator("#odds-retry")).to_be_hidden()
    expect(page.locator("#offline")).to_be_hidden()
    v.errors.clear()  # the aborted request is logged


def test_find_a_rule(visit: Any, server_url: str) -> None:
    from playwright.sync_api import expect

    v = visit(PHONE, "pl")
    page = v.page
    v.open(server_url + "/?lang=pl")
    expect(page.locator('a[href="/battles"]').first).to_be_visible()
    page.fill("#rule-search", "IFT")
    expect(page.locator("#system-asl")).to_be_visible()
    expect(page.locator("#system-fow")).to_be_hidden()
    expect(page.locator('#system-asl a[href="/p/asl.ift"]')).to_be_visible()
    page.fill("#rule-search", "zzzz")
    expect(page.locator("#no-match")).to_be_visible()
    v.check("home search", axe=False)
