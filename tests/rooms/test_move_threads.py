"""How many move threads a worker plays with (rooms/move_queue.py): unless told, by database."""

from __future__ import annotations

import pytest
from django.db import connection

from rooms import move_queue
from rooms.management.commands.worker import Command


@pytest.mark.parametrize(("vendor", "threads"), [("sqlite", 0), ("postgresql", 4), ("mysql", 4)])
def test_the_default_depends_on_the_database(vendor, threads):
    assert move_queue.default_move_threads(vendor) == threads


def test_without_a_vendor_the_default_is_the_default_databases():
    assert move_queue.default_move_threads() == move_queue.MOVE_THREADS_BY_DATABASE[connection.vendor]


def test_a_player_not_told_plays_with_the_databases_default_and_one_told_with_what_it_was_told():
    for threads, expected in ((None, move_queue.default_move_threads()), (3, 3), (1, 1), (0, 0)):
        player = move_queue.MovePlayer(threads=threads)
        try:
            assert player.threads == expected
            assert player.inline == (expected == 0)
            assert (player.pool._max_workers if player.pool else 0) == expected
            assert player.start_threads == max(1, int(expected * move_queue.START_SHARE))
        finally:
            if player.pool:
                player.pool.shutdown()


def test_a_player_cannot_have_fewer_than_no_move_threads():
    with pytest.raises(ValueError):
        move_queue.MovePlayer(threads=-1)


def test_the_workers_flag_is_left_to_the_database_unless_given():
    parser = Command().create_parser("manage.py", "worker")
    assert parser.parse_args([]).move_threads is None
    assert parser.parse_args(["--move-threads", "3"]).move_threads == 3
