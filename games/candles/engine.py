"""Candles: the wax shelf game. Pure rules, no Django, no I/O (see docs/games/candles.md).

State is a plain dict. Seats pick a candle in secret at the same time; when the last pick is in,
the candles are placed lowest first. Actions: {"type": "play", "candle": N}.
"""

from __future__ import annotations

from games.errors import IllegalAction

GAME = "candles"
DECK = tuple(range(1, 105))  # canonical order: 1 to 104
HAND_SIZE = 6
ROUNDS = 6
SHELVES = 4
SHELF_CAPACITY = 5
MIN_SEATS, MAX_SEATS = 2, 10


def wax_of(candle: int) -> int:
    """Drops of wax a candle is worth: 55 gives 7, multiples of 11 give 5, of 10 give 3, of 5 give 2."""
    if candle == 55:
        return 7
    if candle % 11 == 0:
        return 5
    if candle % 10 == 0:
        return 3
    if candle % 5 == 0:
        return 2
    return 1


def shelf_wax(shelf: list[int]) -> int:
    return sum(wax_of(c) for c in shelf)


def setup(seats: int, options: dict, rng) -> dict:
    """Shuffle the deck with the stream `deck`; deal 6 to each seat in seat order, then 1 to each shelf."""
    if not MIN_SEATS <= seats <= MAX_SEATS:
        raise ValueError(f"candles takes {MIN_SEATS} to {MAX_SEATS} seats")
    deck = rng.stream("deck").shuffle(DECK)
    hands = [sorted(deck[i * HAND_SIZE:(i + 1) * HAND_SIZE]) for i in range(seats)]
    dealt = seats * HAND_SIZE
    shelves = [[deck[dealt + i]] for i in range(SHELVES)]
    return {
        "game": GAME,
        "seats": seats,
        "round": 1,
        "hands": hands,
        "shelves": shelves,
        "picks": [None] * seats,
        "wax": [0] * seats,
        "collected": [[] for _ in range(seats)],
        "deck": deck[dealt + SHELVES:],
        "last_round": [],
        "finished": False,
    }


def to_act(state: dict) -> list[int]:
    if state["finished"]:
        return []
    return [seat for seat, pick in enumerate(state["picks"]) if pick is None]


def legal(state: dict, seat: int) -> list[dict]:
    if seat not in to_act(state):
        return []
    return [{"type": "play", "candle": c} for c in state["hands"][seat]]


def _check(state: dict, seat: int, action) -> int:
    if state["finished"]:
        raise IllegalAction("game_over", "the game is over")
    if type(seat) is not int or not 0 <= seat < state["seats"]:  # not isinstance: True is no seat
        raise IllegalAction("no_such_seat", "there is no such seat")
    if state["picks"][seat] is not None:
        raise IllegalAction("already_picked", "this seat has already picked a candle this round")
    if not isinstance(action, dict) or action.get("type") != "play" or set(action) != {"type", "candle"}:
        raise IllegalAction("bad_action", 'expected {"type": "play", "candle": N}')
    candle = action["candle"]
    if type(candle) is not int:  # "37", 37.0 and True are malformed, not candles
        raise IllegalAction("bad_action", "the candle must be a whole number")
    if candle not in state["hands"][seat]:
        raise IllegalAction("not_in_hand", "that candle is not in your hand")
    return candle


def apply(state: dict, seat: int, action: dict, rng=None) -> tuple[dict, list[dict]]:
    candle = _check(state, seat, action)
    state = _copy_state(state)
    state["hands"][seat].remove(candle)
    state["picks"][seat] = candle
    events = [{"type": "picked", "seat": seat}]
    if all(pick is not None for pick in state["picks"]):
        events += _resolve_round(state)
    return state, events


def _copy_state(state: dict) -> dict:
    """A copy deep enough that apply never changes its input (deepcopy costs ten times as much)."""
    copied = dict(state)
    for key in ("hands", "shelves", "collected"):
        copied[key] = [list(row) for row in state[key]]
    for key in ("picks", "wax", "deck"):
        copied[key] = list(state[key])
    copied["last_round"] = [{**p, "taken": list(p["taken"])} for p in state["last_round"]]
    return copied


def target_shelf(shelves: list[list[int]], candle: int) -> int | None:
    """The shelf whose last candle is the closest below `candle`, or None if it is lower than all."""
    best = None
    for index, shelf in enumerate(shelves):
        end = shelf[-1]
        if end < candle and (best is None or end > shelves[best][-1]):
            best = index
    return best


def least_wax_shelf(shelves: list[list[int]]) -> int:
    """The shelf with the least wax; the first (top) one on a tie."""
    return min(range(len(shelves)), key=lambda i: (shelf_wax(shelves[i]), i))


def place(shelves: list[list[int]], candle: int) -> tuple[int, str, list[int]]:
    """Place one candle in place; returns (shelf, how, candles collected). how: add, tip or low."""
    shelf = target_shelf(shelves, candle)
    if shelf is None:
        shelf = least_wax_shelf(shelves)
        taken, shelves[shelf] = shelves[shelf], [candle]
        return shelf, "low", taken
    if len(shelves[shelf]) >= SHELF_CAPACITY:
        taken, shelves[shelf] = shelves[shelf], [candle]
        return shelf, "tip", taken
    shelves[shelf].append(candle)
    return shelf, "add", []


def _resolve_round(state: dict) -> list[dict]:
    picks = state["picks"]
    order = sorted(range(state["seats"]), key=lambda s: picks[s])
    events: list[dict] = [{"type": "reveal", "round": state["round"], "picks": list(picks)}]
    placements = []
    for seat in order:
        candle = picks[seat]
        shelf, how, taken = place(state["shelves"], candle)
        wax = shelf_wax(taken)
        state["wax"][seat] += wax
        state["collected"][seat].extend(taken)
        placement = {"seat": seat, "candle": candle, "shelf": shelf, "how": how, "taken": taken, "wax": wax}
        placements.append(placement)
        events.append({"type": "place", **placement, "taken": list(taken)})  # events share nothing with state
    state["last_round"] = placements
    state["picks"] = [None] * state["seats"]
    if state["round"] == ROUNDS:
        state["finished"] = True
        events.append({"type": "end", "ranking": outcome(state)})
    else:
        state["round"] += 1
        events.append({"type": "round", "round": state["round"]})
    return events


def outcome(state: dict) -> list[dict] | None:
    """None while playing; else seats from least wax to most, ties sharing a place (1, 1, 3...)."""
    if not state["finished"]:
        return None
    order = sorted(range(state["seats"]), key=lambda s: (state["wax"][s], s))
    ranking = []
    for position, seat in enumerate(order):
        wax = state["wax"][seat]
        if ranking and ranking[-1]["score"] == wax:
            place_ = ranking[-1]["place"]
        else:
            place_ = position + 1
        ranking.append({"seat": seat, "place": place_, "score": wax})
    return ranking


def view(state: dict, seat: int | None) -> dict:
    """What `seat` may see (None: a spectator). Never the deck, another hand or another's pick."""
    seen = public_view(state)
    if seat is not None:
        seen.update(own_view(state, seat))
    return seen


def public_view(state: dict) -> dict:
    """The part of every seat's view that a spectator sees too: `view` is this, then `own_view`'s keys."""
    picks = state["picks"]
    return {
        "game": GAME,
        "seats": state["seats"],
        "round": state["round"],
        "rounds": ROUNDS,
        "shelves": [list(shelf) for shelf in state["shelves"]],
        "wax": list(state["wax"]),
        "collected": [list(c) for c in state["collected"]],
        "picked": [pick is not None for pick in picks],
        "hand_sizes": [len(hand) + (pick is not None) for hand, pick in zip(state["hands"], picks)],
        "last_round": [{**p, "taken": list(p["taken"])} for p in state["last_round"]],
        "finished": state["finished"],
        "ranking": outcome(state),
    }


def own_view(state: dict, seat: int) -> dict:
    """What `seat` alone sees, after the public part of its view (keys of its own)."""
    return {"seat": seat, "hand": list(state["hands"][seat]), "my_pick": state["picks"][seat]}


# --- the table's choice on timeout -------------------------------------------------------------

SAFE, MAYBE, SURE = 0, 1, 2


def candle_risk(shelves: list[list[int]], candle: int, others: int, unseen: set[int]) -> tuple:
    """Risk of playing `candle` this round, from what its seat can see (docs/games/candles.md).

    Returns (class, wax at stake, -margin, candle): SAFE cannot collect whatever the other
    `others` seats play from the `unseen` candles, SURE collects whatever they play, MAYBE between.
    The class is exact (every set of picks the others could make is accounted for); the stake and
    the margin only order candles of the same class.
    """
    outcomes = collect_outcomes(shelves, candle, others, unseen)
    shelf = target_shelf(shelves, candle)
    if shelf is None:
        stake, margin = shelf_wax(shelves[least_wax_shelf(shelves)]), 0
    else:
        stake = shelf_wax(shelves[shelf])
        free = SHELF_CAPACITY - len(shelves[shelf])
        between = sum(1 for c in unseen if shelves[shelf][-1] < c < candle)
        margin = free - min(others, between) if free else 0
    if outcomes == {False}:
        return (SAFE, 0, -margin, candle)
    if outcomes == {True}:
        return (SURE, stake, 0, candle)
    return (MAYBE, stake, -margin, candle)


def collect_outcomes(shelves: list[list[int]], candle: int, others: int, unseen: set[int]) -> set[bool]:
    """Whether `candle` collects wax, for each way the other `others` seats could pick from `unseen`.

    Candles go down lowest first and each becomes its shelf's end, so only the round's lowest candle
    can be lower than every end, and later candles between two ends all join the same shelf (tipping
    it whenever one would be the sixth). So the answer depends only on how many picks fall in each
    gap between the shelf ends below `candle`: counting them is exact, without trying every set.
    """
    others = min(others, len(unseen))
    target = target_shelf(shelves, candle)
    if target is None:
        # Lowest of the round: it takes a shelf. Else the lowest pick takes one, the rest pile on it.
        below = sum(1 for c in unseen if c < candle)
        return {lower % SHELF_CAPACITY == 0 for lower, _ in _splits((below, len(unseen) - below), others)}
    ends = [shelf[-1] for shelf in shelves]
    # If another seat's pick is lower than every end it goes first and takes the least-wax shelf;
    # when that is this candle's shelf, this candle lands on the next shelf end below it instead.
    retaken = target == least_wax_shelf(shelves)
    lower_ends = [i for i in range(len(shelves)) if i != target and ends[i] < candle]
    fallback = max(lower_ends, key=ends.__getitem__) if lower_ends else None
    cuts = (min(ends), ends[fallback] if fallback is not None else min(ends), ends[target], candle)
    regions = [0] * (len(cuts) + 1)  # unseen candles: below all ends, to fallback, to target, to candle, above
    for c in unseen:
        regions[sum(c > cut for cut in cuts)] += 1
    outcomes = set()
    for low, to_fallback, to_target, between, _ in _splits(tuple(regions), others):
        if low and retaken and fallback is None:
            piled = low + to_fallback + to_target + between  # all on the retaken shelf, from one candle
        elif low and retaken:
            piled = len(shelves[fallback]) + to_target + between
        else:
            piled = len(shelves[target]) + between
        # `piled`: the candles put on its shelf before it, from the shelf's current start (or from the
        # low candle that took it). Each sixth tips it, so this one collects on a multiple of five.
        outcomes.add(piled % SHELF_CAPACITY == 0)
        if len(outcomes) == 2:
            break
    return outcomes


def _splits(sizes: tuple[int, ...], total: int):
    """Every way to take `total` candles from groups of `sizes` candles: how many from each group."""
    if not sizes:
        if total == 0:
            yield ()
        return
    rest = sum(sizes[1:])
    for taken in range(max(0, total - rest), min(sizes[0], total) + 1):
        for tail in _splits(sizes[1:], total - taken):
            yield (taken, *tail)


def unseen_candles(seen: dict) -> set[int]:
    """Candles a seat's view does not show: not in its hand, on a shelf, collected, or its pick."""
    shown = set(seen["hand"])
    for shelf in seen["shelves"]:
        shown.update(shelf)
    for taken in seen["collected"]:
        shown.update(taken)
    if seen["my_pick"] is not None:
        shown.add(seen["my_pick"])
    return set(DECK) - shown


def lowest_risk_candle(seen: dict) -> int:
    """The table's choice, computed from the seat's own view only, like any bot."""
    unseen = unseen_candles(seen)
    others = seen["seats"] - 1
    return min(seen["hand"], key=lambda c: candle_risk(seen["shelves"], c, others, unseen))


def table_choice(state: dict, seat: int) -> dict:
    return {"type": "play", "candle": lowest_risk_candle(view(state, seat))}
