"""The PostgreSQL registry's connections: psycopg's errors as RegistryErrors that say whether the
change may have been recorded (`pg_error`), and the client-side deadline (`Watchdog`) that shuts
the socket of a call the server never answers."""

from __future__ import annotations

import contextlib
import math
import os
import socket
import threading
import time

from .errors import RegistryError, RegistryFormatError, RegistryReadOnlyError, RegistryStorageError

try:
    import psycopg
    from psycopg import errors as _pgerr
except ImportError:  # pragma: no cover - depends on the installation
    psycopg = None

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
