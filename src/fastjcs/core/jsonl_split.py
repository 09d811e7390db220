"""JSON Lines: the one split rule, and the per-line digest results rendered as the command line
writes them.

The split rule, everywhere fastjcs reads JSON Lines (here, `fastjcs.bulk.jsonl`, which cuts a
stream into chunks of whole lines, and the C core's `fjcs_digest_lines_hex` in csrc/batch.c,
held to this definition by tests/core/test_jsonl_split.py): a line ends at each b"\\n" (NEWLINE)
and nowhere else; a final newline ends the last line rather than starting an empty one; empty
input has no lines. Nothing else is taken out of a line: a "\\r" (before the newline or alone),
spaces and NUL bytes stay in it, for the JSON parser to take as whitespace or refuse.
"""

from __future__ import annotations

import re

#: The byte that ends a line, and the only one.
NEWLINE = b"\n"


def split_lines(data: bytes) -> list[bytes]:
    """The lines of a JSON Lines text, by the split rule above.

    >>> split_lines(b'{}\\n[1]\\r\\n')
    [b'{}', b'[1]\\r']
    """
    if not data:
        return []
    lines = data.split(NEWLINE)
    if lines[-1] == b"":
        lines.pop()
    return lines


def line_starts(data: bytes) -> list[int]:
    """The offset in `data` of each line of `split_lines(data)` (and one past a final newline).

    >>> line_starts(b'{}\\n[1]\\r\\n')
    [0, 3, 8]
    """
    return [0] + [m.end() for m in re.finditer(re.escape(NEWLINE), data)]


def whole_lines_end(block: bytes | bytearray, end: int) -> int:
    """The end of the whole lines of block[:end], past the last newline; 0 when it has none (all
    of it belongs to an unfinished line)."""
    return block.rfind(NEWLINE, 0, end) + 1


def first_line_end(block: bytes | bytearray, end: int) -> int:
    """The end of the first line of block[:end], past its newline; 0 when it has none."""
    return block.find(NEWLINE, 0, end) + 1


def lines_hex_from(results: list, data: bytes, prefix: str) -> tuple[bytes, int, list]:
    """A backend's `digest_lines_hex` answer from its `digest_lines` answer: (output, lines,
    failures), see `fastjcs.core.protocol.Backend.digest_lines_hex`."""
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
            starts = line_starts(data)
        message = (getattr(r, "msg", None) or str(r)).replace("\r", "\\r").replace("\n", "\\n")
        failures.append((i, starts[i], size, getattr(r, "offset", None), f"{type(r).__name__}: {message}"))
    return "".join(out).encode("ascii"), len(results), failures
