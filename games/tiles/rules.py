"""Tiles: the tiles, their faces and the judgement of a table. Pure, no Django, no I/O.

A table is an iterable of (tile_id, x, y). `judge` tells whether it is valid and, when it is not, which
lines (or lone tiles) are wrong and why, in a fixed order that the JavaScript port reproduces
(docs/games/tiles.md). It is called thousands of times per AI decision, so it indexes cells once,
scans rows and columns once, and reads joker lines by their few readings instead of searching.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import permutations

TILE_COUNT = 106
JOKERS = (104, 105)
JOKER_POINTS = 30
COLOURS = ("black", "blue", "orange", "red")

TWO_TILES, LONE, NOT_SET, JOKER_CONFLICT = "two_tiles", "lone", "not_set", "joker_conflict"


def is_joker(tile: int) -> bool:
    return tile >= 104


def face(tile: int) -> int:
    """0..51 for a numbered tile: colour * 13 + number - 1. Jokers have no face."""
    if is_joker(tile):
        raise ValueError("a joker has no face")
    return tile % 52


def colour(tile: int) -> int:
    """0 black, 1 blue, 2 orange, 3 red."""
    return face(tile) // 13


def number(tile: int) -> int:
    """1..13."""
    return face(tile) % 13 + 1


def points(tile: int) -> int:
    """What a tile left in hand weighs at a blocked end: its number, a joker 30."""
    return JOKER_POINTS if is_joker(tile) else number(tile)


# Lookups by tile id for the hot path; -1 for jokers.
_COLOUR = tuple((t % 52) // 13 if t < 104 else -1 for t in range(TILE_COUNT))
_NUMBER = tuple(t % 13 + 1 if t < 104 else -1 for t in range(TILE_COUNT))


@dataclass(frozen=True)
class Judgement:
    valid: bool
    problems: list[dict] = field(default_factory=list)
    jokers: dict[int, list[int]] = field(default_factory=dict)


# --- scanning -----------------------------------------------------------------------------------

def _scan(table, stride: int):
    """(cells by key, horizontal lines, vertical lines, lone keys). A cell's key is y * stride + x with
    stride > width, so the key to the right of the last column is never a cell. Lines are lists of keys
    in reading order; horizontal ones by (y, x), vertical ones by (x, y)."""
    at = {}
    for tile, x, y in table:
        at[y * stride + x] = tile
    keys = sorted(at)
    horizontal = []
    in_line = set()
    for key in keys:
        if key - 1 not in at and key + 1 in at:
            line = [key]
            nxt = key + 1
            while nxt in at:
                line.append(nxt)
                nxt += 1
            horizontal.append(line)
            in_line.update(line)
    vertical = []
    for key in keys:
        if key - stride not in at and key + stride in at:
            line = [key]
            nxt = key + stride
            while nxt in at:
                line.append(nxt)
                nxt += stride
            vertical.append(line)
            in_line.update(line)
    vertical.sort(key=lambda line: (line[0] % stride, line[0]))
    lone = [key for key in keys if key not in in_line]
    return at, horizontal, vertical, lone


def _stride(table) -> tuple[list, int]:
    table = [tuple(cell) for cell in table]
    return table, max((x for _, x, _ in table), default=0) + 2


def lines(table) -> list[list[int]]:
    """Every maximal horizontal and vertical line of two or more tiles, as tile ids in reading order:
    horizontal lines by (y, x), then vertical lines by (x, y)."""
    table, stride = _stride(table)
    at, horizontal, vertical, _ = _scan(table, stride)
    return [[at[key] for key in line] for line in horizontal + vertical]


def structures(table) -> list[list[int]]:
    """The tiles connected through lines (a lone tile is a structure of its own), each as sorted tile
    ids, ordered by their smallest id."""
    table, stride = _stride(table)
    at, horizontal, vertical, _ = _scan(table, stride)
    parent = {tile: tile for tile in at.values()}

    def root(tile):
        while parent[tile] != tile:
            parent[tile] = parent[parent[tile]]
            tile = parent[tile]
        return tile

    for line in horizontal + vertical:
        first = root(at[line[0]])
        for key in line[1:]:
            other = root(at[key])
            if other != first:
                parent[other] = first
    groups: dict[int, list[int]] = {}
    for tile in at.values():
        groups.setdefault(root(tile), []).append(tile)
    return sorted((sorted(group) for group in groups.values()), key=lambda group: group[0])


# --- reading one line ---------------------------------------------------------------------------

def _plain_set(tiles: list[int]) -> bool:
    """A line without jokers: a run (one colour, +1 or -1 all along) or a group (3-4 colours, one number)."""
    first = tiles[0]
    c, n = _COLOUR[first], _NUMBER[first]
    second = _NUMBER[tiles[1]]
    if second == n:
        if len(tiles) > 4:
            return False
        seen = 0
        for tile in tiles:
            if _NUMBER[tile] != n:
                return False
            bit = 1 << _COLOUR[tile]
            if seen & bit:
                return False
            seen |= bit
        return True
    step = second - n
    if step != 1 and step != -1:
        return False
    for tile in tiles:
        if _COLOUR[tile] != c or _NUMBER[tile] != n:
            return False
        n += step
    return True  # numbers stay in 1..13: every one is a real tile's


def _joker_readings(tiles: list[int]) -> set[tuple[int, ...]]:
    """Every assignment of faces to the line's jokers (in id order) under which it is a run or a group."""
    length = len(tiles)
    joker_at = sorted((tile, i) for i, tile in enumerate(tiles) if tile >= 104)
    reals = [(i, tile) for i, tile in enumerate(tiles) if tile < 104]
    readings: set[tuple[int, ...]] = set()
    c = _COLOUR[reals[0][1]]
    if all(_COLOUR[tile] == c for _, tile in reals):
        i0, t0 = reals[0]
        for step in (1, -1):
            start = _NUMBER[t0] - step * i0
            end = start + step * (length - 1)
            if not (1 <= start <= 13 and 1 <= end <= 13):
                continue
            if all(_NUMBER[tile] == start + step * i for i, tile in reals):
                readings.add(tuple(c * 13 + start + step * i - 1 for _, i in joker_at))
    if length <= 4:
        n = _NUMBER[reals[0][1]]
        colours = {_COLOUR[tile] for _, tile in reals}
        if len(colours) == len(reals) and all(_NUMBER[tile] == n for _, tile in reals):
            missing = [k for k in range(4) if k not in colours]
            for chosen in permutations(missing, len(joker_at)):
                readings.add(tuple(k * 13 + n - 1 for k in chosen))
    return readings


# --- judging a table ----------------------------------------------------------------------------

def judge(table, width: int = 24, height: int = 16) -> Judgement:
    """Judge a well-formed table (distinct ids, distinct cells on the board; the engine checks that).

    Problems: `two_tiles` for a line of two, `lone` for a tile in no line, `not_set` for a line of three
    or more that no identity of its jokers makes a run or a group, and `joker_conflict` for the readable
    joker lines of a joker component (jokers sharing a line of 3+) whose jokers have no identities that
    satisfy them all together. Horizontal lines by (y, x), vertical lines by (x, y), then lone tiles.
    `jokers` gives every joker on the table the faces it can take, jointly with the other joker.
    """
    stride = width + 1
    at, horizontal, vertical, lone = _scan(table, stride)
    reasons: list[str | None] = []
    all_lines = horizontal + vertical
    # Joker lines that read as sets: (line index, jokers in id order, readings).
    readable: list[tuple[int, tuple[int, ...], set]] = []
    partner: dict[int, int] = {}  # joker -> the other joker, when they share a line of 3+
    jokers_in_play = [tile for tile in at.values() if tile >= 104]
    for index, line in enumerate(all_lines):
        if len(line) == 2:
            reasons.append(TWO_TILES)
            continue
        tiles = [at[key] for key in line]
        line_jokers = [tile for tile in tiles if tile >= 104]
        if not line_jokers:
            reasons.append(None if _plain_set(tiles) else NOT_SET)
            continue
        if len(line_jokers) == 2:
            partner[104], partner[105] = 105, 104
        found = _joker_readings(tiles)
        if found:
            readable.append((index, tuple(sorted(line_jokers)), found))
            reasons.append(None)
        else:
            reasons.append(NOT_SET)

    identities: dict[int, list[int]] = {tile: [] for tile in sorted(jokers_in_play)}
    for component in _components(jokers_in_play, partner):
        constraints = [item for item in readable if any(j in component for j in item[1])]
        if not constraints:
            continue
        solved = _solve(component, constraints)
        if solved is None:
            for index, _, _ in constraints:
                reasons[index] = JOKER_CONFLICT
        else:
            identities.update(solved)

    problems = []
    for line, reason in zip(all_lines, reasons, strict=True):
        if reason is not None:
            problems.append({"cells": [[key % stride, key // stride] for key in line], "reason": reason})
    for key in lone:
        problems.append({"cells": [[key % stride, key // stride]], "reason": LONE})
    return Judgement(valid=not problems, problems=problems, jokers=identities)


def _components(jokers: list[int], partner: dict[int, int]) -> list[tuple[int, ...]]:
    if len(jokers) == 2 and partner:
        return [(104, 105)]
    return [(tile,) for tile in sorted(jokers)]


def _solve(component: tuple[int, ...], constraints) -> dict[int, list[int]] | None:
    """Faces for the component's jokers that satisfy every readable line together, projected on each
    joker ([] for a joker in none of them); None when no identities do."""
    single: dict[int, set[int] | None] = {j: None for j in component}
    pairs: set[tuple[int, int]] | None = None
    for _, line_jokers, found in constraints:
        if len(line_jokers) == 2:
            pairs = found if pairs is None else pairs & found
        else:
            j = line_jokers[0]
            faces = {reading[0] for reading in found}
            single[j] = faces if single[j] is None else single[j] & faces
    if pairs is None:
        if any(faces is not None and not faces for faces in single.values()):
            return None
        return {j: sorted(faces) if faces is not None else [] for j, faces in single.items()}
    first, second = single[104], single[105]
    joint = [(a, b) for a, b in pairs if (first is None or a in first) and (second is None or b in second)]
    if not joint:
        return None
    return {104: sorted({a for a, _ in joint}), 105: sorted({b for _, b in joint})}
