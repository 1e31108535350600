"""A thread that plays moves replaces a connection near DB_CONN_MAX_AGE after a request, while no move waits
(services.close_old_connections(renew_aging=True)), instead of its next move making one anew: on
PostgreSQL that move waited about 3 ms for a new server process. The worker's move threads do it after each
request (test_move_queue), its timers after each timer."""

from __future__ import annotations

import logging
import time
from unittest import mock

import pytest
from django.db import DEFAULT_DB_ALIAS, connection, connections

from rooms import services
from rooms.management.commands import worker

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def kept(monkeypatch):
    """Connections kept between requests for a minute, as the site keeps them (the tests' setting is 0)."""
    monkeypatch.setitem(connection.settings_dict, "CONN_MAX_AGE", 60)
    connection.close()
    yield
    connection.close()
    writer = getattr(services._STATEMENT_ALONE, "db", None)
    if writer is not None:
        writer.close()


def _opened(db):
    db.ensure_connection()
    return db.connection


def test_a_connection_near_its_age_is_replaced_after_a_request_and_one_far_from_it_is_kept(kept):
    first = _opened(connection)
    connection.close_at = time.monotonic() + 30  # half its minute left
    services.close_old_connections(renew_aging=True)
    assert connection.connection is first
    connection.close_at = time.monotonic() + 5  # within the last fifth of it
    services.close_old_connections(renew_aging=True)
    assert connection.connection is not None and connection.connection is not first
    assert connection.close_at > time.monotonic() + 55  # a minute from now again
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        assert cursor.fetchone() == (1,)


def test_the_look_before_a_request_only_closes_and_after_one_a_connection_past_its_age_is_made_anew(kept):
    first = _opened(connection)
    connection.close_at = time.monotonic() + 5
    services.close_old_connections()  # the look before a request: near its age, kept
    assert connection.connection is first
    connection.close_at = time.monotonic() - 1
    services.close_old_connections()  # past it: closed, and nothing opened there
    assert connection.connection is None
    second = _opened(connection)
    connection.close_at = time.monotonic() - 1  # past its age after a request: closed by Django, made anew
    services.close_old_connections(renew_aging=True)
    assert connection.connection not in (None, second) and connection.close_at > time.monotonic() + 55


def test_a_connection_never_opened_is_not_opened_after_a_request(kept):
    services.close_old_connections(renew_aging=True)
    assert connection.connection is None


def test_with_no_age_kept_nothing_is_opened_after_a_request():
    # DB_CONN_MAX_AGE=0 (as in these tests): closed after each request, as Django does, and none made
    connection.ensure_connection()
    services.close_old_connections(renew_aging=True)
    assert connection.connection is None


def test_the_connection_for_the_remembered_moves_writes_is_renewed_with_its_lock_timeout(kept):
    if connection.vendor != "postgresql":
        pytest.skip("that connection is PostgreSQL's")
    writer = services._statement_alone_db()
    backend = _opened(writer).info.backend_pid
    own = _opened(connection)
    writer.close_at = time.monotonic() + 1
    services.close_old_connections(renew_aging=True)
    assert connection.connection is own  # the thread's own was far from its age
    assert writer.connection.info.backend_pid != backend
    with writer.cursor() as cursor:
        cursor.execute("SHOW lock_timeout")
        assert cursor.fetchone()[0] == f"{services._MoveWhereVersion.LOCK_TIMEOUT_MS}ms"


def test_a_renewal_that_cannot_connect_is_logged_and_the_next_statement_connects(kept, caplog):
    db = connections[DEFAULT_DB_ALIAS]
    _opened(db)
    db.close_at = time.monotonic() + 1
    refused = db.Database.OperationalError("the server is restarting")
    with mock.patch.object(db, "get_new_connection", side_effect=refused), \
            caplog.at_level(logging.WARNING, logger="rooms.services"):
        services.close_old_connections(renew_aging=True)
    assert db.connection is None
    assert "could not renew a database connection" in caplog.text
    with connection.cursor() as cursor:  # the server back: the next statement connects the usual way
        cursor.execute("SELECT 1")
        assert cursor.fetchone() == (1,)


def test_the_workers_timers_renew_their_connections_after_each(kept):
    first = _opened(connection)
    connection.close_at = time.monotonic() + 5
    worker.run_one("nothing:to:do")  # an unknown timer: logged and dropped
    assert connection.connection is not None and connection.connection is not first
