"""The pots verifier in Chromium: pots/rules.js reproduces games/pots/fairness_vectors.json and matches the
Python engine state for state and event for event on many random games (reshuffles included), and
verify.js accepts a pots record and rejects tampered ones, as games/replay.py does.

The page is the harness of test_verify_js.py: a made-up secure 127.0.0.1 origin answered by page.route,
with fairness.js, every game's rules.js and present.js, and verify.js.
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import pytest

from games import fairness, replay
from games.pots import engine
from tests.browser.test_verify_js import module_browser, module_page, scripts  # noqa: F401 (fixtures)

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
VECTORS = json.loads((ROOT / "games" / "pots" / "fairness_vectors.json").read_text())

COMPUTE_VECTORS = """async (cases) => {
  const F = window.WickwiseFairness, R = window.WickwiseRules.pots;
  const out = [];
  for (const c of cases) {
    const rng = await F.createRng(c.seed, c.mix);
    const deck = await rng.stream("deck").shuffle(R.DECK);
    const pile = deck.slice(0, c.reshuffle.input.length);
    out.push({
      seed: c.seed, mix: c.mix, seats: c.seats,
      first_dealer: await rng.stream("first").uniform(c.seats),
      deck_first_10: deck.slice(0, 10),
      reshuffle: {k: c.reshuffle.k, input: pile, output: await rng.stream(`reshuffle:${c.reshuffle.k}`).shuffle(pile)},
    });
  }
  return out;
}"""



def test_the_browser_reproduces_the_pots_vectors(scripts):  # noqa: F811
    assert scripts.evaluate("window.WickwiseRules.pots.DECK") == list(engine.DECK)
    assert scripts.evaluate(COMPUTE_VECTORS, VECTORS["cases"]) == VECTORS["cases"]


def test_setup_reads_the_vector_streams(scripts):  # noqa: F811
    for case in VECTORS["cases"]:
        state = scripts.evaluate("""async (c) => WickwiseRules.pots.setup(c.seats, {},
            await WickwiseFairness.createRng(c.seed, c.mix))""", case)
        python = engine.setup(case["seats"], {}, fairness.Rng(case["seed"], case["mix"]))
        assert state["dealer"] == case["first_dealer"]
        assert replay.state_bytes(state) == replay.state_bytes(python)


# --- random games, replayed in both -------------------------------------------------------------------

def play_random_game(seed: str, seats: int, chooser: random.Random, *, stop_after: int | None = None,
                     draw_chance: float = 0.8):
    """Random legal play as the live service does it (a fresh Rng for every move): (record, live state)."""
    players = [{"name": f"P{i}" if chooser.random() < 0.5 else "", "bot": False} for i in range(seats)]
    for player in players:
        player["bot"] = player["name"] == ""
    client_seeds = [None if player["bot"] else f"seed-{i}" for i, player in enumerate(players)]
    room_code, number = "POTS42", chooser.randint(1, 30)
    mix = fairness.mix_string(game="pots", room_code=room_code, number=number, client_seeds=client_seeds)
    state = engine.setup(seats, {}, fairness.Rng(seed, mix))
    moves = []
    while engine.outcome(state) is None and (stop_after is None or len(moves) < stop_after):
        seat = engine.to_act(state)[0]
        actions = engine.legal(state, seat)
        if state["phase"] == "play":
            action = {"type": "draw"} if chooser.random() < draw_chance else {"type": "stop"}
        else:
            action = chooser.choice(actions)
        state, _events = engine.apply(state, seat, action, fairness.Rng(seed, mix))
        moves.append({"seq": len(moves) + 1, "seat": seat, "action": action, "by": "player"})
    over = engine.outcome(state) is not None
    record = {
        "format": "wickwise-record/1", "game": "pots", "room_code": room_code, "number": number,
        "status": "finished" if over else "ended", "options": {}, "players": players,
        "fingerprint": fairness.fingerprint(seed), "seed": seed, "client_seeds": client_seeds, "moves": moves,
        "result": engine.outcome(state), "end_reason": "" if over else "admin", "started_at": None, "ended_at": None,
    }
    return json.loads(json.dumps(record)), json.loads(json.dumps(state))


def python_replay(record: dict) -> tuple[list[dict], list[list[dict]]]:
    """Every state after setup and after each move, and each move's events, as JSON gives them back."""
    mix = fairness.mix_string(game="pots", room_code=record["room_code"], number=record["number"],
                              client_seeds=record["client_seeds"])
    state = engine.setup(len(record["players"]), record["options"], fairness.Rng(record["seed"], mix))
    states, events = [state], []
    for move in record["moves"]:
        state, applied = engine.apply(state, move["seat"], move["action"], fairness.Rng(record["seed"], mix))
        states.append(state)
        events.append(applied)
    return json.loads(json.dumps(states)), json.loads(json.dumps(events))


REPLAY = """async (record) => {
  const F = window.WickwiseFairness, R = window.WickwiseRules.pots;
  const mix = F.mixString({game: record.game, roomCode: record.room_code, number: record.number,
                           clientSeeds: record.client_seeds});
  const rng = await F.createRng(record.seed, mix);
  let state = await R.setup(record.players.length, record.options, rng);
  const states = [state], events = [];
  for (const move of record.moves) {
    const applied = await R.apply(state, move.seat, move.action, rng);
    state = applied.state;
    states.push(state);
    events.push(applied.events);
  }
  return {states, events, outcome: R.outcome(state), toAct: R.toAct(state)};
}"""


@pytest.mark.parametrize("seats", [2, 3, 4, 6, 8])
def test_random_games_replay_state_for_state(scripts, seats):  # noqa: F811
    reshuffles = 0
    for game in range(3):
        chooser = random.Random(seats * 100 + game)
        seed = f"{seats * 100 + game + 1:064x}"  # fixed seeds: these games are known to reshuffle
        record, live = play_random_game(seed, seats, chooser, draw_chance=chooser.choice([0.7, 0.9]))
        states, events = python_replay(record)
        result = scripts.evaluate(REPLAY, record)
        assert len(result["states"]) == len(states)
        for index, (browser, python) in enumerate(zip(result["states"], states, strict=True)):
            assert replay.state_bytes(browser) == replay.state_bytes(python), f"state after move {index}"
        assert result["events"] == events
        assert replay.state_bytes(result["states"][-1]) == replay.state_bytes(live)
        assert result["outcome"] == record["result"]
        reshuffles += live["reshuffles"]
    assert reshuffles > 0, "these games reshuffle the discard pile at least once"


def test_the_browser_refuses_what_the_engine_refuses(scripts):  # noqa: F811
    record, _ = play_random_game(f"{7:064x}", 3, random.Random(7), stop_after=40)
    mix = fairness.mix_string(game="pots", room_code=record["room_code"], number=record["number"],
                              client_seeds=record["client_seeds"])
    state = engine.setup(3, {}, fairness.Rng(record["seed"], mix))
    current = state["current"]
    attempts = [
        (current, {"type": "draw", "extra": 1}), (current, {"type": "target", "seat": 0}), (current, "draw"),
        ((current + 1) % 3, {"type": "draw"}), (5, {"type": "stop"}), (True, {"type": "stop"}),
    ]
    for seat, action in attempts:
        try:
            engine.apply(state, seat, action, fairness.Rng(record["seed"], mix))
        except Exception as error:  # noqa: BLE001 (the code is what is compared)
            python = error.code
        browser = scripts.evaluate("""async ([state, seat, action]) => {
            try { await WickwiseRules.pots.apply(state, seat, action, null); return null; }
            catch (e) { return e.code; }
        }""", [state, seat, action])
        assert browser == python, (seat, action)


# --- the verifier ------------------------------------------------------------------------------------

def checks_of(page, record) -> list[dict]:
    return page.evaluate("async (record) => await WickwiseVerify.verify(record)", record)


def test_verify_accepts_a_pots_game_and_words_every_hand(scripts):  # noqa: F811
    record, state = play_random_game(f"{11:064x}", 4, random.Random(11))
    checks = checks_of(scripts, record)
    assert all(check["ok"] for check in checks), [c for c in checks if not c["ok"]]
    hands = [check for check in checks if check["name"] == "step"]
    assert [check["title"] for check in hands] == [f"Hand {n}" for n in range(1, len(state["hands"]) + 1)]
    deal = next(check for check in checks if check["name"] == "deal")
    assert "First dealer:" in deal["lines"][0]
    text = "\n".join(line for check in hands for line in check["lines"])
    assert "Scores of hand 1:" in text and "draws" in text
    result = next(check for check in checks if check["name"] == "result")
    assert result["lines"][0].startswith("Place 1: ") and result["lines"][0].endswith(" points")
    assert [check.name for check in replay.verify_record(record) if not check.ok] == []


def test_verify_rejects_tampered_pots_records_like_python(scripts):  # noqa: F811
    record, _ = play_random_game(f"{12:064x}", 3, random.Random(12))
    draws = [i for i, move in enumerate(record["moves"]) if move["action"] == {"type": "draw"}]
    tampered = {
        "none": record,
        "seed": {**record, "seed": f"{13:064x}"},
        "result": {**record, "result": [{**record["result"][0], "score": record["result"][0]["score"] + 1},
                                        *record["result"][1:]]},
        "stop instead of draw": copy.deepcopy(record),
        "wrong seat": copy.deepcopy(record),
        "bad action": copy.deepcopy(record),
        "no move": {**record, "moves": record["moves"][:-1]},
    }
    tampered["stop instead of draw"]["moves"][draws[len(draws) // 2]]["action"] = {"type": "stop"}
    tampered["wrong seat"]["moves"][0]["seat"] = (record["moves"][0]["seat"] + 1) % 3
    tampered["bad action"]["moves"][1]["action"] = {"type": "target", "seat": 9}
    for name, changed in tampered.items():
        python = [check.name for check in replay.verify_record(changed) if not check.ok]
        browser = [check["name"] for check in checks_of(scripts, changed) if not check["ok"]]
        assert bool(python) == bool(browser), name
        assert python[:1] == browser[:1], name
        assert ("move" in python) == ("move" in browser), name
        assert ("result" in python) == ("result" in browser), name
        if name != "none":
            assert browser, name


def test_a_pots_game_ended_early_verifies(scripts):  # noqa: F811
    record, _ = play_random_game(f"{14:064x}", 5, random.Random(14), stop_after=25)
    checks = checks_of(scripts, record)
    assert all(check["ok"] for check in checks), [c for c in checks if not c["ok"]]
    assert "ended_early" in [check["name"] for check in checks]
    unfinished = [check for check in checks if check["name"] == "step" and "not finished" in check["title"]]
    assert unfinished and "The game ended during hand" in unfinished[-1]["lines"][-1]
