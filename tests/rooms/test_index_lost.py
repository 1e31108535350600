"""A timer that cannot be written after a commit (Redis failing) marks the index lost, so the worker of that
process rebuilds it at once instead of leaving the game still until its countdown or the next rebuild."""

from __future__ import annotations

from unittest import mock

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from rooms import live


@pytest.fixture(autouse=True)
def index_not_lost():
    live.index_lost.clear()
    yield
    live.index_lost.clear()


def test_a_failed_timer_write_marks_the_index_lost():
    failing = mock.Mock()
    failing.zadd.side_effect = RedisConnectionError("Redis is down")
    failing.pipeline.return_value.execute.side_effect = RedisConnectionError("Redis is down")
    with mock.patch.object(live, "client", return_value=failing):
        with pytest.raises(RedisConnectionError):
            live.schedule("bot:1:0:0", 0.0)
        assert live.index_lost.is_set()
        live.index_lost.clear()
        with pytest.raises(RedisConnectionError):
            live.replace("turn:1:0", "turn:1:3", 0.0)
        assert live.index_lost.is_set()


def test_a_timer_written_leaves_the_index_as_it_was():
    live.schedule("bot:1:0:0", 0.0)
    live.replace("bot:1:0:0", "turn:1:3", 1.0)
    assert not live.index_lost.is_set()
