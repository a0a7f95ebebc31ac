"""Every text a Commander resolution shows has a Polish and a Chinese translation."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from warroom import api
from warroom.engine import drivers
from warroom.engine.messages import Msg
from warroom.i18n import catalog

# engine texts (dice, pools) live in core.po; ours are the rest
CASES: list[tuple[str, dict[str, Any]]] = [
    ("command", {"cv": 7, "order_number": 2, "distance_cm": 45, "difficult_terrain": True}),
    ("orders", {"cv": 9, "orders": 4}),
    ("artillery_call", {"cv": 9, "rocket_naval_units": 2, "self_propelled": True,
                        "rockets": True, "units": 5}),
    ("air_call", {"cv": 9, "aircraft": 2}),
    ("aa_fire", {"attacks": 6, "hits_value": 3}),
    ("fire", {"attacks": 5, "save": 5, "half_range": True, "flank": True}),
    ("fire", {"attacks": 6, "suppressed": True, "hits_value": 6, "target_hq": True}),
    ("fire", {"attacks": 2, "armoured": True, "indirect": True, "attack_marker": "*"}),
    ("assault", {"attacker": "engineers", "charge": True, "attacker_support": 1,
                 "defender_flanked": 1, "defender_suppressed": True, "defender_save": 5}),
    ("assault", {"attacker": "other", "defender": "other", "defender_dug_in": True}),
    ("fire", {"attackers": "2,1,1", "half_range": True}),
    ("air_strike", {"cv": 6, "aa_attacks": 3, "one_target": True, "hits_value": 2}),
    ("crossfire", {"targets": "open,open,open", "hits_value": 2}),
]


def has_words(template: str) -> bool:
    """Whether a template has text of its own (not only placeholders and punctuation)."""
    return bool(re.sub(r"\{[^}]*\}|[\W\d_]", "", template))


def templates(m: Any) -> Iterator[str]:
    if isinstance(m, Msg):
        yield m.template
        for v in m.args.values():
            yield from templates(v)
            if isinstance(v, (list, tuple)):
                for x in v:
                    yield from templates(x)


@pytest.mark.parametrize("lang", ["pl", "zh"])
def test_step_texts_are_translated(lang: str) -> None:
    table = catalog(lang)
    missing: set[str] = set()
    for game in ("bkc", "cwc"):
        for name, params in CASES:
            proc = api.registry().procedure(f"{game}.{name}")
            p = api.prepare(proc.id, params)[1]
            for seed in range(40):
                for step in drivers.roll(proc, p, seed=seed).steps:
                    found = [*templates(step.text), *templates(step.result)]
                    if step.target is not None:
                        found += templates(step.target.reason)
                        for mod in step.target.modifiers:
                            found += templates(mod.reason)
                    missing |= {t for t in found if t not in table
                                and not t.startswith("1 ") and has_words(t)}
    assert not missing, sorted(missing)


@pytest.mark.parametrize("lang", ["pl", "zh"])
def test_procedure_texts_are_translated(lang: str) -> None:
    table = catalog(lang)
    for game in ("bkc", "cwc"):
        for proc in api.registry().system(game).procedures:
            for text in (proc.title, proc.summary, proc.note):
                assert not text or text in table, text


@pytest.mark.parametrize(("lang", "words"), [
    ("pl", ("modyfikatory testu dowodzenia", "Ogień krzyżowy!", "fortyfikacje: 6+",
            "porażki dowodzenia")),
    ("zh", ("指挥检定修正", "交叉火力！", "指挥失误")),
])
def test_rules_tables_read_in_the_language(lang: str, words: tuple[str, ...],
                                           capsys: pytest.CaptureFixture[str]) -> None:
    from warroom.cli import main

    assert main(["--lang", lang, "rules", "bkc"]) == 0
    out = capsys.readouterr().out
    for word in words:
        assert word in out, word
    # the table names and texts are translated, not shown as English ids
    assert "command_modifiers" not in out and "hit_scores" not in out


def test_every_table_text_is_translated() -> None:
    # every key and text of the BKC/CWC tables with words in it has pl and zh
    def texts(v: Any) -> Iterator[str]:
        if isinstance(v, dict):
            for k, x in v.items():
                yield str(k)
                yield from texts(x)
        elif isinstance(v, list):
            for x in v:
                yield from texts(x)
        elif isinstance(v, str):
            yield v

    for lang in ("pl", "zh"):
        table = catalog(lang)
        for game in ("bkc", "cwc"):
            for name, value in api.registry().system(game).tables.items():
                missing = [t for t in (name, *texts(value))
                           if re.search(r"[a-z]{2}", t) and t not in table]
                assert not missing, (lang, game, missing)
