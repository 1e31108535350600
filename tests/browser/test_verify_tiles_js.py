"""The in-browser verifier for tiles, in Chromium: tiles/rules.js reads the same streams as the Python
engine (games/tiles/fairness_vectors.json), replays games played by the engine and its basic bot state
for state and event for event (resignations on and off turn included, so that `rebag:K` is read), and
verify.js with tiles/present.js accepts a tiles record and rejects tampered ones as games/replay.py does.

The page runs on a made-up secure 127.0.0.1 origin answered by page.route, as in test_verify_js.py.
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import pytest

from games import fairness, replay
from games.tiles import engine as tiles
from tests.browser import test_verify_js as harness
from tests.games.tiles.records import four_seat_game_with_resignations, play_bot_game

pytestmark = pytest.mark.browser

FILES = harness.FILES
module_browser, module_page, scripts = harness.module_browser, harness.module_page, harness.scripts

VECTORS = json.loads((Path(tiles.__file__).resolve().parent / "fairness_vectors.json").read_text())


def test_the_harness_loads_the_tiles_scripts(scripts):
    assert "/tiles/rules.js" in FILES and "/tiles/present.js" in FILES
    assert scripts.evaluate("Boolean(WickwiseRules.tiles && WickwiseVerifyPresenters.tiles)")


COMPUTE_VECTORS = """async (cases) => {
  const F = window.WickwiseFairness, R = window.WickwiseRules.tiles;
  const out = [];
  for (const c of cases) {
    let state = await R.setup(c.seats, {}, await F.createRng(c.seed, c.mix));
    const dealt = {seed: c.seed, mix: c.mix, seats: c.seats, dice: state.dice, chooser: state.chooser,
                   hands: state.hands, bag: state.bag, resignations: []};
    for (const r of c.resignations) {
      state = (await R.apply(state, r.seat, {type: "resign"}, await F.createRng(c.seed, c.mix))).state;
      dealt.resignations.push({seat: r.seat, k: state.rebags, bag: state.bag, chooser: state.chooser});
    }
    out.push(dealt);
  }
  return out;
}"""


def test_the_browser_reproduces_the_tiles_vectors(scripts):
    assert scripts.evaluate(COMPUTE_VECTORS, VECTORS["cases"]) == VECTORS["cases"]


REPLAY = """async (text) => {
  const record = JSON.parse(text);
  const F = window.WickwiseFairness, R = window.WickwiseRules.tiles;
  const mix = F.mixString({game: record.game, roomCode: record.room_code, number: record.number,
                           clientSeeds: record.client_seeds});
  let state = await R.setup(record.players.length, record.options, await F.createRng(record.seed, mix));
  const start = JSON.parse(JSON.stringify(state));
  const states = [], events = [];
  for (const move of record.moves) {
    const applied = await R.apply(state, move.seat, move.action, await F.createRng(record.seed, mix));
    state = applied.state;
    states.push(state);
    events.push(applied.events);
  }
  return JSON.stringify({start, states, events, outcome: R.outcome(state)});
}"""


def python_replay(record: dict) -> tuple[dict, list[list[dict]]]:
    mix = fairness.mix_string(game="tiles", room_code=record["room_code"], number=record["number"],
                              client_seeds=record["client_seeds"])
    state = tiles.setup(len(record["players"]), record["options"], fairness.Rng(record["seed"], mix))
    start, events = json.loads(json.dumps(state)), []
    for move in record["moves"]:
        state, applied = tiles.apply(state, move["seat"], move["action"], fairness.Rng(record["seed"], mix))
        events.append(applied)
    return start, json.loads(json.dumps(events))


def assert_same_replay(page, record: dict, states: list[dict]) -> None:
    result = json.loads(page.evaluate(REPLAY, json.dumps(record)))
    start, events = python_replay(record)
    assert replay.state_bytes(result["start"]) == replay.state_bytes(start)
    assert len(result["states"]) == len(states)
    for number, (browser, python) in enumerate(zip(result["states"], states, strict=True), start=1):
        assert replay.state_bytes(browser) == replay.state_bytes(python), f"after move {number}"
    assert result["events"] == events
    assert result["outcome"] == record["result"]


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_bot_games_replay_state_for_state(scripts, seats):
    for game in range(3):
        chooser = random.Random(seats * 31 + game)
        record, states = play_bot_game(fairness.new_seed(), seats, chooser, resign_share=0.004)
        assert record["status"] == "finished"
        assert any(move["action"]["type"] == "play" for move in record["moves"])
        assert_same_replay(scripts, record, states)


def test_a_four_seat_game_with_resignations_replays_state_for_state(scripts):
    record, states = four_seat_game_with_resignations(1)
    assert states[-1]["rebags"] >= 1
    assert_same_replay(scripts, record, states)


def checks_of(page, record) -> list[dict]:
    return json.loads(page.evaluate(
        "async (text) => JSON.stringify(await WickwiseVerify.verify(JSON.parse(text)))", json.dumps(record)))


def test_verify_accepts_a_tiles_record_with_resignations_and_words_it(scripts):
    record, states = four_seat_game_with_resignations(2)
    checks = checks_of(scripts, record)
    assert all(check["ok"] for check in checks), [c for c in checks if not c["ok"]]
    assert replay.all_ok(replay.verify_record(record))
    deal = next(check for check in checks if check["name"] == "deal")
    assert deal["lines"][0].startswith("Dice, round 1: ")
    assert any("rolled highest and starts the game" in line for line in deal["lines"])
    steps = [check for check in checks if check["name"] == "step"]
    assert steps[0]["title"] == "Before the first turn"
    lines = [line for step in steps for line in step["lines"]]
    assert any(" resigns." in line for line in lines)
    assert any("“rebag:1”" in line for line in lines)
    assert any("draws a tile from the bag" in line for line in lines)
    result = next(check for check in checks if check["name"] == "result")
    assert result["lines"][0].startswith("Place 1: ") and any(", resigned" in line for line in result["lines"])


def test_verify_rejects_tampered_tiles_records_as_python_does(scripts):
    record, _states = four_seat_game_with_resignations(3)
    moves = record["moves"]
    play = next(i for i, m in enumerate(moves) if m["action"]["type"] == "play")
    draw = next(i for i, m in enumerate(moves) if m["action"]["type"] == "draw")
    resign = next(i for i, m in enumerate(moves) if m["action"]["type"] == "resign")
    tampered = {name: copy.deepcopy(record) for name in (
        "play", "extra tile", "draw out of turn", "resigned again", "result", "seed", "begin twice")}
    tampered["play"]["moves"][play]["action"]["table"][0][1] = 23  # a tile moved off its line
    table = tampered["extra tile"]["moves"][play]["action"]["table"]
    table.append([next(t for t in range(106) if t not in {c[0] for c in table}), 0, 15])
    tampered["draw out of turn"]["moves"][draw]["seat"] = (moves[draw]["seat"] + 1) % 4
    tampered["resigned again"]["moves"].insert(resign + 1, {**moves[resign], "seq": resign + 2})
    for index, move in enumerate(tampered["resigned again"]["moves"], start=1):
        move["seq"] = index
    tampered["result"]["result"][0]["points"] += 1
    tampered["seed"]["seed"] = f"{13:064x}"
    tampered["begin twice"]["moves"].insert(1, {**moves[0], "seq": 2})
    for index, move in enumerate(tampered["begin twice"]["moves"], start=1):
        move["seq"] = index
    for name, changed in tampered.items():
        python = [check.name for check in replay.verify_record(changed) if not check.ok]
        browser = [check["name"] for check in checks_of(scripts, changed) if not check["ok"]]
        assert python and browser, name
        assert python[0] == browser[0], name
        assert ("move" in python) == ("move" in browser), name
        assert ("result" in python) == ("result" in browser), name
    failed = [c for c in checks_of(scripts, tampered["play"]) if not c["ok"]][0]
    assert failed["name"] == "move" and f"Move #{play + 1}" in failed["title"]
    assert any(reason in " ".join(failed["lines"]) for reason in ("not valid", "malformed"))


def test_a_tiles_game_ended_early_verifies(scripts):
    record, _states = play_bot_game(f"{14:064x}", 3, random.Random(14), stop_after=9)
    checks = checks_of(scripts, record)
    assert all(check["ok"] for check in checks), [c for c in checks if not c["ok"]]
    assert replay.all_ok(replay.verify_record(record))
    assert "ended_early" in [check["name"] for check in checks]
    assert any(check["name"] == "step" and "not finished" in check["title"] for check in checks)


@pytest.mark.live
def test_the_verify_page_checks_a_pasted_tiles_record_in_european_portuguese(live_site, module_browser):
    """The page itself loads tiles' rules, presenter and catalog: a record pasted in is checked and worded."""
    record, _states = four_seat_game_with_resignations(4)
    context = module_browser.new_context(viewport={"width": 390, "height": 800}, locale="pt-PT")
    page = context.new_page()
    try:
        page.goto(f"{live_site.url}/verify/")
        page.fill("#verify-record", json.dumps(record))
        page.click("#verify-paste button[type=submit]")
        page.wait_for_selector("#verify[data-result]")
        assert page.get_attribute("#verify", "data-result") == "pass"
        assert page.locator("#verify-checks > li.check-fail").count() == 0
        deal = page.text_content("#verify-checks [data-check=deal]")
        assert "Dados, ronda 1:" in deal and "começa a partida" in deal
        steps = page.text_content("#verify-checks")
        assert "desiste." in steps and "“rebag:1”" in steps and "tira uma peça do saco" in steps

        record["moves"][-1]["seat"] = (record["moves"][-1]["seat"] + 1) % 4  # the last move by another seat
        page.fill("#verify-record", json.dumps(record))
        page.click("#verify-paste button[type=submit]")
        page.wait_for_selector("#verify[data-result=fail]")
        assert page.locator("#verify-checks > li.check-fail[data-check=move]").count() == 1
    finally:
        context.close()
