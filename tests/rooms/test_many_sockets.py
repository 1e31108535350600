"""Many sockets of one daphne handing requests over at once share its Redis connections: a request past
the pool's connections waits for one instead of failing (which told its player `busy`)."""

from __future__ import annotations

import asyncio

from rooms import live, move_queue


async def test_more_requests_at_once_than_connections_all_get_through():
    client = move_queue.client_for_this_loop()
    name = live.key("test-many-sockets")
    try:
        await asyncio.gather(*(client.rpush(name, str(n)) for n in range(250)))  # the pool holds 100
        assert await client.llen(name) == 250
    finally:
        await client.delete(name)
        await move_queue.close_for_this_loop()
