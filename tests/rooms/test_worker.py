"""`manage.py worker` in other processes against the test database and Redis: countdowns with no browser,
after a restart, with two workers at once, stale and paused countdowns, and bots playing whole games."""

from __future__ import annotations

import re
import time
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from games.candles import engine
from rooms import live, move_queue, services
from rooms.models import Game, Move, Seat
from tests.rooms.helpers import (
    LONG_GRACE,
    Workers,
    bring_deadline_forward,
    candle_for,
    countdown_after_the_last_reveal,
    play_pending,
    started_room,
    started_without_stand_ins,
    timers,
    wait_for,
    what_moves_change,
)

pytestmark = [pytest.mark.live, pytest.mark.django_db(transaction=True)]

@pytest.fixture
def workers(transactional_db):
    pool = Workers()
    yield pool
    logs = pool.log_text()
    pool.stop_all()
    assert "Traceback" not in logs, logs


def moves_of(game: Game) -> list[tuple[int, int, str]]:
    return list(Move.objects.filter(game=game).order_by("seq").values_list("seq", "seat", "by"))


def table_moves(game: Game) -> int:
    return Move.objects.filter(game=game, by=Move.By.TABLE).count()


def test_a_countdown_fires_with_no_browser_connected(workers):
    code, _tickets, game = started_without_stand_ins(3)
    services.submit_move(room_code=code, seat=0, seq=0, action=candle_for(game, 0))
    game.refresh_from_db()
    expected = {seat: engine.table_choice(game.state, seat) for seat in (1, 2)}
    workers.start(**LONG_GRACE)

    bring_deadline_forward(game)
    fired = timezone.now()
    wait_for(lambda: table_moves(game) == 2, what="the table to decide for seats 1 and 2")

    game.refresh_from_db()
    assert moves_of(game) == [(1, 0, "player"), (2, 1, "table"), (3, 2, "table")]
    actions = dict(Move.objects.filter(game=game, by=Move.By.TABLE).values_list("seat", "action"))
    assert actions == expected
    assert (game.seq, game.state["round"], game.prompts) == (3, 2, {"0": 3, "1": 3, "2": 3})
    countdown = timedelta(seconds=countdown_after_the_last_reveal(game))
    assert game.deadline_seq == 3 and fired < game.deadline_at <= timezone.now() + countdown
    member = f"turn:{game.pk}:3"  # put in the index just after the commit
    assert wait_for(lambda: timers().get(member), what="the next countdown") == pytest.approx(
        game.deadline_at.timestamp())


def test_a_new_worker_fires_a_countdown_that_passed_while_none_ran(workers):
    code, _tickets, game = started_without_stand_ins(2)
    workers.stop(workers.start(**LONG_GRACE))

    # The deadline passes while no worker runs, and its index entry is lost too: only the database knows.
    Game.objects.filter(pk=game.pk).update(deadline_at=timezone.now() - timedelta(seconds=1))
    live.cancel(f"turn:{game.pk}:0")
    assert f"turn:{game.pk}:0" not in timers()

    workers.start(**LONG_GRACE)
    wait_for(lambda: table_moves(game) == 2, what="the new worker to fire the countdown")
    assert moves_of(game) == [(1, 0, "table"), (2, 1, "table")]


def test_two_workers_fire_each_countdown_once(workers):
    games = [started_without_stand_ins(3)[2] for _ in range(4)]
    running = [workers.start(**LONG_GRACE), workers.start(**LONG_GRACE)]

    for game in games:
        bring_deadline_forward(game)
    for game in games:
        wait_for(lambda game=game: table_moves(game) >= 3, what=f"the countdown of game {game.pk}")
    for process in running:
        workers.stop(process)  # each finishes what it claimed before it exits: nothing is left in flight

    for game in games:
        game.refresh_from_db()
        assert moves_of(game) == [(1, 0, "table"), (2, 1, "table"), (3, 2, "table")]
        assert (game.seq, game.state["round"], game.deadline_seq) == (3, 2, 3)


def test_a_countdown_is_dropped_once_the_seq_moved_on(workers):
    code, _tickets, game = started_without_stand_ins(2)
    play_pending(code)  # the players decided round 1 in time: the countdown posed at seq 0 is over
    game.refresh_from_db()
    assert game.deadline_seq == 2
    live.schedule(f"turn:{game.pk}:0", time.time() - 1)  # a stale entry, as an old index could hold
    before = what_moves_change(code)

    workers.run_once(**LONG_GRACE)

    assert f"turn:{game.pk}:0" not in timers()  # claimed...
    assert what_moves_change(code) == before  # ...and dropped
    assert timers()[f"turn:{game.pk}:2"] == pytest.approx(game.deadline_at.timestamp())


def test_a_paused_game_never_times_out_and_does_after_resume(workers):
    code, _tickets, game = started_without_stand_ins(2)
    bring_deadline_forward(game)  # due now...
    services.pause_game(game_id=game.pk)  # ...but paused first, with nothing left on the clock
    game.refresh_from_db()
    assert game.deadline_at is None and f"turn:{game.pk}:0" not in timers()
    live.schedule(f"turn:{game.pk}:0", time.time() - 1)  # even a leftover index entry must not fire it
    before = what_moves_change(code)

    workers.run_once(**LONG_GRACE)  # rebuilds the index from the database, then handles what is due

    assert what_moves_change(code) == before
    assert f"turn:{game.pk}:0" not in timers()

    services.resume_game(game_id=game.pk)
    game.refresh_from_db()
    assert game.deadline_at <= timezone.now() + timedelta(seconds=1)
    workers.run_once(**LONG_GRACE)
    assert moves_of(game) == [(1, 0, "table"), (2, 1, "table")]


def test_bots_play_a_whole_game_with_no_browser(workers):
    workers.start()
    code, _tickets, game = started_room(1, 3)  # the host never connects: a bot stands in after the grace

    wait_for(lambda: Game.objects.get(pk=game.pk).is_over, what="the bots to finish the game", timeout=120)

    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.seq == 18
    assert sorted(r["seat"] for r in game.result) == [0, 1, 2]
    by_seat = {seat: set(Move.objects.filter(game=game, seat=seat).values_list("by", flat=True)) for seat in range(3)}
    assert by_seat == {0: {"stand_in"}, 1: {"bot"}, 2: {"bot"}}
    assert Seat.objects.get(room__code=code, index=0).stand_in
    assert Game.objects.filter(room_code=code, number=2, status=Game.Status.LOBBY).exists()


@pytest.mark.parametrize(("args", "expected"), [((), None), (("--move-threads", "3"), 3)])
def test_the_worker_plays_moves_in_its_databases_default_threads_unless_told(workers, args, expected):
    """The real command: without --move-threads, the database's default (move_queue.MOVE_THREADS_BY_DATABASE)."""
    expected = expected or move_queue.MOVE_THREADS_BY_DATABASE[connection.vendor]
    workers.start(*args)
    said = wait_for(lambda: re.search(r"playing moves in (\d+) threads", workers.log_text()),
                    what="the worker's move threads logged")
    assert int(said.group(1)) == expected


def test_on_sqlite_the_worker_s_own_thread_makes_the_log_s_checkpoints(workers):
    """rooms/checkpoints.py: the worker's commits leave the write-ahead log to its thread, on SQLite alone."""
    workers.start()  # returns once the worker has started: its thread, if any, started before
    said = "WAL checkpoints made by a thread of this worker's" in workers.log_text()
    assert said == (connection.vendor == "sqlite")
