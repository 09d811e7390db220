"""JSON Lines helpers shared by both backends: splitting a JSONL text into its lines, and
rendering per-line digest results as the command line writes them."""

from __future__ import annotations

import re


def split_lines(data: bytes) -> list[bytes]:
    """The lines of a JSONL text: split at b"\\n"; a final newline ends the last line rather than
    starting an empty one; empty input has no lines. (A "\\r" before the newline is JSON
    whitespace and stays with its line.)

    >>> split_lines(b'{}\\n[1]\\r\\n')
    [b'{}', b'[1]\\r']
    """
    if not data:
        return []
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    return lines


def lines_hex_from(results: list, data: bytes, prefix: str) -> tuple[bytes, int, list]:
    """A backend's `digest_lines_hex` answer from its `digest_lines` answer: (output, lines,
    failures), see `fastjcs.core.backend.Backend.digest_lines_hex`."""
    out: list[str] = []
    failures: list = []
    starts: list[int] | None = None
    size = 0
    for i, r in enumerate(results):
        if type(r) is bytes:
            line = prefix + r.hex() + "\n"
            out.append(line)
            size += len(line)
            continue
        if starts is None:
            starts = [0] + [m.end() for m in re.finditer(b"\n", data)]
        message = (getattr(r, "msg", None) or str(r)).replace("\r", "\\r").replace("\n", "\\n")
        failures.append((i, starts[i], size, getattr(r, "offset", None), f"{type(r).__name__}: {message}"))
    return "".join(out).encode("ascii"), len(results), failures
