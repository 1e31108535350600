"""The position a pong reports (snapshots.position), kept in Redis per room so that a ping costs daphne one
Redis round trip on its event loop instead of a thread and four database queries.

Every open page pings every 15 s. Working the position out reads the room, its last two games and its seats
and hashes the room: about 3 ms of daphne's one core, for an answer that changes only when something is
written. Everything written that a page shows is published to the room after its commit
(`broadcast.room_changed` and the game's update), and each of those publishes first marks the room's
position changed (`changed`: a new random mark, its `gen`). A ping reads the mark and the position kept, in
the pipeline that renews its presence: a position kept under the mark it reads is still the room's.
Otherwise (none kept, or kept under an older mark) the ping works it out from the database, as before, and
keeps it under the mark it read *before* reading the database: a write that commits meanwhile makes a new
mark, so nothing read before that commit is ever taken for the room's position.

So a pong never reports a position older than a message already published: a page that missed one still
finds out at its next ping. The mark and the position kept lapse POSITION_SECONDS after they were written,
which bounds what nothing marks: a change that publishes nothing (a crashed server's sockets lapsing from
presence; an admin's edit of a seat publishes nothing either, but marks through the model's signal) and a
mark that failed (Redis failing at that moment, when the publish after it most likely failed too).
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
    gen_key, _position_key = live.position_keys(room_code)
    target.set(gen_key, secrets.token_hex(8), ex=POSITION_SECONDS)


def changed_after_commit(room_code: str) -> None:
    transaction.on_commit(lambda: changed(room_code))


def _text(value) -> str:
    return value.decode() if isinstance(value, bytes) else (value or "")


async def renew_and_read(client, *, address: str, channel: str, room_code: str, seats: list[int]):
    """A ping on daphne's loop: renew the socket's address count and its seats' presence (live.still_open)
    and read the room's mark and kept position, in one round trip. Returns (the position's JSON, or None if
    it must be worked out again; the mark read; when it was read) for `worked_out`."""
    pipe = client.pipeline(transaction=False)
    live.queue_still_open(pipe, address, channel, room_code, seats)
    pipe.mget(*live.position_keys(room_code))
    read_at = time.monotonic()
    gen, kept = (await pipe.execute())[-1]
    gen, kept = _text(gen), _text(kept)
    # Kept as "GEN|JSON": the position worked out after the mark GEN.
    at, _, position = kept.partition("|")
    if position and at == gen:
        return position, gen, read_at
    return None, gen, read_at


def worked_out(room_code: str, gen: str, read_at: float) -> str:
    """The position's JSON from the database, kept under the mark `gen` (read before the database was): in a
    thread."""
    text = json.dumps(snapshots.position(room_code), separators=(",", ":"))
    # An empty mark (none) read before a slow database read could be empty again once a mark made meanwhile
    # has lapsed: a read that slow is not kept.
    if time.monotonic() - read_at < POSITION_SECONDS / 2:
        _gen_key, position_key = live.position_keys(room_code)
        try:
            live.client().set(position_key, f"{gen}|{text}", ex=POSITION_SECONDS)
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
