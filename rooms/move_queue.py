"""What sockets ask of a game (a move, a start, a play again) is played by the worker.

A socket checks the frame, then hands the request to the worker through a Redis list (one push). The
worker runs the service, as it does for bots and countdowns. The update it broadcasts names the request
(`mover`), so the socket that sent it knows it landed; a refusal goes back to that socket alone.

Why not in daphne: a move's database work (the locked reads, the writes, every seat's view) cost about
three times what relaying the update to the room's sockets costs, all of it on daphne's one core and
its one GIL, and a start costs several moves. Under load every socket of the process then waited behind
them. In the worker, daphne's part is close to a bare relay, and the game's work runs beside it
(docs/architecture.md).

A request nobody answers within MOVE_ANSWER_SECONDS (no worker running, say) is refused to its socket with
a fresh snapshot, and a worker drops any request older than that: it is never played after its player
was told it was not.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
import uuid
import weakref
from concurrent.futures import ThreadPoolExecutor

import redis.asyncio
from django.conf import settings
from django.db import close_old_connections
from django.utils import translation

from rooms import broadcast, live, services

log = logging.getLogger("wickwise.moves")

QUEUE = "moves"


def answer_within() -> float:
    return settings.WICKWISE["MOVE_ANSWER_SECONDS"]


# --- the socket's side (daphne's event loop) ----------------------------------------------------------

# One client per event loop: a redis.asyncio connection belongs to the loop that opened it. daphne has one
# loop for its life; tests have one a test, and close theirs (close_for_this_loop).
_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, redis.asyncio.Redis] = weakref.WeakKeyDictionary()


def _client_for_this_loop() -> redis.asyncio.Redis:
    loop = asyncio.get_running_loop()
    client = _clients.get(loop)
    if client is None:
        client = redis.asyncio.Redis.from_url(settings.REDIS_URL, socket_timeout=5, socket_connect_timeout=5)
        _clients[loop] = client
    return client


async def close_for_this_loop() -> None:
    client = _clients.pop(asyncio.get_running_loop(), None)
    if client is not None:
        await client.aclose()


KINDS = ("move", "start", "play_again")  # what a socket asks of the game; the rest stays in daphne


async def hand_over(*, kind: str = "move", room_code: str, seat: int, mover: str, reply_to: str, language: str,
                    ref=None, seq: int | None = None, action=None) -> None:
    """Queue a socket's request for the worker: a move (with its seq and action), a start or a play again.
    `mover` is the socket's name for this request; `reply_to` the socket's channel."""
    assert kind in KINDS
    payload = {"kind": kind, "room": room_code, "seat": seat, "seq": seq, "action": action, "mover": mover,
               "reply_to": reply_to, "language": language, "ref": ref, "sent_at": time.time()}
    await _client_for_this_loop().rpush(live.key(QUEUE), json.dumps(payload, separators=(",", ":")))


# --- the worker's side --------------------------------------------------------------------------------

def play(payload: dict) -> None:
    """Play one queued request, or send its refusal to the socket that sent it."""
    age = time.time() - payload["sent_at"]
    if age > answer_within():
        log.warning("%s for room %s seat %s dropped: %.1f s old, its socket was told", payload["kind"],
                    payload["room"], payload["seat"], age)
        return
    asked = {"room_code": payload["room"], "seat": payload["seat"], "mover": payload["mover"]}
    with translation.override(payload["language"]):
        try:
            if payload["kind"] == "move":
                services.submit_move(**asked, seq=payload["seq"], action=payload["action"])
            elif payload["kind"] == "start":
                services.start_game(**asked)
            else:
                services.play_again(**asked)
        except services.ServiceError as error:
            broadcast.send_to_socket(payload["reply_to"], {
                "type": "request.refused", "mover": payload["mover"], "code": error.code,
                "message": str(error.message), "ref": payload["ref"], "details": error.details,
            })


class MovePlayer:
    """Takes queued requests and plays them in a pool of threads (on PostgreSQL, those of different rooms
    at once; the room's lock orders those of one room). Any number of workers may run: a pop hands each
    request to one of them."""

    def __init__(self, *, threads: int = 4):
        self.pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="move")
        # Take only what this worker's threads can start on soon: moves left in Redis go to whichever
        # worker is free, and a worker that stops loses none it has not begun.
        self.free = threading.BoundedSemaphore(threads * 2)
        self.stopping = threading.Event()
        self.wake_key = live.key(QUEUE, "wake", uuid.uuid4().hex)  # stop() pushes here to end the wait
        self.thread = threading.Thread(target=self._take, name="move-intake", daemon=True)

    def start(self) -> MovePlayer:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        live.client().rpush(self.wake_key, "stop")
        self.thread.join(timeout=10)
        self.pool.shutdown(wait=True)  # moves already taken are played
        live.client().delete(self.wake_key)

    def _take(self) -> None:
        queue, redis_client = live.key(QUEUE), live.client()
        while not self.stopping.is_set():
            if not self.free.acquire(timeout=1):
                continue
            slots = 1
            try:
                popped = redis_client.blpop([queue, self.wake_key], timeout=1)
                if popped is None or popped[0] != queue:
                    self.free.release()
                    continue
                while self.free.acquire(blocking=False):  # under load, one round trip takes several
                    slots += 1
                raws = [popped[1], *(redis_client.lpop(queue, slots - 1) or [] if slots > 1 else [])]
            except Exception:
                for _slot in range(slots):
                    self.free.release()
                log.exception("taking moves failed; retrying")
                self.stopping.wait(1.0)
                continue
            for _unused in range(slots - len(raws)):
                self.free.release()
            for raw in raws:
                self.pool.submit(self._play, raw)

    def _play(self, raw: str) -> None:
        close_old_connections()
        try:
            play(json.loads(raw))
        except Exception:  # one bad move must not stop the worker; its socket hears of it by the deadline
            log.exception("queued move %.200s failed", raw)
        finally:
            self.free.release()
            close_old_connections()
