"""Bare Channels consumers: the baselines the live-play benchmark compares against.

Mounted at /ws/echo/ and /ws/echo/<group>/ only when WICKWISE_BENCH_ECHO=1 (bench/live_load.py sets it on
its server)."""

from channels.generic.websocket import AsyncWebsocketConsumer
from django.urls import re_path


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
        await self.channel_layer.group_send(self.group, {"type": "echo.out", "text": text_data})

    async def echo_out(self, message):
        await self.send(text_data=message["text"])


websocket_urlpatterns = [
    re_path(r"^ws/echo/$", EchoConsumer.as_asgi()),
    re_path(r"^ws/echo/(?P<group>[a-z0-9]{1,12})/$", RoomEchoConsumer.as_asgi()),
]
