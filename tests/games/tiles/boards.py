"""Tables for the tiles tests and the validator benchmark, written in a readable shorthand."""

from __future__ import annotations

COLOUR_LETTERS = "kbor"  # black, blue, orange, red


def tile(name: str, copy: int = 0) -> int:
    """`"r5"` -> the id of red 5 (first copy); `"J"` / `"J2"` -> the jokers."""
    if name == "J":
        return 104
    if name == "J2":
        return 105
    return copy * 52 + COLOUR_LETTERS.index(name[0]) * 13 + int(name[1:]) - 1


def row(names: str, x: int, y: int, copy: int = 0) -> list[tuple[int, int, int]]:
    """Tiles left to right from (x, y): `row("r4 J r6", 3, 5)`."""
    return [(tile(name, copy), x + i, y) for i, name in enumerate(names.split())]


def column(names: str, x: int, y: int, copy: int = 0) -> list[tuple[int, int, int]]:
    """Tiles top to bottom from (x, y)."""
    return [(tile(name, copy), x, y + i) for i, name in enumerate(names.split())]


def full_board() -> list[tuple[int, int, int]]:
    """All 106 tiles, valid, jokers in crossings: two 4 x 13 blocks (each row a run of one colour,
    each column a group), the jokers standing for blue 13 and orange 13 of the first block (each in its
    row's run and in column 13's group, together), and those two tiles with black 13 of the second
    block as a group in column 15."""
    at = {}
    for copy, top in ((0, 0), (1, 5)):
        for c in range(4):
            for n in range(1, 14):
                at[copy * 52 + c * 13 + n - 1] = (n - 1, top + c)
    blue13, orange13, black13_second = tile("b13"), tile("o13"), tile("k13", 1)
    at[104], at[105] = at.pop(blue13), at.pop(orange13)
    at.pop(black13_second)
    at[blue13], at[orange13], at[black13_second] = (14, 0), (14, 1), (14, 2)
    return sorted((t, x, y) for t, (x, y) in at.items())


def spaced_runs_board() -> list[tuple[int, int, int]]:
    """All 104 numbered tiles as eight runs of 13 on every other row, and the two jokers at the right
    ends of two runs of 12."""
    table = []
    for copy in (0, 1):
        for c in range(4):
            names = " ".join(f"{COLOUR_LETTERS[c]}{n}" for n in range(1, 14))
            table += row(names, 0, 2 * (copy * 4 + c), copy)
    # Two runs of 13 become runs of 12 plus a joker; the 13s make a group with a third 13.
    by_id = {t: (x, y) for t, x, y in table}
    for joker, name in ((104, "k13"), (105, "b13")):
        by_id[joker] = by_id.pop(tile(name))
    by_id.pop(tile("o13", 1))
    for i, name in enumerate(("k13", "b13")):
        by_id[tile(name)] = (20, 3 + i)
    by_id[tile("o13", 1)] = (20, 5)
    return sorted((t, x, y) for t, (x, y) in by_id.items())
