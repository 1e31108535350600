"""Django's PostgreSQL backend, with a health check that makes no round trip on a connection in steady use
while the server has said nothing on it.

Django checks a kept connection (`conn_health_checks`) with a `SELECT 1` on the first query after every
`close_old_connections()`: before every request, socket call and worker move, a round trip that costs the
server and the caller about half what the move's own statement does (docs/benchmarks.md). A server that ends
a connection (restarted, the backend terminated, an idle timeout) says so and closes it, so the socket turns
readable while the connection is idle. So a connection checked within the last few seconds whose socket has
nothing to read is taken as good without the round trip. One with anything to read (the server's farewell,
its end of file, or anything unexpected), or idle for longer (a firewall may have dropped it without a word),
gets Django's check, which replaces it if the server has gone, as before. A server gone between the look and
the next statement fails that statement, as it would between Django's `SELECT 1` and the statement after it.
"""

from __future__ import annotations

import math
import select
import time

from django.db.backends.postgresql import base
from psycopg.pq import TransactionStatus


class DatabaseWrapper(base.DatabaseWrapper):
    LOOK_ONLY_WITHIN = 5.0  # seconds since the connection opened or was last checked; idle longer, the full check
    _last_checked = -math.inf

    def connect(self):
        super().connect()
        self._last_checked = time.monotonic()

    def close_if_health_check_failed(self):
        if self.connection is not None and self.health_check_enabled and not self.health_check_done:
            now = time.monotonic()
            lately, self._last_checked = now - self._last_checked <= self.LOOK_ONLY_WITHIN, now
            if lately and not self.pool and self._nothing_to_read():
                self.health_check_done = True
                return
        super().close_if_health_check_failed()

    def _nothing_to_read(self) -> bool:
        """True if the idle connection's socket is open with nothing waiting on it (a look, no round trip)."""
        try:
            if self.connection.closed or self.connection.pgconn.transaction_status != TransactionStatus.IDLE:
                return False
            look = select.poll()  # not select(): a daphne with thousands of sockets has descriptors past 1024
            look.register(self.connection.fileno(), select.POLLIN)
            return not look.poll(0)  # readable, hung up or in error: Django's check
        except (OSError, ValueError, base.Database.Error):
            return False
