"""An ASGI application that never answers a WebSocket's handshake: what daphne's handshake timeout is for
(tests/rooms/test_event_loop.py)."""


async def application(scope, receive, send):
    if scope["type"] == "lifespan":
        return
    while True:
        await receive()  # the connect, then nothing until the client goes
