"""Sending after commit. One message per change goes to the room's group; each consumer forwards only
its own seat's view and events to its socket (spectators get the public view).

Services run in sync code (a consumer's database thread, the worker). When a consumer called the
service, `collecting()` keeps the messages so the consumer sends them from its event loop, instead of
blocking the database thread on the channel layer.
"""

from __future__ import annotations

import contextlib
import json
import threading
from contextvars import ContextVar

import redis
from channels.layers import get_channel_layer
from channels_redis.utils import _consistent_hash, decode_hosts
from django.conf import settings

from games import registry
from rooms import live, positions, snapshots, trace
from rooms.models import Game, Room

WATCHER = "watch"
_outbox: ContextVar[list | None] = ContextVar("wickwise_outbox", default=None)


def room_group(code: str) -> str:
    return f"room.{code}"


@contextlib.contextmanager
def collecting():
    box: list[tuple[str, dict]] = []
    token = _outbox.set(box)
    try:
        yield box
    finally:
        _outbox.reset(token)


async def flush(box: list[tuple[str, dict]]) -> None:
    layer = get_channel_layer()
    for group, message in box:
        await layer.group_send(group, message)


def _send(group: str, message: dict) -> None:
    box = _outbox.get()
    if box is not None:
        box.append((group, message))
    else:
        _sync_sender.send(group, message)


class _SyncSender:
    """Sends from synchronous code (the worker's moves, bot moves and countdowns, HTTP views): a PUBLISH on a
    blocking Redis client, from the calling thread, exactly as the pub/sub channel layer publishes (its
    serializer, its name for a group, its choice of host).

    async_to_sync started a loop and a thread, and opened and closed a Redis connection, for every message:
    about 3.5 ms a send. An event loop kept in a thread of its own then cost 0.3 ms, but every send still
    woke that thread and handed the GIL over and back: a tenth of a move's time in the worker.
    """

    def __init__(self):
        self._clients: dict[int, redis.Redis] = {}
        self._opening = threading.Lock()

    def send(self, group: str, message: dict) -> None:
        config = settings.CHANNEL_LAYERS["default"]["CONFIG"]
        self._publish(f"{config.get('prefix', 'asgi')}__group__{group}", message)

    def send_to(self, channel: str, message: dict) -> None:
        self._publish(channel, message)

    def _publish(self, name: str, message: dict) -> None:
        hosts = decode_hosts(settings.CHANNEL_LAYERS["default"]["CONFIG"]["hosts"])
        index = _consistent_hash(name, len(hosts))
        data = get_channel_layer().serialize(message)
        if hosts[index]["address"] == settings.REDIS_URL and live.joinable(lambda pipe: pipe.publish(name, data)):
            return  # in the move's one round trip to that Redis (live.joined), after its position's mark
        live.settled()  # after this thread's round trip sent for later, if any (live.replies_later)
        client = self._clients.get(index)
        if client is None:
            with self._opening:
                client = self._clients.get(index)
                if client is None:
                    host = dict(hosts[index])
                    client = self._clients[index] = redis.Redis.from_url(host.pop("address"), **host)
        client.publish(name, data)


_sync_sender = _SyncSender()


def send_to_socket(channel: str, message: dict) -> None:
    """To one socket alone, from synchronous code (the worker's answer to a request it refused)."""
    _sync_sender.send_to(channel, message)


def relay_draft(code: str, shown: dict) -> None:
    """A bot's draft, relayed as a player's is (the consumer's draft.relay)."""
    _send(room_group(code), {"type": "draft.relay", **shown})


def room_changed(code: str) -> None:
    # The position's mark goes before the message: a pong never says less than a message sent. Within the
    # worker's joined round trip it is queued there; else it goes with the presence and host read below.
    marked = live.joinable(lambda pipe: positions.mark_changed(pipe, code))
    room = Room.objects.filter(code=code).first()
    if room is None:
        if not marked:
            positions.changed(code)
        return
    connected, host, mark = live.presence_and_host(
        code, *(() if marked else (lambda pipe: positions.mark_changed(pipe, code),)))
    if mark and isinstance(mark[0], Exception):  # logged, as positions.changed does: the update still goes
        positions.mark_failed(code, mark[0])
    public = snapshots.public_room(room, connected, host=host)
    room_update(code, public, snapshots.room_digest(public))


def room_update(code: str, public: dict, digest: str) -> None:
    """Send the room's public state, built by the caller after its position was marked."""
    _send(room_group(code), {"type": "room.update", "room": public, "room_digest": digest})


def prepare_room_update(room: Room, seats: list | None, *, upcoming=None):
    """room_changed for a write that holds the room, its seats (in order) and its next game as it commits
    them (a start; a game's last move, which opens the next game and reads the seats after the commit, as
    room_changed does, with `seats` None): the update is built from those rather than read again, and
    after the commit the position mark, the presence and the host go in one Redis round trip. Returns
    what sends it."""
    code = room.code

    def send():
        connected, host, (mark,) = live.presence_and_host(code, lambda pipe: positions.mark_changed(pipe, code))
        if isinstance(mark, Exception):  # before the message, or no message
            raise mark
        public = snapshots.public_room(room, connected, upcoming=upcoming, seats=seats, host=host)
        room_update(code, public, snapshots.room_digest(public))

    return send


def game_changed(game: Game | int, events: list[dict], *, mover: str | None = None) -> None:
    """Send an update of `game` as committed (an instance, or an id to load it)."""
    if isinstance(game, int):
        game = Game.objects.filter(pk=game).first()
    if game is not None:
        prepare_game_update(game, events, mover=mover)()


def prepare_game_update(game: Game, events: list[dict], *, mover: str | None = None):
    """Build the update now, from the game as it stands, and return what sends it (after commit).

    Each seat's update is encoded to JSON here, once: every socket in the room receives the one message,
    and a socket then forwards its own seat's text as it is instead of decoding and re-encoding it.
    `mover` names the socket's request (a move, a start) that made the update (rooms/move_queue.py), so
    that socket knows it landed.
    """
    if game.room_id is None:
        return lambda: None
    public = _dumps(snapshots.public_game(game))  # the same for every seat: encoded once
    seats: list[int | None] = [*range(len(game.players)), None]
    views = _view_texts(game, seats)
    if any("only" in event for event in events):
        seen = {seat: _dumps(snapshots.visible_events(events, seat)) for seat in seats}
    else:  # every seat sees every event: encoded once
        seen = dict.fromkeys(seats, _dumps(events))
    message = {
        "type": "game.update",
        "seq": game.seq,
        "mover": mover,
        # Whose decisions are pending: a socket that acts for whichever seat is to act (a same-device room)
        # picks its seat from this before choosing which text to forward.
        "to_act": sorted(int(seat) for seat in game.prompts) if game.status == Game.Status.PLAYING else [],
        "texts": {
            _seat_key(seat): encode_update(seq=game.seq, game_json=public, events_json=seen[seat],
                                           view_json=views[seat])
            for seat in seats
        },
    }
    code, part = game.room_code, positions.game_part(game)

    def send():
        positions.game_updated(code, part)  # before the message: a pong never says less than a message sent
        trace.mark("marked")
        stamps = trace.current()
        _send(room_group(code), message if stamps is None else {**message, "trace": stamps})

    return send


# One encoder for every update's texts (a move encodes up to eleven: the public game, and each seat's events
# and view, fewer where an engine splits its view or no event is for one seat only): json.dumps with
# separators builds a new encoder for every call, and the circular-reference check costs a fifth of each
# encoding, for values built from JSON columns that cannot hold a cycle.
_ENCODER = json.JSONEncoder(separators=(",", ":"), check_circular=False)


def _dumps(value) -> str:
    return _ENCODER.encode(value)


def encode_update(*, seq: int, game_json: str, events_json: str, view_json: str) -> str:
    """An update as sent to one seat, from its parts encoded, but for the server time: `stamped` adds that as
    it leaves. It is left open, so the send time can be appended without decoding."""
    return f'{{"type":"update","seq":{seq},"game":{game_json},"events":{events_json},"view":{view_json}'


def _view_texts(game: Game, seats: list[int | None]) -> dict[int | None, str]:
    """Each seat's view (snapshots.seat_view), encoded. An engine whose view is a part every seat sees
    (`public_view(state)`, a spectator's whole view) then a seat's own keys (`own_view(state, seat)`) has the
    public part built and encoded once for all seats: a seat's text is the two objects' texts joined, the same
    bytes as its whole view encoded. Building and encoding a view for each seat was the larger part of
    building a move's update."""
    if game.state is None:
        return dict.fromkeys(seats, "null")
    engine = registry.get(game.game).engine
    public_view = getattr(engine, "public_view", None)
    if public_view is None:
        return {seat: _dumps(snapshots.seat_view(game, seat)) for seat in seats}
    public = _dumps(public_view(game.state))
    return {seat: public if seat is None else _joined_objects(public, _dumps(engine.own_view(game.state, seat)))
            for seat in seats}


def _joined_objects(first: str, second: str) -> str:
    """The text of one JSON object holding the keys of `first`, then those of `second` (their texts, as
    _dumps writes them: no key in both)."""
    if first == "{}":
        return second
    if second == "{}":
        return first
    return f"{first[:-1]},{second[1:]}"


def stamped(text: str, now: float) -> str:
    return f'{text},"server_time":{now!r}}}'


def _seat_key(seat: int | None) -> str:
    return WATCHER if seat is None else str(seat)


def text_for_seat(message: dict, seat: int | None) -> str:
    """What one seat's socket forwards from a game.update message (without the server time). A seat the
    game has no player for (a game ended in the lobby) sees what spectators see."""
    texts = message["texts"]
    return texts.get(_seat_key(seat), texts[WATCHER])
