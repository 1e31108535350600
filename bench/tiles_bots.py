"""Benchmark of the strong tiles AI: tiles played against the optimum without crossings, validity,
decision times, and games against the no-crossing optimum and the basic bot.

    python bench/tiles_bots.py --games 1000 --workers 2 --seed tiles

Positions: every decision the strong AI takes in phase play in the games below is a position of the
suite (self-play with fixed seeds when --seed is given). For each, the hand tiles it put down are
compared with the optimum without crossings (the same integer program with sets side by side only,
solved to optimality without a node limit: the yardstick ignores the board's room), and its action is
applied by the engine itself, which refuses an invalid table. Then hand-made positions where only a
crossing lets anything be played (a table of sets, and a hand of two tiles that make a set only
across one of the table's tiles, jokers included): the yardstick is 0 there by construction, and the
AI should play.

Games: two seats with the seats swapped (each seed twice) against a bot that plays the optimum
without crossings (`bots.tiles_ai.choose_no_crossings`) and against the basic bot, and tables of three
and four (the AI against no-crossing bots). A win is a first place alone; a shared first place counts
half. No Django needed.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import statistics
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the project root, to run standalone

from bench.common import game_seed, percentile
from bots import tiles as basic_bots
from bots import tiles_ai
from games import fairness
from games.errors import IllegalAction
from games.tiles import engine, rules

TARGET_NO_FEWER = 1.0
TARGET_VALID = 1.0
TARGET_P95_S = 1.5
TARGET_MAX_S = 2.0
TARGET_VS_NO_CROSSINGS = 0.65
TARGET_VS_BASIC = 0.95
MAX_TURNS = 1_000  # a safety net: a blocked game ends far sooner

NODE_LIMIT = 500  # branch-and-bound nodes per program: results repeat while the time limit is not hit
TIME_LIMIT = 2.0


LAST: dict = {}  # the strong AI's last decision in this process, for the report on misses


def strong(view: dict) -> dict:
    """The strong AI without its safety net, so that a flaw shows here instead of becoming a draw."""
    if view["phase"] == "begin":
        return tiles_ai.choose_strong(view)
    decision = tiles_ai.best_play(view, time_limit=TIME_LIMIT, node_limit=NODE_LIMIT)
    LAST["decision"] = decision
    return decision.action


def no_crossings(view: dict) -> dict:
    return tiles_ai.choose_no_crossings(view, time_limit=TIME_LIMIT, node_limit=NODE_LIMIT)


PLAYERS = {
    "strong": strong,
    "nocross": no_crossings,
    "basic": lambda view: basic_bots.choose(view, "basic"),
}


def added(view: dict, action: dict) -> int:
    if action["type"] != "play":
        return 0
    before = {tile for tile, _, _ in view["table"]}
    return sum(1 for tile, _, _ in action["table"] if tile not in before)


def measured(view: dict, action: dict, wall: float, cpu: float) -> dict:
    optimum, proved = tiles_ai.optimum_without_crossings(view)
    return {"played": added(view, action), "optimum": optimum, "proved": proved, "wall": wall, "cpu": cpu}


# --- games ----------------------------------------------------------------------------------------


def play_game(job: tuple) -> dict:
    """One game; the strong AI in seat `number % seats`, the opponent level in the others."""
    _kind, opponent, seats, number, seed = job
    me = number % seats
    levels = [opponent] * seats
    levels[me] = "strong"
    mix = fairness.mix_string(game="tiles", room_code="BENCH", number=number // seats,
                              client_seeds=[opponent, str(seats)])
    rng = fairness.Rng(seed, mix)
    state = engine.setup(seats, {}, rng)
    positions = []
    while state["phase"] != "over" and state["turn"] <= MAX_TURNS:
        seat = state["current"]
        seen = engine.view(state, seat)
        start, start_cpu = time.perf_counter(), time.thread_time()
        error = False
        try:
            action = PLAYERS[levels[seat]](seen)
        except Exception:
            if levels[seat] != "strong":
                raise
            traceback.print_exc()
            action, error = engine.table_choice(state, seat), True  # what its safety net would send
        wall, cpu = time.perf_counter() - start, time.thread_time() - start_cpu
        valid = True
        try:
            state, _events = engine.apply(state, seat, action, rng)
        except IllegalAction:
            valid = False
            state, _events = engine.apply(state, seat, engine.table_choice(state, seat), rng)
        if levels[seat] == "strong" and seen["phase"] == "play":
            row = {**measured(seen, action, wall, cpu), "valid": valid, "error": error}
            if row["played"] < row["optimum"] and not error:
                d = LAST["decision"]
                row["miss"] = (f"table {len(seen['table'])}, hand {len(seen['hand'])}: stages run {d.stages},"
                               f" solves {d.solves}, layouts {d.attempts}, wall {wall:.2f} s, cpu {cpu:.2f} s")
            positions.append(row)
    places = {row["seat"]: row["place"] for row in engine.outcome(state) or []}
    firsts = [seat for seat, place in places.items() if place == 1]
    score = (1.0 / len(firsts)) if me in firsts else 0.0
    return {"kind": "game", "opponent": opponent, "seats": seats, "score": score, "positions": positions,
            "turns": state["turn"], "over": state["phase"] == "over"}


# --- positions where only a crossing plays --------------------------------------------------------


def crossing_position(number: int, seed: str) -> dict | None:
    """A table of a few sets and a hand whose only play crosses a table tile (or None if the draw
    happened to allow a play without a crossing)."""
    chooser = random.Random(f"{seed}|crossing|{number}")
    tiles = list(range(rules.TILE_COUNT))
    chooser.shuffle(tiles)
    free = set(tiles)
    table, y = [], 0
    for _ in range(chooser.randint(1, 4)):
        line = random_set(chooser, free)
        if line is None:
            break
        x = chooser.randint(0, 24 - len(line))
        table += [[tile, x + k, y] for k, tile in enumerate(line)]
        free -= set(line)
        y += chooser.choice((6, 7))
        if y >= 16:
            break
    if not table:
        return None
    anchor = chooser.choice(table)[0]
    hand = crossing_hand(chooser, anchor, free)
    if hand is None:
        return None
    view = {"game": "tiles", "phase": "play", "seat": 0, "current": 0, "board": [24, 16], "bag": 10,
            "table": sorted(table), "hand": sorted(hand), "chooser": 0}
    if not rules.judge(view["table"]).valid or tiles_ai.optimum_without_crossings(view)[0] != 0:
        return None
    return view


def random_set(chooser: random.Random, free: set[int]) -> list[int] | None:
    for _ in range(50):
        if chooser.random() < 0.5:
            colour, length = chooser.randrange(4), chooser.randint(3, 5)
            start = chooser.randint(1, 14 - length)
            faces = [colour * 13 + start - 1 + k for k in range(length)]
        else:
            number = chooser.randint(1, 13)
            faces = [c * 13 + number - 1 for c in chooser.sample(range(4), chooser.choice((3, 4)))]
        line = [next((t for t in (f, f + 52) if t in free), None) for f in faces]
        if None not in line:
            return line
    return None


def crossing_hand(chooser: random.Random, anchor: int, free: set[int]) -> list[int] | None:
    """Two free tiles making a set with `anchor` (a joker is any tile), and no other tile."""
    def near(tile: int) -> bool:
        if rules.is_joker(tile) or rules.is_joker(anchor):
            return True
        same_colour = rules.colour(tile) == rules.colour(anchor) and abs(rules.number(tile) - rules.number(anchor)) <= 2
        return same_colour or rules.number(tile) == rules.number(anchor)

    candidates = sorted(t for t in free if near(t))
    options = []
    for a in candidates:
        for b in candidates:
            if a < b and not (rules.is_joker(a) and rules.is_joker(b)):
                for order in ((a, anchor, b), (anchor, a, b), (a, b, anchor)):
                    if rules.judge([[t, k, 0] for k, t in enumerate(order)]).valid:
                        options.append([a, b])
                        break
    return chooser.choice(options) if options else None


def crossing_job(job: tuple) -> dict:
    _kind, number, seed = job
    view = crossing_position(number, seed)
    if view is None:
        return {"kind": "crossing", "position": None}
    start, start_cpu = time.perf_counter(), time.thread_time()
    action = strong(view)
    wall, cpu = time.perf_counter() - start, time.thread_time() - start_cpu
    valid = action["type"] != "play" or tiles_ai.acceptable(tiles_ai.Position.of(view), action["table"])
    return {"kind": "crossing", "position": {"played": added(view, action), "optimum": 0, "proved": True,
                                             "wall": wall, "cpu": cpu, "valid": valid}}


def run(job: tuple) -> dict:
    return crossing_job(job) if job[0] == "crossing" else play_game(job)


# --- report ---------------------------------------------------------------------------------------


def report(results: list[dict], elapsed: float, workers: int) -> bool:
    ok = True
    positions = [p for r in results if r["kind"] == "game" for p in r["positions"]]
    crossing = [r["position"] for r in results if r["kind"] == "crossing" and r["position"]]
    print(f"positions from self-play: {len(positions)} decisions of the strong AI in phase play")
    if positions:
        fewer = sum(p["played"] < p["optimum"] for p in positions)
        more = sum(p["played"] > p["optimum"] for p in positions)
        valid = sum(p["valid"] for p in positions)
        unproved = sum(not p["proved"] for p in positions)
        print(f"  tiles played >= optimum without crossings: {1 - fewer / len(positions):.2%}"
              f" ({fewer} fewer; target 100%: {'met' if not fewer else 'MISSED'})")
        print(f"  plays more than that optimum: {more / len(positions):.2%} ({more})")
        print(f"  tables the engine accepted: {valid / len(positions):.2%}"
              f" (target 100%: {'met' if valid == len(positions) else 'MISSED'})")
        print(f"  mean tiles a decision: AI {statistics.fmean(p['played'] for p in positions):.2f},"
              f" optimum without crossings {statistics.fmean(p['optimum'] for p in positions):.2f}"
              f" ({unproved} yardsticks not proved optimal)")
        for p in positions:
            if "miss" in p:
                print(f"    fewer ({p['played']} < {p['optimum']}): {p['miss']}")
        errors = sum(p.get("error", False) for p in positions)
        print(f"  searches that failed with an error (a draw or pass sent instead): {errors}")
        ok &= not fewer and valid == len(positions) and not errors
    if crossing:
        plays = sum(p["played"] > 0 for p in crossing)
        valid = sum(p["valid"] for p in crossing)
        print(f"hand-made positions where only a crossing plays: {len(crossing)};"
              f" the AI played in {plays / len(crossing):.1%}, valid {valid / len(crossing):.1%}")
        ok &= valid == len(crossing)
        positions = positions + crossing
    if positions:
        wall = [p["wall"] for p in positions]
        cpu = [p["cpu"] for p in positions]
        p95 = percentile(wall, 0.95)
        print(f"decision time (s), wall: p50 {percentile(wall, 0.5):.3f}  p95 {p95:.3f}  max {max(wall):.3f}"
              f"  | cpu: p50 {percentile(cpu, 0.5):.3f}  p95 {percentile(cpu, 0.95):.3f}  max {max(cpu):.3f}"
              f"  ({len(wall)} decisions, {workers} workers)")
        print(f"  targets p95 <= {TARGET_P95_S} s: {'met' if p95 <= TARGET_P95_S else 'MISSED'};"
              f" max <= {TARGET_MAX_S} s: {'met' if max(wall) <= TARGET_MAX_S else 'MISSED'}")
        ok &= p95 <= TARGET_P95_S and max(wall) <= TARGET_MAX_S
    games: dict[tuple[str, int], list[dict]] = {}
    for r in results:
        if r["kind"] == "game":
            games.setdefault((r["opponent"], r["seats"]), []).append(r)
    for (opponent, seats), rows in sorted(games.items(), key=lambda item: (item[0][1], item[0][0])):
        n = len(rows)
        rate = sum(r["score"] for r in rows) / n
        error = (rate * (1 - rate) / n) ** 0.5
        line = (f"strong vs {opponent:<7} at {seats} seats: {rate:6.1%} ± {error:.1%} first places of {n} games"
                f", {statistics.fmean(r['turns'] for r in rows):.0f} turns a game")
        target = {("nocross", 2): TARGET_VS_NO_CROSSINGS, ("basic", 2): TARGET_VS_BASIC}.get((opponent, seats))
        if target is not None:
            line += f"  (target >= {target:.0%}: {'met' if rate >= target else 'MISSED'})"
            ok &= rate >= target
        elif seats > 2:
            line += f"  (parity {1 / seats:.0%})"
        print(line)
    print(f"\n{elapsed:.0f} s wall time")
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000, help="two-seat games against each opponent")
    parser.add_argument("--tables", type=int, default=None, help="games at three and at four seats"
                        " (default: games / 10)")
    parser.add_argument("--crossings", type=int, default=200, help="hand-made crossing positions to draw")
    parser.add_argument("--workers", type=int, default=min(2, multiprocessing.cpu_count()))
    parser.add_argument("--progress", type=int, default=0, help="print the figures so far every N jobs")
    parser.add_argument("--seed", default=None, help="any text: derive the games from it instead of fresh seeds")
    args = parser.parse_args(argv)
    tables = args.games // 10 if args.tables is None else args.tables

    jobs = [("crossing", n, args.seed or fairness.new_seed()) for n in range(args.crossings)]
    for opponent, seats, count in (("nocross", 2, args.games), ("basic", 2, args.games),
                                   ("nocross", 3, tables), ("nocross", 4, tables)):
        seeds = [game_seed(args.seed, f"{opponent} {seats}", n) for n in range((count + seats - 1) // seats)]
        jobs += [("game", opponent, seats, n, seeds[n // seats]) for n in range(count)]
    # interleave the kinds so that a run cut short still has some of each
    jobs.sort(key=lambda job: (job[3] if job[0] == "game" else job[1], job[0]))
    start = time.perf_counter()
    results: list[dict] = []
    pool = multiprocessing.Pool(args.workers) if args.workers > 1 else None
    for result in (pool.imap_unordered(run, jobs, chunksize=1) if pool else map(run, jobs)):
        results.append(result)
        if args.progress and len(results) % args.progress == 0 and len(results) < len(jobs):
            print(f"--- after {len(results)} of {len(jobs)} jobs", flush=True)
            report(results, time.perf_counter() - start, args.workers)
            print(flush=True)
    if pool:
        pool.close()
    print(f"=== all {len(jobs)} jobs")
    return 0 if report(results, time.perf_counter() - start, args.workers) else 1


if __name__ == "__main__":
    sys.exit(main())
