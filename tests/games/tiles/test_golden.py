"""Golden transcripts: two whole tiles games (2 and 4 seats), replayed move by move.

Each file in golden/ holds a game's seed and mix, every move with the events it made, and the final
state. The moves follow a fixed policy: the basic bot, except that at the four-seat table one seat
resigns out of turn and later the seat to act resigns (two rebags). The test replays the stored moves
from the stored seed and mix, with a fresh rng for every move, and must find the same events and the
same final state byte for byte; it also checks that the policy still makes the stored moves.

To write them again after a deliberate change to the rules or to the basic bot, run
    .venv/bin/python -m tests.games.tiles.test_golden --write
from the repository root, then read the diff of tests/games/tiles/golden/*.json before committing.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from bots import tiles as bots
from games import fairness
from games.tiles import engine
from tests.games.golden import GoldenGames

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
FORMAT = "tiles-golden/1"

GAMES = [
    {"name": "two-seats", "seats": 2, "seed": hashlib.sha256(b"tiles golden two").hexdigest(),
     "mix_parts": {"game": "tiles", "room_code": "GOLD02", "number": 1, "client_seeds": ["ana", None]},
     "resign": {}},
    # Move 12: the seat after the one to act resigns off its turn; move 30: the seat to act resigns.
    {"name": "four-seats", "seats": 4, "seed": hashlib.sha256(b"tiles golden four").hexdigest(),
     "mix_parts": {"game": "tiles", "room_code": "GOLD04", "number": 3, "client_seeds": [None, "rui", None, "x-1"]},
     "resign": {12: "next", 30: "current"}},
]


def policy(state: dict, spec: dict, number: int) -> tuple[int, dict]:
    (current,) = engine.to_act(state)
    who = spec["resign"].get(number)
    if who == "current":
        return current, {"type": "resign"}
    if who == "next":
        playing = engine.in_play(state)
        return playing[(playing.index(current) + 1) % len(playing)], {"type": "resign"}
    return current, bots.choose(engine.view(state, current), "basic")


def record(spec: dict) -> dict:
    mix = fairness.mix_string(**spec["mix_parts"])
    state = engine.setup(spec["seats"], {}, fairness.Rng(spec["seed"], mix))
    start = json.loads(json.dumps(state))
    moves = []
    while state["phase"] != "over":
        seat, action = policy(state, spec, len(moves))
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
        assert policy(state, spec, number) == (move["seat"], move["action"]), f"move {number}"
        state, events = engine.apply(state, move["seat"], move["action"], fairness.Rng(golden["seed"], golden["mix"]))
        assert events == move["events"], f"move {number}"
    assert json.dumps(state) == json.dumps(golden["final"])
    assert engine.outcome(state) == golden["ranking"]


def test_the_golden_games_cover_the_game_s_events():
    kinds = {event["type"] for spec in GAMES for move in GOLDEN.load(spec["name"])["moves"] for event in move["events"]}
    assert kinds == {"begun", "turn", "played", "drew", "drawn", "passed", "blocked", "resigned", "rebagged",
                     "game_over"}


if __name__ == "__main__":
    GOLDEN.main("tests.games.tiles.test_golden")
