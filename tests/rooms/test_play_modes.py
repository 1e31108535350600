"""The three ways to play: against the AI in one click, several players on one device, and an online room that
waits for everyone. A same-device room's socket acts for the seat to act and never sends a hand to a seat that
has not taken the device."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.contrib.sessions.backends.db import SessionStore
from django.urls import reverse

from rooms import identity, live, services
from rooms.models import Game, Room, Seat
from tests.rooms.helpers import (
    ORIGIN,
    WAIT_SECONDS,
    close_all,
    fresh_channel_layer,  # noqa: F401 (a fixture)
    is_type,
    latest_game,
    receive_until,
)

NAMES = ["Ana", "Bia", "Caio"]


def device_session(code: str) -> SessionStore:
    session = SessionStore()
    identity.remember_device_seats(session, list(Seat.objects.select_related("room").filter(room__code=code)
                                                 .order_by("index")))
    session.save()
    return session


def cookie(session) -> bytes:
    return f"{settings.SESSION_COOKIE_NAME}={session.session_key}".encode()


# --- services -------------------------------------------------------------------------------------

@pytest.mark.django_db
def test_a_same_device_room_seats_every_named_player_and_refuses_joining_by_code():
    tickets = services.create_same_device_room(game="tiles", names=NAMES)
    code = tickets[0].room_code
    room = Room.objects.get(code=code)
    assert room.same_device and room.seat_count == 3
    assert [seat.name for seat in room.seats.order_by("index")] == NAMES
    assert all(seat.is_taken and not seat.is_bot for seat in room.seats.all())
    assert latest_game(code).status == Game.Status.LOBBY, "the page starts it once its client seed is in"
    with pytest.raises(services.ServiceError) as refused:
        services.join_room(room_code=code, name="Dora")
    assert refused.value.code == "same_device" and "one device" in refused.value.message


@pytest.mark.django_db
@pytest.mark.parametrize("names, code", [
    (["Ana"], "bad_seats"), (["A", "B", "C", "D", "E"], "bad_seats"), (["Ana", "ana"], "same_names"),
    (["Ana", "x" * 80], "bad_name"), ("Ana", "bad_names"),
])
def test_a_same_device_room_with_bad_names_is_refused_and_nothing_is_made(names, code):
    with pytest.raises(services.ServiceError) as refused:
        services.create_same_device_room(game="tiles", names=names)
    assert refused.value.code == code
    assert not Room.objects.exists()


@pytest.mark.django_db
def test_the_device_holds_the_seats_only_while_every_claim_still_matches():
    code = services.create_same_device_room(game="tiles", names=NAMES)[0].room_code
    session = device_session(code)
    assert identity.device_seats(session, code) == [0, 1, 2]
    Seat.objects.filter(room__code=code, index=2).update(return_code_hash="changed")
    assert identity.device_seats(session, code) is None
    # An online room is never played as one device, whatever a session says.
    online = services.create_room(game="tiles", seat_count=2, options={}, host_name="Host")
    session[identity.DEVICE_KEY] = {online.room_code: [[0, Seat.objects.get(room__code=online.room_code,
                                                                             index=0).return_code_hash]]}
    assert identity.device_seats(session, online.room_code) is None


@pytest.mark.django_db
def test_an_online_room_waits_for_everyone_then_starts_and_the_host_may_fill_with_the_ai():
    host = services.create_room(game="tiles", seat_count=3, options={}, host_name="Host")
    services.join_room(room_code=host.room_code, name="Bia")
    assert latest_game(host.room_code).status == Game.Status.LOBBY, "no dice while a seat is free"
    services.join_room(room_code=host.room_code, name="Caio")
    assert latest_game(host.room_code).status == Game.Status.PLAYING, "the dice roll when the room is full"
    other = services.create_room(game="tiles", seat_count=4, options={}, host_name="Host")
    services.start_game(room_code=other.room_code, seat=0)
    seats = list(Seat.objects.filter(room__code=other.room_code).order_by("index"))
    assert [seat.is_bot for seat in seats] == [False, True, True, True]
    assert {seat.bot_level for seat in seats[1:]} == {"strong"}


# --- views ----------------------------------------------------------------------------------------

@pytest.mark.django_db
def test_against_the_ai_is_one_click_with_a_name(client):
    response = client.post(reverse("play_bots", args=["tiles"]), {"name": "Ana"})
    code = response.url.rstrip("/").rsplit("/", 1)[1]
    room = Room.objects.get(code=code)
    assert room.seat_count == 2 and not room.same_device
    assert client.session[identity.SESSION_KEY][code][0] == 0
    page = client.get(response.url)
    assert page.context["config"]["autostart"] is True and page.context["config"]["sameDevice"] is False
    services.start_game(room_code=code, seat=0)  # what the page's autostart sends
    ai = Seat.objects.get(room__code=code, index=1)
    assert ai.is_bot and ai.bot_level == "strong"
    assert latest_game(code).players[1]["bot"] is True, "the AI is marked as a bot in the game's record"


@pytest.mark.django_db
def test_the_same_device_view_holds_every_seat_and_joining_by_code_is_refused(client):
    response = client.post(reverse("play_same_device", args=["tiles"]),
                           {"tiles-device-player_1": "Ana", "tiles-device-player_2": "Bia",
                            "tiles-device-player_3": "Caio"})
    code = response.url.rstrip("/").rsplit("/", 1)[1]
    assert identity.device_seats(client.session, code) == [0, 1, 2]
    page = client.get(response.url)
    assert page.context["config"]["sameDevice"] is True and page.context["config"]["autostart"] is True
    mine = client.get(reverse("my_games"))
    assert code in mine.content.decode()
    other = type(client)()
    refused = other.post(reverse("join_room"), {"code": code, "name": "Dora"}, follow=True)
    assert "cannot be joined by code" in refused.content.decode()
    assert Seat.objects.filter(room__code=code, name="Dora").count() == 0


@pytest.mark.django_db
def test_the_same_device_form_needs_two_names(client):
    response = client.post(reverse("play_same_device", args=["tiles"]), {"tiles-device-player_1": "Ana"},
                           follow=True)
    assert "Give a name for each player" in response.content.decode()
    assert not Room.objects.exists()


@pytest.mark.django_db
def test_the_home_page_offers_the_three_ways_only_for_a_game_that_asks(client):
    page = client.get(reverse("home")).content.decode()
    assert reverse("play_same_device", args=["tiles"]) in page
    assert reverse("play_same_device", args=["pots"]) not in page


# --- the socket of a same-device room ---------------------------------------------------------------

async def connect(code: str, session_cookie: bytes) -> WebsocketCommunicator:
    from config.asgi import application

    socket = WebsocketCommunicator(application, f"/ws/rooms/{code}/",
                                   headers=[(b"host", b"testserver"), (b"origin", ORIGIN),
                                            (b"cookie", session_cookie)])
    connected, _ = await socket.connect(timeout=WAIT_SECONDS)
    assert connected
    return socket


async def device_room(names: list[str]):
    """A same-device room for `names`, and its device's socket."""
    tickets = await database_sync_to_async(services.create_same_device_room)(game="tiles", names=names)
    code = tickets[0].room_code
    session = await database_sync_to_async(device_session)(code)
    return code, await connect(code, cookie(session))


def hand_of(message: dict):
    return (message.get("view") or {}).get("hand")


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("fresh_channel_layer", "moves_played")
async def test_the_device_acts_for_the_seat_to_act_and_no_hand_reaches_it_before_the_tap():
    code, device = await device_room(NAMES)
    first = await device.receive_json_from(timeout=WAIT_SECONDS)
    assert first["type"] == "snapshot" and first["you"] == {"seat": 0}, "the lobby: the host's seat starts"
    assert live.connected_seats(code) == {0, 1, 2}, "every player is at the device: no bot stands in"
    await device.send_json_to({"type": "start", "ref": "start"})
    started, _ = await receive_until(device, lambda m: m["type"] in ("update", "pass_device"), what="the start")
    seat = 0
    for turn in range(4):
        game = await database_sync_to_async(latest_game)(code)
        to_act = sorted(int(s) for s in game.prompts)[0]
        if to_act != seat:
            passed, _ = (started, []) if started["type"] == "pass_device" else await receive_until(
                device, is_type("pass_device"), what="the device passed")
            assert passed == {"type": "pass_device", "seat": to_act}
            public, _ = await receive_until(device, is_type("update"), what="the update, as a spectator")
            assert hand_of(public) is None, "no hand while the device is on its way"
            # Nobody may act while the device is passed.
            await device.send_json_to({"type": "move", "seq": game.seq, "action": {"type": "draw"}})
            refused, _ = await receive_until(device, is_type("error"), what="the move refused")
            assert refused["code"] == "no_seat"
            await device.send_json_to({"type": "take_turn"})
            taken, _ = await receive_until(device, is_type("snapshot"), what="the snapshot of the seat to act")
            assert taken["you"] == {"seat": to_act}
            assert hand_of(taken) == game.state["hands"][to_act]
            seat = to_act
        started = {"type": "none"}
        action = {"type": "begin"} if game.state["phase"] == "begin" else {"type": "draw"}
        await device.send_json_to({"type": "move", "seq": game.seq, "action": action, "ref": f"t{turn}"})
        message, _ = await receive_until(device, lambda m: m["type"] in ("update", "pass_device"),
                                         what="the move's answer")
        if message["type"] == "update":
            assert hand_of(message) in (None, (await database_sync_to_async(latest_game)(code)).state["hands"][seat])
        else:
            started = message
    moves = await database_sync_to_async(lambda: list(latest_game(code).moves.values_list("seat", flat=True)))()
    assert len(set(moves)) >= 3, "three players played from the one device"
    await close_all(device)


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("fresh_channel_layer", "moves_played")
async def test_the_devices_client_seed_stands_for_every_player_on_it():
    code, device = await device_room(NAMES)
    await device.receive_json_from(timeout=WAIT_SECONDS)
    await device.send_json_to({"type": "client_seed", "value": "from-the-device", "ref": "seed"})
    # The room's update from the device's own connect may still be on its way: wait for the seed's.
    await receive_until(device, lambda m: m["type"] == "room" and all(s["client_seed"] for s in m["room"]["seats"]),
                        what="the room with the seed stored")
    game = await database_sync_to_async(latest_game)(code)
    assert game.client_seeds == {"0": "from-the-device", "1": "from-the-device", "2": "from-the-device"}
    await close_all(device)


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("fresh_channel_layer", "moves_played")
async def test_a_page_opened_mid_game_shows_no_hand_until_the_tap_and_take_turn_is_refused_elsewhere():
    tickets = await database_sync_to_async(services.create_same_device_room)(game="tiles", names=NAMES[:2])
    code = tickets[0].room_code
    await database_sync_to_async(services.start_game)(room_code=code, seat=0)
    game = await database_sync_to_async(latest_game)(code)
    chooser = sorted(int(s) for s in game.prompts)[0]
    session = await database_sync_to_async(device_session)(code)
    device = await connect(code, cookie(session))
    passed = await device.receive_json_from(timeout=WAIT_SECONDS)
    assert passed == {"type": "pass_device", "seat": chooser}
    snapshot = await device.receive_json_from(timeout=WAIT_SECONDS)
    assert snapshot["type"] == "snapshot" and snapshot["you"] == {"seat": None} and hand_of(snapshot) is None
    # A socket that does not hold every seat is not a device: it cannot take turns, nor claim a seat's code.
    from tests.rooms.helpers import open_socket

    watcher, _ = await open_socket(code)
    await watcher.send_json_to({"type": "take_turn"})
    refused, _ = await receive_until(watcher, is_type("error"), what="take_turn refused")
    assert refused["code"] == "not_same_device"
    await close_all(device, watcher)


@pytest.mark.django_db
def test_a_paused_same_device_game_is_in_this_browsers_games_to_continue(client):
    response = client.post(reverse("play_same_device", args=["tiles"]),
                           {"tiles-device-player_1": "Ana", "tiles-device-player_2": "Bia"})
    code = response.url.rstrip("/").rsplit("/", 1)[1]
    services.start_game(room_code=code, seat=0)
    game = latest_game(code)
    services.submit_move(room_code=code, seat=game.state["current"], seq=game.seq, action={"type": "begin"})
    services.pause_game(game_id=game.pk, seat=0)
    page = client.get(reverse("my_games")).content.decode()
    assert code in page and "Everyone on this device" in page and "Ana, Bia" in page
    assert "Continue the game" in page and reverse("room", args=[code]) in page
    # Another browser does not see it: the seats are this one's.
    assert code not in type(client)().get(reverse("my_games")).content.decode()


@pytest.mark.django_db
def test_the_program_api_cannot_join_a_same_device_room(client):
    code = services.create_same_device_room(game="tiles", names=NAMES[:2])[0].room_code
    response = client.post(reverse("api_join_room", args=[code]), {"name": "Bot maker"},
                           content_type="application/json")
    assert response.status_code == 409 and response.json()["error"]["code"] == "same_device"


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("fresh_channel_layer", "moves_played")
async def test_a_seats_return_code_does_not_take_a_same_device_seat_on_another_socket():
    from tests.rooms.helpers import open_socket

    tickets = await database_sync_to_async(services.create_same_device_room)(game="tiles", names=NAMES[:2])
    other, _ = await open_socket(tickets[0].room_code)
    await other.send_json_to({"type": "auth", "return_code": tickets[1].return_code})
    refused, _ = await receive_until(other, is_type("error"), what="auth refused")
    assert refused["code"] == "same_device"
    await close_all(other)
