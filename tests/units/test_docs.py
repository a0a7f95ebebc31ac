"""Every command and the Python example of docs/units.md, and README's units line, run."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from tests.test_cli import run

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "units.md").read_text(encoding="utf-8")
BLOCK = re.compile(r"```(sh|python)\n(.*?)```", re.S)


def commands() -> list[str]:
    out = [line for kind, body in BLOCK.findall(DOC) if kind == "sh"
           for line in body.splitlines() if line.startswith("warroom ")]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    out += [line.split("  #")[0] for line in readme.splitlines()
            if line.startswith("warroom ") and "--from" in line]
    return out


def test_the_doc_has_commands_for_every_game() -> None:
    found = commands()
    assert len(found) >= 8
    for game in ("fow", "asl", "bkc", "cwc"):
        assert any(f"example:{game}" in c for c in found), game


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One directory for the doc's commands, in order: a file one writes (``force
    import -o company.toml``) is there for the next; none lands in the source tree."""
    return tmp_path_factory.mktemp("units-doc")


@pytest.mark.parametrize("command", commands())
def test_command_runs(capsys: pytest.CaptureFixture[str], command: str, workdir: Path,
                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(workdir)
    code, out, err = run(capsys, *shlex.split(command)[1:])
    assert code == 0, err
    assert out


def test_python_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    (code,) = [body for kind, body in BLOCK.findall(DOC) if kind == "python"]
    exec(compile(code, "docs/units.md", "exec"), {})
    out = capsys.readouterr().out
    assert out.startswith("125/216\n10 Panthers, front armour\n")


def test_docstring_example() -> None:
    import doctest

    import warroom.units

    assert doctest.testmod(warroom.units).failed == 0
