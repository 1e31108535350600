"""Every write to rooms, seats, games and moves goes through here.

Consumers, views, the worker and bots all call these functions. Each one locks what it changes
(a row lock on PostgreSQL; SQLite takes one writer at a time), checks, writes in one transaction, and
only after the commit sends events and schedules timers.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import logging
import threading
import time
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import timedelta

import redis
from django.conf import settings
from django.db import (
    DEFAULT_DB_ALIAS,
    DatabaseError,
    IntegrityError,
    NotSupportedError,
    OperationalError,
    ProgrammingError,
    connection,
    connections,
    transaction,
)
from django.db import close_old_connections as django_close_old_connections
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy as _lazy

from games import fairness, registry
from games.errors import IllegalAction
from rooms import broadcast, clocks, codes, live, names, trace
from rooms.models import Game, Move, Room, Seat

log = logging.getLogger(__name__)

NAME_MAX = names.NAME_MAX
_BOT_OR_STAND_IN = Q(is_bot=True) | Q(stand_in=True)
BOT_SHOWING_AT_MOST = 5.0  # seconds a bot's play is shown for at most, however many steps it takes
_FIELDS_A_MOVE_CHANGES = [
    "state", "seq", "version", "prompts", "deadline_at", "deadline_seq", "paused_remaining", "status", "result",
    "ended_at", "clocks",
]


# SQLite lets one writer in at a time and makes the others poll with growing sleeps (up to 100 ms),
# which under load costs far more than the writes. Writers of one process queue on a lock instead;
# PostgreSQL's row locks need no help.
_sqlite_writer = threading.RLock()
# What a write does after its commit (its update, its timers) runs under this lock, taken before the writer
# lock is let go: the writers of one process send to Redis in the order they committed, even those that let
# the next writer in before their steps run (`_writing(steps_outside_writer=True)`). A worker's move thread
# reads its round trip's replies after the lock is let go (live.replies_later): Redis has run that round trip
# before anything the same thread sends next (live.settled), but another thread's commands, sent after it on
# another connection, may run while Redis is still reading a large one (a game's update).
_sqlite_after_commit = threading.RLock()


@contextlib.contextmanager
def writers_held():
    """Meanwhile no writer of this process begins a transaction on SQLite (they queue on its writer lock)."""
    with _sqlite_writer:
        yield


# A last look just before a write commits (`checked_before_commit`): None, or a callable that raises a
# ServiceError to roll the write back.
_last_look: ContextVar = ContextVar("wickwise_last_look", default=None)
# Called once a move has passed its checks, before its update is built: None, or a callable (the worker
# sends its claim then and reads the reply at the last look, so the round trip overlaps the building).
_looking_ahead: ContextVar = ContextVar("wickwise_looking_ahead", default=None)


@contextlib.contextmanager
def checked_before_commit(last_look, *, ahead=None):
    """Within this, a write calls `last_look()` inside its transaction, after its last statement and just
    before its commit; a ServiceError from it rolls the write back and is raised to the caller. It may be
    called more than once for one request (a move on a remembered game looks before its write, and again
    at its commit, or at the commit of the locked try after it): the worker's claims the request once, and
    after that checks only its deadline. `ahead()`, if given, is called when a move has passed its checks
    and is about to be built and written (it may be called again, by the locked try after a remembered one).

    The worker plays a socket's move this way: a move may wait any time for the room's lock, and only a
    check at the commit itself can promise it is not played after its player was told it was not."""
    token, ahead_token = _last_look.set(last_look), _looking_ahead.set(ahead)
    try:
        yield
    finally:
        _looking_ahead.reset(ahead_token)
        _last_look.reset(token)


def _db():
    """This thread's database connection itself. `connection` is a proxy that looks it up again, in a
    context-local store (about a microsecond), at every attribute: a move's path did that some thirty
    times, so the functions it runs look it up once and hold it."""
    return connections[DEFAULT_DB_ALIAS]


def _move_checked() -> None:
    ahead = _looking_ahead.get()
    if ahead is not None:
        ahead()


def _each_step_on_its_own(db) -> None:
    """Every step registered to run after this commit runs even when another fails (it is logged): a
    broadcast that failed on a Redis hiccup used to stop the timers after it, and the game stood still."""
    db.run_on_commit = [(ids, step, True) for ids, step, _robust in db.run_on_commit]


def _run_each(steps) -> None:
    for step in steps:  # each runs even when another fails, as _each_step_on_its_own has it
        try:
            step()
        except Exception:
            log.exception("a step after a commit failed")


@contextlib.contextmanager
def _writing(*, steps_outside_writer: bool = False):
    """A write's transaction. On SQLite it holds the process's writer lock, and its steps after the commit
    run in commit order. `steps_outside_writer`: the next writer may begin while this one's steps run, so
    they must not write, and what they read may be the next writer's (a move's steps publish what it built
    before its commit; the seats a bot plays are as good read later). Its writer lock then covers the
    transaction alone."""
    db = _db()
    outermost = not db.in_atomic_block
    last_look = _last_look.get() if outermost else None
    if db.vendor != "sqlite":
        with transaction.atomic():
            yield
            if last_look is not None:
                last_look()
            if outermost:
                _each_step_on_its_own(db)
        return
    if not outermost:
        with _sqlite_writer, transaction.atomic():
            yield
        return
    writer_held = True
    _sqlite_writer.acquire()
    trace.mark("locked")
    try:
        with transaction.atomic():
            yield
            if last_look is not None:
                last_look()
            steps = [step for _ids, step, _robust in db.run_on_commit]
            db.run_on_commit = []  # run below, once committed: the commit runs none
        trace.mark("committed")
        with _sqlite_after_commit:  # taken before the writer lock goes: steps run in commit order
            trace.mark("steps")
            if steps_outside_writer:
                _sqlite_writer.release()
                writer_held = False
            _run_each(steps)
    finally:
        if writer_held:
            _sqlite_writer.release()


class ServiceError(Exception):
    """A refusal with a stable code and a message for the person who asked; nothing was changed."""

    def __init__(self, code: str, message: str, details: dict | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details  # what a program needs to show why (the engine's, for an illegal move)


@dataclass(frozen=True)
class SeatTicket:
    """A seat just taken: the return code is shown to its player once and stored only as a hash."""

    room_code: str
    seat: int
    return_code: str | None


# --- helpers ----------------------------------------------------------------------------------

def _clean_name(name: str) -> str:
    name = " ".join((name or "").split())
    if not name:
        raise ServiceError("bad_name", _("Please give a display name."))
    if len(name) > NAME_MAX:
        raise ServiceError("bad_name", _("A display name has at most %(max)s characters.") % {"max": NAME_MAX})
    if names.reads_as_bot(name):
        raise ServiceError("bad_name", _("That name reads as a bot's: please choose another."))
    return name


@dataclass(frozen=True)
class _Compiled:
    sql: str
    attnames: list[str]  # the model's columns, in the select's order
    converters: dict  # position -> (the ORM's converters for that column, its expression)


COMPILED_ON_CONNECTION = "wickwise_compiled"  # the attribute of a connection that holds its compiled reads


@functools.cache
def _preparing_cursor_class():
    """On PostgreSQL, a cursor that binds its parameters on the server and prepares each statement the first
    time it runs on a connection (psycopg keeps the prepared names with its connection, so a new connection
    prepares them again). Django's own cursors keep binding in the client."""
    from django.db.backends.postgresql.base import ServerBindingCursor
    from psycopg.errors import FeatureNotSupported, InvalidSqlStatementName
    from psycopg.pq import TransactionStatus

    class PreparingCursor(ServerBindingCursor):
        wrapper = None  # Django's cursor around this one: a retry points it at the new connection's cursor

        def execute(self, query, params=None, *, prepare=True, binary=None, again=True):
            try:
                super().execute(query, params, prepare=prepare, binary=binary)
            except (FeatureNotSupported, InvalidSqlStatementName):
                # 0A000: another process's migration changed the type of a column this statement returns, and
                # PostgreSQL refuses its prepared plan until it is dropped ("cached plan must not change result
                # type"); told by its SQLSTATE alone, as the server may word it in another language. 26000: the
                # server no longer has a statement psycopg believes prepared. psycopg reads a command's status
                # (a DEALLOCATE ALL's, a ROLLBACK's) only the first time it counts that text, so once it has
                # run a DEALLOCATE ALL while nothing was prepared, the next one leaves it holding stale names
                # and every read of the connection fails with 26000. So, outside a transaction, the connection
                # is closed (its statements, and psycopg's names for them, go with it) and the statement runs
                # once on a new one; any other 0A000 fails there too, having written nothing. Inside a
                # transaction it is lost: it is raised, and the ROLLBACK makes psycopg drop its names.
                if not again or not self._outside_any_transaction():
                    raise
                return self._on_a_new_connection().execute(query, params, prepare=prepare, binary=binary, again=False)
            if self._query is None and self._db().queries_logged:
                # psycopg keeps no text of a prepared statement's run, which Django's query log reads
                self._query = _LoggedStatement(query, params)
            return self

        def _db(self):
            """Django's connection this cursor is on: the thread's own, or another it made (_statement_alone_db)."""
            return connection if self.wrapper is None else self.wrapper.db

        def _outside_any_transaction(self) -> bool:
            return (self.connection._pipeline is None and not self._db().in_atomic_block
                    and self.connection.info.transaction_status == TransactionStatus.IDLE)

        def _on_a_new_connection(self):
            db = self._db()
            db.close()
            db.ensure_connection()
            fresh = type(self)(db.connection)
            fresh.wrapper = self.wrapper
            if self.wrapper is not None:
                self.wrapper.cursor = fresh
            return fresh

    return PreparingCursor


@dataclass(frozen=True)
class _LoggedStatement:
    sql: str
    params: list | tuple | None

    @property
    def query(self) -> bytes:  # as Django logs a statement bound on the server
        return connection.ops.compose_sql(self.sql, self.params).encode()


def _hot_cursor(db=None):
    """Django's cursor (its health check, a connection when none is open, its errors, its execute wrappers)
    for the statements every move runs. On PostgreSQL they are prepared: parsed and planned once per
    connection, not for every move, which took a quarter of the server's CPU a move (docs/benchmarks.md).
    `db`: this thread's connection (`_db()`), if the caller holds it."""
    if db is None:
        db = _db()
    cursor = db.cursor()
    if db.vendor == "postgresql":
        cursor.cursor = _preparing_cursor_class()(db.connection)
        cursor.cursor.wrapper = cursor
    return cursor


class _CompiledQuery:
    """A query that every move runs, compiled by the ORM once per database connection, then run on a plain
    cursor, its rows converted by the ORM's own converters for its columns, as a queryset converts them.

    Compiling the queryset again for every move cost more than running it: the two locked reads of a
    move took about 1.9 ms, and 0.6 to 0.85 ms through raw(). raw() still worked out the columns and their
    converters again for every query; keeping what the compiler found halves that again (0.65 -> 0.32 ms
    in one process, docs/benchmarks.md).
    `build(*params)` returns the queryset; its SQL must take exactly `params`, in order.
    """

    def __init__(self, model, build):
        self.model = model
        self.build = build

    def _compiled(self, params: tuple, database) -> _Compiled:
        # Kept on the thread's connection, whose own converters (its operations object) it holds: a cache
        # keyed by the connection elsewhere would keep it, and its open session, after its thread is gone.
        cache = database.__dict__.setdefault(COMPILED_ON_CONNECTION, {})
        compiled = cache.get(self)
        if compiled is None:  # compiled inside the caller's transaction: select_for_update needs one
            compiler = self.build(*params).query.get_compiler(using=DEFAULT_DB_ALIAS)
            sql, built_params = compiler.as_sql()
            assert tuple(built_params) == params, "the compiled query must take exactly its params"
            expressions = [expression for expression, _sql, _alias in compiler.select]
            attnames = [getattr(getattr(e, "target", None), "attname", None) for e in expressions]
            compiled = _Compiled(sql, attnames, compiler.get_converters(expressions))
            cache[self] = compiled
        return compiled

    def _rows(self, params: tuple) -> tuple[_Compiled, list]:
        database = _db()
        compiled = self._compiled(params, database)
        with _hot_cursor(database) as cursor:
            cursor.execute(compiled.sql, params)
            rows = cursor.fetchall()
        if compiled.converters:
            rows = [list(row) for row in rows]
            for row in rows:
                for position, (converters, expression) in compiled.converters.items():
                    value = row[position]
                    for convert in converters:
                        value = convert(value, expression, database)
                    row[position] = value
        return compiled, rows

    def sql(self, database, *params) -> str:
        """The query's SQL on `database` (this thread's connection), compiled once per connection."""
        return self._compiled(params, database).sql

    def first(self, *params):
        """The first row as a model instance, as the queryset's first() would give it."""
        compiled, rows = self._rows(params)
        return self.model.from_db(DEFAULT_DB_ALIAS, compiled.attnames, rows[0]) if rows else None

    def values(self, *params) -> list[tuple]:
        """The rows of a values_list() query."""
        return [tuple(row) for row in self._rows(params)[1]]


class _CompiledSave:
    """A model's INSERT of a new row, or its UPDATE of some fields by primary key, written once per database.
    Each value is prepared by its own field, as save() prepares it (pre_save, get_db_prep_save).

    save() built the statement again for every move, and the two writes took about a quarter of a move's
    time in the worker (docs/benchmarks.md). No signal is sent: nothing listens for these models' saves.
    """

    def __init__(self, model, *, update_fields: list[str] | None = None, where_version: bool = False):
        self.model = model
        self.update_fields = update_fields
        self.adding = update_fields is None
        self.where_version = where_version  # an update only where the row still has the version given to run()
        self.sql: dict[str, str] = {}

    @functools.cached_property
    def fields(self) -> list:  # looked up at first use: the app registry is ready by then
        meta = self.model._meta
        if self.adding:
            return [field for field in meta.local_concrete_fields if not field.primary_key]
        return [meta.get_field(name) for name in self.update_fields]

    def _statement(self, db) -> str:
        sql = self.sql.get(db.vendor)
        if sql is None:
            quote, meta = db.ops.quote_name, self.model._meta
            columns = [quote(field.column) for field in self.fields]
            if self.adding:
                sql = (f"INSERT INTO {quote(meta.db_table)} ({', '.join(columns)}) "
                       f"VALUES ({', '.join(['%s'] * len(columns))})")
            else:
                sql = (f"UPDATE {quote(meta.db_table)} SET {', '.join(f'{column} = %s' for column in columns)} "
                       f"WHERE {quote(meta.pk.column)} = %s")
                if self.where_version:
                    sql += f" AND {quote('version')} = %s"
            self.sql[db.vendor] = sql
        return sql

    def run(self, instance, *, version: int | None = None) -> int:
        """The rows written."""
        return self.run_prepared(self.prepared(instance, version=version))

    def prepared(self, instance, *, version: int | None = None) -> list:
        """The statement's values, each prepared by its field (JSON columns encoded; an `auto_now_add` field
        stamped on the instance now): run_prepared writes them. Prepared apart, they can be built before a
        lock is taken rather than while it is held."""
        db, adding = _db(), self.adding
        params = [field.get_db_prep_save(field.pre_save(instance, adding), db) for field in self.fields]
        if not self.adding:
            params.append(instance.pk)
        if self.where_version:
            params.append(version)
        return params

    def run_prepared(self, params: list) -> int:
        """The rows written."""
        db = _db()
        with _hot_cursor(db) as cursor:
            cursor.execute(self._statement(db), params)
            return cursor.rowcount


_INSERT_MOVE = _CompiledSave(Move)
_SAVE_WHAT_A_MOVE_CHANGES = _CompiledSave(Game, update_fields=_FIELDS_A_MOVE_CHANGES)
_SAVE_WHERE_VERSION = _CompiledSave(Game, update_fields=_FIELDS_A_MOVE_CHANGES, where_version=True)  # SQLite


class _MoveWhereVersion:
    """A move's two writes in one statement (PostgreSQL: a writing WITH), the game's only where its row
    still has the version read, and the move's only if the game's was: run outside any transaction, one
    round trip with its commit, and nothing written when another writer came first. Each value is prepared
    by its field, as the two statements above do. A room's queued moves played together
    (submit_queued_moves) go the same way: the game's row once, as the last of them left it, and every move.

    A move that would wait longer than LOCK_TIMEOUT_MS on a lock goes the locked way instead (the last look
    came before this statement, so it must not be kept long after it). On PostgreSQL the timeout must be in
    force before the prepared statement is bound: binding takes the tables' locks (a CREATE INDEX holds
    them), before anything inside the statement runs. So the statement runs alone, in autocommit, on a
    connection of the thread's own for it whose session has the timeout (_statement_alone_db): nothing else
    runs there to inherit it. That spares the BEGIN, SET LOCAL and COMMIT of a transaction around it, and
    psycopg's pipeline: less of the worker's CPU and the server's a move, and a shorter write
    (docs/benchmarks.md, "The remembered move's write alone").

    When the move posed a decision a bot may take and the game in memory does not know the seats a bot plays
    (`Game.seats_bots_play`: a start knows them, and a read here is remembered with the game), they are read
    after the write in the same transaction, on the thread's own connection: BEGIN, SET LOCAL, the statement,
    the read and COMMIT together in one pipeline, one round trip ended by its Sync. Not the Sync's implicit
    transaction without BEGIN and COMMIT: an error at that implicit commit (a deferred constraint's) leaves
    psycopg 3.3 unable to leave pipeline mode, and sometimes raises an IndexError with the server's error lost;
    an explicit COMMIT reports it as the COMMIT's."""

    LOCK_TIMEOUT_MS = 100

    def __init__(self, update: _CompiledSave, insert: _CompiledSave):
        self.update, self.insert = update, insert
        self.sql: dict[int, str] = {}  # by the number of moves written

    def _statement(self, db, moves: int) -> str:
        sql = self.sql.get(moves)
        if sql is None:
            quote = db.ops.quote_name
            game, move = Game._meta, Move._meta
            assigned = ", ".join(f"{quote(field.column)} = %s" for field in self.update.fields)
            columns = ", ".join(quote(field.column) for field in self.insert.fields)
            if moves == 1:
                rows = f"SELECT {', '.join(['%s'] * len(self.insert.fields))} FROM written"
            else:  # a room's queued moves together: each value cast, as a VALUES list gives no column its type
                row = ", ".join(f"CAST(%s AS {field.db_type(db)})" for field in self.insert.fields)
                rows = f"SELECT listed.* FROM (VALUES {', '.join([f'({row})'] * moves)}) AS listed, written"
            sql = self.sql[moves] = (
                f"WITH written AS (UPDATE {quote(game.db_table)} SET {assigned} "
                f"WHERE {quote(game.pk.column)} = %s AND {quote('version')} = %s RETURNING 1) "
                f"INSERT INTO {quote(move.db_table)} ({columns}) {rows}")
        return sql

    def run(self, game: Game, moves: list[Move], read_version: int, bots=()) -> bool:
        """True if every row was written: the game's as `game` stands, where its version was `read_version`,
        and each of `moves`, in order. `bots`: the moves' _BotTurns, if any posed a decision; on PostgreSQL the
        seats a bot plays are then read in the same transaction, after the write (each given its `covered`)."""
        params = [*self.update.prepared(game), read_version]  # the game's values end with its pk
        for move in moves:
            params += self.insert.prepared(move)
        db = _db()
        unread = [each for each in bots if each.covered is None]  # the game in memory knows them otherwise
        alone = _writes_alone(db, unread)
        if alone:
            db = _statement_alone_db()
        try:
            with _hot_cursor(db) as cursor:
                statement = self._statement(db, len(moves))
                if db.vendor != "postgresql" or alone:
                    cursor.execute(statement, params)
                    return cursor.rowcount == len(moves)
                written = self._run_in_pipeline(db, cursor, statement, params, len(moves), unread)
                if written and unread:  # remembered with the game, for its next moves' writes
                    game.seats_bots_play = frozenset(unread[0].covered)
                return written
        except OperationalError as error:  # a lock was held longer than the lock timeout
            if getattr(error.__cause__, "sqlstate", None) == _LOCK_NOT_AVAILABLE:
                return False
            raise
        except (ProgrammingError, NotSupportedError) as error:
            if getattr(error.__cause__, "sqlstate", None) in (_NO_SUCH_STATEMENT, _CACHED_PLAN_CHANGED):
                # psycopg held a name the server had dropped, or a migration elsewhere changed the type of a
                # column the bots' seats read returns (PreparingCursor says how; in the pipeline it cannot run
                # again on a new connection): nothing was written. The connection goes, with every name psycopg
                # holds for it; the move goes the locked way.
                db.close()
                return False
            raise

    def _run_in_pipeline(self, db, cursor, statement: str, params: list, moves: int, bots=()) -> bool:
        # Django's cursor (its health check and connection already done) keeps its query log and wrappers;
        # psycopg's own connection sends the transaction's commands, never prepared (they take no params).
        # The bots' seats, when a move posed a decision, are read by a statement of their own after the write
        # (a fresh snapshot: a seat handed to a stand-in by a transaction the write waited for is seen), in
        # the same round trip; read after the commit, they cost one more a round of candles.
        import psycopg
        from psycopg.pq import PipelineStatus, TransactionStatus

        # Inside a transaction, or with autocommit off (psycopg's own BEGIN), its COMMIT would be the caller's.
        if db.in_atomic_block or not db.get_autocommit():
            raise RuntimeError("the remembered move runs outside any transaction, in autocommit")
        session = db.connection
        seats = None
        if bots:  # compiled (once per connection) before the pipeline: nothing but the round trip's commands in it
            game_id = bots[0].game_id
            seats_sql = _SEATS_A_BOT_PLAYS.sql(db, game_id)
            seats = _seats_a_bot_plays_cursor(db)
        try:
            with db.wrap_database_errors:  # Django's errors, and its note to check the connection
                try:
                    with session.pipeline():
                        session.execute("BEGIN", prepare=False)
                        session.execute(f"SET LOCAL lock_timeout = '{self.LOCK_TIMEOUT_MS}ms'", prepare=False)
                        cursor.execute(statement, params)
                        if seats is not None:
                            seats.execute(seats_sql, (game_id,))
                        session.execute("COMMIT", prepare=False)
                    # the pipeline's exit sent the Sync and read every result
                except psycopg.Error as error:
                    if error.sqlstate is None:  # psycopg's own, with the server's error behind it
                        raise _the_servers_error(error) from None
                    raise
                if cursor.rowcount != moves:
                    return False
                if seats is not None:
                    covered = {index for (index,) in seats.fetchall()}
                    for each in bots:
                        each.covered = covered
                return True
        finally:
            if seats is not None:
                seats.close()
            if session.closed:
                pass
            elif session.pgconn.pipeline_status != PipelineStatus.OFF:
                # psycopg could not leave pipeline mode ("cannot exit pipeline mode"): a query sent on this
                # connection now would wait forever for its Sync. It is not used again.
                db.close()
            elif session.info.transaction_status != TransactionStatus.IDLE:
                # A failed statement leaves the BEGIN's transaction aborted (the COMMIT was skipped): end it, a
                # round trip more, so the connection is back in autocommit with no transaction, as Django
                # believes it is. psycopg drops its prepared statements on a ROLLBACK: the next moves prepare
                # theirs again, once. A failed ROLLBACK must not hide the move's own error: the connection goes.
                try:
                    session.rollback()
                except psycopg.Error:
                    db.close()


def _writes_alone(db, bots) -> bool:
    """Whether a remembered move's write runs alone, on the thread's connection for it (_MoveWhereVersion): on
    PostgreSQL when it reads no bots' seats; not with a pool of connections (Django's OPTIONS "pool"), which
    would hand the session's timeout on to others, nor on a backend that cannot set it for a session
    (config.postgresql's can)."""
    return (db.vendor == "postgresql" and not bots and not db.settings_dict["OPTIONS"].get("pool")
            and hasattr(db, "session_lock_timeout_ms"))


_STATEMENT_ALONE = threading.local()


def _statement_alone_db():
    """This thread's connection for a remembered move's write on PostgreSQL (_MoveWhereVersion): Django's
    settings, with the lock timeout set for its whole session as it connects, and nothing but that statement
    run on it. One more server process for each thread that plays moves; close_old_connections below looks
    at it when it looks at the thread's own."""
    db = getattr(_STATEMENT_ALONE, "db", None)
    if db is None:
        db = _STATEMENT_ALONE.db = connections.create_connection(DEFAULT_DB_ALIAS)
        db.session_lock_timeout_ms = _MoveWhereVersion.LOCK_TIMEOUT_MS
    return db


def close_old_connections(*, renew_aging: bool = False) -> None:
    """Django's close_old_connections for a thread that plays moves: its own connections, and the one for the
    remembered moves' writes, each closed if it failed or outlived DB_CONN_MAX_AGE (its health check comes with
    its next cursor).

    `renew_aging`, after a request: each of the two that was open and is closed now, or would outlive
    DB_CONN_MAX_AGE within its last RENEW_BEFORE_AGE, is made anew at once, while no move waits. Left to the
    next request, its first statement made it: on PostgreSQL a move then waited about 3 ms for a new server
    process, a few moves a minute at the tail (docs/benchmarks.md, "Connections renewed between requests")."""
    writer = getattr(_STATEMENT_ALONE, "db", None)
    open_before = [db for db in (connections[DEFAULT_DB_ALIAS], writer)
                   if renew_aging and db is not None and db.connection is not None]
    django_close_old_connections()
    if writer is not None:
        writer.close_if_unusable_or_obsolete()
    for db in open_before:
        _renew_if_aging(db)


RENEW_BEFORE_AGE = 0.2  # of DB_CONN_MAX_AGE: its last 12 s of the default 60, many requests for a thread in play


def _renew_if_aging(db) -> None:
    max_age = db.settings_dict["CONN_MAX_AGE"]
    if not max_age or db.in_atomic_block:  # 0: closed after every request, as asked; None: kept for good
        return
    if db.connection is not None and time.monotonic() < db.close_at - max_age * RENEW_BEFORE_AGE:
        return
    db.close()
    try:
        db.ensure_connection()
    except DatabaseError:  # the next request's first statement connects, or fails, the usual way
        log.warning("could not renew a database connection between requests", exc_info=True)


def _seats_a_bot_plays_cursor(db):
    """A cursor on the connection in its pipeline, as _hot_cursor's (prepared, counted by Django's execute
    wrappers, and in its query log when that is kept, as Django's _prepare_cursor chooses), without Django's
    health check: the connection is in use."""
    raw = _preparing_cursor_class()(db.connection)
    wrapper = db.make_debug_cursor(raw) if db.queries_logged else db.make_cursor(raw)
    raw.wrapper = wrapper
    return wrapper


def _the_servers_error(wrapper: Exception) -> Exception:
    """The server's own error behind one of psycopg's in a pipeline: when the statement fails before the results
    after it are read, psycopg raises PipelineAborted for them, or fails to leave pipeline mode, the server's
    error only in the __context__; the lock timeout's 55P03 must be told as itself. Only psycopg's own errors
    are looked through, so an older error the caller was handling is never taken for this one."""
    import psycopg

    found = wrapper.__context__
    while isinstance(found, psycopg.Error) and found.sqlstate is None:
        found = found.__context__
    return found if isinstance(found, psycopg.Error) else wrapper


_LOCK_NOT_AVAILABLE = "55P03"
_NO_SUCH_STATEMENT = "26000"
_CACHED_PLAN_CHANGED = "0A000"  # feature_not_supported: "cached plan must not change result type"
_MOVE_WHERE_VERSION = _MoveWhereVersion(_SAVE_WHAT_A_MOVE_CHANGES, _INSERT_MOVE)


_ROOM_FOR_UPDATE = _CompiledQuery(Room, lambda code: Room.objects.select_for_update().filter(code=code))
_LATEST_GAME = _CompiledQuery(Game, lambda room_id: Game.objects.filter(room_id=room_id).order_by("-number")[:1])
_LATEST_GAME_FOR_UPDATE = _CompiledQuery(
    Game, lambda room_id: Game.objects.select_for_update().filter(room_id=room_id).order_by("-number")[:1]
)
_SEATS_A_BOT_PLAYS = _CompiledQuery(Seat, lambda game_id: Seat.objects.filter(room__games=game_id).filter(
    _BOT_OR_STAND_IN).order_by().values_list("index"))


# A bot's turn reads these before it decides (play_bot_turn): compiled, as the moves' reads are, they cost it
# about a third of what the querysets did (docs/benchmarks.md).
_GAME_BY_ID = _CompiledQuery(Game, lambda game_id: Game.objects.filter(pk=game_id))
_BOT_SEAT = _CompiledQuery(Seat, lambda room_id, index: Seat.objects.filter(room_id=room_id).filter(index=index).filter(
    _BOT_OR_STAND_IN).order_by().values_list("is_bot", "bot_level"))


def _bot_seat(room_id: int, index: int) -> tuple[bool, str] | None:
    """(is_bot, bot_level) of the seat, if a bot plays it (its own, or a stand-in); else None."""
    rows = _BOT_SEAT.values(room_id, index)
    return rows[0] if rows else None


def _room_for_update(room_code: str) -> Room:
    room = _ROOM_FOR_UPDATE.first(codes.normalize(room_code))
    if room is None:
        raise ServiceError("no_such_room", _("There is no room with that code."))
    return room


def _current_game(room: Room, *, lock: bool = False) -> Game:
    game = (_LATEST_GAME_FOR_UPDATE if lock else _LATEST_GAME).first(room.pk)
    if game is None:  # pragma: no cover - every room is created with its first game
        raise ServiceError("no_game", _("This room has no game."))
    game.room = room  # spares a query wherever the game's room is read
    return game


def _new_game(room: Room) -> Game:
    """A game in the lobby: its seed is drawn and its fingerprint published before any client seed."""
    seed = fairness.new_seed()
    room.games_played += 1
    room.save(update_fields=["games_played"])
    return Game.objects.create(
        room=room,
        room_code=room.code,
        game=room.game,
        number=room.games_played,
        options=room.options,
        seed=seed,
        fingerprint=fairness.fingerprint(seed),
    )


def _rng(game: Game) -> fairness.Rng:
    mix = fairness.mix_string(
        game=game.game, room_code=game.room_code, number=game.number, client_seeds=game.client_seed_list()
    )
    return fairness.Rng(game.seed, mix)


def _expiry_time(room: Room) -> float:
    return (room.last_activity_at + timedelta(days=settings.WICKWISE["ROOM_LIFETIME_DAYS"])).timestamp()


_TOUCH_EVERY = timedelta(minutes=1)


def _touch(room: Room, *, every_move: bool = False) -> None:
    """Record activity for the 30-day expiry. Moves write it at most once a minute: the lifetime is in
    days, and a write plus a Redis call per move is most of a move's cost under load."""
    now = timezone.now()
    if every_move and room.last_activity_at and now - room.last_activity_at < _TOUCH_EVERY:
        return
    room.last_activity_at = now
    room.save(update_fields=["last_activity_at"])
    expires = _expiry_time(room)
    transaction.on_commit(lambda: live.touch_expiry(room.code, expires))


def _seat_for_code(room: Room, return_code: str) -> Seat | None:
    digest = codes.hash_return_code(return_code)
    return room.seats.filter(return_code_hash=digest).first()


# --- rooms and seats --------------------------------------------------------------------------

def create_room(*, game: str, seat_count: int, options: dict | None, host_name: str, user=None) -> SeatTicket:
    try:
        spec = registry.get(game)
    except KeyError:
        raise ServiceError("no_such_game", _("There is no such game.")) from None
    if not isinstance(seat_count, int) or not spec.min_seats <= seat_count <= spec.max_seats:
        raise ServiceError(
            "bad_seats",
            _("%(game)s takes %(low)d to %(high)d seats.")
            % {"game": spec.name, "low": spec.min_seats, "high": spec.max_seats},
        )
    try:
        if options is not None and not isinstance(options, dict):  # the JSON API passes whatever it got
            raise ValueError("options must be an object")
        cleaned = spec.clean_options(options)
    except ValueError as error:
        raise ServiceError("bad_options", str(error)) from None
    name = _clean_name(host_name)
    for _attempt in range(20):
        try:
            with _writing():
                code = codes.new_room_code()
                if Game.objects.filter(room_code=code).exists():
                    continue  # codes of expired rooms stay with their public records
                room = Room.objects.create(
                    code=code, game=game, seat_count=seat_count, options=cleaned, last_activity_at=timezone.now()
                )
                Seat.objects.bulk_create(Seat(room=room, index=i) for i in range(seat_count))
                _new_game(room)
                ticket = _take_seat(room, room.seats.get(index=0), name=name, user=user)
                _touch(room)
                return ticket
        except IntegrityError:
            continue
    raise ServiceError("busy", _("Could not find a free room code; please try again."))  # pragma: no cover


def create_same_device_room(*, game: str, names: list, options: dict | None = None, user=None) -> list[SeatTicket]:
    """A room played on one device: a seat for each name, all taken at once and all held by the browser that
    made it (rooms/identity.py), which passes the device from player to player. Nobody may join it by code.
    The game is started by that browser's page once it has sent its client seed, as in any room."""
    if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
        raise ServiceError("bad_names", _("Give a name for each player."))
    cleaned_names = [_clean_name(name) for name in names if name.strip()]
    try:
        spec = registry.get(game)
    except KeyError:
        raise ServiceError("no_such_game", _("There is no such game.")) from None
    if not spec.min_seats <= len(cleaned_names) <= spec.max_seats:
        raise ServiceError(
            "bad_seats",
            _("%(game)s takes %(low)d to %(high)d players.")
            % {"game": spec.name, "low": spec.min_seats, "high": spec.max_seats},
        )
    if len({name.casefold() for name in cleaned_names}) != len(cleaned_names):
        raise ServiceError("same_names", _("Each player needs a different name, to know whose turn it is."))
    with _writing():
        first = create_room(game=game, seat_count=len(cleaned_names), options=options,
                            host_name=cleaned_names[0], user=user)
        room = Room.objects.select_for_update().get(code=first.room_code)
        room.same_device = True
        room.save(update_fields=["same_device"])
        tickets = [first]
        for seat in room.seats.filter(index__gt=0).order_by("index"):
            tickets.append(_take_seat(room, seat, name=cleaned_names[seat.index], user=user))
        return tickets


def seat_to_act(*, room_code: str, seats: list[int]) -> int | None:
    """Of `seats` (those one device holds), the one whose decision is pending, lowest first; None when none is."""
    room = Room.objects.filter(code=room_code).first()
    game = room.current_game if room else None
    if game is None or game.status != Game.Status.PLAYING:
        return None
    pending = sorted(int(seat) for seat in game.prompts)
    return next((seat for seat in pending if seat in seats), None)


def _take_seat(room: Room, seat: Seat, *, name: str, user) -> SeatTicket:
    return_code = codes.new_return_code()
    seat.name = name
    seat.user = user if user is not None and user.is_authenticated else None
    seat.return_code_hash = codes.hash_return_code(return_code)
    seat.joined_at = timezone.now()
    seat.save()
    transaction.on_commit(lambda: broadcast.room_changed(room.code))
    return SeatTicket(room.code, seat.index, return_code)


def join_room(*, room_code: str, name: str, user=None) -> SeatTicket:
    """Take the first free seat. A signed-in player who already sits here gets that seat back."""
    with _writing():
        room = _room_for_update(room_code)
        if room.same_device:
            raise ServiceError("same_device", _("This game is played on one device; it cannot be joined by code."))
        if user is not None and user.is_authenticated:
            mine = room.seats.filter(user=user).first()
            if mine is not None:
                return SeatTicket(room.code, mine.index, None)
        name = _clean_name(name)
        free = room.seats.filter(is_bot=False, return_code_hash="").order_by("index").first()
        if free is None or _current_game(room).status != Game.Status.LOBBY:
            raise ServiceError("room_full", _("Every seat in this room is taken."))
        ticket = _take_seat(room, free, name=name, user=user)
        _start_if_full(room)
        return ticket


def _start_if_full(room: Room) -> None:
    """A game that starts by itself does so as the last free seat is taken (in the same transaction)."""
    if registry.get(room.game).start_when_full and not room.seats.filter(is_bot=False, return_code_hash="").exists():
        start_game(room_code=room.code, seat=None)


def seat_by_return_code(*, return_code: str) -> Seat:
    """The seat a personal return code belongs to, from any room."""
    digest = codes.hash_return_code(return_code)
    seat = Seat.objects.select_related("room").filter(return_code_hash=digest).first()
    if seat is None or len(codes.normalize(return_code)) != codes.RETURN_CODE_LENGTH:
        raise ServiceError("bad_return_code", _("That return code does not match any seat."))
    return seat


def link_seat_to_user(*, seat_id: int, user) -> None:
    """A signed-in player who returns with a code keeps the seat in My games too."""
    if user is not None and user.is_authenticated:
        Seat.objects.filter(pk=seat_id, user__isnull=True).update(user=user)


def set_client_seed(*, room_code: str, seats: list[int], value: str) -> None:
    """Store a client seed for the next game. `seats`: the seat a socket plays, or every seat of a game played
    on one device, whose one device stands for each of its players (DESIGN's fairness: a seed the server
    could not foresee)."""
    if not isinstance(value, str) or not fairness.is_valid_client_seed(value):
        raise ServiceError("bad_client_seed", _("A client seed is 1 to 64 letters, digits, '-' or '_'."))
    with _writing():
        room = _room_for_update(room_code)
        game = _current_game(room, lock=True)
        if game.status != Game.Status.LOBBY:
            raise ServiceError("game_started", _("Client seeds can only change before the game starts."))
        seat_rows = {row.index: row for row in room.seats.filter(index__in=seats)}
        if any(seat_rows[seat].is_bot for seat in seats):
            raise ServiceError("bot_seat", _("Bots contribute no client seed."))
        game.client_seeds = {**game.client_seeds, **{str(seat): value for seat in seats}}
        game.save(update_fields=["client_seeds"])
        transaction.on_commit(lambda: broadcast.room_changed(room.code))


def start_game(*, room_code: str, seat: int | None, mover: str | None = None,
               games_in_play: dict | None = None) -> Game:
    """The host (seat 1, index 0, or whoever the role passed to: fire_grace) starts; empty seats get bots.
    seat=None: the platform itself. `mover` names the socket's request in the update it makes
    (rooms/move_queue.py). `games_in_play`: a worker thread's memory (submit_move): the game started is
    remembered as committed, so its first move is played on it, not the locked way.

    On SQLite a start lets the next writer in once it has committed, as a move does: what follows its commit
    (both updates, built from the rows at hand, the timers and the grace periods) writes nothing to the
    database. 250 hosts pressing Start at once otherwise held the first moves of the burst behind each
    start's Redis round trips."""
    with _writing(steps_outside_writer=True):
        room = _room_for_update(room_code)
        if seat is not None and seat != live.host_seat(room_code):
            raise ServiceError("not_host", _("Only the host can start the game."))
        game = _current_game(room, lock=True)
        if game.status != Game.Status.LOBBY:
            raise ServiceError("game_started", _("This game has already started."))
        seats = list(room.seats.order_by("index"))
        for row in seats:
            if not row.is_taken:
                row.is_bot = True
                row.bot_level = "strong"
                row.name = ""
                row.save(update_fields=["is_bot", "bot_level", "name"])
        spec = registry.get(room.game)
        game.players = [{"name": row.name, "bot": row.is_bot} for row in seats]
        game.client_seeds = {k: v for k, v in game.client_seeds.items() if not seats[int(k)].is_bot}
        game.state = spec.engine.setup(len(seats), game.options, _rng(game))
        game.status = Game.Status.PLAYING
        game.started_at = timezone.now()
        game.seq = 0
        game.prompts = {}
        # The seats a bot plays are those just read under the room's lock, which a start and a stand-in
        # (fire_grace) take: no read of their own after the commit. A player back meanwhile (seat_connected)
        # makes any bot turn scheduled for their seat drop itself when it runs (play_bot_turn looks again).
        game.seats_bots_play = frozenset(row.index for row in seats if row.is_bot or row.stand_in)
        after = _advance(game, spec, previous_to_act=[], acted=None, covered=game.seats_bots_play)
        game.save()
        _touch(room)
        # Both updates from the rows as written here, not read again after the commit: the game just
        # started is the room's latest, so the room has no next game yet.
        transaction.on_commit(broadcast.prepare_room_update(room, seats, upcoming=None))
        update = broadcast.prepare_game_update(game, [{"type": "start"}], mover=mover)
        transaction.on_commit(_update_then_timers(update, after))
        absent_humans = [row.index for row in seats if not row.is_bot]
        transaction.on_commit(lambda: _schedule_grace_if_absent(room.code, absent_humans))
        if games_in_play is not None:
            code = room.code
            transaction.on_commit(lambda: games_in_play.__setitem__(code, game))
        return game


def _update_then_timers(update, after):
    """A write's update and then its timers, in one round trip to Redis with the position's mark (live.joined),
    as a move sends them; the timers even if the update failed."""
    def send():
        with live.joined():
            try:
                update()
            finally:
                after()

    return send


def play_again(*, room_code: str, seat: int, mover: str | None = None, games_in_play: dict | None = None) -> Game:
    """The next game in the same room: it waits in the lobby, with its fingerprint published, from
    the moment the previous one ended; every seat is kept."""
    return start_game(room_code=room_code, seat=seat, mover=mover, games_in_play=games_in_play)


# --- moves ------------------------------------------------------------------------------------

def _pending(game: Game, spec) -> list[int]:
    if game.status != Game.Status.PLAYING:
        return []
    return list(spec.engine.to_act(game.state))


@dataclass
class _BotTurns:
    """The decisions a write posed, for _schedule_bots after its commit. `covered`: the seats a bot plays, if
    the write had them at hand (a start's seats, read under the room's lock, or the game in memory's) or read
    them in its own transaction (a remembered move's pipeline on PostgreSQL); None: they are read after the
    commit."""

    game_id: int
    turns: list[tuple[int, int]]
    showing: float
    covered: set[int] | None = None


def _advance(game: Game, spec, *, previous_to_act: list[int], acted: int | None, events=(),
             covered: set[int] | None = None, posed_for_bots: list | None = None):
    """Update prompts and the countdown after the state changed (by a move with these events); returns
    what to do after commit. `covered`: the seats a bot plays, if at hand. `posed_for_bots`: a list that gets
    the _BotTurns of any decision posed, so the write can read the bots' seats with it."""
    now_acting = _pending(game, spec)
    prompts = {k: v for k, v in game.prompts.items() if int(k) in now_acting}
    posed = []
    for seat in now_acting:
        if seat not in previous_to_act or seat == acted or str(seat) not in prompts:
            prompts[str(seat)] = game.seq
            posed.append(seat)
    new_prompt = bool(posed)
    game.prompts = prompts
    # The countdown this replaces leaves the index too: fired, it would only be dropped, and a worker
    # firing hundreds of dead countdowns a minute slowed every live move behind them.
    superseded = f"turn:{game.pk}:{game.deadline_seq}" if game.deadline_at is not None else None
    outcome = spec.engine.outcome(game.state)
    if outcome is not None:
        game.status = Game.Status.FINISHED
        game.result = outcome
        game.ended_at = timezone.now()
        game.deadline_at = None
        game.deadline_seq = None
        game.paused_remaining = None
        clocks.settle(game, time.time())

        def after_the_last(played_for=None):
            if superseded or played_for:
                live.replace(superseded, played_for=played_for)

        return after_the_last
    countdown = dropped = None
    timed = spec.timed(game.state)
    showing = spec.showing_seconds(events) if spec.showing_seconds else 0.0
    if new_prompt and not game.is_paused:
        if timed:
            seconds = spec.countdown_seconds(game.options, events)
            game.deadline_at = timezone.now() + timedelta(seconds=seconds)
            game.deadline_seq = game.seq
            countdown = (f"turn:{game.pk}:{game.seq}", game.deadline_at.timestamp())
        else:  # a decision with no countdown (a chooser's "Start the game"): the next one starts the clock
            game.deadline_at = None
            game.deadline_seq = None
            dropped = superseded
    if not game.is_paused:
        clocks.restart(game, now_acting if timed else [], time.time())
    # Only newly posed decisions: older ones were scheduled when posed (a seat handed to a stand-in
    # later is scheduled by fire_grace, and the worker's rebuild catches anything lost).
    bot_turns = [] if game.is_paused else [(seat, game.seq) for seat in posed]
    game_id = game.pk
    bots = _BotTurns(game_id, bot_turns, showing, covered)
    if bot_turns and posed_for_bots is not None:
        posed_for_bots.append(bots)

    def after_commit(played_for=None):
        """`played_for`: the move's note for live.note_played_for, sent with the timers in one round trip."""
        try:
            if countdown:
                live.replace(superseded, *countdown, played_for=played_for)
            elif dropped or played_for:
                live.replace(dropped, played_for=played_for)
        finally:  # the bots' turns too, if the countdown could not be set
            try:
                live.flush()  # a move's update and timers (live.joined) leave before the bots' seats are read
            finally:
                read = _schedule_bots(game_id, bot_turns, showing, covered=bots.covered)
                if read is not None and game.seats_bots_play is None:
                    # Read after this commit: true of the game as written (a stand-in since raised its version),
                    # so a memory of it (a locked move's, SQLite's) need not read them for its next decisions.
                    game.seats_bots_play = frozenset(read)

    return after_commit


def _bot_delay(showing: float = 0.0) -> float:
    """How long after now a bot plays a decision posed by a move the table shows for `showing` seconds."""
    waits = settings.WICKWISE.get("BOT_WAITS_FOR_TABLE", True)
    return (showing if waits else 0.0) + settings.WICKWISE["BOT_DELAY_SECONDS"]


def _schedule_bots(game_id: int, turns: list[tuple[int, int]], showing: float = 0.0, *,
                   covered: set[int] | None = None) -> set[int] | None:
    """Ask the worker to play any pending decision whose seat is a bot or covered by one: once the table
    has shown the move that posed it (`showing` seconds: a reveal, a throw, cards dealt), and a short beat
    after, so people can follow a bot's turn without waiting on it. `covered`: those seats, if the write
    that posed the decisions had them (read in its transaction); else they are read now, and returned."""
    if not turns:
        return None
    read = None
    if covered is None:
        covered = read = {index for (index,) in _SEATS_A_BOT_PLAYS.values(game_id)}
    delay = _bot_delay(showing)
    for seat, prompt in turns:
        if seat in covered:
            live.schedule(f"bot:{game_id}:{seat}:{prompt}", time.time() + delay)
    return read


def submit_move(*, room_code: str, seat: int, seq, action, by: str = Move.By.PLAYER, mover: str | None = None,
                games_in_play: dict | None = None) -> Game:
    """Apply one decision. The move names the seq it answers: at least the seq at which this seat's
    decision was posed and at most the current one; anything else is stale or bogus. `mover` names the
    socket's move in the update it makes (rooms/move_queue.py).

    `games_in_play`: a worker's memory of the games its thread played last, by room code. A game found
    there is played without the locked reads, and written only where its row's version is still the one
    remembered; any doubt (another writer came first, a refusal, a game ending, the room's activity due)
    plays the move the usual way, under the room's lock.

    On SQLite a move lets the next writer in once it has committed: what follows its commit (the update,
    built before it, and the timers) writes nothing, and runs in commit order (`_writing`)."""
    check_seq(seq)
    code = codes.normalize(room_code)
    if games_in_play is not None:
        remembered = games_in_play.pop(code, None)
        if remembered is not None and not connection.in_atomic_block:
            try:
                game = _apply_remembered(remembered, seat=seat, seq=seq, action=action, by=by, mover=mover,
                                         remember=lambda played: games_in_play.__setitem__(code, played))
            except _NotRemembered:
                pass
            else:
                return game
    try:
        with _writing(steps_outside_writer=True):
            room = _room_for_update(room_code)
            game = _current_game(room, lock=True)
            _apply_locked(room, game, seat=seat, seq=seq, action=action, by=by, mover=mover)
            _remember_after_commit(games_in_play, code, game)
            return game
    except ServiceError:
        if games_in_play is not None:
            games_in_play.pop(code, None)
        raise


def submit_queued_moves(*, room_code: str, moves: list, games_in_play: dict) -> tuple[int, tuple | None]:
    """A room's moves queued one behind another, played together on the game this thread remembers (see
    submit_move): each checked, applied and its update built in memory, in order, and given its last look;
    then one write (the game's row once, where its version is still the one remembered, and every move's
    row) and one commit; then each move's steps after the commit, in order. Each update is the one the move
    played alone would send. Each of `moves` has `seat`, `seq`, `action` and `mover`, and is called at three
    points: `checked()` once it has passed its checks (the worker sends its claim then), `last_look()` just
    before the write (it raises to keep the move out: the worker's claim failed), and `written()` after the
    commit, just before its own steps. On SQLite `last_look()` is called again under the writer lock.

    Returns how many of `moves`, from the first, were written, and the last look that cut them short (the
    index of its move, never written, and the error it raised), or None. They stop, with no error, before
    the first move that needs more than memory (a refusal, which the locked way words, the game's last move,
    the room's activity due). Nothing is written when the game is not remembered or another writer came
    first (the game is then forgotten: its version moved); with no write tried, it stays remembered. The
    moves not written, but for the one refused, are the caller's to play."""
    code = codes.normalize(room_code)
    remembered = games_in_play.pop(code, None)
    if remembered is None or _db().in_atomic_block:
        return 0, None
    game, rows, steps, bots, cut_by = remembered, [], [], [], None
    for move in moves:
        posed: list[_BotTurns] = []
        try:
            check_seq(move.seq)
            game_after, row, its_steps = _played_in_memory(game, seat=move.seat, seq=move.seq, action=move.action,
                                                           by=Move.By.PLAYER, mover=move.mover, checked=move.checked,
                                                           posed_for_bots=posed)
        except (ServiceError, _NotRemembered):
            break
        try:
            move.last_look()
        except Exception as error:  # noqa: BLE001 - the caller's to tell, as for a move played alone
            cut_by = error
            break
        game = game_after
        rows.append(row)
        steps.append([move.written, *its_steps])
        bots += posed
    refused = (len(rows), cut_by) if cut_by is not None else None
    if not rows:  # no write tried: the game stands as remembered, for the move played the usual way next
        games_in_play[code] = remembered
        return 0, refused
    last_looks = [move.last_look for move in moves[:len(rows)]] if _db().vendor == "sqlite" else ()
    written, cut_at_commit = _written_where_version(game, rows, remembered.version, steps, last_looks, bots=bots)
    if written:
        games_in_play[code] = rows[written - 1].game
    if cut_at_commit is not None:
        return written, (written, cut_at_commit)
    return written, refused


def _remember_after_commit(games_in_play: dict | None, code: str, game: Game) -> None:
    """What the locked way commits is remembered for the room's next move (submit_move), unless the game ended:
    the next game is created under the room's lock."""
    if games_in_play is not None and not game.is_over:
        transaction.on_commit(lambda: games_in_play.__setitem__(code, game))


class _NotRemembered(Exception):
    """The game remembered is not one to play this move on without the lock: play it the usual way."""


def check_seq(seq) -> None:
    """The one check of a move that needs no database, so a socket can refuse a bogus move at once."""
    if type(seq) is not int or seq < 0:
        raise ServiceError("bad_seq", _("A move must name the seq it answers."))


# Refusal codes every engine uses; a game words its own in its spec. The engine's English message is the
# last resort, for a code nobody has worded yet.
_COMMON_REFUSALS = {
    "game_over": _lazy("the game is over"),
    "no_such_seat": _lazy("there is no such seat"),
    "not_your_turn": _lazy("it is not your turn"),
    "bad_action": _lazy("the move is not a valid action"),
}


def refusal_text(spec, error: IllegalAction) -> str:
    return str(spec.refusals.get(error.code) or _COMMON_REFUSALS.get(error.code) or error.message)


def _checked(game: Game, *, seat: int, seq: int, action, by: str):
    """Every check of a move against its game, and the engine's answer: (spec, seats that were to act, the
    new state, the events). Raises ServiceError for a refusal; changes nothing."""
    if game.status != Game.Status.PLAYING:
        raise ServiceError("not_playing", _("There is no game in play."))
    spec = registry.get(game.game)
    if game.is_paused and not spec.allowed_while_paused(action):
        raise ServiceError("paused", _("The game is paused."))
    acting = _pending(game, spec)
    if seq > game.seq:
        raise ServiceError(
            "future_seq", _("That move names a position the game has not reached; here is the current one."))
    if seat in acting:
        if seq < game.prompts.get(str(seat), 0):
            raise ServiceError("stale_seq", _("That move answers an old position; here is the current one."))
    elif not spec.out_of_turn(action):  # a seat not to act (resigning, say) may send any seq it has seen
        if seq < game.seq:
            # Also a move sent twice: the first answered that position, which has moved on since.
            raise ServiceError("stale_seq", _("That move answers an old position; here is the current one."))
        raise ServiceError("not_your_turn", _("It is not your turn to decide."))
    if by == Move.By.PLAYER and spec.drafts and isinstance(action, dict) and (
            action.get("type") in spec.undo_draft_before):
        _refuse_while_draft_changed(game, spec, seat)
    try:
        state, events = spec.engine.apply(game.state, seat, action, _rng(game))
    except IllegalAction as error:
        raise ServiceError(f"illegal:{error.code}", _("That move is not allowed: %(reason)s") % {
            "reason": refusal_text(spec, error)}, getattr(error, "details", None)) from None
    return spec, acting, state, events


def _apply_locked(room: Room, game: Game, *, seat: int, seq: int, action, by: str, mover: str | None = None) -> None:
    spec, acting, state, events = _checked(game, seat=seat, seq=seq, action=action, by=by)
    _move_checked()
    game.state = state
    game.seq += 1
    game.version += 1
    _INSERT_MOVE.run(Move(game=game, seq=game.seq, seat=seat, action=action, by=by))
    after = _advance(game, spec, previous_to_act=acting, acted=seat, events=events)
    _SAVE_WHAT_A_MOVE_CHANGES.run(game)
    _touch(room, every_move=True)
    _after_move(game, spec, seat=seat, by=by, events=events, after=after, mover=mover)
    if game.is_over:
        # The room's update from the room this move locked and the game it opens, with its mark, presence and
        # host in one Redis round trip after the commit: reading the room and its next game back again (two
        # queries, three round trips) cost the worker about as much as a start (docs/benchmarks.md).
        transaction.on_commit(broadcast.prepare_room_update(room, None, upcoming=_new_game(room)))


def _apply_remembered(remembered: Game, *, seat: int, seq: int, action, by: str, mover: str | None,
                      remember) -> Game:
    """A move on a game as this thread last committed it, with no read: checked, applied and its update
    built in memory, then written only where the game's row still has the version remembered. On
    PostgreSQL that is one statement, its own transaction, with the last look (`checked_before_commit`)
    just before it; on SQLite, the fenced update and the move's insert, the writer lock covering only them
    and the commit. Raises _NotRemembered, having written nothing, when the version has moved or the move
    needs more than that (a refusal, which the locked path words from the database, a game ending, the
    room's activity due). Returns the game as written, handed to `remember` first, after its commit.

    The last look (the worker's claim of the request) comes before the write on both: on SQLite, outside the
    writer lock, and again at the commit, where a request claimed already has only its deadline checked."""
    bots: list[_BotTurns] = []
    game, move, steps = _played_in_memory(remembered, seat=seat, seq=seq, action=action, by=by, mover=mover,
                                          checked=_move_checked, posed_for_bots=bots)
    last_look = _last_look.get()
    if last_look is not None:
        # The claim, before the write: a refusal here leaves nothing written. On SQLite it comes before the
        # writer lock, and the look again just before COMMIT finds it claimed and checks only the deadline:
        # no round trip to Redis while every writer of the process waits.
        last_look()
    if not _written_where_version(game, [move], remembered.version, [[lambda: remember(game), *steps]],
                                  bots=bots)[0]:
        raise _NotRemembered  # another writer came first: nothing was written
    return game


def _played_in_memory(remembered: Game, *, seat: int, seq: int, action, by: str, mover: str | None, checked,
                      posed_for_bots: list | None = None):
    """A move on a game in memory: checked, applied, `checked()` called, its update built. Returns the game as
    the move leaves it (a copy: `remembered` stays as it was), the move's row and the steps after its commit;
    `posed_for_bots` gets the _BotTurns of any decision it posed (_advance).
    Raises _NotRemembered when the move needs more than memory (a refusal, which the locked path words from
    the database, a game ending, the room's activity due)."""
    game = copy.copy(remembered)
    try:
        spec, acting, state, events = _checked(game, seat=seat, seq=seq, action=action, by=by)
    except ServiceError:
        raise _NotRemembered from None
    if timezone.now() - game.room.last_activity_at >= _TOUCH_EVERY:
        raise _NotRemembered
    game.state = state
    game.seq += 1
    game.version += 1
    after = _advance(game, spec, previous_to_act=acting, acted=seat, events=events, covered=game.seats_bots_play,
                     posed_for_bots=posed_for_bots)
    if game.is_over:  # a new game for the room: under the room's lock
        raise _NotRemembered
    move = Move(game=game, seq=game.seq, seat=seat, action=action, by=by)
    checked()
    steps: list = []
    # The update is built before the write (built for nothing if another writer came first, which is rare).
    _after_move(game, spec, seat=seat, by=by, events=events, after=after, mover=mover, on_commit=steps.append)
    return game, move, steps


def _written_where_version(game: Game, moves: list[Move], read_version: int, steps: list[list],
                           last_looks=(), *, bots=()) -> tuple[int, Exception | None]:
    """Write the game as it stands where its row still has `read_version`, and `moves`, in one transaction;
    then each move's `steps`, in order. On SQLite each of `last_looks` (one a move, or none) is called under
    the writer lock, just before the writes: a ServiceError there cuts the moves before that one, and the game
    is written as the last move kept left it (each move's row holds its game). Returns how many moves were
    written (0 if another writer came first: nothing was), and the error that cut them, or None. `bots`: the
    moves' _BotTurns; on PostgreSQL the bots' seats are read in the write's round trip (on SQLite a read is
    a call in the process, made after the commit as before)."""
    db = _db()
    if db.vendor == "postgresql":
        if not _MOVE_WHERE_VERSION.run(game, moves, read_version, bots):
            return 0, None
        trace.mark("committed")
        _run_each(step for each in steps for step in each)
        return len(moves), None
    # SQLite: its transaction takes the database's one writer, so the fenced update and the inserts after it
    # cannot be split by another writer, of this process or another; the last look again just before COMMIT.
    # Their values (the JSON columns encoded, the move's time stamped) are prepared first: every writer of the
    # process waits while this one holds the lock, so it covers the statements, the last looks and the commit
    # alone.
    game_values = _SAVE_WHERE_VERSION.prepared(game, version=read_version)
    move_values = [_INSERT_MOVE.prepared(move) for move in moves]
    kept, cut_by = len(moves), None
    with _writing(steps_outside_writer=True):
        for index, last_look in enumerate(last_looks):
            try:
                last_look()
            except ServiceError as error:
                kept, cut_by = index, error
                break
        if kept == 0:
            return 0, cut_by
        if kept < len(moves):  # rare (a request's deadline passed while the writer lock was awaited)
            game_values = _SAVE_WHERE_VERSION.prepared(moves[kept - 1].game, version=read_version)
        if not _SAVE_WHERE_VERSION.run_prepared(game_values):
            return 0, None  # another writer came first: rolled back, nothing written
        for values in move_values[:kept]:
            _INSERT_MOVE.run_prepared(values)
        for step in (step for each in steps[:kept] for step in each):
            db.on_commit(step)  # transaction.on_commit(step), without looking the connection up again
    return kept, cut_by


def _after_move(game: Game, spec, *, seat: int, by: str, events, after, mover: str | None,
                on_commit=transaction.on_commit) -> None:
    """What a move leaves for after its commit (`on_commit`): the update, the timers, the drafts."""
    if by in (Move.By.STAND_IN, Move.By.TABLE):
        # The player was away or out of time: their table says who decided for them, now or on return.
        events = [*events, {"type": "played_for", "seat": seat, "by": by, "only": seat}]
    # The update first: the players wait on it. Then the timers and who decided. The position's mark, the
    # update and the timers go in one round trip to Redis (live.joined), the worker's clearing of the
    # request with them.
    update = broadcast.prepare_game_update(game, events, mover=mover)
    played_for = (game.pk, seat, None if by == Move.By.PLAYER else by) if by != Move.By.BOT else None
    on_commit(_update_then_timers(update, lambda: after(played_for=played_for)))
    if spec.drafts:
        _discard_ended_draft(game, on_commit)


def _refuse_while_draft_changed(game: Game, spec, seat: int) -> None:
    """Some actions (tiles: draw) need the table as the turn found it: the player undoes its changes first.
    The table's choice on timeout is not refused: the move discards the draft."""
    from rooms import drafts

    kept = drafts.kept(game)
    if kept is not None and kept["seat"] == seat and not spec.draft_unchanged(game.state, kept["draft"]):
        raise ServiceError("undo_draft_first", _("Undo your changes first: this move needs the position as your "
                                                 "turn found it."))


def _discard_ended_draft(game: Game, on_commit=transaction.on_commit) -> None:
    """After the commit, the draft goes unless the decision it was made for is still pending."""
    from rooms import drafts

    game_id, prompts = game.pk, dict(game.prompts) if not game.is_over else {}
    on_commit(lambda: drafts.discard_stale(game_id, prompts))


def fire_countdown(*, game_id: int, seq: int, games_in_play: dict | None = None) -> int:
    """The table decides for every seat still pending on the countdown posed at `seq`.
    Drops it when the game moved on to another countdown, is paused, or the deadline was moved.

    `games_in_play`: the worker's memory (submit_move). What the table's choices commit is remembered there, so
    that the room's next move is written on it; left out, that move found the version moved, built its update
    for nothing and went the locked way."""
    played = 0
    room_id = Game.objects.filter(pk=game_id).values_list("room_id", flat=True).first()
    if room_id is None:
        return 0
    with _writing():
        room = Room.objects.select_for_update().filter(pk=room_id).first()  # the room first, as every writer does
        game = Game.objects.select_for_update().filter(pk=game_id).first()
        if room is None or game is None or game.status != Game.Status.PLAYING or game.is_paused:
            return 0
        if game.deadline_seq != seq or game.deadline_at is None:
            return 0
        if game.deadline_at > timezone.now() + timedelta(milliseconds=50):
            # Fired early (the index was rebuilt with an older score): put it back.
            deadline = game.deadline_at.timestamp()
            transaction.on_commit(lambda: live.schedule(f"turn:{game_id}:{seq}", deadline))
            return 0
        spec = registry.get(game.game)
        for seat in _pending(game, spec):
            if seat not in _pending(game, spec) or game.prompts.get(str(seat), -1) > seq:
                continue  # decided meanwhile, or a new decision with a countdown of its own
            action = spec.engine.table_choice(game.state, seat)
            _apply_locked(room, game, seat=seat, seq=game.seq, action=action, by=Move.By.TABLE)
            played += 1
        if played:
            game.room = room  # as a game remembered by the locked way has it (_current_game)
            _remember_after_commit(games_in_play, room.code, game)
    return played


def play_bot_turn(*, game_id: int, seat: int, prompt: int, choose, steps=None, step_seconds: float = 0.0,
                  games_in_play: dict | None = None) -> bool:
    """Play a bot's (or a stand-in's) pending decision. The bot sees only its seat's view; it thinks
    outside the lock, and the move is dropped if the position moved on meanwhile. `steps(game, view, action)`,
    when given, returns drafts to show first, `step_seconds` apart: a pause or the decision moving on stops
    the showing, and the turn (scheduled again on resume) decides anew.

    `games_in_play`: the worker's memory of the games its threads played last, by room code (submit_move).
    A bot's move is then played on the game found there, as a player's is, and the game it writes is
    remembered: a move of the locked way raises the version, so the room's next move, a player's, found its
    memory stale, built its update for nothing and went the locked way too."""
    game = _GAME_BY_ID.first(game_id)
    if game is None or game.room_id is None or game.status != Game.Status.PLAYING or game.is_paused:
        log.info("bot turn %s/%s/%s dropped: no game in play", game_id, seat, prompt)
        return False
    if game.prompts.get(str(seat)) != prompt:
        log.info("bot turn %s/%s/%s dropped: the decision moved on", game_id, seat, prompt)
        return False
    seat_row = _bot_seat(game.room_id, seat)
    if seat_row is None:  # a person's seat, or no such seat
        return False
    is_bot, bot_level = seat_row
    spec = registry.get(game.game)
    view = spec.engine.view(game.state, seat)
    action = choose(game.game, view, bot_level or "strong")
    if steps is not None and spec.drafts:
        shown = list(steps(game.game, view, action))
        # A long play is shown faster: the whole turn must end within the worker's lease on it (10 s).
        step_seconds = min(step_seconds, BOT_SHOWING_AT_MOST / (len(shown) + 1))
        for draft in shown:
            time.sleep(step_seconds)
            if not show_bot_draft(game_id=game_id, seat=seat, prompt=prompt, draft=draft):
                log.info("bot turn %s/%s/%s stopped while showing: paused or moved on", game_id, seat, prompt)
                return False
        time.sleep(step_seconds)
    by = Move.By.BOT if is_bot else Move.By.STAND_IN
    code = game.room_code
    if games_in_play is not None:
        played = _bot_move_remembered(games_in_play, code=code, game_id=game_id, seat=seat, prompt=prompt,
                                      action=action, by=by)
        if played is not None:
            return played
    try:
        with _writing():
            room = _room_for_update(code)
            locked = _current_game(room, lock=True)
            if locked.pk != game.pk or locked.prompts.get(str(seat)) != prompt:
                return False
            if _bot_seat(room.pk, seat) is None:
                return False
            _apply_locked(room, locked, seat=seat, seq=locked.seq, action=action, by=by)
            _remember_after_commit(games_in_play, code, locked)
    except ServiceError as error:
        log.warning("bot move for game %s seat %s refused: %s", game_id, seat, error.code)
        return False
    return True


def _bot_move_remembered(games_in_play: dict, *, code: str, game_id: int, seat: int, prompt: int, action,
                         by: str) -> bool | None:
    """A bot's move on the game the worker remembers for its room (play_bot_turn): True once written, False
    when the seat is no longer a bot's (nothing written), None to play it the locked way (no such memory,
    or one that cannot take it). A room's memory is used by one thread at a time: whichever of a move thread
    and the bots' threads takes it first; the others go the locked way, and the version keeps any write on a
    stale memory out."""
    remembered = games_in_play.pop(code, None)
    if remembered is None:
        return None
    if (remembered.pk != game_id or remembered.prompts.get(str(seat)) != prompt or remembered.is_paused
            or _db().in_atomic_block):
        games_in_play.setdefault(code, remembered)  # not this one's to use; a newer one set meanwhile stays
        return None
    # Whether the seat is still a bot's, read as the locked way reads it (its player may have come back while
    # the bot thought): a return committed after this read lets the move land, as it may on the locked way.
    if _bot_seat(remembered.room_id, seat) is None:
        games_in_play.setdefault(code, remembered)
        return False
    try:
        _apply_remembered(remembered, seat=seat, seq=remembered.seq, action=action, by=by, mover=None,
                          remember=lambda played: games_in_play.__setitem__(code, played))
    except _NotRemembered:
        return None
    return True


def show_bot_draft(*, game_id: int, seat: int, prompt: int, draft: dict) -> bool:
    """Keep and relay a bot's draft as a player's would be, if its decision (`prompt`) is still pending and
    the game not paused; False when it is not (nothing kept): the bot stops showing."""
    from rooms import drafts

    row = Game.objects.filter(pk=game_id).values("room__code", "status", "prompts", "paused_remaining", "seq").first()
    if (row is None or row["room__code"] is None or row["status"] != Game.Status.PLAYING
            or row["paused_remaining"] is not None or row["prompts"].get(str(seat)) != prompt):
        return False
    try:
        shown = drafts.accept(room_code=row["room__code"], seat=seat, seq=row["seq"], draft=draft)
    except ServiceError as error:  # paused or moved on since the read above, or a draft the engine refuses
        log.info("bot draft for game %s seat %s not shown: %s", game_id, seat, error.code)
        return False
    broadcast.relay_draft(row["room__code"], shown)
    return True


# --- presence, grace and stand-ins --------------------------------------------------------------

def _schedule_grace_if_absent(room_code: str, seats: list[int]) -> None:
    connected = live.connected_seats(room_code)
    absent = [seat for seat in seats if seat not in connected]
    if absent:  # every absent seat's timer in one round trip
        at = time.time() + settings.WICKWISE["GRACE_SECONDS"]
        live.schedule_many({f"grace:{room_code}:{seat}": at for seat in absent})


def seat_connected(*, room_code: str, seat: int, channel: str, most_sockets: int | None = None,
                   announce: bool = True) -> bool:
    """A socket takes its place on `seat`, unless the seat already holds `most_sockets` others (None: no
    limit): then nothing changes and it returns False. Without `announce`, the caller sends the room update (a
    socket's connect, with the snapshot it reads anyway)."""
    if not live.seat_back(room_code, seat, channel, most_sockets=most_sockets):
        return False
    # A seat with no stand-in takes no write (nor SQLite's writer lock), so a thousand pages coming back at
    # once do not queue for it. A stand-in committed after this look is fire_grace's to undo: it looks
    # for the player again after its commit.
    if Seat.objects.filter(room__code=room_code, index=seat, stand_in=True).exists():
        _end_stand_in(room_code, seat)
    if announce:
        broadcast.room_changed(room_code)
    return True


def _end_stand_in(room_code: str, seat: int) -> None:
    """The player takes over from the next decision; a bot move already claimed may still land."""
    with _writing():
        # of=("self",): the seat row alone. The join on the room would lock the room after the seat, the
        # reverse of every other writer's order (a deadlock with the expiry sweep on PostgreSQL).
        row = Seat.objects.select_for_update(of=("self",)).filter(room__code=room_code, index=seat).first()
        if row is not None and row.stand_in:
            row.stand_in = False
            row.save(update_fields=["stand_in"])


def seat_disconnected(*, room_code: str, seat: int, channel: str) -> None:
    live.presence_leave(room_code, seat, channel)
    if seat not in live.connected_seats(room_code):
        live.schedule(f"grace:{room_code}:{seat}", time.time() + settings.WICKWISE["GRACE_SECONDS"])
    broadcast.room_changed(room_code)


def fire_grace(*, room_code: str, seat: int) -> bool:
    """The grace period ran out: if the player is still away, a bot plays for the seat, and if they were
    the host, the role passes to a player who is there. Returns whether a bot now plays for the seat."""
    if seat in live.connected_seats(room_code):
        return False
    _pass_host_if_away(room_code, seat)
    with _writing():
        # The room first, as every writer does: locking the seat first deadlocked with the expiry sweep.
        room = Room.objects.select_for_update().filter(code=room_code).first()
        row = Seat.objects.select_for_update().filter(room=room, index=seat).first() if room else None
        if row is None or row.is_bot or row.stand_in or not row.return_code_hash:
            return False
        if seat in live.connected_seats(room_code):
            # Back meanwhile. seat_connected marks presence before it looks for a stand-in (without a
            # lock); a return that this look misses is caught by the look after the commit, below.
            return False
        # The game's row locked: a remembered move writing it meanwhile (without the room's lock) either
        # commits first, and its decisions are read here, or waits, and reads this stand-in after its write.
        game = _current_game(room, lock=True)
        if game.status != Game.Status.PLAYING:
            return False
        row.stand_in = True
        row.save(update_fields=["stand_in"])
        # The version raised: a worker's memory of the game, which may know the seats a bot plays without this
        # one, is not written to again (its next move goes the locked way, and reads them anew).
        game.save(update_fields=["version"])
        pending = game.prompts.get(str(seat))
        game_id = game.pk
        transaction.on_commit(lambda: broadcast.room_changed(room_code))
        if pending is not None:
            transaction.on_commit(lambda: _schedule_bots(game_id, [(seat, pending)]))
    # Back between the look above and the commit: seat_connected may have looked for a stand-in before
    # this one was committed, and found none.
    try:
        back = seat in live.connected_seats(room_code)
    except redis.RedisError:
        # Whether the player is back cannot be known: the seat is left to them rather than to a bot that
        # may be playing for someone who is there, and the grace period starts over (the index's rebuild
        # starts it, if Redis does not take it now).
        log.warning("room %s: could not look for seat %s's player after standing in; left to them",
                    room_code, seat, exc_info=True)
        back = True
        with contextlib.suppress(redis.RedisError):
            live.schedule(f"grace:{room_code}:{seat}", time.time() + settings.WICKWISE["GRACE_SECONDS"])
    if back:
        _end_stand_in(room_code, seat)
        broadcast.room_changed(room_code)
    return not back


def _pass_host_if_away(room_code: str, seat: int) -> None:
    """A host away past the grace period would stall the room (Start and Play again are theirs): the role
    passes to the first seat, by index, of a person who is connected. Nobody there: it stays."""
    if seat != live.host_seat(room_code):
        return
    connected = live.connected_seats(room_code)
    people = Seat.objects.filter(room__code=room_code, is_bot=False).exclude(return_code_hash="")
    heir = next((row.index for row in people.order_by("index") if row.index in connected), None)
    if heir is None or heir == seat:
        return
    live.pass_host(room_code, heir)
    broadcast.room_changed(room_code)


# --- pause, end, expiry -----------------------------------------------------------------------

def pause_game(*, game_id: int, seat: int | None = None) -> None:
    """Freeze the game: the countdown leaves the index and what was left is kept, with the live draft, in the
    database, so a pause survives every process and Redis restarting; the clocks stop. `seat`: a player
    pausing from the socket (the game must be pausable and the seat in play); None: the platform."""
    with _writing():
        room, game = _locked_room_and_game(game_id)
        if game.status != Game.Status.PLAYING or game.is_paused:
            raise ServiceError("cannot_pause", _("Only a game in play that is not paused can be paused."))
        spec = registry.get(game.game)
        if seat is not None:
            _check_may_pause(spec, game, seat)
        left = 0.0
        if game.deadline_at is not None:
            left = max(0.0, (game.deadline_at - timezone.now()).total_seconds())
            member = f"turn:{game.pk}:{game.deadline_seq}"
            transaction.on_commit(lambda: live.cancel(member))
        game.paused_remaining = left
        game.deadline_at = None
        game.paused_draft = None
        if spec.drafts:
            from rooms import drafts

            game.paused_draft = drafts.kept(game)
            transaction.on_commit(lambda: drafts.discard(game_id))
        clocks.settle(game, time.time())
        game.save(update_fields=["paused_remaining", "deadline_at", "paused_draft", "clocks"])
        event = {"type": "paused", "seat": seat}
        if spec.drafts:
            event["draft"] = drafts.public(game.paused_draft)
        transaction.on_commit(lambda: broadcast.game_changed(game_id, [event]))


def resume_game(*, game_id: int, seat: int | None = None) -> None:
    """The countdown gets a new deadline of now + what was left, the draft goes back to Redis, the clocks and
    the bots' pending turns start again. `seat`: a player resuming from the socket; None: the platform."""
    with _writing():
        room, game = _locked_room_and_game(game_id)
        if not game.is_paused:
            raise ServiceError("not_paused", _("The game is not paused."))
        spec = registry.get(game.game)
        if seat is not None:
            _check_may_pause(spec, game, seat)
        left = game.paused_remaining
        game.paused_remaining = None
        if game.deadline_seq is not None:
            game.deadline_at = timezone.now() + timedelta(seconds=left)
            member, at = f"turn:{game.pk}:{game.deadline_seq}", game.deadline_at.timestamp()
            transaction.on_commit(lambda: live.schedule(member, at))
        draft, game.paused_draft = game.paused_draft, None
        if spec.drafts and draft is not None:
            from rooms import drafts

            transaction.on_commit(lambda: drafts.restore(game_id, draft))
        pending = _pending(game, spec)
        clocks.restart(game, pending if spec.timed(game.state) else [], time.time())
        game.save(update_fields=["paused_remaining", "deadline_at", "paused_draft", "clocks"])
        turns = [(seat, game.prompts[str(seat)]) for seat in pending if str(seat) in game.prompts]
        transaction.on_commit(lambda: _schedule_bots(game_id, turns))
        event = {"type": "resumed", "seat": seat}
        if spec.drafts:
            event["draft"] = None if draft is None else {k: draft[k] for k in ("seat", "seq", "draft")}
        transaction.on_commit(lambda: broadcast.game_changed(game_id, [event]))


def pause_from_seat(*, room_code: str, seat: int) -> None:
    """A player's pause, sent on the room's socket."""
    pause_game(game_id=_current_game(_room_or_refuse(room_code)).pk, seat=seat)


def resume_from_seat(*, room_code: str, seat: int) -> None:
    resume_game(game_id=_current_game(_room_or_refuse(room_code)).pk, seat=seat)


def _room_or_refuse(room_code: str) -> Room:
    room = Room.objects.filter(code=codes.normalize(room_code)).first()
    if room is None:
        raise ServiceError("no_such_room", _("There is no room with that code."))
    return room


def _locked_room_and_game(game_id: int) -> tuple[Room | None, Game]:
    # The room first, as every writer does.
    room_id = Game.objects.filter(pk=game_id).values_list("room_id", flat=True).first()
    room = Room.objects.select_for_update().filter(pk=room_id).first() if room_id else None
    game = Game.objects.select_for_update().get(pk=game_id)
    return room, game


def _check_may_pause(spec, game: Game, seat: int) -> None:
    if not spec.pausable:
        raise ServiceError("not_pausable", _("This game cannot be paused."))
    if seat not in spec.in_play(game.state):
        raise ServiceError("not_in_play", _("Only a player still in the game can pause or resume it."))


def end_game(*, game_id: int, reason: str) -> None:
    """End a game early (an admin, or the room expiring); the seed is revealed all the same."""
    room_id = Game.objects.filter(pk=game_id).values_list("room_id", flat=True).first()
    with _writing():
        room = Room.objects.select_for_update().filter(pk=room_id).first() if room_id else None
        game = Game.objects.select_for_update().get(pk=game_id)
        if game.is_over:
            return
        game.status = Game.Status.ENDED
        game.end_reason = reason
        game.ended_at = timezone.now()
        game.deadline_at = None
        game.paused_remaining = None
        game.save()
        if room is not None:
            # Even a game ended in the lobby needs a successor there, or the room could never start again.
            _new_game(room)
        transaction.on_commit(lambda: broadcast.game_changed(game_id, [{"type": "ended", "reason": reason}]))
        if room is not None:
            transaction.on_commit(lambda: broadcast.room_changed(room.code))


def expire_room(*, room_code: str, now=None) -> bool:
    """Delete a room idle for the room lifetime; its games keep their public records."""
    now = now or timezone.now()
    with _writing():
        room = Room.objects.select_for_update().filter(code=room_code).first()
        if room is None:
            return False
        if _expiry_time(room) > now.timestamp():
            expires = _expiry_time(room)
            transaction.on_commit(lambda: live.touch_expiry(room_code, expires))
            return False
        for game in Game.objects.select_for_update().filter(room=room):
            if game.status == Game.Status.LOBBY:
                game.delete()  # never dealt: there is nothing to verify, and its seed was never used
                continue
            if not game.is_over:
                game.status = Game.Status.ENDED
                game.end_reason = "expired"
                game.ended_at = now
                game.deadline_at = None
                game.paused_remaining = None
            game.room = None
            game.save()
        room.delete()
        transaction.on_commit(lambda: live.flush_room(room_code))
    return True


_REBUILT_AT_ONCE = 500  # rooms, and games in play, whose reads and writes the index's rebuild sends together


def rebuild_live_index() -> dict:
    """Put every deadline, bot turn and room expiry back into Redis from the database. The worker runs it when
    it starts and every minute, beside the moves: so it reads and writes by the batch (_REBUILT_AT_ONCE): a few
    queries and round trips for each, where one room or game in play cost a query or a round trip or two each
    (a third of a second of the worker's CPU with 250 games in play, in the middle of their moves:
    docs/benchmarks.md)."""
    counts = {"countdowns": 0, "bots": 0, "rooms": 0}
    for rooms in _in_batches(Room.objects.all().iterator()):
        live.touch_expiry_many({room.code: _expiry_time(room) for room in rooms})
        counts["rooms"] += len(rooms)
    playing = Game.objects.filter(status=Game.Status.PLAYING, room__isnull=False)
    for games in _in_batches(playing.iterator()):
        _rebuild_games(games, counts)
    return counts


def _in_batches(rows):
    """The rows in lists of _REBUILT_AT_ONCE, the last one shorter; none for no rows."""
    batch = []
    for row in rows:
        batch.append(row)
        if len(batch) == _REBUILT_AT_ONCE:
            yield batch
            batch = []
    if batch:
        yield batch


def _rebuild_games(games: list[Game], counts: dict) -> None:
    """rebuild_live_index for these games in play: their countdowns, their bots' turns (as _schedule_bots
    schedules them) and a grace period for each person's seat with no socket open that has none."""
    bot_seats: dict[int, set[int]] = {}
    # No ordering: Seat's default would join the rooms only to sort.
    bots = Seat.objects.filter(_BOT_OR_STAND_IN, room__games__in=[game.pk for game in games]).order_by()
    for game_id, index in bots.values_list("room__games", "index"):
        bot_seats.setdefault(game_id, set()).add(index)
    people: dict[int, list[int]] = {}
    humans = Seat.objects.filter(room__in={game.room_id for game in games}, is_bot=False, stand_in=False).exclude(
        return_code_hash="").order_by()
    for room_id, index in humans.values_list("room_id", "index"):
        people.setdefault(room_id, []).append(index)
    connected = live.connected_seats_of([game.room_code for game in games])
    timers, graces = {}, {}
    now = time.time()
    bot_at = now + _bot_delay()  # as _schedule_bots with nothing shown
    grace_at = now + settings.WICKWISE["GRACE_SECONDS"]
    for game, present in zip(games, connected):
        if game.deadline_at is not None and game.deadline_seq is not None and not game.is_paused:
            timers[f"turn:{game.pk}:{game.deadline_seq}"] = game.deadline_at.timestamp()
            counts["countdowns"] += 1
        if not game.is_paused:
            turns = [(int(seat), prompt) for seat, prompt in game.prompts.items()]
            covered = bot_seats.get(game.pk, set())
            timers.update({f"bot:{game.pk}:{seat}:{prompt}": bot_at for seat, prompt in turns if seat in covered})
            counts["bots"] += len(turns)
        # Absent players whose grace timer was lost with Redis get a new one.
        for index in people.get(game.room_id, []):
            if index not in present:
                graces[f"grace:{game.room_code}:{index}"] = grace_at
    live.schedule_many(timers)
    live.schedule_many(graces, keep_existing=True)


def link_remembered_seats(*, session, user) -> int:
    """After sign-up or log-in, seats this browser holds as a guest join the account's My games."""
    from rooms.identity import SESSION_KEY

    linked = 0
    for code, claim in session.get(SESSION_KEY, {}).items():
        linked += Seat.objects.filter(
            room__code=code, index=claim[0], return_code_hash=claim[1], user__isnull=True
        ).update(user=user)
    return linked
