"""`fastjcs bench`: probe and time the canonicalizers installed."""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

from .common import install_hint
from .options import _duration, _examples, _positive, _seconds
from .streams import EXIT_OK, CLIError, open_output, read_all, source_name


def register(sub: argparse._SubParsersAction) -> None:
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


def _bench_peers(args: argparse.Namespace) -> list[Any]:
    """The batch peers of `bench --peer NAME=CMD` and `--peers FILE`."""
    from ..lab.peers import parse_peer, read_peers

    try:
        specs = [s for path in args.peers or () for s in read_peers(path)]
        return specs + [parse_peer(t) for t in args.peer or ()]
    except OSError as exc:
        raise CLIError(f"{exc.filename}: {exc.strerror}") from exc
    except ValueError as exc:
        raise CLIError(str(exc)) from exc


def cmd_bench(args: argparse.Namespace) -> int:
    from ..lab import bench as _bench
    from ..lab.canonicalizers import CannotStart, batch_candidate, command_candidate

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
            extra.append(command_candidate(name.strip(), command, args.strip_newline, args.impl_timeout))
        except ValueError as exc:  # shlex: an unclosed quote
            raise CLIError(f"--impl-cmd {spec!r}: {exc}") from exc
    for spec in _bench_peers(args):
        extra.append(batch_candidate(spec.name, spec.command, args.impl_timeout))
    try:
        result = _bench.measure(docs, args.mode, args.min_time, args.repeat, args.only, extra)
    except (CannotStart, _bench.NoCandidate) as exc:
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
