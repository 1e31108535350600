"""A move's writes to Redis after its commit (its position's mark, its update, its timers and who decided,
and the worker's clearing of the request) go in one round trip, in that order (live.joined); so do a
start's game update and its timers."""

from __future__ import annotations

from unittest import mock

import pytest
import redis
from redis.exceptions import ConnectionError as RedisConnectionError

from games import registry
from rooms import broadcast, live, move_queue, positions, services
from rooms.models import Move
from tests.rooms.helpers import candle_for, fresh_channel_layer, room_with, started_room, wait_for  # noqa: F401 (a fixture)
from tests.rooms.test_move_queue import hand_over_all

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_channel_layer")]


@pytest.fixture(autouse=True)
def index_not_lost():
    live.index_lost.clear()
    yield
    live.index_lost.clear()


@pytest.fixture
def round_trips():
    """The commands of every blocking pipeline sent, in order, by round trip: those whose replies are read at
    once and those the worker's move thread reads later (live.replies_later)."""
    sent: list[list[str]] = []
    execute, send_for_later = redis.client.Pipeline.execute, live._send_for_later

    def recording(pipe, *args, **kwargs):
        sent.append([str(command[0]).upper() for command, _options in pipe.command_stack])
        return execute(pipe, *args, **kwargs)

    def recording_for_later(pipe, *args, **kwargs):
        commands = [str(command[0]).upper() for command, _options in pipe.command_stack]
        if not send_for_later(pipe, *args, **kwargs):
            return False  # sent the usual way: recorded there
        sent.append(commands)
        return True

    with mock.patch.object(redis.client.Pipeline, "execute", recording), \
            mock.patch.object(live, "_send_for_later", recording_for_later):
        yield sent


def played(code: str, moves: list[tuple[int, int, dict]], *, count: int, game) -> None:
    player = move_queue.MovePlayer(threads=1).start()
    try:
        hand_over_all(code, moves)
        wait_for(lambda: Move.objects.filter(game=game).count() == count, what="the moves played")
        wait_for(lambda: live.client().llen(player.taken_key) == 0, what="the worker's list cleared")
    finally:
        player.stop()


def test_a_moves_position_update_timers_and_clearing_go_in_one_round_trip_in_that_order(round_trips):
    code, _tickets, game = started_room(4)
    del round_trips[:]  # the start's own
    with mock.patch("rooms.broadcast.send_to_socket"):
        played(code, [(seat, 0, candle_for(game, seat)) for seat in range(4)], count=4, game=game)
    publishing = [commands for commands in round_trips if "PUBLISH" in commands]
    assert len(publishing) == 4  # one round trip a move, each with its one update
    for commands in publishing:
        assert commands.count("PUBLISH") == 1
        assert commands[0] == "EVAL"  # the game's part of the position kept, before the update (rooms/positions.py)
        assert commands.index("PUBLISH") == 1
        assert commands[-1] == "LREM"  # the request leaves the worker's list once its update is sent
    # No other round trip cleared a move from the worker's list.
    assert sum(commands.count("LREM") for commands in round_trips) == 4


def test_a_refused_move_is_still_cleared_from_the_workers_list():
    code, _tickets, game = started_room(2)
    refusals = []
    with mock.patch("rooms.broadcast.send_to_socket", lambda channel, message: refusals.append(message)):
        player = move_queue.MovePlayer(threads=1).start()
        try:
            hand_over_all(code, [(0, 5, candle_for(game, 0))])  # a seq the game has not reached
            wait_for(lambda: refusals, what="the refusal")
            wait_for(lambda: live.client().llen(player.taken_key) == 0, what="the worker's list cleared")
        finally:
            player.stop()
    assert [refusal["code"] for refusal in refusals] == ["future_seq"]
    assert Move.objects.filter(game=game).count() == 0


def test_joined_writes_wait_for_the_end_of_the_block_and_go_in_order():
    gen_key, _position_key, _game_key = live.position_keys("JOIN")
    live.client().set(gen_key, "before")
    rider = mock.Mock()
    live.ride_along(rider)
    with live.joined():
        positions.changed("JOIN")
        live.replace(None, "turn:1:1", 123.0)
        assert live.client().get(gen_key) == "before"  # nothing sent yet
        assert live.scheduled_at("turn:1:1") is None
    assert live.client().get(gen_key) != "before"
    assert live.scheduled_at("turn:1:1") == 123.0
    rider.assert_called_once()
    assert live.rider_left() is None  # carried: its owner has nothing left to send
    live.cancel("turn:1:1")


def test_a_joined_round_trip_that_fails_marks_the_timers_lost_and_leaves_the_rider_to_its_owner():
    rider = mock.Mock()
    live.ride_along(rider)
    failing = mock.patch.object(redis.client.Pipeline, "execute", side_effect=RedisConnectionError("down"))
    with failing, pytest.raises(RedisConnectionError), live.joined():
        live.replace("turn:1:0", "turn:1:3", 0.0)
    assert live.index_lost.is_set()
    assert live.rider_left() is rider  # its owner sends it on its own
    assert live.rider_left() is None


def test_a_starts_position_update_and_timers_go_in_one_round_trip_in_that_order(round_trips):
    """A start sends its game's update as a move does: its part of the position, the update and the first
    countdown in one round trip (the room's update, which reads presence and the host first, has its own)."""
    code, _tickets = room_with(4)
    services.start_game(room_code=code, seat=0)
    with_update = [commands for commands in round_trips if "PUBLISH" in commands]
    assert len(with_update) == 1, round_trips
    commands = with_update[0]
    assert commands[:2] == ["EVAL", "PUBLISH"], commands  # its part of the position before the update
    assert "ZADD" in commands[2:], commands  # the first countdown, after the update
    assert not live.index_lost.is_set()


def test_within_replies_later_a_joined_round_trip_leaves_at_once_and_its_replies_are_read_at_settle():
    """The worker's move thread does not wait for the reply of its round trip after the commit: the
    commands leave (Redis runs them) at the flush, and their replies are read at the request's end."""
    gen_key, _position_key, _game_key = live.position_keys("LATER")
    live.client().set(gen_key, "before")
    rider = mock.Mock()
    live.ride_along(rider)
    pool = live.client().connection_pool
    with live.replies_later():
        with live.joined():
            positions.changed("LATER")
            live.replace(None, "turn:1:1", 123.0)
        pending = live._joined.pending
        assert pending is not None  # sent, its replies not read
        assert pending[1] not in pool._available_connections
        wait_for(lambda: live.scheduled_at("turn:1:1") == 123.0, what="the timer written before any reply is read")
        assert live.client().get(gen_key) != "before"
        live.settle()
    assert live._joined.pending is None and pending[1] in pool._available_connections
    rider.assert_called_once()
    assert live.rider_left() is None  # carried
    assert not live.index_lost.is_set()
    live.cancel("turn:1:1")


def test_a_round_trip_whose_replies_fail_when_read_later_marks_the_timers_lost_and_leaves_the_rider():
    rider = mock.Mock()
    live.ride_along(rider)
    with live.replies_later():
        with live.joined():
            live.replace("turn:1:0", "turn:1:3", 0.0)
        connection = live._joined.pending[1]
        with mock.patch.object(connection, "read_response", side_effect=RedisConnectionError("down")), \
                pytest.raises(RedisConnectionError):
            live.settle()
    assert live.index_lost.is_set()
    assert live.rider_left() is rider  # its owner sends it on its own
    assert live._joined.pending is None
    live.cancel("turn:1:3")


def failing_once(connection, failed: list) -> None:
    """The connection's next read fails (as if Redis went away), once, noted in `failed`: the pool's
    connection is itself again after it."""

    def read_response(*args, **kwargs):
        del connection.read_response
        failed.append(True)
        raise RedisConnectionError("down")

    connection.read_response = read_response


def test_a_moves_round_trip_whose_replies_fail_when_read_later_still_clears_it_from_the_workers_list(caplog):
    """The failure reaches the handling a failed round trip had: logged, and the request cleared from the
    worker's list by the worker's own round trip at its end."""
    code, _tickets, game = started_room(4)
    send_for_later, failed = live._send_for_later, []

    def failing_when_read(pipe, rider):
        if not send_for_later(pipe, rider):
            return False
        failing_once(live._joined.pending[1], failed)
        return True

    with mock.patch.object(live, "_send_for_later", failing_when_read), \
            mock.patch("rooms.broadcast.send_to_socket"):
        played(code, [(0, 0, candle_for(game, 0))], count=1, game=game)  # waits for the list to be cleared
    assert failed == [True]
    assert "a step after a commit failed" in caplog.text


def test_a_round_trip_whose_replies_fail_when_the_next_one_goes_does_not_hold_that_one_back(caplog):
    """Two joined round trips in one request (a step after another): the first one's replies are read as the
    second goes; their failure is handled as at `settle`, and the second is sent all the same, carrying the
    rider the first could not."""
    rider = mock.Mock()
    live.ride_along(rider)
    with live.replies_later():
        with live.joined():
            live.replace("turn:1:0", "turn:1:3", 0.0)
        failed = []
        failing_once(live._joined.pending[1], failed)
        with live.joined():
            live.replace(None, "turn:2:1", 456.0)
        wait_for(lambda: live.scheduled_at("turn:2:1") == 456.0, what="the second round trip run")
        live.settle()
    assert failed == [True] and live.index_lost.is_set()
    assert "a round trip after a commit failed" in caplog.text
    assert rider.call_count == 2  # queued on the first, then again on the second, which carried it
    assert live.rider_left() is None
    live.cancel("turn:1:3")
    live.cancel("turn:2:1")


@pytest.fixture
def sends_while_unread():
    """For every command sent to Redis on any connection, in order: whether this thread's round trip sent for
    later (live.replies_later) was still unread as it went."""
    unread: list[bool] = []
    send = redis.connection.AbstractConnection.send_packed_command

    def watching(connection, *args, **kwargs):
        unread.append(getattr(live._joined, "pending", None) is not None)
        return send(connection, *args, **kwargs)

    with mock.patch.object(redis.connection.AbstractConnection, "send_packed_command", watching):
        yield unread


@pytest.mark.parametrize("send_next", [
    lambda: broadcast._sync_sender.send(broadcast.room_group("NEXT"), {"type": "room.update"}),
    lambda: positions.changed("NEXT"),  # outside a joined round trip: at once, on the client's pool
    lambda: live.schedule("turn:9:9", 9.0),
], ids=["publish", "mark", "timer"])
def test_what_the_thread_sends_next_on_another_connection_goes_once_its_round_trip_sent_for_later_has_run(
        sends_while_unread, send_next):
    """Redis may run another connection's commands while it still reads a large pipeline (a game's update):
    the room's update at a game's end, published on its own, could reach the clients before the game's last
    update. So the thread reads the replies of its round trip sent for later (Redis has run it) before it
    sends anything else."""
    pool = live.client().connection_pool
    with live.replies_later():
        with live.joined():
            positions.changed("FIRST")
            live.replace(None, "turn:1:1", 123.0)
        connection = live._joined.pending[1]
        sent_before = len(sends_while_unread)  # the round trip itself, its replies unread after it
        send_next()
        assert len(sends_while_unread) > sent_before
        assert not any(sends_while_unread)  # what went next went once those replies were read
        assert live._joined.pending is None and connection in pool._available_connections
        live.settle()
    assert not live.index_lost.is_set()
    live.cancel("turn:1:1")
    live.cancel("turn:9:9")


def test_a_game_played_to_its_end_as_the_worker_plays_sends_nothing_while_a_round_trip_is_unread(
        sends_while_unread, round_trips):
    """Each move as the worker's move thread plays it (live.replies_later, then settle): at the game's end the
    room's update (its presence and host read, then its publish) goes once the game's last update has run."""
    code, _tickets, game = started_room(4)
    engine = registry.get(game.game).engine
    for _step in range(200):
        game.refresh_from_db()
        if game.is_over:
            break
        seat = next(iter(engine.to_act(game.state)))
        with live.replies_later():
            services.submit_move(room_code=code, seat=seat, seq=game.seq, action=candle_for(game, seat))
        live.settle()
    assert game.is_over
    assert any("PUBLISH" in commands for commands in round_trips)
    assert not any(sends_while_unread)


def test_a_round_trip_left_unread_is_read_as_the_thread_enters_replies_later_again(caplog):
    """A missed settle cannot keep a connection out of the pool: the next request's replies_later reads it."""
    pool = live.client().connection_pool
    with live.replies_later():
        with live.joined():
            live.replace(None, "turn:1:1", 123.0)
        connection = live._joined.pending[1]
    assert connection not in pool._available_connections  # left unread
    with live.replies_later():
        assert live._joined.pending is None and connection in pool._available_connections
    assert "a round trip after a commit was left unread" in caplog.text
    assert not live.index_lost.is_set()
    live.cancel("turn:1:1")


def test_a_request_that_fails_after_its_round_trip_was_sent_for_later_gives_its_connection_back(monkeypatch):
    code, _tickets, game = started_room(4)
    pool = live.client().connection_pool
    play, unread = move_queue.play, []

    def failing_after_its_flush(payload, **kwargs):
        play(payload, **kwargs)
        unread.append(live._joined.pending[1])  # the move's round trip, sent, its replies not read
        raise RuntimeError("failed after the flush")

    monkeypatch.setattr(move_queue, "play", failing_after_its_flush)
    with mock.patch("rooms.broadcast.send_to_socket"):
        player = move_queue.MovePlayer(threads=1).start()
        try:
            hand_over_all(code, [(0, 0, candle_for(game, 0))])
            wait_for(lambda: unread, what="the move played")
            wait_for(lambda: not player.in_hand, what="the request out of hand")
            wait_for(lambda: live.client().llen(player.taken_key) == 0, what="the worker's list cleared")
        finally:
            player.stop()
    assert unread[0] in pool._available_connections and unread[0] not in pool._in_use_connections
    assert Move.objects.filter(game=game).count() == 1
