"""games/trails/fairness_vectors.json: who starts and the first five throws of a few games.

The browser checks its port of the rules against the same file, so both read the same streams the
same way: "first" uniform(seats), then "throw:k" four times uniform(6) + 1 (docs/games/trails.md).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from games import fairness
from games.trails import engine

VECTORS = json.loads((Path(engine.__file__).resolve().parent / "fairness_vectors.json").read_text())


def test_the_file_has_a_few_cases_in_the_documented_format():
    assert len(VECTORS["cases"]) >= 3
    for case in VECTORS["cases"]:
        assert set(case) == {"seed", "mix", "seats", "first", "throws"}
        assert fairness.SEED_PATTERN.fullmatch(case["seed"]) and case["mix"].startswith("wickwise/v1|trails|")
        assert engine.MIN_SEATS <= case["seats"] <= engine.MAX_SEATS
        assert len(case["throws"]) == 5 and all(len(t) == 4 for t in case["throws"])


@pytest.mark.parametrize("case", VECTORS["cases"], ids=lambda case: case["mix"])
def test_setup_and_throws_match_the_vectors(case):
    rng = fairness.Rng(case["seed"], case["mix"])
    state = engine.setup(case["seats"], {}, rng)
    assert state["first"] == state["current"] == case["first"]
    assert [engine.read_throw(rng, k) for k in range(1, 6)] == case["throws"]


@pytest.mark.parametrize("case", VECTORS["cases"], ids=lambda case: case["mix"])
def test_the_game_throws_the_vector_dice_in_order(case):
    """Five throws through apply, a fresh Rng each move as the platform does: the same dice."""
    state = engine.setup(case["seats"], {}, fairness.Rng(case["seed"], case["mix"]))
    dice = []
    while len(dice) < 5:
        seat = state["current"]
        action = {"type": "throw"} if state["phase"] in ("throw", "decide") else engine.legal(state, seat)[0]
        state, events = engine.apply(state, seat, action, fairness.Rng(case["seed"], case["mix"]))
        dice += [e["dice"] for e in events if e["type"] == "thrown"]
    assert dice == case["throws"]
