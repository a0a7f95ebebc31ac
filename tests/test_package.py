"""The package as a user installs it: typed, licensed, one version, every import declared."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from pathlib import Path

import warroom

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "warroom"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))

# import name -> distribution name, where they differ
DISTRIBUTION = {"annotated_types": "annotated-types", "pydantic_core": "pydantic-core",
                "multipart": "python-multipart", "yaml": "pyyaml"}


def _declared() -> set[str]:
    names = set()
    for spec in PYPROJECT["project"]["dependencies"]:
        names.add(re.split(r"[<>=!~;\[ ]", spec, maxsplit=1)[0].lower())
    return names


def _imported() -> set[str]:
    found: set[str] = set()
    for path in SRC.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    return {m for m in found if m not in sys.stdlib_module_names and m != "warroom"}


def test_every_imported_distribution_is_declared() -> None:
    declared = _declared()
    missing = sorted(DISTRIBUTION.get(m, m).lower() for m in _imported()
                     if DISTRIBUTION.get(m, m).lower() not in declared)
    assert missing == []


def test_typed_licensed_and_versioned_once() -> None:
    assert (SRC / "py.typed").is_file()
    assert "MIT License" in (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert "version" in PYPROJECT["project"]["dynamic"]
    assert "version" not in PYPROJECT["project"]
    assert PYPROJECT["tool"]["hatch"]["version"]["path"] == "src/warroom/__init__.py"
    assert re.fullmatch(r"\d+\.\d+\.\d+", warroom.__version__)
    assert f"[{warroom.__version__}]" in (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    classifiers = PYPROJECT["project"]["classifiers"]
    assert "Typing :: Typed" in classifiers
    assert "License :: OSI Approved :: MIT License" in classifiers
