"""The tiles engine: setup, turns, plays, draws, passes, places, the blocked end, resignations, views."""

from __future__ import annotations

import copy
import json

import pytest

from games import fairness
from games.errors import IllegalAction
from games.tiles import engine
from tests.games.tiles.boards import row, tile

SEED = "5e" * 32


def rng_for(number: int = 1) -> fairness.Rng:
    return fairness.Rng(SEED, fairness.mix_string(game="tiles", room_code="TILES1", number=number,
                                                  client_seeds=[None, None]))


class ScriptedRng:
    """Streams whose uniform() answers come from a script per label (the dice tests)."""

    def __init__(self, script: dict[str, list[int]]):
        self.script = {label: list(values) for label, values in script.items()}
        self.read: list[str] = []

    def stream(self, label: str):
        self.read.append(label)
        rng = self

        class _Stream:
            def uniform(self, n):
                return rng.script[label].pop(0)

            def shuffle(self, items):
                return list(items)

        return _Stream()


def playing(seats: int = 2, *, hands=None, bag=None, table=None, current: int = 0) -> dict:
    """A state in phase play with the given hands (lists of tile names or ids), bag and table."""
    state = engine.setup(seats, {}, rng_for())
    state = engine.apply(state, state["chooser"], {"type": "begin"})[0]
    if hands is not None:
        state["hands"] = [sorted(_ids(hand)) for hand in hands]
    if bag is not None:
        state["bag"] = _ids(bag)
    if table is not None:
        state["table"] = sorted([list(item) for item in table])
    state["current"] = current
    return state


def _ids(names) -> list[int]:
    return [name if isinstance(name, int) else tile(name) for name in names]


def as_play(table) -> dict:
    return {"type": "play", "table": [list(item) for item in table]}


def refused(state, seat, action, rng=None) -> str:
    before = json.dumps(state)
    with pytest.raises(IllegalAction) as caught:
        engine.apply(state, seat, action, rng)
    assert json.dumps(state) == before  # a refused action changes nothing
    return caught.value.code


# --- setup ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("seats", [2, 3, 4])
def test_setup_deals_fourteen_each_and_keeps_the_rest_in_the_bag(seats):
    state = engine.setup(seats, {}, rng_for())
    assert [len(hand) for hand in state["hands"]] == [14] * seats
    assert len(state["bag"]) == 106 - 14 * seats
    everything = sorted(state["bag"] + [t for hand in state["hands"] for t in hand])
    assert everything == list(range(106))
    assert all(hand == sorted(hand) for hand in state["hands"])
    assert state["board"] == [24, 16] and state["table"] == [] and state["phase"] == "begin"
    json.dumps(state)


def test_the_deal_reads_the_bag_stream_in_its_documented_order():
    rng = rng_for()
    state = engine.setup(3, {}, rng)
    shuffled = rng.stream("bag").shuffle(list(range(106)))
    assert state["hands"] == [sorted(shuffled[14 * i:14 * i + 14]) for i in range(3)]
    assert state["bag"] == shuffled[42:]


def test_setup_refuses_a_wrong_seat_count():
    for seats in (1, 5, True):
        with pytest.raises(ValueError):
            engine.setup(seats, {}, rng_for())


def test_the_highest_die_chooses():
    rng = ScriptedRng({"dice:1": [2, 5, 3]})
    state = engine.setup(3, {}, rng)
    assert state["dice"] == [[3, 6, 4]] and state["chooser"] == 1 and state["current"] == 1
    assert rng.read == ["dice:1", "bag"]


def test_only_the_seats_tied_on_the_highest_value_roll_again():
    # Round 1: seats 1 and 3 tie on 6 (seat 0 also ties with seat 2, lower: they do not roll again).
    # Round 2: 1 and 3 tie again on 4. Round 3: seat 3 wins.
    rng = ScriptedRng({"dice:1": [1, 5, 1, 5], "dice:2": [3, 3], "dice:3": [0, 2]})
    state = engine.setup(4, {}, rng)
    assert state["dice"] == [[2, 6, 2, 6], [None, 4, None, 4], [None, 1, None, 3]]
    assert state["chooser"] == 3
    assert rng.read == ["dice:1", "dice:2", "dice:3", "bag"]


def test_the_dice_read_one_uniform_six_per_rolling_seat():
    rng = rng_for(7)
    state = engine.setup(4, {}, rng)
    first = rng.stream("dice:1")
    assert state["dice"][0] == [first.uniform(6) + 1 for _ in range(4)]


# --- begin ----------------------------------------------------------------------------------------

def test_only_the_chosen_seat_begins_and_turns_start_with_it():
    state = engine.setup(3, {}, ScriptedRng({"dice:1": [0, 0, 5]}))
    assert engine.to_act(state) == [2]
    assert not engine.timed(state)
    assert engine.legal(state, 2) == [{"type": "begin"}, {"type": "resign"}]
    assert engine.legal(state, 0) == [{"type": "resign"}]
    assert refused(state, 0, {"type": "begin"}) == "not_your_turn"
    assert refused(state, 2, {"type": "draw"}) == "wrong_phase"
    after, events = engine.apply(state, 2, {"type": "begin"})
    assert after["phase"] == "play" and after["current"] == 2 and after["turn"] == 1
    assert events == [{"type": "begun", "seat": 2}, {"type": "turn", "seat": 2}]
    assert engine.timed(after)
    assert refused(after, 2, {"type": "begin"}) == "wrong_phase"


def test_turns_go_in_seat_order_from_the_chooser():
    state = engine.setup(4, {}, ScriptedRng({"dice:1": [0, 0, 5, 0]}))
    state = engine.apply(state, 2, {"type": "begin"})[0]
    order = []
    for _ in range(5):
        seat = state["current"]
        order.append(seat)
        state = engine.apply(state, seat, {"type": "draw"})[0]
    assert order == [2, 3, 0, 1, 2]


# --- draw and pass --------------------------------------------------------------------------------

def test_a_draw_takes_the_bag_front_and_only_the_drawer_learns_the_tile():
    state = playing(hands=[["k1"], ["k2"]], bag=["r9", "r10"])
    after, events = engine.apply(state, 0, {"type": "draw"})
    assert after["hands"][0] == sorted([tile("k1"), tile("r9")])
    assert after["bag"] == [tile("r10")]
    assert events == [{"type": "drew", "seat": 0}, {"type": "drawn", "seat": 0, "tile": tile("r9"), "only": 0},
                      {"type": "turn", "seat": 1}]
    assert after["current"] == 1


def test_pass_only_with_an_empty_bag_and_draw_only_with_tiles_in_it():
    state = playing(hands=[["k1"], ["k2"]], bag=["r9"])
    assert refused(state, 0, {"type": "pass"}) == "bag_not_empty"
    assert engine.legal(state, 0) == [{"type": "draw"}, {"type": "resign"}]
    empty = playing(hands=[["k1"], ["k2"]], bag=[])
    assert refused(empty, 0, {"type": "draw"}) == "bag_empty"
    assert engine.legal(empty, 0) == [{"type": "pass"}, {"type": "resign"}]
    after, events = engine.apply(empty, 0, {"type": "pass"})
    assert after["passes"] == 1 and events[0] == {"type": "passed", "seat": 0}


def test_on_timeout_the_table_draws_or_passes_and_begins_for_the_chooser():
    fresh = engine.setup(2, {}, rng_for())
    assert engine.table_choice(fresh, fresh["chooser"]) == {"type": "begin"}
    assert engine.table_choice(playing(bag=["r9"]), 0) == {"type": "draw"}
    assert engine.table_choice(playing(bag=[]), 0) == {"type": "pass"}


# --- plays ----------------------------------------------------------------------------------------

def test_a_play_of_a_new_set_from_the_hand():
    state = playing(hands=[["b3", "b4", "b5", "k9"], ["k2"]], bag=["r9"])
    table = row("b3 b4 b5", 2, 2)
    after, events = engine.apply(state, 0, as_play(table))
    assert after["table"] == sorted(list(item) for item in table)
    assert after["hands"][0] == [tile("k9")]
    assert events == [{"type": "played", "seat": 0, "added": sorted(t for t, _, _ in table)},
                      {"type": "turn", "seat": 1}]
    assert after["current"] == 1 and after["turn"] == state["turn"] + 1


def test_a_play_that_moves_table_tiles_and_adds_one():
    # b1..b6 on the table; the second b4 from the hand splits it into b1 b2 b3 b4 and b4 b5 b6.
    state = playing(hands=[[tile("b4", 1), "o1"], ["k2"]], table=row("b1 b2 b3 b4 b5 b6", 0, 0), bag=["r9"])
    after_table = row("b1 b2 b3 b4", 0, 0) + [(tile("b4", 1), 6, 2)] + row("b5 b6", 7, 2)
    after, events = engine.apply(state, 0, as_play(after_table))
    assert events[0] == {"type": "played", "seat": 0, "added": [tile("b4", 1)]}
    assert after["hands"][0] == [tile("o1")]
    assert after["table"] == sorted(list(item) for item in after_table)


def test_a_play_that_moves_a_whole_set_and_crosses_it():
    # The run moves one cell right; r5 and k5 hang below its b5 as a column group.
    state = playing(hands=[["r5", "k5", "o1"], ["k2"]], table=row("b3 b4 b5 b6", 0, 0), bag=["r9"])
    assert refused(state, 0, as_play(row("b3 b4 b5 b6", 0, 0) + [(tile("r5"), 10, 10)])) == "invalid_table"
    after_table = row("b3 b4 b5 b6", 1, 0) + [(tile("r5"), 3, 1), (tile("k5"), 3, 2)]
    after, events = engine.apply(state, 0, as_play(after_table))
    assert events[0] == {"type": "played", "seat": 0, "added": sorted([tile("r5"), tile("k5")])}
    assert after["hands"][0] == [tile("o1")]


def test_a_play_that_takes_a_table_tile_back_is_refused():
    start = row("b3 b4 b5 b6", 0, 0)
    state = playing(hands=[["b7", "k1"], ["k2"]], table=start, bag=["r9"])
    # b6 goes back to the hand, b7 is added: still a run of four, but a table tile is missing.
    assert refused(state, 0, as_play(row("b3 b4 b5", 0, 0) + [(tile("b7"), 8, 8)])) == "table_tile_missing"
    assert refused(state, 0, as_play(row("b3 b4 b5", 0, 0))) == "table_tile_missing"


def test_a_play_that_adds_nothing_is_refused():
    start = row("b3 b4 b5 b6", 0, 0)
    state = playing(hands=[["b7"], ["k2"]], table=start, bag=["r9"])
    assert refused(state, 0, as_play(start)) == "nothing_added"
    assert refused(state, 0, as_play(row("b3 b4 b5 b6", 5, 5))) == "nothing_added"  # moved, nothing added


def test_an_invalid_table_is_refused_with_its_problems():
    state = playing(hands=[["b7", "r1"], ["k2"]], table=row("b3 b4 b5 b6", 0, 0), bag=["r9"])
    table = row("b3 b4 b5 b6", 0, 0) + [(tile("r1"), 10, 10)]
    with pytest.raises(IllegalAction) as caught:
        engine.apply(state, 0, as_play(table))
    assert caught.value.code == "invalid_table"
    assert caught.value.details == {"problems": [{"cells": [[10, 10]], "reason": "lone"}]}


@pytest.mark.parametrize("table", [
    None, "b3", [[1, 2]], [[1, 2, 3, 4]], [[1.0, 2, 3]], [[True, 2, 3]], [[106, 0, 0]], [[-1, 0, 0]],
    [[1, 24, 0]], [[1, 0, 16]], [[1, -1, 0]], [[1, 0, 0], [1, 1, 0]], [[1, 0, 0], [2, 0, 0]],
])
def test_a_malformed_table_is_refused(table):
    state = playing(hands=[["b7"], ["k2"]], bag=["r9"])
    assert refused(state, 0, {"type": "play", "table": table}) == "bad_table"


def test_malformed_actions_and_seats_are_refused():
    state = playing(hands=[["b7"], ["k2"]], bag=["r9"])
    assert refused(state, 0, "draw") == "bad_action"
    assert refused(state, 0, {"type": "fly"}) == "bad_action"
    assert refused(state, 0, {"type": "draw", "extra": 1}) == "bad_action"
    assert refused(state, 0, {"type": "play"}) == "bad_action"
    assert refused(state, 2, {"type": "draw"}) == "no_such_seat"
    assert refused(state, True, {"type": "draw"}) == "no_such_seat"
    assert refused(state, 1, {"type": "draw"}) == "not_your_turn"


def test_the_first_play_may_rearrange_the_table_at_once():
    # No opening threshold: a single tile added to a table set on the very first turn.
    state = playing(hands=[["b7", "k1"], ["k2"]], table=row("b4 b5 b6", 0, 0), bag=["r9"])
    after, _ = engine.apply(state, 0, as_play(row("b4 b5 b6 b7", 0, 0)))
    assert after["hands"][0] == [tile("k1")]


def test_a_joker_on_the_table_moves_and_takes_a_new_value_but_never_goes_back():
    state = playing(hands=[["r5", "k9", "b9", "k1"], ["k2"]], table=row("r4 J r6", 0, 0), bag=["r9"])
    assert engine.view(state, 0)["jokers"] == {"104": [tile("r5")]}
    after_table = row("r4 r5 r6", 0, 0) + row("k9 b9 J", 0, 2)
    after, _ = engine.apply(state, 0, as_play(after_table))
    assert engine.view(after, 1)["jokers"] == {"104": [tile("o9"), tile("r9")]}
    # Taking the joker back into the hand is taking a table tile back.
    after["current"] = 0
    after["hands"][0] = after["hands"][0] + [tile("k5")]
    no_joker = row("r4 r5 r6", 0, 0) + row("k9 b9", 0, 2)
    assert refused(after, 0, as_play(no_joker)) == "table_tile_missing"


# --- places and the end ---------------------------------------------------------------------------

def test_going_out_at_two_seats_ends_the_game():
    state = playing(hands=[["b3", "b4", "b5"], ["k2", "J"]], bag=["r9"])
    after, events = engine.apply(state, 0, as_play(row("b3 b4 b5", 0, 0)))
    assert after["phase"] == "over" and after["end"] == "out" and after["current"] is None
    assert {"type": "out", "seat": 0, "place": 1} in events
    assert engine.outcome(after) == [
        {"seat": 0, "place": 1, "points": 0, "resigned": False},
        {"seat": 1, "place": 2, "points": 32, "resigned": False},
    ]
    assert refused(after, 1, {"type": "draw"}) == "game_over"
    assert engine.to_act(after) == [] and engine.in_play(after) == []


def test_at_three_seats_the_others_play_on_for_second_place():
    state = playing(3, hands=[["b3", "b4", "b5"], ["k2"], ["o1"]], bag=["r9", "r10", "r11"])
    after, events = engine.apply(state, 0, as_play(row("b3 b4 b5", 0, 0)))
    assert after["phase"] == "play" and after["finished"] == [0] and after["places"] == {"0": 1}
    assert engine.in_play(after) == [1, 2] and after["current"] == 1
    assert engine.legal(after, 0) == []
    after = engine.apply(after, 1, {"type": "draw"})[0]
    assert after["current"] == 2  # seat 0, finished, is skipped
    after = engine.apply(after, 2, {"type": "draw"})[0]
    assert after["current"] == 1
    assert refused(after, 0, {"type": "resign"}) == "not_in_play"


def test_the_last_player_in_play_takes_the_next_place():
    state = playing(3, hands=[[], ["k1", "k2", "k3"], ["o1"]], bag=["r9"], current=1)
    state["finished"], state["places"] = [0], {"0": 1}
    after, _ = engine.apply(state, 1, as_play(row("k1 k2 k3", 0, 0)))
    assert after["end"] == "out"
    assert [(row_["seat"], row_["place"], row_["points"]) for row_ in engine.outcome(after)] == [
        (0, 1, 0), (1, 2, 0), (2, 3, 1)]


def test_the_blocked_end_ranks_by_points_in_hand_and_equal_points_share_a_place():
    # Bag empty; each of the four seats passes once in a row: points 30 (joker), 7, 7 and 3.
    state = playing(4, hands=[["J"], ["k7"], ["b3", "o4"], ["r3"]], bag=[], current=0)
    for seat in (0, 1, 2):
        state, events = engine.apply(state, seat, {"type": "pass"})
        assert state["phase"] == "play"
    state, events = engine.apply(state, 3, {"type": "pass"})
    assert state["phase"] == "over" and state["end"] == "blocked" and state["blocked"]
    assert {"type": "blocked"} in events
    assert engine.outcome(state) == [
        {"seat": 3, "place": 1, "points": 3, "resigned": False},
        {"seat": 1, "place": 2, "points": 7, "resigned": False},
        {"seat": 2, "place": 2, "points": 7, "resigned": False},
        {"seat": 0, "place": 4, "points": 30, "resigned": False},
    ]


def test_a_play_breaks_a_row_of_passes():
    state = playing(2, hands=[["k1", "k2", "k3", "o9"], ["b1"]], bag=[], current=1)
    state = engine.apply(state, 1, {"type": "pass"})[0]
    state = engine.apply(state, 0, as_play(row("k1 k2 k3", 0, 0)))[0]
    assert state["passes"] == 0
    state = engine.apply(state, 1, {"type": "pass"})[0]
    assert state["phase"] == "play"
    state = engine.apply(state, 0, {"type": "pass"})[0]
    assert state["end"] == "blocked"
    assert [(r["seat"], r["place"]) for r in engine.outcome(state)] == [(1, 1), (0, 2)]  # 1 point against 9


def test_the_blocked_end_places_players_after_those_who_finished():
    state = playing(3, hands=[[], ["k9"], ["o1"]], bag=[], current=1)
    state["finished"], state["places"] = [0], {"0": 1}
    state = engine.apply(state, 1, {"type": "pass"})[0]
    state = engine.apply(state, 2, {"type": "pass"})[0]
    assert state["places"] == {"0": 1, "2": 2, "1": 3}


# --- resign ---------------------------------------------------------------------------------------

def test_resign_at_two_seats_ends_the_game_and_says_who_resigned():
    state = playing(hands=[["k1"], ["k2", "k3"]], bag=["r9"], current=0)
    after, events = engine.apply(state, 1, {"type": "resign"})  # off its turn
    assert after["phase"] == "over" and after["end"] == "resigned" and after["resigned"] == [1]
    assert events[0] == {"type": "resigned", "seat": 1}
    assert engine.outcome(after) == [
        {"seat": 0, "place": 1, "points": 1, "resigned": False},
        {"seat": 1, "place": 2, "points": 5, "resigned": True},
    ]
    assert frozenset({"resign"}) == engine.OUT_OF_TURN


def test_resign_at_four_seats_returns_the_hand_to_the_bag_shuffled():
    rng = rng_for()
    state = playing(4, hands=[["k1"], ["k2", "k5", "J"], ["o1"], ["r1"]], bag=["r9", "r10"],
                    table=row("b3 b4 b5", 0, 0), current=1)
    after, events = engine.apply(state, 1, {"type": "resign"}, rng)
    expected = rng.stream("rebag:1").shuffle([tile("r9"), tile("r10"), tile("k2"), tile("k5"), 104])
    assert after["bag"] == expected and after["rebags"] == 1
    assert after["hands"][1] == [] and after["table"] == state["table"]  # tiles played stay
    assert after["places"] == {"1": 4} and after["resigned"] == [1]
    assert after["current"] == 2  # the resigner was to act: the turn moves on
    assert events == [{"type": "resigned", "seat": 1}, {"type": "rebagged", "k": 1}, {"type": "turn", "seat": 2}]
    # A later resignation takes the place above the earlier one, and reads rebag:2.
    after2, _ = engine.apply(after, 0, {"type": "resign"}, rng)
    assert after2["places"] == {"1": 4, "0": 3} and after2["current"] == 2
    assert after2["bag"] == rng.stream("rebag:2").shuffle(expected + [tile("k1")])
    # Then the third: the last player in play takes the next place, first.
    over, events = engine.apply(after2, 3, {"type": "resign"}, rng)
    assert over["phase"] == "over" and over["end"] == "resigned"
    assert [(r["seat"], r["place"], r["resigned"]) for r in engine.outcome(over)] == [
        (2, 1, False), (3, 2, True), (0, 3, True), (1, 4, True)]


def test_resign_off_turn_at_three_seats_keeps_the_turn():
    state = playing(3, hands=[["k1"], ["k2"], ["o1"]], bag=["r9"], current=0)
    after, events = engine.apply(state, 2, {"type": "resign"}, rng_for())
    assert after["current"] == 0 and after["turn"] == state["turn"]
    assert [e["type"] for e in events] == ["resigned", "rebagged"]
    assert engine.in_play(after) == [0, 1]


def test_resign_at_three_seats_needs_the_rng():
    state = playing(3, hands=[["k1"], ["k2"], ["o1"]], bag=["r9"], current=0)
    with pytest.raises(ValueError):
        engine.apply(state, 2, {"type": "resign"})


def test_a_resignation_refills_the_bag_after_passes():
    state = playing(3, hands=[["k1"], ["k2"], ["o1"]], bag=[], current=0)
    state = engine.apply(state, 0, {"type": "pass"})[0]
    state = engine.apply(state, 1, {"type": "pass"})[0]
    state = engine.apply(state, 2, {"type": "resign"}, rng_for())[0]
    assert state["phase"] == "play" and state["passes"] == 0 and state["bag"] == [tile("o1")]
    assert state["current"] == 0 and engine.legal(state, 0)[0] == {"type": "draw"}


def test_the_chosen_seat_resigning_before_the_start_passes_the_choice_on():
    state = engine.setup(3, {}, ScriptedRng({"dice:1": [0, 5, 0]}))
    after, _ = engine.apply(state, 1, {"type": "resign"}, rng_for())
    assert after["phase"] == "begin" and after["chooser"] == 2 and after["current"] == 2
    assert engine.legal(after, 2)[0] == {"type": "begin"}


# --- drafts ---------------------------------------------------------------------------------------

def test_a_draft_is_checked_for_tiles_and_cells_but_not_judged():
    state = playing(hands=[["b7", "k1"], ["k2"]], table=row("b4 b5 b6", 0, 0), bag=["r9"])
    engine.check_draft(state, 0, {"table": row("b4 b5", 0, 0) + [(tile("b6"), 9, 9)]})  # invalid: fine
    engine.check_draft(state, 0, {"table": row("b4 b5 b6", 0, 0) + [(tile("k1"), 3, 3)]})
    cases = [
        (1, {"table": row("b4 b5 b6", 0, 0)}, "not_your_turn"),
        (0, {"table": row("b4 b5", 0, 0)}, "table_tile_missing"),
        (0, {"table": row("b4 b5 b6", 0, 0) + [(tile("k2"), 5, 5)]}, "not_your_tile"),
        (0, {"table": row("b4 b5 b6", 0, 0) + [(tile("b7"), 2, 0)]}, "bad_table"),
        (0, {"table": row("b4 b5 b6", 0, 0) + [(tile("b7"), 30, 0)]}, "bad_table"),
        (0, {"cells": []}, "bad_table"),
        (0, [], "bad_table"),
    ]
    for seat, draft, code in cases:
        with pytest.raises(IllegalAction) as caught:
            engine.check_draft(state, seat, draft)
        assert caught.value.code == code, draft
    fresh = engine.setup(2, {}, rng_for())
    with pytest.raises(IllegalAction) as caught:
        engine.check_draft(fresh, fresh["chooser"], {"table": []})
    assert caught.value.code == "wrong_phase"


# --- views ----------------------------------------------------------------------------------------

def test_a_view_shows_its_own_hand_and_only_counts_of_the_rest():
    state = playing(3, hands=[["k1", "k2"], ["b5"], ["o1", "o2", "o3"]], bag=["r9", "r10"], current=0)
    seen = engine.view(state, 0)
    assert seen["hand"] == [tile("k1"), tile("k2")] and seen["seat"] == 0
    assert seen["counts"] == [2, 1, 3] and seen["bag"] == 2
    assert seen["in_play"] == [0, 1, 2] and seen["ranking"] is None
    text = json.dumps(seen)
    spectator = engine.view(state, None)
    assert "hand" not in spectator and "seat" not in spectator
    for other in (tile("b5"), tile("o1"), tile("r9")):
        assert other not in seen["hand"]
    assert json.loads(text) == seen


def test_views_do_not_depend_on_other_hands_or_the_bag_order():
    state = playing(3, hands=[["k1", "k2"], ["b5"], ["o1", "o2", "o3"]], bag=["r9", "r10", "r11"], current=0)
    other = copy.deepcopy(state)
    other["hands"][1] = [tile("b6")]
    other["hands"][2] = _ids(["o4", "o5", "o6"])
    other["bag"] = list(reversed(state["bag"]))
    assert engine.view(state, 0) == engine.view(other, 0)
    assert engine.view(state, None) == engine.view(other, None)


def test_apply_never_changes_its_input():
    state = playing(4, hands=[["k1", "k2", "k3", "k4"], ["b5"], ["o1"], ["r1"]], bag=["r9"],
                    table=row("b1 b2 b3", 0, 0), current=0)
    before = copy.deepcopy(state)
    engine.apply(state, 0, as_play(row("b1 b2 b3", 0, 0) + row("k1 k2 k3", 0, 2)))
    engine.apply(state, 0, {"type": "draw"})
    engine.apply(state, 2, {"type": "resign"}, rng_for())
    assert state == before


def test_another_seat_never_learns_the_drawn_tile():
    state = playing(hands=[["k1"], ["k2"]], bag=["r9", "r10", "r11"])
    after, events = engine.apply(state, 0, {"type": "draw"})
    public = [event for event in events if "only" not in event]
    assert all("tile" not in event for event in public)
    # Had the bag held another tile first, seat 1 and a spectator would see exactly the same.
    swapped = copy.deepcopy(after)
    swapped["hands"][0] = sorted([tile("k1"), tile("r10")])
    swapped["bag"] = [tile("r9"), tile("r11")]
    assert engine.view(after, 1) == engine.view(swapped, 1)
    assert engine.view(after, None) == engine.view(swapped, None)
    assert engine.view(after, 0)["hand"] == sorted([tile("k1"), tile("r9")])
