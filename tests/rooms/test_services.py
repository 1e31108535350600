"""rooms.services against the real database and Redis: every write, its refusals, and what it sends."""

from __future__ import annotations

import gc
import hashlib
import json
import threading
import weakref
from datetime import timedelta

import pytest
from django.conf import settings
from django.db import connection, connections
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import fairness, registry
from games.candles import engine
from rooms import broadcast, codes, live, services, snapshots
from rooms.models import Game, Move, Room, Seat
from rooms.services import ServiceError
from tests.rooms.helpers import (
    SEAT_VIEW_KEYS,
    VIEW_KEYS,
    bring_deadline_forward,
    candle_for,
    captured_broadcasts,
    countdown_after_the_last_reveal,
    expiry_index,
    game_in_play,
    game_updates,
    latest_game,
    lowest_candle,
    new_room,
    play_pending,
    play_to_end,
    received_by,
    room_updates,
    room_with,
    started_room,
    state_at,
    timers,
    what_moves_change,
)

pytestmark = pytest.mark.django_db(transaction=True)
# Refusals commit nothing and need no after-commit work: these run in a rolled-back transaction, which
# keeps the many cases fast on PostgreSQL.
rolled_back = pytest.mark.django_db


def refused(code: str, call, **kwargs):
    with pytest.raises(ServiceError) as error:
        call(**kwargs)
    assert error.value.code == code, error.value.message
    assert error.value.message
    return error.value


def sha256_of_seed(seed: str) -> str:
    return hashlib.sha256(bytes.fromhex(seed)).hexdigest()


# --- create_room ------------------------------------------------------------------------------------

def test_create_room_seats_the_host_and_opens_the_first_game_in_the_lobby():
    ticket = new_room(4, host="  Ada   Lovelace ", options={"round_seconds": 15})

    room = Room.objects.get(code=ticket.room_code)
    assert codes.is_room_code(room.code)
    assert (room.game, room.seat_count, room.options) == ("candles", 4, {"round_seconds": 15})
    assert ticket.seat == 0 and len(codes.normalize(ticket.return_code)) == codes.RETURN_CODE_LENGTH
    seats = list(room.seats.order_by("index"))
    assert [seat.index for seat in seats] == [0, 1, 2, 3]
    assert seats[0].name == "Ada Lovelace"
    assert seats[0].return_code_hash == codes.hash_return_code(ticket.return_code)
    assert ticket.return_code not in seats[0].return_code_hash  # only a hash is stored
    assert not any(seat.is_taken for seat in seats[1:])
    game = latest_game(room.code)
    assert (game.number, game.status, game.options) == (1, Game.Status.LOBBY, {"round_seconds": 15})
    assert game.fingerprint == sha256_of_seed(game.seed)
    expires = room.last_activity_at + timedelta(days=30)
    assert expiry_index()[room.code] == pytest.approx(expires.timestamp())


@rolled_back
@pytest.mark.parametrize("game", ["chess", "", "Candles", "candles "])
def test_create_room_refuses_a_game_that_does_not_exist(game):
    refused("no_such_game", services.create_room, game=game, seat_count=4, options={}, host_name="Ada")
    assert not Room.objects.exists() and not Game.objects.exists()


@rolled_back
@pytest.mark.parametrize("seat_count", [0, 1, 11, -2, "4", None, 4.0, True])
def test_create_room_refuses_a_seat_count_outside_the_game_range(seat_count):
    refused("bad_seats", services.create_room, game="candles", seat_count=seat_count, options={}, host_name="Ada")
    assert not Room.objects.exists()


@rolled_back
@pytest.mark.parametrize("options", [
    {"round_seconds": 7}, {"round_seconds": "30"}, {"round_seconds": None}, {"colour": "red"},
    {"round_seconds": 30, "colour": "red"}, ["round_seconds"], [1], "fast", 5,
])
def test_create_room_refuses_bad_options(options):
    refused("bad_options", services.create_room, game="candles", seat_count=4, options=options, host_name="Ada")
    assert not Room.objects.exists()


def test_create_room_fills_in_default_options():
    ticket = services.create_room(game="candles", seat_count=2, options=None, host_name="Ada")
    assert Room.objects.get(code=ticket.room_code).options == {"round_seconds": 30}


@rolled_back
@pytest.mark.parametrize("name", ["", "   ", "\n\t", None])
def test_create_room_refuses_an_empty_name(name):
    refused("bad_name", services.create_room, game="candles", seat_count=4, options={}, host_name=name)
    assert not Room.objects.exists()


# --- join_room --------------------------------------------------------------------------------------

def test_join_room_fills_the_seats_in_order_then_refuses():
    host = new_room(4)
    tickets = [services.join_room(room_code=host.room_code, name=f"Player {n}") for n in (2, 3, 4)]

    assert [t.seat for t in tickets] == [1, 2, 3]
    assert len({host.return_code, *(t.return_code for t in tickets)}) == 4
    names = list(Seat.objects.filter(room__code=host.room_code).order_by("index").values_list("name", flat=True))
    assert names == ["Host", "Player 2", "Player 3", "Player 4"]
    before = what_moves_change(host.room_code)
    refused("room_full", services.join_room, room_code=host.room_code, name="Late")
    assert what_moves_change(host.room_code) == before


def test_join_room_tolerates_the_way_people_type_a_code():
    host = new_room(3)
    code = host.room_code
    assert services.join_room(room_code=code.lower(), name="B").seat == 1
    assert services.join_room(room_code=f" {code[:3]}-{code[3:]} ", name="C").seat == 2


def test_join_room_refuses_a_room_that_does_not_exist():
    refused("no_such_room", services.join_room, room_code="ZZZZZZ", name="Ada")


def test_join_room_refuses_once_the_game_has_started():
    code, _tickets, _game = started_room(1, 3)
    before = what_moves_change(code)

    refused("room_full", services.join_room, room_code=code, name="Late")
    assert what_moves_change(code) == before


def test_join_room_refuses_an_empty_name_and_keeps_the_seat_free():
    host = new_room(2)
    refused("bad_name", services.join_room, room_code=host.room_code, name="  ")
    assert not Seat.objects.get(room__code=host.room_code, index=1).is_taken


def test_joins_at_the_same_moment_never_share_a_seat():
    code = new_room(4).room_code
    tickets, refusals = [], []
    start = threading.Barrier(6)

    def join(number):
        try:
            start.wait()
            tickets.append(services.join_room(room_code=code, name=f"Player {number}"))
        except ServiceError as error:
            refusals.append(error.code)
        finally:
            connection.close()

    threads = [threading.Thread(target=join, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(t.seat for t in tickets) == [1, 2, 3]
    assert refusals == ["room_full"] * 3
    hashes = {codes.hash_return_code(t.return_code): t.seat for t in tickets}
    for seat in Seat.objects.filter(room__code=code, index__gt=0):
        assert hashes[seat.return_code_hash] == seat.index


def test_a_signed_in_player_who_sits_here_gets_the_same_seat_back(django_user_model):
    user = django_user_model.objects.create_user("ada", password="pw")
    host = new_room(3)
    first = services.join_room(room_code=host.room_code, name="Ada", user=user)

    again = services.join_room(room_code=host.room_code, name="Someone else", user=user)
    assert (again.seat, again.return_code) == (first.seat, None)
    seat = Seat.objects.get(room__code=host.room_code, index=first.seat)
    assert (seat.name, seat.user, seat.return_code_hash) == ("Ada", user, codes.hash_return_code(first.return_code))
    assert not Seat.objects.get(room__code=host.room_code, index=2).is_taken

    services.start_game(room_code=host.room_code, seat=0)  # the room is full now: a seat-holder still gets in
    assert services.join_room(room_code=host.room_code, name="Ada", user=user).seat == first.seat


def test_a_signed_in_host_gets_the_host_seat_back(django_user_model):
    user = django_user_model.objects.create_user("host", password="pw")
    ticket = new_room(2, user=user)
    assert services.join_room(room_code=ticket.room_code, name="Host", user=user).seat == 0
    assert not Seat.objects.get(room__code=ticket.room_code, index=1).is_taken


# --- return codes -----------------------------------------------------------------------------------

def test_a_return_code_finds_its_seat_however_it_is_typed():
    code, tickets = room_with(2)
    given = tickets[1].return_code
    for typed in (given, given.replace("-", ""), given.lower(), f"  {given.lower().replace('-', ' ')} ",
                  given.replace("-", "--")):
        seat = services.seat_by_return_code(return_code=typed)
        assert (seat.room.code, seat.index) == (code, 1), typed


@rolled_back
@pytest.mark.parametrize("typed", ["wrong", "", "truncated", "longer", "someone else's"])
def test_a_wrong_return_code_finds_nothing(typed):
    _code, tickets = room_with(2)
    given = tickets[1].return_code
    attempt = {
        "wrong": codes.new_return_code(), "": "", "truncated": given[:-1], "longer": given + "A",
        "someone else's": codes.new_return_code().replace("-", ""),
    }[typed]
    refused("bad_return_code", services.seat_by_return_code, return_code=attempt)


# --- client seeds -----------------------------------------------------------------------------------

def test_client_seeds_are_kept_for_the_lobby_game_and_feed_the_deal():
    code, _tickets = room_with(2, 3)
    services.set_client_seed(room_code=code, seats=[0], value="first-try")
    services.set_client_seed(room_code=code, seats=[0], value="Seed_0")  # a seat may change its mind
    services.set_client_seed(room_code=code, seats=[1], value="x" * 64)
    game = latest_game(code)
    assert game.client_seeds == {"0": "Seed_0", "1": "x" * 64}
    room = snapshots.public_room(Room.objects.get(code=code))
    assert [seat["client_seed"] for seat in room["seats"]] == [True, True, False]
    assert snapshots.public_game(game)["client_seeds"] is None  # not shown before the start

    services.start_game(room_code=code, seat=0)
    game.refresh_from_db()
    assert snapshots.public_game(game)["client_seeds"] == ["Seed_0", "x" * 64, None]
    mix = f"wickwise/v1|candles|{code}|1|Seed_0,{'x' * 64},"
    assert game.state == engine.setup(3, game.options, fairness.Rng(game.seed, mix))


@rolled_back
@pytest.mark.parametrize("value", ["", "has space", "caf\u00e9", "x" * 65, "a/b", "tab\t", None, 42, ["a"]])
def test_a_bad_client_seed_is_refused(value):
    code, _tickets = room_with(2)
    before = what_moves_change(code)
    refused("bad_client_seed", services.set_client_seed, room_code=code, seats=[0], value=value)
    assert what_moves_change(code) == before


def test_a_bot_seat_gives_no_client_seed():
    code, _tickets, _game = started_room(1, 2)  # seat 1 became a bot
    play_to_end(code)
    assert latest_game(code).status == Game.Status.LOBBY  # game 2 waits for seeds and a start
    before = what_moves_change(code)

    refused("bot_seat", services.set_client_seed, room_code=code, seats=[1], value="bots-have-none")
    assert what_moves_change(code) == before
    services.set_client_seed(room_code=code, seats=[0], value="for-game-2")
    assert latest_game(code).client_seeds == {"0": "for-game-2"}


def test_client_seeds_are_refused_once_the_game_started():
    code, _tickets, _game = started_room(2)
    before = what_moves_change(code)
    refused("game_started", services.set_client_seed, room_code=code, seats=[1], value="too-late")
    assert what_moves_change(code) == before


# --- start_game -------------------------------------------------------------------------------------

@rolled_back
@pytest.mark.parametrize("seat", [1, 2, 5])
def test_only_the_host_starts_the_game(seat):
    code, _tickets = room_with(3)
    before = what_moves_change(code)
    refused("not_host", services.start_game, room_code=code, seat=seat)
    assert what_moves_change(code) == before


def test_start_game_fills_empty_seats_with_bots_and_poses_the_first_decision():
    code, _tickets = room_with(2, 4)
    with captured_broadcasts() as sent:
        game = services.start_game(room_code=code, seat=0)

    game.refresh_from_db()
    seats = list(Seat.objects.filter(room__code=code).order_by("index"))
    assert [(s.is_bot, s.bot_level) for s in seats] == [(False, ""), (False, ""), (True, "strong"), (True, "strong")]
    assert game.players == [{"name": "Host", "bot": False}, {"name": "Player 2", "bot": False},
                            {"name": "", "bot": True}, {"name": "", "bot": True}]
    assert (game.status, game.seq, game.prompts) == (Game.Status.PLAYING, 0, {"0": 0, "1": 0, "2": 0, "3": 0})
    assert game.started_at is not None and game.deadline_seq == 0
    assert len(game.state["hands"]) == 4 and all(len(hand) == 6 for hand in game.state["hands"])
    assert (game.deadline_at - game.started_at).total_seconds() == pytest.approx(30, abs=2)
    scheduled = timers()
    assert scheduled[f"turn:{game.pk}:0"] == pytest.approx(game.deadline_at.timestamp())
    assert {f"bot:{game.pk}:2:0", f"bot:{game.pk}:3:0"} <= set(scheduled)  # the bots play their turns
    assert f"bot:{game.pk}:0:0" not in scheduled
    assert {f"grace:{code}:0", f"grace:{code}:1"} <= set(scheduled)  # nobody is connected
    updates = game_updates(sent)
    assert len(updates) == 1 and updates[0]["seq"] == 0
    for seat in (0, 1, 2, 3, None):
        view, events = received_by(updates[0], seat)
        assert events == [{"type": "start"}] and view == engine.view(game.state, seat)

    before = what_moves_change(code)
    refused("game_started", services.start_game, room_code=code, seat=0)
    assert what_moves_change(code) == before


@pytest.mark.parametrize("slug", list(settings.WICKWISE_GAMES))
def test_a_start_sends_what_the_room_and_game_read_again_after_it_would_give(slug):
    """A start builds its updates from the rows it wrote: they must be what reading them back would send,
    for every game (its state as its engine set it up, not as the database gives it back)."""
    seats = registry.get(slug).max_seats
    humans = max(1, seats - 1)  # one seat for a bot, and not full: a game that starts when full waits
    code, _tickets = room_with(humans, seats, game=slug)
    host = humans - 1
    live.presence_join(code, host, "socket-of-the-host")
    live.pass_host(code, host)
    with captured_broadcasts() as sent:
        services.start_game(room_code=code, seat=host, mover="the-host")
    assert [message["type"] for _group, message in sent] == ["room.update", "game.update"]
    with captured_broadcasts() as again:
        public = snapshots.public_room(Room.objects.get(code=code))
        broadcast.prepare_game_update(latest_game(code), [{"type": "start"}], mover="the-host")()
    assert sent[0][1] == {"type": "room.update", "room": public, "room_digest": snapshots.room_digest(public)}
    assert public["host"] == host and [seat["connected"] for seat in public["seats"]] == [
        index == host for index in range(seats)]
    # The same JSON for every seat; PostgreSQL gives a JSON column's keys back in an order of its own.
    (group, update), (group_again, update_again) = sent[1], again[0]
    texts, texts_again = update.pop("texts"), update_again.pop("texts")
    assert (group, update) == (group_again, update_again) and texts.keys() == texts_again.keys()
    for seat, text in texts.items():
        assert json.loads(broadcast.stamped(text, 0.0)) == json.loads(broadcast.stamped(texts_again[seat], 0.0))
    absent = {f"grace:{code}:{index}" for index in range(humans) if index != host}
    assert absent <= set(timers()) and f"grace:{code}:{host}" not in timers()


def test_an_updates_texts_are_encoded_as_json_dumps_with_compact_separators_gives_them():
    """The update's one shared encoder writes exactly what json.dumps did: the same escapes, numbers and keys."""
    code, _tickets, game = started_room(2)
    game.players = [{"name": "Zoë \U0001f56f", "bot": False}, {"name": 'a "quoted" \\ name</script>', "bot": False}]
    game.clocks = {"0": 12.5, "1": 1e-7}
    with captured_broadcasts() as sent:
        broadcast.prepare_game_update(game, [{"type": "picked", "seat": 0}, {"type": "x", "only": 1}], mover="m")()
    [(_group, message)] = sent
    for seat in (0, 1, None):
        text = broadcast.text_for_seat(message, seat)
        update = json.loads(broadcast.stamped(text, 0.0))
        compact = {"separators": (",", ":")}
        public = json.dumps(snapshots.public_game(game), **compact)
        assert text == (f'{{"type":"update","seq":{game.seq},"game":{public},'
                        f'"events":{json.dumps(update["events"], **compact)},'
                        f'"view":{json.dumps(snapshots.seat_view(game, seat), **compact)}')


def test_a_games_last_move_sends_the_room_as_reading_it_back_would_give():
    """The last move builds the room's update from the room it locked and the game it opens: it must be what
    reading them back after the commit sends, next game, presence and host included."""
    code, _tickets, game = started_room(3)
    live.presence_join(code, 1, "socket-of-seat-1")
    live.pass_host(code, 1)
    for _step in range(100):  # up to the last decision of the last round
        game.refresh_from_db()
        pending = engine.to_act(game.state)
        if game.state["round"] == engine.ROUNDS and len(pending) == 1:
            break
        services.submit_move(room_code=code, seat=pending[0], seq=game.seq, action=candle_for(game, pending[0]))
    [seat] = pending
    with captured_broadcasts() as sent:
        services.submit_move(room_code=code, seat=seat, seq=game.seq, action=candle_for(game, seat))
    game.refresh_from_db()
    assert game.is_over
    [room] = room_updates(sent)
    public = snapshots.public_room(Room.objects.get(code=code))
    assert room == public and [message["type"] for _group, message in sent] == ["game.update", "room.update"]
    assert room["next_game"] == {"number": 2, "fingerprint": latest_game(code).fingerprint}
    assert room["host"] == 1 and [entry["connected"] for entry in room["seats"]] == [False, True, False]
    assert sent[-1][1]["room_digest"] == snapshots.room_digest(public)


def test_the_seed_stays_secret_until_the_game_is_over_and_matches_its_fingerprint(client):
    def record():
        response = client.get(f"/games/{code}/1/record.json")
        assert response.status_code == 200
        return response.json()

    def assert_hidden(seed):
        game = Game.objects.get(room_code=code, number=1)
        assert snapshots.public_game(game)["seed"] is None
        assert seed not in json.dumps(snapshots.public_game(game))
        assert seed not in json.dumps(snapshots.public_room(Room.objects.get(code=code)))
        assert seed not in json.dumps(snapshots.public_record(game))
        assert record()["seed"] is None and record()["moves"] is None
        assert seed not in json.dumps(record())
        for _group, message in sent:
            assert seed not in json.dumps(message)

    with captured_broadcasts() as sent:
        code, _tickets = room_with(2, 3)
        lobby = latest_game(code)
        published = lobby.fingerprint
        assert published == sha256_of_seed(lobby.seed)
        room = snapshots.public_room(Room.objects.get(code=code))
        assert room["next_game"] == {"number": 1, "fingerprint": published}
        assert_hidden(lobby.seed)
        services.set_client_seed(room_code=code, seats=[1], value="mine")
        services.start_game(room_code=code, seat=0)
        assert_hidden(lobby.seed)
        for _round in range(3):
            play_pending(code)
        assert_hidden(lobby.seed)
        play_pending(code, seats=[0])
        assert_hidden(lobby.seed)
        play_to_end(code)

    game = Game.objects.get(room_code=code, number=1)
    assert game.status == Game.Status.FINISHED
    assert game.fingerprint == published == sha256_of_seed(game.seed)
    assert snapshots.public_game(game)["seed"] == game.seed
    assert record()["seed"] == game.seed and len(record()["moves"]) == 18
    last = game_updates(sent)[-1]
    assert last["game"]["seed"] == game.seed and last["game"]["status"] == "finished"
    following = latest_game(code)
    assert following.number == 2 and following.seed != game.seed
    assert following.fingerprint == sha256_of_seed(following.seed)
    assert following.seed not in json.dumps(snapshots.public_room(Room.objects.get(code=code)))
    assert following.seed not in json.dumps(client.get(f"/games/{code}/2/record.json").json())


# --- submit_move ------------------------------------------------------------------------------------

def test_a_move_is_applied_logged_and_announced():
    code, _tickets, game = started_room(2)
    action = candle_for(game, 1)
    with captured_broadcasts() as sent:
        services.submit_move(room_code=code, seat=1, seq=0, action=action)

    game.refresh_from_db()
    assert game.seq == 1 and game.state["picks"] == [None, action["candle"]]
    assert game.prompts == {"0": 0}  # seat 1 decided; seat 0 still answers the decision posed at seq 0
    move = Move.objects.get(game=game)
    assert (move.seq, move.seat, move.action, move.by) == (1, 1, action, Move.By.PLAYER)
    [update] = game_updates(sent)
    assert update["seq"] == update["game"]["seq"] == 1
    for seat in (0, 1, None):
        view, events = received_by(update, seat)
        assert events == [{"type": "picked", "seat": 1}]
        assert view == engine.view(game.state, seat)
    assert received_by(update, 1)[0]["my_pick"] == action["candle"]
    assert received_by(update, 0)[0]["my_pick"] is None


def test_a_move_reads_and_writes_in_four_queries_compiled_once(monkeypatch):
    code, _tickets, game = started_room(3)
    compiled = []
    for query in (services._ROOM_FOR_UPDATE, services._LATEST_GAME_FOR_UPDATE):
        monkeypatch.setattr(query, "build", lambda *params, build=query.build: compiled.append(1) or build(*params))
    connections["default"].__dict__.pop(services.COMPILED_ON_CONNECTION, None)
    services.submit_move(room_code=code, seat=2, seq=0, action=candle_for(game, 2))
    assert len(compiled) == 2
    with CaptureQueriesContext(connection) as captured:  # a pick in mid-round: nothing else to do
        services.submit_move(room_code=code, seat=1, seq=1, action=candle_for(game, 1))
    assert len(compiled) == 2  # the second move ran the SQL compiled for the first
    statements = [q["sql"].split()[0] for q in captured.captured_queries]
    # The room and its game (both locked), then the move's row and the game's.
    assert [s for s in statements if s in ("SELECT", "INSERT", "UPDATE")] == ["SELECT", "SELECT", "INSERT", "UPDATE"]


def test_a_thread_that_moved_leaves_no_connection_behind_when_it_ends():
    """The compiled reads live on the thread's own connection: once the thread is gone, its connection
    (and its session on the database) goes with it instead of being kept by a cache."""
    code, _tickets, game = started_room(2)
    held = []

    def move_in_a_thread():
        services.submit_move(room_code=code, seat=0, seq=0, action=candle_for(game, 0))
        held.append(weakref.ref(connections["default"]))  # the connection this thread moved on

    thread = threading.Thread(target=move_in_a_thread)
    thread.start()
    thread.join()
    gc.collect()
    assert held and held[0]() is None


@rolled_back
def test_the_compiled_reads_find_what_the_orm_finds_and_nothing_for_an_unknown_room():
    code, _tickets, game = started_room(2)
    room = Room.objects.get(code=code)
    assert services._room_for_update(code.lower()) == room
    current = services._current_game(room)
    assert current == game and current.state == Game.objects.get(pk=game.pk).state
    assert current.room is room
    refused("no_such_room", services._room_for_update, room_code="ZZZZZZ")


def test_the_compiled_writes_store_what_save_stores_to_the_end_of_a_game():
    code, _tickets, game = started_room(2)
    while game.status == Game.Status.PLAYING:
        seat = min(engine.to_act(game.state))
        before, action = timezone.now(), candle_for(game, seat)
        game = services.submit_move(room_code=code, seat=seat, seq=game.seq, action=action)
        stored = Game.objects.get(pk=game.pk)
        for name in services._FIELDS_A_MOVE_CHANGES:
            assert getattr(stored, name) == getattr(game, name), name
        move = Move.objects.get(game=game, seq=game.seq)
        assert (move.seat, move.by, move.action) == (seat, Move.By.PLAYER, action)
        assert before <= move.created_at <= timezone.now()
    assert stored.status == Game.Status.FINISHED and stored.result and stored.ended_at is not None
    assert stored.deadline_at is None and list(stored.moves.values_list("seq", flat=True)) == list(
        range(1, stored.seq + 1))


def test_the_index_holds_only_the_countdown_in_force_to_the_end_of_a_game():
    code, _tickets, game = started_room(2)
    while game.status == Game.Status.PLAYING:
        countdowns = {member for member in timers() if member.startswith(f"turn:{game.pk}:")}
        assert countdowns == {f"turn:{game.pk}:{game.deadline_seq}"}
        seat = min(engine.to_act(game.state))
        game = services.submit_move(room_code=code, seat=seat, seq=game.seq, action=candle_for(game, seat))
    assert not [member for member in timers() if member.startswith(f"turn:{game.pk}:")]


def test_a_move_answering_an_old_position_is_refused_and_changes_nothing():
    code, _tickets, game = started_room(2)
    play_pending(code)  # round 1 is over: both seats decide again, posed at seq 2
    game.refresh_from_db()
    assert (game.seq, game.prompts) == (2, {"0": 2, "1": 2})
    before = what_moves_change(code)

    for seq in (0, 1):
        refused("stale_seq", services.submit_move, room_code=code, seat=0, seq=seq, action=candle_for(game, 0))
        assert what_moves_change(code) == before


@rolled_back
@pytest.mark.parametrize("ahead", [1, 2, 1000])
def test_a_move_from_the_future_is_refused_and_changes_nothing(ahead):
    code, _tickets, game = started_room(2)
    before = what_moves_change(code)
    refused("future_seq", services.submit_move, room_code=code, seat=0, seq=game.seq + ahead,
            action=candle_for(game, 0))
    assert what_moves_change(code) == before


@rolled_back
@pytest.mark.parametrize("seq", ["0", None, -1, 0.0, True, [0]])
def test_a_move_must_name_its_seq_as_a_whole_number(seq):
    code, _tickets, game = started_room(2)
    before = what_moves_change(code)
    refused("bad_seq", services.submit_move, room_code=code, seat=0, seq=seq, action=candle_for(game, 0))
    assert what_moves_change(code) == before


@rolled_back
@pytest.mark.parametrize("seat", [2, 7, -1])
def test_a_seat_that_is_not_at_the_table_cannot_move(seat):
    code, _tickets, game = started_room(2)
    before = what_moves_change(code)
    refused("not_your_turn", services.submit_move, room_code=code, seat=seat, seq=0, action=candle_for(game, 0))
    assert what_moves_change(code) == before


def test_a_seat_that_already_decided_is_not_to_act():
    code, _tickets, game = started_room(3)
    services.submit_move(room_code=code, seat=0, seq=0, action=candle_for(game, 0))
    game.refresh_from_db()
    before = what_moves_change(code)
    refused("not_your_turn", services.submit_move, room_code=code, seat=0, seq=1, action=candle_for(game, 0))
    assert what_moves_change(code) == before


def test_nobody_moves_before_the_game_starts():
    code, _tickets = room_with(2)
    before = what_moves_change(code)
    refused("not_playing", services.submit_move, room_code=code, seat=0, seq=0, action={"type": "play", "candle": 1})
    assert what_moves_change(code) == before


ILLEGAL_ACTIONS = {
    "another seat's candle": (lambda g: {"type": "play", "candle": g.state["hands"][1][0]}, "illegal:not_in_hand"),
    "a shelf candle": (lambda g: {"type": "play", "candle": g.state["shelves"][0][0]}, "illegal:not_in_hand"),
    "no such candle": (lambda g: {"type": "play", "candle": 105}, "illegal:not_in_hand"),
    "candle as text": (lambda g: {"type": "play", "candle": str(g.state["hands"][0][0])}, "illegal:bad_action"),
    "candle as float": (lambda g: {"type": "play", "candle": float(g.state["hands"][0][0])}, "illegal:bad_action"),
    "candle as bool": (lambda g: {"type": "play", "candle": True}, "illegal:bad_action"),
    "no candle": (lambda g: {"type": "play"}, "illegal:bad_action"),
    "wrong type": (lambda g: {"type": "pass", "candle": g.state["hands"][0][0]}, "illegal:bad_action"),
    "extra key": (lambda g: {**candle_for(g, 0), "shelf": 2}, "illegal:bad_action"),
    "not an object": (lambda g: "play", "illegal:bad_action"),
    "a list": (lambda g: [g.state["hands"][0][0]], "illegal:bad_action"),
    "nothing": (lambda g: None, "illegal:bad_action"),
}


@rolled_back
@pytest.mark.parametrize("case", sorted(ILLEGAL_ACTIONS))
def test_an_illegal_action_is_refused_and_changes_nothing(case):
    make_action, code_expected = ILLEGAL_ACTIONS[case]
    code, _tickets, game = started_room(2)
    before = what_moves_change(code)
    refused(code_expected, services.submit_move, room_code=code, seat=0, seq=0, action=make_action(game))
    assert what_moves_change(code) == before


def test_the_same_move_sent_twice_counts_once():
    code, _tickets, game = started_room(3)
    action = candle_for(game, 0)
    services.submit_move(room_code=code, seat=0, seq=0, action=action)
    before = what_moves_change(code)

    # The first answered seq 0, which the game has left since: the second answers an old position.
    refused("stale_seq", services.submit_move, room_code=code, seat=0, seq=0, action=action)
    assert what_moves_change(code) == before
    assert Move.objects.filter(game=game).count() == 1


def test_the_same_round_ending_move_sent_twice_counts_once():
    code, _tickets, game = started_room(2)
    services.submit_move(room_code=code, seat=0, seq=0, action=candle_for(game, 0))
    action = candle_for(game, 1)
    services.submit_move(room_code=code, seat=1, seq=1, action=action)  # ends round 1: seat 1 decides again
    before = what_moves_change(code)

    refused("stale_seq", services.submit_move, room_code=code, seat=1, seq=1, action=action)
    assert what_moves_change(code) == before
    assert Move.objects.filter(game=game).count() == 2


def test_candles_seats_pick_at_the_same_time():
    code, _tickets, game = started_room(3)
    # Seats 0 and 1 both answer the decision posed at seq 0, whatever happened since.
    services.submit_move(room_code=code, seat=0, seq=0, action=candle_for(game, 0))
    services.submit_move(room_code=code, seat=1, seq=0, action=candle_for(game, 1))
    game.refresh_from_db()
    assert game.seq == 2 and game.prompts == {"2": 0}
    services.submit_move(room_code=code, seat=2, seq=1, action=candle_for(game, 2))
    game.refresh_from_db()
    assert game.seq == 3 and game.state["round"] == 2 and game.prompts == {"0": 3, "1": 3, "2": 3}
    assert list(Move.objects.filter(game=game).values_list("seq", "seat")) == [(1, 0), (2, 1), (3, 2)]


def test_a_whole_game_through_the_services_then_play_again():
    code, _tickets, game = started_room(2, 3)  # seat 2 is a bot
    for _step in range(100):
        game.refresh_from_db()
        if game.is_over:
            break
        for seat in engine.to_act(game.state):
            game.refresh_from_db()
            if seat == 2:
                assert services.play_bot_turn(game_id=game.pk, seat=2, prompt=game.prompts["2"], choose=lowest_candle)
            else:
                services.submit_move(room_code=code, seat=seat, seq=game.seq, action=candle_for(game, seat))

    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.ended_at is not None
    assert game.seq == 18 and game.moves.count() == 18
    assert set(game.moves.filter(seat=2).values_list("by", flat=True)) == {Move.By.BOT}
    assert set(game.moves.exclude(seat=2).values_list("by", flat=True)) == {Move.By.PLAYER}
    assert game.result == engine.outcome(game.state)
    assert sorted(r["seat"] for r in game.result) == [0, 1, 2]
    scores = [r["score"] for r in game.result]
    assert scores == sorted(scores) and game.result[0]["place"] == 1
    assert state_at(game, game.seq) == game.state  # the move log replays to the live state
    assert (game.deadline_at, game.prompts) == (None, {})
    following = latest_game(code)
    assert (following.number, following.status) == (2, Game.Status.LOBBY)
    assert following.seed != game.seed and following.fingerprint == sha256_of_seed(following.seed)
    room = snapshots.public_room(Room.objects.get(code=code))
    assert room["next_game"] == {"number": 2, "fingerprint": following.fingerprint}
    assert snapshots.shown_game(Room.objects.get(code=code)) == game  # the result stays on the table

    before = what_moves_change(code)
    refused("not_host", services.play_again, room_code=code, seat=1)
    assert what_moves_change(code) == before
    services.play_again(room_code=code, seat=0)
    second = game_in_play(code)
    assert (second.pk, second.number, second.status, second.seq) == (following.pk, 2, Game.Status.PLAYING, 0)
    assert second.state["hands"] != game.state["hands"] or second.state["shelves"] != game.state["shelves"]
    assert second.fingerprint == following.fingerprint
    game_before = Game.objects.get(pk=game.pk)
    assert (game_before.status, game_before.seed) == (Game.Status.FINISHED, game.seed)


def test_a_bot_turn_is_only_played_for_a_bot_at_its_prompt():
    code, _tickets, game = started_room(1, 2)  # seat 0 human, seat 1 bot
    before = what_moves_change(code)
    assert not services.play_bot_turn(game_id=game.pk, seat=0, prompt=0, choose=lowest_candle)  # a person
    assert not services.play_bot_turn(game_id=game.pk, seat=1, prompt=5, choose=lowest_candle)  # no such prompt
    assert not services.play_bot_turn(game_id=game.pk + 1000, seat=1, prompt=0, choose=lowest_candle)
    assert what_moves_change(code) == before

    assert services.play_bot_turn(game_id=game.pk, seat=1, prompt=0, choose=lowest_candle)
    assert not services.play_bot_turn(game_id=game.pk, seat=1, prompt=0, choose=lowest_candle)  # once only
    assert list(game.moves.values_list("seat", "by")) == [(1, Move.By.BOT)]


def test_a_bot_sees_only_its_own_view():
    code, _tickets, game = started_room(1, 3)
    seen = []

    def spy(game_name, view, level):
        seen.append((game_name, view, level))
        return lowest_candle(game_name, view, level)

    assert services.play_bot_turn(game_id=game.pk, seat=2, prompt=0, choose=spy)
    assert seen == [("candles", engine.view(game.state, 2), "strong")]


# --- the countdown ----------------------------------------------------------------------------------

def test_a_round_after_a_reveal_counts_down_from_the_end_of_the_reveal():
    """The first round has its 30 s from the start; a later one has its 30 s after the table has told the
    reveal, whose time the candles spec works out from the round's events."""
    code, _tickets, game = started_room(4)
    assert (game.deadline_at - game.started_at).total_seconds() == pytest.approx(30, abs=2)
    for seat in range(4):
        asked = timezone.now()
        services.submit_move(room_code=code, seat=seat, seq=seat, action=candle_for(game, seat))
    game.refresh_from_db()
    countdown = countdown_after_the_last_reveal(game)
    assert 30 + 3.4 <= countdown < 30 + 8
    assert game.state["round"] == 2 and game.deadline_seq == 4
    waited = (game.deadline_at - asked).total_seconds()
    assert countdown <= waited <= countdown + 1
    assert timers()[f"turn:{game.pk}:4"] == pytest.approx(game.deadline_at.timestamp())


def test_the_table_decides_for_every_pending_seat_when_the_countdown_runs_out():
    code, _tickets, game = started_room(3)
    services.submit_move(room_code=code, seat=0, seq=0, action=candle_for(game, 0))
    bring_deadline_forward(game)
    expected = {seat: engine.table_choice(game.state, seat) for seat in (1, 2)}

    assert services.fire_countdown(game_id=game.pk, seq=0) == 2

    game.refresh_from_db()
    table = list(game.moves.filter(by=Move.By.TABLE).values_list("seat", "action"))
    assert table == [(1, expected[1]), (2, expected[2])]
    assert (game.seq, game.state["round"], game.deadline_seq) == (3, 2, 3)
    assert timers()[f"turn:{game.pk}:3"] == pytest.approx(game.deadline_at.timestamp())
    live.cancel(f"turn:{game.pk}:0")  # as the worker's claim does
    before = what_moves_change(code)
    assert services.fire_countdown(game_id=game.pk, seq=0) == 0  # that countdown is over: dropped
    assert what_moves_change(code) == before
    assert f"turn:{game.pk}:0" not in timers()


def test_a_countdown_fired_before_its_deadline_waits_for_it():
    code, _tickets, game = started_room(2)
    live.cancel(f"turn:{game.pk}:0")
    before = what_moves_change(code)

    assert services.fire_countdown(game_id=game.pk, seq=0) == 0
    assert what_moves_change(code) == before
    assert timers()[f"turn:{game.pk}:0"] == pytest.approx(game.deadline_at.timestamp())  # put back


def test_every_update_names_the_seq_its_events_happened_at():
    code, _tickets, game = started_room(3)
    bring_deadline_forward(game)
    with captured_broadcasts() as sent:
        assert services.fire_countdown(game_id=game.pk, seq=0) == 3  # three moves in one transaction

    game.refresh_from_db()
    updates = game_updates(sent)
    assert [m["seq"] for m in updates] == [1, 2, 3]
    assert [received_by(m, 0)[1][0] for m in updates] == [{"type": "picked", "seat": s} for s in (0, 1, 2)]
    for message in updates:
        assert message["game"]["seq"] == message["seq"]
        for seat in (0, 1, 2, None):
            assert received_by(message, seat)[0] == engine.view(state_at(game, message["seq"]), seat)


# --- pause and resume -------------------------------------------------------------------------------

def test_pause_freezes_the_countdown_and_resume_gives_the_time_back():
    code, _tickets, game = started_room(1, 2)
    member = f"turn:{game.pk}:0"
    bring_deadline_forward(game, at=timezone.now() + timedelta(seconds=10))
    with captured_broadcasts() as sent:
        services.pause_game(game_id=game.pk)

    game.refresh_from_db()
    assert game.deadline_at is None and member not in timers()
    assert 0 < game.paused_remaining <= 10
    left = game.paused_remaining
    paused = game_updates(sent)
    assert paused and all(m["seq"] == 0 and received_by(m, 0)[1] == [{"type": "paused", "seat": None}] for m in paused)
    assert all(m["game"]["deadline"] is None and m["game"]["paused_remaining"] == left for m in paused)

    live.cancel(f"bot:{game.pk}:1:0")  # as if a worker had claimed the bot's turn while paused
    before = what_moves_change(code)
    refused("paused", services.submit_move, room_code=code, seat=0, seq=0, action=candle_for(game, 0))
    assert services.fire_countdown(game_id=game.pk, seq=0) == 0
    assert not services.play_bot_turn(game_id=game.pk, seat=1, prompt=0, choose=lowest_candle)
    refused("cannot_pause", services.pause_game, game_id=game.pk)
    assert what_moves_change(code) == before

    asked = timezone.now()
    with captured_broadcasts() as sent:
        services.resume_game(game_id=game.pk)
    answered = timezone.now()

    game.refresh_from_db()
    assert game.paused_remaining is None
    assert asked + timedelta(seconds=left) <= game.deadline_at <= answered + timedelta(seconds=left)
    assert timers()[member] == pytest.approx(game.deadline_at.timestamp())
    assert f"bot:{game.pk}:1:0" in timers()  # the bot is asked again
    resumed = game_updates(sent)
    assert resumed and all(
        m["seq"] == 0 and received_by(m, 1)[1] == [{"type": "resumed", "seat": None}] for m in resumed)
    refused("not_paused", services.resume_game, game_id=game.pk)
    services.submit_move(room_code=code, seat=0, seq=0, action=candle_for(game, 0))
    assert game.moves.count() == 1


def test_only_a_game_in_play_can_be_paused():
    code, _tickets = room_with(2)
    refused("cannot_pause", services.pause_game, game_id=latest_game(code).pk)
    refused("not_paused", services.resume_game, game_id=latest_game(code).pk)


# --- ending early -----------------------------------------------------------------------------------

def test_end_game_reveals_the_seed_and_opens_the_next_game(client):
    code, _tickets, game = started_room(2)
    services.submit_move(room_code=code, seat=0, seq=0, action=candle_for(game, 0))
    with captured_broadcasts() as sent:
        services.end_game(game_id=game.pk, reason="admin")

    game.refresh_from_db()
    assert (game.status, game.end_reason, game.deadline_at) == (Game.Status.ENDED, "admin", None)
    assert snapshots.public_game(game)["seed"] == game.seed
    record = client.get(f"/games/{code}/1/record.json").json()
    assert (record["status"], record["seed"], record["end_reason"]) == ("ended", game.seed, "admin")
    assert [m["seat"] for m in record["moves"]] == [0]
    updates = game_updates(sent)
    assert updates and all(received_by(m, None)[1] == [{"type": "ended", "reason": "admin"}] for m in updates)
    assert all(m["game"]["seed"] == game.seed for m in updates)
    following = latest_game(code)
    assert (following.number, following.status) == (2, Game.Status.LOBBY)
    rooms = room_updates(sent)
    assert rooms and rooms[-1]["next_game"]["number"] == 2

    before = what_moves_change(code)
    services.end_game(game_id=game.pk, reason="again")  # already over: nothing happens
    assert services.fire_countdown(game_id=game.pk, seq=0) == 0
    refused("not_playing", services.submit_move, room_code=code, seat=1, seq=1, action=candle_for(game, 1))
    assert what_moves_change(code) == before


def test_ending_a_game_still_in_the_lobby_leaves_the_room_able_to_play():
    code, _tickets = room_with(2)
    lobby = latest_game(code)
    services.end_game(game_id=lobby.pk, reason="admin")  # an admin's "end the selected games" on it

    lobby.refresh_from_db()
    assert lobby.status == Game.Status.ENDED and snapshots.public_game(lobby)["seed"] == lobby.seed
    following = latest_game(code)
    assert (following.number, following.status) == (2, Game.Status.LOBBY)
    assert following.fingerprint == sha256_of_seed(following.seed)
    services.start_game(room_code=code, seat=0)
    assert game_in_play(code).number == 2


# --- privacy ----------------------------------------------------------------------------------------

def candles_shown(view: dict, events: list[dict]) -> set[int]:
    """Every candle a message names, outside the wax and place numbers."""
    shown = set(view.get("hand", []))
    if view.get("my_pick") is not None:
        shown.add(view["my_pick"])
    for pile in [*view["shelves"], *view["collected"]]:
        shown.update(pile)
    for placed in view["last_round"]:
        shown.add(placed["candle"])
        shown.update(placed["taken"])
    for event in events:
        shown.update(c for c in event.get("picks", []) if c is not None)
        if "candle" in event:
            shown.add(event["candle"])
        shown.update(event.get("taken", []))
    return shown


def test_every_view_a_seat_receives_shows_its_own_hand_and_nothing_secret():
    with captured_broadcasts() as sent:
        code, _tickets, game = started_room(2, 3)
        for _step in range(100):
            game.refresh_from_db()
            if game.is_over:
                break
            for seat in engine.to_act(game.state):
                game.refresh_from_db()
                if seat == 2:
                    services.play_bot_turn(game_id=game.pk, seat=2, prompt=game.prompts["2"], choose=lowest_candle)
                else:
                    services.submit_move(room_code=code, seat=seat, seq=game.seq, action=candle_for(game, seat))
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED

    updates = game_updates(sent)
    assert len(updates) == 1 + game.seq  # the start, then one per move
    for message in updates:
        state = state_at(game, message["seq"])
        for seat in (0, 1, 2, None):
            view, events = received_by(message, seat)
            assert view == engine.view(state, seat)
            if seat is None:
                assert set(view) == VIEW_KEYS
                secret = {c for hand in state["hands"] for c in hand} | set(state["deck"])
                secret |= {p for p in state["picks"] if p is not None}
            else:
                assert set(view) == SEAT_VIEW_KEYS and view["seat"] == seat
                assert view["hand"] == state["hands"][seat] and view["my_pick"] == state["picks"][seat]
                secret = {c for s, hand in enumerate(state["hands"]) if s != seat for c in hand} | set(state["deck"])
                secret |= {p for s, p in enumerate(state["picks"]) if s != seat and p is not None}
            assert not candles_shown(view, events) & secret, (seat, message["seq"])
            for event in events:
                if event["type"] == "picked":
                    assert set(event) == {"type", "seat"}
        if message["game"]["status"] == "playing":
            assert message["game"]["seed"] is None and game.seed not in json.dumps(message["game"])
    for room in room_updates(sent):
        assert game.seed not in json.dumps(room)


def _game_position(code: str) -> dict:
    return {k: v for k, v in snapshots.position(code).items() if k != "room_digest"}


def test_the_position_a_pong_reports_follows_the_shown_game():
    ticket = new_room(2)
    assert _game_position(ticket.room_code) == {"number": 1, "seq": 0, "status": "lobby", "paused": False}
    code, _tickets, game = started_room(2)
    play_pending(code, seats=[0])
    assert _game_position(code) == {"number": 1, "seq": 1, "status": "playing", "paused": False}
    services.pause_game(game_id=game.pk)
    assert snapshots.position(code)["paused"] is True
    services.resume_game(game_id=game.pk)
    finished = play_to_end(code)
    # Game 2 waits in the lobby, but the table still shows game 1, over.
    assert latest_game(code).status == Game.Status.LOBBY
    assert _game_position(code) == {"number": 1, "seq": finished.seq, "status": "finished", "paused": False}
    assert snapshots.position("NOSUCH") is None


def test_the_position_fingerprints_the_room_as_its_messages_do():
    ticket = new_room(3)
    with captured_broadcasts() as sent:
        services.join_room(room_code=ticket.room_code, name="Bea")
    [message] = [message for _group, message in sent if message["type"] == "room.update"]
    digest = snapshots.position(ticket.room_code)["room_digest"]
    assert digest == message["room_digest"] == snapshots.room_digest(message["room"])
    services.join_room(room_code=ticket.room_code, name="Cy")
    assert snapshots.position(ticket.room_code)["room_digest"] != digest  # a message was due, and it shows
