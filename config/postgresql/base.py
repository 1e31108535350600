"""Django's PostgreSQL backend, with a health check that makes no round trip on a connection in steady use
while the server has said nothing on it.

Django checks a kept connection (`conn_health_checks`) with a `SELECT 1` on the first query after every
`close_old_connections()`: before every request, socket call and worker move, one round trip more. On a
worker's moves it cost PostgreSQL about 0.09 ms and the worker about 0.1 ms of CPU a move, and 0.25 ms of
the move's time (docs/benchmarks.md). A server that ends a connection (restarted, the backend terminated, an
idle timeout) says so and closes it, so the socket turns readable while the connection is idle. So a
connection opened or found good within the last few seconds, idle in no transaction, whose socket has nothing
to read, is taken as good without the round trip. One with anything to read (the server's farewell, its end
of file, or anything unexpected), idle for longer, or in pool mode gets Django's check, which replaces it if
the server has gone.

What the look cannot see: a connection lost without a word to this side (a reset from a firewall or a
failover, a host gone) within those seconds. Django's `SELECT 1` would meet the reset and reconnect; here
the request's next statement fails instead, as it would if the loss came just after a `SELECT 1`.
"""

from __future__ import annotations

import math
import select
import time

from django.db.backends.postgresql import base
from psycopg.pq import TransactionStatus


class DatabaseWrapper(base.DatabaseWrapper):
    LOOK_ONLY_WITHIN = 5.0  # seconds since the connection opened or was found good; idle longer, the full check
    _found_good_at = -math.inf
    # A lock timeout for the whole session, set as each connection opens: for a connection made for one kind
    # of statement (rooms.services._statement_alone_db), not the thread's own, whose other statements may wait.
    session_lock_timeout_ms: int | None = None

    def connect(self):
        super().connect()
        self._found_good_at = time.monotonic()

    def init_connection_state(self):
        super().init_connection_state()
        if self.session_lock_timeout_ms is not None:
            with self.connection.cursor() as cursor:
                cursor.execute(f"SET lock_timeout = '{int(self.session_lock_timeout_ms)}ms'")

    def is_usable(self):
        usable = super().is_usable()
        if usable:
            self._found_good_at = time.monotonic()
        return usable

    def close_if_health_check_failed(self):
        if (self.connection is not None and self.health_check_enabled and not self.health_check_done
                and not self.pool and time.monotonic() - self._found_good_at <= self.LOOK_ONLY_WITHIN
                and self._nothing_to_read()):
            self._found_good_at = time.monotonic()
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
