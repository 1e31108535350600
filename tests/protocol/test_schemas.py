"""The message schemas (docs/schemas/) and their checker: good messages pass, and each kind of mistake is
caught, so that the tests holding real traffic against them mean something."""

from __future__ import annotations

import pytest

from tests.protocol import schema

GOOD_CLIENT = [
    {"type": "auth", "return_code": "XFPH-BE4E-2EDP-KCSP"},
    {"type": "move", "seq": 3, "action": {"type": "play", "candle": 37}, "ref": "move"},
    {"type": "move", "seq": 3, "action": {"type": "climb", "trails": [7, 7]}},
    {"type": "move", "seq": 3, "action": {"type": "target", "seat": 2}},
    {"type": "client_seed", "value": "abc_DEF-1"}, {"type": "sync"}, {"type": "ping"}, {"type": "start"},
    {"type": "play_again", "ref": 4},
]
BAD_CLIENT = [
    {"type": "move", "seq": "3", "action": {"type": "play", "candle": 37}},  # a seq as text
    {"type": "move", "seq": 3, "action": {"type": "play", "candle": True}},  # a boolean for a number
    {"type": "move", "seq": 3},  # no action
    {"type": "client_seed", "value": "has space"},
    {"type": "start", "extra": 1},
    {"type": "resign"},
]


@pytest.mark.parametrize("message", GOOD_CLIENT)
def test_good_client_messages_pass(message):
    schema.check(message, "client")


@pytest.mark.parametrize("message", BAD_CLIENT)
def test_each_mistake_is_caught(message):
    assert schema.errors(message, schema.load("client"))


def test_server_errors_and_pongs():
    server = schema.load("server")
    assert not schema.errors({"type": "error", "code": "illegal:not_in_hand", "message": "No.", "ref": 3}, server)
    assert schema.errors({"type": "error", "code": "made_up", "message": "No."}, server)
    assert not schema.errors({"type": "pong", "position": None}, server)
    position = {"number": 1, "seq": 0, "status": "lobby", "paused": False, "room_digest": "0123456789abcdef"}
    assert not schema.errors({"type": "pong", "position": position}, server)
    assert schema.errors({"type": "pong", "position": {**position, "status": "waiting"}}, server)


def test_a_schema_may_only_use_what_the_checker_checks():
    unchecked = schema.errors(1, {"type": "integer", "multipleOf": 2})
    assert unchecked == ["$: the schema uses unchecked keywords ['multipleOf']"]
    for name in ("client", "server"):
        loaded = schema.load(name)
        for definition in loaded["$defs"].values():
            assert not (set(definition) - schema.KNOWN)
