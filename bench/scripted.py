"""Scripted players and watchers that use nothing but the public protocol (docs/protocol.md), for the
scale-out test and the chaos run: a seat plays with its game's own bot strategy, from its own view, the
moment it is asked; a watcher only watches. Each keeps a list of daphne addresses and, when its socket
drops, reconnects to the next one that answers, as a browser behind a proxy would.

What each one saw is kept for the checks: every seq, the gaps between them, reconnects, refusals, and
(candles) a pick that landed after its player was told it was not played.
"""

from __future__ import annotations

import asyncio
import json
import time
import urllib.error
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from importlib import import_module

from websockets.asyncio.client import connect
from websockets.exceptions import WebSocketException

OVER = ("finished", "ended")
ANSWER_LIMIT = 8.0  # seconds: the server answers every move within 5 s (and a margin), whatever happens


def api(base: str, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        try:
            return error.code, json.loads(error.read() or b"{}")
        except ValueError:
            return error.code, {}
    except (urllib.error.URLError, OSError):
        return 0, {}  # nothing answers there (a daphne that was just killed, say)


def choose(slug: str, view: dict) -> dict:
    return import_module(f"bots.{slug}").choose(view, "strong")


@dataclass
class Seen:
    """What one socket's client saw."""

    seqs: list[int] = field(default_factory=list)
    gaps: list[tuple[int, int]] = field(default_factory=list)  # (last seq, next seq) on one live socket
    reconnects: int = 0
    errors: Counter = field(default_factory=Counter)
    moves_sent: int = 0
    refused_then_played: int = 0  # candles: a pick told `move_unanswered` that then landed unsent again
    unanswered: int = 0  # moves that got no answer (update, refusal) within ANSWER_LIMIT on a socket still open
    advances: list[tuple[float, int]] = field(default_factory=list)  # (when, seq) each time the seq moved on
    final: dict | None = None  # the game as the last message showed it, once over
    last_message_at: float = 0.0


class Client:
    """A seat (with its return code) or a watcher (without) on one room."""

    def __init__(self, *, slug: str, code: str, bases: list[tuple[str, str]], return_code: str | None = None,
                 host: bool = False, think: float = 0.0, sleep_first_decision: bool = False, name: str = ""):
        self.slug, self.code, self.bases = slug, code, bases  # [(http base, ws base)], tried in order
        self.return_code, self.host, self.think = return_code, host, think
        self.sleep_first_decision = sleep_first_decision
        self.name = name or (f"seat:{code}" if return_code else f"watcher:{code}")
        self.seen = Seen()
        self.started = False
        self.seat: int | None = None
        self.in_flight: tuple[int, float] | None = None  # (seq it answered, when sent)
        self.awaiting: dict[int, tuple[int, float]] = {}  # ref -> (seq it answered, when sent), until answered
        self.refs = 0
        self.refused_picks: dict[int, int] = {}  # candles: round -> the candle told not played
        self._last_pick: tuple[int, int] = (0, -1)  # candles: (round, candle) of the last pick sent

    @property
    def done(self) -> bool:
        return self.seen.final is not None

    async def run(self, *, deadline: float) -> Seen:
        turn = 0
        while not self.done and time.monotonic() < deadline:
            http_base, ws_base = self.bases[turn % len(self.bases)]
            try:
                async with connect(f"{ws_base}/ws/rooms/{self.code}/", origin=http_base, open_timeout=5) as socket:
                    await self._session(socket, deadline)
            except (TimeoutError, OSError, WebSocketException):
                pass
            if not self.done:
                self.seen.reconnects += 1
                turn += 1
                await asyncio.sleep(0.3)
        return self.seen

    async def _session(self, socket, deadline: float) -> None:
        last_seq: int | None = None
        self.in_flight = None
        self.awaiting.clear()  # what a dropped socket sent has no answer to wait for
        if self.return_code:
            await socket.send(json.dumps({"type": "auth", "return_code": self.return_code}))
        while not self.done:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            try:
                message = json.loads(await asyncio.wait_for(socket.recv(), timeout=min(left, 3.0)))
            except TimeoutError:
                self._count_unanswered()
                await socket.send(json.dumps({"type": "ping"}))  # a quiet table: ask where it stands
                continue
            self.seen.last_message_at = time.monotonic()
            self._count_unanswered()
            kind = message.get("type")
            if kind == "error":
                self._refused(message)
                if message.get("code") in ("busy", "rate_limited"):
                    await asyncio.sleep(0.5)
                    await socket.send(json.dumps({"type": "sync"}))  # look again, then decide again
                continue
            if kind == "pong":
                position = message.get("position") or {}
                if last_seq is not None and position.get("seq", last_seq) > last_seq:
                    await socket.send(json.dumps({"type": "sync"}))  # an update was missed: look again
                continue
            if kind not in ("snapshot", "update"):
                continue
            if kind == "snapshot":
                if self.return_code and message["you"]["seat"] is None:
                    continue  # the spectator's snapshot on connect, before auth was answered
                self.seat = message["you"]["seat"]
                last_seq = message["seq"]
            else:
                if last_seq is not None and message["seq"] != last_seq + 1 and message["seq"] > last_seq:
                    self.seen.gaps.append((last_seq, message["seq"]))
                last_seq = max(message["seq"], last_seq or 0)
            self.seen.seqs.append(message["seq"])
            if not self.seen.advances or message["seq"] > self.seen.advances[-1][1]:
                self.seen.advances.append((time.monotonic(), message["seq"]))
            # The game moved past the position a move answered: that move landed, or its refusal follows.
            self.awaiting = {ref: sent for ref, sent in self.awaiting.items() if sent[0] >= message["seq"]}
            game, view = message.get("game"), message.get("view")
            if game is None:
                continue
            if game["status"] in OVER and (self.started or not self.host):
                self.seen.final = game
                return
            if self.host and game["status"] == "lobby" and not self.started:
                self.started = True
                await socket.send(json.dumps({"type": "start"}))
                continue
            if game["status"] == "playing":
                self.started = True
                await self._maybe_act(socket, game, view)

    def _count_unanswered(self) -> None:
        now = time.monotonic()
        late = [ref for ref, (_seq, sent_at) in self.awaiting.items() if now - sent_at > ANSWER_LIMIT]
        for ref in late:
            self.awaiting.pop(ref)
            self.seen.unanswered += 1

    def _refused(self, message: dict) -> None:
        self.awaiting.pop(message.get("ref"), None)
        self.seen.errors[message.get("code")] += 1
        if message.get("code") == "move_unanswered" and self.slug == "candles":
            self.refused_picks[self._last_pick[0]] = self._last_pick[1]
        self.in_flight = None

    async def _maybe_act(self, socket, game: dict, view: dict | None) -> None:
        if self.seat is None or view is None:
            return
        if self.slug == "candles":
            self._check_refused_pick(view)
        if self.seat not in game["to_act"]:
            self.in_flight = None
            return
        if self.sleep_first_decision and view.get("round") == 1:
            return  # candles: the table decides round 1 on timeout
        if view.get("my_pick") is not None:
            return  # candles: this round's pick has landed; the others are still deciding
        if self.in_flight is not None and self.in_flight[0] == game["seq"] and time.monotonic() - self.in_flight[1] < 3:
            return  # sent for this position already: its update or its refusal is on the way
        if self.think:
            await asyncio.sleep(self.think)
        try:
            action = choose(self.slug, view)
        except ValueError:
            return  # nothing to decide from this view after all
        self.refs += 1
        self.in_flight = (game["seq"], time.monotonic())
        self.awaiting[self.refs] = self.in_flight
        self.seen.moves_sent += 1
        if self.slug == "candles":
            self._last_pick = (view["round"], action.get("candle"))
            self.refused_picks.pop(view["round"], None)  # sent again: its landing proves nothing
        await socket.send(json.dumps({"type": "move", "seq": game["seq"], "action": action, "ref": self.refs}))

    def _check_refused_pick(self, view: dict) -> None:
        """A pick this client was told was not played must not show up as its pick unless sent again."""
        told = self.refused_picks.get(view.get("round"))
        if told is not None and view.get("my_pick") == told:
            self.seen.refused_then_played += 1
            self.refused_picks.pop(view["round"])
