"""Properties of the trails engine over random games (hypothesis).

Random legal play always ends with a winner of three landmarks; the risk sign equals a brute-force
count over the 1,296 throws through legal(); the lanterns and banners keep their invariants at every
step. What every game must satisfy (replay, apply, refusals, views, the table's choice) is in
tests/games/test_contract.py.
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import fairness
from games.trails import engine

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MAX_MOVES = 20_000  # far beyond any real game; a loop that never ends fails instead of hanging

seat_counts = st.integers(engine.MIN_SEATS, engine.MAX_SEATS)
seeds = st.binary(min_size=32, max_size=32).map(bytes.hex)
client_seed = st.none() | st.from_regex(fairness.CLIENT_SEED_PATTERN, fullmatch=True)


@st.composite
def games(draw, seats=seat_counts):
    """(seats, seed, mix, chooser, camp_chance): a game's setup and how its random player plays."""
    count = draw(seats)
    parts = {"game": "trails", "room_code": "PROP01", "number": draw(st.integers(1, 99)),
             "client_seeds": draw(st.lists(client_seed, min_size=count, max_size=count))}
    return (count, draw(seeds), fairness.mix_string(**parts), draw(st.randoms(use_true_random=False)),
            draw(st.sampled_from([0.2, 0.5, 0.8])))


def play_randomly(count, seed, mix, chooser, camp_chance, stop_after=None):
    """Random legal moves (camping with `camp_chance` after a climb), a fresh Rng each move as the
    platform does; yields (state, seat, action, new, events)."""
    state = engine.setup(count, {}, fairness.Rng(seed, mix))
    for moves in range(MAX_MOVES):
        if state["finished"] or (stop_after is not None and moves >= stop_after):
            return
        seat = engine.to_act(state)[0]
        options = engine.legal(state, seat)
        if state["phase"] == "decide":
            action = options[1] if chooser.random() < camp_chance else options[0]
        else:
            action = chooser.choice(options)
        new, events = engine.apply(state, seat, action, fairness.Rng(seed, mix))
        yield state, seat, action, new, events
        state = new
    raise AssertionError("the game did not end")


def final_state(*game, stop_after=None) -> tuple[dict, list[dict]]:
    count, seed, mix = game[:3]
    state, log = engine.setup(count, {}, fairness.Rng(seed, mix)), []
    for _before, seat, action, after, _events in play_randomly(*game, stop_after=stop_after):
        state = after
        log.append({"seat": seat, "action": action})
    return state, log


def check_invariants(state: dict) -> None:
    seats = state["seats"]
    assert engine.lanterns_left(state["lanterns"]) >= 0
    for index, length in enumerate(engine.LENGTHS):
        owner = state["claimed"][index]
        for seat in range(seats):
            step = state["banners"][seat][index]
            assert 0 <= step <= length
            assert (step == length) == (owner == seat)  # a banner on a summit is a landmark
            if owner is not None and owner != seat:
                assert step == 0  # other banners come down
        lantern = state["lanterns"][index]
        if lantern:
            assert owner is None and state["banners"][state["current"]][index] < lantern <= length
        assert (engine.TRAILS[index] in state["topped"]) == (lantern == length)
    assert (state["dice"] is not None) == (state["phase"] == "choose")
    if state["phase"] == "throw":
        assert state["lanterns"] == [0] * 11
    if state["phase"] == "decide":
        assert any(state["lanterns"])
    if state["finished"]:
        assert engine.landmarks(state["claimed"], state["winner"]) >= 3
    else:
        assert all(engine.landmarks(state["claimed"], s) < 3 for s in range(seats))


# --- random play ----------------------------------------------------------------------------------

@SETTINGS
@given(games())
def test_random_play_always_ends_with_three_landmarks_and_keeps_the_invariants(game):
    count = game[0]
    state = None
    for before, seat, action, state, events in play_randomly(*game):
        check_invariants(state)
        assert action in engine.legal(before, seat)
        if action["type"] == "throw":
            assert state["throws"] == before["throws"] + 1
        if state["current"] != before["current"] and not state["finished"]:
            assert state["current"] == (before["current"] + 1) % count
            assert events[-1] == {"type": "turn", "seat": state["current"], "turn": before["turn"] + 1}
    assert state["finished"] and events[-1] == {"type": "won", "seat": state["winner"]}
    ranking = engine.outcome(state)
    assert ranking[0]["seat"] == state["winner"] and ranking[0]["place"] == 1
    assert sorted(r["seat"] for r in ranking) == list(range(count))
    assert all(r["place"] > 1 for r in ranking[1:])
    keys = [(r["score"], engine.progress(state["banners"][r["seat"]])) for r in ranking[1:]]
    assert keys == sorted(keys, reverse=True)
    for position, row in enumerate(ranking[1:], start=1):
        shared = position > 1 and keys[position - 2] == keys[position - 1]
        assert row["place"] == (ranking[position - 1]["place"] if shared else position + 1)


@SETTINGS
@given(games())
def test_every_view_counts_the_lanterns_left(game):
    for _before, _seat, _action, state, _events in play_randomly(*game):
        for seat in [*range(state["seats"]), None]:
            assert engine.view(state, seat)["lanterns_left"] == engine.lanterns_left(state["lanterns"])


# --- the risk sign ---------------------------------------------------------

class LoadedDice:
    """An rng whose every stream reads the given faces, in order."""

    def __init__(self, faces):
        self.faces = faces

    def stream(self, _label):
        return self

    def uniform(self, _n):
        face, self.faces = self.faces[0], self.faces[1:]
        return face - 1


@st.composite
def positions(draw):
    """A state in the middle of a random game."""
    game = draw(games())
    return final_state(*game, stop_after=draw(st.integers(0, 300)))[0]


def brute_force_risk(state: dict) -> Fraction:
    busts = 0
    for dice in engine.ALL_THROWS:
        busts += not engine.legal({**state, "phase": "choose", "dice": list(dice)}, state["current"])
    return Fraction(busts, 1296)


@st.composite
def random_positions(draw):
    """Any lanterns (up to three, below or on the summits), any claimed trails: beyond what play reaches."""
    seats = draw(seat_counts)
    state = engine.setup(seats, {}, fairness.Rng("ab" * 32, "risk"))
    current = draw(st.integers(0, seats - 1))
    claimed = draw(st.lists(st.sampled_from([None] * 4 + list(range(seats))), min_size=11, max_size=11))
    trails = draw(st.lists(st.sampled_from([t for t in engine.TRAILS if claimed[t - 2] is None] or [7]),
                           max_size=3, unique=True))
    lanterns = [0] * 11
    for trail in trails:
        if claimed[trail - 2] is None:
            lanterns[trail - 2] = draw(st.integers(1, engine.length_of(trail)))
    topped = [t for t in engine.TRAILS if lanterns[t - 2] == engine.length_of(t)]
    state.update(current=current, claimed=claimed, lanterns=lanterns, topped=topped,
                 phase="decide" if any(lanterns) else "throw")
    return state


@settings(max_examples=120, deadline=None)
@given(random_positions())
def test_risk_equals_a_brute_force_count_over_the_1296_throws(state):
    assert engine.risk(state) == brute_force_risk(state)
    assert engine.view(state, None)["risk"] == float(engine.risk(state))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions())
def test_risk_in_played_positions_equals_the_brute_force_count(state):
    if state["phase"] in ("throw", "decide"):
        assert engine.risk(state) == brute_force_risk(state)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions())
def test_a_throw_busts_exactly_as_often_as_the_risk_says(state):
    """Every one of the 1,296 throws played through apply: the busts are the risk's numerator."""
    if state["phase"] not in ("throw", "decide"):
        return
    busts = 0
    for dice in engine.ALL_THROWS:
        _after, events = engine.apply(state, state["current"], {"type": "throw"}, LoadedDice(dice))
        busts += events[0]["busted"]
    assert Fraction(busts, 1296) == engine.risk(state)
