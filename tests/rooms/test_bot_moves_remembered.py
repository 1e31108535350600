"""A bot's move played on the game the worker's move threads remember, as a player's move is: written where the
game's version is still the one remembered, with no lock of the room, and the game it writes remembered for the
room's next move. Before, every bot move went the locked way and raised the version, so the next player's move
found its memory stale, built its update for nothing and went the locked way too."""

from __future__ import annotations

import contextlib
from unittest import mock

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import registry
from rooms import move_queue, services
from rooms.management.commands import worker
from rooms.models import Game, Move, Seat
from tests.rooms.helpers import (
    bring_deadline_forward,
    candle_for,
    game_in_play,
    lowest_candle,
    remembered_writes_while,
    started_room,
    what_moves_change,
)
from tests.rooms.test_claim_ahead import payload_for
from tests.rooms.test_moves_together import remembered

pytestmark = pytest.mark.django_db(transaction=True)


@contextlib.contextmanager
def locked_moves():
    """The moves played the locked way meanwhile (services._apply_locked), by seat."""
    seats: list[int] = []
    apply_locked = services._apply_locked

    def counted(room, game, *, seat, **kwargs):
        seats.append(seat)
        return apply_locked(room, game, seat=seat, **kwargs)

    with mock.patch.object(services, "_apply_locked", counted):
        yield seats


def bot_turn(code: str, seat: int, memory: dict | None, choose=lowest_candle) -> bool:
    game = game_in_play(code)
    return services.play_bot_turn(game_id=game.pk, seat=seat, prompt=game.prompts[str(seat)], choose=choose,
                                  games_in_play=memory)


def test_a_bots_move_is_written_on_the_remembered_game_and_the_players_next_move_too():
    code, _tickets, _game = started_room(1, 2)  # seat 0 a person, seat 1 a bot
    memory = remembered(code)
    before = memory[code].version
    with CaptureQueriesContext(connection) as queries, locked_moves() as locked:
        tries = remembered_writes_while(lambda: bot_turn(code, 1, memory))
    assert [written for _unknown, written in tries] == [True] and locked == []
    assert not [query for query in queries.captured_queries if "FOR UPDATE" in query["sql"]]  # nothing locked
    played = game_in_play(code)
    assert list(played.moves.values_list("seat", "by")) == [(1, Move.By.BOT)]
    assert memory[code].version == played.version == before + 1 and memory[code].seq == played.seq

    # The player's move after it is written on the memory the bot's move left, not the locked way.
    with locked_moves() as locked:
        tries = remembered_writes_while(lambda: move_queue.play(payload_for(code, 0, "s#0"), games_in_play=memory))
    assert [written for _unknown, written in tries] == [True] and locked == []
    assert game_in_play(code).seq == 2 and memory[code].version == game_in_play(code).version


def test_a_bot_turn_on_a_stale_memory_goes_the_locked_way_and_remembers_what_it_wrote():
    code, _tickets, game = started_room(1, 2)
    memory = remembered(code)
    services.submit_move(room_code=code, seat=0, seq=game.seq, action=candle_for(game, 0))  # another writer
    with locked_moves() as locked:
        tries = remembered_writes_while(lambda: bot_turn(code, 1, memory))
    assert [written for _unknown, written in tries] == [False]  # the version had moved: nothing written there
    assert locked == [1]  # then the locked way
    played = game_in_play(code)
    assert list(played.moves.order_by("seq").values_list("seat", "by")) == [(0, Move.By.PLAYER), (1, Move.By.BOT)]
    assert memory[code].version == played.version and memory[code].seq == played.seq


def test_a_memory_of_another_decision_is_left_for_its_owner():
    code, _tickets, game = started_room(1, 2)
    memory = remembered(code)
    kept, before = memory[code], what_moves_change(code)
    assert not services.play_bot_turn(game_id=game.pk, seat=1, prompt=game.prompts["1"] + 1, choose=lowest_candle,
                                      games_in_play=memory)  # a turn whose decision moved on
    assert memory[code] is kept and what_moves_change(code) == before


def test_a_player_back_while_the_bot_thought_keeps_the_bots_move_out_and_the_memory_in():
    code, _tickets, game = started_room(2, 2)
    Seat.objects.filter(room__code=code, index=1).update(stand_in=True)  # the player was away: a bot stood in
    memory = remembered(code)
    kept = memory[code]

    def back_while_thinking(game_name, view, level):
        Seat.objects.filter(room__code=code, index=1).update(stand_in=False)  # the player came back meanwhile
        return lowest_candle(game_name, view, level)

    assert not bot_turn(code, 1, memory, choose=back_while_thinking)
    assert Move.objects.filter(game=game).count() == 0
    assert memory[code] is kept  # still good for the room's next move


def test_a_stand_ins_move_on_the_remembered_game_says_who_decided():
    code, _tickets, game = started_room(2, 2)
    Seat.objects.filter(room__code=code, index=1).update(stand_in=True)
    memory = remembered(code)
    assert bot_turn(code, 1, memory)
    assert list(Move.objects.filter(game=game).values_list("seat", "by")) == [(1, Move.By.STAND_IN)]


def test_a_whole_game_against_two_bots_is_written_on_the_memory_but_for_its_last_move():
    code, _tickets, game = started_room(1, 3)  # seats 1 and 2 are bots
    engine = registry.get("candles").engine
    memory = remembered(code)
    tries: list[tuple[bool, bool]] = []
    for _ in range(100):
        game = game_in_play(code)
        if game.status != Game.Status.PLAYING:
            break
        for seat in engine.to_act(game.state):
            game = game_in_play(code)
            if game.status != Game.Status.PLAYING:
                break
            if seat == 0:
                mover = f"s#{game.seq}"
                tries += remembered_writes_while(lambda mover=mover: move_queue.play(
                    payload_for(code, 0, mover), games_in_play=memory))
            else:
                tries += remembered_writes_while(lambda seat=seat: bot_turn(code, seat, memory))
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.moves.count() == game.seq
    # Every move but the last (which opens the room's next game, under its lock) was written on the memory.
    assert all(written for _unknown, written in tries) and len(tries) == game.seq - 1
    assert sorted({by for (by,) in game.moves.values_list("by")}) == [Move.By.BOT, Move.By.PLAYER]


def test_the_worker_hands_its_memory_to_a_bots_turn():
    code, _tickets, game = started_room(1, 2)
    memory = remembered(code)
    worker.dispatch(f"bot:{game.pk}:1:{game.prompts['1']}", memory)
    played = game_in_play(code)
    assert played.moves.get().seat == 1 and memory[code].version == played.version


def test_the_seats_a_locked_move_reads_after_its_commit_are_remembered_with_its_game(reads_after_commit):
    code, _tickets, game = started_room(2, 4)  # seats 2 and 3 are bots
    assert services.play_bot_turn(game_id=game.pk, seat=2, prompt=0, choose=lowest_candle)  # the locked way
    assert services.play_bot_turn(game_id=game.pk, seat=3, prompt=0, choose=lowest_candle)
    services.submit_move(room_code=code, seat=0, seq=2, action=candle_for(game_in_play(code), 0))
    memory: dict = {}
    del reads_after_commit[:]
    # The round's last pick, the locked way (nothing remembered): it poses the next round's decisions and reads
    # the seats a bot plays after its commit, on either database.
    services.submit_move(room_code=code, seat=1, seq=3, action=candle_for(game_in_play(code), 1), games_in_play=memory)
    assert reads_after_commit == [game.pk]
    assert memory[code].seats_bots_play == {2, 3}

    # The next round, the bots' moves and the players' on that memory: its last pick reads them nowhere.
    del reads_after_commit[:]
    tries = []
    for seat in (2, 3):
        tries += remembered_writes_while(lambda seat=seat: bot_turn(code, seat, memory))
    for seat in (0, 1):
        tries += remembered_writes_while(
            lambda seat=seat: move_queue.play(payload_for(code, seat, f"s#{seat}"), games_in_play=memory))
    assert tries == [(False, True)] * 4 and reads_after_commit == []
    assert game_in_play(code).seq == 8



def test_a_countdowns_table_choices_are_remembered_for_the_rooms_next_move():
    """The table decides for the seats out of time the locked way, and keeps the worker's memory up: the room's
    next move is written on it, not found stale and played the locked way again."""
    code, _tickets, game = started_room(3)
    memory = remembered(code)
    services.submit_move(room_code=code, seat=0, seq=0, action=candle_for(game, 0), games_in_play=memory)
    bring_deadline_forward(game)
    with locked_moves() as locked:
        worker.dispatch(f"turn:{game.pk}:{game.deadline_seq}", memory)
    assert locked == [1, 2]  # the table's choices, for the two seats out of time
    played = game_in_play(code)
    assert (memory[code].version, memory[code].seq) == (played.version, played.seq) == (played.version, 3)

    with locked_moves() as locked:
        tries = remembered_writes_while(lambda: move_queue.play(payload_for(code, 0, "s#1"), games_in_play=memory))
    assert [written for _unknown, written in tries] == [True] and locked == []
    assert game_in_play(code).seq == 4 and memory[code].version == game_in_play(code).version


def test_a_whole_game_of_countdowns_remembers_every_round_but_the_last():
    """Every round the table decides for the players out of time; what it commits is remembered, but for the
    move that ends the game: a finished game is never played on from memory (the next is started the locked way)."""
    code, _tickets, game = started_room(2)
    for _round in range(100):
        game = game_in_play(code)
        services.submit_move(room_code=code, seat=0, seq=game.seq, action=candle_for(game, 0))
        bring_deadline_forward(game)
        memory: dict = {}
        assert services.fire_countdown(game_id=game.pk, seq=game.deadline_seq, games_in_play=memory) == 1
        played = Game.objects.get(pk=game.pk)
        if played.is_over:
            assert memory == {}
            return
        assert memory[code].version == played.version and memory[code].room.code == code
    raise AssertionError("the game did not end")
