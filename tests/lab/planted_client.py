"""A one-shot peer (canon protocol) that asks planted_peer.py --serve SOCKET for the answer of the
planted peer NAME: python -S tests/lab/planted_client.py SOCKET NAME. Standard library only, so
that a process a document stays cheap; it crashes, hangs or sleeps itself when told to."""

import os
import signal
import socket
import sys
import time


def main() -> None:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(sys.argv[1])
    sock.sendall(sys.argv[2].encode() + b"\n" + sys.stdin.buffer.read())
    sock.shutdown(socket.SHUT_WR)
    reply = b"".join(iter(lambda: sock.recv(1 << 16), b""))
    what, _, data = reply.partition(b"\n")
    if what == b"crash":
        os.kill(os.getpid(), signal.SIGSEGV)
    if what == b"hang":
        time.sleep(600)
    if what == b"slow":
        seconds, _, data = data.partition(b" ")
        time.sleep(float(seconds))
    if what == b"refuse":
        sys.exit(f"refused: {data.decode('utf-8', 'replace')}")
    sys.stdout.buffer.write(data)


if __name__ == "__main__":
    main()
