"""The worker: plays the moves sockets send (rooms/move_queue.py), fires countdowns, plays bot turns,
hands seats to bots after the grace period and sweeps expired rooms. Any number may run at once: each
queued move and each due item is claimed atomically in Redis, and the services re-check everything under
the database lock."""

from __future__ import annotations

import gc
import logging
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from importlib import import_module

from django.conf import settings
from django.core.management.base import BaseCommand
from django.db import close_old_connections

from rooms import bot_runner, checkpoints, live, move_queue, sampler, services, trace

log = logging.getLogger("wickwise.worker")

REBUILD_EVERY = 60.0
EXPIRY_EVERY = 5.0
SESSIONS_EVERY = 3600.0  # expired sessions are deleted this often (and when the worker starts)
LOOK_EVERY = 0.5  # how often the worker checks that Redis still holds the index
RETRY_EVERY = 0.5  # after a failed round (Redis down, say)


def dispatch(member: str, games_in_play: dict | None = None) -> None:
    """Run one claimed timer. Members: turn:GAME:SEQ, bot:GAME:SEAT:PROMPT, grace:ROOM:SEAT. `games_in_play`:
    the memory of the worker's move threads (rooms/move_queue.py), which a bot's move plays on and keeps up, and
    a countdown's table choices keep up."""
    kind, _, rest = member.partition(":")
    parts = rest.split(":")
    if kind == "turn":
        services.fire_countdown(game_id=int(parts[0]), seq=int(parts[1]), games_in_play=games_in_play)
    elif kind == "bot":
        services.play_bot_turn(
            game_id=int(parts[0]), seat=int(parts[1]), prompt=int(parts[2]), choose=bot_runner.choose,
            steps=bot_runner.steps, step_seconds=settings.WICKWISE.get("BOT_STEP_SECONDS", 0.0),
            games_in_play=games_in_play,
        )
    elif kind == "grace":
        services.fire_grace(room_code=parts[0], seat=int(parts[1]))
    else:
        log.warning("unknown timer %r dropped", member)


def run_one(member: str, lease: str | None = None, games_in_play: dict | None = None) -> None:
    close_old_connections()
    try:
        dispatch(member, games_in_play)
    except Exception:  # one bad item must not stop the worker
        log.exception("timer %s failed", member)
    finally:
        # a connection near its age replaced now, not by the next timer's (a bot's move, say) first statement
        services.close_old_connections(renew_aging=True)
    if lease is not None:
        try:
            live.release(member, lease)
        except Exception:  # Redis down: the lease runs out and the handler, run again, finds nothing to do
            log.warning("timer %s handled but not released", member)


class Command(BaseCommand):
    help = "Play the moves sent on sockets, fire countdowns, play bots, cover absent players and expire idle rooms."

    def add_arguments(self, parser):
        parser.add_argument("--threads", type=int, default=4, help="timers handled at once")
        parser.add_argument("--bot-threads", type=int, default=4,
                            help="bot turns handled at once (a bot thinking or showing its play waits here)")
        parser.add_argument("--move-threads", type=int, default=None,
                            help="socket moves played at once, 0 for the intake alone, one at a time (default: by "
                            "database, " + ", ".join(f"{count} on {vendor}" for vendor, count
                                                     in move_queue.MOVE_THREADS_BY_DATABASE.items())
                            + f", else {move_queue.DEFAULT_MOVE_THREADS})")
        parser.add_argument("--once", action="store_true", help="handle what is due now, then exit")

    def handle(self, *args, threads: int, bot_threads: int, move_threads: int | None, once: bool, **options):
        move_queue.mount_bench_kinds()  # the live-play benchmark's relay, with its setting only; never on a site
        stop = threading.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: stop.set())
        # On SQLite, a thread of this worker's checkpoints the log, not whichever move's commit fills it.
        checkpointer = None if once else checkpoints.leave_checkpoints_to_a_thread()
        live.came_back_empty()  # marked before the rebuild: an empty Redis after this mark is noticed
        counts = services.rebuild_live_index()
        log.info("worker started; index rebuilt: %s", counts)
        gc.freeze()  # what start-up loaded lives as long as the process: full collections need not scan it
        trace.watch_pauses("worker")
        sampler.install()  # off unless WICKWISE_SAMPLE_STACKS names a file
        poll = settings.WICKWISE["WORKER_POLL_SECONDS"]
        last_rebuild = last_expiry = last_look = time.monotonic()
        last_sessions = None
        redis_failed = False
        # Moves have threads of their own: a player's move does not queue behind bots' turns. How many, unless
        # told, depends on the database (move_queue.default_move_threads).
        moves = None if once else move_queue.MovePlayer(threads=move_threads).start()
        # A bot's move is played on the game the move threads remember, and keeps it up for the room's next move.
        memory = None if moves is None else moves.games_in_play
        if not once:  # the bots' processes started now, not at the first bot turn
            bot_runner.warm_up(settings.WICKWISE_GAMES)
        # Bot turns have threads of their own too: a bot searching (in a process of its own, bot_runner) or
        # showing its play tile by tile waits there, never in front of a countdown or a grace period.
        bots = ThreadPoolExecutor(max_workers=bot_threads, thread_name_prefix="bot")
        with bots, ThreadPoolExecutor(max_workers=threads, thread_name_prefix="timer") as pool:
            while not stop.is_set():
                try:
                    now = time.monotonic()
                    if redis_failed or live.index_lost.is_set() or now - last_look > LOOK_EVERY:
                        # Redis came back (or restarted between two looks) without the timers, or a timer could
                        # not be written after a commit: that game would stand still until the next rebuild.
                        # Rebuild the index now instead.
                        lost = live.index_lost.is_set()
                        live.index_lost.clear()
                        if live.came_back_empty() or redis_failed or lost:
                            log.warning("Redis is back; rebuilding the index: %s", services.rebuild_live_index())
                            last_rebuild = now
                        redis_failed = False
                        last_look = now
                    # Leased, not removed: a worker killed while it handles one leaves it to another when the
                    # lease runs out, and every handler re-checks under the database lock.
                    due, lease = live.lease_due(limit=threads * 8)
                    for member in due:
                        (bots if member.startswith("bot:") else pool).submit(run_one, member, lease, memory)
                    now = time.monotonic()
                    if once or now - last_expiry > EXPIRY_EVERY:
                        for code in live.claim_due(index=live.EXPIRY, limit=50):
                            pool.submit(self._expire, code)
                        last_expiry = now
                    if last_sessions is None or now - last_sessions > SESSIONS_EVERY:
                        pool.submit(self._clear_expired_sessions)
                        last_sessions = now
                    if now - last_rebuild > REBUILD_EVERY:
                        pool.submit(services.rebuild_live_index)
                        last_rebuild = now
                except Exception:
                    log.exception("worker loop error; retrying")
                    redis_failed = True  # the next good round rebuilds what may have been lost meanwhile
                    stop.wait(RETRY_EVERY)
                    continue
                if once:
                    break
                if not due:
                    stop.wait(poll)
        bot_runner.shut_down()
        if moves is not None:
            moves.stop()
        if checkpointer is not None:
            checkpointer.stop()
        log.info("worker stopped")

    @staticmethod
    def _clear_expired_sessions() -> None:
        """Sessions past their age stay in the database until deleted: guests' sessions pile up otherwise."""
        close_old_connections()
        try:
            import_module(settings.SESSION_ENGINE).SessionStore.clear_expired()
        except Exception:
            log.exception("clearing expired sessions failed")
        finally:
            close_old_connections()

    @staticmethod
    def _expire(code: str) -> None:
        close_old_connections()
        try:
            services.expire_room(room_code=code)
        except Exception:
            log.exception("expiring %s failed", code)
        finally:
            close_old_connections()
