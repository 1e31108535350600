"""How long a bot's whole turn lasts to the people watching it, before and after bots were paced by the
table: the strong bots play whole games of trails and pots through the engines (no server), and each
turn is timed as the table would show it.

    python bench/bot_pacing.py --games 200

A turn is the run of consecutive decisions of one seat, timed as the people watching see it: from the
moment the table has shown the move before it to the moment it has shown the turn's last move (the table
shows moves one after another). Before: every decision came a fixed 0.8 s after the move before it
(WICKWISE_BOT_DELAY_SECONDS then), whatever the table was still showing. Now: a decision comes once the
table has shown the move before it (the game's showing_seconds) and 0.25 s after (the setting's new
default). Prints the median, p95 and longest turn of each.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the project root, to run standalone
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")

import django  # noqa: E402

django.setup()

from bench.common import game_seed, percentile  # noqa: E402
from bots import pots as pots_bots  # noqa: E402
from bots import trails as trails_bots  # noqa: E402
from games import fairness, registry  # noqa: E402

OLD_DELAY = 0.8
NEW_BEAT = 0.25
SEATS = {"trails": 2, "pots": 4}
CHOOSE = {
    "trails": lambda view: trails_bots.choose(view, "strong"),
    "pots": lambda view: pots_bots.choose(view, "strong"),
}


def turns_of_one_game(slug: str, seed: str, number: int) -> list[tuple[float, float]]:
    """(before, after) seconds of each turn of one game, as the people watching see it: from the moment
    the table has shown the move before the turn to the moment it has shown the turn's last move. The
    table shows moves one after the other, so a move that arrives while it is still showing one waits."""
    spec = registry.get(slug)
    engine = spec.engine
    seats = SEATS[slug]
    mix = fairness.mix_string(game=slug, room_code="PACE", number=number, client_seeds=[None] * seats)
    state = engine.setup(seats, {}, fairness.Rng(seed, mix))
    # Per timeline: when the last move arrived, and when the table has finished showing it.
    clocks = {"before": [0.0, 0.0], "after": [0.0, 0.0]}
    turns: list[tuple[float, float]] = []
    current = None
    start = {"before": 0.0, "after": 0.0}
    for _ in range(20_000):
        acting = list(engine.to_act(state))
        if not acting:
            break
        seat = acting[0]
        if seat != current:
            if current is not None:
                turns.append((clocks["before"][1] - start["before"], clocks["after"][1] - start["after"]))
            start = {name: clock[1] for name, clock in clocks.items()}
            current = seat
        action = CHOOSE[slug](engine.view(state, seat))
        state, events = engine.apply(state, seat, action, fairness.Rng(seed, mix))
        showing = spec.showing_seconds(events)
        arrived, shown = clocks["before"]
        arrived += OLD_DELAY  # a fixed delay after the move before arrived
        clocks["before"] = [arrived, max(arrived, shown) + showing]
        arrived, shown = clocks["after"]
        arrived = shown + NEW_BEAT  # once the move before is shown, and a beat
        clocks["after"] = [arrived, arrived + showing]
    if current is not None:
        turns.append((clocks["before"][1] - start["before"], clocks["after"][1] - start["after"]))
    return turns


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", default=None, help="derive every game's seed from this, to repeat a run")
    args = parser.parse_args()
    for slug in ("trails", "pots"):
        turns = []
        for number in range(args.games):
            turns += turns_of_one_game(slug, game_seed(args.seed, slug, number), number)
        for label, index in (("before (0.8 s a decision)", 0), ("paced by the table", 1)):
            seconds = [turn[index] for turn in turns]
            print(f"{slug} bot turn, {label}: median {statistics.median(seconds):.1f} s, "
                  f"p95 {percentile(seconds, 0.95):.1f} s, longest {max(seconds):.1f} s ({len(seconds)} turns)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
