"""Properties of the tiles engine over random games (hypothesis).

Basic bots, with random resignations and random timeouts mixed in, always finish a game; after every
move the 106 tiles are all somewhere exactly once and the table is valid; a move log replays to the
same state byte for byte with a fresh rng for every move; apply never changes its input; the table's
choice is always accepted; every view is JSON and the same whatever the other hands and the bag hold.
"""

from __future__ import annotations

import copy
import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bots import tiles as bots
from games import fairness
from games.tiles import engine, rules

SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MOVE_LIMIT = 2_000


@st.composite
def games(draw):
    seats = draw(st.integers(engine.MIN_SEATS, engine.MAX_SEATS))
    mix = fairness.mix_string(game="tiles", room_code="PROP01", number=draw(st.integers(1, 99)),
                              client_seeds=[None] * seats)
    seed = draw(st.binary(min_size=32, max_size=32)).hex()
    return seats, seed, mix, draw(st.randoms(use_true_random=False))


def next_move(state: dict, chooser: random.Random) -> tuple[int, dict]:
    """Mostly the basic bot; sometimes the table's timeout choice; rarely a resignation by anyone."""
    playing = engine.in_play(state)
    if chooser.random() < 0.01:
        return chooser.choice(playing), {"type": "resign"}
    (seat,) = engine.to_act(state)
    if chooser.random() < 0.1:
        return seat, engine.table_choice(state, seat)
    return seat, bots.choose(engine.view(state, seat), "basic")


def check_invariants(state: dict) -> None:
    placed = [tile for tile, _, _ in state["table"]]
    held = [tile for hand in state["hands"] for tile in hand]
    assert sorted(placed + held + state["bag"]) == list(range(106))
    assert rules.judge(state["table"]).valid
    assert state["table"] == sorted(state["table"])
    assert all(hand == sorted(hand) for hand in state["hands"])


def check_view_hides(state: dict, seat: int | None) -> None:
    """While playing, a view is the same whatever the other hands and the bag hold (at the end the
    ranking tells everyone's points left in hand)."""
    seen = engine.view(state, seat)
    assert json.loads(json.dumps(seen)) == seen
    if state["phase"] == "over":
        return
    disguised = copy.deepcopy(state)
    others = [s for s in range(state["seats"]) if s != seat]
    hidden = [tile for s in others for tile in disguised["hands"][s]] + disguised["bag"]
    random.Random(len(hidden)).shuffle(hidden)
    for s in others:
        size = len(disguised["hands"][s])
        disguised["hands"][s], hidden = sorted(hidden[:size]), hidden[size:]
    disguised["bag"] = hidden
    assert engine.view(disguised, seat) == seen


@SETTINGS
@given(games())
def test_random_games_end_replay_and_keep_every_tile(game):
    seats, seed, mix, chooser = game
    state = engine.setup(seats, {}, fairness.Rng(seed, mix))
    log = []
    while state["phase"] != "over":
        assert len(log) < MOVE_LIMIT
        seat, action = next_move(state, chooser)
        before = json.dumps(state)
        new, events = engine.apply(state, seat, action, fairness.Rng(seed, mix))
        assert json.dumps(state) == before
        for event in events:
            if event["type"] == "drawn":
                assert event["only"] == event["seat"] == seat
        log.append((seat, action))
        state = new
        check_invariants(state)
        if len(log) % 7 == 0:
            check_view_hides(state, state["current"] if state["current"] is not None else 0)
            check_view_hides(state, None)
    ranking = engine.outcome(state)
    assert sorted(row["seat"] for row in ranking) == list(range(seats))
    assert ranking[0]["place"] == 1 and all(1 <= row["place"] <= seats for row in ranking)
    replayed = engine.setup(seats, {}, fairness.Rng(seed, mix))
    for seat, action in log:
        replayed = engine.apply(replayed, seat, action, fairness.Rng(seed, mix))[0]
    assert json.dumps(replayed) == json.dumps(state)
    assert json.loads(json.dumps(state)) == state


@SETTINGS
@given(games())
def test_the_tables_choice_is_always_accepted(game):
    seats, seed, mix, chooser = game
    state = engine.setup(seats, {}, fairness.Rng(seed, mix))
    for _ in range(60):
        if state["phase"] == "over":
            break
        (seat,) = engine.to_act(state)
        choice = engine.table_choice(state, seat)
        assert choice in engine.legal(state, seat)
        engine.apply(state, seat, choice, fairness.Rng(seed, mix))
        state = engine.apply(state, *next_move(state, chooser), fairness.Rng(seed, mix))[0]
