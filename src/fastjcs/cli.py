"""The `fastjcs` command line.

    fastjcs canon [FILE] [-o PATH] [--strict-integers] [--max-depth N]

Input is FILE, or stdin when FILE is absent or "-". Exit status: 0 success, 1 a negative verdict,
2 bad input or usage. Errors go to stderr on one line, with the position for text input.
"""

from __future__ import annotations

import argparse
import mmap
import os
import sys
import tempfile
from contextlib import contextmanager
from typing import BinaryIO, Callable, Iterator, List, Optional, Sequence

from . import __version__
from ._core import DEFAULT_MAX_DEPTH, canonicalize_to
from ._errors import CanonicalizationError, FastJCSError

EXIT_OK, EXIT_NEGATIVE, EXIT_ERROR = 0, 1, 2


class CLIError(Exception):
    """A one-line error for stderr; exit status 2."""


# ---- input and output ------------------------------------------------------------------------


@contextmanager
def open_input(path: str) -> Iterator[bytes]:
    """The bytes of FILE, or of stdin for "-". A regular file is mapped, not read, so a large
    input costs address space rather than a second copy in memory."""
    if path == "-":
        yield sys.stdin.buffer.read()
        return
    try:
        f = open(path, "rb")
    except OSError as exc:
        raise CLIError(f"{path}: {exc.strerror}") from exc
    with f:
        size = os.fstat(f.fileno()).st_size
        if size == 0:
            yield b""
            return
        try:
            mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError):  # not mappable (a pipe, a special file): read it
            yield f.read()
            return
        with mapped:
            view = memoryview(mapped)
            try:
                yield view  # type: ignore[misc]
            finally:
                view.release()


@contextmanager
def open_output(path: Optional[str]) -> Iterator[BinaryIO]:
    """stdout, or PATH written atomically: a temporary file beside it, renamed into place only
    when the block succeeds, removed otherwise, so PATH never holds a partial result."""
    if path is None or path == "-":
        yield sys.stdout.buffer
        sys.stdout.buffer.flush()
        return
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".fastjcs-", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def describe(exc: BaseException, source: str) -> str:
    """One line: where (file:line:column for text errors) and what."""
    if isinstance(exc, CanonicalizationError) and exc.offset is not None and exc.lineno is not None:
        return f"{source}:{exc.lineno}:{exc.colno}: {type(exc).__name__}: {exc.msg} (byte {exc.offset})"
    if isinstance(exc, FastJCSError):
        return f"{source}: {type(exc).__name__}: {exc}"
    return f"{source}: {exc}"


# ---- commands --------------------------------------------------------------------------------


def cmd_canon(args: argparse.Namespace) -> int:
    source = "<stdin>" if args.file == "-" else args.file
    with open_input(args.file) as data:
        try:
            with open_output(args.output) as out:
                canonicalize_to(data, out.write, max_depth=args.max_depth,
                                strict_integers=args.strict_integers)
        except FastJCSError as exc:
            raise CLIError(describe(exc, source)) from exc
    return EXIT_OK


def _add_text_policy(p: argparse.ArgumentParser) -> None:
    p.add_argument("--strict-integers", action="store_true",
                   help="refuse integer tokens outside +/-(2^53-1) instead of rounding them (I-JSON)")
    p.add_argument("--max-depth", type=int, default=DEFAULT_MAX_DEPTH, metavar="N",
                   help=f"deepest nesting allowed (default {DEFAULT_MAX_DEPTH})")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="fastjcs", description="RFC 8785 JSON canonicalization (JCS).")
    parser.add_argument("--version", action="version", version=f"fastjcs {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("canon", help="write the canonical form of a JSON text",
                       description="Write the RFC 8785 canonical form of FILE (or stdin) to stdout, "
                                   "byte-exact, with no trailing newline.")
    p.add_argument("file", nargs="?", default="-", metavar="FILE")
    p.add_argument("-o", "--output", metavar="PATH",
                   help="write to PATH atomically (nothing is written on error)")
    _add_text_policy(p)
    p.set_defaults(run=cmd_canon)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except CLIError as exc:
        print(f"fastjcs {args.command}: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:
        # The reader went away (`| head`): not our error. Keep Python from complaining at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
