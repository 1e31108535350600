"""Moves and starts sent on sockets are played by the worker (rooms/move_queue.py): answered once, in time,
in the socket's language, or refused at their deadline and never played after it."""

from __future__ import annotations

import asyncio
import time
from unittest import mock

import pytest
from channels.db import database_sync_to_async
from django.conf import settings
from django.test import override_settings

from rooms import move_queue
from rooms.models import Move
from tests.rooms.helpers import (
    candle_for,
    close_all,
    cookie_for,
    fresh_channel_layer,  # noqa: F401 (a fixture)
    game_in_play,
    is_type,
    is_update,
    moves_played,  # noqa: F401 (a fixture)
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


def hand_over_all(code: str, moves: list[tuple[int, int, dict]]) -> None:
    async def push():
        try:
            for number, (seat, seq, action) in enumerate(moves):
                await move_queue.hand_over(room_code=code, seat=seat, seq=seq, action=action, mover=f"test#{number}",
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
            hand_over_all(code, [twice, twice])
            wait_for(lambda: refusals, what="the second submit refused")
            time.sleep(0.3)
    finally:
        for player in players:
            player.stop()
    assert Move.objects.filter(game=game).count() == 5
    assert [(r["code"], r["mover"]) for r in refusals] in ([("stale_seq", "test#1")], [("stale_seq", "test#0")])
