"""Sending after commit. One message per change goes to the room's group; each consumer forwards only
its own seat's view and events to its socket (spectators get the public view).

Services run in sync code (a consumer's database thread, the worker). When a consumer called the
service, `collecting()` keeps the messages so the consumer sends them from its event loop, instead of
blocking the database thread on the channel layer.
"""

from __future__ import annotations

import contextlib
from contextvars import ContextVar

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from rooms import snapshots
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
        async_to_sync(get_channel_layer().group_send)(group, message)


def room_changed(code: str) -> None:
    room = Room.objects.filter(code=code).first()
    if room is None:
        return
    _send(room_group(code), {"type": "room.update", "room": snapshots.public_room(room)})


def game_changed(game: Game | int, events: list[dict]) -> None:
    """Send an update of `game` as committed (an instance, or an id to load it)."""
    if isinstance(game, int):
        game = Game.objects.filter(pk=game).first()
    if game is not None:
        prepare_game_update(game, events)()


def prepare_game_update(game: Game, events: list[dict]):
    """Build the update now, from the game as it stands, and return what sends it (after commit)."""
    if game.room_id is None:
        return lambda: None
    seats: list[int | None] = [*range(len(game.players)), None]
    message = {
        "type": "game.update",
        "seq": game.seq,
        "game": snapshots.public_game(game),
        "views": {_seat_key(seat): snapshots.seat_view(game, seat) for seat in seats},
        "events": {_seat_key(seat): snapshots.visible_events(events, seat) for seat in seats},
    }
    group = room_group(game.room_code)
    return lambda: _send(group, message)


def _seat_key(seat: int | None) -> str:
    return WATCHER if seat is None else str(seat)


def for_seat(message: dict, seat: int | None) -> tuple[dict | None, list[dict]]:
    """The view and the events of one seat from a game.update message."""
    key = _seat_key(seat)
    return message["views"].get(key), message["events"].get(key, [])
