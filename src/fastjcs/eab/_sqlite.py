"""The execution registry's SQLite storage: a file shared by the processes of one host.

The file uses the WAL journal with synchronous=FULL, so a change that returned is on disk; each
change is one BEGIN IMMEDIATE transaction, so two processes can never both reserve one key; a busy
timeout makes concurrent writers wait for each other instead of failing. The file carries a marker
(SQLite's application_id "FJXR" and the format version in user_version) and its schema, both
checked at open: a missing, empty or foreign file is refused, and a file of an older format is
refused with the fix (`ExecutionRegistry.migrate`) instead of being changed behind its owner's back.

Format versions: 0 (no marker, the reservations table only), 1 (the marker, the same table), 2
(the reservations and the audit trail, `reservation_events`), 3 (and the refused admissions,
`reservation_refusals`, a row per refusal), 4 (the refused admissions coalesced, `refused_admissions`:
a row per key, answer and binding, with its count and its first and last time).
"""

from __future__ import annotations

import contextlib
import errno
import os
import pathlib
import secrets
import sqlite3
import stat
import threading
import time
from collections.abc import Iterator
from types import TracebackType

from ._statements import Statements
from .errors import (
    RegistryClosedError,
    RegistryCorruptError,
    RegistryError,
    RegistryExistsError,
    RegistryFormatError,
    RegistryNotFoundError,
    RegistryReadOnlyError,
    RegistryStorageError,
)

# The marker in the database header: application_id "FJXR" (fastjcs execution registry) and the
# format version in user_version.
_APPLICATION_ID = 0x464A5852
_FORMAT_VERSION = 4
_TABLE = "reservations"
# SQLite keeps the text of a CREATE statement as written: the schema check compares it exactly,
# so this text, up to its final newline, is the one registries of formats 0 and 1 hold.
_SCHEMA = f"""CREATE TABLE {_TABLE} (
    agent_identity            TEXT NOT NULL,
    execution_id              TEXT NOT NULL,
    binding                   TEXT NOT NULL,
    state                     TEXT NOT NULL
                              CHECK (state IN ('in_flight', 'completed', 'outcome_unknown')),
    call_id                   TEXT,
    terminal_audit_entry_hash TEXT,
    admitted_at               REAL NOT NULL,
    finalized_at              REAL,
    finalized_by              TEXT CHECK (finalized_by IN ('finalize', 'recover')),
    PRIMARY KEY (agent_identity, execution_id)
) WITHOUT ROWID
"""
# Format 2 adds the audit trail: one row per state change, written in the change's transaction.
_EVENTS = f"""CREATE TABLE reservation_events (
    seq                       INTEGER PRIMARY KEY,
    agent_identity            TEXT NOT NULL,
    execution_id              TEXT NOT NULL,
    action                    TEXT NOT NULL CHECK (action IN ('admit', 'finalize', 'recover')),
    state                     TEXT NOT NULL
                              CHECK (state IN ('in_flight', 'completed', 'outcome_unknown')),
    call_id                   TEXT,
    terminal_audit_entry_hash TEXT,
    at                        REAL NOT NULL,
    FOREIGN KEY (agent_identity, execution_id) REFERENCES {_TABLE}
)"""
_EVENTS_INDEX = """CREATE INDEX reservation_events_key
    ON reservation_events (agent_identity, execution_id, seq)
"""
# Format 3 kept every refused admission under the key it asserted, a row each; format 4 keeps one
# row per key, answer and binding, with how many times and when first and last (`refused_admissions`:
# a replayed key costs one row, not one per replay). Whether or not the key has a reservation (so no
# foreign key): cMCP's "the refusal remains auditable under the asserted execution_id".
_REFUSALS_V3 = """CREATE TABLE reservation_refusals (
    seq                       INTEGER PRIMARY KEY,
    agent_identity            TEXT NOT NULL,
    execution_id              TEXT NOT NULL,
    answer                    TEXT NOT NULL CHECK (answer IN ('collision_changed_binding',
                              'replay_in_flight', 'replay_outcome_unknown', 'replay_terminal',
                              'binding_mismatch')),
    binding                   TEXT NOT NULL,
    call_id                   TEXT,
    at                        REAL NOT NULL
)"""
_REFUSALS_V3_INDEX = """CREATE INDEX reservation_refusals_key
    ON reservation_refusals (agent_identity, execution_id, seq)
"""
_REFUSALS = """CREATE TABLE refused_admissions (
    seq                       INTEGER PRIMARY KEY,
    agent_identity            TEXT NOT NULL,
    execution_id              TEXT NOT NULL,
    answer                    TEXT NOT NULL CHECK (answer IN ('collision_changed_binding',
                              'replay_in_flight', 'replay_outcome_unknown', 'replay_terminal',
                              'binding_mismatch')),
    binding                   TEXT NOT NULL,
    call_id                   TEXT,
    first_at                  REAL NOT NULL,
    at                        REAL NOT NULL,
    times                     INTEGER NOT NULL CHECK (times >= 1),
    UNIQUE (agent_identity, execution_id, answer, binding)
)"""
_REFUSALS_TABLE = "refused_admissions"
# The objects of each format, as sqlite_master lists them: (type, name, sql), sorted.
_OBJECTS_V1 = [("table", _TABLE, _SCHEMA)]
_OBJECTS_V2 = sorted(
    [
        ("index", "reservation_events_key", _EVENTS_INDEX),
        ("table", "reservation_events", _EVENTS),
        ("table", _TABLE, _SCHEMA),
    ]
)
_OBJECTS_V3 = sorted(
    [
        *_OBJECTS_V2,
        ("index", "reservation_refusals_key", _REFUSALS_V3_INDEX),
        ("table", "reservation_refusals", _REFUSALS_V3),
    ]
)
_OBJECTS = sorted(
    [
        *_OBJECTS_V2,
        ("index", "sqlite_autoindex_refused_admissions_1", None),  # the UNIQUE's index (SQLite's, no text)
        ("table", _REFUSALS_TABLE, _REFUSALS),
    ]
)
# Format 3's refusals, coalesced into format 4's table in their order, each group with the call_id of
# its latest refusal.
_COALESCE_V3 = f"""INSERT INTO {_REFUSALS_TABLE}
    (agent_identity, execution_id, answer, binding, call_id, first_at, at, times)
SELECT g.agent_identity, g.execution_id, g.answer, g.binding,
       (SELECT r.call_id FROM reservation_refusals r WHERE r.seq = g.last), g.first_at, g.at, g.times
FROM (SELECT agent_identity, execution_id, answer, binding, min(seq) AS first, max(seq) AS last,
             min(at) AS first_at, max(at) AS at, count(*) AS times
      FROM reservation_refusals GROUP BY agent_identity, execution_id, answer, binding) AS g
ORDER BY g.first"""
# What an older format lacks, for the refusal to open it.
_MISSING = {
    0: "audit trail",
    1: "audit trail",
    2: "record of refused admissions",
    3: "coalesced record of refused admissions",
}
_TRANSIENT = ("", ":memory:")  # SQLite's temporary and in-memory databases: always new

# The texts of SQLite's primary result codes, for Pythons before 3.11, whose sqlite3 exceptions do
# not carry the code.
_CODE_OF_MESSAGE = {
    "database disk image is malformed": "SQLITE_CORRUPT",
    "file is not a database": "SQLITE_NOTADB",
    "attempt to write a readonly database": "SQLITE_READONLY",
    "unable to open database file": "SQLITE_CANTOPEN",
    "database or disk is full": "SQLITE_FULL",
    "database is locked": "SQLITE_BUSY",
    "database table is locked": "SQLITE_LOCKED",
}


def _writable(path: str) -> bool:
    """Whether this process may write the file (if it exists) and create files beside it (the
    -wal and -shm journals)."""
    return (not os.path.exists(path) or os.access(path, os.W_OK)) and os.access(os.path.dirname(path) or ".", os.W_OK)


def _sqlite_error(path: str, exc: sqlite3.Error, timeout: float) -> RegistryError:
    """The RegistryError that reports `exc`, raised by SQLite on the registry at `path`."""
    name = getattr(exc, "sqlite_errorname", None) or _CODE_OF_MESSAGE.get(str(exc), "")
    code = "_".join(name.split("_")[:2])  # the primary code: SQLITE_IOERR_WRITE -> SQLITE_IOERR
    where = f"execution registry {path!r}"
    if code == "SQLITE_CORRUPT":
        return RegistryCorruptError(f"{where} is damaged ({exc}); restore it from a backup")
    if code == "SQLITE_NOTADB":
        return RegistryFormatError(f"{where} is not an execution registry: not a SQLite database ({exc})")
    if code == "SQLITE_READONLY" or (code == "SQLITE_CANTOPEN" and path not in _TRANSIENT and not _writable(path)):
        return RegistryReadOnlyError(
            f"{where} cannot be written ({exc}): a registry needs to "
            "write its file and the -wal and -shm files beside it"
        )
    if code == "SQLITE_FULL":
        return RegistryStorageError(f"{where}: the disk is full ({exc}); nothing was changed")
    if code in ("SQLITE_BUSY", "SQLITE_LOCKED"):
        return RegistryStorageError(
            f"{where} stayed locked by another connection for the timeout of {timeout} s ({exc})"
        )
    return RegistryStorageError(f"{where}: SQLite failed ({exc})")


def _os_error(path: str, exc: OSError) -> RegistryError:
    """The RegistryError that reports `exc`, an OSError about the registry at `path`."""
    where = f"execution registry {path!r}"
    if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return RegistryReadOnlyError(f"{where} cannot be written ({exc.strerror})")
    return RegistryStorageError(f"{where}: {exc.strerror}")


def _path_name(path: str | os.PathLike[str]) -> str:
    name = os.fspath(path)
    if not isinstance(name, str):
        raise TypeError(f"path must be a str or an os.PathLike of str, not {type(name).__name__}")
    return name


def _check_existing(path: str) -> None:
    """Refuse, before SQLite sees it, a path with nothing to open or that cannot be written."""
    where = f"execution registry {path!r}"
    if path in _TRANSIENT:
        raise RegistryNotFoundError(
            f"{where}: a temporary or in-memory database is always new; make it with ExecutionRegistry.create({path!r})"
        )
    try:
        st = os.stat(path)
    except FileNotFoundError as exc:
        raise RegistryNotFoundError(
            f"{where} does not exist; ExecutionRegistry(path) opens an existing registry, "
            "ExecutionRegistry.create(path) makes a new one"
        ) from exc
    except OSError as exc:
        raise _os_error(path, exc) from exc
    if not stat.S_ISREG(st.st_mode):
        raise RegistryFormatError(f"{where} is not a regular file")
    if st.st_size == 0:
        raise RegistryFormatError(
            f"{where} is empty (0 bytes), not an execution registry: it was truncated or never "
            "made by ExecutionRegistry.create; restore it from a backup"
        )
    if not _writable(path):
        raise RegistryReadOnlyError(
            f"{where} cannot be written: a registry needs to write its file and the -wal and "
            "-shm files in its directory"
        )


def _check_format(db: sqlite3.Connection, path: str) -> int:
    """Raise RegistryFormatError unless `db` is an execution registry; return its format version.

    A registry of an older format (0: made before the marker existed, 1: without the audit trail,
    2: without the refusals, 3: a row per refusal) is returned as such, for `migrate`; opening
    refuses it.
    """
    where = f"execution registry {path!r}"
    app_id: int = db.execute("PRAGMA application_id").fetchone()[0]
    version: int = db.execute("PRAGMA user_version").fetchone()[0]
    objects = sorted(db.execute("SELECT type, name, sql FROM sqlite_master").fetchall())
    if app_id not in (0, _APPLICATION_ID):
        raise RegistryFormatError(
            f"{where} is another application's SQLite database (application_id {app_id:#x}, not {_APPLICATION_ID:#x})"
        )
    if app_id == _APPLICATION_ID and version not in (1, 2, 3, _FORMAT_VERSION):
        raise RegistryFormatError(
            f"{where} has registry format version {version}; this fastjcs reads versions 1 to {_FORMAT_VERSION}"
        )
    if app_id == 0 and version != 0:
        raise RegistryFormatError(
            f"{where} is not an execution registry: a SQLite database "
            f"without the registry's marker, at user_version {version}"
        )
    if objects != {_FORMAT_VERSION: _OBJECTS, 3: _OBJECTS_V3, 2: _OBJECTS_V2}.get(version, _OBJECTS_V1):
        raise RegistryFormatError(
            f"{where} is not an execution registry: a SQLite database "
            + ("without tables" if not objects else "with other tables or another schema")
        )
    return version


class SQLiteStore:
    """One connection to a registry file (or ":memory:"), serialised between threads."""

    kind = "sqlite"

    def __init__(self, path: str, target: str, timeout: float, *, mode: str) -> None:
        """Connect to `target` (a file name or URI) for the registry at `path`.

        `mode` "create" writes the marker and the schema into the new, empty database; "open"
        checks both and refuses an older format; "migrate" brings an older format to this one.
        """
        self.path, self.timeout = path, timeout
        self.where = f"execution registry {path!r}"
        #: The format version the file had when it was opened (this one's, after "create").
        self.found_version = _FORMAT_VERSION
        self._lock = threading.Lock()
        self.db: sqlite3.Connection | None = None
        try:
            self.db = sqlite3.connect(
                target, timeout=timeout, isolation_level=None, check_same_thread=False, uri=target.startswith("file:")
            )
            version = _FORMAT_VERSION if mode == "create" else _check_format(self.db, path)
            self.found_version = version
            if version != _FORMAT_VERSION and mode == "open":
                raise RegistryFormatError(
                    f"{self.where} has registry format version {version}, without the "
                    f"{_MISSING[version]} of format "
                    f"{_FORMAT_VERSION}; upgrade it once with "
                    "ExecutionRegistry.migrate(path) (opening never changes the schema)"
                )
            # WAL is a property of the file; ":memory:" keeps its own journal ("memory"). A store
            # that will not take WAL (SQLite's temporary "" database, some network file systems)
            # cannot give the concurrency and durability promised here, so it is refused.
            journal = self._set_wal(self.db, timeout)
            if journal != "wal" and path != ":memory:":
                raise RegistryStorageError(
                    f"SQLite would not put execution registry {path!r} in WAL mode (journal_mode is {journal!r})"
                )
            self.db.execute("PRAGMA synchronous=FULL")
            if mode == "create" or version != _FORMAT_VERSION:
                with _Immediate(self.db):
                    if mode == "create":
                        self.db.execute(_SCHEMA)
                    # Under the write lock, the format again: another process may have migrated
                    # the file since it was first read.
                    now = 0 if mode == "create" else _check_format(self.db, path)
                    if now != _FORMAT_VERSION:
                        if now < 2:
                            self.db.execute(_EVENTS)
                            self.db.execute(_EVENTS_INDEX)
                        self.db.execute(_REFUSALS)
                        if now == 3:
                            self.db.execute(_COALESCE_V3)
                            self.db.execute("DROP TABLE reservation_refusals")
                        self.db.execute(f"PRAGMA application_id = {_APPLICATION_ID}")
                        self.db.execute(f"PRAGMA user_version = {_FORMAT_VERSION}")
        except BaseException as exc:
            if self.db is not None:
                self.db.close()
                self.db = None
            if isinstance(exc, sqlite3.Error):
                raise _sqlite_error(path, exc, timeout) from exc
            raise

    def _set_wal(self, db: sqlite3.Connection, timeout: float) -> str:
        """PRAGMA journal_mode=WAL, retried while another process holds the lock it needs.

        SQLite answers "database is locked" to this pragma at once, without its busy handler, when
        another connection is opening the same file or is in a transaction (changing, or even
        confirming, the journal mode takes a lock of its own): several processes starting together
        meet it. It is retried with a short back-off until `timeout`, like any other busy wait.
        """
        deadline = time.monotonic() + timeout
        delay = 0.001
        while True:
            try:
                mode: str = db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
                return mode
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() + delay > deadline:
                    raise
            time.sleep(delay)
            delay = min(delay * 2, 0.05)

    @contextlib.contextmanager
    def transaction(self, write: bool = True) -> Iterator[_SQLiteTx]:
        """One transaction (BEGIN IMMEDIATE for a write), serialised, refused after close."""
        with self._lock:
            if self.db is None:
                raise RegistryClosedError(f"{self.where} is closed")
            try:
                if write:
                    with _Immediate(self.db):
                        yield _SQLiteTx(self.db)
                else:
                    yield _SQLiteTx(self.db)
            except sqlite3.Error as exc:
                raise _sqlite_error(self.path, exc, self.timeout) from exc

    def close(self) -> None:
        """Close the connection (idempotent)."""
        with self._lock:
            db, self.db = self.db, None
            if db is not None:
                try:
                    db.close()
                except sqlite3.Error as exc:
                    raise _sqlite_error(self.path, exc, self.timeout) from exc


def open_store(path: str, timeout: float, mode: str) -> SQLiteStore:
    """Open the existing registry at `path` ("open"), or migrate it ("migrate")."""
    _check_existing(path)
    # mode=rw: SQLite opens the file or fails, and never creates one.
    return SQLiteStore(path, pathlib.Path(os.path.abspath(path)).as_uri() + "?mode=rw", timeout, mode=mode)


def create_store(path: str, timeout: float) -> SQLiteStore:
    """Make a new, empty registry at `path` and open it; ":memory:" makes one in memory.

    Never overwrites (RegistryExistsError). The registry is built in a temporary file beside
    `path` and linked into place whole, so no process can open it half made; of several processes
    creating one path at once exactly one succeeds.
    """
    if path in _TRANSIENT:
        return SQLiteStore(path, path, timeout, mode="create")
    where = f"execution registry {path!r}"
    if os.path.lexists(path):
        raise RegistryExistsError(
            f"{where} exists already; ExecutionRegistry.create never overwrites: open it with ExecutionRegistry(path)"
        )
    directory = os.path.dirname(os.path.abspath(path))
    temporary = os.path.join(directory, f".{os.path.basename(path)}.{secrets.token_hex(8)}.creating")
    try:
        try:
            os.close(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
            SQLiteStore(path, pathlib.Path(temporary).as_uri() + "?mode=rw", timeout, mode="create").close()
            os.link(temporary, path)  # fails if `path` appeared meanwhile: never replaces
        except FileExistsError as exc:
            raise RegistryExistsError(
                f"{where} was created by another process meanwhile; open it with ExecutionRegistry(path)"
            ) from exc
        except OSError as exc:
            raise _os_error(path, exc) from exc
    finally:
        for leftover in (temporary, temporary + "-wal", temporary + "-shm"):
            with contextlib.suppress(OSError):  # absent, or never made (read-only directory)
                os.unlink(leftover)
    try:  # make the new name durable
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as exc:
        raise _os_error(path, exc) from exc
    return open_store(path, timeout, "open")


class _SQLiteTx(Statements):
    """The statements of the registry's rules, on one SQLite connection inside a transaction (BEGIN
    IMMEDIATE: the write lock is held, so reads lock nothing more)."""

    __slots__ = ()

    def __init__(self, db: sqlite3.Connection) -> None:
        super().__init__(db, (_TABLE, "reservation_events", _REFUSALS_TABLE), "?")

    def reserve(self, agent: str, eid: str, binding: str, call_id: str | None, at: float) -> tuple[str, str] | None:
        """Insert an in_flight reservation unless the key has one; return (state, binding) of
        the existing one, or None when inserted. BEGIN IMMEDIATE holds the write lock already."""
        row: tuple[str, str] | None = self.run(
            f"SELECT state, binding FROM {_TABLE} WHERE agent_identity = ? AND execution_id = ?", (agent, eid)
        ).fetchone()
        if row is None:
            self.run(
                f"INSERT INTO {_TABLE} (agent_identity, execution_id, binding, state, call_id, "
                "admitted_at) VALUES (?, ?, ?, 'in_flight', ?, ?)",
                (agent, eid, binding, call_id, at),
            )
        return row


class _Immediate:
    """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK when the block raises.

    IMMEDIATE takes the write lock at BEGIN, before the SELECT: two processes cannot both read
    "no reservation" and then both insert. (A deferred transaction would read first and fail to
    upgrade its lock; SQLite cannot wait out that deadlock, so it would raise "database is
    locked" at once, busy timeout or not.)
    """

    __slots__ = ("db",)

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if exc_type is None:
            try:
                self.db.execute("COMMIT")
                return
            except sqlite3.Error:  # a COMMIT that fails (SQLITE_FULL, ...) must not stay open
                self._rollback()
                raise
        self._rollback()

    def _rollback(self) -> None:
        if self.db.in_transaction:  # SQLite may have rolled back already (SQLITE_FULL, ...)
            self.db.execute("ROLLBACK")
