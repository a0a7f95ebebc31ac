"""Usage errors in Polish and Chinese: English unchanged, translations complete."""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from babel.messages.pofile import read_po

import warroom
from warroom import api, i18n
from warroom.cli import main
from warroom.engine.messages import Msg
from warroom.engine.params import describe
from warroom.errors import (
    BadDieError,
    ErrorText,
    ExactTooLargeError,
    ParameterError,
    TooFewDiceError,
    TooManyDiceError,
    UnknownNameError,
    UnknownParameterError,
    UnknownProcedureError,
    UsageError,
)

LANGS = ("pl", "zh")
PLACEHOLDER = re.compile(r"\{(\w+)(?:![rsa])?(?::[^}]*)?\}")


def error_of(call: Callable[[], object]) -> UsageError:
    with pytest.raises(UsageError) as info:
        call()
    return info.value


def odds(proc: str, **params: object) -> Callable[[], object]:
    return lambda: warroom.odds(proc, params)


def roll(proc: str, entered: list[Any], **params: object) -> Callable[[], object]:
    return lambda: warroom.roll(proc, params, dice=entered)


def raises(exc: UsageError) -> Callable[[], object]:
    def call() -> object:
        raise exc

    return call


# name -> (how to raise it, the English message, words the translations must keep)
CASES: dict[str, tuple[Callable[[], object], str, tuple[str, ...]]] = {
    "unknown procedure": (
        lambda: api.registry().procedure("demo.pol"),
        "unknown procedure 'demo.pol'; did you mean 'demo.pool'? Valid: demo.pool",
        ("'demo.pol'", "'demo.pool'", "warroom rules")),
    "unknown parameter": (
        odds("demo.pool", dic=3),
        "unknown parameter of demo.pool 'dic'; did you mean 'dice'? Valid: dice, at, reroll.",
        ("demo.pool", "'dic'", "'dice'", "dice, at, reroll")),
    "not a number": (
        odds("demo.pool", dice="abc"),
        "parameter 'dice': 'abc' is not valid: Input should be a valid integer, unable to "
        "parse string as an integer (allowed: a whole number from 0 to 200)",
        ("'dice'", "'abc'", "0", "200")),
    "out of range": (
        odds("demo.pool", dice="1000"),
        "parameter 'dice': '1000' is not valid: Input should be less than or equal to 200 "
        "(allowed: a whole number from 0 to 200)",
        ("'dice'", "'1000'", "200")),
    "below the minimum": (
        odds("demo.pool", at="0"),
        "parameter 'at': '0' is not valid: Input should be greater than or equal to 1 "
        "(allowed: a whole number from 1 to 7)",
        ("'at'", "'0'", "1", "7")),
    "bad choice": (
        odds("demo.pool", reroll="sometimes"),
        "parameter 'reroll': 'sometimes' is not valid: Input should be 'none', 'misses' or "
        "'hits' (allowed: none, misses, hits)",
        ("'reroll'", "'sometimes'", "'none', 'misses'", "'hits'", "none, misses, hits")),
    "bad yes/no": (
        odds("fow.test", reroll="maybe"),
        "parameter 'reroll': 'maybe' is not valid: Input should be a valid boolean, unable "
        "to interpret input (allowed: true/false, yes/no, 1/0)",
        ("'reroll'", "'maybe'", "true/false, yes/no, 1/0")),
    "too few dice": (
        roll("demo.pool", [3, 5], dice=3),
        "not enough dice: 1 more needed for dice — and possibly more after "
        "that, depending on the results",
        ("1",)),
    "too many dice": (
        roll("demo.pool", [3, 5, 6, 2], dice=3),
        "too many dice: 4 entered but the resolution used only 3",
        ("4", "3")),
    "die above 6": (
        roll("demo.pool", [3, 9, 6], dice=3),
        "die #2 is 9: every die must be a whole number from 1 to 6",
        ("2", "9", "1", "6")),
    "die not a number": (
        roll("demo.pool", ["3", "x"], dice=2),
        "die #2 is 'x': every die must be a whole number from 1 to 6",
        ("2", "'x'", "6")),
    "exact budget": (
        raises(ExactTooLargeError("fow.shoot", 2_000_000)),
        "exact odds of fow.shoot with these parameters need more than 2,000,000 "
        "enumeration paths; use 'warroom simulate' (Monte Carlo) or smaller numbers",
        ("fow.shoot", "2,000,000", "warroom simulate")),
}


def english_words(template: str) -> set[str]:
    """The words of a template outside its placeholders and quoted names."""
    text = PLACEHOLDER.sub(" ", template)
    text = re.sub(r"'[^']*'", " ", text)
    return {w.lower() for w in re.findall(r"\b[A-Za-z]{4,}\b", text)}


@pytest.mark.parametrize("name", sorted(CASES))
def test_english_is_unchanged(name: str) -> None:
    call, english, _ = CASES[name]
    exc = error_of(call)
    assert str(exc).startswith(english), str(exc)
    assert exc.translated(None) == str(exc)
    assert exc.translated(i18n.translator("en")) == str(exc)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_translated(name: str, lang: str) -> None:
    call, _, keep = CASES[name]
    exc = error_of(call)
    text = exc.translated(i18n.translator(lang))
    assert text != str(exc)
    for word in keep:
        assert word in text, (word, text)
    # none of the English wording is left (names, values and commands aside)
    left = english_words(str(exc)) & english_words(text)
    left -= {"warroom", "rules", "simulate", "monte", "carlo", "none", "misses", "hits",
             "dice", "reroll", "pool", "demo", "true", "false", "shoot"}
    assert not left, (left, text)


@pytest.mark.parametrize("lang", ("en", *LANGS))
def test_too_few_dice_names_the_roll_not_the_rule_id(lang: str) -> None:
    """The player reads what the step calls the roll ("saves (team with 2 hits)"), in
    their language; the step's internal id stays on the error for callers."""
    tr = i18n.translator(lang)
    for proc, entered, what in (("fow.shoot", [1], "to hit"), ("asl.ift", [3], "IFT DR"),
                                ("fow.shoot", [6, 6, 6, 1], "saves (team with 3 hits)")):
        exc = error_of(roll(proc, entered))
        assert isinstance(exc, TooFewDiceError) and exc.rule.startswith(proc)
        text = exc.translated(tr)
        assert proc not in text and exc.rule not in text, text
        assert what in str(exc)
        shown = exc.text.args["what"]
        assert isinstance(shown, Msg) and shown.render(tr) in text, text
        if lang != "en":  # the roll's name is translated too
            assert what not in text or what == "IFT DR", text


def test_error_text_nests_and_falls_back() -> None:
    inner = ErrorText("a whole number")
    outer = ErrorText("{word} from {lo} to {hi}", word=inner, lo=1, hi=6)
    assert str(outer) == "a whole number from 1 to 6"
    assert list(outer.templates()) == ["{word} from {lo} to {hi}", "a whole number"]
    # a broken translation never hides the error
    assert outer.render(lambda t: "{nope}" if "{" in t else t) == str(outer)
    # a finished sentence with braces is never formatted
    assert UsageError("bad {x}").translated(i18n.translator("pl")) == "bad {x}"
    # templates with arguments, and a constant message as its own id
    exc = UsageError("seed: {seed!r} is not a whole number", seed="abc")
    assert str(exc) == "seed: 'abc' is not a whole number"
    assert "'abc'" in exc.translated(i18n.translator("pl")) != str(exc)
    exc = ParameterError("samples", "given twice")
    assert str(exc) == "parameter 'samples': given twice"
    assert exc.translated(i18n.translator("zh")) == "参数 'samples'：重复给出"


def test_kind_words_are_translated() -> None:
    exc = UnknownNameError("game system", "fwo", ["fow", "asl"])
    assert str(exc) == "unknown game system 'fwo'; did you mean 'fow'? Valid: fow, asl."
    assert "system gry" in exc.translated(i18n.translator("pl"))
    assert "游戏系统" in exc.translated(i18n.translator("zh"))
    assert exc.kind == "game system"
    exc = UnknownParameterError("demo.pool", "x", ["dice"])
    assert exc.kind == "parameter of demo.pool" and exc.name == "x"


# -- every template the errors use has a Polish and a Chinese entry ----------------------


def sample_errors() -> Iterator[UsageError]:
    for call, _, _ in CASES.values():
        yield error_of(call)
    yield UnknownProcedureError("nothing", [])
    yield UnknownProcedureError("nothing", ["demo.pool"])
    yield UnknownParameterError("demo.pool", "zzz", ["dice", "at"])
    yield UnknownNameError("special rule", "x", [])
    yield UnknownNameError("marker", "x", [])
    yield UnknownNameError("unit", "x", [])
    yield TooFewDiceError(2, "dice", "demo.pool")
    yield TooManyDiceError(1, 2)
    yield BadDieError(7, 1, 6)
    yield ParameterError("", ErrorText("expected key=value, got {word!r}", word="x"))
    yield ParameterError("x", "given twice")
    yield ParameterError("x", "invalid value")
    yield UsageError("seed: {seed!r} is not a whole number", seed="x")
    yield UsageError("give either --dice or --seed, not both")
    yield UsageError("--dice needs at least one die, e.g. --dice 3,5,6")
    yield error_of(odds("asl.ift", fp="abc"))
    yield error_of(odds("fow.kampfgruppe"))
    yield error_of(odds("demo.pool", dice="2.5"))
    # the battle's errors and the games' own checks (tests/battle/test_errors_i18n.py)
    from tests.battle.test_errors_i18n import sample_errors as battle_errors

    yield from battle_errors()


def spec_texts() -> Iterator[ErrorText]:
    """What every parameter of every procedure accepts (the 'allowed' part)."""
    for proc in api.registry().procedures():
        for spec in describe(proc.params):
            yield spec.allowed_text()


PYDANTIC_CONSTANTS = (
    "Input should be a valid integer, unable to parse string as an integer",
    "Input should be a valid integer, got a number with a fractional part",
    "Input should be a valid integer",
    "Input should be a valid number, unable to parse string as a number",
    "Input should be a valid number",
    "Input is not a valid fraction",
    "Input should be a valid boolean, unable to interpret input",
    "Input should be a valid boolean",
    "Field required",
)


def used_templates() -> set[str]:
    out: set[str] = set(PYDANTIC_CONSTANTS)
    for exc in sample_errors():
        out.update(exc.text.templates())
    for text in spec_texts():
        out.update(text.templates())
    from warroom.engine import params

    out.update(params._PYDANTIC_TEMPLATES.values())
    out.add("{choices} or {last}")
    # templates that are only placeholders ("{text}") need no translation
    return {t for t in out if PLACEHOLDER.sub("", t).strip(" ,.;:")}


def errors_po(lang: str) -> dict[str, str]:
    path = i18n.CATALOG_DIR / lang / "LC_MESSAGES" / "errors.po"
    with Path(path).open("rb") as fh:
        cat = read_po(fh, locale=lang)
    return {str(m.id): str(m.string) for m in cat if m.id}


@pytest.mark.parametrize("lang", LANGS)
def test_every_template_has_a_translation(lang: str) -> None:
    table = i18n.catalog(lang)
    missing = sorted(t for t in used_templates() if not table.get(t))
    assert not missing, missing
    assert len(used_templates()) > 80


# -- where players see them ----------------------------------------------------------------


def test_cli_prints_the_error_in_the_chosen_language(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WARROOM_LANG", raising=False)
    assert main(["--lang", "pl", "odds", "demo.pool", "dice=abc"]) == 2
    err = capsys.readouterr().err
    assert "parametr 'dice'" in err and "to nie jest liczba całkowita" in err
    assert "Input should" not in err
    assert main(["roll", "demo.pool", "dice=3", "--dice", "1,2", "--lang", "zh"]) == 2
    assert "骰子不够" in capsys.readouterr().err
    assert main(["odds", "demo.pool", "dice"]) == 2
    assert capsys.readouterr().err == "error: expected key=value, got 'dice'\n"
    monkeypatch.setenv("WARROOM_LANG", "pl")
    assert main(["odds", "demo.pool", "dice"]) == 2
    assert capsys.readouterr().err == "błąd: oczekiwano key=value, podano 'dice'\n"


def test_pages_show_the_error_in_the_page_language(client: Any) -> None:
    r = client.get("/p/demo.pool", params={"dice": "abc", "_sent": "1", "lang": "pl"})
    assert r.status_code == 200
    page = html.unescape(r.text)
    assert "parametr 'dice': wartość 'abc' jest nieprawidłowa" in page
    r = client.get("/p/demo.pool/odds", params={"at": "12", "_sent": "1", "lang": "zh"})
    assert "应小于或等于 7" in html.unescape(r.text)
    r = client.post("/p/demo.pool/roll?lang=pl", data={"dice": "3", "_sent": "1",
                                                       "_dice": "3 5"})
    assert "za mało kości" in html.unescape(r.text)
    r = client.post("/p/demo.pool/roll?lang=zh", data={"_sent": "1", "_seed": "abc"},
                    headers={"hx-request": "true"})
    assert "种子：'abc' 不是整数" in html.unescape(r.text)
    r = client.get("/compare/demo.pool/results",
                   params={"s0.dice": "9999", "s0._sent": "1", "lang": "pl"})
    assert "może być co najwyżej 200" in html.unescape(r.text)
    r = client.get("/p/demo.pol", params={"lang": "pl"}, headers={"accept": "text/html"})
    assert r.status_code == 422
    assert "zasada 'demo.pol' nie istnieje" in html.unescape(r.text)


def test_json_api_stays_english(client: Any) -> None:
    r = client.post("/api/odds", json={"procedure": "demo.pool", "params": {"dice": "abc"}},
                    headers={"accept-language": "pl"})
    assert r.status_code == 422
    assert r.json()["detail"].startswith("parameter 'dice': 'abc' is not valid: Input should")
    r = client.post("/api/roll", json={"procedure": "demo.pool", "params": {"dice": 3},
                                       "dice": [3, 5], "lang": "pl"})
    assert r.status_code == 422 and r.json()["detail"].startswith("not enough dice: 1 more")


@pytest.mark.parametrize("lang", ["pl", "zh"])
def test_request_validation_wording_is_translated(lang: str) -> None:
    """The sentences warroom makes of FastAPI's request errors: every template has a
    translation with the same placeholders (English stays for the JSON API)."""
    from warroom.web.app import validation_message

    cases = [[], [{"type": "json_invalid", "loc": ("body",)}],
             [{"type": "missing", "loc": ("body",)}],
             [{"type": "dict_type", "loc": ("body",)}],
             [{"type": "extra_forbidden", "loc": ("body", "bogus")}],
             [{"type": "missing", "loc": ("body", "unit")}],
             [{"type": "int_parsing", "loc": ("body", "expect"), "input": "x", "msg": "m"}],
             [{"type": "x", "loc": ("body", "stats"), "msg": "m"}]]
    table = i18n.catalog(lang)
    for errors in cases:
        text, _ = validation_message(errors)
        assert text.template in table, text.template
        assert text.render(i18n.translator(lang)) != str(text)


def test_a_battle_form_without_a_field_says_so_in_polish(client: Any) -> None:
    made = client.post("/api/battles", json={"game": "demo", "name": "x"}).json()
    r = client.post(f"/battles/{made['id']}/{made['keys']['A']}/mark?lang=pl",
                    data={"marker": "pinned"}, headers={"accept": "text/html"})
    assert r.status_code == 422 and "pole 'unit' jest wymagane" in html.unescape(r.text)
    api_r = client.post("/api/odds", json={"procedure": "demo.pool", "bogus": 1})
    assert api_r.json()["detail"] == "unknown field 'bogus'"
