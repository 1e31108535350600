"""Rooms idle for 30 days are swept (by the worker, or services.expire_room); their games' public records
stay; a room with recent activity stays."""

from __future__ import annotations

import time
from datetime import timedelta
from unittest import mock

import pytest
from django.utils import timezone

from rooms import codes, live, services
from rooms.models import Game, Room, Seat
from tests.rooms.helpers import (
    Workers,
    candle_for,
    expiry_index,
    game_in_play,
    play_to_end,
    room_with,
    started_room,
)

pytestmark = pytest.mark.django_db(transaction=True)
LIFETIME = timedelta(days=30)


@pytest.fixture
def workers(transactional_db):
    pool = Workers()
    yield pool
    pool.stop_all()


def idle_for(code: str, age: timedelta) -> None:
    """Pretend the room's last activity was `age` ago, in the database and in the expiry index."""
    last = timezone.now() - age
    Room.objects.filter(code=code).update(last_activity_at=last)
    live.touch_expiry(code, (last + LIFETIME).timestamp())


def a_room_with_a_finished_game_and_one_in_play() -> tuple[str, Game, Game]:
    code, _tickets, first = started_room(2)
    play_to_end(code)
    services.play_again(room_code=code, seat=0)
    second = game_in_play(code)
    services.submit_move(room_code=code, seat=1, seq=0, action=candle_for(second, 1))
    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.status, second.status) == (Game.Status.FINISHED, Game.Status.PLAYING)
    return code, first, second


@pytest.mark.live
def test_the_worker_sweeps_a_room_idle_for_30_days_and_keeps_its_records(workers, client):
    code, finished, unfinished = a_room_with_a_finished_game_and_one_in_play()
    live.presence_join(code, None, "a-spectator")
    idle_for(code, LIFETIME + timedelta(hours=1))

    workers.run_once()

    assert not Room.objects.filter(code=code).exists()
    assert not Seat.objects.filter(room__code=code).exists()
    assert code not in expiry_index() and live.connected_seats(code) == set()
    assert not live.client().exists(live.key("presence", code))
    unfinished.refresh_from_db()
    assert (unfinished.status, unfinished.end_reason, unfinished.room) == (Game.Status.ENDED, "expired", None)
    assert unfinished.ended_at is not None and unfinished.deadline_at is None

    record = client.get(f"/games/{code}/{unfinished.number}/record.json").json()
    assert (record["status"], record["end_reason"], record["seed"]) == ("ended", "expired", unfinished.seed)
    assert [(m["seq"], m["seat"], m["by"]) for m in record["moves"]] == [(1, 1, "player")]
    response = client.get(f"/games/{code}/{finished.number}/record.json")
    assert response.status_code == 200
    record = response.json()
    assert (record["status"], record["seed"], record["result"]) == ("finished", finished.seed, finished.result)
    assert len(record["moves"]) == 12 and record["room_code"] == code
    # A countdown of the swept game that is still in the index does nothing.
    assert services.fire_countdown(game_id=unfinished.pk, seq=unfinished.deadline_seq or 0) == 0


def test_expire_room_deletes_only_an_idle_room():
    code, _tickets = room_with(2)
    room = Room.objects.get(code=code)
    almost = room.last_activity_at + LIFETIME - timedelta(minutes=1)

    assert not services.expire_room(room_code=code, now=almost)
    assert Room.objects.filter(code=code).exists()
    assert expiry_index()[code] == pytest.approx((room.last_activity_at + LIFETIME).timestamp())

    assert services.expire_room(room_code=code, now=room.last_activity_at + LIFETIME + timedelta(seconds=1))
    assert not Room.objects.filter(code=code).exists() and not Seat.objects.filter(room__code=code).exists()
    assert not services.expire_room(room_code=code)  # already gone


@pytest.mark.live
def test_a_room_with_recent_activity_is_not_swept(workers):
    code, _tickets, game = started_room(2)
    live.touch_expiry(code, time.time() - 60)  # a stale index entry says it is due
    room = Room.objects.get(code=code)

    workers.run_once()

    assert Room.objects.filter(code=code).exists() and Seat.objects.filter(room__code=code).count() == 2
    game.refresh_from_db()
    assert game.status == Game.Status.PLAYING and game.room_id == room.pk
    assert expiry_index()[code] == pytest.approx((room.last_activity_at + LIFETIME).timestamp())


def test_every_move_pushes_the_expiry_back():
    code, _tickets, game = started_room(2)
    idle_for(code, timedelta(days=29))
    before = time.time()

    services.submit_move(room_code=code, seat=0, seq=0, action=candle_for(game, 0))

    room = Room.objects.get(code=code)
    assert room.last_activity_at.timestamp() >= before - 1
    assert expiry_index()[code] == pytest.approx((room.last_activity_at + LIFETIME).timestamp())
    assert expiry_index()[code] >= before + LIFETIME.total_seconds() - 1


def test_a_swept_room_code_is_never_given_to_a_new_room():
    code, _finished, _unfinished = a_room_with_a_finished_game_and_one_in_play()
    assert services.expire_room(room_code=code, now=timezone.now() + LIFETIME + timedelta(days=1))
    fresh = "ZZZZZZ" if code != "ZZZZZZ" else "YYYYYY"

    with mock.patch.object(codes, "new_room_code", side_effect=[code, fresh]):
        ticket = services.create_room(game="candles", seat_count=2, options={}, host_name="Next")

    assert ticket.room_code == fresh
    assert list(Game.objects.filter(room_code=code).values_list("number", flat=True).order_by("number")) == [1, 2]
