"""The pots engine against its rule page (shared rules: pots.pt-BR.txt and its README rulings).

One test per rule or ruling, each on a scripted deck or state (tests/games/pots/helpers.py), then
the refused moves, the spill chance and the table's choice. Random play, secrecy and replay are in
test_properties.py; the fairness vectors in test_vectors.py; whole games in test_golden.py.
"""

from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction

import pytest

from games import fairness
from games.errors import IllegalAction
from games.pots import engine
from tests.games.pots.helpers import ScriptedRng, all_cards, kinds, new_game, play, row, state_with

SEED = "9075" * 16


def real_rng(label: str = "pots") -> fairness.Rng:
    return fairness.Rng(SEED, fairness.mix_string(game="pots", room_code="TEST01", number=1, client_seeds=[label]))


def cards_of(events: list[dict], how: str | None = None) -> list[tuple[int, object]]:
    return [(e["seat"], e["card"]) for e in events if e["type"] == "card" and how in (None, e["how"])]


# --- the deck and the score -----------------------------------------------------------------------

def test_the_deck_holds_94_cards_in_canonical_order():
    deck = engine.DECK
    assert len(deck) == 94
    assert deck[:10] == (0, 1, 2, 2, 3, 3, 3, 4, 4, 4)
    assert deck[67:79] == (12,) * 12
    assert deck[79:] == ("+2", "+4", "+6", "+8", "+10", "x2", "snuffer", "snuffer", "snuffer",
                         "bellows", "bellows", "bellows", "saucer", "saucer", "saucer")
    counts = Counter(deck)
    assert [counts[n] for n in range(13)] == [1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]
    assert sum(counts[n] for n in range(13)) == 79


def test_the_page_example_scores_48():
    # 3, 7 and 12 with the twin wick and a +4: (3 + 7 + 12) x 2 + 4.
    assert engine.hand_score(row([3, 7, 12], ["x2", "+4"])) == 48
    assert engine.hand_score(row([3, 7, 12], ["+4", "x2"])) == 48  # the order the cards came in does not matter


def test_the_twin_wick_doubles_the_numbers_not_the_honey_nor_the_full_pot_bonus():
    assert engine.hand_score(row([5], ["+10"])) == 15
    assert engine.hand_score(row([5], ["+10", "x2"])) == 20
    numbers = [0, 1, 2, 3, 4, 5, 6]
    assert engine.hand_score(row(numbers, ["x2", "+2"], status="full")) == 21 * 2 + 2 + 15


def test_a_spilled_pot_scores_nothing_and_a_snuffed_one_keeps_its_points():
    assert engine.hand_score(row([9, 12, 9], ["+10", "x2"], status="spilled")) == 0
    assert engine.hand_score(row([9, 12], ["+2"], status="snuffed")) == 23
    assert engine.hand_score(row([], [], status="waiting")) == 0


# --- setup and the deal ---------------------------------------------------------------------------

@pytest.mark.parametrize("seats", [2, 4, 8])
def test_the_first_dealer_and_the_deck_come_from_the_seed(seats):
    rng = real_rng()
    state = engine.setup(seats, {}, rng)
    assert state["dealer"] == rng.stream("first").uniform(seats)
    assert all_cards(state) == Counter(engine.DECK)
    # The deck's rest is the shuffled deck after the cards the deal used, in order.
    shuffled = rng.stream("deck").shuffle(engine.DECK)
    used = 94 - len(state["deck"])
    assert state["deck"] == shuffled[used:]


def test_the_deal_gives_one_card_each_from_the_dealers_left_dealer_last():
    state, rng = new_game(4, front=[5, "+4", 7, 9, 11], dealer=2)
    assert rng.labels == ["first", "deck"]
    assert [r["numbers"] for r in state["rows"]] == [[], [7], [9], [5]]  # seat 3 first, seat 2 last
    assert state["rows"][0]["extras"] == ["+4"]
    assert [r["status"] for r in state["rows"]] == ["in"] * 4
    assert state["deck"][0] == 11 and len(state["deck"]) == 90
    # The turn starts at the dealer's left.
    assert (state["phase"], state["current"], state["hand"]) == ("play", 3, 1)
    assert engine.view(state, 0)["dealing"] is False


def test_setup_starts_with_nothing_scored():
    state, _ = new_game(3, front=[1, 2, 3])
    assert state["totals"] == [0, 0, 0] and state["hands"] == [] and state["discard"] == []
    assert state["finished"] is False and engine.outcome(state) is None


@pytest.mark.parametrize("seats", [0, 1, 9])
def test_fewer_than_two_or_more_than_eight_seats_are_refused(seats):
    with pytest.raises(ValueError):
        engine.setup(seats, {}, real_rng())


def next_hand(front, seats: int = 3, dealer: int = 0, totals=None) -> tuple[dict, list[dict]]:
    """The events of a deal inside apply: the last player in stops, the next hand is dealt from `front`."""
    rows = [row([1], status="in")] + [row([s + 1], status="stopped") for s in range(1, seats)]
    state = state_with(rows, front, dealer=(dealer - 1) % seats, turn=seats - 1, totals=totals)
    assert state["current"] == 0
    return play(state, "stop")


def test_a_deal_inside_apply_announces_the_hand_then_each_card():
    state, events = next_hand([4, 8, 10], seats=3, dealer=1)
    assert kinds(events) == ["stopped", "hand_over", "hand", "card", "card", "card"]
    assert events[2] == {"type": "hand", "hand": 2, "dealer": 1}
    assert cards_of(events, "deal") == [(2, 4), (0, 8), (1, 10)]
    assert state["current"] == 2


def test_a_snuffer_dealt_is_resolved_before_the_deal_goes_on_and_can_hit_someone_not_yet_dealt():
    state, _ = new_game(3, front=["snuffer", 6, 9], dealer=0)
    seen = engine.view(state, 1)
    assert (seen["phase"], seen["current"], seen["dealing"]) == ("target", 1, True)
    assert seen["pending"] == {"card": "snuffer", "by": 1, "targets": [0, 1, 2]}  # waiting seats are in the hand
    assert [r["status"] for r in seen["rows"]] == ["waiting", "in", "waiting"]
    state, events = play(state, 2)
    assert events[0] == {"type": "snuffed", "seat": 2, "by": 1, "score": 0}
    # Seat 2 is out with nothing; the deal skips it and seat 0 gets the next card.
    assert cards_of(events) == [(0, 6)]
    assert [r["status"] for r in state["rows"]] == ["in", "in", "snuffed"]
    assert state["rows"][2]["numbers"] == [] and state["discard"] == ["snuffer"]
    assert (state["phase"], state["current"]) == ("play", 1)


def test_a_bellows_dealt_makes_its_target_draw_three_and_the_deal_skips_it_afterwards():
    state, _ = new_game(3, front=["bellows", 4, 5, 6, 8, 9], dealer=0)
    assert state["pending"] == {"card": "bellows", "by": 1, "targets": [0, 1, 2]}
    state, events = play(state, 2)
    assert events[0] == {"type": "bellows", "seat": 2, "by": 1}
    assert cards_of(events, "bellows") == [(2, 4), (2, 5), (2, 6)]
    # Seat 2 has its cards already: the deal goes on to seat 0 only.
    assert cards_of(events, "deal") == [(0, 8)]
    assert [r["numbers"] for r in state["rows"]] == [[8], [], [4, 5, 6]]
    assert state["current"] == 1 and state["deck"][0] == 9


def test_a_bellows_dealt_can_be_kept_by_whoever_received_it():
    state, _ = new_game(2, front=["bellows", 4, 5, 6, 8], dealer=0)
    state, events = play(state, 1)
    assert cards_of(events) == [(1, 4), (1, 5), (1, 6), (0, 8)]
    assert state["rows"][1]["numbers"] == [4, 5, 6]


def test_a_saucer_dealt_is_kept_and_honey_and_twin_wick_sit_beside_the_row():
    state, _ = new_game(3, front=["saucer", "x2", "+10"], dealer=0)
    assert state["rows"][1]["saucer"] is True
    assert state["rows"][2]["extras"] == ["x2"] and state["rows"][0]["extras"] == ["+10"]
    assert all(r["numbers"] == [] and r["status"] == "in" for r in state["rows"])


def test_a_spill_during_the_deal_puts_the_seat_out_before_its_turn():
    # Seat 1 bellows itself: 7, 7 spills on the second draw; the third is never drawn.
    state, _ = new_game(2, front=["bellows", 7, 7, 3, 9], dealer=0)
    state, events = play(state, 1)
    assert kinds(events)[:4] == ["bellows", "card", "card", "spilled"]
    assert cards_of(events) == [(1, 7), (1, 7), (0, 3)]
    assert state["rows"][1]["status"] == "spilled" and state["current"] == 0


# --- draw or stop ---------------------------------------------------------------------------------

def three_players(front=(), **rows_by_seat) -> dict:
    rows = [rows_by_seat.get(f"s{s}", row([s + 1])) for s in range(3)]
    return state_with(rows, front, turn=2)  # seat 0 to play


def test_a_number_joins_the_row_and_the_turn_goes_left():
    state = three_players([9])
    assert engine.legal(state, 0) == [{"type": "draw"}, {"type": "stop"}]
    state, events = play(state, "draw")
    assert events == [{"type": "card", "seat": 0, "card": 9, "how": "draw"}]
    assert state["rows"][0]["numbers"] == [1, 9] and state["current"] == 1


def test_stopping_keeps_the_points_and_leaves_the_hand():
    state = three_players(s0=row([4, 10], ["+6"]))
    state, events = play(state, "stop", "draw", "draw", "draw")
    assert events[0] == {"type": "stopped", "seat": 0, "score": 20}
    assert state["rows"][0]["status"] == "stopped"
    # Seats 1 and 2 take turns; seat 0 is skipped.
    assert [e["seat"] for e in events if e["type"] == "card"] == [1, 2, 1]


def test_stopping_with_no_number_is_allowed():
    state = three_players(s0=row([], ["+2"]))
    state, events = play(state, "stop")
    assert events == [{"type": "stopped", "seat": 0, "score": 2}]


def test_a_repeated_number_spills_the_pot():
    state = three_players([7], s0=row([3, 7], ["+4"]))
    state, events = play(state, "draw")
    assert events[1] == {"type": "spilled", "seat": 0, "card": 7}
    spilled = state["rows"][0]
    assert spilled["status"] == "spilled" and spilled["numbers"] == [3, 7, 7]  # shown until the hand ends
    assert engine.view(state, 0)["rows"][0]["score"] == 0
    assert state["current"] == 1


def test_a_saucer_catches_a_repeat_and_both_are_discarded():
    state = three_players([7, 3], s0=row([3, 7], saucer=True))
    state, events = play(state, "draw")
    assert events[1] == {"type": "saved", "seat": 0, "card": 7}
    assert state["rows"][0] == row([3, 7])
    assert state["discard"] == [7, "saucer"]
    state, events = play(state, "stop", "stop", "draw")  # the saucer is gone: the next repeat spills
    assert {"type": "spilled", "seat": 0, "card": 3} in events


def test_a_second_saucer_is_given_to_a_player_in_the_hand_without_one():
    rows = [row([1], saucer=True), row([2]), row([3], status="stopped"), row([4], saucer=True), row([5])]
    state = state_with(rows, ["saucer"], turn=4)
    state, events = play(state, "draw")
    seen = engine.view(state, 0)
    assert (seen["phase"], seen["current"]) == ("give", 0)
    assert seen["pending"] == {"card": "saucer", "by": 0, "targets": [1, 4]}
    assert engine.legal(state, 0) == [{"type": "target", "seat": 1}, {"type": "target", "seat": 4}]
    state, events = play(state, 4)
    assert events == [{"type": "saucer_given", "from": 0, "to": 4}]
    assert [r["saucer"] for r in state["rows"]] == [True, False, False, True, True]
    assert (state["phase"], state["current"]) == ("play", 1)


def test_a_second_saucer_goes_without_asking_when_one_player_can_take_it():
    state = three_players(["saucer"], s0=row([1], saucer=True), s2=row([3], saucer=True))
    state, events = play(state, "draw")
    assert events[1] == {"type": "saucer_given", "from": 0, "to": 1}
    assert state["rows"][1]["saucer"] and state["current"] == 1


def test_a_second_saucer_is_discarded_when_nobody_can_take_it():
    state = three_players(["saucer"], s0=row([1], saucer=True), s1=row([2], status="stopped"),
                          s2=row([3], saucer=True))
    state, events = play(state, "draw")
    assert events[1] == {"type": "discarded", "seat": 0, "card": "saucer"}
    assert state["discard"] == ["saucer"] and state["rows"][0]["saucer"]


# --- snuffer and bellows --------------------------------------------------------------------------

def test_a_snuffer_stops_the_chosen_player_who_keeps_the_points():
    state = three_players(["snuffer"], s1=row([8, 12], ["+2"]))
    state, events = play(state, "draw")
    assert engine.view(state, 0)["pending"] == {"card": "snuffer", "by": 0, "targets": [0, 1, 2]}
    state, events = play(state, 1)
    assert events == [{"type": "snuffed", "seat": 1, "by": 0, "score": 22}]
    assert state["rows"][1]["status"] == "snuffed" and state["discard"] == ["snuffer"]
    assert state["current"] == 2  # the turn goes on from the seat that drew the snuffer


def test_a_snuffer_can_hit_its_own_drawer():
    state = three_players(["snuffer"], s0=row([8, 12]))
    state, events = play(state, "draw", 0)
    assert events[-1] == {"type": "snuffed", "seat": 0, "by": 0, "score": 20}
    assert state["current"] == 1


def test_a_snuffer_with_only_one_player_left_hits_that_player_without_asking():
    state = three_players(["snuffer"], s1=row([2], status="stopped"), s2=row([3], status="spilled"))
    state, events = play(state, "draw")
    assert kinds(events) == ["card", "snuffed", "hand_over", "hand", "card", "card", "card"]
    assert events[1] == {"type": "snuffed", "seat": 0, "by": 0, "score": 1}


def test_only_players_still_in_the_hand_are_targets():
    state = three_players(["bellows"], s1=row([2], status="stopped"))
    state, _ = play(state, "draw")
    assert state["pending"]["targets"] == [0, 2]


def test_a_bellows_makes_its_target_draw_three_cards():
    state = three_players(["bellows", 4, 5, 6], s2=row([3]))
    state, events = play(state, "draw", 2)
    assert kinds(events) == ["card", "bellows", "card", "card", "card"]
    assert events[1] == {"type": "bellows", "seat": 2, "by": 0}
    assert cards_of(events, "bellows") == [(2, 4), (2, 5), (2, 6)]
    assert state["rows"][2]["numbers"] == [3, 4, 5, 6] and state["rows"][2]["status"] == "in"
    assert state["current"] == 1 and state["bellows"] is None


def test_a_bellows_stops_early_on_a_spill():
    state = three_players(["bellows", 4, 3, 6], s2=row([3]))
    state, events = play(state, "draw", 2)
    assert kinds(events) == ["card", "bellows", "card", "card", "spilled"]
    assert state["rows"][2]["status"] == "spilled" and state["deck"][0] == 6


def test_a_spill_mid_bellows_discards_the_action_cards_it_had_turned_up():
    state = three_players(["bellows", "snuffer", "bellows", 3], s2=row([3]))
    state, events = play(state, "draw", 2)
    assert kinds(events)[-3:] == ["spilled", "discarded", "discarded"]
    assert events[-2:] == [{"type": "discarded", "seat": 2, "card": "snuffer"},
                           {"type": "discarded", "seat": 2, "card": "bellows"}]
    assert state["discard"] == ["bellows", "snuffer", "bellows"]
    assert state["queue"] == [] and state["pending"] is None and state["current"] == 1


def test_a_full_pot_mid_bellows_ends_the_hand_at_once_with_15_more():
    s2 = row([0, 1, 2, 3, 4], ["+8"])
    state = three_players(["bellows", "snuffer", 5, 6, 9], s0=row([9]), s1=row([10, 11]), s2=s2)
    state, events = play(state, "draw", 2)
    assert kinds(events)[:7] == ["card", "bellows", "card", "card", "card", "full", "hand_over"]
    assert cards_of(events, "bellows") == [(2, "snuffer"), (2, 5), (2, 6)]
    hand_over = events[6]
    # Seats still in score what they have; the full pot: 21 + 8 + 15.
    assert hand_over["scores"] == [9, 21, 44] and hand_over["totals"] == [9, 21, 44]
    assert "snuffer" in state["discard"]  # the held snuffer is discarded with the hand
    assert state["hand"] == 2


def test_a_saucer_turned_up_during_bellows_is_kept_at_once_and_catches_a_later_repeat():
    state = three_players(["bellows", "saucer", 3, 5], s2=row([3]))
    state, events = play(state, "draw", 2)
    assert kinds(events) == ["card", "bellows", "card", "card", "saved", "card"]
    assert state["rows"][2] == row([3, 5])


def test_a_second_saucer_during_bellows_is_given_at_once_then_the_draws_go_on():
    state = three_players(["bellows", "saucer", 7, 8], s0=row([1]), s1=row([2]), s2=row([3], saucer=True))
    state, events = play(state, "draw", 2)
    seen = engine.view(state, 2)
    assert (seen["phase"], seen["current"]) == ("give", 2)
    assert seen["pending"] == {"card": "saucer", "by": 2, "targets": [0, 1]}
    assert seen["bellows"] == {"seat": 2, "left": 2, "held": []}
    state, events = play(state, 1)
    assert events[0] == {"type": "saucer_given", "from": 2, "to": 1}
    assert cards_of(events, "bellows") == [(2, 7), (2, 8)]
    assert state["bellows"] is None and state["current"] == 1


def test_a_snuffer_turned_up_during_bellows_waits_for_the_three_draws():
    state = three_players(["bellows", "snuffer", 4, 5], s2=row([3]))
    state, events = play(state, "draw", 2)
    assert cards_of(events, "bellows") == [(2, "snuffer"), (2, 4), (2, 5)]
    # Then the bellows's target resolves it, choosing among the players in the hand.
    seen = engine.view(state, 2)
    assert (seen["phase"], seen["current"], seen["pending"]) == (
        "target", 2, {"card": "snuffer", "by": 2, "targets": [0, 1, 2]})
    state, events = play(state, 0)
    assert events == [{"type": "snuffed", "seat": 0, "by": 2, "score": 1}]
    assert state["current"] == 1  # the turn goes on from the seat that drew the bellows


def test_a_bellows_turned_up_during_bellows_is_resolved_after_it():
    state = three_players(["bellows", "bellows", 4, 5, 6, 8, 9], s2=row([3]))
    state, events = play(state, "draw", 2)
    assert state["pending"] == {"card": "bellows", "by": 2, "targets": [0, 1, 2]}
    state, events = play(state, 1)
    assert events[0] == {"type": "bellows", "seat": 1, "by": 2}
    assert cards_of(events, "bellows") == [(1, 6), (1, 8), (1, 9)]
    assert state["current"] == 1


def test_cards_held_by_a_bellows_are_resolved_in_the_order_they_came():
    state = three_players(["bellows", "bellows", "snuffer", 4, 5, 6, 8], s2=row([3]))
    state, _ = play(state, "draw", 2)
    assert state["pending"]["card"] == "bellows"
    assert [item["card"] for item in state["queue"]] == ["snuffer"]
    state, events = play(state, 0)  # seat 0 draws 5, 6, 8; then seat 2's snuffer
    assert cards_of(events, "bellows") == [(0, 5), (0, 6), (0, 8)]
    assert state["pending"] == {"card": "snuffer", "by": 2, "targets": [0, 1, 2]}
    assert engine.view(state, 1)["queue"] == []


def test_a_held_card_is_discarded_when_its_holder_spills_before_it_comes_up():
    # Seat 2 holds a bellows and a snuffer; it sends the bellows at itself and spills on it.
    state = three_players(["bellows", "bellows", "snuffer", 4, 3], s2=row([3]))
    state, _ = play(state, "draw", 2)
    state, events = play(state, 2)
    assert kinds(events) == ["bellows", "card", "spilled", "discarded"]
    assert events[-1] == {"type": "discarded", "seat": 2, "card": "snuffer"}
    assert state["current"] == 1


def test_held_cards_with_one_player_left_hit_that_player_and_the_rest_go_with_the_hand():
    # Seat 0 is alone: its bellows hits itself and turns up two snuffers; the first hits seat 0,
    # which ends the hand, and the second is discarded with it.
    state = state_with([row([1]), row([2], status="stopped")], ["bellows", "snuffer", "snuffer", 4, 6, 7], turn=1)
    state, events = play(state, "draw")
    assert kinds(events)[:7] == ["card", "bellows", "card", "card", "card", "snuffed", "hand_over"]
    assert events[5] == {"type": "snuffed", "seat": 0, "by": 0, "score": 5}
    assert state["discard"] == ["bellows", "snuffer", "snuffer", 1, 4, 2]


# --- the full pot and the end of a hand ------------------------------------------------------------

def test_seven_different_numbers_fill_the_pot_and_end_the_hand_at_once():
    full = row([12, 11, 10, 9, 8, 7], ["x2"])
    state = three_players([0], s0=full, s1=row([5], ["+4"]), s2=row([6], status="stopped"))
    state, events = play(state, "draw")
    assert kinds(events)[:4] == ["card", "full", "hand_over", "hand"]
    assert events[2] == {"type": "hand_over", "hand": 1, "scores": [57 * 2 + 15, 9, 6], "totals": [129, 9, 6]}
    assert state["hands"] == [[129, 9, 6]]


def test_a_hand_ends_when_nobody_is_left_and_the_next_deal_moves_left():
    state = state_with([row([5, 9], ["+2"]), row([4], status="spilled"), row([2, 3], status="stopped")],
                       [8, 10, 12], turn=2, dealer=2, totals=[10, 20, 30], hands=[[10, 20, 30]], hand=2)
    state, events = play(state, "stop")
    assert events[1] == {"type": "hand_over", "hand": 2, "scores": [16, 0, 5], "totals": [26, 20, 35]}
    assert events[2] == {"type": "hand", "hand": 3, "dealer": 0}
    assert cards_of(events, "deal") == [(1, 8), (2, 10), (0, 12)]
    assert state["hands"] == [[10, 20, 30], [16, 0, 5]] and state["totals"] == [26, 20, 35]
    # Every card in front of the players went to the discard pile, seat by seat.
    assert state["discard"] == [5, 9, "+2", 4, 2, 3]
    assert state["current"] == 1 and state["dealer"] == 0 and state["turn"] == 0


def test_a_saucer_still_in_front_goes_to_the_discard_pile_with_the_hand():
    state = state_with([row([5], saucer=True), row([4], status="stopped")], [1, 2], turn=1)
    state, _ = play(state, "stop")
    assert state["discard"] == [5, "saucer", 4]


# --- the deck running out ---------------------------------------------------------------------------

def test_an_empty_deck_is_replaced_by_the_discard_pile_shuffled_from_the_seed():
    rows = [row([1]), row([2]), row([3])]
    state = state_with(rows, deck=[], discard=[9, "+6", 4, 12], turn=2)
    rng = ScriptedRng(reshuffle=lambda pile: list(reversed(pile)))
    state, events = play(state, "draw", rng=rng)
    assert rng.reshuffled == [("reshuffle:1", [9, "+6", 4, 12])]
    assert events[0] == {"type": "reshuffled", "count": 4}
    assert events[1] == {"type": "card", "seat": 0, "card": 12, "how": "draw"}
    assert state["deck"] == [4, "+6", 9] and state["discard"] == [] and state["reshuffles"] == 1
    assert [r["numbers"] for r in state["rows"]] == [[1, 12], [2], [3]]  # cards in front stay


def test_each_reshuffle_reads_its_own_label():
    state = state_with([row([1]), row([2])], deck=[], discard=[9], turn=1)
    rng = ScriptedRng()
    state, _ = play(state, "draw", rng=rng)
    state = {**state, "discard": [10, 11]}
    state, events = play(state, "draw", rng=rng)
    assert [label for label, _pile in rng.reshuffled] == ["reshuffle:1", "reshuffle:2"]
    assert events[0] == {"type": "reshuffled", "count": 2}


def test_the_real_reshuffle_is_the_seeded_stream_over_the_pile_in_discard_order():
    state = state_with([row([1]), row([2])], deck=[], discard=[9, "+6", 4, 12, "x2"], turn=1)
    rng = real_rng()
    state, _ = engine.apply(state, 0, {"type": "draw"}, rng)
    order = rng.stream("reshuffle:1").shuffle([9, "+6", 4, 12, "x2"])
    assert state["deck"] == order[1:]


def test_the_deck_running_out_mid_bellows_is_reshuffled_and_the_draws_go_on():
    rows = [row([1]), row([2]), row([3])]
    state = state_with(rows, deck=["bellows", 4], discard=[5, 6, 7, 8], turn=2)
    rng = ScriptedRng()
    state, events = play(state, "draw", 2, rng=rng)
    assert kinds(events)[-5:] == ["bellows", "card", "reshuffled", "card", "card"]
    assert cards_of(events, "bellows") == [(2, 4), (2, 5), (2, 6)]
    assert rng.reshuffled == [("reshuffle:1", [5, 6, 7, 8, "bellows"])]  # the played bellows was discarded


def test_a_reshuffle_without_the_rng_is_an_error_not_a_guess():
    state = state_with([row([1]), row([2])], deck=[], discard=[9], turn=1)
    with pytest.raises(ValueError):
        engine.apply(state, 0, {"type": "draw"})


# --- the end of the game ----------------------------------------------------------------------------

def test_the_game_ends_after_the_hand_in_which_someone_reaches_200():
    state = state_with([row([12, 11]), row([3])], [5, 6], totals=[180, 150], turn=1)
    state, events = play(state, "stop")  # seat 0 has 203 once the hand ends; seat 1 still plays
    assert not state["finished"] and state["current"] == 1
    state, events = play(state, "draw", "stop")
    assert kinds(events)[-2:] == ["hand_over", "game_over"]
    assert state["finished"] and state["phase"] == "over" and engine.to_act(state) == []
    assert engine.outcome(state) == [{"seat": 0, "place": 1, "score": 203}, {"seat": 1, "place": 2, "score": 158}]
    assert state["rows"][0]["numbers"] == [12, 11]  # the last hand stays on the table


def test_a_tie_on_top_plays_one_more_hand():
    state = state_with([row([10]), row([5])], [3, 4, 8], totals=[190, 195], turn=1)
    state, events = play(state, "stop", "stop")
    assert events[-4:-2] == [
        {"type": "hand_over", "hand": 1, "scores": [10, 5], "totals": [200, 200]},
        {"type": "hand", "hand": 2, "dealer": 1},
    ]
    assert not state["finished"] and engine.outcome(state) is None
    state, events = play(state, "stop", "draw", "stop")
    assert kinds(events)[-1] == "game_over"
    assert engine.outcome(state)[0] == {"seat": 1, "place": 1, "score": 212}  # 200 + 4 + 8 against 203


def test_a_tie_below_the_top_shares_a_place():
    state = state_with([row([10]), row([5]), row([5]), row([1])], [2, 3, 4, 6, 7, 8],
                       totals=[200, 40, 40, 0], turn=3)
    state, _ = play(state, "stop", "stop", "stop", "stop")
    assert [(r["seat"], r["place"], r["score"]) for r in engine.outcome(state)] == [
        (0, 1, 210), (1, 2, 45), (2, 2, 45), (3, 4, 1)]


# --- refused moves ----------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("seat", "action", "code"),
    [
        (1, {"type": "draw"}, "not_your_turn"),
        (5, {"type": "draw"}, "no_such_seat"),
        (True, {"type": "draw"}, "no_such_seat"),
        (0, "draw", "bad_action"),
        (0, {"type": "draw", "extra": 1}, "bad_action"),
        (0, {"type": "target", "seat": 1}, "bad_action"),
        (0, {"type": "pass"}, "bad_action"),
    ],
)
def test_refused_moves_in_play_leave_the_state_unchanged(seat, action, code):
    state = three_players()
    kept = json.dumps(state, sort_keys=True)
    with pytest.raises(IllegalAction) as error:
        engine.apply(state, seat, action)
    assert error.value.code == code
    assert json.dumps(state, sort_keys=True) == kept


@pytest.mark.parametrize(
    ("action", "code"),
    [
        ({"type": "draw"}, "bad_action"),
        ({"type": "target", "seat": "1"}, "bad_action"),
        ({"type": "target", "seat": True}, "bad_action"),
        ({"type": "target"}, "bad_action"),
        ({"type": "target", "seat": 1}, "not_a_target"),
        ({"type": "target", "seat": 7}, "not_a_target"),
    ],
)
def test_refused_targets(action, code):
    state = three_players(["snuffer"], s1=row([2], status="stopped"))
    state, _ = play(state, "draw")
    with pytest.raises(IllegalAction) as error:
        engine.apply(state, 0, action)
    assert error.value.code == code


def test_no_move_after_the_end():
    state = state_with([row([12]), row([3], status="stopped")], [1, 2], totals=[195, 0], turn=1)
    state, _ = play(state, "stop")
    assert state["finished"] and engine.legal(state, 0) == []
    with pytest.raises(IllegalAction) as error:
        engine.apply(state, 0, {"type": "draw"})
    assert error.value.code == "game_over"


# --- the spill chance -------------------------------------------------------------------------------

def test_the_spill_chance_counts_the_unseen_copies_of_the_rows_numbers():
    state = three_players(s0=row([12, 5]), s1=row([12]), s2=row([3]))
    unseen = 94 - 4
    # Twelve 12s less the two shown, five 5s less the one shown.
    assert engine.spill_chance(state, 0) == Fraction(10 + 4, unseen)
    assert engine.spill_chance(state, 1) == Fraction(10, unseen)
    assert engine.view(state, 2)["spill_chance"] == [14 / 90, 10 / 90, 2 / 90]


def test_the_spill_chance_is_zero_with_a_saucer_and_none_in_the_view_for_players_out():
    state = three_players(s0=row([12], saucer=True), s1=row([12], status="stopped"))
    assert engine.spill_chance(state, 0) == 0
    assert engine.view(state, 0)["spill_chance"][:2] == [0.0, None]


def test_the_spill_chance_on_an_empty_deck_counts_the_discard_pile_it_will_be_shuffled_from():
    state = state_with([row([1, 9]), row([2])], deck=[], discard=[9, 9, 4, "+6"], turn=1)
    assert engine.spill_chance(state, 0) == Fraction(2, 4)
    assert engine.spill_chance(state, 1) == 0


def test_the_view_and_the_state_give_the_same_pool():
    state = three_players(["bellows", "snuffer", 4, 5, 6], s2=row([3]))
    state, _ = play(state, "draw", 2)
    seen = engine.view(state, 1)
    assert engine.unseen_cards(seen) == Counter(state["deck"])
    assert engine.spill_chance_in(state["rows"][2], engine.next_card_pool(seen)) == engine.spill_chance(state, 2)


# --- the table's choice -----------------------------------------------------------------------------

def test_the_table_stops_for_a_seat_that_times_out_in_play():
    assert engine.table_choice(three_players(), 0) == {"type": "stop"}


def test_the_table_snuffs_the_leader_other_than_itself():
    state = state_with([row([1]), row([2]), row([3]), row([4])], ["snuffer"], totals=[150, 90, 120, 120], turn=3)
    state, _ = play(state, "draw")
    # Seats 2 and 3 tie on total; seat 3 has the higher hand score.
    assert engine.table_choice(state, 0) == {"type": "target", "seat": 3}


def test_the_table_bellows_the_riskiest_row_and_never_itself():
    rows = [row([12, 11, 10]), row([1]), row([12, 11]), row([0])]
    state = state_with(rows, ["bellows"], turn=3)
    state, _ = play(state, "draw")
    assert engine.cautious_target(state, 0) == 2


def test_the_table_gives_a_second_saucer_to_whoever_threatens_least():
    rows = [row([1], saucer=True), row([2]), row([3]), row([4])]
    state = state_with(rows, ["saucer"], totals=[10, 50, 20, 20], turn=3)
    state, _ = play(state, "draw")
    assert engine.table_choice(state, 0) == {"type": "target", "seat": 2}  # 20 and 3 beat 20 and 4


def test_the_table_picks_itself_only_when_nothing_else_is_possible():
    state = state_with([row([1]), row([2], status="stopped"), row([3])], ["snuffer"], turn=2)
    state, _ = play(state, "draw")
    assert engine.table_choice(state, 0) == {"type": "target", "seat": 2}


# --- views ------------------------------------------------------------------------------------------

def test_a_view_shows_every_row_and_the_discard_pile_but_never_the_deck():
    state = three_players(s0=row([5], ["+2"], saucer=True))
    seen = engine.view(state, 1)
    assert seen["seat"] == 1 and seen["rows"][0] == {**row([5], ["+2"], saucer=True), "score": 7}
    assert seen["deck_count"] == len(state["deck"]) and "deck" not in seen
    assert seen["totals"] == [0, 0, 0] and seen["hands"] == [] and seen["ranking"] is None
    assert "seat" not in engine.view(state, None)
