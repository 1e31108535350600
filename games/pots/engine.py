"""Pots: the honey pot push-your-luck game. Pure rules, no Django, no I/O (see docs/games/pots.md).

State is a plain dict. Every card in front of a player and the discard pile are public; only the
deck's order is secret. Actions: {"type": "draw"}, {"type": "stop"} and {"type": "target", "seat": k}
(the seat that a snuffer or bellows hits, or that receives a second saucer). Everything that needs no
decision (the deal, a bellows's draws, spills, the end of a hand, the next deal) happens inside apply.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

from games.errors import IllegalAction

GAME = "pots"
MIN_SEATS, MAX_SEATS = 2, 8

HONEY = ("+2", "+4", "+6", "+8", "+10")
TWIN_WICK = "x2"
SNUFFER, BELLOWS, SAUCER = "snuffer", "bellows", "saucer"
ACTIONS = (SNUFFER, BELLOWS)  # cards that hit a target player
# Canonical order: 0, 1, 2, 2, 3, 3, 3, ... twelve 12s, then honey, the twin wick, three of each action card.
DECK = (
    tuple(n for n in range(13) for _ in range(max(n, 1)))
    + HONEY
    + (TWIN_WICK,)
    + (SNUFFER,) * 3
    + (BELLOWS,) * 3
    + (SAUCER,) * 3
)
FULL_POT = 7  # different numbers that fill the pot
FULL_POT_BONUS = 15
BELLOWS_DRAWS = 3
WINNING_TOTAL = 200

IN_HAND = ("waiting", "in")  # statuses of players still in the hand (a target for snuffer and bellows)


def honey_value(card) -> int:
    return int(card[1:]) if card in HONEY else 0


def hand_score(row: dict) -> int:
    """(numbers) x 2 with the twin wick, then honey, then 15 for a full pot; 0 once spilled."""
    if row["status"] == "spilled":
        return 0
    numbers = sum(row["numbers"]) * (2 if TWIN_WICK in row["extras"] else 1)
    bonus = FULL_POT_BONUS if row["status"] == "full" else 0
    return numbers + sum(honey_value(card) for card in row["extras"]) + bonus


def new_row() -> dict:
    return {"numbers": [], "extras": [], "saucer": False, "status": "waiting"}


def leftward(seats: int, start: int) -> list[int]:
    """Every seat from `start`'s left around the table, `start` itself last."""
    return [(start + step) % seats for step in range(1, seats + 1)]


# --- setup --------------------------------------------------------------------------------------


def setup(seats: int, options: dict, rng) -> dict:
    """The first dealer from the stream `first`, the deck from the stream `deck`, then the first deal."""
    if not MIN_SEATS <= seats <= MAX_SEATS:
        raise ValueError(f"pots takes {MIN_SEATS} to {MAX_SEATS} seats")
    dealer = rng.stream("first").uniform(seats)
    state = {
        "game": GAME,
        "seats": seats,
        "hand": 1,
        "dealer": dealer,
        "turn": dealer,  # the seat that took the last turn; the next turn goes to its left
        "phase": "play",
        "current": None,
        "pending": None,
        "rows": [new_row() for _ in range(seats)],
        "bellows": None,
        "queue": [],
        "totals": [0] * seats,
        "hands": [],
        "deck": rng.stream("deck").shuffle(DECK),
        "discard": [],
        "reshuffles": 0,
        "finished": False,
    }
    _settle(state, [], rng)
    return state


# --- moves --------------------------------------------------------------------------------------


def to_act(state: dict) -> list[int]:
    return [] if state["finished"] else [state["current"]]


def legal(state: dict, seat: int) -> list[dict]:
    if type(seat) is not int or seat not in to_act(state):  # not isinstance: True is no seat
        return []
    if state["phase"] == "play":
        return [{"type": "draw"}, {"type": "stop"}]
    return [{"type": "target", "seat": target} for target in state["pending"]["targets"]]


def _check(state: dict, seat: int, action) -> None:
    if state["finished"]:
        raise IllegalAction("game_over", "the game is over")
    if type(seat) is not int or not 0 <= seat < state["seats"]:  # not isinstance: True is no seat
        raise IllegalAction("no_such_seat", "there is no such seat")
    if seat != state["current"]:
        raise IllegalAction("not_your_turn", "another seat decides now")
    if not isinstance(action, dict):
        raise IllegalAction("bad_action", "an action is a dict with a type")
    if state["phase"] == "play":
        if action not in ({"type": "draw"}, {"type": "stop"}):
            raise IllegalAction("bad_action", 'expected {"type": "draw"} or {"type": "stop"}')
        return
    if action.get("type") != "target" or set(action) != {"type", "seat"} or type(action["seat"]) is not int:
        raise IllegalAction("bad_action", 'expected {"type": "target", "seat": N}')
    if action["seat"] not in state["pending"]["targets"]:
        raise IllegalAction("not_a_target", "that seat cannot be chosen for this card")


def apply(state: dict, seat: int, action: dict, rng=None) -> tuple[dict, list[dict]]:
    _check(state, seat, action)
    state = _copy_state(state)
    events: list[dict] = []
    if action["type"] == "draw":
        state["turn"] = seat
        _receive(state, seat, _draw(state, rng, events), "draw", events)
    elif action["type"] == "stop":
        state["turn"] = seat
        row = state["rows"][seat]
        row["status"] = "stopped"
        events.append({"type": "stopped", "seat": seat, "score": hand_score(row)})
    else:
        pending, state["pending"] = state["pending"], None
        _resolve(state, pending["card"], seat, action["seat"], events)
    _settle(state, events, rng)
    return state, events


def _copy_state(state: dict) -> dict:
    """A copy deep enough that apply never changes its input (deepcopy costs far more)."""
    copied = dict(state)
    copied["rows"] = [{**row, "numbers": list(row["numbers"]), "extras": list(row["extras"])} for row in state["rows"]]
    copied["pending"] = state["pending"] and {**state["pending"], "targets": list(state["pending"]["targets"])}
    copied["bellows"] = state["bellows"] and {**state["bellows"], "held": list(state["bellows"]["held"])}
    copied["queue"] = [dict(item) for item in state["queue"]]
    copied["hands"] = [list(scores) for scores in state["hands"]]
    for key in ("totals", "deck", "discard"):
        copied[key] = list(state[key])
    return copied


# --- everything that needs no decision ----------------------------------------------------------


def _settle(state: dict, events: list[dict], rng) -> None:
    """Runs the game on until a seat must decide or the game is over."""
    while not state["finished"]:
        rows = state["rows"]
        if any(row["status"] == "full" for row in rows) or not any(row["status"] in IN_HAND for row in rows):
            _end_hand(state, events)
        elif state["pending"]:
            state["phase"] = "give" if state["pending"]["card"] == SAUCER else "target"
            state["current"] = state["pending"]["by"]
            return
        elif state["bellows"]:
            _bellows_step(state, events, rng)
        elif state["queue"]:
            _resolve_queued(state, events)
        elif (waiting := _next_waiting(state)) is not None:
            _receive(state, waiting, _draw(state, rng, events), "deal", events)
        else:
            state["phase"] = "play"
            state["current"] = next(s for s in leftward(state["seats"], state["turn"]) if rows[s]["status"] == "in")
            return


def _next_waiting(state: dict) -> int | None:
    """The deal gives one card to each seat that has none yet, from the dealer's left."""
    for seat in leftward(state["seats"], state["dealer"]):
        if state["rows"][seat]["status"] == "waiting":
            return seat
    return None


def _draw(state: dict, rng, events: list[dict]):
    """The deck's first card; an empty deck is first replaced by the shuffled discard pile."""
    if not state["deck"]:
        if rng is None:
            raise ValueError("the deck is empty: a reshuffle needs the game's rng")
        state["reshuffles"] += 1
        state["deck"] = rng.stream(f"reshuffle:{state['reshuffles']}").shuffle(state["discard"])
        state["discard"] = []
        events.append({"type": "reshuffled", "count": len(state["deck"])})
    return state["deck"].pop(0)


def _receive(state: dict, seat: int, card, how: str, events: list[dict]) -> None:
    """`seat` turns up `card` (how: deal, draw or bellows) and the card does what it does."""
    row = state["rows"][seat]
    if row["status"] == "waiting":
        row["status"] = "in"
    events.append({"type": "card", "seat": seat, "card": card, "how": how})
    if type(card) is int:
        _receive_number(state, seat, card, events)
    elif card in HONEY or card == TWIN_WICK:
        row["extras"].append(card)
    elif card == SAUCER:
        if row["saucer"]:
            _offer_saucer(state, seat, events)
        else:
            row["saucer"] = True  # kept at once, even during a bellows
    elif how == "bellows":
        state["bellows"]["held"].append(card)  # waits for the end of the three draws
    else:
        _play_action(state, seat, card, events)


def _receive_number(state: dict, seat: int, card: int, events: list[dict]) -> None:
    row = state["rows"][seat]
    if card not in row["numbers"]:
        row["numbers"].append(card)
        if len(row["numbers"]) == FULL_POT:
            row["status"] = "full"  # the hand ends at once (_settle)
            events.append({"type": "full", "seat": seat})
    elif row["saucer"]:
        row["saucer"] = False
        state["discard"] += [card, SAUCER]
        events.append({"type": "saved", "seat": seat, "card": card})
    else:
        row["numbers"].append(card)  # the repeat stays in the row until the hand ends, to show the spill
        row["status"] = "spilled"
        events.append({"type": "spilled", "seat": seat, "card": card})
        bellows = state["bellows"]
        if bellows and bellows["seat"] == seat:
            # The draws stop; what they turned up for later is discarded.
            for held in bellows["held"]:
                state["discard"].append(held)
                events.append({"type": "discarded", "seat": seat, "card": held})
            state["bellows"] = None


def _in_hand(state: dict) -> list[int]:
    return [seat for seat, row in enumerate(state["rows"]) if row["status"] in IN_HAND]


def _offer_saucer(state: dict, seat: int, events: list[dict]) -> None:
    """A second saucer goes to another player in the hand who has none; the drawer chooses."""
    targets = [s for s in _in_hand(state) if s != seat and not state["rows"][s]["saucer"]]
    _ask(state, SAUCER, seat, targets, events)


def _play_action(state: dict, seat: int, card: str, events: list[dict]) -> None:
    """A snuffer or bellows hits any player still in the hand, `seat` included."""
    _ask(state, card, seat, _in_hand(state), events)


def _ask(state: dict, card: str, by: int, targets: list[int], events: list[dict]) -> None:
    """No target: the card is discarded. One: it goes there without asking. More: `by` decides."""
    if not targets:
        state["discard"].append(card)
        events.append({"type": "discarded", "seat": by, "card": card})
    elif len(targets) == 1:
        _resolve(state, card, by, targets[0], events)
    else:
        state["pending"] = {"card": card, "by": by, "targets": targets}


def _resolve(state: dict, card: str, by: int, target: int, events: list[dict]) -> None:
    row = state["rows"][target]
    if card == SAUCER:
        row["saucer"] = True
        events.append({"type": "saucer_given", "from": by, "to": target})
        return
    state["discard"].append(card)
    if card == SNUFFER:
        row["status"] = "snuffed"
        events.append({"type": "snuffed", "seat": target, "by": by, "score": hand_score(row)})
    else:
        state["bellows"] = {"seat": target, "left": BELLOWS_DRAWS, "held": []}
        events.append({"type": "bellows", "seat": target, "by": by})


def _bellows_step(state: dict, events: list[dict], rng) -> None:
    """One of the bellows's draws; after the last one, the held action cards join the queue."""
    bellows = state["bellows"]
    if bellows["left"] == 0:
        state["queue"] += [{"card": card, "by": bellows["seat"]} for card in bellows["held"]]
        state["bellows"] = None
        return
    bellows["left"] -= 1
    _receive(state, bellows["seat"], _draw(state, rng, events), "bellows", events)


def _resolve_queued(state: dict, events: list[dict]) -> None:
    """Held cards are resolved in the order they were turned up; a player who spilled loses them."""
    item = state["queue"].pop(0)
    if state["rows"][item["by"]]["status"] == "spilled":
        state["discard"].append(item["card"])
        events.append({"type": "discarded", "seat": item["by"], "card": item["card"]})
    else:
        _play_action(state, item["by"], item["card"], events)


def _end_hand(state: dict, events: list[dict]) -> None:
    """Score the hand; then the game ends, or the cards go to the discard pile and the next hand starts."""
    scores = [hand_score(row) for row in state["rows"]]
    state["totals"] = [total + score for total, score in zip(state["totals"], scores, strict=True)]
    state["hands"].append(list(scores))  # the event keeps its own list
    events.append({"type": "hand_over", "hand": state["hand"], "scores": scores, "totals": list(state["totals"])})
    # A full pot ends the hand at once: cards still waiting for a decision are discarded.
    state["discard"] += _loose_cards(state)
    state["pending"], state["bellows"], state["queue"] = None, None, []
    top = max(state["totals"])
    if top >= WINNING_TOTAL and state["totals"].count(top) == 1:
        state["finished"], state["phase"], state["current"] = True, "over", None
        events.append({"type": "game_over"})
        return
    for row in state["rows"]:
        state["discard"] += row["numbers"] + row["extras"] + ([SAUCER] if row["saucer"] else [])
    state["hand"] += 1
    state["dealer"] = state["turn"] = (state["dealer"] + 1) % state["seats"]
    state["rows"] = [new_row() for _ in range(state["seats"])]
    events.append({"type": "hand", "hand": state["hand"], "dealer": state["dealer"]})


def _loose_cards(state: dict) -> list:
    """Drawn cards in no row: the card being decided, the bellows's held cards, the queue."""
    loose = [state["pending"]["card"]] if state["pending"] else []
    if state["bellows"]:
        loose += state["bellows"]["held"]
    return loose + [item["card"] for item in state["queue"]]


# --- outcome and views --------------------------------------------------------------------------


def outcome(state: dict) -> list[dict] | None:
    """None while playing; else the seats from the highest total down, ties sharing a place (1, 1, 3)."""
    if not state["finished"]:
        return None
    order = sorted(range(state["seats"]), key=lambda s: (-state["totals"][s], s))
    ranking: list[dict] = []
    for position, seat in enumerate(order):
        total = state["totals"][seat]
        place = ranking[-1]["place"] if ranking and ranking[-1]["score"] == total else position + 1
        ranking.append({"seat": seat, "place": place, "score": total})
    return ranking


def view(state: dict, seat: int | None) -> dict:
    """What `seat` may see (None: a spectator): everything but the deck's order."""
    rows = state["rows"]
    pool = draw_pool(state)  # one count of the deck for every row's spill chance
    seen = {
        "game": GAME,
        "seats": state["seats"],
        "hand": state["hand"],
        "dealer": state["dealer"],
        "phase": state["phase"],
        "current": state["current"],
        "pending": state["pending"] and {**state["pending"], "targets": list(state["pending"]["targets"])},
        "dealing": not state["finished"] and _next_waiting(state) is not None,
        "rows": [
            {**row, "numbers": list(row["numbers"]), "extras": list(row["extras"]), "score": hand_score(row)}
            for row in rows
        ],
        "bellows": state["bellows"] and {**state["bellows"], "held": list(state["bellows"]["held"])},
        "queue": [dict(item) for item in state["queue"]],
        "totals": list(state["totals"]),
        "hands": [list(scores) for scores in state["hands"]],
        "deck_count": len(state["deck"]),
        "discard": list(state["discard"]),
        "reshuffles": state["reshuffles"],
        "spill_chance": [float(spill_chance_in(row, pool)) if row["status"] == "in" else None for row in rows],
        "finished": state["finished"],
        "ranking": outcome(state),
    }
    if seat is not None:
        seen["seat"] = seat
    return seen


# --- the spill chance ---------------------------------------------------------------------------


def unseen_cards(seen: dict) -> Counter:
    """The deck's composition as a view shows it: the 94 cards minus every card it shows."""
    unseen = Counter(DECK)
    unseen.subtract(seen_cards(seen))
    return unseen


def seen_cards(seen: dict) -> Counter:
    """Every card out of the deck: rows, saucers, the discard pile, the card being decided, held cards."""
    shown = Counter(seen["discard"])
    for row in seen["rows"]:
        shown.update(row["numbers"])
        shown.update(row["extras"])
        shown[SAUCER] += row["saucer"]
    if seen["pending"]:
        shown[seen["pending"]["card"]] += 1
    if seen["bellows"]:
        shown.update(seen["bellows"]["held"])
    shown.update(item["card"] for item in seen["queue"])
    return shown


def next_card_pool(seen: dict) -> Counter:
    """What the next card is drawn from: the unseen cards, or the discard pile once the deck is empty."""
    return unseen_cards(seen) if seen["deck_count"] else Counter(seen["discard"])


def spill_chance_in(row: dict, pool: Counter) -> Fraction:
    """The chance that a card drawn from `pool` repeats a number of `row` (0 with a saucer)."""
    size = sum(pool.values())
    if row["saucer"] or not size:
        return Fraction(0)
    return Fraction(sum(pool[n] for n in set(row["numbers"])), size)


def draw_pool(state: dict) -> Counter:
    """What the next card comes from: the deck, or the discard pile that a draw would reshuffle."""
    return Counter(state["deck"]) if state["deck"] else Counter(state["discard"])


def spill_chance(state: dict, seat: int) -> Fraction:
    """The exact chance that `seat`'s next draw spills its pot, from the cards it cannot see."""
    return spill_chance_in(state["rows"][seat], draw_pool(state))


# --- the table's choice on timeout --------------------------------------------------------------


def cautious_target(state: dict, seat: int) -> int:
    """The cautious bot's pick, from the seat's own view (docs/games/pots.md)."""
    return cautious_target_seen(view(state, seat))


def cautious_target_seen(seen: dict) -> int:
    """Never aims a risk at itself while another target exists.

    Snuffer: the leader (highest total, then highest hand score). Bellows: the row most likely to
    spill (then the highest hand score). Saucer: whoever threatens least (lowest total, then lowest
    hand score). Remaining ties go to the first seat to the chooser's left.
    """
    pending, me = seen["pending"], seen["seat"]
    order = leftward(seen["seats"], me)
    targets = sorted(pending["targets"], key=order.index)
    others = [t for t in targets if t != me] or targets
    rows, totals = seen["rows"], seen["totals"]
    if pending["card"] == SNUFFER:
        return max(others, key=lambda t: (totals[t], rows[t]["score"], -order.index(t)))
    if pending["card"] == BELLOWS:
        pool = next_card_pool(seen)
        return max(others, key=lambda t: (spill_chance_in(rows[t], pool), rows[t]["score"], -order.index(t)))
    return min(others, key=lambda t: (totals[t], rows[t]["score"], order.index(t)))


def table_choice(state: dict, seat: int) -> dict:
    """On timeout: stop; for a target, the cautious bot's pick."""
    if state["phase"] == "play":
        return {"type": "stop"}
    return {"type": "target", "seat": cautious_target(state, seat)}
