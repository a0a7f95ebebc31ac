"""The CLI contract: outputs, and every error path (exit 2, a message, no traceback)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from warroom.cli import main


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_odds_json_exact(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "odds", "demo.pool", "dice=2", "at=4", "--json", "--exact")
    assert code == 0
    data = json.loads(out)
    assert data["procedure"] == "demo.pool"
    assert data["params"] == {"dice": 2, "at": 4, "reroll": "none"}
    assert data["outcomes"] == [
        {"outcome": {"successes": 0}, "p": 0.25, "exact": "1/4"},
        {"outcome": {"successes": 1}, "p": 0.5, "exact": "1/2"},
        {"outcome": {"successes": 2}, "p": 0.25, "exact": "1/4"},
    ]


def test_odds_json_without_exact(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "odds", "demo.pool", "dice=1", "--json")
    assert code == 0
    assert "exact" not in json.loads(out)["outcomes"][0]


def test_odds_human(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "odds", "demo.pool", "dice=3")
    assert code == 0
    assert "at least" in out and "12.50%" in out and "█" in out


def test_roll_json_with_dice(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "roll", "demo.pool", "dice=3", "--dice", "3,5,6", "--json")
    assert code == 0
    data = json.loads(out)
    assert set(data) == {"procedure", "params", "outcome", "steps", "dice", "seed"}
    assert data["outcome"] == {"successes": 2}
    assert data["dice"] == [3, 5, 6]
    assert data["seed"] is None
    assert data["steps"][0]["dice"] == [3, 5, 6]


def test_roll_seeded_is_repeatable(capsys: pytest.CaptureFixture[str]) -> None:
    _, a, _ = run(capsys, "roll", "demo.pool", "--seed", "9", "--json")
    _, b, _ = run(capsys, "roll", "demo.pool", "--seed", "9", "--json")
    assert a == b and json.loads(a)["seed"] == 9


def test_roll_human_story(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "roll", "demo.pool", "dice=2", "at=5", "--dice", "5 2")
    assert code == 0
    assert "needing 5+" in out and "5 2" in out and "successes = 1" in out


def test_a_target_any_roll_meets_reads_1_plus(capsys: pytest.CaptureFixture[str]) -> None:
    # armour 12 against AT 10: any die saves; the story says 1+, not "-1+"
    code, out, _ = run(capsys, "roll", "fow.shoot", "target=tank", "armour=12", "at=10",
                       "dice=1", "--dice", "6,3")
    assert code == 0
    assert "[target number 1+]" in out and "-1+" not in out


def test_story_says_a_target_number_once(capsys: pytest.CaptureFixture[str]) -> None:
    # "needing 3+" already says the number: the bracket only says where it comes from;
    # a step whose text has no number (an armour save) keeps it, and modifiers show
    code, out, _ = run(capsys, "roll", "fow.shoot", "target=tank", "dice=1", "--dice", "5,6")
    assert code == 0
    assert "needing 3+   [target is trained]" in out and "[target number 3+]" not in out
    assert "one die   [target number 2+]" in out
    code, out, _ = run(capsys, "roll", "fow.shoot", "concealed=true", "dice=1", "--dice", "2")
    assert code == 0
    assert "[target number 4+: 3 target is trained, +1 concealed]" in " ".join(out.split())


def test_simulate_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "simulate", "demo.pool", "dice=4", "--samples", "2000",
                       "--seed", "3", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["samples"] == 2000 and data["seed"] == 3
    assert abs(sum(r["p"] for r in data["outcomes"]) - 1) < 1e-9
    assert all(r["ci95"][0] <= r["p"] <= r["ci95"][1] for r in data["outcomes"])
    assert "successes" in data["means"]


def test_rules_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rules", "demo", "--json")
    assert code == 0
    (system,) = json.loads(out)
    (proc,) = system["procedures"]
    assert proc["id"] == "demo.pool"
    names = {p["name"]: p for p in proc["params"]}
    assert names["reroll"]["choices"] == ["none", "misses", "hits"]
    assert names["dice"]["type"] == "int" and names["dice"]["default"] == 6
    assert proc["outcome"][0]["name"] == "successes"


def test_rules_all_human(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rules")
    assert code == 0 and "demo.pool" in out


def test_rules_show_a_whole_fraction_default_as_a_whole_number(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rules", "asl")
    assert code == 0
    assert "fp  fraction · default 8 · 0..200" in out and "8.0" not in out


ERRORS = [
    (("odds", "demo.pol"), "did you mean 'demo.pool'"),
    (("odds", "nogame.pool"), "unknown procedure"),
    (("odds", "shoot"), "did you mean 'fow.shoot'"),
    (("odds", "fow.assualt"), "did you mean 'fow.assault'"),
    # only the game in common: no suggestion, a full stop, then the game's procedures
    (("odds", "bkc.xyz"), "unknown procedure 'bkc.xyz'. Valid: bkc.command"),
    (("odds", "demo.pool", "dcie=3"), "did you mean 'dice'"),
    (("odds", "demo.pool", "dice=abc"), "parameter 'dice'"),
    (("odds", "demo.pool", "dice=-1"), "from 0 to 200"),
    (("odds", "demo.pool", "reroll=sometimes"), "none, misses, hits"),
    (("odds", "demo.pool", "dice"), "expected key=value"),
    (("odds", "demo.pool", "dice=1", "dice=2"), "given twice"),
    (("roll", "demo.pool", "dice=3", "--dice", "1,2"), "1 more needed for dice"),
    (("roll", "demo.pool", "dice=1", "--dice", "1,2"), "too many dice"),
    (("roll", "demo.pool", "dice=1", "--dice", "9"), "from 1 to 6"),
    (("roll", "demo.pool", "dice=1", "--dice", "x"), "from 1 to 6"),
    (("roll", "demo.pool", "--dice", "1", "--seed", "3"), "either --dice or --seed"),
    (("roll", "demo.pool", "--dice", ""), "at least one die"),
    (("simulate", "demo.pool", "--samples", "0"), "samples"),
    (("rules", "chess"), "unknown game system"),
    # the parser's own refusals, told like every other usage error (one line, exit 2)
    (("odds",), "error: missing PROCEDURE"),
    (("frobnicate",), "error: no such command: frobnicate"),
    (("roll", "demo.pool", "--seed", "abc"), "invalid value for --seed: give a whole number"),
    (("odds", "demo.pool", "--bogus"), "error: no such option: --bogus"),
]


@pytest.mark.parametrize(("args", "message"), ERRORS, ids=[" ".join(a) for a, _ in ERRORS])
def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], args: tuple[str, ...],
                             message: str) -> None:
    code, out, err = run(capsys, *args)
    assert code == 2
    assert message in err
    assert "Traceback" not in err + out


def test_console_script_exit_code_and_no_traceback() -> None:
    env = dict(os.environ, WARROOM_DEBUG="")
    proc = subprocess.run([sys.executable, "-m", "warroom.cli", "odds", "demo.pool", "at=99"],
                          capture_output=True, text=True, env=env, check=False)
    assert proc.returncode == 2
    assert "parameter 'at'" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_help(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--help")
    assert code == 0
    for word in ("rules", "odds", "roll", "simulate"):
        assert word in out


@pytest.mark.parametrize(("lang", "usage", "text"), [("pl", "Użycie: warroom odds [OPCJE]",
                                                     "<tekst>"),
                                                    ("zh", "用法： warroom odds [选项]", "<文本>")])
def test_help_frames_in_the_language(lang: str, usage: str, text: str,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    """--help's usage line and value types in the language asked for (Typer's own
    copy of Click writes them in English)."""
    code, out, _ = run(capsys, "--lang", lang, "odds", "--help")
    assert code == 0
    flat = " ".join(out.split())
    assert usage in flat and text in flat and "Usage:" not in flat and "<str>" not in flat
    assert "[required]" not in flat and "[default:" not in flat
    code, out, _ = run(capsys, "--lang", lang, "serve", "--help")
    assert ("[domyślnie: 8000]" if lang == "pl" else "[默认：8000]") in out
    code, out, _ = run(capsys, "odds", "--help")  # English again where none is asked
    assert "Usage: warroom odds [OPTIONS]" in " ".join(out.split()) and "[required]" in out


@pytest.mark.parametrize("command", ["odds", "roll", "simulate"])
def test_command_help_explains_the_arguments(command: str,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    # the positional arguments carry their own help (lost with click 8.5 and Typer < 0.22:
    # click is pinned below 8.5 until Typer renders it again)
    code, out, _ = run(capsys, command, "--help")
    assert code == 0
    assert "game.procedure" in out and "key=value" in out


def test_a_commands_exit_code_is_kept(capsys: pytest.CaptureFixture[str]) -> None:
    import typer

    from warroom.cli import app

    @app.command("exit-three", hidden=True)
    def _exit_three() -> None:
        raise typer.Exit(3)

    try:
        assert main(["exit-three"]) == 3
    finally:
        app.registered_commands[:] = [c for c in app.registered_commands
                                      if c.name != "exit-three"]


def test_odds_headers_in_polish_and_chinese(capsys: pytest.CaptureFixture[str]) -> None:
    _, en, _ = run(capsys, "odds", "fow.shoot", "dice=2")
    assert "hits" in en and "chance" in en and "trafienia" not in en
    code, pl, _ = run(capsys, "odds", "fow.shoot", "dice=2", "--lang", "pl")
    assert code == 0
    assert "trafienia" in pl and "porzucone" in pl and "szansa" in pl
    assert "trafienia: co najmniej N" in pl and "bailed_out" not in pl
    code, zh, _ = run(capsys, "--lang", "zh", "odds", "fow.shoot", "dice=2")
    assert code == 0
    assert "命中数" in zh and "弃车" in zh and "概率" in zh


def test_json_ignores_the_language(capsys: pytest.CaptureFixture[str]) -> None:
    _, en, _ = run(capsys, "odds", "fow.shoot", "dice=2", "--json")
    _, pl, _ = run(capsys, "odds", "fow.shoot", "dice=2", "--json", "--lang", "pl")
    assert en == pl and '"bailed_out"' in pl


def test_roll_and_simulate_fields_translated(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "roll", "fow.shoot", "dice=2", "--dice", "6,6,1,1", "--lang", "pl")
    assert "trafienia = 2" in out
    _, out, _ = run(capsys, "simulate", "bkc.fire", "--samples", "500", "--seed", "1",
                    "--lang", "zh")
    assert "命中数" in out and "平均" in out


def test_rules_never_cut_a_long_value_short(capsys: pytest.CaptureFixture[str]) -> None:
    # a text parameter's default and the example in its meaning are read in full
    _, out, _ = run(capsys, "rules", "asl")
    assert "default 4-6-7,8-1\n" in out
    assert "4-6-7,4-6-7:broken,9-2:wounded" in out
    assert "…" not in out


def test_rules_show_labels_beside_names(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "rules", "demo", "--lang", "pl")
    assert "dice (kości)" in out and "successes (udane)" in out
    _, out, _ = run(capsys, "rules", "demo")
    assert "dice (" not in out and "outcome: successes\n" in out


def test_every_command_summary_is_one_unbroken_paragraph() -> None:
    # rich help keeps the line breaks of a docstring: a summary wrapped in the source
    # showed broken in 'warroom --help'. Each command's first paragraph is one line.
    import typer

    from warroom import cli

    cli._register_subcommands()
    group = typer.main.get_command(cli.app)
    seen = []

    def walk(command: object, path: str) -> None:
        for name, sub in getattr(command, "commands", {}).items():
            first = (sub.help or "").split("\n\n")[0].strip()
            assert first and "\n" not in first, f"{path} {name}: {first!r}"
            seen.append(f"{path} {name}")
            walk(sub, f"{path} {name}")

    walk(group, "warroom")
    assert "warroom rules" in seen and "warroom battle verify" in seen


def test_one_die_reads_in_the_singular(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "roll", "demo.pool", "dice=1", "reroll=misses", "--dice", "1 5")
    assert code == 0
    assert "one die needing 4+, a miss re-rolled" in out and "1 dice" not in out
    code, out, _ = run(capsys, "--lang", "pl", "roll", "demo.pool", "dice=1", "--dice", "5")
    assert code == 0 and "jedna kość, wymagany rzut 4+" in out


# --------------------------------------------------------------- CLI conventions (#23)
def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    import warroom

    code, out, _ = run(capsys, "--version")
    assert (code, out) == (0, f"warroom {warroom.__version__}\n")


def test_python_dash_m_warroom() -> None:
    done = subprocess.run([sys.executable, "-m", "warroom", "odds", "demo.pool", "dice=1",
                           "--json"], capture_output=True, text=True, check=False,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["procedure"] == "demo.pool"


def test_rules_of_one_procedure(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rules", "fow.shoot", "--json")
    assert code == 0
    [system] = json.loads(out)
    assert system["id"] == "fow" and system["tables"] == {}
    assert [p["id"] for p in system["procedures"]] == ["fow.shoot"]
    code, text, _ = run(capsys, "rules", "demo.pool")
    assert code == 0 and "demo.pool" in text and "reroll" in text
    code, _, err = run(capsys, "rules", "fow.shot")
    assert code == 2 and "did you mean 'fow.shoot'" in err


@pytest.mark.parametrize("where", ["root", "command"])
def test_an_unknown_language_is_a_usage_error(capsys: pytest.CaptureFixture[str],
                                              where: str) -> None:
    args = (["--lang", "de", "odds", "demo.pool"] if where == "root"
            else ["odds", "demo.pool", "--lang", "de"])
    code, out, err = run(capsys, *args)
    assert code == 2 and out == ""
    assert err == "error: unknown language 'de'; did you mean 'en'? Valid: en, pl, zh.\n"
    code, _, _ = run(capsys, "--lang", "pl_PL", "odds", "demo.pool", "dice=1")
    assert code == 0


def test_errors_under_json_are_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "odds", "demo.pool", "dice=x", "--json")
    assert code == 2 and err == ""
    error = json.loads(out)["error"]
    assert error["code"] == "invalid_parameter" and error["parameter"] == "dice"
    assert error["message"].startswith("parameter 'dice': 'x' is not valid")
    code, out, _ = run(capsys, "roll", "demo.pool", "dcie=3", "--json", "--lang", "pl")
    assert code == 2
    error = json.loads(out)["error"]
    assert (error["code"], error["parameter"]) == ("unknown_parameter", "dcie")
    assert "dice" in error["message"] and "unknown parameter" not in error["message"]
    code, out, _ = run(capsys, "odds", "fow.nope", "--json")
    assert json.loads(out)["error"]["code"] == "unknown_procedure"


def test_every_error_class_has_a_stable_code() -> None:
    from warroom import errors
    from warroom.battle import errors as battle_errors

    codes = {cls: cls.code for mod in (errors, battle_errors) for cls in vars(mod).values()
             if isinstance(cls, type) and issubclass(cls, errors.WarroomError)}
    assert codes[errors.UnknownProcedureError] == "unknown_procedure"
    assert codes[errors.TooFewDiceError] == "too_few_dice"
    assert codes[battle_errors.StaleStateError] == "stale"
    assert len(set(codes.values())) == len(codes)  # one class, one code


def test_read_only_battle_commands_create_nothing(capsys: pytest.CaptureFixture[str],
                                                  tmp_path: pytest.TempPathFactory) -> None:
    from pathlib import Path

    folder = Path(str(tmp_path)) / "nonexistent" / "dir"
    for words in (["list"], ["show", "abc"], ["log", "abc"], ["luck", "abc"]):
        code, _, err = run(capsys, "battle", "--db", str(folder / "b.db"), *words)
        assert code == 2 and err.startswith("error: no battles at "), err
    assert not folder.parent.exists()
    code, _, _ = run(capsys, "battle", "--db", str(folder / "b.db"), "new", "demo")
    assert code == 0 and (folder / "b.db").is_file()


@pytest.mark.parametrize(("words", "expected"), [
    ("warroom odds fow.shoot_m", ["fow.shoot_mixed"]),
    ("warroom rules bkc.as", ["bkc.assault"]),
    ("warroom roll demo.pool re", ["reroll="]),
    ("warroom odds demo.pool reroll=", ["reroll=none", "reroll=misses", "reroll=hits"]),
    ("warroom si", ["simulate"]),
])
def test_shell_completion(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                          words: str, expected: list[str]) -> None:
    monkeypatch.setenv("_WARROOM_COMPLETE", "complete_bash")
    monkeypatch.setenv("COMP_WORDS", words)
    monkeypatch.setenv("COMP_CWORD", str(len(words.split()) - 1))  # the last word
    code, out, _ = run(capsys)
    assert code == 0
    assert out.split() == expected


@pytest.mark.parametrize("args", [
    ["odds", "asl.ift", "fp=" + "x" * 5000],
    ["odds", "asl.ift_on_stack", "units=" + "x" * 5000],
    ["odds", "fow.shoot_mixed", "teams=tank," + "x" * 5000],
    ["odds", "x" * 5000],
    ["odds", "asl.ift", "x" * 5000 + "=3"],
    ["roll", "asl.ift", "--dice", "x" * 5000],
])
def test_errors_echo_only_a_short_prefix_of_a_bad_value(
        args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    # a 5 KB value typed by mistake (or pasted) comes back as its first SHOWN characters
    from warroom.errors import SHOWN

    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "x" * (SHOWN + 1) not in err and len(err) < 1000
    assert main([*args, "--json"]) == 2
    error = json.loads(capsys.readouterr().out)["error"]
    assert "x" * (SHOWN + 1) not in error["message"]
    assert len(str(error["parameter"])) <= SHOWN + 1
