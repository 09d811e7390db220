"""The commands of the `fastjcs` command line: one `cmd_<name>(args) -> exit status` each."""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import os
import re
import shlex
import stat
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any, Callable

from ..conformance import default_suites
from ..core.api import canonicalize_to
from ..core.digests import digests_equal
from ..core.errors import FastJCSError
from ..core.files import canonicalize_file, digest_file
from .streams import (
    EXIT_ERROR,
    EXIT_NEGATIVE,
    EXIT_OK,
    CLIError,
    describe,
    interruptible,
    one_line,
    open_input,
    open_output,
    open_source,
    read_all,
    source_name,
)


def install_hint(extra: str) -> str:
    """How to install an extra, from where fastjcs is: a checkout (it is on no package index)."""
    return f"install the {extra} extra: pip install '.[{extra}]' from a fastjcs checkout"


def _profile_args(args: argparse.Namespace) -> tuple[str, tuple[str, ...]]:
    exclusion = tuple(args.exclude or ())
    if exclusion and args.profile != "jcs-n":
        raise CLIError("--exclude applies to --profile jcs-n (CPB's exclusion set)")
    return args.profile, exclusion


#: The module each worker of `--cluster local:N` preloads: Dask runs its `dask_setup(worker)`.
WORKER_PRELOAD = "fastjcs.bulk.dask"


# ---- one document on a file, streamed ----------------------------------------------------------


def _streamed(path: str) -> bool:
    """Is FILE read in bounded memory (fastjcs.canonicalize_file, digest_file)? A regular file
    is; stdin and other inputs are read whole, as before."""
    return path != "-" and os.path.isfile(path)


@contextmanager
def _file_errors(source: str) -> Iterator[None]:
    """A streamed FILE's errors as one line naming it (with the in-memory route's JSON Lines hint)."""
    try:
        yield
    except FastJCSError as exc:
        raise CLIError(describe(exc, source) + _jsonl_hint(exc)) from exc
    except OSError as exc:
        raise CLIError(f"{source}: {exc.strerror or exc}") from exc


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


# ---- canon -----------------------------------------------------------------------------------


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


# ---- digest ----------------------------------------------------------------------------------


def _digest_settings(args: argparse.Namespace) -> Any:
    """The settings of a digest run (a `fastjcs.bulk.jsonl.Settings`), checked for conflicts."""
    from ..bulk.jsonl import Settings

    profile, exclusion = _profile_args(args)
    if profile == "jcs-n" and args.algorithm not in (None, "sha256"):
        raise CLIError("--profile jcs-n is SHA-256 only (CPB); leave out --algorithm or give sha256")
    return Settings(
        args.algorithm or "sha256", profile, exclusion, args.max_depth, args.strict_integers, args.integers_only
    )


def cmd_digest(args: argparse.Namespace) -> int:
    files = args.file
    if files.count("-") > 1:
        raise CLIError("'-' (stdin) can be given once")
    if args.check or args.expect is not None:
        return _digest_verify(args, files)
    settings = _digest_settings(args)
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


def _say(line: str) -> None:
    """One line on stdout, a name in it as the bytes it was given as (a name that is not UTF-8,
    held by Python with surrogate escapes, is written back as its bytes, as sha256sum writes it)."""
    sys.stdout.flush()
    sys.stdout.buffer.write(line.encode("utf-8", "surrogateescape") + b"\n")


_CHECK_ONLY = ("quiet", "status", "ignore_missing", "strict", "warn")


def _check_only(args: argparse.Namespace) -> None:
    """Refuse the options of --check without it (silently ignored, they would mislead)."""
    for name in _CHECK_ONLY:
        if getattr(args, name):
            raise CLIError(f"--{name.replace('_', '-')} applies to --check")


def _escaped_line(digest: str, name: str) -> str:
    """A line of a digests file: sha256sum's, with its escape for a name holding a backslash, a
    line feed or a carriage return (the line starts with a backslash, and they are written as a
    backslash followed by a backslash, n or r)."""
    if not any(c in name for c in "\\\n\r"):
        return f"{digest}  {name}"
    escaped = name.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")
    return f"\\{digest}  {escaped}"


def _shown(name: str) -> str:
    """A name on a line of --check's report: escaped as in a digests file (sha256sum -c's way)."""
    line = _escaped_line("", name)
    return line[0] + line[3:] if line.startswith("\\") else name


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


def _jsonl_hint(exc: FastJCSError) -> str:
    """A hint for a JSON Lines text given as one document: a second value on a later line."""
    if "expected end of input" in str(exc) and (getattr(exc, "lineno", None) or 1) > 1:
        return "; one JSON text per line (JSON Lines)? give --jsonl"
    return ""


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


def _progress_bar(
    args: argparse.Namespace, path: str
) -> tuple[Callable[[int], None] | None, Callable[[], None], Callable[[], None]]:
    """A progress bar on stderr when stderr is a terminal and the input a named file: tqdm's when
    it is installed (the `progress` extra), else a line of fastjcs's own; nothing otherwise. Its
    update(bytes), close() and wipe() (before a message on stderr: ours is redrawn after it)."""
    nothing = (None, lambda: None, lambda: None)
    if args.no_progress or path == "-" or not sys.stderr.isatty():
        return nothing
    try:
        total = os.path.getsize(path)
    except OSError:
        return nothing  # open_source names the file and the reason
    try:
        from tqdm import tqdm
    except ImportError:
        bar = _Progress(total)
        return bar.update, bar.close, bar.close
    tq = tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1024, desc="digest", file=sys.stderr, leave=False)
    return tq.update, tq.close, lambda: None


class _Progress:
    """`digest: 41.2 MiB of 100.0 MiB (41%)` on stderr, redrawn in place at most 5 times a second,
    wiped at the end (as tqdm's bar with leave=False): the bar without the tqdm extra."""

    def __init__(self, total: int) -> None:
        import time

        self._clock = time.monotonic
        self.total, self.done, self._drawn, self._width = total, 0, 0.0, 0

    def update(self, n: int) -> None:
        self.done += n
        now = self._clock()
        if now - self._drawn >= 0.2 or self.done >= self.total:
            self._drawn = now
            share = f" ({100 * self.done // self.total}%)" if self.total else ""
            text = f"digest: {_mib(self.done)} of {_mib(self.total)}{share}"
            sys.stderr.write("\r" + text.ljust(self._width))
            sys.stderr.flush()
            self._width = len(text)

    def close(self) -> None:
        """Wipe the line (at the end, or before a message: the next update draws it again)."""
        if self._width:
            sys.stderr.write("\r" + " " * self._width + "\r")
            sys.stderr.flush()
            self._width, self._drawn = 0, 0.0


def _mib(n: int) -> str:
    return f"{n / (1 << 20):.1f} MiB"


def _jsonl_workers(path: str, jobs: int, chunk: int) -> int:
    """The workers of `digest --jsonl --jobs N`: at most one per CPU and one per chunk of a file
    (`fastjcs.bulk.jsonl.workers_for`); a request that is capped is said on stderr, once."""
    from ..bulk import jsonl as _jsonl

    size = None
    if path != "-":
        try:
            info = os.stat(path)
            size = info.st_size if stat.S_ISREG(info.st_mode) else None
        except OSError:
            pass  # open_source names the file and the reason
    n = _jsonl.workers_for(jobs, size, chunk)
    if jobs > n:
        chunks = "" if size is None else f", {max(1, -(-size // chunk))} chunk(s) of input"
        print(
            f"fastjcs digest: --jobs {jobs}: {n} worker(s) ({_jsonl.cpus()} CPU(s) here{chunks})",
            file=sys.stderr,
        )
    return n


def _digest_jsonl(args: argparse.Namespace, settings: Any, files: list[str]) -> int:
    """--jsonl: one output line per input line, each FILE's lines in turn (their line numbers
    their own, stderr naming the FILE); a FILE that cannot be read is one line on stderr and the
    others go on. Exit 2 if any line or FILE failed (bad input)."""
    from ..bulk import jsonl as _jsonl

    chunk = args.chunk_bytes or _jsonl.CHUNK
    out = sys.stdout.buffer

    def write(lines: bytes) -> None:
        # Whole lines (a chunk's digests) reach stdout whole: a stop signal waits for the write to
        # end, so that what a Ctrl-C leaves on stdout never ends inside a digest.
        with _jsonl.stop_signals_held():
            out.write(lines)
            out.flush()

    failed = unreadable = 0
    for path in files:
        where = f"fastjcs digest: {one_line(source_name(path))}:"

        wipe = [lambda: None]  # the progress bar's, once it is drawn

        def report(notes: list[str], where: str = where, wipe: list = wipe) -> None:
            out.flush()  # the error lines first: a failing stdout is reported before any note
            wipe[0]()
            for text in (where, ("\n" + where).join(notes), "\n"):  # no copy of the joined notes
                sys.stderr.write(text)

        with ExitStack() as opened:
            try:
                stream = opened.enter_context(open_source(path))
            except CLIError as exc:  # a FILE that cannot be opened; an error once it streams ends the run
                if len(files) == 1:
                    raise
                out.flush()
                print(f"fastjcs digest: {one_line(str(exc))}", file=sys.stderr)
                unreadable += 1
                continue
            jobs = _jsonl_workers(path, args.jobs, chunk)  # said once the input is open
            update, close, wipe[0] = _progress_bar(args, path)
            try:
                failed += _jsonl.digest_stream(stream, settings, jobs, write, report, args.fail_fast, update, chunk)
            finally:
                close()
        if failed and args.fail_fast:
            break
    out.flush()
    return EXIT_ERROR if failed or unreadable else EXIT_OK  # a line that is not JSON is bad input, as a FILE is


# ---- digest over many files (--output-dir) ----------------------------------------------------


def _is_job(args: argparse.Namespace) -> bool:
    """Is this `digest` a job over files (--output-dir)? Refuses the options that need one."""
    if args.output_dir is None:
        for given, name in (
            (args.parquet, "--parquet"),
            (args.column, "--column"),
            (args.append, "--append"),
            (args.cluster, "--cluster"),
            (args.resume, "--resume"),
        ):
            if given:
                raise CLIError(f"{name} applies to a job over files: give --output-dir DIR")
        return False
    if args.jsonl == args.parquet:
        raise CLIError("--output-dir takes --jsonl or --parquet (one of them)")
    if args.parquet and not args.column:
        raise CLIError("--parquet needs --column NAME (the column of JSON texts)")
    if not args.parquet and (args.column or args.append):
        raise CLIError("--column and --append apply to --parquet")
    if args.file == "-":
        raise CLIError("--output-dir reads files: give FILE (a path, a glob or a URL), not stdin")
    if args.jobs != 1 or args.fail_fast:
        raise CLIError(
            "--jobs and --fail-fast apply to --jsonl on one file (a job's unit is a file; "
            "--cluster local:N runs N at once)"
        )
    return True


def _cluster_workers(spec: str) -> int:
    """The N of --cluster local:N (0 for a scheduler's address); a bad N is a usage error."""
    if not spec.startswith("local:"):
        return 0
    try:
        workers = int(spec[6:])
    except ValueError:
        workers = 0
    if workers < 1:
        raise CLIError(f"--cluster {spec}: local:N takes a number of workers >= 1")
    return workers


@contextmanager
def _client(spec: str) -> Iterator[Any]:
    """A Dask client for --cluster: the scheduler at ADDRESS, or a local cluster (local:N)."""
    import distributed  # present: _digest_job checked

    workers = _cluster_workers(spec)
    if workers:
        # Quiet: the scheduler and the workers log to this command's stderr, which holds one line
        # per failed input line (and a worker lost mid-job is run again, not an error of ours).
        with (
            distributed.LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=":0",
                silence_logs=logging.CRITICAL,
                preload=[WORKER_PRELOAD],  # a Ctrl-C is ours to handle, not each worker's
            ) as cluster,
            distributed.Client(cluster) as client,
        ):
            yield client
        return
    try:
        client = distributed.Client(spec, timeout="20s")
    except (OSError, ValueError) as exc:
        raise CLIError(f"--cluster {spec}: cannot reach the scheduler ({exc})") from exc
    with client:
        yield client


def _job_progress(args: argparse.Namespace, total: int) -> Callable[[Any], None]:
    """A progress line on stderr, per file done, when stderr is a terminal."""
    show = not args.no_progress and sys.stderr.isatty()
    seen = [0, 0]

    def on_result(result: Any) -> None:
        seen[0] += 1
        seen[1] += result.lines
        if show:
            sys.stderr.write(f"\rdigest: {seen[0]}/{total} files, {seen[1]:,} lines")
            if seen[0] == total:
                sys.stderr.write("\n")
            sys.stderr.flush()

    return on_result


def _digest_job(args: argparse.Namespace, settings: Any) -> int:
    from ..bulk import jobs

    kind = "parquet" if args.parquet else "jsonl"
    # What the job needs, checked before any work: a one-line usage error, never an ImportError.
    if args.cluster is not None:
        _cluster_workers(args.cluster)
    needs = [("pyarrow", "--parquet", "arrow")] if kind == "parquet" else []
    needs += [("distributed", "--cluster", "dask")] if args.cluster is not None else []
    for module, option, extra in needs:
        try:
            importlib.import_module(module)
        except ImportError as exc:
            raise CLIError(f"{option} needs {module}: {install_hint(extra)} ({exc})") from exc
    # The hashes load before any output exists: pycryptodome builds its cffi bindings as a module
    # loads (pycparser), and a stop signal landing inside that import surfaced as a TypeError
    # traceback instead of the one-line stop (seen once in a SIGHUP test, mid-file).
    from ..core.hashing import hash_module

    hash_module(settings.algorithm), hash_module("sha256")  # the output's, and the inputs' record
    try:
        sources = jobs.sources_of(args.file)
        jobs.outputs(sources, args.output_dir, kind, [args.file])  # an output that is an input: refused first
        with jobs.locked(args.output_dir):  # one job at a time in a folder
            todo, done = jobs.plan(
                sources, args.output_dir, kind, args.column, args.append, args.resume, settings, [args.file]
            )
            on_result = _job_progress(args, len(todo))
            try:
                if args.cluster is None:
                    ran = jobs.run_local(todo, settings, on_result)
                else:
                    from .. import dask as _dask

                    with _client(args.cluster) as client:
                        ran = _dask.run_tasks(todo, settings, client, on_result)
            except KeyboardInterrupt:  # a signal: the workers of a local cluster are closed by now
                jobs.clean(args.output_dir, [t.output for t in todo])
                raise
            jobs.clean(args.output_dir, [t.output for t in todo])  # what workers killed mid-file left
    except (OSError, ValueError) as exc:  # an input that cannot be read, a missing column...
        filename = getattr(exc, "filename", None)
        where = f"{filename}: " if filename else ""
        raise CLIError(f"{where}{getattr(exc, 'strerror', None) or exc}") from exc
    results = sorted(done + ran, key=lambda r: r.output)
    separator = ":" if kind == "jsonl" else ": "
    failed = 0
    for r in results:
        for note in r.notes:
            sys.stderr.write(f"fastjcs digest: {r.source}{separator}{note}\n")
        failed += r.failed
    print(
        f"{len(results)} files ({len(done)} done by an earlier run), "
        f"{sum(r.lines for r in results)} {'lines' if kind == 'jsonl' else 'rows'}, "
        f"{failed} failed: {args.output_dir}"
    )
    return EXIT_ERROR if failed else EXIT_OK  # bad input, as with --jsonl on one file


# ---- eab -------------------------------------------------------------------------------------

_EAB_FIELDS = ("agent_id", "action_type", "action_scope", "action_timestamp")


def cmd_eab(args: argparse.Namespace) -> int:
    from .. import eab
    from ..core.digests import parse_digest

    given = {name: getattr(args, name) for name in _EAB_FIELDS if getattr(args, name) is not None}
    if args.preimage is not None and given:
        raise CLIError("give the four action fields or --preimage FILE, not both")
    algorithm = args.algorithm
    if args.verify is not None:
        try:
            parsed = parse_digest(args.verify)
        except FastJCSError as exc:
            raise CLIError(f"--verify: {type(exc).__name__}: {exc}") from exc
        algorithm = algorithm or parsed.algorithm
    algorithm = algorithm or "sha256"
    try:
        if args.preimage is not None:
            source = source_name(args.preimage)
            data = read_all(args.preimage)
            try:  # strict JSON first, so a bad file is reported with its position
                value = json.loads(_canonical_text(data))
            except FastJCSError as exc:
                raise CLIError(describe(exc, source)) from exc
            fields = eab.parse_preimage(value)
        else:
            missing = [f"--{name.replace('_', '-')}" for name in _EAB_FIELDS if name not in given]
            if missing:
                raise CLIError("missing " + ", ".join(missing) + " (or give --preimage FILE)")
            fields = eab.ActionFields(*(given[name] for name in _EAB_FIELDS))
        binding = eab.binding(*fields, algorithm=algorithm)
    except FastJCSError as exc:
        raise CLIError(f"{type(exc).__name__}: {exc}") from exc
    if args.print_preimage:
        sys.stdout.buffer.write(eab.preimage(*fields) + b"\n")
    if args.verify is None:
        print(binding)
        return EXIT_OK
    if binding == args.verify:
        print("match")
        return EXIT_OK
    print(f"mismatch: the preimage binds to {binding}")
    return EXIT_NEGATIVE


def _canonical_text(data: bytes) -> bytes:
    from ..core.api import canonicalize

    return canonicalize(data)


# ---- check -----------------------------------------------------------------------------------


def cmd_check(args: argparse.Namespace) -> int:
    """One record: its verdict and violations. Several: each named (`<name>: <verdict>`, or a
    JSON object per line with its "file"), in order; a FILE that cannot be read or is not JSON is
    one line on stderr and the others go on. Exit 2 if any FILE failed, else 1 if any record is
    non-conforming, else 0."""
    files = args.file
    if files.count("-") > 1:
        raise CLIError("'-' (stdin) can be given once")
    if len(files) == 1:
        return _report_check(args, files[0], *_check_one(args, files[0]), named=False)
    status = EXIT_OK
    for path in files:
        try:
            checked = _check_one(args, path)
        except CLIError as exc:  # this FILE; a failure to write stdout ends the run
            sys.stdout.flush()
            print(f"fastjcs check: {one_line(str(exc))}", file=sys.stderr)
            status = EXIT_ERROR
            continue
        verdict = _report_check(args, path, *checked, named=True)
        if verdict != EXIT_OK and status == EXIT_OK:
            status = verdict
    return status


def _check_one(args: argparse.Namespace, path: str) -> tuple[Any, Any]:
    """The CPB checker's result for FILE and its line index; CLIError when it cannot be read or is
    not JSON."""
    from ..core.errors import LineIndex
    from ..cpb import check

    with open_input(path) as data:
        raw = bytes(data)
    try:
        result = check(raw, max_depth=args.max_depth)
    except FastJCSError as exc:
        raise CLIError(describe(exc, source_name(path))) from exc
    return result, LineIndex(raw)  # the violations come in offset order: one pass for all of them


def _report_check(args: argparse.Namespace, path: str, result: Any, where: Any, named: bool) -> int:
    source = source_name(path)
    if args.json:
        body = result.as_dict()
        for v in body["violations"]:
            v["line"], v["column"] = where(v["offset"])
        print(json.dumps({"file": source, **body} if named else body, ensure_ascii=False))
    else:
        _say(f"{_shown(source)}: {result.verdict}" if named else result.verdict)
        for v in result.violations:
            line, column = where(v.offset)
            _say(f"{v.rule} {v.path} {v.code} {source}:{line}:{column}")
    return result.exit_code


# ---- vectors ---------------------------------------------------------------------------------


def suite_kind(path: Path) -> str:
    """ "eab" for an EAB vector file or a directory whose JSON files all are; "capsule" for a
    directory in the Agent Action Capsule layout; "cpb" otherwise."""
    from ..conformance.capsule_vectors import is_capsule_suite
    from ..conformance.eab_vectors import is_eab_file
    from ..conformance.reader import read_document

    if is_capsule_suite(path):
        return "capsule"
    files = [path] if path.is_file() else sorted(path.rglob("*.json"))
    try:
        if files and all(is_eab_file(read_document(f.read_bytes())) for f in files):
            return "eab"
    except (OSError, ValueError, RecursionError):  # not an EAB file: the CPB runner names what is wrong
        pass
    return "cpb"


def run_suite(path: Path, probes: bool, draft: str | None = None):
    from ..conformance import cpb_vectors as vectors
    from ..conformance import eab_vectors as _eab_vectors

    kind = suite_kind(path)
    if kind == "eab":
        files = [path] if path.is_file() else sorted(path.rglob("*.json"))
        return _eab_vectors.run_vectors(files, str(path), probes=probes)
    if kind == "capsule":
        from ..conformance import capsule_vectors

        return capsule_vectors.run_vectors(path, probes=probes)
    if path.is_file():
        raise CLIError(f"{path}: a CPB suite is a directory of vector files")
    return vectors.run_vectors(path, probes=probes, draft=draft)


def cmd_vectors(args: argparse.Namespace) -> int:
    paths = [Path(p) for p in args.paths] or default_suites()
    for p in paths:
        if not p.exists():
            raise CLIError(f"{p}: no such file or directory")
    summaries = [run_suite(p, not args.no_probes, getattr(args, "draft", None)) for p in paths]
    for p, s in zip(paths, summaries):  # a suite of no vector compared nothing: not a pass
        if not s.vectors:
            raise CLIError(f"{p}: no vectors found (nothing compared)")
    ok = all(s.ok for s in summaries)
    if args.json:
        print(json.dumps({"ok": ok, "suites": [s.as_dict() for s in summaries]}, ensure_ascii=False))
    else:
        for s in summaries:
            print(s.report())
        total = sum(len(s.vectors) for s in summaries)
        failed = sum(len(s.failed) + len(s.unclaimed) + len(s.assertion_free) for s in summaries)
        print(
            f"{'OK' if ok else 'FAILED'}: {len(summaries)} suite(s), {total} vectors, "
            f"{sum(len(s.probes) for s in summaries)} mutation probes, {failed} problem(s)"
        )
    return EXIT_OK if ok else EXIT_NEGATIVE


# ---- crosscheck and serve-vector -------------------------------------------------------------


def cmd_crosscheck(args: argparse.Namespace) -> int:
    from ..lab import crosscheck as cc

    if args.impl is None and args.canon_impl is None:
        raise CLIError("give --impl CMD (vector protocol) and/or --canon-impl CMD (canon protocol)")
    if args.documents is not None:
        raise CLIError(
            "--documents is gone: --canon-impl runs the interop lab's corpus; choose it with --corpus SOURCE "
            "(quick by default, gen, es6:N, a file) and --per-category N (docs/interop.md)"
        )
    if args.per_kind is not None:
        raise CLIError(
            "--per-kind is gone: --canon-impl counts every failure by class and shows one shrunk "
            "reproducer per class and family of cases (docs/interop.md)"
        )
    # An option for a protocol that is not run would be silently ignored: refuse it.
    if args.vectors and args.impl is None:
        raise CLIError("--vectors feeds --impl (the vector protocol); --canon-impl takes the lab's corpus (--corpus)")
    if (args.corpus or args.per_category is not None) and args.canon_impl is None:
        raise CLIError("--corpus and --per-category feed --canon-impl (the canon protocol); --impl takes --vectors")
    summary, matrix = cc.Summary(), None
    try:
        if args.impl is not None:
            paths = [Path(p) for p in args.vectors] if args.vectors else default_suites()
            cc.run_vectors(args.impl, paths, summary, args.timeout, args.parallel)
    except cc.NothingCompared as exc:
        raise CLIError(str(exc)) from exc
    if args.canon_impl is not None:
        from ..lab import corpus
        from ..lab import interop as lab
        from ..lab.peers import ended_on_signal

        spec = lab.PeerSpec("canon-impl", args.canon_impl, "one-shot")
        sources = args.corpus or list(corpus.CANON_SOURCES)
        per_category = 50 if args.per_category is None else args.per_category
        cases, meta = _lab_corpus(sources, args.seed, per_category, "crosscheck")
        try:
            with ended_on_signal():
                matrix = lab.run_matrix(
                    [spec], cases, meta, args.timeout, args.shrink_budget, args.newline, False, args.parallel
                )
        except lab.NothingCompared as exc:
            raise CLIError(str(exc)) from exc
    ok = summary.ok and (matrix is None or matrix.ok)
    if args.json:
        body = summary.as_dict() if args.impl is not None else {}
        if matrix is not None:
            body["canon"] = matrix.as_dict()
        print(json.dumps({**body, "ok": ok}, ensure_ascii=False))
    else:
        print("\n".join(([summary.report()] if args.impl is not None else []) + ([matrix.text()] if matrix else [])))
    return EXIT_OK if ok else EXIT_NEGATIVE


# ---- registry: make or migrate an execution registry ----------------------------------------


def cmd_registry(args: argparse.Namespace) -> int:
    """`fastjcs registry create|migrate TARGET`: the explicit schema steps of the execution
    registry (opening one never creates or changes its tables)."""
    from ..eab import ExecutionRegistry, RegistryError

    path = args.target[len("sqlite:///") :] if args.target.startswith("sqlite:///") else args.target
    if path in ("", ":memory:"):  # SQLite's temporary and in-memory databases end with the command
        raise CLIError(
            f"{args.target!r} is a SQLite database that lives only as long as this command: nothing "
            "would persist; give a file path (or sqlite:///PATH, postgresql://...)"
        )
    try:
        if args.action == "create":
            with ExecutionRegistry.create(args.target) as registry:
                print(f"created an empty execution registry at {registry.path}")  # no password shown
        else:
            found, now = ExecutionRegistry.migrate(args.target)
            print(f"format {now}, already current" if found == now else f"migrated from format {found} to {now}")
    except (RegistryError, ValueError) as exc:  # its message names the registry, a URL without its password
        raise CLIError(_in_commands(str(exc), args.target)) from exc
    return EXIT_OK


def _in_commands(message: str, target: str) -> str:
    """A registry's message with the Python calls it suggests (`ExecutionRegistry.create(path)`,
    `open it with ExecutionRegistry(url)`) put as the commands a user of the command line runs."""
    # a URL may hold a password, and the message names it without one: never copy it
    shown = "URL" if "://" in target and not target.startswith("sqlite:") else shlex.quote(target)
    call = r"\((?:path|url|'[^']*'|\"[^\"]*\")\)"
    for pattern, words in (
        (
            rf"ExecutionRegistry\.create never overwrites: open it with ExecutionRegistry{call}",
            f"`fastjcs registry create` never overwrites: the registry is there to be used "
            f"(`fastjcs registry migrate {shown}` brings an older format up to date)",
        ),
        (rf"open it with ExecutionRegistry{call}", "it is there to be used"),
        (r"ExecutionRegistry\((?:path|url)\) opens an existing registry, ", ""),
        (rf"ExecutionRegistry\.create{call}", f"`fastjcs registry create {shown}`"),
    ):
        message = re.sub(pattern, words.replace("\\", "\\\\"), message)  # (words taken literally)
    return message


# ---- interop: the lab ------------------------------------------------------------------------


def _lab_peers(args: argparse.Namespace) -> tuple[list[Any], list[dict[str, str]]]:
    """The peers named on the command line (and their manifests' skipped peers)."""
    from ..lab import interop as lab

    specs: list[Any] = []
    skipped: list[dict[str, str]] = []
    try:
        for path in args.peers or ():
            found, left_out = lab.read_manifest(path)
            specs += found
            skipped += left_out
        specs += [lab.parse_peer(t) for t in args.peer or ()]
        specs += [lab.parse_peer(t, "one-shot") for t in args.one_shot or ()]
    except OSError as exc:
        raise CLIError(f"{exc.filename}: {exc.strerror}") from exc
    except ValueError as exc:
        raise CLIError(str(exc)) from exc
    if args.fastjcs:
        from .. import __version__

        specs.insert(
            0,
            lab.PeerSpec(
                "fastjcs",
                f"{sys.executable} -m fastjcs serve-canon",
                "batch",
                "PyPI",
                "Python + C",
                "fastjcs",
                __version__,
            ),
        )
    if args.only:
        specs = [s for s in specs if any(o in s.name for o in args.only)]
    if not specs:
        raise CLIError("no peer to run: give --peer NAME=CMD, --one-shot NAME=CMD, --peers FILE or --fastjcs")
    names = [s.name for s in specs]
    if len(set(names)) != len(names):
        raise CLIError(f"two peers share a name: {sorted(n for n in set(names) if names.count(n) > 1)}")
    return specs, skipped


def _lab_corpus(sources: list[str], seed: int, per_category: int, name: str) -> tuple[list[Any], dict[str, Any]]:
    """The lab's cases of the named sources, and the run's description for its reports."""
    import datetime

    from .. import __version__
    from ..lab import corpus

    try:
        cases = corpus.load(sources, seed, per_category)
    except (OSError, ValueError, corpus.CorpusCheckError) as exc:
        raise CLIError(f"--corpus: {exc}") from exc
    meta = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "fastjcs": __version__,
        "seed": seed,
        "per_category": per_category,
        "corpus": ", ".join(map(corpus.printable, sources)),
        "command": f"fastjcs {name} "
        + " ".join(f"--corpus {corpus.printable(s)}" for s in sources)
        + f" --seed {seed} --per-category {per_category}",
    }
    return cases, meta


def cmd_interop(args: argparse.Namespace) -> int:
    from ..lab import corpus
    from ..lab import interop as lab

    specs, skipped = _lab_peers(args)
    sources = args.corpus or list(corpus.DEFAULT_SOURCES)
    cases, meta = _lab_corpus(sources, args.seed, args.per_category, "interop")
    from ..lab.peers import ended_on_signal

    try:
        with ended_on_signal():  # a SIGTERM or SIGHUP ends the peers too (they have their own sessions)
            matrix = lab.run_matrix(
                specs, cases, meta, args.timeout, args.shrink_budget, args.newline, not args.no_progress
            )
    except lab.NothingCompared as exc:
        raise CLIError(str(exc)) from exc
    matrix.skipped = skipped
    for path, render in (
        (args.markdown, matrix.markdown),
        (args.html, matrix.html),
        (args.json_report, lambda: json.dumps(matrix.as_dict(), ensure_ascii=False, indent=1)),
    ):
        if path is not None:
            with open_output(path) as out:
                out.write(render().encode("utf-8"))
    print(matrix.text())
    return EXIT_OK if matrix.ok else EXIT_NEGATIVE


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


def cmd_serve_canon(args: argparse.Namespace) -> int:
    """Answer the batch protocol on stdin/stdout (docs/interop.md) with fastjcs, or with an
    in-process canonicalizer `bench` knows (--candidate NAME)."""
    from ..lab import peers as _peers

    canon: Callable[[bytes], bytes]
    if args.candidate is None:
        from ..core import api

        def canon(text: bytes) -> bytes:
            return api.canonicalize(text, max_depth=args.max_depth)
    else:
        from ..lab import bench as _bench

        found, skipped = _bench.candidates()
        chosen = [c for c in found if c.name == args.candidate]
        if not chosen:
            why = skipped.get(args.candidate, "not a candidate `fastjcs bench` knows")
            raise CLIError(f"--candidate {args.candidate}: {why} (known: {', '.join(c.name for c in found)})")
        canon = chosen[0].text
    try:
        _peers.serve(canon, sys.stdin.buffer, sys.stdout.buffer)
    except BrokenPipeError:
        raise
    except OSError as exc:  # stdin closed (`<&-`: held on /dev/null write-only), or unreadable
        raise CLIError(f"<stdin>: {exc.strerror or exc}") from exc
    return EXIT_OK


# ---- bench -----------------------------------------------------------------------------------


def _bench_peers(args: argparse.Namespace) -> list[Any]:
    """The batch peers of `bench --peer NAME=CMD` and `--peers FILE`."""
    from ..lab import interop as lab

    try:
        specs = [s for path in args.peers or () for s in lab.read_peers(path)]
        return specs + [lab.parse_peer(t) for t in args.peer or ()]
    except OSError as exc:
        raise CLIError(f"{exc.filename}: {exc.strerror}") from exc
    except ValueError as exc:
        raise CLIError(str(exc)) from exc


def cmd_bench(args: argparse.Namespace) -> int:
    from ..lab import bench as _bench

    if args.plot is not None:
        try:
            import matplotlib  # noqa: F401
        except ImportError as exc:
            raise CLIError(f"--plot needs matplotlib: {install_hint('plot')}") from exc
    if args.file is None:
        docs = _bench.builtin_corpus(args.corpus_size)
    else:
        try:
            docs = _bench.read_corpus(read_all(args.file))
        except ValueError as exc:
            raise CLIError(f"{source_name(args.file)}: {exc}") from exc
    extra = []
    for spec in args.impl_cmd or ():
        name, sep, command = spec.partition("=")
        if not sep or not name.strip() or not command.strip():
            raise CLIError(f"--impl-cmd {spec!r}: expected NAME=COMMAND")
        try:
            extra.append(_bench.command_candidate(name.strip(), command, args.strip_newline, args.impl_timeout))
        except ValueError as exc:  # shlex: an unclosed quote
            raise CLIError(f"--impl-cmd {spec!r}: {exc}") from exc
    for spec in _bench_peers(args):
        extra.append(_bench.batch_candidate(spec.name, spec.command, args.impl_timeout))
    try:
        result = _bench.measure(docs, args.mode, args.min_time, args.repeat, args.only, extra)
    except (_bench.CannotStart, _bench.NoCandidate) as exc:
        raise CLIError(str(exc)) from exc
    if args.json:
        print(json.dumps(result.as_dict()))
    else:
        print(result.table())
    if args.plot is not None:
        image_format = os.path.splitext(args.plot)[1][1:].lower() or "png"
        try:
            with open_output(args.plot) as out:
                _bench.plot(result, out, image_format)
        except ValueError as exc:  # matplotlib: a format it does not write
            raise CLIError(f"--plot {args.plot}: {exc}") from exc
    return EXIT_OK


# ---- completion ------------------------------------------------------------------------------


def cmd_completion(args: argparse.Namespace) -> int:
    from . import build_parser
    from .completion import script

    sys.stdout.write(script(build_parser(), args.shell))
    return EXIT_OK
