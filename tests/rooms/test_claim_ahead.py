"""The worker's claim of a socket's move (rooms/move_queue.py, `ClaimAhead`) is sent once the move has passed
its checks and read at the last look before its commit. Whatever happens between the two, a request is
either played or its socket told, never both: the tests walk each way it can go, on a remembered game and
the locked way."""

from __future__ import annotations

import time
from unittest import mock

import pytest
from redis.connection import AbstractConnection
from redis.exceptions import ConnectionError as RedisConnectionError

from rooms import broadcast, live, move_queue
from rooms.models import Move
from tests.rooms.helpers import candle_for, game_in_play, started_room

pytestmark = pytest.mark.django_db(transaction=True)


def payload_for(code: str, seat: int, mover: str, *, seconds: float = 5.0, seq: int | None = None) -> dict:
    game = game_in_play(code)
    now = time.time()
    return {"kind": "move", "room": code, "seat": seat, "seq": game.seq if seq is None else seq,
            "action": candle_for(game, seat), "mover": mover, "reply_to": "specific.test!none", "language": "en",
            "ref": None, "sent_at": now, "deadline": now + seconds}


def answer_of(mover: str) -> str | None:
    return live.client().get(move_queue._answer_key(mover))


def moves_of(code: str) -> int:
    return Move.objects.filter(game__room_code=code).count()


@pytest.fixture
def refusals(monkeypatch):
    sent: list[dict] = []
    monkeypatch.setattr(broadcast, "send_to_socket", lambda channel, message: sent.append(message))
    return sent


@pytest.fixture(params=["remembered", "locked"])
def memory(request):
    """The worker's memory of games: a move on a remembered game, or the locked way (nothing remembered)."""
    return request.param


def play_one(code: str, memory: str, *args, **kwargs) -> None:
    """Plays the move of `payload_for(code, *args, **kwargs)` as the worker does."""
    games: dict = {}
    if memory == "remembered":  # a first move makes the thread remember the game
        move_queue.play(payload_for(code, 1, "first"), games_in_play=games)
        assert code in games
    move_queue.play(payload_for(code, *args, **kwargs), games_in_play=games)


def building_m1_first(effect):
    """Move m#1's update is built only after `effect()`: between its claim sent ahead and its last look."""
    build = broadcast.prepare_game_update

    def build_after(game, events, *, mover=None):
        if mover == "m#1":
            effect()
        return build(game, events, mover=mover)

    return mock.patch.object(broadcast, "prepare_game_update", build_after)


def test_a_move_is_claimed_ahead_and_played(refusals, memory):
    code, _tickets, _game = started_room(3)
    sent = []
    send = move_queue.ClaimAhead.send
    with mock.patch.object(move_queue.ClaimAhead, "send", lambda self: (sent.append(self), send(self))):
        play_one(code, memory, 0, "m#1")
    assert any(claim.payload["mover"] == "m#1" for claim in sent)
    assert all(claim.connection is None for claim in sent)  # every reply read: the connections are reusable
    assert answer_of("m#1") == "played" and not refusals
    assert moves_of(code) == (2 if memory == "remembered" else 1)


def test_a_move_its_socket_told_first_is_dropped_unwritten_and_unrefused(refusals, memory):
    code, _tickets, _game = started_room(3)
    before = moves_of(code)
    live.client().set(move_queue._answer_key("m#1"), "told")
    play_one(code, memory, 0, "m#1")
    assert answer_of("m#1") == "told"
    assert moves_of(code) == before + (1 if memory == "remembered" else 0)  # the first move alone
    assert not refusals


def test_a_refused_move_is_never_claimed(refusals, memory):
    code, _tickets, _game = started_room(3)
    play_one(code, memory, 0, "m#1", seq=99)  # a position the game has not reached
    assert [r["code"] for r in refusals] == ["future_seq"]
    assert answer_of("m#1") is None


def test_a_move_claimed_ahead_whose_deadline_passes_before_its_commit_is_refused_by_the_worker(refusals, memory):
    code, _tickets, _game = started_room(3)
    before = moves_of(code)
    with building_m1_first(lambda: time.sleep(0.7)):  # claimed ahead in time, looked at past the deadline
        play_one(code, memory, 0, "m#1", seconds=0.6)
    assert [(r["code"], r["mover"]) for r in refusals] == [("move_unanswered", "m#1")]
    # The key says this worker answered: the socket will not tell its player a second time.
    assert answer_of("m#1") == "played"
    assert moves_of(code) == before + (1 if memory == "remembered" else 0)


def test_a_claim_whose_reply_cannot_be_read_refuses_the_move_as_busy(refusals, memory):
    code, _tickets, _game = started_room(3)
    before = moves_of(code)
    played = move_queue.ClaimAhead.played

    def lost_reply(self):
        claimed = played(self)
        if self.payload["mover"] == "m#1":
            raise RedisConnectionError("connection lost")
        return claimed

    with mock.patch.object(move_queue.ClaimAhead, "played", lost_reply):
        play_one(code, memory, 0, "m#1")
    assert [r["code"] for r in refusals if r["mover"] == "m#1"] == ["busy"]
    assert moves_of(code) == before + (1 if memory == "remembered" else 0)


def test_a_claim_that_cannot_be_sent_ahead_is_made_at_the_last_look(refusals, memory):
    code, _tickets, _game = started_room(3)
    send_command, failed = AbstractConnection.send_command, []

    def fails_once(connection, *args, **kwargs):
        if not failed and move_queue._answer_key("m#1") in args:
            failed.append(args)
            raise RedisConnectionError("down")
        return send_command(connection, *args, **kwargs)

    with mock.patch.object(AbstractConnection, "send_command", fails_once):
        play_one(code, memory, 0, "m#1")
    assert failed and answer_of("m#1") == "played" and not refusals
    assert moves_of(code) == (2 if memory == "remembered" else 1)


def test_a_claim_that_finds_no_connection_ahead_is_made_at_the_last_look(refusals, memory):
    code, _tickets, _game = started_room(3)
    pool_class = type(live.client().connection_pool)
    get_connection, send, armed = pool_class.get_connection, move_queue.ClaimAhead.send, []

    def fails_when_armed(pool, *args, **kwargs):
        if armed and armed.pop():
            raise RedisConnectionError("reconnecting failed")
        return get_connection(pool, *args, **kwargs)

    def send_armed(claim):
        armed.append(claim.payload["mover"] == "m#1")
        send(claim)

    with mock.patch.object(pool_class, "get_connection", fails_when_armed), \
            mock.patch.object(move_queue.ClaimAhead, "send", send_armed):
        play_one(code, memory, 0, "m#1")
    assert answer_of("m#1") == "played" and not refusals
    assert moves_of(code) == (2 if memory == "remembered" else 1)


def test_a_move_that_fails_after_its_claim_went_ahead_is_refused_by_the_worker(refusals, memory):
    code, _tickets, _game = started_room(3)
    before = moves_of(code)
    def fault():
        raise RuntimeError("a fault while building the update")

    with building_m1_first(fault), pytest.raises(RuntimeError):
        play_one(code, memory, 0, "m#1")
    # The key says this worker holds the request, so its socket would stay silent: the worker tells the player.
    assert answer_of("m#1") == "played"
    assert [(r["code"], r["mover"]) for r in refusals] == [("busy", "m#1")]
    assert moves_of(code) == before + (1 if memory == "remembered" else 0)


def test_a_move_claimed_by_a_worker_killed_before_its_commit_is_not_played_by_the_next(refusals):
    code, _tickets, _game = started_room(3)
    payload = payload_for(code, 0, "m#1")
    claim = move_queue.ClaimAhead(dict(payload))
    claim.send()  # the move passed its checks, then its worker was killed before the commit
    assert claim.played()
    move_queue.play(payload, games_in_play={})  # the request, put back, is played by another worker
    assert moves_of(code) == 0 and not refusals
    assert answer_of("m#1") == "played"  # its socket waits, then shows the game as it stands (a snapshot)
