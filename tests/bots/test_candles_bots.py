"""Candles bots: legal picks, view-only decisions, a sane strong bot, reproducibility. No Django."""

from __future__ import annotations

import copy
import hashlib
import inspect
import random

import pytest

from bots import candles as bots
from games.candles import engine
from games.fairness import Rng


def new_game(seats: int, label: str) -> dict:
    seed = hashlib.sha256(label.encode()).hexdigest()
    return engine.setup(seats, {}, Rng(seed, f"test|{label}"))


def positions(seats: int, label: str, rng: random.Random):
    """Every (state, seat) to act in one game played by random picks, in seat order."""
    state = new_game(seats, label)
    while not state["finished"]:
        for seat in engine.to_act(state):
            yield state, seat
            state, _ = engine.apply(state, seat, {"type": "play", "candle": rng.choice(state["hands"][seat])})


def scripted_state(shelves: list[list[int]], hand: list[int], others: list[list[int]]) -> dict:
    """Seat 0 holds `hand`; the rest of the deck is whatever is left over."""
    state = new_game(len(others) + 1, "scripted")
    used = {c for shelf in shelves for c in shelf} | set(hand) | {c for h in others for c in h}
    state["shelves"] = [list(s) for s in shelves]
    state["hands"] = [sorted(hand)] + [sorted(h) for h in others]
    state["deck"] = [c for c in engine.DECK if c not in used]
    state["round"] = engine.ROUNDS - len(hand) + 1
    return state


@pytest.fixture
def small_budget(monkeypatch):
    # Legality does not need a deep search; keep the sweep quick.
    monkeypatch.setattr(bots, "WORK_BUDGET", 2_000)
    monkeypatch.setattr(bots, "MIN_SAMPLES", 3)


@pytest.mark.parametrize("seats", [2, 3, 4, 6, 10])
def test_every_level_plays_a_candle_from_the_hand(seats, small_budget):
    rng = random.Random(seats)
    for number, (state, seat) in enumerate(positions(seats, f"legal-{seats}", rng)):
        seen = engine.view(state, seat)
        for level in bots.LEVELS:
            action = bots.choose(seen, level, random.Random(number))
            assert action == {"type": "play", "candle": action["candle"]}
            assert action["candle"] in seen["hand"]
            assert action in engine.legal(state, seat)


def test_a_full_game_of_strong_bots_is_legal(small_budget):
    state = new_game(4, "strong-game")
    rngs = [random.Random(seat) for seat in range(4)]
    while not state["finished"]:
        for seat in engine.to_act(state):
            state, _ = engine.apply(state, seat, bots.choose(engine.view(state, seat), "strong", rngs[seat]))
    assert state["finished"]


def test_choose_takes_only_a_view():
    assert list(inspect.signature(bots.choose).parameters) == ["view", "level", "rng", "time_limit"]


def test_decisions_do_not_depend_on_hidden_candles():
    """Two states that look the same from seat 0: other hands and deck reshuffled, one pick made."""
    state = new_game(4, "hidden")
    state, _ = engine.apply(state, 2, {"type": "play", "candle": state["hands"][2][0]})
    hidden = [c for h in state["hands"][1:] for c in h] + [state["picks"][2]] + state["deck"]
    random.Random(7).shuffle(hidden)
    other = copy.deepcopy(state)
    sizes = [len(h) for h in state["hands"]]
    other["hands"][1], other["hands"][2], other["hands"][3] = (
        sorted(hidden[: sizes[1]]),
        sorted(hidden[sizes[1] : sizes[1] + sizes[2]]),
        sorted(hidden[sizes[1] + sizes[2] : sizes[1] + sizes[2] + sizes[3]]),
    )
    other["picks"][2] = hidden[sum(sizes[1:])]
    other["deck"] = hidden[sum(sizes[1:]) + 1 :]
    assert other != state
    assert engine.view(other, 0) == engine.view(state, 0)
    for level in bots.LEVELS:
        for seed in range(3):
            first = bots.choose(engine.view(state, 0), level, random.Random(seed))
            second = bots.choose(engine.view(other, 0), level, random.Random(seed))
            assert first == second


def test_choose_leaves_the_view_as_it_was():
    state = new_game(5, "untouched")
    seen = engine.view(state, 3)
    before = copy.deepcopy(seen)
    for level in bots.LEVELS:
        bots.choose(seen, level, random.Random(1))
    assert seen == before


def test_strong_bot_does_not_tip_a_full_shelf_when_a_safe_candle_exists():
    # 51 is surely the sixth candle on the full shelf (15 drops). Nothing can go below the 1, so no
    # shelf is taken from below, and 71 and 81 cannot collect anything.
    state = scripted_state(
        shelves=[[10, 20, 30, 40, 50], [1], [70], [80]],
        hand=[51, 71, 81],
        others=[[2, 3, 4], [60, 61, 62], [90, 91, 92]],
    )
    for seed in range(3):
        assert bots.choose(engine.view(state, 0), "strong", random.Random(seed))["candle"] != 51
    assert bots.choose(engine.view(state, 0), "heuristic")["candle"] != 51


def test_strong_bot_takes_the_cheapest_shelf_rather_than_a_costly_tip():
    # 45 surely tips a full shelf of 16 drops; 2 is below every shelf and takes at most 1 drop.
    state = scripted_state(
        shelves=[[20, 30, 35, 40, 44], [61], [70, 71], [91]],
        hand=[2, 45],
        others=[[50, 52], [53, 54], [63, 64]],
    )
    for seed in range(3):
        assert bots.choose(engine.view(state, 0), "strong", random.Random(seed))["candle"] == 2


def test_same_rng_seed_same_decisions(small_budget):
    for state, seat in positions(4, "repeat", random.Random(3)):
        if state["round"] > 3:
            break
        seen = engine.view(state, seat)
        for level in bots.LEVELS:
            assert bots.choose(seen, level, random.Random(42)) == bots.choose(seen, level, random.Random(42))
        assert bots.choose(seen, "strong") == bots.choose(seen, "strong")  # seeded from the view


def test_fast_resolve_matches_engine_placement():
    rng = random.Random(5)
    for _ in range(300):
        candles = rng.sample(range(1, 105), 4 + 4 * rng.randint(1, 5))
        shelves = [[c] for c in candles[:4]]
        for candle in candles[4:-4]:  # grow shelves by the rules, to reach long and full ones
            engine.place(shelves, candle)
        picks = candles[-4:]
        ends, lens, waxes = bots.compact(shelves)
        wax = bots._resolve(list(picks), ends, lens, waxes)
        expected = 0
        for candle in sorted(picks):
            _, _, taken = engine.place(shelves, candle)
            expected += engine.shelf_wax(taken) if candle == picks[0] else 0
        assert wax == expected
        assert (ends, lens, waxes) == bots.compact(shelves)


def test_unknown_level_and_empty_hand_are_refused():
    seen = engine.view(new_game(4, "refuse"), 0)
    with pytest.raises(ValueError):
        bots.choose(seen, "genius")
    with pytest.raises(ValueError):
        bots.choose({**seen, "hand": []}, "random")
