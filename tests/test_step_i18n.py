"""Every word of every step has a Polish and a Chinese translation, and the English
never counts one thing in the plural ("1 hits", "each of 1 teams").

Each registered procedure is rolled with a spread of valid parameters and seeds, and
every template met in its steps (text, result, target reason, modifier reasons and the
messages nested in their arguments) must be in the pl and zh catalogs. Two kinds of
template need no entry: those made only of placeholders and punctuation ("{n0} {c0}"),
and the game's codes, written the same in every language (1KIA, K/1, NMC, FAO...).

A plain string passed as a message argument is shown as it is in every language, so
one with words in it (anything but a code) fails too: it should be a ``Msg``.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from tests.helpers import params_strategy
from warroom import api, i18n
from warroom.engine import drivers
from warroom.engine.messages import Msg
from warroom.engine.params import validate
from warroom.engine.procedure import Procedure
from warroom.engine.steps import Step
from warroom.errors import UsageError

LANGS = ("pl", "zh")
SEEDS = (0, 1, 2, 3)
EXAMPLES = 50

PLACEHOLDER = re.compile(r"\{[^{}]*\}")
# codes read the same in every language: ASL IFT results (1KIA, K/2, NMC, 3MC, PTC),
# the Commander spotters (FAO, FAC) and a support weapon's counter as printed ("MMG 4-10
# B11": the player's own notation, like a unit's name)
CODE = re.compile(r"\d*KIA|\d*MC|NMC|PTC|K/\d+|FAO|FAC|[A-Za-z][A-Za-z0-9.]* \d+-\d+(?: B\d+)?")


def needs_translation(template: str) -> bool:
    words = PLACEHOLDER.sub("", template)
    return any(c.isalpha() for c in words) and not CODE.fullmatch(template)


def _walk(value: Any) -> Iterator[tuple[str, str]]:
    """('template', t) for every message in ``value`` (a message or one of its
    arguments, nested messages included) and ('string', s) for every plain string
    argument. A yes/no argument is rendered as the message "yes" or "no"."""
    if isinstance(value, Msg):
        yield "template", value.template
        for arg in value.args.values():
            yield from _walk(arg)
    elif isinstance(value, str):
        yield "string", value
    elif isinstance(value, bool):
        yield "template", "yes" if value else "no"
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _walk(item)


def step_messages(step: Step) -> Iterator[Msg]:
    yield step.text
    if step.result is not None:
        yield step.result
    if step.target is not None:
        yield step.target.reason
        yield from (mod.reason for mod in step.target.modifiers)
    yield from (mod.reason for mod in step.modifiers)


def problems(step: Step, tables: dict[str, dict[str, str]]) -> Iterator[str]:
    for m in step_messages(step):
        for kind, text in _walk(m):
            if kind == "string":
                if any(c.isalpha() for c in text) and not CODE.fullmatch(text):
                    yield f"plain string argument {text!r} (never translated; use Msg)"
            elif needs_translation(text):
                for lang, table in tables.items():
                    if text not in table:
                        yield f"{lang}: no translation of {text!r}"


# "1 hits", "1 dice", "each of 1 teams": the singular needs its own template
ONE_PLURAL = re.compile(r"(?<![\d.])1 (teams|hits|dice|units|rounds|tanks|attacks|shots|"
                        r"orders|leaders|squads|points|successes|misses|platoons|calls)\b"
                        r"|\beach of 1\b")


def english_problems(step: Step) -> Iterator[str]:
    for m in step_messages(step):
        text = m.render()
        found = ONE_PLURAL.search(text)
        if found:
            yield f"en: {found.group(0)!r} in {text!r}"


PROCEDURES = {p.id: p for p in api.registry().procedures()}


def _check(proc: Procedure) -> tuple[int, dict[str, dict[str, Any]]]:
    """How many rolls were made, and every problem found with the parameters and seed
    of a roll that shows it."""
    tables = {lang: i18n.catalog(lang) for lang in LANGS}
    found: dict[str, dict[str, Any]] = {}
    rolls = [0]
    specs = list(api.param_specs(proc))

    @settings(max_examples=EXAMPLES, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(params_strategy(specs))
    def run(raw: dict[str, Any]) -> None:
        try:
            params = validate(proc, raw)
        except UsageError:
            return
        for seed in SEEDS:
            try:
                steps = drivers.roll(proc, params, seed=seed).steps
            except UsageError:
                return
            rolls[0] += 1
            for step in steps:
                for problem in itertools.chain(problems(step, tables),
                                               english_problems(step)):
                    found.setdefault(problem, {"params": raw, "seed": seed,
                                               "rule": step.rule})

    run()
    return rolls[0], found


def test_codes_and_placeholders_need_no_entry() -> None:
    for t in ("{n0} {c0}", "{n0} {c0}, {n1} {c1}", "{a}, {b}", "{what} {n}",
              "{title} ({side}): {summary}", "1KIA", "K/2", "NMC", "3MC", "FAO", "FAC"):
        assert not needs_translation(t), t
    for t in ("unharmed", "squad{n}", "squad1 MC", "{who} breaks (DM)", "MC DR"):
        assert needs_translation(t), t


def test_plain_strings_are_caught() -> None:
    step = Step("x", Msg("{who} breaks", {"who": "squad1"}),
                result=Msg("{res}", {"res": "1KIA"}))
    assert list(problems(step, {"pl": {"{who} breaks": "{who} się łamie"}})) == [
        "plain string argument 'squad1' (never translated; use Msg)"]


def test_one_in_the_plural_is_caught() -> None:
    bad = Step("x", Msg("{n} hits against {v}", {"n": 1, "v": 2}))
    good = Step("x", Msg("{n} hits against {v}", {"n": 11, "v": 1}))
    assert list(english_problems(bad)) == ["en: '1 hits' in '1 hits against 2'"]
    assert not list(english_problems(good))


@pytest.mark.parametrize("proc_id", sorted(PROCEDURES))
def test_every_step_word_is_translated(proc_id: str) -> None:
    rolls, found = _check(PROCEDURES[proc_id])
    assert rolls, "no valid parameters drawn: the procedure was never rolled"
    assert not found, "\n".join(f"{p}  (e.g. {w})" for p, w in sorted(found.items()))



def test_numbered_roll_names_are_translated() -> None:
    """Names that carry a number are templates (``"team with {k} hits"``, a unit's
    ``"squad{n}"``); the results a stack's checks can give are whole ids each."""
    from warroom.games.asl.morale import judge
    from warroom.games.asl.stack import UNIT_NAMES

    ids = [*UNIT_NAMES.values(), "MC", "PTC"]
    # the stack's result categories: every result one check can give
    ids += sorted({judge(o, o + drm, morale, kind, broken, elr).label()
                   for o in range(2, 13) for drm in range(-8, 12) for morale in range(1, 11)
                   for kind in ("mc", "ptc") for broken in (False, True)
                   for elr in (None, 0, 3)})
    ids += ["team with one hit"]  # a plural message, listed under its singular id
    for lang in LANGS:
        table = i18n.catalog(lang)
        assert not [t for t in ids if t not in table], lang
