"""Running another canonicalizer: one process per document (`call`, and the lab's `OneShotPeer`),
or one process for many documents over the batch protocol (`BatchPeer`, `serve`), and how a call
that gave no answer is classified (cannot-start, crash, timeout, protocol-error); what names a peer
for the lab (`PeerSpec`: NAME=COMMAND, or a manifest, as interop/setup.sh writes one)."""

from __future__ import annotations

import base64
import binascii
import collections
import contextlib
import json
import os
import select
import signal
import subprocess
import threading
import time
import weakref
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any, BinaryIO, Callable

#: The classes of a call that gave no answer: counted apart from agreements and disagreements.
CANNOT_START, CRASH, TIMEOUT = "cannot-start", "crash", "timeout"
FAULTS = (CANNOT_START, CRASH, TIMEOUT)
#: What a shell reports for a child it did not exec and that a crash signal killed (128 + N).
_CRASH_SIGNALS = (signal.SIGILL, signal.SIGABRT, signal.SIGBUS, signal.SIGFPE, signal.SIGKILL, signal.SIGSEGV)
_SHELL_CRASH = {128 + int(s): s for s in _CRASH_SIGNALS}


@dataclass(frozen=True)
class Reply:
    status: int  # exit status (negative: killed by that signal); -1 for a time-out or no shell
    stdout: bytes
    stderr: bytes
    fault: str | None = None  # cannot-start | crash | timeout: no answer at all

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


def fault_of(status: int) -> str | None:
    """cannot-start for 126 (not executable) and 127 (not found), the shell's words for a command
    that never ran; crash for a signal (a negative status, or 128 + a crash signal from a shell
    that did not exec its command); None for an answer (exit 0, or any other refusal)."""
    if status in (126, 127):
        return CANNOT_START
    if status < 0 or status in _SHELL_CRASH:
        return CRASH
    return None


def spawn(command: str, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """`command` through the shell, its three streams piped, in a session of its own (so that a
    time-out or a signal ends its whole process group)."""
    return subprocess.Popen(
        command,
        shell=True,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        env=env,
    )


def call(cmd: str, data: bytes, timeout: float) -> Reply:
    """Run `cmd` through the shell (so `VAR=value cmd` works) with `data` on stdin. On a time-out
    the whole process group is killed (a shell's children too)."""
    try:
        p = spawn(cmd)
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


# ---------------------------------------------------------------------------------------------------
# The batch protocol: one process, many documents (docs/interop.md)
# ---------------------------------------------------------------------------------------------------

#: An answer line that is neither `ok <base64>` nor `error <text>`: no answer, a fault of its own.
PROTOCOL_ERROR = "protocol-error"
OK, ERROR = "ok", "error"
#: Starts of a peer that has never answered before the rest of the documents are given up.
GIVE_UP_AFTER = 8


@dataclass(frozen=True)
class Outcome:
    """What a peer did with one document: `ok` (data = its canonical bytes), `error` (it refused;
    data = its words), or a fault (cannot-start, crash, timeout, protocol-error; data = what it
    said on stderr, detail = the fault in words)."""

    status: str
    data: bytes = b""
    detail: str = ""
    #: seconds from the previous answer (or the start of the process) to this one: the time the
    #: peer took for this document when it is the slow side of the pipe
    seconds: float = field(default=0.0, compare=False)

    @property
    def fault(self) -> bool:
        return self.status not in (OK, ERROR)


def encode_line(document: bytes) -> bytes:
    """One request line of the batch protocol."""
    return base64.b64encode(document) + b"\n"


def decode_answer(line: bytes) -> Outcome:
    """One answer line (without its line ending) of the batch protocol."""
    if line.startswith(b"ok ") or line == b"ok":
        try:
            return Outcome(OK, base64.b64decode(line[3:], validate=True))
        except binascii.Error:
            return Outcome(PROTOCOL_ERROR, line[:200], "an `ok` answer that is not base64")
    if line.startswith(b"error"):
        return Outcome(ERROR, line[6:].strip())
    return Outcome(PROTOCOL_ERROR, line[:200], f"not an answer line: {line[:60]!r}")


def serve(canonicalize: Callable[[bytes], bytes], stdin: BinaryIO, stdout: BinaryIO) -> int:
    """Answer the batch protocol on (stdin, stdout) until end of input: `ok <base64>` for what
    `canonicalize` returns, `error <type: message>` for any exception it raises. Returns the
    number of documents answered."""
    count = 0
    for line in stdin:
        try:
            text = base64.b64decode(line.rstrip(b"\r\n"), validate=True)
        except binascii.Error:
            answer = b"error not a base64 line\n"
        else:
            try:
                answer = b"ok " + base64.b64encode(canonicalize(text)) + b"\n"
            except Exception as exc:  # noqa: BLE001 - every refusal is an answer of the protocol
                words = f"{type(exc).__name__}: {exc}".replace("\r", " ").replace("\n", " ")[:300]
                answer = b"error " + words.encode("utf-8", "backslashreplace") + b"\n"
        stdout.write(answer)
        stdout.flush()
        count += 1
    return count


class LineReader:
    """Lines of a pipe, read with a deadline, in time linear in their length: the bytes are
    appended to one buffer, a line ending is searched for only in what came since the last
    search, and what was taken is dropped once it is most of the buffer (a 32 MB answer comes
    in 64 KiB reads: searching and copying the whole buffer at each read was quadratic)."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._buffer = bytearray()
        self._start = 0  # the first byte not yet returned
        self._searched = 0  # no line ending before this offset

    def _take(self, end: int) -> bytes:
        line = bytes(self._buffer[self._start : end])
        self._start = self._searched = end + 1 if end < len(self._buffer) else end
        if self._start > len(self._buffer) // 2:
            del self._buffer[: self._start]
            self._searched -= self._start
            self._start = 0
        return line

    def readline(self, timeout: float) -> bytes | None:
        """The next line without its ending; b"" at end of output; None when nothing came
        within `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            end = self._buffer.find(b"\n", max(self._start, self._searched))
            if end >= 0:
                line = self._take(end)
                return line[:-1] if line.endswith(b"\r") else line
            self._searched = len(self._buffer)
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([self._fd], [], [], left)
            if not ready:
                return None
            chunk = os.read(self._fd, 1 << 16)
            if not chunk:
                if len(self._buffer) > self._start:  # a last line without its ending
                    return self._take(len(self._buffer))
                return b""
            self._buffer += chunk


#: The peer processes running now, ended by `end_all` (the lab ends them when it is signalled:
#: they run in sessions of their own, so a signal to the lab's process group misses them).
_LIVE: weakref.WeakSet = weakref.WeakSet()


def end_all() -> None:
    """Kill every peer process still running (its whole process group)."""
    for process in list(_LIVE):
        try:
            os.killpg(process.proc.pid, signal.SIGKILL)
        except OSError:
            pass


@contextlib.contextmanager
def ended_on_signal(signals: Sequence[int] = (signal.SIGTERM, signal.SIGHUP)) -> Iterator[None]:
    """While inside, a SIGTERM or SIGHUP first kills every peer process (`end_all`), then does
    what it did before (the handler in place, or the default: the process ends by that signal).
    Peers run in sessions of their own (a timeout kills a peer's whole group, not the lab), so
    without this a terminated lab would leave them running. Main thread only; elsewhere a no-op."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = {sig: signal.getsignal(sig) for sig in signals}

    def handler(signum: int, frame: Any) -> None:
        end_all()
        old = before.get(signum)
        if callable(old):
            old(signum, frame)
            return
        signal.signal(signum, signal.SIG_DFL if old is None else old)
        if old in (None, signal.SIG_DFL):
            os.kill(os.getpid(), signum)

    for sig in signals:
        signal.signal(sig, handler)
    try:
        yield
    finally:
        for sig, old in before.items():
            signal.signal(sig, old if old is not None else signal.SIG_DFL)


class _Process:
    """One running peer: its stdin fed by a writer thread, its stdout read line by line with a
    deadline, its stderr drained (the last few KiB kept for reports)."""

    def __init__(self, command: str, env: dict[str, str] | None) -> None:
        self.proc = spawn(command, env)
        # the three pipes asked for above (typeshed types each as optional, whatever Popen was asked)
        assert self.proc.stdin is not None and self.proc.stdout is not None and self.proc.stderr is not None
        self._stdin, self._stdout, self._stderr_pipe = self.proc.stdin, self.proc.stdout, self.proc.stderr
        _LIVE.add(self)
        self.answered = 0
        self._lines = LineReader(self._stdout.fileno())
        self._stderr: collections.deque = collections.deque(maxlen=64)
        self._drain = threading.Thread(target=self._read_stderr, daemon=True)
        self._drain.start()
        self._writer: threading.Thread | None = None

    def _read_stderr(self) -> None:
        for line in self._stderr_pipe:
            self._stderr.append(line)

    def stderr(self) -> bytes:
        self._drain.join(0.5)
        return b"".join(self._stderr)

    def feed(self, documents: Sequence[bytes], stop: threading.Event, close: bool = False) -> None:
        """Write the documents in a thread (until `stop` is set); with `close`, end the input after
        them (a probe: the peer answers and exits, whether or not it flushes each answer)."""

        def write() -> None:
            pipe = self._stdin
            try:
                for doc in documents:
                    if stop.is_set():
                        return
                    pipe.write(encode_line(doc))
                pipe.flush()
                if close:
                    pipe.close()
            except (BrokenPipeError, ValueError, OSError):
                pass  # the peer stopped reading: the reader sees why

        self._writer = threading.Thread(target=write, daemon=True)
        self._writer.start()

    def readline(self, timeout: float) -> bytes | None:
        """The next line without its ending; b"" at end of output (the peer exited or closed it);
        None when nothing came within `timeout` seconds."""
        return self._lines.readline(timeout)

    def kill(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except OSError:
            pass
        self.close()

    def close(self, wait: float = 5.0) -> int | None:
        """Close stdin and collect the exit status (killing the group if it does not end)."""
        _LIVE.discard(self)
        try:
            self._stdin.close()
        except OSError:
            pass
        try:
            status = self.proc.wait(wait)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:
                pass
            status = self.proc.wait()
        if self._writer is not None:
            self._writer.join(1.0)
        self._stdout.close()
        return status


class BatchPeer:
    """A canonicalizer command speaking the batch protocol, kept running across `run` calls.

    Documents are written ahead by a thread while answers are read in order. When the process
    dies, stops answering within `timeout` seconds, or writes a line that is no answer, the
    first unanswered document is put alone to a new process (its input closed after it, so a
    peer that holds its answers gives them): if it does the same there, it is that document's
    fault (crash, timeout, protocol-error); if not, the run goes on after it.
    A command that never starts (the shell's 126/127, or no shell) is cannot-start for every
    document; so is, as its last fault, a command that has not answered one document in
    GIVE_UP_AFTER starts."""

    def __init__(self, command: str, timeout: float = 10.0, env: dict[str, str] | None = None) -> None:
        self.command = command
        self.timeout = timeout
        self.env = env
        self.restarts = 0
        self.answered = 0  # answers from processes that have ended
        #: time spent on faults: waiting for an answer that did not come, and the probes after
        self.fault_seconds = 0.0
        #: the peer gave no answer while its input was open, then answered once it was closed:
        #: it holds its answers until end of input (a breach of the protocol, reported). From
        #: then on each run's documents go to one process whose input is closed after them.
        self.needs_end_of_input = False
        self._process: _Process | None = None

    def close(self) -> None:
        if self._process is not None:
            self._process.close()
            self._process = None

    def __enter__(self) -> BatchPeer:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _fault(self, process: _Process, status: int | None, kind: str | None = None) -> Outcome:
        err = process.stderr()
        if kind == TIMEOUT:
            return Outcome(TIMEOUT, err, f"no answer within {self.timeout:g}s")
        if status is not None and process.answered == 0 and fault_of(status) == CANNOT_START:
            return Outcome(CANNOT_START, err, f"cannot start (exit {status}: {first_line(err)})")
        if status is not None and fault_of(status) == CRASH:
            return Outcome(CRASH, err, Reply(status, b"", err, CRASH).describe_fault())
        return Outcome(CRASH, err, f"exited (status {status}) before answering{_tail(err)}")

    def run(self, documents: Sequence[bytes], progress: Callable[[int], None] | None = None) -> list[Outcome]:
        """One Outcome per document, in order. `progress(n)` is called as answers arrive."""
        results: list[Outcome | None] = [None] * len(documents)
        i, probe = 0, False
        last_fault = ""
        while i < len(documents):
            if self._process is None:
                try:
                    self._process = _Process(self.command, self.env)
                except OSError as exc:
                    gone = Outcome(CANNOT_START, str(exc).encode(), f"cannot start: {exc.strerror or exc}")
                    results[i:] = [gone] * (len(documents) - i)
                    break
            process = self._process
            stop = threading.Event()
            round_start = last = time.perf_counter()
            end = i + 1 if probe else len(documents)
            process.feed(documents[i:end], stop, close=probe or self.needs_end_of_input)
            fault: Outcome | None = None
            while i < end:
                line = process.readline(self.timeout)
                if line is None or line == b"":
                    stop.set()
                    if line is None:
                        process.kill()
                        fault = self._fault(process, None, TIMEOUT)
                    else:
                        fault = self._fault(process, process.close())
                    break
                outcome = decode_answer(line)
                if outcome.status == PROTOCOL_ERROR:
                    stop.set()
                    process.kill()
                    fault = outcome
                    break
                now = time.perf_counter()
                results[i] = replace(outcome, seconds=now - last)
                last = now
                i += 1
                process.answered += 1
                if progress is not None:
                    progress(1)
            if probe or fault is not None:
                self.fault_seconds += time.perf_counter() - (round_start if probe else last)
            if fault is None:
                if probe:  # the probe was answered: on with the rest, in a new process
                    if last_fault == TIMEOUT:  # silent while its input was open, not once closed
                        self.needs_end_of_input = True
                    self.answered += process.answered
                    process.close()
                    self._process, probe = None, False
                    continue
                stop.set()
                if self.needs_end_of_input:  # its input was closed: it is ending
                    self.answered += process.answered
                    process.close()
                    self._process = None
                break  # every document answered; the process stays for the next run
            last_fault = fault.status
            self._process = None
            self.restarts += 1
            self.answered += process.answered
            if fault.status == CANNOT_START or (self.answered == 0 and self.restarts > GIVE_UP_AFTER):
                # the command cannot run at all, or never answered one document: no use going on
                if fault.status != CANNOT_START:
                    fault = Outcome(
                        fault.status, fault.data, f"{fault.detail} (given up: {self.restarts} starts, not one answer)"
                    )
                results[i:] = [fault] * (len(documents) - i)
                if progress is not None:
                    progress(len(documents) - i)
                break
            if probe:
                # the first unanswered document did it again alone: its own fault
                results[i] = fault
                i += 1
                if progress is not None:
                    progress(1)
            probe = not probe
        return [r if r is not None else Outcome(CRASH, b"", "no answer") for r in results]


# ---------------------------------------------------------------------------------------------------
# The lab's peers: the one-shot fallback, and what names a peer (NAME=COMMAND, a manifest)
# ---------------------------------------------------------------------------------------------------


def strip_newline(out: bytes) -> bytes:
    """The answer without one final line ending (\n or \r\n). A canonical JSON text never ends
    with one, so what is stripped is never part of a right answer."""
    if out.endswith(b"\r\n"):
        return out[:-2]
    return out[:-1] if out.endswith(b"\n") else out


class OneShotPeer:
    """The fallback protocol: one process per document, the document on stdin, its canonical
    bytes on stdout with exit 0, any other exit a refusal. `newline="strip"` takes one final line
    ending off each answer (a canonical text never ends with one)."""

    def __init__(self, command: str, timeout: float = 10.0, newline: str = "strip", jobs: int = 2) -> None:
        self.command, self.timeout, self.newline, self.jobs = command, timeout, newline, jobs

    def _one(self, document: bytes) -> Outcome:
        start = time.perf_counter()
        reply = call(self.command, document, self.timeout)
        took = time.perf_counter() - start
        if reply.fault is not None:
            return Outcome(reply.fault, reply.stderr, reply.describe_fault(), took)
        if reply.status != 0:
            return Outcome(ERROR, reply.stderr.strip()[-300:], "", took)
        return Outcome(OK, strip_newline(reply.stdout) if self.newline == "strip" else reply.stdout, "", took)

    def run(self, documents: Sequence[bytes], progress: Callable[[int], None] | None = None) -> list[Outcome]:
        out: list[Outcome] = []
        with ThreadPoolExecutor(max(1, self.jobs)) as pool:
            for outcome in pool.map(self._one, documents):
                out.append(outcome)
                if progress is not None:
                    progress(1)
        return out

    def close(self) -> None:
        pass


@dataclass
class PeerSpec:
    """A peer to run: a name, its command and protocol ("batch" or "one-shot"), and what is known
    of it (ecosystem, language, package, version) for the report."""

    name: str
    command: str
    protocol: str = "batch"
    ecosystem: str = ""
    language: str = ""
    package: str = ""
    version: str = ""

    def start(self, timeout: float, newline: str = "strip", jobs: int = 2) -> Any:
        if self.protocol == "one-shot":
            return OneShotPeer(self.command, timeout, newline, jobs)
        return BatchPeer(self.command, timeout)


def parse_peer(text: str, protocol: str = "batch") -> PeerSpec:
    """NAME=COMMAND (a command with no name is named by its first word)."""
    name, sep, command = text.partition("=")
    if not sep or not name.strip() or " " in name.strip():
        name, command = text.split()[0] if text.split() else "", text
    if not command.strip():
        raise ValueError(f"{text!r}: expected NAME=COMMAND")
    return PeerSpec(name.strip(), command.strip(), protocol)


def read_peers(path: str) -> list[PeerSpec]:
    """The peers of a manifest ({"peers": [{"name", "command", ...}]}, as interop/setup.sh writes)."""
    return read_manifest(path)[0]


def read_manifest(path: str) -> tuple[list[PeerSpec], list[dict[str, str]]]:
    """(peers, skipped) of a manifest, as interop/setup.sh writes one: {"peers": [{"name",
    "command", and optionally "protocol", "ecosystem", "language", "package", "version"}],
    "skipped": [{"name", "why"}]}. ValueError, naming the file and the entry, for anything else."""
    with open(path, "rb") as f:
        try:
            doc = json.load(f)
        except ValueError as exc:  # not JSON, or not UTF-8
            raise ValueError(f"{path}: not a peers manifest (not JSON: {exc})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("peers"), list):
        raise ValueError(f'{path}: not a peers manifest (an object with a "peers" list)')
    fields = set(PeerSpec.__dataclass_fields__)
    specs = []
    for n, p in enumerate(doc["peers"]):
        if not isinstance(p, dict) or not all(isinstance(p.get(k), str) and p[k].strip() for k in ("name", "command")):
            raise ValueError(f'{path}: peers[{n}] is not an object with a "name" and a "command" (strings)')
        if p.get("protocol", "batch") not in ("batch", "one-shot"):
            raise ValueError(f'{path}: peers[{n}]: protocol must be "batch" or "one-shot", not {p["protocol"]!r}')
        specs.append(PeerSpec(**{k: str(v) for k, v in p.items() if k in fields}))
    skipped = doc.get("skipped", [])
    if not isinstance(skipped, list):
        raise ValueError(f'{path}: "skipped" is not a list')
    for n, item in enumerate(skipped):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise ValueError(f'{path}: skipped[{n}] is not an object with a "name" (and a "why")')
    return specs, [{"name": str(s["name"]), "why": str(s.get("why", ""))} for s in skipped]
