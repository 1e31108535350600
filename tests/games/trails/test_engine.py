"""The trails engine against its rule page (shared rules: trails.pt-BR.txt and its README rulings).

One test per rule, each on a scripted state (the dice come from a scripted rng), then the refused
moves, the risk sign, the ranking and the table's choice. Random play, replay and JSON are in
test_properties.py; the fairness vectors in test_vectors.py.
"""

from __future__ import annotations

import copy
import json
from fractions import Fraction

import pytest

from games import fairness
from games.errors import IllegalAction
from games.trails import engine

SEED = "7a11" * 16
THROW, CAMP = {"type": "throw"}, {"type": "camp"}


class ScriptedRng:
    """Reads the dice it is given, throw by throw, and records which stream each throw used."""

    def __init__(self, *throws):
        self.throws = [list(t) for t in throws]
        self.labels = []

    def stream(self, label):
        self.labels.append(label)
        faces = iter(self.throws.pop(0))
        return type("Stream", (), {"uniform": lambda _self, n: next(faces) - 1})()


def climb(*trails) -> dict:
    return {"type": "climb", "trails": list(trails)}


def at(trail_steps: dict[int, int]) -> list[int]:
    """Eleven steps, one per trail, from {trail: step}."""
    row = [0] * 11
    for trail, step in trail_steps.items():
        row[trail - 2] = step
    return row


def scripted(*, seats=2, current=0, phase="throw", banners=None, lanterns=None, claimed=None, topped=None,
             dice=None, throws=0) -> dict:
    state = engine.setup(seats, {}, fairness.Rng(SEED, "test"))
    banners = banners or {}
    state.update(
        current=current, phase=phase, throws=throws, dice=dice,
        banners=[at(banners.get(seat, {})) for seat in range(seats)],
        lanterns=at(lanterns or {}),
        topped=sorted(topped or []),
        claimed=[None] * 11,
    )
    for trail, seat in (claimed or {}).items():
        state["claimed"][trail - 2] = seat
        state["banners"][seat][trail - 2] = engine.length_of(trail)
    return state


def thrown(state: dict, dice) -> tuple[dict, list[dict]]:
    return engine.apply(state, state["current"], THROW, ScriptedRng(dice))


def tray_of(state: dict, dice) -> list[dict]:
    after, _events = thrown(state, dice)
    return engine.view(after, after["current"])["tray"] if after["phase"] == "choose" else []


# --- the map and the dice -------------------------------------------------------------------------

def test_eleven_trails_from_2_to_12_with_the_pages_lengths():
    assert list(engine.TRAILS) == list(range(2, 13))
    assert engine.LENGTHS == (3, 5, 7, 9, 11, 13, 11, 9, 7, 5, 3)
    assert [engine.length_of(t) for t in (2, 7, 12)] == [3, 13, 3]


def test_the_three_pairings_in_their_documented_order():
    assert engine.pairings([1, 2, 3, 4]) == [(3, 7), (4, 6), (5, 5)]
    assert engine.pairings([6, 1, 1, 6]) == [(7, 7), (7, 7), (12, 2)]


def test_the_kth_throw_reads_four_dice_from_its_own_stream():
    rng = fairness.Rng(SEED, "test")
    stream = rng.stream("throw:3")
    expected = [stream.uniform(6) + 1 for _ in range(4)]
    assert engine.read_throw(rng, 3) == expected
    assert all(1 <= d <= 6 for k in range(1, 60) for d in engine.read_throw(rng, k))


def test_a_throw_counts_and_uses_the_next_throw_stream():
    state = scripted(throws=41)
    rng = ScriptedRng([1, 2, 3, 4])
    after, events = engine.apply(state, 0, THROW, rng)
    assert rng.labels == ["throw:42"] and after["throws"] == 42
    assert events == [{"type": "thrown", "seat": 0, "dice": [1, 2, 3, 4], "busted": False}]
    assert after["dice"] == [1, 2, 3, 4] and after["phase"] == "choose"
    assert after["last_throw"] == {"seat": 0, "dice": [1, 2, 3, 4], "busted": False}


def test_all_1296_throws_are_counted():
    assert len(engine.ALL_THROWS) == 1296
    assert sum(count for _sums, count in engine.THROWS_BY_SUMS) == 1296


# --- setup --------------------------------------------------------------------------------------

@pytest.mark.parametrize("seats", [2, 3, 4])
def test_setup_starts_with_an_empty_map_and_the_seed_picks_who_starts(seats):
    rng = fairness.Rng(SEED, f"setup{seats}")
    first = rng.stream("first").uniform(seats)
    state = engine.setup(seats, {}, rng)
    assert state["current"] == state["first"] == first
    assert engine.to_act(state) == [first]
    assert state["phase"] == "throw" and state["turn"] == 1 and state["throws"] == 0
    assert state["banners"] == [[0] * 11] * seats and state["lanterns"] == [0] * 11
    assert state["claimed"] == [None] * 11 and state["topped"] == [] and not state["finished"]
    assert engine.outcome(state) is None
    assert json.loads(json.dumps(state)) == state


def test_every_seat_can_be_first():
    firsts = {engine.setup(4, {}, fairness.Rng(f"{n:064x}", "m"))["first"] for n in range(60)}
    assert firsts == {0, 1, 2, 3}


@pytest.mark.parametrize("seats", [0, 1, 5, 10])
def test_fewer_than_two_or_more_than_four_seats_are_refused(seats):
    with pytest.raises(ValueError):
        engine.setup(seats, {}, fairness.Rng(SEED, "test"))


# --- pairs and lanterns -------------------------------------------------------------------------

def test_the_tray_has_one_card_per_distinct_pairing_with_sorted_sums():
    # 1 2 3 4: 3|7, 4|6, 5|5. 6 1 1 6: 7|7 twice and 12|2: two cards.
    assert [c["sums"] for c in tray_of(scripted(), [1, 2, 3, 4])] == [[3, 7], [4, 6], [5, 5]]
    assert [c["sums"] for c in tray_of(scripted(), [6, 1, 1, 6])] == [[7, 7], [2, 12]]
    assert [c["sums"] for c in tray_of(scripted(), [3, 3, 3, 3])] == [[6, 6]]


def test_a_new_lantern_enters_on_the_first_step():
    state, _ = thrown(scripted(), [1, 2, 3, 4])
    state, events = engine.apply(state, 0, climb(3, 7))
    assert state["lanterns"] == at({3: 1, 7: 1})
    assert events == [{"type": "climbed", "seat": 0, "trails": [3, 7], "lanterns": at({3: 1, 7: 1}), "topped": []}]
    assert state["phase"] == "decide" and state["dice"] is None


def test_a_new_lantern_enters_one_step_above_the_banner():
    state, _ = thrown(scripted(banners={0: {3: 2, 7: 5}, 1: {7: 9}}), [1, 2, 3, 4])
    state, _ = engine.apply(state, 0, climb(3, 7))
    assert state["lanterns"] == at({3: 3, 7: 6})  # the other seat's banner on 7 changes nothing


def test_a_lantern_already_there_climbs_one_step():
    state, _ = thrown(scripted(phase="decide", banners={0: {7: 5}}, lanterns={7: 6, 3: 1}), [1, 2, 3, 4])
    state, _ = engine.apply(state, 0, climb(3, 7))
    assert state["lanterns"] == at({3: 2, 7: 7})


def test_equal_sums_climb_two_steps_with_one_lantern():
    state, _ = thrown(scripted(banners={0: {6: 3}}), [1, 2, 3, 4])
    assert tray_of(scripted(banners={0: {6: 3}}), [1, 2, 3, 4])[2] == {"sums": [5, 5], "choices": [[5, 5]]}
    state, events = engine.apply(state, 0, climb(5, 5))
    assert state["lanterns"] == at({5: 2}) and engine.lanterns_left(state["lanterns"]) == 2
    state, _ = thrown(state, [3, 3, 3, 3])
    state, _ = engine.apply(state, 0, climb(6, 6))
    assert state["lanterns"] == at({5: 2, 6: 5})  # enters at 4, climbs to 5


def test_equal_sums_climb_two_steps_only_up_to_the_summit():
    # Trail 2 has 3 steps: a lantern on step 2 reaches the summit and stops there.
    state, _ = thrown(scripted(phase="decide", lanterns={2: 2}), [1, 1, 1, 1])
    state, events = engine.apply(state, 0, climb(2, 2))
    assert state["lanterns"] == at({2: 3}) and state["topped"] == [2]
    assert events[0]["topped"] == [2]


def test_equal_sums_from_a_banner_one_below_the_summit_enter_on_the_summit():
    state, _ = thrown(scripted(banners={0: {12: 2}}), [6, 6, 6, 6])
    state, _ = engine.apply(state, 0, climb(12, 12))
    assert state["lanterns"] == at({12: 3}) and state["topped"] == [12]


def test_three_lanterns_at_most():
    state = scripted(phase="decide", lanterns={4: 1, 6: 1})
    # 1 2 3 4: 3|7 needs two new lanterns with one left: either one; 4|6 both have lanterns; 5|5 one new.
    assert tray_of(state, [1, 2, 3, 4]) == [
        {"sums": [3, 7], "choices": [[3], [7]]},
        {"sums": [4, 6], "choices": [[4, 6]]},
        {"sums": [5, 5], "choices": [[5, 5]]},
    ]


def test_a_fourth_lantern_needed_means_one_of_the_two_trails_the_players_choice():
    state, _ = thrown(scripted(phase="decide", lanterns={4: 1, 6: 1}), [1, 2, 3, 4])
    assert {"type": "climb", "trails": [3, 7]} not in engine.legal(state, 0)
    for trails, expected in (([3], at({3: 1, 4: 1, 6: 1})), ([7], at({4: 1, 6: 1, 7: 1}))):
        after, _ = engine.apply(state, 0, climb(*trails))
        assert after["lanterns"] == expected
    with pytest.raises(IllegalAction):
        engine.apply(state, 0, climb(3, 7))


def test_one_new_trail_and_one_with_a_lantern_both_climb_with_the_last_lantern():
    state = scripted(phase="decide", lanterns={3: 1, 6: 1})
    assert tray_of(state, [1, 2, 3, 4])[0] == {"sums": [3, 7], "choices": [[3, 7]]}


def test_with_no_lantern_left_only_trails_with_lanterns_climb():
    state = scripted(phase="decide", lanterns={3: 1, 6: 1, 9: 1})
    assert tray_of(state, [1, 2, 3, 4]) == [
        {"sums": [3, 7], "choices": [[3]]},
        {"sums": [4, 6], "choices": [[6]]},
        {"sums": [5, 5], "choices": []},  # shown, but it cannot climb
    ]


def test_the_view_counts_the_lanterns_left():
    assert engine.view(scripted(phase="decide", lanterns={3: 1, 6: 4}), 0)["lanterns_left"] == 1
    assert engine.view(scripted(), 0)["lanterns_left"] == 3


# --- blocked trails -----------------------------------------------------------------------------

def test_one_sum_blocked_the_other_still_climbs():
    state = scripted(claimed={3: 1})
    assert tray_of(state, [1, 2, 3, 4])[0] == {"sums": [3, 7], "choices": [[7]]}
    after, _ = thrown(state, [1, 2, 3, 4])
    after, _ = engine.apply(after, 0, climb(7))
    assert after["lanterns"] == at({7: 1})


def test_a_claimed_trail_is_never_climbed_again_by_anyone():
    for seat in (0, 1):  # claimed by the other seat, and by the seat itself
        state = scripted(claimed={5: seat, 3: 1 - seat})
        assert tray_of(state, [1, 2, 3, 4])[2] == {"sums": [5, 5], "choices": []}
        assert not engine.can_climb(state, 5)


def test_a_lantern_topping_a_trail_blocks_it_for_the_rest_of_the_turn():
    state, _ = thrown(scripted(phase="decide", banners={0: {12: 1}}, lanterns={12: 2}), [6, 6, 1, 2])
    state, events = engine.apply(state, 0, climb(3, 12))
    assert state["topped"] == [12] and events[0]["topped"] == [12]
    assert not engine.can_climb(state, 12)
    assert tray_of(state, [6, 6, 1, 2])[0] == {"sums": [3, 12], "choices": [[3]]}
    # Its steps are not lost: camping on the summit raises a landmark (below).


def test_a_throw_with_only_blocked_sums_busts():
    # Lanterns on 2, 12 (topped) and 3; 6 6 6 6 shows only 12|12.
    state = scripted(phase="decide", lanterns={2: 1, 12: 3, 3: 1}, topped=[12])
    after, events = thrown(state, [6, 6, 6, 6])
    assert events[0] == {"type": "thrown", "seat": 0, "dice": [6, 6, 6, 6], "busted": True}


# --- losing balance -----------------------------------------------------------------------------

def test_losing_balance_takes_the_lanterns_and_passes_the_turn():
    state = scripted(seats=3, current=2, phase="decide", banners={2: {2: 1, 7: 4}}, lanterns={2: 2, 3: 2, 7: 6})
    state["turn"] = 8
    after, events = thrown(state, [6, 6, 6, 6])  # 12|12: no lantern on 12 and none left
    assert events == [
        {"type": "thrown", "seat": 2, "dice": [6, 6, 6, 6], "busted": True},
        {"type": "fell", "seat": 2},
        {"type": "turn", "seat": 0, "turn": 9},
    ]
    assert after["banners"][2] == at({2: 1, 7: 4})  # where they were when the turn began
    assert after["lanterns"] == [0] * 11 and after["topped"] == [] and after["dice"] is None
    assert after["current"] == 0 and after["phase"] == "throw" and after["turn"] == 9
    assert after["last_throw"] == {"seat": 2, "dice": [6, 6, 6, 6], "busted": True}
    assert engine.view(after, 1)["last_throw"] == after["last_throw"]


def test_a_bust_on_the_first_throw_of_a_turn_is_possible_when_trails_are_claimed():
    state = scripted(claimed={2: 1, 12: 1, 3: 1, 11: 0})
    after, events = thrown(state, [1, 1, 1, 1])  # only 2|2
    assert [e["type"] for e in events] == ["thrown", "fell", "turn"]
    assert after["current"] == 1


def test_a_topped_lantern_is_lost_on_a_bust():
    state = scripted(phase="decide", lanterns={2: 3, 3: 1, 4: 1}, topped=[2])
    after, _ = thrown(state, [6, 6, 6, 6])
    assert after["banners"][0] == [0] * 11 and after["claimed"] == [None] * 11


# --- camping ------------------------------------------------------------------------------------

def test_camping_raises_the_banners_to_the_lanterns_and_passes_the_turn():
    state = scripted(phase="decide", banners={0: {7: 3, 9: 2}, 1: {7: 8}}, lanterns={7: 5, 4: 2})
    after, events = engine.apply(state, 0, CAMP)
    assert after["banners"][0] == at({7: 5, 9: 2, 4: 2})
    assert after["banners"][1] == at({7: 8})
    assert events == [
        {"type": "camped", "seat": 0, "banners": at({7: 5, 9: 2, 4: 2}), "claimed": [], "removed": []},
        {"type": "turn", "seat": 1, "turn": 2},
    ]
    assert after["lanterns"] == [0] * 11 and after["phase"] == "throw" and after["current"] == 1


def test_the_turn_goes_clockwise_and_wraps_around():
    state = scripted(seats=4, current=3, phase="decide", lanterns={7: 1})
    after, _ = engine.apply(state, 3, CAMP)
    assert after["current"] == 0 and engine.to_act(after) == [0]


def test_camping_is_only_after_a_climb():
    for phase in ("throw", "choose"):
        state = scripted(phase=phase, dice=[1, 2, 3, 4] if phase == "choose" else None)
        assert refused(state, 0, CAMP) == "wrong_phase"


# --- landmarks ----------------------------------------------------------------------------------

def test_camping_on_a_summit_raises_a_landmark_and_removes_the_other_banners():
    state = scripted(seats=3, phase="decide", banners={0: {10: 4}, 1: {10: 6, 7: 2}, 2: {10: 1, 6: 3}},
                     lanterns={10: 7, 6: 1}, topped=[10])
    after, events = engine.apply(state, 0, CAMP)
    assert after["claimed"][10 - 2] == 0
    assert after["banners"][0] == at({10: 7, 6: 1})
    assert after["banners"][1] == at({7: 2}) and after["banners"][2] == at({6: 3})
    assert events[0] == {"type": "camped", "seat": 0, "banners": at({10: 7, 6: 1}), "claimed": [10],
                         "removed": [[1, 10], [2, 10]]}
    assert engine.view(after, None)["landmarks"] == [1, 0, 0]
    assert not engine.can_climb({**after, "lanterns": [0] * 11, "topped": []}, 10)


def test_two_landmarks_at_once():
    state = scripted(phase="decide", lanterns={2: 3, 12: 3, 7: 2}, topped=[2, 12])
    after, events = engine.apply(state, 0, CAMP)
    assert events[0]["claimed"] == [2, 12] and engine.view(after, 0)["landmarks"] == [2, 0]
    assert events[-1]["type"] == "turn" and not after["finished"]


def test_three_landmarks_win_at_once_even_mid_game():
    # Seat 1 is far ahead on the map; seat 0 camps its third landmark: the game ends there.
    state = scripted(phase="decide", claimed={4: 0, 5: 0, 8: 1}, banners={1: {6: 10, 7: 12, 9: 8, 3: 4}},
                     lanterns={3: 5, 7: 2}, topped=[3])
    after, events = engine.apply(state, 0, CAMP)
    assert [e["type"] for e in events] == ["camped", "won"]
    assert events[0]["removed"] == [[1, 3]] and events[-1] == {"type": "won", "seat": 0}
    assert after["finished"] and after["winner"] == 0 and after["phase"] == "over"
    assert engine.to_act(after) == [] and engine.legal(after, 0) == [] and engine.legal(after, 1) == []
    seen = engine.view(after, 1)
    assert seen["current"] is None and seen["risk"] is None and seen["finished"]
    assert seen["ranking"] == engine.outcome(after)
    assert engine.outcome(after)[0] == {"seat": 0, "place": 1, "score": 3,
                                        "progress": float(3 + Fraction(2, 13))}


def test_topping_without_camping_is_no_landmark():
    state = scripted(phase="decide", claimed={4: 0, 5: 0}, lanterns={3: 5}, topped=[3])
    assert engine.outcome(state) is None
    after, _ = thrown(state, [6, 6, 6, 6])  # busts: the summit is lost
    assert after["claimed"][3 - 2] is None and not after["finished"]


# --- the ranking ----------------------------------------------------------------------------------

def finished(claimed: dict, banners: dict, winner: int, seats: int = 4) -> dict:
    state = scripted(seats=seats, claimed=claimed, banners=banners)
    state.update(finished=True, winner=winner, phase="over")
    return state


def test_the_others_rank_by_landmarks_then_progress():
    state = finished({2: 0, 3: 0, 4: 0, 5: 2, 6: 3}, {1: {7: 12, 8: 10}, 2: {7: 1}, 3: {9: 1}}, winner=0)
    ranking = engine.outcome(state)
    assert [(r["seat"], r["place"], r["score"]) for r in ranking] == [(0, 1, 3), (3, 2, 1), (2, 3, 1), (1, 4, 0)]
    # Seats 2 and 3 have one landmark each: 11/11 + 1/9 beats 9/9 + 1/13. Seat 1 has climbed the most
    # (12/13 + 10/11) but has no landmark.
    assert ranking[1]["progress"] == pytest.approx(1 + 1 / 9) and ranking[2]["progress"] == pytest.approx(1 + 1 / 13)
    assert ranking[3]["progress"] == pytest.approx(12 / 13 + 10 / 11)


def test_progress_is_steps_over_length_summed():
    assert engine.progress(at({2: 3, 7: 13})) == 2
    assert engine.progress(at({7: 1, 6: 1})) == Fraction(1, 13) + Fraction(1, 11)
    assert engine.view(scripted(banners={1: {4: 7, 5: 3}}), 0)["progress"] == [0.0, 1 + 3 / 9]


def test_equal_landmarks_and_progress_share_the_place():
    # 2/4... trail 4 is 7 steps, trail 10 is 7 steps: same progress on mirror trails.
    state = finished({2: 0, 3: 0, 12: 0}, {1: {4: 3}, 2: {10: 3}, 3: {7: 1}}, winner=0)
    assert [(r["seat"], r["place"]) for r in engine.outcome(state)] == [(0, 1), (1, 2), (2, 2), (3, 4)]


def test_progress_is_compared_exactly_not_as_floats():
    # 3/5 on trail 3 against 2/5 + 1/5 on trails 3 and 11: equal, though 2/5 + 1/5 is
    # 0.6000000000000001 in floats. The ranking compares fractions, so the two seats share the place.
    state = finished({5: 0, 6: 0, 8: 0}, {1: {3: 3}, 2: {3: 2, 11: 1}}, winner=0, seats=3)
    assert 2 / 5 + 1 / 5 != 3 / 5
    assert engine.progress(state["banners"][1]) == engine.progress(state["banners"][2]) == Fraction(3, 5)
    assert [(r["seat"], r["place"]) for r in engine.outcome(state)] == [(0, 1), (1, 2), (2, 2)]


def test_everyone_but_the_winner_tied_at_nothing():
    state = finished({2: 1, 3: 1, 4: 1}, {}, winner=1)
    assert [(r["seat"], r["place"], r["score"]) for r in engine.outcome(state)] == [
        (1, 1, 3), (0, 2, 0), (2, 2, 0), (3, 2, 0)]


# --- the risk sign --------------------------------------------------------------------------------

def brute_force_risk(state: dict) -> Fraction:
    """Puts each of the 1,296 throws on the tray and asks legal() whether any climb exists."""
    busts = 0
    for dice in engine.ALL_THROWS:
        trial = {**state, "phase": "choose", "dice": list(dice)}
        busts += not engine.legal(trial, trial["current"])
    return Fraction(busts, 1296)


def test_risk_at_the_start_of_a_turn_is_zero():
    assert engine.risk(scripted()) == 0
    assert engine.view(scripted(), 0)["risk"] == 0.0


@pytest.mark.parametrize(
    ("lanterns", "expected"),
    [
        ({6: 1, 7: 1, 8: 1}, Fraction(104, 1296)),  # the classic 92% trio
        ({2: 1, 3: 1, 12: 1}, Fraction(728, 1296)),  # the classic 44%
        ({4: 1, 7: 1, 10: 1}, None),
    ],
)
def test_risk_with_three_lanterns_out_matches_the_classic_figures(lanterns, expected):
    state = scripted(phase="decide", lanterns=lanterns)
    assert engine.risk(state) == brute_force_risk(state)
    if expected is not None:
        assert engine.risk(state) == expected


def test_risk_counts_topped_and_claimed_trails_as_blocked():
    state = scripted(phase="decide", lanterns={6: 1, 7: 13, 8: 1}, topped=[7], claimed={5: 1})
    assert engine.risk(state) == brute_force_risk(state)
    assert engine.risk(state) > engine.risk(scripted(phase="decide", lanterns={6: 1, 7: 1, 8: 1}))


def test_risk_with_a_lantern_left_counts_every_open_trail():
    state = scripted(phase="decide", lanterns={2: 1, 12: 1}, claimed={6: 1, 7: 1, 8: 1})
    assert engine.risk(state) == brute_force_risk(state) > 0


def test_the_view_shows_the_risk_before_throws_only():
    state = scripted(phase="decide", lanterns={6: 1, 7: 1, 8: 1})
    assert engine.view(state, 0)["risk"] == pytest.approx(104 / 1296)
    assert engine.view(thrown(state, [1, 2, 3, 4])[0], 0)["risk"] is None


# --- the view -------------------------------------------------------------------------------------

VIEW_KEYS = {"game", "seats", "lengths", "current", "phase", "turn", "throws", "banners", "lanterns",
             "lanterns_left", "topped", "claimed", "landmarks", "progress", "dice", "tray", "risk",
             "last_throw", "finished", "ranking"}


def test_the_view_holds_the_contracts_keys():
    state, _ = thrown(scripted(banners={1: {7: 2}}), [1, 2, 3, 4])
    seen = engine.view(state, 1)
    assert set(seen) == VIEW_KEYS | {"seat"} and seen["seat"] == 1
    assert set(engine.view(state, None)) == VIEW_KEYS
    assert seen["lengths"] == list(engine.LENGTHS) and seen["current"] == 0 and seen["phase"] == "choose"
    assert seen["dice"] == [1, 2, 3, 4] and len(seen["tray"]) == 3
    assert json.loads(json.dumps(seen)) == seen


def test_the_tray_is_empty_and_the_dice_none_outside_choose():
    for phase in ("throw", "decide"):
        seen = engine.view(scripted(phase=phase, lanterns={7: 1} if phase == "decide" else None), 0)
        assert seen["tray"] == [] and seen["dice"] is None


# --- refused moves --------------------------------------------------------------------------------

def refused(state: dict, seat, action) -> str:
    before = copy.deepcopy(state)
    with pytest.raises(IllegalAction) as caught:
        engine.apply(state, seat, action, ScriptedRng([1, 2, 3, 4]))
    assert state == before and caught.value.message
    return caught.value.code


def test_another_seats_move_is_refused():
    assert refused(scripted(current=1), 0, THROW) == "not_your_turn"


@pytest.mark.parametrize("seat", [-1, 2, None, "0", 0.0, True])
def test_a_seat_out_of_range_is_refused(seat):
    assert refused(scripted(), seat, THROW) == "no_such_seat"


@pytest.mark.parametrize(
    "action",
    [None, "throw", {}, {"type": "roll"}, {"type": "THROW"}, {"type": "throw", "x": 1}, {"type": "camp", "trails": []},
     {"type": "climb"}, {"type": "climb", "trails": 7}, {"type": "climb", "trails": []},
     {"type": "climb", "trails": [3, 7, 5]}, {"type": "climb", "trails": ["3"]},
     {"type": "climb", "trails": [True]}, {"type": "climb", "trails": [7.0]},
     {"type": "climb", "trails": [7], "extra": 1}, ["climb", 7]],
    ids=repr,
)
def test_a_malformed_action_is_refused(action):
    state, _ = thrown(scripted(), [1, 2, 3, 4])
    assert refused(state, 0, action) == "bad_action"


def test_a_climb_not_on_the_tray_is_refused():
    state, _ = thrown(scripted(), [1, 2, 3, 4])
    for trails in ([7, 3], [3], [2, 12], [8], [5]):  # [7, 3]: the choice is written [3, 7]
        assert refused(state, 0, climb(*trails)) == "not_a_choice"


def test_moves_out_of_their_phase_are_refused():
    assert refused(scripted(), 0, climb(3, 7)) == "wrong_phase"
    state, _ = thrown(scripted(), [1, 2, 3, 4])
    assert refused(state, 0, THROW) == "wrong_phase"


def test_any_move_after_the_end_is_refused():
    state = finished({2: 0, 3: 0, 4: 0}, {}, winner=0, seats=2)
    for seat, action in ((0, THROW), (1, THROW), (0, CAMP), (3, None)):
        assert refused(state, seat, action) == "game_over"


def test_legal_lists_the_moves_of_each_phase():
    assert engine.legal(scripted(), 0) == [THROW] and engine.legal(scripted(), 1) == []
    assert engine.legal(scripted(phase="decide", lanterns={7: 1}), 0) == [THROW, CAMP]
    state, _ = thrown(scripted(phase="decide", lanterns={4: 1, 6: 1}), [1, 2, 3, 4])
    assert engine.legal(state, 0) == [climb(3), climb(7), climb(4, 6), climb(5, 5)]


def test_a_duplicate_choice_is_listed_once():
    # 6 1 1 6 with lanterns on 2 and 12 and 3: 7|7 cannot climb, 2|12 can.
    state, _ = thrown(scripted(phase="decide", lanterns={2: 1, 12: 1, 7: 1}), [6, 1, 1, 6])
    assert engine.legal(state, 0) == [climb(7, 7), climb(2, 12)]


# --- the table's choice ---------------------------------------------------------------------------

def test_the_table_throws_before_a_throw_and_camps_after_a_climb():
    assert engine.table_choice(scripted(), 0) == THROW
    assert engine.table_choice(scripted(phase="decide", lanterns={7: 3}), 0) == CAMP


def test_with_a_tray_the_table_climbs_as_the_cautious_bot():
    state, _ = thrown(scripted(), [1, 2, 3, 4])
    action = engine.table_choice(state, 0)
    assert action in engine.legal(state, 0)
    assert action == engine.cautious_climb(state) == engine.cautious_climb_in_view(engine.view(state, 0))


def test_the_cautious_climb_keeps_the_next_throw_safest():
    # Lanterns on 4 and 6: 3|7 would spend the last lantern; 4|6 climbs without one: risk stays lowest.
    state, _ = thrown(scripted(phase="decide", lanterns={4: 1, 6: 1}), [1, 2, 3, 4])
    assert engine.table_choice(state, 0) == climb(4, 6)
    # 1 2 1 6: 3|7 and 2|8, one lantern left for four new trails. With lanterns on 4, 6 and 8 the
    # next throw busts 115 times in 1,296; with 7: 148, with 3: 334, with 2: 313. The table takes 8.
    state, _ = thrown(scripted(phase="decide", lanterns={4: 1, 6: 1}), [1, 2, 1, 6])
    assert engine.legal(state, 0) == [climb(3), climb(7), climb(2), climb(8)]
    assert engine.table_choice(state, 0) == climb(8)
    assert engine.cautious_key(state, 0, [8])[0] == Fraction(115, 1296)


def test_on_equal_risk_the_cautious_climb_stands_on_trails_that_come_up_often():
    # Nothing is out yet: every climb leaves the next throw at zero risk. Then the chance that a throw
    # shows none of the trails the lanterns stand on: 4 and 6 miss 362 throws in 1,296, 3 and 7 miss
    # 376, 5 alone 716. So 4|6; and 7|8 (213) rather than 3|12 (835), though 3|12 climbs farther.
    state, _ = thrown(scripted(), [1, 2, 3, 4])
    assert engine.table_choice(state, 0) == climb(4, 6)
    assert [engine.cautious_key(state, 0, t)[1] * 1296 for t in ([3, 7], [4, 6], [5, 5])] == [376, 362, 716]
    state, _ = thrown(scripted(), [1, 2, 6, 6])  # 3|12, 7|8, 7|8
    assert engine.table_choice(state, 0) == climb(7, 8)


def test_on_equal_risks_the_cautious_climb_climbs_farthest():
    # 6 1 1 6: 7|7 (two steps on 7) or 2|12. Both leave a lantern out of three, so no risk yet; 7 alone
    # misses 462 throws in 1,296, 2 and 12 together miss far more: 7|7.
    state, _ = thrown(scripted(), [6, 1, 1, 6])
    assert engine.table_choice(state, 0) == climb(7, 7)
    # The same trails either way (a lantern on 7 already, on step 3 or 5 of 13): the farther climb.
    state, _ = thrown(scripted(phase="decide", lanterns={7: 3, 6: 2, 8: 1}), [3, 4, 3, 4])  # 7|7, 6|8, 7|7
    keys = {tuple(a["trails"]): engine.cautious_key(state, 0, a["trails"]) for a in engine.legal(state, 0)}
    assert keys[(7, 7)][:2] == keys[(6, 8)][:2]
    assert engine.table_choice(state, 0) == climb(6, 8)  # 1/11 + 1/11 beats 2/13
