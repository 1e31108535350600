"""Golden transcripts: two whole pots games (3 and 6 seats), replayed move by move.

Each file in golden/ holds a game's seed and mix, every move with the events it made, and the final
state. The moves follow a fixed policy that depends only on the rules: draw while the hand is worth
less than 25, and for a target play the table's choice. The test replays the stored moves from the
stored seed and mix, with a fresh rng for every move, and must find the same events and the same
final state byte for byte; it also checks that the policy still makes the stored moves.

To write them again after a deliberate change to the rules or to the table's choice, run
    .venv/bin/python -m tests.games.pots.test_golden --write
from the repository root, then read the diff of tests/games/pots/golden/*.json before committing.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from games import fairness
from games.pots import engine
from tests.games.golden import GoldenGames

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
FORMAT = "pots-golden/1"
DRAW_BELOW = 25

GAMES = [
    {"name": "three-seats", "seats": 3, "seed": hashlib.sha256(b"pots golden three").hexdigest(),
     "mix_parts": {"game": "pots", "room_code": "GOLD03", "number": 2, "client_seeds": ["ana", None, "Bea_9"]}},
    # The first of the labels "pots golden six N" whose game shows every kind of event.
    {"name": "six-seats", "seats": 6, "seed": hashlib.sha256(b"pots golden six 146").hexdigest(),
     "mix_parts": {"game": "pots", "room_code": "GOLD06", "number": 5,
                   "client_seeds": [None, "rui", None, "d-4", None, "x"]}},
]


def policy(state: dict, seat: int) -> dict:
    if state["phase"] == "play":
        score = engine.view(state, seat)["rows"][seat]["score"]
        return {"type": "draw" if score < DRAW_BELOW else "stop"}
    return engine.table_choice(state, seat)


def record(spec: dict) -> dict:
    mix = fairness.mix_string(**spec["mix_parts"])
    state = engine.setup(spec["seats"], {}, fairness.Rng(spec["seed"], mix))
    start = json.loads(json.dumps(state))
    moves = []
    while not state["finished"]:
        (seat,) = engine.to_act(state)
        action = policy(state, seat)
        state, events = engine.apply(state, seat, action, fairness.Rng(spec["seed"], mix))
        moves.append({"seat": seat, "action": action, "events": events})
    return {"format": FORMAT, "name": spec["name"], "seats": spec["seats"], "seed": spec["seed"], "mix": mix,
            "start": start, "moves": moves, "final": state, "ranking": engine.outcome(state)}


GOLDEN = GoldenGames(GOLDEN_DIR, GAMES, record)


@pytest.mark.parametrize("spec", GAMES, ids=[g["name"] for g in GAMES])
def test_a_golden_game_replays_to_the_same_events_and_state(spec):
    golden = GOLDEN.load(spec["name"])
    assert golden["format"] == FORMAT
    state = engine.setup(golden["seats"], {}, fairness.Rng(golden["seed"], golden["mix"]))
    assert json.loads(json.dumps(state)) == golden["start"]
    for number, move in enumerate(golden["moves"]):
        assert engine.to_act(state) == [move["seat"]], f"move {number}"
        assert policy(state, move["seat"]) == move["action"], f"move {number}"
        state, events = engine.apply(state, move["seat"], move["action"], fairness.Rng(golden["seed"], golden["mix"]))
        assert events == move["events"], f"move {number}"
    assert json.dumps(state, sort_keys=True) == json.dumps(golden["final"], sort_keys=True)
    assert engine.outcome(state) == golden["ranking"]


def test_the_golden_games_cover_the_rare_rules():
    kinds = {event["type"] for spec in GAMES for move in GOLDEN.load(spec["name"])["moves"] for event in move["events"]}
    assert kinds == {"hand", "card", "spilled", "saved", "stopped", "snuffed", "bellows", "saucer_given",
                     "discarded", "full", "reshuffled", "hand_over", "game_over"}


if __name__ == "__main__":
    GOLDEN.main("tests.games.pots.test_golden")
