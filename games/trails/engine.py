"""Trails: the dice climbing game. Pure rules, no Django, no I/O (see docs/games/trails.md).

State is a plain dict. The seat to act throws four dice, picks one way to pair them and climbs the two
sums' trails with its lanterns, then throws again or makes camp. Actions: {"type": "throw"},
{"type": "climb", "trails": [a, b] | [a]} and {"type": "camp"}. Trail t (2..12) is at index t - 2.
"""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction
from functools import lru_cache

from games.errors import IllegalAction

GAME = "trails"
MIN_SEATS, MAX_SEATS = 2, 4
TRAILS = tuple(range(2, 13))
LENGTHS = (3, 5, 7, 9, 11, 13, 11, 9, 7, 5, 3)
LANTERNS = 3
LANDMARKS_TO_WIN = 3
DICE = 4
FACES = 6


def length_of(trail: int) -> int:
    return LENGTHS[trail - 2]


# --- dice ------------------------------------------------------------------------------------------

def read_throw(rng, number: int) -> list[int]:
    """The `number`-th throw of the game (from 1): stream "throw:<number>", four dice read d0..d3."""
    stream = rng.stream(f"throw:{number}")
    return [stream.uniform(FACES) + 1 for _ in range(DICE)]


def pairings(dice) -> list[tuple[int, int]]:
    """The three ways to pair four dice, in this order: d0+d1 | d2+d3, d0+d2 | d1+d3, d0+d3 | d1+d2."""
    d0, d1, d2, d3 = dice
    return [(d0 + d1, d2 + d3), (d0 + d2, d1 + d3), (d0 + d3, d1 + d2)]


# Every ordered throw of four dice, and how many of them show each set of sums (any pairing): a throw
# busts exactly when none of its sums can climb, so the risk only needs these sets and their counts.
ALL_THROWS = tuple(itertools.product(range(1, FACES + 1), repeat=DICE))


def _sums_mask(dice) -> int:
    mask = 0
    for pair in pairings(dice):
        for total in pair:
            mask |= 1 << (total - 2)
    return mask


THROWS_BY_SUMS = tuple(sorted(Counter(_sums_mask(dice) for dice in ALL_THROWS).items()))


# --- setup and turn order -----------------------------------------------------------------------

def setup(seats: int, options: dict, rng) -> dict:
    """Nobody on the map yet; the stream "first" picks who starts."""
    if type(seats) is not int or not MIN_SEATS <= seats <= MAX_SEATS:
        raise ValueError(f"trails takes {MIN_SEATS} to {MAX_SEATS} seats")
    first = rng.stream("first").uniform(seats)
    return {
        "game": GAME,
        "seats": seats,
        "first": first,
        "current": first,
        "phase": "throw",
        "turn": 1,
        "throws": 0,
        "banners": [[0] * len(TRAILS) for _ in range(seats)],
        "lanterns": [0] * len(TRAILS),
        "topped": [],
        "claimed": [None] * len(TRAILS),
        "dice": None,
        "last_throw": None,
        "winner": None,
        "finished": False,
    }


def to_act(state: dict) -> list[int]:
    return [] if state["finished"] else [state["current"]]


def lanterns_left(lanterns: list[int]) -> int:
    return LANTERNS - sum(1 for step in lanterns if step)


def landmarks(claimed: list, seat: int) -> int:
    return sum(1 for owner in claimed if owner == seat)


# --- what can climb ----------------------------------------------------------------------------

def can_climb(position: dict, trail: int) -> bool:
    """Whether a lantern can go up `trail` now, on its own: the trail is not claimed, not topped this
    turn, and it has a lantern already or one is left. `position` is a state or a view."""
    index = trail - 2
    if position["claimed"][index] is not None or trail in position["topped"]:
        return False
    return bool(position["lanterns"][index]) or lanterns_left(position["lanterns"]) > 0


def climb_choices(position: dict, sums: tuple[int, int]) -> list[list[int]]:
    """The legal climbs of one pairing: [[a, b]] both, [[a], [b]] one lantern for two new trails
    (the player picks), [[a]] or [[b]] one sum blocked, [] none. Equal sums: [[a, a]] or []."""
    a, b = sorted(sums)
    if a == b:
        return [[a, a]] if can_climb(position, a) else []
    open_sums = [t for t in (a, b) if can_climb(position, t)]
    if len(open_sums) < 2:
        return [open_sums] if open_sums else []
    lanterns = position["lanterns"]
    new_trails = sum(1 for t in (a, b) if not lanterns[t - 2])
    if new_trails > lanterns_left(lanterns):
        return [[a], [b]]  # a fourth lantern would be needed: only one of the two, the player's choice
    return [[a, b]]


def tray(position: dict) -> list[dict]:
    """One card per distinct pairing of the dice on the tray (sums sorted), in pairing order."""
    cards, seen = [], set()
    for pair in pairings(position["dice"]):
        sums = tuple(sorted(pair))
        if sums not in seen:
            seen.add(sums)
            cards.append({"sums": list(sums), "choices": climb_choices(position, sums)})
    return cards


def open_trails_mask(position: dict) -> int:
    return sum(1 << (t - 2) for t in TRAILS if can_climb(position, t))


@lru_cache(maxsize=4096)
def bust_throws(open_mask: int) -> int:
    """How many of the 1,296 ordered throws show no sum among the trails of `open_mask`."""
    return sum(count for sums, count in THROWS_BY_SUMS if not sums & open_mask)


def risk(position: dict) -> Fraction:
    """The exact chance that the next throw lets no lantern climb (it busts), over all 1,296 throws,
    given the lanterns placed, the lanterns left, and the claimed and topped trails."""
    return Fraction(bust_throws(open_trails_mask(position)), FACES**DICE)


def standing_risk(lanterns: list[int]) -> Fraction:
    """The chance that a throw shows none of the trails the lanterns stand on below their summits:
    the risk once no lantern is left (claimed trails never hold a lantern)."""
    mask = sum(1 << i for i, step in enumerate(lanterns) if 0 < step < LENGTHS[i])
    return Fraction(bust_throws(mask), FACES**DICE)


# --- legal moves -------------------------------------------------------------------------------

THROW, CAMP = {"type": "throw"}, {"type": "camp"}


def legal(state: dict, seat: int) -> list[dict]:
    if type(seat) is not int or seat not in to_act(state):  # True == 1, but True is no seat
        return []
    if state["phase"] == "throw":
        return [dict(THROW)]
    if state["phase"] == "decide":
        return [dict(THROW), dict(CAMP)]
    climbs = []
    for card in tray(state):
        for trails in card["choices"]:
            action = {"type": "climb", "trails": trails}
            if action not in climbs:
                climbs.append(action)
    return climbs


def _check(state: dict, seat, action) -> None:
    if state["finished"]:
        raise IllegalAction("game_over", "the game is over")
    if type(seat) is not int or not 0 <= seat < state["seats"]:  # not isinstance: True is no seat
        raise IllegalAction("no_such_seat", "there is no such seat")
    if seat != state["current"]:
        raise IllegalAction("not_your_turn", "it is another seat's turn")
    if not isinstance(action, dict) or action.get("type") not in ("throw", "climb", "camp"):
        raise IllegalAction("bad_action", 'expected {"type": "throw" | "climb" | "camp"}')
    if action["type"] == "climb":
        trails = action.get("trails")
        if set(action) != {"type", "trails"} or not isinstance(trails, list) or not 1 <= len(trails) <= 2 \
                or any(type(t) is not int for t in trails):
            raise IllegalAction("bad_action", 'expected {"type": "climb", "trails": [a, b] or [a]}')
    elif set(action) != {"type"}:
        raise IllegalAction("bad_action", f'expected {{"type": "{action["type"]}"}}')
    wanted = {"throw": ("throw", "decide"), "climb": ("choose",), "camp": ("decide",)}[action["type"]]
    if state["phase"] not in wanted:
        raise IllegalAction("wrong_phase", f"cannot {action['type']} now ({state['phase']})")
    if action["type"] == "climb" and action not in legal(state, seat):
        raise IllegalAction("not_a_choice", "those trails are not one of the tray's choices")


def apply(state: dict, seat: int, action: dict, rng=None) -> tuple[dict, list[dict]]:
    _check(state, seat, action)
    state = _copy_state(state)
    if action["type"] == "throw":
        if rng is None:
            raise ValueError("a throw needs the game's rng")
        return state, _throw(state, seat, rng)
    if action["type"] == "climb":
        return state, _climb(state, seat, action["trails"])
    return state, _camp(state, seat)


def _copy_state(state: dict) -> dict:
    """A copy deep enough that apply never changes its input."""
    copied = dict(state)
    copied["banners"] = [list(row) for row in state["banners"]]
    for key in ("lanterns", "topped", "claimed"):
        copied[key] = list(state[key])
    copied["dice"] = list(state["dice"]) if state["dice"] is not None else None
    if state["last_throw"] is not None:
        copied["last_throw"] = {**state["last_throw"], "dice": list(state["last_throw"]["dice"])}
    return copied


def _throw(state: dict, seat: int, rng) -> list[dict]:
    state["throws"] += 1
    dice = read_throw(rng, state["throws"])
    state["dice"] = dice
    busted = not any(card["choices"] for card in tray(state))
    state["last_throw"] = {"seat": seat, "dice": list(dice), "busted": busted}
    events = [{"type": "thrown", "seat": seat, "dice": list(dice), "busted": busted}]
    if not busted:
        state["phase"] = "choose"
        return events
    # Losing balance: the lanterns go, the banners stay where the turn began.
    events.append({"type": "fell", "seat": seat})
    return events + _next_turn(state)


def climb_lanterns(position: dict, seat: int, trails: list[int]) -> tuple[list[int], list[int]]:
    """The lanterns after climbing `trails` (a legal choice) and the trails topped by it. A new
    lantern enters one step above the seat's banner; equal sums climb two steps, up to the summit."""
    lanterns = list(position["lanterns"])
    topped = []
    for trail in trails:
        index = trail - 2
        start = lanterns[index] or position["banners"][seat][index]
        lanterns[index] = min(start + 1, LENGTHS[index])
        if lanterns[index] == LENGTHS[index] and trail not in topped:
            topped.append(trail)
    return lanterns, [t for t in topped if t not in position["topped"]]


def _climb(state: dict, seat: int, trails: list[int]) -> list[dict]:
    lanterns, topped_now = climb_lanterns(state, seat, trails)
    state["lanterns"] = lanterns
    state["topped"] = sorted(state["topped"] + topped_now)
    state["dice"] = None
    state["phase"] = "decide"
    return [{"type": "climbed", "seat": seat, "trails": list(trails), "lanterns": list(lanterns),
             "topped": topped_now}]


def _camp(state: dict, seat: int) -> list[dict]:
    banners = state["banners"][seat]
    claimed_now, removed = [], []
    for index, step in enumerate(state["lanterns"]):
        if not step:
            continue
        banners[index] = step
        if step == LENGTHS[index]:
            # A landmark: the trail is the seat's, and every other banner on it comes down.
            state["claimed"][index] = seat
            claimed_now.append(TRAILS[index])
            for other in range(state["seats"]):
                if other != seat and state["banners"][other][index]:
                    state["banners"][other][index] = 0
                    removed.append([other, TRAILS[index]])
    events = [{"type": "camped", "seat": seat, "banners": list(banners), "claimed": claimed_now,
               "removed": removed}]
    if landmarks(state["claimed"], seat) >= LANDMARKS_TO_WIN:
        _clear_turn(state)
        state.update(phase="over", finished=True, winner=seat)
        return events + [{"type": "won", "seat": seat}]
    return events + _next_turn(state)


def _clear_turn(state: dict) -> None:
    state["lanterns"] = [0] * len(TRAILS)
    state["topped"] = []
    state["dice"] = None


def _next_turn(state: dict) -> list[dict]:
    """The turn passes clockwise: to the next seat index."""
    _clear_turn(state)
    state["current"] = (state["current"] + 1) % state["seats"]
    state["turn"] += 1
    state["phase"] = "throw"
    return [{"type": "turn", "seat": state["current"], "turn": state["turn"]}]


# --- the end -----------------------------------------------------------------------------------

def progress(banners: list[int]) -> Fraction:
    """How much of the map a seat has climbed: the sum over trails of banner steps / trail length."""
    return sum((Fraction(step, length) for step, length in zip(banners, LENGTHS) if step), Fraction(0))


def progress_shown(banners: list[int]) -> float:
    """progress() as a float for the view, summed directly: a view is built for every seat after every
    move, and exact fractions there cost more than the rest of it; the ranking keeps the exact value."""
    return sum((step / length for step, length in zip(banners, LENGTHS) if step), 0.0)


def outcome(state: dict) -> list[dict] | None:
    """None while playing; else the winner first, then the others by landmarks, then by progress
    (exact fractions); equal landmarks and progress share the place (1, 2, 2, 4)."""
    if not state["finished"]:
        return None
    winner = state["winner"]

    def key(seat: int) -> tuple:
        return (seat != winner, -landmarks(state["claimed"], seat), -progress(state["banners"][seat]))

    order = sorted(range(state["seats"]), key=lambda seat: (key(seat), seat))
    ranking = []
    for position, seat in enumerate(order):
        shared = ranking and key(order[position - 1]) == key(seat)
        ranking.append({"seat": seat, "place": ranking[-1]["place"] if shared else position + 1,
                        "score": landmarks(state["claimed"], seat),
                        "progress": float(progress(state["banners"][seat]))})
    return ranking


# --- views -------------------------------------------------------------------------------------

def view(state: dict, seat: int | None) -> dict:
    """Everything in trails is public; `seat` only adds itself (None: a spectator)."""
    phase = state["phase"]
    seen = {
        "game": GAME,
        "seats": state["seats"],
        "lengths": list(LENGTHS),
        "current": None if state["finished"] else state["current"],
        "phase": phase,
        "turn": state["turn"],
        "throws": state["throws"],
        "banners": [list(row) for row in state["banners"]],
        "lanterns": list(state["lanterns"]),
        "lanterns_left": lanterns_left(state["lanterns"]),
        "topped": list(state["topped"]),
        "claimed": list(state["claimed"]),
        "landmarks": [landmarks(state["claimed"], s) for s in range(state["seats"])],
        "progress": [progress_shown(row) for row in state["banners"]],
        "dice": list(state["dice"]) if phase == "choose" else None,
        "tray": tray(state) if phase == "choose" else [],
        "risk": float(risk(state)) if phase in ("throw", "decide") else None,
        "last_throw": None,
        "finished": state["finished"],
        "ranking": outcome(state),
    }
    if state["last_throw"] is not None:
        seen["last_throw"] = {**state["last_throw"], "dice": list(state["last_throw"]["dice"])}
    if seat is not None:
        seen["seat"] = seat
    return seen


# --- the table's choice on timeout -------------------------------------------------------------

def cautious_key(position: dict, seat: int, trails: list[int]) -> tuple:
    """How the cautious player ranks a climb, smaller first: the risk of the next throw after it; then
    the risk if no more lanterns could go out (the trails it stands on come up often); then the most
    progress (steps over trail length); then the lowest trails."""
    lanterns, _topped = climb_lanterns(position, seat, trails)
    topped = [t for t in TRAILS if lanterns[t - 2] == LENGTHS[t - 2]]
    after = {"claimed": position["claimed"], "lanterns": lanterns, "topped": topped}
    gained = sum(Fraction(lanterns[i] - (position["lanterns"][i] or position["banners"][seat][i]), LENGTHS[i])
                 for i in range(len(TRAILS)) if lanterns[i])
    return (risk(after), standing_risk(lanterns), -gained, sorted(trails))


def cautious_climb_in_view(seen: dict) -> dict:
    """The cautious climb from a seat's view of a tray (the view of the seat to act)."""
    choices = [trails for card in seen["tray"] for trails in card["choices"]]
    if not choices:
        raise ValueError("no climb on the tray")
    best = min(choices, key=lambda trails: cautious_key(seen, seen["current"], trails))
    return {"type": "climb", "trails": list(best)}


def cautious_climb(state: dict) -> dict:
    return cautious_climb_in_view(view(state, state["current"]))


def table_choice(state: dict, seat: int) -> dict:
    """On timeout: before a throw the table throws; with a tray it climbs as the cautious bot would;
    after a climb it makes camp."""
    if state["phase"] == "choose":
        return cautious_climb(state)
    if state["phase"] == "decide":
        return dict(CAMP)
    return dict(THROW)
