"""A stack's outcome as players read it at 80 columns, on the page and in JSON: one
summary per unit named by the unit (squad1, hs1, leader1), states from ok to
eliminated; the unit1 ... unit10 fields (which repeat the units field) and empty unit
slots never shown as columns or summaries."""

from __future__ import annotations

import json
import re
from fractions import Fraction as F
from typing import Any

import pytest

from warroom.cli import main

K1 = ["odds", "asl.ift_on_stack", "result=K/1", "units=4-6-7,2-4-8,8-1"]
KIA = ["odds", "asl.ift_on_stack", "result=1KIA", "units=squad:7,squad:7", "--exact"]


def run(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        *args: str) -> str:
    monkeypatch.setenv("COLUMNS", "80")
    assert main(list(args)) == 0
    out: str = capsys.readouterr().out
    return out


def test_summary_once_per_unit_named_and_ordered(capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    out = run(capsys, monkeypatch, *K1)
    titles = [line.strip() for line in out.splitlines() if line.startswith("units:")]
    assert titles == ["units: squad1", "units: hs1", "units: leader1"]
    assert not re.search(r"^unit\d", out, re.M)  # no second summary by slot
    squad = out.split("units: squad1")[1].split("units: hs1")[0]
    states = [line.split()[0] for line in squad.strip().splitlines()]
    assert states == ["ok", "pinned", "reduced", "reduced+pinned", "broken",
                      "reduced+broken", "eliminated"]


def test_few_outcomes_one_column_per_unit_at_80(capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    out = run(capsys, monkeypatch, *KIA)
    assert max(len(line) for line in out.splitlines()) <= 80
    head = next(line for line in out.splitlines() if "squad1" in line)
    assert "squad2" in head and "eliminated" in head and "unit" not in head
    assert "…" not in out and " - " not in out
    # 1KIA on two 7-morale squads: each die ties the other 1/6 of the time, and then
    # both are selected (A.9): both eliminated 1/6; else one of them, 5/12 each
    assert re.search(r"eliminated\s+│\s+eliminated\s+│\s+2\s+│\s+0\s+│\s+16.67%"
                     r"\s+│\s+1/6", out)
    # no unit is ever pinned by a KIA: said once, not as a column of zeros
    assert "in every outcome: pinned = 0" in out
    assert "squad1: broken 41.67%, eliminated 58.33%" in out


def test_few_outcomes_in_chinese(capsys: pytest.CaptureFixture[str],
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    out = run(capsys, monkeypatch, "--lang", "zh", *KIA)
    head = next(line for line in out.splitlines() if "班1" in line)
    assert "班2" in head and "unit1" not in out and "…" not in out


def test_json_summary_leaves_repeated_fields_out(capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    data: dict[str, Any] = json.loads(run(capsys, monkeypatch, *K1, "--json", "--exact"))
    assert list(data["summary"]) == ["units: squad1", "units: hs1", "units: leader1",
                                     "eliminated", "broken", "pinned"]
    hs = {row["value"]: F(row["exact"]) for row in data["summary"]["units: hs1"]}
    assert list(hs) == ["ok", "pinned", "broken", "eliminated"]
    # every whole outcome still carries every field (the schema is stable)
    full = json.loads(run(capsys, monkeypatch, *KIA, "--json"))
    assert full["outcomes"][0]["outcome"]["unit3"] == "-"


def test_page_joint_table_and_summary(client: Any) -> None:
    page = client.get("/p/asl.ift_on_stack?result=1KIA&units=squad:7,squad:7").text
    odds = page.split('id="odds"')[1]
    heads = re.findall(r"<th>([^<]*)</th>", odds.split('class="odds-table joint"')[1])
    assert heads == ["squad1", "squad2", "eliminated", "broken", "chance"]
    assert "<h3>units: squad1" in odds and ">unit1<" not in odds
    zh = client.get("/p/asl.ift_on_stack?result=1KIA&units=squad:7,squad:7&lang=zh").text
    joint = zh.split('class="odds-table joint"')[1]
    assert re.findall(r"<th>([^<]*)</th>", joint)[:2] == ["班1", "班2"]
    assert "部队: 班1" in zh.split('id="odds"')[1]


def test_long_value_names_are_tilted_under_their_bars() -> None:
    # "eliminated" is wider than a bar: tilted so the names do not run into each other;
    # short numbers stay upright
    from fractions import Fraction

    from warroom.web.charts import Row, bar_chart

    svg = str(bar_chart([Row("broken", Fraction(5, 12)), Row("eliminated", Fraction(7, 12))]))
    assert svg.count('transform="rotate(-35') == 2
    assert "rotate" not in str(bar_chart([Row(0, Fraction(1, 3)), Row(1, Fraction(2, 3))]))
