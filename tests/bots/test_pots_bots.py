"""Pots bots: legal moves, view-only and deterministic decisions, the strong bot's reasons. No Django."""

from __future__ import annotations

import copy
import hashlib
import inspect
import random

import pytest

from bots import pots as bots
from games.fairness import Rng
from games.pots import engine
from tests.games.pots.helpers import play, row, state_with


def new_game(seats: int, label: str) -> tuple[dict, Rng]:
    seed = hashlib.sha256(label.encode()).hexdigest()
    rng = Rng(seed, f"test|{label}")
    return engine.setup(seats, {}, rng), rng


def play_game(levels: list[str], label: str, seen_check=None) -> dict:
    """A whole game, each seat played by the bot of its level; `seen_check(state, seat, action)` on every move."""
    state, rng = new_game(len(levels), label)
    while not state["finished"]:
        (seat,) = engine.to_act(state)
        action = bots.choose(engine.view(state, seat), levels[seat])
        if seen_check:
            seen_check(state, seat, action)
        state, _ = engine.apply(state, seat, action, rng)
    return state


def test_choose_takes_only_a_view_and_a_level():
    assert list(inspect.signature(bots.choose).parameters) == ["view", "level"]
    assert set(bots.LEVELS) >= {"cautious", "strong"}


@pytest.mark.parametrize(("seats", "lineup"), [(2, "strong cautious"), (4, "strong cautious"), (7, "strong")])
def test_every_level_plays_legal_moves_to_the_end(seats, lineup):
    levels = (lineup.split() * seats)[:seats]

    def check(state, seat, action):
        assert action in engine.legal(state, seat)
        for level in bots.LEVELS:
            assert bots.choose(engine.view(state, seat), level) in engine.legal(state, seat)

    state = play_game(levels, f"legal-{seats}", check)
    assert state["finished"] and engine.outcome(state)[0]["score"] >= engine.WINNING_TOTAL


def test_decisions_are_deterministic_and_do_not_depend_on_the_deck_order():
    shuffler = random.Random(4)

    def check(state, seat, action):
        seen = engine.view(state, seat)
        other = copy.deepcopy(state)
        shuffler.shuffle(other["deck"])
        for level in bots.LEVELS:
            first = bots.choose(seen, level)
            assert bots.choose(copy.deepcopy(seen), level) == first
            assert bots.choose(engine.view(other, seat), level) == first

    play_game(["strong", "cautious", "strong"], "hidden", check)


def test_choose_leaves_the_view_as_it_was():
    def check(state, seat, action):
        seen = engine.view(state, seat)
        before = copy.deepcopy(seen)
        for level in bots.LEVELS:
            bots.choose(seen, level)
        assert seen == before

    play_game(["strong", "strong"], "untouched", check)


def test_unknown_levels_and_seats_with_nothing_to_decide_are_refused():
    state, _ = new_game(3, "refuse")
    (seat,) = engine.to_act(state)
    with pytest.raises(ValueError):
        bots.choose(engine.view(state, seat), "genius")
    with pytest.raises(ValueError):
        bots.choose(engine.view(state, (seat + 1) % 3), "strong")
    with pytest.raises(ValueError):
        bots.choose(engine.view(state, None), "strong")


# --- drawing or stopping ----------------------------------------------------------------------------

def to_play(rows, front=(), **kwargs) -> dict:
    """Seat 0 to play."""
    return engine.view(state_with(rows, front, turn=len(rows) - 1, **kwargs), 0)


def choices(seen: dict) -> dict[str, str]:
    return {level: bots.choose(seen, level)["type"] for level in bots.LEVELS}


def test_a_safe_small_row_draws_and_a_crowded_big_row_stops():
    assert choices(to_play([row([0]), row([1])])) == {"cautious": "draw", "strong": "draw"}
    # 12 11 10 9 8 7: most of the deck repeats them.
    crowded = to_play([row([12, 11, 10, 9, 8, 7]), row([1])])
    assert crowded["spill_chance"][0] > 0.55
    assert choices(crowded) == {"cautious": "stop", "strong": "stop"}


def test_the_strong_bot_draws_where_the_expected_gain_beats_the_risk():
    # Hand 22 from 1 2 3 4 5 7: the baseline's line would stop, but a repeat is unlikely
    # (22 of the 87 unseen cards) and a new number is worth a lot, so the strong bot draws on.
    seen = to_play([row([1, 2, 3, 4, 5, 7]), row([12])])
    assert seen["rows"][0]["score"] == 22
    assert bots.choose(seen, "strong") == {"type": "draw"}
    assert bots.choose(seen, "cautious") == {"type": "stop"}


def test_a_saucer_makes_the_strong_bot_draw_where_it_would_stop():
    risky = [row([12, 11, 10, 9, 8]), row([1])]
    assert bots.choose(to_play(risky), "strong") == {"type": "stop"}
    risky[0] = row([12, 11, 10, 9, 8], saucer=True)
    assert bots.choose(to_play(risky), "strong") == {"type": "draw"}


def test_the_strong_bot_draws_when_stopping_would_lose_the_game():
    # Seat 1 has banked 205 and the game ends with this hand: 190 + 12 cannot beat it.
    rows = [row([12]), row([5], status="stopped")]
    seen = to_play(rows, totals=[190, 200])
    assert bots.choose(seen, "strong") == {"type": "draw"}
    seen = to_play([row([12, 11, 10, 9, 8]), row([5], status="stopped")], totals=[150, 200])
    assert bots.choose(seen, "strong") == {"type": "draw"}  # risky, but stopping is a sure loss


def test_the_strong_bot_stops_when_stopping_wins_the_game():
    seen = to_play([row([3, 4]), row([5])], totals=[195, 100])
    assert bots.choose(seen, "strong") == {"type": "stop"}
    assert bots.choose(to_play([row([3, 4]), row([5])], totals=[150, 100]), "strong") == {"type": "draw"}


def test_far_behind_near_the_end_the_strong_bot_takes_more_risk():
    rows = [row([12, 11, 6, 5]), row([1])]
    assert bots.choose(to_play(rows, totals=[100, 120]), "strong") == {"type": "stop"}
    assert bots.choose(to_play(rows, totals=[60, 190]), "strong") == {"type": "draw"}


# --- targets ----------------------------------------------------------------------------------------

def deciding(rows, card: str, totals=None) -> dict:
    """Seat 0 has just drawn `card` and must pick its target."""
    state = state_with(rows, [card], turn=len(rows) - 1, totals=totals)
    state, _ = play(state, "draw")
    assert state["phase"] in ("target", "give") and state["current"] == 0
    return engine.view(state, 0)


def target(seen: dict, level: str = "strong") -> int:
    return bots.choose(seen, level)["seat"]


def test_the_strong_bot_snuffs_a_player_with_much_to_gain_not_one_about_to_stop():
    # Seat 1 holds 57 on a crowded row and would stop anyway; seat 2 has just begun.
    rows = [row([1]), row([12, 11, 10, 9, 8, 7]), row([2]), row([3], status="stopped")]
    assert target(deciding(rows, "snuffer")) == 2


def test_the_strong_bot_snuffs_the_leader_among_equal_hands():
    rows = [row([0]), row([4]), row([4 + 1])]
    assert target(deciding(rows, "snuffer", totals=[50, 180, 60])) == 1


def test_the_strong_bot_never_snuffs_itself_while_its_hand_can_grow():
    rows = [row([0]), row([12, 11, 10, 9, 8, 7])]
    assert target(deciding(rows, "snuffer")) == 1


def test_the_strong_bot_bellows_a_risky_row_of_an_opponent():
    rows = [row([1]), row([2]), row([12, 11, 10, 9, 8])]
    assert target(deciding(rows, "bellows")) == 2


def test_the_strong_bot_bellows_itself_when_its_row_is_safe_and_the_others_are_too():
    rows = [row([0]), row([1], status="stopped"), row([], ["+2"])]
    assert target(deciding(rows, "bellows")) == 0


def test_the_strong_bot_gives_a_saucer_to_whoever_threatens_least():
    rows = [row([1], saucer=True), row([12, 11]), row([2]), row([3])]
    assert target(deciding(rows, "saucer", totals=[100, 40, 150, 40])) == 3  # 40 and 3 beat 40 and 23


def test_the_cautious_bot_picks_what_the_table_would():
    rows = [row([1]), row([12, 11, 10]), row([2]), row([3])]
    for card in ("snuffer", "bellows"):
        seen = deciding(rows, card, totals=[10, 20, 30, 5])
        assert target(seen, "cautious") == engine.cautious_target_seen(seen)
    assert target(deciding(rows, "snuffer", totals=[10, 20, 30, 5]), "cautious") == 2
    assert target(deciding(rows, "bellows"), "cautious") == 1


# --- the search -------------------------------------------------------------------------------------

def test_the_one_draw_value_is_the_plain_average_over_the_pool():
    pool = bots.Pool({3: 2, 5: 1, "+4": 1, "x2": 1, "snuffer": 1})
    row_ = bots.Row(frozenset({3, 7}), False, 0, False)
    # 3 spills (0, twice), 5 gives 15, +4 gives 14, x2 gives 20, the snuffer leaves 10.
    assert bots.draw_value(row_, pool, 1) == pytest.approx((0 + 0 + 15 + 14 + 20 + 10) / 6)
    saved = bots.Row(frozenset({3, 7}), False, 0, True)
    assert bots.draw_value(saved, pool, 1) == pytest.approx((10 + 10 + 15 + 14 + 20 + 10) / 6)


def test_forced_draws_count_every_order_of_the_pool():
    # Two draws from {3, 4}: both orders give 3 + 4 + 1 = 8; from {3, 3}: the second 3 spills.
    one = bots.Row(frozenset({1}), False, 0, False)
    assert bots.draw_value(one, bots.Pool({3: 1, 4: 1}), 2, forced=True) == 8
    assert bots.draw_value(one, bots.Pool({3: 2}), 2, forced=True) == 0
    assert bots.draw_value(one, bots.Pool({3: 2, 4: 1}), 2, forced=True) == pytest.approx(8 * 2 / 3)
    # Choosing instead: stop after a 3 when only 3s are left.
    assert bots.draw_value(one, bots.Pool({3: 2}), 2) == 4


def test_a_full_pot_in_the_search_scores_the_bonus():
    six = bots.Row(frozenset({0, 1, 2, 3, 4, 5}), True, 2, False)
    assert bots.draw_value(six, bots.Pool({6: 1}), 2) == 21 * 2 + 2 + 15
    assert bots.last_draw_value(six, bots.Pool({6: 1})) == 21 * 2 + 2 + 15
