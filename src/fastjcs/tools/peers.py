"""Running another canonicalizer: one process per document (`call`), and how a call that gave no
answer is classified (cannot-start, crash, timeout)."""

from __future__ import annotations

import os
import signal
import subprocess
from dataclasses import dataclass
from typing import Optional

#: The classes of a call that gave no answer: counted apart from agreements and disagreements.
CANNOT_START, CRASH, TIMEOUT = "cannot-start", "crash", "timeout"
FAULTS = (CANNOT_START, CRASH, TIMEOUT)
#: What a shell reports for a child it did not exec and that a crash signal killed (128 + N).
_CRASH_SIGNALS = (signal.SIGILL, signal.SIGABRT, signal.SIGBUS, signal.SIGFPE, signal.SIGKILL, signal.SIGSEGV)
_SHELL_CRASH = {128 + int(s): s for s in _CRASH_SIGNALS}


@dataclass(frozen=True)
class Reply:
    status: int          # exit status (negative: killed by that signal); -1 for a time-out or no shell
    stdout: bytes
    stderr: bytes
    fault: Optional[str] = None   # cannot-start | crash | timeout: no answer at all

    def describe_fault(self) -> str:
        """The fault in words, for a report."""
        if self.fault == TIMEOUT:
            return f"timeout ({first_line(self.stderr)})"
        if self.status < -1 or self.status in _SHELL_CRASH:
            sig = -self.status if self.status < 0 else int(_SHELL_CRASH[self.status])
            return f"crash (killed by {signal.Signals(sig).name}){_tail(self.stderr)}"
        return f"{(self.fault or '').replace('-', ' ')} (exit {self.status}: {first_line(self.stderr)})"


def _tail(stderr: bytes) -> str:
    line = first_line(stderr)
    return f": {line}" if line else ""


def fault_of(status: int) -> Optional[str]:
    """cannot-start for 126 (not executable) and 127 (not found), the shell's words for a command
    that never ran; crash for a signal (a negative status, or 128 + a crash signal from a shell
    that did not exec its command); None for an answer (exit 0, or any other refusal)."""
    if status in (126, 127):
        return CANNOT_START
    if status < 0 or status in _SHELL_CRASH:
        return CRASH
    return None


def call(cmd: str, data: bytes, timeout: float) -> Reply:
    """Run `cmd` through the shell (so `VAR=value cmd` works) with `data` on stdin. On a time-out
    the whole process group is killed (a shell's children too)."""
    try:
        p = subprocess.Popen(cmd, shell=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, start_new_session=True)
    except OSError as exc:
        return Reply(-1, b"", str(exc).encode(), CANNOT_START)
    try:
        out, err = p.communicate(data, timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            pass
        p.communicate()
        return Reply(-1, b"", f"no answer within {timeout:g}s".encode(), TIMEOUT)
    return Reply(p.returncode, out, err, fault_of(p.returncode))


def first_line(data: bytes) -> str:
    text = data.decode("utf-8", "replace").strip().splitlines()
    return text[-1][:200] if text else ""
