"""Trails bots: "cautious" and "strong", each deciding from one seat's view only.

`choose(view, level)` takes `engine.view(state, seat)` for the seat to act and returns its action.
Both levels are deterministic: the same view gives the same action. docs/games/trails.md describes
them and the benchmark.

- cautious: climbs as the table does on timeout (`engine.cautious_climb_in_view`) and makes camp as
  soon as its three lanterns are out or one of them has topped a trail.
- strong: values a position by an estimated chance of winning, from how much work each player still
  needs for three landmarks, and looks one throw ahead over the exact distribution of the 1,296 throws:
  it throws again when the expected value of one more throw (bust included) beats camping now.
"""

from __future__ import annotations

import math
from collections import Counter

from games.trails import engine

LEVELS = ("cautious", "strong")
THROW, CAMP = {"type": "throw"}, {"type": "camp"}
TRAIL_COUNT = len(engine.TRAILS)
LENGTHS = engine.LENGTHS


# --- the dice, once -------------------------------------------------------------------------------

def _hit_chances() -> tuple[float, ...]:
    """For each trail, the chance that a throw shows its sum in at least one pairing."""
    return tuple(sum(count for sums, count in engine.THROWS_BY_SUMS if sums >> i & 1) / 1296
                 for i in range(TRAIL_COUNT))


HIT = _hit_chances()
# Work: a step on trail t costs 1 / HIT[t] throws that show t. A whole trail is about 20 units on every
# trail (the board is built that way), so a unit of work means the same on every trail.
STEP_WORK = tuple(1 / chance for chance in HIT)
NO_PATH = 1_000.0  # the work of a player who can no longer get three landmarks


def _throw_groups() -> tuple[tuple[int, tuple[tuple[int, int], ...]], ...]:
    """The 126 throws up to the dice's order: (how many of the 1,296 ordered throws, distinct pairs)."""
    groups = Counter(tuple(sorted(dice)) for dice in engine.ALL_THROWS)
    out = []
    for dice, count in sorted(groups.items()):
        pairs = tuple(dict.fromkeys(tuple(sorted(pair)) for pair in engine.pairings(dice)))
        out.append((count, pairs))
    return tuple(out)


THROW_GROUPS = _throw_groups()


def choose(view: dict, level: str = "strong") -> dict:
    """The action a bot of `level` plays from `view`, the view of the seat to act."""
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; expected one of {LEVELS}")
    if view["finished"] or view.get("seat", view["current"]) != view["current"]:
        raise ValueError("this seat has nothing to decide")
    phase = view["phase"]
    if phase == "throw":
        return dict(THROW)
    if level == "cautious":
        return engine.cautious_climb_in_view(view) if phase == "choose" else cautious_decision(view)
    turn = Turn(view)
    return turn.best_climb() if phase == "choose" else turn.decision()


# --- cautious ---------------------------------------------------------------------------------------

def cautious_decision(view: dict) -> dict:
    """Camp once every lantern is out or one has topped a trail; otherwise throw again."""
    if view["lanterns_left"] == 0 or view["topped"]:
        return dict(CAMP)
    return dict(THROW)


# --- strong -----------------------------------------------------------------------------------------

# The chance of winning is a logistic curve of the difference between the opponents' work and ours;
# SCALE is how much one unit of work moves it. Tuned against the benchmark's baselines: from 0.04 to
# 0.25 the results differ by less than their noise; an offset for who moves next did not help.
SCALE = 0.1


def remaining_work(row: list[int], claimed: list, seat: int) -> float:
    """The work `seat` still needs for three landmarks: the cheapest trails it can still claim."""
    needed = engine.LANDMARKS_TO_WIN - sum(1 for owner in claimed if owner == seat)
    if needed <= 0:
        return 0.0
    works = sorted((LENGTHS[i] - row[i]) * STEP_WORK[i] for i in range(TRAIL_COUNT) if claimed[i] is None)
    if len(works) < needed:
        return NO_PATH
    return sum(works[:needed])


def win_chance(mine: float, theirs: float) -> float:
    """Our estimated chance of winning when we need `mine` more work and the closest rival `theirs`."""
    return 1 / (1 + math.exp(-SCALE * (theirs - mine)))


class Turn:
    """One decision of the strong bot: the board of the view, and values cached for this decision."""

    def __init__(self, view: dict):
        self.view = view
        self.me = view["current"]
        self.banners = view["banners"]
        self.claimed = view["claimed"]
        self.lanterns = tuple(view["lanterns"])
        self.others = [s for s in range(view["seats"]) if s != self.me]
        self._camp_values: dict[tuple, float] = {}
        self._throw_values: dict[tuple, float] = {}
        self.lost = self.camp_value((0,) * TRAIL_COUNT)  # a bust: the board as the turn began

    # Values of positions -------------------------------------------------------------------------

    def camp_value(self, lanterns: tuple) -> float:
        """The chance of winning if the seat makes camp with these lanterns."""
        cached = self._camp_values.get(lanterns)
        if cached is not None:
            return cached
        row = list(self.banners[self.me])
        claimed = list(self.claimed)
        for i, step in enumerate(lanterns):
            if step:
                row[i] = step
                if step == LENGTHS[i]:
                    claimed[i] = self.me
        mine = remaining_work(row, claimed, self.me)
        if mine == 0:
            value = 1.0
        else:
            # A landmark takes the trail from the others too: their banners there come down.
            theirs = min(remaining_work(self.banners[s], claimed, s) for s in self.others)
            value = win_chance(mine, theirs)
        self._camp_values[lanterns] = value
        return value

    def climbs(self, lanterns: tuple, pair: tuple[int, int]) -> list[tuple]:
        """The lanterns after each legal climb of `pair`, by the engine's rules."""
        position = {"claimed": self.claimed, "lanterns": lanterns, "topped": topped_by(lanterns)}
        return [self.climbed(lanterns, trails) for trails in engine.climb_choices(position, pair)]

    def climbed(self, lanterns: tuple, trails: list[int]) -> tuple:
        """A new lantern enters one step above the banner; equal sums climb twice, up to the summit."""
        after = list(lanterns)
        row = self.banners[self.me]
        for trail in trails:
            i = trail - 2
            after[i] = min((after[i] or row[i]) + 1, LENGTHS[i])
        return tuple(after)

    def throw_value(self, lanterns: tuple) -> float:
        """Expected chance of winning after one more throw, then the best climb and camp; a bust
        loses the turn's climb. Exact over the 1,296 throws."""
        cached = self._throw_values.get(lanterns)
        if cached is not None:
            return cached
        best_of_pair: dict[tuple, float | None] = {}
        total = 0.0
        for count, pairs in THROW_GROUPS:
            best = None
            for pair in pairs:
                if pair not in best_of_pair:
                    options = self.climbs(lanterns, pair)
                    best_of_pair[pair] = max((self.camp_value(after) for after in options), default=None)
                value = best_of_pair[pair]
                if value is not None and (best is None or value > best):
                    best = value
            total += count * (self.lost if best is None else best)
        value = total / 1296
        self._throw_values[lanterns] = value
        return value

    def stay_or_go_value(self, lanterns: tuple) -> float:
        """The value of a position after a climb: the better of camping and one more throw."""
        camp = self.camp_value(lanterns)
        if camp == 1.0:
            return camp
        return max(camp, self.throw_value(lanterns))

    # Decisions ---------------------------------------------------------------------------------

    def decision(self) -> dict:
        camp = self.camp_value(self.lanterns)
        if camp < 1.0 and self.throw_value(self.lanterns) > camp:
            return dict(THROW)
        return dict(CAMP)

    def best_climb(self) -> dict:
        choices = [trails for card in self.view["tray"] for trails in card["choices"]]
        if not choices:
            raise ValueError("no climb on the tray")
        best, best_value = None, -1.0
        for trails in choices:
            value = self.stay_or_go_value(self.climbed(self.lanterns, trails))
            if value > best_value + 1e-12:
                best, best_value = trails, value
        return {"type": "climb", "trails": list(best)}


def topped_by(lanterns) -> list[int]:
    return [engine.TRAILS[i] for i, step in enumerate(lanterns) if step == LENGTHS[i]]
