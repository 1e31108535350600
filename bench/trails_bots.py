"""Benchmark of the trails bots: win rates in two-player games, turns to win alone, decision times.

    python bench/trails_bots.py --games 2000 --workers 2

Duels: the strong bot against a Rule-of-28 baseline written here, and against the cautious bot.
Each seed is played twice with the seats swapped (the strong bot in seat 0, then in seat 1), so both
bots see the same seeds from both seats; --games counts the games of each duel. Alone: each bot
plays by itself until its third landmark, and the mean number of turns it took is printed. Every
game comes from a fresh fairness seed, or from --seed, to replay a run. No Django needed.
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
from bots import trails as bots
from games import fairness
from games.trails import engine

TARGET_WIN_RATE = 0.60
TARGET_P95_MS = 100
MAX_TURNS = 2_000  # a safety net: no real game comes near it


# --- the Rule of 28 -------------------------------------------------------------------------------
# The classic Can't Stop progress-marker heuristic. Every step a lantern climbs this turn scores its
# trail's weight; placing a lantern scores the weight once more (the markers bonus). With all three
# lanterns out, the count is adjusted for how hard they are to keep moving: +2 if all stand on odd
# trails, -2 if all on even ones, +4 if all on trails up to 7, +4 if all on trails from 7. The player
# makes camp when the count reaches 28, or when camping wins. It climbs the pairing that makes the most
# progress by the same weights.

RULE28_WEIGHTS = (6, 5, 4, 3, 2, 1, 2, 3, 4, 5, 6)  # per step, trails 2 to 12 (Keller)
RULE28_LIMIT = 28


def rule28_count(view: dict, weights=RULE28_WEIGHTS) -> int:
    """The turn's count from the view: the lanterns against the banners they left from."""
    row = view["banners"][view["current"]]
    count = 0
    out = []
    for i, step in enumerate(view["lanterns"]):
        if step:
            out.append(engine.TRAILS[i])
            count += weights[i] * (step - row[i] + 1)  # the steps, plus the markers bonus
    if len(out) == engine.LANTERNS:
        scale = weights[5]  # the adjustments are in units of trail 7's weight
        if all(t % 2 for t in out):
            count += 2 * scale
        if all(t % 2 == 0 for t in out):
            count -= 2 * scale
        if all(t <= 7 for t in out):
            count += 4 * scale
        if all(t >= 7 for t in out):
            count += 4 * scale
    return count


def rule28_choose(view: dict, weights=RULE28_WEIGHTS) -> dict:
    phase = view["phase"]
    if phase == "throw":
        return {"type": "throw"}
    if phase == "choose":
        choices = [trails for card in view["tray"] for trails in card["choices"]]
        return {"type": "climb", "trails": max(choices, key=lambda trails: sum(weights[t - 2] for t in trails))}
    if wins_by_camping(view) or rule28_count(view, weights) >= RULE28_LIMIT:
        return {"type": "camp"}
    return {"type": "throw"}


def wins_by_camping(view: dict) -> bool:
    me = view["current"]
    summits = sum(1 for i, step in enumerate(view["lanterns"]) if step == engine.LENGTHS[i])
    return view["landmarks"][me] + summits >= engine.LANDMARKS_TO_WIN


PLAYERS = {
    "strong": lambda view: bots.choose(view, "strong"),
    "cautious": lambda view: bots.choose(view, "cautious"),
    "rule28": rule28_choose,
}
DUELS = ("rule28", "cautious")


# --- games ----------------------------------------------------------------------------------------


def timed(player: str, view: dict, times: list[tuple[float, float]]) -> dict:
    start, start_cpu = time.perf_counter(), time.thread_time()
    action = PLAYERS[player](view)
    times.append((time.perf_counter() - start, time.thread_time() - start_cpu))
    return action


def play_duel(job: tuple[str, int, str]) -> tuple[str, str, int, list[tuple[float, float]]]:
    """One two-player game; returns the duel, the winner's level, the turns and the strong bot's times."""
    opponent, number, seed = job
    levels = ("strong", opponent) if number % 2 == 0 else (opponent, "strong")
    mix = fairness.mix_string(game="trails", room_code="BENCH", number=number // 2, client_seeds=[opponent, None])
    state = engine.setup(2, {}, fairness.Rng(seed, mix))
    times: list[tuple[float, float]] = []
    while not state["finished"] and state["turn"] <= MAX_TURNS:
        seat = state["current"]
        seen = engine.view(state, seat)
        action = timed(levels[seat], seen, times) if levels[seat] == "strong" else PLAYERS[levels[seat]](seen)
        state, _events = engine.apply(state, seat, action, fairness.Rng(seed, mix))
    winner = levels[state["winner"]] if state["finished"] else "nobody"
    return opponent, winner, state["turn"], times


def play_alone(job: tuple[str, int, str]) -> tuple[str, int, list[tuple[float, float]]]:
    """One bot alone until its third landmark: a two-seat game whose other seat never takes a turn."""
    player, number, seed = job
    mix = fairness.mix_string(game="trails", room_code="SOLO", number=number, client_seeds=[player, None])
    state = engine.setup(2, {}, fairness.Rng(seed, mix))
    state["current"] = 0
    turns, times = 1, []
    while not state["finished"] and turns <= MAX_TURNS:
        action = timed(player, engine.view(state, 0), times)
        state, _events = engine.apply(state, 0, action, fairness.Rng(seed, mix))
        if state["current"] != 0 and not state["finished"]:
            state = {**state, "current": 0}  # the empty seat passes
            turns += 1
    return player, turns, times if player == "strong" else []


def run(job):
    return ("alone", *play_alone(job[1:])) if job[0] == "alone" else ("duel", *play_duel(job[1:]))


# --- report ---------------------------------------------------------------------------------------


def report(results, elapsed: float) -> bool:
    wins = {opponent: [] for opponent in DUELS}
    duel_turns = {opponent: [] for opponent in DUELS}
    alone: dict[str, list[int]] = {}
    times: list[tuple[float, float]] = []
    for kind, *rest in results:
        if kind == "duel":
            opponent, winner, turns, game_times = rest
            wins[opponent].append(winner == "strong")
            duel_turns[opponent].append(turns)
        else:
            player, turns, game_times = rest
            alone.setdefault(player, []).append(turns)
        times.extend(game_times)

    ok = True
    for opponent in DUELS:
        games = len(wins[opponent])
        if not games:
            continue
        rate = sum(wins[opponent]) / games
        error = (rate * (1 - rate) / games) ** 0.5
        line = f"strong vs {opponent:<9} {rate:6.1%} ± {error:.1%} of {games} games (seats swapped)"
        line += f", {statistics.fmean(duel_turns[opponent]):.1f} turns a game (both seats)"
        if opponent == "rule28":
            ok &= rate >= TARGET_WIN_RATE
            line += f"  (target >= {TARGET_WIN_RATE:.0%}: {'met' if rate >= TARGET_WIN_RATE else 'MISSED'})"
        print(line)

    print("\nturns to win alone (three landmarks, nobody else on the map)")
    for player in PLAYERS:
        values = alone.get(player)
        if values:
            error = statistics.stdev(values) / len(values) ** 0.5 if len(values) > 1 else 0.0
            print(f"  {player:<9} {statistics.fmean(values):6.2f} ± {error:.2f}  ({len(values)} games)")

    if times:
        wall = [w * 1000 for w, _ in times]
        cpu = [c * 1000 for _, c in times]
        p95 = percentile(wall, 0.95)
        print("\nstrong decision time (ms): wall clock, and CPU time of the deciding thread")
        print(f"  p50 {percentile(wall, 0.5):7.2f}  p95 {p95:7.2f}  max {max(wall):7.2f}"
              f"  | cpu p50 {percentile(cpu, 0.5):7.2f}  p95 {percentile(cpu, 0.95):7.2f}  max {max(cpu):7.2f}"
              f"  ({len(wall)} decisions)")
        ok &= p95 < TARGET_P95_MS
        print(f"  p95 target < {TARGET_P95_MS} ms: {'met' if p95 < TARGET_P95_MS else 'MISSED'}")
    print(f"\n{elapsed:.0f} s wall time")
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000, help="games of each duel (default 2000)")
    parser.add_argument("--alone", type=int, default=None, help="games alone per bot (default: games / 4)")
    parser.add_argument("--workers", type=int, default=min(2, multiprocessing.cpu_count()))
    parser.add_argument("--seed", default=None, help="any text: derive the games from it instead of fresh seeds")
    args = parser.parse_args(argv)
    alone = args.games // 4 if args.alone is None else args.alone

    jobs = []
    for opponent in DUELS:
        seeds = [game_seed(args.seed, opponent, n) for n in range((args.games + 1) // 2)]
        jobs += [("duel", opponent, n, seeds[n // 2]) for n in range(args.games)]
    for player in PLAYERS:
        jobs += [("alone", player, n, game_seed(args.seed, f"alone {player}", n)) for n in range(alone)]
    start = time.perf_counter()
    if args.workers > 1:
        with multiprocessing.Pool(args.workers) as pool:
            results = list(pool.imap_unordered(run, jobs, chunksize=4))
    else:
        results = [run(job) for job in jobs]
    return 0 if report(results, time.perf_counter() - start) else 1


if __name__ == "__main__":
    sys.exit(main())
