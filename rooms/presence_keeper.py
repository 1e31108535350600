"""daphne keeps its open sockets present itself, so that a seat is there while its socket is.

A page's pings renew its presence (every 15 s, rooms/live.py), which lapses PRESENCE_TTL_SECONDS later. A
hidden tab's timers are throttled: Chrome wakes a hidden page's repeating timers once a minute after five
minutes, Safari every 40 s or so. Its presence then lapsed between two pings, the worker handed the seat to
a stand-in, and the next ping took it back: the seat flipped each minute while its socket stayed open.

So each daphne loop renews, in one Redis call a hundred sockets, the presence of its sockets that no ping has
renewed for half the lifetime. Only what is still there is renewed (ZADD XX): a socket that left, or
whose renewal races its leaving, is never put back. A dead connection is closed by daphne's own keepalive
(a WebSocket ping every 20 s, closed 30 s after one goes unanswered), and a crashed daphne renews nothing,
so its sockets lapse as before.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import math
import time

from django.conf import settings
from redis.exceptions import RedisError

from rooms import live, move_queue

log = logging.getLogger("wickwise.sockets")

AT_ONCE = 100  # sockets a Redis call: the loop is held while a call is built (about 1.5 ms for a hundred)


class _Keeper:
    """The open sockets of one event loop, and the task that renews them while there are any."""

    def __init__(self):
        self.sockets: set = set()
        self.task: asyncio.Task | None = None

    def add(self, socket) -> None:
        self.sockets.add(socket)
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._keep())

    async def _keep(self) -> None:
        ttl = settings.WICKWISE["PRESENCE_TTL_SECONDS"]
        # A socket comes due half a lifetime after its last renewal: later than a visible page's next ping (15 s
        # of 45), so a page that pings is left alone. Due sockets are renewed a share a tick, every socket within a
        # sixth of a lifetime, so that sockets opened together (a reconnect storm) do not hold the loop together:
        # renewed at most about 31 s after the last renewal, of 45.
        tick, renew_after, spread_over = min(1.0, ttl / 9), ttl / 2, ttl / 6
        while self.sockets:
            await asyncio.sleep(tick)
            now = time.monotonic()
            share = max(AT_ONCE, math.ceil(len(self.sockets) * tick / spread_over))
            due = list(itertools.islice(
                (socket for socket in self.sockets if now - socket.presence_renewed_at >= renew_after), share))
            for start in range(0, len(due), AT_ONCE):
                try:
                    await _renew(due[start:start + AT_ONCE])
                except Exception:  # the keeper must outlive one bad batch: the others still need it
                    log.exception("renewing the presence of open sockets failed")


async def _renew(sockets: list) -> None:
    members = [member for socket in sockets for member in live.kept_open_members(
        socket.address, socket.channel_name, socket.room_code, socket.present_seats())]
    try:
        await live.renew_if_there(move_queue.client_for_this_loop(), members)
    except (RedisError, OSError):  # tried again at the next look; a page's own pings go on meanwhile
        log.warning("could not renew the presence of %d open sockets", len(sockets), exc_info=True)
        return
    renewed_at = time.monotonic()
    for socket in sockets:
        socket.presence_renewed_at = renewed_at


_keepers: dict[asyncio.AbstractEventLoop, _Keeper] = {}


def keep(socket) -> None:
    """Keep `socket` present while it is open: it has `address`, `channel_name`, `room_code`,
    `present_seats()` and `presence_renewed_at` (time.monotonic(), set by whatever renews it)."""
    loop = asyncio.get_running_loop()
    keeper = _keepers.get(loop)
    if keeper is None:
        keeper = _keepers[loop] = _Keeper()
        # A test's loop closes with the test: its keeper goes with it.
        for old in [old for old in _keepers if old.is_closed()]:
            del _keepers[old]
    keeper.add(socket)


def let_go(socket) -> None:
    """The socket is closing: no more renewals (its task stops by itself once none is left)."""
    keeper = _keepers.get(asyncio.get_running_loop())
    if keeper is not None:
        keeper.sockets.discard(socket)
