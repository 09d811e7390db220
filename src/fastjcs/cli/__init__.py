"""The `fastjcs` command line.

    fastjcs canon [FILE ...] [-o PATH] [--check] [--profile jcs|jcs-n] [--exclude NAME]...
                  [--strict-integers] [--integers-only] [--max-depth N]
    fastjcs digest [FILE ...] [--algorithm sha256|sha384] [--profile jcs|jcs-n] [--exclude NAME]...
                   [--check | --expect DIGEST]
                   [--quiet] [--status] [--ignore-missing] [--strict] [--warn]
                   [--jsonl [--jobs N] [--fail-fast] [--no-progress]] [--strict-integers]
                   [--integers-only] [--max-depth N]
    fastjcs eab (--agent-id A --action-type T --action-scope S --action-timestamp TS | --preimage FILE)
                [--algorithm sha256|sha384] [--verify BINDING] [--print-preimage]
    fastjcs registry (create | migrate) TARGET
    fastjcs check [FILE ...] [--json] [--max-depth N]
    fastjcs vectors [PATH ...] [--json] [--no-probes] [--draft -0N]
    fastjcs crosscheck (--impl CMD | --canon-impl CMD) [--vectors PATH]... [--corpus SOURCE]... [--seed S]
                       [--per-category N] [--newline strip|keep] [--timeout SECONDS]
    fastjcs interop [--peer NAME=CMD]... [--one-shot NAME=CMD]... [--peers FILE]... [--fastjcs]
                    [--corpus SOURCE]... [--seed S] [--per-category N] [--markdown PATH] [--html PATH]
    fastjcs serve-vector [FILE]
    fastjcs serve-canon [--candidate NAME]
    fastjcs bench [FILE] [--mode text|object] [--json] [--plot PATH] [--only NAME]...
                  [--impl-cmd NAME=COMMAND]... [--peer NAME=COMMAND]... [--peers FILE]...
    fastjcs completion bash|zsh|fish

Input is FILE, or stdin when FILE is absent or "-"; `COMMAND --help` gives every option's
default and examples. Exit status: 0 success, 1 a negative verdict (a mismatch, a non-conforming
record, a failed vector, a disagreement), 2 bad input or usage (a FILE, or a line of JSON Lines,
that cannot be read or digested: also when the others were done). Errors go to stderr on one
line, with the position for text input. docs/cli.md describes every command and the decisions
behind them.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from .. import __version__
from ..core.api import DEFAULT_MAX_DEPTH
from ..core.hashing import ALGORITHMS
from .commands import (
    _EAB_FIELDS,
    cmd_bench,
    cmd_canon,
    cmd_check,
    cmd_completion,
    cmd_crosscheck,
    cmd_digest,
    cmd_eab,
    cmd_interop,
    cmd_registry,
    cmd_serve_canon,
    cmd_serve_vector,
    cmd_vectors,
)
from .streams import (
    EXIT_ERROR,
    EXIT_OK,
    CLIError,
    _reader_gone,
    _standard_streams,
    interrupted_status,
    one_line,
    stop_signals,
)


def _count(text: str) -> int:
    """A number of things where 0 means something (none; for --jobs, one per CPU)."""
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, not {value}")
    return value


def _positive(text: str) -> int:
    """A number of things where 0 means nothing (repeats, calls at once, bytes of a corpus)."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, not {value}")
    return value


def _seconds(text: str) -> float:
    """A time limit: a finite number of seconds above 0 (nan waits forever or fails inside,
    a negative one or 0 times every call out at once)."""
    value = float(text)
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a finite number of seconds above 0, not {text}")
    return value


def _duration(text: str) -> float:
    """A time to spend: a finite number of seconds, 0 or more (nan never ends a loop)."""
    value = float(text)
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number of seconds, 0 or more, not {text}")
    return value


_seconds.__name__ = _duration.__name__ = "seconds"  # argparse: "invalid seconds value: 'x'"


def _depth(text: str) -> int:
    """--max-depth: as _count, and at most sys.maxsize (2^63-1 on 64-bit machines): a number
    past any depth a machine can hold is taken for a mistake, not for "no limit"."""
    value = _count(text)
    if value > sys.maxsize:
        raise argparse.ArgumentTypeError(f"must be at most {sys.maxsize}, not {text}")
    return value


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """Help with each option's default ("(default: X)", unless the help already says it or there
    is nothing to say: no default, a flag), descriptions wrapped, and an epilog kept as written
    (a text with a line break is laid out by hand: the examples)."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if "\n" in text:
            return super()._fill_text(text, width, indent)
        return argparse.HelpFormatter._fill_text(self, text, width, indent)

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        if (
            "default" in text
            or default in (None, False, argparse.SUPPRESS)
            or isinstance(action, argparse._StoreConstAction)  # a flag: store_true/false, const
            or not (action.option_strings or action.nargs in ("?", "*"))
        ):
            return action.help
        shown = "stdin" if default in ("-", ["-"]) else str(default).replace("%", "%%")
        return f"{text} (default: {shown})" if text else f"(default: {shown})"


class _Parser(argparse.ArgumentParser):
    """argparse, with a usage error in one line on stderr (exit 2), like every other error,
    naming the help of the command that was given (`fastjcs canon --help`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        message = " ".join(message.split())  # one line, whatever argparse wrapped
        self.exit(EXIT_ERROR, f"{self.prog}: {message} (see '{self.prog} --help')\n")


# ---- the parser ------------------------------------------------------------------------------


_MAX_DEPTH_HELP = "deepest nesting of arrays and objects allowed; deeper input is an error (exit 2)"
_FILES_HELP = "JSON text files; '-' is stdin"


def _examples(*lines: str) -> str:
    """An epilog: the examples of a command, one per line, kept as written."""
    return "examples:\n" + "".join(f"  {line}\n" for line in lines)


def _add_text_policy(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--strict-integers",
        action="store_true",
        help="refuse integer tokens outside +/-(2^53-1) instead of rounding them (I-JSON)",
    )
    p.add_argument(
        "--integers-only",
        action="store_true",
        help="integer-only JCS: also refuse number tokens with a fraction or an exponent part (1.0, 1e2, -0.0)",
    )
    p.add_argument(
        "--max-depth",
        type=_depth,
        default=DEFAULT_MAX_DEPTH,
        metavar="N",
        help=_MAX_DEPTH_HELP,
    )


def _add_profile(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--profile",
        choices=("jcs", "jcs-n"),
        default="jcs",
        help="jcs: RFC 8785; jcs-n (withdrawn by CPB draft -06, for vintage records; "
        "warns): CPB's normal form first (null, [] and {} members removed, integers only, NFC-distinct names)",
    )
    p.add_argument(
        "--exclude",
        action="append",
        metavar="NAME",
        help="jcs-n: leave out this top-level member (repeatable; CPB's exclusion set)",
    )


def _add_job_options(p: argparse.ArgumentParser) -> None:
    """`digest` over many files: FILE is then a path, a glob or an fsspec URL (quoted)."""
    p.add_argument(
        "--output-dir",
        metavar="DIR",
        help="--jsonl or --parquet: one output file per input file under DIR, each written "
        "atomically (FILE may be a glob or an fsspec URL)",
    )
    p.add_argument(
        "--parquet", action="store_true", help="FILE is Parquet: digest the JSON texts of --column (with --output-dir)"
    )
    p.add_argument("--column", metavar="NAME", help="--parquet: the column of JSON texts")
    p.add_argument(
        "--append",
        action="store_true",
        help="--parquet: write the file's own columns, then digest and error (default: row, digest, error)",
    )
    p.add_argument(
        "--cluster",
        metavar="ADDRESS|local:N",
        help="--output-dir: run one task per file on the Dask scheduler at ADDRESS, or on a "
        "local cluster of N worker processes (needs the dask extra)",
    )
    p.add_argument(
        "--resume", action="store_true", help="--output-dir: skip the inputs whose output an earlier run finished"
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="fastjcs",
        description="RFC 8785 JSON canonicalization (JCS). 'fastjcs COMMAND --help' describes a command. "
        "Exit status: 0 success; 1 a negative verdict (a mismatch, a non-conforming record, a failed "
        "vector, a disagreement); 2 bad input or usage (a FILE or a line of JSON Lines that cannot be "
        "read or digested, also when the others were done), with one line on stderr.",
        epilog=_examples(
            "fastjcs canon doc.json",
            "fastjcs digest a.json b.json > SUMS && fastjcs digest --check SUMS",
            "fastjcs --version --verbose",
            "source <(fastjcs completion bash)",
        ),
    )
    parser.add_argument("--version", action="store_true", help="print the version and the backend in use, and exit")
    parser.add_argument(
        "--verbose",
        action="store_true",
        help="with --version: also why the C core is or is not in use, and the versions "
        "of Python, cffi and pycryptodome",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

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
    for flag, text in (  # sha256sum -c's options (commands._CHECK_ONLY refuses them without --check)
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

    p = sub.add_parser(
        "eab",
        help="compute or verify an Execution Action Binding v1",
        description="Compute the cMCP Execution Action Binding v1 of an action, from "
        "the four fields or a JSON preimage file; --verify compares.",
        epilog=_examples(
            "fastjcs eab --agent-id agent-7 --action-type tool.call --action-scope billing "
            "--action-timestamp 2026-01-01T00:00:00Z",
            "fastjcs eab --preimage action.json --print-preimage",
            "fastjcs eab --preimage action.json --verify sha256:<hex>",
        ),
    )
    for name in _EAB_FIELDS:
        p.add_argument("--" + name.replace("_", "-"), dest=name, metavar="TEXT", help=f"the action's {name} (a string)")
    p.add_argument("--preimage", metavar="FILE", help="a JSON preimage object ('-' for stdin)")
    p.add_argument(
        "--algorithm",
        choices=tuple(ALGORITHMS),
        default=None,
        help="sha256 or sha384 (default: sha256; with --verify, the binding's own)",
    )
    p.add_argument(
        "--verify",
        metavar="BINDING",
        help="exit 0 if BINDING is the binding, 1 if not, 2 if BINDING or the input is invalid",
    )
    p.add_argument("--print-preimage", action="store_true", help="also print the JCS preimage bytes")
    p.set_defaults(run=cmd_eab)

    p = sub.add_parser(
        "registry",
        help="create or migrate an execution registry (SQLite or PostgreSQL)",
        description="The explicit schema steps of the EAB execution registry: opening "
        "a registry never creates or changes its tables. TARGET is a path, "
        "sqlite:///PATH or postgresql://...",
        epilog=_examples(
            "fastjcs registry create registry.db",
            "fastjcs registry migrate sqlite:///var/lib/app/registry.db",
            "fastjcs registry create postgresql://app@db.example/app",
        ),
    )
    p.add_argument(
        "action", choices=("create", "migrate"), help="create an empty registry, or bring one to the current format"
    )
    p.add_argument("target", metavar="TARGET", help="a SQLite path, sqlite:///PATH or postgresql://...")
    p.set_defaults(run=cmd_registry)

    p = sub.add_parser(
        "check",
        help="the CPB checker: is a record in jcs-n normal form?",
        description="Exit 0 verified, 1 non-conforming (violations listed as rule, "
        "JSON path, code, position), 2 not JSON or another error. With several FILEs, each "
        "verdict named; a FILE that is not JSON is one line on stderr and the others go on (exit 2).",
        epilog=_examples(
            "fastjcs check record.json", "fastjcs check --json - < record.json", "fastjcs check records/*.json"
        ),
    )
    p.add_argument(
        "file",
        nargs="*",
        default=["-"],
        metavar="FILE",
        help="JSON records; '-' is stdin (several: each verdict named, '<name>: <verdict>')",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help='print the verdict as one JSON object (several FILEs: one per line, with "file")',
    )
    p.add_argument("--max-depth", type=_depth, default=DEFAULT_MAX_DEPTH, metavar="N", help=_MAX_DEPTH_HELP)
    p.set_defaults(run=cmd_check)

    p = sub.add_parser(
        "vectors",
        help="run vector suites with mutation probes",
        description="Run CPB suites (directories) and EAB vector files; default: the "
        "CPB and EAB suites shipped with fastjcs.",
        epilog=_examples("fastjcs vectors", "fastjcs vectors path/to/cpb-suite eab-vectors.json --json"),
    )
    p.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="a CPB suite (a directory) or an EAB vector file (default: the suites shipped)",
    )
    p.add_argument("--json", action="store_true", help="print the summaries as one JSON object")
    p.add_argument("--no-probes", action="store_true", help="skip the mutation probes")
    p.add_argument(
        "--draft",
        choices=("-00", "-01", "-02", "-03", "-04", "-05", "-06"),
        default=None,
        help="the CPB draft revision the CPB suites follow (default: -06; fastjcs's own suite: -01)",
    )
    p.set_defaults(run=cmd_vectors)

    p = sub.add_parser(
        "crosscheck",
        help="hold another implementation against fastjcs",
        description="Run the vectors through CMD over the vector protocol and/or the "
        "interop lab's corpus through CMD over the canon protocol (a one-shot peer of "
        "`interop`: its classes, one shrunk reproducer per class); exit 1 on any "
        "disagreement or failure.",
        epilog=_examples(
            "fastjcs crosscheck --impl 'python3 -m fastjcs serve-vector'",
            "fastjcs crosscheck --canon-impl 'node canon.js' --corpus gen --seed 1",
        ),
    )
    p.add_argument(
        "--impl",
        metavar="CMD",
        help='vector protocol: a vector on stdin, {"pre_image", "digest"} on stdout, non-zero exit to refuse',
    )
    p.add_argument(
        "--canon-impl",
        metavar="CMD",
        help="canon protocol: a JSON text on stdin, its canonical bytes on stdout, non-zero exit to refuse",
    )
    p.add_argument("--vectors", action="append", metavar="PATH", help="suites for --impl (default: as `vectors`)")
    p.add_argument(
        "--corpus",
        action="append",
        metavar="SOURCE",
        help="--canon-impl: the lab's corpus, as for `interop` (quick, gen, vectors, es6:N, a file or "
        "folder; default: quick, about 200 cases, a process each)",
    )
    p.add_argument("--seed", type=int, default=8785, help="--canon-impl: seed of the sampled cases")
    p.add_argument(
        "--per-category",
        type=_positive,
        default=None,
        metavar="N",
        help="--canon-impl with --corpus gen: sampled cases per category (default 50)",
    )
    # gone with the generator the canon protocol had of its own: a one-line error says what replaces them
    p.add_argument("--documents", default=None, help=argparse.SUPPRESS)
    p.add_argument("--per-kind", default=None, help=argparse.SUPPRESS)
    p.add_argument(
        "--newline",
        choices=("strip", "keep"),
        default="strip",
        help="canon protocol: strip one final line ending from each answer, or keep it and compare bytes exactly",
    )
    p.add_argument(
        "--shrink-budget", type=_count, default=300, metavar="CALLS", help="calls spent shrinking each disagreement"
    )
    p.add_argument("--timeout", type=_seconds, default=20.0, metavar="SECONDS", help="per call")
    p.add_argument("--parallel", type=_positive, default=2, metavar="N", help="calls at once")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    p.set_defaults(run=cmd_crosscheck)

    p = sub.add_parser(
        "serve-vector",
        help="answer one vector over the vector protocol",
        description='Read one vector; print {"pre_image", "digest"} and exit 0, exit 1 '
        "to refuse it, or print nothing (skipped).",
        epilog=_examples("fastjcs serve-vector vector.json", "fastjcs serve-vector - < vector.json"),
    )
    p.add_argument("file", nargs="?", default="-", metavar="FILE", help="one vector (JSON); '-' is stdin")
    p.set_defaults(run=cmd_serve_vector)

    p = sub.add_parser(
        "interop",
        help="the interop lab: run canonicalizers over a corpus, write the matrix",
        description="Put every case of the corpus to each peer (batch protocol, or one "
        "process per document), classify every answer, shrink a reproducer "
        "per class of failure, print the matrix (docs/interop.md). Exit 1 when "
        "a peer fails a case, 2 when nothing was compared.",
        epilog=_examples(
            "fastjcs interop --fastjcs --peers interop/build/peers.json --markdown matrix.md",
            "fastjcs interop --one-shot 'node=node canon.js' --corpus gen --per-category 10",
        ),
    )
    p.add_argument("--peer", action="append", metavar="NAME=CMD", help="a peer speaking the batch protocol")
    p.add_argument(
        "--one-shot",
        action="append",
        metavar="NAME=CMD",
        help="a peer run once per document (JSON on stdin, canonical bytes on stdout)",
    )
    p.add_argument("--peers", action="append", metavar="FILE", help="a peers manifest (interop/setup.sh writes one)")
    p.add_argument("--fastjcs", action="store_true", help="also run fastjcs itself, as a peer (the reference row)")
    p.add_argument("--only", action="append", metavar="NAME", help="peers whose name contains NAME")
    p.add_argument(
        "--corpus",
        action="append",
        metavar="SOURCE",
        help="gen, quick, vectors, vectors:PATH, es6:N, or a JSONL file or folder of documents "
        "(default: gen, es6:2000)",
    )
    p.add_argument("--seed", type=int, default=8785, help="seed of the sampled cases")
    p.add_argument(
        "--per-category",
        type=_positive,
        default=50,
        metavar="N",
        help="sampled cases per category, on top of the listed ones (every entry of every list, always)",
    )
    p.add_argument("--timeout", type=_seconds, default=10.0, metavar="SECONDS", help="per answer")
    p.add_argument("--shrink-budget", type=_count, default=400, metavar="CASES", help="per class of failure")
    p.add_argument(
        "--newline",
        choices=("strip", "keep"),
        default="strip",
        help="--one-shot: strip one final line ending from each answer, or keep it",
    )
    p.add_argument("--markdown", metavar="PATH", help="write the matrix as markdown")
    p.add_argument("--html", metavar="PATH", help="write the matrix as a self-contained HTML page")
    p.add_argument("--json", dest="json_report", metavar="PATH", help="write everything as JSON")
    p.add_argument("--no-progress", action="store_true", help="no progress lines on stderr")
    p.set_defaults(run=cmd_interop)

    p = sub.add_parser(
        "serve-canon",
        help="canonicalize documents over the batch protocol",
        description="Read base64 lines (one document each) until end of input; answer "
        "each with `ok <base64 canonical bytes>` or `error <why>` "
        "(docs/interop.md).",
        epilog=_examples(
            "fastjcs serve-canon < documents.b64",
            "fastjcs bench --peer 'rfc8785=fastjcs serve-canon --candidate rfc8785'",
        ),
    )
    p.add_argument(
        "--candidate",
        metavar="NAME",
        help="answer with this in-process canonicalizer of `fastjcs bench` instead of fastjcs",
    )
    p.add_argument("--max-depth", type=_depth, default=DEFAULT_MAX_DEPTH, metavar="N", help=_MAX_DEPTH_HELP)
    p.set_defaults(run=cmd_serve_canon)

    p = sub.add_parser(
        "bench",
        help="compare the canonicalizers installed",
        description="Probe each canonicalizer for JCS correctness, then time it on "
        "the built-in corpus or FILE (a JSON text or JSONL).",
        epilog=_examples(
            "fastjcs bench",
            "fastjcs bench --only fastjcs --only rfc8785 --mode object",
            "fastjcs bench corpus.jsonl --json > bench.json",
            "fastjcs bench --impl-cmd 'node=node canon.js' --strip-newline",
        ),
    )
    p.add_argument(
        "file",
        nargs="?",
        default=None,
        metavar="FILE",
        help="a JSON text or JSON Lines to time on; '-' is stdin (default: the built-in corpus)",
    )
    p.add_argument(
        "--mode",
        choices=("text", "object"),
        default="text",
        help="text: JSON text in; object: parsed values in",
    )
    p.add_argument("--json", action="store_true", help="print the result as one JSON object instead of the table")
    p.add_argument("--plot", metavar="PATH", help="draw a bar chart (needs the `plot` extra)")
    p.add_argument(
        "--only",
        action="append",
        metavar="NAME",
        help="only the candidates whose name contains NAME (repeatable; one that matches none is an error)",
    )
    p.add_argument("--min-time", type=_duration, default=0.3, metavar="SECONDS", help="shortest timing run, in seconds")
    p.add_argument(
        "--repeat", type=_positive, default=3, metavar="N", help="timing runs per candidate (the best one counts)"
    )
    p.add_argument(
        "--corpus-size",
        type=_positive,
        default=1 << 20,
        metavar="BYTES",
        help="size of the built-in corpus (without FILE)",
    )
    p.add_argument(
        "--impl-cmd",
        action="append",
        metavar="NAME=COMMAND",
        help="also time COMMAND, one process per document: JSON text on stdin, canonical "
        "bytes on stdout and exit 0, or a non-zero exit to refuse (repeatable)",
    )
    p.add_argument(
        "--peer",
        action="append",
        metavar="NAME=COMMAND",
        help="time a command speaking the batch protocol (one process for all documents)",
    )
    p.add_argument(
        "--peers", action="append", metavar="FILE", help="time every peer of a manifest (interop/setup.sh writes one)"
    )
    p.add_argument(
        "--strip-newline",
        action="store_true",
        help="the --impl-cmd commands end their output with one newline, not part of the bytes",
    )
    p.add_argument(
        "--impl-timeout",
        type=_seconds,
        default=10.0,
        metavar="SECONDS",
        help="per document for --impl-cmd and --peer (a timeout is a refusal)",
    )
    p.set_defaults(run=cmd_bench)

    p = sub.add_parser(
        "completion",
        help="print a shell completion script (bash, zsh or fish)",
        description="Print a completion script for SHELL, made from this parser: every command, "
        "its options and their choices. Load it in the shell's start-up file.",
        epilog=_examples(
            "source <(fastjcs completion bash)          # in ~/.bashrc",
            "fastjcs completion zsh > ~/.zfunc/_fastjcs  # a directory on $fpath",
            "fastjcs completion fish > ~/.config/fish/completions/fastjcs.fish",
        ),
    )
    p.add_argument("shell", choices=("bash", "zsh", "fish"), metavar="SHELL", help="bash, zsh or fish")
    p.set_defaults(run=cmd_completion)
    return parser


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The commands of the parser and the parser of each, in the order of `fastjcs --help`."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def parse(parser: argparse.ArgumentParser, argv: Sequence[str] | None = None) -> argparse.Namespace:
    """parse_args, with the usage errors argparse words for the whole program worded for the user:
    an unknown command with the closest one ("did you mean 'canon'?"), and an unknown option of a
    command naming that command's help ('fastjcs canon --help'), not the program's."""
    import difflib

    argv = list(sys.argv[1:] if argv is None else argv)
    commands = subcommands(parser)
    given = next((a for a in argv if not a.startswith("-")), None)  # the options before it are flags
    if given is not None and given not in commands:
        close = difflib.get_close_matches(given, list(commands), n=1)
        hint = f"did you mean '{close[0]}'?" if close else "commands: " + ", ".join(commands)
        parser.error(f"unknown command '{given}'; {hint}")
    args, extra = parser.parse_known_args(argv)
    where = commands.get(getattr(args, "command", None) or "", parser)
    if extra:
        where.error(f"unrecognized arguments: {' '.join(extra)}{_closest_option(where, extra)}")
    if args.version and args.command is not None:
        parser.error(f"--version takes no COMMAND ('{args.command}' given): 'fastjcs --version [--verbose]'")
    return args


def _closest_option(parser: argparse.ArgumentParser, extra: Sequence[str]) -> str:
    """ "; did you mean '--algorithm'?" for the first unknown option that is close to one of the
    command's options (a typo: `--algoritm`, `--jsnl`), or nothing."""
    import difflib

    known = [o for a in parser._actions if a.help != argparse.SUPPRESS for o in a.option_strings]
    for word in extra:
        if word.startswith("--"):
            close = difflib.get_close_matches(word.partition("=")[0], known, n=1, cutoff=0.75)
            if close:
                return f"; did you mean '{close[0]}'?"
    return ""


def version_report(verbose: bool = False) -> str:
    """`fastjcs --version`: the version and the backend; with `verbose`, why that backend (the
    C core's import error when it is not in use), where the extension is, and the versions of
    what fastjcs runs on."""
    import platform

    from ..core import backends

    lines = [f"fastjcs {__version__} ({backends.backend()} backend)"]
    if not verbose:
        return lines[0]
    lines.append(f"backend: {backends.why()}")
    native = backends.native_report("sha256")
    if native is not None:
        path, small_calls, oneshot = native
        lines.append(f"C core: {path}")
        lines.append(f"small calls: {small_calls}")
        lines.append(
            "digests in C: pycryptodome's compiled SHA-256 one-shot "
            + ("found" if oneshot else "not found (digests hash through pycryptodome's Python API)")
        )
    lines.append(
        f"python: {platform.python_implementation()} {platform.python_version()} on "
        f"{platform.system()} {platform.machine()}"
    )
    for dist in ("cffi", "pycryptodome"):
        lines.append(f"{dist}: {_dist_version(dist)}")
    return "\n".join(lines)


def _dist_version(name: str) -> str:
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


#: One line on stderr after a run with --profile jcs-n (CPB draft -06 withdrew it).
JCS_N_WARNING = "jcs-n is withdrawn (CPB draft -06, 2026-08-18): for checking vintage records only; new digests use jcs"


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: its exit status. SIGINT, SIGTERM and SIGHUP end a command cleanly (its
    temporary files removed), with one line on stderr and 128 + the signal's number (130 for
    SIGINT, 143 for SIGTERM, 129 for SIGHUP)."""
    _standard_streams()
    with stop_signals():
        return _main(argv)


def _what_did_not_fit(args: argparse.Namespace | None) -> str:
    """The inputs of the command (for an error that has no file of its own)."""
    files = getattr(args, "file", None)
    names = [files] if isinstance(files, str) else list(files or [])
    names = ["stdin" if n == "-" else str(n) for n in names]
    if not names:
        return "the input"
    return "the input " + ", ".join(names[:3]) + (f" (and {len(names) - 3} more)" if len(names) > 3 else "")


def _main(argv: Sequence[str] | None) -> int:
    name = "fastjcs"
    args: argparse.Namespace | None = None
    try:
        parser = build_parser()
        try:
            args = parse(parser, argv)
            if not args.version and (args.verbose or args.command is None):
                parser.error("give a COMMAND (or --version, with --verbose for the details)")
        except SystemExit as exc:  # --help (0) or a usage error (2): argparse printed it
            status = exc.code if isinstance(exc.code, int) else EXIT_ERROR
        else:
            if args.version:
                print(version_report(args.verbose))
                status = EXIT_OK
            else:
                name = f"fastjcs {args.command}"
                status = args.run(args)
        sys.stdout.flush()  # here, where a failure is reported, not at the interpreter's exit
        if getattr(args, "profile", None) == "jcs-n":  # asked for by name: computed, with a warning
            print(f"{name}: warning: {JCS_N_WARNING}", file=sys.stderr)
        return status
    except CLIError as exc:
        print(f"{name}: {one_line(str(exc))}", file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:
        return _reader_gone()
    except MemoryError:  # one line naming what did not fit, never a traceback
        print(
            f"{name}: out of memory: {_what_did_not_fit(args)} did not fit in the memory this process may use",
            file=sys.stderr,
        )
        return EXIT_ERROR
    except RecursionError:  # a document nested past what Python code walks (a vector file, a manifest)
        print(f"{name}: {_what_did_not_fit(args)}: nested too deep to be read", file=sys.stderr)
        return EXIT_ERROR
    except ValueError as exc:  # e.g. a name with a NUL byte given to open(): one line, not a traceback
        print(f"{name}: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt as exc:  # SIGINT, or Interrupted: SIGTERM, SIGHUP
        status, signame = interrupted_status(exc)
        try:
            print(f"{name}: interrupted ({signame})", file=sys.stderr)
            sys.stderr.flush()
        except KeyboardInterrupt:
            pass
        return status
