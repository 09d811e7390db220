"""The execution registry's PostgreSQL storage: one server shared by the service instances of many
hosts, through psycopg 3 (the `postgres` extra: ``pip install 'fastjcs[postgres]'``).

The registry lives in three tables of the connection's current schema (the first existing schema
of its search_path; a URL may choose one with ``?options=-csearch_path%3Dmyschema``):
``fastjcs_registry_version`` (one row: the format version), ``fastjcs_reservations`` and
``fastjcs_reservation_events`` (the audit trail). Every change runs in one READ COMMITTED
transaction on one connection:

- a reservation is ``INSERT ... ON CONFLICT DO NOTHING``: the primary key decides, on the server,
  which of several racing clients on any host reserves a key; a loser waits for the winner's
  transaction to end and then reads the winner's row;
- finalize and recover lock the rows they change (``SELECT ... FOR UPDATE``);
- the audit event is written in the same transaction as the change it records.

Connections come from a small pool shared by the threads of one process: a call takes an idle
connection (or opens one, at most `pool_size` at once) and gives it back afterwards unless it
broke. A connection lost to a server restart is dropped, so the call that met it raises
RegistryStorageError and the next call connects again.
"""

from __future__ import annotations

import contextlib
import math
import re
import threading
from collections.abc import Iterator
from typing import Any

from .errors import (
    RegistryClosedError,
    RegistryError,
    RegistryExistsError,
    RegistryFormatError,
    RegistryNotFoundError,
    RegistryReadOnlyError,
    RegistryStorageError,
)

try:
    import psycopg
    from psycopg import errors as _pgerr
except ImportError:  # pragma: no cover - depends on the installation
    psycopg = None

_FORMAT_VERSION = 1
_APPLICATION = "fastjcs execution registry"
_VERSION_TABLE = "fastjcs_registry_version"
_TABLE = "fastjcs_reservations"
_EVENTS = "fastjcs_reservation_events"
_SCHEMA = (
    f"""CREATE TABLE {_VERSION_TABLE} (
    application  text PRIMARY KEY CHECK (application = '{_APPLICATION}'),
    version      integer NOT NULL,
    migrated_at  timestamptz NOT NULL DEFAULT now()
)""",
    f"""CREATE TABLE {_TABLE} (
    agent_identity            text NOT NULL,
    execution_id              text NOT NULL,
    binding                   text NOT NULL,
    state                     text NOT NULL
                              CHECK (state IN ('in_flight', 'completed', 'outcome_unknown')),
    call_id                   text,
    terminal_audit_entry_hash text,
    admitted_at               double precision NOT NULL,
    finalized_at              double precision,
    finalized_by              text CHECK (finalized_by IN ('finalize', 'recover')),
    PRIMARY KEY (agent_identity, execution_id)
)""",
    f"""CREATE TABLE {_EVENTS} (
    seq                       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    agent_identity            text NOT NULL,
    execution_id              text NOT NULL,
    action                    text NOT NULL CHECK (action IN ('admit', 'finalize', 'recover')),
    state                     text NOT NULL
                              CHECK (state IN ('in_flight', 'completed', 'outcome_unknown')),
    call_id                   text,
    terminal_audit_entry_hash text,
    at                        double precision NOT NULL,
    FOREIGN KEY (agent_identity, execution_id) REFERENCES {_TABLE}
)""",
    f"CREATE INDEX {_EVENTS}_key ON {_EVENTS} (agent_identity, execution_id, seq)",
    f"INSERT INTO {_VERSION_TABLE} (application, version) VALUES ('{_APPLICATION}', {_FORMAT_VERSION})",
)
_COLUMNS = (
    "agent_identity, execution_id, binding, state, call_id, terminal_audit_entry_hash, "
    "admitted_at, finalized_at, finalized_by"
)
# Serialises concurrent create() calls on one database (pg_advisory_xact_lock's key: "FJXR").
_CREATE_LOCK = 0x464A5852


def redact(url: str) -> str:
    """The URL without its password, for messages."""
    return re.sub(r"(://[^/:@]*):[^/@]*@", r"\1:***@", url)


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _pg_error(where: str, exc: Exception, timeout: float) -> RegistryError:
    """The RegistryError that reports `exc`, raised by psycopg for the registry `where`."""
    text = _one_line(exc)
    if isinstance(exc, _pgerr.UndefinedTable):
        return RegistryFormatError(
            f"{where}: a registry table is missing ({text}); make the registry with ExecutionRegistry.create(url)"
        )
    if isinstance(exc, (_pgerr.ReadOnlySqlTransaction, _pgerr.InsufficientPrivilege)):
        return RegistryReadOnlyError(f"{where} cannot be written ({text})")
    if isinstance(exc, _pgerr.DiskFull):
        return RegistryStorageError(f"{where}: the server's disk is full ({text}); nothing was changed")
    if isinstance(exc, (_pgerr.LockNotAvailable, _pgerr.QueryCanceled)):
        return RegistryStorageError(
            f"{where} stayed locked by another connection for the timeout of {timeout} s ({text})"
        )
    if isinstance(exc, psycopg.OperationalError):
        return RegistryStorageError(
            f"{where}: the connection to the PostgreSQL server failed ({text}); call again once "
            "the server is back (an admission whose answer was lost this way may have been "
            "recorded: admitting again then answers REPLAY_IN_FLIGHT, and get() shows its call_id)"
        )
    return RegistryStorageError(f"{where}: PostgreSQL failed ({text})")


class PostgresStore:
    """A pool of connections to the registry in one PostgreSQL database and schema."""

    kind = "postgresql"

    def __init__(self, url: str, timeout: float, pool_size: int, *, mode: str) -> None:
        """Connect to the registry at `url` and check its format ("open"); or make it first
        ("create"), or bring an older format to this one ("migrate")."""
        self.path = redact(url)
        self.where = f"execution registry {self.path!r}"
        if psycopg is None:
            raise RegistryError(f"{self.where}: PostgreSQL storage needs psycopg 3: pip install 'fastjcs[postgres]'")
        if not isinstance(pool_size, int) or pool_size < 1:
            raise ValueError(f"pool_size must be an int of at least 1, not {pool_size!r}")
        self._url, self.timeout = url, timeout
        self._idle: list[Any] = []
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(pool_size)
        self._closed = False
        #: The format version the registry had when it was opened (this one's, after "create").
        self.found_version = _FORMAT_VERSION
        try:
            with self._connection() as conn:
                if mode == "create":
                    self._create(conn)
                else:
                    self.found_version = self._check(conn)
        except psycopg.Error as exc:
            self.close()
            raise _pg_error(self.where, exc, timeout) from exc
        except BaseException:
            self.close()
            raise

    # -- schema ------------------------------------------------------------------------------------

    def _current_schema(self, conn: Any) -> str:
        schema: str | None = conn.execute("SELECT current_schema()").fetchone()[0]
        if schema is None:
            raise RegistryNotFoundError(
                f"{self.where}: the connection's search_path names no existing schema; create the schema first"
            )
        return schema

    def _tables(self, conn: Any) -> list[str]:
        """The registry's tables that exist in the current schema."""
        names = (_VERSION_TABLE, _TABLE, _EVENTS)
        rows = conn.execute(
            "SELECT c.relname FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace "
            "AND c.relname = ANY(%s)",
            (list(names),),
        ).fetchall()
        return sorted(r[0] for r in rows)

    def _create(self, conn: Any) -> None:
        with conn.transaction():
            schema = self._current_schema(conn)
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_CREATE_LOCK,))
            found = self._tables(conn)
            if found:
                raise RegistryExistsError(
                    f"{self.where}: schema {schema!r} holds {', '.join(found)} already; "
                    "ExecutionRegistry.create never overwrites: open it with "
                    "ExecutionRegistry(url)"
                )
            for statement in _SCHEMA:
                conn.execute(statement)

    def _check(self, conn: Any) -> int:
        """The format version of the registry, or the RegistryError that says why it is none."""
        with conn.transaction():
            schema = self._current_schema(conn)
            found = self._tables(conn)
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
            rows = conn.execute(f"SELECT application, version FROM {_VERSION_TABLE}").fetchall()
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
        if version < _FORMAT_VERSION:
            raise RegistryFormatError(
                f"{self.where} has registry format version {version}; upgrade it once with "
                "ExecutionRegistry.migrate(url) (opening never changes the schema)"
            )
        if sorted(found) != sorted((_VERSION_TABLE, _TABLE, _EVENTS)):
            raise RegistryFormatError(
                f"{self.where}: schema {schema!r} lacks some of the registry's tables (it has {', '.join(found)})"
            )
        return version

    # -- connections -------------------------------------------------------------------------------

    def _connect(self) -> Any:
        conn = psycopg.connect(self._url, autocommit=True, connect_timeout=max(1, math.ceil(self.timeout)))
        # A lock held by another client past the timeout fails the call instead of hanging it.
        conn.execute(f"SET lock_timeout = {max(1, round(self.timeout * 1000))}")
        return conn

    @contextlib.contextmanager
    def _connection(self) -> Iterator[Any]:
        """A connection for one call: an idle one, or a new one (at most pool_size at once)."""
        if self._closed:
            raise RegistryClosedError(f"{self.where} is closed")
        if not self._slots.acquire(timeout=self.timeout):
            raise RegistryStorageError(
                f"{self.where}: every pooled connection stayed busy for the timeout of {self.timeout} s"
            )
        try:
            with self._lock:
                conn = self._idle.pop() if self._idle else None
            if conn is None:
                conn = self._connect()
            try:
                yield conn
            finally:
                healthy = not conn.closed and conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
                with self._lock:
                    keep = healthy and not self._closed
                    if keep:
                        self._idle.append(conn)
                if not keep:
                    conn.close()
        finally:
            self._slots.release()

    @contextlib.contextmanager
    def transaction(self, write: bool = True) -> Iterator[_PostgresTx]:
        """One transaction on a pooled connection; psycopg errors become RegistryErrors."""
        try:
            with self._connection() as conn, conn.transaction():
                yield _PostgresTx(conn)
        except psycopg.Error as exc:
            raise _pg_error(self.where, exc, self.timeout) from exc

    def close(self) -> None:
        """Close the idle connections; those in use close when their call ends (idempotent)."""
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()


class _PostgresTx:
    """The statements of the registry's rules, on one connection inside a transaction."""

    __slots__ = ("conn",)

    def __init__(self, conn: Any) -> None:
        self.conn = conn

    def reserve(self, agent: str, eid: str, binding: str, call_id: str | None, at: float) -> tuple[str, str] | None:
        """Insert an in_flight reservation unless the key has one; return (state, binding) of
        the existing one, or None when inserted.

        ON CONFLICT waits for a racing insert of the same key to commit or roll back; after a
        commit, the SELECT (a new snapshot in READ COMMITTED) reads the winner's row."""
        inserted = self.conn.execute(
            f"INSERT INTO {_TABLE} (agent_identity, execution_id, binding, state, call_id, "
            "admitted_at) VALUES (%s, %s, %s, 'in_flight', %s, %s) ON CONFLICT DO NOTHING "
            "RETURNING 1",
            (agent, eid, binding, call_id, at),
        ).fetchone()
        if inserted is not None:
            return None
        row: tuple[str, str] | None = self.conn.execute(
            f"SELECT state, binding FROM {_TABLE} WHERE agent_identity = %s AND execution_id = %s", (agent, eid)
        ).fetchone()
        return row

    def lock(self, agent: str, eid: str) -> tuple[str, str | None] | None:
        """(state, terminal audit entry hash) of a key, its row locked; or None."""
        row: tuple[str, str | None] | None = self.conn.execute(
            f"SELECT state, terminal_audit_entry_hash FROM {_TABLE} WHERE agent_identity = %s "
            "AND execution_id = %s FOR UPDATE",
            (agent, eid),
        ).fetchone()
        return row

    def in_flight(self) -> list[tuple[str, str]]:
        """The keys of every in_flight reservation, their rows locked."""
        rows: list[tuple[str, str]] = self.conn.execute(
            f"SELECT agent_identity, execution_id FROM {_TABLE} WHERE state = 'in_flight' FOR UPDATE"
        ).fetchall()
        return rows

    def finish(self, agent: str, eid: str, state: str, audit: str | None, at: float, by: str) -> None:
        """Move a reservation to a terminal state."""
        self.conn.execute(
            f"UPDATE {_TABLE} SET state = %s, terminal_audit_entry_hash = %s, finalized_at = %s, "
            "finalized_by = %s WHERE agent_identity = %s AND execution_id = %s",
            (state, audit, at, by, agent, eid),
        )

    def record(
        self, agent: str, eid: str, action: str, state: str, call_id: str | None, audit: str | None, at: float
    ) -> None:
        """Append one event to the audit trail."""
        self.conn.execute(
            f"INSERT INTO {_EVENTS} (agent_identity, execution_id, action, state, call_id, "
            "terminal_audit_entry_hash, at) VALUES (%s, %s, %s, %s, %s, %s, %s)",
            (agent, eid, action, state, call_id, audit, at),
        )

    def get(self, agent: str, eid: str) -> tuple[Any, ...] | None:
        """The stored row of a key (the columns of Reservation), or None."""
        row: tuple[Any, ...] | None = self.conn.execute(
            f"SELECT {_COLUMNS} FROM {_TABLE} WHERE agent_identity = %s AND execution_id = %s", (agent, eid)
        ).fetchone()
        return row

    def history(self, agent: str, eid: str) -> list[tuple[Any, ...]]:
        """The audit trail of a key, oldest first (the columns of AuditEvent)."""
        rows: list[tuple[Any, ...]] = self.conn.execute(
            "SELECT seq, agent_identity, execution_id, action, state, call_id, "
            f"terminal_audit_entry_hash, at FROM {_EVENTS} WHERE agent_identity = %s "
            "AND execution_id = %s ORDER BY seq",
            (agent, eid),
        ).fetchall()
        return rows
