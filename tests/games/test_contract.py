"""The engine contract, checked the same way for every registered game (hypothesis).

Random legal play ends; the move log replays from the seed to the live state byte for byte, in the
engine and through the public verifier; `apply` never changes its input and gives the same result
twice; a refused action raises IllegalAction and changes nothing; the table's choice is always legal
and decided from what the seat sees; states and views are plain JSON, and a view is the same whatever
the things its seat may not see are (SECRETS says, per game, what those are); the events of a move
share nothing with the state it makes.

Random play takes a uniform choice among `legal`, and sometimes the game's first bot level, which also
finds the actions `legal` cannot list (a tiles play); actions the engine accepts out of turn
(`OUT_OF_TURN`, e.g. resign) are sent now and then by any seat still in play. Game-specific
properties stay in tests/games/<slug>/.
"""

from __future__ import annotations

import copy
import importlib
import json
import random
from dataclasses import dataclass
from types import ModuleType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import fairness, registry, replay
from games.errors import IllegalAction

GAMES = registry.all_games()
SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MAX_MOVES = 20_000  # far beyond any real game: a game that never ends fails instead of hanging
BOT_SHARE = 0.4  # how often random play asks the bot instead of picking among `legal`
OUT_OF_TURN_SHARE = 0.01  # how often a seat in play sends an out-of-turn action (resign ends games fast)

client_seed = st.none() | st.from_regex(fairness.CLIENT_SEED_PATTERN, fullmatch=True)


# --- what each game keeps secret ------------------------------------------------------------------

@dataclass(frozen=True)
class Secret:
    """A place in the state whose content `seat` may not see, though its size is public: a list (its
    items) or a single value. `sorted` for lists the engine keeps sorted (hands)."""

    path: tuple
    sorted: bool = False
    single: bool = False


def _others(state: dict, seat: int | None) -> list[int]:
    return [s for s in range(state["seats"]) if s != seat]


def candles_secrets(state: dict, seat: int | None) -> list[Secret]:
    picks = [Secret(("picks", s), single=True) for s in _others(state, seat) if state["picks"][s] is not None]
    return [Secret(("deck",)), *(Secret(("hands", s), sorted=True) for s in _others(state, seat)), *picks]


def tiles_secrets(state: dict, seat: int | None) -> list[Secret]:
    return [Secret(("bag",)), *(Secret(("hands", s), sorted=True) for s in _others(state, seat))]


# Every secret the engine's state holds, per game: a new game must say what its views hide.
SECRETS = {
    "candles": candles_secrets,
    "trails": lambda state, seat: [],  # every die is thrown in the open
    "pots": lambda state, seat: [Secret(("deck",))],  # only the deck's order: its cards are counted openly
    "tiles": tiles_secrets,
}


def _get(state: dict, path: tuple):
    for key in path:
        state = state[key]
    return state


def _put(state: dict, path: tuple, value) -> None:
    _get(state, path[:-1])[path[-1]] = value


def redeal_secrets(state: dict, seat: int | None, shuffler: random.Random) -> dict:
    """The same position as `seat` sees it, with everything hidden from it dealt again at random. Once the
    game is over its seed is published, so nothing is secret any more (tiles' ranking tells the points
    left in every hand)."""
    over = registry.get(state["game"]).engine.outcome(state) is not None
    places = [] if over else SECRETS[state["game"]](state, seat)
    pool = []
    for place in places:
        value = _get(state, place.path)
        pool += [value] if place.single else list(value)
    shuffler.shuffle(pool)
    other = copy.deepcopy(state)
    for place in places:
        if place.single:
            _put(other, place.path, pool.pop())
        else:
            size = len(_get(state, place.path))
            items, pool = pool[:size], pool[size:]
            _put(other, place.path, sorted(items) if place.sorted else items)
    return other


# --- random play ----------------------------------------------------------------------------------

@dataclass
class Game:
    spec: registry.GameSpec
    seats: int
    options: dict
    seed: str
    mix: str
    room_code: str
    number: int
    client_seeds: list
    chooser: random.Random

    @property
    def engine(self) -> ModuleType:
        return self.spec.engine

    def rng(self) -> fairness.Rng:
        return fairness.Rng(self.seed, self.mix)  # a fresh one for every move, as the rooms do


@st.composite
def games(draw, spec: registry.GameSpec) -> Game:
    """A game's setup and the chooser that plays it. The chooser is a plain random.Random seeded by
    hypothesis: hypothesis' own randoms lean to 0.0, which would resign nearly every tiles game at once."""
    seats = draw(st.integers(spec.min_seats, spec.max_seats))
    options = {name: draw(st.sampled_from(option.choices)) for name, option in spec.options.items()}
    seeds = draw(st.lists(client_seed, min_size=seats, max_size=seats))
    number = draw(st.integers(1, 99))
    mix = fairness.mix_string(game=spec.slug, room_code="PROP01", number=number, client_seeds=seeds)
    return Game(spec, seats, options, draw(st.binary(min_size=32, max_size=32)).hex(), mix, "PROP01", number,
                seeds, random.Random(draw(st.integers(0, 2**32))))


def bot_for(slug: str) -> ModuleType:
    return importlib.import_module(f"bots.{slug}")


def out_of_turn(engine: ModuleType) -> frozenset:
    return getattr(engine, "OUT_OF_TURN", frozenset())


def in_play(engine: ModuleType, state: dict) -> list[int]:
    if hasattr(engine, "in_play"):
        return engine.in_play(state)
    return [] if is_over(engine, state) else list(range(state["seats"]))


def is_over(engine: ModuleType, state: dict) -> bool:
    return engine.outcome(state) is not None


def random_move(game: Game, state: dict) -> tuple[int, dict]:
    engine, chooser = game.engine, game.chooser
    anytime = out_of_turn(engine)
    if anytime and chooser.random() < OUT_OF_TURN_SHARE:
        return chooser.choice(in_play(engine, state)), {"type": chooser.choice(sorted(anytime))}
    seat = chooser.choice(engine.to_act(state))
    options = [action for action in engine.legal(state, seat) if action.get("type") not in anytime]
    if not options or chooser.random() < BOT_SHARE:
        bot = bot_for(game.spec.slug)
        return seat, bot.choose(engine.view(state, seat), bot.LEVELS[0])
    return seat, chooser.choice(options)


def play_randomly(game: Game, stop_after: int | None = None):
    """Yields (state, seat, action, new state, events) until the game is over (or after `stop_after`)."""
    engine = game.engine
    state = engine.setup(game.seats, dict(game.options), game.rng())
    for moves in range(MAX_MOVES):
        if is_over(engine, state) or (stop_after is not None and moves >= stop_after):
            return
        assert engine.to_act(state), "a game that is not over has someone to act"
        seat, action = random_move(game, state)
        new, events = engine.apply(state, seat, action, game.rng())
        yield state, seat, action, new, events
        state = new
    raise AssertionError("the game did not end")


def states_of(game: Game, stop_after: int | None = None) -> list[dict]:
    """The setup and every state after it."""
    first = game.engine.setup(game.seats, dict(game.options), game.rng())
    return [first, *(new for _before, _seat, _action, new, _events in play_randomly(game, stop_after))]


def only_plain_json(value) -> bool:
    """Lists, dicts with string keys, ints, strings, bools and None: what the database keeps as it is."""
    if isinstance(value, dict):
        return all(isinstance(k, str) and only_plain_json(v) for k, v in value.items())
    if isinstance(value, list):
        return all(only_plain_json(v) for v in value)
    return value is None or isinstance(value, (bool, int, str))


def keys_in(value) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for item in value.values() for k in keys_in(item)}
    if isinstance(value, list):
        return {k for item in value for k in keys_in(item)}
    return set()


parametrized = pytest.mark.parametrize("spec", GAMES, ids=[spec.slug for spec in GAMES])


def test_every_registered_game_says_what_it_keeps_secret():
    assert {spec.slug for spec in GAMES} <= set(SECRETS), "add the new game to SECRETS"


@parametrized
@SETTINGS
@given(data=st.data())
def test_random_legal_play_ends_with_a_ranking_of_every_seat(spec, data):
    game = data.draw(games(spec))
    state = None
    for before, seat, action, state, events in play_randomly(game):
        assert seat in game.engine.to_act(before) or action["type"] in out_of_turn(game.engine)
        assert only_plain_json(state) and only_plain_json(events)
    ranking = game.engine.outcome(state)
    assert sorted(row["seat"] for row in ranking) == list(range(game.seats))
    assert [row["place"] for row in ranking] == sorted(row["place"] for row in ranking)
    assert game.engine.to_act(state) == []


@parametrized
@SETTINGS
@given(data=st.data())
def test_replaying_the_move_log_gives_the_live_state_byte_for_byte(spec, data):
    game = data.draw(games(spec))
    engine = game.engine
    moves = list(play_randomly(game))
    live, log = moves[-1][3], [(seat, action) for _before, seat, action, _new, _events in moves]
    again = engine.setup(game.seats, dict(game.options), game.rng())  # one fresh rng for the whole replay
    rng = game.rng()
    for seat, action in log:
        again, _events = engine.apply(again, seat, action, rng)
    assert replay.state_bytes(again) == replay.state_bytes(live)
    # The record as the site serves it, checked by the public verifier from the seed.
    record = json.loads(json.dumps({
        "format": replay.RECORD_FORMAT, "game": spec.slug, "room_code": game.room_code, "number": game.number,
        "status": "finished", "options": game.options,
        "players": [{"name": f"P{i}", "bot": False} for i in range(game.seats)],
        "fingerprint": fairness.fingerprint(game.seed), "seed": game.seed, "client_seeds": game.client_seeds,
        "moves": [{"seq": i, "seat": seat, "action": action, "by": "player"}
                  for i, (seat, action) in enumerate(log, start=1)],
        "result": engine.outcome(live), "end_reason": "", "started_at": None, "ended_at": None,
    }))
    checks = replay.verify_record(record)
    assert replay.all_ok(checks), [check for check in checks if not check.ok]
    assert replay.state_bytes(replay.replay(record)) == replay.state_bytes(live)
    assert json.loads(json.dumps(live)) == live


@parametrized
@SETTINGS
@given(data=st.data())
def test_apply_never_changes_its_input_and_gives_the_same_result_twice(spec, data):
    game = data.draw(games(spec))
    for before, seat, action, new, events in play_randomly(game):
        kept = copy.deepcopy(before)
        again, again_events = game.engine.apply(before, seat, action, game.rng())
        assert before == kept
        assert replay.state_bytes(again) == replay.state_bytes(new) and again_events == events
        # The events share nothing with the new state: the rooms send them on while the state is kept.
        snapshot = copy.deepcopy(new)
        for event in events:
            for value in event.values():
                if isinstance(value, list):
                    value.append(99)
        assert new == snapshot


JUNK = [None, -1, 10**9, 1.5, True, "x", "", [], {}, [None], [[-1, 0, 0]], {"type": "x"}]
JUNK_SEATS = [-1, None, True, "0", 1.0, 99]


def junk_actions(action: object, chooser: random.Random) -> list[object]:
    """Malformed neighbours of a real action: a key dropped, a value or a list item swapped for junk."""
    found: list[object] = [None, "draw", 7, [], {}, {"type": None}, {"type": "no_such_action"}]
    if not isinstance(action, dict):
        return found
    for key, value in action.items():
        found.append({k: v for k, v in action.items() if k != key})
        found.append({**action, key: chooser.choice(JUNK)})
        if isinstance(value, list) and value:
            items = copy.deepcopy(value)
            items[chooser.randrange(len(items))] = chooser.choice(JUNK)
            found.append({**action, key: items})
            found.append({**action, key: value + value[:1]})  # an item repeated
    found.append({**action, "extra": 1})
    return found


@parametrized
@SETTINGS
@given(data=st.data())
def test_a_refused_action_raises_illegal_action_and_changes_nothing(spec, data):
    game = data.draw(games(spec))
    engine, chooser = game.engine, game.chooser
    for state in states_of(game, stop_after=data.draw(st.integers(0, 200)))[::7]:
        actors = engine.to_act(state)
        real = [action for seat in actors for action in engine.legal(state, seat)[:3]]
        tries = [(seat, junk) for seat in [*range(game.seats), *JUNK_SEATS]
                 for junk in junk_actions(chooser.choice(real) if real else None, chooser)]
        tries += [(seat, action) for seat in range(game.seats) if seat not in actors for action in real]
        for seat, action in tries:
            kept = copy.deepcopy(state)
            try:
                engine.apply(state, seat, action, game.rng())
            except IllegalAction as error:
                assert isinstance(error.code, str) and error.code
            else:
                assert type(seat) is int and 0 <= seat < game.seats, (seat, action)
                assert seat in actors or isinstance(action, dict) and action.get("type") in out_of_turn(engine)
            assert state == kept, (seat, action)


@parametrized
@SETTINGS
@given(data=st.data())
def test_the_tables_choice_is_legal_and_decided_from_what_the_seat_sees(spec, data):
    game = data.draw(games(spec))
    engine = game.engine
    shuffler = random.Random(1)
    for state in states_of(game, stop_after=data.draw(st.integers(0, 300))):
        for seat in engine.to_act(state):
            choice = engine.table_choice(state, seat)
            assert choice in engine.legal(state, seat)
            engine.apply(state, seat, choice, game.rng())  # raises if it were refused
            assert engine.table_choice(redeal_secrets(state, seat, shuffler), seat) == choice


@parametrized
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_views_are_json_and_show_nothing_the_seat_may_not_see(spec, data):
    game = data.draw(games(spec))
    engine = game.engine
    shuffler = random.Random(0)
    for state in states_of(game, stop_after=400)[::3]:
        for seat in [*range(game.seats), None]:
            seen = engine.view(state, seat)
            assert only_plain_json_or_float(seen) and json.loads(json.dumps(seen)) == seen
            assert "seed" not in keys_in(seen)
            # Deal again everything the seat may not see: if the view showed any of it, it would change.
            assert engine.view(redeal_secrets(state, seat, shuffler), seat) == seen


def only_plain_json_or_float(value) -> bool:
    """A view may carry floats (a chance shown as such), but nothing JSON cannot say."""
    if isinstance(value, dict):
        return all(isinstance(k, str) and only_plain_json_or_float(v) for k, v in value.items())
    if isinstance(value, list):
        return all(only_plain_json_or_float(v) for v in value)
    return value is None or isinstance(value, (bool, int, str, float))


@parametrized
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_view_split_in_a_public_part_and_a_seats_own_is_the_view(spec, data):
    """An engine may give its view as `public_view(state)` (a spectator's view, the same for every seat) and
    `own_view(state, seat)` (keys of the seat's own, after those): rooms/broadcast.py then encodes the public
    part once for every seat and joins the two texts. That is the seat's view only if the two parts have no
    key in common and together are the view, in its order, to the byte."""
    engine = spec.engine
    if not hasattr(engine, "public_view"):
        return
    game = data.draw(games(spec))
    for state in states_of(game, stop_after=400)[::3]:
        public = engine.public_view(state)
        assert json.dumps(public) == json.dumps(engine.view(state, None))
        for seat in range(game.seats):
            own = engine.own_view(state, seat)
            assert not own.keys() & public.keys()
            assert json.dumps(engine.view(state, seat)) == json.dumps({**public, **own})
