"""SQLite's WAL checkpoints made by a thread of the worker's own, off the moves' path.

In WAL mode a commit appends the pages it changed to the write-ahead log, and the commit that takes the log past
`wal_autocheckpoint` pages (1,000) also copies the log back into the database file and syncs both before it
returns. The worker makes nearly every commit while games are played, so about once a second one move's commit
took 3 to 6 ms instead of 0.2, and every request taken behind it waited as long (docs/benchmarks.md). The
worker's connections now leave checkpoints to `Checkpointer`: a thread that copies the log back every
`CHECKPOINT_EVERY` seconds (`checkpoint`), in a PASSIVE checkpoint that neither waits for nor blocks a writer or
a reader, and during whose file work (sqlite3 lets the GIL go) the intake goes on playing, then a short one
with the process's writers held, so that the log is reused from its start. Other processes' connections keep
SQLite's automatic checkpoint: they rarely write, the worker's checkpoints keep the log short, and a site whose
worker is not running still has its log checkpointed by them.
"""

from __future__ import annotations

import logging
import threading

from django.db import close_old_connections, connection
from django.db.backends.signals import connection_created

from rooms import services

log = logging.getLogger("wickwise.checkpoints")

CHECKPOINT_EVERY = 0.5  # seconds: about 500 pages of log at 1,000 players' moves
QUIET_FRAMES = 200  # a round that found fewer frames in the log than this: the next is made in one hold (`_run`)
_DISPATCH_UID = "wickwise-checkpoints"


def _automatic_checkpoints_off(sender, connection, **kwargs) -> None:
    if connection.vendor == "sqlite":
        connection.connection.execute("PRAGMA wal_autocheckpoint=0")


def leave_checkpoints_to_a_thread() -> Checkpointer | None:
    """In the worker, on SQLite: every connection this process opens from now on makes no checkpoint of its
    own, and a started Checkpointer makes them instead. Returns it (stopped when the worker stops), or None on
    another database."""
    if connection.vendor != "sqlite":
        return None
    connection_created.connect(_automatic_checkpoints_off, dispatch_uid=_DISPATCH_UID)
    connection.close()  # this thread's connection, if start-up opened one, opens again without them
    log.info("WAL checkpoints made by a thread of this worker's, every %.1f s", CHECKPOINT_EVERY)
    return Checkpointer().start()


def checkpoint(*, quiet: bool = False) -> tuple[int, int, int]:
    """The log copied back in two PASSIVE checkpoints on this thread's connection. The first copies it while
    this process's writers commit; the second, with them held (`services.writers_held`), copies what they
    committed meanwhile: a few pages and two syncs, about a millisecond on a quiet machine. The log is then
    wholly copied back when the next writer begins, and SQLite writes it again from its start. A checkpoint
    copies only the frames there when it began, so with writers committing during each one the log was never
    wholly copied back and grew for as long as they did. `quiet` (little was written since the last round): the
    second alone, which copies it all. Returns the last one's (busy, frames in the log, frames copied back)."""
    close_old_connections()
    with connection.cursor() as cursor:
        if not quiet:
            cursor.execute("PRAGMA wal_checkpoint(PASSIVE)")
            cursor.fetchone()
        with services.writers_held():
            cursor.execute("PRAGMA wal_checkpoint(PASSIVE)")
            return tuple(cursor.fetchone())


class Checkpointer:
    """A thread that checkpoints the log every `every` seconds until stopped."""

    def __init__(self, *, every: float = CHECKPOINT_EVERY):
        self.every = every
        self.stopping = threading.Event()
        self.made = 0
        self.thread = threading.Thread(target=self._run, name="wal-checkpoint", daemon=True)

    def start(self) -> Checkpointer:
        self.thread.start()
        return self

    def stop(self) -> None:
        """The thread stopped, and connections opened from now on checkpoint as SQLite does by itself."""
        self.stopping.set()
        self.thread.join(timeout=10)
        connection_created.disconnect(dispatch_uid=_DISPATCH_UID)

    def _run(self) -> None:
        """A round that found the log short is followed by one made with this process's writers held throughout.
        SQLite before 3.51.3 has a race (its "WAL-reset bug") when a writer of one connection starts the log again
        from its start just as another connection's checkpoint begins, and a writer starts it again only when it
        was wholly copied back: here, when nothing was written since the last round's second checkpoint. That is
        a quiet log, whose next round is then made in one hold; a busy one has been written to since, well before
        the next round's first checkpoint, and a quiet one costs the writers about what the second step does."""
        quiet = False
        try:
            while not self.stopping.wait(self.every):
                try:
                    _busy, frames, _copied = checkpoint(quiet=quiet)
                    quiet = frames < QUIET_FRAMES
                    self.made += 1
                except Exception:  # the database busy or gone a moment: the next one catches up
                    log.warning("a WAL checkpoint failed", exc_info=True)
        finally:
            connection.close()
