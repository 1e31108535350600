"""Tiles: the tile game on a grid where sets may cross. Pure rules, no Django, no I/O (see docs/games/tiles.md).

State is a plain JSON dict. The dice choose who begins; that seat presses "begin", and turns then go in
seat order from it, skipping seats that finished or resigned. A turn ends with a play (the whole table
after it, judged by games.tiles.rules), a draw, or a pass once the bag is empty. A seat still in play may
resign at any time, on its turn or not (`OUT_OF_TURN`). Actions: {"type": "begin"}, {"type": "play",
"table": [[id, x, y], ...]}, {"type": "draw"}, {"type": "pass"}, {"type": "resign"}.

Fairness streams: `dice:R` (round R of the dice), `bag` (the 106 ids shuffled: seat i takes items
14 i .. 14 i + 13, the rest is the bag, drawn from its front) and `rebag:K` (the K-th resignation's
shuffle of the bag followed by the resigner's hand sorted by id).
"""

from __future__ import annotations

from games.errors import IllegalAction
from games.tiles import rules

GAME = "tiles"
MIN_SEATS, MAX_SEATS = 2, 4
BOARD = (24, 16)
HAND_SIZE = 14
DIE_FACES = 6
OUT_OF_TURN = frozenset({"resign"})
ACTION_TYPES = ("begin", "play", "draw", "pass", "resign")


class InvalidTable(IllegalAction):
    """A play whose table breaks the rules; `details["problems"]` says which lines (rules.judge)."""

    def __init__(self, problems: list[dict]):
        super().__init__("invalid_table", "the table after the play is not valid")
        self.details = {"problems": problems}


# --- setup --------------------------------------------------------------------------------------

def roll_dice(seats: int, rng) -> tuple[list[list[int | None]], int]:
    """Every seat rolls; only the seats tied on the highest value roll again, until one is highest.
    Round R reads stream `dice:R`, one uniform(6) + 1 per rolling seat in seat order."""
    rolling = list(range(seats))
    rounds = []
    while True:
        stream = rng.stream(f"dice:{len(rounds) + 1}")
        values: list[int | None] = [None] * seats
        for seat in rolling:
            values[seat] = stream.uniform(DIE_FACES) + 1
        rounds.append(values)
        top = max(values[seat] for seat in rolling)
        rolling = [seat for seat in rolling if values[seat] == top]
        if len(rolling) == 1:
            return rounds, rolling[0]


def setup(seats: int, options: dict, rng) -> dict:
    """The dice, then the deal of 14 tiles a seat from stream `bag`; the chosen seat must begin."""
    if type(seats) is not int or not MIN_SEATS <= seats <= MAX_SEATS:
        raise ValueError(f"tiles takes {MIN_SEATS} to {MAX_SEATS} seats")
    dice, chooser = roll_dice(seats, rng)
    tiles = rng.stream("bag").shuffle(list(range(rules.TILE_COUNT)))
    hands = [sorted(tiles[HAND_SIZE * seat:HAND_SIZE * (seat + 1)]) for seat in range(seats)]
    return {
        "game": GAME,
        "seats": seats,
        "board": list(BOARD),
        "phase": "begin",
        "dice": dice,
        "chooser": chooser,
        "current": chooser,
        "hands": hands,
        "bag": tiles[HAND_SIZE * seats:],
        "table": [],
        "places": {},
        "finished": [],
        "resigned": [],
        "passes": 0,
        "turn": 0,
        "rebags": 0,
        "blocked": False,
        "end": None,
    }


# --- who acts -----------------------------------------------------------------------------------

def in_play(state: dict) -> list[int]:
    """Seats still playing: not finished, not resigned, while the game is not over."""
    if state["phase"] == "over":
        return []
    out = set(state["finished"]) | set(state["resigned"])
    return [seat for seat in range(state["seats"]) if seat not in out]


def to_act(state: dict) -> list[int]:
    return [] if state["phase"] == "over" else [state["current"]]


def timed(state: dict) -> bool:
    """The chosen seat's "begin" has no countdown; every turn after it does."""
    return state["phase"] == "play"


def legal(state: dict, seat: int) -> list[dict]:
    """The actions `seat` may send now that can be listed: begin (the chosen seat, phase begin), draw or
    pass (the seat to act, by the bag), resign (any seat in play, on its turn or not). Plays are not
    listed: there are far too many tables; `apply` and `check_draft` judge the one sent."""
    if type(seat) is not int or seat not in in_play(state):
        return []
    actions = []
    if seat == state["current"]:
        if state["phase"] == "begin":
            actions.append({"type": "begin"})
        else:
            actions.append({"type": "draw"} if state["bag"] else {"type": "pass"})
    actions.append({"type": "resign"})
    return actions


def table_choice(state: dict, seat: int) -> dict:
    """What the table does for a seat that lets its time run out: begin; else its changes are undone
    (a draft is never applied) and it draws, or passes when the bag is empty."""
    if state["phase"] == "begin":
        return {"type": "begin"}
    return {"type": "draw"} if state["bag"] else {"type": "pass"}


# --- checks -------------------------------------------------------------------------------------

def _check_seat(state: dict, seat) -> None:
    if state["phase"] == "over":
        raise IllegalAction("game_over", "the game is over")
    if type(seat) is not int or not 0 <= seat < state["seats"]:  # not isinstance: True is no seat
        raise IllegalAction("no_such_seat", "there is no such seat")
    if seat in state["finished"] or seat in state["resigned"]:
        raise IllegalAction("not_in_play", "this seat has finished or resigned")


def _check_action(action) -> None:
    if not isinstance(action, dict) or action.get("type") not in ACTION_TYPES:
        raise IllegalAction("bad_action", 'expected {"type": "begin" | "play" | "draw" | "pass" | "resign"}')
    expected = {"type", "table"} if action["type"] == "play" else {"type"}
    if set(action) != expected:
        raise IllegalAction("bad_action", f"a {action['type']} action has the keys {sorted(expected)}")


def _check_turn(state: dict, seat: int, action_type: str) -> None:
    if seat != state["current"]:
        raise IllegalAction("not_your_turn", "another seat acts now")
    if (action_type == "begin") != (state["phase"] == "begin"):
        raise IllegalAction("wrong_phase", f"cannot {action_type} now ({state['phase']})")


def parse_table(state: dict, table) -> list[tuple[int, int, int]]:
    """A table as sent, checked for form only: [id, x, y] triples of ints, ids known and distinct,
    cells on the board and distinct. Returns it sorted by id."""
    width, height = state["board"]
    if not isinstance(table, list) or len(table) > rules.TILE_COUNT:
        raise IllegalAction("bad_table", "a table is a list of [id, x, y]")
    ids, cells, parsed = set(), set(), []
    for item in table:
        if not isinstance(item, list | tuple) or len(item) != 3 or any(type(v) is not int for v in item):
            raise IllegalAction("bad_table", "a table is a list of [id, x, y] integers")
        tile, x, y = item
        if not 0 <= tile < rules.TILE_COUNT or tile in ids:
            raise IllegalAction("bad_table", f"unknown or repeated tile {tile}")
        if not (0 <= x < width and 0 <= y < height) or (x, y) in cells:
            raise IllegalAction("bad_table", f"cell ({x}, {y}) is off the board or taken twice")
        ids.add(tile)
        cells.add((x, y))
        parsed.append((tile, x, y))
    parsed.sort()
    return parsed


def _check_tiles(state: dict, seat: int, table: list[tuple[int, int, int]]) -> list[int]:
    """Every table tile still on the table, nothing but table tiles and the seat's own; returns the
    tiles added from the hand, sorted."""
    new_ids = {tile for tile, _, _ in table}
    if any(tile not in new_ids for tile, _, _ in state["table"]):
        raise IllegalAction("table_tile_missing", "a tile of the table is missing: table tiles never go back")
    on_table = {tile for tile, _, _ in state["table"]}
    hand = set(state["hands"][seat])
    added = sorted(new_ids - on_table)
    if any(tile not in hand for tile in added):
        raise IllegalAction("not_your_tile", "a tile is neither on the table nor in this hand")
    return added


def check_draft(state: dict, seat: int, draft) -> None:
    """A draft (the table as it stands during a turn) from the seat to act, checked cheaply: only the
    table's tiles and the seat's own, every table tile, ids and cells distinct and on the board. Its
    validity is not judged: only a play decides."""
    _check_seat(state, seat)
    if state["phase"] != "play":
        raise IllegalAction("wrong_phase", "drafts are for turns of play")
    if seat != state["current"]:
        raise IllegalAction("not_your_turn", "another seat acts now")
    if not isinstance(draft, dict) or set(draft) != {"table"}:
        raise IllegalAction("bad_table", 'a draft is {"table": [[id, x, y], ...]}')
    _check_tiles(state, seat, parse_table(state, draft["table"]))


# --- apply --------------------------------------------------------------------------------------

def apply(state: dict, seat: int, action: dict, rng=None) -> tuple[dict, list[dict]]:
    """The state after `seat` sends `action`, and the events to tell (those with "only" go to that seat
    alone). `rng` is needed only for a resignation at three or four seats (stream rebag:K)."""
    _check_seat(state, seat)
    _check_action(action)
    kind = action["type"]
    if kind != "resign":
        _check_turn(state, seat, kind)
    events: list[dict] = []
    if kind == "play":
        table = parse_table(state, action["table"])
        added = _check_tiles(state, seat, table)
        if not added:
            raise IllegalAction("nothing_added", "a play adds at least one tile from the hand")
        width, height = state["board"]
        judgement = rules.judge(table, width, height)
        if not judgement.valid:
            raise InvalidTable(judgement.problems)
        state = _copy_state(state)
        _play(state, seat, table, added, events)
    else:
        state = _copy_state(state)
        if kind == "begin":
            state["phase"] = "play"
            events.append({"type": "begun", "seat": seat})
            _start_turn(state, seat, events)
        elif kind == "draw":
            _draw(state, seat, events)
        elif kind == "pass":
            _pass(state, seat, events)
        else:
            _resign(state, seat, rng, events)
    return state, events


def _copy_state(state: dict) -> dict:
    """A copy deep enough that apply never changes its input."""
    copied = dict(state)
    copied["board"] = list(state["board"])
    copied["dice"] = [list(values) for values in state["dice"]]
    copied["hands"] = [list(hand) for hand in state["hands"]]
    copied["table"] = [list(item) for item in state["table"]]
    copied["places"] = dict(state["places"])
    for key in ("bag", "finished", "resigned"):
        copied[key] = list(state[key])
    return copied


def _next_seat(state: dict, after: int) -> int:
    """The next seat in play in seat order after `after`."""
    playing = in_play(state)
    return next(s for s in [(after + step) % state["seats"] for step in range(1, state["seats"] + 1)]
                if s in playing)


def _start_turn(state: dict, seat: int, events: list[dict]) -> None:
    state["current"] = seat
    state["turn"] += 1
    events.append({"type": "turn", "seat": seat})


def _play(state: dict, seat: int, table, added: list[int], events: list[dict]) -> None:
    state["table"] = [list(item) for item in table]
    taken = set(added)
    state["hands"][seat] = [tile for tile in state["hands"][seat] if tile not in taken]
    state["passes"] = 0
    events.append({"type": "played", "seat": seat, "added": added})
    if not state["hands"][seat]:
        place = len(state["finished"]) + 1
        state["finished"].append(seat)
        state["places"][str(seat)] = place
        events.append({"type": "out", "seat": seat, "place": place})
        if len(in_play(state)) <= 1:
            _finish(state, "out", events)
            return
    _start_turn(state, _next_seat(state, seat), events)


def _draw(state: dict, seat: int, events: list[dict]) -> None:
    if not state["bag"]:
        raise IllegalAction("bag_empty", "the bag is empty: pass instead")
    tile = state["bag"].pop(0)
    state["hands"][seat] = sorted(state["hands"][seat] + [tile])
    state["passes"] = 0  # a draw breaks a row of passes
    events.append({"type": "drew", "seat": seat})
    events.append({"type": "drawn", "seat": seat, "tile": tile, "only": seat})
    _start_turn(state, _next_seat(state, seat), events)


def _pass(state: dict, seat: int, events: list[dict]) -> None:
    if state["bag"]:
        raise IllegalAction("bag_not_empty", "the bag still has tiles: draw instead")
    state["passes"] += 1
    events.append({"type": "passed", "seat": seat})
    if state["passes"] >= len(in_play(state)):
        _block(state, events)
        return
    _start_turn(state, _next_seat(state, seat), events)


def _block(state: dict, events: list[dict]) -> None:
    """Bag empty and everyone in play passed in a row: the players still in play take the next places
    by the points left in hand, fewest first; equal points share a place."""
    playing = in_play(state)
    weight = {seat: hand_points(state["hands"][seat]) for seat in playing}
    base = len(state["finished"]) + 1
    ordered = sorted(playing, key=lambda s: (weight[s], s))
    for index, seat in enumerate(ordered):
        if index and weight[seat] == weight[ordered[index - 1]]:
            state["places"][str(seat)] = state["places"][str(ordered[index - 1])]
        else:
            state["places"][str(seat)] = base + index
    state["blocked"] = True
    events.append({"type": "blocked"})
    _finish(state, "blocked", events)


def _resign(state: dict, seat: int, rng, events: list[dict]) -> None:
    """Resigned seats take the last places, a later resignation above an earlier one. With two seats the
    game ends; with more, the hand goes back into the bag, shuffled, and the others play on."""
    was_to_act = seat == state["current"]
    state["places"][str(seat)] = state["seats"] - len(state["resigned"])
    state["resigned"].append(seat)
    events.append({"type": "resigned", "seat": seat})
    if state["seats"] > 2:
        if rng is None:
            raise ValueError("a resignation at three or four seats shuffles the bag: it needs the game's rng")
        state["rebags"] += 1
        returned = state["bag"] + sorted(state["hands"][seat])
        state["bag"] = rng.stream(f"rebag:{state['rebags']}").shuffle(returned)
        state["hands"][seat] = []
        state["passes"] = 0  # the bag has tiles again
        events.append({"type": "rebagged", "k": state["rebags"]})
    if len(in_play(state)) <= 1:
        _finish(state, "resigned", events)
        return
    if was_to_act:
        following = _next_seat(state, seat)
        if state["phase"] == "begin":
            state["chooser"] = state["current"] = following  # the choice to begin passes on
        else:
            _start_turn(state, following, events)


def _finish(state: dict, end: str, events: list[dict]) -> None:
    """The game is over; the last seat in play, if any, takes the next place."""
    for seat in in_play(state):
        if str(seat) not in state["places"]:
            state["places"][str(seat)] = len(state["finished"]) + 1
    state["phase"] = "over"
    state["current"] = None
    state["end"] = end
    events.append({"type": "game_over", "end": end})


# --- outcome and views --------------------------------------------------------------------------

def hand_points(hand: list[int]) -> int:
    return sum(rules.points(tile) for tile in hand)


def outcome(state: dict) -> list[dict] | None:
    """None while playing; else every seat with its place, the points left in its hand (0 when out)
    and whether it resigned, by place then seat."""
    if state["phase"] != "over":
        return None
    resigned = set(state["resigned"])
    ranking = [{"seat": seat, "place": state["places"][str(seat)], "points": hand_points(state["hands"][seat]),
                "resigned": seat in resigned} for seat in range(state["seats"])]
    return sorted(ranking, key=lambda row: (row["place"], row["seat"]))


def joker_identities(state: dict) -> dict[str, list[int]]:
    """For each joker on the table, the faces it can stand for now (derived, never stored)."""
    if not any(tile in rules.JOKERS for tile, _, _ in state["table"]):
        return {}
    width, height = state["board"]
    return {str(tile): faces for tile, faces in rules.judge(state["table"], width, height).jokers.items()}


def view(state: dict, seat: int | None) -> dict:
    """What `seat` may see (None: a spectator): everything but the other hands, the bag's order and
    the tiles others drew."""
    seen = {
        "game": GAME,
        "seats": state["seats"],
        "board": list(state["board"]),
        "phase": state["phase"],
        "dice": [list(values) for values in state["dice"]],
        "chooser": state["chooser"],
        "current": state["current"],
        "table": [list(item) for item in state["table"]],
        "jokers": joker_identities(state),
        "counts": [len(hand) for hand in state["hands"]],
        "bag": len(state["bag"]),
        "places": dict(state["places"]),
        "finished": list(state["finished"]),
        "resigned": list(state["resigned"]),
        "in_play": in_play(state),
        "passes": state["passes"],
        "turn": state["turn"],
        "blocked": state["blocked"],
        "end": state["end"],
        "ranking": outcome(state),
    }
    if seat is not None:
        seen["seat"] = seat
        seen["hand"] = list(state["hands"][seat])
    return seen


def describe_deal(state: dict) -> str:
    """The deal in a line for the verifier (games/replay.py): the dice, who starts, the hands, the bag."""
    rounds = "; ".join(" ".join("-" if value is None else str(value) for value in values) for values in state["dice"])
    hands = "; ".join(f"seat {seat + 1}: {hand}" for seat, hand in enumerate(state["hands"]))
    return (f"dice {rounds}: seat {state['chooser'] + 1} starts; hands {hands}; "
            f"{len(state['bag'])} tiles in the bag")
