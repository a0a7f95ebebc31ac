"""Build hook: compile the translation catalogs (``.po``) to ``.mo`` with Babel.

Runs for wheels and for editable installs (``pip install -e .``), so an installed
warroom always has its catalogs compiled. The ``.mo`` files are build products
(gitignored); the loader compiles a ``.po`` in memory where its ``.mo`` is missing or
older (see :mod:`warroom.i18n`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class CatalogsHook(BuildHookInterface):  # type: ignore[type-arg,misc]
    PLUGIN_NAME = "catalogs"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        from babel.messages.mofile import write_mo
        from babel.messages.pofile import read_po

        root = Path(self.root) / "src" / "warroom" / "i18n"
        for po in sorted(root.glob("*/LC_MESSAGES/*.po")):
            with po.open("rb") as fh:
                catalog = read_po(fh, locale=po.parent.parent.name, domain=po.stem)
            with po.with_suffix(".mo").open("wb") as out:
                write_mo(out, catalog, use_fuzzy=False)
