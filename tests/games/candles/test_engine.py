"""The candles engine against its rule page (shared rules: candles.en.txt and its README rulings).

One test per rule, each on a scripted state, then the refused moves and the table's choice.
Random play, secrecy and replay are in test_properties.py; whole recorded games in test_golden.py.
"""

from __future__ import annotations

import copy
import json

import pytest

from games import fairness
from games.candles import engine
from games.errors import IllegalAction

SEED = "5eed" * 16


def rng_for(client_seeds: list[str | None], seed: str = SEED) -> fairness.Rng:
    mix = fairness.mix_string(game="candles", room_code="TEST01", number=1, client_seeds=client_seeds)
    return fairness.Rng(seed, mix)


def scripted_state(hands, shelves, *, round_=1, wax=None, collected=None) -> dict:
    """A state as the engine keeps it, with these hands and shelves; the deck holds every other candle."""
    seats = len(hands)
    collected = collected or [[] for _ in range(seats)]
    used = [c for group in (*hands, *shelves, *collected) for c in group]
    assert len(used) == len(set(used)), "a scripted state must not show a candle twice"
    return {
        "game": "candles",
        "seats": seats,
        "round": round_,
        "hands": [sorted(hand) for hand in hands],
        "shelves": [list(shelf) for shelf in shelves],
        "picks": [None] * seats,
        "wax": list(wax) if wax else [sum(engine.wax_of(c) for c in taken) for taken in collected],
        "collected": [list(taken) for taken in collected],
        "deck": [c for c in engine.DECK if c not in used],
        "last_round": [],
        "finished": False,
    }


def play(state: dict, picks: dict[int, int]) -> tuple[dict, list[dict]]:
    """Every seat in `picks` plays its candle, in seat order; returns the last state and all events."""
    events = []
    for seat, candle in sorted(picks.items()):
        state, new = engine.apply(state, seat, {"type": "play", "candle": candle})
        events += new
    return state, events


def placements(events: list[dict]) -> list[dict]:
    return [event for event in events if event["type"] == "place"]


def card_values(seen: dict) -> set[int]:
    """Every candle a view shows, wherever it shows it."""
    shown = {c for shelf in seen["shelves"] for c in shelf} | {c for taken in seen["collected"] for c in taken}
    shown |= set(seen.get("hand", []))
    if seen.get("my_pick") is not None:
        shown.add(seen["my_pick"])
    for placement in seen["last_round"]:
        shown |= {placement["candle"], *placement["taken"]}
    return shown


# --- wax ------------------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("candle", "drops"),
    [(18, 1), (1, 1), (104, 1), (5, 2), (15, 2), (95, 2), (10, 3), (30, 3), (100, 3),
     (11, 5), (22, 5), (44, 5), (99, 5), (55, 7)],
)
def test_wax_of_each_candle(candle, drops):
    assert engine.wax_of(candle) == drops


def test_the_page_pictures_18_and_30():
    assert (engine.wax_of(18), engine.wax_of(30)) == (1, 3)


def test_the_whole_deck_holds_171_drops():
    # 104 plain drops, +1 for nine multiples of 5, +2 for ten of 10, +4 for eight of 11, +6 for 55.
    assert sum(engine.wax_of(c) for c in engine.DECK) == 104 + 9 + 20 + 32 + 6 == 171


def test_shelf_wax_adds_its_candles():
    assert engine.shelf_wax([9, 11, 16, 17, 18]) == 1 + 5 + 1 + 1 + 1
    assert engine.shelf_wax([55, 60]) == 10


# --- the deal -------------------------------------------------------------------------------------

@pytest.mark.parametrize("seats", range(2, 11))
def test_setup_deals_six_each_and_one_per_shelf_from_104_candles(seats):
    state = engine.setup(seats, {}, rng_for([None] * seats))
    assert len(engine.DECK) == 104 and set(engine.DECK) == set(range(1, 105))
    assert [len(hand) for hand in state["hands"]] == [6] * seats
    assert all(hand == sorted(hand) for hand in state["hands"])
    assert [len(shelf) for shelf in state["shelves"]] == [1, 1, 1, 1]
    every = [c for hand in state["hands"] for c in hand] + [s[0] for s in state["shelves"]] + state["deck"]
    assert sorted(every) == list(range(1, 105))
    assert len(state["deck"]) == 104 - 6 * seats - 4


def test_setup_starts_round_one_with_nothing_played():
    state = engine.setup(3, {}, rng_for([None] * 3))
    assert state["round"] == 1 and state["finished"] is False
    assert state["picks"] == [None] * 3 and state["wax"] == [0] * 3
    assert state["collected"] == [[], [], []] and state["last_round"] == []
    assert engine.outcome(state) is None


def test_the_deal_is_the_deck_stream_shuffled_hands_first_then_shelves():
    rng = rng_for(["a", None, "c"])
    deck = rng.stream("deck").shuffle(engine.DECK)
    state = engine.setup(3, {}, rng)
    assert state["hands"] == [sorted(deck[6 * s:6 * s + 6]) for s in range(3)]
    assert state["shelves"] == [[deck[18 + i]] for i in range(4)]
    assert state["deck"] == deck[22:]


def test_same_seed_and_mix_give_the_same_deal():
    first = engine.setup(4, {}, rng_for(["alice", None, "bob", None]))
    again = engine.setup(4, {}, rng_for(["alice", None, "bob", None]))
    assert json.dumps(first, sort_keys=True) == json.dumps(again, sort_keys=True)


def test_different_client_seeds_give_a_different_deal():
    first = engine.setup(4, {}, rng_for(["alice", None, "bob", None]))
    other = engine.setup(4, {}, rng_for(["alice", None, "bob", "x"]))
    assert (first["hands"], first["shelves"]) != (other["hands"], other["shelves"])


def test_a_different_seed_gives_a_different_deal():
    first = engine.setup(4, {}, rng_for([None] * 4))
    other = engine.setup(4, {}, rng_for([None] * 4, seed="0" * 63 + "1"))
    assert (first["hands"], first["shelves"]) != (other["hands"], other["shelves"])


@pytest.mark.parametrize("seats", [0, 1, 11, 12])
def test_fewer_than_two_or_more_than_ten_seats_are_refused(seats):
    with pytest.raises(ValueError):
        engine.setup(seats, {}, rng_for([None] * max(seats, 1)))


# --- secret picks ---------------------------------------------------------------------------------

def four_seat_state() -> dict:
    hands = [[3, 14, 27, 60, 71, 88], [5, 19, 33, 45, 77, 90], [8, 21, 38, 52, 81, 99], [2, 24, 41, 66, 84, 101]]
    return scripted_state(hands, [[10], [30], [50], [70]])


def test_everyone_is_to_act_at_the_start_of_a_round():
    state = four_seat_state()
    assert engine.to_act(state) == [0, 1, 2, 3]
    assert engine.legal(state, 2) == [{"type": "play", "candle": c} for c in [8, 21, 38, 52, 81, 99]]


def test_after_one_seat_picks_the_others_are_still_to_act():
    state, events = engine.apply(four_seat_state(), 1, {"type": "play", "candle": 33})
    assert engine.to_act(state) == [0, 2, 3]
    assert engine.legal(state, 1) == []
    assert events == [{"type": "picked", "seat": 1}]  # who, never what
    assert state["shelves"] == [[10], [30], [50], [70]]  # nothing is placed before the last pick


def test_a_pick_shows_who_picked_never_what_to_the_other_seats():
    state, _ = engine.apply(four_seat_state(), 1, {"type": "play", "candle": 33})
    for seat in (0, 2, 3, None):
        seen = engine.view(state, seat)
        assert seen["picked"] == [False, True, False, False]
        assert seen["hand_sizes"] == [6, 6, 6, 6]
        assert 33 not in card_values(seen)
        assert seen.get("my_pick") is None
    mine = engine.view(state, 1)
    assert mine["my_pick"] == 33 and 33 not in mine["hand"]
    assert mine["hand"] == [5, 19, 45, 77, 90]


def test_a_spectator_sees_no_hand_and_no_pick():
    seen = engine.view(four_seat_state(), None)
    assert "hand" not in seen and "my_pick" not in seen and "seat" not in seen


# --- placing the candles --------------------------------------------------------------------------

def test_the_candles_are_revealed_then_placed_lowest_first():
    state, _ = play(four_seat_state(), {0: 60, 1: 33, 2: 52})
    state, events = engine.apply(state, 3, {"type": "play", "candle": 41})
    assert [e["type"] for e in events] == ["picked", "reveal", "place", "place", "place", "place", "round"]
    assert events[1] == {"type": "reveal", "round": 1, "picks": [60, 33, 52, 41]}
    assert [(e["seat"], e["candle"]) for e in placements(events)] == [(1, 33), (3, 41), (2, 52), (0, 60)]
    assert events[-1] == {"type": "round", "round": 2}
    assert state["round"] == 2 and state["picks"] == [None] * 4
    assert engine.to_act(state) == [0, 1, 2, 3]


def test_a_candle_goes_after_the_shelf_end_closest_below_it():
    # The page: candle 25 with shelves ending in 12, 20, 31 and 47 goes after the 20.
    shelves = [[12], [20], [31], [47]]
    assert engine.target_shelf(shelves, 25) == 1
    state, events = play(scripted_state([[25], [90]], shelves, round_=6), {0: 25, 1: 90})
    first = placements(events)[0]
    assert first == {"type": "place", "seat": 0, "candle": 25, "shelf": 1, "how": "add", "taken": [], "wax": 0}
    assert state["shelves"] == [[12], [20, 25], [31], [47, 90]]
    assert state["wax"] == [0, 0]


def test_closest_below_means_the_highest_end_under_the_candle_not_the_nearest_end():
    # 46 is nearer to 47 than to 31, but 47 is above it.
    assert engine.target_shelf([[12], [20], [31], [47]], 46) == 2


def test_the_sixth_candle_tips_the_shelf_and_starts_it_again():
    # The page: shelf 9 11 16 17 18 is full; whoever places 19 collects those five candles.
    # Note: the page says "five drops of wax", but its own wax rule makes 11 (a multiple of 11) worth
    # 5 drops, so the five candles hold 9 drops. The wax rule wins; the example's count is reported.
    shelves = [[9, 11, 16, 17, 18], [40], [60], [80]]
    state, events = play(scripted_state([[19], [100]], shelves, round_=6), {0: 19, 1: 100})
    tip = placements(events)[0]
    assert tip == {"type": "place", "seat": 0, "candle": 19, "shelf": 0, "how": "tip",
                   "taken": [9, 11, 16, 17, 18], "wax": 9}
    assert state["shelves"][0] == [19]
    assert state["collected"][0] == [9, 11, 16, 17, 18] and state["wax"][0] == 9


def test_a_tipped_shelf_of_plain_candles_gives_five_drops():
    state, _ = play(scripted_state([[19], [100]], [[9, 12, 16, 17, 18], [40], [60], [80]]), {0: 19, 1: 100})
    assert state["wax"] == [5, 0] and state["shelves"][0] == [19]


def test_a_fifth_candle_still_fits():
    state, events = play(scripted_state([[19], [100]], [[9, 12, 16, 17], [40], [60], [80]]), {0: 19, 1: 100})
    assert placements(events)[0]["how"] == "add"
    assert state["shelves"][0] == [9, 12, 16, 17, 19] and state["wax"] == [0, 0]


def test_a_candle_lower_than_every_end_takes_the_shelf_with_least_wax():
    # Wax: [20] 3, [30, 31] 4, [33] 5, [41, 42] 2: the last shelf has least wax.
    shelves = [[20], [30, 31], [33], [41, 42]]
    state, events = play(scripted_state([[7], [100]], shelves), {0: 7, 1: 100})
    low = placements(events)[0]
    assert low == {"type": "place", "seat": 0, "candle": 7, "shelf": 3, "how": "low", "taken": [41, 42], "wax": 2}
    assert state["shelves"][3] == [7]
    assert state["collected"][0] == [41, 42] and state["wax"][0] == 2


def test_least_wax_is_counted_in_drops_not_in_candles():
    # [55] is one candle and 7 drops; [61, 62, 63, 64] is four candles and 4 drops; [77], [88] are 5 each.
    shelves = [[55], [61, 62, 63, 64], [77], [88]]
    assert engine.least_wax_shelf(shelves) == 1
    state, _ = play(scripted_state([[7], [100]], shelves), {0: 7, 1: 100})
    assert state["collected"][0] == [61, 62, 63, 64]


def test_on_a_wax_tie_the_low_candle_takes_the_first_top_shelf():
    # [20] 3, [31] 1, [60] 3, [32] 1: shelves 1 and 3 tie on least wax; the top one of them is 1.
    shelves = [[20], [31], [60], [32]]
    assert engine.least_wax_shelf(shelves) == 1
    state, events = play(scripted_state([[7], [100]], shelves), {0: 7, 1: 100})
    assert placements(events)[0]["shelf"] == 1
    assert state["shelves"][1] == [7] and state["collected"][0] == [31]


def test_when_every_shelf_ties_the_low_candle_takes_the_top_one():
    state, _ = play(scripted_state([[3], [100]], [[21], [31], [41], [51]]), {0: 3, 1: 100})
    assert state["shelves"][0] == [3] and state["collected"][0] == [21]


def test_a_low_candle_placed_first_changes_where_the_later_ones_go():
    # Alone, 60 would go after the 58. But 3 goes first, lower than every end: it takes the shelf
    # with least wax, [58], so 60 lands after the 45 instead, on a full shelf, and tips it.
    shelves = [[58], [40, 41, 42, 43, 45], [70], [90]]
    state, events = play(scripted_state([[3], [60]], shelves), {0: 3, 1: 60})
    assert [(e["candle"], e["shelf"], e["how"]) for e in placements(events)] == [(3, 0, "low"), (60, 1, "tip")]
    assert state["shelves"] == [[3], [60], [70], [90]]
    assert state["collected"] == [[58], [40, 41, 42, 43, 45]]
    assert state["wax"] == [1, 8]


def test_a_candle_placed_first_becomes_the_end_the_next_one_follows():
    # 30 goes after 10; then 40 goes after 30 (no longer after 10), on the same shelf.
    state, events = play(scripted_state([[30], [40]], [[10], [50], [70], [90]]), {0: 30, 1: 40})
    assert [(e["candle"], e["shelf"]) for e in placements(events)] == [(30, 0), (40, 0)]
    assert state["shelves"][0] == [10, 30, 40]


def test_an_earlier_candle_can_fill_the_shelf_so_the_next_one_tips_it():
    shelves = [[10, 11, 12, 13], [50], [70], [90]]
    state, events = play(scripted_state([[21], [20]], shelves), {0: 21, 1: 20})
    assert [(e["seat"], e["how"]) for e in placements(events)] == [(1, "add"), (0, "tip")]
    assert state["collected"][0] == [10, 11, 12, 13, 20] and state["wax"] == [3 + 5 + 1 + 1 + 3, 0]
    assert state["shelves"][0] == [21]


def test_last_round_lists_the_placements_for_everyone_to_see():
    state, events = play(scripted_state([[3], [60]], [[58], [40, 41, 42, 43, 45], [70], [90]]), {0: 3, 1: 60})
    expected = [{k: v for k, v in e.items() if k != "type"} for e in placements(events)]
    assert state["last_round"] == expected
    for seat in (0, 1, None):
        assert engine.view(state, seat)["last_round"] == expected


def test_events_share_nothing_with_the_state():
    state, events = play(scripted_state([[3], [60]], [[58], [40, 41, 42, 43, 45], [70], [90]]), {0: 3, 1: 60})
    kept = copy.deepcopy(state)
    for event in placements(events):
        event["taken"].append(999)
    assert state == kept


# --- the end --------------------------------------------------------------------------------------

def test_six_rounds_then_the_game_ends_with_empty_hands():
    state = engine.setup(3, {}, rng_for([None] * 3))
    rounds_seen = []
    for round_ in range(1, 7):
        assert state["round"] == round_ and not state["finished"]
        for seat in engine.to_act(state):
            state, events = engine.apply(state, seat, engine.legal(state, seat)[0])
        rounds_seen += [e["round"] for e in events if e["type"] == "reveal"]
    assert rounds_seen == [1, 2, 3, 4, 5, 6]
    assert state["finished"] and state["round"] == 6
    assert state["hands"] == [[], [], []]
    assert engine.to_act(state) == [] and engine.legal(state, 0) == []
    assert events[-1] == {"type": "end", "ranking": engine.outcome(state)}
    assert not any(e["type"] == "round" for e in events)


def finished_with_wax(wax: list[int]) -> dict:
    state = scripted_state([[] for _ in wax], [[10], [20], [30], [40]], round_=6, wax=wax)
    state["finished"] = True
    return state


def test_least_wax_wins():
    ranking = engine.outcome(finished_with_wax([9, 2, 5]))
    assert ranking == [{"seat": 1, "place": 1, "score": 2}, {"seat": 2, "place": 2, "score": 5},
                       {"seat": 0, "place": 3, "score": 9}]


def test_ties_share_the_place_and_the_next_place_is_skipped():
    ranking = engine.outcome(finished_with_wax([5, 3, 3, 8]))
    assert [(r["seat"], r["place"], r["score"]) for r in ranking] == [(1, 1, 3), (2, 1, 3), (0, 3, 5), (3, 4, 8)]


def test_a_tie_lower_down_shares_its_place_too():
    ranking = engine.outcome(finished_with_wax([4, 1, 4, 4]))
    assert [(r["seat"], r["place"]) for r in ranking] == [(1, 1), (0, 2), (2, 2), (3, 2)]


def test_everyone_tied_is_everyone_first():
    assert [r["place"] for r in engine.outcome(finished_with_wax([0, 0]))] == [1, 1]


def test_the_last_pick_of_round_six_ends_the_game_and_ranks_it():
    state = scripted_state([[19], [100]], [[9, 11, 16, 17, 18], [40], [60], [80]], round_=6)
    state, events = play(state, {0: 19, 1: 100})
    assert state["finished"] and state["hands"] == [[], []]
    ranking = [{"seat": 1, "place": 1, "score": 0}, {"seat": 0, "place": 2, "score": 9}]
    assert events[-1] == {"type": "end", "ranking": ranking}
    assert engine.outcome(state) == ranking
    assert engine.view(state, None)["ranking"] == ranking and engine.view(state, 0)["finished"] is True


@pytest.mark.parametrize("seats", [2, 10])
def test_two_and_ten_seats_play_a_whole_game(seats):
    state = engine.setup(seats, {}, rng_for([None] * seats))
    moves = 0
    while not state["finished"]:
        for seat in engine.to_act(state):
            state, _ = engine.apply(state, seat, engine.table_choice(state, seat))
            moves += 1
    assert moves == 6 * seats
    assert len(engine.outcome(state)) == seats
    assert state["hands"] == [[] for _ in range(seats)]
    on_table = [c for shelf in state["shelves"] for c in shelf] + [c for taken in state["collected"] for c in taken]
    assert sorted(on_table + state["deck"]) == list(range(1, 105))


# --- refused moves --------------------------------------------------------------------------------

def refused(state: dict, seat, action) -> str:
    """The code of the IllegalAction that `apply` raises; the state passed in must be left as it was."""
    before = copy.deepcopy(state)
    with pytest.raises(IllegalAction) as caught:
        engine.apply(state, seat, action)
    assert state == before
    assert json.dumps(state, sort_keys=True) == json.dumps(before, sort_keys=True)
    assert caught.value.message
    return caught.value.code


def hand_with_one() -> dict:
    """Seat 0 holds 1 and 37, so that True (== 1) and 37.0 (== 37) would match a candle in the hand."""
    return scripted_state([[1, 37, 62], [5, 44, 90]], [[10], [30], [50], [70]])


@pytest.mark.parametrize("candle", [5, 10, 0, 105, -1, 2])
def test_a_candle_not_in_hand_is_refused(candle):
    # 5 is another seat's, 10 is on a shelf, 0 and 105 do not exist, 2 is in the deck.
    assert refused(hand_with_one(), 0, {"type": "play", "candle": candle}) == "not_in_hand"


@pytest.mark.parametrize(
    "action",
    [
        {"type": "play"},
        {"candle": 37},
        {"type": "play", "candle": 37, "extra": 1},
        {"type": "pass", "candle": 37},
        {"type": "PLAY", "candle": 37},
        {},
        None,
        "play 37",
        37,
        ["play", 37],
        {"type": "play", "candle": "37"},
        {"type": "play", "candle": 37.0},
        {"type": "play", "candle": True},
        {"type": "play", "candle": None},
        {"type": "play", "candle": [37]},
    ],
    ids=repr,
)
def test_a_malformed_action_is_refused(action):
    assert refused(hand_with_one(), 0, action) == "bad_action"


@pytest.mark.parametrize("seat", [-1, 2, 99, None, "0", 0.0, True])
def test_a_seat_out_of_range_is_refused(seat):
    assert refused(hand_with_one(), seat, {"type": "play", "candle": 37}) == "no_such_seat"


def test_a_seat_that_already_picked_is_refused():
    state, _ = engine.apply(hand_with_one(), 0, {"type": "play", "candle": 37})
    assert refused(state, 0, {"type": "play", "candle": 62}) == "already_picked"
    assert refused(state, 0, {"type": "play", "candle": 37}) == "already_picked"


def test_any_move_after_the_end_is_refused():
    state, _ = play(scripted_state([[19], [100]], [[9, 11, 16, 17, 18], [40], [60], [80]], round_=6),
                    {0: 19, 1: 100})
    assert state["finished"]
    for seat, action in [(0, {"type": "play", "candle": 19}), (1, {"type": "play", "candle": 2}),
                         (5, None), (0, {"type": "pass"})]:
        assert refused(state, seat, action) == "game_over"


def test_a_refused_move_leaves_the_round_as_it_was():
    state, _ = engine.apply(hand_with_one(), 1, {"type": "play", "candle": 44})
    refused(state, 0, {"type": "play", "candle": 5})
    assert engine.to_act(state) == [0]
    state, events = engine.apply(state, 0, {"type": "play", "candle": 37})
    assert events[1] == {"type": "reveal", "round": 1, "picks": [37, 44]}


# --- the table's choice ---------------------------------------------------------------------------

def risk_class(shelves, candle, others, unseen) -> int:
    return engine.candle_risk(shelves, candle, others, set(unseen))[0]


def unseen_for(hand, shelves, collected=()) -> set[int]:
    return set(engine.DECK) - set(hand) - {c for s in shelves for c in s} - {c for t in collected for c in t}


def test_the_table_will_not_tip_a_full_shelf_while_a_safe_candle_is_in_hand():
    # 19 would be the sixth candle on the full shelf, and no candle can come between 18 and 19: SURE.
    # 61 goes after 60 with four places free and no candle between 60 and 61: SAFE.
    shelves = [[9, 11, 16, 17, 18], [40], [60], [80]]
    hand = [19, 61]
    state = scripted_state([hand, [2, 3]], shelves)
    unseen = unseen_for(hand, shelves)
    assert risk_class(shelves, 19, 1, unseen) == engine.SURE
    assert risk_class(shelves, 61, 1, unseen) == engine.SAFE
    assert engine.table_choice(state, 0) == {"type": "play", "candle": 61}


def test_the_table_will_not_play_a_too_low_candle_while_a_safe_candle_is_in_hand():
    # Nothing is lower than 1: it takes a shelf for sure. 21 goes after 20, safely.
    shelves = [[10], [20], [30], [40]]
    state = scripted_state([[1, 21], [70, 80]], shelves)
    unseen = unseen_for([1, 21], shelves)
    assert risk_class(shelves, 1, 1, unseen) == engine.SURE
    assert risk_class(shelves, 21, 1, unseen) == engine.SAFE
    assert engine.table_choice(state, 0) == {"type": "play", "candle": 21}


def test_a_too_low_candle_is_only_a_maybe_when_someone_could_play_lower():
    shelves = [[10], [20], [30], [40]]
    assert risk_class(shelves, 2, 1, unseen_for([2], shelves)) == engine.MAYBE  # 1 is unseen
    assert risk_class(shelves, 2, 1, unseen_for([2], shelves) - {1}) == engine.SURE
    assert risk_class(shelves, 2, 0, unseen_for([2], shelves)) == engine.SURE  # nobody else plays


def test_a_sixth_candle_is_only_a_maybe_when_a_candle_could_come_between():
    shelves = [[9, 11, 16, 17, 18], [40], [60], [80]]
    assert risk_class(shelves, 20, 1, unseen_for([20], shelves)) == engine.MAYBE  # 19 could tip it first
    assert risk_class(shelves, 20, 1, unseen_for([20], shelves) - {19}) == engine.SURE


def test_a_shelf_with_room_is_a_maybe_when_enough_candles_could_fill_it_first():
    shelves = [[9, 11, 16, 17], [40], [60], [80]]  # one place left
    assert risk_class(shelves, 20, 1, unseen_for([20], shelves)) == engine.MAYBE  # 18 or 19 could fill it
    assert risk_class(shelves, 20, 1, unseen_for([20], shelves) - {18, 19}) == engine.SAFE
    assert risk_class(shelves, 20, 0, unseen_for([20], shelves)) == engine.SAFE  # nobody else plays


def test_a_low_candle_taking_the_shelf_first_is_a_risk_too():
    # 60 goes after 58 with room to spare, unless another seat plays a candle lower than every end:
    # that one takes [58], the shelf with least wax, and 60 then tips the full shelf ending in 45.
    shelves = [[58], [40, 41, 42, 43, 45], [70], [90]]
    unseen = unseen_for([60], shelves)
    assert risk_class(shelves, 60, 1, unseen) == engine.MAYBE
    assert risk_class(shelves, 60, 1, {c for c in unseen if c > 45}) == engine.SAFE  # nothing below every end


def test_a_full_shelf_that_a_low_candle_could_take_first_is_not_sure():
    # 18 is the sixth on [12 .. 17] with nothing between, but that shelf has least wax: a lower
    # candle from another seat would take it first, and 18 would then go after that one.
    shelves = [[12, 13, 14, 16, 17], [20, 30], [55], [66]]
    assert engine.least_wax_shelf(shelves) == 0
    unseen = unseen_for([18], shelves)
    assert risk_class(shelves, 18, 1, unseen) == engine.MAYBE
    assert risk_class(shelves, 18, 1, {c for c in unseen if c > 17}) == engine.SURE  # nothing below every end


def test_the_table_prefers_the_safe_candle_with_most_room():
    shelves = [[10, 11, 12], [40], [60], [80]]
    state = scripted_state([[13, 41], [2, 3]], shelves)  # both safe: 13 leaves 1 place, 41 leaves 3
    assert engine.table_choice(state, 0) == {"type": "play", "candle": 41}


def test_the_table_decides_from_the_view_alone():
    shelves = [[9, 11, 16, 17, 18], [40], [60], [80]]
    state = scripted_state([[19, 61], [2, 3]], shelves)
    other = copy.deepcopy(state)
    other["hands"][1], other["deck"] = [62, 63], sorted(set(state["deck"]) - {62, 63} | {2, 3})
    assert engine.view(state, 0) == engine.view(other, 0)
    assert engine.table_choice(state, 0) == engine.table_choice(other, 0)
    assert engine.lowest_risk_candle(engine.view(state, 0)) == 61
