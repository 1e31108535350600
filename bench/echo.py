"""A bare Channels echo consumer: the baseline the live-play benchmark compares against.

Mounted at /ws/echo/ only when WICKWISE_BENCH_ECHO=1 (bench/live_load.py sets it on its server)."""

from channels.generic.websocket import AsyncWebsocketConsumer


class EchoConsumer(AsyncWebsocketConsumer):
    async def receive(self, text_data=None, bytes_data=None):
        await self.send(text_data=text_data, bytes_data=bytes_data)
