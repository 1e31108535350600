"""Bare Channels consumers: the baselines the live-play benchmark compares against.

Mounted at /ws/echo/, /ws/echo/<group>/ and /ws/relay/<group>/ only when WICKWISE_BENCH_ECHO=1
(bench/live_load.py sets it on its server), which also has the worker play the relay (`mount`)."""

import itertools
import time

from channels.generic.websocket import AsyncWebsocketConsumer
from django.urls import re_path

from rooms import broadcast, live, move_queue, trace

RELAY = "relay"  # the kind of request the relay hands to the worker (move_queue.BENCH_KINDS)
PING, PONG = '{"type":"ping"}', '{"type":"pong","position":null}'  # as the room page sends it, and a bare answer


class EchoConsumer(AsyncWebsocketConsumer):
    """Sends every message back to its own socket."""

    async def receive(self, text_data=None, bytes_data=None):
        await self.send(text_data=text_data, bytes_data=bytes_data)


class RoomEchoConsumer(AsyncWebsocketConsumer):
    """Sends every message to each socket of its group through the channel layer, as a room's update
    reaches each of its seats: the same traffic as play, with no game behind it."""

    async def connect(self):
        self.group = "echo." + self.scope["url_route"]["kwargs"]["group"]
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code):
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data=None, bytes_data=None):
        if text_data == PING:  # a page's ping (live_load --pings): a frame back to this socket, no work behind it
            await self.send(text_data=PONG)
            return
        await self.channel_layer.group_send(self.group, {"type": "echo.out", "text": text_data})

    async def echo_out(self, message):
        await self.send(text_data=message["text"])


def relay_group(room: str) -> str:
    return "relay." + room


class RoomRelayConsumer(AsyncWebsocketConsumer):
    """The echo to every seat by the move's road: each message is handed to the worker as a move is (the same
    push onto the moves' list, the same intake and hand-over to a move thread) and the thread publishes it to
    the group (`play_relay`), with no game, no database and no claim. What a move costs beyond this is the
    game's work, daphne's checks of the move included."""

    async def connect(self):
        self.room = self.scope["url_route"]["kwargs"]["group"]
        self.numbers = itertools.count(1)
        await self.channel_layer.group_add(relay_group(self.room), self.channel_name)
        await self.accept()

    async def disconnect(self, code):
        await self.channel_layer.group_discard(relay_group(self.room), self.channel_name)

    async def receive(self, text_data=None, bytes_data=None):
        await move_queue.hand_over(kind=RELAY, room_code=self.room, seat=0, mover=f"{self.channel_name}#"
                                   f"{next(self.numbers)}", reply_to=self.channel_name, language="en",
                                   action=text_data)

    async def relay_out(self, message):
        text = message["text"]
        if "trace" in message:  # traced (bench/live_load.py --trace): its stages, as a move's update carries them
            text = trace.stamped_with(text, message["trace"], time.time())
        await self.send(text_data=text)


def play_relay(payload: dict) -> None:
    """The worker's move thread (move_queue.play): the message published to its group in one joined round trip
    after the commit a move would make (live.joined), which carries the request's clearing from the worker's
    list and whose replies are read at the request's end, as a move's are."""
    message = {"type": "relay.out", "text": payload["action"]}
    with live.joined():
        trace.mark("marked")
        stamps = trace.current()
        broadcast._send(relay_group(payload["room"]), message if stamps is None else {**message, "trace": stamps})


def mount() -> None:
    """The worker plays the relay (and daphne hands it over): only where the benchmark's setting mounts the
    baselines."""
    move_queue.BENCH_KINDS[RELAY] = play_relay


websocket_urlpatterns = [
    re_path(r"^ws/echo/$", EchoConsumer.as_asgi()),
    re_path(r"^ws/echo/(?P<group>[a-z0-9]{1,12})/$", RoomEchoConsumer.as_asgi()),
    re_path(r"^ws/relay/(?P<group>[a-z0-9]{1,12})/$", RoomRelayConsumer.as_asgi()),
]
