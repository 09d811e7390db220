"""`fastjcs canon`: the canonical form of each FILE."""

from __future__ import annotations

import argparse
import os
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Callable

from ..core.api import canonicalize_to
from ..core.errors import FastJCSError
from ..core.files import canonicalize_file
from .common import _file_errors, _profile_args, _streamed
from .options import _FILES_HELP, _add_profile, _add_text_policy, _examples
from .streams import (
    EXIT_NEGATIVE,
    EXIT_OK,
    CLIError,
    describe,
    open_input,
    open_output,
    source_name,
)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "canon",
        help="write the canonical form of a JSON text",
        description="Write the RFC 8785 canonical form of FILE (or stdin) to stdout, "
        "byte-exact, with no trailing newline (but for a terminal). With several FILEs, one canonical form per line "
        "(each followed by a newline: JSON Lines), in the order given; the first FILE that fails "
        "stops the run (exit 2).",
        epilog=_examples(
            "fastjcs canon doc.json",
            'echo \'{"b": 1, "a": [1.0, 1e2]}\' | fastjcs canon -',
            "fastjcs canon doc.json -o canonical.json",
            "fastjcs canon a.json b.json > both.jsonl",
            "fastjcs canon --check doc.json",
        ),
    )
    p.add_argument("file", nargs="*", default=["-"], metavar="FILE", help=_FILES_HELP)
    p.add_argument("-o", "--output", metavar="PATH", help="write to PATH atomically (nothing is written on error)")
    p.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 0 if every input is already canonical, 1 if not (each one named on stderr)",
    )
    _add_profile(p)
    _add_text_policy(p)
    p.set_defaults(run=cmd_canon)


@contextmanager
def _undone_on_error(out: Any) -> Iterator[None]:
    """On an error, cut stdout back to where this FILE's output began when it is a regular file
    (`canon FILE > OUT`: the parts streamed before a late error are not left in OUT)."""
    try:
        fd = out.fileno()
        start = os.lseek(fd, 0, os.SEEK_CUR) if stat.S_ISREG(os.fstat(fd).st_mode) else None
        out.flush()
    except (AttributeError, OSError, ValueError):
        start = None
    try:
        yield
    except BaseException:
        if start is not None:
            try:
                out.flush()
                os.ftruncate(fd, start)
                os.lseek(fd, start, os.SEEK_SET)
            except (OSError, ValueError):
                pass
        raise


def cmd_canon(args: argparse.Namespace) -> int:
    """One FILE: its canonical form, with no newline (but for a terminal, where the prompt would
    follow it on its line). Several: one canonical form per line (a
    canonical form holds no raw line break), in order; the first that fails ends the run, exit 2
    (a later line must not be taken for the form of an earlier FILE). -o PATH gets all of it or,
    on any error, nothing."""
    profile, exclusion = _profile_args(args)
    files = args.file
    if files.count("-") > 1:
        raise CLIError("'-' (stdin) can be given once")
    with open_output(None if args.check else args.output) as out:
        status = EXIT_OK
        for path in files:
            if _canon_one(args, path, profile, exclusion, out, len(files) > 1) != EXIT_OK:
                status = EXIT_NEGATIVE
        if len(files) == 1 and not args.check and args.output in (None, "-") and sys.stdout.isatty():
            out.write(b"\n")  # a terminal: the prompt on a line of its own; a pipe or a file gets the exact bytes
    return status


def _canon_one(
    args: argparse.Namespace, path: str, profile: str, exclusion: tuple[str, ...], out: Any, several: bool
) -> int:
    source = source_name(path)
    if profile != "jcs-n" and not args.check and _streamed(path):
        with _file_errors(source), _undone_on_error(out):
            canonicalize_file(
                path,
                out,
                max_depth=args.max_depth,
                strict_integers=args.strict_integers,
                integers_only=args.integers_only,
            )
        if several:
            out.write(b"\n")
        return EXIT_OK
    with open_input(path) as data:
        try:
            if profile == "jcs-n":
                from ..cpb import historical_pre_image_text

                result = historical_pre_image_text(
                    bytes(data), algorithm="jcs-n", exclusion_set=exclusion, max_depth=args.max_depth
                )
                run: Callable[[Callable[[Any], Any]], None] = lambda write: write(result)  # noqa: E731
            else:
                run = lambda write: canonicalize_to(  # noqa: E731
                    data,
                    write,
                    max_depth=args.max_depth,
                    strict_integers=args.strict_integers,
                    integers_only=args.integers_only,
                )
            if args.check:
                seen: list[bytes] = []
                run(lambda out: seen.append(bytes(out)))
                if seen[0] != bytes(data):
                    print(f"{source}: not in canonical form", file=sys.stderr)
                    return EXIT_NEGATIVE
                return EXIT_OK
            run(out.write)
            if several:
                out.write(b"\n")
        except FastJCSError as exc:
            raise CLIError(describe(exc, source)) from exc
    return EXIT_OK
