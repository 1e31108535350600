"""Tiles bots, deciding from one seat's view only (docs/games/tiles.md).

`choose(view, level)` takes `engine.view(state, seat)` for the seat to act and returns its action.

- basic: begins when it is the chosen seat. On its turn it makes sets from its own hand alone (the
  longest runs and groups of real tiles first, then a joker completing two tiles that fit), lays each on
  free cells of the board touching no other tile, and plays them if the whole table is valid (every
  play is judged before it is sent); with no set it draws, or passes when the bag is empty. It never
  moves a table tile. Deterministic: the same view gives the same action.
- strong: the searching AI of bots/tiles_ai.py, within `time_limit` seconds a decision (the platform
  passes its setting; the bot reads none).

`steps(view, action)` gives the drafts that show a play being made, one tile at a time, for the platform
to show before it plays the action (a draw or a pass shows nothing).
"""

from __future__ import annotations

from bots import tiles_ai
from games.tiles import rules

LEVELS = ("basic", "strong")
STRONG_TIME_LIMIT = tiles_ai.DEFAULT_TIME_LIMIT


def choose(view: dict, level: str = "basic", time_limit: float = STRONG_TIME_LIMIT) -> dict:
    """The action a bot of `level` plays from `view`, the view of the seat to act."""
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; expected one of {LEVELS}")
    if view["phase"] == "over" or view.get("seat") != view["current"]:
        raise ValueError("this seat has nothing to decide")
    if view["phase"] == "begin":
        return {"type": "begin"}
    if level == "strong":
        return tiles_ai.choose_strong(view, time_limit=time_limit)
    play = basic_play(view)
    if play is not None:
        return play
    return {"type": "draw"} if view["bag"] else {"type": "pass"}


def steps(view: dict, action: dict) -> list[dict]:
    """Drafts from the table the turn found to the play's table, one tile placed each."""
    if action.get("type") != "play":
        return []
    width, height = view["board"]
    return [{"table": table} for table in tiles_ai.draft_steps(view["table"], action["table"], width=width,
                                                               height=height)]


def basic_play(view: dict) -> dict | None:
    """Sets from the hand laid on free cells, or None when there is none that fits."""
    width, height = view["board"]
    table = [tuple(item) for item in view["table"]]
    taken = {(x, y) for _, x, y in table}
    laid = []
    for tiles in hand_sets(view["hand"]):
        spot = free_spot(taken, len(tiles), width, height)
        if spot is None:
            continue
        x, y = spot
        cells = [(tile, x + i, y) for i, tile in enumerate(tiles)]
        if rules.judge(table + laid + cells, width, height).valid:
            laid += cells
            taken.update((cx, cy) for _, cx, cy in cells)
    if not laid:
        return None
    after = sorted(table + laid)
    if not rules.judge(after, width, height).valid:  # never send a play the engine would refuse
        return None
    return {"type": "play", "table": [list(item) for item in after]}


def hand_sets(hand: list[int]) -> list[list[int]]:
    """Sets made from `hand` alone, each in the order to lay it left to right: greedily the largest run
    or group of real tiles, then pairs completed by a joker."""
    left = sorted(tile for tile in hand if not rules.is_joker(tile))
    jokers = [tile for tile in sorted(hand) if rules.is_joker(tile)]
    sets = []
    while True:
        best = _largest_plain_set(left)
        if best is None:
            break
        sets.append(best)
        for tile in best:
            left.remove(tile)
    for joker in jokers:
        completed = _joker_set(left, joker)
        if completed is None:
            break
        sets.append(completed)
        for tile in completed:
            if tile != joker:
                left.remove(tile)
    return sets


def _first_copies(tiles: list[int]) -> dict[int, int]:
    """Face -> the lowest id among `tiles` showing it."""
    by_face: dict[int, int] = {}
    for tile in sorted(tiles):
        by_face.setdefault(rules.face(tile), tile)
    return by_face


def _largest_plain_set(tiles: list[int]) -> list[int] | None:
    by_face = _first_copies(tiles)
    candidates = []
    for c in range(4):
        start = None
        for n in range(1, 15):
            present = n <= 13 and c * 13 + n - 1 in by_face
            if present and start is None:
                start = n
            elif not present and start is not None:
                if n - start >= 3:
                    candidates.append([by_face[c * 13 + k - 1] for k in range(start, n)])
                start = None
    for n in range(1, 14):
        group = [by_face[c * 13 + n - 1] for c in range(4) if c * 13 + n - 1 in by_face]
        if len(group) >= 3:
            candidates.append(group)
    if not candidates:
        return None
    return max(candidates, key=lambda tiles: (len(tiles), [-t for t in tiles]))


def _joker_set(tiles: list[int], joker: int) -> list[int] | None:
    """Two tiles and the joker as a valid line of three: a run with a gap or an end, or a group."""
    by_face = _first_copies(tiles)
    faces = sorted(by_face)
    for a in faces:
        for b in faces:
            if b <= a:
                continue
            ta, tb = by_face[a], by_face[b]
            if a // 13 == b // 13 and b - a == 2:
                line = [ta, joker, tb]
            elif a // 13 == b // 13 and b - a == 1:
                line = [ta, tb, joker] if rules.number(tb) < 13 else [joker, ta, tb]
            elif a % 13 == b % 13:
                line = [ta, tb, joker]
            else:
                continue
            if rules.judge([(tile, i, 0) for i, tile in enumerate(line)]).valid:
                return line
    return None


def free_spot(taken: set, length: int, width: int, height: int) -> tuple[int, int] | None:
    """The first cell (top to bottom, left to right) where `length` tiles in a row touch no tile:
    their cells, the cells at both ends, and the cells above and below them are empty."""
    for y in range(height):
        for x in range(width - length + 1):
            if (x - 1, y) in taken or (x + length, y) in taken:
                continue
            if all((x + i, y) not in taken and (x + i, y - 1) not in taken and (x + i, y + 1) not in taken
                   for i in range(length)):
                return x, y
    return None
