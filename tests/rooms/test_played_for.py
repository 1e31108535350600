"""When a bot (or the table, on timeout) decides for a player, that player's table is told so: in the
update, to that seat alone, and in the snapshot of a player who comes back."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async

from rooms import live, services
from rooms.models import Seat
from tests.rooms.helpers import (
    candle_for,
    captured_broadcasts,
    close_all,
    cookie_for,
    fresh_channel_layer,  # noqa: F401 (a fixture)
    game_in_play,
    game_updates,
    lowest_candle,
    open_socket,
    received_by,
    started_room,
)
from tests.support import flush_suite_redis

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_channel_layer", "moves_played")]


@pytest.fixture(autouse=True)
def clean_redis():
    flush_suite_redis()
    yield
    flush_suite_redis()


def stand_in_plays_for_ana():
    """A candles room of Ana and Ben (and a bot); Ana is away and a stand-in picks for her."""
    code, tickets, game = started_room(2, 3)
    Seat.objects.filter(room__code=code, index=0).update(stand_in=True)
    game = game_in_play(code)
    with captured_broadcasts() as sent:
        assert services.play_bot_turn(game_id=game.pk, seat=0, prompt=game.prompts["0"], choose=lowest_candle)
    return code, tickets, game_in_play(code), sent


def test_the_stand_ins_decision_is_told_to_its_seat_alone():
    code, _, game, sent = stand_in_plays_for_ana()
    update = [message for message in game_updates(sent)][-1]
    _, ana_events = received_by(update, 0)
    _, ben_events = received_by(update, 1)
    assert {"type": "played_for", "seat": 0, "by": "stand_in", "only": 0} in ana_events
    assert not [event for event in ben_events if event["type"] == "played_for"]
    assert live.played_for(game.pk, 0) == "stand_in"
    assert live.played_for(game.pk, 1) is None


async def test_a_player_back_after_a_stand_in_decided_hears_it_in_the_snapshot():
    code, tickets, game, _ = await database_sync_to_async(stand_in_plays_for_ana)()
    await database_sync_to_async(Seat.objects.filter(room__code=code, index=0).update)(stand_in=False)
    socket, snapshot = await open_socket(code, cookie=await cookie_for(tickets[0]))
    assert snapshot["played_for"] == "stand_in"
    assert snapshot["view"]["my_pick"] is not None
    watcher, spectator = await open_socket(code)
    assert spectator["played_for"] is None
    await close_all(socket, watcher)


def test_the_players_own_decision_clears_it():
    code, _, game, _ = stand_in_plays_for_ana()
    services.submit_move(room_code=code, seat=1, seq=game.seq, action=candle_for(game, 1))
    game = game_in_play(code)
    assert services.play_bot_turn(game_id=game.pk, seat=2, prompt=game.prompts["2"], choose=lowest_candle)
    game = game_in_play(code)
    assert live.played_for(game.pk, 0) == "stand_in"
    # A new round: Ana picks herself.
    services.submit_move(room_code=code, seat=0, seq=game.seq, action=candle_for(game, 0))
    assert live.played_for(game.pk, 0) is None
