"""games/replay.py: a record of random legal play verifies, tampering fails the right check, and the
replay ends in the live state byte for byte."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games import fairness, replay
from games.candles import engine as candles

VECTORS = json.loads((Path(__file__).resolve().parents[2] / "games" / "fairness_vectors.json").read_text())
BY = ("player", "bot", "stand_in", "table")
CLIENT_SEED_CHARS = "abcXYZ019-_"


def play_random_game(seed: str, seats: int, chooser: random.Random, *, stop_after: int | None = None):
    """Random legal play as the live service does it: returns (record, live state)."""
    players = [{"name": "" if chooser.random() < 0.4 else f"P{i}", "bot": False} for i in range(seats)]
    for player in players:
        player["bot"] = player["name"] == ""
    client_seeds = [
        None if player["bot"] or chooser.random() < 0.3
        else "".join(chooser.choice(CLIENT_SEED_CHARS) for _ in range(chooser.randint(1, 64)))
        for player in players
    ]
    room_code, number = "K7P2QX", chooser.randint(1, 30)
    options = {"round_seconds": chooser.choice([15, 30, 60])}
    mix = fairness.mix_string(game="candles", room_code=room_code, number=number, client_seeds=client_seeds)
    state = candles.setup(seats, options, fairness.Rng(seed, mix))
    moves = []
    while candles.outcome(state) is None and (stop_after is None or len(moves) < stop_after):
        seat = chooser.choice(candles.to_act(state))
        action = chooser.choice(candles.legal(state, seat))
        # The service makes a fresh Rng for every move; candles does not read it, other games may.
        state, _events = candles.apply(state, seat, action, fairness.Rng(seed, mix))
        moves.append({"seq": len(moves) + 1, "seat": seat, "action": action, "by": chooser.choice(BY)})
    over = candles.outcome(state) is not None
    record = {
        "format": "wickwise-record/1", "game": "candles", "room_code": room_code, "number": number,
        "status": "finished" if over else "ended", "options": options, "players": players,
        "fingerprint": fairness.fingerprint(seed), "seed": seed, "client_seeds": client_seeds, "moves": moves,
        "result": candles.outcome(state), "end_reason": "" if over else "admin",
        "started_at": None, "ended_at": None,
    }
    # What the database keeps and serves is JSON: round-trip it as the site would.
    return json.loads(json.dumps(record)), json.loads(json.dumps(state))


def failed(checks: list[replay.Check]) -> list[str]:
    return [check.name for check in checks if not check.ok]


def finished_record(seed_index: int = 0, seats: int = 4) -> tuple[dict, dict]:
    return play_random_game(f"{seed_index + 1:064x}", seats, random.Random(seed_index))


# --- random play verifies, and the replay is the live state --------------------------------------

@pytest.mark.parametrize("seats", range(2, 11))
def test_random_games_verify_and_replay_to_the_live_state(seats):
    for game in range(5):
        record, live_state = play_random_game(fairness.new_seed(), seats, random.Random(seats * 100 + game))
        checks = replay.verify_record(record)
        assert failed(checks) == [], checks
        assert replay.all_ok(checks)
        assert replay.state_bytes(replay.replay(record)) == replay.state_bytes(live_state)
        assert sum(check.name == "move" for check in checks) == 6 * seats


@settings(max_examples=60, deadline=None)
@given(seed=st.binary(min_size=32, max_size=32), seats=st.integers(2, 10), choices=st.integers(0, 2**32))
def test_property_replay_equals_live_play(seed, seats, choices):
    record, live_state = play_random_game(seed.hex(), seats, random.Random(choices))
    assert replay.all_ok(replay.verify_record(record))
    assert replay.state_bytes(replay.replay(record)) == replay.state_bytes(live_state)


def test_the_sample_record_in_the_vectors_verifies():
    record = VECTORS["sample_record"]
    checks = replay.verify_record(record)
    assert replay.all_ok(checks)
    assert [c.name for c in checks[:8]] == [
        "format", "over", "seed", "fingerprint", "client_seeds", "mix", "deal", "move"]
    assert checks[-1].name == "result"
    assert replay.state_bytes(replay.replay(record)) == replay.state_bytes(VECTORS["sample_final_state"])


def test_the_checks_say_what_they_saw():
    record = VECTORS["sample_record"]
    details = {check.name: check.detail for check in replay.verify_record(record)}
    assert record["fingerprint"] in details["fingerprint"]
    assert details["mix"] == fairness.mix_string(
        game="candles", room_code=record["room_code"], number=record["number"], client_seeds=record["client_seeds"])
    assert "2 of 3 seats" in details["client_seeds"]
    assert "hands seat 1:" in details["deal"] and "shelves 1:" in details["deal"]
    assert "place 1: seat 2" in details["result"]


# --- games that are not over, or ended early -------------------------------------------------------

def test_a_game_in_play_cannot_be_verified_yet():
    record, _ = finished_record()
    record.update(status="playing", seed=None, moves=None, result=None)
    checks = replay.verify_record(record)
    assert failed(checks) == ["over"]
    assert "secret" in checks[-1].detail
    with pytest.raises(replay.ReplayError) as error:
        replay.replay(record)
    assert error.value.check == "over"


def test_a_record_from_the_lobby_is_not_over():
    record, _ = finished_record()
    record.update(status="lobby", seed=None, moves=None, result=None, players=[], client_seeds=None)
    assert failed(replay.verify_record(record)) == ["over"]


def test_a_record_without_players_fails_the_deal():
    record, _ = finished_record()
    record.update(players=[], client_seeds=[])
    assert failed(replay.verify_record(record)) == ["deal"]


def test_a_game_that_ended_early_replays_what_there_is():
    record, live_state = play_random_game(f"{7:064x}", 3, random.Random(7), stop_after=8)
    assert record["status"] == "ended" and len(record["moves"]) == 8
    checks = replay.verify_record(record)
    assert failed(checks) == []
    early = [c for c in checks if c.name == "ended_early"]
    assert len(early) == 1 and "ended early" in early[0].detail and "8 moves" in early[0].detail
    assert replay.state_bytes(replay.replay(record)) == replay.state_bytes(live_state)


def test_a_game_that_ended_before_any_move_verifies_its_deal():
    record, _ = play_random_game(f"{8:064x}", 2, random.Random(8), stop_after=0)
    checks = replay.verify_record(record)
    assert failed(checks) == [] and "deal" in [c.name for c in checks]


def test_a_game_ended_early_has_no_result():
    record, _ = play_random_game(f"{7:064x}", 3, random.Random(7), stop_after=8)
    record["result"] = [{"seat": 0, "place": 1, "score": 0}]
    assert failed(replay.verify_record(record)) == ["result"]


def test_a_finished_game_must_be_over_after_its_moves():
    record, _ = finished_record()
    record["moves"] = record["moves"][:-1]
    checks = replay.verify_record(record)
    assert failed(checks) == ["result"]
    assert "not over" in checks[-1].detail


# --- tampering fails the right check -------------------------------------------------------------

def test_a_changed_seed_fails_the_fingerprint():
    record, _ = finished_record()
    record["seed"] = fairness.new_seed()
    assert failed(replay.verify_record(record)) == ["fingerprint"]


def test_a_changed_fingerprint_fails():
    record, _ = finished_record()
    record["fingerprint"] = "0" * 64
    assert failed(replay.verify_record(record)) == ["fingerprint"]


def test_a_seed_and_fingerprint_changed_together_deal_other_hands_and_a_move_fails():
    record, _ = finished_record()
    record["seed"] = f"{999:064x}"
    record["fingerprint"] = fairness.fingerprint(record["seed"])
    checks = replay.verify_record(record)
    assert failed(checks) == ["move", "result"]


def test_a_changed_client_seed_changes_the_deal():
    record, _ = finished_record(seats=4)
    human = next(i for i, p in enumerate(record["players"]) if not p["bot"])
    record["client_seeds"][human] = "someone-else"
    assert "move" in failed(replay.verify_record(record))


@pytest.mark.parametrize("seed", ["ABC", "A" * 64, None, 5])
def test_a_malformed_seed_fails_the_seed_check(seed):
    record, _ = finished_record()
    record["seed"] = seed
    assert failed(replay.verify_record(record)) == (["over"] if seed is None else ["seed"])


def test_a_move_with_a_candle_not_in_hand_fails_that_move():
    record, _ = finished_record()
    move = record["moves"][5]
    hand_now = replay.replay({**record, "status": "ended", "moves": record["moves"][:5], "result": None})
    foreign = next(c for c in candles.DECK if c not in hand_now["hands"][move["seat"]])
    move["action"] = {"type": "play", "candle": foreign}
    checks = replay.verify_record(record)
    assert failed(checks) == ["move", "result"]
    bad = next(c for c in checks if not c.ok)
    assert "#6" in bad.detail and "not_in_hand" in bad.detail
    assert sum(c.name == "move" and c.ok for c in checks) == 5


def test_a_move_swapped_for_another_legal_one_fails_the_result():
    record, _ = finished_record()
    state = candles.setup(len(record["players"]), record["options"], fairness.Rng(
        record["seed"], fairness.mix_string(game="candles", room_code=record["room_code"],
                                            number=record["number"], client_seeds=record["client_seeds"])))
    first = record["moves"][0]
    others = [c for c in state["hands"][first["seat"]] if c != first["action"]["candle"]]
    for candle in others:  # some other candle changes the wax somewhere
        tampered = copy.deepcopy(record)
        tampered["moves"][0]["action"]["candle"] = candle
        for move in tampered["moves"][1:]:
            if move["seat"] == first["seat"] and move["action"]["candle"] == candle:
                move["action"]["candle"] = first["action"]["candle"]  # keep the rest of the log legal
        if failed(replay.verify_record(tampered)) == ["result"]:
            return
    pytest.fail("no swapped move changed the result")


def test_a_move_by_a_seat_that_already_picked_fails():
    record, _ = finished_record(seats=3)
    record["moves"][1]["seat"] = record["moves"][0]["seat"]
    checks = replay.verify_record(record)
    assert failed(checks) == ["move", "result"]
    assert "not to act" in next(c for c in checks if not c.ok).detail


def test_whole_numbers_written_as_floats_read_as_the_same_moves():
    """JSON does not tell 3.0 from 3 (the browser's verifier reads both as 3): neither does this one."""
    record, _ = finished_record()
    for move in record["moves"]:
        move["seat"] = float(move["seat"])
        move["action"]["candle"] = float(move["action"]["candle"])
    assert replay.all_ok(replay.verify_record(json.loads(json.dumps(record))))
    record["moves"][0]["action"]["candle"] += 0.5  # a number that is not whole is still no candle
    assert "move" in failed(replay.verify_record(record))


@pytest.mark.parametrize("tamper", ["drop", "renumber", "extra", "bad_action", "not_an_object"])
def test_a_broken_move_log_fails_the_move_check(tamper):
    record, _ = finished_record()
    moves = record["moves"]
    if tamper == "drop":
        del moves[3]
    elif tamper == "renumber":
        moves[3]["seq"] = 40
    elif tamper == "extra":
        moves.append({"seq": len(moves) + 1, "seat": 0, "action": moves[0]["action"], "by": "player"})
    elif tamper == "bad_action":
        moves[3]["action"] = {"type": "play", "candle": str(moves[3]["action"]["candle"])}
    else:
        moves[3] = "play 12"
    assert "move" in failed(replay.verify_record(record))


def test_a_changed_result_fails_the_result_check():
    record, _ = finished_record()
    record["result"][0]["score"] += 1
    checks = replay.verify_record(record)
    assert failed(checks) == ["result"]
    assert "the record shows" in checks[-1].detail


def test_a_result_claimed_for_another_seat_fails():
    record, _ = finished_record()
    record["result"][0]["seat"], record["result"][1]["seat"] = record["result"][1]["seat"], record["result"][0]["seat"]
    assert failed(replay.verify_record(record)) == ["result"]


def test_a_bot_with_a_client_seed_fails():
    record, _ = finished_record()
    bot = next((i for i, p in enumerate(record["players"]) if p["bot"]), None)
    if bot is None:
        record["players"][0]["bot"] = True
        bot = 0
    record["client_seeds"][bot] = "sneaky"
    assert failed(replay.verify_record(record)) == ["client_seeds"]


@pytest.mark.parametrize("client_seeds", [[], ["a b", None, None, None], [None] * 5, "abc"])
def test_malformed_client_seeds_fail(client_seeds):
    record, _ = finished_record(seats=4)
    record["client_seeds"] = client_seeds
    assert failed(replay.verify_record(record)) == ["client_seeds"]


@pytest.mark.parametrize("change", [
    {"format": "wickwise-record/2"}, {"game": "os"}, {"game": "../candles"}, {"game": "nosuchgame"},
    {"players": None}, {"number": "1"}, {"options": None},
])
def test_a_malformed_record_fails_the_format_check(change):
    record, _ = finished_record()
    record.update(change)
    checks = replay.verify_record(record)
    assert [c.name for c in checks] == ["format"] and not checks[0].ok


def test_not_a_record_at_all():
    assert failed(replay.verify_record([1, 2])) == ["format"]
    assert failed(replay.verify_record({})) == ["format"]


def test_too_many_seats_for_the_game_fails_the_deal():
    record, _ = finished_record(seats=2)
    record["players"] = [{"name": "x", "bot": False}] * 11
    record["client_seeds"] = [None] * 11
    assert failed(replay.verify_record(record)) == ["deal"]
