"""The basic tiles bot: begins, lays sets from its own hand on free cells, never sends an invalid play."""

from __future__ import annotations

import pytest

from bots import tiles as bots
from bots import tiles_ai
from games.tiles import engine, rules
from tests.games.tiles.boards import row, tile
from tests.games.tiles.test_engine import ScriptedRng, playing


def test_the_bot_begins_when_it_is_the_chosen_seat():
    state = engine.setup(2, {}, ScriptedRng({"dice:1": [5, 0]}))
    assert bots.choose(engine.view(state, 0), "basic") == {"type": "begin"}
    with pytest.raises(ValueError):
        bots.choose(engine.view(state, 1), "basic")
    with pytest.raises(ValueError):
        bots.choose(engine.view(state, 0), "genius")


def test_the_bot_lays_runs_and_groups_from_its_hand_without_touching_the_table():
    table = row("o1 o2 o3", 0, 0)
    state = playing(hands=[["b3", "b4", "b5", "b6", "k9", "r9", "o9", "k1"], ["k2"]], table=table, bag=["r10"])
    action = bots.choose(engine.view(state, 0), "basic")
    assert action["type"] == "play"
    after, events = engine.apply(state, 0, action)
    assert sorted(events[0]["added"]) == sorted(tile(n) for n in ("b3", "b4", "b5", "b6", "k9", "r9", "o9"))
    assert [list(item) for item in table] == [item for item in after["table"] if item[0] in {t for t, _, _ in table}]
    assert after["hands"][0] == [tile("k1")]


def test_the_bot_completes_a_pair_with_a_joker():
    state = playing(hands=[["r4", "r6", "J", "k1"], ["k2"]], bag=["r10"])
    after, events = engine.apply(state, 0, bots.choose(engine.view(state, 0), "basic"))
    assert sorted(events[0]["added"]) == sorted([tile("r4"), tile("r6"), 104])
    assert engine.view(after, 0)["jokers"] == {"104": [tile("r5")]}


def test_a_joker_after_a_thirteen_goes_before_the_pair():
    assert bots.hand_sets([tile("b12"), tile("b13"), 105]) == [[105, tile("b12"), tile("b13")]]


def test_the_bot_draws_or_passes_when_it_has_no_set():
    state = playing(hands=[["r4", "b9", "k1"], ["k2"]], bag=["r10"])
    assert bots.choose(engine.view(state, 0), "basic") == {"type": "draw"}
    state = playing(hands=[["r4", "b9", "k1"], ["k2"]], bag=[])
    assert bots.choose(engine.view(state, 0), "strong") == {"type": "pass"}


def test_there_is_no_free_spot_on_a_crowded_board():
    # Tiles on every other cell of every other row: no three free cells in a row touch nothing.
    taken = {(x, y) for y in range(0, 16, 2) for x in range(0, 24, 2)}
    assert bots.free_spot(taken, 3, 24, 16) is None
    assert bots.free_spot(taken, 1, 24, 16) == (1, 1)  # one tile fits where only corners touch
    assert bots.free_spot(set(), 3, 24, 16) == (0, 0)
    assert bots.free_spot({(0, 0), (1, 1)}, 3, 24, 16) == (2, 0)  # diagonal contact is fine


def test_the_bot_draws_when_its_sets_do_not_fit_on_the_board():
    state = playing(hands=[["b3", "b4", "b5"], ["k2"]], bag=["r10"])
    seen = engine.view(state, 0)
    seen["board"] = [2, 16]  # too narrow for three in a row
    assert bots.choose(seen, "basic") == {"type": "draw"}


def test_the_strong_level_is_the_searching_ai():
    state = playing(hands=[["b3", "b4", "b5", "k1"], ["k2"]], bag=["r10"])
    seen = engine.view(state, 0)
    assert bots.choose(seen, "strong") == tiles_ai.choose_strong(seen)


def test_every_play_of_the_bot_is_valid():
    state = playing(hands=[["k7", "b7", "o7", "r7", "k8", "k9", "J", "J2", "o12", "o13"], ["k2"]],
                    table=row("r1 r2 r3", 0, 1), bag=["r10"])
    action = bots.choose(engine.view(state, 0), "basic")
    assert rules.judge(action["table"]).valid
    engine.apply(state, 0, action)
