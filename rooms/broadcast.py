"""Sending after commit: each seat's socket group gets its own view, spectators the public one."""

from __future__ import annotations

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from rooms import snapshots
from rooms.models import Game, Room


def room_group(code: str) -> str:
    return f"room.{code}"


def seat_group(code: str, seat: int | None) -> str:
    return f"room.{code}.watch" if seat is None else f"room.{code}.seat.{seat}"


def _send(group: str, message: dict) -> None:
    async_to_sync(get_channel_layer().group_send)(group, message)


def room_changed(code: str) -> None:
    room = Room.objects.filter(code=code).first()
    if room is None:
        return
    _send(room_group(code), {"type": "room.update", "room": snapshots.public_room(room)})


def game_changed(game_id: int, events: list[dict]) -> None:
    game = Game.objects.filter(pk=game_id).first()
    if game is None or game.room_id is None:
        return
    public = snapshots.public_game(game)
    for seat in [*range(len(game.players)), None]:
        _send(
            seat_group(game.room_code, seat),
            {
                "type": "game.update",
                "seq": game.seq,
                "game": public,
                "events": snapshots.visible_events(events, seat),
                "view": snapshots.seat_view(game, seat),
            },
        )
