"""A worker's thread remembers the games it played last (services.submit_move's `games_in_play`): a move on
a remembered game is written with no read, only where the game's row still has the version remembered.
Whatever else wrote the game meanwhile, the move must be judged and written against the database, never
against the memory."""

from __future__ import annotations

import json
import threading
import time
from unittest import mock

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from rooms import broadcast, move_queue, services
from rooms.models import Game, Move
from tests.rooms.helpers import (
    candle_for,
    game_in_play,
    game_row_held,
    latest_game,
    room_with,
    started_room,
    what_moves_change,
)

pytestmark = pytest.mark.django_db(transaction=True)


def _move(code: str, seat: int, memory: dict | None, *, game: Game | None = None) -> Game:
    game = game or game_in_play(code)
    return services.submit_move(room_code=code, seat=seat, seq=game.seq, action=candle_for(game, seat),
                                games_in_play=memory)


def test_every_write_of_a_game_raises_its_version():
    code, _tickets, game = started_room(3)
    before = game.version
    _move(code, 0, None)
    after_move = game_in_play(code).version
    services.pause_game(game_id=game.pk)
    after_pause = game_in_play(code).version
    services.resume_game(game_id=game.pk)
    assert before < after_move < after_pause < game_in_play(code).version


def test_a_remembered_game_is_played_without_reading_it():
    code, _tickets, _game = started_room(3)
    memory: dict = {}
    _move(code, 0, memory)
    assert code in memory
    before = game_in_play(code)
    writer = services._statement_alone_db() if connection.vendor == "postgresql" else connection
    with CaptureQueriesContext(connection) as queries, CaptureQueriesContext(writer) as written:
        _move(code, 1, memory, game=before)
    statements = [q["sql"] for q in queries.captured_queries]
    if connection.vendor == "postgresql":  # one round trip, its own commit, on the connection for it
        assert statements == []
        statements = [q["sql"] for q in written.captured_queries]
        assert len(statements) == 1 and "WITH" in statements[0], statements
    else:  # the fenced update and the move's insert in one transaction: nothing read
        assert [sql.split()[0] for sql in statements] == ["BEGIN", "UPDATE", "INSERT", "COMMIT"], statements
        assert '"version" = ' in statements[1].split("WHERE")[-1], statements
    game = game_in_play(code)
    assert game.seq == 2
    assert list(Move.objects.filter(game=game).order_by("seq").values_list("seq", "seat")) == [(1, 0), (2, 1)]
    assert memory[code].version == game.version


def test_a_move_after_another_writer_is_played_on_the_database_not_the_memory():
    code, _tickets, _game = started_room(3)
    memory: dict = {}
    _move(code, 0, memory)
    _move(code, 1, None)  # another thread or worker: the memory is now one move behind
    _move(code, 2, memory)
    game = game_in_play(code)
    assert list(Move.objects.filter(game=game).order_by("seq").values_list("seq", "seat")) == [
        (1, 0), (2, 1), (3, 2)]
    assert game.seq == 3
    assert all(pick is None for pick in game.state["picks"]) or game.state["picks"][1] is not None


def test_a_pause_the_memory_missed_refuses_the_move_and_changes_nothing():
    code, _tickets, game = started_room(3)
    memory: dict = {}
    _move(code, 0, memory)
    services.pause_game(game_id=game.pk)  # the seq stays; only the version tells
    before = what_moves_change(code)
    with pytest.raises(services.ServiceError) as refused:
        _move(code, 1, memory)
    assert refused.value.code == "paused"
    assert what_moves_change(code) == before
    assert code not in memory


def test_a_stale_memory_never_refuses_a_move_the_database_allows():
    code, _tickets, _game = started_room(3)
    memory: dict = {}
    _move(code, 0, memory)
    stale = memory.get(code)
    _move(code, 1, None)
    _move(code, 2, None)  # the round is revealed; the next one is posed to every seat
    if stale is not None:
        memory[code] = stale  # as remembered before the round ended: seat 0 had already picked
    game = game_in_play(code)
    played = services.submit_move(room_code=code, seat=0, seq=game.seq, action=candle_for(game, 0),
                                  games_in_play=memory)
    assert played.seq == game.seq + 1
    assert Move.objects.filter(game=game, seq=game.seq + 1, seat=0).exists()


def test_a_remembered_game_whose_row_is_held_is_played_the_locked_way_once_it_is_free():
    code, _tickets, game = started_room(3)
    memory: dict = {}
    _move(code, 0, memory)
    with game_row_held(game.pk, for_seconds=0.5):  # another writer, in no hurry
        played = _move(code, 1, memory)  # waits past the fast path's lock timeout, then under the locks
    assert played.seq == 2
    assert list(Move.objects.filter(game=game).order_by("seq").values_list("seq", "seat")) == [(1, 0), (2, 1)]


def test_a_worker_plays_a_rooms_requests_one_at_a_time_in_the_order_taken(monkeypatch):
    """Rooms share the move threads, but a room's requests never run side by side nor overtake each other."""
    playing: dict[str, int] = {}
    played: list[tuple[str, int]] = []
    overlaps = []
    guard = threading.Lock()

    def fake_play(payload, *, games_in_play=None):
        room = payload["room"]
        with guard:
            playing[room] = playing.get(room, 0) + 1
            if playing[room] > 1:
                overlaps.append(room)
        time.sleep(0.01)
        with guard:
            playing[room] -= 1
            played.append((room, payload["n"]))

    monkeypatch.setattr(move_queue, "play", fake_play)
    player = move_queue.MovePlayer(threads=3)
    for n in range(12):
        assert player.free.acquire(timeout=10)  # as the intake does before it takes a request
        player._hand_to_room(json.dumps({"room": "AAAAAA" if n % 3 else "BBBBBB", "n": n}))
    deadline = time.monotonic() + 10
    while len(played) < 12 and time.monotonic() < deadline:
        time.sleep(0.01)
    player.pool.shutdown(wait=True)
    assert not overlaps
    for room in ("AAAAAA", "BBBBBB"):
        numbers = [n for played_room, n in played if played_room == room]
        assert numbers == sorted(numbers) and numbers
    assert len(played) == 12 and not player.rooms_in_play


def _a_move_elsewhere_while_the_first_publishes(code: str, first, *, held: str, other_code: str, other_game,
                                               what: str) -> list[str]:
    """Runs `first` (a write in room `code`) in a thread, holding its first `held` message to the room; meanwhile
    a move in `other_code` must commit (else fails with `what`) and publish nothing. Returns the two rooms'
    groups in the order their messages left."""
    published: list[str] = []
    publishing, go_on = threading.Event(), threading.Event()
    send = broadcast._send

    def slow_send(group, message):
        if group == broadcast.room_group(code) and message["type"] == held and not publishing.is_set():
            publishing.set()
            go_on.wait(30)
        published.append(group)
        send(group, message)

    def in_a_thread(play):
        def run():
            try:
                play()
            finally:
                connection.close()
        thread = threading.Thread(target=run)
        thread.start()
        return thread

    with mock.patch.object(broadcast, "_send", slow_send):
        writer = in_a_thread(first)
        assert publishing.wait(10)
        mover = in_a_thread(lambda: _move(other_code, 0, None))
        try:
            deadline = time.monotonic() + 5
            while not Move.objects.filter(game=other_game).exists():  # committed while the first publishes
                assert time.monotonic() < deadline, what
                time.sleep(0.01)
            assert broadcast.room_group(other_code) not in published
        finally:
            go_on.set()
            writer.join(10)
            mover.join(10)
    assert not writer.is_alive() and not mover.is_alive()
    return [group for group in published if group in (broadcast.room_group(code), broadcast.room_group(other_code))]


def test_on_sqlite_the_next_writer_commits_while_a_move_publishes_and_publishes_after_it():
    """A move lets SQLite's writer lock go once committed, so the next writer need not wait for its update
    and timers; the updates still leave in commit order."""
    if connection.vendor != "sqlite":
        pytest.skip("SQLite's writer lock")
    code, _tickets, _game = started_room(3)
    other_code, _tickets, other_game = started_room(3)
    updates = _a_move_elsewhere_while_the_first_publishes(
        code, lambda: _move(code, 0, {}), held="game.update", other_code=other_code, other_game=other_game,
        what="the second move waited for the first one's update")
    assert updates[:2] == [broadcast.room_group(code), broadcast.room_group(other_code)]


def test_on_sqlite_the_next_writer_commits_while_a_start_publishes_and_publishes_after_it():
    """A start lets SQLite's writer lock go once committed, as a move does: with 250 hosts pressing Start at
    once, the moves' writes need not wait for each start's updates and timers. The updates still leave in
    commit order."""
    if connection.vendor != "sqlite":
        pytest.skip("SQLite's writer lock")
    code, _tickets = room_with(3)
    other_code, _tickets, other_game = started_room(3)
    updates = _a_move_elsewhere_while_the_first_publishes(
        code, lambda: services.start_game(room_code=code, seat=0), held="room.update", other_code=other_code,
        other_game=other_game, what="the move waited for the start's updates")
    assert latest_game(code).status == Game.Status.PLAYING
    # The start's room update and game update, then the move's.
    assert updates[:3] == [broadcast.room_group(code), broadcast.room_group(code), broadcast.room_group(other_code)]


def test_a_remembered_move_is_claimed_before_its_write_and_looked_at_again_at_its_commit():
    """The claim (the worker's last look) comes before the write, on SQLite outside the writer lock; on SQLite
    the look again at the commit, which finds the request past its deadline, rolls the move back."""
    code, _tickets, _game = started_room(3)
    memory: dict = {}
    _move(code, 0, memory)
    moves_seen: list[int] = []

    def last_look():
        moves_seen.append(Move.objects.filter(game__room_code=code).count())
        if len(moves_seen) == 2:
            raise services.ServiceError("move_unanswered", "too late")

    before = what_moves_change(code)
    with services.checked_before_commit(last_look):
        if connection.vendor == "sqlite":
            with pytest.raises(services.ServiceError):
                _move(code, 1, memory)
            assert moves_seen == [1, 2]  # claimed before the write; looked at again once written
            assert what_moves_change(code) == before
            assert code not in memory
        else:
            _move(code, 1, memory)
            assert moves_seen == [1]  # the one statement comes after it


def test_on_sqlite_a_remembered_moves_values_are_prepared_before_the_writer_lock_is_taken(monkeypatch):
    """Every writer of the process waits while one holds SQLite's writer lock: the game's state and the rest,
    encoded to JSON, are prepared before it, so the lock covers the two statements and the commit alone."""
    if connection.vendor != "sqlite":
        pytest.skip("SQLite's writer lock")
    code, _tickets, _game = started_room(3)
    memory: dict = {}
    _move(code, 0, memory)
    order: list[str] = []
    writer = services._sqlite_writer

    class Writer:
        def acquire(self, *args, **kwargs):
            order.append("lock")
            return writer.acquire(*args, **kwargs)

        def release(self):
            writer.release()

        def __enter__(self):
            self.acquire()
            return self

        def __exit__(self, *exc):
            self.release()

    for name, save in (("game", services._SAVE_WHERE_VERSION), ("move", services._INSERT_MOVE)):
        def prepared(instance, *, version=None, name=name, real=save.prepared):
            order.append(name)
            return real(instance, version=version)
        monkeypatch.setattr(save, "prepared", prepared)
    monkeypatch.setattr(services, "_sqlite_writer", Writer())
    _move(code, 1, memory)
    assert order == ["game", "move", "lock"]
    assert list(Move.objects.filter(game__room_code=code).order_by("seq").values_list("seq", "seat")) == [
        (1, 0), (2, 1)]
    assert memory[code].version == game_in_play(code).version
