"""The execution correlation registry (docs/contract.md, "Execution registry"): admit each logical operation once.

A reservation is keyed by (authenticated agent identity, execution_id) and stores the binding (an
Execution Action Binding, `<alg>:<hex>`) as an opaque string. `admit` answers exactly one of:

    ADMITTED                    a new reservation, now in_flight: the only answer that allows the
                                upstream call
    COLLISION_CHANGED_BINDING   the key is known with another binding: a mutated operation. This
                                outranks every state.
    REPLAY_IN_FLIGHT            same binding, the first call has not finished
    REPLAY_OUTCOME_UNKNOWN      same binding, nobody knows whether the effect happened
    REPLAY_TERMINAL             same binding, the operation completed

A matching binding never permits a second call: once admitted, a key is never ADMITTED again.
`finalize` moves in_flight to "completed" or "outcome_unknown"; `recover` seals every in_flight
reservation as outcome_unknown after a crash (nobody knows whether the effect happened).

Three identities stay distinct: the attempt (`call_id`, stored for the admitted attempt only), the
logical operation (the binding) and the external outcome (the disposition and the terminal audit
entry hash given to `finalize`).

    >>> from fastjcs.eab import Admission, ExecutionRegistry
    >>> b = "sha256:" + "ab" * 32
    >>> with ExecutionRegistry.create(":memory:") as reg:
    ...     first = reg.admit("spiffe://agent.example/a", "exec-1", b, call_id="c1")
    ...     again = reg.admit("spiffe://agent.example/a", "exec-1", b, call_id="c2")
    ...     _ = reg.finalize("spiffe://agent.example/a", "exec-1", "completed")
    ...     later = reg.admit("spiffe://agent.example/a", "exec-1", b)
    >>> first.name, again.name, later.name
    ('ADMITTED', 'REPLAY_IN_FLIGHT', 'REPLAY_TERMINAL')

Storage is SQLite: a file (several processes may share it) or ":memory:" (one connection). The
file uses the WAL journal with synchronous=FULL, so an admission that returned is on disk; each
admission is one BEGIN IMMEDIATE transaction, so two processes can never both be ADMITTED for one
key; a busy timeout makes concurrent writers wait for each other instead of failing.

Creation is explicit: `ExecutionRegistry.create(path)` makes a new registry and never overwrites
anything, `ExecutionRegistry(path)` opens one that exists and never creates one. A registry whose
file was lost or emptied must not quietly start again empty, admitting every key a second time:
opening refuses a missing, empty or foreign file. The file carries a marker (SQLite's
application_id and user_version) and the table's schema, both checked at open.
"""

from __future__ import annotations

import contextlib
import enum
import errno
import os
import pathlib
import re
import secrets
import sqlite3
import stat
import threading
import time
from types import TracebackType
from typing import Iterator, NamedTuple, Optional, Type, Union

from .errors import (
    RegistryClosedError,
    RegistryCorruptError,
    RegistryError,
    RegistryExistsError,
    RegistryFormatError,
    RegistryNotFoundError,
    RegistryReadOnlyError,
    RegistryStorageError,
    ReservationStateError,
    UnknownReservationError,
)
from ..core.digests import parse_digest

__all__ = ["Admission", "ReservationState", "Reservation", "ExecutionRegistry",
           "MAX_TEXT_BYTES"]


class Admission(enum.Enum):
    """The answer of `ExecutionRegistry.admit`. Only ADMITTED allows the upstream call."""

    ADMITTED = "admitted"
    COLLISION_CHANGED_BINDING = "collision_changed_binding"
    REPLAY_IN_FLIGHT = "replay_in_flight"
    REPLAY_OUTCOME_UNKNOWN = "replay_outcome_unknown"
    REPLAY_TERMINAL = "replay_terminal"

    @property
    def allows_call(self) -> bool:
        return self is Admission.ADMITTED


class ReservationState(str, enum.Enum):
    """The state of a reservation (a str, so "completed" == ReservationState.COMPLETED)."""

    IN_FLIGHT = "in_flight"
    COMPLETED = "completed"
    OUTCOME_UNKNOWN = "outcome_unknown"


class Reservation(NamedTuple):
    """A stored reservation, as `ExecutionRegistry.get` returns it. Times are Unix seconds."""

    agent_identity: str
    execution_id: str
    binding: str
    state: ReservationState
    call_id: Optional[str]
    terminal_audit_entry_hash: Optional[str]
    admitted_at: float
    finalized_at: Optional[float]
    finalized_by: Optional[str]  # "finalize" or "recover"


# The admission table, in one place (docs/contract.md, "Execution registry"). A changed binding outranks every state.
_REPLAY = {
    ReservationState.IN_FLIGHT: Admission.REPLAY_IN_FLIGHT,
    ReservationState.OUTCOME_UNKNOWN: Admission.REPLAY_OUTCOME_UNKNOWN,
    ReservationState.COMPLETED: Admission.REPLAY_TERMINAL,
}


def _decide(state: ReservationState, stored_binding: str, binding: str) -> Admission:
    """The answer for a key that already has a reservation."""
    if stored_binding != binding:
        return Admission.COLLISION_CHANGED_BINDING
    return _REPLAY[state]


# ---------------------------------------------------------------------------------------------------
# Validation: before the database is touched
# ---------------------------------------------------------------------------------------------------

_EXECUTION_ID = re.compile(r"[\x21-\x7e]{1,200}")

#: The most UTF-8 bytes an agent identity or a call_id may have (twice a SPIFFE ID's maximum).
MAX_TEXT_BYTES = 4096


def _text(value: object, what: str) -> str:
    """A non-empty str, at most MAX_TEXT_BYTES of UTF-8, no lone surrogate, as an exact str."""
    if not isinstance(value, str):
        raise ValueError(f"{what} must be a str, not {type(value).__name__}")
    text = str.__str__(value)
    if not text:
        raise ValueError(f"{what} must not be empty")
    # A character is at least one byte: a longer str is refused without encoding it.
    too_long = len(text) > MAX_TEXT_BYTES
    if not too_long:
        try:
            too_long = len(text.encode("utf-8")) > MAX_TEXT_BYTES
        except UnicodeEncodeError:
            raise ValueError(f"{what} contains a lone surrogate (not UTF-8)") from None
    if too_long:
        raise ValueError(f"{what} must be at most {MAX_TEXT_BYTES} bytes of UTF-8 "
                         f"({len(text)} characters given)")
    return text


def _execution_id(value: object) -> str:
    if not isinstance(value, str):
        raise ValueError(f"execution_id must be a str, not {type(value).__name__}")
    text = str.__str__(value)
    if _EXECUTION_ID.fullmatch(text) is None:
        raise ValueError("execution_id must be 1 to 200 printable ASCII characters "
                         f"(0x21-0x7e, no space): {text[:220]!r}")
    return text


def _rendered_digest(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{what} must be a str '<alg>:<hex>', not {type(value).__name__}")
    parse_digest(value)  # InvalidDigestError is a ValueError
    return str.__str__(value)


def _disposition(value: object) -> ReservationState:
    if isinstance(value, str) and str.__str__(value) in ("completed", "outcome_unknown"):
        return ReservationState(str.__str__(value))
    raise ValueError(f"disposition must be 'completed' or 'outcome_unknown', not {value!r}")


# ---------------------------------------------------------------------------------------------------
# The file: its marker and schema, and what a SQLite failure means
# ---------------------------------------------------------------------------------------------------

# The marker in the database header: application_id "FJXR" (fastjcs execution registry) and the
# format version in user_version.
_APPLICATION_ID = 0x464A5852
_FORMAT_VERSION = 1
_TABLE = "reservations"
# SQLite keeps the text of a CREATE statement as written: the schema check compares it exactly,
# so this text, up to its final newline, is the one registries made before the marker hold.
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
_COLUMNS = ("agent_identity, execution_id, binding, state, call_id, terminal_audit_entry_hash, "
            "admitted_at, finalized_at, finalized_by")
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
    return ((not os.path.exists(path) or os.access(path, os.W_OK))
            and os.access(os.path.dirname(path) or ".", os.W_OK))


def _sqlite_error(path: str, exc: sqlite3.Error, timeout: float) -> RegistryError:
    """The RegistryError that reports `exc`, raised by SQLite on the registry at `path`."""
    name = getattr(exc, "sqlite_errorname", None) or _CODE_OF_MESSAGE.get(str(exc), "")
    code = "_".join(name.split("_")[:2])  # the primary code: SQLITE_IOERR_WRITE -> SQLITE_IOERR
    where = f"execution registry {path!r}"
    if code == "SQLITE_CORRUPT":
        return RegistryCorruptError(f"{where} is damaged ({exc}); restore it from a backup")
    if code == "SQLITE_NOTADB":
        return RegistryFormatError(f"{where} is not an execution registry: not a SQLite "
                                   f"database ({exc})")
    if code == "SQLITE_READONLY" or (code == "SQLITE_CANTOPEN" and path not in _TRANSIENT
                                     and not _writable(path)):
        return RegistryReadOnlyError(f"{where} cannot be written ({exc}): a registry needs to "
                                     "write its file and the -wal and -shm files beside it")
    if code == "SQLITE_FULL":
        return RegistryStorageError(f"{where}: the disk is full ({exc}); nothing was changed")
    if code in ("SQLITE_BUSY", "SQLITE_LOCKED"):
        return RegistryStorageError(f"{where} stayed locked by another connection for the "
                                    f"timeout of {timeout} s ({exc})")
    return RegistryStorageError(f"{where}: SQLite failed ({exc})")


def _os_error(path: str, exc: OSError) -> RegistryError:
    """The RegistryError that reports `exc`, an OSError about the registry at `path`."""
    where = f"execution registry {path!r}"
    if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return RegistryReadOnlyError(f"{where} cannot be written ({exc.strerror})")
    return RegistryStorageError(f"{where}: {exc.strerror}")


def _path_name(path: Union[str, "os.PathLike[str]"]) -> str:
    name = os.fspath(path)
    if not isinstance(name, str):
        raise TypeError(f"path must be a str or an os.PathLike of str, not {type(name).__name__}")
    return name


def _check_existing(path: str) -> None:
    """Refuse, before SQLite sees it, a path with nothing to open or that cannot be written."""
    where = f"execution registry {path!r}"
    if path in _TRANSIENT:
        raise RegistryNotFoundError(
            f"{where}: a temporary or in-memory database is always new; make it with "
            f"ExecutionRegistry.create({path!r})")
    try:
        st = os.stat(path)
    except FileNotFoundError as exc:
        raise RegistryNotFoundError(
            f"{where} does not exist; ExecutionRegistry(path) opens an existing registry, "
            "ExecutionRegistry.create(path) makes a new one") from exc
    except OSError as exc:
        raise _os_error(path, exc) from exc
    if not stat.S_ISREG(st.st_mode):
        raise RegistryFormatError(f"{where} is not a regular file")
    if st.st_size == 0:
        raise RegistryFormatError(
            f"{where} is empty (0 bytes), not an execution registry: it was truncated or never "
            "made by ExecutionRegistry.create; restore it from a backup")
    if not _writable(path):
        raise RegistryReadOnlyError(
            f"{where} cannot be written: a registry needs to write its file and the -wal and "
            "-shm files in its directory")


def _check_format(db: sqlite3.Connection, path: str) -> bool:
    """Raise RegistryFormatError unless `db` is an execution registry.

    Returns True for a registry made before the marker existed (no application_id, no
    user_version, the same table and nothing else), which the caller stamps.
    """
    where = f"execution registry {path!r}"
    app_id = db.execute("PRAGMA application_id").fetchone()[0]
    version = db.execute("PRAGMA user_version").fetchone()[0]
    objects = db.execute("SELECT type, name, sql FROM sqlite_master").fetchall()
    if app_id not in (0, _APPLICATION_ID):
        raise RegistryFormatError(f"{where} is another application's SQLite database "
                                  f"(application_id {app_id:#x}, not {_APPLICATION_ID:#x})")
    if app_id == _APPLICATION_ID and version != _FORMAT_VERSION:
        raise RegistryFormatError(f"{where} has registry format version {version}; this "
                                  f"fastjcs reads version {_FORMAT_VERSION}")
    if app_id == 0 and version != 0:
        raise RegistryFormatError(f"{where} is not an execution registry: a SQLite database "
                                  f"without the registry's marker, at user_version {version}")
    if objects != [("table", _TABLE, _SCHEMA)]:
        raise RegistryFormatError(
            f"{where} is not an execution registry: a SQLite database "
            + ("without tables" if not objects else "with other tables or another schema"))
    return app_id == 0


# ---------------------------------------------------------------------------------------------------
# The registry
# ---------------------------------------------------------------------------------------------------


class ExecutionRegistry:
    """Reservations of (agent identity, execution_id) in a SQLite file, or in ":memory:".

    `ExecutionRegistry(path)` opens an existing registry and never creates one; a new registry
    is made by `ExecutionRegistry.create(path)`. Opening refuses a path with nothing there
    (RegistryNotFoundError, ":memory:" included), a file that is not an execution registry
    (RegistryFormatError: empty, not SQLite, another application's database, another format
    version; RegistryCorruptError when SQLite finds it damaged) and a file or directory this
    process cannot write (RegistryReadOnlyError).

    `timeout` is SQLite's busy timeout in seconds: how long a call waits for another process's
    transaction before raising RegistryStorageError. One instance may be shared by threads
    (calls are serialised); processes open their own instance on the same file.

    Every failure of the storage is a RegistryError that names the path and the cause, with the
    sqlite3 exception chained: RegistryStorageError (disk full, I/O error, locked past the
    timeout, a database SQLite will not put in WAL mode), RegistryReadOnlyError,
    RegistryCorruptError; a call after `close()` is RegistryClosedError.

    Argument errors raise ValueError before the database is touched: an execution_id that is not
    1-200 characters of 0x21-0x7e, a binding or terminal audit entry hash that is not a valid
    `<alg>:<hex>` (InvalidDigestError, a ValueError), an agent identity or call_id that is not a
    non-empty str of at most MAX_TEXT_BYTES (4096) bytes of UTF-8 without lone surrogates, a
    disposition other than "completed" and "outcome_unknown".
    """

    def __init__(self, path: Union[str, "os.PathLike[str]"], *, timeout: float = 30.0) -> None:
        name = _path_name(path)
        _check_existing(name)
        # mode=rw: SQLite opens the file or fails, and never creates one.
        self._open(name, pathlib.Path(os.path.abspath(name)).as_uri() + "?mode=rw", timeout,
                   create=False)

    @classmethod
    def create(cls, path: Union[str, "os.PathLike[str]"], *,
               timeout: float = 30.0) -> "ExecutionRegistry":
        """Make a new, empty registry at `path` and open it; ":memory:" makes one in memory.

        Never overwrites: RegistryExistsError if anything exists at `path`. The registry is
        built in a temporary file beside `path` and linked into place whole, so no process can
        open it half made. Of several processes creating the same path at once, exactly one
        succeeds and the others get RegistryExistsError; a deployment that creates the registry
        on first start opens it after that error::

            try:
                reg = ExecutionRegistry.create(path)
            except RegistryExistsError:
                reg = ExecutionRegistry(path)
        """
        name = _path_name(path)
        if name in _TRANSIENT:
            registry = cls.__new__(cls)
            registry._open(name, name, timeout, create=True)
            return registry
        where = f"execution registry {name!r}"
        if os.path.lexists(name):
            raise RegistryExistsError(f"{where} exists already; ExecutionRegistry.create never "
                                      "overwrites: open it with ExecutionRegistry(path)")
        directory = os.path.dirname(os.path.abspath(name))
        temporary = os.path.join(directory,
                                 f".{os.path.basename(name)}.{secrets.token_hex(8)}.creating")
        try:
            try:
                os.close(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
                cls.__new__(cls)._open(name, pathlib.Path(temporary).as_uri() + "?mode=rw",
                                       timeout, create=True).close()
                os.link(temporary, name)  # fails if `name` appeared meanwhile: never replaces
            except FileExistsError as exc:
                raise RegistryExistsError(f"{where} was created by another process meanwhile; "
                                          "open it with ExecutionRegistry(path)") from exc
            except OSError as exc:
                raise _os_error(name, exc) from exc
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
            raise _os_error(name, exc) from exc
        return cls(name, timeout=timeout)

    # -- plumbing ----------------------------------------------------------------------------------

    def _open(self, path: str, target: str, timeout: float, *, create: bool) -> "ExecutionRegistry":
        """Connect to `target` (a file name or URI) for the registry at `path`; set it up.

        `create` writes the marker and the schema into the (new, empty) database; otherwise both
        are checked before anything is written.
        """
        self._path, self._timeout = path, timeout
        self._lock = threading.Lock()
        self._db: Optional[sqlite3.Connection] = None
        try:
            self._db = sqlite3.connect(target, timeout=timeout, isolation_level=None,
                                       check_same_thread=False, uri=target.startswith("file:"))
            legacy = False if create else _check_format(self._db, path)
            # WAL is a property of the file; ":memory:" keeps its own journal ("memory"). A store
            # that will not take WAL (SQLite's temporary "" database, some network file systems)
            # cannot give the concurrency and durability promised here, so it is refused.
            mode = self._set_wal(timeout)
            if mode != "wal" and path != ":memory:":
                raise RegistryStorageError(f"SQLite would not put execution registry {path!r} "
                                           f"in WAL mode (journal_mode is {mode!r})")
            self._db.execute("PRAGMA synchronous=FULL")
            if create or legacy:
                with _Immediate(self._db):
                    if create:
                        self._db.execute(_SCHEMA)
                    self._db.execute(f"PRAGMA application_id = {_APPLICATION_ID}")
                    self._db.execute(f"PRAGMA user_version = {_FORMAT_VERSION}")
        except BaseException as exc:
            if self._db is not None:
                self._db.close()
                self._db = None
            if isinstance(exc, sqlite3.Error):
                raise _sqlite_error(path, exc, timeout) from exc
            raise
        return self

    def _set_wal(self, timeout: float) -> str:
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
                return self._db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() + delay > deadline:
                    raise
            time.sleep(delay)
            delay = min(delay * 2, 0.05)

    @contextlib.contextmanager
    def _use(self) -> Iterator[sqlite3.Connection]:
        """The connection, for one call: serialised, refused after close, SQLite errors mapped."""
        with self._lock:
            if self._db is None:
                raise RegistryClosedError(f"execution registry {self._path!r} is closed")
            try:
                yield self._db
            except sqlite3.Error as exc:
                raise _sqlite_error(self._path, exc, self._timeout) from exc

    @property
    def path(self) -> str:
        """The path the registry was opened or created with (":memory:" for one in memory)."""
        return self._path

    def close(self) -> None:
        """Close the database connection (idempotent); any later call raises RegistryClosedError."""
        with self._lock:
            db, self._db = self._db, None
            if db is not None:
                try:
                    db.close()
                except sqlite3.Error as exc:
                    raise _sqlite_error(self._path, exc, self._timeout) from exc

    def __enter__(self) -> "ExecutionRegistry":
        return self

    def __exit__(self, exc_type: Optional[Type[BaseException]],
                 exc: Optional[BaseException], tb: Optional[TracebackType]) -> None:
        self.close()

    # -- the API -----------------------------------------------------------------------------------

    def admit(self, agent_identity: str, execution_id: str, binding: str,
              call_id: Optional[str] = None) -> Admission:
        """Reserve (agent_identity, execution_id) for `binding`, or say why not.

        Returns ADMITTED only for a key never seen before; the call it admits must be finalized
        (or sealed by `recover`). See the module docstring for the other answers.
        """
        agent = _text(agent_identity, "agent_identity")
        eid = _execution_id(execution_id)
        bnd = _rendered_digest(binding, "binding")
        cid = None if call_id is None else _text(call_id, "call_id")
        with self._use() as db, _Immediate(db):
            row = db.execute(
                "SELECT state, binding FROM reservations WHERE agent_identity = ? "
                "AND execution_id = ?", (agent, eid)).fetchone()
            if row is not None:
                return _decide(ReservationState(row[0]), row[1], bnd)
            db.execute(
                "INSERT INTO reservations (agent_identity, execution_id, binding, state, call_id, "
                "admitted_at) VALUES (?, ?, ?, 'in_flight', ?, ?)",
                (agent, eid, bnd, cid, time.time()))
            return Admission.ADMITTED

    def finalize(self, agent_identity: str, execution_id: str, disposition: str,
                 terminal_audit_entry_hash: Optional[str] = None) -> ReservationState:
        """Record the end of an admitted call: `disposition` "completed" or "outcome_unknown".

        Moves an in_flight reservation to `disposition` and returns the new state. Afterwards it
        is idempotent: the same disposition again changes nothing (a terminal audit entry hash
        given again must be the stored one). A reservation in a terminal state never changes:
        another disposition, or another hash, raises ReservationStateError, so an
        outcome_unknown sealed by `recover` is not turned into "completed" behind the audit
        log's back. UnknownReservationError (a LookupError) if the key was never admitted.
        """
        agent = _text(agent_identity, "agent_identity")
        eid = _execution_id(execution_id)
        target = _disposition(disposition)
        audit = (None if terminal_audit_entry_hash is None
                 else _rendered_digest(terminal_audit_entry_hash, "terminal_audit_entry_hash"))
        with self._use() as db, _Immediate(db):
            row = db.execute(
                "SELECT state, terminal_audit_entry_hash FROM reservations "
                "WHERE agent_identity = ? AND execution_id = ?", (agent, eid)).fetchone()
            if row is None:
                raise UnknownReservationError(
                    f"no reservation for agent {agent!r} and execution_id {eid!r}: "
                    "finalize() needs an admitted call")
            state, stored_audit = ReservationState(row[0]), row[1]
            if state is ReservationState.IN_FLIGHT:
                db.execute(
                    "UPDATE reservations SET state = ?, terminal_audit_entry_hash = ?, "
                    "finalized_at = ?, finalized_by = 'finalize' "
                    "WHERE agent_identity = ? AND execution_id = ?",
                    (target.value, audit, time.time(), agent, eid))
                return target
            if state is not target:
                raise ReservationStateError(
                    f"reservation ({agent!r}, {eid!r}) is already {state.value}; "
                    f"a terminal state does not become {target.value}")
            if audit is not None and audit != stored_audit:
                raise ReservationStateError(
                    f"reservation ({agent!r}, {eid!r}) is already {state.value} with terminal "
                    f"audit entry hash {stored_audit!r}, not {audit!r}")
            return state

    def recover(self) -> int:
        """Seal every in_flight reservation as outcome_unknown; return how many were sealed.

        For start-up after a crash: nobody knows whether an in-flight call's effect happened. It
        seals the in-flight calls of every process using the file, so run it only when no other
        process is admitting (at start-up, under the deployment's own exclusion).
        """
        with self._use() as db, _Immediate(db):
            cursor = db.execute(
                "UPDATE reservations SET state = 'outcome_unknown', finalized_at = ?, "
                "finalized_by = 'recover' WHERE state = 'in_flight'", (time.time(),))
            return cursor.rowcount

    def get(self, agent_identity: str, execution_id: str) -> Optional[Reservation]:
        """The stored reservation of a key, or None."""
        agent = _text(agent_identity, "agent_identity")
        eid = _execution_id(execution_id)
        with self._use() as db:
            row = db.execute(
                f"SELECT {_COLUMNS} FROM reservations WHERE agent_identity = ? "
                "AND execution_id = ?", (agent, eid)).fetchone()
        if row is None:
            return None
        return Reservation(row[0], row[1], row[2], ReservationState(row[3]), *row[4:])


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

    def __exit__(self, exc_type: Optional[Type[BaseException]],
                 exc: Optional[BaseException], tb: Optional[TracebackType]) -> None:
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
