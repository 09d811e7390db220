"""The execution registry's PostgreSQL storage: one server shared by the service instances of many
hosts, through psycopg 3 (the `postgres` extra: ``pip install '.[postgres]'`` from a checkout).

The registry lives in four tables of the connection's current schema (the first existing schema
of its search_path; a URL may choose one with ``?options=-csearch_path%3Dmyschema``, and a
mixed-case one with ``?options=-csearch_path%3D%22Prod%22``): ``fastjcs_registry_version`` (one
row: the format version), ``fastjcs_reservations``, ``fastjcs_reservation_events`` (the audit
trail) and ``fastjcs_refused_admissions`` (the refusals, coalesced). Their statements and the
schema check are `_pg_schema`'s; passwords are masked by `_pg_redact`; errors and the client-side
deadline are `_pg_connection`'s. The schema is found once, when the registry is opened, and every statement names it,
quoted. Opening checks the tables as SQLite's side does: their columns and types, their primary
key and foreign key, and refuses a schema that differs, naming what differs. Every change runs in
one READ COMMITTED transaction on one connection:

- a reservation is ``INSERT ... ON CONFLICT DO NOTHING``: the primary key decides, on the server,
  which of several racing clients on any host reserves a key; a loser waits for the winner's
  transaction to end and then reads the winner's row;
- finalize and recover lock the rows they change (``SELECT ... FOR UPDATE``);
- the audit event is written in the same transaction as the change it records.

Connections come from a small pool shared by the threads of one process: a call takes an idle
connection (or opens one, at most `pool_size` at once) and gives it back afterwards unless it
broke. A connection lost to a server restart is dropped, so the call that met it raises
RegistryStorageError and the next call connects again.

Every call ends within its timeout: the server cancels a statement or a lock wait past it
(statement_timeout, lock_timeout), the connection attempt gives up (connect_timeout), TCP
keepalives notice a silent peer, and a client-side deadline shuts the connection's socket when the
server does not answer at all (a stopped or hung server, whose kernel still acknowledges packets).
The error then says whether the change may have been recorded: only a failure while committing
leaves that unknown.

The URL's password (its userinfo, a ``password=`` parameter, percent-encoded or not, in a URL
libpq cannot parse) never appears in a message, in `path`, or in the text of a chained exception.
"""

from __future__ import annotations

import contextlib
import math
import threading
import time
from collections.abc import Iterator
from typing import Any

from ._pg_connection import _OUTCOME, COMMIT, CONNECT, READ, STATEMENTS, _Alarm, _one_line, _pg_error, _Watchdog
from ._pg_redact import Redactor
from ._pg_schema import (
    _APPLICATION,
    _COALESCE_V2,
    _CREATE_LOCK,
    _EVENTS,
    _FORMAT_VERSION,
    _KEEPALIVES,
    _REFUSALS,
    _REFUSALS_SCHEMA,
    _REFUSALS_V2,
    _SCHEMA,
    _TABLE,
    _VERSION_TABLE,
    differences,
)
from ._statements import Statements
from .errors import (
    RegistryClosedError,
    RegistryError,
    RegistryExistsError,
    RegistryFormatError,
    RegistryNotFoundError,
    RegistryStorageError,
)

try:
    import psycopg
    from psycopg import sql as _pgsql
    from psycopg.conninfo import conninfo_to_dict as _conninfo_to_dict
except ImportError:  # pragma: no cover - depends on the installation
    psycopg = None

# ---------------------------------------------------------------------------------------------------
# The store
# ---------------------------------------------------------------------------------------------------


class PostgresStore:
    """A pool of connections to the registry in one PostgreSQL database and schema."""

    kind = "postgresql"

    def __init__(self, url: str, timeout: float, pool_size: int, *, mode: str) -> None:
        """Connect to the registry at `url` and check its format ("open"); or make it first
        ("create"), or bring an older format to this one ("migrate")."""
        self.redact = Redactor(url)
        self.path = self.redact(url)
        self.where = f"execution registry {self.path!r}"
        if psycopg is None:
            raise RegistryError(
                f"{self.where}: PostgreSQL storage needs psycopg 3: the postgres extra, "
                "pip install '.[postgres]' from a fastjcs checkout"
            )
        if not isinstance(pool_size, int) or isinstance(pool_size, bool) or pool_size < 1:
            raise ValueError(f"pool_size must be an int of at least 1, not {pool_size!r}")
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout < 1e6:
            raise ValueError(f"timeout must be a number of seconds above 0 (and below 1e6), not {timeout!r}")
        try:
            params = _conninfo_to_dict(url)
        except psycopg.Error as exc:
            self.redact.scrub(exc)
            raise RegistryError(f"{self.where} is not a valid PostgreSQL URL ({_one_line(exc)})") from None
        self._url, self.timeout = url, float(timeout)
        self._options = {k: v for k, v in _KEEPALIVES.items() if k not in params}
        self._idle: list[Any] = []
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(pool_size)
        self._watchdog = _Watchdog()
        self._closed = False
        self.names: dict[str, str] = {}
        #: The format version the registry had when it was opened (this one's, after "create").
        self.found_version = _FORMAT_VERSION
        try:
            with self.transaction(write=mode != "open") as tx:
                if mode == "create":
                    self._create(tx.conn)
                else:
                    # A migration holds the schema lock until it commits: a second one waits and
                    # finds the format it left (nothing to do), an opening waits and reads one
                    # format (never the old version row beside the new tables).
                    lock = "pg_advisory_xact_lock" if mode == "migrate" else "pg_advisory_xact_lock_shared"
                    tx.conn.execute(f"SELECT {lock}(%s)", (_CREATE_LOCK,))
                    self.found_version = self._check(tx.conn, mode)
                    if self.found_version != _FORMAT_VERSION:  # "migrate" of format 1 or 2
                        for statement in _REFUSALS_SCHEMA:
                            tx.conn.execute(statement.format(**self.names))
                        if self.found_version == 2:
                            for statement in _COALESCE_V2:
                                tx.conn.execute(statement.format(**self.names))
                        tx.conn.execute(f"UPDATE {self.names['v']} SET version = %s", (_FORMAT_VERSION,))
        except BaseException:
            self.close()
            raise

    # -- schema ------------------------------------------------------------------------------------

    def _find_schema(self, conn: Any) -> tuple[str, int]:
        """The current schema's exact name and oid; the names of the tables in it, quoted."""
        row = conn.execute("SELECT n.nspname, n.oid FROM pg_namespace n WHERE n.nspname = current_schema()").fetchone()
        if row is None:
            raise RegistryNotFoundError(
                f"{self.where}: the connection's search_path names no existing schema; create the "
                "schema first (a mixed-case name needs double quotes: options=-csearch_path%3D%22Prod%22)"
            )
        schema, oid = row[0], row[1]
        quoted = {
            key: _pgsql.Identifier(schema, table).as_string(conn)
            for key, table in (
                ("v", _VERSION_TABLE),
                ("r", _TABLE),
                ("e", _EVENTS),
                ("f", _REFUSALS),
                ("f2", _REFUSALS_V2),
            )
        }
        quoted["ek"] = _pgsql.Identifier(f"{_EVENTS}_key").as_string(conn)
        self.names = quoted
        return schema, oid

    def _tables(self, conn: Any, oid: int) -> list[str]:
        """The registry's tables that exist in the schema `oid` (of any relation kind)."""
        rows = conn.execute(
            "SELECT c.relname FROM pg_class c WHERE c.relnamespace = %s AND c.relname = ANY(%s)",
            (oid, [_VERSION_TABLE, _TABLE, _EVENTS, _REFUSALS_V2, _REFUSALS]),
        ).fetchall()
        return sorted(r[0] for r in rows)

    def _create(self, conn: Any) -> None:
        schema, oid = self._find_schema(conn)
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_CREATE_LOCK,))
        found = self._tables(conn, oid)
        if found:
            raise RegistryExistsError(
                f"{self.where}: schema {schema!r} holds {', '.join(found)} already; "
                "ExecutionRegistry.create never overwrites: open it with "
                "ExecutionRegistry(url)"
            )
        for statement in _SCHEMA:
            conn.execute(statement.format(**self.names))

    def _check(self, conn: Any, mode: str) -> int:
        """The format version of the registry, or the RegistryError that says why it is none."""
        schema, oid = self._find_schema(conn)
        found = self._tables(conn, oid)
        if not found:
            raise RegistryNotFoundError(
                f"{self.where}: no execution registry in schema {schema!r}; "
                "ExecutionRegistry(url) opens an existing registry, "
                "ExecutionRegistry.create(url) makes a new one"
            )
        if _VERSION_TABLE not in found:
            raise RegistryFormatError(
                f"{self.where}: schema {schema!r} has {', '.join(found)} but no "
                f"{_VERSION_TABLE}: not a registry this fastjcs made"
            )
        differs = differences(conn, oid, [_VERSION_TABLE])
        if differs:
            raise RegistryFormatError(f"{self.where}: schema {schema!r} is not the registry's: {'; '.join(differs)}")
        rows = conn.execute(f"SELECT application, version FROM {self.names['v']}").fetchall()
        if len(rows) != 1 or rows[0][0] != _APPLICATION:
            raise RegistryFormatError(
                f"{self.where}: {_VERSION_TABLE} in schema {schema!r} does not hold one row for {_APPLICATION!r}"
            )
        version: int = rows[0][1]
        if version > _FORMAT_VERSION:
            raise RegistryFormatError(
                f"{self.where} has registry format version {version}; this fastjcs reads "
                f"versions up to {_FORMAT_VERSION}: upgrade fastjcs"
            )
        if version < _FORMAT_VERSION and (version < 1 or mode == "open"):
            raise RegistryFormatError(
                f"{self.where} has registry format version {version}; upgrade it once with "
                "ExecutionRegistry.migrate(url) (opening never changes the schema)"
            )
        tables = [_TABLE, _EVENTS, *{1: [], 2: [_REFUSALS_V2]}.get(version, [_REFUSALS])]
        if found != sorted([_VERSION_TABLE, *tables]):
            raise RegistryFormatError(
                f"{self.where}: schema {schema!r} does not hold the tables of registry format "
                f"{version} (it has {', '.join(found)})"
            )
        differs = differences(conn, oid, tables)
        if differs:
            raise RegistryFormatError(
                f"{self.where}: schema {schema!r} differs from the registry's, which keeps it from "
                f"holding its promises: {'; '.join(differs)}; restore the registry's tables (or "
                "make a new registry with ExecutionRegistry.create(url))"
            )
        return version

    # -- connections -------------------------------------------------------------------------------

    def _connect(self, deadline: float) -> Any:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise _Expired
        # libpq counts connect_timeout in whole seconds, at least 2.
        try:
            return psycopg.connect(
                self._url, autocommit=True, connect_timeout=max(2, math.ceil(remaining)), **self._options
            )
        except psycopg.Error:
            raise
        except Exception as exc:  # the driver itself failed (psycopg 3.2 on PyPy 7.3: a TypeError)
            raise RegistryStorageError(
                f"{self.where}: the PostgreSQL driver failed before connecting "
                f"({type(exc).__name__}: {self.redact(_one_line(exc))}); {_OUTCOME[CONNECT]}"
            ) from None

    def _setup(self, conn: Any) -> None:
        """The server's own timeouts, on a new connection: a lock held past the timeout, or a
        statement that runs past it, fails the call (cleanly, nothing recorded) before the
        client-side deadline."""
        lock_ms = max(1, round(self.timeout * 1000))
        conn.execute(f"SET lock_timeout = {lock_ms}")
        conn.execute(f"SET statement_timeout = {lock_ms + 500}")
        conn.execute(f"SET idle_in_transaction_session_timeout = {lock_ms + 1000}")

    @contextlib.contextmanager
    def _connection(self, deadline: float | None = None) -> Iterator[tuple[Any, _Alarm]]:
        """A connection for one call, its deadline armed: an idle one, or a new one (at most
        pool_size at once)."""
        if deadline is None:
            deadline = time.monotonic() + self.timeout + 1.0
        if self._closed:
            raise RegistryClosedError(f"{self.where} is closed")
        if not self._slots.acquire(timeout=max(0.0, deadline - time.monotonic())):
            raise RegistryStorageError(
                f"{self.where}: every pooled connection stayed busy for the timeout of {self.timeout} s; "
                "nothing was sent, so nothing was recorded"
            )
        try:
            with self._lock:
                conn = self._idle.pop() if self._idle else None
            fresh = conn is None
            if conn is None:
                conn = self._connect(deadline)
            alarm = self._watchdog.arm(deadline, conn.pgconn.socket)
            try:
                if fresh:
                    self._setup(conn)
                yield conn, alarm
            finally:
                fired = self._watchdog.disarm(alarm)
                healthy = (
                    not fired and not conn.closed and conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
                )
                with self._lock:
                    keep = healthy and not self._closed
                    if keep:
                        self._idle.append(conn)
                if not keep:
                    with contextlib.suppress(Exception):
                        conn.close()
        finally:
            self._slots.release()

    @contextlib.contextmanager
    def transaction(self, write: bool = True) -> Iterator[_PostgresTx]:
        """One transaction on a pooled connection, within the timeout; psycopg errors become
        RegistryErrors that say whether the change may have been recorded."""
        deadline = time.monotonic() + self.timeout + 1.0
        phase = CONNECT
        alarm: _Alarm | None = None
        try:
            with self._connection(deadline) as (conn, alarm):
                phase = STATEMENTS if write else READ
                with conn.transaction():
                    yield _PostgresTx(conn, self.names)
                    if write:
                        phase = COMMIT
        except _Expired:
            raise RegistryStorageError(
                f"{self.where}: no connection to the PostgreSQL server within the timeout of "
                f"{self.timeout} s; {_OUTCOME[CONNECT]}"
            ) from None
        except psycopg.Error as exc:
            self.redact.scrub(exc)
            raise _pg_error(self.where, exc, self.timeout, phase, alarm is not None and alarm.fired) from exc

    def close(self) -> None:
        """Close the idle connections; those in use close when their call ends (idempotent)."""
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for conn in idle:
            with contextlib.suppress(Exception):
                conn.close()
        if hasattr(self, "_watchdog"):
            self._watchdog.stop()


class _Expired(Exception):
    """The call's deadline passed before a connection was made."""


class _PostgresTx(Statements):
    """The statements of the registry's rules, on one connection inside a transaction; the reads
    that decide a change lock their rows (FOR UPDATE)."""

    __slots__ = ()

    def __init__(self, conn: Any, names: dict[str, str]) -> None:
        tables = (names.get("r", _TABLE), names.get("e", _EVENTS), names.get("f", _REFUSALS))
        super().__init__(conn, tables, "%s", " FOR UPDATE")

    def reserve(self, agent: str, eid: str, binding: str, call_id: str | None, at: float) -> tuple[str, str] | None:
        """Insert an in_flight reservation unless the key has one; return (state, binding) of
        the existing one, or None when inserted.

        ON CONFLICT waits for a racing insert of the same key to commit or roll back; after a
        commit, the SELECT (a new snapshot in READ COMMITTED) reads the winner's row."""
        inserted = self.run(
            f"INSERT INTO {self.r} (agent_identity, execution_id, binding, state, call_id, "
            "admitted_at) VALUES (?, ?, ?, 'in_flight', ?, ?) ON CONFLICT DO NOTHING "
            "RETURNING 1",
            (agent, eid, binding, call_id, at),
        ).fetchone()
        if inserted is not None:
            return None
        row: tuple[str, str] | None = self.run(
            f"SELECT state, binding FROM {self.r} WHERE agent_identity = ? AND execution_id = ?", (agent, eid)
        ).fetchone()
        return row
