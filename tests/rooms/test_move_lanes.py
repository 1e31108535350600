"""Moves go ahead of starts (rooms/move_queue.py): a burst of starts does not hold up the moves queued behind
it, a worker plays no more starts at once than its share of threads, a start that has waited too long goes
ahead of moves (after those sent before it), and no request is lost or played twice, not even one a dead
worker had taken."""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
import time
import uuid

import pytest
import redis.asyncio
from redis.exceptions import NoScriptError

from rooms import live, move_queue
from tests.rooms.helpers import wait_for


def hand_over_all(requests: list[tuple[str, str, str]], *, waited: dict[str, float] | None = None) -> None:
    """Queue (kind, room, mover) requests as sockets would, in this order; `waited`: by mover, the seconds
    a request was sent before now (it has waited that long already)."""
    waited = waited or {}

    async def push():
        try:
            for kind, room, mover in requests:
                sent_at = time.time() - waited.get(mover, 0.0)
                await move_queue.hand_over(kind=kind, room_code=room, seat=0, mover=mover, seq=0, action=None,
                                           reply_to="specific.test!none", language="en", sent_at=sent_at)
        finally:
            await move_queue.close_for_this_loop()

    asyncio.run(push())


class Recorder:
    """Stands in for move_queue.play: records what was played, in the order it began and ended, and how many
    starts were in play at once. A start takes `start_seconds`, as a start costs several moves."""

    def __init__(self, *, start_seconds: float = 0.0):
        self.start_seconds = start_seconds
        self.began: list[str] = []
        self.ended: list[str] = []
        self.starts_at_once = self.most_starts_at_once = 0
        self.guard = threading.Lock()

    def __call__(self, payload, *, games_in_play=None):
        starting = payload["kind"] != "move"
        with self.guard:
            self.began.append(payload["mover"])
            if starting:
                self.starts_at_once += 1
                self.most_starts_at_once = max(self.most_starts_at_once, self.starts_at_once)
        if starting:
            time.sleep(self.start_seconds)
        with self.guard:
            self.ended.append(payload["mover"])
            if starting:
                self.starts_at_once -= 1


@pytest.fixture
def recorder(monkeypatch):
    recorder = Recorder(start_seconds=0.05)
    monkeypatch.setattr(move_queue, "play", recorder)
    monkeypatch.setattr(move_queue, "BATCH_MOST", 1)  # each request its own `play`, as recorded
    return recorder


@pytest.mark.parametrize(("threads", "start_threads", "ended_by"), [(4, 2, 5), (1, 1, 1)])
def test_a_move_queued_behind_many_starts_is_played_before_them(recorder, threads, start_threads, ended_by):
    """Four threads: two play starts, and the move takes a free one, before the starts still waiting. A single
    thread lets starts have it, one at a time: the move is played right after the start in play."""
    recorder.start_seconds = 0.3  # the move is handed over well within the first start
    player = move_queue.MovePlayer(threads=threads).start()
    try:
        hand_over_all([("start", f"S{n:05d}", f"start#{n}") for n in range(12)])
        wait_for(lambda: recorder.began, what="the first start in play")
        hand_over_all([("move", "M00000", "move#0")])
        wait_for(lambda: len(recorder.ended) == 13, what="every request played")
    finally:
        player.stop()
    assert recorder.most_starts_at_once == player.start_threads == start_threads
    assert recorder.ended.index("move#0") <= ended_by, recorder.ended
    assert sorted(recorder.ended) == sorted([*(f"start#{n}" for n in range(12)), "move#0"])


def test_the_starts_lane_keeps_the_order_sent_and_one_room_plays_one_request_at_a_time(recorder):
    player = move_queue.MovePlayer(threads=2).start()
    try:
        hand_over_all([("start" if n % 2 else "play_again", "AAAAAA", f"start#{n}") for n in range(6)])
        wait_for(lambda: len(recorder.ended) == 6, what="every request played")
    finally:
        player.stop()
    assert recorder.ended == [f"start#{n}" for n in range(6)]
    assert recorder.most_starts_at_once == 1


@pytest.mark.parametrize("threads", [2, 0], ids=["move threads", "the intake plays"])
def test_a_dead_workers_taken_starts_and_moves_are_played_once_in_the_order_taken(recorder, threads):
    hand_over_all([("start", "AAAAAA", "start#0"), ("move", "AAAAAA", "move#1"), ("move", "BBBBBB", "move#2")])
    redis_client = live.client()
    moves_lane, starts_lane = live.key(move_queue.QUEUE), live.key(move_queue.QUEUE, "starts")
    dead = live.key(move_queue.QUEUE, "taken", "dead")
    # The dead worker took the start, then the room's move, then died; the other move waits in its lane.
    assert redis_client.lmove(starts_lane, dead, "LEFT", "RIGHT")
    assert redis_client.lmove(moves_lane, dead, "LEFT", "RIGHT")
    redis_client.sadd(live.key(move_queue.QUEUE, "takers"), "dead")
    redis_client.rpush(live.key(move_queue.QUEUE, "bell", "dead"), 1)
    player = move_queue.MovePlayer(threads=threads).start()
    try:
        wait_for(lambda: len(recorder.ended) == 3, what="the recovered requests played")
        time.sleep(0.3)  # and nothing after them
    finally:
        player.stop()
    assert sorted(recorder.began) == ["move#1", "move#2", "start#0"]
    room = [mover for mover in recorder.ended if mover != "move#2"]
    assert room == ["start#0", "move#1"]  # put back in the order taken, ahead of the moves' lane
    for key in (dead, moves_lane, starts_lane, live.key(move_queue.QUEUE, "bell", "dead"), player.taken_key):
        assert redis_client.llen(key) == 0, key
    assert not redis_client.sismember(live.key(move_queue.QUEUE, "takers"), "dead")


@pytest.mark.parametrize("threads", [2, 0], ids=["move threads", "the intake plays"])
def test_two_workers_play_every_request_of_both_lanes_once(recorder, threads):
    recorder.start_seconds = 0.01
    players = [move_queue.MovePlayer(threads=threads).start() for _ in range(2)]
    requests = [("move" if n % 3 else "start", f"R{n % 7:05d}", f"request#{n}") for n in range(60)]
    try:
        hand_over_all(requests)
        wait_for(lambda: len(recorder.ended) == len(requests), what="every request played")
        time.sleep(0.3)
    finally:
        for player in players:
            player.stop()
    assert sorted(recorder.ended) == sorted(mover for _kind, _room, mover in requests)
    assert recorder.most_starts_at_once <= 2  # one start thread a worker


def test_a_lanes_bell_rings_once_while_it_holds_requests_and_is_silent_once_taken(recorder):
    hand_over_all([("move", f"M{n:05d}", f"move#{n}") for n in range(3)])
    redis_client = live.client()
    moves_bell = live.key(move_queue.QUEUE) + ":bell"
    assert redis_client.lrange(moves_bell, 0, -1) == ["1"]
    player = move_queue.MovePlayer(threads=1).start()
    try:
        wait_for(lambda: len(recorder.ended) == 3, what="the moves played")
        wait_for(lambda: not redis_client.exists(moves_bell), what="the bell silent")
        hand_over_all([("start", "AAAAAA", "start#3")])  # the worker waits on the bells: it wakes for this one
        wait_for(lambda: len(recorder.ended) == 4, what="the start played")
    finally:
        player.stop()


def overdue() -> float:
    """Seconds a request sent this long ago has waited past the point where a start goes ahead of moves."""
    return move_queue.start_overdue_after() + 0.5


def test_a_start_that_has_waited_too_long_is_taken_before_the_moves_queued(recorder):
    moves = [("move", f"M{n:05d}", f"move#{n}") for n in range(10)]
    hand_over_all([*moves, ("start", "SSSSSS", "start#late")], waited={"start#late": overdue()})
    player = move_queue.MovePlayer(threads=1).start()  # queued before the worker looks: one take sees them all
    try:
        wait_for(lambda: len(recorder.ended) == 11, what="every request played")
    finally:
        player.stop()
    assert recorder.began[0] == "start#late", recorder.began


def test_moves_still_overtake_a_start_that_has_not_waited_long(recorder):
    moves = [("move", f"M{n:05d}", f"move#{n}") for n in range(10)]
    hand_over_all([("start", "SSSSSS", "start#fresh"), *moves])
    player = move_queue.MovePlayer(threads=1).start()
    try:
        wait_for(lambda: len(recorder.ended) == 11, what="every request played")
    finally:
        player.stop()
    assert recorder.began[-1] == "start#fresh", recorder.began


def test_a_late_start_goes_after_the_moves_sent_before_it_and_ahead_of_those_sent_after(recorder):
    # The room's move and the other room's were sent before the start, the last move after it.
    hand_over_all([("move", "AAAAAA", "move#before"), ("move", "BBBBBB", "move#before-elsewhere"),
                   ("move", "CCCCCC", "move#after"), ("start", "AAAAAA", "start#late")],
                  waited={"move#before": overdue() + 1, "move#before-elsewhere": overdue() + 0.5,
                          "start#late": overdue()})
    player = move_queue.MovePlayer(threads=1).start()
    try:
        wait_for(lambda: len(recorder.ended) == 4, what="every request played")
    finally:
        player.stop()
    assert recorder.began == ["move#before", "move#before-elsewhere", "start#late", "move#after"]


def test_late_starts_still_play_on_no_more_than_their_share_of_threads(recorder):
    starts = [("start", f"S{n:05d}", f"start#{n}") for n in range(8)]
    hand_over_all([*starts, ("move", "M00000", "move#0")],
                  waited={mover: overdue() for _kind, _room, mover in starts})
    player = move_queue.MovePlayer(threads=4).start()
    try:
        wait_for(lambda: len(recorder.ended) == 9, what="every request played")
    finally:
        player.stop()
    assert recorder.most_starts_at_once == player.start_threads == 2
    assert recorder.ended.index("move#0") < 4, recorder.ended  # the move had a thread of its own


def holding_the_first(recorder, monkeypatch, first: str) -> tuple[threading.Event, dict]:
    """move_queue.play as the recorder, but `first` waits until the event is set; returns the event and the
    thread each request was played on, by mover."""
    release, threads = threading.Event(), {}

    def holding(payload, *, games_in_play=None):
        threads[payload["mover"]] = threading.get_ident()
        if payload["mover"] == first:
            assert release.wait(10)
        recorder(payload, games_in_play=games_in_play)

    monkeypatch.setattr(move_queue, "play", holding)
    return release, threads


def counting_submits(player: move_queue.MovePlayer) -> list[str]:
    """The requests (their raw texts) handed to the player's pool, in order."""
    submitted, submit = [], player.pool.submit

    def counted(fn, *args, **kwargs):
        submitted.append(args[0])
        return submit(fn, *args, **kwargs)

    player.pool.submit = counted
    return submitted


def waiting_in_room(player: move_queue.MovePlayer, room: str) -> int:
    with player.rooms_lock:
        return len(player.rooms_in_play.get(room, ()))


def test_a_rooms_requests_queued_behind_the_one_in_play_are_played_by_its_thread_in_order(recorder, monkeypatch):
    """Without going back to the pool's queue: no hand-over, no other thread woken, for each of them."""
    release, threads = holding_the_first(recorder, monkeypatch, "move#0")
    player = move_queue.MovePlayer(threads=2)
    submitted = counting_submits(player)
    player.start()
    try:
        hand_over_all([("move", "AAAAAA", f"move#{n}") for n in range(4)])
        wait_for(lambda: waiting_in_room(player, "AAAAAA") == 3, what="the room's later requests waiting")
        release.set()
        wait_for(lambda: len(recorder.ended) == 4, what="every request played")
    finally:
        release.set()
        player.stop()
    assert recorder.ended == [f"move#{n}" for n in range(4)]
    assert len(submitted) == 1  # the first alone went through the pool
    assert len({threads[f"move#{n}"] for n in range(4)}) == 1
    slots = 0  # every slot given back, once each
    while player.free.acquire(blocking=False):
        slots += 1
    assert slots == 4
    assert not player.rooms_in_play and player.queued == 0
    assert (player.begun_from_pool, player.begun_in_turn) == (1, 3)


def test_a_rooms_next_request_goes_behind_another_rooms_waiting_for_a_thread(recorder, monkeypatch):
    """A room's next request is played at once by its thread only when no other room's waits for one: it is
    not begun ahead of a request already waiting in the pool's queue (a room's requests begin in the order
    taken, but not every request: taken a0, a1, b0, one thread would begin a0, b0, a1)."""
    release, _threads = holding_the_first(recorder, monkeypatch, "move#a0")
    player = move_queue.MovePlayer(threads=1)
    player.free = threading.BoundedSemaphore(4)  # one thread, but the three requests taken at once
    submitted = counting_submits(player)
    player.start()
    try:
        hand_over_all([("move", "AAAAAA", "move#a0"), ("move", "BBBBBB", "move#b0"), ("move", "AAAAAA", "move#a1")])
        wait_for(lambda: waiting_in_room(player, "AAAAAA") == 1 and len(submitted) == 2,
                 what="room A's second request waiting behind its first, room B's in the pool's queue")
        release.set()
        wait_for(lambda: len(recorder.ended) == 3, what="every request played")
    finally:
        release.set()
        player.stop()
    assert recorder.began == ["move#a0", "move#b0", "move#a1"]
    assert len(submitted) == 3 and player.queued == 0
    assert (player.begun_from_pool, player.begun_in_turn) == (3, 0)


def raising_after_playing(monkeypatch, mover: str) -> None:
    """MovePlayer._play_one raises once it has played `mover`'s request, as a failure after the play would."""
    play_one = move_queue.MovePlayer._play_one

    def raising(self, raw, payload, start_slot):
        play_one(self, raw, payload, start_slot)
        if f'"{mover}"' in raw:
            raise RuntimeError("failed")

    monkeypatch.setattr(move_queue.MovePlayer, "_play_one", raising)


def test_a_rooms_next_request_is_played_when_the_one_before_it_raised(recorder, monkeypatch):
    """Whatever failed, the room's next request is not left waiting; it goes through the pool's queue, and
    is counted once, as begun from it."""
    release, _threads = holding_the_first(recorder, monkeypatch, "move#0")
    raising_after_playing(monkeypatch, "move#0")
    player = move_queue.MovePlayer(threads=1).start()
    try:
        hand_over_all([("move", "AAAAAA", "move#0"), ("move", "AAAAAA", "move#1")])
        wait_for(lambda: waiting_in_room(player, "AAAAAA") == 1, what="the room's second request waiting")
        release.set()
        wait_for(lambda: len(recorder.ended) == 2, what="both requests played")
    finally:
        release.set()
        player.stop()
    assert recorder.ended == ["move#0", "move#1"]
    assert not player.rooms_in_play and player.queued == 0
    assert (player.begun_from_pool, player.begun_in_turn) == (2, 0)


def test_an_intake_that_plays_itself_plays_each_room_in_order_on_its_own_thread_one_start_a_take(recorder, monkeypatch):
    """threads=0: no move thread; the intake plays what it took before its next take, each room's requests in
    the order taken, with no more than one start a take, so a move queued behind many starts still goes
    ahead of most of them."""
    release, threads = holding_the_first(recorder, monkeypatch, "start#0")
    player = move_queue.MovePlayer(threads=0)
    assert player.pool is None and player.start_threads == 1
    starts_a_take, play_taken = [], player._play_what_was_taken

    def counting_starts():  # called once a take, with what it took waiting to be played
        starts_a_take.append(sum(1 for _raw, payload, _room, _slot in player.to_play if payload["kind"] == "start"))
        play_taken()

    player._play_what_was_taken = counting_starts
    player.start()
    try:
        hand_over_all([("start", f"S{n:05d}", f"start#{n}") for n in range(10)])
        wait_for(lambda: recorder.began == [] and "start#0" in threads, what="the first start in play")
        hand_over_all([("move", "AAAAAA", f"move#a{n}") for n in range(3)] + [("move", "BBBBBB", "move#b0")])
        release.set()
        wait_for(lambda: len(recorder.ended) == 14, what="every request played")
    finally:
        release.set()
        player.stop()
    assert set(threads.values()) == {player.thread.ident}  # all on the intake's own thread
    assert [mover for mover in recorder.ended if mover.startswith("move#a")] == ["move#a0", "move#a1", "move#a2"]
    assert recorder.ended.index("move#b0") < 4, recorder.ended  # the starts one a take: the moves went ahead
    assert max(starts_a_take) == 1 and sum(starts_a_take) == 10, starts_a_take
    assert not player.rooms_in_play and player.queued == 0 and not player.to_play
    slots = 0  # every slot given back, once each
    while player.free.acquire(blocking=False):
        slots += 1
    assert slots == move_queue.MovePlayer.INLINE_SLOTS


def test_an_intake_that_plays_itself_keeps_its_heartbeat_while_a_request_waits(recorder, monkeypatch):
    """A request held longer than a heartbeat lasts (SQLite's writer lock can keep one waiting up to its busy
    timeout) does not let the worker pass for dead: its heartbeat comes from a thread of its own."""
    monkeypatch.setattr(move_queue, "TAKER_TTL", 1)
    monkeypatch.setattr(move_queue, "HEARTBEAT_EVERY", 0.2)
    release, _threads = holding_the_first(recorder, monkeypatch, "move#0")
    player = move_queue.MovePlayer(threads=0).start()
    redis_client = live.client()
    try:
        hand_over_all([("move", "AAAAAA", "move#0")])
        wait_for(lambda: "move#0" in _threads, what="the move in play")
        for _ in range(3):  # three heartbeats' lifetimes with the intake held
            time.sleep(move_queue.TAKER_TTL)
            assert redis_client.exists(player.alive_key)
        release.set()
        wait_for(lambda: len(recorder.ended) == 1, what="the move played")
    finally:
        release.set()
        player.stop()
    assert not player.heart.is_alive() and not redis_client.exists(player.alive_key)


def test_an_intake_that_plays_itself_goes_on_after_a_request_raised(recorder, monkeypatch):
    raising_after_playing(monkeypatch, "move#0")
    player = move_queue.MovePlayer(threads=0).start()
    try:
        hand_over_all([("move", "AAAAAA", "move#0"), ("move", "AAAAAA", "move#1"), ("move", "BBBBBB", "move#2")])
        wait_for(lambda: len(recorder.ended) == 3, what="every request played")
        hand_over_all([("move", "CCCCCC", "move#3")])  # and the intake still takes
        wait_for(lambda: len(recorder.ended) == 4, what="the next request played")
    finally:
        player.stop()
    # The room's next request follows it; another room's taken in the same take may come between them, since
    # a request behind one that raised goes to the back of the queue (as with threads, the test above).
    assert recorder.ended[0] == "move#0" and sorted(recorder.ended[1:3]) == ["move#1", "move#2"]
    assert player.thread.is_alive() is False
    assert not player.rooms_in_play and player.queued == 0


def test_a_push_lands_and_rings_its_bell_even_when_redis_lost_the_push_script(monkeypatch):
    """hand_over's push goes by its script's digest; a Redis that does not hold the script (restarted, or its
    scripts flushed) answers NOSCRIPT, the push is sent whole, which loads it, and the request lands all the
    same, its lane's bell rung once; the next push goes by the digest and Redis runs it. The tests' Redis is
    shared, so its scripts are not flushed: the push script here is one Redis has never seen (the same
    commands, a comment of this run's own), which meets the same NOSCRIPT a flushed Redis answers."""
    script = f"-- {uuid.uuid4()}\n{move_queue._PUSH}"
    digest = hashlib.sha1(script.encode()).hexdigest()
    monkeypatch.setattr(move_queue, "_PUSH", script)
    monkeypatch.setattr(move_queue, "_PUSH_DIGEST", digest)
    assert live.client().script_exists(digest) == [False]
    lane, bell = move_queue._lane_of("move")
    sent = []
    real_evalsha, real_eval = redis.asyncio.Redis.evalsha, redis.asyncio.Redis.eval

    async def evalsha(self, sha, *args):  # Redis's own answers, each recorded
        try:
            answer = await real_evalsha(self, sha, *args)
        except NoScriptError:
            sent.append(("EVALSHA", "NOSCRIPT"))
            raise
        sent.append(("EVALSHA", "ran"))
        return answer

    async def eval_(self, text, *args):
        sent.append(("EVAL", hashlib.sha1(text.encode()).hexdigest() == digest))
        return await real_eval(self, text, *args)

    monkeypatch.setattr(redis.asyncio.Redis, "evalsha", evalsha)
    monkeypatch.setattr(redis.asyncio.Redis, "eval", eval_)
    hand_over_all([("move", "M00001", "move#1"), ("move", "M00002", "move#2")])
    assert sent == [("EVALSHA", "NOSCRIPT"), ("EVAL", True), ("EVALSHA", "ran")]
    assert live.client().script_exists(digest) == [True]
    assert [json.loads(raw)["mover"] for raw in live.client().lrange(lane, 0, -1)] == ["move#1", "move#2"]
    assert live.client().lrange(bell, 0, -1) == ["1"]
