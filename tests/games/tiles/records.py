"""Records of tiles games played by the engine and its basic bot, as the site would serve them, for the
verifiers' tests (Python and browser)."""

from __future__ import annotations

import json
import random

from bots import tiles as bots
from games import fairness
from games.tiles import engine as tiles

BY = ("player", "bot", "stand_in", "table")


def play_bot_game(seed: str, seats: int, chooser: random.Random, *, resign_share: float = 0.0,
                  resign_at: dict[int, int] | None = None, stop_after: int | None = None):
    """The engine played by its basic bot, a fresh Rng for every move as the rooms do, with the table's
    timeout choice now and then and resignations: by seat at a given move (`resign_at`: move -> seat),
    and at random by any seat in play. Returns (record, the state after every move)."""
    players = [{"name": f"P{i}", "bot": chooser.random() < 0.4} for i in range(seats)]
    client_seeds = [None if player["bot"] else f"cs-{chooser.randrange(10**6)}" for player in players]
    room_code, number = "TIL9QX", chooser.randint(1, 30)
    mix = fairness.mix_string(game="tiles", room_code=room_code, number=number, client_seeds=client_seeds)
    state = tiles.setup(seats, {}, fairness.Rng(seed, mix))
    states, moves = [], []
    resign_at = resign_at or {}
    while tiles.outcome(state) is None and (stop_after is None or len(moves) < stop_after):
        playing = tiles.in_play(state)
        if resign_at.get(len(moves)) in playing:
            seat, action = resign_at[len(moves)], {"type": "resign"}
        elif chooser.random() < resign_share:
            seat, action = chooser.choice(playing), {"type": "resign"}
        else:
            (seat,) = tiles.to_act(state)
            action = (tiles.table_choice(state, seat) if chooser.random() < 0.1
                      else bots.choose(tiles.view(state, seat), "basic"))
        state, _events = tiles.apply(state, seat, action, fairness.Rng(seed, mix))
        states.append(json.loads(json.dumps(state)))
        moves.append({"seq": len(moves) + 1, "seat": seat, "action": action, "by": chooser.choice(BY)})
    over = tiles.outcome(state) is not None
    record = {
        "format": "wickwise-record/1", "game": "tiles", "room_code": room_code, "number": number,
        "status": "finished" if over else "ended", "options": {}, "players": players,
        "fingerprint": fairness.fingerprint(seed), "seed": seed, "client_seeds": client_seeds, "moves": moves,
        "result": tiles.outcome(state), "end_reason": "" if over else "admin",
        "started_at": None, "ended_at": None,
    }
    return json.loads(json.dumps(record)), states


def four_seat_game_with_resignations(number: int):
    """Four seats: one resigns out of turn early, one on its own turn later, so rebag:1 and rebag:2 are read."""
    record, states = None, None
    for attempt in range(50):
        chooser = random.Random(number * 100 + attempt)
        seed = f"{number * 100 + attempt + 1:064x}"
        state = tiles.setup(4, {}, fairness.Rng(seed, "probe"))
        off_turn = (state["chooser"] + 2) % 4
        record, states = play_bot_game(seed, 4, chooser, resign_at={3: off_turn})
        resigns = [(i, m) for i, m in enumerate(record["moves"]) if m["action"]["type"] == "resign"]
        if states[-1]["rebags"] >= 1 and any(states[i - 1]["current"] != m["seat"] for i, m in resigns if i):
            return record, states
    raise AssertionError("no game with an out-of-turn resignation")
