"""The candles countdown: a round after a reveal starts its clock once the table has told the reveal."""

from __future__ import annotations

import pytest

from games import registry
from games.candles.spec import reveal_seconds


def placed(*taken: list[int]) -> list[dict]:
    return [{"type": "place", "seat": seat, "taken": list(candles)} for seat, candles in enumerate(taken)]


def test_a_move_that_reveals_nothing_adds_no_time():
    assert reveal_seconds([{"type": "picked", "seat": 0}]) == 0
    assert registry.get("candles").countdown_seconds({"round_seconds": 15}, [{"type": "picked", "seat": 1}]) == 15


def test_a_reveal_adds_the_time_the_table_takes_to_tell_it():
    four = reveal_seconds(placed([], [], [], []))
    assert four == pytest.approx(0.75 + 4 * 0.6 + 0.25)
    # A shelf collected takes its slide on top; ten seats place faster, one after another.
    assert reveal_seconds(placed([], [3, 9, 12, 40, 41], [], [])) > four
    ten = reveal_seconds(placed(*[[]] * 10))
    assert ten == pytest.approx(0.75 + 10 * 0.48 + 0.25)
    countdown = registry.get("candles").countdown_seconds({"round_seconds": 30}, placed(*[[]] * 10))
    assert countdown == pytest.approx(30 + ten)


def test_a_move_with_nothing_to_show_counts_down_its_decision_time_only():
    # Trails and pots show throws and cards too (bench/bot_pacing.py); a move that shows nothing adds nothing.
    for slug, quiet in (("trails", {"type": "climbed"}), ("pots", {"type": "reshuffled"})):
        spec = registry.get(slug)
        options = spec.clean_options({})
        assert spec.countdown_seconds(options, [quiet]) == spec.decision_seconds(options)
    trails = registry.get("trails")
    throw = [{"type": "thrown", "dice": [1, 2, 3, 4], "busted": False}]
    assert trails.countdown_seconds({}, throw) == pytest.approx(40 + trails.table_settings["pace"]["roll"])
