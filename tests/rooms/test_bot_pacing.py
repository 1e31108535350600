"""Bots are paced by what the table needs to show: a bot decides once the table has shown the move that
posed its decision (the game's showing_seconds), a short beat after."""

from __future__ import annotations

import time

import pytest
from django.conf import settings
from django.test import override_settings

from games import registry
from games.pots import spec as pots_spec
from games.trails import spec as trails_spec
from rooms import services
from tests.rooms.helpers import candle_for, game_in_play, lowest_candle, started_room, timers
from tests.support import flush_suite_redis


def test_a_throw_is_shown_for_its_roll_and_a_fall_for_longer():
    pace = trails_spec.TABLE_PACE
    assert trails_spec.showing_seconds([{"type": "thrown", "dice": [1, 2, 3, 4], "busted": False}]) == pace["roll"]
    busted = trails_spec.showing_seconds([{"type": "thrown", "dice": [1, 1, 1, 1], "busted": True}])
    assert busted == pytest.approx(pace["roll"] + pace["fall"])
    assert trails_spec.showing_seconds([{"type": "climbed"}]) == 0


def test_cards_and_words_are_shown_one_after_another_and_a_deal_goes_quicker():
    pace = pots_spec.TABLE_PACE
    one_card = [{"type": "card", "seat": 0}, {"type": "stopped", "seat": 0}]
    assert pots_spec.showing_seconds(one_card) == pytest.approx(pace["card"] + pace["word"])
    deal = [{"type": "hand", "hand": 2}] + [{"type": "card", "seat": s} for s in range(8)] + [{"type": "reshuffled"}]
    assert pots_spec.showing_seconds(deal) == pytest.approx(pace["hand"] + 8 * pace["quickCard"])
    assert pots_spec.showing_seconds([{"type": "hand", "hand": 1}]) == 0, "the first deal starts at once"
    assert registry.get("pots").table_settings == {"pace": pace}


@pytest.mark.django_db(transaction=True)
@override_settings(WICKWISE={**settings.WICKWISE, "BOT_WAITS_FOR_TABLE": True, "BOT_DELAY_SECONDS": 0.25})
def test_a_bot_decides_once_the_reveal_before_it_is_shown():
    flush_suite_redis()
    code, _, game = started_room(1, 2)
    assert services.play_bot_turn(game_id=game.pk, seat=1, prompt=game.prompts["1"], choose=lowest_candle)
    game = game_in_play(code)
    before = time.time()
    services.submit_move(room_code=code, seat=0, seq=game.seq, action=candle_for(game, 0))
    game = game_in_play(code)
    placed = [{"type": "place", **placement} for placement in game.state["last_round"]]
    due = timers()[f"bot:{game.pk}:1:{game.prompts['1']}"]
    expected = before + registry.get("candles").showing_seconds(placed) + 0.25
    assert expected - 0.05 <= due <= expected + 1.0
    flush_suite_redis()
