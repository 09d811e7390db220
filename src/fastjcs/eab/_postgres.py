"""The execution registry's PostgreSQL storage: one server shared by the service instances of many
hosts, through psycopg 3 (the `postgres` extra: ``pip install '.[postgres]'`` from a checkout).

The registry lives in three tables of the connection's current schema (the first existing schema
of its search_path; a URL may choose one with ``?options=-csearch_path%3Dmyschema``, and a
mixed-case one with ``?options=-csearch_path%3D%22Prod%22``): ``fastjcs_registry_version`` (one
row: the format version), ``fastjcs_reservations`` and ``fastjcs_reservation_events`` (the audit
trail). The schema is found once, when the registry is opened, and every statement names it,
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
import os
import re
import socket
import threading
import time
import urllib.parse
from collections.abc import Iterator
from typing import Any

from ._statements import Statements
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
    from psycopg import sql as _pgsql
    from psycopg.conninfo import conninfo_to_dict as _conninfo_to_dict
except ImportError:  # pragma: no cover - depends on the installation
    psycopg = None

# Format versions: 1 (the reservations and the audit trail), 2 (and the refused admissions, a row
# per refusal), 3 (the refused admissions coalesced: a row per key, answer and binding, with its
# count and its first and last time).
_FORMAT_VERSION = 3
_APPLICATION = "fastjcs execution registry"
_VERSION_TABLE = "fastjcs_registry_version"
_TABLE = "fastjcs_reservations"
_EVENTS = "fastjcs_reservation_events"
_REFUSALS_V2 = "fastjcs_reservation_refusals"
_REFUSALS = "fastjcs_refused_admissions"
# Format 3: the refused admissions, kept under the key they asserted (no foreign key: the key may
# have no reservation), one row per key, answer and binding.
_REFUSALS_SCHEMA = (
    """CREATE TABLE {f} (
    seq                       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    agent_identity            text NOT NULL,
    execution_id              text NOT NULL,
    answer                    text NOT NULL CHECK (answer IN ('collision_changed_binding',
                              'replay_in_flight', 'replay_outcome_unknown', 'replay_terminal',
                              'binding_mismatch')),
    binding                   text NOT NULL,
    call_id                   text,
    first_at                  double precision NOT NULL,
    at                        double precision NOT NULL,
    times                     bigint NOT NULL CHECK (times >= 1),
    UNIQUE (agent_identity, execution_id, answer, binding)
)""",
)
# Format 2's refusals, coalesced into format 3's table in their order, each group with the call_id of
# its latest refusal; then format 2's table goes.
_COALESCE_V2 = (
    """INSERT INTO {f} (agent_identity, execution_id, answer, binding, call_id, first_at, at, times)
SELECT g.agent_identity, g.execution_id, g.answer, g.binding,
       (SELECT r.call_id FROM {f2} r WHERE r.seq = g.last), g.first_at, g.at, g.times
FROM (SELECT agent_identity, execution_id, answer, binding, min(seq) AS first, max(seq) AS last,
             min(at) AS first_at, max(at) AS at, count(*) AS times
      FROM {f2} GROUP BY agent_identity, execution_id, answer, binding) AS g
ORDER BY g.first""",
    "DROP TABLE {f2}",
)
# The statements take the schema-qualified, quoted names: {v} the version table, {r} the
# reservations, {e} the events, {ek} the events' index (unqualified: an index lives in its table's
# schema).
_SCHEMA = (
    f"""CREATE TABLE {{v}} (
    application  text PRIMARY KEY CHECK (application = '{_APPLICATION}'),
    version      integer NOT NULL,
    migrated_at  timestamptz NOT NULL DEFAULT now()
)""",
    """CREATE TABLE {r} (
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
    """CREATE TABLE {e} (
    seq                       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    agent_identity            text NOT NULL,
    execution_id              text NOT NULL,
    action                    text NOT NULL CHECK (action IN ('admit', 'finalize', 'recover')),
    state                     text NOT NULL
                              CHECK (state IN ('in_flight', 'completed', 'outcome_unknown')),
    call_id                   text,
    terminal_audit_entry_hash text,
    at                        double precision NOT NULL,
    FOREIGN KEY (agent_identity, execution_id) REFERENCES {r}
)""",
    "CREATE INDEX {ek} ON {e} (agent_identity, execution_id, seq)",
    *_REFUSALS_SCHEMA,
    f"INSERT INTO {{v}} (application, version) VALUES ('{_APPLICATION}', {_FORMAT_VERSION})",
)
# What opening expects of each table, as the catalog describes it: the columns (name: type as
# format_type() writes it, NOT NULL) and the constraints that the rules rely on: the primary keys
# (an admission is decided by the reservations' one) and the events' foreign key. Checks, defaults
# and indexes are not compared (the server's text for them varies between versions).
_TEXT, _FLOAT = "text", "double precision"
_EXPECTED_COLUMNS: dict[str, dict[str, tuple[str, bool]]] = {
    _VERSION_TABLE: {
        "application": (_TEXT, True),
        "version": ("integer", True),
        "migrated_at": ("timestamp with time zone", True),
    },
    _TABLE: {
        "agent_identity": (_TEXT, True),
        "execution_id": (_TEXT, True),
        "binding": (_TEXT, True),
        "state": (_TEXT, True),
        "call_id": (_TEXT, False),
        "terminal_audit_entry_hash": (_TEXT, False),
        "admitted_at": (_FLOAT, True),
        "finalized_at": (_FLOAT, False),
        "finalized_by": (_TEXT, False),
    },
    _EVENTS: {
        "seq": ("bigint", True),
        "agent_identity": (_TEXT, True),
        "execution_id": (_TEXT, True),
        "action": (_TEXT, True),
        "state": (_TEXT, True),
        "call_id": (_TEXT, False),
        "terminal_audit_entry_hash": (_TEXT, False),
        "at": (_FLOAT, True),
    },
    _REFUSALS_V2: {
        "seq": ("bigint", True),
        "agent_identity": (_TEXT, True),
        "execution_id": (_TEXT, True),
        "answer": (_TEXT, True),
        "binding": (_TEXT, True),
        "call_id": (_TEXT, False),
        "at": (_FLOAT, True),
    },
    _REFUSALS: {
        "seq": ("bigint", True),
        "agent_identity": (_TEXT, True),
        "execution_id": (_TEXT, True),
        "answer": (_TEXT, True),
        "binding": (_TEXT, True),
        "call_id": (_TEXT, False),
        "first_at": (_FLOAT, True),
        "at": (_FLOAT, True),
        "times": ("bigint", True),
    },
}
# (table, kind, columns, referenced table, referenced columns): kind "p" primary key, "u" unique,
# "f" foreign key, as pg_constraint.contype.
_EXPECTED_KEYS = sorted(
    [
        (_VERSION_TABLE, "p", ("application",), "", ()),
        (_TABLE, "p", ("agent_identity", "execution_id"), "", ()),
        (_EVENTS, "p", ("seq",), "", ()),
        (_REFUSALS_V2, "p", ("seq",), "", ()),
        (_REFUSALS, "p", ("seq",), "", ()),
        (_REFUSALS, "u", ("agent_identity", "execution_id", "answer", "binding"), "", ()),
        (_EVENTS, "f", ("agent_identity", "execution_id"), _TABLE, ("agent_identity", "execution_id")),
    ]
)
# Serialises concurrent create() and migrate() calls on one database, and holds an opening off
# a migration until it commits (pg_advisory_xact_lock's key: "FJXR").
_CREATE_LOCK = 0x464A5852
# TCP keepalives for every connection, unless the URL sets its own: a peer that vanished from the
# network is noticed within about keepalives_idle + keepalives_interval * keepalives_count s.
_KEEPALIVES = {"keepalives": "1", "keepalives_idle": "5", "keepalives_interval": "2", "keepalives_count": "3"}


def _column_words(column: tuple[str, bool]) -> str:
    return f"{column[0]}{' NOT NULL' if column[1] else ' (nullable)'}"


def _key_words(key: tuple[str, str, tuple[str, ...], str, tuple[str, ...]]) -> str:
    table, kind, cols, ref, ref_cols = key
    what = {"p": "primary key", "u": "unique constraint", "f": "foreign key", "x": "exclusion constraint"}[kind]
    words = f"the {what} of {table} ({', '.join(cols)})"
    return words + (f" referencing {ref} ({', '.join(ref_cols)})" if kind == "f" else "")


# ---------------------------------------------------------------------------------------------------
# Passwords: never shown
# ---------------------------------------------------------------------------------------------------

_MASK = "***"
# A URL anywhere in a text: its userinfo password, up to the last "@" before the query.
_URL_USERINFO = re.compile(r"(?P<head>[A-Za-z][A-Za-z0-9+.-]*://[^:@/?#\s\"']*):[^?#\s\"']*@")
# A password parameter of a URL query or a key=value conninfo string ("pass" anywhere in its name,
# percent-encoded or not, quoted or not).
_PASSWORD_PARAM = re.compile(
    r"(?P<key>[A-Za-z0-9_%-]*(?:p|%[57]0)(?:a|%[46]1)(?:s|%[57]3)(?:s|%[57]3)[A-Za-z0-9_%-]*)"
    r"(?P<sep>\s*=\s*)(?P<value>'(?:[^'\\]|\\.)*'?|[^&\s\"]*)",
    re.IGNORECASE,
)


def _unquote(text: str) -> str:
    """Percent-decoding that never fails (an invalid escape stays as written)."""
    return urllib.parse.unquote(text, errors="replace")


def _secrets(url: str) -> list[str]:
    """Every spelling of the passwords in `url` (as written and percent-decoded), longest first."""
    found: set[str] = set()
    rest = url.split("://", 1)[1] if "://" in url else url
    authority = re.split(r"[?#]", rest, maxsplit=1)[0]
    if "@" in authority:
        userinfo = authority.rsplit("@", 1)[0]
        if ":" in userinfo:
            found.add(userinfo.split(":", 1)[1])
    for match in _PASSWORD_PARAM.finditer(url):
        found.add(match["value"])
    spellings = found | {_unquote(s) for s in found} | {s.strip("'") for s in found}
    if psycopg is not None:
        with contextlib.suppress(Exception):  # a URL libpq cannot parse: the spellings above
            for key, value in _conninfo_to_dict(url).items():
                # libpq's reading of a password with an unencoded "@" or "/" is a piece of the
                # one above, masked with it
                if "pass" in key and isinstance(value, str) and not any(value in s for s in spellings):
                    spellings.add(value)
    return sorted((s for s in spellings if s), key=len, reverse=True)


class Redactor:
    """Removes the passwords of one target URL from any text."""

    def __init__(self, url: str) -> None:
        self._secrets = _secrets(url)
        self._pattern = re.compile("|".join(map(re.escape, self._secrets))) if self._secrets else None

    def __call__(self, text: str) -> str:
        text = _URL_USERINFO.sub(lambda m: f"{m['head']}:{_MASK}@", text)
        text = _PASSWORD_PARAM.sub(lambda m: f"{m['key']}{m['sep']}{_MASK}", text)
        if self._pattern is not None:
            text = self._pattern.sub(_MASK, text)
        return text

    def scrub(self, exc: BaseException) -> None:
        """Remove the passwords from the text of `exc` and of every exception chained to it."""
        seen: set[int] = set()
        todo: list[BaseException | None] = [exc]
        while todo:
            item = todo.pop()
            if item is None or id(item) in seen:
                continue
            seen.add(id(item))
            item.args = tuple(self(a) if isinstance(a, str) else a for a in item.args)
            notes = getattr(item, "__notes__", None)
            if isinstance(notes, list):
                notes[:] = [self(n) if isinstance(n, str) else n for n in notes]
            todo += [item.__cause__, item.__context__]


def redact(url: str) -> str:
    """The URL without its passwords, for messages."""
    return Redactor(url)(url)


# ---------------------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------------------

# Where a call was when it failed: what the error can say about the change it was making.
CONNECT, STATEMENTS, COMMIT, READ = "connect", "statements", "commit", "read"
_OUTCOME = {
    CONNECT: "nothing was sent, so nothing was recorded",
    STATEMENTS: "the change was not committed, so nothing was recorded; call again once the server is back",
    READ: "nothing was changed; call again once the server is back",
    COMMIT: (
        "the change was being committed, so whether it was recorded is unknown; make no upstream "
        "call on its account and call again once the server is back: an admission that was "
        "recorded then answers REPLAY_IN_FLIGHT (get() shows its call_id), and a finalize that "
        "was recorded is a no-op when repeated"
    ),
}


# psycopg's "connection timeout expired" (its own class since psycopg 3.2; an OperationalError with
# that text before).
_CONNECT_TIMEOUT: tuple[type[BaseException], ...] = (
    (_pgerr.ConnectionTimeout,) if psycopg is not None and hasattr(_pgerr, "ConnectionTimeout") else ()
)


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _pg_error(where: str, exc: Exception, timeout: float, phase: str, expired: bool = False) -> RegistryError:
    """The RegistryError that reports `exc`, raised by psycopg for the registry `where` in `phase`
    (CONNECT, STATEMENTS, COMMIT, READ); `expired` when the client-side deadline cut the call."""
    text = _one_line(exc)
    if expired:
        return RegistryStorageError(
            f"{where}: no answer from the PostgreSQL server within the timeout of {timeout} s, so "
            f"the connection was closed: {_OUTCOME[phase]}"
        )
    if isinstance(exc, _pgerr.UndefinedTable):
        return RegistryFormatError(
            f"{where}: a registry table is missing ({text}); make the registry with ExecutionRegistry.create(url)"
        )
    if isinstance(exc, (_pgerr.ReadOnlySqlTransaction, _pgerr.InsufficientPrivilege)):
        return RegistryReadOnlyError(f"{where} cannot be written ({text}); nothing was recorded")
    if isinstance(exc, _pgerr.DiskFull):
        return RegistryStorageError(f"{where}: the server's disk is full ({text}); nothing was recorded")
    if isinstance(exc, _pgerr.LockNotAvailable):
        return RegistryStorageError(
            f"{where} stayed locked by another connection for the timeout of {timeout} s ({text}); nothing was recorded"
        )
    if isinstance(exc, _pgerr.QueryCanceled):
        return RegistryStorageError(
            f"{where}: the server cancelled a statement after the timeout of {timeout} s ({text}); nothing was recorded"
        )
    if phase == CONNECT and (isinstance(exc, _CONNECT_TIMEOUT) or text == "connection timeout expired"):
        return RegistryStorageError(
            f"{where}: no connection to the PostgreSQL server within the timeout of {timeout} s "
            f"({text}); {_OUTCOME[CONNECT]}"
        )
    if phase == CONNECT:
        return RegistryStorageError(
            f"{where}: the connection to the PostgreSQL server could not be made ({text}); "
            f"{_OUTCOME[CONNECT]}: check the URL (host, port, options), its credentials, and that "
            "the server runs"
        )
    if isinstance(exc, psycopg.OperationalError):
        return RegistryStorageError(
            f"{where}: the connection to the PostgreSQL server failed ({text}): {_OUTCOME[phase]}"
        )
    return RegistryStorageError(f"{where}: PostgreSQL failed ({text}): {_OUTCOME[phase]}")


# ---------------------------------------------------------------------------------------------------
# The client-side deadline
# ---------------------------------------------------------------------------------------------------


class _Alarm:
    """One armed deadline: the connection whose socket is shut when it passes."""

    __slots__ = ("deadline", "fd", "fired", "done")

    def __init__(self, deadline: float, fd: int) -> None:
        self.deadline, self.fd, self.fired, self.done = deadline, fd, False, False


class _Watchdog:
    """Shuts the socket of a connection whose call outlived its deadline.

    A server that is stopped or hung (its kernel still acknowledging packets) never answers, and
    neither the server's own timeouts nor TCP keepalives can end the wait; shutting the socket
    makes the blocked psycopg call fail at once with a lost connection. One thread per store,
    started on first use (and again in a forked child); it sleeps until the earliest deadline.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._armed: set[_Alarm] = set()
        self._pid = -1
        self._stopped = False
        self._wake_at = math.inf  # when the thread wakes next: an earlier deadline must wake it

    def arm(self, deadline: float, fd: int) -> _Alarm:
        alarm = _Alarm(deadline, fd)
        with self._cond:
            if self._pid != os.getpid():
                self._pid = os.getpid()
                self._armed = set()
                threading.Thread(target=self._run, name="fastjcs registry deadline", daemon=True).start()
            self._armed.add(alarm)
            if deadline < self._wake_at:
                self._cond.notify()
        return alarm

    def disarm(self, alarm: _Alarm) -> bool:
        """End the watch; True if the deadline had passed and the socket was shut."""
        with self._cond:
            alarm.done = True
            self._armed.discard(alarm)
            return alarm.fired

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify()

    def _run(self) -> None:
        pid = os.getpid()
        with self._cond:
            while not self._stopped and self._pid == pid:
                now = time.monotonic()
                for alarm in [a for a in self._armed if a.deadline <= now]:
                    self._armed.discard(alarm)
                    alarm.fired = True
                    _shut(alarm.fd)
                self._wake_at = min((a.deadline for a in self._armed), default=now + 60.0)
                self._cond.wait(max(self._wake_at - now, 0.001))


def _shut(fd: int) -> None:
    """Shut down both directions of the socket `fd` (the connection's own descriptor stays open)."""
    with contextlib.suppress(OSError):
        sock = socket.socket(fileno=os.dup(fd))
        try:
            sock.shutdown(socket.SHUT_RDWR)
        finally:
            sock.close()


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
        differs = self._differences(conn, oid, [_VERSION_TABLE])
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
        differs = self._differences(conn, oid, tables)
        if differs:
            raise RegistryFormatError(
                f"{self.where}: schema {schema!r} differs from the registry's, which keeps it from "
                f"holding its promises: {'; '.join(differs)}; restore the registry's tables (or "
                "make a new registry with ExecutionRegistry.create(url))"
            )
        return version

    def _differences(self, conn: Any, oid: int, tables: list[str]) -> list[str]:
        """What differs between the tables `tables` in schema `oid` and the registry's, in words."""
        out: list[str] = []
        relations = {
            r[0]: r[1:]
            for r in conn.execute(
                "SELECT c.relname, c.relkind, c.relpersistence FROM pg_class c "
                "WHERE c.relnamespace = %s AND c.relname = ANY(%s)",
                (oid, tables),
            ).fetchall()
        }
        columns: dict[str, dict[str, tuple[str, bool]]] = {t: {} for t in tables}
        for table, name, typ, notnull in conn.execute(
            "SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull "
            "FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid "
            "WHERE c.relnamespace = %s AND c.relname = ANY(%s) AND a.attnum > 0 AND NOT a.attisdropped",
            (oid, tables),
        ).fetchall():
            columns[table][name] = (typ, notnull)
        for table in tables:
            kind, persistence = relations[table]
            if kind != "r":
                out.append(f"{table} is not an ordinary table (relkind {kind!r})")
                continue
            if persistence != "p":  # an unlogged table is emptied by a crash: keys admitted again
                out.append(f"{table} is not a permanent table (it is unlogged or temporary)")
            want, have = _EXPECTED_COLUMNS[table], columns[table]
            for name in sorted(want.keys() - have.keys()):
                out.append(f"{table} has no column {name}")
            for name in sorted(have.keys() - want.keys()):
                out.append(f"{table} has a column {name} that the registry does not have")
            for name in sorted(want.keys() & have.keys()):
                if have[name] != want[name]:
                    out.append(f"{table}.{name} is {_column_words(have[name])}, not {_column_words(want[name])}")
        keys = conn.execute(
            "SELECT c.relname, k.contype, "
            "ARRAY(SELECT a.attname FROM unnest(k.conkey) WITH ORDINALITY u(n, i) JOIN pg_attribute a "
            "ON a.attrelid = k.conrelid AND a.attnum = u.n ORDER BY u.i), "
            "coalesce(f.relname, ''), "
            "ARRAY(SELECT a.attname FROM unnest(k.confkey) WITH ORDINALITY u(n, i) JOIN pg_attribute a "
            "ON a.attrelid = k.confrelid AND a.attnum = u.n ORDER BY u.i), "
            "f.relnamespace, k.condeferrable, k.convalidated "
            "FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid LEFT JOIN pg_class f ON f.oid = k.confrelid "
            "WHERE c.relnamespace = %s AND c.relname = ANY(%s) AND k.contype IN ('p', 'u', 'f', 'x')",
            (oid, tables),
        ).fetchall()
        have_keys = []
        for table, kind, cols, ref, ref_cols, ref_ns, deferrable, valid in keys:
            entry = (table, kind, tuple(cols), ref, tuple(ref_cols or ()))
            have_keys.append(entry)
            if deferrable or not valid or (kind == "f" and ref_ns != oid):
                out.append(f"{_key_words(entry)} is {'deferrable' if deferrable else 'not validated or elsewhere'}")
        want_keys = [k for k in _EXPECTED_KEYS if k[0] in tables]
        for entry in sorted(set(want_keys) - set(have_keys)):
            out.append(f"{_key_words(entry)} is missing")
        for entry in sorted(set(have_keys) - set(want_keys)):
            out.append(f"{_key_words(entry)} is not the registry's")
        for table, what in conn.execute(
            "SELECT c.relname, 'trigger ' || t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
            "WHERE c.relnamespace = %s AND c.relname = ANY(%s) AND NOT t.tgisinternal "
            "UNION ALL SELECT c.relname, 'rule ' || r.rulename FROM pg_rewrite r JOIN pg_class c ON c.oid = r.ev_class "
            "WHERE c.relnamespace = %s AND c.relname = ANY(%s) AND c.relkind = 'r'",
            (oid, tables, oid, tables),
        ).fetchall():
            out.append(f"{table} has a {what} that could change what the registry writes")
        return out

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
