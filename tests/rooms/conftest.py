"""Fixtures shared by the rooms' tests."""

from __future__ import annotations

import pytest

from rooms import services


@pytest.fixture
def reads_after_commit(monkeypatch):
    """The game ids of every read of the bots' seats made on its own (after a commit)."""
    read: list[int] = []
    values = services._SEATS_A_BOT_PLAYS.values

    def counted(game_id):
        read.append(game_id)
        return values(game_id)

    monkeypatch.setattr(services._SEATS_A_BOT_PLAYS, "values", counted)
    return read
