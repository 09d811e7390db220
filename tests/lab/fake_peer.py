"""A canonicalizer peer that misbehaves on purpose, for the lab's tests: the batch protocol by
default, or one document per process with --one-shot.

    python tests/lab/fake_peer.py MODE [MODE...] [--one-shot]

It answers with json.dumps(sort_keys=True) of the parsed document (not JCS: numbers, escapes and
member order differ from RFC 8785 where the tests need them to), after these modes:
  crash      dies by SIGSEGV on a document containing "boom"
  hang       sleeps on a document containing "hang"
  junk       writes a line that is no answer for a document containing "junk"
  buffered   keeps every answer until end of input (a peer that does not flush)
  once       answers one document, then exits 0
  newline    adds "\\n" to every canonical text
  dupes      refuses nothing: duplicate names keep the last (json.loads does)
  ascii      escapes every non-ASCII character (ensure_ascii)
  strict     refuses every document with a non-ASCII byte
  swap       answers each pair of documents in swapped order (the first held until the second)
  slow       sleeps $FAKE_SLOW seconds on each document of more than 1 MB, then answers
  pid        writes its process id to the file $FAKE_PID, then answers
"""

import base64
import json
import os
import signal
import sys
import time

modes = set(sys.argv[1:]) if __name__ == "__main__" else set()


def canon(doc: bytes) -> bytes:
    if b"boom" in doc and "crash" in modes:
        os.kill(os.getpid(), signal.SIGSEGV)
    if b"hang" in doc and "hang" in modes:
        time.sleep(600)
    if "strict" in modes and any(b > 127 for b in doc):
        raise ValueError("non-ASCII")
    value = json.loads(doc.decode("utf-8"))
    out = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii="ascii" in modes)
    return out.encode("utf-8", "surrogatepass") + (b"\n" if "newline" in modes else b"")


def main() -> None:
    if "--one-shot" in modes:
        try:
            sys.stdout.buffer.write(canon(sys.stdin.buffer.read()))
        except ValueError as exc:
            sys.exit(f"refused: {exc}")
        return
    held = []
    if "pid" in modes:
        with open(os.environ["FAKE_PID"], "w") as f:
            f.write(str(os.getpid()))
    pending = None
    for line in sys.stdin.buffer:
        doc = base64.b64decode(line.strip())
        if b"junk" in doc and "junk" in modes:
            answer = "hello\n"
        else:
            try:
                answer = "ok " + base64.b64encode(canon(doc)).decode() + "\n"
            except ValueError as exc:
                answer = "error " + str(exc).replace("\n", " ") + "\n"
        if "slow" in modes and len(doc) > 1_000_000:
            time.sleep(float(os.environ["FAKE_SLOW"]))
        if "buffered" in modes:
            held.append(answer)
            continue
        if "swap" in modes:
            if pending is None:
                pending = answer
                continue
            answer, pending = answer + pending, None
        sys.stdout.write(answer)
        sys.stdout.flush()
        if "once" in modes:
            return
    sys.stdout.write("".join(held) + (pending or ""))


if __name__ == "__main__":
    main()
