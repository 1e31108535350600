"""Properties of the candles engine over random games (hypothesis).

Random legal play always ends after six rounds with every candle accounted for; the order in which
seats pick does not matter; a view holds exactly its keys and none of the candles hidden from its seat.
The table's choice: its risk classes are exact (checked against trying every set of picks the other
seats could make), and it never plays a SURE candle while the hand holds a SAFE one. Together that is
the ruling: never a candle certain to collect while one is certain not to. What every game must
satisfy (replay, apply, refusals, views, the table's choice) is in tests/games/test_contract.py.
"""

from __future__ import annotations

import itertools
import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import fairness
from games.candles import engine

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

seat_counts = st.integers(engine.MIN_SEATS, engine.MAX_SEATS)
seeds = st.binary(min_size=32, max_size=32).map(bytes.hex)
client_seed = st.none() | st.from_regex(fairness.CLIENT_SEED_PATTERN, fullmatch=True)

VIEW_KEYS = {"game", "seats", "round", "rounds", "shelves", "wax", "collected", "picked", "hand_sizes",
             "last_round", "finished", "ranking"}
SEAT_KEYS = {"seat", "hand", "my_pick"}


@st.composite
def games(draw, seats=seat_counts):
    """(seats, seed, mix, chooser): a game's setup and the random.Random that makes its choices."""
    count = draw(seats)
    parts = {"game": "candles", "room_code": "PROP01", "number": draw(st.integers(1, 99)),
             "client_seeds": draw(st.lists(client_seed, min_size=count, max_size=count))}
    return count, draw(seeds), fairness.mix_string(**parts), draw(st.randoms(use_true_random=False))


def play_randomly(count: int, seed: str, mix: str, chooser: random.Random, stop_after: int | None = None):
    """Plays random legal moves, seats in a random order each round; yields (state, seat, action, new, events)."""
    rng = fairness.Rng(seed, mix)
    state = engine.setup(count, {}, rng)
    moves = 0
    while not state["finished"] and (stop_after is None or moves < stop_after):
        seat = chooser.choice(engine.to_act(state))
        action = chooser.choice(engine.legal(state, seat))
        new, events = engine.apply(state, seat, action, rng)
        yield state, seat, action, new, events
        state = new
        moves += 1


def final_state(count, seed, mix, chooser, stop_after=None) -> tuple[dict, list[dict]]:
    """The state after random play (to the end, or `stop_after` moves) and its move log."""
    state, log = engine.setup(count, {}, fairness.Rng(seed, mix)), []
    for _before, seat, action, after, _events in play_randomly(count, seed, mix, chooser, stop_after):
        state = after
        log.append({"seat": seat, "action": action})
    return state, log


def every_candle(state: dict) -> list[int]:
    """Hands, this round's picks, shelves, collected piles and the deck: each candle once."""
    groups = [*state["hands"], [p for p in state["picks"] if p is not None], *state["shelves"],
              *state["collected"], state["deck"]]
    return [c for group in groups for c in group]


def keys_in(value) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for item in value.values() for k in keys_in(item)}
    if isinstance(value, list):
        return {k for item in value for k in keys_in(item)}
    return set()


# --- random play ----------------------------------------------------------------------------------

@SETTINGS
@given(games())
def test_random_play_ends_after_six_rounds_with_every_candle_accounted_for(game):
    count = game[0]
    reveals, state = 0, None
    for _before, _seat, _action, state, events in play_randomly(*game):
        reveals += sum(e["type"] == "reveal" for e in events)
        assert sorted(every_candle(state)) == list(range(1, 105))
        assert all(1 <= len(shelf) <= 5 and shelf == sorted(shelf) for shelf in state["shelves"])
        assert state["wax"] == [sum(map(engine.wax_of, taken)) for taken in state["collected"]]
    assert reveals == 6 and state["finished"] and state["round"] == 6
    assert state["hands"] == [[] for _ in range(count)] and state["picks"] == [None] * count
    played = [c for shelf in state["shelves"] for c in shelf] + [c for taken in state["collected"] for c in taken]
    assert len(played) + len(state["deck"]) == 104
    assert set(played) | set(state["deck"]) == set(range(1, 105))
    ranking = engine.outcome(state)
    assert sorted(r["seat"] for r in ranking) == list(range(count))
    assert [r["score"] for r in ranking] == sorted(state["wax"])
    for row in ranking:  # least wax first; a tie shares the place, and the next place is skipped
        assert row["score"] == state["wax"][row["seat"]]
        assert row["place"] == 1 + sum(wax < row["score"] for wax in state["wax"])


@SETTINGS
@given(games(), st.data())
def test_the_order_in_which_seats_pick_does_not_matter(game, data):
    count, seed, mix, chooser = game
    state, _log = final_state(*game, stop_after=count * data.draw(st.integers(0, 5)))  # a round's start
    picks = {seat: chooser.choice(state["hands"][seat]) for seat in range(count)}
    finished = []
    for order in (sorted(picks), data.draw(st.permutations(sorted(picks)))):
        after = state
        for seat in order:
            after, _events = engine.apply(after, seat, {"type": "play", "candle": picks[seat]})
        finished.append(json.dumps(after, sort_keys=True))
    assert finished[0] == finished[1]


# --- views ----------------------------------------------------------------------------------------

def shown_candles(seen: dict) -> set[int]:
    shown = {c for shelf in seen["shelves"] for c in shelf} | {c for taken in seen["collected"] for c in taken}
    shown |= set(seen.get("hand", [])) | {seen.get("my_pick")} - {None}
    for placement in seen["last_round"]:
        shown |= {placement["candle"], *placement["taken"]}
    return shown


def hidden_candles(state: dict, seat: int | None) -> set[int]:
    """The deck, and every other seat's hand and pick."""
    hidden = set(state["deck"])
    for other in range(state["seats"]):
        if other != seat:
            hidden |= set(state["hands"][other]) | {state["picks"][other]} - {None}
    return hidden


def check_view(state: dict, seat: int | None) -> None:
    seen = engine.view(state, seat)
    assert set(seen) == (VIEW_KEYS | SEAT_KEYS if seat is not None else VIEW_KEYS)
    assert not keys_in(seen) & {"deck", "seed", "hands", "picks"}
    if seat is not None:
        assert seen["hand"] == state["hands"][seat] and seen["my_pick"] == state["picks"][seat]
    assert seen["picked"] == [p is not None for p in state["picks"]]
    assert not shown_candles(seen) & hidden_candles(state, seat)


@settings(max_examples=25, deadline=None)
@given(games())
def test_a_view_holds_its_keys_and_none_of_the_hidden_candles(game):
    for _before, _seat, _action, state, _events in play_randomly(*game):
        for seat in [*range(state["seats"]), None]:
            check_view(state, seat)


# --- the table's choice ---------------------------------------------------------------------------

def collects(shelves: list[list[int]], candle: int, picks) -> bool:
    """Plays `candle` with the other seats' `picks` on copies of the shelves: does it collect?"""
    shelves = [list(shelf) for shelf in shelves]
    for c in sorted([*picks, candle]):
        _shelf, _how, taken = engine.place(shelves, c)
        if c == candle:
            return bool(taken)
    raise AssertionError("unreachable")


def every_outcome(shelves, candle, others: int, unseen) -> set[bool]:
    """Tries every set of picks the other seats could make: slow, but it cannot be wrong."""
    found = set()
    for picks in itertools.combinations(sorted(unseen), min(others, len(unseen))):
        found.add(collects(shelves, candle, picks))
        if len(found) == 2:
            break
    return found


def class_of(outcomes: set[bool]) -> int:
    return engine.SAFE if outcomes == {False} else engine.SURE if outcomes == {True} else engine.MAYBE


@st.composite
def small_positions(draw):
    """Four sorted shelves, a candle and a few unseen candles, crowded in a small range of numbers so
    that the candle often sits near shelf ends, on full shelves and below every end."""
    sizes = draw(st.lists(st.integers(1, 5), min_size=4, max_size=4))
    unseen_count = draw(st.integers(1, 10))
    top = draw(st.sampled_from([32, 50, 104]))
    total = sum(sizes) + 1 + unseen_count
    numbers = draw(st.lists(st.integers(1, top), min_size=total, max_size=total, unique=True))
    shelves, start = [], 0
    for size in sizes:
        shelves.append(sorted(numbers[start:start + size]))
        start += size
    candle, unseen = numbers[start], set(numbers[start + 1:])
    return shelves, candle, draw(st.integers(0, min(9, len(unseen)))), unseen


@settings(max_examples=300, deadline=None)
@given(small_positions())
def test_the_risk_class_is_exact_against_every_set_of_picks(position):
    shelves, candle, others, unseen = position
    truth = every_outcome(shelves, candle, others, unseen)
    assert engine.collect_outcomes(shelves, candle, others, unseen) == truth
    assert engine.candle_risk(shelves, candle, others, unseen)[0] == class_of(truth)


@st.composite
def positions(draw, seats=seat_counts):
    """A state in the middle of a random game (some seats may have picked already)."""
    count, seed, mix, chooser = draw(games(seats))
    stop = draw(st.integers(0, 6 * count - 1))
    return final_state(count, seed, mix, chooser, stop)[0]


def hand_classes(state: dict, seat: int) -> dict[int, int]:
    seen = engine.view(state, seat)
    unseen = engine.unseen_candles(seen)
    return {c: engine.candle_risk(seen["shelves"], c, seen["seats"] - 1, unseen)[0] for c in seen["hand"]}


@settings(max_examples=60, deadline=None)
@given(positions())
def test_the_table_never_plays_a_sure_candle_while_it_holds_a_safe_one(state):
    for seat in engine.to_act(state):
        action = engine.table_choice(state, seat)
        assert action in engine.legal(state, seat)
        classes = hand_classes(state, seat)
        assert classes[action["candle"]] == min(classes.values())
        if engine.SAFE in classes.values():
            assert classes[action["candle"]] == engine.SAFE


@settings(max_examples=25, deadline=None)
@given(positions(seats=st.just(2)))
def test_two_seat_classes_match_every_pick_the_other_seat_could_make(state):
    for seat in engine.to_act(state):
        seen = engine.view(state, seat)
        unseen = engine.unseen_candles(seen)
        truth = {c: class_of(every_outcome(seen["shelves"], c, 1, unseen)) for c in seen["hand"]}
        assert hand_classes(state, seat) == truth
        chosen = engine.table_choice(state, seat)["candle"]
        assert not (truth[chosen] == engine.SURE and engine.SAFE in truth.values())


@settings(max_examples=40, deadline=None)
@given(positions(seats=st.integers(3, 10)), st.randoms(use_true_random=False))
def test_safe_and_sure_hold_for_sampled_picks_of_many_seats(state, sampler):
    for seat in engine.to_act(state)[:2]:
        seen = engine.view(state, seat)
        unseen = sorted(engine.unseen_candles(seen))
        for candle, risk in hand_classes(state, seat).items():
            if risk == engine.MAYBE:
                continue
            for _ in range(60):
                picks = sampler.sample(unseen, seen["seats"] - 1)
                assert collects(seen["shelves"], candle, picks) == (risk == engine.SURE)
