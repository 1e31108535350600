"""What a long-lived daphne holds, on request (rooms/probe.py, WICKWISE_PROBE_FILE): off by default; on, it
counts a socket's channel and groups while it is open and none once it has closed."""

from __future__ import annotations

import json
import signal

import pytest
from channels.db import database_sync_to_async

from rooms import probe
from tests.rooms.helpers import (
    close_all,
    fresh_channel_layer,  # noqa: F401 (a fixture)
    open_socket,
    room_with,
)

db = database_sync_to_async

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_channel_layer")]


async def test_a_socket_is_counted_while_open_and_forgotten_once_closed():
    code, _tickets = await db(room_with)(1, 2)
    socket, _snapshot = await open_socket(code)
    try:
        held = probe.snapshot()
        assert held["layer"]["default"]["channels"] == 1
        assert held["layer"]["default"]["groups"] == 1  # its room's (a spectator: no seat's group)
        assert held["tasks"] >= 1 and held["rss_kb"] > 0
    finally:
        await close_all(socket)
    left = probe.snapshot()["layer"]["default"]
    assert (left["channels"], left["groups"], left["subscribed"]) == (0, 0, 0)


def test_the_signal_appends_one_line_and_the_second_signal_collects_first(tmp_path, monkeypatch):
    out = tmp_path / "probe.jsonl"
    monkeypatch.setattr(probe, "PATH", str(out))
    probe._on_signal(signal.SIGUSR1, None)
    probe._on_signal(signal.SIGUSR2, None)
    first, second = (json.loads(line) for line in out.read_text().splitlines())
    assert first["collected"] is None and isinstance(second["collected"], int)
    assert first["objects"] == sum(first["types"].values()) or len(first["types"]) == 400


def test_off_unless_the_environment_names_a_file(monkeypatch):
    monkeypatch.setattr(probe, "PATH", None)
    before = signal.getsignal(signal.SIGUSR1)
    probe.install()
    assert signal.getsignal(signal.SIGUSR1) is before


def test_a_probe_that_fails_says_so_and_leaves_the_server_running(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(probe, "PATH", str(tmp_path / "no such directory" / "probe.jsonl"))
    probe._on_signal(signal.SIGUSR1, None)  # raised here, it would stop daphne's loop
    assert "probe failed" in capsys.readouterr().err
