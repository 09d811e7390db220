"""The errors of Execution Action Binding v1 and of the execution registry.

FastJCSError (fastjcs.core.errors)
├── ActionBindingError               not a valid Execution Action Binding v1 input
│   └── NotV1BindingError            another domain or version than v1's
└── RegistryError                    a refused registry change, or a registry file it cannot use
    ├── UnknownReservationError      finalize() of a key never admitted (a LookupError)
    ├── ReservationStateError        (no longer raised: a second finalize is a no-op)
    ├── RegistryNotFoundError        no registry to open at the path
    ├── RegistryExistsError          create() where something exists already
    ├── RegistryFormatError          the file is not an execution registry (empty, foreign)
    │   └── RegistryCorruptError     SQLite reports the file damaged
    ├── RegistryStorageError         the storage failed: disk full, I/O error, locked, no WAL
    │   └── RegistryReadOnlyError    the file or its directory cannot be written
    └── RegistryClosedError          a call after close()
"""

from __future__ import annotations

from ..core.errors import FastJCSError


class ActionBindingError(FastJCSError):
    """The input cannot be an Execution Action Binding v1 preimage.

    A field that is not a non-empty str without lone surrogates, a member added, dropped or
    renamed, or preimage bytes that are not the JCS form of such an object. `field` names the
    offending field or member when there is one.
    """

    def __init__(self, msg: str, field: str | None = None) -> None:
        self.field = field
        super().__init__(msg)


class NotV1BindingError(ActionBindingError):
    """A well-formed binding preimage of another domain or another version than v1."""


class RegistryError(FastJCSError):
    """The execution registry refused a state change, or storage without its guarantees."""


class UnknownReservationError(RegistryError, LookupError):
    """finalize() of an (agent identity, execution_id) that was never admitted."""


class ReservationStateError(RegistryError):
    """No longer raised: a finalize of a terminal reservation is a no-op, as cMCP's is, and one
    naming another outcome is recorded in its history ("finalize_ignored"). Kept so that code
    catching it keeps importing."""


# The registry's storage errors name the registry's path and the cause; the sqlite3 exception that
# reported the cause, if any, is chained (`__cause__`).


class RegistryNotFoundError(RegistryError):
    """No registry to open: nothing at the path, or ":memory:" (which only `create` makes)."""


class RegistryExistsError(RegistryError):
    """`ExecutionRegistry.create` of a path where something exists already (never overwritten)."""


class RegistryFormatError(RegistryError):
    """The file is not an execution registry: empty, not SQLite, or another database."""


class RegistryCorruptError(RegistryFormatError):
    """SQLite reports the registry file damaged (a malformed database image)."""


class RegistryStorageError(RegistryError):
    """The storage failed an operation: disk full, I/O error, locked past the timeout, no WAL."""


class RegistryReadOnlyError(RegistryStorageError):
    """The registry file, or the directory that holds its journal files, cannot be written."""


class RegistryClosedError(RegistryError):
    """A registry method called after `close()`."""


__all__ = [
    "ActionBindingError",
    "NotV1BindingError",
    "RegistryError",
    "UnknownReservationError",
    "ReservationStateError",
    "RegistryNotFoundError",
    "RegistryExistsError",
    "RegistryFormatError",
    "RegistryCorruptError",
    "RegistryStorageError",
    "RegistryReadOnlyError",
    "RegistryClosedError",
]
