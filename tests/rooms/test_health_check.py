"""On PostgreSQL a kept connection is checked before each request's first query (Django's `conn_health_checks`)
by a look at its socket (config/postgresql): quiet and checked lately, it is used without a round trip; with
anything to read (a server that ended it, a notification), or idle for longer, Django's `SELECT 1` runs, and
replaces it if the server has gone."""

from __future__ import annotations

import select
import time
from unittest import mock

import psycopg
import pytest
from django.db import close_old_connections, connection, connections

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def kept_connection(monkeypatch):
    """A connection kept between requests, as the site keeps it (the tests' own are closed after each)."""
    if connection.vendor != "postgresql":
        pytest.skip("SQLite's connection has no server to end it")
    connection.close()
    monkeypatch.setitem(connection.settings_dict, "CONN_MAX_AGE", 60)
    monkeypatch.setitem(connection.settings_dict, "CONN_HEALTH_CHECKS", True)
    connection.ensure_connection()
    yield
    connection.close()


def backend_pid() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


def next_request_checks(checks: list) -> int:
    """The next request's first query, after the upkeep Django runs between requests: its backend's pid.
    `checks` gets an entry for each `SELECT 1` the check sent."""
    close_old_connections()
    wrapper = type(connections["default"])
    is_usable = wrapper.is_usable

    def counted(self):
        checks.append(1)
        return is_usable(self)

    with mock.patch.object(wrapper, "is_usable", counted):
        return backend_pid()


def wait_readable(fileno: int) -> None:
    look = select.poll()
    look.register(fileno, select.POLLIN)
    assert look.poll(5000), "the socket never turned readable"


def other_session():
    return psycopg.connect(**connection.get_connection_params(), autocommit=True)


def test_a_quiet_connection_in_steady_use_is_used_without_a_round_trip():
    checks: list = []
    before = backend_pid()
    for _request in range(3):
        assert next_request_checks(checks) == before
    assert checks == []


def test_a_quiet_connection_idle_for_longer_gets_djangos_check(monkeypatch):
    """A firewall between the site and the server may drop an idle connection without a word to either."""
    wrapper = type(connections["default"])
    monkeypatch.setattr(wrapper, "LOOK_ONLY_WITHIN", 0.05)
    checks: list = []
    before = backend_pid()
    time.sleep(0.1)
    assert next_request_checks(checks) == before and checks == [1]
    monkeypatch.setattr(wrapper, "LOOK_ONLY_WITHIN", 60.0)  # found good just now: in steady use again
    assert next_request_checks(checks) == before and checks == [1]


def test_a_connection_the_server_ended_is_replaced_before_the_request_uses_it():
    checks: list = []
    before = backend_pid()
    fileno = connection.connection.fileno()
    with other_session() as other:
        assert other.execute("SELECT pg_terminate_backend(%s, 5000)", [before]).fetchone()[0]
    wait_readable(fileno)  # its farewell and its end of file
    after = next_request_checks(checks)  # no error: the check found it gone and a new one was opened
    assert after != before and checks == [1]


def test_anything_else_waiting_on_the_socket_gets_djangos_check_and_a_good_connection_is_kept():
    checks: list = []
    with connection.cursor() as cursor:
        cursor.execute("LISTEN wickwise_health_check_test")
    before = backend_pid()
    with other_session() as other:
        other.execute("NOTIFY wickwise_health_check_test")
    wait_readable(connection.connection.fileno())
    assert next_request_checks(checks) == before and checks == [1]
    assert next_request_checks(checks) == before and checks == [1]  # the check read it: quiet again
