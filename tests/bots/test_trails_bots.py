"""Trails bots: legal actions, view-only and deterministic decisions, sane choices. No Django.

Plus the benchmark's Rule-of-28 baseline: legal, and the count it stops on, on a scripted view.
"""

from __future__ import annotations

import copy
import hashlib
import inspect
import json
import random

import pytest

from bench import trails_bots as bench
from bots import trails as bots
from games.fairness import Rng
from games.trails import engine

CAMP, THROW = {"type": "camp"}, {"type": "throw"}


def rng_for(label: str) -> Rng:
    return Rng(hashlib.sha256(label.encode()).hexdigest(), f"test|{label}")


def positions(seats: int, label: str, chooser: random.Random, limit: int = 400):
    """(state, seat) to act in one game of random legal moves (camping one time in three)."""
    state = engine.setup(seats, {}, rng_for(label))
    for _ in range(limit):
        if state["finished"]:
            return
        seat = state["current"]
        yield state, seat
        options = engine.legal(state, seat)
        action = options[1] if state["phase"] == "decide" and chooser.random() < 0.3 else options[0]
        if state["phase"] == "choose":
            action = chooser.choice(options)
        state, _ = engine.apply(state, seat, action, rng_for(label))


def at(steps: dict[int, int]) -> list[int]:
    row = [0] * 11
    for trail, step in steps.items():
        row[trail - 2] = step
    return row


def scripted(*, phase="decide", banners=None, lanterns=None, claimed=None, dice=None, seats=2) -> dict:
    state = engine.setup(seats, {}, rng_for("scripted"))
    banners = banners or {}
    state.update(current=0, phase=phase, dice=dice, banners=[at(banners.get(s, {})) for s in range(seats)],
                 lanterns=at(lanterns or {}), claimed=[None] * 11)
    for trail, seat in (claimed or {}).items():
        state["claimed"][trail - 2] = seat
        state["banners"][seat][trail - 2] = engine.length_of(trail)
    state["topped"] = [t for t in engine.TRAILS if state["lanterns"][t - 2] == engine.length_of(t)]
    return state


def play(levels, label: str) -> dict:
    state = engine.setup(len(levels), {}, rng_for(label))
    while not state["finished"]:
        seat = state["current"]
        action = levels[seat](engine.view(state, seat))
        assert action in engine.legal(state, seat)
        state, _ = engine.apply(state, seat, action, rng_for(label))
    return state


# --- legality and the contract --------------------------------------------------------------------

@pytest.mark.parametrize("seats", [2, 3, 4])
def test_every_level_plays_a_legal_action(seats):
    chooser = random.Random(seats)
    for state, seat in positions(seats, f"legal-{seats}", chooser):
        seen = engine.view(state, seat)
        for level in bots.LEVELS:
            assert bots.choose(seen, level) in engine.legal(state, seat)
        assert bench.rule28_choose(seen) in engine.legal(state, seat)


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_whole_games_of_bots_end(seats):
    strong = lambda view: bots.choose(view, "strong")  # noqa: E731
    cautious = lambda view: bots.choose(view, "cautious")  # noqa: E731
    state = play([strong, cautious, bench.rule28_choose, strong][:seats], f"whole-{seats}")
    assert state["finished"] and engine.outcome(state)[0]["score"] >= 3


def test_choose_takes_only_a_view_and_a_level():
    assert list(inspect.signature(bots.choose).parameters) == ["view", "level"]
    assert inspect.signature(bots.choose).parameters["level"].default == "strong"


def test_decisions_are_deterministic_and_leave_the_view_as_it_was():
    for state, seat in positions(2, "repeat", random.Random(3), limit=120):
        seen = engine.view(state, seat)
        before = copy.deepcopy(seen)
        for level in bots.LEVELS:
            first = bots.choose(seen, level)
            assert bots.choose(json.loads(json.dumps(seen)), level) == first  # as it arrives over the wire
        assert seen == before


def test_a_bot_reads_nothing_but_the_view():
    """Everything in trails is public, so the view is the whole board: the same view from two
    different states (another turn number, another first seat) gives the same decision."""
    state = scripted(banners={0: {7: 4}, 1: {6: 3}}, lanterns={7: 6, 8: 2})
    other = {**copy.deepcopy(state), "first": 1, "last_throw": {"seat": 0, "dice": [1, 1, 1, 1], "busted": False}}
    for level in bots.LEVELS:
        assert bots.choose(engine.view(state, 0), level) == bots.choose(engine.view(other, 0), level)


def test_unknown_level_and_nothing_to_decide_are_refused():
    seen = engine.view(scripted(phase="throw"), 0)
    with pytest.raises(ValueError):
        bots.choose(seen, "genius")
    with pytest.raises(ValueError):
        bots.choose(engine.view(scripted(phase="throw"), 1), "strong")  # not this seat's turn


def test_the_bots_climb_is_the_engines():
    chooser = random.Random(11)
    checked = 0
    for state, seat in positions(3, "climbs", chooser):
        if state["phase"] != "choose":
            continue
        turn = bots.Turn(engine.view(state, seat))
        for action in engine.legal(state, seat):
            lanterns, _topped = engine.climb_lanterns(state, seat, action["trails"])
            assert list(turn.climbed(tuple(state["lanterns"]), action["trails"])) == lanterns
            checked += 1
    assert checked > 20


# --- cautious -------------------------------------------------------------------------------------

def test_cautious_climbs_as_the_table_does():
    for state, seat in positions(2, "cautious", random.Random(5)):
        if state["phase"] == "choose":
            assert bots.choose(engine.view(state, seat), "cautious") == engine.table_choice(state, seat)


def test_cautious_camps_once_its_lanterns_are_out_or_a_trail_is_topped():
    assert bots.choose(engine.view(scripted(lanterns={7: 1, 8: 1}), 0), "cautious") == THROW
    assert bots.choose(engine.view(scripted(lanterns={7: 1, 8: 1, 6: 1}), 0), "cautious") == CAMP
    assert bots.choose(engine.view(scripted(lanterns={2: 3}), 0), "cautious") == CAMP


# --- strong ---------------------------------------------------------------------------------------

def test_strong_throws_while_no_throw_can_bust():
    # Two lanterns left: every throw climbs, and climbing only ever helps.
    seen = engine.view(scripted(lanterns={7: 2}), 0)
    assert seen["risk"] == 0 and bots.choose(seen, "strong") == THROW


def test_strong_camps_when_every_throw_busts():
    # All three lanterns stand on summits: nothing can climb.
    seen = engine.view(scripted(lanterns={2: 3, 12: 3, 3: 5}), 0)
    assert seen["risk"] == 1 and bots.choose(seen, "strong") == CAMP


def test_strong_camps_when_camping_wins():
    seen = engine.view(scripted(claimed={4: 0, 10: 0}, lanterns={7: 13, 6: 1}), 0)
    assert seen["risk"] < 0.5 and bots.choose(seen, "strong") == CAMP


def test_strong_climbs_to_the_winning_summit():
    # 1 6 6 6: 7|12 three ways. Lanterns on 12 (step 2 of 3) and 7: topping 12 is the third landmark.
    state = scripted(phase="choose", claimed={3: 0, 11: 0}, lanterns={12: 2, 7: 5, 8: 1}, dice=[1, 6, 6, 6])
    seen = engine.view(state, 0)
    assert seen["tray"] == [{"sums": [7, 12], "choices": [[7, 12]]}]
    state["dice"] = [6, 1, 5, 6]  # 7|11 (11 claimed), 11|7, 12|6: 12 alone vs 7 alone
    seen = engine.view(state, 0)
    assert bots.choose(seen, "strong") == {"type": "climb", "trails": [12]}


def test_strong_takes_a_trail_from_a_rival_who_is_about_to_win_it():
    # The rival has two landmarks and stands one step below the summit of 4; we have one landmark and a
    # lantern there too. 2 2 3 4 gives 4|7, 5|6 and 6|5. Climbing 4 tops it; camping then takes it
    # (the next throw would bust 22% of the time, and a bust hands the rival the game).
    state = scripted(phase="choose", banners={0: {4: 5}, 1: {4: 6}}, claimed={2: 1, 12: 1, 10: 0},
                     lanterns={4: 6, 9: 1}, dice=[2, 2, 3, 4])
    choice = bots.choose(engine.view(state, 0), "strong")
    assert choice["trails"][0] == 4
    after, _ = engine.apply(state, 0, choice)
    assert bots.choose(engine.view(after, 0), "strong") == CAMP


def test_strong_pushes_harder_when_the_rival_is_about_to_win():
    # The same lanterns (a fair gain, some risk); only the rival's board differs.
    lanterns = {6: 5, 7: 6, 8: 4}
    calm = scripted(banners={0: {6: 2, 7: 3, 8: 2}}, lanterns=lanterns)
    pressed = scripted(banners={0: {6: 2, 7: 3, 8: 2}, 1: {9: 8}}, claimed={2: 1, 12: 1}, lanterns=lanterns)
    calm_turn, pressed_turn = bots.Turn(engine.view(calm, 0)), bots.Turn(engine.view(pressed, 0))
    key = tuple(calm["lanterns"])
    margin = lambda turn: turn.throw_value(key) - turn.camp_value(key)  # noqa: E731
    assert margin(pressed_turn) > margin(calm_turn)
    assert bots.choose(engine.view(pressed, 0), "strong") == THROW


def test_remaining_work_counts_the_cheapest_trails():
    claimed = [None] * 11
    empty = bots.remaining_work([0] * 11, claimed, 0)
    whole_trails = sorted(length * work for length, work in zip(engine.LENGTHS, bots.STEP_WORK))
    assert empty == pytest.approx(sum(whole_trails[:3]))
    assert bots.remaining_work(at({7: 12}), claimed, 0) < empty
    claimed_two = [0, 0] + [None] * 9
    assert bots.remaining_work(at({2: 3, 3: 5}), claimed_two, 0) == pytest.approx(min(
        (length - 0) * work for length, work in zip(engine.LENGTHS[2:], bots.STEP_WORK[2:])))
    assert bots.remaining_work([0] * 11, [0, 0, 0] + [None] * 8, 0) == 0


def test_strong_beats_the_cautious_bot_over_a_few_games():
    strong = lambda view: bots.choose(view, "strong")  # noqa: E731
    cautious = lambda view: bots.choose(view, "cautious")  # noqa: E731
    wins = 0
    for number in range(12):
        levels = [strong, cautious] if number % 2 == 0 else [cautious, strong]
        state = play(levels, f"duel-{number // 2}")
        wins += levels[state["winner"]] is strong
    assert wins >= 10  # about 99% over 2,000 games in the benchmark


# --- the benchmark's baseline ---------------------------------------------------------------------

def test_rule28_counts_steps_and_markers_and_stops_at_28():
    # Lanterns on 6 (2 steps from banner 1 to 3) and 8 (new, 1 step): (2 + 1) * 2 + (1 + 1) * 2 = 10.
    seen = engine.view(scripted(banners={0: {6: 1}}, lanterns={6: 3, 8: 1}), 0)
    assert bench.rule28_count(seen) == 10 and bench.rule28_choose(seen) == THROW
    # A third lantern on 2 (new, 3 steps: (3 + 1) * 6 = 24) makes 34; all three on even trails: -2.
    seen = engine.view(scripted(banners={0: {6: 1}}, lanterns={6: 3, 8: 1, 2: 3}), 0)
    assert bench.rule28_count(seen) == 10 + 24 - 2 and bench.rule28_choose(seen) == CAMP


def test_the_benchmark_runs(capsys):
    assert bench.main(["--games", "2", "--alone", "1", "--workers", "1", "--seed", "test"]) in (0, 1)
    printed = capsys.readouterr().out
    assert "strong vs rule28" in printed and "turns to win alone" in printed and "p95" in printed
