"""On PostgreSQL the statements every move runs (rooms.services' compiled reads and writes, and a remembered
game's one writing WITH) are bound on the server and prepared once per connection; Django's own queries are
not. The remembered move's lock timeout is in force before its prepared statement is bound: its write runs
alone on a connection of the thread's own whose session has the timeout, or, when it reads the bots' seats
too, in a pipeline after a SET LOCAL, in the same round trip; so a move that would wait on the game's row or
on a table lock goes the locked way. A column type changed by another process's migration does not leave the
prepared reads failing."""

from __future__ import annotations

import threading
import time
from unittest import mock

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from rooms import move_queue, services
from rooms.models import Game, Move
from tests.rooms.helpers import candle_for, game_in_play, game_row_held, remembered_writes_while, started_room
from tests.rooms.test_moves_together import remembered, round_of

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _postgresql_only():
    if connection.vendor != "postgresql":
        pytest.skip("prepared statements and lock timeouts are PostgreSQL's")


def _move(code: str, seat: int, memory: dict | None) -> Game:
    game = game_in_play(code)
    return services.submit_move(room_code=code, seat=seat, seq=game.seq, action=candle_for(game, seat),
                                games_in_play=memory)


def _remembered_game(seats: int = 3) -> tuple[str, Game, dict]:
    """A room of `seats` people whose game the worker's memory holds: two moves played, the locked way (the
    second then remembered), so the next move with `memory` goes the remembered way. In a room of three that
    move ends the round and poses the next decisions: its write reads the bots' seats too, in the pipeline.
    In a room of four it poses none: its write is the statement alone."""
    code, _tickets, game = started_room(seats)
    memory: dict = {}
    _move(code, 0, None)  # the locked way
    _move(code, 1, memory)  # the locked way, then remembered
    return code, game, memory


def _writer():
    """This thread's connection for the remembered moves' writes (rooms.services._statement_alone_db)."""
    return services._statement_alone_db()


def _prepared(db=connection) -> list[str]:
    with db.cursor() as cursor:  # Django's cursor: binds in the client, never prepares
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        return [" ".join(row[0].split()) for row in cursor.fetchall()]


def _lock_timeout(db) -> str:
    with db.cursor() as cursor:
        cursor.execute("SHOW lock_timeout")
        return cursor.fetchone()[0]


def test_a_moves_statements_are_prepared_on_its_connection_and_djangos_are_not():
    code, _game, memory = _remembered_game(4)
    _move(code, 2, memory)  # remembered: the one writing WITH, alone on the thread's connection for it
    assert any(sql.startswith("WITH written AS (UPDATE") for sql in _prepared(_writer()))
    prepared = _prepared()
    assert not any(sql.startswith("WITH written AS (UPDATE") for sql in prepared), prepared
    _move(code, 3, memory)  # the round's last pick reads the bots' seats: its write in the pipeline, there
    prepared = _prepared()
    assert any(sql.startswith("WITH written AS (UPDATE") for sql in prepared), prepared
    assert any("FOR UPDATE" in sql for sql in prepared), prepared  # the room's and the game's locked reads
    assert any(sql.startswith('INSERT INTO "rooms_move"') for sql in prepared), prepared
    assert any(sql.startswith('UPDATE "rooms_game"') for sql in prepared), prepared
    assert all("$1" in sql for sql in prepared), prepared  # bound on the server, never a literal
    assert not any("pg_prepared_statements" in sql for sql in prepared)


def test_a_new_connection_prepares_them_again_and_a_schema_change_does_not_break_them():
    code, _tickets, _game = started_room(4)
    memory: dict = {}
    _move(code, 0, memory)
    _move(code, 1, memory)
    assert _prepared() and _prepared(_writer())  # the second move went alone
    connection.close()  # as the server dropping them, or CONN_MAX_AGE: the next move opens others
    _writer().close()
    _move(code, 2, memory)
    assert any(sql.startswith("WITH written AS (UPDATE") for sql in _prepared(_writer()))
    with connection.cursor() as cursor:  # a migration between moves, on the tables the statements use
        cursor.execute('ALTER TABLE "rooms_game" ADD COLUMN "prepared_test" integer')
        cursor.execute('ALTER TABLE "rooms_move" ADD COLUMN "prepared_test" integer')
    try:
        _move(code, 3, memory)
        _move(code, 0, None)
    finally:
        with connection.cursor() as cursor:
            cursor.execute('ALTER TABLE "rooms_game" DROP COLUMN "prepared_test"')
            cursor.execute('ALTER TABLE "rooms_move" DROP COLUMN "prepared_test"')
    assert Move.objects.filter(game=game_in_play(code)).count() == 5


def test_a_remembered_move_stops_waiting_on_a_held_row_at_the_lock_timeout_and_goes_the_locked_way():
    code, _tickets, game = started_room(3)
    memory: dict = {}
    _move(code, 0, memory)
    with game_row_held(game.pk, for_seconds=1.0):
        played, tries = _timed_move(code, 1, memory)
    assert len(tries) == 1
    written, waited = tries[0]
    assert not written  # refused at the lock timeout, not written after the holder let go
    assert services._MoveWhereVersion.LOCK_TIMEOUT_MS / 1e3 <= waited < 0.6, waited
    assert played.seq == 2  # then played under the locks, once the row was free
    assert list(Move.objects.filter(game=game).order_by("seq").values_list("seq", "seat")) == [(1, 0), (2, 1)]
    _no_timeout_and_no_transaction_left()  # the thread's own connection never had the timeout


def test_only_the_connection_for_the_remembered_moves_writes_has_the_lock_timeout_and_django_makes_it_anew():
    code, _tickets, _game = started_room(4)
    memory: dict = {}
    _move(code, 0, memory)  # the locked way, then remembered
    _move(code, 1, memory)  # alone
    writer = _writer()
    assert writer is not connection and writer.connection is not connection.connection
    assert _lock_timeout(writer) == f"{services._MoveWhereVersion.LOCK_TIMEOUT_MS}ms"
    assert _lock_timeout(connection) == "0"
    backend = writer.connection.info.backend_pid
    writer.close_at = time.monotonic() - 1  # DB_CONN_MAX_AGE passed: the worker's look before a move closes it
    services.close_old_connections()
    assert writer.connection is None
    played, tries = _timed_move(code, 2, memory)  # alone again, on a new connection with the timeout
    assert [written for written, _waited in tries] == [True] and played.seq == 3
    assert writer.connection.info.backend_pid != backend
    assert _lock_timeout(writer) == f"{services._MoveWhereVersion.LOCK_TIMEOUT_MS}ms"


def test_with_a_pool_of_connections_the_remembered_write_keeps_its_timeout_inside_its_own_transaction():
    # A pooled connection goes back to the pool for others: a session's lock timeout would go with it. So with
    # Django's "pool" option every remembered write runs in the thread's own pipeline, its timeout a SET LOCAL.
    # The option cannot be set on the test's open connection (Django would make a pool for it, and
    # psycopg_pool is not installed): the decision is asked on its own, then the way it picks is played.
    pooled = {**connection.settings_dict, "OPTIONS": {**connection.settings_dict["OPTIONS"], "pool": True}}
    assert services._writes_alone(connection, ())
    assert not services._writes_alone(mock.Mock(wraps=connection, vendor="postgresql", settings_dict=pooled), ())
    code, _tickets, _game = started_room(4)
    memory: dict = {}
    _move(code, 0, memory)  # the locked way, then remembered
    with CaptureQueriesContext(_writer()) as alone, CaptureQueriesContext(connection) as own, \
            mock.patch.object(services, "_writes_alone", return_value=False):
        played, tries = _timed_move(code, 1, memory)  # poses no decision: else it would go alone
    assert [written for written, _waited in tries] == [True] and played.seq == 2  # remembered: one write
    assert alone.captured_queries == []
    written = [q["sql"].split()[0] for q in own.captured_queries]
    assert written == ["SELECT", "WITH"], own.captured_queries  # the test's read of the game, then the write
    _no_timeout_and_no_transaction_left()  # the SET LOCAL ended with its transaction


def _other_session():
    """A connection of its own to the test database, as another process (a migration, a CREATE INDEX) has."""
    import psycopg

    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("prepare_threshold", None)
    return psycopg.connect(**params, autocommit=True)


def _timed_move(code: str, seat: int, memory: dict) -> tuple[Game, list[tuple[bool, float]]]:
    """The move, and each remembered try's outcome and time."""
    tries: list[tuple[bool, float]] = []
    run = services._MOVE_WHERE_VERSION.run

    def timed_run(*args):
        started = time.monotonic()
        written = run(*args)
        tries.append((written, time.monotonic() - started))
        return written

    with mock.patch.object(services._MOVE_WHERE_VERSION, "run", timed_run):
        played = _move(code, seat, memory)
    return played, tries


def _no_timeout_and_no_transaction_left():
    from psycopg.pq import TransactionStatus

    with connection.cursor() as cursor:
        cursor.execute("SHOW lock_timeout")
        assert cursor.fetchone()[0] == "0"
    assert connection.connection.info.transaction_status == TransactionStatus.IDLE
    assert connection.get_autocommit() and not connection.in_atomic_block


def test_a_remembered_move_stops_waiting_on_a_held_table_lock_at_the_lock_timeout():
    # Binding a prepared statement takes its tables' locks before anything in the statement runs: a lock
    # timeout set inside it would come too late for a CREATE INDEX's SHARE lock on the moves.
    code, _tickets, game = started_room(4)
    memory: dict = {}
    _move(code, 0, memory)
    _move(code, 1, memory)  # alone: its statement is now prepared on the connection for it
    assert any(sql.startswith("WITH written AS (UPDATE") for sql in _prepared(_writer()))
    holder = _other_session()
    try:
        holder.execute("BEGIN")
        holder.execute('LOCK TABLE "rooms_move" IN SHARE MODE')
        releasing = threading.Timer(1.0, holder.execute, args=("COMMIT",))
        releasing.start()
        played, tries = _timed_move(code, 2, memory)
        releasing.join()
    finally:
        holder.close()
    assert len(tries) == 1
    written, waited = tries[0]
    assert not written, waited  # refused at the lock timeout, not written after the holder let go
    assert waited < 0.6, waited
    assert played.seq == 3  # then played under the locks, once the table was free
    assert Move.objects.filter(game=game).count() == 3
    _no_timeout_and_no_transaction_left()
    played, tries = _timed_move(code, 3, memory)  # the next remembered move is written again
    assert [written for written, _waited in tries] == [True] and played.seq == 4
    _no_timeout_and_no_transaction_left()


def test_a_column_type_changed_by_another_process_does_not_break_the_prepared_reads():
    # PostgreSQL refuses to run a prepared statement whose result columns' types changed ("cached plan must
    # not change result type"): a migration elsewhere widening a selected column must not leave every read
    # of this connection failing until it is recycled.
    from django.db import NotSupportedError

    code, game, memory = _remembered_game()
    room = game.room
    assert services._current_game(room).pk == game.pk  # its read is now prepared on this connection
    other = _other_session()
    try:
        other.execute('ALTER TABLE "rooms_game" ALTER COLUMN "game" TYPE varchar(30)')
        assert services._current_game(room).pk == game.pk  # outside a transaction: prepared again, once
        assert services._current_game(room).pk == game.pk
        with transaction.atomic():  # the locked read, prepared again
            assert services._current_game(room, lock=True).pk == game.pk
        other.execute('ALTER TABLE "rooms_game" ALTER COLUMN "game" TYPE varchar(40)')
        with pytest.raises(NotSupportedError), transaction.atomic():  # inside one, its transaction is lost
            services._current_game(room, lock=True)
        with transaction.atomic():  # the rollback dropped them all: the next transaction prepares them again
            assert services._current_game(room, lock=True).pk == game.pk
        assert services._current_game(room).pk == game.pk
        played = _move(code, 2, memory)  # and moves go on, the remembered one too
        assert played.seq == 3
        assert Move.objects.filter(game=game).count() == 3
    finally:
        other.execute('ALTER TABLE "rooms_game" ALTER COLUMN "game" TYPE varchar(20)')
        other.close()
        connection.close()  # its statements were prepared for the wider column


def _notices_while(play) -> list[str]:
    """Every notice the server sent the thread's connections while `play()` ran."""
    notices: list[str] = []

    def heard(diagnostic):
        notices.append(f"{diagnostic.severity} {diagnostic.sqlstate} {diagnostic.message_primary}")

    sessions = []
    for db in (connection, _writer()):
        db.ensure_connection()
        sessions.append(db.connection)
        db.connection.add_notice_handler(heard)
    try:
        play()
    finally:
        for session in sessions:
            session.remove_notice_handler(heard)
    return notices


def test_the_remembered_moves_writes_draw_no_warning_from_the_server():
    # A SET LOCAL outside a transaction block warns (25P01) on every move, in the server's log too, though in a
    # pipeline it still lasts until the Sync: the timeout must be set inside the BEGIN's transaction. The last
    # pick of a round with bots poses their decisions, and goes in the pipeline; the others go alone.
    code, _tickets, game = started_room(2, 4)  # seats 2 and 3 are bots
    memory = remembered(code)

    def a_round():
        for payload in round_of(code):
            move_queue.play(payload, games_in_play=memory)

    assert _notices_while(a_round) == []
    assert game_in_play(code).seq == 4 and code in memory  # every move written the remembered way
    assert Move.objects.filter(game=game).count() == 4
    _no_timeout_and_no_transaction_left()


def _statement_named(starting: str, *, locked: bool | None = None, db=connection) -> str:
    with db.cursor() as cursor:
        cursor.execute("SELECT name, statement FROM pg_prepared_statements")
        names = [name for name, sql in cursor.fetchall() if " ".join(sql.split()).startswith(starting)
                 and (locked is None or locked == ("FOR UPDATE" in sql))]
    assert len(names) == 1, names
    return names[0]


def _dropped_behind_psycopgs_back(name: str, db=connection) -> None:
    with db.cursor() as cursor:  # psycopg reads no DEALLOCATE of one name: it still believes it there
        cursor.execute(f"DEALLOCATE {name}")


def test_a_read_whose_statement_the_server_dropped_runs_again_on_a_new_connection():
    from django.db import ProgrammingError

    code, game, memory = _remembered_game()
    room = game.room
    assert services._current_game(room).pk == game.pk
    backend = connection.connection.info.backend_pid
    _dropped_behind_psycopgs_back(_statement_named('SELECT "rooms_game"', locked=False))
    assert services._current_game(room).pk == game.pk  # outside a transaction: on a new connection, once
    assert connection.connection.info.backend_pid != backend
    assert services._current_game(room).pk == game.pk
    with transaction.atomic():  # the locked read, prepared on the new connection
        assert services._current_game(room, lock=True).pk == game.pk
    _dropped_behind_psycopgs_back(_statement_named('SELECT "rooms_game"', locked=True))
    with pytest.raises(ProgrammingError), transaction.atomic():  # inside one, its transaction is lost
        services._current_game(room, lock=True)
    with transaction.atomic():  # the rollback made psycopg drop its names: prepared again
        assert services._current_game(room, lock=True).pk == game.pk
    assert _move(code, 2, memory).seq == 3
    assert Move.objects.filter(game=game).count() == 3


def test_a_stale_plan_after_a_deallocate_all_psycopg_had_counted_does_not_leave_the_reads_failing():
    # psycopg reads a command's status only the first time it counts its text: a DEALLOCATE ALL run while
    # nothing was prepared is counted, and the next one (the stale plan's, dropping the server's statements)
    # leaves psycopg holding their names. Every prepared read then failed with 26000 until the connection went.
    code, _tickets, game = started_room(3)
    memory: dict = {}
    connection.close()
    with connection.cursor() as cursor:  # a new connection, nothing prepared on it yet
        cursor.execute("DEALLOCATE ALL")
    _move(code, 0, None)
    _move(code, 1, memory)
    room = game.room
    assert services._current_game(room).pk == game.pk
    other = _other_session()
    try:
        other.execute('ALTER TABLE "rooms_game" ALTER COLUMN "game" TYPE varchar(30)')
        assert services._current_game(room).pk == game.pk
        assert services._current_game(room).pk == game.pk
        with transaction.atomic():
            assert services._current_game(room, lock=True).pk == game.pk
        assert _move(code, 2, memory).seq == 3
    finally:
        other.execute('ALTER TABLE "rooms_game" ALTER COLUMN "game" TYPE varchar(20)')
        other.close()
        connection.close()  # its statements were prepared for the wider column


def test_a_remembered_move_whose_statement_the_server_dropped_is_written_once_on_a_new_connection():
    code, _tickets, game = started_room(4)
    memory: dict = {}
    _move(code, 0, memory)
    _move(code, 1, memory)  # alone: its statement is now prepared on the connection for it
    writer = _writer()
    backend = writer.connection.info.backend_pid
    _dropped_behind_psycopgs_back(_statement_named("WITH written AS (UPDATE", db=writer), db=writer)
    played, tries = _timed_move(code, 2, memory)  # the server ran nothing: run again, once, on a new connection
    assert [written for written, _waited in tries] == [True] and played.seq == 3
    assert writer.connection.info.backend_pid != backend
    assert _lock_timeout(writer) == f"{services._MoveWhereVersion.LOCK_TIMEOUT_MS}ms"
    played, tries = _timed_move(code, 3, memory)
    assert [written for written, _waited in tries] == [True] and played.seq == 4
    assert list(Move.objects.filter(game=game).order_by("seq").values_list("seq", flat=True)) == [1, 2, 3, 4]
    _no_timeout_and_no_transaction_left()


def test_a_remembered_move_reading_the_bots_seats_whose_statement_the_server_dropped_goes_the_locked_way():
    # In the pipeline (a move that poses the bots' decisions) the statement cannot run again on a new
    # connection: nothing is written, and the move goes the locked way.
    code, _tickets, game = started_room(2, 4)  # seats 2 and 3 are bots
    memory = remembered(code)
    for payload in round_of(code, "a"):  # the last poses decisions: the write, prepared in its pipeline
        move_queue.play(payload, games_in_play=memory)
    _dropped_behind_psycopgs_back(_statement_named("WITH written AS (UPDATE"))
    memory[code].seats_bots_play = None  # forgotten, so the next round's last pick reads them in its pipeline
    tries = remembered_writes_while(
        lambda: [move_queue.play(payload, games_in_play=memory) for payload in round_of(code, "b")])
    assert tries == [(False, True), (False, True), (False, True), (True, False)]  # the last, the locked way
    assert game_in_play(code).seq == 8 and Move.objects.filter(game=game).count() == 8
    _no_timeout_and_no_transaction_left()


@pytest.mark.parametrize("wrapper", ["PipelineAborted", "cannot exit pipeline mode"])
def test_a_lock_timeout_reported_behind_psycopgs_own_error_still_sends_the_move_the_locked_way(wrapper):
    # When the statement fails before the results after it are read, psycopg raises PipelineAborted for those,
    # or an OperationalError when it cannot leave pipeline mode, the statement's own error (the lock timeout)
    # only its __context__. Made so here every time: the order in which the results arrive is not in the
    # test's hands.
    import contextlib

    import psycopg

    raised = {"PipelineAborted": psycopg.errors.PipelineAborted("pipeline aborted"),
              "cannot exit pipeline mode": psycopg.OperationalError("cannot exit pipeline mode")}[wrapper]

    code, _tickets, game = started_room(2, 4)  # seats 2 and 3 are bots
    memory = remembered(code)
    picks = round_of(code)
    for payload in picks[:3]:  # alone: they pose no decision
        move_queue.play(payload, games_in_play=memory)
    real = psycopg.Connection.pipeline

    @contextlib.contextmanager
    def aborted_after_the_lock_timeout(session):
        try:
            with real(session) as pipeline:
                yield pipeline
        except psycopg.errors.LockNotAvailable:
            raise raised from None  # its __context__ the timeout

    with game_row_held(game.pk, for_seconds=0.5), \
            mock.patch.object(psycopg.Connection, "pipeline", aborted_after_the_lock_timeout):
        # the last pick poses the bots' decisions: its write reads their seats, in the pipeline
        tries = remembered_writes_while(lambda: move_queue.play(picks[3], games_in_play=memory))
    assert tries == [(True, False)]  # then the locked way
    assert game_in_play(code).seq == 4
    assert [seat for _seq, seat in Move.objects.filter(game=game).order_by("seq").values_list("seq", "seat")] == [
        0, 1, 2, 3]
    _no_timeout_and_no_transaction_left()


@pytest.mark.parametrize("bots", [False, True], ids=["alone", "reading the bots' seats"])
def test_an_error_at_the_remembered_moves_commit_is_raised_as_itself_and_leaves_the_connection_usable(bots):
    # A deferred constraint is checked at the commit. An error there, after the statement's own result, must
    # write nothing, be told as itself, and leave the connection usable. (Without the explicit COMMIT in the
    # pipeline, at the Sync's implicit commit, psycopg 3.3 stays stuck in pipeline mode, its next query waiting
    # forever, and at times raises an IndexError with the server's error lost.)
    from django.db import IntegrityError

    if bots:  # the last pick of a round with bots poses their decisions: in the pipeline
        code, _tickets, game = started_room(2, 4)
        memory = remembered(code)
        picks = round_of(code)
        for payload in picks[:3]:
            move_queue.play(payload, games_in_play=memory)
        seat = 3
    else:  # the third pick of four poses no decision: alone
        code, game, memory = _remembered_game(4)
        seat = 2
    with connection.cursor() as cursor:
        cursor.execute("CREATE FUNCTION wickwise_refused() RETURNS trigger LANGUAGE plpgsql AS "
                       "$$ BEGIN RAISE EXCEPTION 'refused at commit' USING ERRCODE = 'check_violation'; END $$")
        cursor.execute('CREATE CONSTRAINT TRIGGER wickwise_refused AFTER INSERT ON "rooms_move" '
                       "DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION wickwise_refused()")
    moves = Move.objects.filter(game=game).count()
    try:
        version = Game.objects.get(pk=game.pk).version
        with pytest.raises(IntegrityError) as raised:
            _move(code, seat, memory)
        assert raised.value.__cause__.sqlstate == "23514", repr(raised.value.__cause__)
        for db in (connection, _writer()):
            assert db.connection is None or db.connection.pgconn.pipeline_status == 0
    finally:
        for db in (connection, _writer()):
            if db.connection is not None and db.connection.pgconn.pipeline_status != 0:
                db.close()  # stuck: a query on it would wait forever
        other = _other_session()
        other.execute('DROP TRIGGER wickwise_refused ON "rooms_move"')
        other.execute("DROP FUNCTION wickwise_refused()")
        other.close()
    assert Game.objects.get(pk=game.pk).version == version
    assert Move.objects.filter(game=game).count() == moves
    _no_timeout_and_no_transaction_left()
    played, tries = _timed_move(code, seat, memory)  # and the connections play on
    assert played.seq == moves + 1
