"""Properties of the pots engine over random games (hypothesis).

Random legal play always ends, with the 94 cards accounted for after every move; a view holds
exactly its keys and tells the deck's composition; the table stops when it may; the spill chance
equals what actually happens when each unseen card is put on top of the deck and drawn. What every
game must satisfy (replay, apply, refusals, views, the table's choice) is in
tests/games/test_contract.py.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import fairness
from games.pots import engine
from tests.games.pots.helpers import ScriptedRng, all_cards

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])

seat_counts = st.integers(engine.MIN_SEATS, engine.MAX_SEATS)
seeds = st.binary(min_size=32, max_size=32).map(bytes.hex)
client_seed = st.none() | st.from_regex(fairness.CLIENT_SEED_PATTERN, fullmatch=True)

VIEW_KEYS = {"game", "seats", "hand", "dealer", "phase", "current", "pending", "dealing", "rows", "bellows", "queue",
             "totals", "hands", "deck_count", "discard", "reshuffles", "spill_chance", "finished", "ranking"}
ROW_KEYS = {"numbers", "extras", "saucer", "status", "score"}


@st.composite
def games(draw, seats=seat_counts):
    """(seats, seed, mix, chooser, boldness): a game's setup, the random.Random that makes its choices
    and the share of turns in which it draws."""
    count = draw(seats)
    parts = {"game": "pots", "room_code": "PROP01", "number": draw(st.integers(1, 99)),
             "client_seeds": draw(st.lists(client_seed, min_size=count, max_size=count))}
    return count, draw(seeds), fairness.mix_string(**parts), draw(st.randoms(use_true_random=False)), \
        draw(st.sampled_from([0.5, 0.8, 0.95]))


def random_action(state: dict, seat: int, chooser: random.Random, boldness: float) -> dict:
    if state["phase"] == "play":
        return {"type": "draw" if chooser.random() < boldness else "stop"}
    return chooser.choice(engine.legal(state, seat))


def play_randomly(count, seed, mix, chooser, boldness, stop_after=None):
    """Random legal play; a fresh Rng for every move. Yields (state, seat, action, new, events)."""
    state = engine.setup(count, {}, fairness.Rng(seed, mix))
    moves = 0
    while not state["finished"] and (stop_after is None or moves < stop_after):
        (seat,) = engine.to_act(state)
        action = random_action(state, seat, chooser, boldness)
        new, events = engine.apply(state, seat, action, fairness.Rng(seed, mix))
        yield state, seat, action, new, events
        state = new
        moves += 1


def final_state(count, seed, mix, chooser, boldness, stop_after=None) -> tuple[dict, list[dict]]:
    state, log = engine.setup(count, {}, fairness.Rng(seed, mix)), []
    for _before, seat, action, after, _events in play_randomly(count, seed, mix, chooser, boldness, stop_after):
        state = after
        log.append({"seat": seat, "action": action})
    return state, log


def keys_in(value) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for item in value.values() for k in keys_in(item)}
    if isinstance(value, list):
        return {k for item in value for k in keys_in(item)}
    return set()


# --- random play ----------------------------------------------------------------------------------

@SETTINGS
@given(games())
def test_random_play_ends_with_every_card_accounted_for(game):
    count = game[0]
    state = None
    for _before, _seat, _action, state, events in play_randomly(*game):
        assert all_cards(state) == Counter(engine.DECK)
        assert state["totals"] == [sum(hand[s] for hand in state["hands"]) for s in range(count)]
        assert all(type(e) is dict and json.loads(json.dumps(e)) == e for e in events)
        assert engine.to_act(state) == ([] if state["finished"] else [state["current"]])
        if not state["finished"]:
            assert state["phase"] in {"play", "target", "give"}
            assert (state["pending"] is None) == (state["phase"] == "play")
            if state["bellows"]:  # only a second saucer to give pauses a bellows
                assert state["phase"] == "give" and state["pending"]["by"] == state["bellows"]["seat"]
            if state["phase"] == "play":
                assert state["rows"][state["current"]]["status"] == "in" and not state["queue"]
    assert state["finished"] and state["phase"] == "over"
    totals = state["totals"]
    assert max(totals) >= engine.WINNING_TOTAL and totals.count(max(totals)) == 1
    # Before the last hand nobody had reached 200, or the top was tied.
    before = [t - last for t, last in zip(totals, state["hands"][-1], strict=True)]
    assert max(before) < engine.WINNING_TOTAL or before.count(max(before)) > 1
    ranking = engine.outcome(state)
    assert sorted(r["seat"] for r in ranking) == list(range(count))
    for r in ranking:
        assert r["score"] == totals[r["seat"]]
        assert r["place"] == 1 + sum(t > r["score"] for t in totals)


# --- views ----------------------------------------------------------------------------------------

def check_view(state: dict, seat: int | None) -> None:
    seen = engine.view(state, seat)
    assert set(seen) == VIEW_KEYS | ({"seat"} if seat is not None else set())
    assert all(set(r) == ROW_KEYS for r in seen["rows"])
    assert "deck" not in keys_in(seen)
    assert seen["deck_count"] == len(state["deck"])
    # The view is enough to know the deck's composition (its order is the secret).
    assert engine.unseen_cards(seen) == Counter(state["deck"])


@settings(max_examples=20, deadline=None)
@given(games(seats=st.integers(2, 5)))
def test_every_view_holds_its_keys_and_tells_the_decks_composition(game):
    for _before, _seat, _action, state, _events in play_randomly(*game, stop_after=150):
        for seat in [*range(state["seats"]), None]:
            check_view(state, seat)


@SETTINGS
@given(games())
def test_the_table_stops_rather_than_draw(game):
    for _before, _seat, _action, state, _events in play_randomly(*game, stop_after=200):
        if state["finished"]:
            break
        (seat,) = engine.to_act(state)
        if state["phase"] == "play":
            assert engine.table_choice(state, seat) == {"type": "stop"}


# --- the spill chance against brute force ---------------------------------------------------------

def spills_on_top(state: dict, seat: int, index: int) -> bool:
    """Puts the `index`-th card of what the next card comes from on top, draws, and looks."""
    if state["deck"]:
        deck = list(state["deck"])
        deck.insert(0, deck.pop(index))
        trial = {**state, "deck": deck}
        rng = ScriptedRng()
    else:
        trial = state
        rng = ScriptedRng(reshuffle=lambda pile: [pile[index]] + pile[:index] + pile[index + 1:])
    _after, events = engine.apply(trial, seat, {"type": "draw"}, rng)
    first = next(i for i, e in enumerate(events) if e["type"] == "card")
    return events[first + 1:first + 2] == [{"type": "spilled", "seat": seat, "card": events[first]["card"]}]


@settings(max_examples=60, deadline=None)
@given(games(seats=st.integers(2, 6)), st.integers(0, 120), st.booleans())
def test_the_spill_chance_is_what_drawing_each_unseen_card_does(game, moves, empty_deck):
    state, _log = final_state(*game, stop_after=moves)
    if state["finished"] or state["phase"] != "play":
        return
    if empty_deck:  # the deck ran out: the next card comes from the shuffled discard pile
        state = {**state, "discard": state["discard"] + state["deck"], "deck": []}
    seat = state["current"]
    pool = len(state["deck"]) or len(state["discard"])
    spills = sum(spills_on_top(state, seat, i) for i in range(pool))
    assert engine.spill_chance(state, seat) == Fraction(spills, pool)
    assert engine.view(state, None)["spill_chance"][seat] == spills / pool
