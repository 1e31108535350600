"""The room's socket protocol on its own (static/js/room/socket.js and protocol.js), with no room page and
no server: the modules run in Chromium against a fake WebSocket, on a clock the test moves."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ORIGIN = "http://127.0.0.1:9"
MODULES = ("protocol.js", "socket.js")

PAGE = """<!doctype html><html lang="en"><meta charset="utf-8"><body>
<script type="module">
  import * as protocol from "/room/protocol.js";
  import { RoomSocket } from "/room/socket.js";

  // A WebSocket that records what is sent and lets the test speak for the server.
  class FakeSocket {
    constructor(url) {
      this.url = url;
      this.readyState = 0;
      this.sent = [];
      window.sockets.push(this);
    }
    send(text) { this.sent.push(JSON.parse(text)); }
    close() { this.readyState = 3; }
    open() { this.readyState = 1; }
    say(message) { this.onmessage({ data: JSON.stringify(message) }); }
    shut(code) { this.readyState = 3; this.onclose({ code }); }
  }

  window.sockets = [];
  window.heard = [];
  window.protocol = protocol;
  window.makeSocket = () => {
    const note = (kind) => (message, how) => window.heard.push(
      [kind, message && message.type === "update" ? [message.game.number, message.seq, how] : message]);
    window.room = new RoomSocket({
      url: "ws://example.test/ws/rooms/ABCDEF/",
      WebSocketImpl: FakeSocket,
      random: () => 0.5,
      handlers: {
        snapshot: note("snapshot"), update: note("update"), room: note("room"), error: note("error"),
        status: (kind) => window.heard.push(["status", kind]),
        lost: () => window.heard.push(["lost"]), back: () => window.heard.push(["back"]),
      },
    });
    window.room.start();
  };
  window.ready = true;
</script>"""


@pytest.fixture
def page(browser):
    context = browser.new_context()
    page = context.new_page()
    sources = {f"/room/{name}": (ROOT / "static" / "js" / "room" / name).read_bytes() for name in MODULES}

    def answer(route):
        path = route.request.url.removeprefix(ORIGIN)
        if path in sources:
            route.fulfill(status=200, content_type="text/javascript", body=sources[path])
        else:
            route.fulfill(status=200, content_type="text/html", body=PAGE)

    page.route(f"{ORIGIN}/**", answer)
    page.clock.install(time=0)
    page.goto(f"{ORIGIN}/")
    page.wait_for_function("window.ready === true")
    page.clock.pause_at(10_000)  # from here time moves only when the test moves it
    yield page
    context.close()


def game(number=1, status="playing", paused=None):
    return {"number": number, "status": status, "paused_remaining": paused}


def update(seq, number=1, **fields):
    return {"type": "update", "seq": seq, "game": game(number, **fields), "events": [], "view": {}}


def snapshot(seq, number=1, digest="d1"):
    return {"type": "snapshot", "seq": seq, "you": {"seat": 0}, "room": {}, "room_digest": digest,
            "game": game(number), "view": {}, "server_time": 0}


def connected(page, seq=0, number=1, digest="d1"):
    """A socket opened and answered by a snapshot at `seq`; what was heard so far is forgotten."""
    page.evaluate("makeSocket()")
    page.evaluate("sockets[sockets.length - 1].open()")
    say(page, snapshot(seq, number, digest))
    page.evaluate("window.heard = []")


def say(page, message):
    page.evaluate("(m) => sockets[sockets.length - 1].say(m)", message)


def heard(page):
    return page.evaluate("window.heard")


def sent(page, index=-1):
    return [frame["type"] for frame in page.evaluate(f"sockets.at({index}).sent")]


def updates(page):
    return [entry[1] for entry in heard(page) if entry[0] == "update"]


def test_updates_are_handed_on_in_order_and_an_early_one_waits_for_the_one_before_it(page):
    connected(page, seq=3)
    say(page, update(5))  # 4 is still on its way
    assert updates(page) == []
    say(page, update(4))
    assert updates(page) == [[1, 4, "next"], [1, 5, "next"]]
    page.clock.run_for(2000)
    assert "sync" not in sent(page), "nothing was missing"


def test_a_gap_that_stays_open_asks_for_a_sync_once_then_at_most_once_a_second(page):
    connected(page, seq=3)
    say(page, update(6))
    page.clock.run_for(500)
    assert "sync" not in sent(page), "the missing update gets a moment to arrive"
    page.clock.run_for(200)
    assert sent(page).count("sync") == 1
    page.evaluate("room.requestSync(); room.requestSync()")
    assert sent(page).count("sync") == 1, "a sync asked for too soon waits"
    page.clock.run_for(1100)
    assert sent(page).count("sync") == 2, "and is sent once, later"


def test_old_and_repeated_updates_are_ignored_and_a_pause_keeps_its_seq(page):
    connected(page, seq=3, number=2)
    say(page, update(2, number=2))
    say(page, update(9, number=1))  # a late word about the game before
    say(page, update(3, number=2, paused=12.0))
    say(page, update(4, number=2))
    assert updates(page) == [[2, 3, "same"], [2, 4, "next"]]


def test_a_new_game_joined_late_is_shown_and_then_seen_whole(page):
    connected(page, seq=12, number=1)
    say(page, update(0, number=2, status="lobby"))
    assert "sync" not in sent(page)
    say(page, update(7, number=3))
    assert updates(page) == [[2, 0, "new-game"], [3, 7, "new-game"]]
    assert sent(page).count("sync") == 1


def test_a_pong_ahead_of_us_looks_again_before_asking_for_a_sync(page):
    connected(page, seq=3)
    position = {"number": 1, "seq": 4, "status": "playing", "paused": False, "room_digest": "d1"}
    say(page, {"type": "pong", "position": position})
    say(page, update(4))  # the update was only late
    page.clock.run_for(2000)
    assert "sync" not in sent(page)
    say(page, {"type": "pong", "position": {**position, "seq": 5}})  # this one was lost
    page.clock.run_for(1400)
    assert "sync" not in sent(page)
    page.clock.run_for(200)
    assert sent(page).count("sync") == 1
    say(page, {"type": "pong", "position": {**position, "seq": 4, "room_digest": "d2"}})  # room news lost
    page.clock.run_for(2000)
    assert sent(page).count("sync") == 2
    say(page, {"type": "room", "room": {}, "room_digest": "d2"})
    say(page, {"type": "pong", "position": {**position, "seq": 4, "room_digest": "d2"}})
    page.clock.run_for(2000)
    assert sent(page).count("sync") == 2, "up to date: nothing to ask"


def test_pings_keep_presence_and_a_silent_socket_is_replaced(page):
    connected(page)
    page.clock.run_for(15_000)
    assert sent(page) == ["ping"]
    page.clock.run_for(15_000)
    assert sent(page) == ["ping", "ping"]
    page.clock.run_for(15_000)
    assert ["lost"] in heard(page), "a ping unanswered for 30 s: the socket is dead"
    page.clock.run_for(1_000)
    assert page.evaluate("sockets.length") == 2, "and a new one is opened"


def test_a_hidden_tab_whose_timers_wake_once_a_minute_keeps_its_socket(page):
    """Chrome wakes a hidden tab's repeating timers once a minute: a quiet room then says nothing between two
    pings, and the socket is alive as long as each ping is answered."""
    connected(page)
    for _ in range(3):
        page.clock.fast_forward(60_000)  # one wake-up where four pings were due
        say(page, {"type": "pong", "position": None})
    assert sent(page) == ["ping"] * 3
    assert page.evaluate("sockets.length") == 1 and ["lost"] not in heard(page)
    page.clock.fast_forward(60_000)  # this ping goes unanswered...
    assert page.evaluate("sockets.length") == 1
    page.evaluate("room.reconnectNow()")  # ...and the tab is looked at again a minute later
    assert page.evaluate("sockets.length") == 1, "25 s have not passed since the ping"
    page.clock.fast_forward(26_000)
    page.evaluate("room.reconnectNow()")
    assert ["lost"] in heard(page), "the page seen again finds its socket dead at once"
    page.clock.run_for(1_000)
    assert page.evaluate("sockets.length") == 2


def test_a_closed_socket_reconnects_with_growing_waits_and_says_when_it_is_back(page):
    connected(page)
    page.evaluate("sockets[0].shut(1006)")
    assert heard(page)[:2] == [["lost"], ["status", "waiting"]]
    # random() is 0.5: three quarters of a ceiling that doubles from 500 ms.
    for attempt, wait in enumerate([375, 750, 1500, 3000]):
        page.clock.run_for(wait - 10)
        assert page.evaluate("sockets.length") == attempt + 1
        page.clock.run_for(20)
        assert page.evaluate("sockets.length") == attempt + 2
        page.evaluate("sockets.at(-1).shut(1006)")
    page.clock.run_for(6000)
    page.evaluate("sockets.at(-1).open()")
    say(page, snapshot(0))
    assert heard(page)[-3:] == [["status", "open"], ["back"], ["snapshot", heard(page)[-1][1]]]
    assert heard(page).count(["lost"]) == 1, "lost once, however many attempts it took"


def test_a_room_that_does_not_exist_is_not_tried_again(page):
    page.evaluate("makeSocket()")
    page.evaluate("sockets[0].shut(4404)")
    page.clock.run_for(60_000)
    assert page.evaluate("sockets.length") == 1
    assert heard(page)[-1] == ["status", "gone"]
    page.evaluate("room.reconnectNow()")
    assert page.evaluate("sockets.length") == 1


def test_the_protocol_decisions_on_their_own(page):
    shown = {"number": 2, "seq": 5}
    classify = "([shown, seq, number]) => protocol.classifyUpdate(shown, {seq, game: {number}})"
    cases = {(5, 2): "same", (6, 2): "next", (7, 2): "early", (4, 2): "ignore", (9, 1): "ignore",
             (0, 3): "new-game"}
    for (seq, number), expected in cases.items():
        assert page.evaluate(classify, [shown, seq, number]) == expected
    assert page.evaluate("protocol.classifyUpdate(null, {seq: 4, game: {number: 1}})") == "new-game"
    behind = "([position, shown]) => protocol.isBehind(position, shown, 'd')"
    here = {"number": 2, "seq": 5, "status": "playing", "paused": False}
    assert not page.evaluate(behind, [{**here, "room_digest": "d"}, here])
    assert page.evaluate(behind, [{**here, "room_digest": "e"}, here])
    assert page.evaluate(behind, [{**here, "seq": 6, "room_digest": "d"}, here])
    assert not page.evaluate(behind, [{**here, "seq": 4, "number": 3 - 1, "room_digest": "d"}, here])
    assert page.evaluate(behind, [{**here, "paused": True, "room_digest": "d"}, here])
    assert page.evaluate(behind, [{**here, "number": 3, "seq": 0, "room_digest": "d"}, here])
    waits = page.evaluate("[0, 1, 5, 30].map((n) => [protocol.retryDelay(n, 0), protocol.retryDelay(n, 0.999)])")
    assert waits[0] == [250, pytest.approx(500, abs=1)]
    assert waits[2] == [5000, pytest.approx(10000, abs=10)]
    assert waits[3] == [5000, pytest.approx(10000, abs=10)], "never more than 10 s"
