"""The position a pong reports: its room fingerprint must be the one the room's messages carry, whichever
game waits in the lobby, though the pong reads the next game with its own query; and what a ping renews."""

from __future__ import annotations

import pytest

from rooms import live, services, snapshots
from rooms.models import Room
from tests.rooms.helpers import latest_game, new_room, play_to_end, started_room

pytestmark = pytest.mark.django_db(transaction=True)


def _digest_of_the_room(code: str) -> str:
    return snapshots.room_digest(snapshots.public_room(Room.objects.get(code=code)))


def test_the_pongs_fingerprint_is_the_rooms_with_a_next_game_and_its_client_seeds():
    ticket = new_room(2)
    services.set_client_seed(room_code=ticket.room_code, seats=[0], value="first")
    assert snapshots.position(ticket.room_code)["room_digest"] == _digest_of_the_room(ticket.room_code)
    code, _tickets, _game = started_room(2)
    assert snapshots.position(code)["room_digest"] == _digest_of_the_room(code)  # no game in the lobby
    play_to_end(code)
    assert latest_game(code).status == "lobby"
    before = snapshots.position(code)["room_digest"]
    services.set_client_seed(room_code=code, seats=[1], value="second")
    after = snapshots.position(code)["room_digest"]
    assert after == _digest_of_the_room(code) and after != before


def test_a_ping_renews_its_address_count_and_its_seats_presence_in_one_go():
    code = new_room(3).room_code
    live.still_open("198.51.100.7", "tab-1", code, [1, 2])
    live.still_open("198.51.100.7", "tab-2", code, [])  # a spectator renews its address alone
    assert live.connected_seats(code) >= {1, 2}
    assert sorted(live.queue_connected_seats(live.client(), code)) == ["1|tab-1", "2|tab-1"]
    assert live.socket_from("198.51.100.7", "tab-3") == 3
