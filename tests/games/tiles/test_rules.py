"""The judgement of a table: every rule of the rule page and every ruling of TILES.md sections 2-3."""

from __future__ import annotations

import random

import pytest

from games.tiles import rules
from games.tiles.rules import judge
from tests.games.tiles.boards import column, full_board, row, spaced_runs_board, tile


def reasons(table) -> list[tuple[list[list[int]], str]]:
    return [(problem["cells"], problem["reason"]) for problem in judge(table).problems]


def valid(table) -> bool:
    return judge(table).valid


# --- faces ---------------------------------------------------------------------------------------

def test_faces_follow_the_canonical_order():
    assert rules.face(0) == 0 and rules.colour(0) == 0 and rules.number(0) == 1
    assert rules.face(52) == 0  # the second copy reads as the first
    assert (rules.colour(tile("b5")), rules.number(tile("b5"))) == (1, 5)
    assert (rules.colour(103), rules.number(103)) == (3, 13)
    assert rules.JOKERS == (104, 105) and rules.is_joker(104) and not rules.is_joker(103)
    with pytest.raises(ValueError):
        rules.face(104)


def test_points_are_the_number_and_thirty_for_a_joker():
    assert rules.points(tile("o7")) == 7
    assert rules.points(tile("k13", 1)) == 13
    assert rules.points(104) == rules.points(105) == 30


# --- runs and groups ------------------------------------------------------------------------------

def test_an_ascending_run_and_a_descending_run_are_valid():
    assert valid(row("b3 b4 b5", 0, 0))
    assert valid(row("o9 o8 o7", 0, 0))
    assert valid(column("r1 r2 r3 r4 r5 r6 r7 r8 r9 r10 r11 r12 r13", 4, 0))


def test_a_run_must_keep_one_direction_and_skip_nothing():
    assert reasons(row("b3 b4 b3", 0, 0)) == [([[0, 0], [1, 0], [2, 0]], "not_set")]
    assert not valid(row("b3 b5 b6", 0, 0))
    assert not valid(row("b3 b4 b6", 0, 0))


def test_thirteen_does_not_join_one():
    assert not valid(row("k12 k13 k1", 0, 0))
    assert not valid(row("k13 k1 k2", 0, 0))
    assert not valid(row("k2 k1 k13", 0, 0))


def test_a_run_has_one_colour():
    assert not valid(row("k3 b4 k5", 0, 0))


def test_a_group_is_one_number_in_three_or_four_colours():
    assert valid(row("r6 k6 b6", 0, 0))
    assert valid(row("r6 k6 b6 o6", 0, 0))
    assert not valid(row("r6 k6 r6", 0, 0))  # the same colour and number twice in a line
    assert not valid(row("r6 k6 b6 o6 r6", 0, 0))  # a fifth tile repeats a colour
    assert not valid(row("r6 k6 b7", 0, 0))


def test_both_copies_of_a_tile_can_be_on_the_table():
    assert valid(row("r6 k6 b6", 0, 0) + row("r6 k6 b6", 0, 2, copy=1))


# --- lines ----------------------------------------------------------------------------------------

def test_a_line_of_two_is_refused_wherever_it_is():
    assert reasons(row("b3 b4", 2, 1)) == [([[2, 1], [3, 1]], "two_tiles")]
    assert reasons(column("b3 b4", 2, 1)) == [([[2, 1], [2, 2]], "two_tiles")]


def test_a_lone_tile_is_refused():
    assert reasons(row("b3 b4 b5", 0, 0) + row("r9", 7, 3)) == [([[7, 3]], "lone")]


def test_diagonal_contact_means_nothing():
    table = row("b3 b4 b5", 0, 0) + row("r9 r10 r11", 3, 1)
    assert valid(table)


def test_a_t_at_the_end_of_a_run():
    # The run's last tile k5 is the middle of the column group b5 k5 o5.
    assert valid(row("k3 k4 k5", 0, 1) + [(tile("b5"), 2, 0), (tile("o5"), 2, 2)])
    # The run's middle tile k4 heads the column group k4 b4 o4.
    assert valid(row("k3 k4 k5", 0, 0) + column("b4 o4", 1, 1))
    # A corner: k5 ends both the run and the column group k5 b5 o5; and a column ending on a run's end.
    assert valid(row("k3 k4 k5", 0, 0) + column("b5 o5", 2, 1))
    assert valid(column("b3 o3", 0, 0) + row("k3 k4 k5", 0, 2))
    # The bar of the T must be a set too.
    assert not valid(row("k3 k4 k5", 0, 1) + [(tile("b5"), 2, 0), (tile("o6"), 2, 2)])


def test_a_crossing_tile_belongs_to_both_lines():
    # b4 b5 b6 across, r5 b5 k5 down through b5.
    table = row("b4 b5 b6", 0, 1) + [(tile("r5"), 1, 0), (tile("k5"), 1, 2)]
    assert valid(table)
    table = row("b4 b5 b6", 0, 1) + [(tile("r5"), 1, 0), (tile("k6"), 1, 2)]
    assert reasons(table) == [([[1, 0], [1, 1], [1, 2]], "not_set")]


def test_a_two_tile_branch_off_a_crossing_is_refused():
    table = row("b4 b5 b6", 0, 1) + [(tile("r5"), 1, 2)]
    assert reasons(table) == [([[1, 1], [1, 2]], "two_tiles")]


def test_two_sets_in_one_row_need_an_empty_cell_between_them():
    assert not valid(row("b1 b2 b3", 0, 0) + row("o7 o8 o9", 3, 0))
    assert valid(row("b1 b2 b3", 0, 0) + row("o7 o8 o9", 4, 0))


def test_parallel_sets_on_adjacent_rows():
    # Adjacent runs whose columns are not sets: three columns of two, each refused.
    table = row("b1 b2 b3", 0, 0) + row("o7 o8 o9", 0, 1)
    assert [reason for _, reason in reasons(table)] == ["two_tiles"] * 3
    # Offset so that they share no column: valid.
    assert valid(row("b1 b2 b3", 0, 0) + row("o7 o8 o9", 3, 1))


def test_a_three_by_three_block_of_runs_whose_columns_are_groups():
    table = row("k1 k2 k3", 0, 0) + row("b1 b2 b3", 0, 1) + row("o1 o2 o3", 0, 2)
    assert valid(table)
    table = row("k1 k2 k3", 0, 0) + row("b1 b2 b3", 0, 1) + row("b1 b2 b3", 0, 2, copy=1)
    assert [reason for _, reason in reasons(table)] == ["not_set"] * 3


# --- jokers ---------------------------------------------------------------------------------------

def test_a_joker_fills_a_run_or_a_group():
    assert judge(row("r4 J r6", 0, 0)).jokers == {104: [tile("r5")]}
    assert judge(row("k7 J2 b7", 0, 0)).jokers == {105: [tile("o7"), tile("r7")]}
    # Run up or down from one tile, or a group.
    assert judge(row("J r5 J2", 0, 0)).jokers == {104: [tile("k5"), tile("b5"), tile("o5"), tile("r4"), tile("r6")],
                                                  105: [tile("k5"), tile("b5"), tile("o5"), tile("r4"), tile("r6")]}


def test_a_joker_keeps_a_run_inside_one_to_thirteen():
    assert judge(row("r12 r13 J", 0, 0)).problems[0]["reason"] == "not_set"
    assert judge(row("J r1 r2", 0, 0)).problems[0]["reason"] == "not_set"
    assert judge(row("J r12 r13", 0, 0)).jokers == {104: [tile("r11")]}
    assert judge(row("r2 r1 J", 0, 0)).problems[0]["reason"] == "not_set"


def test_two_jokers_in_a_group_take_two_different_colours():
    readings = judge(row("k7 J J2 r7", 0, 0))
    assert readings.valid
    assert readings.jokers == {104: [tile("b7"), tile("o7")], 105: [tile("b7"), tile("o7")]}
    # With one real tile the line may also be a run up or down from it.
    assert judge(row("k7 J J2", 0, 0)).jokers == {104: [tile("k6"), tile("k8"), tile("b7"), tile("o7"), tile("r7")],
                                                  105: [tile("k5"), tile("k9"), tile("b7"), tile("o7"), tile("r7")]}
    assert not valid(row("k7 J J2 b7 o7", 0, 0))


def test_a_crossing_joker_stands_for_one_tile_that_serves_both_lines():
    # TILES.md: r4 J r6 crossed by b5 J k5 is valid with J = r5.
    table = row("r4 J r6", 3, 5) + [(tile("b5"), 4, 4), (tile("k5"), 4, 6)]
    assert judge(table) == rules.Judgement(valid=True, problems=[], jokers={104: [tile("r5")]})


def test_a_crossing_joker_that_no_one_tile_fits_is_a_conflict():
    # TILES.md: r4 J r6 crossed by b4 J b6 is invalid: each line alone reads, not both together.
    table = row("r4 J r6", 3, 5) + [(tile("b4"), 4, 4), (tile("b6"), 4, 6)]
    judgement = judge(table)
    assert not judgement.valid
    assert [(p["cells"], p["reason"]) for p in judgement.problems] == [
        ([[3, 5], [4, 5], [5, 5]], "joker_conflict"),
        ([[4, 4], [4, 5], [4, 6]], "joker_conflict"),
    ]
    assert judgement.jokers == {104: []}


def test_a_joker_may_stand_for_a_tile_whose_two_copies_are_on_the_table():
    table = row("r4 J r6", 0, 0) + row("r4 r5 r6", 0, 2) + row("r4 r5 r6", 0, 4, copy=1)
    assert judge(table).jokers == {104: [tile("r5")]}
    assert judge(table).valid


def test_a_joker_takes_the_value_of_its_new_lines_when_moved():
    before = row("r4 J r6", 0, 0)
    after = row("r4 r5 r6", 0, 0, copy=1)[:1] + row("k9 J b9", 0, 2)
    assert judge(before).jokers == {104: [tile("r5")]}
    assert judge(after + [(tile("r5", 1), 1, 0), (tile("r6", 1), 2, 0)]).jokers == {104: [tile("o9"), tile("r9")]}


def test_two_jokers_in_crossings_are_judged_together():
    # The full board: the jokers share column 13 (a group) and each ends its own row's run.
    judgement = judge(full_board())
    assert judgement.valid
    assert judgement.jokers == {104: [tile("b13")], 105: [tile("o13")]}


def test_two_jokers_sharing_a_group_conflict_when_their_runs_want_one_colour():
    # k13 J J2 r13 down column 2; J ends b11 b12 J and J2 starts J2 b12 b11 (second copy): both need b13.
    table = column("k13 J J2 r13", 2, 0) + row("b11 b12", 0, 1) + row("b12 b11", 3, 2, copy=1)
    assert [reason for _, reason in reasons(table)] == ["joker_conflict"] * 3
    assert judge(table).jokers == {104: [], 105: []}


def test_a_joker_in_no_readable_line_has_no_identity():
    judgement = judge(row("J r5", 0, 0) + row("k1 k2 k3", 0, 3))
    assert judgement.jokers == {104: []}
    assert [p["reason"] for p in judgement.problems] == ["two_tiles"]


def test_a_line_that_is_no_set_under_any_joker_stays_not_set():
    table = row("r4 J b6", 0, 0)
    assert reasons(table) == [([[0, 0], [1, 0], [2, 0]], "not_set")]
    assert judge(table).jokers == {104: []}


def test_not_set_lines_are_left_out_of_the_joker_constraints():
    # J ends r11 r12 _ (must be r13) and sits in a column J k5 b5 o5 r5 that no identity fixes: the
    # column is not_set, and the run still gives J its value.
    table = row("r11 r12 J", 0, 0) + column("k5 b5 o5 r5", 2, 1)
    judgement = judge(table)
    assert [(p["cells"][0], p["reason"]) for p in judgement.problems] == [([2, 0], "not_set")]
    assert judgement.jokers == {104: [tile("r13")]}


# --- the order of problems ------------------------------------------------------------------------

def test_problems_are_ordered_rows_then_columns_then_lone_tiles():
    table = (row("k1 k5", 5, 4) + row("b1 b5", 0, 9) + column("o1 o2", 20, 0) + column("o9 o10", 1, 12)
             + row("r1", 22, 15) + row("r2", 10, 1))
    assert reasons(table) == [
        ([[5, 4], [6, 4]], "two_tiles"),
        ([[0, 9], [1, 9]], "two_tiles"),
        ([[1, 12], [1, 13]], "two_tiles"),
        ([[20, 0], [20, 1]], "two_tiles"),
        ([[10, 1]], "lone"),
        ([[22, 15]], "lone"),
    ]


def test_the_judgement_does_not_depend_on_the_order_of_the_table():
    table = full_board()
    shuffled = list(table)
    random.Random(7).shuffle(shuffled)
    assert judge(shuffled) == judge(table)


def test_dense_boards_are_valid():
    assert len(full_board()) == 106 and valid(full_board())
    assert len(spaced_runs_board()) == 106 and valid(spaced_runs_board())


def test_the_board_edges_do_not_join_lines():
    # The last column of one row and the first of the next are not neighbours.
    assert reasons(row("b1 b2", 22, 3) + row("b3", 0, 4)) == [([[22, 3], [23, 3]], "two_tiles"), ([[0, 4]], "lone")]


# --- lines and structures -------------------------------------------------------------------------

def test_lines_lists_every_line_in_reading_order():
    table = row("b4 b5 b6", 0, 1) + [(tile("r5"), 1, 0), (tile("k5"), 1, 2)] + row("o1 o2", 8, 8)
    assert rules.lines(table) == [
        [tile("b4"), tile("b5"), tile("b6")],
        [tile("o1"), tile("o2")],
        [tile("r5"), tile("b5"), tile("k5")],
    ]


def test_structures_are_the_tiles_connected_through_lines():
    table = row("b4 b5 b6", 0, 1) + [(tile("r5"), 1, 0), (tile("k5"), 1, 2)] + row("o1 o2 o3", 8, 8) + row("k9", 3, 0)
    assert rules.structures(table) == [
        sorted([tile("b4"), tile("b5"), tile("b6"), tile("r5"), tile("k5")]),
        [tile("k9")],
        [tile("o1"), tile("o2"), tile("o3")],
    ]
