"""Golden transcripts: three whole candles games (2, 4 and 10 seats), replayed move by move.

Each file in golden/ holds a game's seed and mix, the deal, every move with the events it made, the
final state and the ranking. Every seat played the table's choice, seats in to_act order.
The test replays the stored moves from the stored seed and mix and must find the same deal, the
same events and the same final state byte for byte; it also checks that the table still makes
the stored choices.

To regenerate them after a deliberate change to the rules or to the table's choice, run
    .venv/bin/python -m tests.games.candles.test_golden --write
from the repository root, then read the diff of tests/games/candles/golden/*.json before committing.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from games import fairness
from games.candles import engine
from tests.games.golden import GoldenGames, transcript_json

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
FORMAT = "candles-golden/1"

GAMES = [
    {"name": "two-seats", "seats": 2, "seed": hashlib.sha256(b"candles golden two").hexdigest(),
     "mix_parts": {"game": "candles", "room_code": "GOLD02", "number": 1, "client_seeds": [None, "ana-1"]}},
    {"name": "four-seats", "seats": 4, "seed": hashlib.sha256(b"candles golden four").hexdigest(),
     "mix_parts": {"game": "candles", "room_code": "GOLD04", "number": 7,
                   "client_seeds": ["rui", None, "Bea_99", None]}},
    {"name": "ten-seats", "seats": 10, "seed": hashlib.sha256(b"candles golden ten").hexdigest(),
     "mix_parts": {"game": "candles", "room_code": "GOLD10", "number": 3,
                   "client_seeds": ["a", "b", None, "d-4", None, None, "g", None, "i_9", None]}},
]


def record(spec: dict) -> dict:
    """Plays the game of `spec` with the table's choice for every seat and writes down everything."""
    mix = fairness.mix_string(**spec["mix_parts"])
    rng = fairness.Rng(spec["seed"], mix)
    state = engine.setup(spec["seats"], {}, rng)
    deal = {"hands": state["hands"], "shelves": state["shelves"]}
    moves = []
    while not state["finished"]:
        for seat in engine.to_act(state):
            action = engine.table_choice(state, seat)
            state, events = engine.apply(state, seat, action, rng)
            moves.append({"seat": seat, "action": action, "events": events})
    return {"format": FORMAT, "name": spec["name"], "seats": spec["seats"], "seed": spec["seed"], "mix": mix,
            "deal": deal, "moves": moves, "final_state": state, "ranking": engine.outcome(state)}


GOLDEN = GoldenGames(GOLDEN_DIR, GAMES, record)


@pytest.mark.parametrize("spec", GAMES, ids=lambda spec: spec["name"])
def test_the_stored_moves_replay_to_the_stored_game(spec):
    golden = GOLDEN.load(spec["name"])
    assert golden["format"] == FORMAT and golden["seats"] == spec["seats"]
    rng = fairness.Rng(golden["seed"], golden["mix"])
    state = engine.setup(golden["seats"], {}, rng)
    assert {"hands": state["hands"], "shelves": state["shelves"]} == golden["deal"]
    for number, move in enumerate(golden["moves"], start=1):
        assert move["seat"] in engine.to_act(state), f"move {number}"
        state, events = engine.apply(state, move["seat"], move["action"], rng)
        assert events == move["events"], f"move {number}"
    assert len(golden["moves"]) == 6 * golden["seats"]
    assert json.dumps(state, sort_keys=True) == json.dumps(golden["final_state"], sort_keys=True)
    assert engine.outcome(state) == golden["ranking"]


@pytest.mark.parametrize("spec", GAMES, ids=lambda spec: spec["name"])
def test_the_table_still_makes_the_stored_choices(spec):
    golden = GOLDEN.load(spec["name"])
    assert golden["seed"] == spec["seed"] and golden["mix"] == fairness.mix_string(**spec["mix_parts"])
    assert record(spec) == golden
    assert GOLDEN.path(spec["name"]).read_text() == transcript_json(golden)  # the file is as the generator writes it


if __name__ == "__main__":
    GOLDEN.main("tests.games.candles.test_golden")
