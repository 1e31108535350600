"""Scale-out, proven: two daphne processes and two workers on one Redis and one database play a whole game
of every registered game at once, each room's sockets split across both daphnes; mid-game one daphne and
one worker are killed (kill -9). Every seat and watcher sees the game to its end, with no gap on a socket
that stayed up, no move is lost or refused for want of a worker, and the table's countdown (a candles
player who lets the timer run out) is applied once. docs/deploy.md says what this proves."""

from __future__ import annotations

import asyncio
import signal
import time

import pytest

from bench.scripted import Client, api
from games import registry
from games.replay import all_ok, verify_record
from rooms.models import Game, Move

pytestmark = [pytest.mark.live, pytest.mark.django_db(transaction=True)]

# Humans keep their seats (the killed daphne's players come back through the other one); bots think a
# little, so that every game is still going when the kill comes.
SITE_ENV = {"WICKWISE_GRACE_SECONDS": "3600", "WICKWISE_BOT_DELAY_SECONDS": "0.3"}


def seq_of(code: str) -> int:
    """The seq of the room's first game, the one played here."""
    return Game.objects.filter(room_code=code, number=1).values_list("seq", flat=True).first() or 0


def test_two_daphnes_and_two_workers_play_every_game_through_a_kill(live_site_factory):
    first = live_site_factory(env=SITE_ENV)
    second = live_site_factory(env=SITE_ENV)
    a, b = (first.url, first.ws_url), (second.url, second.ws_url)
    rooms, clients = {}, []
    for spec in registry.all_games():
        options = {"round_seconds": 15} if spec.slug == "candles" else {}
        status, host = api(first.url, "POST", "/api/rooms/", {"game": spec.slug, "seats": 3, "name": "Ana",
                                                              "options": options})
        assert status == 201, host
        status, guest = api(second.url, "POST", f"/api/rooms/{host['room']}/join/", {"name": "Bo"})
        assert status == 201, guest
        code = host["room"]
        rooms[spec.slug] = code
        # The kill comes after every game's second move, so the people of the other games need not think
        # long to keep their games on until then; a long game of trails at a second a decision took half
        # the deadline on a loaded machine.
        think = 0.1 if spec.slug == "candles" else 0.3
        clients += [
            # The candles host lets round 1's countdown run out: the table decides for it, once.
            Client(slug=spec.slug, code=code, bases=[a, b], return_code=host["return_code"], host=True,
                   think=think, sleep_first_decision=spec.slug == "candles", name=f"{spec.slug} host on A"),
            Client(slug=spec.slug, code=code, bases=[b, a], return_code=guest["return_code"], think=think,
                   name=f"{spec.slug} guest on B"),
            Client(slug=spec.slug, code=code, bases=[a, b], name=f"{spec.slug} watcher on A"),
            Client(slug=spec.slug, code=code, bases=[b, a], name=f"{spec.slug} watcher on B"),
        ]
    killed = {}

    async def play():
        deadline = time.monotonic() + 300
        tasks = [asyncio.create_task(client.run(deadline=deadline)) for client in clients]
        # Every game under way: two moves in each (candles' third, the host's pick, is its countdown's, after
        # the kill, so the quicker games are still on when it comes).
        while not all(seq_of(code) >= 2 for code in rooms.values()):
            await asyncio.sleep(0.2)
            assert time.monotonic() < deadline, "the games did not start"
        killed["seqs"] = {slug: seq_of(code) for slug, code in rooms.items()}
        second.server.send_signal(signal.SIGKILL)  # daphne B, with half of every room's sockets
        first.workers[0].send_signal(signal.SIGKILL)  # and worker A, mid-move perhaps
        await asyncio.gather(*tasks)

    asyncio.run(play())

    for slug, code in rooms.items():
        game = Game.objects.filter(room_code=code, number=1).get()
        assert game.status == Game.Status.FINISHED, slug
        assert killed["seqs"][slug] < game.seq, f"{slug} ended before the kill"
        status, record = api(first.url, "GET", f"/games/{code}/1/record.json")
        assert status == 200 and all_ok(verify_record(record)), slug  # replays to the stored result
        assert [move["seq"] for move in record["moves"]] == list(range(1, game.seq + 1)), slug
    for client in clients:
        final = client.seen.final
        assert final is not None and final["status"] == "finished", client.name
        assert final["seq"] == seq_of(client.code), client.name  # every seat saw the last update
        assert client.seen.errors["move_unanswered"] == 0, client.name  # no move lost for want of a worker
        assert client.seen.errors["busy"] == 0, client.name
        if client.seen.reconnects == 0:  # a socket that stayed up saw every update, in order
            assert client.seen.gaps == [], (client.name, client.seen.gaps)
    assert all(client.seen.reconnects == 0 for client in clients if "on A" in client.name)
    assert all(client.seen.reconnects >= 1 for client in clients if "on B" in client.name)
    # Round 1 of candles: the host's pick was the table's, made once; everyone else's were theirs.
    candles = Game.objects.get(room_code=rooms["candles"], number=1)
    round_one = list(Move.objects.filter(game=candles, seq__lte=3).values_list("seat", "by"))
    assert sorted(round_one) == [(0, "table"), (1, "player"), (2, "bot")]
    assert Move.objects.filter(game=candles, by="table").count() == 1
