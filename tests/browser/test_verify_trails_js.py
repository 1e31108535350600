"""The in-browser verifier for trails, in Chromium: trails/rules.js reads the same streams as the Python
engine (games/trails/fairness_vectors.json), replays random games state for state and event for event,
and verify.js with trails/present.js accepts a trails record and rejects a tampered one as Python does.

The page runs on a made-up secure 127.0.0.1 origin answered by page.route, as in test_verify_js.py.
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import pytest

from games import fairness, replay
from games.trails import engine as trails
from tests.browser import test_verify_js as harness

pytestmark = pytest.mark.browser

# The same page as test_verify_js.py: every game's rules.js and present.js, fairness.js and verify.js.
FILES = harness.FILES
module_browser, module_page, scripts = harness.module_browser, harness.module_page, harness.scripts

VECTORS = json.loads((Path(trails.__file__).resolve().parent / "fairness_vectors.json").read_text())
CLIENT_SEED_CHARS = "abcXYZ019-_"
BY = ("player", "bot", "stand_in", "table")


def test_the_harness_loads_the_trails_scripts(scripts):
    assert "/trails/rules.js" in FILES and "/trails/present.js" in FILES
    assert scripts.evaluate("Boolean(WickwiseRules.trails && WickwiseVerifyPresenters.trails)")


COMPUTE_VECTORS = """async (cases) => {
  const F = window.WickwiseFairness, R = window.WickwiseRules.trails;
  const out = [];
  for (const c of cases) {
    const state = await R.setup(c.seats, {}, await F.createRng(c.seed, c.mix));
    const rng = await F.createRng(c.seed, c.mix);
    const throws = [];
    for (let k = 1; k <= c.throws.length; k++) throws.push(await R.readThrow(rng, k));
    out.push({...c, first: state.first, throws});
  }
  return out;
}"""


def test_the_browser_reproduces_the_trails_vectors(scripts):
    assert scripts.evaluate(COMPUTE_VECTORS, VECTORS["cases"]) == VECTORS["cases"]


def play_random_game(seed: str, seats: int, chooser: random.Random, *, stop_after: int | None = None):
    """Random legal play as the live service does it (a fresh Rng for every move): returns
    (record, the state after every move). The player pushes on or camps at random, so games end."""
    players = [{"name": f"P{i}", "bot": chooser.random() < 0.4} for i in range(seats)]
    client_seeds = [
        None if player["bot"] or chooser.random() < 0.3
        else "".join(chooser.choice(CLIENT_SEED_CHARS) for _ in range(chooser.randint(1, 64)))
        for player in players
    ]
    room_code, number = "TRL9QX", chooser.randint(1, 30)
    mix = fairness.mix_string(game="trails", room_code=room_code, number=number, client_seeds=client_seeds)
    state = trails.setup(seats, {}, fairness.Rng(seed, mix))
    states, moves = [], []
    camp_chance = chooser.choice([0.3, 0.5, 0.7])
    while trails.outcome(state) is None and (stop_after is None or len(moves) < stop_after):
        seat = trails.to_act(state)[0]
        options = trails.legal(state, seat)
        if {"type": "camp"} in options and chooser.random() < camp_chance:
            action = {"type": "camp"}
        else:
            action = chooser.choice([option for option in options if option["type"] != "camp"])
        state, _events = trails.apply(state, seat, action, fairness.Rng(seed, mix))
        states.append(json.loads(json.dumps(state)))
        moves.append({"seq": len(moves) + 1, "seat": seat, "action": action, "by": chooser.choice(BY)})
    over = trails.outcome(state) is not None
    record = {
        "format": "wickwise-record/1", "game": "trails", "room_code": room_code, "number": number,
        "status": "finished" if over else "ended", "options": {}, "players": players,
        "fingerprint": fairness.fingerprint(seed), "seed": seed, "client_seeds": client_seeds, "moves": moves,
        "result": trails.outcome(state), "end_reason": "" if over else "admin",
        "started_at": None, "ended_at": None,
    }
    return json.loads(json.dumps(record)), states


REPLAY = """async (record) => {
  const F = window.WickwiseFairness, R = window.WickwiseRules.trails;
  const mix = F.mixString({game: record.game, roomCode: record.room_code, number: record.number,
                           clientSeeds: record.client_seeds});
  let state = await R.setup(record.players.length, record.options, await F.createRng(record.seed, mix));
  const start = JSON.parse(JSON.stringify(state));
  const states = [], events = [];
  for (const move of record.moves) {
    const applied = await R.apply(state, move.seat, move.action, await F.createRng(record.seed, mix));
    state = applied.state;
    states.push(JSON.parse(JSON.stringify(state)));
    events.push(applied.events);
  }
  return {start, states, events, outcome: R.outcome(state)};
}"""


def python_replay(record: dict) -> tuple[dict, list[list[dict]]]:
    mix = fairness.mix_string(game="trails", room_code=record["room_code"], number=record["number"],
                              client_seeds=record["client_seeds"])
    state = trails.setup(len(record["players"]), record["options"], fairness.Rng(record["seed"], mix))
    start, events = json.loads(json.dumps(state)), []
    for move in record["moves"]:
        state, applied = trails.apply(state, move["seat"], move["action"], fairness.Rng(record["seed"], mix))
        events.append(applied)
    return start, json.loads(json.dumps(events))


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_random_games_replay_state_for_state(scripts, seats):
    for game in range(4):
        chooser = random.Random(seats * 31 + game)
        record, states = play_random_game(fairness.new_seed(), seats, chooser)
        assert record["status"] == "finished"
        result = scripts.evaluate(REPLAY, record)
        start, events = python_replay(record)
        assert replay.state_bytes(result["start"]) == replay.state_bytes(start)
        assert len(result["states"]) == len(states)
        for number, (browser, python) in enumerate(zip(result["states"], states, strict=True), start=1):
            assert replay.state_bytes(browser) == replay.state_bytes(python), f"after move {number}"
        assert result["events"] == events
        assert result["outcome"] == record["result"]


VIEWS = """async (positions) => positions.map((p) => {
  const R = window.WickwiseRules.trails;
  const risk = R.risk(p);
  return {tray: p.dice ? R.tray(p) : [], risk: risk.throws / risk.of, legal: R.legal(p, p.current)};
})"""


def test_tray_choices_and_risk_match_the_engine(scripts):
    """Positions from random play: the same tray cards, the same exact risk, the same legal moves."""
    record, states = play_random_game(f"{7:064x}", 3, random.Random(7))
    positions = [state for state in states if not state["finished"]][:150]
    browser = scripts.evaluate(VIEWS, positions)
    for state, seen in zip(positions, browser, strict=True):
        assert seen["tray"] == (trails.tray(state) if state["dice"] else [])
        assert seen["risk"] == float(trails.risk(state))
        assert seen["legal"] == trails.legal(state, state["current"])


def checks_of(page, record) -> list[dict]:
    return page.evaluate("async (record) => await WickwiseVerify.verify(record)", record)


def test_verify_accepts_a_trails_record_and_words_it(scripts):
    record, _states = play_random_game(f"{11:064x}", 3, random.Random(11))
    checks = checks_of(scripts, record)
    assert all(check["ok"] for check in checks), [c for c in checks if not c["ok"]]
    assert [check["name"] for check in replay.verify_record(record) if not check.ok] == []
    deal = next(check for check in checks if check["name"] == "deal")
    assert "starts" in deal["lines"][0]
    steps = [check for check in checks if check["name"] == "step"]
    assert len(steps) == replay.replay(record)["turn"]  # one step per turn, the last one won
    assert steps[0]["title"] == "Turn 1"
    assert any("throws" in line for step in steps for line in step["lines"])
    assert "wins" in steps[-1]["lines"][-2]
    result = next(check for check in checks if check["name"] == "result")
    assert result["lines"][0].startswith("Place 1: ")


def test_verify_rejects_tampered_trails_records_as_python_does(scripts):
    record, _states = play_random_game(f"{12:064x}", 2, random.Random(12))
    climb = next(index for index, move in enumerate(record["moves"]) if move["action"]["type"] == "climb")
    camp = next(index for index, move in enumerate(record["moves"]) if move["action"]["type"] == "camp")
    tampered = {
        "none": record,
        "seed": {**record, "seed": f"{13:064x}"},
        "result": {**record, "result": [{**record["result"][0], "score": record["result"][0]["score"] + 1},
                                        *record["result"][1:]]},
        "climb": copy.deepcopy(record),
        "camp too early": copy.deepcopy(record),
        "other seat": copy.deepcopy(record),
    }
    tampered["climb"]["moves"][climb]["action"]["trails"] = [1]
    tampered["camp too early"]["moves"][0]["action"] = {"type": "camp"}
    tampered["other seat"]["moves"][camp]["seat"] = 1 - record["moves"][camp]["seat"]
    for name, changed in tampered.items():
        python = [check.name for check in replay.verify_record(changed) if not check.ok]
        browser = [check["name"] for check in checks_of(scripts, changed) if not check["ok"]]
        assert bool(python) == bool(browser), name
        assert ("move" in python) == ("move" in browser), name
        assert ("result" in python) == ("result" in browser), name
        if python:
            assert python[0] == browser[0], name
    failed = [c for c in checks_of(scripts, tampered["climb"]) if not c["ok"]][0]
    assert failed["name"] == "move" and f"Move #{climb + 1}" in failed["title"]
    assert "not one of the tray's choices" in " ".join(failed["lines"])


def test_a_trails_game_ended_early_verifies(scripts):
    record, _states = play_random_game(f"{14:064x}", 3, random.Random(14), stop_after=9)
    checks = checks_of(scripts, record)
    assert all(check["ok"] for check in checks)
    assert "ended_early" in [check["name"] for check in checks]
    assert any(check["name"] == "step" and "not finished" in check["title"] for check in checks)
