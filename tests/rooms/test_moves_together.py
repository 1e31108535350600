"""A room's moves queued one behind another are played together by the worker's thread (move_queue.play_together,
services.submit_queued_moves): one write of the game's row, every move inserted, one commit, then each move's
update in order, each the bytes it would be played alone. Whatever cuts them short (a claim that fails, a
refusal, another writer, a write that fails) leaves every request played once or told, as one by one."""

from __future__ import annotations

import collections
import json
import threading
import time
from unittest import mock

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from rooms import broadcast, live, move_queue, services
from rooms.models import Game, Move
from tests.rooms.helpers import (
    WAIT_SECONDS,
    captured_broadcasts,
    game_in_play,
    play_pending,
    received_by,
    started_room,
    wait_for,
)
from tests.rooms.test_claim_ahead import answer_of, payload_for
from tests.rooms.test_move_queue import hand_over_all

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def refusals(monkeypatch):
    sent: list[dict] = []
    monkeypatch.setattr(broadcast, "send_to_socket", lambda channel, message: sent.append(message))
    return sent

ROW_FIELDS = [*services._FIELDS_A_MOVE_CHANGES]


def round_of(code: str, batch: str = "m") -> list[dict]:
    """The four seats' picks of the round in play, as queued requests, seat 0 first."""
    return [payload_for(code, seat, f"{batch}#{seat}") for seat in range(4)]


def remembered(code: str) -> dict:
    """A thread's memory holding the game as it stands (as if this thread had written it last)."""
    return {code: Game.objects.select_related("room").get(pk=game_in_play(code).pk)}


def moves_of(game: Game) -> list[tuple[int, int]]:
    return list(Move.objects.filter(game=game).order_by("seq").values_list("seq", "seat"))


def updates_sent(sent) -> list[tuple]:
    return [(message["seq"], message["mover"], message["texts"]) for _group, message in sent
            if message["type"] == "game.update"]


def writes(queries) -> list[str]:
    return [query["sql"].split()[0] for query in queries.captured_queries]


def test_four_queued_moves_are_one_write_and_one_commit_each_update_the_bytes_played_alone():
    code, _tickets, game = started_room(4)
    row = Game.objects.filter(pk=game.pk).values(*ROW_FIELDS).get()
    frozen, now = time.time(), timezone.now()
    # The clocks and deadlines the updates show, alike in both.
    with mock.patch("time.time", lambda: frozen), mock.patch.object(services.timezone, "now", lambda: now):
        memory = remembered(code)
        with captured_broadcasts() as sent, CaptureQueriesContext(connection) as queries:
            answered = move_queue.play_together(round_of(code), games_in_play=memory)
        together = updates_sent(sent)
        assert answered == {0, 1, 2, 3}
        if connection.vendor == "postgresql":  # one statement, in its own transaction
            assert [sql for sql in writes(queries) if sql != "SELECT"] == ["WITH"], queries.captured_queries
        else:  # one transaction: the game's row once, then each move
            assert [sql for sql in writes(queries) if sql != "SELECT"] == [
                "BEGIN", "UPDATE", "INSERT", "INSERT", "INSERT", "INSERT", "COMMIT"], queries.captured_queries
        written = game_in_play(code)
        assert moves_of(written) == [(1, 0), (2, 1), (3, 2), (4, 3)]
        assert written.seq == 4 and written.version == game.version + 4
        assert memory[code].version == written.version and memory[code].state == written.state

        # The same round played one by one, from the same row.
        Move.objects.filter(game=game).delete()
        Game.objects.filter(pk=game.pk).update(**row)
        live.client().delete(*(move_queue._answer_key(f"m#{seat}") for seat in range(4)))
        memory = remembered(code)
        with captured_broadcasts() as sent:
            for payload in round_of(code):
                move_queue.play(payload, games_in_play=memory)
        alone = updates_sent(sent)
    assert [(seq, mover) for seq, mover, _texts in together] == [(1, "m#0"), (2, "m#1"), (3, "m#2"), (4, "m#3")]
    assert together == alone
    assert game_in_play(code).state == written.state


def test_a_claim_that_fails_cuts_the_moves_there_and_that_request_is_dropped(refusals):
    code, _tickets, game = started_room(4)
    payloads = round_of(code)
    live.client().set(move_queue._answer_key("m#2"), "told")  # its socket told its player first
    memory = remembered(code)
    answered = move_queue.play_together(payloads, games_in_play=memory)
    assert answered == {0, 1, 2}  # the last is the caller's to play
    assert moves_of(game) == [(1, 0), (2, 1)]
    assert memory[code].seq == 2 and memory[code].version == game_in_play(code).version
    assert refusals == [] and answer_of("m#2") == "told"
    move_queue.play(payloads[3], games_in_play=memory)
    assert moves_of(game) == [(1, 0), (2, 1), (3, 3)]


def test_a_claim_too_late_cuts_the_moves_there_and_its_socket_is_told(refusals):
    code, _tickets, game = started_room(4)
    payloads = round_of(code)
    payloads[1]["deadline"] = time.time() - 1
    answered = move_queue.play_together(payloads, games_in_play=remembered(code))
    assert answered == {0, 1}
    assert moves_of(game) == [(1, 0)]
    assert [(refusal["mover"], refusal["code"]) for refusal in refusals] == [("m#1", "move_unanswered")]


def test_an_illegal_move_ends_the_moves_before_it_and_is_refused_the_usual_way(refusals):
    code, _tickets, game = started_room(4)
    payloads = round_of(code)
    payloads[2]["action"] = {"type": "play", "candle": 999}  # not in its hand
    memory = remembered(code)
    assert move_queue.play_together(payloads, games_in_play=memory) == {0, 1}
    assert moves_of(game) == [(1, 0), (2, 1)]
    assert answer_of("m#2") is None  # never claimed: the usual way claims it, or refuses it
    move_queue.play(payloads[2], games_in_play=memory)
    assert [(refusal["mover"], refusal["code"]) for refusal in refusals] == [("m#2", "illegal:not_in_hand")]
    move_queue.play(payloads[3], games_in_play=memory)
    assert moves_of(game) == [(1, 0), (2, 1), (3, 3)]


def test_when_another_writer_came_first_nothing_is_written_and_each_goes_the_usual_way(refusals):
    code, _tickets, game = started_room(4)
    payloads = round_of(code)
    memory = remembered(code)
    services.pause_game(game_id=game.pk)  # another writer: the version moves on, the seq stays
    services.resume_game(game_id=game.pk)
    version = game_in_play(code).version
    with captured_broadcasts() as sent:
        assert move_queue.play_together(payloads, games_in_play=memory) == set()
    assert updates_sent(sent) == [] and moves_of(game) == []
    assert game_in_play(code).version == version and code not in memory
    assert [answer_of(f"m#{seat}") for seat in range(4)] == ["played"] * 4  # claimed: played below, once
    for payload in payloads:
        move_queue.play(payload, games_in_play=memory)
    assert moves_of(game) == [(1, 0), (2, 1), (3, 2), (4, 3)] and refusals == []


def test_a_write_that_fails_writes_nothing_and_every_claimed_request_is_refused_as_busy(refusals, caplog):
    code, _tickets, game = started_room(4)
    payloads = round_of(code)
    version = game_in_play(code).version
    Move.objects.create(game=game, seq=3, seat=0, action={}, by=Move.By.PLAYER)  # the third insert fails
    answered = move_queue.play_together(payloads, games_in_play=remembered(code))
    assert answered == {0, 1, 2, 3}
    assert game_in_play(code).version == version and moves_of(game) == [(3, 0)]  # nothing half-written
    assert [(refusal["mover"], refusal["code"]) for refusal in refusals] == [
        (f"m#{seat}", "busy") for seat in range(4)]
    assert "failed together" in caplog.text


def waiting_in_room(player: move_queue.MovePlayer, room: str) -> int:
    with player.rooms_lock:
        return len(player.rooms_in_play.get(room, ()))


@pytest.mark.parametrize("threads", [2, 0], ids=["move threads", "the intake plays"])
def test_a_worker_plays_a_rooms_queued_moves_together_and_clears_them_from_its_list(monkeypatch, threads):
    """The first move waits (the locked way: nothing remembered) while the other three queue behind it (in the
    room's list, or in Redis while the intake itself plays the first); they are then played together, and
    every update published in order."""
    code, _tickets, game = started_room(4)
    submit, held, release = services.submit_move, [], threading.Event()

    def holding_the_first(**kwargs):
        if not held:
            held.append(kwargs["mover"])
            assert release.wait(WAIT_SECONDS)
        return submit(**kwargs)

    monkeypatch.setattr(services, "submit_move", holding_the_first)
    player = move_queue.MovePlayer(threads=threads).start()
    try:
        with captured_broadcasts() as sent:
            round_ = [(seat, 0, payload["action"]) for seat, payload in enumerate(round_of(code))]
            hand_over_all(code, round_[:1], batch="first")
            wait_for(lambda: held, what="the first move in play")
            hand_over_all(code, round_[1:], batch="rest")
            wait_for(lambda: (waiting_in_room(player, code) if threads else live.client().llen(live.key(
                move_queue.QUEUE))) == 3, what="the other three waiting behind it")
            release.set()
            wait_for(lambda: len(moves_of(game)) == 4, what="the round played")
            wait_for(lambda: live.client().llen(player.taken_key) == 0, what="the worker's list cleared")
    finally:
        release.set()
        player.stop()
    assert player.played_together == collections.Counter({3: 1}) and player.moves_written_together == 3
    assert [(seq, mover) for seq, mover, _texts in updates_sent(sent)] == [
        (1, "first#0"), (2, "rest#0"), (3, "rest#1"), (4, "rest#2")]


def test_a_start_or_play_again_is_never_taken_with_the_moves_before_it():
    player = move_queue.MovePlayer(threads=2)
    try:
        move, start = {"kind": "move"}, {"kind": "start"}
        player.rooms_in_play["AAAAAA"] = collections.deque([
            ("m1", move, False), ("s", start, True), ("m2", move, False)])
        assert player._moves_behind("AAAAAA", move) == [("m1", move)]
        assert [raw for raw, _payload, _slot in player.rooms_in_play["AAAAAA"]] == ["s", "m2"]
        assert player._moves_behind("AAAAAA", start) == []  # a start is played alone
        player.rooms_in_play["AAAAAA"] = collections.deque([(f"m{n}", move, False) for n in range(20)])
        assert len(player._moves_behind("AAAAAA", move)) == move_queue.BATCH_MOST - 1
    finally:
        player.pool.shutdown()


def test_each_seat_sees_only_its_own_hand_in_the_updates_of_moves_played_together():
    code, _tickets, _game = started_room(4)
    with captured_broadcasts() as sent:
        move_queue.play_together(round_of(code), games_in_play=remembered(code))
    game = game_in_play(code)
    last = [message for _group, message in sent if message["type"] == "game.update"][-1]
    for seat in range(4):
        view, _events = received_by(last, seat)
        assert view["hand"] == game.state["hands"][seat]
        assert "hands" not in view


def test_a_refusal_whose_publish_fails_is_logged_and_the_moves_written_are_still_answered(monkeypatch, caplog):
    """Redis down mid-batch: the third move's claim turns busy, and its refusal's publish fails too."""
    code, _tickets, game = started_room(4)
    payloads = round_of(code)
    claim = move_queue.claim_played

    def failing_for_the_third(payload, ahead):
        if payload["mover"] == "m#2":
            raise move_queue._busy()
        return claim(payload, ahead)

    def redis_down(channel, message):
        raise live.redis.ConnectionError("down")

    monkeypatch.setattr(move_queue, "claim_played", failing_for_the_third)
    monkeypatch.setattr(broadcast, "send_to_socket", redis_down)
    assert move_queue.play_together(payloads, games_in_play=remembered(code)) == {0, 1, 2}
    assert moves_of(game) == [(1, 0), (2, 1)]
    assert "could not be told" in caplog.text


def requests_in_hand(player: move_queue.MovePlayer, payloads: list[dict]) -> list[tuple[str, dict]]:
    """The requests as the intake hands them to a thread: each in hand, each holding a slot."""
    requests = [(json.dumps(payload), payload) for payload in payloads]
    for raw, _payload in requests:
        assert player.free.acquire(blocking=False)
        player.in_hand[raw] += 1
    return requests


def test_a_round_that_fails_unexpectedly_still_gives_back_every_slot_and_leaves_nothing_in_hand(monkeypatch):
    code, _tickets, _game = started_room(4)
    player = move_queue.MovePlayer(threads=2)
    try:
        requests = requests_in_hand(player, round_of(code))
        monkeypatch.setattr(move_queue, "play_together", mock.Mock(side_effect=live.redis.ConnectionError("down")))
        player._play_together(requests)
        assert player.free._value == 4 and not player.in_hand  # one release a request, none twice
    finally:
        player.pool.shutdown()


def test_busy_refusals_of_a_failed_write_are_in_each_players_language(refusals):
    code, _tickets, game = started_room(4)
    payloads = round_of(code)
    for payload in payloads:
        payload["language"] = "pt-br"
    Move.objects.create(game=game, seq=3, seat=0, action={}, by=Move.By.PLAYER)  # the third insert fails
    assert move_queue.play_together(payloads, games_in_play=remembered(code)) == {0, 1, 2, 3}
    assert [refusal["message"] for refusal in refusals] == [
        "O servidor não consegue receber jogadas agora; tente de novo."] * 4


def test_a_game_is_remembered_still_when_nothing_was_written(refusals):
    code, _tickets, _game = started_room(4)
    payloads = round_of(code)
    payloads[0]["action"] = {"type": "play", "candle": 999}  # refused: the locked way words it
    memory = remembered(code)
    game = memory[code]
    assert move_queue.play_together(payloads, games_in_play=memory) == set()
    assert memory[code] is game
    live.client().set(move_queue._answer_key("m#1"), "told")  # its claim fails: nothing written
    assert move_queue.play_together(payloads[1:], games_in_play=memory) == {0}
    assert memory[code] is game


def test_a_failed_read_of_a_round_trip_keeps_the_rider_of_the_next(monkeypatch):
    """Move 1 is written (its rider set) while move 0's round trip is unread; reading it fails at move 1's
    flush: both riders go on move 1's round trip, neither is left behind nor lost."""
    redis_client = live.client()
    redis_client.delete("test:rider0", "test:rider1")
    with live.replies_later():
        live.ride_along(lambda pipe: pipe.set("test:rider0", 1))
        with live.joined():
            live.joinable(lambda pipe: pipe.get("test:nothing"))
        pool, connection, count, timers, rider = live._joined.pending
        for _reply in range(count):  # read here; the read at the next flush fails
            connection.read_response()
        pool.release(connection)
        failing = mock.Mock(read_response=mock.Mock(side_effect=live.redis.ConnectionError("lost")))
        live._joined.pending = (mock.Mock(), failing, count, timers, rider)
        redis_client.delete("test:rider0")  # as if that round trip never ran
        live.ride_along(lambda pipe: pipe.set("test:rider1", 1))
        with live.joined():
            live.joinable(lambda pipe: pipe.get("test:nothing"))
        live.settle()
    assert live.rider_left() is None
    assert redis_client.get("test:rider0") == "1" and redis_client.get("test:rider1") == "1"
    redis_client.delete("test:rider0", "test:rider1")


def test_the_games_last_move_in_a_batch_goes_the_locked_way_after_the_moves_before_it_written_together():
    code, _tickets, game = started_room(4)
    while len(game_in_play(code).state["hands"][0]) > 1:  # to the last round: its last pick ends the game
        play_pending(code)
    seq = game_in_play(code).seq
    payloads = round_of(code)
    memory = remembered(code)
    with captured_broadcasts() as sent:
        assert move_queue.play_together(payloads, games_in_play=memory) == {0, 1, 2}
        assert memory[code].seq == seq + 3 == game_in_play(code).seq  # the three before it, one write
        move_queue.play(payloads[3], games_in_play=memory)
    assert moves_of(game)[-4:] == [(seq + 1, 0), (seq + 2, 1), (seq + 3, 2), (seq + 4, 3)]
    assert game_in_play(code).status == Game.Status.FINISHED
    assert [(message["type"], message.get("seq")) for _group, message in sent] == [
        ("game.update", seq + 1), ("game.update", seq + 2), ("game.update", seq + 3), ("game.update", seq + 4),
        ("room.update", None)]  # the next game's, after the last move's


def test_a_round_cut_short_gives_back_each_slot_once_and_clears_each_request_from_the_list(refusals):
    code, _tickets, game = started_room(4)
    player = move_queue.MovePlayer(threads=2)
    try:
        player.games_in_play.update(remembered(code))
        requests = requests_in_hand(player, round_of(code))
        live.client().rpush(player.taken_key, *(raw for raw, _payload in requests))
        live.client().set(move_queue._answer_key("m#2"), "told")  # dropped: the last goes on alone
        player._play_together(requests)
        assert moves_of(game) == [(1, 0), (2, 1), (3, 3)]
        assert player.free._value == 4 and not player.in_hand and not player.played_on_list
        assert live.client().llen(player.taken_key) == 0
    finally:
        live.client().delete(player.taken_key)
        player.pool.shutdown()


def test_sqlites_look_again_under_the_writer_lock_cuts_the_moves_there_and_the_game_is_written_as_they_left_it(
        monkeypatch, refusals):
    if connection.vendor != "sqlite":
        pytest.skip("the look again under the writer lock is SQLite's")
    code, _tickets, game = started_room(4)
    looks, look = collections.Counter(), move_queue._Together.last_look

    def deadline_passed_for_the_third_meanwhile(self):
        looks[self.mover] += 1
        if self.mover == "m#2" and looks[self.mover] == 2:  # the look under the writer lock
            self.failed = move_queue._too_late()
            raise self.failed
        look(self)

    monkeypatch.setattr(move_queue._Together, "last_look", deadline_passed_for_the_third_meanwhile)
    memory = remembered(code)
    with captured_broadcasts() as sent:
        assert move_queue.play_together(round_of(code), games_in_play=memory) == {0, 1, 2}
    written = game_in_play(code)
    assert moves_of(game) == [(1, 0), (2, 1)]
    assert written.seq == 2 and written.version == game.version + 2 and written.state == memory[code].state
    assert [(seq, mover) for seq, mover, _texts in updates_sent(sent)] == [(1, "m#0"), (2, "m#1")]
    assert [(refusal["mover"], refusal["code"]) for refusal in refusals] == [("m#2", "move_unanswered")]
