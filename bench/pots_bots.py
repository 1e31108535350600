"""Benchmark of the pots bots: the strong bot's win share at four-seat tables, and decision times.

    python bench/pots_bots.py --games 2000 --workers 2

Tables: "vs baseline" seats one strong bot against three copies of the baseline below; "vs cautious"
seats it against three cautious bots. The strong bot's seat rotates from game to game, and each game
comes from a fresh fairness seed (or from --seed, to replay a run). 25% is parity. No Django needed.

The baseline exists only here: it draws until its hand is worth 22 or more, snuffs or bellows the
leader (the highest total, then the highest hand score, other than itself when it can), and gives a
second saucer to the lowest total.
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the project root, to run standalone

from bench.common import game_seed, percentile
from bots import pots as bots
from games import fairness
from games.pots import engine

SEATS = 4
TABLES = {"vs baseline": "baseline", "vs cautious": "cautious"}
BASELINE_STOP_AT = 22
TARGET_SHARE = 0.35
TARGET_P95_MS = 50


def baseline(view: dict) -> dict:
    me = view["seat"]
    if view["phase"] == "play":
        return {"type": "draw" if view["rows"][me]["score"] < BASELINE_STOP_AT else "stop"}
    pending, totals, rows = view["pending"], view["totals"], view["rows"]
    targets = [t for t in pending["targets"] if t != me] or pending["targets"]
    if pending["card"] == engine.SAUCER:
        return {"type": "target", "seat": min(targets, key=lambda t: (totals[t], t))}
    return {"type": "target", "seat": max(targets, key=lambda t: (totals[t], rows[t]["score"], -t))}



def play_game(job: tuple[str, int, str]) -> tuple[str, bool, list[float], int]:
    """One game: (table, whether the strong bot won, its decision times in seconds, hands played)."""
    table, number, seed = job
    strong_seat = number % SEATS  # rotate the seats so the strong bot keeps none
    other = TABLES[table]
    mix = fairness.mix_string(game="pots", room_code="BENCH", number=number, client_seeds=[table])
    state = engine.setup(SEATS, {}, fairness.Rng(seed, mix))
    times = []
    while not state["finished"]:
        (seat,) = engine.to_act(state)
        seen = engine.view(state, seat)
        if seat == strong_seat:
            start = time.perf_counter()
            action = bots.choose(seen, "strong")
            times.append(time.perf_counter() - start)
        elif other == "baseline":
            action = baseline(seen)
        else:
            action = bots.choose(seen, other)
        state, _ = engine.apply(state, seat, action, fairness.Rng(seed, mix))
    won = engine.outcome(state)[0]["seat"] == strong_seat  # a tie on top never ends a game
    return table, won, times, state["hand"]



def report(results, elapsed: float) -> bool:
    ok = True
    times: list[float] = []
    for table in TABLES:
        rows = [r for r in results if r[0] == table]
        if not rows:
            continue
        games = len(rows)
        share = sum(won for _t, won, _times, _hands in rows) / games
        error = (share * (1 - share) / games) ** 0.5
        hands = statistics.fmean(h for *_rest, h in rows)
        verdict = ""
        if table == "vs baseline":
            ok &= share >= TARGET_SHARE
            verdict = f"  (target >= {TARGET_SHARE:.0%}: {'met' if share >= TARGET_SHARE else 'MISSED'})"
        print(f"{table}: {games} games, strong wins {share:.1%} ± {error:.1%}, {hands:.1f} hands a game{verdict}")
        for _t, _won, game_times, _hands in rows:
            times.extend(game_times)
    ms = [t * 1000 for t in times]
    p95 = percentile(ms, 0.95)
    ok &= p95 < TARGET_P95_MS
    print(
        f"strong decision time (ms): p50 {percentile(ms, 0.5):.2f}  p95 {p95:.2f}  max {max(ms):.2f}"
        f"  ({len(ms)} decisions; target p95 < {TARGET_P95_MS}: {'met' if p95 < TARGET_P95_MS else 'MISSED'})"
    )
    print(f"{elapsed:.0f} s wall time")
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000, help="games at each table (default 2000)")
    parser.add_argument("--workers", type=int, default=min(2, multiprocessing.cpu_count()))
    parser.add_argument("--seed", default=None, help="any text: derive the deals from it instead of fresh seeds")
    args = parser.parse_args(argv)

    jobs = [(table, n, game_seed(args.seed, table, n)) for table in TABLES for n in range(args.games)]
    start = time.perf_counter()
    if args.workers > 1:
        with multiprocessing.Pool(args.workers) as pool:
            results = list(pool.imap_unordered(play_game, jobs, chunksize=8))
    else:
        results = [play_game(job) for job in jobs]
    return 0 if report(results, time.perf_counter() - start) else 1


if __name__ == "__main__":
    sys.exit(main())
