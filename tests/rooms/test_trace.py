"""Moves traced for the live-load benchmark (rooms/trace.py, WICKWISE_TRACE_MOVES): each stage of the
hand-over is stamped, Redis's clock as the push lands and as the take runs among them, and the move is
played as it is untraced."""

from __future__ import annotations

import time
from unittest import mock

import pytest
from channels.db import database_sync_to_async

from rooms import trace
from tests.rooms.helpers import (
    candle_for,
    close_all,
    cookie_for,
    fresh_channel_layer,  # noqa: F401 (a fixture)
    is_type,
    is_update,
    open_socket,
    receive_until,
    started_room,
)

db = database_sync_to_async

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_channel_layer")]

HAND_OVER = ("sent", "landed", "took", "replied", "taken", "begun")  # in this order, for every move
INTAKE = ("ready", "upkeep", "looked", "slot", "asked")  # the intake's, before its take was sent


@pytest.fixture
def traced():
    with mock.patch.object(trace, "ON", True):
        yield


@pytest.mark.usefixtures("traced", "moves_played")
async def test_a_traced_move_carries_each_stamp_of_its_hand_over_in_order():
    code, tickets, game = await db(started_room)(2)
    socket, _ = await open_socket(code, cookie=await cookie_for(tickets[0]))
    try:
        await receive_until(socket, is_type("room"), what="the seat connected")
        before = time.time()
        await socket.send_json_to({"type": "move", "seq": 0, "action": candle_for(game, 0)})
        update, _ = await receive_until(socket, is_update(1), what="the move's update")
        assert update["view"]["my_pick"] == candle_for(game, 0)["candle"]
        stamps = update["trace"]
        on_the_way = [stamps[name] for name in HAND_OVER]
        assert before <= on_the_way[0] and on_the_way == sorted(on_the_way), stamps
        intake = [stamps[name] for name in INTAKE]
        assert intake == sorted(intake) and intake[-1] <= stamps["took"], stamps
        assert stamps["waited"] in (0, 1) and (stamps["prior"] is None or stamps["prior"] <= stamps["took"])
    finally:
        await close_all(socket)
