"""Every game the site offers, through the same services: whole games with people, the game's own bots
and the table's choice on timeout; every seat receives exactly its view; the public record verifies.

These tests know nothing of any one game's rules: they use only the engine contract (to_act, legal, view,
outcome, table_choice) and the bot bridge, so a new game is covered the day it is registered.
"""

from __future__ import annotations

import json
import random

import pytest
from django.conf import settings

from games import registry, replay
from rooms import bot_runner, services, snapshots
from rooms.models import Game, Move
from tests.rooms.helpers import (
    bring_deadline_forward,
    captured_broadcasts,
    game_updates,
    received_by,
    started_room,
    state_at,
)

pytestmark = pytest.mark.django_db(transaction=True)

GAMES = list(settings.WICKWISE_GAMES)
MOVE_LIMIT = 5000  # far above any real game: a game that has not ended by then never will


def play_as_people(code: str, game: Game, rng: random.Random) -> None:
    """Each pending seat answers with a random legal action, as a client would, through submit_move."""
    engine = registry.get(game.game).engine
    for _ in range(MOVE_LIMIT):
        game.refresh_from_db()
        if game.is_over:
            return
        seat = engine.to_act(game.state)[0]
        action = rng.choice(engine.legal(game.state, seat))
        services.submit_move(room_code=code, seat=seat, seq=game.seq, action=action)
    raise AssertionError(f"{game.game} did not end within {MOVE_LIMIT} moves")


@pytest.mark.parametrize("slug", GAMES)
def test_a_whole_game_of_people_sends_every_seat_its_own_view_and_verifies(slug):
    spec = registry.get(slug)
    seats = spec.min_seats
    code, _tickets, game = started_room(seats, seats, game=slug)
    with captured_broadcasts() as sent:
        play_as_people(code, game, random.Random(slug))
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.result == spec.engine.outcome(game.state)
    assert state_at(game, game.seq) == game.state  # the move log replays to the live state

    updates = game_updates(sent)
    assert updates, "no game update was sent"
    last = updates[-1]
    for seat in [*range(seats), None]:
        view, _events = received_by(last, seat)
        assert view == json.loads(json.dumps(spec.engine.view(game.state, seat)))

    record = snapshots.public_record(game)
    checks = replay.verify_record(json.loads(json.dumps(record)))
    assert replay.all_ok(checks), [c for c in checks if not c.ok]


@pytest.mark.parametrize("slug", GAMES)
def test_the_games_own_bots_play_a_whole_game_from_their_views(slug):
    spec = registry.get(slug)
    seats = min(spec.max_seats, 3)
    code, _tickets, game = started_room(1, seats, game=slug)  # one person, bots in the other seats
    rng = random.Random(f"{slug}-bots")
    for _ in range(MOVE_LIMIT):
        game.refresh_from_db()
        if game.is_over:
            break
        seat = spec.engine.to_act(game.state)[0]
        if seat == 0:
            action = rng.choice(spec.engine.legal(game.state, 0))
            services.submit_move(room_code=code, seat=0, seq=game.seq, action=action)
        else:
            assert services.play_bot_turn(game_id=game.pk, seat=seat, prompt=game.prompts[str(seat)],
                                          choose=bot_runner.choose)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert set(game.moves.exclude(seat=0).values_list("by", flat=True)) == {Move.By.BOT}
    assert replay.all_ok(replay.verify_record(json.loads(json.dumps(snapshots.public_record(game)))))


@pytest.mark.parametrize("slug", GAMES)
def test_a_countdown_plays_the_tables_choice_for_the_seat_that_let_it_run_out(slug):
    spec = registry.get(slug)
    code, _tickets, game = started_room(spec.min_seats, spec.min_seats, game=slug)
    rng = random.Random(f"{slug}-timeouts")
    timeouts = 0
    for _ in range(40):  # alternate: a few moves by people, then a countdown runs out
        game.refresh_from_db()
        if game.is_over:
            break
        if rng.random() < 0.5 or game.deadline_seq is None:  # a decision with no countdown is made by its seat
            seat = spec.engine.to_act(game.state)[0]
            decisions = [a for a in spec.engine.legal(game.state, seat) if not spec.out_of_turn(a)]
            services.submit_move(room_code=code, seat=seat, seq=game.seq, action=rng.choice(decisions))
            continue
        pending = spec.engine.to_act(game.state)
        expected = {seat: spec.engine.table_choice(game.state, seat) for seat in pending}
        for seat, action in expected.items():
            assert action in spec.engine.legal(game.state, seat), (seat, action)
        seq = game.deadline_seq
        bring_deadline_forward(game)
        assert services.fire_countdown(game_id=game.pk, seq=seq) >= 1
        timeouts += 1
        first = game.moves.get(seq=seq + 1)
        assert first.by == Move.By.TABLE and first.action == expected[first.seat]
    assert timeouts


@pytest.mark.parametrize("slug", GAMES)
def test_a_refused_move_is_worded_in_the_players_language(slug):
    from django.utils import translation

    from rooms.services import ServiceError

    spec = registry.get(slug)
    code, _tickets, game = started_room(spec.min_seats, spec.min_seats, game=slug)
    seat = spec.engine.to_act(game.state)[0]
    with translation.override("pt-br"), pytest.raises(ServiceError) as refused:
        services.submit_move(room_code=code, seat=seat, seq=game.seq, action={"type": "nonsense"})
    assert refused.value.code == "illegal:bad_action"
    assert refused.value.message == "Essa jogada não é permitida: a jogada não é uma ação válida"
