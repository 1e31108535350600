"""The live-play benchmark's baselines: bare Channels consumers on the real Redis channel layer."""

from __future__ import annotations

import asyncio
import json

import pytest
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator

from bench import echo
from tests.rooms.helpers import WAIT_SECONDS, fresh_channel_layer  # noqa: F401 (a fixture)

pytestmark = pytest.mark.usefixtures("fresh_channel_layer")
application = URLRouter(echo.websocket_urlpatterns)  # as rooms/routing.py mounts them for the benchmark


async def connected(path: str) -> WebsocketCommunicator:
    socket = WebsocketCommunicator(application, path)
    accepted, _ = await socket.connect(timeout=WAIT_SECONDS)
    assert accepted
    return socket


async def test_the_echo_answers_its_own_socket():
    socket = await connected("/ws/echo/")
    await socket.send_to(text_data='{"n":1}')
    assert await socket.receive_from(timeout=WAIT_SECONDS) == '{"n":1}'
    await socket.disconnect()


async def test_the_room_echo_reaches_every_socket_of_its_room_and_no_other():
    room = [await connected("/ws/echo/r1/") for _ in range(4)]
    elsewhere = await connected("/ws/echo/r2/")
    await room[2].send_to(text_data=json.dumps({"round": 0, "seat": 2}))
    for socket in room:
        assert json.loads(await socket.receive_from(timeout=WAIT_SECONDS)) == {"round": 0, "seat": 2}
    await asyncio.sleep(0.2)  # time enough for a stray copy to arrive
    assert await elsewhere.receive_nothing(timeout=0.1)
    for socket in [*room, elsewhere]:
        await socket.disconnect()
