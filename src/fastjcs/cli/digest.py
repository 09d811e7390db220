"""`fastjcs digest`: the digest of each FILE, and --check and --expect, which read digests back
(--jsonl is digest_jsonl's, --output-dir digest_jobs')."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from ..core.digests import digests_equal
from ..core.errors import FastJCSError
from ..core.files import digest_file
from ..core.hashing import ALGORITHMS
from .common import _escaped_line, _file_errors, _jsonl_hint, _profile_args, _say, _shown, _streamed
from .digest_jobs import _add_job_options, _digest_job, _is_job
from .digest_jsonl import _digest_jsonl
from .options import _FILES_HELP, _add_profile, _add_text_policy, _count, _examples
from .streams import (
    EXIT_ERROR,
    EXIT_NEGATIVE,
    EXIT_OK,
    CLIError,
    describe,
    interruptible,
    one_line,
    open_input,
    read_all,
    source_name,
)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "digest",
        help="digest a JSON text, or every line of a JSONL file",
        description="Print the digest of the canonical form of FILE (or stdin): "
        "'<alg>:<hex>' for jcs, bare hex for jcs-n (a CPB identifier). For each FILE, one "
        "line as sha256sum prints it, '<digest>  <name>' (stdin alone: the digest alone); --check "
        "reads such lines back (OK or FAILED per line, exit 1 on any FAILED, 2 on a malformed line).",
        epilog=_examples(
            "fastjcs digest doc.json",
            "fastjcs digest --algorithm sha384 - < doc.json",
            "fastjcs digest a.json b.json > SUMS",
            "fastjcs digest --check SUMS",
            "fastjcs digest --expect sha256:43258cff783fe7036d8a43033f830adfc60ec037382473548ac742b888292777 doc.json",
            "fastjcs digest --jsonl log.jsonl --jobs 0 > log.digests",
        ),
    )
    p.add_argument(
        "file",
        nargs="*",
        default=["-"],
        metavar="FILE",
        help=_FILES_HELP + "; with --check, digests files (lines '<digest>  <name>' or '<digest> *<name>')",
    )
    p.add_argument("--algorithm", choices=tuple(ALGORITHMS), default=None, help="sha256 or sha384 (default: sha256)")
    p.add_argument(
        "--check",
        action="store_true",
        help="read digests files (as digest prints for several FILEs) and check each file they name: "
        "'<name>: OK' or '<name>: FAILED'; exit 1 if any failed, 2 if a line is malformed",
    )
    p.add_argument(
        "--expect",
        metavar="DIGEST",
        help="one FILE: exit 0 if its digest is DIGEST ('<alg>:<hex>', or bare SHA-256 hex), 1 if not",
    )
    for flag, text in (  # sha256sum -c's options (_CHECK_ONLY, below, refuses them without --check)
        ("--quiet", "no line for a file that is OK"),
        ("--status", "nothing on stdout; the exit status says it"),
        ("--ignore-missing", "pass over listed files that do not exist"),
        ("--strict", "accepted for sha256sum's scripts; a malformed line is always an error (exit 2)"),
        ("--warn", "accepted for sha256sum's scripts; a malformed line is always named (exit 2)"),
    ):
        p.add_argument(flag, action="store_true", help="--check: " + text)
    _add_profile(p)
    p.add_argument(
        "--jsonl",
        action="store_true",
        help="one digest per input line, in order; a failed line prints 'error:LINE:COL: ...' in its place "
        "and makes the exit status 2 (bad input; the other lines are still digested)",
    )
    p.add_argument("--jobs", type=_count, default=1, metavar="N", help="--jsonl: workers (0: one per CPU)")
    p.add_argument("--fail-fast", action="store_true", help="--jsonl: stop at the first failed line")
    p.add_argument(
        "--no-progress",
        action="store_true",
        help="--jsonl: no progress bar (one is drawn on stderr when it is a terminal and FILE a named file; "
        "tqdm draws it when installed)",
    )
    p.add_argument("--chunk-bytes", type=_count, default=None, help=argparse.SUPPRESS)  # tests: many chunks
    _add_job_options(p)
    _add_text_policy(p)
    p.set_defaults(run=cmd_digest)


def _digest_settings(args: argparse.Namespace, bulk: bool = False) -> Any:
    """The settings of a digest run, checked for conflicts: a `fastjcs.bulk.jsonl.Settings` for
    the bulk paths (`bulk`: --jsonl, a job), else the same fields in a Namespace (a FILE's digest
    does not load fastjcs.bulk.jsonl, which imports dataclasses: ~5 ms)."""
    profile, exclusion = _profile_args(args)
    if profile == "jcs-n" and args.algorithm not in (None, "sha256"):
        raise CLIError("--profile jcs-n is SHA-256 only (CPB); leave out --algorithm or give sha256")
    fields = {
        "algorithm": args.algorithm or "sha256",
        "profile": profile,
        "exclusion": exclusion,
        "max_depth": args.max_depth,
        "strict_integers": args.strict_integers,
        "integers_only": args.integers_only,
    }
    if not bulk:
        return argparse.Namespace(**fields)
    from ..bulk.jsonl import Settings

    return Settings(**fields)


def cmd_digest(args: argparse.Namespace) -> int:
    files = args.file
    if files.count("-") > 1:
        raise CLIError("'-' (stdin) can be given once")
    if args.check or args.expect is not None:
        return _digest_verify(args, files)
    settings = _digest_settings(args, bulk=bool(args.jsonl) or args.output_dir is not None)
    _check_only(args)
    if len(files) > 1 and args.output_dir:
        raise CLIError("--output-dir takes one FILE: a path, or a glob or URL for many files")
    args.file = files[0]
    if _is_job(args):
        return _digest_job(args, settings)
    if args.jsonl:
        return _digest_jsonl(args, settings, files)
    if args.jobs != 1 or args.fail_fast:
        raise CLIError("--jobs and --fail-fast apply to --jsonl")
    if files == ["-"]:  # stdin alone: the digest alone (a line to paste, as documented)
        _say(_digest_line("-", settings))
        return EXIT_OK
    # Each FILE: "<digest>  <name>", as sha256sum prints it (also for one FILE: a list of one file
    # is checked as any other); a FILE that cannot be read or digested is one line on stderr and
    # the others go on (exit 2 at the end).
    status = EXIT_OK
    for path in files:
        try:
            line = _digest_line(path, settings)
        except CLIError as exc:
            sys.stdout.flush()
            print(f"fastjcs digest: {one_line(str(exc))}", file=sys.stderr)
            status = EXIT_ERROR
            continue
        _say(_escaped_line(line, path))
    return status


_CHECK_ONLY = ("quiet", "status", "ignore_missing", "strict", "warn")


def _check_only(args: argparse.Namespace) -> None:
    """Refuse the options of --check without it (silently ignored, they would mislead)."""
    for name in _CHECK_ONLY:
        if getattr(args, name):
            raise CLIError(f"--{name.replace('_', '-')} applies to --check")


def _digest_line(path: str, settings: Any) -> str:
    """The digest of one FILE as `digest` prints it; CLIError (naming it) when it cannot be read
    or digested."""
    source = source_name(path)
    if settings.profile != "jcs-n" and _streamed(path):
        with _file_errors(source):
            return interruptible(
                os.stat(path).st_size,
                digest_file,
                path,
                settings.algorithm,
                max_depth=settings.max_depth,
                strict_integers=settings.strict_integers,
                integers_only=settings.integers_only,
            )
    with open_input(path) as data:
        try:
            if settings.profile == "jcs-n":
                from ..core.hashing import hex_digest
                from ..cpb import historical_pre_image_text

                line = hex_digest(
                    historical_pre_image_text(
                        bytes(data), algorithm="jcs-n", exclusion_set=settings.exclusion, max_depth=settings.max_depth
                    ),
                    "sha256",
                )
            else:
                from ..core.digests import digest_text

                line = interruptible(
                    len(data),
                    digest_text,
                    data,
                    settings.algorithm,
                    max_depth=settings.max_depth,
                    strict_integers=settings.strict_integers,
                    integers_only=settings.integers_only,
                )
        except FastJCSError as exc:
            raise CLIError(describe(exc, source) + _jsonl_hint(exc)) from exc
    return line


# ---- digest --check and --expect ---------------------------------------------------------------


def _checked(digest: str) -> str:
    """The digest in the form `digests_equal` reads ('<alg>:<hex>', or bare hex), its hex in
    lowercase (sha256sum reads either case); InvalidDigestError if it is neither."""
    from ..core.digests import parse_digest, parse_hex_digest

    prefix, colon, hexpart = digest.rpartition(":")
    digest = f"{prefix}{colon}{hexpart.lower()}"
    (parse_digest if colon else parse_hex_digest)(digest)
    return digest


def _algorithm_of(digest: str) -> str:
    return digest.partition(":")[0] if ":" in digest else "sha256"


def _parse_digests(path: str) -> list[tuple[str, str]]:
    """The (digest, name) pairs of a digests file; CLIError for the first malformed line (nothing
    is checked then: a list that cannot be read whole is not half-checked).

    A line is what sha256sum writes and `sha256sum -c` reads: `<digest>  <name>`, or
    `<digest> *<name>` (binary mode, the same digest here), a leading backslash when the name is
    escaped, either case of hex, and a CR before the LF (a list written on Windows). The name is
    bytes: one that is not UTF-8 names the file of those bytes (as `digest` wrote it)."""
    source = source_name(path)
    text = read_all(path)
    pairs = []
    body = text[:-1] if text.endswith(b"\n") else text
    for n, raw in enumerate(body.split(b"\n") if body else [], 1):
        where = f"{source}:{n}"
        raw = raw[:-1] if raw.endswith(b"\r") else raw
        escaped = raw.startswith(b"\\")
        digest_bytes, sep, rest = raw[escaped:].partition(b" ")
        if not sep or rest[:1] not in (b" ", b"*") or len(rest) < 2:
            raise CLIError(
                f"{where}: not a digest line ('<digest>  <name>' or '<digest> *<name>', as digest prints for a FILE)"
            )
        try:
            digest = _checked(digest_bytes.decode("ascii"))
        except UnicodeDecodeError:
            raise CLIError(f"{where}: not a digest line (the digest is not ASCII)") from None
        except FastJCSError as exc:
            raise CLIError(f"{where}: {type(exc).__name__}: {exc}") from exc
        name = rest[1:].decode("utf-8", "surrogateescape")
        if escaped:
            name = _unescape(name, where)
        if "\0" in name:
            raise CLIError(f"{where}: the name holds a NUL byte (no file has such a name)")
        pairs.append((digest, name))
    if not pairs:
        raise CLIError(f"{source}: no digest lines (nothing to check)")
    return pairs


def _unescape(name: str, where: str) -> str:
    out, i = [], 0
    while i < len(name):
        c = name[i]
        if c == "\\":
            code = name[i + 1 : i + 2]
            if code not in ("\\", "n", "r"):
                raise CLIError(f"{where}: unknown escape '\\{code}' in the name")
            out.append({"\\": "\\", "n": "\n", "r": "\r"}[code])
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _digest_verify(args: argparse.Namespace, files: list[str]) -> int:
    """--check: every file a digests file names, against its digest; --expect: one FILE."""
    if args.check and args.expect is not None:
        raise CLIError("give --check (digests files) or --expect DIGEST (one FILE), not both")
    if not args.check:
        _check_only(args)
    option = "--check" if args.check else "--expect"
    for other, given in (
        ("--jsonl", args.jsonl),
        ("--output-dir", args.output_dir),
        ("--jobs", args.jobs != 1),
        ("--fail-fast", args.fail_fast),
    ):
        if given:
            raise CLIError(f"{other} does not go with {option}")
    if args.expect is not None:
        if len(files) != 1:
            raise CLIError("--expect takes one FILE")
        try:
            expected = _checked(args.expect)
        except FastJCSError as exc:
            raise CLIError(f"--expect: {type(exc).__name__}: {exc}") from exc
        args.algorithm = args.algorithm or _algorithm_of(expected)
        line = _digest_line(files[0], _digest_settings(args))
        if digests_equal(line, expected):
            print("match")
            return EXIT_OK
        print(f"mismatch: {source_name(files[0])} digests to {line}")
        return EXIT_NEGATIVE
    if args.algorithm is not None:
        raise CLIError("--algorithm does not go with --check: each line names its algorithm")
    return _check_lists(args, files)


def _check_lists(args: argparse.Namespace, files: list[str]) -> int:
    """--check: each file the digests files name against its line, reported as `sha256sum -c`
    does, with its options: --quiet (no OK lines), --status (nothing on stdout, no summary),
    --ignore-missing (a file that does not exist is passed over; none verified at all is a
    failure), --strict and --warn (a malformed line is always an error, exit 2, before any check)."""
    listed = [pair for path in files for pair in _parse_digests(path)]  # all read before any check
    mismatched = unreadable = verified = 0

    def report(name: str, verdict: str) -> None:
        if not args.status and not (args.quiet and verdict == "OK"):
            _say(f"{_shown(name)}: {verdict}")

    for expected, name in listed:
        args.algorithm = _algorithm_of(expected)
        if args.ignore_missing and name != "-" and not os.path.lexists(name):
            continue
        verified += 1
        try:
            line = _digest_line(name, _digest_settings(args))
        except CLIError as exc:
            sys.stdout.flush()
            print(f"fastjcs digest: {one_line(str(exc))}", file=sys.stderr)
            report(name, "FAILED open or read")
            unreadable += 1
            continue
        if digests_equal(line, expected):
            report(name, "OK")
        else:
            report(name, "FAILED")
            mismatched += 1
    sys.stdout.flush()
    if not verified:
        print(f"fastjcs digest: {', '.join(map(source_name, files))}: no file was verified", file=sys.stderr)
        return EXIT_NEGATIVE
    if not args.status:
        if unreadable:
            print(
                f"fastjcs digest: WARNING: {unreadable} listed file(s) could not be read or digested", file=sys.stderr
            )
        if mismatched:
            print(f"fastjcs digest: WARNING: {mismatched} computed digest(s) did NOT match", file=sys.stderr)
    return EXIT_NEGATIVE if mismatched or unreadable else EXIT_OK
