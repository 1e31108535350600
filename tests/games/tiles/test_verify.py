"""The Python verifier (games/replay.py, `manage.py verify_game`) on tiles records: it replays games with
resignations on and off turn to the live state, words the deal through the engine's describe_deal, and
fails the right check when a record is tampered with."""

from __future__ import annotations

import copy
import random

from games import fairness, replay
from games.tiles import engine
from tests.games.tiles.records import four_seat_game_with_resignations, play_bot_game


def failed(checks) -> list[str]:
    return [check.name for check in checks if not check.ok]


def test_a_four_seat_game_with_resignations_verifies_and_replays_to_the_live_state():
    record, states = four_seat_game_with_resignations(5)
    checks = replay.verify_record(record)
    assert failed(checks) == []
    assert replay.state_bytes(replay.replay(record)) == replay.state_bytes(states[-1])
    assert states[-1]["rebags"] >= 1
    deal = next(check for check in checks if check.name == "deal")
    assert deal.detail.startswith("dice ") and " starts; hands seat 1: [" in deal.detail
    assert deal.detail.endswith(f"{106 - 14 * 4} tiles in the bag")
    result = next(check for check in checks if check.name == "result")
    assert "place 1: seat" in result.detail


def test_an_out_of_turn_resignation_is_accepted_and_an_out_of_turn_draw_is_not():
    record, states = four_seat_game_with_resignations(6)
    moves = record["moves"]
    off_turn = [i for i, move in enumerate(moves) if move["action"]["type"] == "resign"
                and i and states[i - 1]["current"] != move["seat"]]
    assert off_turn, "the game needs a resignation out of turn"
    draw = next(i for i, move in enumerate(moves) if move["action"]["type"] == "draw")
    tampered = copy.deepcopy(record)
    tampered["moves"][draw]["seat"] = (moves[draw]["seat"] + 1) % 4
    checks = replay.verify_record(tampered)
    assert failed(checks) == ["move", "result"]
    assert "that seat was not to act" in next(c for c in checks if not c.ok).detail


def test_a_resignation_by_a_seat_no_longer_in_play_fails_that_move():
    record, _states = four_seat_game_with_resignations(7)
    index = next(i for i, move in enumerate(record["moves"]) if move["action"]["type"] == "resign")
    tampered = copy.deepcopy(record)
    tampered["moves"].insert(index + 1, dict(tampered["moves"][index]))
    for seq, move in enumerate(tampered["moves"], start=1):
        move["seq"] = seq
    checks = replay.verify_record(tampered)
    assert failed(checks) == ["move", "result"]
    assert "not_in_play" in next(c for c in checks if not c.ok).detail


def test_two_and_three_seat_games_with_random_resignations_verify():
    for seats in (2, 3):
        for game in range(3):
            record, states = play_bot_game(fairness.new_seed(), seats, random.Random(seats * 10 + game),
                                           resign_share=0.01)
            assert failed(replay.verify_record(record)) == []
            assert replay.state_bytes(replay.replay(record)) == replay.state_bytes(states[-1])
            assert engine.outcome(states[-1]) == record["result"]
