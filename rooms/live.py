"""What is live and fast lives in Redis: presence, the timer index and the expiry index.

The database stays the truth for deadlines and activity; `rebuild` puts the index back from it, so
losing Redis loses no game. Every key starts with settings.REDIS_PREFIX.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from functools import lru_cache

import redis
from django.conf import settings

log = logging.getLogger(__name__)

# Claim due members atomically: two workers never get the same one.
_CLAIM = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
if #due > 0 then redis.call('ZREM', KEYS[1], unpack(due)) end
return due
"""


# A Redis that goes silent must fail a call, not hang its thread: the worker's intake, its timers and its
# publishes all wait on it. Nothing of the site's blocks in Redis for longer (the intake's wait: 0.5 s). This is
# redis-py's default today; pinned here rather than left to the library's.
SOCKET_TIMEOUT = 5


def client() -> redis.Redis:
    """The site's client. A thread whose joined round trip was sent for later (`replies_later`) has its
    replies read first (`settled`): whatever it sends next runs in Redis after that round trip."""
    if getattr(_joined, "pending", None) is not None:
        settled()
    return _client()


@lru_cache(maxsize=1)
def _client() -> redis.Redis:
    return redis.Redis.from_url(settings.REDIS_URL, decode_responses=True, health_check_interval=30,
                                socket_timeout=SOCKET_TIMEOUT, socket_connect_timeout=SOCKET_TIMEOUT)


def key(*parts: object) -> str:
    return settings.REDIS_PREFIX + ":".join(str(p) for p in parts)


TIMERS = "timers"
EXPIRY = "expiry"
INDEXED = "indexed"  # set once the indexes are built; gone when Redis comes back empty


def came_back_empty() -> bool:
    """True (once) if Redis holds no indexes of this site: it restarted empty, or was never filled. The
    caller then rebuilds them from the database."""
    return bool(client().set(key(INDEXED), "1", nx=True))


# --- timers: countdowns, bot turns, grace periods ---------------------------------------------

# Set when a timer could not be written (Redis failed just after a commit): the worker of this process then
# rebuilds the index from the database at once, instead of leaving that game still until the next rebuild.
index_lost = threading.Event()


def _timer_write(write) -> None:
    try:
        write()
    except redis.RedisError:
        index_lost.set()
        raise


def schedule(member: str, at: float, *, keep_existing: bool = False) -> None:
    _timer_write(lambda: client().zadd(key(TIMERS), {member: at}, nx=keep_existing))


def schedule_many(timers: dict[str, float], *, keep_existing: bool = False) -> None:
    """Several timers in one command (a start's grace periods, the index rebuilt); none, no command."""
    if timers:
        _timer_write(lambda: client().zadd(key(TIMERS), timers, nx=keep_existing))


def cancel(member: str) -> None:
    client().zrem(key(TIMERS), member)


def replace(old: str | None, new: str | None = None, at: float | None = None, *,
            played_for: tuple[int, int, str | None] | None = None) -> None:
    """Drop the timer `old` and schedule `new` at `at`, and `note_played_for(*played_for)`, in one round trip
    (a move's writes to Redis after its commit), or in the round trip `joined` makes."""
    dropping = old is not None and old != new
    if not (dropping or new is not None or played_for is not None):
        return

    def queue(pipe):
        if dropping:
            pipe.zrem(key(TIMERS), old)
        if new is not None:
            pipe.zadd(key(TIMERS), {new: at})
        if played_for is not None:
            _note_played_for(pipe, *played_for)

    if joinable(queue, timers=dropping or new is not None):
        return
    pipe = client().pipeline(transaction=False)
    queue(pipe)
    _timer_write(pipe.execute)


# --- a move's writes after its commit, in one round trip -----------------------------------------------
# A move used to make three round trips to Redis after its commit (the position's mark, the update's
# publish, the timers with who decided) and the worker a fourth (clearing the request from its list). On
# SQLite every other writer's steps wait for them (services._writing), and each reply had the move's thread
# wait for the GIL again behind the worker's other threads: under load the slowest moves spent most of their
# time there. Queued on one pipeline, they go in one round trip, in the order queued.

_joined = threading.local()


@contextlib.contextmanager
def joined():
    """Within this, in this thread, the writes that can wait for it (`joinable`: positions.changed, the
    worker's publish, `replace`) are queued, and sent in one round trip at `flush` or at the end, in the order
    queued; the worker's `rider` for the request goes last. A joined block within another is part of it."""
    if getattr(_joined, "pipe", None) is not None:
        yield
        return
    _joined.pipe, _joined.timers = client().pipeline(transaction=False), False
    try:
        yield
    finally:
        try:
            flush()
        finally:
            _joined.pipe = None


def joinable(queue, *, timers: bool = False) -> bool:
    """Queue `queue(pipe)` on this thread's joined round trip and return True, or return False (none open):
    the caller then writes at once. `timers`: a failed round trip marks the timer index lost."""
    pipe = getattr(_joined, "pipe", None)
    if pipe is None:
        return False
    queue(pipe)
    _joined.timers = _joined.timers or timers
    return True


def flush() -> None:
    """Send what is queued on this thread's joined round trip, if anything, with the rider after it.
    Raises RedisError when Redis cannot be asked (the rider is then left to its owner). Within
    `replies_later`, its replies are read at `settle` instead; those of this thread's round trip before, if
    still unread, are read first, and their failure is logged (handled as `settle` says) without holding
    this one back."""
    pipe = getattr(_joined, "pipe", None)
    if pipe is None or not len(pipe):
        return
    settled()  # that round trip's failure is handled as settle says; this one goes all the same
    rider = getattr(_joined, "rider", None)  # a failed round trip's rider rides on this one
    if rider is not None:
        rider(pipe)
    try:
        if not (getattr(_joined, "later", False) and _send_for_later(pipe, rider)):
            pipe.execute()
    except redis.RedisError:
        if _joined.timers:
            index_lost.set()
        raise
    finally:
        _joined.timers = False
        pipe.reset()
    _joined.rider = None


# --- a joined round trip's replies read later ------------------------------------------------------
# The worker's move thread used to wait for the reply of its move's round trip after the commit: blocked in
# recv while Redis ran it, then woken, then waiting for the GIL, holding the after-commit lock on SQLite. Within
# `replies_later` the round trip is sent as before (the update leaves as early) and its replies are read at
# `settle`, the end of the request, by which time they are most often there.
# Redis may run another connection's commands while it reads a large pipeline (a game's update carries eleven
# texts), so a command this thread sends on another connection meanwhile could run first: the update of a room
# published ahead of its game's last update. So before any other command of this thread (the site's `client`,
# broadcast's publishes) the replies are read (`settled`), and Redis has run the round trip by then.


@contextlib.contextmanager
def replies_later():
    """Within this, in this thread, a joined round trip is sent at `flush` and its replies are read at the next
    `flush`, at `settled` (before this thread sends anything else to Redis) or at `settle`, which the caller
    calls once its request is done (before it asks `rider_left`): its connection is out of the pool until
    then. Outside it, `flush` reads them at once. A round trip of this thread left unread is read on entry."""
    if getattr(_joined, "pending", None) is not None:
        log.warning("a round trip after a commit was left unread; read now")
        settled()
    _joined.later = True
    try:
        yield
    finally:
        _joined.later = False


def _send_for_later(pipe, rider) -> bool:
    """Send the pipeline's commands on a connection of the pool, kept with the count of replies to read
    (`settle`). False if it could not be sent (nothing was, or the connection is dropped): the caller then
    sends it the usual way, with the client's retries."""
    commands = [args for args, _options in pipe.command_stack]
    pool = pipe.connection_pool
    try:
        connection = pool.get_connection()
    except redis.RedisError:
        return False
    try:
        connection.send_packed_command(connection.pack_commands(commands))
    except BaseException as error:
        connection.disconnect()  # back to the pool, never with a reply unread
        pool.release(connection)
        if isinstance(error, redis.RedisError):
            return False
        raise
    _joined.pending = (pool, connection, len(commands), _joined.timers, rider)
    return True


def settle() -> None:
    """Read the replies of this thread's joined round trip sent for later, if any. Raises RedisError as its
    `flush` would have (the first command Redis refused, or the connection's failure): the timer index is then
    marked lost if it carried timers, and its rider is left to its owner (`rider_left`)."""
    pending = getattr(_joined, "pending", None)
    if pending is None:
        return
    _joined.pending = None
    pool, connection, count, timers, rider = pending
    try:
        refused = None
        for _reply in range(count):  # every reply read, even after a refusal: the connection goes back clean
            try:
                connection.read_response()
            except redis.ResponseError as error:
                refused = refused or error
        if refused is not None:
            raise refused
    except BaseException as error:
        if not isinstance(error, redis.ResponseError):
            connection.disconnect()  # a reply may be unread
        if timers:
            index_lost.set()
        if rider is not None:  # kept with any set since (the next move's, read at its flush): both ride next
            current = getattr(_joined, "rider", None)
            _joined.rider = rider if current is None else _both(rider, current)
        raise
    finally:
        pool.release(connection)


def _both(first, then):
    def rider(pipe):
        first(pipe)
        then(pipe)
    return rider


def settled() -> None:
    """`settle`, its failure logged (and handled as `settle` says) rather than raised: called before this thread
    sends anything else to Redis, so that runs after its round trip sent for later. None pending: one look."""
    if getattr(_joined, "pending", None) is None:
        return
    try:
        settle()
    except redis.RedisError:
        log.exception("a round trip after a commit failed")


def ride_along(queue) -> None:
    """The worker's own write for the request this thread plays (clearing it from its list): queued after the
    next joined round trip of this thread, which then carries it (see `rider_left`)."""
    _joined.rider = queue


def rider_left():
    """The rider set by `ride_along` if no joined round trip carried it, else None; forgotten either way."""
    rider, _joined.rider = getattr(_joined, "rider", None), None
    return rider


def claim_due(now: float | None = None, limit: int = 100, index: str = TIMERS) -> list[str]:
    now = time.time() if now is None else now
    return client().eval(_CLAIM, 1, key(index), now, limit)


# Lease due members: each is moved LEASE seconds ahead instead of removed, so a worker killed while it
# handles one leaves it due again for another; the handler's worker removes it when done, unless it was
# scheduled anew meanwhile (its score is then no longer the lease's).
_LEASE = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
for _, member in ipairs(due) do redis.call('ZADD', KEYS[1], ARGV[3], member) end
return due
"""
_RELEASE = """
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) == tonumber(ARGV[2]) then return redis.call('ZREM', KEYS[1], ARGV[1]) end
return 0
"""
LEASE_SECONDS = 10.0


def lease_due(limit: int = 100, *, lease: float = LEASE_SECONDS) -> tuple[list[str], str]:
    """Due timers for this worker alone until the lease runs out, and the lease (to `release` them with)."""
    now = time.time()
    until = repr(round(now + lease, 3))
    return client().eval(_LEASE, 1, key(TIMERS), now, limit, until), until


def release(member: str, lease: str) -> None:
    """A leased timer was handled: it leaves the index, unless it was scheduled again since."""
    client().eval(_RELEASE, 1, key(TIMERS), member, lease)


def scheduled_at(member: str, index: str = TIMERS) -> float | None:
    return client().zscore(key(index), member)


# --- expiry index -------------------------------------------------------------------------------

def touch_expiry(room_code: str, expires_at: float) -> None:
    client().zadd(key(EXPIRY), {room_code: expires_at})


def touch_expiry_many(expiries: dict[str, float]) -> None:
    """Several rooms' expiry in one command; none, no command."""
    if expiries:
        client().zadd(key(EXPIRY), expiries)


def drop_expiry(room_code: str) -> None:
    client().zrem(key(EXPIRY), room_code)


# --- presence -----------------------------------------------------------------------------------
# A sorted set per room of "seat|connection" members scored by when they lapse; a crashed server's
# connections lapse by themselves after PRESENCE_TTL_SECONDS.

def _presence_key(room_code: str) -> str:
    return key("presence", room_code)


def _presence_member(seat: int | None, channel: str) -> str:
    """A socket's member in its room's presence: "SEAT|CHANNEL", or "|CHANNEL" for one watching."""
    return f"{'' if seat is None else seat}|{channel}"


def presence_join(room_code: str, seat: int | None, channel: str) -> None:
    pipe = client().pipeline()
    _queue_presence(pipe, room_code, seat, channel, time.time())
    pipe.execute()


# A seat's place for one more socket: taken (presence marked, the grace timer dropped) only if the seat's
# other live sockets number fewer than ARGV[5] (below 0: no limit). Counted and marked in one step, so a burst
# of sockets opened on one seat at once cannot all see room for themselves.
_SEAT_BACK = """
if tonumber(ARGV[5]) >= 0 then
  local prefix, others = ARGV[2], 0
  for _, member in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[1], '+inf')) do
    if member ~= ARGV[3] and string.sub(member, 1, #prefix) == prefix then others = others + 1 end
  end
  if others >= tonumber(ARGV[5]) then return 0 end
end
redis.call('ZADD', KEYS[1], ARGV[4], ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[6])
redis.call('ZREM', KEYS[2], ARGV[7])
return 1
"""


def seat_back(room_code: str, seat: int, channel: str, *, most_sockets: int | None = None) -> bool:
    """presence_join for a seat, and its grace timer dropped, in one round trip (every seated connect);
    unless the seat already has `most_sockets` other sockets present (None: no limit). Returns whether the
    socket took its place on the seat; if not, nothing was written. The limit holds for connects: a ping
    renews a socket's presence without counting (a tab whose presence lapsed comes back on its next ping)."""
    now, ttl = time.time(), settings.WICKWISE["PRESENCE_TTL_SECONDS"]
    return bool(client().eval(
        _SEAT_BACK, 2, _presence_key(room_code), key(TIMERS), now, f"{seat}|", _presence_member(seat, channel),
        now + ttl, -1 if most_sockets is None else most_sockets, int(ttl * 2), f"grace:{room_code}:{seat}"))


def _queue_presence(pipe, room_code: str, seat: int | None, channel: str, now: float) -> None:
    """The socket present on `seat` (None: watching) until the presence lifetime from `now` lapses."""
    ttl = settings.WICKWISE["PRESENCE_TTL_SECONDS"]
    pipe.zadd(_presence_key(room_code), {_presence_member(seat, channel): now + ttl})
    pipe.expire(_presence_key(room_code), int(ttl * 2))


def presence_leave(room_code: str, seat: int | None, channel: str) -> None:
    client().zrem(_presence_key(room_code), _presence_member(seat, channel))


def connected_seats(room_code: str) -> set[int]:
    return seats_present(queue_connected_seats(client(), room_code))


def connected_seats_of(room_codes: list[str]) -> list[set[int]]:
    """connected_seats for each of these rooms, in one round trip."""
    if not room_codes:
        return []
    pipe = client().pipeline(transaction=False)
    for room_code in room_codes:
        queue_connected_seats(pipe, room_code)
    return [seats_present(members) for members in pipe.execute()]


def queue_connected_seats(target, room_code: str):
    """Read the room's presence on `target`: the client (the members, at once) or a pipeline (queued; its
    result goes to `seats_present`)."""
    return target.zrangebyscore(_presence_key(room_code), time.time(), "+inf")


def seats_present(members) -> set[int]:
    return {int(seat) for seat, _, _channel in (member.partition("|") for member in members) if seat}


def presence_and_host(room_code: str, *also) -> tuple[set[int], int, list]:
    """The room's connected seats and its host, read in one round trip with what each of `also` queues on the
    pipeline (a position mark, a seat's played_for): every room update and snapshot reads both. Returns
    those too, with their replies, a failed one as its exception for the caller to judge; a failed read of
    presence or the host raises."""
    pipe = client().pipeline(transaction=False)
    queue_connected_seats(pipe, room_code)
    queue_host_seat(pipe, room_code)
    for queue in also:
        queue(pipe)
    members, host, *replies = pipe.execute(raise_on_error=False)
    for reply in (members, host):
        if isinstance(reply, Exception):
            raise reply
    return seats_present(members), host_from(host), replies


# --- who decided for an absent player ----------------------------------------------------------

PLAYED_FOR_TTL_SECONDS = 6 * 3600


def note_played_for(game_id: int, seat: int, by: str | None) -> None:
    """Remember that a stand-in or the table made this seat's last decision (by), or forget it (None: the
    player decided), so that a player coming back is told in their snapshot."""
    _note_played_for(client(), game_id, seat, by)


def _note_played_for(redis_client, game_id: int, seat: int, by: str | None) -> None:
    name = key("played_for", game_id, seat)
    if by is None:
        redis_client.delete(name)
    else:
        redis_client.set(name, by, ex=PLAYED_FOR_TTL_SECONDS)


def played_for(game_id: int, seat: int) -> str | None:
    return queue_played_for(client(), game_id, seat)


def queue_played_for(target, game_id: int, seat: int):
    """Read played_for on `target`: the client (the answer, at once) or a pipeline (queued)."""
    return target.get(key("played_for", game_id, seat))


def position_keys(room_code: str) -> tuple[str, str, str]:
    """The room's mark of its last change, the position a pong reports as last worked out, and its game's
    part as its last update left it (rooms/positions.py)."""
    return key("position-gen", room_code), key("position", room_code), key("position-game", room_code)


# --- the host ---------------------------------------------------------------------------------

def _host_key(room_code: str) -> str:
    return key("host", room_code)


def host_seat(room_code: str) -> int:
    """The seat that starts games: seat 0, the room's creator, until the role passes to another player
    (services.fire_grace). Kept with presence: losing Redis gives the role back to seat 0."""
    return host_from(queue_host_seat(client(), room_code))


def queue_host_seat(target, room_code: str):
    """Read the host's seat on `target` (the client, or a pipeline whose result goes to `host_from`)."""
    return target.get(_host_key(room_code))


def host_from(value) -> int:
    return int(value) if value is not None else 0


def pass_host(room_code: str, seat: int) -> None:
    client().set(_host_key(room_code), seat, ex=settings.WICKWISE["ROOM_LIFETIME_DAYS"] * 86400)


def flush_room(room_code: str) -> None:
    client().delete(_presence_key(room_code), _host_key(room_code), *position_keys(room_code))
    drop_expiry(room_code)


# --- sockets per client address (a seat's: seat_back) -----------------------------------------

def _address_key(address: str) -> str:
    return key("sockets", address)


def socket_from(address: str, channel: str) -> int:
    """Mark a socket open (or still open) for its client address, lapsing as presence does; returns how many
    sockets the address holds now."""
    now, ttl = time.time(), settings.WICKWISE["PRESENCE_TTL_SECONDS"]
    pipe = client().pipeline()
    pipe.zremrangebyscore(_address_key(address), "-inf", now)
    pipe.zadd(_address_key(address), {channel: now + ttl})
    pipe.expire(_address_key(address), int(ttl * 2))
    pipe.zcard(_address_key(address))
    return pipe.execute()[-1]


def still_open(address: str, channel: str, room_code: str, seats: list[int]) -> None:
    """A ping: socket_from and presence_join for each of `seats`, in one round trip (every open page pings
    every 15 s). daphne queues the same on its event loop's client, with the room's position
    (rooms/positions.py)."""
    pipe = client().pipeline()
    queue_still_open(pipe, address, channel, room_code, seats)
    pipe.execute()


def queue_still_open(pipe, address: str, channel: str, room_code: str, seats: list[int]) -> None:
    """Queue what a ping renews on `pipe`, a pipeline of a blocking or an asyncio client."""
    now, ttl = time.time(), settings.WICKWISE["PRESENCE_TTL_SECONDS"]
    pipe.zremrangebyscore(_address_key(address), "-inf", now)
    pipe.zadd(_address_key(address), {channel: now + ttl})
    pipe.expire(_address_key(address), int(ttl * 2))
    for seat in seats:
        _queue_presence(pipe, room_code, seat, channel, now)


# Renew members that are still there, never putting one back: KEYS[i] holds member ARGV[i + 2], renewed to lapse
# at ARGV[1], its key to expire ARGV[2] seconds on. One call for a hundred sockets costs daphne a seventh of the
# CPU of their commands pipelined (0.015 against 0.11 ms a socket): the loop is held that much less.
_STILL_THERE = """
for i, name in ipairs(KEYS) do
  redis.call('ZADD', name, 'XX', ARGV[1], ARGV[i + 2])
  redis.call('EXPIRE', name, ARGV[2])
end
return #KEYS
"""


def kept_open_members(address: str, channel: str, room_code: str, seats: list[int]) -> list[tuple[str, str]]:
    """What a ping renews for a socket, as (key, member) pairs: its address count and its seats' presence."""
    presence = _presence_key(room_code)
    return [(_address_key(address), channel), *((presence, _presence_member(seat, channel)) for seat in seats)]


def renew_if_there(target, members: list[tuple[str, str]]):
    """Renew these (key, member) pairs for a presence lifetime, those still there only (rooms/presence_keeper.py),
    in one call on `target`, a blocking or an asyncio client (then awaited)."""
    now, ttl = time.time(), settings.WICKWISE["PRESENCE_TTL_SECONDS"]
    names, kept = [name for name, _member in members], [member for _name, member in members]
    return target.register_script(_STILL_THERE)(keys=names, args=[now + ttl, int(ttl * 2), *kept])


def socket_gone(address: str, channel: str) -> None:
    client().zrem(_address_key(address), channel)
