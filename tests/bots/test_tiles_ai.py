"""The strong tiles AI: crossings, joker crossings, lines kept in place, never fewer tiles than the
optimum without crossings, only plays the engine accepts, repeatable with a node limit. No Django."""

from __future__ import annotations

import copy
import hashlib
import inspect

import pytest

from bench import tiles_bots as bench
from bots import tiles as bots
from bots import tiles_ai as ai
from games import fairness
from games.tiles import engine, rules
from tests.games.tiles.boards import column, row, tile

NODES = 200  # every test decides with a node limit, so that it repeats


def rng_for(label: str) -> fairness.Rng:
    return fairness.Rng(hashlib.sha256(label.encode()).hexdigest(), f"test|{label}")


def playing(*, hand, table, bag=None, seats: int = 2) -> dict:
    """A state in phase play where seat 0 holds `hand` (names or ids) and `table` lies on the board."""
    state = engine.setup(seats, {}, rng_for("tiles-ai"))
    state = engine.apply(state, state["chooser"], {"type": "begin"})[0]
    ids = [name if isinstance(name, int) else tile(name) for name in hand]
    on_table = {t for t, _, _ in table}
    others = [t for t in range(rules.TILE_COUNT) if t not in on_table and t not in ids]
    state["hands"] = [sorted(ids)] + [others[14 * i:14 * i + 14] for i in range(seats - 1)]
    state["bag"] = others[14 * (seats - 1):] if bag is None else bag
    state["table"] = sorted([list(item) for item in table])
    state["current"] = 0
    return state


def decide(state: dict, seat: int = 0) -> dict:
    return ai.choose_strong(engine.view(state, seat), time_limit=30, node_limit=NODES)


def played(state: dict, action: dict) -> list[int]:
    """The engine applies the action (it refuses an invalid table); the hand tiles it put down."""
    after, _events = engine.apply(state, 0, action, rng_for("apply"))
    return sorted(set(state["hands"][0]) - set(after["hands"][0]))


def test_a_cross_through_a_run_is_the_only_play_and_the_ai_finds_it():
    state = playing(hand=["b4", "k4", "o9"], table=row("r3 r4 r5", 5, 5))
    view = engine.view(state, 0)
    assert ai.optimum_without_crossings(view) == (0, True)
    action = decide(state)
    assert played(state, action) == sorted([tile("b4"), tile("k4")])
    cells = {t: (x, y) for t, x, y in action["table"]}
    assert [cells[tile(n)] for n in ("r3", "r4", "r5")] == [(5, 5), (6, 5), (7, 5)]  # the run stays put
    assert cells[tile("b4")][0] == cells[tile("k4")][0] == 6  # the group stands across red 4


def test_a_t_off_the_end_of_a_group():
    state = playing(hand=["k8", "k9", "r12"], table=row("k7 b7 o7", 3, 3))
    assert ai.optimum_without_crossings(engine.view(state, 0))[0] == 0
    action = decide(state)
    assert played(state, action) == sorted([tile("k8"), tile("k9")])


def test_a_joker_crossing_a_joker_stands_for_one_tile_in_both_lines():
    # red 4, joker, red 6: the joker is red 5; blue 5 and black 5 make a group only across it
    state = playing(hand=["b5", "k5", "o11"], table=row("r4 J r6", 3, 3))
    assert ai.optimum_without_crossings(engine.view(state, 0))[0] == 0
    action = decide(state)
    assert played(state, action) == sorted([tile("b5"), tile("k5")])
    assert rules.judge(action["table"]).jokers == {104: [rules.face(tile("r5"))]}


def test_it_plays_the_most_tiles_then_the_most_points():
    # b1 b2 b3 and b10 b11 b12 together beat either alone
    state = playing(hand=["b1", "b2", "b3", "b10", "b11", "b12", "k1"], table=[])
    assert played(state, decide(state)) == sorted(tile(n) for n in ("b1", "b2", "b3", "b10", "b11", "b12"))
    # one joker completes black 1 2 or black 12 13: three tiles either way, the higher numbers go down
    state = playing(hand=["k1", "k2", "k12", "k13", "J"], table=[])
    assert played(state, decide(state)) == sorted(tile(n) for n in ("k12", "k13", "J"))


def test_an_extended_run_keeps_its_tiles_where_they_were():
    table = row("r3 r4 r5", 2, 2) + column("b9 o9 k9", 10, 6)
    state = playing(hand=["r6", "r9"], table=table)
    action = decide(state)
    cells = {t: (x, y) for t, x, y in action["table"]}
    assert all(cells[t] == (x, y) for t, x, y in table)
    assert cells[tile("r6")] == (5, 2)
    assert set(played(state, action)) == {tile("r6"), tile("r9")}


def test_it_rearranges_the_table_when_that_plays_more():
    # blue 5 takes red 5 from the run's end and black 5 from the other: a new group, both runs still 3+
    table = row("r2 r3 r4 r5", 0, 0) + row("k5 k6 k7 k8", 0, 4)
    state = playing(hand=["b5"], table=table)
    assert ai.optimum_without_crossings(engine.view(state, 0))[0] == 1
    assert played(state, decide(state)) == [tile("b5")]


def test_with_nothing_to_play_it_draws_or_passes():
    state = playing(hand=["k1", "r13"], table=row("b5 b6 b7", 0, 0))
    assert decide(state) == {"type": "draw"}
    state = playing(hand=["k1", "r13"], table=row("b5 b6 b7", 0, 0), bag=[])
    assert decide(state) == {"type": "pass"}


def test_the_chosen_seat_begins_and_a_seat_not_to_act_is_refused():
    state = engine.setup(2, {}, rng_for("begin"))
    chooser = state["chooser"]
    assert ai.choose_strong(engine.view(state, chooser)) == {"type": "begin"}
    with pytest.raises(ValueError):
        ai.choose_strong(engine.view(state, 1 - chooser))
    assert ai.choose_strong(engine.view(state, chooser), time_limit=0.5) == {"type": "begin"}


def test_a_flaw_in_the_search_costs_a_draw_not_an_invalid_play(monkeypatch):
    state = playing(hand=["r7", "r8", "r9"], table=[])

    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(ai, "best_play", broken)
    assert decide(state) == {"type": "draw"}


def test_a_layout_that_fails_falls_back_to_the_next_best(monkeypatch):
    """Every layout with a crossing fails here: the AI must still play what it can without one."""
    real = ai.lay_out

    def no_crossings(pos, solution, *, anchored):
        if solution.crossings:
            raise ai.LayoutFailed("test")
        return real(pos, solution, anchored=anchored)

    monkeypatch.setattr(ai, "lay_out", no_crossings)
    # crossing: b4 k4 across red 4; without one, only the o9 o10 o11 run
    state = playing(hand=["b4", "k4", "o9", "o10", "o11"], table=row("r3 r4 r5", 5, 5))
    view = engine.view(state, 0)
    decision = ai.best_play(view, time_limit=30, node_limit=NODES, local_moves=False)
    assert decision.crossings == 0
    assert played(state, decision.action) == sorted(tile(n) for n in ("o9", "o10", "o11"))


def self_play_positions(games: int, seats: int = 2):
    """(state, seat, view) for each decision in phase play of games between the AI and no-crossing bots."""
    for number in range(games):
        rng = rng_for(f"self-play {seats} {number}")
        state = engine.setup(seats, {}, rng)
        state = engine.apply(state, state["chooser"], {"type": "begin"}, rng)[0]
        while state["phase"] == "play" and state["turn"] < 60:
            seat = state["current"]
            view = engine.view(state, seat)
            yield state, seat, view
            action = (ai.choose_strong(view, time_limit=30, node_limit=NODES) if seat == number % seats
                      else ai.choose_no_crossings(view, time_limit=30, node_limit=NODES))
            state = engine.apply(state, seat, action, rng)[0]


def test_in_self_play_it_never_plays_fewer_than_the_optimum_without_crossings_and_every_play_is_accepted():
    checked = more = 0
    for state, seat, view in self_play_positions(2):
        if seat != 0:
            continue
        before = copy.deepcopy(view)
        action = ai.choose_strong(view, time_limit=30, node_limit=NODES)
        assert view == before  # the view is read, never changed
        after = engine.apply(state, seat, action, rng_for("check"))[0]  # raises on a table it refuses
        count = len(state["hands"][seat]) - len(after["hands"][seat]) if action["type"] == "play" else 0
        optimum, proved = ai.optimum_without_crossings(view)
        assert proved
        assert count >= optimum
        more += count > optimum
        checked += 1
    assert checked >= 30


def test_the_same_view_gives_the_same_play_with_a_node_limit():
    views = [view for _state, seat, view in self_play_positions(1) if seat == 0][:12]
    first = [ai.choose_strong(view, time_limit=30, node_limit=NODES) for view in views]
    again = [ai.choose_strong(copy.deepcopy(view), time_limit=30, node_limit=NODES) for view in views]
    assert first == again


def test_the_ai_knows_nothing_of_django_and_reads_only_the_view():
    source = inspect.getsource(ai)
    assert "import django" not in source and "from django" not in source
    assert "state[" not in source


def test_the_strong_level_of_the_tiles_bots_is_this_ai(monkeypatch):
    state = playing(hand=["b4", "k4", "o9"], table=row("r3 r4 r5", 5, 5))
    view = engine.view(state, 0)
    seen = {}

    def spy(view, *, time_limit, node_limit=None):
        seen["time_limit"] = time_limit
        return {"type": "draw"}

    monkeypatch.setattr(ai, "choose_strong", spy)
    assert bots.choose(view, "strong") == {"type": "draw"}
    assert seen["time_limit"] == bots.STRONG_TIME_LIMIT
    assert bots.choose(view, "strong", time_limit=0.7) == {"type": "draw"}
    assert seen["time_limit"] == 0.7


def test_the_benchmark_builds_positions_that_only_a_crossing_plays():
    views = [v for n in range(40) if (v := bench.crossing_position(n, "test")) is not None]
    assert len(views) >= 3
    for view in views[:3]:
        assert ai.optimum_without_crossings(view)[0] == 0
        action = ai.choose_strong(view, time_limit=30, node_limit=NODES)
        assert action["type"] == "play"
        assert ai.acceptable(ai.Position.of(view), action["table"])


def test_the_benchmark_runs_its_three_parts_and_says_what_it_missed(capsys):
    code = bench.main(["--games", "1", "--tables", "0", "--suite", "1", "--crossings", "6", "--workers", "1",
                       "--seed", "test"])
    printed = capsys.readouterr().out
    assert "games: 2; the AI's plays in them:" in printed and "refused by the engine: 0" in printed
    assert "the suite:" in printed and "(target at least 2,000 in all: MISSED)" in printed
    assert "decision time with the settings of live play" in printed
    assert code == 1  # a suite this small misses its size target, and the run says so


def test_the_platform_passes_the_time_limit_from_its_settings(settings, monkeypatch):
    from rooms import bot_runner

    settings.WICKWISE = {**settings.WICKWISE, "BOT_TIME_LIMITS": {"tiles": 0.9}}
    seen = {}

    def spy(view, *, time_limit, node_limit=None):
        seen["time_limit"] = time_limit
        return {"type": "draw"}

    monkeypatch.setattr(ai, "choose_strong", spy)
    view = engine.view(playing(hand=["k1", "r13"], table=[]), 0)
    assert bot_runner.choose("tiles", view, "strong") == {"type": "draw"}
    assert seen["time_limit"] == 0.9
    assert bot_runner.choose("tiles", view, "basic") == {"type": "draw"}  # the basic bot ignores it


def test_a_play_is_shown_one_tile_at_a_time_through_drafts_the_engine_accepts():
    # b4 k4 across red 4 need the run to stay; a swap of two table tiles needs one set aside first
    state = playing(hand=["b4", "k4", "o9"], table=row("r3 r4 r5", 5, 5))
    action = decide(state)
    steps = ai.draft_steps(state["table"], action["table"])
    assert len(steps) == 2 and steps[-1] == action["table"]
    for step in steps:
        engine.check_draft(state, 0, {"table": step})
    before = row("r3 r4 r5", 0, 0) + row("b7 b8 b9", 0, 2)
    after = sorted([[t, x, 2 - y] for t, x, y in before])  # the two runs change rows
    steps = ai.draft_steps(before, after)
    assert steps[-1] == after
    for step in steps:
        cells = [(x, y) for _, x, y in step]
        assert len(set(cells)) == len(cells) == 6 and all(0 <= x < 24 and 0 <= y < 16 for x, y in cells)
