"""What the platform offers games that ask for it: actions out of turn, decisions with no countdown, start
when full, pause and resume, drafts and clocks. Written for any game: each test runs for every registered
game whose spec (or engine) has the feature, over the real Redis and the real database.

Drafts are the one thing a test cannot make up for a game it does not know: DRAFTS gives, per game, a draft
that changes the position, one that does not, and one the engine refuses.
"""

from __future__ import annotations

import json
import time
from unittest import mock

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from games import registry, replay
from rooms import clocks, drafts, live, services, snapshots
from rooms.models import Game, Move
from tests.rooms.helpers import (
    Workers,
    bring_deadline_forward,
    captured_broadcasts,
    close_all,
    cookie_for,
    fresh_channel_layer,  # noqa: F401 (a fixture)
    game_updates,
    latest_game,
    new_room,
    open_socket,
    receive_until,
    received_by,
    room_with,
    started_room,
    timers,
    what_moves_change,
)
from tests.support import flush_suite_redis

pytestmark = pytest.mark.django_db(transaction=True)
db = database_sync_to_async


def _tiles_drafts(state: dict, seat: int) -> dict:
    width, height = state["board"]
    taken = {(x, y) for _tile, x, y in state["table"]}
    free = next((x, y) for y in range(height) for x in range(width) if (x, y) not in taken)
    other = next(tile for s, hand in enumerate(state["hands"]) if s != seat for tile in hand)
    table = [list(tile) for tile in state["table"]]
    return {
        "unchanged": {"table": table},
        "changed": {"table": [*table, [state["hands"][seat][0], *free]]},
        "refused": {"table": [*table, [other, *free]]},  # another seat's tile
    }


DRAFTS = {"tiles": _tiles_drafts}


def games_with(feature) -> list[str]:
    return [spec.slug for spec in registry.all_games() if feature(spec)]


PAUSABLE = games_with(lambda spec: spec.pausable)
WITH_DRAFTS = games_with(lambda spec: spec.drafts)
STARTING_WHEN_FULL = games_with(lambda spec: spec.start_when_full)
OUT_OF_TURN = games_with(lambda spec: bool(getattr(spec.engine, "OUT_OF_TURN", None)))
UNTIMED = games_with(lambda spec: hasattr(spec.engine, "timed"))


def test_every_feature_has_a_game_to_test_it_on():
    assert all([PAUSABLE, WITH_DRAFTS, STARTING_WHEN_FULL, OUT_OF_TURN, UNTIMED])
    assert set(WITH_DRAFTS) <= set(DRAFTS), "a game with drafts needs its sample drafts in DRAFTS"


# --- playing through the engine contract only --------------------------------------------------------

def engine_of(game: Game):
    return registry.get(game.game).engine


def decide(code: str, game: Game) -> None:
    """The first pending seat takes its first listed action that is a decision (not one allowed out of turn)."""
    game.refresh_from_db()
    spec = registry.get(game.game)
    seat = spec.engine.to_act(game.state)[0]
    action = next(a for a in spec.engine.legal(game.state, seat) if not spec.out_of_turn(a))
    services.submit_move(room_code=code, seat=seat, seq=game.seq, action=action)
    game.refresh_from_db()


def to_first_timed_decision(code: str, game: Game) -> Game:
    """Decide until the decisions posed have a countdown."""
    spec = registry.get(game.game)
    for _ in range(20):
        game.refresh_from_db()
        if spec.timed(game.state):
            return game
        decide(code, game)
    raise AssertionError("no timed decision came")


def started(slug: str, seats: int | None = None):
    spec = registry.get(slug)
    seats = seats or spec.min_seats
    return started_room(seats, seats, game=slug)


def pending_seat(game: Game) -> int:
    game.refresh_from_db()
    return engine_of(game).to_act(game.state)[0]


def undo_first_actions(game: Game, seat: int) -> list[dict]:
    spec = registry.get(game.game)
    return [a for a in spec.engine.legal(game.state, seat) if a["type"] in spec.undo_draft_before]


# --- decisions with no countdown ----------------------------------------------------------------------

@pytest.mark.parametrize("slug", UNTIMED)
def test_a_decision_with_no_countdown_starts_no_clock_until_it_is_made(slug):
    code, _tickets, game = started(slug)
    spec = registry.get(slug)
    assert not spec.timed(game.state), "the game's first decision has a countdown"
    assert game.deadline_at is None and game.deadline_seq is None
    assert not [m for m in timers() if m.startswith(f"turn:{game.pk}:")]
    public = snapshots.public_game(game)
    assert public["deadline"] is None and public["to_act"] and public["clocks"]["since"] is None
    time.sleep(0.05)
    assert clocks.read(game.clocks, time.time())["total"] == 0

    game = to_first_timed_decision(code, game)
    assert game.deadline_seq == game.seq and game.deadline_at > timezone.now()
    assert f"turn:{game.pk}:{game.seq}" in timers()
    assert game.clocks["running"] == spec.engine.to_act(game.state) and game.clocks["since"] is not None


@pytest.mark.parametrize("slug", UNTIMED)
def test_a_bot_makes_an_untimed_decision_at_once_and_a_stand_in_covers_an_absent_player(slug):
    from rooms import bot_runner

    code, _tickets, game = started_room(1, registry.get(slug).min_seats, game=slug)
    seat = pending_seat(game)
    if seat != 0:  # a bot seat: its turn was scheduled when the decision was posed
        assert f"bot:{game.pk}:{seat}:{game.prompts[str(seat)]}" in timers()
        assert services.play_bot_turn(game_id=game.pk, seat=seat, prompt=game.prompts[str(seat)],
                                      choose=bot_runner.choose)
        return
    # The person is to decide and is away: after the grace period a stand-in decides, countdown or not.
    assert services.fire_grace(room_code=code, seat=0)
    game.refresh_from_db()
    assert f"bot:{game.pk}:0:{game.prompts['0']}" in timers()
    assert services.play_bot_turn(game_id=game.pk, seat=0, prompt=game.prompts["0"], choose=bot_runner.choose)
    assert game.moves.get(seq=1).by == Move.By.STAND_IN


# --- start when full ----------------------------------------------------------------------------------

@pytest.mark.parametrize("slug", STARTING_WHEN_FULL)
def test_the_game_starts_by_itself_when_the_last_seat_is_taken(slug):
    spec = registry.get(slug)
    seats = spec.max_seats
    host = new_room(seats, game=slug)
    for number in range(1, seats):
        assert latest_game(host.room_code).status == Game.Status.LOBBY
        with captured_broadcasts() as sent:
            services.join_room(room_code=host.room_code, name=f"Player {number + 1}")
    game = latest_game(host.room_code)
    assert game.status == Game.Status.PLAYING and game.state is not None
    assert [p["bot"] for p in game.players] == [False] * seats
    assert [u for u in game_updates(sent) if u["seq"] == 0], "the start was not sent"


@pytest.mark.parametrize("slug", STARTING_WHEN_FULL)
def test_the_host_may_start_before_the_room_is_full_with_bots_in_the_empty_seats(slug):
    spec = registry.get(slug)
    code, _tickets = room_with(1, spec.max_seats, game=slug)
    services.start_game(room_code=code, seat=0)
    game = latest_game(code)
    assert game.status == Game.Status.PLAYING
    assert [p["bot"] for p in game.players] == [False] + [True] * (spec.max_seats - 1)


# --- out of turn ----------------------------------------------------------------------------------

@pytest.mark.parametrize("slug", OUT_OF_TURN)
def test_an_action_out_of_turn_is_logged_with_a_seq_sent_to_everyone_and_replays(slug):
    spec = registry.get(slug)
    code, _tickets, game = started(slug, spec.max_seats)
    game = to_first_timed_decision(code, game)
    current = pending_seat(game)
    other = next(s for s in range(spec.max_seats) if s != current)
    action = next(a for a in spec.engine.legal(game.state, other) if spec.out_of_turn(a))
    deadline, old_seq = game.deadline_at, game.seq
    with captured_broadcasts() as sent:
        services.submit_move(room_code=code, seat=other, seq=max(0, old_seq - 1), action=action)  # an older seq
    game.refresh_from_db()
    move = game.moves.get(seq=old_seq + 1)
    assert (move.seat, move.action, move.by) == (other, action, Move.By.PLAYER)
    update = game_updates(sent)[-1]
    for seat in [*range(spec.max_seats), None]:
        assert received_by(update, seat)[0] == json.loads(json.dumps(spec.engine.view(game.state, seat)))
    if current in spec.engine.to_act(game.state):  # the seat to act keeps its decision and its countdown
        assert game.prompts[str(current)] <= old_seq and game.deadline_at == deadline

    # A seq newer than the game's is refused; so is an action that is not allowed out of turn.
    before = what_moves_change(code)
    with pytest.raises(services.ServiceError) as refused:
        services.submit_move(room_code=code, seat=other, seq=game.seq + 1, action=action)
    assert refused.value.code == "future_seq"
    if not game.is_over:
        third = next((s for s in spec.in_play(game.state) if s not in spec.engine.to_act(game.state)), None)
        if third is not None:
            decision = next(a for a in spec.engine.legal(game.state, pending_seat(game)) if not spec.out_of_turn(a))
            with pytest.raises(services.ServiceError) as refused:
                services.submit_move(room_code=code, seat=third, seq=game.seq, action=decision)
            assert refused.value.code == "not_your_turn"
    assert what_moves_change(code) == before

    # Out of turn until the end: the record with those moves verifies.
    for _ in range(20):
        game.refresh_from_db()
        if game.is_over:
            break
        current = pending_seat(game)
        seat = next(s for s in spec.in_play(game.state) if s != current)
        action = next(a for a in spec.engine.legal(game.state, seat) if spec.out_of_turn(a))
        services.submit_move(room_code=code, seat=seat, seq=game.seq, action=action)
    game.refresh_from_db()
    assert game.is_over
    checks = replay.verify_record(json.loads(json.dumps(snapshots.public_record(game))))
    assert replay.all_ok(checks), [c for c in checks if not c.ok]


# --- drafts -------------------------------------------------------------------------------------------

def samples(game: Game) -> dict:
    game.refresh_from_db()
    return DRAFTS[game.game](game.state, pending_seat(game))


@pytest.mark.parametrize("slug", WITH_DRAFTS)
def test_an_action_that_needs_the_position_untouched_is_refused_while_the_draft_changes_it(slug):
    code, _tickets, game = to_play(slug)
    seat, drafted = pending_seat(game), samples(game)
    [action] = undo_first_actions(game, seat)
    drafts.accept(room_code=code, seat=seat, seq=game.seq, draft=drafted["changed"])
    before = what_moves_change(code)
    with pytest.raises(services.ServiceError) as refused:
        services.submit_move(room_code=code, seat=seat, seq=game.seq, action=action)
    assert refused.value.code == "undo_draft_first"
    assert what_moves_change(code) == before

    drafts.accept(room_code=code, seat=seat, seq=game.seq, draft=drafted["unchanged"])  # undone
    services.submit_move(room_code=code, seat=seat, seq=game.seq, action=action)
    game.refresh_from_db()
    assert drafts.shown(game) is None and live.client().get(live.key("draft", game.pk)) is None


@pytest.mark.parametrize("slug", WITH_DRAFTS)
def test_the_countdown_discards_the_draft_and_plays_the_tables_choice(slug):
    code, _tickets, game = to_play(slug)
    seat = pending_seat(game)
    drafts.accept(room_code=code, seat=seat, seq=game.seq, draft=samples(game)["changed"])
    expected = registry.get(slug).engine.table_choice(game.state, seat)
    seq = game.deadline_seq
    bring_deadline_forward(game)
    assert services.fire_countdown(game_id=game.pk, seq=seq) == 1
    game.refresh_from_db()
    move = game.moves.get(seq=seq + 1)
    assert (move.by, move.action) == (Move.By.TABLE, expected)
    assert drafts.shown(game) is None and live.client().get(live.key("draft", game.pk)) is None


@pytest.mark.parametrize("slug", WITH_DRAFTS)
def test_bad_drafts_are_refused_and_change_nothing(slug):
    code, _tickets, game = to_play(slug)
    seat, drafted = pending_seat(game), samples(game)
    drafts.accept(room_code=code, seat=seat, seq=game.seq, draft=drafted["changed"])
    kept = live.client().get(live.key("draft", game.pk))
    before = what_moves_change(code)
    other = next(s for s in range(len(game.players)) if s != seat)
    for asked, code_expected in [
        ({"seat": seat, "seq": game.seq, "draft": drafted["refused"]}, "bad_draft:"),
        ({"seat": seat, "seq": game.seq, "draft": "a table"}, "bad_draft"),
        ({"seat": seat, "seq": game.seq + 1, "draft": drafted["changed"]}, "stale_seq"),
        ({"seat": seat, "seq": "1", "draft": drafted["changed"]}, "stale_seq"),
        ({"seat": other, "seq": game.seq, "draft": drafted["changed"]}, "not_your_turn"),
    ]:
        with pytest.raises(services.ServiceError) as refused:
            drafts.accept(room_code=code, **asked)
        assert refused.value.code.startswith(code_expected), (asked, refused.value.code)
        assert refused.value.message
    assert live.client().get(live.key("draft", game.pk)) == kept
    assert what_moves_change(code) == before


@pytest.mark.parametrize("slug", WITH_DRAFTS)
@pytest.mark.usefixtures("fresh_channel_layer", "moves_played")
async def test_a_draft_is_relayed_to_the_room_and_a_reloaded_page_gets_it_back(slug):
    code, tickets, game = await db(to_play)(slug)
    seat = await db(pending_seat)(game)
    watcher_seat = next(s for s in range(len(tickets)) if s != seat)
    drafted = await db(samples)(game)
    mine, _ = await open_socket(code, cookie=await cookie_for(tickets[seat]))
    theirs, _ = await open_socket(code, cookie=await cookie_for(tickets[watcher_seat]))
    sockets = [mine, theirs]
    try:
        await mine.send_json_to({"type": "draft", "seq": game.seq, "draft": drafted["changed"]})
        expected = {"type": "draft", "seat": seat, "seq": game.seq, "draft": drafted["changed"]}
        for socket in (mine, theirs):
            relayed, _ = await receive_until(socket, lambda m: m["type"] == "draft", what="the draft relayed")
            assert relayed == expected
        # A refused draft is answered on that socket alone, translated, and changes nothing.
        await mine.send_json_to({"type": "draft", "seq": game.seq, "draft": drafted["refused"]})
        error, _ = await receive_until(mine, lambda m: m["type"] == "error", what="the refusal")
        assert error["code"].startswith("bad_draft") and error["message"]

        await mine.disconnect()
        sockets.remove(mine)
        reloaded, snapshot = await open_socket(code, cookie=await cookie_for(tickets[seat]))
        sockets.append(reloaded)
        if snapshot["you"]["seat"] is None:  # the spectator's snapshot comes before the seat's
            snapshot, _ = await receive_until(reloaded, lambda m: m["type"] == "snapshot", what="the seat's snapshot")
        assert snapshot["draft"] == {k: expected[k] for k in ("seat", "seq", "draft")}
    finally:
        await close_all(*sockets)


@pytest.mark.usefixtures("fresh_channel_layer", "moves_played")
async def test_drafts_are_rate_limited_per_socket():
    slug = WITH_DRAFTS[0]
    code, tickets, game = await db(to_play)(slug)
    seat = await db(pending_seat)(game)
    drafted = await db(samples)(game)
    socket, _ = await open_socket(code, cookie=await cookie_for(tickets[seat]))
    try:
        for _ in range(int(drafts.BURST) + 5):
            await socket.send_json_to({"type": "draft", "seq": game.seq, "draft": drafted["changed"]})
        limited, _ = await receive_until(socket, lambda m: m.get("code") == "rate_limited", what="the limit")
        assert limited["type"] == "error"
    finally:
        await close_all(socket)


def to_play(slug: str):
    """A started game of `slug` at its first timed decision."""
    code, tickets, game = started(slug)
    return code, tickets, to_first_timed_decision(code, game)


# --- pause and resume ---------------------------------------------------------------------------------

@pytest.mark.parametrize("slug", PAUSABLE)
def test_a_pause_survives_the_worker_and_redis_restarting(slug):
    spec = registry.get(slug)
    code, _tickets, game = to_play(slug)
    seat = pending_seat(game)
    drafted = samples(game)["changed"] if spec.drafts else None
    if drafted is not None:
        drafts.accept(room_code=code, seat=seat, seq=game.seq, draft=drafted)
    other = next(s for s in spec.in_play(game.state) if s != seat)
    with captured_broadcasts() as sent:
        services.pause_from_seat(room_code=code, seat=other)  # any seat in play, on its turn or not
    game.refresh_from_db()
    left = game.paused_remaining
    assert game.is_paused and 0 < left <= spec.decision_seconds(game.options)
    assert f"turn:{game.pk}:{game.deadline_seq}" not in timers()
    [event] = received_by(game_updates(sent)[-1], seat)[1]
    assert event["type"] == "paused" and event["seat"] == other
    if drafted is not None:
        assert game.paused_draft["draft"] == drafted and event["draft"]["draft"] == drafted

    # Nothing but resume while paused.
    before = what_moves_change(code)
    decision = next(a for a in spec.engine.legal(game.state, seat) if not spec.out_of_turn(a))
    for action in spec.engine.legal(game.state, seat):
        if not spec.allowed_while_paused(action):
            with pytest.raises(services.ServiceError) as refused:
                services.submit_move(room_code=code, seat=seat, seq=game.seq, action=action)
            assert refused.value.code == "paused"
    if drafted is not None:
        with pytest.raises(services.ServiceError) as refused:
            drafts.accept(room_code=code, seat=seat, seq=game.seq, draft=drafted)
        assert refused.value.code == "paused"
    with pytest.raises(services.ServiceError) as refused:
        services.pause_from_seat(room_code=code, seat=seat)
    assert refused.value.code == "cannot_pause"
    assert what_moves_change(code) == before

    # Every process and Redis restart: nothing of the game is left in Redis, a new worker rebuilds its index.
    flush_suite_redis()
    workers = Workers()
    try:
        workers.stop(workers.start())
    finally:
        workers.stop_all()
    assert not [m for m in timers() if str(game.pk) in m]
    game.refresh_from_db()
    assert game.is_paused and game.paused_remaining == left

    services.resume_from_seat(room_code=code, seat=seat)
    game.refresh_from_db()
    assert not game.is_paused
    assert abs(game.deadline_at.timestamp() - (time.time() + left)) < 5
    assert timers()[f"turn:{game.pk}:{game.deadline_seq}"] == pytest.approx(game.deadline_at.timestamp())
    if drafted is not None:
        assert drafts.shown(game)["draft"] == drafted and game.paused_draft is None
        if decision["type"] in spec.undo_draft_before:  # the restored draft is live: it must be undone first
            with pytest.raises(services.ServiceError) as refused:
                services.submit_move(room_code=code, seat=seat, seq=game.seq, action=decision)
            assert refused.value.code == "undo_draft_first"
            drafts.accept(room_code=code, seat=seat, seq=game.seq, draft=samples(game)["unchanged"])
    services.submit_move(room_code=code, seat=seat, seq=game.seq, action=decision)


@pytest.mark.parametrize("slug", PAUSABLE)
def test_bot_turns_and_countdowns_due_in_a_pause_do_nothing_and_resume_reschedules_them(slug):
    from rooms import bot_runner

    spec = registry.get(slug)
    code, _tickets, game = started_room(1, spec.min_seats, game=slug)  # bots in the other seats
    game = to_first_timed_decision_with_bots(code, game)
    seat = pending_seat(game)
    prompt = game.prompts[str(seat)]
    services.pause_from_seat(room_code=code, seat=0)
    game.refresh_from_db()
    if seat != 0:
        assert not services.play_bot_turn(game_id=game.pk, seat=seat, prompt=prompt, choose=bot_runner.choose)
    assert services.fire_countdown(game_id=game.pk, seq=game.deadline_seq) == 0
    assert game.moves.count() == game.seq
    services.resume_from_seat(room_code=code, seat=0)
    game.refresh_from_db()
    assert f"turn:{game.pk}:{game.deadline_seq}" in timers()
    if seat != 0:
        assert f"bot:{game.pk}:{seat}:{prompt}" in timers()


@pytest.mark.parametrize("slug", [s for s in PAUSABLE if registry.get(s).max_seats >= 3])
def test_only_a_seat_still_in_play_may_pause(slug):
    spec = registry.get(slug)
    code, _tickets, game = to_play_with(slug, 3)
    leaving = 0
    action = next(a for a in spec.engine.legal(game.state, leaving) if spec.out_of_turn(a))
    services.submit_move(room_code=code, seat=leaving, seq=game.seq, action=action)
    game.refresh_from_db()
    assert not game.is_over and leaving not in spec.in_play(game.state)
    before = what_moves_change(code)
    for asked in (services.pause_from_seat, services.resume_from_seat):
        with pytest.raises(services.ServiceError) as refused:
            asked(room_code=code, seat=leaving)
        assert refused.value.code in ("not_in_play", "not_paused")
    assert what_moves_change(code) == before
    services.pause_from_seat(room_code=code, seat=1)
    with pytest.raises(services.ServiceError) as refused:
        services.resume_from_seat(room_code=code, seat=leaving)
    assert refused.value.code == "not_in_play"
    services.resume_from_seat(room_code=code, seat=2)


def to_play_with(slug: str, seats: int):
    code, tickets, game = started(slug, seats)
    return code, tickets, to_first_timed_decision(code, game)


def to_first_timed_decision_with_bots(code: str, game: Game) -> Game:
    from rooms import bot_runner

    spec = registry.get(game.game)
    for _ in range(20):
        game.refresh_from_db()
        if spec.timed(game.state):
            return game
        seat = pending_seat(game)
        if seat == 0:
            decide(code, game)
        else:
            services.play_bot_turn(game_id=game.pk, seat=seat, prompt=game.prompts[str(seat)],
                                   choose=bot_runner.choose)
    raise AssertionError("no timed decision came")


def test_a_game_that_is_not_pausable_refuses_a_pause_from_a_seat():
    slug = next(spec.slug for spec in registry.all_games() if not spec.pausable)
    code, _tickets, game = started(slug)
    with pytest.raises(services.ServiceError) as refused:
        services.pause_from_seat(room_code=code, seat=0)
    assert refused.value.code == "not_pausable"


@pytest.mark.parametrize("slug", PAUSABLE)
@pytest.mark.usefixtures("fresh_channel_layer", "moves_played")
async def test_pause_and_resume_from_the_socket_reach_everyone(slug):
    code, tickets, game = await db(to_play)(slug)
    first, _ = await open_socket(code, cookie=await cookie_for(tickets[0]))
    second, _ = await open_socket(code, cookie=await cookie_for(tickets[1]))
    try:
        await first.send_json_to({"type": "pause"})
        for socket in (first, second):
            update, _ = await receive_until(socket, lambda m: m["type"] == "update" and m["events"]
                                            and m["events"][0]["type"] == "paused", what="the pause")
            assert update["game"]["paused_remaining"] is not None and update["events"][0]["seat"] == 0
        await second.send_json_to({"type": "resume"})
        for socket in (first, second):
            update, _ = await receive_until(socket, lambda m: m["type"] == "update" and m["events"]
                                            and m["events"][0]["type"] == "resumed", what="the resume")
            assert update["game"]["paused_remaining"] is None and update["game"]["deadline"]
    finally:
        await close_all(first, second)


# --- clocks -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("slug", PAUSABLE)
def test_the_clocks_leave_out_paused_time_and_the_untimed_decision(slug):
    spec = registry.get(slug)
    now = [1_000_000.0]
    fake_time = mock.Mock(time=lambda: now[0])
    with mock.patch("rooms.services.time", fake_time):
        code, _tickets, game = started(slug)
        now[0] += 30  # the untimed first decision takes 30 s: no clock counts it
        game = to_first_timed_decision(code, game)
        seat = pending_seat(game)
        assert game.clocks["running"] == [seat] and game.clocks["since"] == now[0]
        now[0] += 20
        services.pause_from_seat(room_code=code, seat=seat)
        now[0] += 600  # paused
        services.resume_from_seat(room_code=code, seat=seat)
        now[0] += 5
        decide(code, game)
    game.refresh_from_db()
    used = [0.0] * len(game.players)
    used[seat] = 25.0
    assert game.clocks["used"] == used and game.clocks["total"] == 25.0
    public = snapshots.public_game(game)["clocks"]
    assert public["since"] == now[0] and public["running"] == spec.engine.to_act(game.state)


@pytest.mark.parametrize("slug", [s for s in PAUSABLE if s in UNTIMED])
def test_a_pause_during_a_decision_with_no_countdown_resumes_with_none(slug):
    code, _tickets, game = started(slug)
    seat = pending_seat(game)
    services.pause_from_seat(room_code=code, seat=seat)
    game.refresh_from_db()
    assert game.paused_remaining == 0 and game.deadline_seq is None
    services.resume_from_seat(room_code=code, seat=seat)
    game.refresh_from_db()
    assert game.deadline_at is None and not [m for m in timers() if m.startswith(f"turn:{game.pk}:")]
    assert game.clocks["since"] is None
    to_first_timed_decision(code, game)
