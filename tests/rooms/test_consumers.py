"""The room socket on config.asgi.application, with the real Redis channel layer and the real database."""

from __future__ import annotations

import asyncio
import importlib.util
import json
from unittest import mock

import pytest
from autobahn.exception import Disconnected
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client, override_settings
from redis.exceptions import ConnectionError as RedisConnectionError

from games.candles import engine
from rooms import broadcast, drafts, live
from rooms.models import Game
from tests.rooms.helpers import (
    ROOT,
    WAIT_SECONDS,
    candle_for,
    close_all,
    cookie_for,
    fresh_channel_layer,  # noqa: F401 (a fixture)
    game_in_play,
    is_type,
    is_update,
    open_socket,
    play_pending,
    receive,
    receive_until,
    room_with,
    started_room,
    what_moves_change,
)

db = database_sync_to_async

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_channel_layer", "moves_played")]


async def seated(code: str, ticket):
    """A socket of the browser that holds `ticket`'s seat (its session cookie), and its snapshot."""
    return await open_socket(code, cookie=await cookie_for(ticket))


def own_view_only(view: dict, state: dict, seat: int) -> None:
    assert view == engine.view(state, seat)
    assert view["seat"] == seat and view["hand"] == state["hands"][seat]
    others = {c for s, hand in enumerate(state["hands"]) if s != seat for c in hand}
    assert not others & set(view["hand"])
    assert "hands" not in view and "deck" not in view and "picks" not in view


async def settled(socket, seats_connected: set[int]):
    """Read room messages until the room shows exactly these seats connected."""
    message, _ = await receive_until(
        socket,
        lambda m: m["type"] == "room" and {s["index"] for s in m["room"]["seats"] if s["connected"]} == seats_connected,
        what=f"seats {sorted(seats_connected)} connected",
    )
    return message


# --- connecting -------------------------------------------------------------------------------------

async def test_a_socket_to_a_room_that_does_not_exist_is_closed():
    from config.asgi import application

    socket = WebsocketCommunicator(application, "/ws/rooms/ZZZZZZ/",
                                   headers=[(b"host", b"testserver"), (b"origin", b"http://testserver")])
    connected, _ = await socket.connect(timeout=WAIT_SECONDS)
    assert connected, "accepted, so that the client sees the close code (a refused handshake is HTTP 403)"
    assert await socket.receive_output(timeout=WAIT_SECONDS) == {"type": "websocket.close", "code": 4404}
    await close_all(socket)


async def test_a_seat_gets_a_snapshot_with_its_own_view_only():
    code, tickets, game = await db(started_room)(3)
    socket, snapshot = await seated(code, tickets[1])
    try:
        assert snapshot["you"] == {"seat": 1} and snapshot["seq"] == 0
        assert snapshot["room"]["code"] == code and [s["taken"] for s in snapshot["room"]["seats"]] == [True] * 3
        assert snapshot["game"]["status"] == "playing" and snapshot["game"]["seed"] is None
        assert snapshot["game"]["fingerprint"] == game.fingerprint and game.seed not in json.dumps(snapshot)
        assert snapshot["game"]["to_act"] == [0, 1, 2]
        own_view_only(snapshot["view"], game.state, 1)
    finally:
        await close_all(socket)


async def test_a_spectator_gets_the_public_view():
    code, _tickets, game = await db(started_room)(2)
    socket, snapshot = await open_socket(code)
    try:
        assert snapshot["you"] == {"seat": None}
        assert snapshot["view"] == engine.view(game.state, None)
        assert "hand" not in snapshot["view"] and "my_pick" not in snapshot["view"]
        assert game.seed not in json.dumps(snapshot)
    finally:
        await close_all(socket)


def browsers_through_the_lobby() -> tuple[str, Client, Client]:
    """A host creates a room and a friend joins it, through the lobby pages, each in their own browser."""
    host, friend = Client(), Client()
    response = host.post("/play/candles/new/", {"candles-name": "Ada", "candles-seats": "3",
                                                "candles-option_round_seconds": "30"})
    assert response.status_code == 302, response.content
    code = response["Location"].rstrip("/").rsplit("/", 1)[-1]
    response = friend.post("/join/", {"code": code.lower(), "name": "Grace"})
    assert response.status_code == 302
    return code, host, friend


def cookie_of(browser: Client) -> bytes:
    return f"{settings.SESSION_COOKIE_NAME}={browser.cookies[settings.SESSION_COOKIE_NAME].value}".encode()


async def test_the_lobby_pages_session_cookie_identifies_the_seat():
    code, host, friend = await db(browsers_through_the_lobby)()
    host_socket, host_snapshot = await open_socket(code, cookie=cookie_of(host))
    friend_socket, friend_snapshot = await open_socket(code, cookie=cookie_of(friend))
    try:
        assert host_snapshot["you"] == {"seat": 0} and friend_snapshot["you"] == {"seat": 1}
        assert friend_snapshot["game"]["status"] == "lobby" and friend_snapshot["view"] is None
        assert friend_snapshot["room"]["next_game"]["number"] == 1
        await settled(host_socket, {0, 1})
        await host_socket.send_json_to({"type": "start"})
        update, _ = await receive_until(friend_socket, is_update(0), what="the start")
        game = await db(game_in_play)(code)
        assert update["events"] == [{"type": "start"}]
        own_view_only(update["view"], game.state, 1)
        assert [p["bot"] for p in update["game"]["players"]] == [False, False, True]
    finally:
        await close_all(host_socket, friend_socket)


# --- playing ------------------------------------------------------------------------------------------

async def test_a_move_reaches_every_seat_with_its_own_view():
    code, tickets = await db(room_with)(2)
    host, _ = await seated(code, tickets[0])
    guest, _ = await seated(code, tickets[1])
    watcher, _ = await open_socket(code)
    sockets = {0: host, 1: guest, None: watcher}
    try:
        await host.send_json_to({"type": "client_seed", "value": "host-seed"})
        room, _ = await receive_until(guest, lambda m: m["type"] == "room" and m["room"]["seats"][0]["client_seed"],
                                      what="the host's client seed")
        assert room["room"]["seats"][1]["client_seed"] is False
        await host.send_json_to({"type": "start"})
        for socket in sockets.values():
            update, _ = await receive_until(socket, is_update(0), what="the start")
            assert update["events"] == [{"type": "start"}] and update["game"]["status"] == "playing"
            assert update["game"]["client_seeds"] == ["host-seed", None]
        game = await db(game_in_play)(code)
        candle = game.state["hands"][0][0]

        await host.send_json_to({"type": "move", "seq": 0, "action": {"type": "play", "candle": candle}})
        received = {}
        for seat, socket in sockets.items():
            received[seat], skipped = await receive_until(socket, is_type("update"), what="the move")
            assert all(m["type"] == "room" for m in skipped)
        game = await db(game_in_play)(code)
        assert game.seq == 1 and game.state["picks"] == [candle, None]
        for seat, update in received.items():
            assert update["seq"] == update["game"]["seq"] == 1
            assert update["events"] == [{"type": "picked", "seat": 0}]
            assert update["view"] == engine.view(game.state, seat)
            if seat is None:
                assert "hand" not in update["view"]
            else:
                own_view_only(update["view"], game.state, seat)
        assert received[0]["view"]["my_pick"] == candle and candle not in received[0]["view"]["hand"]
        assert received[1]["view"]["my_pick"] is None

        # The guest answers the same decision (posed at seq 0): the round is revealed to everyone.
        await guest.send_json_to({"type": "move", "seq": 0, "action": candle_for(game, 1)})
        for seat, socket in sockets.items():
            received[seat] = await receive(socket)
        game = await db(game_in_play)(code)
        for seat, update in received.items():
            assert update["type"] == "update" and update["seq"] == 2
            assert [e["type"] for e in update["events"]][:2] == ["picked", "reveal"]
            assert update["view"] == engine.view(game.state, seat) and update["view"]["round"] == 2
    finally:
        await close_all(*sockets.values())


async def test_ping_gets_pong_and_sync_gets_a_fresh_snapshot():
    code, tickets, game = await db(started_room)(2)
    socket, _ = await seated(code, tickets[0])
    try:
        await db(play_pending)(code, seats=[1])
        await socket.send_json_to({"type": "ping"})
        pong, _ = await receive_until(socket, is_type("pong"), what="pong")
        # Where the game and the room stand, so that a client that lost a message can tell.
        position = pong["position"]
        assert {k: v for k, v in position.items() if k != "room_digest"} == {
            "number": 1, "seq": 1, "status": "playing", "paused": False}
        await socket.send_json_to({"type": "sync"})
        snapshot, _ = await receive_until(socket, is_type("snapshot"), what="a snapshot")
        assert snapshot["room_digest"] == position["room_digest"]
        assert snapshot["seq"] == 1 and snapshot["you"] == {"seat": 0}
        assert snapshot["view"]["picked"] == [False, True] and snapshot["view"]["my_pick"] is None
    finally:
        await close_all(socket)


async def test_a_stale_move_is_refused_to_that_socket_alone_with_a_fresh_snapshot():
    code, tickets, game = await db(started_room)(2)
    await db(play_pending)(code)  # round 1 is over: seq 2, both seats decide again
    first, _ = await seated(code, tickets[0])
    await settled(first, {0})
    second, _ = await seated(code, tickets[1])
    await settled(first, {0, 1})
    await settled(second, {0, 1})
    try:
        game = await db(game_in_play)(code)
        before = await db(what_moves_change)(code)
        await first.send_json_to({"type": "move", "seq": 1, "action": candle_for(game, 0), "ref": 7})
        error = await receive(first)
        assert (error["type"], error["code"], error["ref"]) == ("error", "stale_seq", 7) and error["message"]
        snapshot = await receive(first)
        assert snapshot["type"] == "snapshot" and snapshot["seq"] == 2
        own_view_only(snapshot["view"], game.state, 0)
        assert await db(what_moves_change)(code) == before

        # Nothing reached the other socket: the next thing it hears of is the next real move.
        await first.send_json_to({"type": "move", "seq": 2, "action": candle_for(game, 0)})
        update = await receive(second)
        assert update["type"] == "update" and update["seq"] == 3
    finally:
        await close_all(first, second)


@pytest.mark.parametrize("message, code_expected", [
    ({"type": "move", "seq": 0, "action": {"type": "play", "candle": 0}}, "illegal:not_in_hand"),
    ({"type": "move", "seq": 0, "action": "play"}, "illegal:bad_action"),
    ({"type": "move", "seq": "0", "action": {"type": "play", "candle": 1}}, "bad_seq"),
    ({"type": "move", "action": {"type": "play", "candle": 1}}, "bad_seq"),
    ({"type": "start"}, "not_host"),
    ({"type": "client_seed", "value": "too-late"}, "game_started"),
    ({"type": "auth", "return_code": "AAAA-BBBB-CCCC-DDDD"}, "bad_return_code"),
    ({"type": "auth", "return_code": 12}, "bad_return_code"),
])
async def test_a_refused_request_gets_its_error_and_changes_nothing(message, code_expected):
    code, tickets, _game = await db(started_room)(2)
    socket, _ = await seated(code, tickets[1])
    try:
        await settled(socket, {1})
        before = await db(what_moves_change)(code)
        await socket.send_json_to(message)
        error = await receive(socket)
        assert (error["type"], error["code"]) == ("error", code_expected) and error["message"]
        assert await db(what_moves_change)(code) == before
    finally:
        await close_all(socket)


async def test_a_seat_that_already_picked_is_told_it_is_not_its_turn():
    code, tickets, game = await db(started_room)(3)
    socket, _ = await seated(code, tickets[0])
    try:
        await settled(socket, {0})
        await socket.send_json_to({"type": "move", "seq": 0, "action": candle_for(game, 0)})
        await receive_until(socket, is_update(1), what="the pick")
        before = await db(what_moves_change)(code)
        await socket.send_json_to({"type": "move", "seq": 1, "action": candle_for(game, 0)})
        error = await receive(socket)
        assert (error["type"], error["code"]) == ("error", "not_your_turn")
        assert await db(what_moves_change)(code) == before
    finally:
        await close_all(socket)


async def test_only_the_host_starts_and_a_spectator_cannot_play():
    code, tickets = await db(room_with)(2, 3)
    guest, _ = await seated(code, tickets[1])
    watcher, _ = await open_socket(code)
    try:
        await settled(guest, {1})
        before = await db(what_moves_change)(code)
        await guest.send_json_to({"type": "start"})
        assert (await receive(guest))["code"] == "not_host"
        for message in ({"type": "start"}, {"type": "move", "seq": 0, "action": {}},
                        {"type": "client_seed", "value": "abc"}, {"type": "play_again"}):
            await watcher.send_json_to(message)
            error, _ = await receive_until(watcher, is_type("error"), what="a refusal")  # past any room news
            assert error["code"] == "no_seat"
        assert await db(what_moves_change)(code) == before
    finally:
        await close_all(guest, watcher)


# --- bad frames ---------------------------------------------------------------------------------------

BAD_FRAMES = [
    ("text", "{not json", "bad_json"),
    ("text", "[" * 2000 + "]" * 2000, "bad_json"),  # nested deeper than the parser goes
    ("text", "[1, 2]", "bad_type"),
    ("text", '"move"', "bad_type"),
    ("text", '{"seq": 0}', "bad_type"),
    ("text", '{"type": "dance"}', "bad_type"),
    ("text", '{"type": ["move"]}', "bad_type"),
    ("text", '{"type": {"move": 1}}', "bad_type"),
    ("bytes", b'{"type": "ping"}', "bad_message"),
]


async def test_bad_frames_get_an_error_each_and_change_nothing():
    code, tickets, game = await db(started_room)(2)
    sender, _ = await seated(code, tickets[0])
    await settled(sender, {0})
    other, _ = await seated(code, tickets[1])
    await settled(sender, {0, 1})
    await settled(other, {0, 1})
    move = {"type": "move", "seq": 0, "action": candle_for(game, 0)}
    oversized = json.dumps({**move, "padding": "x" * 4096})
    try:
        before = await db(what_moves_change)(code)
        frames = [*BAD_FRAMES, ("text", oversized, "too_large")]
        for kind, frame, code_expected in frames:
            if kind == "bytes":
                await sender.send_to(bytes_data=frame)
            else:
                await sender.send_to(text_data=frame)
            error = await receive(sender)
            assert (error["type"], error["code"]) == ("error", code_expected), frame[:40]
            assert error["message"]
        assert await db(what_moves_change)(code) == before

        # The socket still works, and the other one heard nothing before this real move.
        await sender.send_json_to(move)
        for socket in (sender, other):
            update = await receive(socket)
            assert update["type"] == "update" and update["seq"] == 1, update
    finally:
        await close_all(sender, other)


async def test_sixty_messages_at_once_are_rate_limited():
    code, tickets, game = await db(started_room)(2)
    # No refill during the test, so exactly the burst gets through whatever the machine's speed.
    limits = {**settings.WICKWISE, "WS_RATE_PER_SECOND": 0}
    with override_settings(WICKWISE=limits):
        socket, _ = await seated(code, tickets[0])
        try:
            await settled(socket, {0})
            before = await db(what_moves_change)(code)
            burst = settings.WICKWISE["WS_RATE_BURST"]
            move = {"type": "move", "seq": 0, "action": candle_for(game, 0)}
            for number in range(60):
                await socket.send_json_to({"type": "ping"} if number < burst else move)
            replies = [await receive(socket) for _ in range(60)]
            assert [reply["type"] for reply in replies[:burst]] == ["pong"] * burst
            assert [(r["type"], r["code"]) for r in replies[burst:]] == [("error", "rate_limited")] * (60 - burst)
            assert await db(what_moves_change)(code) == before
        finally:
            await close_all(socket)


# --- return codes over the socket ---------------------------------------------------------------------

async def test_a_program_takes_its_seat_with_its_return_code():
    code, tickets, game = await db(started_room)(2)
    _other_code, other_tickets = await db(room_with)(1, 2)
    socket, snapshot = await open_socket(code)
    try:
        assert snapshot["you"] == {"seat": None}
        await socket.send_json_to({"type": "auth", "return_code": other_tickets[0].return_code})
        error = await receive(socket)
        assert (error["type"], error["code"]) == ("error", "bad_return_code")  # a seat in another room

        await socket.send_json_to({"type": "auth", "return_code": tickets[1].return_code.lower().replace("-", "")})
        snapshot, _ = await receive_until(socket, is_type("snapshot"), what="the seat's snapshot")
        assert snapshot["you"] == {"seat": 1}
        own_view_only(snapshot["view"], game.state, 1)
        assert 1 in await db(live.connected_seats)(code)

        await socket.send_json_to({"type": "move", "seq": 0, "action": candle_for(game, 1)})
        update, _ = await receive_until(socket, is_update(1), what="the move")
        assert update["view"]["my_pick"] == game.state["hands"][1][0]
        moves = await db(lambda: list(Game.objects.get(pk=game.pk).moves.values_list("seat", "by")))()
        assert moves == [(1, "player")]
    finally:
        await close_all(socket)


async def test_a_program_that_moves_to_another_seat_and_meets_a_redis_failure_holds_the_new_seat():
    """The seat is the socket's before its trip to take it: if Redis fails meanwhile, the socket is told
    `busy` and holds the new seat (its pings renew it, its disconnect leaves it), never the one it left."""
    code, tickets, _game = await db(started_room)(3)
    socket, _snapshot = await open_socket(code)
    try:
        await socket.send_json_to({"type": "auth", "return_code": tickets[1].return_code})
        await receive_until(socket, is_type("snapshot"), what="seat 1's snapshot")
        with mock.patch.object(drafts, "shown", side_effect=RedisConnectionError("down")):
            await socket.send_json_to({"type": "auth", "return_code": tickets[2].return_code})
            busy, _ = await receive_until(socket, is_type("error"), what="the failure")
        assert busy["code"] == "busy"
        assert await db(live.connected_seats)(code) >= {2} and 1 not in await db(live.connected_seats)(code)
        await socket.send_json_to({"type": "sync"})
        snapshot, _ = await receive_until(socket, is_type("snapshot"), what="a fresh snapshot")
        assert snapshot["you"] == {"seat": 2}
    finally:
        await close_all(socket)
    assert 2 not in await db(live.connected_seats)(code)


# --- origins ------------------------------------------------------------------------------------------

def application_for_allowed_hosts():
    """config/asgi.py built afresh: AllowedHostsOriginValidator reads ALLOWED_HOSTS when it is built."""
    spec = importlib.util.spec_from_file_location("asgi_under_test", ROOT / "config" / "asgi.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.application


@override_settings(ALLOWED_HOSTS=["testserver"])
async def test_a_socket_from_a_foreign_origin_is_refused():
    application = application_for_allowed_hosts()
    code, _tickets = await db(room_with)(1, 2)
    for origin in (b"http://evil.example", b"http://testserver.evil.example", b"null", None):
        headers = [(b"origin", origin)] if origin else []
        socket = WebsocketCommunicator(application, f"/ws/rooms/{code}/", headers=headers)
        connected, _close_code = await socket.connect(timeout=WAIT_SECONDS)
        await close_all(socket)
        assert not connected, origin
    socket, snapshot = await open_socket(code, origin=b"http://testserver", application=application)
    try:
        assert snapshot["room"]["code"] == code
    finally:
        await close_all(socket)


def own_channel(layer) -> str:
    (channel,) = [name for name in layer.channels if name.startswith(layer.prefix + "specific.")]
    return channel


def subscribed(layer, channel: str) -> bool:
    """Whether this process still listens on the channel: its queue, or its subscription in Redis."""
    return channel in layer.channels or channel in layer._get_shard(channel)._subscribed_to


async def test_a_closed_socket_lets_go_of_its_channel_and_its_groups():
    """Closing the socket unsubscribes its channel and leaves its groups: a channel left subscribed keeps a
    queue and a Redis subscription for the life of the process."""
    from channels.layers import get_channel_layer

    code, tickets, _game = await db(started_room)(2)
    socket, _ = await seated(code, tickets[0])
    layer = get_channel_layer()._get_layer()  # the pub/sub layer of this loop
    channel = own_channel(layer)
    assert any(channel in members for members in layer.groups.values())
    await settled(socket, {0})
    await socket.disconnect(timeout=WAIT_SECONDS)
    assert not subscribed(layer, channel)
    assert not any(channel in members for members in layer.groups.values())


async def test_a_socket_closed_as_a_message_reaches_it_still_lets_go_of_its_channel(monkeypatch):
    """The layer unsubscribes a channel only when its wait for the next message is cancelled. A socket that
    closes as a message reaches its consumer has that wait cancelled before it began, which undoes nothing:
    here every wait undoes nothing, and the socket's own disconnect must let go of its channel."""
    from channels.layers import get_channel_layer
    from channels_redis.pubsub import RedisPubSubLoopLayer

    async def receive_undoing_nothing_when_cancelled(self, channel):
        if channel not in self.channels:
            await self._subscribe_to_channel(channel)
        return self.channel_layer.deserialize(await self.channels[channel].get())

    monkeypatch.setattr(RedisPubSubLoopLayer, "receive", receive_undoing_nothing_when_cancelled)
    code, tickets, _game = await db(started_room)(2)
    socket, _ = await seated(code, tickets[0])
    layer = get_channel_layer()._get_layer()
    channel = own_channel(layer)
    await settled(socket, {0})
    await socket.disconnect(timeout=WAIT_SECONDS)
    assert not subscribed(layer, channel)


async def test_a_socket_sent_to_as_it_closes_still_leaves_its_room():
    """daphne refuses a frame to a socket whose closing handshake has begun (autobahn's Disconnected) until it
    hears the socket has gone. A message reaching the socket in that moment must not end its consumer before
    its disconnect: its seat would stay connected, its address would keep the socket counted, and its channel
    its groups and its queue."""
    from channels.layers import get_channel_layer

    from config.asgi import application

    closing, refused = asyncio.Event(), asyncio.Event()

    async def as_daphne_does(scope, receive, send):
        async def sending(message):
            if closing.is_set() and message["type"] == "websocket.send":
                refused.set()
                raise Disconnected("Attempt to send on a closed protocol")
            await send(message)
        return await application(scope, receive, sending)

    code, tickets, _game = await db(started_room)(2)
    socket, _ = await open_socket(code, cookie=await cookie_for(tickets[0]), application=as_daphne_does)
    layer = get_channel_layer()._get_layer()
    channel = own_channel(layer)
    await settled(socket, {0})
    assert await db(live.client().zscore)(live.key("sockets", "unknown"), channel) is not None

    closing.set()
    await get_channel_layer().group_send(broadcast.room_group(code),
                                         {"type": "draft_relay", "seat": 1, "seq": 1, "draft": {"picked": []}})
    await asyncio.wait_for(refused.wait(), WAIT_SECONDS)
    await socket.disconnect(timeout=WAIT_SECONDS)  # raises what ended the consumer, had it ended
    assert not subscribed(layer, channel)
    assert not any(channel in members for members in layer.groups.values())
    assert 0 not in await db(live.connected_seats)(code)
    assert await db(live.client().zscore)(live.key("sockets", "unknown"), channel) is None


async def test_a_connect_whose_count_fails_with_redis_is_closed_and_leaves_nothing_to_uncount(monkeypatch):
    """Redis failing as the connect counts the socket: the socket is closed with 1013 (try again later), and
    its disconnect does not go back to Redis to uncount what was never counted."""
    from redis.exceptions import ConnectionError as RedisConnectionError

    from config.asgi import application

    code, _tickets = await db(room_with)(1, 2)
    uncounted = []

    def failing(address, channel):
        raise RedisConnectionError("Redis is down")

    monkeypatch.setattr(live, "socket_from", failing)
    monkeypatch.setattr(live, "socket_gone", lambda address, channel: uncounted.append(channel))
    socket = WebsocketCommunicator(application, f"/ws/rooms/{code}/",
                                   headers=[(b"host", b"testserver"), (b"origin", b"http://testserver")])
    connected, close_code = await socket.connect(timeout=WAIT_SECONDS)
    assert (connected, close_code) == (False, 1013)
    await socket.disconnect(timeout=WAIT_SECONDS)
    assert uncounted == []
