"""The exact text each seat receives for a candles move (broadcast.prepare_game_update), pinned byte for byte.

The pinned texts (update_texts.json, beside this file) were written by the code as it stood before a seat's
view was encoded from a public part and the seat's own part, and each seat's events from one encoding: a
change in how an update is built must leave every byte as it was."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from unittest import mock

import pytest

from games import fairness
from games.candles import engine
from rooms import broadcast
from rooms.models import Game, Move

PINNED = json.loads((Path(__file__).with_name("update_texts.json")).read_text(encoding="utf-8"))
SEED = "5e" * 32
PLAYERS = [{"name": "Zoë \U0001f56f", "bot": False}, {"name": 'a "quoted" \\ name</script>', "bot": False},
           {"name": "Bot Ana", "bot": True}, {"name": "Rui", "bot": False}]


def candles_game(picks: int) -> tuple[Game, list[dict]]:
    """A four-seat game of a fixed deal after `picks` picks (each seat in turn plays its lowest candle), as a
    move leaves it in memory before its update is built, and that last pick's events."""
    state = engine.setup(4, {}, fairness.Rng(SEED, "pinned"))
    events: list[dict] = []
    for number in range(picks):
        seat = number % 4
        state, events = engine.apply(state, seat, {"type": "play", "candle": min(state["hands"][seat])})
    over = engine.outcome(state) is not None
    game = Game(
        id=7, room_id=3, room_code="PQRSTU", game="candles", number=2,
        status=Game.Status.FINISHED if over else Game.Status.PLAYING, options={"round_seconds": 30},
        players=PLAYERS, seed=SEED, fingerprint="f0" * 32, client_seeds={"1": "x\u00e9"}, state=state,
        seq=picks, version=picks + 1, prompts={} if over else {str(s): picks for s in engine.to_act(state)},
        deadline_at=None if over else datetime(2026, 12, 6, 1, 2, 3, 456789, tzinfo=UTC),
        deadline_seq=None if over else picks, clocks={"used": [1.5, 0.25, 0.0, 1e-7], "total": 2.0},
        result=engine.outcome(state), ended_at=datetime(2026, 12, 6, 2, tzinfo=UTC) if over else None,
    )
    return game, events


def texts(game: Game, events: list[dict]) -> dict:
    sent = []
    with mock.patch.object(broadcast, "_send", lambda group, message: sent.append(message)), \
            mock.patch.object(broadcast.positions, "changed", lambda code: None):
        broadcast.prepare_game_update(game, events, mover="m0")()
    [message] = sent
    return message["texts"]


CASES = {
    # A pick that leaves the round open: one event, every seat sees it.
    "first_pick": (1, None),
    # The round's last pick, told by its reveal, each placement and the next round; the table chose it for its
    # seat, which alone hears so (an event marked `only`, as services._after_move adds it).
    "round_resolved_by_the_table": (4, Move.By.TABLE),
    # The game's last pick: the ranking, the seed revealed.
    "last_pick": (engine.ROUNDS * 4, None),
}


@pytest.mark.parametrize("case", CASES)
def test_each_seats_update_text_is_the_pinned_bytes(case):
    picks, played_for = CASES[case]
    game, events = candles_game(picks)
    if played_for is not None:
        seat = (picks - 1) % 4
        events = [*events, {"type": "played_for", "seat": seat, "by": played_for, "only": seat}]
    assert texts(game, events) == PINNED[case]
