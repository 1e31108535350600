"""Due timers are leased to one worker, not removed: if that worker dies while handling one, another worker
gets it when the lease runs out; a handled timer leaves the index unless it was scheduled again."""

from __future__ import annotations

import time

from rooms import live
from tests.rooms.helpers import timers


def test_a_leased_timer_goes_to_no_one_else_until_its_lease_runs_out():
    live.schedule("turn:1:0", time.time() - 1)
    due, lease = live.lease_due(lease=0.3)
    assert due == ["turn:1:0"]
    assert live.lease_due(lease=0.3)[0] == []  # a second worker gets nothing meanwhile
    time.sleep(0.4)  # the first worker died without releasing it
    again, second_lease = live.lease_due(lease=5)
    assert again == ["turn:1:0"]
    live.release("turn:1:0", second_lease)
    assert "turn:1:0" not in timers()


def test_a_timer_scheduled_again_while_leased_stays():
    live.schedule("bot:1:0:3", time.time() - 1)
    due, lease = live.lease_due(lease=5)
    assert due == ["bot:1:0:3"]
    later = time.time() + 30
    live.schedule("bot:1:0:3", later)  # its handler put it back (a countdown fired early, say)
    live.release("bot:1:0:3", lease)
    assert abs(timers()["bot:1:0:3"] - later) < 0.01
