"""A rule's page names its sources by their titles in the page's language."""

from __future__ import annotations

import re
from typing import Any

import pytest


@pytest.mark.parametrize(("lang", "source"), [
    ("en", "FoW article on shooting; FoW article on the effects of hits; FoW reference "
           "card, shooting"),
    ("pl", "artykuł FoW o strzelaniu; artykuł FoW o skutkach trafień; karta referencyjna "
           "FoW, strzelanie"),
    ("zh", "FoW 射击文章; FoW 命中效果文章; FoW 参考卡，射击"),
])
def test_a_rules_sources_read_in_the_language(client: Any, lang: str, source: str) -> None:
    page = client.get(f"/p/fow.shoot?lang={lang}", headers={"accept": "text/html"}).text
    found = re.search(r'<p class="source">[^:：]*[:：] ?(.*?)</p>', page)
    assert found is not None and found.group(1) == source, found
