"""Golden transcripts: whole trails games (2 and 4 seats), replayed move by move.

Each file in golden/ holds a game's seed and mix, every move with the events it made, the final state
and the ranking. The moves follow one fixed policy built on the engine alone: climb as the table does,
throw again while the risk of the next throw is below 1/4, else camp. That reaches busts, fourth-lantern
choices, topped trails, landmarks that remove banners and a win.
The test replays the stored moves from the stored seed and mix (a fresh Rng for every move, as the
platform does) and must find the same events and the same final state byte for byte.

To regenerate them after a deliberate change to the rules or to the table's choice, run
    .venv/bin/python -m tests.games.trails.test_golden --write
from the repository root, then read the diff of tests/games/trails/golden/*.json before committing.
"""

from __future__ import annotations

import hashlib
import json
from fractions import Fraction
from pathlib import Path

import pytest

from games import fairness
from games.trails import engine
from tests.games.golden import GoldenGames, transcript_json

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
FORMAT = "trails-golden/1"
PUSH_BELOW = Fraction(1, 4)

GAMES = [
    {"name": "two-seats", "seats": 2, "seed": hashlib.sha256(b"trails golden two c").hexdigest(),
     "mix_parts": {"game": "trails", "room_code": "GOLD02", "number": 1, "client_seeds": [None, "ana-1"]}},
    {"name": "four-seats", "seats": 4, "seed": hashlib.sha256(b"trails golden four e").hexdigest(),
     "mix_parts": {"game": "trails", "room_code": "GOLD04", "number": 7,
                   "client_seeds": ["rui", None, "Bea_99", None]}},
]


def policy(state: dict, seat: int) -> dict:
    if state["phase"] == "decide" and engine.risk(state) < PUSH_BELOW:
        return {"type": "throw"}
    return engine.table_choice(state, seat)


def record(spec: dict) -> dict:
    mix = fairness.mix_string(**spec["mix_parts"])
    state = engine.setup(spec["seats"], {}, fairness.Rng(spec["seed"], mix))
    first = state["first"]
    moves = []
    while not state["finished"]:
        seat = state["current"]
        action = policy(state, seat)
        state, events = engine.apply(state, seat, action, fairness.Rng(spec["seed"], mix))
        moves.append({"seat": seat, "action": action, "events": events})
    return {"format": FORMAT, "name": spec["name"], "seats": spec["seats"], "seed": spec["seed"], "mix": mix,
            "first": first, "moves": moves, "final_state": state, "ranking": engine.outcome(state)}


GOLDEN = GoldenGames(GOLDEN_DIR, GAMES, record)


@pytest.mark.parametrize("spec", GAMES, ids=lambda spec: spec["name"])
def test_the_stored_moves_replay_to_the_stored_game(spec):
    golden = GOLDEN.load(spec["name"])
    assert golden["format"] == FORMAT and golden["seats"] == spec["seats"]
    state = engine.setup(golden["seats"], {}, fairness.Rng(golden["seed"], golden["mix"]))
    assert state["first"] == golden["first"]
    for number, move in enumerate(golden["moves"], start=1):
        assert engine.to_act(state) == [move["seat"]], f"move {number}"
        assert move["action"] in engine.legal(state, move["seat"]), f"move {number}"
        state, events = engine.apply(state, move["seat"], move["action"], fairness.Rng(golden["seed"], golden["mix"]))
        assert events == move["events"], f"move {number}"
    assert json.dumps(state, sort_keys=True) == json.dumps(golden["final_state"], sort_keys=True)
    assert engine.outcome(state) == golden["ranking"]


@pytest.mark.parametrize("spec", GAMES, ids=lambda spec: spec["name"])
def test_the_transcripts_reach_every_kind_of_event(spec):
    golden = GOLDEN.load(spec["name"])
    events = [event for move in golden["moves"] for event in move["events"]]
    kinds = {event["type"] for event in events}
    assert kinds == {"thrown", "climbed", "camped", "fell", "turn", "won"}
    assert any(event["type"] == "camped" and event["removed"] for event in events)
    assert any(len(move["action"].get("trails", [])) == 1 for move in golden["moves"])


@pytest.mark.parametrize("spec", GAMES, ids=lambda spec: spec["name"])
def test_the_policy_still_makes_the_stored_moves(spec):
    golden = GOLDEN.load(spec["name"])
    assert golden["mix"] == fairness.mix_string(**spec["mix_parts"])
    assert record(spec) == golden
    assert GOLDEN.path(spec["name"]).read_text() == transcript_json(golden)  # the file is as the generator writes it


if __name__ == "__main__":
    GOLDEN.main("tests.games.trails.test_golden")
