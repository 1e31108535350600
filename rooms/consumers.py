"""One socket per browser tab (or program) in a room. Thin: it checks messages, hands moves and starts to
the worker, and calls services for the rest.

Protocol: docs/protocol.md. Each connection gets only its own seat's view.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import time
from concurrent.futures import ThreadPoolExecutor

from autobahn.exception import Disconnected
from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext as _
from redis.exceptions import RedisError

from rooms import broadcast, drafts, live, move_queue, positions, presence_keeper, services, snapshots, trace
from rooms.identity import device_seats_from_scope, language_from_scope, seat_from_scope
from rooms.models import Room

log = logging.getLogger("wickwise.sockets")

CLIENT_TYPES = {"move", "sync", "ping", "auth", "client_seed", "start", "play_again", "draft", "pause", "resume",
                "take_turn"}


def _run_service(function, /, **kwargs):
    """Run a service in a database thread; what it broadcasts is returned to be sent from the loop."""
    with broadcast.collecting() as box:
        result = function(**kwargs)
    return result, box


# Database work runs in pools of threads, each thread with its own connection. Services for different rooms
# run in parallel (the room's row lock orders moves within a room). Reads (snapshots, pings, the connect
# check) have a pool of their own, so they never wait behind moves queued for the writer's lock; a seated
# connect's snapshot goes with its seat_connected instead (_seat_and_snapshot), which writes only to clear a
# stand-in. Channels' default, one shared thread for the whole process, queued every socket's snapshot behind
# every other's.
_READS = ThreadPoolExecutor(max_workers=4, thread_name_prefix="db-read")
_reading = functools.partial(database_sync_to_async, thread_sensitive=False, executor=_READS)


def close_read_pool() -> None:
    """Stop the read threads; their database connections close once collected. For the end of a test run,
    which cannot drop its database while a connection is open."""
    _READS.shutdown(wait=True)


_in_thread = database_sync_to_async(_run_service, thread_sensitive=False)


async def call_service(function, /, **kwargs):
    result, box = await _in_thread(function, **kwargs)
    await broadcast.flush(box)
    return result


def seat_group(room_code: str, seat: int) -> str:
    return f"{broadcast.room_group(room_code)}.seat{seat}"


def _device_of(scope) -> str:
    """What tells one browser from another: its session (tabs of one browser share it); a program with no
    cookie is a device of its own."""
    session = scope.get("session")
    key = getattr(session, "session_key", None) if session is not None else None
    return f"session:{key}" if key else f"socket:{id(scope)}"


class _AddressBuckets:
    """A token bucket per client address, shared by that address's sockets in this process."""

    KEEP = 10_000  # addresses remembered before the full ones are forgotten

    def __init__(self):
        self.buckets: dict[str, list[float]] = {}

    def take(self, address: str, now: float) -> bool:
        rate = settings.WICKWISE["WS_ADDRESS_RATE_PER_SECOND"]
        burst = settings.WICKWISE["WS_ADDRESS_RATE_BURST"]
        bucket = self.buckets.get(address)
        if bucket is None:
            if len(self.buckets) >= self.KEEP:
                self.buckets = {a: b for a, b in self.buckets.items() if b[0] + (now - b[1]) * rate < burst}
            bucket = self.buckets[address] = [float(burst), now]
        bucket[0] = min(burst, bucket[0] + (now - bucket[1]) * rate)
        bucket[1] = now
        if bucket[0] < 1:
            return False
        bucket[0] -= 1
        return True


_ADDRESS_BUCKETS = _AddressBuckets()


async def _release_channel(layer, channel: str) -> None:
    """Unsubscribe a closing socket's own channel. The pub/sub layer does so only from inside its wait for the
    channel's next message, when that wait is cancelled; a socket that closes as a message reaches it has its
    next wait cancelled before the wait begins (Channels' loop), and the channel would stay subscribed, with
    its queue, for the life of the process. The layer offers no call for it, so this reaches into the
    loop's layer as its own wait does on cancel. The entry goes only once Redis has let go: cancelled or
    failed before then, the layer's own clean-up still finds it (unsubscribing twice does nothing)."""
    loop_layer = getattr(layer, "_get_layer", lambda: None)()
    if loop_layer is None or channel not in loop_layer.channels:
        return
    try:
        await loop_layer._get_shard(channel).unsubscribe(channel)
    except (RedisError, OSError):  # as the layer's own clean-up does: the client subscribes again on reconnect
        log.warning("could not unsubscribe a closed socket's channel", exc_info=True)
        return
    loop_layer.channels.pop(channel, None)


def _checks_before_accepting(scope, room_code: str, address: str, channel: str, *, watching: bool):
    """What a socket's connect looks up before its handshake is answered, in one trip to a read thread: a
    thousand pages connecting at once (a daphne restarted) each queued four times behind the snapshots of
    the pages accepted before them.
    A socket over its address's limit is refused before it opens: it never gets a disconnect to uncount it.
    Returns (a close code or None, the seat, the seats of a same-device room)."""
    if not Room.objects.filter(code=room_code).exists():
        return 4404, None, None
    if live.socket_from(address, channel) > settings.WICKWISE["WS_MAX_SOCKETS_PER_ADDRESS"]:
        live.socket_gone(address, channel)
        return 4429, None, None
    if watching:
        return None, None, None
    return None, seat_from_scope(scope, room_code), device_seats_from_scope(scope, room_code)


class RoomConsumer(AsyncWebsocketConsumer):
    room_code: str
    seat: int | None = None
    # A same-device room whose every seat this browser holds: the seats. The socket acts for the one whose
    # decision is pending; between players it holds none (`passing_to`) until the next taps "take_turn".
    device_seats: list[int] | None = None
    passing_to: int | None = None
    seated_at = 0.0  # when this socket took its seat
    presence_renewed_at = 0.0  # time.monotonic() of the last renewal: a ping's or the keeper's

    async def connect(self):
        trace.watch_loop_lag()
        self.room_code = self.scope["url_route"]["kwargs"]["code"].upper()
        self.language = language_from_scope(self.scope)
        self.tokens = float(settings.WICKWISE["WS_RATE_BURST"])
        self.refilled = time.monotonic()
        self.draft_tokens, self.draft_refilled = drafts.BURST, self.refilled
        self.groups_joined: list[str] = []
        self.requests_sent = 0
        self.unanswered: dict[str, asyncio.TimerHandle] = {}  # a request handed to the worker -> its deadline
        self.tasks: set[asyncio.Task] = set()
        self.address = (self.scope.get("client") or ["unknown"])[0]
        self.device = _device_of(self.scope)
        # A page told its seat is played elsewhere watches (?watch=1) until its player takes the seat back.
        watching = b"watch=1" in self.scope.get("query_string", b"").split(b"&")
        # Not counted until the checks say so: an error among them sends no uncount (a count already taken
        # lapses as presence does).
        self.counted = False
        refusal, self.seat, self.device_seats = await _reading(_checks_before_accepting)(
            self.scope, self.room_code, self.address, self.channel_name, watching=watching)
        self.counted = refusal is None  # a refused socket was never counted, or is uncounted already
        if refusal is not None:
            # Accepted, then closed: a close before accepting refuses the handshake with HTTP 403, and the
            # client never sees the code (4404: no such room; 4429: too many sockets from this address).
            await self.accept()
            await self.close(code=refusal)
            return
        await self.accept()
        # Present while open, whether or not the page's pings keep time (rooms/presence_keeper.py).
        self.presence_renewed_at = time.monotonic()
        presence_keeper.keep(self)
        if self.device_seats is not None:
            return await self._hold_device_seats()
        await self._take_place(self.seat)

    async def _hold_device_seats(self):
        """Every seat is here while this socket is: no bot stands in for a player waiting for the device."""
        self.groups_joined = [broadcast.room_group(self.room_code)]
        await self.channel_layer.group_add(self.groups_joined[0], self.channel_name)
        for seat in self.device_seats:
            await call_service(services.seat_connected, room_code=self.room_code, seat=seat, channel=self.channel_name)
        to_act = await _reading(services.seat_to_act)(room_code=self.room_code, seats=self.device_seats)
        if to_act is None:  # the lobby or the end: the host's seat, which starts games
            self.seat = await _reading(live.host_seat)(self.room_code)
            return await self._send_snapshot()
        # A page opened mid-game shows no hand until the player to act takes the device.
        self.seat, self.passing_to = None, to_act
        await self._send_json({"type": "pass_device", "seat": to_act})
        await self._send_snapshot()

    async def disconnect(self, code):
        presence_keeper.let_go(self)
        try:
            await self._leave_the_room()
        finally:
            await _release_channel(self.channel_layer, self.channel_name)

    async def _leave_the_room(self):
        if getattr(self, "counted", False):
            await _reading(live.socket_gone)(self.address, self.channel_name)
        for deadline in self.unanswered.values():
            deadline.cancel()
        self.unanswered.clear()
        for task in list(self.tasks):
            task.cancel()
        for group in self.groups_joined:
            await self.channel_layer.group_discard(group, self.channel_name)
        if self.device_seats is not None:
            for seat in self.device_seats:
                await call_service(services.seat_disconnected, room_code=self.room_code, seat=seat,
                                   channel=self.channel_name)
        elif self.seat is not None:
            await call_service(
                services.seat_disconnected, room_code=self.room_code, seat=self.seat, channel=self.channel_name
            )
        elif getattr(self, "groups_joined", None):
            await _reading(live.presence_leave)(self.room_code, None, self.channel_name)

    async def _take_place(self, seat: int | None):
        """Join the groups for `seat` (None: a spectator), mark presence, send a snapshot."""
        holding = seat is not None and seat == self.seat and bool(self.groups_joined)  # counted on it already
        for group in self.groups_joined:
            await self.channel_layer.group_discard(group, self.channel_name)
        self.groups_joined = [broadcast.room_group(self.room_code)]
        for group in self.groups_joined:
            await self.channel_layer.group_add(group, self.channel_name)
        # The seat is this socket's from here: if the trip below fails, its disconnect leaves the seat.
        self.seat = seat
        snapshot = None
        if seat is not None:
            # One device plays a seat: the one that took it last. In the seat's group before taking it, so a
            # device taking it meanwhile is heard (seat_taken), whichever trip ends first.
            group = seat_group(self.room_code, seat)
            self.seated_at = time.time()
            self.groups_joined.append(group)
            await self.channel_layer.group_add(group, self.channel_name)
            seated, snapshot = await call_service(self._seat_and_snapshot, seat=seat, holding=holding)
            if seated:
                await self.channel_layer.group_send(group, {
                    "type": "seat.taken", "channel": self.channel_name, "device": self.device, "at": self.seated_at})
            else:
                self.seat = None
                self.groups_joined.remove(group)
                await self.channel_layer.group_discard(group, self.channel_name)
                await self._seat_full()
        if self.seat is None:
            await _reading(live.presence_join)(self.room_code, None, self.channel_name)
        await self._send_snapshot(snapshot)

    async def _seat_full(self):
        """A seat holds a few sockets (tabs, devices); one more watches instead, and is told why. The count
        and the place are taken in one step in Redis: sockets opened on one seat at once cannot all fit."""
        with translation.override(self.language):
            await self._error("too_many_sockets", _("This seat is open in too many places; this one is watching. "
                                                    "Close another tab or device and reload."))

    async def dispatch(self, message):
        # Channels' own dispatch first hops to its database thread to close stale connections, for every
        # frame and every group message: a round trip through a thread and the GIL that cost more than the
        # rest of a move's fan-out. This consumer touches the database only through database_sync_to_async,
        # which closes stale connections around each call in the thread that makes it.
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        try:
            await handler(message)
        except RedisError as error:
            await self._redis_failed(message, error)

    async def _redis_failed(self, message, error):
        """Redis is down: answer `busy` instead of letting the server close the socket (1011). A socket that
        could not join its room's group is closed with 1013 (try again later), so its page reconnects and
        gets a full snapshot once Redis is back."""
        log.warning("socket on room %s: Redis failed on %s (%s)", getattr(self, "room_code", "?"),
                    message["type"], error)
        if message["type"] == "websocket.disconnect":
            return
        if message["type"] == "websocket.connect":
            await self.close(code=1013)
            return
        with translation.override(getattr(self, "language", None) or settings.LANGUAGE_CODE):
            await self._error("busy", _("The server is busy just now; please try again in a moment."))

    # --- from the client ----------------------------------------------------------------------

    async def receive(self, text_data=None, bytes_data=None):
        with translation.override(self.language):
            await self._receive(text_data, bytes_data)

    async def _receive(self, text_data, bytes_data):
        # Every frame counts, binary and oversized ones too, before anything else is done with it.
        if not self._take_token():
            return await self._error("rate_limited", _("Too many messages; slow down."))
        if bytes_data is not None or text_data is None:
            return await self._error("bad_message", _("Messages must be JSON text."))
        size = len(text_data.encode())
        if size > settings.WICKWISE["WS_CLOSE_OVER_BYTES"]:
            # Far over the limit: not a client's slip. Closed with a close frame, which daphne's own limit,
            # set higher, would not send. 4413 (as HTTP's 413): daphne lets an application close only with
            # 1000 or 3000 to 4999, so 1009 is not available here.
            return await self.close(code=4413)
        if size > settings.WICKWISE["WS_MAX_MESSAGE_BYTES"]:
            return await self._error("too_large", _("That message is too large."))
        try:
            message = json.loads(text_data)
        except (ValueError, RecursionError):  # deep nesting fits in 4 KiB and overflows the parser
            return await self._error("bad_json", _("That message is not valid JSON."))
        # A type that is not a string (a list, say) is unhashable: check before the set lookup.
        if not isinstance(message, dict) or not isinstance(message.get("type"), str) or (
            message["type"] not in CLIENT_TYPES
        ):
            return await self._error("bad_type", _("Unknown message type."))
        handler = getattr(self, "on_" + message["type"])
        try:
            await handler(message)
        except services.ServiceError as error:
            await self._error(error.code, error.message, ref=message.get("ref"), details=error.details)
            if error.code in ("stale_seq", "future_seq"):
                await self._send_snapshot()

    def _take_token(self) -> bool:
        """This socket's bucket, then its address's in this process: many sockets of one client share one
        budget, so a flood from one client cannot crowd out the others' frames."""
        now = time.monotonic()
        rate, burst = settings.WICKWISE["WS_RATE_PER_SECOND"], settings.WICKWISE["WS_RATE_BURST"]
        self.tokens = min(burst, self.tokens + (now - self.refilled) * rate)
        self.refilled = now
        if self.tokens < 1:
            return False
        if not _ADDRESS_BUCKETS.take(self.address, now):
            return False
        self.tokens -= 1
        return True

    def _need_seat(self):
        if self.seat is None:
            raise services.ServiceError("no_seat", _("You are watching; take a seat to play."))

    async def on_ping(self, message):
        """Presence and the room's stored position in one Redis round trip on this loop; the database only
        when the position changed since it was last worked out (rooms/positions.py)."""
        position, gen, read_at = await positions.renew_and_read(
            move_queue.client_for_this_loop(), address=self.address, channel=self.channel_name,
            room_code=self.room_code, seats=self.present_seats())
        self.presence_renewed_at = time.monotonic()
        if position is None:
            position = await _reading(positions.worked_out)(self.room_code, gen, read_at)
        await self.send(text_data=positions.pong(position))

    def present_seats(self) -> list[int]:
        """The seats this socket keeps present: its own, or a same-device room's every seat."""
        seats = self.device_seats if self.device_seats is not None else [self.seat]
        return [seat for seat in seats if seat is not None]

    async def on_sync(self, message):
        await self._send_snapshot()

    async def on_take_turn(self, message):
        """Same device: the player the device was passed to has it; this socket now acts for them, and only
        now is their hand sent."""
        if self.device_seats is None:
            raise services.ServiceError("not_same_device", _("Only a game played on one device is passed around."))
        to_act = await _reading(services.seat_to_act)(room_code=self.room_code, seats=self.device_seats)
        self.seat = to_act if to_act is not None else await _reading(live.host_seat)(self.room_code)
        self.passing_to = None
        await self._send_snapshot()

    async def on_auth(self, message):
        code = message.get("return_code")
        if not isinstance(code, str) or len(code) > 64:
            raise services.ServiceError("bad_return_code", _("That return code does not match any seat."))
        seat = await call_service(services.seat_by_return_code, return_code=code)
        if seat.room.code != self.room_code:
            raise services.ServiceError("bad_return_code", _("That return code does not match any seat."))
        if self.device_seats is not None or seat.room.same_device:  # its seats stay with its one device
            raise services.ServiceError("same_device", _("This game is played on one device; it cannot be "
                                                         "joined by code."))
        if self.seat is not None and self.seat != seat.index:
            await call_service(
                services.seat_disconnected, room_code=self.room_code, seat=self.seat, channel=self.channel_name
            )
        await self._take_place(seat.index)

    async def on_move(self, message):
        """The worker plays the move (rooms/move_queue.py); its update, or its refusal, answers it."""
        seq = message.get("seq")
        self._need_seat()
        services.check_seq(seq)
        await self._hand_over("move", message, seq=seq, action=message.get("action"))

    async def on_start(self, message):
        await self._hand_over("start", message)

    async def on_play_again(self, message):
        await self._hand_over("play_again", message)

    async def _hand_over(self, kind: str, message: dict, **asked):
        self._need_seat()
        ref = message.get("ref") if isinstance(message.get("ref"), (str, int)) else None
        self.requests_sent += 1
        mover = f"{self.channel_name}#{self.requests_sent}"
        sent_at = time.time()
        # Not before the worker's deadline for it (and a margin, for when Redis cannot settle who answers).
        self.unanswered[mover] = asyncio.get_running_loop().call_later(
            move_queue.answer_within() + move_queue.TOLD_MARGIN,
            lambda: self._start_task(self._unanswered(mover, ref)))
        try:
            await move_queue.hand_over(kind=kind, room_code=self.room_code, seat=self.seat, mover=mover,
                                       reply_to=self.channel_name, language=self.language, ref=ref,
                                       sent_at=sent_at, **asked)
        except RedisError:
            self.unanswered.pop(mover).cancel()
            raise services.ServiceError("busy", _("The server cannot take moves just now; please try again.")) from None

    def _start_task(self, coroutine) -> None:
        task = asyncio.ensure_future(coroutine)
        self.tasks.add(task)  # referenced until done: the loop keeps only a weak reference
        task.add_done_callback(self.tasks.discard)

    async def _unanswered(self, mover: str, ref):
        if mover not in self.unanswered:
            return
        try:
            told = await move_queue.claim_told(mover)
        except RedisError:
            told = True  # past the deadline and its margin: the worker's own deadline check refuses it
        if not told:
            # A worker is committing it, or refused it itself: its update (or its refusal) is on the way. Should
            # neither come, a snapshot shows where the game stands.
            self.unanswered[mover] = asyncio.get_running_loop().call_later(
                move_queue.answer_within(), lambda: self._start_task(self._settle(mover)))
            return
        if self.unanswered.pop(mover, None) is None:
            return
        with translation.override(self.language):
            await self._error("move_unanswered", _("The server did not answer in time; here is where the game "
                                                   "stands, please try again."), ref=ref)
        await self._send_snapshot()

    # --- drafts, pause and resume (games whose spec allows them) ---------------------------------

    async def on_draft(self, message):
        """Checked and kept here, without the worker: a draft decides nothing, and comes several a second."""
        self._need_seat()
        if not self._take_draft_token():
            raise services.ServiceError("rate_limited", _("Too many drafts; slow down."))
        shown = await _reading(drafts.accept)(room_code=self.room_code, seat=self.seat, seq=message.get("seq"),
                                              draft=message.get("draft"))
        await self.channel_layer.group_send(broadcast.room_group(self.room_code), {"type": "draft.relay", **shown})

    def _take_draft_token(self) -> bool:
        now = time.monotonic()
        self.draft_tokens = min(drafts.BURST, self.draft_tokens + (now - self.draft_refilled) * drafts.PER_SECOND)
        self.draft_refilled = now
        if self.draft_tokens < 1:
            return False
        self.draft_tokens -= 1
        return True

    async def on_pause(self, message):
        # In daphne's database threads, not the worker: pauses are rare and cheap.
        self._need_seat()
        await call_service(services.pause_from_seat, room_code=self.room_code, seat=self.seat)

    async def on_resume(self, message):
        self._need_seat()
        await call_service(services.resume_from_seat, room_code=self.room_code, seat=self.seat)

    async def _settle(self, mover: str):
        if self.unanswered.pop(mover, None) is not None:
            await self._send_snapshot()

    async def on_client_seed(self, message):
        self._need_seat()
        seats = self.device_seats if self.device_seats is not None else [self.seat]
        await call_service(services.set_client_seed, room_code=self.room_code, seats=seats, value=message.get("value"))

    # --- to the client ------------------------------------------------------------------------

    async def send(self, text_data=None, bytes_data=None, close=False):
        """A socket whose closing handshake has begun (its client's close frame read, or this side's sent)
        refuses frames until daphne hears it has gone: a message reaching it then raised out of its handler
        and ended the consumer before its disconnect, leaving its presence, its address's count, its groups
        and its channel's queue behind. The client is going away: the frame is dropped, the disconnect that
        follows cleans up."""
        try:
            await super().send(text_data=text_data, bytes_data=bytes_data, close=close)
        except Disconnected:
            log.debug("socket on room %s closing: a frame dropped", getattr(self, "room_code", "?"))

    async def _send_json(self, payload: dict):
        await self.send(text_data=json.dumps(payload, separators=(",", ":")))

    async def _error(self, code: str, message: str, ref=None, details=None):
        payload = {"type": "error", "code": code, "message": str(message)}
        if ref is not None and isinstance(ref, (str, int)):
            payload["ref"] = ref
        if details is not None:
            payload["details"] = details
        await self._send_json(payload)

    async def _send_snapshot(self, snapshot: dict | None = None):
        """Send this socket's snapshot: `snapshot` if the caller built it already, else one read now."""
        if snapshot is None:
            snapshot = await _reading(self._snapshot)(seat=self.seat)
        if snapshot is None:  # the room expired while this socket was open
            await self._error("no_such_room", _("This room has expired."))
            await self.close(code=4404)
            return
        await self._send_json(snapshot)

    def _seat_and_snapshot(self, *, seat: int, holding: bool = False) -> tuple[bool, dict | None]:
        """services.seat_connected and this socket's snapshot in one trip to a thread, the snapshot's room
        sent as the room update the connect owes the others: the room, its seats, its next game, presence and
        the host read once, not once for each. `holding`: the socket holds the seat already (counted on it),
        so no limit refuses it. Returns whether the seat was taken, and the snapshot if so (None if the room
        is gone: its deletion marked the position)."""
        most = None if holding else settings.WICKWISE["WS_MAX_SOCKETS_PER_SEAT"]
        if not services.seat_connected(room_code=self.room_code, seat=seat, channel=self.channel_name,
                                       most_sockets=most, announce=False):
            return False, None
        return True, self._snapshot(seat=seat, announce=True)

    def _snapshot(self, *, seat: int | None, announce: bool = False) -> dict | None:
        """What `seat` (None: a spectator) sees of the room now. With `announce`, its room also goes to the
        room's group as a room update, the position marked in the same round trip as presence is read."""
        room = Room.objects.filter(code=self.room_code).first()
        if room is None:
            return None
        game, upcoming = snapshots.shown_and_next_game(room)
        # Presence, the host, the position's mark and who played for this seat, in one round trip.
        also = [lambda pipe: positions.mark_changed(pipe, room.code)] if announce else []
        asks_played_for = game is not None and seat is not None
        if asks_played_for:
            also.append(lambda pipe: live.queue_played_for(pipe, game.pk, seat))
        connected, host, replies = live.presence_and_host(room.code, *also)
        replies = iter(replies)
        mark = next(replies) if announce else None
        played_for = next(replies) if asks_played_for else None
        if isinstance(mark, Exception):  # logged, as room_changed does: the update still goes
            positions.mark_failed(room.code, mark)
        if isinstance(played_for, Exception):
            raise played_for
        public = snapshots.public_room(room, connected, upcoming=upcoming, host=host)
        snapshot = {
            "type": "snapshot",
            "seq": game.seq if game else 0,
            "you": {"seat": seat},
            "room": public,
            "room_digest": snapshots.room_digest(public),
            "game": snapshots.public_game(game) if game else None,
            "view": snapshots.seat_view(game, seat) if game else None,
            "draft": drafts.shown(game) if game else None,
            # Who made this seat's last decision while its player was away ("stand_in") or out of time
            # ("table"); null when the player did.
            "played_for": played_for,
            "server_time": time.time(),
        }
        if announce:  # once the snapshot is whole: a read failing before this sends no update to undo
            broadcast.room_update(room.code, public, snapshot["room_digest"])
        return snapshot

    # --- from the channel layer ---------------------------------------------------------------

    async def room_update(self, event):
        await self._send_json({"type": "room", "room": event["room"], "room_digest": event["room_digest"]})

    async def game_update(self, event):
        if event.get("mover") is not None:
            deadline = self.unanswered.pop(event["mover"], None)
            if deadline is not None:
                deadline.cancel()
        if self.device_seats is not None:
            await self._pass_device_if_needed(event)
        now = time.time()
        text = broadcast.stamped(broadcast.text_for_seat(event, self.seat), now)
        await self.send(text_data=text if "trace" not in event else trace.stamped_with(text, event["trace"], now))

    async def _pass_device_if_needed(self, event):
        """Same device: another seat's decision is pending. This socket lets go of the seat it acted for and
        is told to pass the device, before the update, which it then gets as a spectator: no hand is sent
        until the next player takes the device (take_turn)."""
        pending = [seat for seat in event.get("to_act", []) if seat in self.device_seats]
        if pending:
            if pending[0] == self.seat or pending[0] == self.passing_to:
                return
            self.seat, self.passing_to = None, pending[0]
            return await self._send_json({"type": "pass_device", "seat": pending[0]})
        if self.seat is None:  # nobody is to act (the end, a new game's lobby): the host's seat starts games
            self.passing_to = None
            self.seat = await _reading(live.host_seat)(self.room_code)

    async def draft_relay(self, event):
        await self._send_json({"type": "draft", "seat": event["seat"], "seq": event["seq"], "draft": event["draft"]})

    async def seat_taken(self, event):
        """This seat was taken on another device (its return code, or a log-in elsewhere): that device plays
        it now. This socket watches, and its page offers to take the seat back. Sockets of one browser
        (tabs sharing a session) play the seat together, as before."""
        if event["channel"] == self.channel_name or self.seat is None or event["device"] == self.device:
            return
        if event["at"] < self.seated_at:
            return  # an older taking, delivered late: this socket took the seat after it
        seat = self.seat
        await call_service(services.seat_disconnected, room_code=self.room_code, seat=seat, channel=self.channel_name)
        with translation.override(self.language):
            await self._send_json({
                "type": "seat_elsewhere", "seat": seat,
                "message": str(_("Your seat is now played on another device. You are watching; you may take it back.")),
            })
            await self._take_place(None)

    async def request_refused(self, event):
        """The worker refused this socket's request; it changed nothing."""
        deadline = self.unanswered.pop(event["mover"], None)
        if deadline is None:
            return  # already told, at its deadline
        deadline.cancel()
        await self._error(event["code"], event["message"], ref=event["ref"], details=event.get("details"))
        if event["code"] in ("stale_seq", "future_seq", "move_unanswered"):
            await self._send_snapshot()
