"""Candles bots: "random", "heuristic" and "strong", each deciding from one seat's view only.

`choose(view, level, rng)` takes `engine.view(state, seat)`: never the state, another hand or the
deck. The strong bot deals the unseen candles to the other seats at random many times
(determinization), plays each sample out with the heuristic and keeps the candle that collected
the least wax on average. docs/bots.md has the details and the benchmark.
"""

from __future__ import annotations

import random
import time
from math import comb

from games.candles import engine

LEVELS = ("random", "heuristic", "strong")

TOP = max(engine.DECK)
CAPACITY = engine.SHELF_CAPACITY
WAX = tuple(engine.wax_of(c) if c else 0 for c in range(TOP + 1))
MEAN_WAX = sum(WAX) / TOP  # what an unknown candle adds to a shelf, on average
# Chance that one other seat's candle is below x when nothing is known: the rollouts use it
# instead of counting the unseen candles, which would cost more than the whole pick.
UNIFORM_BELOW = tuple(min(x - 1, TOP) / TOP if x > 0 else 0.0 for x in range(TOP + 2))
BINOMIAL = tuple(tuple(comb(n, k) for k in range(CAPACITY + 1)) for n in range(engine.MAX_SEATS))

# Strong bot: a work budget, not a clock, so a decision depends only on the view and the rng.
# One unit is one candle placed in a simulation; the budget buys about 20 ms on one core here.
WORK_BUDGET = 30_000
MIN_SAMPLES, MAX_SAMPLES = 24, 400


def choose(view: dict, level: str, rng: random.Random | None = None, time_limit: float | None = None) -> dict:
    """The action a bot of `level` plays from `view`: {"type": "play", "candle": N}.

    `rng` makes the choice reproducible; without it the view seeds one. `time_limit` (seconds)
    caps the strong bot's search; leave it None when the decision must be reproducible.
    """
    hand = view["hand"]
    if not hand:
        raise ValueError("no candle to play")
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; expected one of {LEVELS}")
    rng = rng or view_rng(view)
    if level == "random":
        candle = rng.choice(sorted(hand))
    elif level == "heuristic":
        candle = heuristic_candle(view)
    else:
        candle = strong_candle(view, rng, time_limit=time_limit)
    return {"type": "play", "candle": candle}


def view_rng(view: dict) -> random.Random:
    """A generator seeded by what the seat sees, so the same view gives the same decision."""
    key = (view.get("seat"), view["round"], sorted(view["hand"]), view["shelves"], view["collected"])
    return random.Random(repr(key))


# --- shelves as three small lists ---------------------------------------------------------------
# A simulation only needs each shelf's last candle, its length and its wax.


def compact(shelves: list[list[int]]) -> tuple[list[int], list[int], list[int]]:
    return [s[-1] for s in shelves], [len(s) for s in shelves], [engine.shelf_wax(s) for s in shelves]


def below_table(unseen: set[int]) -> list[float]:
    """below[x]: the chance that one other seat's candle is below x, if it is any unseen one."""
    below = [0.0] * (TOP + 2)
    count = 0
    share = 1 / max(len(unseen), 1)
    for x in range(1, TOP + 2):
        below[x] = count * share
        count += x in unseen
    return below


# --- heuristic ------------------------------------------------------------------------------------


def candle_cost(candle: int, ends: list[int], lens: list[int], waxes: list[int], others: int, below) -> tuple:
    """(expected wax, gap): the wax `candle` collects this round if each of the `others` plays one
    candle drawn from what `below` describes, and how far it lands above its shelf's last candle.
    Later rounds are ignored: that is the strong bot's job."""
    target, end = -1, 0
    for index, shelf_end in enumerate(ends):
        if end < shelf_end < candle:
            target, end = index, shelf_end
    if target < 0:
        # Lowest of all: it takes the cheapest shelf, unless a lower candle takes one first and
        # this candle then lands after it. Its gap sorts it last: the lowest candles are worth keeping.
        return (1 - below[candle]) ** others * min(waxes), TOP + candle
    free = CAPACITY - lens[target]
    if free > others:
        return 0.0, candle - end
    # The shelf tips on this candle exactly when `free` other candles land between its end and it.
    q = below[candle] - below[end + 1]
    chance = BINOMIAL[others][free] * q**free * (1 - q) ** (others - free)
    return chance * (waxes[target] + free * MEAN_WAX), candle - end


def best_by_cost(hand, ends, lens, waxes, others: int, below) -> int:
    """The cheapest candle; on a tie, the one closest above a shelf end (it spends the least room)."""
    if len(hand) == 1:
        return hand[0]
    return min(hand, key=lambda candle: candle_cost(candle, ends, lens, waxes, others, below))


def heuristic_candle(view: dict) -> int:
    """The candle with the least expected wax this round, counting the unseen candles exactly."""
    ends, lens, waxes = compact(view["shelves"])
    below = below_table(engine.unseen_candles(view))
    return best_by_cost(sorted(view["hand"]), ends, lens, waxes, view["seats"] - 1, below)


# --- strong: determinized Monte Carlo -------------------------------------------------------------


def strong_candle(view: dict, rng: random.Random, time_limit: float | None = None) -> int:
    hand = sorted(view["hand"])
    if len(hand) == 1:
        return hand[0]
    me, seats = view["seat"], view["seats"]
    # A seat that has already picked still holds that pick in its hand size: deal it too.
    sizes = [view["hand_sizes"][s] for s in range(seats) if s != me]
    unseen = sorted(engine.unseen_candles(view))
    ends, lens, waxes = compact(view["shelves"])
    rounds_left = view["rounds"] - view["round"] + 1
    samples = _sample_count(len(hand), seats, rounds_left)
    deadline = time.perf_counter() + time_limit if time_limit else None

    totals = [0.0] * len(hand)
    done = 0
    while done < samples:
        hands = _deal(unseen, sizes, rng)
        # Picks are secret and simultaneous: the others' picks this round do not depend on ours.
        picks = [best_by_cost(h, ends, lens, waxes, seats - 1, UNIFORM_BELOW) for h in hands]
        for i, candle in enumerate(hand):
            totals[i] += _play_out(candle, hand, hands, picks, ends, lens, waxes, rounds_left)
        done += 1
        if deadline and done >= MIN_SAMPLES and time.perf_counter() > deadline:
            break
    # Every candle saw the same samples; ties go to the heuristic's order.
    best = min(totals)
    tied = [c for c, total in zip(hand, totals, strict=True) if total <= best + 1e-9]
    if len(tied) == 1:
        return tied[0]
    below = below_table(set(unseen))
    return best_by_cost(tied, ends, lens, waxes, seats - 1, below)


def _sample_count(hand_size: int, seats: int, rounds_left: int) -> int:
    work = hand_size * seats * rounds_left * (rounds_left + 1) // 2 + 1
    return max(MIN_SAMPLES, min(MAX_SAMPLES, WORK_BUDGET // work))


def _deal(unseen: list[int], sizes: list[int], rng: random.Random) -> list[list[int]]:
    drawn = rng.sample(unseen, sum(sizes))
    hands, start = [], 0
    for size in sizes:
        hands.append(sorted(drawn[start : start + size]))
        start += size
    return hands


def _play_out(candle, my_hand, other_hands, first_picks, ends, lens, waxes, rounds_left: int) -> int:
    """Our wax from this round to the end if we play `candle` now and then everyone plays the
    heuristic (seat 0 is us). Works on copies; the arguments are left as they were."""
    ends, lens, waxes = list(ends), list(lens), list(waxes)
    hands = [[c for c in my_hand if c != candle]] + [
        [c for c in h if c != p] for h, p in zip(other_hands, first_picks, strict=True)
    ]
    picks = [candle, *first_picks]
    others = len(picks) - 1
    wax = 0
    for round_ in range(rounds_left):
        if round_:
            picks = [best_by_cost(h, ends, lens, waxes, others, UNIFORM_BELOW) for h in hands]
            for h, p in zip(hands, picks, strict=True):
                h.remove(p)
        wax += _resolve(picks, ends, lens, waxes)
    return wax


def _resolve(picks: list[int], ends: list[int], lens: list[int], waxes: list[int]) -> int:
    """Place one round's picks, lowest first, on the compact shelves; returns seat 0's wax."""
    wax = 0
    for candle, seat in sorted(zip(picks, range(len(picks)))):
        target, end = -1, 0
        for index, shelf_end in enumerate(ends):
            if end < shelf_end < candle:
                target, end = index, shelf_end
        if target >= 0 and lens[target] < CAPACITY:
            ends[target] = candle
            lens[target] += 1
            waxes[target] += WAX[candle]
            continue
        if target < 0:
            target = waxes.index(min(waxes))  # the least wax, the first one on a tie, as engine.place
        if seat == 0:
            wax += waxes[target]
        ends[target], lens[target], waxes[target] = candle, 1, WAX[candle]
    return wax
