"""What a room and its game look like to one seat: the JSON that snapshots and updates carry.

Everything seat-specific comes from the engine's `view` (an update may build it from the engine's
`public_view` and `own_view`, which join to the same bytes); the rest here is public.
"""

from __future__ import annotations

import hashlib
import json
from types import SimpleNamespace

from games import registry
from rooms import live
from rooms.models import Game, Room


def shown_game(room: Room) -> Game | None:
    """The game the table shows: the latest one that started, or the lobby game before the first."""
    return shown_and_next_game(room)[0]


def shown_and_next_game(room: Room) -> tuple[Game | None, Game | None]:
    """`shown_game` and `next_game` from one query: a snapshot needs both."""
    games = list(Game.objects.filter(room=room).order_by("-number")[:2])
    if not games:
        return None, None
    latest = games[0]
    if latest.status != Game.Status.LOBBY:
        return latest, None
    return (games[1] if len(games) > 1 else latest), latest


def position(room_code: str) -> dict | None:
    """Where the room and its shown game stand, in a few fields: a client that holds anything else missed
    a message (the channel layer delivers at most once)."""
    return position_and_version(room_code)[0]


def position_and_version(room_code: str) -> tuple[dict | None, int]:
    """`position`, and the shown game's version (0 with no position): every write of a game raises it, so a
    game's states are ordered by (number, version) (rooms/positions.py keeps the newest)."""
    room = Room.objects.filter(code=room_code).first()
    games = list(Game.objects.filter(room=room).order_by("-number").values(
        "number", "seq", "status", "paused_remaining", "client_seeds", "fingerprint", "version")[:2]) if room else []
    if not games:
        return None, 0
    latest = games[0]
    shown = games[1] if latest["status"] == Game.Status.LOBBY and len(games) > 1 else latest
    # The latest game is what next_game() would read again: every open page asks for this every 15 s.
    upcoming = SimpleNamespace(**latest) if latest["status"] == Game.Status.LOBBY else None
    return {
        **game_position(number=shown["number"], seq=shown["seq"], status=shown["status"],
                        paused_remaining=shown["paused_remaining"]),
        "room_digest": room_digest(public_room(room, upcoming=upcoming)),
    }, shown["version"]


def game_position(*, number: int, seq: int, status: str, paused_remaining) -> dict:
    """The shown game's part of a position: what a game's own update changes (the rest, the room's digest,
    changes only with the room)."""
    return {"number": number, "seq": seq, "status": status, "paused": paused_remaining is not None}


def room_digest(public: dict) -> str:
    """A short fingerprint of a room as `public_room` gives it, sent with it and in every pong."""
    return hashlib.sha256(json.dumps(public, sort_keys=True, separators=(",", ":")).encode()).hexdigest()[:16]


def next_game(room: Room) -> Game | None:
    latest = Game.objects.filter(room=room).order_by("-number").first()
    if latest is not None and latest.status == Game.Status.LOBBY:
        return latest
    return None


_LOOK_UP = object()


def public_room(room: Room, connected: set[int] | None = None, *, upcoming=_LOOK_UP, seats=None,
                host: int | None = None) -> dict:
    """`upcoming`: the room's next game (its number, fingerprint and client_seeds) if the caller has it;
    `seats` (in order) and `host`, likewise: a start publishes the rows it wrote, and reads presence and the
    host with the position mark (broadcast.prepare_room_update)."""
    if connected is None or host is None:
        read_connected, read_host, _ = live.presence_and_host(room.code)
        connected, host = read_connected if connected is None else connected, read_host if host is None else host
    if upcoming is _LOOK_UP:
        upcoming = next_game(room)
    if seats is None:
        seats = room.seats.order_by("index")
    return {
        "code": room.code,
        "game": room.game,
        "seat_count": room.seat_count,
        "options": room.options,
        "host": host,
        "seats": [
            {
                "index": seat.index,
                "name": seat.name,
                "bot": seat.is_bot,
                "taken": seat.is_taken,
                "stand_in": seat.stand_in,
                "connected": seat.index in connected,
                "client_seed": bool(upcoming and str(seat.index) in upcoming.client_seeds),
            }
            for seat in seats
        ],
        "next_game": None if upcoming is None else {
            "number": upcoming.number,
            "fingerprint": upcoming.fingerprint,
        },
    }


def public_game(game: Game) -> dict:
    over = game.is_over
    return {
        "number": game.number,
        "game": game.game,
        "status": game.status,
        "seq": game.seq,
        "fingerprint": game.fingerprint,
        "seed": game.seed if over else None,  # never before the game is over
        "client_seeds": game.client_seed_list() if game.status != Game.Status.LOBBY else None,
        "players": game.players,
        "deadline": game.deadline_at.timestamp() if game.deadline_at else None,
        "paused_remaining": game.paused_remaining,
        "result": game.result,
        "end_reason": game.end_reason,
        "decision_seconds": registry.get(game.game).decision_seconds(game.options),
        "to_act": sorted(int(s) for s in game.prompts) if game.status == Game.Status.PLAYING else [],
        # {"seat": the seq at which its pending decision was posed}: a draft made at an older seq is over.
        "prompts": game.prompts if game.status == Game.Status.PLAYING else {},
        "clocks": game.clocks or None,
    }


def seat_view(game: Game, seat: int | None) -> dict | None:
    if game.state is None:
        return None
    return registry.get(game.game).engine.view(game.state, seat)


def visible_events(events: list[dict], seat: int | None) -> list[dict]:
    """Events marked `only` go to that seat alone."""
    return [e for e in events if "only" not in e or e["only"] == seat]


def public_record(game: Game) -> dict:
    """The verifiable record: enough to rebuild the deal and replay every move once it is over."""
    over = game.is_over
    return {
        "format": "wickwise-record/1",
        "game": game.game,
        "room_code": game.room_code,
        "number": game.number,
        "status": game.status,
        "options": game.options,
        "players": game.players,
        "fingerprint": game.fingerprint,
        "seed": game.seed if over else None,
        "client_seeds": game.client_seed_list() if game.status != Game.Status.LOBBY else None,
        "moves": [
            {"seq": m.seq, "seat": m.seat, "action": m.action, "by": m.by}
            for m in game.moves.order_by("seq")
        ] if over else None,
        "result": game.result,
        "end_reason": game.end_reason,
        "started_at": game.started_at.isoformat() if game.started_at else None,
        "ended_at": game.ended_at.isoformat() if game.ended_at else None,
    }
