"""`fastjcs serve-vector`: answer one vector over the vector protocol."""

from __future__ import annotations

import argparse
import sys

from .options import _examples
from .streams import CLIError, read_all, source_name


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "serve-vector",
        help="answer one vector over the vector protocol",
        description='Read one vector; print {"pre_image", "digest"} and exit 0, exit 1 '
        "to refuse it, or print nothing (skipped).",
        epilog=_examples("fastjcs serve-vector vector.json", "fastjcs serve-vector - < vector.json"),
    )
    p.add_argument("file", nargs="?", default="-", metavar="FILE", help="one vector (JSON); '-' is stdin")
    p.set_defaults(run=cmd_serve_vector)


def cmd_serve_vector(args: argparse.Namespace) -> int:
    from ..conformance import protocol as _protocol

    raw = read_all(args.file)
    try:
        answer = _protocol.answer(raw)
    except _protocol.VectorError as exc:
        raise CLIError(f"{source_name(args.file)}: {exc}") from exc
    out, status = answer.render()
    sys.stdout.buffer.write(out)
    if answer.status == _protocol.FAIL:
        print(f"fastjcs serve-vector: refused: {answer.reason}", file=sys.stderr)
    return status
