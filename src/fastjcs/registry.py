"""The execution correlation registry (DESIGN section 5.1): admit each logical operation once.

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

    >>> from fastjcs.registry import Admission, ExecutionRegistry
    >>> b = "sha256:" + "ab" * 32
    >>> with ExecutionRegistry(":memory:") as reg:
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
"""

from __future__ import annotations

import enum
import os
import re
import sqlite3
import threading
import time
from types import TracebackType
from typing import NamedTuple, Optional, Type, Union

from ._errors import RegistryError, ReservationStateError, UnknownReservationError
from .digest import parse_digest

__all__ = ["Admission", "ReservationState", "Reservation", "ExecutionRegistry"]


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


# The admission table, in one place (DESIGN section 5.1). A changed binding outranks every state.
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


def _text(value: object, what: str) -> str:
    """A non-empty str without lone surrogates (SQLite stores UTF-8), as an exact str."""
    if not isinstance(value, str):
        raise ValueError(f"{what} must be a str, not {type(value).__name__}")
    text = str.__str__(value)
    if not text:
        raise ValueError(f"{what} must not be empty")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"{what} contains a lone surrogate (not UTF-8)") from None
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
# The registry
# ---------------------------------------------------------------------------------------------------

_SCHEMA = """
CREATE TABLE IF NOT EXISTS reservations (
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


class ExecutionRegistry:
    """Reservations of (agent identity, execution_id) in a SQLite file, or in ":memory:".

    `timeout` is SQLite's busy timeout in seconds: how long a call waits for another process's
    transaction before raising sqlite3.OperationalError. One instance may be shared by threads
    (calls are serialised); processes open their own instance on the same file.

    A path whose database SQLite will not put in WAL mode (the temporary database "") raises
    RegistryError.

    Argument errors raise ValueError before the database is touched: an execution_id that is not
    1-200 characters of 0x21-0x7e, a binding or terminal audit entry hash that is not a valid
    `<alg>:<hex>` (InvalidDigestError, a ValueError), an agent identity or call_id that is not a
    non-empty str without lone surrogates, a disposition other than "completed" and
    "outcome_unknown".
    """

    def __init__(self, path: Union[str, "os.PathLike[str]"], *, timeout: float = 30.0) -> None:
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, timeout=timeout, isolation_level=None,
                                   check_same_thread=False)
        try:
            # WAL is a property of the file; ":memory:" keeps its own journal ("memory"). A store
            # that will not take WAL (SQLite's temporary "" database, some network file systems)
            # cannot give the concurrency and durability promised here, so it is refused.
            mode = self._set_wal(timeout)
            if mode != "wal" and path != ":memory:":
                raise RegistryError(f"SQLite would not put {str(path)!r} in WAL mode "
                                    f"(journal_mode is {mode!r})")
            self._db.execute("PRAGMA synchronous=FULL")
            with self._transaction():
                self._db.execute(_SCHEMA)
        except BaseException:
            self._db.close()
            raise

    # -- plumbing ----------------------------------------------------------------------------------

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

    def _transaction(self) -> "_Immediate":
        return _Immediate(self._db)

    def close(self) -> None:
        """Close the database connection (idempotent)."""
        with self._lock:
            self._db.close()

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
        with self._lock, self._transaction():
            row = self._db.execute(
                "SELECT state, binding FROM reservations WHERE agent_identity = ? "
                "AND execution_id = ?", (agent, eid)).fetchone()
            if row is not None:
                return _decide(ReservationState(row[0]), row[1], bnd)
            self._db.execute(
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
        with self._lock, self._transaction():
            row = self._db.execute(
                "SELECT state, terminal_audit_entry_hash FROM reservations "
                "WHERE agent_identity = ? AND execution_id = ?", (agent, eid)).fetchone()
            if row is None:
                raise UnknownReservationError(
                    f"no reservation for agent {agent!r} and execution_id {eid!r}: "
                    "finalize() needs an admitted call")
            state, stored_audit = ReservationState(row[0]), row[1]
            if state is ReservationState.IN_FLIGHT:
                self._db.execute(
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
        with self._lock, self._transaction():
            cursor = self._db.execute(
                "UPDATE reservations SET state = 'outcome_unknown', finalized_at = ?, "
                "finalized_by = 'recover' WHERE state = 'in_flight'", (time.time(),))
            return cursor.rowcount

    def get(self, agent_identity: str, execution_id: str) -> Optional[Reservation]:
        """The stored reservation of a key, or None."""
        agent = _text(agent_identity, "agent_identity")
        eid = _execution_id(execution_id)
        with self._lock:
            row = self._db.execute(
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
            self.db.execute("COMMIT")
        elif self.db.in_transaction:  # SQLite may have rolled back already (SQLITE_FULL, ...)
            self.db.execute("ROLLBACK")
