"""Random tables for comparing judges: valid-looking ones built from sets and crossings, and invalid ones
made from them by mutation. A table is a sorted list of [tile_id, x, y] on a 24 x 16 board, always well
formed (distinct ids, distinct cells on the board), as `judge` assumes.

Built structures: runs (ascending or descending) and groups laid across or down, T-shapes and crossings
(a second set through one tile of the first, which it shares), 3 x 3 and larger blocks (rows are runs,
columns groups), and jokers standing for any tile, a crossing's included; some crossings through a
joker take an unrelated second set, so the joker's two lines often disagree (a joker conflict).
"""

from __future__ import annotations

import random

WIDTH, HEIGHT = 24, 16
JOKERS = (104, 105)


def tile_of(colour: int, number: int, copy: int) -> int:
    return copy * 52 + colour * 13 + number - 1


class Builder:
    """A table being built: which ids and cells are used, and a random source."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.at: dict[tuple[int, int], int] = {}
        self.used: set[int] = set()

    def free_copy(self, colour: int, number: int) -> int | None:
        copies = [c for c in (0, 1) if tile_of(colour, number, c) not in self.used]
        return tile_of(colour, number, self.rng.choice(copies)) if copies else None

    def fits(self, cells: list[tuple[int, int]]) -> bool:
        """On the board, free, and touching no tile already placed."""
        for x, y in cells:
            if not (0 <= x < WIDTH and 0 <= y < HEIGHT) or (x, y) in self.at:
                return False
            if any(near in self.at for near in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1))):
                return False
        return True

    def ids_for(self, faces: list[tuple[int, int]], joker_share: float) -> list[int] | None:
        """One id per face (colour, number), a joker now and then; None when a face has no copy left."""
        ids = []
        for colour, number in faces:
            free_jokers = [j for j in JOKERS if j not in self.used and j not in ids]
            if free_jokers and self.rng.random() < joker_share:
                ids.append(self.rng.choice(free_jokers))
                continue
            found = [t for t in (tile_of(colour, number, 0), tile_of(colour, number, 1))
                     if t not in self.used and t not in ids]
            if not found:
                return None
            ids.append(self.rng.choice(found))
        return ids

    def place(self, cells, ids) -> None:
        for cell, tile in zip(cells, ids, strict=True):
            self.at[cell] = tile
            self.used.add(tile)

    def table(self) -> list[list[int]]:
        return sorted([tile, x, y] for (x, y), tile in self.at.items())


def random_set(rng: random.Random, must: tuple[int, int] | None = None) -> tuple[list[tuple[int, int]], int]:
    """Faces of a run or a group, and the index of `must` (a face it has to contain) or a random index."""
    if rng.random() < 0.5:  # a run
        length = rng.choice([3, 3, 3, 4, 4, 5, 6, 7, 9, 13])
        if must:
            colour, number = must
            low = rng.randint(max(1, number - length + 1), min(number, 14 - length))
        else:
            colour, low = rng.randrange(4), rng.randint(1, 14 - length)
        faces = [(colour, n) for n in range(low, low + length)]
        if rng.random() < 0.4:
            faces.reverse()
    else:  # a group
        size = rng.choice([3, 4])
        if must:
            colour, number = must
            others = rng.sample([c for c in range(4) if c != colour], size - 1)
            colours = [colour, *others]
            rng.shuffle(colours)
        else:
            number, colours = rng.randint(1, 13), rng.sample(range(4), size)
        faces = [(c, number) for c in colours]
    index = faces.index(must) if must else rng.randrange(len(faces))
    return faces, index


def cells_of(start: tuple[int, int], length: int, across: bool) -> list[tuple[int, int]]:
    x, y = start
    return [(x + i, y) if across else (x, y + i) for i in range(length)]


def add_set(b: Builder, joker_share: float) -> bool:
    faces, _ = random_set(b.rng)
    across = b.rng.random() < 0.6
    for _attempt in range(20):
        start = (b.rng.randrange(WIDTH), b.rng.randrange(HEIGHT))
        cells = cells_of(start, len(faces), across)
        if b.fits(cells):
            ids = b.ids_for(faces, joker_share)
            if ids is None:
                return False
            b.place(cells, ids)
            return True
    return False


def add_crossing(b: Builder, joker_share: float, joker_at_crossing: bool) -> bool:
    """A set across, and a set down through one of its tiles (a T when either index is an end)."""
    first, i = random_set(b.rng)
    shared_face = first[i]
    if joker_at_crossing and b.rng.random() < 0.5:
        second, j = random_set(b.rng)  # unrelated: the joker must be both, which often fails
    else:
        second, j = random_set(b.rng, must=shared_face)
    for _attempt in range(30):
        x0, y0 = b.rng.randrange(WIDTH), b.rng.randrange(HEIGHT)
        across = cells_of((x0, y0), len(first), True)
        cross = across[i]
        down = cells_of((cross[0], cross[1] - j), len(second), False)
        if not (b.fits(across) and b.fits([c for c in down if c != cross])):
            continue
        if set(across) & set(down) != {cross}:
            continue
        ids = b.ids_for(first, joker_share)
        if ids is None:
            return False
        free_jokers = [t for t in JOKERS if t not in b.used and t not in ids]
        if joker_at_crossing and free_jokers:
            ids[i] = b.rng.choice(free_jokers)
        b.place(across, ids)
        rest = [face for k, face in enumerate(second) if k != j]
        rest_ids = b.ids_for(rest, joker_share)
        if rest_ids is None:
            return True
        b.place([c for c in down if c != cross], rest_ids)
        return True
    return False


def add_block(b: Builder, joker_share: float) -> bool:
    """Rows that are runs of one colour each (distinct colours), so that every column is a group."""
    rows, length = b.rng.choice([(3, 3), (3, 4), (4, 3), (3, 5), (4, 6)])
    colours = b.rng.sample(range(4), rows)
    low = b.rng.randint(1, 14 - length)
    descending = b.rng.random() < 0.3
    numbers = list(range(low, low + length))[::-1] if descending else list(range(low, low + length))
    for _attempt in range(20):
        x0, y0 = b.rng.randrange(WIDTH), b.rng.randrange(HEIGHT)
        cells = [(x0 + k, y0 + r) for r in range(rows) for k in range(length)]
        if b.fits(cells):
            faces = [(colours[r], numbers[k]) for r in range(rows) for k in range(length)]
            ids = b.ids_for(faces, joker_share)
            if ids is None:
                return False
            b.place(cells, ids)
            return True
    return False


def built_table(rng: random.Random) -> list[list[int]]:
    b = Builder(rng)
    joker_share = rng.choice([0.0, 0.03, 0.1])
    for _ in range(rng.choice([1, 2, 3, 5, 8, 12])):
        kind = rng.random()
        if kind < 0.4:
            add_set(b, joker_share)
        elif kind < 0.75:
            add_crossing(b, joker_share, joker_at_crossing=rng.random() < 0.3)
        else:
            add_block(b, joker_share)
    return b.table()


def mutated(table: list[list[int]], rng: random.Random) -> list[list[int]]:
    """One to three changes: a tile moved (often next to another), two tiles swapped, a tile removed,
    a tile or a joker added, or a tile swapped for a joker."""
    table = [list(cell) for cell in table]
    for _ in range(rng.choice([1, 1, 2, 3])):
        ids = {t for t, _, _ in table}
        kind = rng.randrange(6)
        if kind == 0 and table:  # move
            moved = rng.choice(table)
            moved[1], moved[2] = free_cell(table, rng)
        elif kind == 1 and len(table) >= 2:  # swap two positions
            a, c = rng.sample(table, 2)
            a[1:], c[1:] = c[1:], a[1:]
        elif kind == 2 and table:  # remove
            table.remove(rng.choice(table))
        elif kind in (3, 4):  # add a tile (kind 4: a joker when one is free)
            spare = [j for j in JOKERS if j not in ids] if kind == 4 else []
            spare = spare or [t for t in range(104) if t not in ids]
            if spare:
                table.append([rng.choice(spare), *free_cell(table, rng)])
        elif kind == 5 and table:  # a tile becomes a joker
            spare = [j for j in JOKERS if j not in ids]
            if spare:
                rng.choice(table)[0] = rng.choice(spare)
    return sorted(table)


def free_cell(table: list[list[int]], rng: random.Random) -> tuple[int, int]:
    """An empty cell, most often beside a tile, where it changes lines."""
    cells = {(x, y) for _, x, y in table}
    if table and rng.random() < 0.7:
        _, x, y = rng.choice(table)
        options = [(x + dx, y + dy) for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))]
        options = [(cx, cy) for cx, cy in options if 0 <= cx < WIDTH and 0 <= cy < HEIGHT and (cx, cy) not in cells]
        if options:
            return rng.choice(options)
    while True:
        cell = (rng.randrange(WIDTH), rng.randrange(HEIGHT))
        if cell not in cells:
            return cell


def random_tables(count: int, seed: int) -> list[list[list[int]]]:
    """`count` tables: a third as built, the rest mutated from built ones."""
    rng = random.Random(seed)
    tables = []
    while len(tables) < count:
        table = built_table(rng)
        tables.append(table)
        for _ in range(2):
            if len(tables) < count:
                tables.append(mutated(table, rng))
    return tables


def well_formed(table: list[list[int]]) -> bool:
    ids = [t for t, _, _ in table]
    cells = [(x, y) for _, x, y in table]
    return (len(set(ids)) == len(ids) and len(set(cells)) == len(cells)
            and all(0 <= t < 106 and 0 <= x < WIDTH and 0 <= y < HEIGHT for t, x, y in table))
