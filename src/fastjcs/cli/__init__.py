"""The `fastjcs` command line.

    fastjcs canon [FILE] [-o PATH] [--check] [--profile jcs|jcs-n] [--exclude NAME]...
                  [--strict-integers] [--max-depth N]
    fastjcs digest [FILE] [--algorithm sha256|sha384] [--profile jcs|jcs-n] [--exclude NAME]...
                   [--jsonl [--jobs N] [--fail-fast] [--no-progress]] [--strict-integers] [--max-depth N]
    fastjcs eab (--agent-id A --action-type T --action-scope S --action-timestamp TS | --preimage FILE)
                [--algorithm sha256|sha384] [--verify BINDING] [--print-preimage]
    fastjcs check [FILE] [--json] [--max-depth N]
    fastjcs vectors [PATH ...] [--json] [--no-probes]
    fastjcs crosscheck (--impl CMD | --canon-impl CMD) [--vectors PATH]... [--documents N] [--seed S]
    fastjcs serve-vector [FILE]
    fastjcs bench [FILE] [--mode text|object] [--json] [--plot PATH] [--only NAME]...

Input is FILE, or stdin when FILE is absent or "-". Exit status: 0 success, 1 a negative verdict
(a mismatch, a non-conforming record, a failed line or vector, a disagreement), 2 bad input or
usage. Errors go to stderr on one line, with the position for text input. README.md ("The command
line") describes every command and the decisions behind them.
"""

from __future__ import annotations

import argparse
import io
import os
import signal
import stat
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO, Callable, Iterator, List, NoReturn, Optional, Sequence, Tuple

from .. import __version__
from ..core.api import DEFAULT_MAX_DEPTH, canonicalize_to
from ..core.errors import CanonicalizationError, FastJCSError
from ..core.hashing import ALGORITHMS
from ..tools import default_suites

EXIT_OK, EXIT_NEGATIVE, EXIT_ERROR = 0, 1, 2


class CLIError(Exception):
    """A one-line error for stderr; exit status 2."""


# ---- input and output ------------------------------------------------------------------------


class Input:
    """A named input (FILE, or stdin for "-"), read to its end.

    Whatever it is (a regular file, a pipe, a FIFO, a character device, /dev/stdin), it is read
    until read() returns nothing: the size fstat gives is never taken for its length, and it is
    never mapped (a mapped file that shrinks kills the process with SIGBUS). A regular file that
    ends before the size it had when it was opened, and is now smaller than that, was truncated
    during the run (a log rotated with copytruncate): that is an error, never a shorter answer.
    (A file whose size is only nominal, as in /sys, ends early but keeps its size.) A failed read
    is an error naming the input.
    """

    def __init__(self, stream: BinaryIO, name: str) -> None:
        self.name = name
        self._stream = stream
        self._done = 0
        self._expected = self._size()
        if self._expected is not None:
            self._expected -= stream.tell()

    def _size(self) -> Optional[int]:
        """The size of a regular file; None for anything else (or a closed stdin: reading says so)."""
        try:
            info = os.fstat(self._stream.fileno())
        except OSError:
            return None
        return info.st_size if stat.S_ISREG(info.st_mode) else None

    def read(self, n: int = -1) -> bytes:
        """Up to n bytes (all that is left for n < 0); b"" at the end."""
        try:
            data = self._stream.read(n)
        except OSError as exc:
            raise CLIError(f"{self.name}: {exc.strerror}") from exc
        self._count(len(data), n < 0 or not data)
        return data

    def readinto(self, buffer: Any) -> int:
        """Fill buffer as far as the input goes; 0 at the end."""
        try:
            got = self._stream.readinto(buffer)
        except OSError as exc:
            raise CLIError(f"{self.name}: {exc.strerror}") from exc
        self._count(got, not got)
        return got

    def _count(self, got: int, at_end: bool) -> None:
        self._done += got
        expected = self._expected
        if at_end and expected is not None and self._done < expected and (self._size() or 0) < expected:
            raise CLIError(f"{self.name}: the file shrank while it was read (it ended after "
                           f"{self._done} of its {expected} bytes): truncated or rotated?")


@contextmanager
def open_source(path: str) -> Iterator[Input]:
    """An Input for FILE, or for stdin when path is "-"."""
    if path == "-":
        yield Input(sys.stdin.buffer, "<stdin>")
        return
    try:
        f = open(path, "rb")
    except OSError as exc:
        raise CLIError(f"{path}: {exc.strerror}") from exc
    with f:
        yield Input(f, path)


@contextmanager
def open_input(path: str) -> Iterator[bytes]:
    """The bytes of FILE, or of stdin for "-", read to the end (see Input)."""
    with open_source(path) as source:
        yield source.read()


@contextmanager
def open_output(path: Optional[str]) -> Iterator[BinaryIO]:
    """stdout, or PATH written atomically: a temporary file beside it, flushed to the disk and
    renamed into place only when the block succeeds, removed otherwise, so PATH never holds a
    partial result. A failed write, flush, sync or rename is a CLIError naming PATH."""
    if path is None or path == "-":
        yield sys.stdout.buffer
        sys.stdout.buffer.flush()
        return
    if not path:
        raise CLIError("-o: an empty path names no file")
    tmp = None
    try:
        directory = os.path.dirname(os.path.abspath(path))
        fd, tmp = tempfile.mkstemp(prefix=".fastjcs-", dir=directory)
        # mkstemp makes the file private (0600): give it the mode PATH has, or the mode a plain
        # open() would have given a new file (0666 less the umask).
        try:
            mode = os.stat(path).st_mode & 0o7777
        except FileNotFoundError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        with os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        tmp = None
    except OSError as exc:
        raise CLIError(f"{path}: {exc.strerror}") from exc
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


class _Stream(io.RawIOBase):
    """The raw layer under sys.stdout and sys.stderr while the command line runs.

    stdout (strict): a failed write is a CLIError naming it, whatever command wrote, and a reader
    that went away is a BrokenPipeError; after a failure, what is still buffered is dropped, so
    the interpreter's flush at exit cannot fail again (Python would print a second message and
    exit 120). stderr (not strict): a failed write is dropped, as there is nowhere to report it.
    """

    def __init__(self, fd: int, name: str, strict: bool) -> None:
        super().__init__()
        self._fd, self._name, self._strict = fd, name, strict
        self._failed = False

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        return os.isatty(self._fd)

    def write(self, data: Any) -> int:
        if self._failed:
            return memoryview(data).nbytes
        try:
            return os.write(self._fd, data)
        except OSError as exc:
            self._failed = True
            if not self._strict:
                return memoryview(data).nbytes
            if isinstance(exc, BrokenPipeError):
                raise
            raise CLIError(f"{self._name}: {exc.strerror}") from None


def _standard_streams() -> None:
    """Make the standard streams safe for a run as a program (not when a caller replaced them).

    A closed descriptor 0, 1 or 2 is held open on /dev/null, or the next file opened would take
    its number (and stdout would write into it): the wrong way round for stdin and stdout, so
    reading or writing them fails with EBADF (an error naming them), write-only for stderr, so
    messages are dropped and never reach stdout. stdout and stderr are then written through
    `_Stream`.
    """
    if (sys.stdin, sys.stdout, sys.stderr) != (sys.__stdin__, sys.__stdout__, sys.__stderr__):
        return
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            held = os.open(os.devnull, os.O_RDONLY if fd == 1 else os.O_WRONLY)
            if held != fd:
                os.dup2(held, fd)
                os.close(held)
    if sys.stdin is None:
        sys.stdin = open(0, "r", closefd=False)
    for fd, name, strict in ((1, "<stdout>", True), (2, "<stderr>", False)):
        old = sys.stdout if fd == 1 else sys.stderr
        stream = io.TextIOWrapper(io.BufferedWriter(_Stream(fd, name, strict)),
                                  encoding=getattr(old, "encoding", None) or "utf-8",
                                  errors=getattr(old, "errors", None) or ("strict" if strict else "backslashreplace"),
                                  line_buffering=getattr(old, "line_buffering", not strict))
        if fd == 1:
            sys.stdout = stream
        else:
            sys.stderr = stream


def _reader_gone() -> int:
    """stdout's reader went away (`| head -1`). End as a Unix tool does: killed by SIGPIPE,
    quietly (a shell reports 141), never with exit 0, as the output was not all delivered."""
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGPIPE)
    return EXIT_ERROR


def describe(exc: BaseException, source: str) -> str:
    """One line: where (file:line:column for text errors) and what."""
    if isinstance(exc, CanonicalizationError) and exc.offset is not None and exc.lineno is not None:
        return f"{source}:{exc.lineno}:{exc.colno}: {type(exc).__name__}: {exc.msg} (byte {exc.offset})"
    if isinstance(exc, FastJCSError):
        return f"{source}: {type(exc).__name__}: {exc}"
    return f"{source}: {exc}"


def source_name(path: str) -> str:
    return "<stdin>" if path == "-" else path


def read_all(path: str) -> bytes:
    """The whole input as bytes (small inputs: a vector, a pre-image, a record)."""
    with open_input(path) as data:
        return bytes(data)


def _positive(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, not {value}")
    return value


def _depth(text: str) -> int:
    """--max-depth: as _positive, and at most sys.maxsize (2^63-1 on 64-bit machines): a number
    past any depth a machine can hold is taken for a mistake, not for "no limit"."""
    value = _positive(text)
    if value > sys.maxsize:
        raise argparse.ArgumentTypeError(f"must be at most {sys.maxsize}, not {text}")
    return value


class _Parser(argparse.ArgumentParser):
    """argparse, with a usage error in one line on stderr (exit 2), like every other error."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_ERROR, f"{self.prog}: {message} (see {self.prog} --help)\n")


def _profile_args(args: argparse.Namespace) -> Tuple[str, Tuple[str, ...]]:
    exclusion = tuple(args.exclude or ())
    if exclusion and args.profile != "jcs-n":
        raise CLIError("--exclude applies to --profile jcs-n (CPB's exclusion set)")
    return args.profile, exclusion


# ---- canon -----------------------------------------------------------------------------------


def cmd_canon(args: argparse.Namespace) -> int:
    source = source_name(args.file)
    profile, exclusion = _profile_args(args)
    with open_input(args.file) as data:
        try:
            if profile == "jcs-n":
                from ..cpb import pre_image_text

                result = pre_image_text(bytes(data), "jcs-n", exclusion, max_depth=args.max_depth)
                run: Callable[[Callable[[Any], Any]], None] = lambda write: write(result)  # noqa: E731
            else:
                run = lambda write: canonicalize_to(  # noqa: E731
                    data, write, max_depth=args.max_depth, strict_integers=args.strict_integers)
            if args.check:
                seen: List[bytes] = []
                run(lambda out: seen.append(bytes(out)))
                if seen[0] != bytes(data):
                    print(f"{source}: not in canonical form", file=sys.stderr)
                    return EXIT_NEGATIVE
                return EXIT_OK
            with open_output(args.output) as out:
                run(out.write)
        except FastJCSError as exc:
            raise CLIError(describe(exc, source)) from exc
    return EXIT_OK


# ---- digest ----------------------------------------------------------------------------------


def _digest_settings(args: argparse.Namespace) -> Any:
    """The settings of a digest run (a `fastjcs.tools.lines.Settings`), checked for conflicts."""
    from ..tools.lines import Settings

    profile, exclusion = _profile_args(args)
    if profile == "jcs-n" and args.algorithm not in (None, "sha256"):
        raise CLIError("--profile jcs-n is SHA-256 only (CPB); leave out --algorithm or give sha256")
    return Settings(args.algorithm or "sha256", profile, exclusion, args.max_depth, args.strict_integers)


def cmd_digest(args: argparse.Namespace) -> int:
    settings = _digest_settings(args)
    if args.jsonl:
        return _digest_jsonl(args, settings)
    if args.jobs != 1 or args.fail_fast:
        raise CLIError("--jobs and --fail-fast apply to --jsonl")
    source = source_name(args.file)
    with open_input(args.file) as data:
        try:
            if settings.profile == "jcs-n":
                from ..cpb import canonical_digest_text

                line = canonical_digest_text(bytes(data), "jcs-n", settings.exclusion,
                                             max_depth=settings.max_depth)
            else:
                from ..core.digests import digest_text

                line = digest_text(data, settings.algorithm, max_depth=settings.max_depth,
                                   strict_integers=settings.strict_integers)
        except FastJCSError as exc:
            raise CLIError(describe(exc, source)) from exc
    sys.stdout.write(line + "\n")
    return EXIT_OK


def _progress_bar(args: argparse.Namespace) -> Tuple[Optional[Callable[[int], None]], Callable[[], None]]:
    """A progress bar on stderr when stderr is a terminal and the input a named file, drawn by
    tqdm when it is installed (the `progress` extra); nothing otherwise."""
    if args.no_progress or args.file == "-" or not sys.stderr.isatty():
        return None, lambda: None
    try:
        from tqdm import tqdm
    except ImportError:
        return None, lambda: None
    bar = tqdm(total=os.path.getsize(args.file), unit="B", unit_scale=True, unit_divisor=1024,
               desc="digest", file=sys.stderr, leave=False)
    return bar.update, bar.close


def _digest_jsonl(args: argparse.Namespace, settings: Any) -> int:
    from ..tools import lines as _jsonl

    source = source_name(args.file)
    jobs = args.jobs or os.cpu_count() or 1
    out = sys.stdout.buffer

    where = f"fastjcs digest: {source}:"

    def report(notes: List[str]) -> None:
        out.flush()  # the error lines first: a failing stdout is reported before any note
        for text in (where, ("\n" + where).join(notes), "\n"):  # no copy of the joined notes
            sys.stderr.write(text)

    with open_source(args.file) as stream:
        update, close = _progress_bar(args)
        try:
            failed = _jsonl.run(stream, settings, jobs, out.write, report, args.fail_fast, update,
                                args.chunk_bytes or _jsonl.CHUNK)
        finally:
            close()
    out.flush()
    return EXIT_NEGATIVE if failed else EXIT_OK


# ---- eab -------------------------------------------------------------------------------------

_EAB_FIELDS = ("agent_id", "action_type", "action_scope", "action_timestamp")


def cmd_eab(args: argparse.Namespace) -> int:
    import json

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
    print(f"mismatch: the pre-image binds to {binding}")
    return EXIT_NEGATIVE


def _canonical_text(data: bytes) -> bytes:
    from ..core.api import canonicalize

    return canonicalize(data)


# ---- check -----------------------------------------------------------------------------------


def cmd_check(args: argparse.Namespace) -> int:
    import json

    from ..core.errors import LineIndex
    from ..cpb import check

    source = source_name(args.file)
    with open_input(args.file) as data:
        raw = bytes(data)
    try:
        result = check(raw, max_depth=args.max_depth)
    except FastJCSError as exc:
        raise CLIError(describe(exc, source)) from exc
    where = LineIndex(raw)  # the violations come in offset order: one pass for all of them
    if args.json:
        body = result.as_dict()
        for v in body["violations"]:
            v["line"], v["column"] = where(v["offset"])
        print(json.dumps(body, ensure_ascii=False))
    else:
        print(result.verdict)
        for v in result.violations:
            line, column = where(v.offset)
            print(f"{v.rule} {v.path} {v.code} {source}:{line}:{column}")
    return result.exit_code


# ---- vectors ---------------------------------------------------------------------------------


def suite_kind(path: Path) -> str:
    """"eab" for an EAB vector file or a directory whose JSON files all are; "cpb" otherwise."""
    import json

    from ..tools.eab_vectors import is_eab_file

    files = [path] if path.is_file() else sorted(path.rglob("*.json"))
    try:
        if files and all(is_eab_file(json.loads(f.read_bytes())) for f in files):
            return "eab"
    except (OSError, ValueError):
        pass
    return "cpb"


def run_suite(path: Path, probes: bool):
    from ..tools import cpb_vectors as vectors, eab_vectors as _eab_vectors

    if suite_kind(path) == "eab":
        files = [path] if path.is_file() else sorted(path.rglob("*.json"))
        return _eab_vectors.run(files, str(path), probes=probes)
    if path.is_file():
        raise CLIError(f"{path}: a CPB suite is a directory of vector files")
    return vectors.run(path, probes=probes)


def cmd_vectors(args: argparse.Namespace) -> int:
    import json

    paths = [Path(p) for p in args.paths] or default_suites()
    for p in paths:
        if not p.exists():
            raise CLIError(f"{p}: no such file or directory")
    summaries = [run_suite(p, not args.no_probes) for p in paths]
    ok = all(s.ok for s in summaries)
    if args.json:
        print(json.dumps({"ok": ok, "suites": [s.as_dict() for s in summaries]}, ensure_ascii=False))
    else:
        for s in summaries:
            print(s.report())
        total = sum(len(s.vectors) for s in summaries)
        failed = sum(len(s.failed) + len(s.unclaimed) + len(s.assertion_free) for s in summaries)
        print(f"{'OK' if ok else 'FAILED'}: {len(summaries)} suite(s), {total} vectors, "
              f"{sum(len(s.probes) for s in summaries)} mutation probes, {failed} problem(s)")
    return EXIT_OK if ok else EXIT_NEGATIVE


# ---- crosscheck and serve-vector -------------------------------------------------------------


def cmd_crosscheck(args: argparse.Namespace) -> int:
    import json

    from ..tools import crosscheck as cc

    if args.impl is None and args.canon_impl is None:
        raise CLIError("give --impl CMD (vector protocol) and/or --canon-impl CMD (canon protocol)")
    summary = cc.Summary()
    if args.impl is not None:
        paths = [Path(p) for p in args.vectors] if args.vectors else default_suites()
        cc.run_vectors(args.impl, paths, summary, args.timeout, args.parallel)
    if args.canon_impl is not None and args.documents:
        cc.run_documents(args.canon_impl, args.documents, args.seed, summary, args.timeout, args.parallel,
                         args.shrink_budget, args.per_kind)
    if args.json:
        print(json.dumps(summary.as_dict(), ensure_ascii=False))
    else:
        print(summary.report())
    return EXIT_OK if summary.ok else EXIT_NEGATIVE


def cmd_serve_vector(args: argparse.Namespace) -> int:
    from ..tools import protocol as _protocol

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


# ---- bench -----------------------------------------------------------------------------------


def cmd_bench(args: argparse.Namespace) -> int:
    import json

    from ..tools import bench as _bench

    if args.plot is not None:
        try:
            import matplotlib  # noqa: F401
        except ImportError as exc:
            raise CLIError("--plot needs matplotlib: pip install 'fastjcs[plot]'") from exc
    if args.file is None:
        docs = _bench.builtin_corpus(args.corpus_size)
    else:
        try:
            docs = _bench.read_corpus(read_all(args.file))
        except ValueError as exc:
            raise CLIError(f"{source_name(args.file)}: {exc}") from exc
    result = _bench.run(docs, args.mode, args.min_time, args.repeat, args.only)
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


# ---- the parser ------------------------------------------------------------------------------


def _add_text_policy(p: argparse.ArgumentParser) -> None:
    p.add_argument("--strict-integers", action="store_true",
                   help="refuse integer tokens outside +/-(2^53-1) instead of rounding them (I-JSON)")
    p.add_argument("--max-depth", type=_depth, default=DEFAULT_MAX_DEPTH, metavar="N",
                   help=f"deepest nesting allowed (default {DEFAULT_MAX_DEPTH})")


def _add_profile(p: argparse.ArgumentParser) -> None:
    p.add_argument("--profile", choices=("jcs", "jcs-n"), default="jcs",
                   help="jcs: RFC 8785 (default); jcs-n: CPB's normal form first (null, [] and {} "
                        "members removed, integers only, NFC-distinct names)")
    p.add_argument("--exclude", action="append", metavar="NAME",
                   help="jcs-n: leave out this top-level member (repeatable; CPB's exclusion set)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="fastjcs", description="RFC 8785 JSON canonicalization (JCS).")
    parser.add_argument("--version", action="version", version=f"fastjcs {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("canon", help="write the canonical form of a JSON text",
                       description="Write the RFC 8785 canonical form of FILE (or stdin) to stdout, "
                                   "byte-exact, with no trailing newline.")
    p.add_argument("file", nargs="?", default="-", metavar="FILE")
    p.add_argument("-o", "--output", metavar="PATH",
                   help="write to PATH atomically (nothing is written on error)")
    p.add_argument("--check", action="store_true",
                   help="write nothing; exit 0 if the input is already canonical, 1 if not")
    _add_profile(p)
    _add_text_policy(p)
    p.set_defaults(run=cmd_canon)

    p = sub.add_parser("digest", help="digest a JSON text, or every line of a JSONL file",
                       description="Print the digest of the canonical form of FILE (or stdin): "
                                   "'<alg>:<hex>' for jcs, bare hex for jcs-n (a CPB identifier).")
    p.add_argument("file", nargs="?", default="-", metavar="FILE")
    p.add_argument("--algorithm", choices=tuple(ALGORITHMS), default=None,
                   help="sha256 (default) or sha384")
    _add_profile(p)
    p.add_argument("--jsonl", action="store_true",
                   help="one digest per input line, in order; a failed line prints 'error:LINE:COL: ...'")
    p.add_argument("--jobs", type=_positive, default=1, metavar="N",
                   help="--jsonl: worker processes (0: one per CPU; default 1)")
    p.add_argument("--fail-fast", action="store_true", help="--jsonl: stop at the first failed line")
    p.add_argument("--no-progress", action="store_true", help="--jsonl: no progress bar")
    p.add_argument("--chunk-bytes", type=_positive, default=None, help=argparse.SUPPRESS)  # tests: many chunks
    _add_text_policy(p)
    p.set_defaults(run=cmd_digest)

    p = sub.add_parser("eab", help="compute or verify an Execution Action Binding v1",
                       description="Compute the cMCP Execution Action Binding v1 of an action, from "
                                   "the four fields or a JSON pre-image file; --verify compares.")
    for name in _EAB_FIELDS:
        p.add_argument("--" + name.replace("_", "-"), dest=name, metavar="TEXT")
    p.add_argument("--preimage", metavar="FILE", help="a JSON pre-image object ('-' for stdin)")
    p.add_argument("--algorithm", choices=tuple(ALGORITHMS), default=None,
                   help="sha256 (default; with --verify, the binding's own)")
    p.add_argument("--verify", metavar="BINDING",
                   help="exit 0 if BINDING is the binding, 1 if not, 2 if BINDING or the input is invalid")
    p.add_argument("--print-preimage", action="store_true", help="also print the JCS pre-image bytes")
    p.set_defaults(run=cmd_eab)

    p = sub.add_parser("check", help="the CPB checker: is a record in jcs-n normal form?",
                       description="Exit 0 verified, 1 non-conforming (violations listed as rule, "
                                   "JSON path, code, position), 2 not JSON or another error.")
    p.add_argument("file", nargs="?", default="-", metavar="FILE")
    p.add_argument("--json", action="store_true", help="print the verdict as one JSON object")
    p.add_argument("--max-depth", type=_depth, default=DEFAULT_MAX_DEPTH, metavar="N")
    p.set_defaults(run=cmd_check)

    p = sub.add_parser("vectors", help="run vector suites with mutation probes",
                       description="Run CPB suites (directories) and EAB vector files; default: the "
                                   "CPB and EAB suites shipped with fastjcs.")
    p.add_argument("paths", nargs="*", metavar="PATH")
    p.add_argument("--json", action="store_true")
    p.add_argument("--no-probes", action="store_true", help="skip the mutation probes")
    p.set_defaults(run=cmd_vectors)

    p = sub.add_parser("crosscheck", help="hold another implementation against fastjcs",
                       description="Run the vectors through CMD over the vector protocol and/or "
                                   "generated documents through CMD over the canon protocol; report "
                                   "each disagreement (shrunk); exit 1 if any.")
    p.add_argument("--impl", metavar="CMD", help="vector protocol: a vector on stdin, "
                   '{"pre_image", "digest"} on stdout, non-zero exit to refuse')
    p.add_argument("--canon-impl", metavar="CMD", help="canon protocol: a JSON text on stdin, its "
                   "canonical bytes on stdout, non-zero exit to refuse")
    p.add_argument("--vectors", action="append", metavar="PATH", help="suites for --impl (default: as `vectors`)")
    p.add_argument("--documents", type=_positive, default=200, metavar="N",
                   help="generated documents for --canon-impl (default 200)")
    p.add_argument("--seed", type=int, default=8785)
    p.add_argument("--per-kind", type=_positive, default=2, metavar="N",
                   help="disagreements shrunk and reported per kind (default 2)")
    p.add_argument("--shrink-budget", type=_positive, default=300, metavar="CALLS")
    p.add_argument("--timeout", type=float, default=20.0, metavar="SECONDS", help="per call")
    p.add_argument("--parallel", type=_positive, default=2, metavar="N", help="calls at once (default 2)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=cmd_crosscheck)

    p = sub.add_parser("serve-vector", help="answer one vector over the vector protocol",
                       description='Read one vector; print {"pre_image", "digest"} and exit 0, exit 1 '
                                   "to refuse it, or print nothing (skipped).")
    p.add_argument("file", nargs="?", default="-", metavar="FILE")
    p.set_defaults(run=cmd_serve_vector)

    p = sub.add_parser("bench", help="compare the canonicalizers installed",
                       description="Probe each canonicalizer for JCS correctness, then time it on "
                                   "the built-in corpus or FILE (a JSON text or JSONL).")
    p.add_argument("file", nargs="?", default=None, metavar="FILE")
    p.add_argument("--mode", choices=("text", "object"), default="text",
                   help="text: JSON text in (default); object: parsed values in")
    p.add_argument("--json", action="store_true")
    p.add_argument("--plot", metavar="PATH", help="draw a bar chart (needs the `plot` extra)")
    p.add_argument("--only", action="append", metavar="NAME", help="candidates whose name contains NAME")
    p.add_argument("--min-time", type=float, default=0.3, metavar="SECONDS")
    p.add_argument("--repeat", type=_positive, default=3)
    p.add_argument("--corpus-size", type=_positive, default=1 << 20, metavar="BYTES")
    p.set_defaults(run=cmd_bench)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    _standard_streams()
    name = "fastjcs"
    try:
        try:
            args = build_parser().parse_args(argv)
        except SystemExit as exc:  # --help, --version (0) or a usage error (2): argparse printed it
            status = exc.code if isinstance(exc.code, int) else EXIT_ERROR
        else:
            name = f"fastjcs {args.command}"
            status = args.run(args)
        sys.stdout.flush()  # here, where a failure is reported, not at the interpreter's exit
        return status
    except CLIError as exc:
        print(f"{name}: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:
        return _reader_gone()
