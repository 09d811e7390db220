"""The execution correlation registry (docs: the contract, "Execution registry"): admit each logical operation once.

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
`admit` takes the binding as given; `admit_action` computes it here from the authenticated agent
identity and the action fields (cMCP's execution correlation: the binding's preimage
established), answering BINDING_MISMATCH for a carried binding that differs. Every refused
admission is kept under the key it asserted (`refusals`).
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

Every state change (an admission, a finalize, a seal by recover) writes one audit event in the
same transaction as the change (`history`); a refusal is written in the transaction that decided
it (`refusals`).

Storage is chosen by the target: SQLite (a path, ``sqlite:///PATH`` or ":memory:"; the module
`_sqlite`) for the processes of one host, PostgreSQL (``postgresql://...``; `_postgres`) for
service instances on many hosts. The rules are written once, here; each storage adapter supplies
one transaction and the statements it runs, and guarantees that two clients can never both
reserve one key.

Creation is explicit: `ExecutionRegistry.create(target)` makes a new registry and never
overwrites anything, `ExecutionRegistry(target)` opens one that exists and never creates one, and
`ExecutionRegistry.migrate(target)` brings an older format to this one. A registry that was lost
or emptied must not quietly start again empty, admitting every key a second time: opening refuses
a missing, empty, foreign or older registry, naming the fix.
"""

from __future__ import annotations

import enum
import os
import re
import time
from contextlib import AbstractContextManager
from types import TracebackType
from typing import Any, NamedTuple, Protocol

from ..core.digests import parse_digest
from ..core.hashing import hex_digest
from . import _pg_schema, _postgres, _sqlite
from ._statements import MAX_REFUSAL_ROWS, OTHER_BINDINGS
from .bindings import binding as _v1_binding
from .errors import UnknownReservationError

__all__ = [
    "Admission",
    "ReservationState",
    "Reservation",
    "AuditEvent",
    "FINALIZE_IGNORED",
    "Refusal",
    "ExecutionRegistry",
    "MAX_TEXT_BYTES",
    "MAX_REFUSAL_ROWS",
    "MAX_KEPT_CALL_ID",
    "OTHER_BINDINGS",
]


class Admission(enum.Enum):
    """The answer of `ExecutionRegistry.admit`. Only ADMITTED allows the upstream call."""

    ADMITTED = "admitted"
    COLLISION_CHANGED_BINDING = "collision_changed_binding"
    REPLAY_IN_FLIGHT = "replay_in_flight"
    REPLAY_OUTCOME_UNKNOWN = "replay_outcome_unknown"
    REPLAY_TERMINAL = "replay_terminal"
    #: `admit_action` only: the carried binding is not the one computed here from the
    #: authenticated agent identity and the action fields (nothing reserved).
    BINDING_MISMATCH = "binding_mismatch"

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
    call_id: str | None
    terminal_audit_entry_hash: str | None
    admitted_at: float
    finalized_at: float | None
    finalized_by: str | None  # "finalize" or "recover"


# The admission table, in one place (contract in the docs, "Execution registry").
# A changed binding outranks every state.
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
    if "\x00" in text:  # PostgreSQL's text cannot hold it: one rule for every storage
        raise ValueError(f"{what} must not contain NUL (U+0000): {text[:100]!r}")
    # A character is at least one byte: a longer str is refused without encoding it.
    too_long = len(text) > MAX_TEXT_BYTES
    if not too_long:
        try:
            too_long = len(text.encode("utf-8")) > MAX_TEXT_BYTES
        except UnicodeEncodeError:
            raise ValueError(f"{what} contains a lone surrogate (not UTF-8)") from None
    if too_long:
        raise ValueError(f"{what} must be at most {MAX_TEXT_BYTES} bytes of UTF-8 ({len(text)} characters given)")
    return text


def _execution_id(value: object) -> str:
    if not isinstance(value, str):
        raise ValueError(f"execution_id must be a str, not {type(value).__name__}")
    text = str.__str__(value)
    if _EXECUTION_ID.fullmatch(text) is None:
        raise ValueError(
            f"execution_id must be 1 to 200 printable ASCII characters (0x21-0x7e, no space): {text[:220]!r}"
        )
    return text


def _rendered_digest(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{what} must be a str '<alg>:<hex>', not {type(value).__name__}")
    parse_digest(value)  # InvalidDigestError is a ValueError
    return str.__str__(value)


def _strict(value: object) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"strict must be True or False, not {value!r}")
    return value


def _disposition(value: object) -> ReservationState:
    if isinstance(value, str) and str.__str__(value) in ("completed", "outcome_unknown"):
        return ReservationState(str.__str__(value))
    raise ValueError(f"disposition must be 'completed' or 'outcome_unknown', not {value!r}")


# ---------------------------------------------------------------------------------------------------
# The registry: the rules, once, over either storage
# ---------------------------------------------------------------------------------------------------

_POSTGRES_SCHEMES = ("postgresql://", "postgres://")
_SQLITE_SCHEME = "sqlite:///"


def _storage(target: str | os.PathLike[str]) -> tuple[str, str]:
    """("sqlite", path) or ("postgresql", url) for a target as the constructors take it."""
    name = os.fspath(target)
    if not isinstance(name, str):
        raise TypeError(f"target must be a str or an os.PathLike of str, not {type(name).__name__}")
    if name.startswith(_POSTGRES_SCHEMES):
        return "postgresql", name
    if name.startswith(_SQLITE_SCHEME):
        return "sqlite", name[len(_SQLITE_SCHEME) :]
    if re.match(r"[A-Za-z][A-Za-z0-9+.-]*://", name):
        raise ValueError(
            f"unknown registry URL scheme in {name.split('://')[0]!r}: use a path, sqlite:///PATH or postgresql://..."
        )
    return "sqlite", name


#: The `AuditEvent.action` of a finalize that changed nothing (the key was already terminal) and
#: named another outcome: `state` and `terminal_audit_entry_hash` are what that call named.
FINALIZE_IGNORED = "finalize_ignored"


class AuditEvent(NamedTuple):
    """One state change of a reservation, or an ignored finalize, as `ExecutionRegistry.history`
    returns it.

    `action` is "admit" (the reservation made, state in_flight), "finalize" or "recover" (`state`
    the state it left), or "finalize_ignored" (a later finalize that named another outcome and
    changed nothing: `state` and the hash are what it named); `seq` orders the events of one
    registry; `at` is Unix seconds.
    """

    seq: int
    agent_identity: str
    execution_id: str
    action: str
    state: ReservationState
    call_id: str | None
    terminal_audit_entry_hash: str | None
    at: float


class Refusal(NamedTuple):
    """Refused admissions of one answer and binding under the key they asserted
    (`ExecutionRegistry.refusals`): the log coalesces repeats, so a replayed key is one row.

    `answer` is the refusing Admission; `binding` the binding the requests carried (for
    BINDING_MISMATCH, the carried one, not the one computed), or OTHER_BINDINGS ("*") for the row
    that counts the refusals of a key beyond its first MAX_REFUSAL_ROWS answer-and-binding rows;
    `times` how many refusals the row counts, `first_at` and `at` the first and latest (Unix
    seconds); `call_id` the latest refusal's, kept whole up to MAX_KEPT_CALL_ID bytes (a longer one
    as its first 64 characters, "...", and the SHA-256 of its UTF-8). `seq` orders the rows of a
    registry by their first refusal. A refusal changes no reservation.
    """

    seq: int
    agent_identity: str
    execution_id: str
    answer: Admission
    binding: str
    call_id: str | None
    at: float
    times: int
    first_at: float


# The largest seq and row count both storages take (a signed 64-bit integer).
_MAX_SEQ = 2**63 - 1

#: The longest call_id a refusal keeps whole, in bytes of UTF-8 (see Refusal).
MAX_KEPT_CALL_ID = 256


def _kept_call_id(call_id: str | None) -> str | None:
    """The call_id a refusal keeps: whole up to MAX_KEPT_CALL_ID bytes, else shortened with its digest."""
    if call_id is None or len(call_id) * 4 <= MAX_KEPT_CALL_ID:
        return call_id
    data = call_id.encode("utf-8")
    if len(data) <= MAX_KEPT_CALL_ID:
        return call_id
    return f"{call_id[:64]}...sha256:{hex_digest(data)}"


class ExecutionRegistry:
    """Reservations of (agent identity, execution_id), in SQLite or in PostgreSQL.

    The target chooses the storage: a path, ``sqlite:///PATH`` (``sqlite:////abs/path`` for an
    absolute one) or ":memory:" for SQLite; ``postgresql://...`` (or ``postgres://``, a libpq URL)
    for PostgreSQL, which needs the `postgres` extra (psycopg 3). The rules (admission,
    finalize, recover, the audit trail) are this class's, the same for both storages.

    `ExecutionRegistry(target)` opens an existing registry and never creates one; a new registry
    is made with `ExecutionRegistry.create(target)`, which never overwrites; a registry of an
    older format is refused with the fix, `ExecutionRegistry.migrate(target)`. Opening refuses,
    with a RegistryError subclass that names the target: nothing there (RegistryNotFoundError),
    something that is not a registry or has another format (RegistryFormatError), storage this
    process cannot write (RegistryReadOnlyError), a server it cannot reach (RegistryStorageError).

    `timeout` is how long a call waits for another client's lock (SQLite's busy timeout,
    PostgreSQL's lock_timeout and connect timeout) before raising RegistryStorageError; on
    PostgreSQL every call ends within `timeout` + 1 s even if the server never answers, and the
    error says whether the change may have been recorded.
    `pool_size` is the most PostgreSQL connections the instance holds at once. One instance may
    be shared by threads: SQLite calls are serialised on one connection, PostgreSQL calls run on
    pooled connections side by side. Processes open their own instance on the same target.

    Every failure of the storage is a RegistryError that names the target and the cause, with the
    driver's exception chained: RegistryStorageError (disk full, I/O error, locked past the
    timeout, a lost server connection, a SQLite file that will not take WAL),
    RegistryReadOnlyError, RegistryCorruptError; a call after `close()` is RegistryClosedError.

    Argument errors raise ValueError before the storage is touched: an execution_id that is not
    1-200 characters of 0x21-0x7e, a binding or terminal audit entry hash that is not a valid
    `<alg>:<hex>` (InvalidDigestError, a ValueError), an agent identity or call_id that is not a
    non-empty str of at most MAX_TEXT_BYTES (4096) bytes of UTF-8 without NUL or lone surrogates, a
    disposition other than "completed" and "outcome_unknown".
    """

    def __init__(
        self, target: str | os.PathLike[str], *, timeout: float = 30.0, pool_size: int = 4, strict: bool = False
    ) -> None:
        self._strict = _strict(strict)
        self._store = self._open_store(target, timeout, pool_size, "open")

    @staticmethod
    def _open_store(target: str | os.PathLike[str], timeout: float, pool_size: int, mode: str) -> _Store:
        kind, name = _storage(target)
        if kind == "postgresql":
            return _postgres.PostgresStore(name, timeout, pool_size, mode=mode)
        if mode == "create":
            return _sqlite.create_store(name, timeout)
        return _sqlite.open_store(name, timeout, mode)

    @classmethod
    def create(
        cls, target: str | os.PathLike[str], *, timeout: float = 30.0, pool_size: int = 4, strict: bool = False
    ) -> ExecutionRegistry:
        """Make a new, empty registry at `target` and open it; ":memory:" makes one in memory.

        Never overwrites: RegistryExistsError if a file exists at the path, or if the PostgreSQL
        schema holds any of the registry's tables. A SQLite registry is built in a temporary file
        beside the path and linked into place whole; a PostgreSQL one in one transaction. Either
        way no process can open it half made, and of several processes creating the same
        registry at once exactly one succeeds while the others get RegistryExistsError; a
        deployment that creates the registry on first start opens it after that error::

            try:
                reg = ExecutionRegistry.create(target)
            except RegistryExistsError:
                reg = ExecutionRegistry(target)
        """
        registry = cls.__new__(cls)
        registry._strict = _strict(strict)
        registry._store = cls._open_store(target, timeout, pool_size, "create")
        return registry

    @classmethod
    def migrate(cls, target: str | os.PathLike[str], *, timeout: float = 30.0) -> tuple[int, int]:
        """Bring the registry at `target` to this fastjcs's format; return (found, now).

        Changes nothing when the format is current (found == now). A SQLite file of format 0
        (made before the marker) or 1 (before the audit trail) gains the audit trail's table,
        its reservations untouched, in one transaction; their history starts at the migration.
        Never creates a registry (RegistryNotFoundError); a newer or foreign format is refused
        (RegistryFormatError), as by opening. Run it once per registry, from one process.
        """
        store = cls._open_store(target, timeout, 1, "migrate")
        found = store.found_version
        registry = cls.__new__(cls)
        registry._strict = False
        registry._store = store
        with registry:
            return found, (_pg_schema._FORMAT_VERSION if store.kind == "postgresql" else _sqlite._FORMAT_VERSION)

    # -- plumbing ----------------------------------------------------------------------------------

    @property
    def path(self) -> str:
        """The target the registry was opened with: its SQLite path (":memory:" for one in
        memory), or its PostgreSQL URL without the password."""
        return self._store.path

    @property
    def storage(self) -> str:
        """ "sqlite" or "postgresql"."""
        return self._store.kind

    def close(self) -> None:
        """Close the storage connections (idempotent); any later call raises RegistryClosedError."""
        self._store.close()

    def __enter__(self) -> ExecutionRegistry:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    # -- the API -----------------------------------------------------------------------------------

    def admit(self, agent_identity: str, execution_id: str, binding: str, call_id: str | None = None) -> Admission:
        """Reserve (agent_identity, execution_id) for `binding`, or say why not.

        Returns ADMITTED only for a key never seen before; the call it admits must be finalized
        (or sealed by `recover`). See the module docstring for the other answers. The
        reservation and its "admit" audit event are one transaction; a refusal is kept under
        the asserted key (`refusals`) in the transaction that decided it.

        The binding is taken as given, an opaque digest: this method does not establish its
        preimage, so it cannot tell a binding computed for another agent or another action
        from the right one. A caller that has the action fields should call `admit_action`,
        which computes the binding from the authenticated agent identity itself (cMCP's
        execution correlation: until the binding is verified, records may be said to share an
        asserted execution_id, not to be the same logical operation).
        """
        agent = _text(agent_identity, "agent_identity")
        eid = _execution_id(execution_id)
        bnd = _rendered_digest(binding, "binding")
        cid = None if call_id is None else _text(call_id, "call_id")
        return self._admit(agent, eid, bnd, cid)

    def _admit(self, agent: str, eid: str, bnd: str, cid: str | None) -> Admission:
        now = time.time()
        with self._store.transaction() as tx:
            found = tx.reserve(agent, eid, bnd, cid, now)
            if found is not None:
                answer = _decide(ReservationState(found[0]), found[1], bnd)
                if not answer.allows_call:  # always, unless _decide is wrong
                    tx.refuse(agent, eid, answer.value, bnd, _kept_call_id(cid), now)
                return answer
            tx.record(agent, eid, "admit", ReservationState.IN_FLIGHT.value, cid, None, now)
            return Admission.ADMITTED

    def admit_action(
        self,
        agent_identity: str,
        execution_id: str,
        action_type: str,
        action_scope: str,
        action_timestamp: str,
        *,
        binding: str | None = None,
        algorithm: str | None = None,
        call_id: str | None = None,
    ) -> Admission:
        """Admit an action whose binding is computed here, so its preimage is established.

        The Execution Action Binding v1 is computed from `agent_identity` (the authenticated
        identity that also keys the reservation) and the three action fields, under
        `algorithm` ("sha256" unless a carried binding names another). A `binding` carried by
        the request is compared with that computation: any difference (another agent's, another
        action's, another algorithm's) answers BINDING_MISMATCH, reserves nothing and is kept
        under the asserted key (`refusals`). Otherwise this is `admit` with the computed binding.
        ActionBindingError for action fields that cannot make a v1 binding, ValueError for the
        other arguments, before the storage is touched.
        """
        agent = _text(agent_identity, "agent_identity")
        eid = _execution_id(execution_id)
        cid = None if call_id is None else _text(call_id, "call_id")
        carried = None if binding is None else _rendered_digest(binding, "binding")
        alg = algorithm if algorithm is not None else (carried.split(":", 1)[0] if carried else "sha256")
        computed = _v1_binding(agent, action_type, action_scope, action_timestamp, alg)
        if carried is not None and carried != computed:
            with self._store.transaction() as tx:
                tx.refuse(agent, eid, Admission.BINDING_MISMATCH.value, carried, _kept_call_id(cid), time.time())
            return Admission.BINDING_MISMATCH
        return self._admit(agent, eid, computed, cid)

    def refusals(
        self, agent_identity: str, execution_id: str, *, after: int = 0, limit: int | None = None
    ) -> list[Refusal]:
        """The refused admissions asserted under a key, oldest first ([] if none): replays,
        collisions and mismatched bindings, whether or not the key has a reservation, a row per
        answer and binding (`Refusal`), at most MAX_REFUSAL_ROWS plus one per answer.

        Pages: the rows after the `seq` `after`, at most `limit` of them (all when None); the next
        page starts after the last row's `seq`.
        """
        agent = _text(agent_identity, "agent_identity")
        eid = _execution_id(execution_id)
        if isinstance(after, bool) or not isinstance(after, int) or not 0 <= after <= _MAX_SEQ:
            raise ValueError(f"after must be a seq (an int from 0 to 2**63-1), not {after!r}")
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= _MAX_SEQ):
            raise ValueError(f"limit must be None or an int from 1 to 2**63-1, not {limit!r}")
        with self._store.transaction(write=False) as tx:
            rows = tx.refusals(agent, eid, after, limit)
        return [Refusal(r[0], r[1], r[2], Admission(r[3]), *r[4:]) for r in rows]

    def prune_refusals(self, before: float) -> int:
        """Delete the refusal rows whose latest refusal is older than `before` (Unix seconds);
        return how many rows went. The registry keeps refusals until this is called (its
        retention is the owner's policy); reservations and their history are never pruned."""
        if isinstance(before, bool) or not isinstance(before, (int, float)) or before != before:
            raise ValueError(f"before must be a time in Unix seconds, not {before!r}")
        with self._store.transaction() as tx:
            pruned: int = tx.prune_refusals(float(before))
        return pruned

    def finalize(
        self, agent_identity: str, execution_id: str, disposition: str, terminal_audit_entry_hash: str | None = None
    ) -> ReservationState:
        """Record the end of an admitted call: `disposition` "completed" or "outcome_unknown".

        Moves an in_flight reservation to `disposition` and returns the new state. As cMCP's
        registry does it (agentrust-io/cmcp src/cmcp_runtime/execution/registry.py @69355037:
        "Legal only from `in_flight`; a second call is a no-op so a retry of the caller's terminal
        path cannot raise after the effect already happened"), a finalize of a
        reservation that is already terminal (finalized, or sealed outcome_unknown by `recover`)
        changes nothing, never raises, and returns the state the reservation keeps. More than
        cMCP: a call that names another outcome (another disposition, or a terminal audit entry
        hash other than the stored one, a hash after `recover` included) is recorded in the
        key's `history` as a "finalize_ignored" event with the disposition and hash it named, so
        an auditor sees the conflict; the same outcome again writes nothing.
        UnknownReservationError (a LookupError) if the key was never admitted. A registry opened
        with strict=True requires `terminal_audit_entry_hash`, as cMCP does (ValueError without).
        """
        agent = _text(agent_identity, "agent_identity")
        eid = _execution_id(execution_id)
        target = _disposition(disposition)
        if terminal_audit_entry_hash is None and self._strict:
            raise ValueError(
                "terminal_audit_entry_hash is required by a strict registry (cMCP pins every "
                "terminal outcome to its audit entry)"
            )
        audit = (
            None
            if terminal_audit_entry_hash is None
            else _rendered_digest(terminal_audit_entry_hash, "terminal_audit_entry_hash")
        )
        with self._store.transaction() as tx:
            row = tx.lock(agent, eid)
            if row is None:
                raise UnknownReservationError(
                    f"no reservation for agent {agent!r} and execution_id {eid!r}: finalize() needs an admitted call"
                )
            state, stored_audit = ReservationState(row[0]), row[1]
            now = time.time()
            if state is ReservationState.IN_FLIGHT:
                tx.finish(agent, eid, target.value, audit, now, "finalize")
                tx.record(agent, eid, "finalize", target.value, None, audit, now)
                return target
            if state is not target or (audit is not None and audit != stored_audit):
                # the storage's events hold admit / finalize / recover: a finalize event after the
                # key's terminal one is this ignored call (what it named), `history` labels it so
                tx.record(agent, eid, "finalize", target.value, None, audit, now)
            return state

    def recover(self) -> int:
        """Seal every in_flight reservation as outcome_unknown; return how many were sealed.

        For start-up after a crash: nobody knows whether an in-flight call's effect happened. It
        seals the in-flight calls of every client of the registry (every process on the file,
        every host on the PostgreSQL database), so run it only when no other client is admitting
        (at start-up, under the deployment's own exclusion).
        """
        now = time.time()
        with self._store.transaction() as tx:
            keys = tx.in_flight()
            for agent, eid in keys:
                tx.finish(agent, eid, ReservationState.OUTCOME_UNKNOWN.value, None, now, "recover")
                tx.record(agent, eid, "recover", ReservationState.OUTCOME_UNKNOWN.value, None, None, now)
            return len(keys)

    def get(self, agent_identity: str, execution_id: str) -> Reservation | None:
        """The stored reservation of a key, or None."""
        agent = _text(agent_identity, "agent_identity")
        eid = _execution_id(execution_id)
        with self._store.transaction(write=False) as tx:
            row = tx.get(agent, eid)
        if row is None:
            return None
        return Reservation(row[0], row[1], row[2], ReservationState(row[3]), *row[4:])

    def history(self, agent_identity: str, execution_id: str) -> list[AuditEvent]:
        """The audit trail of a key, oldest first: one event per state change ([] if none).

        Each event was written in the transaction of the change it records, so the trail and the
        reservation never disagree, whatever crashed when. A finalize that came after the key was
        already terminal, naming another outcome, changed nothing: it is listed as action
        "finalize_ignored", with the disposition (`state`) and hash that call named.
        """
        agent = _text(agent_identity, "agent_identity")
        eid = _execution_id(execution_id)
        with self._store.transaction(write=False) as tx:
            rows = tx.history(agent, eid)
        events, terminal = [], False
        for r in rows:
            action = r[3]
            if action in ("finalize", "recover"):
                if terminal:  # a reservation changes state once: a later finalize was ignored
                    action = FINALIZE_IGNORED
                terminal = True
            events.append(AuditEvent(r[0], r[1], r[2], action, ReservationState(r[4]), *r[5:]))
        return events


class _Store(Protocol):
    """What the rules need of a storage adapter (`_sqlite.SQLiteStore`,
    `_postgres.PostgresStore`): a transaction whose object runs the rules' statements."""

    kind: str
    path: str
    found_version: int

    def transaction(self, write: bool = True) -> AbstractContextManager[Any]: ...

    def close(self) -> None: ...
