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
the worker got there first (the move's update is then on its way). A move's claim is sent once the move
has passed its checks and its reply read at that last look (ClaimAhead): the round trip overlaps the
building of the move's update; a move claimed in time and looked at past its deadline is refused by the
worker, which holds the key. If Redis cannot be asked, the socket
tells its player only after the deadline plus a margin, and the worker's own deadline check, also at the
commit, keeps the move from landing after it.

Two lanes: moves go ahead of starts, until a start has waited too long. Moves wait in one list, starts and
play-agains in another, and a worker takes from the moves' list first and from the starts' only with the
slots it has left, with at most half its threads (START_SHARE) on starts at once. A start costs the worker
several moves; 250 hosts pressing Start at once used to hold the first moves of the rooms started first
behind the starts still waiting, for up to two seconds, and now a move finds a thread free. But flat out,
moves never stop coming once some rooms play, and starts that only got the slots moves left waited past
their deadline (435 of them in one run of 1,000 clients). So a start that has waited a fifth of its deadline
(START_OVERDUE_SHARE) is overdue: a take begins with the overdue starts at the head of their lane, still on
their share of threads, each just after the moves queued that were sent before it.

The lanes keep each room's requests in order, as far as any client can tell. A room's requests are played
one at a time in the order the worker took them (MovePlayer), and within a lane in the order sent; only a
move handed over after a start (or a play-again) may be taken before it. A start changes something only
when no game of the room is in play (else it is refused: the game has started), and a move only when one
is; so the two commute, except for a move on the game that very start begins, which a client can send
only once it has seen that game, that is once the start was played. A move sent blind, before its client
saw the game, may then be refused as if it had been sent before the start; it was never guaranteed to
land. A move sent before a start is never taken after it. A take reaches a start that is not overdue only
once the moves' list is empty, in the same step. Before an overdue start, it takes the moves at the head of
the moves' list up to the first one sent after the start (by `sent_at`, stamped by the socket before its
push): a socket hands its requests over one at a time, so each move it sent before the start was pushed
before the start was stamped, and so was every move ahead of it in the list, each stamped before its own
push. Moves of other sockets further down the list, stamped earlier than the start but pushed later, were
sent by clients that had seen neither the start nor the other's move: either order is one they may see.

A worker blocks without polling: each hand-over also rings its lane's bell (a list holding at most one
element), the worker waits on the bells, and its take clears a lane's bell, in the same step, when it
leaves that lane empty (and rings it again when it leaves requests behind, for another worker). A worker
whose start threads are all busy does not listen to the starts' bell; a start that ends rings a bell of
this worker's own. The wait and the take go in one round trip (a pipeline: Redis runs the take as soon as
the wait ends), so an idle worker wakes once for a request, with it taken.

A worker moves each request it takes onto a list of its own (`moves:taken:ID`) and removes it once it is
played or refused; a worker that dies leaves its list behind, and the next worker to look (every second)
puts those requests back at the head of the moves' list, starts too, in the order taken: they are late
already, and a start put back ahead of its room's moves keeps them in order. A take whose reply is lost (the
connection dropped, or Redis silent past the socket timeout, after it ran the take) leaves its requests on the
list of a worker that lives on: before its next take, a second or more later, the intake puts back at the head
of the moves' list those on its list that it never handed to a thread (`in_hand`), in the order taken; each is
played if its deadline has not passed. As with a dead worker's, a room's later request taken meanwhile by
another worker may be played before one put back, which its seq then refuses. A played request whose
clearing failed (Redis unreachable just then) is not put back: the intake clears it before its next take.
"""

from __future__ import annotations

import asyncio
import collections
import functools
import hashlib
import json
import logging
import os
import threading
import time
import uuid
import weakref
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import redis.asyncio
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections
from django.utils import translation
from django.utils.translation import gettext as _
from redis.exceptions import NoScriptError, RedisError, ResponseError

from rooms import broadcast, codes, live, services, trace

log = logging.getLogger("wickwise.moves")

QUEUE = "moves"  # the moves' lane; the starts' lane, the bells and the workers' lists are named after it
# A worker's move threads when its --move-threads is not given, by database (default_move_threads); any other
# database gets DEFAULT_MOVE_THREADS. SQLite has one writer (every move's transaction takes it at BEGIN IMMEDIATE)
# and a move's Python runs under one GIL, so more threads only took turns, with hand-offs and context switches:
# with one thread the worker spent about a fifth less CPU a move, and a move reached every seat sooner, and
# with none (the intake playing what it took itself) less again (docs/benchmarks.md, "One move thread on
# SQLite" and "The intake playing the moves itself"). PostgreSQL keeps four: with the database on the same
# machine the intake alone measured no different (docs/benchmarks.md, "PostgreSQL on the intake alone"), but a
# database on a machine of its own (docs/deploy.md) puts a network round trip in every move, which threads overlap.
MOVE_THREADS_BY_DATABASE = {"sqlite": 0, "postgresql": 4}
DEFAULT_MOVE_THREADS = 4
START_SHARE = 0.5  # at most this share of a worker's move threads plays starts and play-agains at once
# A start (or play-again) that has waited this share of its answer deadline is taken ahead of moves: flat
# out, moves never stop coming once some rooms play, and starts that only got the slots moves left starved
# past their deadline.
START_OVERDUE_SHARE = 0.2
# At most this many of a room's moves, queued one behind another, are played together: one write, one commit
# (MovePlayer._play_together). Flat out, a candles round's four picks arrive together.
BATCH_MOST = 8


# Kinds of request only the live-play benchmark sends (bench/echo.py's relay through the worker), by kind: what
# plays one in a move thread. Empty unless the benchmark's setting mounts its baselines (rooms/routing.py, the
# worker command): a site's worker then drops a request of any kind but KINDS, and no socket of it can send one.
BENCH_KINDS: dict[str, Callable[[dict], None]] = {}


def mount_bench_kinds() -> bool:
    """Where the live-play benchmark's setting is on (WICKWISE_BENCH_ECHO=1, bench/live_load.py's server), its
    kinds registered (bench/echo.py `mount`) and True; elsewhere, a site's daphne and worker, nothing and False.
    The one decision both rooms/routing.py and the worker command take."""
    if os.environ.get("WICKWISE_BENCH_ECHO") != "1":
        return False
    from bench import echo

    echo.mount()
    return True


def default_move_threads(vendor: str | None = None) -> int:
    """The move threads a worker plays with unless told (its --move-threads): MOVE_THREADS_BY_DATABASE for the
    default database's vendor (`vendor`, else the connection's, known without connecting)."""
    if vendor is None:
        vendor = connections[DEFAULT_DB_ALIAS].vendor
    return MOVE_THREADS_BY_DATABASE.get(vendor, DEFAULT_MOVE_THREADS)


def _lane_of(kind: str) -> tuple[str, str]:
    """The list a request of this kind waits in, and its bell. The benchmark's kinds wait with the moves."""
    lane = live.key(QUEUE) if kind == "move" or kind in BENCH_KINDS else live.key(QUEUE, "starts")
    return lane, lane + ":bell"


def answer_within() -> float:
    return settings.WICKWISE["MOVE_ANSWER_SECONDS"]


def start_overdue_after() -> float:
    """Seconds a start waits before it is taken ahead of moves."""
    return answer_within() * START_OVERDUE_SHARE


# --- the socket's side (daphne's event loop) ----------------------------------------------------------

# One client per event loop: a redis.asyncio connection belongs to the loop that opened it. daphne has one
# loop for its life; tests have one a test, and close theirs (close_for_this_loop).
_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, redis.asyncio.Redis] = weakref.WeakKeyDictionary()


def client_for_this_loop() -> redis.asyncio.Redis:
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
HEARTBEAT_EVERY = 1.0  # seconds between a worker's heartbeats


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
    if kind not in KINDS and kind not in BENCH_KINDS:  # a check, not an assert: `python -O` strips those
        raise ValueError(f"no such request kind: {kind!r}")
    sent_at = time.time() if sent_at is None else sent_at
    payload = {"kind": kind, "room": room_code, "seat": seat, "seq": seq, "action": action, "mover": mover,
               "reply_to": reply_to, "language": language, "ref": ref, "sent_at": sent_at,
               "deadline": deadline_from(sent_at)}
    lane, bell = _lane_of(kind)
    text = json.dumps(payload, separators=(",", ":"))
    if trace.ON:  # the same push, with Redis's clock as it lands in the request (its `landed` stamp)
        await client_for_this_loop().eval(_PUSH_STAMPED, 2, lane, bell, text)
        return
    # One command, not a pipeline of three: redis-py's asyncio pipeline cost daphne's loop about a third more
    # CPU than one command does (docs/benchmarks.md, "relay through the worker").
    try:
        await client_for_this_loop().evalsha(_PUSH_DIGEST, 2, lane, bell, text)
    except NoScriptError:  # Redis lost it (restarted, or its scripts flushed): sent whole, which loads it again
        await client_for_this_loop().eval(_PUSH, 2, lane, bell, text)


# hand_over's push: the request (ARGV[1]) onto its lane (KEYS[1]), and its lane's bell (KEYS[2]) rung; a bell
# holds one ring at most.
_PUSH = """
redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('RPUSH', KEYS[2], 1)
redis.call('LTRIM', KEYS[2], 0, 0)
"""
_PUSH_DIGEST = hashlib.sha1(_PUSH.encode()).hexdigest()

# hand_over's push when moves are traced: the request (ARGV[1], a JSON object) with `landed`, Redis's clock
# as it is pushed, onto its lane (KEYS[1]), and its lane's bell (KEYS[2]) rung.
_PUSH_STAMPED = """
local now = redis.call('TIME')
local landed = now[1] .. '.' .. string.format('%06d', tonumber(now[2]))
local text = string.sub(ARGV[1], 1, -2) .. ',"landed":' .. landed .. '}'
redis.call('RPUSH', KEYS[1], text)
redis.call('RPUSH', KEYS[2], 1)
redis.call('LTRIM', KEYS[2], 0, 0)
"""


async def claim_told(mover: str) -> bool:
    """The socket's side, once the deadline is past: True if its player may be told the request was not
    played (the worker will now refuse it), False if the worker has already committed to playing it.
    Raises RedisError when Redis cannot be asked."""
    return bool(await client_for_this_loop().set(_answer_key(mover), "told", nx=True, ex=_answer_ttl()))


# --- the worker's side --------------------------------------------------------------------------------

def _too_late():
    return services.ServiceError("move_unanswered", _("The server did not answer in time; here is where the game "
                                                      "stands, please try again."))


def _busy():
    return services.ServiceError("busy", _("The server cannot take moves just now; please try again."))


def _refuse(payload: dict, error: services.ServiceError) -> None:
    broadcast.send_to_socket(payload["reply_to"], {
        "type": "request.refused", "mover": payload["mover"], "code": error.code,
        "message": str(error.message), "ref": payload["ref"], "details": error.details,
    })


class AlreadyAnswered(Exception):
    """Another hand has answered this request: its socket told its player, or another worker played it."""


class ClaimAhead:
    """A move's claim, sent once the move has passed its checks (services.checked_before_commit's `ahead`) on
    a connection of its own, and its reply read at the last look: the round trip overlaps the building of
    the move's update instead of following it, and the thread does not wait for the reply (nor for the GIL
    after it) at the look. Not sent for a request already late, claimed, or refused before its checks."""

    def __init__(self, payload: dict):
        self.payload = payload
        self.connection = None

    def send(self) -> None:
        if self.connection is not None or self.payload.get("claimed") or _is_late(self.payload):
            return
        command = ("SET", _answer_key(self.payload["mover"]), "played", "NX", "EX", _answer_ttl())
        pool = live.client().connection_pool
        try:
            connection = pool.get_connection()
        except RedisError:  # the last look claims it the usual way
            return
        try:
            connection.send_command(*command)
        except BaseException as error:  # back to the pool, never with a reply unread
            connection.disconnect()
            pool.release(connection)
            if isinstance(error, RedisError):  # the last look claims it the usual way
                return
            raise
        self.connection = connection

    def sent(self) -> bool:
        return self.connection is not None

    def played(self) -> bool:
        """True if this worker's claim set the key, False if the request was answered elsewhere first.
        Raises RedisError when Redis cannot be asked (the key may then be set or not)."""
        connection, self.connection = self.connection, None
        try:
            return connection.read_response() is not None
        finally:
            live.client().connection_pool.release(connection)

    def close(self) -> bool:
        """Not looked at (the move failed between): its reply is read, so the connection is fit for reuse.
        True if the claim set the key, or may have (the reply could not be read): this worker then holds
        the request, and its socket will not tell its player."""
        if self.connection is None:
            return False
        try:
            return self.played()
        except RedisError:
            return True


def _is_late(payload: dict) -> bool:
    return time.time() > payload.get("deadline", payload["sent_at"] + answer_within())


def _claim_told(payload: dict) -> bool:
    """Claims a request as told by this worker (Redis's answer key, set only if none is): False when another
    hand answered it already. Raises RedisError as the client does."""
    return bool(live.client().set(_answer_key(payload["mover"]), "told", nx=True, ex=_answer_ttl()))


def claim_played(payload: dict, ahead: ClaimAhead | None = None) -> None:
    """The worker's last look, inside the request's transaction just before its commit. Past its deadline,
    the request is refused (and its player told, unless its socket already did); before it, the worker
    claims the request, and drops it silently if it was answered elsewhere. `ahead`: the claim, if it was
    sent ahead (its reply is read here)."""
    late = _is_late(payload)
    if payload.get("claimed"):
        # This worker claimed it for a first try that wrote nothing (services.submit_move: the game had
        # moved on); the try that writes it still keeps the deadline, for a socket that cannot ask Redis.
        if late:
            raise _too_late()
        return
    try:
        if ahead is not None and ahead.sent():
            if not ahead.played():
                raise AlreadyAnswered
            payload["claimed"] = True
            if late:  # claimed before its deadline, looked at after it: this worker tells its player
                raise _too_late()
            trace.mark("claimed")
            return
        if late:
            if _claim_told(payload):
                raise _too_late()
            raise AlreadyAnswered
        if not live.client().set(_answer_key(payload["mover"]), "played", nx=True, ex=_answer_ttl()):
            raise AlreadyAnswered
        trace.mark("claimed")
        payload["claimed"] = True
    except RedisError:
        raise _busy() from None


def play(payload: dict, *, games_in_play: dict | None = None) -> None:
    """Play one queued request, or send its refusal to the socket that sent it. `games_in_play`: the calling
    thread's memory of the games it played last (services.submit_move), or None."""
    age = time.time() - payload["sent_at"]
    if _is_late(payload):
        log.warning("%s for room %s seat %s dropped: %.1f s old, its socket was told", payload["kind"],
                    payload["room"], payload["seat"], age)
        return
    if payload["kind"] not in KINDS:  # the benchmark's relay, or nothing a socket of the site can send
        bench = BENCH_KINDS.get(payload["kind"])
        if bench is None:
            log.error("request of unknown kind %r for room %s dropped", payload["kind"], payload["room"])
            _refuse_unknown(payload)
            return
        bench(payload)
        return
    asked = {"room_code": payload["room"], "seat": payload["seat"], "mover": payload["mover"]}
    ahead = ClaimAhead(payload)
    with translation.override(payload["language"]):
        try:
            with services.checked_before_commit(lambda: claim_played(payload, ahead), ahead=ahead.send):
                if payload["kind"] == "move":
                    services.submit_move(**asked, seq=payload["seq"], action=payload["action"],
                                         games_in_play=games_in_play)
                else:
                    if games_in_play is not None:  # the game it starts is written anew, and remembered once written
                        games_in_play.pop(codes.normalize(payload["room"]), None)
                    if payload["kind"] == "start":
                        services.start_game(**asked, games_in_play=games_in_play)
                    else:
                        services.play_again(**asked, games_in_play=games_in_play)
        except Exception as error:
            if not _answered(payload, error, ahead):
                raise
        finally:
            ahead.close()


def _refuse_unknown(payload: dict) -> None:
    """A request of a kind this worker does not play: its socket told at once, with the refusal of a request
    past its deadline, rather than its player waiting the deadline out. Claimed as told first, as a late
    request is, so that nothing tells twice; if Redis cannot be asked, told all the same (a socket ignores a
    second refusal of one request)."""
    if not payload.get("reply_to") or not payload.get("mover"):
        return
    try:
        if not _claim_told(payload):
            return  # its socket already told its player
    except RedisError:
        pass
    with translation.override(payload.get("language") or settings.LANGUAGE_CODE):
        _refuse({**payload, "ref": payload.get("ref")}, _too_late())


def _answered(payload: dict, error: Exception, ahead: ClaimAhead) -> bool:
    """A request that failed: its socket told (or not, when another hand answered it) as the failure asks.
    False for a failure that is not a refusal, to be logged."""
    if isinstance(error, AlreadyAnswered):
        log.info("%s for room %s seat %s dropped: answered elsewhere", payload["kind"], payload["room"],
                 payload["seat"])
        return True
    if isinstance(error, services.ServiceError):
        _refuse(payload, error)
        return True
    # Failed after this worker claimed the request (its key says "played"): its socket will not tell its
    # player, so the worker does.
    if ahead.close() or payload.get("claimed"):
        _refuse(payload, _busy())
    return False


class _Together:
    """One of a room's queued moves played together (services.submit_queued_moves): the request, its claim and
    its trace's stamps, and what the worker does at each point of it."""

    def __init__(self, index: int, payload: dict, written):
        self.index, self.payload, self.on_written = index, payload, written
        self.seat, self.seq = payload["seat"], payload["seq"]
        self.action, self.mover = payload["action"], payload["mover"]
        self.ahead = ClaimAhead(payload)
        self.looked = False  # its last look was called (it may have been claimed)
        self.failed: Exception | None = None  # what its last look raised
        trace.begin(payload)
        self.marks = trace.held()

    def checked(self) -> None:
        self.ahead.send()

    def last_look(self) -> None:
        trace.hold(self.marks)
        self.looked = True
        try:
            with translation.override(self.payload["language"]):
                claim_played(self.payload, self.ahead)
        except Exception as error:
            self.failed = error
            raise
        self.failed = None  # a look again at the commit (SQLite) that passes

    def written(self) -> None:
        trace.end()  # the move before it, once its steps have run
        trace.hold(self.marks)
        trace.mark("committed")
        if self.on_written is not None:
            self.on_written(self.index)


def play_together(payloads: list[dict], *, games_in_play: dict, written=None) -> set[int]:
    """Play a room's moves queued one behind another (all sent to this worker, in this order) together: one
    write, one commit (services.submit_queued_moves). Returns the indexes of those answered: written, or
    refused or dropped as `play` would (a claim that failed). The others are the caller's to play, in order
    (each as `play` does, or together again). `written(index)`: called for each move written, after the
    commit and before its steps. A write that fails is logged, and every request it claimed refused as busy."""
    moves = []
    try:
        for index, payload in enumerate(payloads):
            moves.append(_Together(index, payload, written))
        with translation.override(payloads[0]["language"]):
            count, refused = services.submit_queued_moves(room_code=payloads[0]["room"], moves=moves,
                                                          games_in_play=games_in_play)
    except Exception:
        log.exception("queued moves of room %s failed together", payloads[0]["room"])
        answered = set()
        for index, move in enumerate(moves):
            if move.failed is not None:
                _told(move.payload, lambda move=move: _answered(move.payload, move.failed, move.ahead))
            elif move.ahead.close() or move.payload.get("claimed"):
                _told(move.payload, lambda move=move: _refuse(move.payload, _busy()))
            if move.looked:
                answered.add(index)
        return answered
    finally:
        for move in moves:
            move.ahead.close()
        trace.end()
    answered = set(range(count))
    if refused is not None:
        index, error = refused
        if not _told(payloads[index], lambda: _answered(payloads[index], error, moves[index].ahead)):
            log.error("queued move %s failed its last look: %r", payloads[index]["mover"], error)
        answered.add(index)
    return answered


def _told(payload: dict, tell) -> bool:
    """`tell()` (a refusal, `_answered`) in the request's player's language, and what it returns. Its failure
    (Redis down: a claim turned busy, then its refusal's publish) is logged, never raised: the moves of the
    batch still need their bookkeeping, and the socket tells its player by the deadline."""
    try:
        with translation.override(payload["language"]):
            return tell()
    except Exception:
        log.exception("queued move %s could not be told", payload.get("mover"))
        return True


# Take up to ARGV[1] requests onto this worker's list (KEYS[3]) from the moves' lane (KEYS[1]) and the starts'
# (KEYS[2]), at most ARGV[2] of them starts, in this order: each overdue start (sent at or before ARGV[3]),
# at the head of its lane, just after the moves still queued that were sent before it (by `sent_at`, up to
# the first sent after it); then moves; then starts with the slots left. Returns the requests in the order
# taken, which of them are starts (1) or moves (0), 1 if this worker could take more now, else 0, and when
# ARGV[4] is 1 (moves traced) Redis's clock as the take began (else 0). Each
# lane's bell (KEYS[4], KEYS[5]) is left ringing if the lane still holds requests (another worker may take
# them), silent if it is empty. A request whose time cannot be read counts as sent long ago.
_TAKE = """
local clock = ARGV[4] == '1' and redis.call('TIME') or 0
local taken, starting = {}, {}
local left, start_limit, overdue = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local starts_taken = 0
local function take(lane)
  local raw = redis.call('LMOVE', KEYS[lane], KEYS[3], 'LEFT', 'RIGHT')
  if not raw then return false end
  taken[#taken + 1] = raw
  starting[#starting + 1] = lane - 1
  left = left - 1
  if lane == 2 then starts_taken = starts_taken + 1 end
  return true
end
local function sent_at(raw)
  local ok, payload = pcall(cjson.decode, raw)
  if ok and type(payload) == 'table' and type(payload.sent_at) == 'number' then return payload.sent_at end
  return 0
end
while left > 0 and starts_taken < start_limit do
  local start = redis.call('LINDEX', KEYS[2], 0)
  if not start then break end
  local sent = sent_at(start)
  if sent > overdue then break end
  while left > 0 do
    local move = redis.call('LINDEX', KEYS[1], 0)
    if not move or sent_at(move) > sent then break end
    take(1)
  end
  if left == 0 then break end
  take(2)
end
while left > 0 and take(1) do end
while left > 0 and starts_taken < start_limit and take(2) do end
for lane = 1, 2 do
  if redis.call('LLEN', KEYS[lane]) == 0 then
    redis.call('DEL', KEYS[lane + 3])
  elseif redis.call('LLEN', KEYS[lane + 3]) == 0 then
    redis.call('RPUSH', KEYS[lane + 3], 1)
  end
end
local more = redis.call('LLEN', KEYS[1]) > 0 or (redis.call('LLEN', KEYS[2]) > 0 and starts_taken < start_limit)
return {taken, starting, more and 1 or 0, clock}
"""

# Put a dead worker's taken requests (KEYS[2]) back at the head of the moves' lane (KEYS[1]), in their order,
# and ring its bell (KEYS[5]); once, whoever asks. Its own bell (KEYS[6]) goes too.
_RECOVER = """
if redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
local moved = 0
while redis.call('RPOPLPUSH', KEYS[2], KEYS[1]) do moved = moved + 1 end
if moved > 0 and redis.call('LLEN', KEYS[5]) == 0 then redis.call('RPUSH', KEYS[5], 1) end
redis.call('DEL', KEYS[6])
redis.call('SREM', KEYS[4], ARGV[1])
return moved
"""

# Put back at the head of the moves' lane (KEYS[1]), in their order, the requests of ARGV still on this worker's
# list (KEYS[2]), and ring the lane's bell (KEYS[3]): a take whose reply was lost (module docstring). A request
# no longer on the list was played meanwhile, and stays played.
_PUT_BACK = """
local moved = 0
for i = #ARGV, 1, -1 do
  if redis.call('LREM', KEYS[2], 1, ARGV[i]) == 1 then
    redis.call('LPUSH', KEYS[1], ARGV[i])
    moved = moved + 1
  end
end
if moved > 0 and redis.call('LLEN', KEYS[3]) == 0 then redis.call('RPUSH', KEYS[3], 1) end
return moved
"""


class _TakeLine:
    """The intake's own connection to Redis, for its takes alone: the wait for a bell and the take go out as one
    packet and their replies are read straight off the connection, not through the client's pipeline (its
    retry wrapper, its reply callbacks, a connection borrowed from the pool and given back around every take:
    about a third of the intake's CPU, and the intake's CPU was a sixth of the worker's a move). The take
    script goes by its digest (EVALSHA) once a take has sent it whole; if Redis lost it (restarted, or its
    scripts flushed), the take is sent again at once, whole. A failed take leaves the connection closed (a
    reply may be unread); the next one opens it again."""

    DIGEST = hashlib.sha1(_TAKE.encode()).hexdigest()

    def __init__(self, client):
        self.pool = client.connection_pool
        self.connection = None
        self.by_digest = False

    def take(self, bells: list[str] | None, args: tuple) -> list:
        """Wait up to half a second for one of `bells` (None: no wait), then run the take with `args` (its
        number of keys, keys and arguments); returns the take's reply. Raises RedisError as the client would."""
        if self.connection is None:
            self.connection = self.pool.get_connection()
        script = ("EVALSHA", self.DIGEST) if self.by_digest else ("EVAL", _TAKE)
        commands = [*([("BLPOP", *bells, 0.5)] if bells else []), (*script, *args)]
        try:
            replies = self._run(commands)
        except NoScriptError:
            self.by_digest = False
            return self._run([("EVAL", _TAKE, *args)])[-1]
        self.by_digest = True
        return replies[-1]

    def _run(self, commands: list[tuple]) -> list:
        connection = self.connection
        try:
            connection.send_packed_command(connection.pack_commands(commands))
            replies, refused = [], None
            for _command in commands:  # every reply read, even after a refusal: the next take's are its own
                try:
                    replies.append(connection.read_response())
                except ResponseError as error:
                    refused = refused or error
        except BaseException:
            connection.disconnect()
            raise
        if refused is not None:
            raise refused
        return replies

    def close(self) -> None:
        """Closes the line's connection and gives it back to the pool, which counted it in use since the first
        take (a closed connection is opened again by whoever borrows it next)."""
        if self.connection is not None:
            self.connection.disconnect()
            self.pool.release(self.connection)
            self.connection = None


class MovePlayer:
    """Takes queued requests and plays them in a pool of threads of its own, one room at a time: a room with
    a request in play has its next ones wait, in the order taken, and each is begun once the one before it is
    done: by the same thread at once if no other room's request waits for a thread (no hand-over through the
    pool's queue, no other thread woken), else from the pool's queue, behind those. So this worker plays and
    publishes a room's requests in order, begins a room's requests in the order taken and no request ahead
    of one already waiting in the pool's queue, none of its threads waits on a room's lock behind another of
    them, and any free thread takes the next room (rooms tied to threads by a hash of their codes would give
    some threads more rooms than others). A move's round trip to Redis after its commit (its update, its
    timers, its clearing from this worker's list) is sent at once and its replies read at the request's end,
    when they are most often there already, or before the thread sends anything else to Redis
    (live.replies_later). The games played last are remembered by room (services.submit_move: a move then
    needs no locked read, on PostgreSQL and SQLite alike), and a move begins with the room's moves waiting
    right behind it, played together on the remembered game in one transaction (`_play_together`).
    Any number of workers may run: a move from a lane to a worker's own list hands each request to one
    of them, and the list outlives the worker; the games' row versions keep two workers apart. Starts
    and play-agains taken from their lane hold one of `start_threads` slots until played, so moves always
    have a thread, overdue starts included (module docstring).

    `threads=0`: no move threads; the intake plays what it took itself, in the order taken, before its next
    take. No request is handed from one thread to another (one wake-up and its context switches less a
    request); a take meanwhile waits, and the requests sent meanwhile wait for it in Redis. One writer at a
    time is all SQLite allows anyway (docs/benchmarks.md, "the intake playing the moves itself")."""

    INLINE_SLOTS = 8  # requests one take of an intake that plays them itself may take: a room's round, together

    def __init__(self, *, threads: int | None = None):
        """`threads`: how many requests it plays at once, 0 for the intake alone (above); None, the database's
        default (default_move_threads)."""
        threads = default_move_threads() if threads is None else threads
        if threads < 0:
            raise ValueError(f"a worker's move threads cannot be negative: {threads}")
        self.threads = threads
        self.inline = threads == 0
        self.pool = None if self.inline else ThreadPoolExecutor(max_workers=threads, thread_name_prefix="move")
        self.to_play: collections.deque = collections.deque()  # the intake's own, when it plays them itself
        self.rooms_in_play: dict[str, collections.deque] = {}  # a room's requests waiting on the one in play
        self.rooms_lock = threading.Lock()
        self.queued = 0  # requests submitted to the pool and not yet begun by a thread (under rooms_lock)
        self.begun_from_pool = self.begun_in_turn = 0  # requests begun, and how (under rooms_lock; logged at stop)
        # A room's moves played together: how many times each number of them was taken off a room's list, and
        # how many moves were written together (under rooms_lock; logged at stop).
        self.played_together: collections.Counter[int] = collections.Counter()
        self.moves_written_together = 0
        self.games_in_play: dict = {}  # by room code; a room's entry is used by one thread at a time
        # Take only what this worker's threads can start on soon: moves left in Redis go to whichever
        # worker is free, and a worker that stops loses none it has not begun.
        self.free = threading.BoundedSemaphore(self.INLINE_SLOTS if self.inline else threads * 2)
        self.start_threads = max(1, int(threads * START_SHARE))  # one start a take when the intake plays them
        self.start_free = threading.BoundedSemaphore(self.start_threads)
        self.stopping = threading.Event()
        self.id = uuid.uuid4().hex
        self.taken_key = live.key(QUEUE, "taken", self.id)
        self.alive_key = live.key(QUEUE, "alive", self.id)
        self.takers_key = live.key(QUEUE, "takers")
        self.bell_key = live.key(QUEUE, "bell", self.id)  # rung when one of this worker's starts ends
        self.next_look = 0.0
        # Requests taken onto this worker's list and handed to its threads, until a thread clears them from it:
        # what else is on the list after a failed take was taken by a take whose reply was lost.
        self.in_hand: collections.Counter[str] = collections.Counter()  # a request recovered from this
        # worker's list while it stalled may be taken by it again, and be in hand twice
        # Requests played whose clearing from the list failed: cleared again before the intake's next take, never
        # taken for lost meanwhile (under the same lock).
        self.played_on_list: collections.Counter[str] = collections.Counter()
        self.in_hand_lock = threading.Lock()
        self.thread = threading.Thread(target=self._take, name="move-intake", daemon=True)
        # An intake that plays its requests itself keeps its heartbeat from a thread of its own: a request that
        # waits (SQLite's writer lock, up to its busy timeout) must not let this worker pass for dead, its list
        # handed to another worker while it plays from it.
        self.heart = (threading.Thread(target=self._beat_until_stopped, name="move-heartbeat", daemon=True)
                      if self.inline else None)

    def start(self) -> MovePlayer:
        log.info("playing moves in %d threads%s, at most %d of them on starts", self.threads,
                 " (the intake plays them itself)" if self.inline else "", self.start_threads)
        self._heartbeat()
        self.thread.start()
        if self.heart is not None:
            self.heart.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join(timeout=10)
        if self.heart is not None and self.heart.is_alive():  # before the heartbeat's key goes, below
            self.heart.join()
        while True:  # moves already taken are played, those waiting behind another of their room's too
            with self.rooms_lock:
                if not self.rooms_in_play:
                    break
            time.sleep(0.05)
        if self.pool is not None:
            self.pool.shutdown(wait=True)
        log.info("%d requests begun, %d of them by the thread of their room's request before",
                 self.begun_from_pool + self.begun_in_turn, self.begun_in_turn)
        log.info("%d moves written together with others of their room; moves taken to play together, by number: %s",
                 self.moves_written_together, dict(sorted(self.played_together.items())))
        self._clear_played()  # not handed back to be played again
        try:
            redis_client = live.client()
            redis_client.delete(self.alive_key)
            redis_client.eval(_RECOVER, 6, *self._recovery_keys(self.id), self.id)
        except RedisError:
            log.warning("could not hand back this worker's list; the next worker will")

    def _recovery_keys(self, taker: str) -> tuple[str, ...]:
        moves, moves_bell = _lane_of("move")
        return (moves, live.key(QUEUE, "taken", taker), live.key(QUEUE, "alive", taker), self.takers_key,
                moves_bell, live.key(QUEUE, "bell", taker))

    def _heartbeat(self) -> None:
        pipe = live.client().pipeline(transaction=False)
        pipe.set(self.alive_key, "1", ex=TAKER_TTL)
        pipe.sadd(self.takers_key, self.id)
        pipe.execute()

    def _beat_until_stopped(self) -> None:
        while not self.stopping.wait(HEARTBEAT_EVERY):
            try:
                self._heartbeat()
            except Exception:  # Redis down: the intake's own upkeep says so, and this tries again
                log.warning("could not keep this worker's heartbeat", exc_info=True)

    def _look_after_others(self) -> None:
        """Once a second: keep this worker's heartbeat, and hand back what dead workers had taken."""
        now = time.monotonic()
        if now < self.next_look:
            return
        self.next_look = now + HEARTBEAT_EVERY
        self._heartbeat()
        redis_client = live.client()
        for taker in redis_client.smembers(self.takers_key):
            if taker == self.id:
                continue
            moved = redis_client.eval(_RECOVER, 6, *self._recovery_keys(taker), taker)
            if moved:
                log.warning("%d requests taken by a stopped worker put back on the queue", moved)

    def _take(self) -> None:
        line = _TakeLine(live.client())
        try:
            self._take_until_stopped(line)
        finally:
            line.close()

    def _take_until_stopped(self, line: _TakeLine) -> None:
        (moves, moves_bell), (starts, starts_bell) = _lane_of("move"), _lane_of("start")
        stamps = trace.intake_stamps()  # traced: each take's stages; untraced, nothing
        idle = False  # the last take left nothing this worker could take: the next one waits for a bell first
        unsure = False  # a take failed, perhaps after Redis ran it: its requests may be on this worker's list
        while not self.stopping.is_set():
            try:
                stamps.mark("upkeep")
                self._look_after_others()  # whether or not this worker has a free thread
                self._clear_played()
                if unsure:
                    self._put_back_lost_takes()
                    unsure = False
                stamps.mark("looked")
            except Exception:
                log.exception("the move queue's upkeep failed; retrying")
                self.stopping.wait(1.0)
                continue
            if not self.free.acquire(timeout=0.5):
                continue
            stamps.mark("slot")
            slots, start_slots = 1, 0
            while self.free.acquire(blocking=False):  # under load, one round trip takes several
                slots += 1
            while start_slots < slots and self.start_free.acquire(blocking=False):
                start_slots += 1
            taken, starting, clock = [], [], 0
            waited = idle
            try:
                take = (5, moves, starts, self.taken_key, moves_bell, starts_bell, slots, start_slots,
                        repr(time.time() - start_overdue_after()), 1 if trace.ON else 0)
                stamps.mark("asked")
                # Idle, wait for a bell first (a take silenced the bells of the lanes it left empty, so a push
                # since rang one). With no start slot free, not the starts' bell (it rings while starts wait)
                # but this worker's own, rung when one of its starts ends. Past the timeout, a take looks
                # anyway. The take goes in the same round trip: Redis runs it once the wait ends, so a request
                # handed to an idle worker costs one reply and one wake-up of this thread, not two. Its overdue
                # mark is from before the wait: a start that falls overdue meanwhile is taken as such by the
                # next take.
                bells = [moves_bell, self.bell_key, *([starts_bell] if start_slots else [])] if idle else None
                taken, starting, more, clock = line.take(bells, take)
                idle = not more  # an idle worker makes one round trip less a request: no take that finds nothing
            except Exception:
                idle, unsure = False, True
                log.exception("taking moves failed; retrying")
                self.stopping.wait(1.0)
            finally:
                for _unused in range(slots - len(taken)):
                    self.free.release()
                for _unused in range(start_slots - sum(starting)):
                    self.start_free.release()
            take_stamps = stamps.replied(clock=clock, waited=waited)
            if taken:
                with self.in_hand_lock:
                    self.in_hand.update(taken)  # counts each
            for raw, is_start in zip(taken, starting):  # in the order taken: a room's requests keep it
                self._hand_to_room(raw, start_slot=bool(is_start), stamps=take_stamps)
            self._play_what_was_taken()
            if taken:
                stamps.mark("ready")

    def _play_what_was_taken(self) -> None:
        """An intake that plays its requests itself: each room's first, in the order taken, and the room's
        next ones after it (`_play`). A request that raises is logged and the next one played: the intake
        must go on taking."""
        while self.to_play:
            try:
                self._play(*self.to_play.popleft())
            except Exception:
                log.exception("a request played by the intake failed")

    def _put_back_lost_takes(self) -> None:
        """Put back on the moves' list what a take whose reply was lost left on this worker's list: the requests
        on it that no thread of this worker has (its threads only ever clear their own from it)."""
        on_list = live.client().lrange(self.taken_key, 0, -1)
        with self.in_hand_lock:
            unmatched = self.in_hand + self.played_on_list
        lost = []
        for raw in on_list:
            if unmatched[raw] > 0:
                unmatched[raw] -= 1
            else:
                lost.append(raw)
        if not lost:
            return
        moves, moves_bell = _lane_of("move")
        moved = live.client().eval(_PUT_BACK, 3, moves, self.taken_key, moves_bell, *lost)
        if moved:
            log.warning("%d requests of a take whose reply was lost put back on the queue", moved)

    def _clear_played(self) -> None:
        """Clear from this worker's list the played requests a thread could not clear (Redis failed it then)."""
        if not self.played_on_list:  # as nearly always: no lock taken before every take
            return
        with self.in_hand_lock:
            played = self.played_on_list.copy()
        if not played:
            return
        try:
            pipe = live.client().pipeline(transaction=False)
            for raw, count in played.items():
                pipe.lrem(self.taken_key, count, raw)
            pipe.execute()
        except RedisError:  # tried again before the next take; no reason to hold up taking moves
            log.warning("could not clear %d played requests from this worker's list", sum(played.values()))
            return
        with self.in_hand_lock:
            self.played_on_list -= played

    def _hand_to_room(self, raw: str, *, start_slot: bool = False, stamps: dict | None = None) -> None:
        """`start_slot`: the request holds one of the start slots, given back once it is played. `stamps`:
        the take's, when moves are traced."""
        try:
            payload = json.loads(raw)
            room = codes.normalize(payload["room"])
            trace.taken(payload, stamps)
        except Exception:  # played (and logged) by a thread as any request that cannot be played
            self._submit(raw, None, None, start_slot)
            return
        with self.rooms_lock:
            waiting = self.rooms_in_play.get(room)
            if waiting is not None:
                waiting.append((raw, payload, start_slot))
                return
            self.rooms_in_play[room] = collections.deque()
            self.queued += 1  # under the same lock: a thread done with its room sees this one waiting
        self._enqueue(raw, payload, room, start_slot)

    def _next_of_room(self, room: str, *, go_on: bool = True) -> tuple | None:
        """The room's request in play is done: its next one (raw, payload, start_slot) if no other room's
        request waits for a thread, for this thread to play at once; else (or not `go_on`) its next one goes to
        the pool's queue, behind them, as the room leaves if it has none. None: nothing more for this thread."""
        with self.rooms_lock:
            waiting = self.rooms_in_play[room]
            if not waiting:
                del self.rooms_in_play[room]
                return None
            following = waiting.popleft()
            if go_on and not self.queued:
                self.begun_in_turn += 1
                return following
        self._submit(following[0], following[1], room, following[2])
        return None

    def _play(self, raw: str, payload: dict | None, room: str | None, start_slot: bool = False) -> None:
        """Play a request taken from the pool's queue and then, in this same thread, each of its room's that
        waited behind it while no other room's waits for a thread: in the order the worker took them either
        way, but with no hand-over through the queue and no other thread woken for the room's next request.
        A move goes with the room's moves waiting right behind it, together (`_play_together`)."""
        with self.rooms_lock:
            self.queued -= 1
            self.begun_from_pool += 1
        while True:
            try:
                behind = self._moves_behind(room, payload)
                if behind:
                    self._play_together([(raw, payload), *behind])
                else:
                    self._play_one(raw, payload, start_slot)
            except BaseException:  # whatever failed, the room's next request is not left waiting
                if room is not None:
                    self._next_of_room(room, go_on=False)  # to the pool's queue, counted begun from it
                raise
            following = self._next_of_room(room) if room is not None else None
            if following is None:
                return
            raw, payload, start_slot = following

    def _moves_behind(self, room: str | None, payload: dict | None) -> list[tuple[str, dict]]:
        """For a move: the room's moves waiting right behind it (raw, payload), up to BATCH_MOST in all with it,
        taken off the room's list; never past a start or a play-again."""
        if room is None or payload is None or payload.get("kind") != "move" or BATCH_MOST < 2:
            return []
        behind = []
        with self.rooms_lock:
            waiting = self.rooms_in_play[room]
            while waiting and len(behind) < BATCH_MOST - 1:
                raw, following, _start_slot = waiting[0]  # a move never holds a start slot
                if following is None or following.get("kind") != "move":
                    break
                waiting.popleft()
                behind.append((raw, following))
            if behind:
                self.played_together[len(behind) + 1] += 1
        return behind

    def _play_together(self, requests: list[tuple[str, dict]]) -> None:
        """A room's moves, one behind another, played together (play_together): those it leaves (the first
        needs the locked way, another writer came first, a claim failed before them) one by one or together
        again, in order."""
        while requests:
            if len(requests) == 1:
                self._play_one(*requests[0], False)
                return
            services.close_old_connections()
            rode: list[str] = []  # those written, in order: each one's clearing rides on its round trip
            answered: set[int] = set()
            try:
                with live.replies_later():
                    answered = play_together([payload for _raw, payload in requests], games_in_play=self.games_in_play,
                                             written=functools.partial(self._ride, requests, rode))
            except Exception:  # unknown which were played: every one finished, once, as `_play_one` would
                log.exception("queued moves of room %s failed together", requests[0][1]["room"])
                answered = set(range(len(requests)))
            finally:
                done = [raw for index, (raw, _payload) in enumerate(requests) if index in answered]
                self._finish(done, rode=rode)
            with self.rooms_lock:
                self.moves_written_together += len(rode)
            if not answered:  # nothing to do together: the first goes the usual way
                self._play_one(*requests[0], False)
                answered = {0}
            requests = [request for index, request in enumerate(requests) if index not in answered]

    def _ride(self, requests: list[tuple[str, dict]], rode: list[str], index: int) -> None:
        """The move `requests[index]`, played together, is written: its clearing from this worker's list rides on
        its round trip after the commit, with any a round trip before it failed to carry."""
        raw = requests[index][0]
        left, key = live.rider_left(), self.taken_key

        def rider(pipe):
            if left is not None:
                left(pipe)
            pipe.lrem(key, 1, raw)

        live.ride_along(rider)
        rode.append(raw)

    def _submit(self, raw: str, payload: dict | None, room: str | None, start_slot: bool) -> None:
        with self.rooms_lock:
            self.queued += 1
        self._enqueue(raw, payload, room, start_slot)

    def _enqueue(self, raw: str, payload: dict | None, room: str | None, start_slot: bool) -> None:
        """A request counted in `queued`, to the pool's queue, or to the intake's own when it plays them."""
        if self.inline:
            self.to_play.append((raw, payload, room, start_slot))
        else:
            self.pool.submit(self._play, raw, payload, room, start_slot)

    def _play_one(self, raw: str, payload: dict | None, start_slot: bool) -> None:
        services.close_old_connections()
        rode = False  # its removal from this worker's list rides on the move's round trip after commit
        try:
            if payload is None:
                payload = json.loads(raw)
            trace.begin(payload)
            rode = payload.get("kind") == "move" or payload.get("kind") in BENCH_KINDS
            if rode:  # one write transaction (or the relay's publish): its round trip after commit clears it too
                live.ride_along(lambda pipe: pipe.lrem(self.taken_key, 1, raw))
            with live.replies_later():  # the round trip after its commit is sent, its replies read below
                play(payload, games_in_play=self.games_in_play)
        except Exception:  # one bad move must not stop the worker; its socket hears of it by the deadline
            log.exception("queued move %.200s failed", raw)
        finally:
            self._finish([raw], rode=[raw] if rode else [], start_slot=start_slot)

    def _finish(self, raws: list[str], *, rode: list[str], start_slot: bool = False) -> None:
        """Requests played or refused: their threads' slots given back, and each cleared from this worker's
        list unless its round trip after its commit did (`rode`: those whose clearing was set to ride)."""
        for _raw in raws:
            self.free.release()
        if start_slot:
            self.start_free.release()
        try:
            live.settle()
        except Exception:  # as a step after a commit that failed (services._run_each); its rider is left
            log.exception("a step after a commit failed")
        # Unless the moves' round trips after their commits cleared them already (as nearly always for a move:
        # no round trip here then, nor a pipeline made).
        to_clear = [raw for raw in raws if raw not in rode] if live.rider_left() is None else raws
        cleared = False
        if to_clear or start_slot:
            try:
                pipe = live.client().pipeline(transaction=False)
                for raw in to_clear:
                    pipe.lrem(self.taken_key, 1, raw)
                if start_slot:  # the intake may be waiting for it, deaf to the starts' bell
                    pipe.rpush(self.bell_key, 1)
                    pipe.ltrim(self.bell_key, 0, 0)
                pipe.execute()
                cleared = True
            except RedisError:
                log.warning("could not clear a played request from this worker's list")
        with self.in_hand_lock:
            for raw in raws:
                self.in_hand[raw] -= 1
                if self.in_hand[raw] <= 0:
                    del self.in_hand[raw]
            if not cleared:  # still on the list: the intake clears them before its next take
                self.played_on_list.update(to_clear)
        trace.end()
        # Last, the request's own work done: a connection near its age is replaced here, not by a move's first
        # statement (services.close_old_connections).
        services.close_old_connections(renew_aging=True)
