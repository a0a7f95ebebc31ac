"""The message templates (``make messages``) and the catalogs: each ``.pot`` is current
(a message added to the sources without ``make messages`` fails here), each Polish and
Chinese catalog holds exactly its template's messages (none missing, the pair the same
set, a counted message counted in both), and every message that prints a count has
plural forms."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

from warroom.i18n import templates

ROOT = Path(__file__).resolve().parents[1]
LANGS = ["pl", "zh"]


@cache
def current() -> dict[str, set[templates.MessageId]]:
    return templates.templates(ROOT)


def test_each_template_is_current() -> None:
    committed = {path.stem: templates.read(path) for path in templates.POT_DIR.glob("*.pot")}
    assert set(committed) == set(current()), "run `make messages`"
    for domain, ids in current().items():
        stale = sorted(map(str, committed[domain] ^ ids))
        assert not stale, f"{domain}.pot is not current (run `make messages`): {stale[:10]}"


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("domain", sorted(templates.domains()))
def test_each_catalog_holds_its_templates_messages(lang: str, domain: str) -> None:
    wanted = templates.read(templates.POT_DIR / f"{domain}.pot")
    held = set(templates.catalog_ids(lang, domain))
    missing = sorted(map(str, wanted - held))
    extra = sorted(map(str, held - wanted))
    assert not missing, f"{lang}/{domain}.po misses {missing[:10]} (run `make messages`)"
    assert not extra, f"{lang}/{domain}.po holds messages of no template: {extra[:10]}"


def test_the_templates_find_a_new_message_in_the_domain_of_its_file(tmp_path: Path) -> None:
    # a message the sources define and no catalog holds yet: it lands in its area's
    # template (and then, by pybabel update, untranslated in both catalogs)
    assert templates.area("src/warroom/games/fow/special_rules/us.py") == "fow_special"
    assert templates.area("src/warroom/games/asl/ift.py") == "asl"
    assert templates.area("src/warroom/cli_render.py") == "cli"
    assert templates.area("src/warroom/engine/roll.py") == "core"
    assert not templates.translatable("{a}, {b}")
    assert not templates.translatable("empty battle log")
    assert templates.translatable("{n} hits")


# A count printed before a noun: "{n} hits", "{teams} teams", "at most {most} characters".
# Such a message must be an nmsg/ngettext plural: Polish says 1 trafienie, 2 trafienia,
# 5 trafień, and a catalog can only do so with plural forms.
COUNTED = re.compile(
    r"\{(?!kind\b|rating\b|game\b|side\b|unit\b|name\b|who\b)(\w+)(?:[:!][^}]*)?\} "
    r"(?:more |other |extra |failed |attack |supporting |fighting |infantry )?"
    r"(hits|teams|dice|units|tanks|guns|hexes|rounds|events|rolls|names|outcomes|samples|"
    r"minutes|seconds|characters|platoons|battles|markers|aircraft|shots|steps|times)\b")

ONE_FORM: frozenset[str] = frozenset({
    # expected values, shown as fractions (2/9): no count for a plural form to agree with
    "the owner allocates the hits where the rules leave a choice so as to lose the fewest "
    "teams: {destroyed} teams expected destroyed, {bailed} tanks expected bailed out",
    # counts of a constant (a unit name's and a stat's longest length, the request time
    # cap): each translation is worded for the constant's value ("najwyżej 60 znaków")
    "a unit name is 1 to {most} characters without '='",
    "the request took longer than {most} seconds and was stopped; ask again in a moment, "
    "or ask something smaller",
    "{name}: {start!r}... is too long (at most {most} characters)",
    "{name}: the value is too long (at most {most} characters)",
    "the request body did not arrive within {most} seconds",
    "{field}: at most {most} characters",
    "the force is too long: at most {most} characters",
    # worded so that one form serves every count: Polish "odczekaj {minutes} min",
    # "zalicza test {n} z {total} plutonów" (the genitive after "z" for any total)
    "too many battles started from this address; wait {minutes} minutes",
    "The roll of {face} passes {n} of {total} platoons.",
    "too many whole-log reads (verify, export, log) from this address; wait {minutes} minutes",
    # "liczba jednostek to {count}" ("the number of units is ...")
    "{unit}: counter={n}, but it has {count} units",
})
"""Counted messages left without plural forms, each for its reason. A new counted message
needs nmsg/ngettext (or errors.counted) and every plural form in each catalog."""


def counted_without_plural() -> list[str]:
    found = []
    for ids in current().values():
        for mid in ids:
            if isinstance(mid, str) and COUNTED.search(mid):
                found.append(mid)
    return sorted(found)


def test_every_counted_message_has_plural_forms() -> None:
    found = counted_without_plural()
    new = [m for m in found if m not in ONE_FORM]
    assert not new, f"counted messages without plural forms (use nmsg/ngettext): {new}"
    # and each one listed is still a message (the list only shrinks)
    assert not ONE_FORM - set(found), sorted(ONE_FORM - set(found))


def test_the_heuristic_sees_a_count() -> None:
    assert COUNTED.search("{hits} hits: {r} of {teams} teams take one hit each")
    assert COUNTED.search("at most {most} characters")
    assert not COUNTED.search("{unit}, {kind} teams")
    assert not COUNTED.search("units of {game} battles carry no profiles")


@pytest.mark.parametrize(("lang", "n", "text"), [
    ("en", 1, "donor 'a': must keep at least 1 tank"),
    ("en", 2, "donor 'a': must keep at least 2 tanks"),
    ("pl", 1, "pluton 'a': musi zachować co najmniej 1 czołg"),
    ("pl", 2, "pluton 'a': musi zachować co najmniej 2 czołgi"),   # 2-4
    ("pl", 5, "pluton 'a': musi zachować co najmniej 5 czołgów"),  # 5-21
    ("zh", 5, "交出单位的排 'a'：至少要保留 5 辆坦克"),
])
def test_a_counted_error_reads_in_each_language(lang: str, n: int, text: str) -> None:
    # through UsageError and error_message, as the CLI and the pages show it (the value
    # echoed is clipped: the plural must survive that)
    from warroom import i18n
    from warroom.errors import UsageError, counted, error_message

    exc = UsageError(counted("donor {item!r}: must keep at least {n} tank",
                             "donor {item!r}: must keep at least {n} tanks", n=n, item="a"))
    assert error_message(exc, i18n.translator(lang)) == text
