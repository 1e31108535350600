"""Pots fairness vectors (games/pots/fairness_vectors.json, described in docs/games/pots.md).

The file is built by `build_vectors()` below from games/fairness.py and the pots engine. The same
file checks the browser's port of the rules. To write it again after a deliberate change:

    python -m tests.games.pots.test_vectors
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from games import fairness
from games.pots import engine
from tests.games.pots.helpers import row, state_with

ROOT = Path(__file__).resolve().parents[3]
VECTORS_PATH = ROOT / "games" / "pots" / "fairness_vectors.json"

CASES = [
    {"seed": hashlib.sha256(b"pots vector 1").hexdigest(), "room_code": "K7P2QX", "number": 1,
     "client_seeds": [None, None], "k": 1},
    {"seed": hashlib.sha256(b"pots vector 2").hexdigest(), "room_code": "POTS42", "number": 3,
     "client_seeds": ["alice", None, "bob-2", None], "k": 2},
    {"seed": hashlib.sha256(b"pots vector 3").hexdigest(), "room_code": "HONEY8", "number": 12,
     "client_seeds": ["a", "b", "c", "d", "e", "f", "g", "h"], "k": 7},
]
RESHUFFLE_SIZE = 20  # the reshuffle input: the first cards of the case's shuffled deck, as a discard pile


def build_case(case: dict) -> dict:
    seats = len(case["client_seeds"])
    mix = fairness.mix_string(game="pots", room_code=case["room_code"], number=case["number"],
                              client_seeds=case["client_seeds"])
    rng = fairness.Rng(case["seed"], mix)
    deck = rng.stream("deck").shuffle(engine.DECK)
    pile = deck[:RESHUFFLE_SIZE]
    return {
        "seed": case["seed"],
        "mix": mix,
        "seats": seats,
        "first_dealer": rng.stream("first").uniform(seats),
        "deck_first_10": deck[:10],
        "reshuffle": {"k": case["k"], "input": pile, "output": rng.stream(f"reshuffle:{case['k']}").shuffle(pile)},
    }


def build_vectors() -> dict:
    return {
        "about": "Pots fairness vectors; docs/games/pots.md explains every field.",
        "version": fairness.VERSION,
        "cases": [build_case(case) for case in CASES],
    }


def test_the_vectors_file_is_what_the_engine_computes():
    assert json.loads(VECTORS_PATH.read_text()) == build_vectors()


def test_setup_reads_the_vectors_streams():
    for case in build_vectors()["cases"]:
        state = engine.setup(case["seats"], {}, fairness.Rng(case["seed"], case["mix"]))
        assert state["dealer"] == case["first_dealer"]
        dealt = 94 - len(state["deck"])
        if dealt <= 10:
            assert state["deck"][: 10 - dealt] == case["deck_first_10"][dealt:]


def test_a_reshuffle_reads_the_vectors_stream():
    for case in build_vectors()["cases"]:
        reshuffle = case["reshuffle"]
        rows = [row() for _ in range(case["seats"])]
        state = state_with(rows, deck=[], discard=reshuffle["input"], turn=case["seats"] - 1)
        state["reshuffles"] = reshuffle["k"] - 1
        after, events = engine.apply(state, 0, {"type": "draw"}, fairness.Rng(case["seed"], case["mix"]))
        assert events[:2] == [
            {"type": "reshuffled", "count": RESHUFFLE_SIZE},
            {"type": "card", "seat": 0, "card": reshuffle["output"][0], "how": "draw"},
        ]
        assert after["deck"][: RESHUFFLE_SIZE - 2] == reshuffle["output"][1 : RESHUFFLE_SIZE - 1]


if __name__ == "__main__":
    VECTORS_PATH.write_text(json.dumps(build_vectors(), indent=1) + "\n")
    print(f"wrote {VECTORS_PATH}")
