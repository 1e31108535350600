"""The position a pong reports comes from Redis (rooms/positions.py): the room's part kept while nothing is
written to the room, and the game's part as its last update left it. After any write, whoever makes it (a
socket's move through the worker, a countdown, a bot, the grace period, a pause, a seat taken or edited by an
admin, a new game, a client seed, the host passing), the very next ping must say what the database says: a
page that missed the write's message finds out."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from datetime import timedelta
from unittest import mock

import pytest
import redis.asyncio
from channels.db import database_sync_to_async
from django.conf import settings
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from games.candles.models import CandlesSeat
from rooms import broadcast, live, move_queue, positions, services, snapshots
from rooms.management.commands.worker import dispatch
from rooms.models import Game, Room, Seat
from tests.rooms.helpers import (
    bring_deadline_forward,
    candle_for,
    captured_broadcasts,
    close_all,
    cookie_for,
    fresh_channel_layer,  # noqa: F401 (a fixture)
    game_in_play,
    is_type,
    latest_game,
    new_room,
    open_socket,
    play_to_end,
    receive_until,
    room_with,
    socket_on,
    started_room,
    timers,
)

pytestmark = pytest.mark.django_db(transaction=True)

ADDRESS = "198.51.100.9"


def ping(code: str, *, seats: tuple[int, ...] = ()) -> tuple[dict | None, bool]:
    """What a socket's ping answers, as the consumer does it: (the position, whether it came from the hash)."""

    async def renew_and_read():
        client = redis.asyncio.Redis.from_url(settings.REDIS_URL)
        try:
            return await positions.renew_and_read(client, address=ADDRESS, channel="tab-1", room_code=code,
                                                  seats=list(seats))
        finally:
            await client.aclose()

    text, gen, read_at = asyncio.run(renew_and_read())
    kept = text is not None
    if not kept:
        text = positions.worked_out(code, gen, read_at)
    return json.loads(positions.pong(text))["position"], kept


def kept_now(code: str) -> dict | None:
    """Ping until the hash answers: the position a stale hash would go on giving."""
    position, _kept = ping(code)
    again, kept = ping(code)
    assert kept and again == position == snapshots.position(code)
    return position


def follows(code: str, before: dict | None) -> dict | None:
    """The first ping after a write says what the database says, and that differs from `before`."""
    after, _kept = ping(code)
    assert after == snapshots.position(code)
    assert after != before
    return after


def test_a_kept_position_answers_until_something_is_written():
    code, _tickets, _game = started_room(2)
    first, kept = ping(code)
    assert not kept and first == snapshots.position(code)
    for _ in range(3):
        assert ping(code) == (first, True)


def test_a_move_a_pause_and_a_resume_show_in_the_next_pong():
    code, _tickets, game = started_room(2)
    before = kept_now(code)
    services.submit_move(room_code=code, seat=0, seq=game.seq, action=candle_for(game, 0))
    assert follows(code, before)["seq"] == 1
    before = kept_now(code)
    services.pause_game(game_id=game.pk)
    assert follows(code, before)["paused"] is True
    before = kept_now(code)
    services.resume_game(game_id=game.pk)
    assert follows(code, before)["paused"] is False


def test_in_play_the_next_pong_after_a_move_comes_from_redis_with_no_query():
    code, _tickets, game = started_room(2)
    kept_now(code)
    for seat in (0, 1):
        game.refresh_from_db()
        services.submit_move(room_code=code, seat=seat, seq=game.seq, action=candle_for(game, seat))
        with CaptureQueriesContext(connection) as queries:
            position, kept = ping(code)
        assert kept and queries.captured_queries == []  # the game's part its update kept, the room's as it was
        assert position == snapshots.position(code) and position["seq"] == seat + 1


def _kept_part(code: str) -> str | None:
    return live.client().get(live.position_keys(code)[2])


def test_a_game_part_published_out_of_order_never_replaces_a_newer_one():
    code, _tickets, game = started_room(2)
    kept_now(code)
    older = positions.game_part(game)  # seq 0, as the start left it
    services.submit_move(room_code=code, seat=0, seq=0, action=candle_for(game, 0))
    newer = _kept_part(code)
    assert newer != older and newer.startswith(f"{game.number}|")
    positions.game_updated(code, older)  # an update of the state before, published late
    assert _kept_part(code) == newer
    position, kept = ping(code)
    assert kept and position == snapshots.position(code) and position["seq"] == 1


def test_a_game_part_outlives_every_position_kept_before_it():
    code, _tickets, game = started_room(2)
    kept_now(code)
    services.submit_move(room_code=code, seat=0, seq=0, action=candle_for(game, 0))
    _mark_key, position_key, game_key = live.position_keys(code)
    assert live.client().ttl(position_key) <= positions.POSITION_SECONDS
    # A position is kept only from a read begun within POSITION_SECONDS / 2 of its keeping, and lapses
    # POSITION_SECONDS after: one read before this part was kept lapses before the part does.
    assert live.client().ttl(game_key) > positions.POSITION_SECONDS * 3 / 2


def test_a_new_game_is_worked_out_from_the_database_not_mixed_into_the_room_kept_before_it():
    code, _tickets, _game = started_room(2)
    finished = play_to_end(code)  # the room marked: a new game in the lobby, the one finished shown
    ended = kept_now(code)
    assert (ended["number"], ended["status"]) == (finished.number, finished.status)
    services.play_again(room_code=code, seat=0)  # its game's update keeps the new game's part; the room marked
    again, kept = ping(code)
    assert not kept and again == snapshots.position(code) and (again["number"], again["status"]) == (2, "playing")


def test_a_position_kept_by_an_earlier_release_is_worked_out_again():
    code, _tickets, _game = started_room(2)
    mark_key, position_key, _game_key = live.position_keys(code)
    gen = live.client().get(mark_key) or ""
    live.client().set(position_key, f"{gen}|" + json.dumps({"number": 9}), ex=positions.POSITION_SECONDS)
    position, kept = ping(code)  # "GEN|JSON" was the whole format before the game's part was kept apart
    assert not kept and position == snapshots.position(code)
    assert ping(code) == (position, True)


def test_a_game_part_that_fails_is_logged_and_the_update_still_goes(caplog):
    code, _tickets, game = started_room(2)
    live.client().set(live.key("not-a-number"), "x")

    def refused(target, room_code, part):  # a command Redis answers with an error
        target.incr(live.key("not-a-number"))

    with mock.patch.object(positions, "_keep_game_part", refused), captured_broadcasts() as sent:
        positions.game_updated(code, positions.game_part(game))  # alone: logged as itself
        assert "could not keep its game's position" in caplog.text
        # In a move's round trip after its commit, with its update: that round trip's failure, logged
        services.submit_move(room_code=code, seat=0, seq=0, action=candle_for(game, 0))
    assert [message["type"] for _group, message in sent] == ["game.update"]
    # the move's failure logged too, after the part's own warning (how depends on the move's way)
    assert len([record for record in caplog.records if record.levelno >= logging.WARNING]) >= 2


def _queued(code: str, seat: int, game: Game, number: int) -> dict:
    sent_at = time.time()
    return {"kind": "move", "room": code, "seat": seat, "seq": game.seq, "action": candle_for(game, seat),
            "mover": f"test-mover-{code}-{number}", "reply_to": "test-socket", "language": "en", "ref": None,
            "sent_at": sent_at, "deadline": move_queue.deadline_from(sent_at)}


def test_moves_the_worker_plays_show_in_the_next_pong_the_remembered_way_too():
    code, _tickets, game = started_room(3)
    remembered: dict = {}  # on PostgreSQL the second and third moves are played on the remembered game
    for number, seat in enumerate((0, 1, 2)):
        before = kept_now(code)
        game.refresh_from_db()
        move_queue.play(_queued(code, seat, game, number), games_in_play=remembered)
        assert follows(code, before)["seq"] == number + 1


def test_a_countdown_and_a_bots_turn_the_worker_fires_show_in_the_next_pong():
    code, _tickets, game = started_room(1, 2)  # seat 1 is a bot
    before = kept_now(code)
    [bot_turn] = [member for member in timers() if member.startswith(f"bot:{game.pk}:")]
    dispatch(bot_turn)
    assert follows(code, before)["seq"] == 1
    before = kept_now(code)
    bring_deadline_forward(game)
    dispatch(f"turn:{game.pk}:{game_in_play(code).deadline_seq}")
    assert follows(code, before)["seq"] > 1


def test_seats_taken_connected_left_and_stood_in_for_show_in_the_next_pong():
    ticket = new_room(3)
    code = ticket.room_code
    before = kept_now(code)
    services.join_room(room_code=code, name="Bea")
    before = follows(code, before)
    kept_now(code)
    services.seat_connected(room_code=code, seat=1, channel="tab-bea")
    before = follows(code, before)
    services.start_game(room_code=code, seat=0)  # seat 2 gets a bot
    before = follows(code, before)
    kept_now(code)
    services.seat_disconnected(room_code=code, seat=1, channel="tab-bea")
    before = follows(code, before)
    kept_now(code)
    dispatch(f"grace:{code}:1")  # Bea is still away: a bot stands in
    assert Seat.objects.get(room__code=code, index=1).stand_in
    follows(code, before)


def test_the_host_passing_and_a_client_seed_show_in_the_next_pong():
    code, _tickets = room_with(2)
    services.seat_connected(room_code=code, seat=1, channel="tab-2")
    before = kept_now(code)
    services.set_client_seed(room_code=code, seats=[1], value="mine")
    before = follows(code, before)
    kept_now(code)
    with override_settings(WICKWISE={**settings.WICKWISE, "GRACE_SECONDS": 0.0}):
        dispatch(f"grace:{code}:0")  # the host never came: the role passes to seat 1, who is here
    assert live.host_seat(code) == 1
    follows(code, before)


def test_a_game_ending_and_play_again_show_in_the_next_pong():
    code, _tickets, _game = started_room(2)
    before = kept_now(code)
    finished = play_to_end(code)
    ended = follows(code, before)
    assert (ended["number"], ended["status"]) == (1, finished.status)
    assert latest_game(code).status == Game.Status.LOBBY
    kept_now(code)
    services.play_again(room_code=code, seat=0)
    again = follows(code, ended)
    assert (again["number"], again["status"]) == (2, "playing")


@pytest.fixture
def admin(client, django_user_model):
    user = django_user_model.objects.create_superuser("admin", "admin@example.com", "pw-admin-12345")
    client.force_login(user)
    return client


def test_an_admin_ending_a_game_or_editing_a_seat_shows_in_the_next_pong(admin):
    code, _tickets, game = started_room(2)
    before = kept_now(code)
    response = admin.post(reverse("admin:candles_candlesgame_changelist"),
                          {"action": "end_games", "_selected_action": [game.pk]})
    assert response.status_code == 302
    assert follows(code, before)["status"] == "ended"
    before = kept_now(code)
    seat = CandlesSeat.objects.get(room__code=code, index=1)  # as its admin page saves it, publishing nothing
    seat.name = "Renamed"
    seat.save()
    follows(code, before)


def test_an_admin_saving_a_seat_tells_the_room_at_once(admin):
    code, _tickets, _game = started_room(2)
    seat = CandlesSeat.objects.get(room__code=code, index=1)
    form = {"name": "Renamed", "bot_level": seat.bot_level, "user": ""}
    sent_in_transaction = []
    with captured_broadcasts(in_transaction=sent_in_transaction) as sent:
        response = admin.post(reverse("admin:candles_candlesseat_change", args=[seat.pk]), form)
    assert response.status_code == 302
    updates = [message for _group, message in sent if message["type"] == "room.update"]
    assert [s["name"] for s in updates[-1]["room"]["seats"]][1] == "Renamed"
    assert sent_in_transaction and not any(sent_in_transaction)


def test_an_expired_room_answers_no_position():
    code, _tickets = room_with(2)
    kept_now(code)
    later = timezone.now() + timedelta(days=settings.WICKWISE["ROOM_LIFETIME_DAYS"] + 1)
    assert services.expire_room(room_code=code, now=later)
    assert ping(code)[0] is None


def test_a_position_read_before_a_write_commits_is_never_kept_for_after_it():
    ticket = new_room(3)
    code = ticket.room_code

    async def renew_and_read():
        client = redis.asyncio.Redis.from_url(settings.REDIS_URL)
        try:
            return await positions.renew_and_read(client, address=ADDRESS, channel="tab-1", room_code=code, seats=[])
        finally:
            await client.aclose()

    text, gen, read_at = asyncio.run(renew_and_read())
    assert text is None
    stale = snapshots.position(code)  # the database as the ping reads it ...
    services.join_room(room_code=code, name="Bea")  # ... and a write that commits before the ping stores it
    with mock.patch.object(snapshots, "position", return_value=stale):
        positions.worked_out(code, gen, read_at)
    after, kept = ping(code)
    assert not kept and after == snapshots.position(code) != stale


def seated_by_a_socket(code: str, seat: int, channel: str) -> dict:
    """What a page's socket does as it takes its seat: the seat and its snapshot in one trip to a thread."""
    seated, snapshot = socket_on(code, channel)._seat_and_snapshot(seat=seat)
    assert seated
    return snapshot


@pytest.mark.parametrize("marked_by", ["alone", "a room update", "a socket taking its seat"])
def test_a_mark_that_fails_is_logged_and_the_message_still_goes(caplog, marked_by):
    code, _tickets = room_with(2)
    live.client().set(live.key("not-a-number"), "x")

    def refused(target, room_code):  # a command Redis answers with an error
        target.incr(live.key("not-a-number"))

    with mock.patch.object(positions, "mark_changed", refused), captured_broadcasts() as sent:
        if marked_by == "alone":
            positions.changed(code)
        elif marked_by == "a room update":
            broadcast.room_changed(code)
        else:
            seated_by_a_socket(code, 1, "tab-2")
    assert [message["type"] for _group, message in sent] == ([] if marked_by == "alone" else ["room.update"])
    assert "could not mark its position changed" in caplog.text


def test_a_socket_taking_its_seat_reads_the_room_once_and_sends_its_snapshots_room_as_the_update():
    code, _tickets = room_with(2)
    before = kept_now(code)
    mark_key, _position_key, _game_key = live.position_keys(code)
    mark_before, marks_at_send = live.client().get(mark_key), []
    send = broadcast._send

    def noting_the_mark(group, message):
        marks_at_send.append(live.client().get(mark_key))
        send(group, message)

    with mock.patch.object(broadcast, "_send", noting_the_mark), CaptureQueriesContext(connection) as queries, \
            captured_broadcasts() as sent:
        snapshot = seated_by_a_socket(code, 1, "tab-2")
    assert len(marks_at_send) == 1 and marks_at_send[0] not in (None, mark_before)  # marked before it went
    assert snapshot["you"] == {"seat": 1} and snapshot["room"]["seats"][1]["connected"]
    assert snapshot["room"] == snapshots.public_room(Room.objects.get(code=code))  # what room_changed sends
    assert sent == [(broadcast.room_group(code), {
        "type": "room.update", "room": snapshot["room"], "room_digest": snapshot["room_digest"]})]
    assert sum('FROM "rooms_room"' in query["sql"] for query in queries.captured_queries) == 1
    follows(code, before)


@pytest.mark.usefixtures("fresh_channel_layer")
async def test_a_socket_that_lost_an_update_is_told_by_its_next_pong():
    code, tickets, game = await database_sync_to_async(started_room)(2)
    socket, _snapshot = await open_socket(code, cookie=await cookie_for(tickets[0]))
    try:
        for _ in range(2):  # the second pong comes from what the first kept
            await socket.send_json_to({"type": "ping"})
            pong, _ = await receive_until(socket, is_type("pong"), what="a pong")
            assert pong["position"]["seq"] == 0
        lost = []
        with mock.patch.object(broadcast, "_send", lambda group, message: lost.append(message)):
            await database_sync_to_async(services.submit_move)(room_code=code, seat=1, seq=0,
                                                               action=candle_for(game, 1))
        assert [message["type"] for message in lost] == ["game.update"]  # never reached the socket
        await socket.send_json_to({"type": "ping"})
        pong, before = await receive_until(socket, is_type("pong"), what="a pong")
        assert not [message for message in before if message["type"] == "update"]
        assert pong["position"]["seq"] == 1
    finally:
        await close_all(socket)
        await move_queue.close_for_this_loop()
