"""The strong tiles AI: the play that puts down the most tiles, crossings included.

`choose_strong(view, time_limit=..., node_limit=...)` decides from one seat's view only (the table,
its hand, the counts, the bag's count). It

1. solves an integer program (HiGHS) over the sets that can be made from the table and the hand:
   runs of 3 to 5 and groups of 3 or 4, jokers included, where every table tile must be used; a
   table structure may also be kept as it stands (which is how crossings and joker crossings already
   on the table survive). The extended program lets a set be laid across one tile of another set (a
   crossing, or a T at a line's end): that tile then counts once for two sets. The objective is,
   in this order: most tiles from the hand, most points (numbers) from the hand, fewest jokers from
   the hand, fewest table tiles in structures that change;
2. lays the result out on the board: structures kept stay where they are, consecutive runs are
   joined, a new set that holds an old line is laid over it so that its tiles do not move, sets that
   cross are laid as a tree (horizontal, then vertical, and so on), the rest goes to free space;
3. checks the table as the engine does (every table tile kept, a hand tile added, judge valid) and,
   when a layout fails, asks the program for the next best (fewer crossings, then fewer tiles);
4. with the time left, tries local moves on the result: a hand tile at a line's end, two hand tiles
   crossing a table tile (a T or a cross), jokers included.

It never returns an invalid play: without a checked play it draws (passes with an empty bag).
A node limit (HiGHS's branch-and-bound nodes, and a count of local trials) makes it repeatable;
the time limit is a safety cap. No Django here: the caller passes the limit in.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

import highspy
import numpy as np

from games.tiles import rules

log = logging.getLogger(__name__)

FACES = 52
NUMBERS = 13
RUN_LENGTHS = (3, 4, 5)  # any longer run splits into these; the layout joins them back
MAX_JOKERS = 2

# The objective, lexicographic through weights: a play's points stay far under 1,000, so they never
# outweigh a tile; two jokers never outweigh a point; the kept and crossing terms never outweigh a joker.
W_TILE = 1_000_000
W_POINT = 1_000
W_JOKER = 300
W_KEPT = 1  # per table tile in a structure left as it stands
W_CROSSING = 1  # a crossing only when it gains something
TOOTH_MAX_SIZE = 4  # sets laid across another set: groups and runs of 3 or 4

DEFAULT_TIME_LIMIT = 2.0
# The programs tried in turn (radius of the structures opened, None for all; crossings or not): the
# whole table side by side first, since "never fewer tiles than the optimum without crossings" rests
# on it and it is cheap; then crossings near the hand, small and usually where they pay; then
# everything, time allowing. On a loaded machine the first stage gets the most time.
STAGES = ((None, False), (1, True), (None, True))
LATER_STAGE_SHARE = 0.25  # a later, larger program starts only with this share of the time left
TIME_MARGIN = 0.25  # seconds kept back for the last checks and the caller
LOCAL_TRIALS_PER_NODE = 4  # local trials allowed per branch-and-bound node of the node limit


def face_colour(f: int) -> int:
    return f // NUMBERS


def face_number(f: int) -> int:
    return f % NUMBERS + 1


# --- patterns ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pattern:
    """A set as the program sees it: its real faces and its joker count; `slots` is one way to read it."""

    faces: tuple[int, ...]  # sorted, each at most once
    jokers: int
    slots: tuple[int | None, ...]  # reading order; None for a joker
    kind: str  # "run" or "group"

    @property
    def size(self) -> int:
        return len(self.slots)

    @property
    def points(self) -> int:
        return sum(face_number(f) for f in self.faces)


def enumerate_patterns(available: list[int], jokers: int) -> list[Pattern]:
    """Every run (3 to 5) and group whose real faces are at hand, with up to `jokers` jokers."""
    jokers = min(jokers, MAX_JOKERS)
    found: dict[tuple, Pattern] = {}

    def add(slots: tuple[int | None, ...], kind: str) -> None:
        real = tuple(sorted(f for f in slots if f is not None))
        if not real:
            return
        key = (real, len(slots) - len(real))
        if key not in found:
            found[key] = Pattern(real, len(slots) - len(real), slots, kind)

    for colour in range(4):
        for start in range(1, NUMBERS + 1):
            for length in RUN_LENGTHS:
                if start + length - 1 > NUMBERS:
                    break
                faces = [colour * NUMBERS + start - 1 + k for k in range(length)]
                missing = [k for k, f in enumerate(faces) if not available[f]]
                if len(missing) > jokers:
                    continue
                for mask in joker_masks(length, missing, jokers):
                    add(tuple(None if k in mask else f for k, f in enumerate(faces)), "run")
    for number in range(1, NUMBERS + 1):
        faces = [c * NUMBERS + number - 1 for c in range(4)]
        for size in (3, 4):
            for chosen in subsets(range(4), size):
                picked = [faces[c] for c in chosen]
                missing = [k for k, f in enumerate(picked) if not available[f]]
                if len(missing) > jokers:
                    continue
                for mask in joker_masks(size, missing, jokers):
                    real = [f for k, f in enumerate(picked) if k not in mask]
                    add(tuple(real) + (None,) * len(mask), "group")
    return list(found.values())


def subsets(items, size: int):
    items = list(items)
    if size == 0:
        yield ()
        return
    for i, item in enumerate(items):
        for rest in subsets(items[i + 1:], size - 1):
            yield (item, *rest)


def joker_masks(length: int, missing: list[int], jokers: int):
    """Sets of joker positions: every missing position, plus any others, up to `jokers` in all."""
    others = [k for k in range(length) if k not in missing]
    for extra in range(jokers - len(missing) + 1):
        for chosen in subsets(others, extra):
            if len(missing) + len(chosen) < length:  # a set needs a real tile
                yield frozenset(missing) | frozenset(chosen)


# --- the position ------------------------------------------------------------------------------------


@dataclass
class Position:
    table: dict[int, tuple[int, int]]  # tile id -> cell
    hand: list[int]
    width: int
    height: int
    structures: list[list[int]]

    @classmethod
    def of(cls, view: dict) -> Position:
        table = {tile: (x, y) for tile, x, y in view["table"]}
        width, height = view.get("board", (24, 16))
        return cls(table, sorted(view["hand"]), width, height,
                   [sorted(s) for s in rules.structures([[t, x, y] for t, (x, y) in table.items()])])


def related_structures(pos: Position, radius: int) -> list[int]:
    """Structures a hand tile could use, `radius` steps out: a tile of the same number (a group) or of
    the same colour within two (a run) is related. The rest stays as it stands in a first program."""
    reach = {rules.face(t) for t in pos.hand if not rules.is_joker(t)}
    opened: set[int] = set()
    for _ in range(radius):
        numbers = {face_number(f) for f in reach}
        near = {(face_colour(f), face_number(f) + d) for f in reach for d in (-2, -1, 1, 2)}
        grown = False
        for i, s in enumerate(pos.structures):
            if i in opened:
                continue
            faces = [rules.face(t) for t in s if not rules.is_joker(t)]
            if any(face_number(f) in numbers or (face_colour(f), face_number(f)) in near for f in faces):
                opened.add(i)
                reach.update(faces)
                grown = True
        if not grown:
            break
    return sorted(opened)


def counts_of(tiles) -> tuple[list[int], int]:
    faces, jokers = [0] * FACES, 0
    for tile in tiles:
        if rules.is_joker(tile):
            jokers += 1
        else:
            faces[rules.face(tile)] += 1
    return faces, jokers


# --- the integer program -----------------------------------------------------------------------------


@dataclass
class Solution:
    tiles: int  # hand tiles played
    points: int  # their numbers
    uses: dict[Pattern, int]  # every set laid, teeth included
    teeth: dict[tuple[Pattern, int], int]  # (set, face): how many of those sets cross a spine at that face
    kept: list[int]  # indices of table structures kept as they stand
    nodes: int
    optimal: bool  # proved best, not cut short by a limit

    @property
    def crossings(self) -> int:
        return sum(self.teeth.values())


class Program:
    """The program for one position; `solve` may be called again with extra cuts (the next best).

    Columns: x[p], how many times set p is laid; t[q, g], how many sets q are laid across a tile of
    face g of another set (a tooth on a spine: the tile counts once for both); k[s], whether table
    structure s stays as it stands. Rows: for each face, the tiles used are at least the table's and
    at most the table's plus the hand's (jokers likewise); for each face, teeth at it are at most the
    spines holding it (a tooth is never a spine, so combs are one level deep and never loop); and a
    set is a tooth at most as often as it is laid.
    """

    def __init__(self, pos: Position, *, crossings: bool, open_structures: list[int] | None = None):
        self.pos = pos
        if open_structures is None:
            open_structures = list(range(len(pos.structures)))
        self.open = open_structures
        self.frozen = sorted(set(range(len(pos.structures))) - set(open_structures))
        structures = [pos.structures[i] for i in open_structures]
        table_tiles = [t for s in structures for t in s]
        table_faces, table_jokers = counts_of(table_tiles)
        hand_faces, hand_jokers = counts_of(pos.hand)
        available = [table_faces[f] + hand_faces[f] for f in range(FACES)]
        self.patterns = enumerate_patterns(available, table_jokers + hand_jokers)
        self.teeth = [(q, g) for q, p in enumerate(self.patterns) if p.size <= TOOTH_MAX_SIZE
                      for g in p.faces] if crossings else []
        spine_faces = sorted({g for _, g in self.teeth})
        toothed = sorted({q for q, _ in self.teeth})
        joker_row = FACES
        spine_row = {f: FACES + 1 + i for i, f in enumerate(spine_faces)}
        bound_row = {q: FACES + 1 + len(spine_faces) + i for i, q in enumerate(toothed)}
        n_rows = FACES + 1 + len(spine_faces) + len(toothed)

        cost, upper, columns = [], [], []
        for q, p in enumerate(self.patterns):
            column = [(f, 1.0) for f in p.faces] + [(spine_row[f], -1.0) for f in p.faces if f in spine_row]
            if p.jokers:
                column.append((joker_row, float(p.jokers)))
            if q in bound_row:
                column.append((bound_row[q], -1.0))
            columns.append(column)
            cost.append(W_TILE * p.size + W_POINT * p.points - W_JOKER * p.jokers)
            bound = min(available[f] for f in p.faces)
            if p.jokers:
                bound = min(bound, (table_jokers + hand_jokers) // p.jokers)
            upper.append(bound)
        for q, g in self.teeth:
            p = self.patterns[q]
            column = [(g, -1.0), (bound_row[q], 1.0)]
            column += [(spine_row[f], 2.0 if f == g else 1.0) for f in p.faces if f in spine_row]
            columns.append(column)
            cost.append(-W_TILE - W_POINT * face_number(g) - W_CROSSING)
            upper.append(available[g])
        for s in structures:
            faces, jokers = counts_of(s)
            column = [(f, float(n)) for f, n in enumerate(faces) if n]
            if jokers:
                column.append((joker_row, float(jokers)))
            columns.append(column)
            points = sum(face_number(f) * n for f, n in enumerate(faces))
            cost.append(W_TILE * len(s) + W_POINT * points - W_JOKER * jokers + W_KEPT * len(s))
            upper.append(1)
        self.constant_tiles = len(table_tiles)
        self.constant_points = sum(face_number(f) * n for f, n in enumerate(table_faces))

        n_extra = n_rows - FACES - 1
        lower = [float(table_faces[f]) for f in range(FACES)] + [float(table_jokers)]
        lower += [-highspy.kHighsInf] * n_extra
        upper_rows = [float(table_faces[f] + hand_faces[f]) for f in range(FACES)]
        upper_rows += [float(table_jokers + hand_jokers)] + [0.0] * n_extra

        n_cols = len(columns)
        lp = highspy.HighsLp()
        lp.num_col_, lp.num_row_ = n_cols, n_rows
        lp.col_cost_ = np.array(cost, dtype=float)
        lp.col_lower_ = np.zeros(n_cols)
        lp.col_upper_ = np.array(upper, dtype=float)
        lp.row_lower_ = np.array(lower, dtype=float)
        lp.row_upper_ = np.array(upper_rows, dtype=float)
        starts, index, value = [0], [], []
        for column in columns:
            for row, v in column:
                index.append(row)
                value.append(v)
            starts.append(len(index))
        lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
        lp.a_matrix_.start_ = np.array(starts, dtype=np.int32)
        lp.a_matrix_.index_ = np.array(index, dtype=np.int32)
        lp.a_matrix_.value_ = np.array(value, dtype=float)
        lp.integrality_ = [highspy.HighsVarType.kInteger] * n_cols
        lp.sense_ = highspy.ObjSense.kMaximize
        n_pat, n_teeth = len(self.patterns), len(self.teeth)
        self.tile_coeffs = (
            [float(p.size) for p in self.patterns] + [-1.0] * n_teeth + [float(len(s)) for s in structures]
        )
        self.cross_coeffs = [0.0] * n_pat + [1.0] * n_teeth + [0.0] * len(structures)

        self.highs = highspy.Highs()
        h = self.highs
        h.setOptionValue("output_flag", False)
        h.setOptionValue("threads", 1)
        h.setOptionValue("random_seed", 0)
        h.setOptionValue("mip_rel_gap", 0.0)
        h.setOptionValue("mip_abs_gap", 0.5)
        h.setOptionValue("presolve", "off")  # its probing costs more than it saves on these small programs
        h.passModel(lp)

    def cap_tiles(self, tiles: int) -> None:
        """Only plays of at most `tiles` hand tiles from now on (the next best after a failed layout)."""
        self._add_row(self.tile_coeffs, tiles + self.constant_tiles)

    def cap_crossings(self, crossings: int) -> None:
        self._add_row(self.cross_coeffs, crossings)

    def _add_row(self, coeffs: list[float], bound: float) -> None:
        nonzero = [i for i, v in enumerate(coeffs) if v]
        self.highs.addRow(-highspy.kHighsInf, float(bound), len(nonzero),
                          np.array(nonzero, dtype=np.int32), np.array([coeffs[i] for i in nonzero]))

    def solve(self, *, time_limit: float, node_limit: int | None) -> Solution | None:
        h = self.highs
        h.setOptionValue("time_limit", max(0.01, time_limit))
        if node_limit is not None:
            h.setOptionValue("mip_max_nodes", int(node_limit))
        h.run()
        if h.getInfo().primal_solution_status != 2:  # no feasible point found
            return None
        values = [round(v) for v in h.getSolution().col_value]
        n_pat, n_teeth = len(self.patterns), len(self.teeth)
        uses = {p: v for p, v in zip(self.patterns, values[:n_pat]) if v}
        teeth = {(self.patterns[q], g): v for (q, g), v in zip(self.teeth, values[n_pat:n_pat + n_teeth]) if v}
        kept_open = [i for i, v in zip(self.open, values[n_pat + n_teeth:]) if v]
        tiles = round(sum(c * v for c, v in zip(self.tile_coeffs, values))) - self.constant_tiles
        points = sum(p.points * v for p, v in uses.items()) - sum(face_number(g) * v for (_, g), v in teeth.items())
        points += sum(face_number(rules.face(t)) for i in kept_open for t in self.pos.structures[i]
                      if not rules.is_joker(t))
        kept = sorted(self.frozen + kept_open)
        optimal = h.getModelStatus() == highspy.HighsModelStatus.kOptimal
        return Solution(tiles, points - self.constant_points, uses, teeth, kept, h.getInfo().mip_node_count, optimal)


# --- layout ------------------------------------------------------------------------------------------

NEIGHBOURS = ((1, 0), (-1, 0), (0, 1), (0, -1))


class LayoutFailed(Exception):
    pass


@dataclass
class Piece:
    """A set to lay: its slots (a face, or None for a joker) in reading order, and what it crosses."""

    slots: list[int | None]
    kind: str

    def index_of(self, face: int, taken: set[int]) -> int | None:
        for k, f in enumerate(self.slots):
            if f == face and k not in taken:
                return k
        return None


def join_runs(pieces: list[Piece]) -> list[Piece]:
    """Runs of one colour that follow each other become one run (fewer, longer lines lay better)."""

    def ident(piece: Piece, k: int) -> tuple[int, int]:
        real = next(i for i, f in enumerate(piece.slots) if f is not None)
        f = piece.slots[real]
        return face_colour(f), face_number(f) - real + k

    runs = [p for p in pieces if p.kind == "run"]
    others = [p for p in pieces if p.kind != "run"]
    runs.sort(key=lambda p: ident(p, 0))
    joined: list[Piece] = []
    for piece in runs:
        if joined:
            last = joined[-1]
            c0, end = ident(last, len(last.slots) - 1)
            c1, start = ident(piece, 0)
            if c0 == c1 and start == end + 1:
                last.slots += piece.slots
                continue
        joined.append(Piece(list(piece.slots), "run"))
    return joined + others


class Board:
    def __init__(self, width: int, height: int):
        self.width, self.height = width, height
        self.cells: dict[tuple[int, int], int] = {}

    def fits(self, cells: list[tuple[int, int]]) -> bool:
        """Free, on the board, and touching nothing outside `cells`."""
        own = set(cells)
        for x, y in cells:
            if not (0 <= x < self.width and 0 <= y < self.height) or (x, y) in self.cells:
                return False
            for dx, dy in NEIGHBOURS:
                n = (x + dx, y + dy)
                if n not in own and n in self.cells:
                    return False
        return True

    def put(self, cells, tiles) -> None:
        for cell, tile in zip(cells, tiles):
            self.cells[cell] = tile

    def first_fit(self, shape: list[tuple[int, int]]) -> tuple[int, int] | None:
        w = max(x for x, _ in shape) + 1
        h = max(y for _, y in shape) + 1
        for oy in range(self.height - h + 1):
            for ox in range(self.width - w + 1):
                cells = [(ox + x, oy + y) for x, y in shape]
                if self.fits(cells):
                    return ox, oy
        return None


def tree_shape(root: int, root_cells: list[tuple[int, int]], pieces: list[Piece], edges: dict):
    """Cells of a tree of crossing pieces, the root on `root_cells` (one per slot) and lying flat:
    (piece, slot) -> cell, each child across its parent; None when the pieces collide."""
    cells: dict[tuple[int, int], int] = {}  # cell -> piece
    where: dict[tuple[int, int], tuple[int, int]] = {}
    for k, cell in enumerate(root_cells):
        cells[cell] = root
        where[(root, k)] = cell
    horizontal = {root: True}
    queue = [root]
    while queue:
        parent = queue.pop(0)
        for parent_slot, child, child_slot, _face in edges.get(parent, []):
            if child in horizontal:
                continue
            cx, cy = where[(parent, parent_slot)]
            vertical = horizontal[parent]
            for order in slot_orders(pieces[child], child_slot):
                j = order.index(child_slot)
                span = [((cx, cy + k - j) if vertical else (cx + k - j, cy)) for k in range(len(order))]
                own = set(span)
                if all(k == j or (cell not in cells and not any(
                        (cell[0] + dx, cell[1] + dy) in cells and (cell[0] + dx, cell[1] + dy) not in own
                        for dx, dy in NEIGHBOURS)) for k, cell in enumerate(span)):
                    for k, cell in enumerate(span):
                        cells[cell] = child
                        where[(child, order[k])] = cell
                    horizontal[child] = not vertical
                    queue.append(child)
                    break
            else:
                return None
    return where


def slot_orders(piece: Piece, slot: int) -> list[list[int]]:
    """Orders to try for a crossing piece: as it is, reversed, and (a group) the crossing slot at an end."""
    n = len(piece.slots)
    orders = [list(range(n)), list(range(n - 1, -1, -1))]
    if piece.kind == "group":
        rest = [k for k in range(n) if k != slot]
        orders += [[slot, *rest], [*rest, slot]]
    # a crossing at an end (a T) leaves the most room: try those first
    return sorted(orders, key=lambda o: 0 if o.index(slot) in (0, n - 1) else 1)


@dataclass
class Layout:
    table: list[list[int]]
    moved: int


def lay_out(pos: Position, solution: Solution, *, anchored: bool) -> Layout:
    board = Board(pos.width, pos.height)
    kept_tiles: set[int] = set()
    for i in solution.kept:
        structure = pos.structures[i]
        kept_tiles.update(structure)
        if anchored:
            board.put([pos.table[t] for t in structure], structure)

    # the pool of physical tiles: table tiles first (they must all be used), then the hand
    pool: dict[int | None, list[int]] = {}
    for tile in sorted(t for t in pos.table if t not in kept_tiles):
        pool.setdefault(None if rules.is_joker(tile) else rules.face(tile), []).append(tile)
    for tile in pos.hand:
        pool.setdefault(None if rules.is_joker(tile) else rules.face(tile), []).append(tile)

    # spines first (consecutive runs joined), then each tooth across a spine holding its face
    spine_uses = dict(solution.uses)
    tooth_list = []
    for (p, g), n in sorted(solution.teeth.items(), key=lambda item: (item[0][1], item[0][0].faces, item[0][0].jokers)):
        spine_uses[p] -= n
        tooth_list += [(p, g)] * n
    pieces = join_runs([Piece(list(p.slots), p.kind) for p, n in spine_uses.items() for _ in range(n)])
    n_spines = len(pieces)
    taken: dict[int, set[int]] = {i: set() for i in range(n_spines)}
    edges: dict[int, list[tuple[int, int, int, int]]] = {}
    parent = list(range(n_spines))
    for p, g in tooth_list:
        # the spine with the fewest teeth so far, runs before groups: combs spread and stay low
        holders = sorted((len(taken[i]), pieces[i].kind != "run", i) for i in range(n_spines)
                         if pieces[i].index_of(g, taken[i]) is not None)
        if not holders:
            raise LayoutFailed("crossing")
        i = holders[0][2]
        k = pieces[i].index_of(g, taken[i])
        j = len(pieces)
        pieces.append(Piece(list(p.slots), p.kind))
        parent.append(i)
        kj = pieces[j].slots.index(g)
        taken[i].add(k)
        edges.setdefault(i, []).append((k, j, kj, g))
        edges.setdefault(j, []).append((kj, i, k, g))

    def find(a: int) -> int:
        while parent[a] != a:
            a = parent[a]
        return a

    components: dict[int, list[int]] = {}
    for i in range(len(pieces)):
        components.setdefault(find(i), []).append(i)

    claimed: set[int] = set()
    done: set[int] = set()  # components laid

    def put_component(where: dict, claims: dict) -> None:
        """Physical tiles for the component's cells (a crossing cell holds one tile for both pieces)."""
        tile_at: dict[tuple[int, int], int] = {}
        for key, tile in sorted(claims.items()):
            tile_at[where[key]] = tile
        for (i, k), cell in sorted(where.items()):
            if cell in tile_at:
                continue
            face = pieces[i].slots[k]
            if not pool.get(face):
                raise LayoutFailed("tiles")
            tile_at[cell] = pool[face].pop(0)
        board.put(list(tile_at), list(tile_at.values()))

    # 1. a component laid over an old line, so that the line's tiles stay where they are
    if anchored:
        old_lines = [line for line in rules.lines([[t, x, y] for t, (x, y) in pos.table.items()])
                     if not kept_tiles.intersection(line)]
        candidates = []
        for c, members in components.items():
            for i in members:
                for line in old_lines:
                    for order, start in anchor_offsets(pieces[i], line):
                        candidates.append((-len(line), c, i, tuple(line), order, start))
        candidates.sort(key=lambda c: c[:4])
        for _, c, i, line, order, start in candidates:
            if c in done or claimed.intersection(line) or any(
                    tile not in pool.get(None if rules.is_joker(tile) else rules.face(tile), ()) for tile in line):
                continue
            (x0, y0), (_, y1) = pos.table[line[0]], pos.table[line[1]]
            flat = y1 == y0
            root_cells = [(0, 0)] * len(order)
            for position, k in enumerate(order):
                root_cells[k] = (position - start, 0)
            where = tree_shape(i, root_cells, pieces, edges)
            if where is None:
                continue
            where = {key: ((x0 + u, y0 + v) if flat else (x0 + v, y0 + u)) for key, (u, v) in where.items()}
            if not board.fits(list(set(where.values()))):
                continue
            claims = {(i, order[start + k]): tile for k, tile in enumerate(line)}
            for tile in line:
                pool[None if rules.is_joker(tile) else rules.face(tile)].remove(tile)
            claimed.update(line)
            put_component(where, claims)
            done.add(c)
    else:
        for i in solution.kept:  # kept structures move as one block, in the fresh layout
            structure = pos.structures[i]
            xs = [pos.table[t][0] for t in structure]
            ys = [pos.table[t][1] for t in structure]
            shape = [(pos.table[t][0] - min(xs), pos.table[t][1] - min(ys)) for t in structure]
            spot = board.first_fit(shape)
            if spot is None:
                raise LayoutFailed("room")
            board.put([(spot[0] + x, spot[1] + y) for x, y in shape], structure)

    # 2. everything else in free space, the largest first
    blocks = []
    for c, members in components.items():
        if c in done:
            continue
        root = max(members, key=lambda i: (len(pieces[i].slots), -i))
        where = tree_shape(root, [(k, 0) for k in range(len(pieces[root].slots))], pieces, edges)
        if where is None:
            raise LayoutFailed("tree")
        blocks.append(where)
    blocks.sort(key=lambda w: -len(w))
    for where in blocks:
        xs = [x for x, _ in where.values()]
        ys = [y for _, y in where.values()]
        where = {key: (x - min(xs), y - min(ys)) for key, (x, y) in where.items()}
        spot = board.first_fit(sorted(set(where.values())))
        if spot is None:
            raise LayoutFailed("room")
        put_component({key: (spot[0] + x, spot[1] + y) for key, (x, y) in where.items()}, {})

    if any(tile in pos.table for tiles in pool.values() for tile in tiles):
        raise LayoutFailed("table tile left")
    table = sorted([tile, x, y] for (x, y), tile in board.cells.items())
    moved = sum(1 for tile, x, y in table if tile in pos.table and pos.table[tile] != (x, y))
    return Layout(table, moved)


def anchor_offsets(piece: Piece, line: list[int]):
    """Ways to read `piece` so that the old line's tiles fill consecutive slots: (order, first slot)."""
    n, m = len(piece.slots), len(line)
    if m > n:
        return
    wanted = [None if rules.is_joker(t) else rules.face(t) for t in line]
    orders = [list(range(n)), list(range(n - 1, -1, -1))]
    if piece.kind == "group":
        order = []
        rest = list(range(n))
        for face in wanted:
            k = next((k for k in rest if piece.slots[k] == face), None)
            if k is None:
                return
            order.append(k)
            rest.remove(k)
        orders = [order + rest]
    for order in orders:
        slots = [piece.slots[k] for k in order]
        for start in range(n - m + 1):
            if slots[start:start + m] == wanted:
                yield order, start
                break


# --- checks ------------------------------------------------------------------------------------------


def acceptable(pos: Position, table: list[list[int]]) -> bool:
    """What the engine checks of a play: well formed, every table tile kept, a hand tile added, valid."""
    ids = [t for t, _, _ in table]
    cells = {(x, y) for _, x, y in table}
    if len(set(ids)) != len(ids) or len(cells) != len(ids):
        return False
    if any(not (0 <= x < pos.width and 0 <= y < pos.height) for _, x, y in table):
        return False
    hand = set(pos.hand)
    if not set(pos.table) <= set(ids) or any(t not in pos.table and t not in hand for t in ids):
        return False
    if not any(t in hand for t in ids):
        return False
    return rules.judge(table, pos.width, pos.height).valid


# --- local moves -------------------------------------------------------------------------------------


def could_be_set(slots: list[int | None]) -> bool:
    """A line of faces (None for a joker) that reads as a run or a group, jokers free."""
    if len(slots) < 3:
        return False
    real = [(k, f) for k, f in enumerate(slots) if f is not None]
    if not real:
        return True
    if len(slots) <= 4 and len({face_number(f) for _, f in real}) == 1 \
            and len({face_colour(f) for _, f in real}) == len(real):
        return True
    if len({face_colour(f) for _, f in real}) != 1:
        return False
    k0, f0 = real[0]
    for step in (1, -1):
        first = face_number(f0) - step * k0
        last = first + step * (len(slots) - 1)
        if min(first, last) >= 1 and max(first, last) <= NUMBERS and all(
                face_number(f) == first + step * k for k, f in real):
            return True
    return False


class LocalSearch:
    """Adds leftover hand tiles to a valid table, one checked move at a time."""

    def __init__(self, pos: Position, table: list[list[int]], *, deadline: float, trials: int | None):
        self.pos = pos
        self.cells = {(x, y): t for t, x, y in table}
        self.at = {t: (x, y) for t, x, y in table}
        self.hand = [t for t in pos.hand if t not in self.at]
        self.deadline, self.trials = deadline, trials

    def slot(self, tile: int) -> int | None:
        return None if rules.is_joker(tile) else rules.face(tile)

    def out_of_budget(self) -> bool:
        return (self.trials is not None and self.trials <= 0) or time.perf_counter() > self.deadline

    def line_through(self, cell, axis, extra: dict) -> list[int]:
        dx, dy = axis

        def tile(c):
            return extra.get(c, self.cells.get(c))

        x, y = cell
        while tile((x - dx, y - dy)) is not None:
            x, y = x - dx, y - dy
        out = []
        while tile((x, y)) is not None:
            out.append(tile((x, y)))
            x, y = x + dx, y + dy
        return out

    def plausible(self, extra: dict) -> bool:
        """Every line through a new tile is 3+ long and could be a set; every new tile is in a line."""
        for cell in extra:
            if not (0 <= cell[0] < self.pos.width and 0 <= cell[1] < self.pos.height) or cell in self.cells:
                return False
            in_line = False
            for axis in ((1, 0), (0, 1)):
                line = self.line_through(cell, axis, extra)
                if len(line) == 2:
                    return False
                if len(line) >= 3:
                    if not could_be_set([self.slot(t) for t in line]):
                        return False
                    in_line = True
            if not in_line:
                return False
        return True

    def attempt(self, extra: dict) -> bool:
        if not self.plausible(extra):
            return False
        if self.trials is not None:
            self.trials -= 1
        table = [[t, x, y] for (x, y), t in self.cells.items()] + [[t, x, y] for (x, y), t in extra.items()]
        if not rules.judge(table, self.pos.width, self.pos.height).valid:
            return False
        for cell, tile in extra.items():
            self.cells[cell] = tile
            self.at[tile] = cell
            self.hand.remove(tile)
        return True

    def run(self) -> int:
        added = 0
        progress = True
        while progress and self.hand:
            progress = False
            for move in (self.extend, self.branch):
                if (result := move()) is None:
                    return added
                if result:
                    added += result
                    progress = True
                    break
        return added

    def extend(self) -> int | None:
        """One hand tile at an empty cell beside the table (a line's end, or a crossing of two lines)."""
        free = sorted({(x + dx, y + dy) for (x, y) in self.cells for dx, dy in NEIGHBOURS} - set(self.cells))
        for tile in sorted(self.hand, key=lambda t: (rules.is_joker(t), -rules.points(t), t)):
            for cell in free:
                if self.out_of_budget():
                    return None
                if self.attempt({cell: tile}):
                    return 1
        return 0

    def branch(self) -> int | None:
        """Two hand tiles across a table tile: a T at its line's end or a cross through it."""
        by_face: dict[int | None, list[int]] = {}
        for tile in sorted(self.hand):
            by_face.setdefault(self.slot(tile), []).append(tile)
        for anchor, (x, y) in sorted(self.at.items()):
            for dx, dy in ((0, 1), (1, 0)):
                if (x + dx, y + dy) in self.cells or (x - dx, y - dy) in self.cells:
                    continue
                for offsets in ((-2, -1), (-1, 1), (1, 2)):
                    cells = [(x + o * dx, y + o * dy) for o in offsets]
                    if rules.is_joker(anchor):  # a joker crossing: its one identity must serve both lines
                        options = [[a, b] for a in sorted(self.hand) for b in sorted(self.hand) if a != b
                                   and could_be_set(joker_line(offsets, self.slot(a), self.slot(b)))]
                    else:
                        options = (pick_tiles(pair, by_face) for pair in partner_faces(rules.face(anchor), offsets))
                    for tiles in options:
                        if tiles is None:
                            continue
                        if self.out_of_budget():
                            return None
                        if self.attempt(dict(zip(cells, tiles))):
                            return 2
        return 0


def joker_line(offsets: tuple[int, int], a: int | None, b: int | None) -> list[int | None]:
    """The line's faces in reading order: a joker at offset 0, `a` and `b` at the two offsets."""
    at = {offsets[0]: a, 0: None, offsets[1]: b}
    return [at[o] for o in sorted(at)]


def partner_faces(fa: int, offsets: tuple[int, int]):
    """Faces (None for a joker) for the two cells at `offsets` from a tile of face `fa` making a set."""
    colour, number = face_colour(fa), face_number(fa)
    seen = set()
    for step in (1, -1):
        wanted = []
        for o in offsets:
            n = number + step * o
            wanted.append(colour * NUMBERS + n - 1 if 1 <= n <= NUMBERS else -1)
        if -1 in wanted:
            continue
        for option in ((wanted[0], wanted[1]), (None, wanted[1]), (wanted[0], None), (None, None)):
            if option not in seen:
                seen.add(option)
                yield option
    others = [c * NUMBERS + number - 1 for c in range(4) if c != colour]
    for a in others + [None]:
        for b in others + [None]:
            if a is not None and a == b:
                continue
            if (a, b) not in seen:
                seen.add((a, b))
                yield a, b


def pick_tiles(pair, by_face: dict) -> list[int] | None:
    used: dict = {}
    tiles = []
    for f in pair:
        choices = by_face.get(f, [])
        k = used.get(f, 0)
        if k >= len(choices):
            return None
        used[f] = k + 1
        tiles.append(choices[k])
    return tiles


# --- the decision ------------------------------------------------------------------------------------


@dataclass
class Decision:
    action: dict
    tiles: int = 0  # hand tiles played
    points: int = 0
    crossings: int = 0
    stage: int = 0  # the stage whose play was kept
    stages: int = 0  # stages run
    solves: int = 0
    local: int = 0  # tiles added by local moves
    moved: int = 0
    nodes: int = 0
    attempts: int = 0  # layouts tried


def best_play(view: dict, *, time_limit: float = DEFAULT_TIME_LIMIT, node_limit: int | None = None,
              crossings: bool = True, local_moves: bool = True, stages: tuple = STAGES) -> Decision:
    """The best checked play from `view`, with what it took; a draw or pass when there is none.

    `stages` are the programs tried in turn, as (radius, crossings): a radius opens the table
    structures near the hand (`related_structures`), None opens them all. A later stage runs only
    while enough time is left, and its play replaces the earlier one only when it puts down more
    (then more points). With `crossings` False no stage has crossings."""
    start = time.perf_counter()
    deadline = start + max(0.05, time_limit - TIME_MARGIN)
    if view["phase"] == "begin":
        return Decision({"type": "begin"})
    fallback = {"type": "draw"} if view.get("bag", 0) else {"type": "pass"}
    pos = Position.of(view)
    decision = Decision(fallback)
    if not pos.hand:
        return decision
    best: tuple[tuple[int, int], list[list[int]]] | None = None
    tried = []
    for number, (radius, crossing) in enumerate(stages):
        opened = list(range(len(pos.structures))) if radius is None else related_structures(pos, radius)
        crossing = crossing and crossings
        if any(set(opened) <= set(before) and crossing <= crossed for before, crossed in tried):
            continue  # a program at least as wide was solved already
        tried.append((opened, crossing))
        left = deadline - time.perf_counter()
        if number and left < (deadline - start) * LATER_STAGE_SHARE:
            break
        decision.stages += 1
        found = search_program(Program(pos, crossings=crossing, open_structures=opened), pos,
                               deadline=deadline, node_limit=node_limit, decision=decision)
        if found is not None and (best is None or found[0] > best[0]):
            best = found
            decision.tiles, decision.points, decision.crossings, decision.moved = found[2]
            decision.stage = number
    best_table = best[1] if best else None
    if local_moves and crossings:
        base = best_table if best_table is not None else sorted([t, x, y] for t, (x, y) in pos.table.items())
        trials = None if node_limit is None else max(50, node_limit * LOCAL_TRIALS_PER_NODE)
        search = LocalSearch(pos, base, deadline=deadline, trials=trials)
        added = search.run()
        if added:
            table = sorted([t, x, y] for (x, y), t in search.cells.items())
            if acceptable(pos, table):
                best_table = table
                decision.local = added
                decision.tiles += added
    if best_table is not None:
        decision.action = {"type": "play", "table": best_table}
    return decision


def search_program(program: Program, pos: Position, *, deadline: float, node_limit: int | None,
                   decision: Decision):
    """The program's best play that lays out and passes the checks: ((tiles, points), table, figures)."""
    while time.perf_counter() < deadline:
        solution = program.solve(time_limit=(deadline - time.perf_counter()) * 0.7, node_limit=node_limit)
        if solution is None or solution.tiles <= 0:
            return None
        decision.nodes += solution.nodes
        decision.solves += 1
        for anchored in (True, False):
            decision.attempts += 1
            try:
                layout = lay_out(pos, solution, anchored=anchored)
            except LayoutFailed:
                continue
            if acceptable(pos, layout.table):
                figures = (solution.tiles, solution.points, solution.crossings, layout.moved)
                return (solution.tiles, solution.points), layout.table, figures
        # the next best: fewer crossings first, then fewer tiles
        if solution.crossings:
            program.cap_crossings(solution.crossings - 1)
        else:
            program.cap_tiles(solution.tiles - 1)
    return None


def choose_strong(view: dict, *, time_limit: float = DEFAULT_TIME_LIMIT, node_limit: int | None = None) -> dict:
    """The strong bot's action from its seat's view: the best checked play, else draw (or pass)."""
    if view["phase"] == "begin":
        if view.get("chooser") != view.get("seat"):
            raise ValueError("this seat has nothing to decide")
        return {"type": "begin"}
    if view.get("current") != view.get("seat") or "hand" not in view:
        raise ValueError("this seat has nothing to decide")
    try:
        return best_play(view, time_limit=time_limit, node_limit=node_limit).action
    except Exception:  # a flaw in the search must cost the turn's play, never the game
        log.exception("tiles AI failed; drawing instead")
        return {"type": "draw"} if view.get("bag") else {"type": "pass"}


def draft_steps(before: list[list[int]], after: list[list[int]], *, width: int = 24, height: int = 16
                ) -> list[list[list[int]]]:
    """The tables to show on the way from `before` to a play's `after`, one tile placed at a time (table
    tiles moved first, then hand tiles, each in reading order of where it lands), the last being
    `after`. Every step keeps every table tile on distinct cells of the board, as a draft must; a tile
    standing where another must go is first set aside on a free cell."""
    current = {tile: (x, y) for tile, x, y in before}
    target = {tile: (x, y) for tile, x, y in after}
    pending = sorted((t for t in target if current.get(t) != target[t]),
                     key=lambda t: (t not in current, target[t][1], target[t][0], t))
    steps = []
    while pending:
        occupied = {cell: t for t, cell in current.items()}
        tile = next((t for t in pending if target[t] not in occupied), None)
        if tile is None:  # every landing cell is taken by a tile still to move: set one aside
            holder = occupied[target[pending[0]]]
            wanted = set(occupied) | {target[t] for t in pending}
            current[holder] = next((x, y) for y in range(height) for x in range(width) if (x, y) not in wanted)
        else:
            current[tile] = target[tile]
            pending.remove(tile)
        steps.append(sorted([t, x, y] for t, (x, y) in current.items()))
    return steps


def optimum_without_crossings(view: dict, *, time_limit: float = 30.0) -> tuple[int, bool]:
    """The most hand tiles that sets side by side could take (ignoring the board's room), and whether
    that was proved: the yardstick of the benchmark."""
    pos = Position.of(view)
    if not pos.hand:
        return 0, True
    solution = Program(pos, crossings=False).solve(time_limit=time_limit, node_limit=None)
    return (solution.tiles, solution.optimal) if solution else (0, False)


def choose_no_crossings(view: dict, *, time_limit: float = DEFAULT_TIME_LIMIT, node_limit: int | None = None) -> dict:
    """The optimum without crossings (the benchmark's yardstick): the same program, sets side by side."""
    if view["phase"] == "begin":
        return {"type": "begin"}
    return best_play(view, time_limit=time_limit, node_limit=node_limit, crossings=False, local_moves=False,
                     stages=((None, False),)).action
