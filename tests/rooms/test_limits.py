"""Limits: every frame counts against the socket's rate (binary and oversized ones too), a seat and a client
address hold a few sockets each, one client's many sockets share one budget, the open HTTP endpoints are
throttled per client in Redis, and the JSON API takes nothing but application/json."""

from __future__ import annotations

import asyncio
import contextlib
import json
import types
from unittest import mock

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import override_settings

from rooms import live, throttle
from rooms.models import Room
from tests.rooms.helpers import (
    ORIGIN,
    WAIT_SECONDS,
    captured_broadcasts,
    close_all,
    cookie_for,
    fresh_channel_layer,  # noqa: F401 (a fixture)
    new_room,
    receive,
    socket_on,
    started_room,
)

db = database_sync_to_async


def limits(**changes):
    return override_settings(WICKWISE={**settings.WICKWISE, **changes})


async def socket_from(address: str, code: str, *, cookie: bytes | None = None):
    """A socket on the room as a client at `address` sees it; returns it and whether it was accepted."""
    from config.asgi import application

    headers = [(b"host", b"testserver"), (b"origin", ORIGIN)] + ([(b"cookie", cookie)] if cookie else [])
    socket = WebsocketCommunicator(application, f"/ws/rooms/{code}/", headers=headers)
    socket.scope["client"] = (address, 40000)
    connected, close_code = await socket.connect(timeout=WAIT_SECONDS)
    return socket, connected, close_code


async def first_messages(socket, count: int) -> list[dict]:
    return [await receive(socket) for _ in range(count)]


sockets = pytest.mark.usefixtures("fresh_channel_layer")


@sockets
@pytest.mark.django_db(transaction=True)
async def test_binary_and_oversized_frames_count_against_the_rate_too():
    code, _tickets, _game = await db(started_room)(2)
    burst = settings.WICKWISE["WS_RATE_BURST"]
    with limits(WS_RATE_PER_SECOND=0):
        socket, connected, _ = await socket_from("10.0.0.1", code)
        assert connected
        try:
            assert (await receive(socket))["type"] == "snapshot"
            oversized = "x" * (settings.WICKWISE["WS_MAX_MESSAGE_BYTES"] + 1)
            for number in range(burst + 4):
                if number % 2:
                    await socket.send_to(bytes_data=b"\x00" * 10)
                else:
                    await socket.send_to(text_data=oversized)
            codes = [message["code"] for message in await first_messages(socket, burst + 4)]
            assert set(codes[:burst]) == {"bad_message", "too_large"}
            assert codes[burst:] == ["rate_limited"] * 4
        finally:
            await close_all(socket)


@sockets
@pytest.mark.django_db(transaction=True)
async def test_a_seat_holds_a_few_sockets_and_one_more_only_watches():
    code, tickets, _game = await db(started_room)(2)
    cookie = await cookie_for(tickets[0])
    opened = []
    with limits(WS_MAX_SOCKETS_PER_SEAT=2):
        try:
            for _number in range(2):
                socket, connected, _ = await socket_from("10.0.0.2", code, cookie=cookie)
                opened.append(socket)
                assert connected
                snapshot = await receive(socket)
                assert snapshot["you"]["seat"] == 0
            socket, connected, _ = await socket_from("10.0.0.2", code, cookie=cookie)
            opened.append(socket)
            error = await receive(socket)
            assert (error["type"], error["code"]) == ("error", "too_many_sockets") and error["message"]
            snapshot = await receive(socket)
            assert snapshot["type"] == "snapshot" and snapshot["you"]["seat"] is None
        finally:
            await close_all(*opened)


async def seat_and_refusal(socket) -> tuple[int | None, bool]:
    """The seat a socket's first snapshot gives it, and whether it was told the seat is full first."""
    told_full = False
    while True:
        message = await receive(socket)
        if message["type"] == "snapshot":
            return message["you"]["seat"], told_full
        told_full |= message.get("code") == "too_many_sockets"


@sockets
@pytest.mark.django_db(transaction=True)
async def test_sockets_opened_on_one_seat_at_once_fit_its_limit_and_the_rest_watch():
    """Each socket counts the seat's others and takes its place in one step: counted first and seated later,
    a burst of them all saw room for themselves."""
    code, tickets, _game = await db(started_room)(2)
    cookie = await cookie_for(tickets[0])
    with limits(WS_MAX_SOCKETS_PER_SEAT=2):
        opened = await asyncio.gather(*(socket_from(f"10.0.1.{number}", code, cookie=cookie) for number in range(6)))
        try:
            assert all(connected for _socket, connected, _code in opened)
            outcomes = [await seat_and_refusal(socket) for socket, _connected, _code in opened]
            assert sorted(outcomes, key=str) == [(0, False)] * 2 + [(None, True)] * 4
        finally:
            await close_all(*(socket for socket, _connected, _code in opened))


@pytest.mark.django_db(transaction=True)
def test_a_socket_refused_a_full_seat_writes_nothing_and_one_holding_it_is_never_refused():
    code, _tickets, _game = started_room(2)
    with limits(WS_MAX_SOCKETS_PER_SEAT=1):
        assert socket_on(code, "tab-1")._seat_and_snapshot(seat=1)[0]
        live.seat_back(code, 1, "tab-2")  # a second socket, as a lapsed tab's ping brings it back
        with captured_broadcasts() as sent:
            assert socket_on(code, "tab-3")._seat_and_snapshot(seat=1) == (False, None)
            assert not socket_on(code, "tab-1")._seat_and_snapshot(seat=1)[0]  # over the limit now
            seated, snapshot = socket_on(code, "tab-1")._seat_and_snapshot(seat=1, holding=True)
        assert seated and snapshot["you"] == {"seat": 1}
        assert [message["type"] for _group, message in sent] == ["room.update"]  # the holder's alone
        assert "1|tab-3" not in live.queue_connected_seats(live.client(), code)


@sockets
@pytest.mark.django_db(transaction=True)
async def test_a_client_address_holds_a_few_sockets_and_its_closed_ones_count_no_more():
    code = (await db(new_room)(2)).room_code
    with limits(WS_MAX_SOCKETS_PER_ADDRESS=2):
        first, connected, _ = await socket_from("10.0.0.3", code)
        assert connected
        second, connected, _ = await socket_from("10.0.0.3", code)
        assert connected
        third, connected, _ = await socket_from("10.0.0.3", code)
        assert connected, "accepted, so that the client sees the close code (a refused handshake is HTTP 403)"
        assert await third.receive_output(timeout=WAIT_SECONDS) == {"type": "websocket.close", "code": 4429}
        elsewhere, connected, _ = await socket_from("10.0.0.4", code)
        assert connected  # another client is not held back
        await close_all(second)
        again, connected, _ = await socket_from("10.0.0.3", code)
        assert connected
        await close_all(first, again, elsewhere, third)


@sockets
@pytest.mark.django_db(transaction=True)
async def test_one_clients_many_sockets_share_one_budget_and_others_keep_theirs():
    code = (await db(new_room)(2)).room_code
    with limits(WS_ADDRESS_RATE_PER_SECOND=0, WS_ADDRESS_RATE_BURST=10, WS_RATE_PER_SECOND=0):
        flood = [(await socket_from("10.0.0.5", code))[0] for _ in range(3)]
        calm, _, _ = await socket_from("10.0.0.6", code)
        try:
            for socket in [*flood, calm]:
                assert (await receive(socket))["type"] == "snapshot"
            for socket in flood:
                for _number in range(6):
                    await socket.send_json_to({"type": "ping"})
            answers = [(await receive(socket))["type"] for socket in flood for _number in range(6)]
            assert answers.count("pong") == 10 and answers.count("error") == 8
            await calm.send_json_to({"type": "ping"})
            assert (await receive(calm))["type"] == "pong"
        finally:
            await close_all(*flood, calm)


# --- HTTP -------------------------------------------------------------------------------------------------

@contextlib.contextmanager
def throttles(**kinds):
    """The counters are fixed windows: the throttle's clock is held mid-window, else a slow run that crosses a
    window's end starts a fresh count halfway through the test (seen once under load)."""
    mid_window = 1_800_000_030.0  # 30 s into a 60 s window
    held_clock = types.SimpleNamespace(time=lambda: mid_window)
    with limits(THROTTLES={**settings.WICKWISE["THROTTLES"], **kinds}), mock.patch.object(throttle, "time", held_clock):
        yield


def post_json(client, url: str, body: dict, **extra):
    return client.post(url, json.dumps(body), content_type="application/json", **extra)


@pytest.mark.django_db
def test_opening_rooms_is_throttled_per_client_with_the_json_error_shape(client):
    body = {"game": "candles", "seats": 2, "name": "Ana"}
    with throttles(create=(2, 60)):
        assert [post_json(client, "/api/rooms/", body).status_code for _ in range(2)] == [201, 201]
        refused = post_json(client, "/api/rooms/", body)
        assert refused.status_code == 429 and refused.json()["error"]["code"] == "rate_limited"
        assert refused.json()["error"]["message"]
        assert Room.objects.count() == 2
        form = client.post("/play/candles/bots/", {"name": "Ana"})
        assert form.status_code == 429 and b"Too many requests" in form.content
        assert Room.objects.count() == 2
        other = post_json(client, "/api/rooms/", body, REMOTE_ADDR="10.9.9.9")
        assert other.status_code == 201


@pytest.mark.django_db
def test_joining_looking_up_and_return_codes_are_throttled_per_client(client):
    code = new_room(4).room_code
    with throttles(join=(1, 60), lookup=(2, 60), **{"return": (2, 60)}):
        assert post_json(client, f"/api/rooms/{code}/join/", {"name": "Bo"}).status_code == 201
        assert post_json(client, f"/api/rooms/{code}/join/", {"name": "Cy"}).status_code == 429
        assert [client.get(f"/api/rooms/{guess}/").status_code for guess in ("AAAAAA", "BBBBBB")] == [404, 404]
        assert client.get(f"/api/rooms/{code}/").status_code == 429  # even the right code, once over
        assert client.get(f"/r/{code}/").status_code == 429
        tries = [client.post("/return/", {"return_code": f"AAAA-BBBB-CCCC-DDD{n}"}).status_code for n in range(3)]
        assert tries == [200, 200, 429]


@pytest.mark.django_db
def test_the_json_api_takes_only_application_json(client):
    body = json.dumps({"game": "candles", "seats": 2, "name": "Ana"})
    for content_type in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"):
        response = client.post("/api/rooms/", body, content_type=content_type)
        assert response.status_code == 415 and response.json()["error"]["code"] == "bad_content_type"
    code = new_room(3).room_code
    assert client.post(f"/api/rooms/{code}/join/", '{"name": "Bo"}', content_type="text/plain").status_code == 415
    assert Room.objects.count() == 1
    assert post_json(client, "/api/rooms/", json.loads(body)).status_code == 201
