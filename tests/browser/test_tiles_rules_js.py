"""tiles/rules.js judges tables exactly as games/tiles/rules.py, in Chromium: over 12,000 random tables
(built from sets, crossings, T-shapes, blocks and jokers, and mutations of them) the verdict, every
problem with its cells and reason in order, and every joker's faces agree. The table paints bad lines
with the same function while a player drags, so what it paints is what the engine will say.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from games.tiles import rules
from tests.browser import test_verify_js as harness
from tests.games.tiles import boards
from tests.games.tiles.random_tables import random_tables, well_formed

pytestmark = pytest.mark.browser

module_browser, module_page, scripts = harness.module_browser, harness.module_page, harness.scripts

TABLES = 12_000
BATCH = 3_000

# Tables go in and verdicts come out as JSON text: Playwright's own encoding of big nested arrays is slow.
JUDGE = """(text) => JSON.stringify(JSON.parse(text).map((table) => WickwiseRules.tiles.judge(table)))"""


def judged_in_browser(page, tables) -> list[dict]:
    return json.loads(page.evaluate(JUDGE, json.dumps(tables)))


def python_judgement(table) -> dict:
    judged = rules.judge(table)
    return {"valid": judged.valid, "problems": judged.problems,
            "jokers": {str(joker): faces for joker, faces in judged.jokers.items()}}


def test_the_tables_cover_every_verdict_and_reason():
    """The comparison below means something only if the tables reach every case."""
    reasons, valid, jokers = Counter(), 0, Counter()
    for table in random_tables(TABLES, seed=13):
        assert well_formed(table)
        judged = rules.judge(table)
        valid += judged.valid
        reasons.update(problem["reason"] for problem in judged.problems)
        jokers.update("faces" if faces else "none" for faces in judged.jokers.values())
    assert TABLES * 0.2 < valid < TABLES * 0.6
    assert min(reasons[r] for r in ("two_tiles", "lone", "not_set", "joker_conflict")) > 500
    assert jokers["faces"] > 2000 and jokers["none"] > 500


def test_rules_js_judges_every_random_table_as_python_does(scripts):
    tables = random_tables(TABLES, seed=13)
    for start in range(0, TABLES, BATCH):
        batch = tables[start:start + BATCH]
        browser = judged_in_browser(scripts, batch)
        for table, seen in zip(batch, browser, strict=True):
            assert seen == python_judgement(table), table


def test_rules_js_judges_the_ruled_examples_and_full_boards_as_python_does(scripts):
    tables = [
        boards.row("r4 J r6", 2, 2) + boards.column("b5 k5", 3, 3) + boards.column("o5", 3, 1),  # J = r5
        boards.row("r4 J r6", 2, 2) + boards.column("b4", 3, 1) + boards.column("b6", 3, 3),  # a conflict
        boards.row("k13 k1 k2", 0, 0),  # no 13 to 1
        boards.row("o9 o8 o7", 0, 0) + boards.column("b8 r8", 1, 1),  # a T at a descending run
        boards.row("J J2 b3", 0, 0) + boards.column("b1 b2", 0, 1),  # both jokers, one crossed
        boards.full_board(),
        boards.spaced_runs_board(),
        [],
    ]
    browser = judged_in_browser(scripts, [[list(cell) for cell in table] for table in tables])
    assert browser == [python_judgement(table) for table in tables]
    assert browser[0]["valid"] and browser[0]["jokers"] == {"104": [3 * 13 + 4]}
    assert [p["reason"] for p in browser[1]["problems"]] == ["joker_conflict", "joker_conflict"]


LINES = """(text) => JSON.stringify(JSON.parse(text).map((table) => ({
  lines: WickwiseRules.tiles.lines(table), structures: WickwiseRules.tiles.structures(table)})))"""


def test_lines_and_structures_agree(scripts):
    tables = random_tables(600, seed=7)
    browser = json.loads(scripts.evaluate(LINES, json.dumps(tables)))
    assert browser == [{"lines": rules.lines(t), "structures": rules.structures(t)} for t in tables]
