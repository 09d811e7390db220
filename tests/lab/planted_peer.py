"""A planted wrong peer of tests/lab/planted.py (BY_CLASS) as a command.

    python tests/lab/planted_peer.py NAME               the batch protocol
    python tests/lab/planted_peer.py NAME --one-shot    one document per process
    python tests/lab/planted_peer.py --serve SOCKET     every planted peer, for planted_client.py

A one-shot peer that imports fastjcs costs a process start each case; planted_client.py (the
standard library only) puts each document to a server of this file over a Unix socket instead,
so that a test can run the default corpus through `crosscheck --canon-impl` in seconds. What a
planted peer asks for (planted.Crash, Hang, Slow, Junk) happens in the process that answers the
protocol: this one, or the client.
"""

from __future__ import annotations

import base64
import os
import signal
import socketserver
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import planted  # noqa: E402


def answer(name: str, doc: bytes) -> tuple[str, bytes]:
    """(what to do, bytes): ("ok", canonical), ("refuse", why), ("crash" | "hang" | "junk", b""),
    ("slow", b"<seconds> " + canonical)."""
    try:
        return "ok", planted.BY_CLASS[name][0](doc)
    except planted.Refused as exc:
        return "refuse", str(exc).encode()
    except planted.Crash:
        return "crash", b""
    except planted.Hang:
        return "hang", b""
    except planted.Junk:
        return "junk", b""
    except planted.Slow as slow:
        return "slow", f"{slow.seconds} ".encode() + slow.answer
    except (ValueError, RecursionError) as exc:  # a planted peer's own reader gave up: a refusal
        return "refuse", f"{type(exc).__name__}: {exc}".encode()


def act(what: str, data: bytes) -> bytes | None:
    """Do what an answer asks; the canonical bytes to write, or None for a refusal."""
    if what == "crash":
        os.kill(os.getpid(), signal.SIGSEGV)
    if what == "hang":
        time.sleep(600)
    if what == "slow":
        seconds, _, data = data.partition(b" ")
        time.sleep(float(seconds))
    return None if what == "refuse" else data


def batch(name: str) -> None:
    for line in sys.stdin.buffer:
        what, data = answer(name, base64.b64decode(line.strip()))
        if what == "junk":
            sys.stdout.write("hello\n")
        elif what == "refuse":
            sys.stdout.write("error " + data.decode("utf-8", "replace").replace("\n", " ") + "\n")
        else:
            sys.stdout.write("ok " + base64.b64encode(act(what, data) or b"").decode() + "\n")
        sys.stdout.flush()


def one_shot(name: str) -> None:
    what, data = answer(name, sys.stdin.buffer.read())
    out = act(what, data)
    if out is None:
        sys.exit(f"refused: {data.decode('utf-8', 'replace')}")
    sys.stdout.buffer.write(out)


class _Handler(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        name = self.rfile.readline().decode().strip()
        what, data = answer(name, self.rfile.read())
        self.wfile.write(what.encode() + b"\n" + data)


class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


if __name__ == "__main__":
    if sys.argv[1] == "--serve":
        with Server(sys.argv[2], _Handler) as server:
            server.serve_forever()
    elif sys.argv[2:] == ["--one-shot"]:
        one_shot(sys.argv[1])
    else:
        batch(sys.argv[1])
