"""A host away past the grace period hands the role to a player who is there, so a friends' room never
waits forever on "Waiting for the host": Start and Play again pass with it, and everyone's room shows who."""

from __future__ import annotations

import pytest

from rooms import live, services, snapshots
from rooms.models import Game, Room
from rooms.services import ServiceError
from tests.support import flush_suite_redis

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def clean_redis():
    flush_suite_redis()
    yield
    flush_suite_redis()


def room_of_three():
    host = services.create_room(game="candles", seat_count=3, options={}, host_name="Ana")
    services.join_room(room_code=host.room_code, name="Ben")
    services.join_room(room_code=host.room_code, name="Cleo")
    return host.room_code


def public_host(code):
    return snapshots.public_room(Room.objects.get(code=code))["host"]


def test_the_host_away_past_grace_passes_the_role_to_the_first_player_there():
    code = room_of_three()
    live.presence_join(code, 2, "cleo-phone")  # Ben is away too: Cleo, the first one here, gets it
    assert public_host(code) == 0
    services.fire_grace(room_code=code, seat=0)
    assert public_host(code) == 2
    with pytest.raises(ServiceError) as error:
        services.start_game(room_code=code, seat=0)
    assert error.value.code == "not_host"
    game = services.start_game(room_code=code, seat=2)
    assert game.status == Game.Status.PLAYING


def test_a_host_who_is_there_or_a_room_with_nobody_there_keeps_its_host():
    code = room_of_three()
    live.presence_join(code, 0, "ana-laptop")
    live.presence_join(code, 1, "ben-phone")
    services.fire_grace(room_code=code, seat=0)  # a late timer: Ana is back
    assert public_host(code) == 0
    live.presence_leave(code, 0, "ana-laptop")
    live.presence_leave(code, 1, "ben-phone")
    services.fire_grace(room_code=code, seat=0)
    assert public_host(code) == 0, "nobody to hand it to"
    live.presence_join(code, 1, "ben-phone")
    services.fire_grace(room_code=code, seat=1)  # not the host's timer: nothing passes
    assert public_host(code) == 0


def test_play_again_passes_with_the_role():
    code = room_of_three()
    services.start_game(room_code=code, seat=0)
    game = Game.objects.get(room__code=code, number=1)
    services.end_game(game_id=game.pk, reason="admin")
    live.presence_join(code, 1, "ben-phone")
    services.fire_grace(room_code=code, seat=0)
    with pytest.raises(ServiceError):
        services.play_again(room_code=code, seat=0)
    assert services.play_again(room_code=code, seat=1).number == 2


def test_a_new_host_away_in_turn_passes_it_on():
    code = room_of_three()
    live.presence_join(code, 1, "ben-phone")
    live.presence_join(code, 2, "cleo-phone")
    services.fire_grace(room_code=code, seat=0)
    assert public_host(code) == 1
    live.presence_leave(code, 1, "ben-phone")
    services.fire_grace(room_code=code, seat=1)
    assert public_host(code) == 2
