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
a fresh snapshot, and never played after that. The two outcomes exclude each other through one Redis key
per request (`answer:MOVER`), set once: the worker sets it to "played" inside the move's transaction, just
before the commit, and refuses the move if the key was already set or the request's deadline has passed;
the socket, once the deadline is past, sets it to "told" before it tells its player, and says nothing if
the worker got there first (the move's update is then on its way). If Redis cannot be asked, the socket
tells its player only after the deadline plus a margin, and the worker's own deadline check, also at the
commit, keeps the move from landing after it.

A worker moves each request it takes onto a list of its own (`moves:taken:ID`) and removes it once it is
played or refused; a worker that dies leaves its list behind, and the next worker to look (every second)
puts those requests back at the head of the queue, to be played if their deadline has not passed.
"""

from __future__ import annotations

import asyncio
import collections
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
from django.utils.translation import gettext as _
from redis.exceptions import RedisError

from rooms import broadcast, codes, live, services

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
        # A blocking pool: a request waits for one of its connections. The default pool fails at once past
        # 100 connections in use ("Too many connections"), which 1,000 sockets moving at once reached: their
        # players were told `busy`.
        pool = redis.asyncio.BlockingConnectionPool.from_url(
            settings.REDIS_URL, max_connections=100, timeout=5, socket_timeout=5, socket_connect_timeout=5)
        client = redis.asyncio.Redis.from_pool(pool)  # closed with the client
        _clients[loop] = client
    return client


async def close_for_this_loop() -> None:
    client = _clients.pop(asyncio.get_running_loop(), None)
    if client is not None:
        await client.aclose()


KINDS = ("move", "start", "play_again")  # what a socket asks of the game; the rest stays in daphne
TOLD_MARGIN = 0.5  # seconds past the deadline before a socket tells its player when Redis cannot be asked
TAKER_TTL = 3  # seconds a worker's heartbeat lasts: its taken requests go back to the queue after that


def deadline_from(sent_at: float) -> float:
    return sent_at + answer_within()


def _answer_key(mover: str) -> str:
    return live.key("answer", mover)


def _answer_ttl() -> int:
    return int(answer_within() * 4 + 60)


async def hand_over(*, kind: str = "move", room_code: str, seat: int, mover: str, reply_to: str, language: str,
                    ref=None, seq: int | None = None, action=None, sent_at: float | None = None) -> None:
    """Queue a socket's request for the worker: a move (with its seq and action), a start or a play again.
    `mover` is the socket's name for this request; `reply_to` the socket's channel. It is not played after
    `deadline_from(sent_at)`."""
    assert kind in KINDS
    sent_at = time.time() if sent_at is None else sent_at
    payload = {"kind": kind, "room": room_code, "seat": seat, "seq": seq, "action": action, "mover": mover,
               "reply_to": reply_to, "language": language, "ref": ref, "sent_at": sent_at,
               "deadline": deadline_from(sent_at)}
    await _client_for_this_loop().rpush(live.key(QUEUE), json.dumps(payload, separators=(",", ":")))


async def claim_told(mover: str) -> bool:
    """The socket's side, once the deadline is past: True if its player may be told the request was not
    played (the worker will now refuse it), False if the worker has already committed to playing it.
    Raises RedisError when Redis cannot be asked."""
    return bool(await _client_for_this_loop().set(_answer_key(mover), "told", nx=True, ex=_answer_ttl()))


# --- the worker's side --------------------------------------------------------------------------------

def _too_late():
    return services.ServiceError("move_unanswered", _("The server did not answer in time; here is where the game "
                                                      "stands, please try again."))


class AlreadyAnswered(Exception):
    """Another hand has answered this request: its socket told its player, or another worker played it."""


def claim_played(payload: dict) -> None:
    """The worker's last look, inside the request's transaction just before its commit. Past its deadline,
    the request is refused (and its player told, unless its socket already did); before it, the worker
    claims the request, and drops it silently if it was answered elsewhere."""
    late = time.time() > payload.get("deadline", payload["sent_at"] + answer_within())
    if payload.get("claimed"):
        # This worker claimed it for a first try that wrote nothing (services.submit_move: the game had
        # moved on); the try that writes it still keeps the deadline, for a socket that cannot ask Redis.
        if late:
            raise _too_late()
        return
    try:
        if late:
            if live.client().set(_answer_key(payload["mover"]), "told", nx=True, ex=_answer_ttl()):
                raise _too_late()
            raise AlreadyAnswered
        if not live.client().set(_answer_key(payload["mover"]), "played", nx=True, ex=_answer_ttl()):
            raise AlreadyAnswered
        payload["claimed"] = True
    except RedisError:
        raise services.ServiceError("busy", _("The server cannot take moves just now; please try again.")) from None


def play(payload: dict, *, games_in_play: dict | None = None) -> None:
    """Play one queued request, or send its refusal to the socket that sent it. `games_in_play`: the calling
    thread's memory of the games it played last (services.submit_move), or None."""
    age = time.time() - payload["sent_at"]
    if time.time() > payload.get("deadline", payload["sent_at"] + answer_within()):
        log.warning("%s for room %s seat %s dropped: %.1f s old, its socket was told", payload["kind"],
                    payload["room"], payload["seat"], age)
        return
    asked = {"room_code": payload["room"], "seat": payload["seat"], "mover": payload["mover"]}
    with translation.override(payload["language"]):
        try:
            with services.checked_before_commit(lambda: claim_played(payload)):
                if payload["kind"] == "move":
                    services.submit_move(**asked, seq=payload["seq"], action=payload["action"],
                                         games_in_play=games_in_play)
                else:
                    if games_in_play is not None:  # the game it starts is written anew
                        games_in_play.pop(codes.normalize(payload["room"]), None)
                    if payload["kind"] == "start":
                        services.start_game(**asked)
                    else:
                        services.play_again(**asked)
        except AlreadyAnswered:
            log.info("%s for room %s seat %s dropped: answered elsewhere", payload["kind"], payload["room"],
                     payload["seat"])
        except services.ServiceError as error:
            broadcast.send_to_socket(payload["reply_to"], {
                "type": "request.refused", "mover": payload["mover"], "code": error.code,
                "message": str(error.message), "ref": payload["ref"], "details": error.details,
            })


# Take up to ARGV[1] more requests from the queue onto this worker's list, in one round trip.
_TAKE_MORE = """
local taken = {}
for i = 1, tonumber(ARGV[1]) do
  local raw = redis.call('LMOVE', KEYS[1], KEYS[2], 'LEFT', 'RIGHT')
  if not raw then break end
  taken[#taken + 1] = raw
end
return taken
"""

# Put a dead worker's taken requests back at the head of the queue, in their order; once, whoever asks.
_RECOVER = """
if redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
local moved = 0
while redis.call('RPOPLPUSH', KEYS[2], KEYS[1]) do moved = moved + 1 end
redis.call('SREM', KEYS[4], ARGV[1])
return moved
"""


class MovePlayer:
    """Takes queued requests and plays them in a pool of threads of its own, one room at a time: a room with
    a request in play has its next ones wait, in the order taken, and each goes to the pool once the one
    before it is done. So this worker plays and publishes a room's requests in order, none of its threads
    waits on a room's lock behind another of them, and any free thread takes the next room (rooms tied to
    threads by a hash of their codes would give some threads more rooms than others). The games played last
    are remembered by room (services.submit_move: on PostgreSQL, a move then needs no locked read).
    Any number of workers may run: a move from the queue to a worker's own list hands each request to one
    of them, and the list outlives the worker; the games' row versions keep two workers apart."""

    def __init__(self, *, threads: int = 4):
        self.pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="move")
        self.rooms_in_play: dict[str, collections.deque] = {}  # a room's requests waiting on the one in play
        self.rooms_lock = threading.Lock()
        self.games_in_play: dict = {}  # by room code; a room's entry is used by one thread at a time
        # Take only what this worker's threads can start on soon: moves left in Redis go to whichever
        # worker is free, and a worker that stops loses none it has not begun.
        self.free = threading.BoundedSemaphore(threads * 2)
        self.stopping = threading.Event()
        self.id = uuid.uuid4().hex
        self.taken_key = live.key(QUEUE, "taken", self.id)
        self.alive_key = live.key(QUEUE, "alive", self.id)
        self.takers_key = live.key(QUEUE, "takers")
        self.next_look = 0.0
        self.thread = threading.Thread(target=self._take, name="move-intake", daemon=True)

    def start(self) -> MovePlayer:
        self._heartbeat()
        self.thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join(timeout=10)
        while True:  # moves already taken are played, those waiting behind another of their room's too
            with self.rooms_lock:
                if not self.rooms_in_play:
                    break
            time.sleep(0.05)
        self.pool.shutdown(wait=True)
        try:
            redis_client = live.client()
            redis_client.delete(self.alive_key)
            redis_client.eval(_RECOVER, 4, live.key(QUEUE), self.taken_key, self.alive_key, self.takers_key, self.id)
        except RedisError:
            log.warning("could not hand back this worker's list; the next worker will")

    def _heartbeat(self) -> None:
        pipe = live.client().pipeline(transaction=False)
        pipe.set(self.alive_key, "1", ex=TAKER_TTL)
        pipe.sadd(self.takers_key, self.id)
        pipe.execute()

    def _look_after_others(self) -> None:
        """Once a second: keep this worker's heartbeat, and hand back what dead workers had taken."""
        now = time.monotonic()
        if now < self.next_look:
            return
        self.next_look = now + 1.0
        self._heartbeat()
        redis_client = live.client()
        for taker in redis_client.smembers(self.takers_key):
            if taker == self.id:
                continue
            moved = redis_client.eval(_RECOVER, 4, live.key(QUEUE), live.key(QUEUE, "taken", taker),
                                      live.key(QUEUE, "alive", taker), self.takers_key, taker)
            if moved:
                log.warning("%d requests taken by a stopped worker put back on the queue", moved)

    def _take(self) -> None:
        queue, redis_client = live.key(QUEUE), live.client()
        while not self.stopping.is_set():
            try:
                self._look_after_others()  # whether or not this worker has a free thread
            except Exception:
                log.exception("the move queue's upkeep failed; retrying")
                self.stopping.wait(1.0)
                continue
            if not self.free.acquire(timeout=0.5):
                continue
            slots = 1
            try:
                first = redis_client.blmove(queue, self.taken_key, 0.5, "LEFT", "RIGHT")
                if first is None:
                    self.free.release()
                    continue
                while self.free.acquire(blocking=False):  # under load, one round trip takes several
                    slots += 1
                raws = [first, *(redis_client.eval(_TAKE_MORE, 2, queue, self.taken_key, slots - 1)
                                 if slots > 1 else [])]
            except Exception:
                for _slot in range(slots):
                    self.free.release()
                log.exception("taking moves failed; retrying")
                self.stopping.wait(1.0)
                continue
            for _unused in range(slots - len(raws)):
                self.free.release()
            for raw in raws:
                self._hand_to_room(raw)

    def _hand_to_room(self, raw: str) -> None:
        try:
            payload = json.loads(raw)
            room = codes.normalize(payload["room"])
        except Exception:  # played (and logged) by a thread as any request that cannot be played
            self.pool.submit(self._play, raw, None, None)
            return
        with self.rooms_lock:
            waiting = self.rooms_in_play.get(room)
            if waiting is not None:
                waiting.append((raw, payload))
                return
            self.rooms_in_play[room] = collections.deque()
        self.pool.submit(self._play, raw, payload, room)

    def _next_of_room(self, room: str) -> None:
        """The room's request in play is done: its next one goes to the pool, or the room leaves."""
        with self.rooms_lock:
            waiting = self.rooms_in_play[room]
            if not waiting:
                del self.rooms_in_play[room]
                return
            raw, payload = waiting.popleft()
        self.pool.submit(self._play, raw, payload, room)

    def _play(self, raw: str, payload: dict | None, room: str | None) -> None:
        close_old_connections()
        try:
            if payload is None:
                payload = json.loads(raw)
            play(payload, games_in_play=self.games_in_play)
        except Exception:  # one bad move must not stop the worker; its socket hears of it by the deadline
            log.exception("queued move %.200s failed", raw)
        finally:
            try:
                self.free.release()
                close_old_connections()
                try:
                    live.client().lrem(self.taken_key, 1, raw)
                except RedisError:
                    log.warning("could not clear a played request from this worker's list")
            finally:  # whatever failed above, the room's next request is not left waiting
                if room is not None:
                    self._next_of_room(room)
