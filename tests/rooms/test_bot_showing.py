"""A bot's play shown tile by tile as drafts before it is played (bots/<game>.py's steps), stopped by a
pause and finished after resume; and a searching bot that never holds up the worker's other timers."""

from __future__ import annotations

import asyncio
import time
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.conf import settings
from django.test import override_settings
from django.utils import timezone

from games.tiles import engine
from rooms import services
from rooms.management.commands import worker
from rooms.models import Game, Move, Seat
from tests.games.tiles.boards import tile
from tests.rooms.helpers import (
    LONG_GRACE,
    bring_deadline_forward,
    close_all,
    fresh_channel_layer,  # noqa: F401 (a fixture)
    open_socket,
    receive_until,
    started_room,
    started_without_stand_ins,
    timers,
    wait_for,
)
from tests.rooms.test_worker import table_moves, workers  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True)
db = database_sync_to_async  # one thread for all: what runs alongside goes through asyncio.to_thread
QUICK_AI = {**settings.WICKWISE, "BOT_TIME_LIMITS": {"tiles": 0.5}, "BOT_STEP_SECONDS": 0.05}


def tiles_turn_for(seat: int, humans: int = 1) -> tuple[str, Game]:
    """A two-seat tiles game in play, seat `seat` to play with a run of three in its hand."""
    code, _tickets, game = started_room(humans, 2, game="tiles")
    state = game.state
    if state["phase"] == "begin":
        state = engine.apply(state, state["chooser"], {"type": "begin"})[0]
    wanted = [tile("r3"), tile("r4"), tile("r5")]
    state["hands"] = [[t for t in hand if t not in wanted] for hand in state["hands"]]
    state["bag"] = [t for t in state["bag"] if t not in wanted]
    state["hands"][seat] = sorted(state["hands"][seat] + wanted)
    state["current"] = seat
    Game.objects.filter(pk=game.pk).update(state=state, prompts={str(seat): game.seq})
    game.refresh_from_db()
    return code, game


def bot_member(game: Game, seat: int) -> str:
    return f"bot:{game.pk}:{seat}:{game.prompts[str(seat)]}"


def the_play(game: Game) -> Move | None:
    return Move.objects.filter(game=game, seq=game.seq + 1).first()


@override_settings(WICKWISE=QUICK_AI)
@pytest.mark.usefixtures("fresh_channel_layer")
async def test_an_empty_seats_ai_shows_its_play_tile_by_tile_then_plays_it():
    code, game = await db(tiles_turn_for)(1)
    seat_row = await db(Seat.objects.get)(room__code=code, index=1)
    assert (seat_row.is_bot, seat_row.bot_level) == (True, "strong")  # the empty seat got the AI
    socket, _snapshot = await open_socket(code)
    try:
        running = asyncio.ensure_future(asyncio.to_thread(worker.run_one, bot_member(game, 1)))
        update, before = await receive_until(socket, lambda m: m["type"] == "update", what="the bot's play")
        await running
        shown = [m for m in before if m["type"] == "draft"]
        move = await db(the_play)(game)
        assert move.by == Move.By.BOT and move.action["type"] == "play"
        placed = len(move.action["table"])
        assert len(shown) == placed >= 3  # the table was empty: one tile more each time
        assert [len(m["draft"]["table"]) for m in shown] == list(range(1, placed + 1))
        assert all(m["seat"] == 1 and m["seq"] == game.seq for m in shown)
        assert shown[-1]["draft"]["table"] == move.action["table"]
        assert update["seq"] == game.seq + 1
    finally:
        await close_all(socket)


@override_settings(WICKWISE={**QUICK_AI, "BOT_STEP_SECONDS": 0.3})
@pytest.mark.usefixtures("fresh_channel_layer")
async def test_a_pause_stops_the_showing_and_resume_finishes_the_turn():
    code, game = await db(tiles_turn_for)(1)
    socket, _snapshot = await open_socket(code)
    try:
        running = asyncio.ensure_future(asyncio.to_thread(  # a thread of its own: the pause must not wait behind it
            services.play_bot_turn, game_id=game.pk, seat=1, prompt=game.seq, choose=worker.bot_runner.choose,
            steps=worker.bot_runner.steps, step_seconds=0.3))
        first, _ = await receive_until(socket, lambda m: m["type"] == "draft", what="the first draft")
        await db(services.pause_game)(game_id=game.pk)
        assert await running is False  # stopped at the next step
        paused, _ = await receive_until(socket, lambda m: m["type"] == "update", what="the pause")
        assert await db(the_play)(game) is None
        stored = await db(Game.objects.get)(pk=game.pk)
        assert stored.paused_draft["seat"] == 1 and len(stored.paused_draft["draft"]["table"]) >= 1
        await db(services.resume_game)(game_id=game.pk)
        member = bot_member(stored, 1)
        assert member in await db(timers)()  # resume scheduled the turn again
        await db(worker.dispatch)(member)
        move = await db(the_play)(game)
        assert move.by == Move.By.BOT and move.action["type"] == "play"
    finally:
        await close_all(socket)


@override_settings(WICKWISE={**QUICK_AI, "BOT_STEP_SECONDS": 0.01})
def test_a_stand_in_plays_an_absent_players_turn_with_the_ai():
    code, game = tiles_turn_for(1, humans=2)
    Seat.objects.filter(room__code=code, index=1).update(stand_in=True)
    worker.dispatch(bot_member(game, 1))
    move = the_play(game)
    assert move.by == Move.By.STAND_IN and move.action["type"] == "play"
    assert {tile("r3"), tile("r4"), tile("r5")} <= {t for t, _x, _y in move.action["table"]}


@override_settings(WICKWISE={**QUICK_AI, "BOT_STEP_SECONDS": 0.01})
def test_a_bot_that_draws_shows_nothing(monkeypatch):
    from bots import tiles as tiles_bots

    code, game = tiles_turn_for(1)
    monkeypatch.setattr(tiles_bots, "choose", lambda view, level, time_limit=0: {"type": "draw"})
    shown = []
    monkeypatch.setattr(services, "show_bot_draft", lambda **kwargs: shown.append(kwargs) or True)
    worker.dispatch(bot_member(game, 1))
    assert the_play(game).action == {"type": "draw"} and shown == []


def test_a_countdown_and_another_rooms_bot_fire_on_time_during_a_slow_search(workers, tmp_path):  # noqa: F811
    code, game = tiles_turn_for(1)
    timed_code, _tickets, timed = started_without_stand_ins(3)
    pid_file = tmp_path / "search.pid"
    process = workers.start(**LONG_GRACE, WICKWISE_BOT_PROCESSES="1", WICKWISE_BOT_STEP_SECONDS="0.02",
                            WICKWISE_TILES_AI_SECONDS="0.5", SLOW_BOT_PID_FILE=str(pid_file),
                            WICKWISE_BOT_MODULES="tiles=tests.rooms.slow_tiles_bot")
    # The tiles bot's turn is due at once: its search spins for a while in the worker's search process.
    member = bot_member(game, 1)
    wait_for(lambda: timers().get(member, 0) > time.time() + 5,  # leased: moved a lease ahead
             what="the worker to take the tiles bot's turn")
    deadline = timezone.now() + timedelta(seconds=1)
    bring_deadline_forward(timed, at=deadline)
    other_code, _others, other = started_room(1, 2)  # a candles bot, due now, while the search goes on
    wait_for(lambda: table_moves(timed) == 3, what="the countdown to fire")
    fired = Move.objects.filter(game=timed, by=Move.By.TABLE).order_by("created_at").first().created_at
    assert abs((fired - deadline).total_seconds()) < 1.0
    wait_for(lambda: Move.objects.filter(game=other, seat=1).exists(), what="the other room's bot")
    other_bot = Move.objects.get(game=other, seat=1).created_at
    assert the_play(game) is None, "the search should still be running"
    assert (other_bot - deadline).total_seconds() < 1.0
    wait_for(lambda: the_play(game) is not None, what="the slow bot's play")
    assert the_play(game).action["type"] == "play"
    assert int(pid_file.read_text()) != process.pid  # searched in a process of its own
