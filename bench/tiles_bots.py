"""Benchmark of the strong tiles AI: tiles played against the optimum without crossings, validity,
decision times, and games against the no-crossing optimum and the basic bot.

    python bench/tiles_bots.py --games 1000 --workers 2 --seed tiles

Three parts:

1. Games. Two seats with the seats swapped (each seed twice) against a bot that plays the optimum without
   crossings (`bots.tiles_ai.choose_no_crossings`) and against the basic bot, `--games` each, and tables
   of three and four (the AI against no-crossing bots), `--tables` each. A win is a first place alone; a
   shared first place counts half. Every play of the AI is applied by the engine, which refuses an
   invalid table. The AI and the no-crossing bot run on a node limit (`NODE_LIMIT`) with a clock far
   beyond it (`GAME_TIME_LIMIT`), so the same seed gives the same games however loaded the machine is.
2. The suite of positions: every decision the AI takes in phase play in the first `--suite` games of each
   two-seat duel, and hand-made positions where only a crossing lets anything be played (a table of sets,
   and a hand of two tiles that make a set only across one of the table's tiles, jokers included). For
   each, the hand tiles the AI put down are compared with the optimum without crossings (the same integer
   program with sets side by side only, solved to optimality without a node limit: this yardstick ignores
   the board's room). On the hand-made positions the yardstick is 0 by construction.
3. Decision time: the suite's positions decided again one at a time in this process with the settings of
   live play (a 2 s time limit, no node limit), while no game runs: the AI has one core, as with one bot
   process, and the other is left to the rest of the site. Wall and CPU time, and the same comparisons as
   in part 2, with those settings.

No Django needed.
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

NODE_LIMIT = 500  # branch-and-bound nodes per program in the games: results repeat on any machine
GAME_TIME_LIMIT = 30.0  # far beyond what the node limit takes, so that the clock never decides a game
LIVE_TIME_LIMIT = tiles_ai.DEFAULT_TIME_LIMIT  # part 3: what live play gives a decision
TARGET_SUITE = 2_000  # positions in the suite at least


LAST: dict = {}  # the strong AI's last decision in this process, for the report on misses


def strong(view: dict, *, time_limit: float = GAME_TIME_LIMIT, node_limit: int | None = NODE_LIMIT) -> dict:
    """The strong AI without its safety net, so that a flaw shows here instead of becoming a draw."""
    if view["phase"] == "begin":
        return tiles_ai.choose_strong(view)
    decision = tiles_ai.best_play(view, time_limit=time_limit, node_limit=node_limit)
    LAST["decision"] = decision
    return decision.action


def no_crossings(view: dict) -> dict:
    return tiles_ai.choose_no_crossings(view, time_limit=GAME_TIME_LIMIT, node_limit=NODE_LIMIT)


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
    return {"played": added(view, action), "optimum": optimum, "proved": proved, "wall": wall, "cpu": cpu,
            "view": view}


def miss(seen: dict, wall: float, cpu: float) -> str:
    d = LAST["decision"]
    return (f"table {len(seen['table'])}, hand {len(seen['hand'])}: stages run {d.stages}, solves {d.solves},"
            f" layouts {d.attempts}, wall {wall:.2f} s, cpu {cpu:.2f} s")


# --- games ----------------------------------------------------------------------------------------


def play_game(job: tuple) -> dict:
    """One game; the strong AI in seat `number % seats`, the opponent level in the others. Its decisions
    in phase play become positions of the suite when `in_suite`."""
    _kind, opponent, seats, number, seed, in_suite = job
    me = number % seats
    levels = [opponent] * seats
    levels[me] = "strong"
    mix = fairness.mix_string(game="tiles", room_code="BENCH", number=number // seats,
                              client_seeds=[opponent, str(seats)])
    rng = fairness.Rng(seed, mix)
    state = engine.setup(seats, {}, rng)
    positions = []
    plays = invalid = 0
    while state["phase"] != "over" and state["turn"] <= MAX_TURNS:
        seat, before = state["current"], state
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
            plays += action["type"] == "play"
            invalid += not valid
            if in_suite:
                row = {**measured(seen, action, wall, cpu), "valid": valid, "error": error, "state": before}
                if row["played"] < row["optimum"] and not error:
                    row["miss"] = miss(seen, wall, cpu)
                positions.append(row)
    places = {row["seat"]: row["place"] for row in engine.outcome(state) or []}
    firsts = [seat for seat, place in places.items() if place == 1]
    score = (1.0 / len(firsts)) if me in firsts else 0.0
    return {"kind": "game", "opponent": opponent, "seats": seats, "score": score, "positions": positions,
            "turns": state["turn"], "over": state["phase"] == "over", "plays": plays, "invalid": invalid}


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
                                             "wall": wall, "cpu": cpu, "valid": valid, "view": view}}


def run(job: tuple) -> dict:
    return crossing_job(job) if job[0] == "crossing" else play_game(job)


# --- decision time with the settings of live play ---------------------------------------------------


def timed_again(row: dict) -> dict:
    """A suite position decided again as live play decides it: the default time limit, no node limit."""
    view = row["view"]
    start, start_cpu = time.perf_counter(), time.thread_time()
    action = strong(view, time_limit=LIVE_TIME_LIMIT, node_limit=None)
    wall, cpu = time.perf_counter() - start, time.thread_time() - start_cpu
    if action["type"] != "play":
        valid = True
    elif "state" in row:  # judged by the engine itself, as in the games
        try:
            engine.apply(row["state"], view["seat"], action)
            valid = True
        except IllegalAction:
            valid = False
    else:  # a hand-made position has no game behind it: the engine's checks, as the AI runs them
        valid = tiles_ai.acceptable(tiles_ai.Position.of(view), action["table"])
    timed = {"played": added(view, action), "optimum": row["optimum"], "proved": row["proved"], "wall": wall,
             "cpu": cpu, "valid": valid}
    if timed["played"] < timed["optimum"]:
        timed["miss"] = miss(view, wall, cpu)
    return timed


# --- report ---------------------------------------------------------------------------------------


def compared(positions: list[dict], label: str) -> bool:
    """Tiles against the optimum without crossings, and validity; True when the targets are met."""
    fewer = sum(p["played"] < p["optimum"] for p in positions)
    more = sum(p["played"] > p["optimum"] for p in positions)
    valid = sum(p["valid"] for p in positions)
    unproved = sum(not p["proved"] for p in positions)
    print(f"{label}: {len(positions)} positions")
    print(f"  tiles played >= optimum without crossings: {1 - fewer / len(positions):.2%}"
          f" ({fewer} fewer; target 100%: {'met' if not fewer else 'MISSED'})")
    print(f"  plays more than that optimum: {more / len(positions):.2%} ({more})")
    print(f"  tables the engine accepted: {valid / len(positions):.2%}"
          f" (target 100%: {'met' if valid == len(positions) else 'MISSED'})")
    print(f"  mean tiles a decision: AI {statistics.fmean(p['played'] for p in positions):.2f},"
          f" optimum without crossings {statistics.fmean(p['optimum'] for p in positions):.2f}"
          f" ({unproved} yardsticks not proved optimal within their time)")
    for p in positions:
        if "miss" in p:
            print(f"    fewer ({p['played']} < {p['optimum']}): {p['miss']}")
    return not fewer and valid == len(positions)


def times(positions: list[dict], label: str) -> bool:
    wall = [p["wall"] for p in positions]
    cpu = [p["cpu"] for p in positions]
    p95 = percentile(wall, 0.95)
    print(f"{label} (s), wall: p50 {percentile(wall, 0.5):.3f}  p95 {p95:.3f}  max {max(wall):.3f}"
          f"  | cpu: p50 {percentile(cpu, 0.5):.3f}  p95 {percentile(cpu, 0.95):.3f}  max {max(cpu):.3f}")
    return p95 <= TARGET_P95_S and max(wall) <= TARGET_MAX_S


def report(results: list[dict], elapsed: float, workers: int, timed: list[dict] | None = None) -> bool:
    ok = True
    games = [r for r in results if r["kind"] == "game"]
    plays, invalid = sum(r["plays"] for r in games), sum(r["invalid"] for r in games)
    if games:
        print(f"games: {len(games)}; the AI's plays in them: {plays:,}, refused by the engine: {invalid}"
              f" (target 0: {'met' if not invalid else 'MISSED'})")
        ok &= not invalid
    positions = [p for r in games for p in r["positions"]]
    crossing = [r["position"] for r in results if r["kind"] == "crossing" and r["position"]]
    suite = positions + crossing
    if suite:
        print(f"\nthe suite: {len(positions)} positions from self-play and {len(crossing)} hand-made positions"
              f" where only a crossing plays (target at least {TARGET_SUITE:,} in all:"
              f" {'met' if len(suite) >= TARGET_SUITE else 'MISSED'})")
        ok &= compared(suite, f"the AI with node_limit={NODE_LIMIT}")
        if crossing:
            played = sum(p["played"] > 0 for p in crossing)
            print(f"  hand-made positions: the AI played in {played / len(crossing):.1%} of {len(crossing)}")
        errors = sum(p.get("error", False) for p in positions)
        print(f"  searches that failed with an error (a draw or pass sent instead): {errors}")
        ok &= not errors and len(suite) >= TARGET_SUITE
        times(suite, "  decision time in the games, both cores busy")
    if timed:
        print(f"\ndecision time with the settings of live play (time limit {LIVE_TIME_LIMIT:g} s, no node limit),"
              " one position at a time, no game running")
        ok &= compared(timed, "the AI as live play runs it")
        met = times(timed, "  decision time")
        print(f"  targets p95 <= {TARGET_P95_S} s, max <= {TARGET_MAX_S} s: {'met' if met else 'MISSED'}")
        ok &= met
    duels: dict[tuple[str, int], list[dict]] = {}
    for r in games:
        duels.setdefault((r["opponent"], r["seats"]), []).append(r)
    if duels:
        print()
    for (opponent, seats), rows in sorted(duels.items(), key=lambda item: (item[0][1], item[0][0])):
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
    print(f"\n{elapsed:.0f} s wall time, {workers} workers for the games")
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000, help="two-seat games against each opponent")
    parser.add_argument("--tables", type=int, default=None, help="games at three and at four seats"
                        " (default: games / 5)")
    parser.add_argument("--suite", type=int, default=50, help="two-seat games of each duel whose positions"
                        " make the suite")
    parser.add_argument("--crossings", type=int, default=400, help="hand-made crossing positions to draw")
    parser.add_argument("--timing", type=int, default=None, help="suite positions to decide again with the"
                        " settings of live play (default: all)")
    parser.add_argument("--workers", type=int, default=min(2, multiprocessing.cpu_count()))
    parser.add_argument("--progress", type=int, default=0, help="print the figures so far every N jobs")
    parser.add_argument("--seed", default=None, help="any text: derive the games from it instead of fresh seeds")
    args = parser.parse_args(argv)
    tables = args.games // 5 if args.tables is None else args.tables

    jobs = [("crossing", n, args.seed or fairness.new_seed()) for n in range(args.crossings)]
    for opponent, seats, count in (("nocross", 2, args.games), ("basic", 2, args.games),
                                   ("nocross", 3, tables), ("nocross", 4, tables)):
        seeds = [game_seed(args.seed, f"{opponent} {seats}", n) for n in range((count + seats - 1) // seats)]
        jobs += [("game", opponent, seats, n, seeds[n // seats], seats == 2 and n < args.suite)
                 for n in range(count)]
    # the suite's games first (they cost the most), then the kinds interleaved so that a run cut short
    # still has some of each
    jobs.sort(key=lambda job: (job[0] == "game" and not job[5], job[3] if job[0] == "game" else job[1], job[0]))
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
        pool.join()
    suite = [p for r in results if r["kind"] == "game" for p in r["positions"]]
    suite += [r["position"] for r in results if r["kind"] == "crossing" and r["position"]]
    timed = [timed_again(row) for row in suite[:args.timing]]
    print(f"=== all {len(jobs)} jobs")
    return 0 if report(results, time.perf_counter() - start, args.workers, timed) else 1


if __name__ == "__main__":
    sys.exit(main())
