"""Moves and starts sent on sockets are played by the worker (rooms/move_queue.py): answered once, in time,
in the socket's language, or refused at their deadline and never played after it."""

from __future__ import annotations

import asyncio
import hashlib
import threading
import time
from unittest import mock

import pytest
import redis
from channels.db import database_sync_to_async
from django.conf import settings
from django.db import connection, transaction
from django.test import override_settings

from rooms import live, move_queue, services
from rooms.models import Move, Room
from tests.rooms.helpers import (
    WAIT_SECONDS,
    candle_for,
    close_all,
    cookie_for,
    fresh_channel_layer,  # noqa: F401 (a fixture)
    game_in_play,
    is_type,
    is_update,
    open_socket,
    receive,
    receive_until,
    room_with,
    started_room,
    wait_for,
    what_moves_change,
)

db = database_sync_to_async

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_channel_layer")]


def answering_within(seconds: float):
    return override_settings(WICKWISE={**settings.WICKWISE, "MOVE_ANSWER_SECONDS": seconds})


async def answered_once(socket, frame: dict, answer, *, what: str) -> dict:
    """Sends a request answered within 0.5 s and returns its answer; no refusal may follow past the deadline."""
    await socket.send_json_to(frame)
    message, _ = await receive_until(socket, answer, what=what)
    await asyncio.sleep(0.7)
    assert await socket.receive_nothing(timeout=0.2)
    return message


async def test_a_move_no_worker_answers_is_refused_at_its_deadline_and_never_played_later():
    code, tickets, game = await db(started_room)(2)
    with answering_within(0.3):
        socket, _ = await open_socket(code, cookie=await cookie_for(tickets[0]))
        try:
            await receive_until(socket, is_type("room"), what="the seat connected")
            before = await db(what_moves_change)(code)
            await socket.send_json_to({"type": "move", "seq": 0, "action": candle_for(game, 0), "ref": "m1"})
            error, _ = await receive_until(socket, is_type("error"), what="the refusal")
            assert (error["code"], error["ref"]) == ("move_unanswered", "m1") and error["message"]
            snapshot, _ = await receive_until(socket, is_type("snapshot"), what="a fresh snapshot")
            assert snapshot["seq"] == 0 and snapshot["view"]["my_pick"] is None

            # A worker that starts now finds the move too old: its player was told it was not played.
            player = move_queue.MovePlayer(threads=1).start()
            try:
                await asyncio.sleep(0.5)
            finally:
                await asyncio.to_thread(player.stop)
            assert await db(what_moves_change)(code) == before
            assert await socket.receive_nothing(timeout=0.3)
        finally:
            await move_queue.close_for_this_loop()
            await close_all(socket)


async def test_a_start_no_worker_answers_is_refused_and_the_game_stays_in_the_lobby():
    code, tickets = await db(room_with)(2)
    with answering_within(0.3):
        socket, _ = await open_socket(code, cookie=await cookie_for(tickets[0]))
        try:
            await socket.send_json_to({"type": "start", "ref": "start"})
            error, _ = await receive_until(socket, is_type("error"), what="the refusal")
            assert (error["code"], error["ref"]) == ("move_unanswered", "start")
            snapshot, _ = await receive_until(socket, is_type("snapshot"), what="a fresh snapshot")
            assert snapshot["game"]["status"] == "lobby"
        finally:
            await move_queue.close_for_this_loop()
            await close_all(socket)


@pytest.mark.usefixtures("moves_played")
async def test_a_start_the_worker_plays_is_answered_by_the_new_games_update():
    code, tickets = await db(room_with)(2)
    with answering_within(0.5):
        socket, _ = await open_socket(code, cookie=await cookie_for(tickets[0]))
        try:
            in_play = lambda m: m["type"] == "update" and m["game"]["status"] == "playing"  # noqa: E731
            update = await answered_once(socket, {"type": "start", "ref": "start"}, in_play, what="the game in play")
            assert update["view"]["seat"] == 0
        finally:
            await close_all(socket)


@pytest.mark.usefixtures("moves_played")
async def test_a_move_the_worker_plays_is_answered_by_its_update_alone():
    code, tickets, game = await db(started_room)(2)
    with answering_within(0.5):
        socket, _ = await open_socket(code, cookie=await cookie_for(tickets[0]))
        try:
            await receive_until(socket, is_type("room"), what="the seat connected")
            move = {"type": "move", "seq": 0, "action": candle_for(game, 0)}
            update = await answered_once(socket, move, is_update(1), what="the pick")
            assert update["view"]["my_pick"] == candle_for(game, 0)["candle"]
        finally:
            await close_all(socket)


@pytest.mark.usefixtures("moves_played")
async def test_the_workers_refusal_speaks_the_sockets_language():
    code, tickets, game = await db(started_room)(2)
    cookie = await cookie_for(tickets[0]) + b"; " + settings.LANGUAGE_COOKIE_NAME.encode() + b"=pt-br"
    socket, _ = await open_socket(code, cookie=cookie)
    try:
        await receive_until(socket, is_type("room"), what="the seat connected")
        await socket.send_json_to({"type": "move", "seq": 0, "action": candle_for(game, 0)})
        await receive_until(socket, is_update(1), what="the pick")
        await socket.send_json_to({"type": "move", "seq": 1, "action": candle_for(game, 0), "ref": 3})
        error = await receive(socket)
        assert (error["code"], error["ref"]) == ("not_your_turn", 3)
        assert error["message"] == "Não é a sua vez de decidir."
    finally:
        await close_all(socket)


def hand_over_all(code: str, moves: list[tuple[int, int, dict]], *, batch: str = "test") -> None:
    """Queue moves as a socket would; movers are named BATCH#N, unique as a socket's are."""
    async def push():
        try:
            for number, (seat, seq, action) in enumerate(moves):
                await move_queue.hand_over(room_code=code, seat=seat, seq=seq, action=action, mover=f"{batch}#{number}",
                                           reply_to="specific.test!none", language="en", ref=None)
        finally:
            await move_queue.close_for_this_loop()

    asyncio.run(push())


def test_two_workers_play_each_queued_move_once_and_refuse_a_double_submit():
    code, _tickets, game = started_room(4)
    refusals = []
    players = [move_queue.MovePlayer(threads=2).start() for _ in range(2)]
    try:
        with mock.patch("rooms.broadcast.send_to_socket", lambda channel, message: refusals.append(message)):
            hand_over_all(code, [(seat, 0, candle_for(game, seat)) for seat in range(4)])
            wait_for(lambda: Move.objects.filter(game=game).count() == 4, what="the four picks")
            game = game_in_play(code)
            assert game.seq == 4  # the round was revealed, and the next one posed at seq 4

            twice = (0, 4, candle_for(game, 0))
            hand_over_all(code, [twice, twice], batch="again")
            wait_for(lambda: refusals, what="the second submit refused")
            time.sleep(0.3)
    finally:
        for player in players:
            player.stop()
    assert Move.objects.filter(game=game).count() == 5
    refused = [(r["code"], r["mover"]) for r in refusals]
    assert refused in ([("stale_seq", "again#1")], [("stale_seq", "again#0")])


def test_a_move_thread_whose_connections_the_server_dropped_plays_the_next_moves_on_new_ones(monkeypatch):
    """The worker keeps its connections between requests, and the health check before each request's first
    query finds one the server dropped meanwhile (its socket turned readable: Django's `SELECT 1` then runs
    and fails, config/postgresql): the move is played on a new connection instead of failing. Skipping the
    check on a connection used lately, whatever its socket said, was measured and not kept
    (docs/benchmarks.md): it would fail this move. The same for the thread's connection for the remembered
    moves' writes alone (services._statement_alone_db)."""
    if connection.vendor != "postgresql":
        pytest.skip("no server can drop SQLite's connection")
    monkeypatch.setitem(connection.settings_dict, "CONN_MAX_AGE", 60)  # kept between requests, as the site does
    backends: list[tuple[int | None, int | None]] = []  # the move thread's server processes, as each move commits
    code, _tickets, game = started_room(4)
    refusals = []
    player = move_queue.MovePlayer(threads=1).start()
    play = move_queue.play

    def noting_the_backends(payload, **kwargs):
        play(payload, **kwargs)
        writer = services._statement_alone_db()
        backends.append(tuple(None if db.connection is None else db.connection.info.backend_pid
                              for db in (connection, writer)))

    monkeypatch.setattr(move_queue, "play", noting_the_backends)
    try:
        with mock.patch("rooms.broadcast.send_to_socket", lambda channel, message: refusals.append(message)):
            for seat in (0, 1):  # the locked way, then the statement alone on the connection for it
                hand_over_all(code, [(seat, 0, candle_for(game, seat))], batch=f"before {seat}")
                wait_for(lambda played=seat + 1: len(backends) == played, what=f"seat {seat}'s pick")
            (own, writer), = set(backends[1:])
            assert own is not None and writer is not None
            with connection.cursor() as cursor:  # the server drops both of the move thread's connections
                for backend in (own, writer):
                    cursor.execute("SELECT pg_terminate_backend(%s, 5000)", [backend])  # waits until it is gone
                    assert cursor.fetchone()[0]
            for seat in (2, 3):  # alone, then the round's last pick, which reads the bots' seats, in the pipeline
                hand_over_all(code, [(seat, 0, candle_for(game, seat))], batch=f"after {seat}")
                wait_for(lambda played=seat + 1: len(backends) == played, what=f"seat {seat}'s pick after the drop")
    finally:
        player.stop()
    assert refusals == []
    assert Move.objects.filter(game=game).count() == 4
    after_own, after_writer = backends[-1]
    assert after_own not in (own, None) and after_writer not in (writer, None)  # new connections after the drop


def test_a_move_thread_renews_a_connection_near_its_age_between_requests_not_in_the_next_move(monkeypatch):
    """A connection of a move thread within the last fifth of DB_CONN_MAX_AGE after a request is replaced
    then (services.close_old_connections(renew_aging=True)): the next move finds a new one open as it
    begins, instead of finding the old one closed and waiting for a new one in its first statement. On
    PostgreSQL the same for the connection for the remembered moves' writes."""
    monkeypatch.setitem(connection.settings_dict, "CONN_MAX_AGE", 60)  # kept between requests, as the site does
    code, _tickets, game = started_room(4)
    connections_at_start: list[tuple] = []  # the thread's connections as each move begins, after the look
    player = move_queue.MovePlayer(threads=1).start()
    play = move_queue.play

    def aging_after_each(payload, **kwargs):
        dbs = [connection] + ([services._statement_alone_db()] if connection.vendor == "postgresql" else [])
        connections_at_start.append(tuple(db.connection for db in dbs))
        play(payload, **kwargs)
        for db in dbs:  # as if each had been open for 55 s of its 60
            db.close_at = time.monotonic() + 5

    monkeypatch.setattr(move_queue, "play", aging_after_each)
    try:
        for seat in (0, 1, 2, 3):  # the locked way, then remembered (on PostgreSQL, the writer's from the second)
            hand_over_all(code, [(seat, 0, candle_for(game, seat))], batch=f"aging {seat}")
            wait_for(lambda played=seat + 1: len(connections_at_start) == played and (
                Move.objects.filter(game=game).count() == played), what=f"seat {seat}'s pick")
    finally:
        player.stop()
    assert Move.objects.filter(game=game).count() == 4
    third, fourth = connections_at_start[2:]
    # open as the move began, and new each time: the renewal came between the requests
    assert None not in third and None not in fourth
    assert all(before is not after for before, after in zip(third, fourth, strict=True))


def test_the_intake_keeps_taking_after_a_take_that_failed_before_it_was_sent(monkeypatch):
    """A take that fails while it is built (here, reading its overdue mark) is logged and retried a second
    later; the intake thread must not die of it."""
    code, _tickets, game = started_room(4)
    overdue_after = move_queue.start_overdue_after
    failures = []

    def fails_once():
        if not failures:
            failures.append(1)
            raise RuntimeError("the settings could not be read")
        return overdue_after()

    monkeypatch.setattr(move_queue, "start_overdue_after", fails_once)
    player = move_queue.MovePlayer(threads=1).start()
    try:
        wait_for(lambda: failures, what="the failed take")
        hand_over_all(code, [(0, 0, candle_for(game, 0))])
        wait_for(lambda: Move.objects.filter(game=game).count() == 1, what="the move after the failed take")
        assert player.thread.is_alive()
    finally:
        player.stop()


def losing_the_reply_of_the_take_of(mover: str, monkeypatch) -> list[str]:
    """Redis runs the take that takes `mover`'s request, and its reply is lost on the way back (a dropped
    connection, or Redis silent past the socket timeout). Returns what that take took, once it has run."""
    run = move_queue._TakeLine._run
    lost: list[str] = []

    def losing(line, commands):
        replies = run(line, commands)
        taken = replies[-1][0]
        if not lost and any(f'"{mover}"' in raw for raw in taken):
            lost.extend(taken)
            line.connection.disconnect()
            raise redis.exceptions.TimeoutError("Timeout reading from socket")
        return replies

    monkeypatch.setattr(move_queue._TakeLine, "_run", losing)
    return lost


def test_a_take_whose_reply_was_lost_is_put_back_and_played(monkeypatch):
    """Redis took the move onto this worker's list, but the intake never heard which: without a look at its
    list, the move would stay there unplayed for as long as the worker lives."""
    lost = losing_the_reply_of_the_take_of("lost#0", monkeypatch)
    code, _tickets, game = started_room(4)
    player = move_queue.MovePlayer(threads=1).start()
    try:
        hand_over_all(code, [(0, 0, candle_for(game, 0))], batch="lost")
        wait_for(lambda: lost, what="the take whose reply was lost")
        wait_for(lambda: Move.objects.filter(game=game).count() == 1, what="the move put back and played")
        wait_for(lambda: live.client().llen(player.taken_key) == 0, what="the worker's list cleared")
        wait_for(lambda: not player.in_hand, what="nothing left in hand")  # forgotten just after it is cleared
        assert player.thread.is_alive()
    finally:
        player.stop()
    assert Move.objects.filter(game=game).count() == 1


def test_what_the_threads_have_in_hand_is_not_put_back_after_a_lost_reply(monkeypatch):
    """A request in play stays on the worker's list until it is played; a lost reply puts back only what the
    lost take took, not what the worker's threads hold."""
    lost = losing_the_reply_of_the_take_of("lost#0", monkeypatch)
    held_code, _tickets, held_game = started_room(4)
    code, _tickets, game = started_room(4)
    in_play, release = threading.Event(), threading.Event()
    play = move_queue.play
    played: list[str] = []

    def holding(payload, **kwargs):
        played.append(payload["mover"])
        if payload["mover"] == "held#0":
            in_play.set()
            release.wait(WAIT_SECONDS)
        play(payload, **kwargs)

    monkeypatch.setattr(move_queue, "play", holding)
    player = move_queue.MovePlayer(threads=2).start()
    moves_lane = live.key(move_queue.QUEUE)
    try:
        hand_over_all(held_code, [(0, 0, candle_for(held_game, 0))], batch="held")
        assert in_play.wait(WAIT_SECONDS)
        hand_over_all(code, [(0, 0, candle_for(game, 0))], batch="lost")
        wait_for(lambda: Move.objects.filter(game=game).count() == 1, what="the lost take's move put back and played")
        wait_for(lambda: [raw for raw in live.client().lrange(player.taken_key, 0, -1) if '"held#0"' not in raw] == [],
                 what="the worker's list holding only the move in play")
        with player.in_hand_lock:
            assert [raw for raw in player.in_hand if '"held#0"' in raw] == live.client().lrange(player.taken_key, 0, -1)
        assert live.client().llen(moves_lane) == 0
        release.set()
        wait_for(lambda: Move.objects.filter(game=held_game).count() == 1, what="the held move played")
        wait_for(lambda: live.client().llen(player.taken_key) == 0, what="the worker's list cleared")
    finally:
        release.set()
        player.stop()
    assert len(lost) == 1 and '"lost#0"' in lost[0]
    assert sorted(played) == ["held#0", "lost#0"]  # put back too, the held move would be played twice
    assert Move.objects.filter(game=held_game).count() == 1 and Move.objects.filter(game=game).count() == 1


def test_a_request_cleared_meanwhile_is_not_put_back():
    """The intake reads its list, then puts back what no thread holds; a thread that clears its request in
    between (played) leaves nothing to put back: the script moves only what is still on the list."""
    taken_key, moves_lane = live.key(move_queue.QUEUE, "taken", "test"), live.key(move_queue.QUEUE)
    live.client().rpush(taken_key, "played", "lost")
    live.client().lrem(taken_key, 1, "played")  # the thread's clear, after the intake read the list
    moved = live.client().eval(move_queue._PUT_BACK, 3, moves_lane, taken_key, moves_lane + ":bell", "played", "lost")
    assert moved == 1 and live.client().lrange(moves_lane, 0, -1) == ["lost"]
    assert live.client().llen(taken_key) == 0 and live.client().llen(moves_lane + ":bell") == 1


def failing_the_first_clear_of_a_played_request(monkeypatch) -> list[str]:
    """A move thread's own clearing of its request from the worker's list fails once (Redis unreachable just
    then). Returns the request it failed to clear, once it has."""
    execute = redis.client.Pipeline.execute
    failed: list[str] = []

    def failing_once(pipe, *args, **kwargs):
        stack = pipe.command_stack
        if not failed and stack and stack[0][0][0] == "LREM" and ":taken:" in str(stack[0][0][1]):
            failed.append(stack[0][0][3])
            pipe.reset()
            raise redis.exceptions.ConnectionError("Connection reset by peer")
        return execute(pipe, *args, **kwargs)

    monkeypatch.setattr(redis.client.Pipeline, "execute", failing_once)
    return failed


def test_a_played_request_whose_clearing_failed_is_cleared_before_the_next_take_and_never_put_back(monkeypatch):
    """Without the intake clearing it, the request stayed on the worker's list and in its memory for the
    worker's life, and was handed back to be played again when the worker stopped."""
    failed = failing_the_first_clear_of_a_played_request(monkeypatch)
    code, _tickets, game = started_room(4)
    player = move_queue.MovePlayer(threads=1).start()
    moves_lane = live.key(move_queue.QUEUE)
    try:
        hand_over_all(code, [(0, 99, candle_for(game, 0))])  # a seq the game has not reached: refused, not played
        wait_for(lambda: failed, what="the failed clear")
        wait_for(lambda: live.client().llen(player.taken_key) == 0 and not player.played_on_list,
                 what="the request cleared before the next take, and forgotten")
        with player.in_hand_lock:
            assert not player.in_hand and not player.played_on_list
        assert live.client().llen(moves_lane) == 0
    finally:
        player.stop()
    assert live.client().llen(moves_lane) == 0 and Move.objects.filter(game=game).count() == 0


def test_a_played_request_not_yet_cleared_is_not_taken_for_a_lost_take():
    player = move_queue.MovePlayer(threads=1)
    moves_lane = live.key(move_queue.QUEUE)
    live.client().rpush(player.taken_key, "played", "lost")
    player.played_on_list["played"] += 1
    player._put_back_lost_takes()
    assert live.client().lrange(moves_lane, 0, -1) == ["lost"]
    assert live.client().lrange(player.taken_key, 0, -1) == ["played"]
    player._clear_played()
    assert live.client().llen(player.taken_key) == 0 and not player.played_on_list


def test_the_sites_redis_calls_time_out_rather_than_hang():
    """A Redis that goes silent fails a call after the socket timeout, longer than any wait the site asks of
    it (the intake's, 0.5 s). redis-py's default today; pinned rather than left to the library."""
    kwargs = live.client().connection_pool.connection_kwargs
    assert kwargs["socket_timeout"] == kwargs["socket_connect_timeout"] == live.SOCKET_TIMEOUT > 0.5


def test_the_intake_sends_its_take_by_digest_and_whole_again_when_redis_has_lost_it(monkeypatch):
    """After its first take, the intake sends the take script by its digest (EVALSHA). Redis refuses a digest
    it does not have (restarted, or its scripts flushed; here, a digest it never had): that take is sent
    again at once, whole, and the move is played."""
    sent: list[list[str]] = []
    run = move_queue._TakeLine._run

    def noting(line, commands):
        sent.append([command[0] for command in commands])
        return run(line, commands)

    monkeypatch.setattr(move_queue._TakeLine, "_run", noting)
    code, _tickets, game = started_room(4)
    player = move_queue.MovePlayer(threads=1).start()
    try:
        hand_over_all(code, [(0, 0, candle_for(game, 0))], batch="first")
        wait_for(lambda: Move.objects.filter(game=game).count() == 1, what="the first move")
        assert sent[0] == ["EVAL"] and all(names[-1] == "EVALSHA" for names in sent[1:]), sent
        monkeypatch.setattr(move_queue._TakeLine, "DIGEST", hashlib.sha1(b"no such script").hexdigest())
        sent.clear()
        wait_for(lambda: ["EVAL"] in sent, what="a take refused by digest sent again whole")
        hand_over_all(code, [(1, 0, candle_for(game, 1))], batch="after")
        wait_for(lambda: Move.objects.filter(game=game).count() == 2, what="the move after the script was lost")
        assert player.thread.is_alive()
    finally:
        player.stop()


# --- a refused move is never played, and a played one is never refused -----------------------------

def hold_the_room(code: str, held: threading.Event, release: threading.Event) -> None:
    """Hold the room's row lock (on SQLite, the database's write lock) until `release`."""
    try:
        with transaction.atomic():
            list(Room.objects.select_for_update().filter(code=code))
            held.set()
            release.wait(WAIT_SECONDS)
    finally:
        connection.close()


async def told_refused(socket, move: dict) -> None:
    await socket.send_json_to(move)
    error, skipped = await receive_until(socket, is_type("error"), what="the refusal")
    assert error["code"] == "move_unanswered", error
    assert not any(m["type"] == "update" for m in skipped)


@pytest.mark.usefixtures("moves_played")
async def test_a_move_held_behind_the_rooms_lock_past_its_deadline_is_never_played():
    code, tickets, game = await db(started_room)(2)
    held, release = threading.Event(), threading.Event()
    with answering_within(0.3):
        socket, _ = await open_socket(code, cookie=await cookie_for(tickets[0]))
        holder = threading.Thread(target=hold_the_room, args=(code, held, release))
        try:
            await receive_until(socket, is_type("room"), what="the seat connected")
            before = await db(what_moves_change)(code)
            holder.start()
            assert await asyncio.to_thread(held.wait, WAIT_SECONDS)
            await told_refused(socket, {"type": "move", "seq": 0, "action": candle_for(game, 0)})
            release.set()  # the worker gets the lock now, long after its player was told
            await asyncio.to_thread(holder.join)
            await asyncio.sleep(1.0)
            assert await db(what_moves_change)(code) == before
            snapshot, _ = await receive_until(socket, is_type("snapshot"), what="the snapshot after the refusal")
            assert snapshot["seq"] == 0
            assert await socket.receive_nothing(timeout=0.5)
        finally:
            release.set()
            await close_all(socket)


@pytest.mark.usefixtures("moves_played")
async def test_a_move_a_stalled_worker_took_is_never_played_after_its_player_was_told():
    code, tickets, game = await db(started_room)(2)
    submit = services.submit_move

    def stalled(**kwargs):
        time.sleep(1.2)  # taken in time, played after the deadline and the socket's margin
        return submit(**kwargs)

    with answering_within(0.3), mock.patch.object(services, "submit_move", stalled):
        socket, _ = await open_socket(code, cookie=await cookie_for(tickets[0]))
        try:
            await receive_until(socket, is_type("room"), what="the seat connected")
            before = await db(what_moves_change)(code)
            await told_refused(socket, {"type": "move", "seq": 0, "action": candle_for(game, 0)})
            await asyncio.sleep(1.2)
            assert await db(what_moves_change)(code) == before
            await receive_until(socket, is_type("snapshot"), what="the snapshot after the refusal")
            assert await socket.receive_nothing(timeout=0.5)
        finally:
            await close_all(socket)


@pytest.mark.usefixtures("moves_played")
async def test_a_move_the_worker_claimed_before_its_deadline_is_played_and_never_refused():
    code, tickets, game = await db(started_room)(2)
    claim = move_queue.claim_played

    def slow_commit(payload, *args):
        claim(payload, *args)
        time.sleep(1.2)  # the commit lands after the socket's own deadline for it

    with answering_within(0.3), mock.patch.object(move_queue, "claim_played", slow_commit):
        socket, _ = await open_socket(code, cookie=await cookie_for(tickets[0]))
        try:
            await receive_until(socket, is_type("room"), what="the seat connected")
            await socket.send_json_to({"type": "move", "seq": 0, "action": candle_for(game, 0)})
            update, skipped = await receive_until(socket, is_update(1), what="the pick")
            assert not any(m["type"] == "error" for m in skipped), skipped
            await asyncio.sleep(0.8)
            assert await socket.receive_nothing(timeout=0.3)
            assert await db(lambda: Move.objects.filter(game__room_code=code).count())() == 1
        finally:
            await close_all(socket)


def test_requests_a_dead_worker_had_taken_are_played_by_the_next_one():
    code, _tickets, game = started_room(2)
    hand_over_all(code, [(0, 0, candle_for(game, 0))])
    redis_client, queue = live.client(), live.key(move_queue.QUEUE)
    dead = live.key(move_queue.QUEUE, "taken", "dead")
    assert redis_client.lmove(queue, dead, "LEFT", "RIGHT")  # taken, then the worker was killed
    redis_client.sadd(live.key(move_queue.QUEUE, "takers"), "dead")
    player = move_queue.MovePlayer(threads=1).start()
    try:
        wait_for(lambda: Move.objects.filter(game=game).count() == 1, what="the recovered move played")
    finally:
        player.stop()
    assert redis_client.llen(dead) == 0 and redis_client.llen(queue) == 0
    assert not redis_client.sismember(live.key(move_queue.QUEUE, "takers"), "dead")


def test_a_stopped_intake_gives_its_connection_back_to_the_pool():
    """The intake's take line borrows one connection for as long as the worker runs; stopping gives it back,
    so a worker started and stopped again (as tests and a restarted worker's process do) leaves the pool's
    count of connections in use as it found it."""
    pool = live.client().connection_pool
    in_use_before = set(pool._in_use_connections)
    code, _tickets, game = started_room(4)
    player = move_queue.MovePlayer(threads=1).start()
    try:
        hand_over_all(code, [(0, 0, candle_for(game, 0))], batch="first")
        wait_for(lambda: Move.objects.filter(game=game).count() == 1, what="the first move")
        assert len(pool._in_use_connections - in_use_before) >= 1  # the take line's, held while it runs
    finally:
        player.stop()
    assert set(pool._in_use_connections) <= in_use_before
