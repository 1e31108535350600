"""Each HTTP request served over ASGI closes the database connection its thread opened: the thread serves no
other request, and a connection kept for CONN_MAX_AGE lingered until collected (on PostgreSQL, a thousand
pages taking their seats ran the server out of connections)."""

from __future__ import annotations

import gc
import io
from unittest import mock

import pytest
from asgiref.sync import async_to_sync
from channels.testing import HttpCommunicator
from django.core.handlers.asgi import ASGIRequest
from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.http import HttpResponse
from django.test import RequestFactory

from rooms.middleware import CloseRequestConnectionsMiddleware
from tests.rooms.helpers import new_room

pytestmark = pytest.mark.django_db(transaction=True)


def asgi_request() -> ASGIRequest:
    scope = {"type": "http", "method": "GET", "path": "/", "query_string": b"", "headers": []}
    return ASGIRequest(scope, io.BytesIO())


def using_the_database(request):
    connection.ensure_connection()
    return HttpResponse("ok")


def failing_after_a_query(request):
    connection.ensure_connection()
    raise RuntimeError("the view failed")


def test_an_asgi_requests_connection_is_closed_as_it_ends_even_when_its_view_fails():
    middleware = CloseRequestConnectionsMiddleware(using_the_database)
    assert middleware(asgi_request()).status_code == 200
    assert connection.connection is None
    with pytest.raises(RuntimeError):
        CloseRequestConnectionsMiddleware(failing_after_a_query)(asgi_request())
    assert connection.connection is None


def test_a_request_outside_asgi_keeps_its_connection():
    """The test client's requests share the test's connection (and its transaction, in a TestCase)."""
    CloseRequestConnectionsMiddleware(using_the_database)(RequestFactory().get("/"))
    assert connection.connection is not None


def server_connections() -> int:
    with connection.cursor() as cursor:
        cursor.execute("select count(*) from pg_stat_activity where datname = current_database()")
        return cursor.fetchone()[0]


def test_requests_through_the_site_leave_no_connection_open_on_the_server():
    """With the site's connection lifetime (the tests' own is 0), and no collection meanwhile to close what a
    finished request's thread left behind."""
    if connection.vendor != "postgresql":
        pytest.skip("counted on PostgreSQL's server")
    from config.asgi import application

    code = new_room(2).room_code
    before = server_connections()

    async def ask(times: int):
        for _ in range(times):
            communicator = HttpCommunicator(application, "GET", f"/api/rooms/{code}/",
                                            headers=[(b"host", b"testserver")])
            assert (await communicator.get_response())["status"] == 200
            await communicator.wait()  # the request's end, Django's own clean-up included

    gc.disable()
    try:
        with mock.patch.dict(connections.settings[DEFAULT_DB_ALIAS], {"CONN_MAX_AGE": 60}):
            async_to_sync(ask)(10)
        assert server_connections() <= before
    finally:
        gc.enable()
