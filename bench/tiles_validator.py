"""Benchmark of the tiles validator (games.tiles.rules.judge) on full and dense boards, in one process.

    python bench/tiles_validator.py [--calls 5000]

Prints, for each board, the median, p99 and mean time of one judgement in microseconds. The AI calls
the validator thousands of times a decision, so the target is well under 1,000 us on a full board.

Boards: "full" holds all 106 tiles, valid, the two jokers in crossings (each ends its row's run and both
share one column group, so they are judged together); "full transposed" is the same turned by 90
degrees (long columns instead of long rows); "full, one swap" is the full board with two tiles
exchanged, invalid (the AI's rejected tries look like this); "runs" holds all 106 tiles as runs of 12-13
on every other row, jokers at run ends, plus a column group; "bot endgame" is the table at the end of a
game of basic bots.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the project root, to run standalone

from bench.common import percentile
from bots import tiles as bots
from games import fairness
from games.tiles import engine
from games.tiles.rules import judge
from tests.games.tiles.boards import full_board, spaced_runs_board

SEED = "7a" * 32


def transposed(table):
    return sorted((tile, y, x) for tile, x, y in table)


def one_swap(table):
    """Two tiles of the first block's second row exchanged: its run and two column groups break."""
    at = {tile: (x, y) for tile, x, y in table}
    first, second = sorted(tile for tile, (_, y) in at.items() if y == 1)[2:4]
    at[first], at[second] = at[second], at[first]
    return sorted((tile, x, y) for tile, (x, y) in at.items())


def bot_endgame():
    rng = fairness.Rng(SEED, "bench|tiles")
    state = engine.setup(4, {}, rng)
    while state["phase"] != "over":
        (seat,) = engine.to_act(state)
        state = engine.apply(state, seat, bots.choose(engine.view(state, seat), "basic"), rng)[0]
    return [tuple(item) for item in state["table"]]


def boards() -> dict[str, list]:
    full = full_board()
    return {
        "full": full,
        "full transposed": transposed(full),
        "full, one swap": one_swap(full),
        "runs": spaced_runs_board(),
        "bot endgame": bot_endgame(),
    }


def measure(table, calls: int) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU (this thread's) microseconds of each of `calls` judgements."""
    judge(table)  # warm up
    wall, cpu = [], []
    wall_clock, cpu_clock = time.perf_counter_ns, time.thread_time_ns
    for _ in range(calls):
        start_wall, start_cpu = wall_clock(), cpu_clock()
        judge(table)
        cpu.append((cpu_clock() - start_cpu) / 1000)
        wall.append((wall_clock() - start_wall) / 1000)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=5000, help="judgements per board")
    args = parser.parse_args()
    print("microseconds per judgement; wall clock, then this thread's CPU time (what other work on the")
    print("machine does not inflate)")
    print(f"{'board':<16} {'tiles':>5} {'valid':>5} | {'median':>7} {'p99':>7} {'mean':>7} | "
          f"{'cpu med':>7} {'cpu p99':>7} {'cpu mean':>8}")
    for name, table in boards().items():
        wall, cpu = measure(table, args.calls)
        figures = [statistics.median(wall), percentile(wall, 0.99), statistics.fmean(wall),
                   statistics.median(cpu), percentile(cpu, 0.99), statistics.fmean(cpu)]
        print(f"{name:<16} {len(table):>5} {judge(table).valid!s:>5} | "
              + " ".join(f"{value:>7.1f}" for value in figures[:3]) + " | "
              + " ".join(f"{value:>7.1f}" for value in figures[3:5]) + f" {figures[5]:>8.1f}")


if __name__ == "__main__":
    main()
