"""Presence and the grace period: a player who leaves is covered by a bot, and gets the seat back on
return; and losing Redis loses no countdown, grace period or expiry."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from datetime import timedelta
from unittest import mock

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from django.conf import settings
from django.db import connection, transaction
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from rooms import live, services
from rooms.models import Game, Move, Room, Seat
from tests.rooms.helpers import (
    WAIT_SECONDS,
    Workers,
    candle_for,
    close_all,
    cookie_for,
    expiry_index,
    fresh_channel_layer,  # noqa: F401 (a fixture)
    game_in_play,
    is_type,
    is_update,
    open_socket,
    receive_until,
    room_with,
    started_room,
    timers,
    wait_for,
)
from tests.support import flush_suite_redis

db = database_sync_to_async

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_channel_layer", "moves_played")]


@pytest.fixture
def workers():
    pool = Workers()
    yield pool
    logs = pool.log_text()
    pool.stop_all()
    assert "Traceback" not in logs, logs


def seat_row(code: str, index: int) -> Seat:
    return Seat.objects.get(room__code=code, index=index)


def room_shows(seat: int, **flags):
    """A room message in which `seat` has these flags (stand_in, connected...)."""
    return lambda m: m["type"] == "room" and all(m["room"]["seats"][seat][k] == v for k, v in flags.items())


@pytest.mark.live
async def test_a_player_who_leaves_is_covered_by_a_bot_and_decides_again_on_return(workers):
    code, tickets = await db(room_with)(2)
    host, _ = await open_socket(code, cookie=await cookie_for(tickets[0]))
    guest_cookie = await cookie_for(tickets[1])
    guest, _ = await open_socket(code, cookie=guest_cookie)
    try:
        await receive_until(host, room_shows(1, connected=True), what="the guest connected")
        await host.send_json_to({"type": "start"})
        await receive_until(host, is_update(0), what="the start")
        await sync_to_async(workers.start)()
        game = await db(game_in_play)(code)

        await guest.disconnect()
        assert f"grace:{code}:1" in await db(timers)()
        room, _ = await receive_until(host, room_shows(1, stand_in=True), what="a bot standing in for seat 1")
        assert room["room"]["seats"][1]["connected"] is False
        assert room["room"]["seats"][0] == {**room["room"]["seats"][0], "stand_in": False, "connected": True}
        update, _ = await receive_until(host, lambda m: m["type"] == "update" and {"type": "picked", "seat": 1}
                                        in m["events"], what="the stand-in's pick")
        assert update["seq"] == 1
        moves = await db(lambda: list(Move.objects.filter(game=game).values_list("seat", "by")))()
        assert moves == [(1, "stand_in")]
        assert (await db(seat_row)(code, 1)).stand_in

        guest, snapshot = await open_socket(code, cookie=guest_cookie)
        assert snapshot["you"] == {"seat": 1} and snapshot["room"]["seats"][1]["stand_in"] is False
        assert not (await db(seat_row)(code, 1)).stand_in
        await receive_until(host, room_shows(1, stand_in=False, connected=True), what="the player back")

        # The host ends round 1; seat 1's next decision waits for its player, not for a bot.
        await host.send_json_to({"type": "move", "seq": 1, "action": candle_for(game, 0)})
        await receive_until(guest, is_update(2), what="round 2")
        game = await db(game_in_play)(code)
        assert game.prompts == {"0": 2, "1": 2}
        assert f"bot:{game.pk}:1:2" not in await db(timers)()
        await guest.send_json_to({"type": "move", "seq": 2, "action": candle_for(game, 1)})
        update, _ = await receive_until(guest, is_type("update"), what="the player's own pick")
        assert update["seq"] == 3 and update["events"] == [{"type": "picked", "seat": 1}]
        moves = await db(lambda: list(Move.objects.filter(game=game).values_list("seq", "seat", "by")))()
        assert moves == [(1, 1, "stand_in"), (2, 0, "player"), (3, 1, "player")]
    finally:
        await close_all(host, guest)


async def test_a_player_back_within_the_grace_period_keeps_the_seat():
    code, tickets, game = await db(started_room)(2)
    cookie = await cookie_for(tickets[1])
    socket, _ = await open_socket(code, cookie=cookie)
    await socket.disconnect()
    assert f"grace:{code}:1" in await db(timers)()
    assert 1 not in await db(live.connected_seats)(code)

    socket, _ = await open_socket(code, cookie=cookie)
    try:
        assert f"grace:{code}:1" not in await db(timers)()  # the grace timer is called off
        assert 1 in await db(live.connected_seats)(code)
        assert not await db(services.fire_grace)(room_code=code, seat=1)  # even if it had gone off
        assert not (await db(seat_row)(code, 1)).stand_in
    finally:
        await close_all(socket)


async def test_two_tabs_on_one_seat_keep_it_connected_until_both_close():
    code, tickets, _game = await db(started_room)(2)
    cookie = await cookie_for(tickets[1])
    first, _ = await open_socket(code, cookie=cookie)
    second, _ = await open_socket(code, cookie=cookie)
    try:
        await first.disconnect()
        assert 1 in await db(live.connected_seats)(code)
        assert f"grace:{code}:1" not in await db(timers)()  # the seat is still there
    finally:
        await close_all(second)
    assert 1 not in await db(live.connected_seats)(code)
    assert f"grace:{code}:1" in await db(timers)()


async def test_an_open_socket_keeps_its_seat_present_without_pinging():
    """A hidden tab's timers wake once a minute (Chrome, after five minutes hidden), longer than presence
    lasts: daphne renews the presence of its open sockets itself, and stops once a socket closes."""
    code, tickets, _game = await db(started_room)(2)
    lifetime = 2.4
    with override_settings(WICKWISE={**settings.WICKWISE, "PRESENCE_TTL_SECONDS": lifetime}):
        socket, _ = await open_socket(code, cookie=await cookie_for(tickets[1]))
        try:
            await asyncio.sleep(lifetime * 3)  # three lifetimes, and not one ping
            assert 1 in await db(live.connected_seats)(code)
            assert f"grace:{code}:1" not in await db(timers)()
        finally:
            await close_all(socket)
        assert 1 not in await db(live.connected_seats)(code)
        await asyncio.sleep(lifetime)  # a renewal after the close would put the seat back
        assert 1 not in await db(live.connected_seats)(code)
        assert f"grace:{code}:1" in await db(timers)()


def test_the_keeper_renews_only_presence_that_is_still_there():
    """Its renewal can race a socket's leaving: what left is never put back (ZADD XX)."""
    code, _tickets = room_with(2)
    live.presence_join(code, 0, "open-tab")
    live.socket_from("198.51.100.7", "open-tab")
    lapse_before = live.client().zscore(live.key("presence", code), "0|open-tab")
    time.sleep(0.01)
    members = [*live.kept_open_members("198.51.100.7", "open-tab", code, [0]),
               *live.kept_open_members("198.51.100.7", "closed-tab", code, [1])]
    assert live.renew_if_there(live.client(), members) == 4
    assert live.connected_seats(code) == {0}
    assert live.client().zscore(live.key("presence", code), "0|open-tab") > lapse_before
    assert live.client().zrange(live.key("sockets", "198.51.100.7"), 0, -1) == ["open-tab"]


def test_the_grace_period_hands_only_an_absent_player_to_a_bot():
    code, _tickets = room_with(2, 3)
    assert not services.fire_grace(room_code=code, seat=1)  # no game in play yet
    services.start_game(room_code=code, seat=0)
    live.presence_join(code, 0, "a-channel")

    assert not services.fire_grace(room_code=code, seat=0)  # connected
    assert not services.fire_grace(room_code=code, seat=2)  # a bot already
    assert services.fire_grace(room_code=code, seat=1)
    assert not services.fire_grace(room_code=code, seat=1)  # once
    assert [s.stand_in for s in Seat.objects.filter(room__code=code).order_by("index")] == [False, True, False]
    game = game_in_play(code)
    assert f"bot:{game.pk}:1:0" in timers()  # the stand-in is asked for the pending decision

    services.seat_connected(room_code=code, seat=1, channel="another-channel")
    assert not Seat.objects.get(room__code=code, index=1).stand_in
    assert not services.play_bot_turn(game_id=game.pk, seat=1, prompt=0, choose=lambda *a: {})


def test_when_redis_is_lost_the_database_rebuilds_every_timer_and_the_expiry_index():
    code, _tickets, game = started_room(1, 3)  # seat 0 a person (away), seats 1 and 2 bots
    paused_code, _t, paused = started_room(2)
    services.pause_game(game_id=paused.pk)
    game.refresh_from_db()
    room = Room.objects.get(code=code)

    flush_suite_redis()
    assert timers() == {} and expiry_index() == {}
    counts = services.rebuild_live_index()

    index = timers()
    assert index[f"turn:{game.pk}:0"] == pytest.approx(game.deadline_at.timestamp())
    assert {f"bot:{game.pk}:1:0", f"bot:{game.pk}:2:0", f"grace:{code}:0"} <= set(index)
    assert not any(member.startswith(f"turn:{paused.pk}:") for member in index)  # paused time counts nowhere
    assert {f"grace:{paused_code}:0", f"grace:{paused_code}:1"} <= set(index)
    expires = room.last_activity_at + timedelta(days=30)
    assert expiry_index()[code] == pytest.approx(expires.timestamp())
    assert set(expiry_index()) == {code, paused_code}
    assert counts["countdowns"] == 1 and counts["rooms"] == 2

    # Rebuilding again changes nothing: the index is the database's picture, not a queue of duplicates.
    services.rebuild_live_index()
    assert set(timers()) == set(index)
    assert Game.objects.get(pk=game.pk).seq == 0


def test_the_rebuild_reads_and_writes_by_the_batch_and_puts_back_what_it_did_one_by_one(monkeypatch):
    """The worker rebuilds the index every minute beside the moves: a few queries and round trips a batch of
    rooms and games, not one or two for each, and the same index as one by one (the test above), across a
    batch's edge too."""
    rooms = [started_room(1, 3), started_room(2), started_room(1, 2)]  # people away, bots, a paused game
    (first, _t0, first_game), (paused, _t1, paused_game), (third, _t2, third_game) = rooms
    services.pause_game(game_id=paused_game.pk)
    flush_suite_redis()
    services.seat_connected(room_code=third, seat=0, channel="a-tab")  # present: no grace period for it
    live.schedule(f"grace:{paused}:0", 12345.0)  # a grace period already running is kept as it is
    monkeypatch.setattr(services, "_REBUILT_AT_ONCE", 2)  # two batches of games, two of rooms
    sent = []
    execute = live.redis.Redis.execute_command
    monkeypatch.setattr(live.redis.Redis, "execute_command",
                        lambda self, *args, **options: sent.append(args[0]) or execute(self, *args, **options))
    with CaptureQueriesContext(connection) as queries:
        counts = services.rebuild_live_index()

    index = timers()
    assert set(index) == {
        f"turn:{first_game.pk}:0", f"bot:{first_game.pk}:1:0", f"bot:{first_game.pk}:2:0", f"grace:{first}:0",
        f"grace:{paused}:0", f"grace:{paused}:1",  # paused: no countdown
        f"turn:{third_game.pk}:0", f"bot:{third_game.pk}:1:0",
    }
    assert index[f"turn:{third_game.pk}:0"] == pytest.approx(Game.objects.get(pk=third_game.pk).deadline_at.timestamp())
    assert index[f"grace:{paused}:0"] == 12345.0
    assert index[f"grace:{paused}:1"] > 12345.0
    assert set(expiry_index()) == {first, paused, third}
    assert counts["rooms"] == 3 and counts["countdowns"] == 2
    # rooms: a write a batch; games: for each batch a write of the timers and one of the grace periods
    assert sent.count("ZADD") == 2 + 2 * 2
    # rooms: one query; games: one, and two a batch (the bots' seats, the people's)
    assert len(queries) == 1 + 1 + 2 * 2, [query["sql"] for query in queries.captured_queries]
    services.rebuild_live_index()
    again = timers()
    assert set(again) == set(index)
    assert {member: at for member, at in again.items() if member.startswith("grace:")} == {
        member: at for member, at in index.items() if member.startswith("grace:")}  # running ones kept


@contextlib.contextmanager
def looks_for_the_player(actions: dict):
    """fire_grace's looks for the player (live.connected_seats), counted: look N (from 1) runs actions[N],
    whose answer it gives; the others answer as Redis does. Yields the looks made."""
    connected_seats = live.connected_seats
    looks = []

    def look(room_code):
        looks.append(room_code)
        action = actions.get(len(looks))
        return connected_seats(room_code) if action is None else action(room_code)

    with mock.patch.object(live, "connected_seats", side_effect=look):
        yield looks


def away_then_back(room_code):
    """This look finds the player away; they come back (seat_connected) right after it."""
    services.seat_connected(room_code=room_code, seat=1, channel="back-again")
    return set()


def test_a_player_who_returns_while_the_grace_timer_is_handled_keeps_the_seat():
    code, _tickets, game = started_room(2)
    with looks_for_the_player({1: away_then_back}):
        services.fire_grace(room_code=code, seat=1)

    assert 1 in live.connected_seats(code)
    assert not Seat.objects.get(room__code=code, index=1).stand_in  # a connected player is never stood in for
    assert f"bot:{game.pk}:1:0" not in timers()


def test_a_player_who_returns_as_the_stand_in_is_committed_takes_the_seat_back():
    """seat_connected takes no lock to look for a stand-in: one committed just after its look (the player
    came back after fire_grace's last look for them) is undone by fire_grace, which looks once more."""
    code, _tickets, _game = started_room(2)
    with looks_for_the_player({2: away_then_back}) as looks:  # the look under its lock; back before its commit
        services.fire_grace(room_code=code, seat=1)

    assert len(looks) == 3  # the first look, the look under the lock, the look after the commit
    assert not Seat.objects.get(room__code=code, index=1).stand_in


def test_a_stand_in_whose_player_cannot_be_looked_for_after_its_commit_is_left_to_the_player(caplog):
    """The look after the commit failing (Redis) must not leave a bot playing for a player who may be there:
    the seat goes back to them, and the grace period starts over."""
    code, _tickets, _game = started_room(2)

    def redis_down(_room_code):
        raise live.redis.ConnectionError("down")

    with looks_for_the_player({3: redis_down}) as looks:
        assert not services.fire_grace(room_code=code, seat=1)

    assert len(looks) == 3
    assert not Seat.objects.get(room__code=code, index=1).stand_in
    assert f"grace:{code}:1" in timers()
    assert "left to them" in caplog.text


def test_a_seat_with_no_stand_in_connects_without_a_write():
    code, _tickets, _game = started_room(2)
    with mock.patch.object(services, "_writing", side_effect=AssertionError("a write was begun")):
        services.seat_connected(room_code=code, seat=1, channel="c1")
    assert 1 in live.connected_seats(code)


def test_a_full_seat_takes_no_more_sockets_and_the_refused_one_changes_nothing():
    code, _tickets, _game = started_room(2)
    live.client().zadd(live.key("presence", code), {"1|long-gone": time.time() - 1})  # lapsed: not counted
    for tab in ("tab-1", "tab-2", "tab-1"):  # its own place renewed is no new socket
        assert services.seat_connected(room_code=code, seat=1, channel=tab, most_sockets=2)
    assert services.seat_connected(room_code=code, seat=0, channel="tab-3", most_sockets=2)  # another seat's
    live.schedule(f"grace:{code}:1", time.time() + 60)
    with mock.patch.object(services.broadcast, "room_changed") as room_changed:
        assert not services.seat_connected(room_code=code, seat=1, channel="tab-4", most_sockets=2)
    room_changed.assert_not_called()
    assert "1|tab-4" not in live.queue_connected_seats(live.client(), code)
    assert f"grace:{code}:1" in timers()


@pytest.mark.parametrize("seat_writer", ["grace timer", "player connecting"])
def test_seat_writers_never_deadlock_with_the_expiry_sweep(seat_writer):
    """Every writer locks the room before its seats, or the seat alone. A grace timer or a connecting
    player that locked the seat and then the room deadlocked, on PostgreSQL, with the expiry sweep
    (which deletes the seats of the room it has locked)."""
    if connection.vendor != "postgresql":
        pytest.skip("row locks are PostgreSQL's; SQLite has one writer at a time")
    code, _tickets, _game = started_room(2)
    if seat_writer == "player connecting":  # a connect writes (and locks) only to clear a stand-in
        Seat.objects.filter(room__code=code, index=1).update(stand_in=True)
    room_locked, done, errors, writer_pid = threading.Event(), threading.Event(), [], []

    def sweep():
        try:
            with transaction.atomic():
                Room.objects.select_for_update().get(code=code)
                room_locked.set()
                wait_for(lambda: done.is_set() or waits_for_a_lock(writer_pid), what="the seat writer to block")
                Seat.objects.filter(room__code=code).delete()
        except Exception as error:
            errors.append(error)
        finally:
            connection.close()

    def write_seat():
        try:
            room_locked.wait(timeout=WAIT_SECONDS)
            connection.ensure_connection()
            writer_pid.append(connection.connection.info.backend_pid)
            if seat_writer == "grace timer":
                assert not services.fire_grace(room_code=code, seat=1)  # its seat was gone when it could look
            else:
                services.seat_connected(room_code=code, seat=1, channel="a-tab")
        except Exception as error:
            errors.append(error)
        finally:
            done.set()
            connection.close()

    threads = [threading.Thread(target=sweep), threading.Thread(target=write_seat)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    assert not Seat.objects.filter(room__code=code).exists()


def waits_for_a_lock(pids: list[int]) -> bool:
    if not pids:
        return False
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_locks WHERE pid = %s AND NOT granted", [pids[0]])
        return cursor.fetchone()[0] > 0
