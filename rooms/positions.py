"""The position a pong reports (snapshots.position), kept in Redis per room so that a ping costs daphne one
Redis round trip on its event loop instead of a thread and four database queries.

Every open page pings every 15 s. Working the position out reads the room, its last two games and its seats
and hashes the room: about 3 ms of daphne's one core, for an answer that changes only when something is
written. A position has two parts: the room's (its digest: seats, presence, host, the next game), which
changes when the room is written, and the shown game's (its number, seq, status and whether it is paused),
which its every move changes.

- The room's part: everything written to the room that a page shows is published after its commit
  (`broadcast.room_changed`), and each such publish first marks the room's position changed (`changed`: a new
  random mark, its `gen`). A ping reads the mark and the position kept, in the pipeline that renews its
  presence: a position kept under the mark it reads is still the room's. Otherwise (none kept, or kept under
  an older mark) the ping works it out from the database, and keeps it under the mark it read *before*
  reading the database: a write that commits meanwhile makes a new mark, so nothing read before that commit
  is ever taken for the room's position.
- The game's part: a game's update, before it is published, keeps that game's part (`game_updated`) unless
  a newer state of the room's games is kept (games ordered by number, then version: every write of a game
  raises its version; two updates may be published out of order). A ping answers with the newer of the game
  parts it reads: the one kept with the position, or the one its last update kept. So a move does not make
  the next ping read the database: in a room in play that was every ping.

So a pong never reports a position older than a message already published: a page that missed one still
finds out at its next ping. The mark and the position kept lapse POSITION_SECONDS after they were written,
which bounds what nothing marks: a change that publishes nothing (a crashed server's sockets lapsing from
presence; an admin's edit of a seat publishes nothing either, but marks through the model's signal) and a
mark or a game's part that failed (Redis failing at that moment, when the publish after it most likely
failed too). A game's part lasts longer (GAME_PART_SECONDS) than any position kept from a database read
made before it was written, so it never lapses while such a position still answers.
"""

from __future__ import annotations

import json
import logging
import secrets
import time

import redis
from django.apps import apps
from django.db import transaction
from django.db.models import signals

from rooms import live, snapshots
from rooms.models import Room, Seat

log = logging.getLogger("wickwise.positions")

POSITION_SECONDS = 30  # two pings
# A position is kept only if worked out within POSITION_SECONDS / 2 of the ping's read, and lapses
# POSITION_SECONDS after it is kept: twice that outlives every position read before a game's part was kept.
GAME_PART_SECONDS = 2 * POSITION_SECONDS


def changed(room_code: str) -> None:
    """What the room's pages show was written and committed: the position kept is stale. Called before the
    change is published, never inside its transaction. A failure is logged, not raised, so the publish that
    follows is still tried."""
    if live.joinable(lambda pipe: mark_changed(pipe, room_code)):  # sent before the update
        return
    try:
        mark_changed(live.client(), room_code)  # one command: every move does it
    except redis.RedisError as error:
        mark_failed(room_code, error)


def mark_failed(room_code: str, error: Exception) -> None:
    log.warning("room %s: could not mark its position changed (%s); it lapses within %d s",
                room_code, error, POSITION_SECONDS)


def mark_changed(target, room_code: str) -> None:
    """Set the room's new mark on `target`: the client (at once) or a pipeline (queued, sent before the
    publish it goes with)."""
    gen_key, _position_key, _game_key = live.position_keys(room_code)
    target.set(gen_key, secrets.token_hex(8), ex=POSITION_SECONDS)


def changed_after_commit(room_code: str) -> None:
    transaction.on_commit(lambda: changed(room_code))


def game_part(game) -> str | None:
    """What `game_updated` keeps of `game` as it stands, built with its update: "NUMBER|VERSION|JSON", the JSON
    its part of a position. None for a game in the lobby: a position shows it only before the room's first
    game started, and its update marks the room changed instead."""
    if game.status == game.Status.LOBBY:
        return None
    part = snapshots.game_position(number=game.number, seq=game.seq, status=game.status,
                                   paused_remaining=game.paused_remaining)
    return f"{game.number}|{game.version}|{json.dumps(part, separators=(',', ':'))}"


def game_updated(room_code: str, part: str | None) -> None:
    """A game's update, committed, is about to be published: keep its part of the room's position (`game_part`)
    unless a newer one is kept; the room's part kept is still good. Called before the update is published,
    never inside its transaction. A failure is logged, not raised, so the publish that follows is still
    tried."""
    if part is None:
        changed(room_code)
        return
    if live.joinable(lambda pipe: _keep_game_part(pipe, room_code, part)):  # sent before the update
        return
    try:
        _keep_game_part(live.client(), room_code, part)
    except redis.RedisError as error:
        log.warning("room %s: could not keep its game's position (%s); it lapses within %d s",
                    room_code, error, POSITION_SECONDS)


# KEYS[1] the room's game part; ARGV: the game's number, its version, the part, its lifetime in seconds.
_KEEP_NEWER = """
local kept = redis.call('GET', KEYS[1])
if kept then
  local number, version = string.match(kept, '^(%d+)|(%d+)|')
  if number then
    number, version = tonumber(number), tonumber(version)
    local new_number, new_version = tonumber(ARGV[1]), tonumber(ARGV[2])
    if number > new_number or (number == new_number and version >= new_version) then
      return 0
    end
  end
end
redis.call('SET', KEYS[1], ARGV[3], 'EX', ARGV[4])
return 1
"""


def _keep_game_part(target, room_code: str, part: str) -> None:
    number, version, _json = part.split("|", 2)
    target.eval(_KEEP_NEWER, 1, live.position_keys(room_code)[2], number, version, part, GAME_PART_SECONDS)


def _text(value) -> str:
    return value.decode() if isinstance(value, bytes) else (value or "")


async def renew_and_read(client, *, address: str, channel: str, room_code: str, seats: list[int]):
    """A ping on daphne's loop: renew the socket's address count and its seats' presence (live.still_open)
    and read the room's mark, kept position and game part, in one round trip. Returns (the position's JSON,
    or None if it must be worked out again; the mark read; when it was read) for `worked_out`."""
    pipe = client.pipeline(transaction=False)
    live.queue_still_open(pipe, address, channel, room_code, seats)
    pipe.mget(*live.position_keys(room_code))
    read_at = time.monotonic()
    gen, kept, game = (_text(value) for value in (await pipe.execute())[-1])
    # Kept as "GEN|NUMBER|VERSION|JSON": the position worked out after the mark GEN, its game's number and
    # version (0 and 0 when there is no position: JSON null).
    at, _, rest = kept.partition("|")
    if not rest or at != gen:
        return None, gen, read_at
    try:
        return _with_newer_game(rest, game), gen, read_at
    except ValueError:  # not in this form (kept by an older release): worked out again, and kept in it
        return None, gen, read_at


def _with_newer_game(kept: str, game: str) -> str:
    """The position kept ("NUMBER|VERSION|JSON"), its game's part replaced by `game`'s if that is newer."""
    number, version, position = kept.split("|", 2)
    if not game or position == "null":
        return position
    game_number, game_version, part = game.split("|", 2)
    if (int(game_number), int(game_version)) <= (int(number), int(version)):
        return position
    return json.dumps({**json.loads(position), **json.loads(part)}, separators=(",", ":"))


def worked_out(room_code: str, gen: str, read_at: float) -> str:
    """The position's JSON from the database, kept under the mark `gen` (read before the database was): in a
    thread."""
    position, version = snapshots.position_and_version(room_code)
    text = json.dumps(position, separators=(",", ":"))
    # An empty mark (none) read before a slow database read could be empty again once a mark made meanwhile
    # has lapsed: a read that slow is not kept.
    if time.monotonic() - read_at < POSITION_SECONDS / 2:
        _gen_key, position_key, _game_key = live.position_keys(room_code)
        number = position["number"] if position else 0
        try:
            live.client().set(position_key, f"{gen}|{number}|{version}|{text}", ex=POSITION_SECONDS)
        except redis.RedisError as error:  # the next ping works it out again
            log.warning("room %s: could not keep its position (%s)", room_code, error)
    return text


def pong(position_json: str) -> str:
    return f'{{"type":"pong","position":{position_json}}}'


# Writes that publish nothing still mark: an admin's edit of a seat, a room deleted. A game's admin pages
# save through proxy models, which are senders of their own. Receivers are connected by sender: one for any
# model's deletes would keep Django from deleting every other model's rows without loading them.

def _seat_written(sender, instance, **kwargs) -> None:
    if Seat.room.is_cached(instance):
        code = instance.room.code
    else:
        code = Room.objects.filter(pk=instance.room_id).values_list("code", flat=True).first()
    if code is not None:
        changed_after_commit(code)


def _room_deleted(sender, instance, **kwargs) -> None:
    changed_after_commit(instance.code)


def connect_signals() -> None:
    for model in apps.get_models():
        if issubclass(model, Seat):
            signals.post_save.connect(_seat_written, sender=model, dispatch_uid=f"positions.saved.{model._meta.label}")
            signals.post_delete.connect(_seat_written, sender=model,
                                        dispatch_uid=f"positions.deleted.{model._meta.label}")
        elif issubclass(model, Room):
            signals.post_delete.connect(_room_deleted, sender=model,
                                        dispatch_uid=f"positions.deleted.{model._meta.label}")
