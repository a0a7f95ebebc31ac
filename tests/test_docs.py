"""Every example in README.md and docs/*.md runs as written: each ``warroom ...`` line of a
```sh block through the command line (in-process, battles in a temporary database, the
battle id that ``battle new`` prints put where the docs write ID), and each ```python
block of the README."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from warroom.cli import main

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"```(\w*)\n(.*?)```", re.S)
LONG_RUNNING = {("serve",)}  # starts a server: checked by the web tests instead


def blocks(path: Path, kind: str) -> list[str]:
    return [body for lang, body in BLOCK.findall(path.read_text(encoding="utf-8"))
            if lang == kind]


def commands(path: Path) -> list[list[str]]:
    """The ``warroom`` commands of a file's sh blocks, in order, comments left out; a
    line with ``;`` holds several."""
    out: list[list[str]] = []
    for body in blocks(path, "sh"):
        for line in body.splitlines():
            for part in line.split(";"):
                words = shlex.split(part, comments=True)
                if words and words[0] == "warroom":
                    out.append(words[1:])
    return out


SH_FILES = [p for p in DOCS if commands(p)]


def test_the_docs_have_examples() -> None:
    assert {p.name for p in SH_FILES} >= {"README.md", "battle.md"}
    assert blocks(ROOT / "README.md", "python")


@pytest.mark.parametrize("path", SH_FILES, ids=[p.name for p in SH_FILES])
def test_every_shell_example_runs(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("WARROOM_DB", str(tmp_path / "battles.db"))
    monkeypatch.chdir(tmp_path)
    battle_id = ""
    for words in commands(path):
        if tuple(words[:1]) in LONG_RUNNING:
            continue
        target = None
        if ">" in words:  # `... > battle.json`
            at = words.index(">")
            words, target = words[:at], words[at + 1]
        words = [battle_id if w == "ID" else w for w in words]
        code = main(words)
        out, err = capsys.readouterr()
        assert code == 0, f"warroom {shlex.join(words)}\n{err}"
        if words[:2] == ["battle", "new"]:
            battle_id = re.findall(r"\b[0-9a-f]{8}\b", out)[0]
        if target:
            (tmp_path / target).write_text(out, encoding="utf-8")


def test_the_readme_python_examples_run() -> None:
    for body in blocks(ROOT / "README.md", "python"):
        exec(compile(body, "README.md", "exec"), {})  # our own docs, run as written


def curls(path: Path) -> list[list[str]]:
    """The ``curl`` commands of a file's sh blocks, as words."""
    return [shlex.split(line) for body in blocks(path, "sh") for line in body.splitlines()
            if line.startswith("curl ")]


def test_the_curl_examples_answer_as_the_docs_say(tmp_path: Path) -> None:
    """docs/web.md's curl lines, sent to the app in process: each answers, the last (an
    unknown procedure) with the documented error body."""
    import json
    import warnings
    from urllib.parse import urlsplit

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # starlette's note on httpx, not ours
        from fastapi.testclient import TestClient

    from warroom.web.app import create_app

    examples = curls(ROOT / "docs" / "web.md")
    assert len(examples) >= 4
    answers = []
    with TestClient(create_app(tmp_path / "battles.sqlite3")) as client:
        for words in examples:
            method, headers, data, url = "GET", {}, None, ""
            it = iter(words[1:])
            for word in it:
                if word == "-X":
                    method = next(it)
                elif word == "-H":
                    name, _, value = next(it).partition(":")
                    headers[name.strip()] = value.strip()
                elif word == "-d":
                    data = next(it)
                elif not word.startswith("-"):
                    url = word
            parts = urlsplit(url)
            assert parts.hostname == "127.0.0.1" and parts.port == 8000
            target = parts.path + (f"?{parts.query}" if parts.query else "")
            answers.append(client.request(method, target, headers=headers, content=data))
    assert all(a.status_code == 200 for a in answers[:-1]), [a.text for a in answers]
    assert answers[-1].status_code == 422
    assert json.loads(answers[-1].text)["error"]["code"] == "unknown_procedure"
