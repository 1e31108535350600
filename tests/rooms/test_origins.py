"""The WebSocket origin check matches the site's own origin exactly: scheme, host and port."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import override_settings

from rooms.origins import origin_allowed
from tests.rooms.helpers import WAIT_SECONDS, close_all, fresh_channel_layer, new_room  # noqa: F401 (a fixture)


def scope(origin: str | None, host: str | None = "localhost:8000", scheme: str = "ws") -> dict:
    headers = [(b"host", host.encode())] if host else []
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    return {"type": "websocket", "scheme": scheme, "headers": headers}


@override_settings(ALLOWED_HOSTS=["localhost", "wickwise.example"], CSRF_TRUSTED_ORIGINS=[])
@pytest.mark.parametrize(("origin", "host", "scheme", "allowed"), [
    ("http://localhost:8000", "localhost:8000", "ws", True),
    ("HTTP://LOCALHOST:8000", "localhost:8000", "ws", True),
    ("http://localhost:9999", "localhost:8000", "ws", False),  # another program on the player's machine
    ("https://localhost:8000", "localhost:8000", "ws", False),
    ("http://localhost", "localhost:8000", "ws", False),
    ("http://localhost:8000.evil.example", "localhost:8000", "ws", False),
    ("http://evil.example:8000", "evil.example:8000", "ws", False),  # a host the site does not serve
    ("https://wickwise.example", "wickwise.example", "wss", True),
    ("https://wickwise.example:443", "wickwise.example", "wss", True),
    ("http://wickwise.example", "wickwise.example", "wss", False),
    ("null", "localhost:8000", "ws", False),
    (None, "localhost:8000", "ws", False),
    ("http://localhost:8000", None, "ws", False),
])
def test_only_the_exact_origin_of_the_site_is_allowed(origin, host, scheme, allowed):
    assert origin_allowed(scope(origin, host, scheme)) is allowed


@override_settings(ALLOWED_HOSTS=["wickwise.example"], CSRF_TRUSTED_ORIGINS=["https://play.wickwise.example"])
def test_a_trusted_origin_is_allowed_exactly():
    assert origin_allowed(scope("https://play.wickwise.example", "wickwise.example", "wss"))
    assert not origin_allowed(scope("http://play.wickwise.example", "wickwise.example", "wss"))
    assert not origin_allowed(scope("https://play.wickwise.example:8443", "wickwise.example", "wss"))


@pytest.mark.usefixtures("fresh_channel_layer")
@pytest.mark.django_db(transaction=True)
@override_settings(ALLOWED_HOSTS=["localhost"])
async def test_a_socket_from_another_port_of_the_same_host_is_refused():
    from config.asgi import application

    code = (await database_sync_to_async(new_room)(2)).room_code
    for origin, accepted in ((b"http://localhost:9999", False), (b"http://localhost:8000", True)):
        socket = WebsocketCommunicator(application, f"/ws/rooms/{code}/",
                                       headers=[(b"host", b"localhost:8000"), (b"origin", origin)])
        connected, _close_code = await socket.connect(timeout=WAIT_SECONDS)
        await close_all(socket)
        assert connected is accepted, origin
