"""The seats a bot plays, read where a write already goes to the database: on PostgreSQL a remembered move that
poses a decision reads them in its own pipeline (the write's round trip), and a start takes them from the seats
it read under the room's lock, so neither reads them again after its commit. A start played by the worker is
remembered, so its first move is played on it rather than the locked way. The bots are scheduled as before."""

from __future__ import annotations

import json
import time

import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import registry
from rooms import move_queue, services
from rooms.models import Game, Move, Seat
from tests.rooms.helpers import (
    game_in_play,
    game_row_held,
    latest_game,
    remembered_writes_while,
    room_with,
    started_room,
    timers,
)
from tests.rooms.test_claim_ahead import payload_for
from tests.rooms.test_moves_together import ROW_FIELDS, remembered, round_of

pytestmark = pytest.mark.django_db(transaction=True)


def bot_turns(game: Game) -> set[tuple[int, int]]:
    """The (seat, prompt) of every bot turn scheduled for the game."""
    prefix = f"bot:{game.pk}:"
    return {tuple(int(part) for part in member[len(prefix):].split(":")) for member in timers()
            if member.startswith(prefix)}


def start_payload(code: str, mover: str = "s#0") -> dict:
    now = time.time()
    return {"kind": "start", "room": code, "seat": 0, "mover": mover, "reply_to": "specific.test!none",
            "language": "en", "ref": None, "sent_at": now, "deadline": now + 5.0}


@pytest.mark.parametrize("together", [True, False], ids=["together", "one by one"])
def test_a_remembered_round_that_poses_decisions_schedules_the_same_bots_reading_their_seats_in_its_write(
        reads_after_commit, together):
    code, _tickets, game = started_room(2, 4)  # seats 2 and 3 are bots
    Seat.objects.filter(room__code=code, index=1).update(stand_in=True)  # committed by another writer
    memory = remembered(code)
    del reads_after_commit[:]  # the start's own
    with CaptureQueriesContext(connection) as queries:
        if together:
            assert move_queue.play_together(round_of(code), games_in_play=memory) == {0, 1, 2, 3}
        else:
            for payload in round_of(code):
                move_queue.play(payload, games_in_play=memory)
    played = game_in_play(code)
    assert played.seq == 4 and code in memory  # every move written on the remembered game
    assert {(seat, prompt) for seat, prompt in bot_turns(played) if prompt == 4} == {(1, 4), (2, 4), (3, 4)}
    if connection.vendor == "postgresql":  # read in the write's pipeline, never after its commit
        assert reads_after_commit == []
        # and in the query log, so a read made where none should be is seen (the test below)
        assert len(seats_read(queries)) == 1
    else:  # a call in the process: read after the commit, as before
        assert reads_after_commit == [played.pk]


def seats_read(queries) -> list[str]:
    return [query["sql"] for query in queries.captured_queries if "rooms_seat" in query["sql"]]


@pytest.mark.parametrize("together", [True, False], ids=["together", "one by one"])
def test_moves_that_pose_no_decision_read_no_bots_seats(reads_after_commit, together):
    code, _tickets, _game = started_room(2, 4)
    memory = remembered(code)
    del reads_after_commit[:]  # the start's own
    with CaptureQueriesContext(connection) as queries:  # a read in the pipeline is logged too (the test above)
        if together:
            assert move_queue.play_together(round_of(code)[:3], games_in_play=memory) == {0, 1, 2}
        else:
            for payload in round_of(code)[:3]:
                move_queue.play(payload, games_in_play=memory)
    assert game_in_play(code).seq == 3 and code in memory  # written the remembered way
    assert seats_read(queries) == []
    assert reads_after_commit == []


@pytest.mark.parametrize("together", [True, False], ids=["together", "one by one"])
def test_a_game_in_memory_that_knows_the_seats_a_bot_plays_reads_them_no_more(reads_after_commit, together):
    """The worker's start remembers the seats it read under the room's lock with its game; on PostgreSQL a read in
    a write's pipeline is remembered too. A round's last pick then writes alone, reading no seats anywhere."""
    code, _tickets = room_with(2, 4)  # seats 2 and 3 are bots
    memory: dict = {}
    move_queue.play(start_payload(code), games_in_play=memory)
    assert memory[code].seats_bots_play == {2, 3}
    del reads_after_commit[:]
    for batch in "ab":
        payloads = round_of(code, batch)
        with CaptureQueriesContext(connection) as queries:
            if together:
                tries = remembered_writes_while(
                    lambda batch=payloads: move_queue.play_together(batch, games_in_play=memory))
            else:
                tries = remembered_writes_while(
                    lambda batch=payloads: [move_queue.play(payload, games_in_play=memory) for payload in batch])
        assert tries and all(written and not reads for reads, written in tries), tries
        assert seats_read(queries) == [] and reads_after_commit == []
        played = game_in_play(code)
        assert {(seat, prompt) for seat, prompt in bot_turns(played) if prompt == played.seq} == {
            (2, played.seq), (3, played.seq)}
    assert played.seq == 8 and memory[code].seats_bots_play == {2, 3}


def test_a_stand_in_raises_the_games_version_so_a_memory_from_before_it_is_not_written_to(reads_after_commit):
    """A memory that knew the seats a bot plays before a stand-in would leave its seat's decisions unscheduled:
    the stand-in raises the version, so the next move goes the locked way and its round's bots are read anew."""
    code, _tickets = room_with(4)
    memory: dict = {}
    move_queue.play(start_payload(code), games_in_play=memory)
    assert memory[code].seats_bots_play == frozenset()
    version = game_in_play(code).version
    assert services.fire_grace(room_code=code, seat=3)  # nobody is connected in these tests
    assert game_in_play(code).version == version + 1
    tries = remembered_writes_while(
        lambda: [move_queue.play(payload, games_in_play=memory) for payload in round_of(code)])
    assert tries[0] == (False, False)  # the remembered try wrote nothing; the move went the locked way
    played = game_in_play(code)
    assert played.seq == 4 and Move.objects.filter(game=played).count() == 4
    assert (3, 4) in bot_turns(played)  # the stand-in's seat, read anew
    # read in the last pick's pipeline on PostgreSQL, after its commit on SQLite: remembered either way
    assert memory[code].seats_bots_play == frozenset({3})


@pytest.mark.skipif("connection.vendor != 'postgresql'", reason="prepared statements are PostgreSQL's")
def test_a_seats_read_whose_column_type_changed_sends_the_move_the_locked_way():
    """A migration elsewhere changing a column the seats read returns makes its prepared plan fail (0A000); in
    the pipeline it cannot run again on a new connection, so nothing is written and the move goes the locked
    way, its bots scheduled as ever."""
    import psycopg

    code, _tickets, game = started_room(2, 4)
    memory = remembered(code)
    for payload in round_of(code, "a"):  # the last poses decisions: the seats read is prepared in its pipeline
        move_queue.play(payload, games_in_play=memory)
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("prepare_threshold", None)
    other = psycopg.connect(**params, autocommit=True)  # as another process's migration
    memory[code].seats_bots_play = None  # forgotten, so the next round's last pick reads them in its pipeline
    try:
        other.execute('ALTER TABLE "rooms_seat" ALTER COLUMN "index" TYPE integer')
        tries = remembered_writes_while(
            lambda: [move_queue.play(payload, games_in_play=memory) for payload in round_of(code, "b")])
        assert tries == [(False, True), (False, True), (False, True), (True, False)]  # the last, the locked way
        played = game_in_play(code)
        assert played.seq == 8 and Move.objects.filter(game=game).count() == 8
        assert {(seat, prompt) for seat, prompt in bot_turns(played) if prompt == 8} == {(2, 8), (3, 8)}  # seats 2, 3
    finally:
        other.execute('ALTER TABLE "rooms_seat" ALTER COLUMN "index" TYPE smallint')
        other.close()
        connection.close()  # its statements were prepared for the other type


def test_a_start_schedules_its_bots_from_the_seats_it_read_under_the_rooms_lock(reads_after_commit):
    code, _tickets = room_with(2, 4)
    Seat.objects.filter(room__code=code, index=1).update(stand_in=True)
    services.start_game(room_code=code, seat=0)
    game = game_in_play(code)
    assert bot_turns(game) == {(1, 0), (2, 0), (3, 0)}
    assert reads_after_commit == []


def test_the_workers_start_is_remembered_as_written_and_its_first_move_played_on_it():
    code, _tickets = room_with(4)
    memory: dict = {}
    move_queue.play(start_payload(code), games_in_play=memory)
    written = game_in_play(code)
    assert written.status == Game.Status.PLAYING
    started = memory[code]
    assert started.pk == written.pk and started.version == written.version
    for field in [*ROW_FIELDS, "players", "client_seeds", "started_at"]:
        assert getattr(started, field) == getattr(written, field), field  # as read back: no tuple for a list
    first = payload_for(code, 0, "m#0")
    with CaptureQueriesContext(connection) as queries:
        move_queue.play(first, games_in_play=memory)
    assert game_in_play(code).seq == 1
    # Played on the game remembered: neither the room nor the game was read, under a lock or not.
    assert not [query["sql"] for query in queries.captured_queries
                if "FROM" in query["sql"] and ('"rooms_room"' in query["sql"] or 'FROM "rooms_game"' in query["sql"])]
    assert memory[code].seq == 1


def test_a_start_refused_remembers_nothing():
    code, _tickets, _game = started_room(4)
    memory: dict = {code: "stale"}
    move_queue.play(start_payload(code), games_in_play=memory)  # started already: refused to its socket
    assert code not in memory
    assert latest_game(code).status == Game.Status.PLAYING


@pytest.mark.skipif("connection.vendor != 'postgresql'", reason="row locks are PostgreSQL's")
def test_a_stand_in_waits_for_a_move_writing_the_game_so_it_sees_the_decisions_it_posed():
    """A remembered move locks the game's row, not the room's; the stand-in locks the game's row too, so it
    reads the game as that move left it (or the move, waiting, reads the stand-in after its write)."""
    code, _tickets, game = started_room(4)
    with game_row_held(game.pk, for_seconds=0.5):
        started = time.monotonic()
        assert services.fire_grace(room_code=code, seat=3)
        waited = time.monotonic() - started
    assert waited >= 0.4, waited
    assert (3, 0) in bot_turns(game)


@pytest.mark.parametrize("name", list(settings.WICKWISE_GAMES))
def test_every_games_start_is_remembered_as_it_reads_back(name):
    """A game in memory is played on as read from the database: the state a start sets up must read back the
    same (a tuple would read back a list), for every game."""
    spec = registry.get(name)
    code, _tickets = room_with(1, spec.default_seats, game=name)
    memory: dict = {}
    if latest_game(code).status == Game.Status.LOBBY:
        move_queue.play(start_payload(code), games_in_play=memory)
    else:  # a game that starts when full
        pytest.skip("started when full: not by the worker's start")
    written = game_in_play(code)
    for field in [*ROW_FIELDS, "players", "client_seeds", "started_at"]:
        assert getattr(memory[code], field) == getattr(written, field), field
    assert json.dumps(memory[code].state, sort_keys=True) == json.dumps(written.state, sort_keys=True)
